"""Local web demo: caption two images, show attention maps and retrieval.

    python tools/demo/app.py CONFIG CHECKPOINT \
        [--retrieval-config RCONFIG --retrieval-checkpoint RCKPT] \
        [--examples DIR] [--candidates captions.txt] \
        [--host 127.0.0.1] [--port 7860] [--device cpu] \
        [--max-upload-mb 10] [--max-megapixels 16] [--max-queue 4]

Then open http://127.0.0.1:7860. Everything is served locally (no CDN, no
analytics); it binds to 127.0.0.1 unless ``--host`` says otherwise.
``?example=N`` in the page's URL captions example N on load.

The model runs on one worker thread, so the server keeps answering while it
works; at most ``--max-queue`` caption requests are accepted at a time (more
get a 503). Uploads are refused with a 4xx naming the upload: wrong type
(415), too many bytes or pixels (413), malformed (400), pair mismatch (422)
(``demo_app.py`` beside this file).
"""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # demo_app.py
from demo_app import (DEFAULT_MAX_MEGAPIXELS, DEFAULT_MAX_QUEUE,  # noqa: E402
                                 DEFAULT_MAX_UPLOAD_MB, create_app,
                                 load_candidates)
from mmidc.cli import working_dir_on_path


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description='mmidc local web demo')
    parser.add_argument('config', help='captioning-stage config')
    parser.add_argument('checkpoint', help='captioning-stage checkpoint')
    parser.add_argument('--retrieval-config', help='adaptation-stage config')
    parser.add_argument('--retrieval-checkpoint', help='adaptation-stage checkpoint')
    parser.add_argument('--examples', help='folder of example pairs: a '
                        'CLEVR-Change layout (e.g. the synthetic set), a '
                        'pairs.jsonl, or NAME_before/NAME_after images')
    parser.add_argument('--num-examples', type=int, default=24)
    parser.add_argument('--candidates', help='text file of candidate captions '
                        '(one a line); default: the examples\' captions')
    parser.add_argument('--host', default='127.0.0.1')
    parser.add_argument('--port', type=int, default=7860)
    parser.add_argument('--device', default=None)
    parser.add_argument('--max-upload-mb', type=float, default=DEFAULT_MAX_UPLOAD_MB)
    parser.add_argument('--max-megapixels', type=float, default=DEFAULT_MAX_MEGAPIXELS,
                        help='pixel budget per uploaded image (default '
                        f'{DEFAULT_MAX_MEGAPIXELS:g}): larger JPEGs are decoded '
                        'downscaled, other images refused (413)')
    parser.add_argument('--max-queue', type=int, default=DEFAULT_MAX_QUEUE,
                        help='caption requests accepted at a time (default '
                        f'{DEFAULT_MAX_QUEUE}); more are answered 503')
    args = parser.parse_args(argv)
    if args.max_megapixels <= 0 or args.max_queue < 1:
        parser.error('--max-megapixels must be > 0 and --max-queue >= 1')
    if bool(args.retrieval_config) != bool(args.retrieval_checkpoint):
        parser.error('--retrieval-config and --retrieval-checkpoint go together')
    return args


def main(argv=None):
    args = parse_args(argv)
    working_dir_on_path()  # a project's config (projects.<name>) from a clone's root
    import uvicorn

    from mmidc.apis import IDCInferencer, IDCRetrievalInferencer
    from mmidc.apis.pair_sources import find_example_pairs
    examples = (find_example_pairs(args.examples, args.num_examples)
                if args.examples else [])
    captioner = IDCInferencer(args.config, args.checkpoint, args.device)
    ranker = (IDCRetrievalInferencer(args.retrieval_config,
                                     args.retrieval_checkpoint, args.device)
              if args.retrieval_config else None)
    app = create_app(captioner, ranker, examples,
                     load_candidates(args.candidates, examples),
                     int(args.max_upload_mb * 2**20),
                     max_pixels=int(args.max_megapixels * 1e6),
                     max_queue=args.max_queue)
    if args.host not in ('127.0.0.1', 'localhost', '::1'):
        print(f'warning: serving on {args.host}: reachable from other machines',
              file=sys.stderr)
    print(f'mmidc demo on http://{args.host}:{args.port}')
    uvicorn.run(app, host=args.host, port=args.port, log_level='warning')


if __name__ == '__main__':
    main()
