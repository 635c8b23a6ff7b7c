"""Hostile uploads to the web demo (tools/demo/app.py) over a live server on
127.0.0.1: malformed PNGs, pixel bombs, and a busy model that must not
block the server nor queue without bound."""
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from tests.helpers import load_tool
from tests.helpers.demo_server import get_json, post_form, tiny_model_files
from tests.helpers.hostile_images import malformed_pngs, pixel_bomb_png, png_bytes
from tests.helpers.tiny_models import square_pair

_demo = load_tool('tools/demo/demo_app.py')
create_app, serve_app = _demo.create_app, _demo.serve_app

pytestmark = pytest.mark.usefixtures('one_thread')


@pytest.fixture(scope='module')
def captioner(tmp_path_factory):
    from mmidc.apis import IDCInferencer
    files = tiny_model_files('captioner', tmp_path_factory.mktemp('captioner'))
    return IDCInferencer(*files, device='cpu')


@pytest.fixture(scope='module')
def good_pair():
    before, after, _ = square_pair(size=48)
    return (('before', 'b.png', 'image/png', png_bytes(before)),
            ('after', 'a.png', 'image/png', png_bytes(after)))


class GatedCaptioner:
    """The captioner, with each forward pass held until ``gate`` opens: a
    stand-in for a slow model (a huge upload, a busy CPU)."""

    def __init__(self, captioner):
        self._captioner = captioner
        self.gate = threading.Event()
        self.entered = threading.Semaphore(0)

    def __getattr__(self, name):
        return getattr(self._captioner, name)

    def __call__(self, *args, **kwargs):
        self.entered.release()
        assert self.gate.wait(30), 'the test never opened the gate'
        return self._captioner(*args, **kwargs)


@pytest.mark.parametrize('name', sorted(malformed_pngs()))
def test_malformed_png_is_a_400_naming_the_upload(captioner, good_pair, name):
    upload = ('before', name, 'image/png', malformed_pngs()[name])
    with serve_app(create_app(captioner)) as url:
        status, body = post_form(url + '/api/caption',
                                 files=[upload, good_pair[1]])
        assert status == 400, body
        assert name in body['detail'] and len(body['detail']) < 300
        assert post_form(url + '/api/caption', files=good_pair)[0] == 200


def test_pixel_limit_refuses_bombs_with_413(captioner, good_pair):
    app = create_app(captioner, max_pixels=100_000)
    large = png_bytes(np.zeros((400, 400, 3), np.uint8))  # 0.16 MP, ~1 kB
    with serve_app(app) as url:
        for name, data in (('large.png', large),
                           ('bomb.png', pixel_bomb_png(100_000, 100_000))):
            status, body = post_form(url + '/api/caption', files=[
                ('before', name, 'image/png', data), good_pair[1]])
            assert status == 413, body
            assert name in body['detail'] and 'megapixels' in body['detail']
        info = get_json(url + '/api/info')[1]
        assert info['max_megapixels'] == 0.1


def test_busy_model_neither_blocks_the_server_nor_queues_without_bound(
        captioner, good_pair):
    """While the model works on one pair, the server answers other requests
    at once; with ``max_queue`` requests accepted, the next gets a 503 and
    every accepted one is answered once the model is free."""
    gated = GatedCaptioner(captioner)
    with serve_app(create_app(gated, max_queue=2)) as url, \
            ThreadPoolExecutor(2) as clients:
        try:
            first = clients.submit(post_form, url + '/api/caption',
                                   files=good_pair)
            assert gated.entered.acquire(timeout=30), 'no forward pass began'
            start = time.perf_counter()
            with urllib.request.urlopen(url + '/api/info', timeout=5) as reply:
                assert reply.status == 200
            assert time.perf_counter() - start < 2
            second = clients.submit(post_form, url + '/api/caption',
                                    files=good_pair)
            for _ in range(100):  # until the second one is queued
                if get_json(url + '/api/info')[1]['queued'] == 2:
                    break
                time.sleep(0.05)
            status, body = post_form(url + '/api/caption', files=good_pair,
                                     timeout=5)
            assert status == 503 and 'busy' in body['detail'], body
        finally:
            gated.gate.set()
        assert first.result(timeout=60)[0] == 200
        assert second.result(timeout=60)[0] == 200
        assert get_json(url + '/api/info')[1]['queued'] == 0
