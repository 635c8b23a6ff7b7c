"""tools/demo/demo_app.py: endpoints over a live local server, and the page in
headless Chromium.

FastAPI's TestClient needs httpx, which this environment lacks, so the app
runs under uvicorn in a thread on 127.0.0.1 and is called with urllib
(tests/helpers/demo_server.py).
"""
import json
import os
import re
import shutil
import subprocess
import urllib.error
import urllib.request

import pytest
from PIL import Image

from tests.helpers import load_tool
from tests.helpers.demo_server import post_form, tiny_model_files
from tests.helpers.hostile_images import png_bytes
from tests.helpers.tiny_models import CAPTIONS, square_pair

_demo = load_tool('tools/demo/demo_app.py')
create_app, load_candidates, serve_app = (_demo.create_app, _demo.load_candidates,
                                         _demo.serve_app)

pytestmark = pytest.mark.usefixtures('one_thread')


@pytest.fixture(scope='module')
def captioner_files(tmp_path_factory):
    return tiny_model_files('captioner', tmp_path_factory.mktemp('captioner'))


@pytest.fixture(scope='module')
def retriever_files(tmp_path_factory):
    return tiny_model_files('retriever', tmp_path_factory.mktemp('retriever'))


@pytest.fixture(scope='module')
def examples_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp('examples')
    records = []
    for i, (old, new) in enumerate([((220, 30, 30), (30, 30, 220)),
                                    ((30, 30, 220), (220, 30, 30))]):
        before, after, _ = square_pair(old, new, size=48)
        Image.fromarray(before).save(folder / f'{i}_1.png')
        Image.fromarray(after).save(folder / f'{i}_2.png')
        records.append(dict(img1=f'{i}_1.png', img2=f'{i}_2.png',
                            captions=[CAPTIONS[i]], pair_id=f'ex{i}'))
    (folder / 'pairs.jsonl').write_text('\n'.join(map(json.dumps, records)))
    return folder


@pytest.fixture(scope='module')
def server(captioner_files, retriever_files, examples_dir):
    """Base URL of the demo served by uvicorn in a thread."""
    from mmidc.apis import IDCInferencer, IDCRetrievalInferencer
    from mmidc.apis.pair_sources import find_example_pairs
    examples = find_example_pairs(str(examples_dir))
    app = create_app(
        IDCInferencer(*captioner_files, device='cpu'),
        IDCRetrievalInferencer(*retriever_files, device='cpu'),
        examples, load_candidates(None, examples) + CAPTIONS[2:],
        max_upload_bytes=20_000)
    with serve_app(app) as url:
        yield url


def _post(url, fields=(), files=()):
    """multipart/form-data POST; returns (status, json body)."""
    return post_form(url, fields, files)


def _png(array) -> bytes:
    return png_bytes(array)


def test_page_info_and_example_images(server):
    with urllib.request.urlopen(server + '/') as response:
        page = response.read().decode()
    assert '/static/app.js' in page and 'http' not in page.replace(
        'http-equiv', '')  # no external resources
    with urllib.request.urlopen(server + '/api/info') as response:
        info = json.loads(response.read())
    assert [e['pair_id'] for e in info['examples']] == ['ex0', 'ex1']
    assert info['retrieval'] and info['num_candidates'] == 4
    with urllib.request.urlopen(server + '/api/examples/1/after') as response:
        assert response.headers['content-type'] == 'image/png'
    # no API documentation pages, nor the schema they would read
    for path in ('/docs', '/redoc', '/openapi.json'):
        with pytest.raises(urllib.error.HTTPError) as error:
            urllib.request.urlopen(server + path)
        assert error.value.code == 404, path


def test_good_upload_gives_caption_attention_and_retrieval(server):
    before, after, _ = square_pair(size=48)
    status, body = _post(server + '/api/caption', [('beam', '2')], [
        ('before', 'b.png', 'image/png', _png(before)),
        ('after', 'a.png', 'image/png', _png(after))])
    assert status == 200, body
    assert body['caption'] and isinstance(body['score'], float)
    assert body['attention_png'].startswith('data:image/png;base64,')
    assert len(body['retrieved']) == 4
    assert {r['caption'] for r in body['retrieved']} == set(CAPTIONS)
    status, body = _post(server + '/api/caption', [('example', '1')])
    assert status == 200 and body['caption']


def test_bad_uploads_get_clear_4xx(server):
    before, after, _ = square_pair(size=48)
    good = ('after', 'a.png', 'image/png', _png(after))
    status, body = _post(server + '/api/caption', files=[
        ('before', 'notes.txt', 'text/plain', b'hello'), good])
    assert status == 415 and 'notes.txt' in body['detail']
    big = ('before', 'big.png', 'image/png', b'\x89PNG' + bytes(30_000))
    status, body = _post(server + '/api/caption', files=[big, good])
    assert status == 413 and 'limit' in body['detail']
    broken = ('before', 'broken.png', 'image/png', b'\x89PNG not really')
    status, body = _post(server + '/api/caption', files=[broken, good])
    assert status == 400 and 'broken.png' in body['detail']
    wide = ('before', 'wide.png', 'image/png', _png(before[:12]))
    status, body = _post(server + '/api/caption', files=[wide, good])
    assert status == 200, body  # another shape: captioned as in training
    status, body = _post(server + '/api/caption', files=[good])
    assert status == 422 and 'two images' in body['detail']
    status, body = _post(server + '/api/caption', [('example', '7')])
    assert status == 404


def test_16_bit_png_and_float_tiff_uploads_are_captioned(server, tmp_path):
    """Remote-sensing rasters: a 16-bit PNG and a float32 TIFF upload are
    decoded as training decodes them (the config's value_range), not
    refused (a TIFF was a 415) nor read as white or black."""
    from tests.helpers.wide_images import write_wide
    grey16, _ = write_wide(tmp_path, 'grey16')
    floats, _ = write_wide(tmp_path, 'float')
    status, body = _post(server + '/api/caption', files=[
        ('before', 'b.png', 'image/png', grey16.read_bytes()),
        ('after', 'a.tif', 'image/tiff', floats.read_bytes())])
    assert status == 200, body
    assert body['caption']


def _chromium():
    return shutil.which('chromium') or shutil.which('chromium-browser')


needs_chromium = pytest.mark.skipif(
    _chromium() is None and os.environ.get('CI') != 'true',
    reason='no chromium / chromium-browser on PATH (Debian: apt-get install '
    'chromium; tools/run_tests.sh installs it in CI and as root)')


def _dom(url, profile) -> str:
    """The page's DOM after it settled (headless Chromium ``--dump-dom``).
    In CI a missing Chromium fails the test instead of skipping it."""
    assert _chromium() is not None, 'CI: no chromium on PATH'
    command = [_chromium(), '--headless', '--no-sandbox', '--disable-gpu',
               '--disable-dev-shm-usage', f'--user-data-dir={profile}',
               '--virtual-time-budget=30000', '--dump-dom', url]
    return subprocess.run(command, capture_output=True, text=True,
                          timeout=120).stdout


def _tag(dom, element_id) -> str:
    """The opening tag of the element with ``element_id``."""
    match = re.search(rf'<[a-z]+ [^>]*id="{element_id}"[^>]*>', dom)
    assert match, f'no element #{element_id} in the page'
    return match.group(0)


@pytest.mark.browser
@needs_chromium
def test_page_in_headless_chromium_shows_a_caption(server, tmp_path):
    """Load ``/?example=0``: the page picks the example, posts it and shows
    the caption, its score with what the score means, the retrieved captions
    with what their score means, and the attention figure."""
    dom = _dom(f'{server}/?example=0', tmp_path / 'profile')
    assert 'id="caption" data-state="done"' in dom, dom[-2000:]
    caption = dom.split('id="caption" data-state="done">', 1)[1].split('<', 1)[0]
    assert caption.strip()
    assert 'src="data:image/png;base64,' in dom  # the attention figure
    score_help = dom.split(_tag(dom, 'score-help'), 1)[1].split('</p>', 1)[0]
    assert 'log-probability' in score_help and 'confident' in score_help
    assert 'hidden' not in _tag(dom, 'score-help')
    retrieval = dom.split(_tag(dom, 'retrieval-box'), 1)[1].split('</div>', 1)[0]
    assert 'cosine similarity' in retrieval


@pytest.mark.browser
@needs_chromium
def test_first_paint_has_no_broken_images_nor_empty_blocks(server, captioner_files,
                                                          tmp_path):
    """Opened plainly, the page shows the first example's pair (no
    broken-image icons) and labelled example buttons; without examples, a
    placeholder text in each image slot and no Examples block."""
    dom = _dom(server + '/', tmp_path / 'profile')
    for side in ('before', 'after'):
        preview = _tag(dom, f'{side}-preview')
        assert f'src="/api/examples/0/{side}"' in preview and 'hidden' not in preview
        assert 'hidden' in _tag(dom, f'{side}-placeholder')
    assert 'hidden' not in _tag(dom, 'examples-box')
    examples = dom.split(_tag(dom, 'examples'), 1)[1]
    assert examples.count('class="label"') == 2 and '>ex1</span>' in examples

    from mmidc.apis import IDCInferencer
    captioner = IDCInferencer(*captioner_files, device='cpu')
    with serve_app(create_app(captioner)) as url:
        dom = _dom(url + '/', tmp_path / 'profile2')
    for side in ('before', 'after'):
        assert 'hidden' in _tag(dom, f'{side}-preview')
        assert 'hidden' not in _tag(dom, f'{side}-placeholder')
    assert 'hidden' in _tag(dom, 'examples-box')


def _raw_post_head(url, headers):
    """A socket to the demo with a POST /api/caption head sent."""
    import socket
    host, port = url.rsplit('/', 1)[-1].split(':')
    sock = socket.create_connection((host, int(port)), timeout=5)
    head = ['POST /api/caption HTTP/1.1', f'Host: {host}',
            'Content-Type: multipart/form-data; boundary=b0undary',
            *headers, '', '']
    sock.sendall('\r\n'.join(head).encode())
    return sock


def _read_reply(sock) -> bytes:
    data = b''
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            return data
        data += chunk
        if b'\r\n\r\n' in data and data.rstrip().endswith(b'}'):
            return data


def test_an_oversized_upload_is_refused_on_its_content_length(server):
    """A 300 MB body is refused (413) from its head: nothing of it is
    read."""
    sock = _raw_post_head(server, ['Content-Length: 314572800'])
    try:
        reply = _read_reply(sock)  # the body is never sent
    finally:
        sock.close()
    assert reply.startswith(b'HTTP/1.1 413'), reply[:200]
    assert b'request body of 314572800 bytes is larger than the 0.1 MB ' \
        b'allowed (two images of at most 0.0 MB each)' in reply


def test_a_chunked_upload_stops_being_read_past_the_limit(server):
    """Without a Content-Length the body is counted as it is read: past
    the limit (2 x 20 kB + 64 KiB here) the server answers 413 and reads no
    more, so a client sending 64 MB is stopped well before (socket buffers
    hold a few MB)."""
    import select
    sock = _raw_post_head(server, ['Transfer-Encoding: chunked'])
    part = (b'--b0undary\r\nContent-Disposition: form-data; name="before"; '
            b'filename="big.png"\r\nContent-Type: image/png\r\n\r\n')
    chunk = bytes(1 << 16)
    sent, reply = 0, b''
    try:
        sock.sendall(b'%x\r\n%s\r\n' % (len(part), part))
        sock.settimeout(2)
        while sent < 64 << 20:
            if select.select([sock], [], [], 0)[0]:
                break  # the server answered
            sock.sendall(b'%x\r\n%s\r\n' % (len(chunk), chunk))
            sent += len(chunk)
        reply = _read_reply(sock)
    except OSError:  # the server stopped reading (timeout) or closed
        pass
    finally:
        sock.close()
    assert sent < 32 << 20, sent
    if reply:  # the reply may be lost when the server closes first
        assert reply.startswith(b'HTTP/1.1 413'), reply[:200]
        assert b'of more than 105536 bytes' in reply


def test_a_sideways_phone_photo_is_captioned_upright(server):
    """The after photo stored sideways (EXIF orientation 6, 48x80 stored
    for an 80x48 picture): read upright it matches the before photo's
    aspect ratio; read as stored it would be stretched (a warning)."""
    from tests.helpers.exif_images import oriented_bytes, upright_picture
    picture = upright_picture(48, 80)
    status, body = _post(server + '/api/caption', files=[
        ('before', 'b.png', 'image/png', _png(picture)),
        ('after', 'phone.jpg', 'image/jpeg', oriented_bytes(picture, 6,
                                                             'JPEG'))])
    assert status == 200, body
    assert body['caption']
