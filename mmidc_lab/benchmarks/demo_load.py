"""Load test of the web demo: concurrent caption requests, their latency,
rejections and errors, and whether the server keeps answering
(``python -m mmidc_lab.demo_load_test``).

:func:`run_load` has ``clients`` threads each POST ``requests`` caption
requests, one after another, while a probe GETs ``/api/info`` every 0.2 s.
Every request has a timeout and the run a time limit, so the test is
bounded. A caption request answered 503 (the demo's queue is full) counts as
*rejected*; any other status but 200, and a timeout or connection error,
counts as an *error*. Latencies are those of the answered (200) requests.
"""
import io
import threading
import time
import urllib.error
import urllib.request
import uuid
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

__all__ = ['synthetic_pair', 'multipart', 'timed_request', 'run_load',
           'summary_lines']

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
              files: Sequence[Tuple[str, str, str, bytes]]) -> Tuple[bytes, str]:
    """(body, content type) of a multipart/form-data request of ``(name,
    value)`` fields and ``(name, filename, content type, bytes)`` files."""
    boundary = uuid.uuid4().hex
    parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"'
             f'\r\n\r\n{value}\r\n'.encode() for name, value in fields]
    for name, filename, content_type, data in files:
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; '
                     f'name="{name}"; filename="{filename}"\r\nContent-Type: '
                     f'{content_type}\r\n\r\n'.encode() + data + b'\r\n')
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
        [('beam', str(beam))], [('before', 'before.png', 'image/png', pair[0]),
                                ('after', 'after.png', 'image/png', pair[1])])
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


def summary_lines(stats: Dict) -> List[str]:
    """What a run's statistics say: requests, outcomes and rate, the caption
    latency, ``/api/info`` under load."""
    lines = [f'{stats["clients"]} clients x {stats["requests_per_client"]} '
             f'requests (queue {stats.get("max_queue")}): {stats["ok"]} ok, '
             f'{stats["rejected_503"]} rejected (503), {stats["errors"]} '
             f'errors in {stats["wall_s"]:.1f} s ({stats["pairs_per_s"]:.2f} '
             'pairs/s)']
    if stats['ok']:
        lines.append(f'caption latency p50 {stats["latency_p50_s"]:.3f} s, '
                     f'p95 {stats["latency_p95_s"]:.3f} s, max '
                     f'{stats["latency_max_s"]:.3f} s')
    if stats['info_probes'] > stats['info_errors']:
        lines.append(f'/api/info under load: {stats["info_probes"]} probes, '
                     f'{stats["info_errors"]} errors, p95 '
                     f'{stats["info_p95_s"]:.3f} s, max {stats["info_max_s"]:.3f} s')
    return lines
