"""Load test of the web demo on the loopback interface: latency and errors.

Serves the web demo (``tools/demo/app.py``'s app) on a free port of
127.0.0.1 (or uses a running demo given by ``--url``, which must be on the
loopback interface), then ``--clients`` threads each POST ``--requests``
caption requests, one after another, while a probe GETs ``/api/info``
every 0.2 s to check that the server keeps answering. Every request has a timeout and the whole run a time
limit, so the test is bounded::

    python -m mmidc_lab.demo_load_test CONFIG CHECKPOINT \
        --clients 8 --requests 50 [--max-queue 8] [--pair BEFORE AFTER] \
        [--out work_dirs/demo_load.json]
    python -m mmidc_lab.demo_load_test --url http://127.0.0.1:7860

A caption request answered 503 (the demo's queue is full) counts as
*rejected*; any other status but 200, and a timeout or connection error,
counts as an *error* (the exit status is 1 if there was any). Latencies are
those of the answered (200) requests.
Without ``--pair`` the pair is a synthetic 480x320 scene whose square
changes colour.
"""
import argparse
import json
import sys
import urllib.request
from pathlib import Path
from typing import Dict
from urllib.parse import urlparse

from mmidc_lab.benchmarks.demo_load import run_load, summary_lines, synthetic_pair

LOOPBACK = ('127.0.0.1', 'localhost', '::1')


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


def main(argv=None) -> Dict:
    args = parse_args(argv)
    pair = (tuple(Path(path).read_bytes() for path in args.pair) if args.pair
            else synthetic_pair())
    if args.url:
        stats = load(args.url.rstrip('/'), pair, args)
    else:
        from mmidc.apis import IDCInferencer
        import importlib.util
        path = Path('tools') / 'demo' / 'demo_app.py'  # the app, from the clone's root
        spec = importlib.util.spec_from_file_location('demo_app', path)
        demo_app = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(demo_app)
        create_app, serve_app = demo_app.create_app, demo_app.serve_app
        options = {} if args.max_queue is None else dict(max_queue=args.max_queue)
        app = create_app(IDCInferencer(args.config, args.checkpoint, args.device),
                         **options)
        with serve_app(app) as url:
            stats = load(url, pair, args)
    print('\n'.join(summary_lines(stats)))
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(stats, indent=2))
    return stats


def load(url: str, pair, args) -> Dict:
    """The demo's queue size, then the load run against it."""
    with urllib.request.urlopen(url + '/api/info', timeout=30) as response:
        max_queue = json.loads(response.read()).get('max_queue')
    stats = run_load(url, pair, args.clients, args.requests, args.beam,
                     args.timeout, args.max_seconds)
    stats['max_queue'] = max_queue
    return stats


if __name__ == '__main__':
    sys.exit(1 if main()['errors'] else 0)
