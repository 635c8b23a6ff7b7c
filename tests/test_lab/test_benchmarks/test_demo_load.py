"""mmidc_lab.benchmarks.demo_load: the request body, the synthetic pair and the
summary of a run (a run against a served demo:
tests/test_lab/test_demo_load_test.py)."""
import io

from PIL import Image

from mmidc_lab.benchmarks.demo_load import multipart, summary_lines, synthetic_pair


def test_multipart_body():
    body, content_type = multipart([('beam', '2')],
                                   [('before', 'b.png', 'image/png', b'PNG')])
    boundary = content_type.split('boundary=')[1]
    assert content_type.startswith('multipart/form-data; ')
    assert body == (
        f'--{boundary}\r\nContent-Disposition: form-data; name="beam"\r\n\r\n'
        f'2\r\n--{boundary}\r\nContent-Disposition: form-data; name="before"; '
        f'filename="b.png"\r\nContent-Type: image/png\r\n\r\nPNG\r\n'
        f'--{boundary}--\r\n').encode()


def test_synthetic_pair_differs_in_one_square():
    before, after = (Image.open(io.BytesIO(b)) for b in synthetic_pair(48, 32))
    assert before.size == after.size == (48, 32)
    assert before.getpixel((0, 0)) == after.getpixel((0, 0))
    assert before.getpixel((20, 12)) != after.getpixel((20, 12))


def test_summary_lines():
    stats = dict(clients=2, requests_per_client=3, max_queue=4, ok=0,
                 rejected_503=6, errors=0, wall_s=1.25, pairs_per_s=0.0,
                 info_probes=3, info_errors=0, info_p95_s=0.01,
                 info_max_s=0.02)
    lines = summary_lines(stats)
    assert lines == [
        '2 clients x 3 requests (queue 4): 0 ok, 6 rejected (503), 0 errors '
        'in 1.2 s (0.00 pairs/s)',
        '/api/info under load: 3 probes, 0 errors, p95 0.010 s, max 0.020 s']
    stats.update(ok=1, latency_p50_s=0.5, latency_p95_s=0.5, latency_max_s=0.5)
    assert summary_lines(stats)[1] == ('caption latency p50 0.500 s, p95 '
                                       '0.500 s, max 0.500 s')
