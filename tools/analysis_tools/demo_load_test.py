"""Load test of the web demo on the loopback interface: latency and errors.

Serves ``tools/demo/app.py`` on a free port of 127.0.0.1 (or uses a running
demo given by ``--url``, which must be on the loopback interface), then
``--clients`` threads each POST ``--requests`` caption requests, one after
another, while a probe GETs ``/api/info`` every 0.2 s to check that the
server keeps answering. Every request has a timeout and the whole run a time
limit, so the test is bounded::

    python tools/analysis_tools/demo_load_test.py CONFIG CHECKPOINT \
        --clients 8 --requests 50 [--max-queue 8] [--pair BEFORE AFTER] \
        [--out work_dirs/demo_load.json]
    python tools/analysis_tools/demo_load_test.py --url http://127.0.0.1:7860

A caption request answered 503 (the demo's queue is full) counts as
*rejected*; any other status but 200, and a timeout or connection error,
counts as an *error* (the exit status is 1 if there was any). Latencies are
those of the answered (200) requests.
Without ``--pair`` the pair is a synthetic 480x320 scene whose square
changes colour.
"""
import argparse
import importlib.util
import io
import json
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple
from urllib.parse import urlparse

import numpy as np

LOOPBACK = ('127.0.0.1', 'localhost', '::1')
REPO = Path(__file__).resolve().parents[2]


def parse_args(argv=None):
    parser = argparse.ArgumentParser(
        description='Loopback load test of the web demo',
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split('\n', 1)[1])
    parser.add_argument('config', nargs='?', help='captioning-stage config')
    parser.add_argument('checkpoint', nargs='?', help='captioning-stage checkpoint')
    parser.add_argument('--url', help='a running demo on 127.0.0.1 instead')
    parser.add_argument('--clients', type=int, default=8)
    parser.add_argument('--requests', type=int, default=50,
                        help='caption requests per client')
    parser.add_argument('--max-queue', type=int, default=None,
                        help='the served demo\'s --max-queue (default: the '
                        'demo\'s)')
    parser.add_argument('--pair', nargs=2, metavar=('BEFORE', 'AFTER'),
                        help='image files to send (default: a synthetic pair)')
    parser.add_argument('--beam', type=int, default=1)
    parser.add_argument('--device', default='cpu')
    parser.add_argument('--timeout', type=float, default=120,
                        help='seconds per request (default 120)')
    parser.add_argument('--max-seconds', type=float, default=1800,
                        help='clients stop sending after this (default 1800)')
    parser.add_argument('--out', help='write the results as JSON here')
    args = parser.parse_args(argv)
    if args.url:
        if args.config or args.checkpoint:
            parser.error('give CONFIG CHECKPOINT or --url, not both')
        if urlparse(args.url).hostname not in LOOPBACK:
            parser.error(f'--url must be on the loopback interface '
                         f'({", ".join(LOOPBACK)}), got {args.url}')
    elif not (args.config and args.checkpoint):
        parser.error('give CONFIG CHECKPOINT (to serve the demo) or --url')
    if args.clients < 1 or args.requests < 1:
        parser.error('--clients and --requests must be >= 1')
    return args


def synthetic_pair(width: int = 480, height: int = 320) -> Tuple[bytes, bytes]:
    """PNG bytes of a grey scene whose one square turns from red to blue."""
    from PIL import Image
    images = []
    for colour in ((200, 30, 30), (30, 30, 200)):
        array = np.full((height, width, 3), 128, np.uint8)
        array[height // 3:height // 2, width // 3:width // 2] = colour
        buffer = io.BytesIO()
        Image.fromarray(array).save(buffer, format='PNG')
        images.append(buffer.getvalue())
    return images[0], images[1]


def multipart(fields: Sequence[Tuple[str, str]],
              files: Sequence[Tuple[str, str, bytes]]) -> Tuple[bytes, str]:
    """(body, content type) of a multipart/form-data request."""
    boundary = uuid.uuid4().hex
    parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"'
             f'\r\n\r\n{value}\r\n'.encode() for name, value in fields]
    for name, filename, data in files:
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; '
                     f'name="{name}"; filename="{filename}"\r\nContent-Type: '
                     f'image/png\r\n\r\n'.encode() + data + b'\r\n')
    body = b''.join(parts) + f'--{boundary}--\r\n'.encode()
    return body, f'multipart/form-data; boundary={boundary}'


def timed_request(request: urllib.request.Request,
                  timeout: float) -> Tuple[Optional[int], float]:
    """(HTTP status or None for a failure without one, seconds)."""
    start = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            response.read()
            status = response.status
    except urllib.error.HTTPError as err:
        err.read()
        status = err.code
    except (OSError, urllib.error.URLError):  # timeout, refused, reset
        status = None
    return status, time.perf_counter() - start


def percentile(values: List[float], q: float) -> Optional[float]:
    return float(np.percentile(values, q)) if values else None


def run_load(url: str, pair: Tuple[bytes, bytes], clients: int, requests: int,
             beam: int = 1, timeout: float = 120,
             max_seconds: float = 1800) -> Dict:
    """Send the requests; returns counts and latency statistics.

    Args:
        url (str): base URL of the demo (loopback).
        pair (tuple[bytes, bytes]): PNG bytes of the before / after image.
        clients (int): concurrent clients (threads).
        requests (int): caption requests per client, one after another.
        beam (int): beam size asked for.
        timeout (float): seconds per request.
        max_seconds (float): clients send no new request after this.
    """
    body, content_type = multipart(
        [('beam', str(beam))], [('before', 'before.png', pair[0]),
                                ('after', 'after.png', pair[1])])
    results: List[Tuple[Optional[int], float]] = []
    probes: List[Tuple[Optional[int], float]] = []
    lock, done = threading.Lock(), threading.Event()
    deadline = time.monotonic() + max_seconds

    def client():
        for _ in range(requests):
            if time.monotonic() > deadline:
                return
            request = urllib.request.Request(
                url + '/api/caption', data=body,
                headers={'Content-Type': content_type})
            outcome = timed_request(request, timeout)
            with lock:
                results.append(outcome)
            if outcome[0] == 503:
                time.sleep(0.2)  # back off a little before the next one

    def probe():
        while not done.wait(0.2):
            probes.append(timed_request(
                urllib.request.Request(url + '/api/info'), timeout))

    threads = [threading.Thread(target=client) for _ in range(clients)]
    prober = threading.Thread(target=probe)
    start = time.perf_counter()
    prober.start()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - start
    done.set()
    prober.join()
    ok = [seconds for status, seconds in results if status == 200]
    info = [seconds for status, seconds in probes if status == 200]
    return dict(
        clients=clients, requests_per_client=requests, sent=len(results),
        ok=len(ok), rejected_503=sum(status == 503 for status, _ in results),
        errors=sum(status not in (200, 503) for status, _ in results),
        wall_s=wall, pairs_per_s=len(ok) / wall,
        latency_p50_s=percentile(ok, 50), latency_p95_s=percentile(ok, 95),
        latency_max_s=max(ok, default=None),
        info_probes=len(probes), info_errors=len(probes) - len(info),
        info_p95_s=percentile(info, 95), info_max_s=max(info, default=None))


def serve_demo(args):
    """Start the demo in this process; returns (url, stop function)."""
    import uvicorn

    from mmidc.apis import IDCInferencer
    spec = importlib.util.spec_from_file_location(
        'mmidc_demo_app', REPO / 'tools' / 'demo' / 'app.py')
    demo = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(demo)
    options = {} if args.max_queue is None else dict(max_queue=args.max_queue)
    application = demo.create_app(
        IDCInferencer(args.config, args.checkpoint, args.device), **options)
    server = uvicorn.Server(uvicorn.Config(
        application, host='127.0.0.1', port=0, log_level='warning'))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(600):
        if server.started:
            break
        time.sleep(0.05)
    if not server.started:
        raise RuntimeError('the demo server did not start within 30 s')
    port = server.servers[0].sockets[0].getsockname()[1]

    def stop():
        server.should_exit = True
        thread.join(timeout=30)
    return f'http://127.0.0.1:{port}', stop


def main(argv=None) -> Dict:
    args = parse_args(argv)
    if args.pair:
        pair = tuple(Path(path).read_bytes() for path in args.pair)
    else:
        pair = synthetic_pair()
    url, stop = (args.url.rstrip('/'), None) if args.url else serve_demo(args)
    try:
        with urllib.request.urlopen(url + '/api/info', timeout=30) as response:
            max_queue = json.loads(response.read()).get('max_queue')
        stats = run_load(url, pair, args.clients, args.requests, args.beam,
                         args.timeout, args.max_seconds)
    finally:
        if stop is not None:
            stop()
    stats['max_queue'] = max_queue
    print(f'{stats["clients"]} clients x {stats["requests_per_client"]} requests '
          f'(queue {max_queue}): {stats["ok"]} ok, {stats["rejected_503"]} '
          f'rejected (503), {stats["errors"]} errors in {stats["wall_s"]:.1f} s '
          f'({stats["pairs_per_s"]:.2f} pairs/s)')
    if stats['ok']:
        print(f'caption latency p50 {stats["latency_p50_s"]:.3f} s, p95 '
              f'{stats["latency_p95_s"]:.3f} s, max {stats["latency_max_s"]:.3f} s')
    if stats['info_probes'] > stats['info_errors']:
        print(f'/api/info under load: {stats["info_probes"]} probes, '
              f'{stats["info_errors"]} errors, p95 {stats["info_p95_s"]:.3f} s, '
              f'max {stats["info_max_s"]:.3f} s')
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(stats, indent=2))
    return stats


if __name__ == '__main__':
    sys.exit(1 if main()['errors'] else 0)
