"""Caption the difference between two images, or many pairs
(``python tools/caption_pair.py`` in a clone; ``python -m
mmidc.cli.caption_pair`` from anywhere).

One pair (prints the caption and its score)::

    python tools/caption_pair.py CONFIG CHECKPOINT before.png after.png \
        [--beam 3] [--device cpu] [--show-attention attention.png]

Many pairs, written as JSONL (one result a line, input order), with a
progress bar::

    python tools/caption_pair.py CONFIG CHECKPOINT \
        --pairs-file pairs.jsonl [--data-root DIR] --out results.jsonl \
        [--batch-size 64] [--workers N] [--device cuda]
    python tools/caption_pair.py CONFIG CHECKPOINT --folder DIR --out results.jsonl

``pairs.jsonl`` uses ImagePairDataset's format (``{"img1": ..., "img2":
..., "pair_id": ...}``, captions optional); a folder pairs
``NAME_before.EXT`` with ``NAME_after.EXT``, ``before/NAME.EXT`` with
``after/NAME.EXT``, or ``A/NAME.EXT`` with ``B/NAME.EXT`` (the
remote-sensing layout, e.g. LEVIR-CC's ``images/test``), in the folder
and its sub-folders (a nested pair's ``pair_id`` is its path from the
folder: ``test/test_000001`` for ``--folder images``). A pair whose
images cannot be used gets an ``error`` record instead of a caption; the
exit status is 1 if any pair failed.
"""
import argparse
import json
import sys
import time
from pathlib import Path

from tqdm import tqdm

from mmidc.cli import working_dir_on_path


def _value_range(text):
    """``--value-range``: ``full``, ``image``, ``percentile`` or ``LOW,HIGH``."""
    from mmidc.datasets.image_io import parse_value_range
    try:
        return parse_value_range(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def parse_args(argv=None):
    parser = argparse.ArgumentParser(
        description='Caption the difference between two images.',
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split('\n', 1)[1])
    parser.add_argument('config', help='captioning-stage config file')
    parser.add_argument('checkpoint', help='trained checkpoint (.pth/.safetensors)')
    parser.add_argument('before', nargs='?', help='the before image')
    parser.add_argument('after', nargs='?', help='the after image')
    parser.add_argument('--pairs-file', help='JSONL/JSON list of pairs')
    parser.add_argument('--data-root', default='',
                        help='folder that --pairs-file image paths are relative to')
    parser.add_argument('--folder', help='folder of NAME_before/NAME_after images, '
                        'or of before/ + after/ or A/ + B/ subfolders; its '
                        'sub-folders are searched too (pair_id: the path from '
                        'the folder, e.g. test/NAME)')
    parser.add_argument('--out', help='JSONL results file (batch forms)')
    parser.add_argument('--beam', type=int, default=None, metavar='N',
                        help='beam search with N beams (1: greedy; default: config)')
    parser.add_argument('--batch-size', type=int, default=64,
                        help='pairs per forward pass (default 64)')
    parser.add_argument('--workers', type=int, default=None,
                        help='image-decoding processes (default: the cores, at '
                        'most 16; 0: decode in the main process)')
    parser.add_argument('--worker-type', default='auto',
                        choices=['auto', 'process', 'thread'],
                        help="kept for old scripts: images are decoded in the "
                        "DataLoader's worker processes ('thread' is deprecated "
                        "and runs on processes too)")
    parser.add_argument('--device', default=None, help="'cpu', 'cuda', 'cuda:1'...")
    parser.add_argument('--max-pixels', type=float, default=40e6,
                        help='pixel budget per image (default 40e6): larger JPEGs '
                        'are decoded downscaled, other formats refused')
    parser.add_argument('--value-range', type=_value_range, default=None,
                        metavar='full|image|percentile|LOW,HIGH',
                        help="how 16-bit and float images map to 8 bits "
                        "(default: the config's LoadImagePair.value_range, "
                        "else 'full': 16-bit 0-65535, float 0-1; 0,4095 for "
                        "12-bit images stored in 16 bits)")
    parser.add_argument('--show-attention', metavar='OUT.png',
                        help='save the attention-map figure of the pair')
    args = parser.parse_args(argv)
    batch_forms = [bool(args.pairs_file), bool(args.folder)]
    single = args.before is not None
    if sum(batch_forms) + single != 1:
        parser.error('give BEFORE AFTER, or --pairs-file, or --folder (one of them)')
    if single and args.after is None:
        parser.error('the AFTER image is missing')
    if not single and not args.out:
        parser.error('--out results.jsonl is required with --pairs-file / --folder')
    if not single and Path(args.out).is_dir():
        parser.error(f'--out {args.out} is a folder: give the results file, '
                     f'e.g. --out {Path(args.out) / "results.jsonl"}')
    if not single and args.show_attention:
        parser.error('--show-attention takes one pair (BEFORE AFTER)')
    if args.beam is not None and args.beam < 1:
        parser.error(f'--beam must be >= 1, got {args.beam}')
    if args.batch_size < 1:
        parser.error(f'--batch-size must be >= 1, got {args.batch_size}')
    if args.workers is not None and args.workers < 0:
        parser.error(f'--workers must be >= 0, got {args.workers}')
    return args


def decode_options(beam):
    if beam is None:
        return {}
    return dict(strategy='greedy') if beam == 1 else dict(strategy='beam', beam_size=beam)


def describe_error(err: Exception) -> str:
    """An error record's text: the message of a bad input (it names the
    image), type and message of anything else."""
    from mmidc.apis import ImageInputError
    if isinstance(err, ImageInputError):
        return str(err)
    return f'{type(err).__name__}: {err}'


def caption_many(inferencer, pairs, out_file, batch_size, workers=None,
                 worker_type='auto'):
    """Caption ``PairRecord`` s in batches (``IDCInferencer.stream``: worker
    processes decode the next batches' images while the model captions the
    current one); returns the number that failed."""
    failed = 0
    Path(out_file).parent.mkdir(parents=True, exist_ok=True)
    batches = inferencer.stream(
        [(p.img1, p.img2) for p in pairs], batch_size,
        pair_ids=[p.pair_id for p in pairs], workers=workers,
        worker_type=worker_type)
    with open(out_file, 'w', encoding='utf-8') as out, \
            tqdm(total=len(pairs), unit='pair', desc='captioning') as bar:
        for results in batches:
            for result in results:
                if 'error' in result:
                    result['error'] = describe_error(result['error'])
                    failed += 1
            out.writelines(json.dumps(r) + '\n' for r in results)
            bar.update(len(results))
    return failed


def main(argv=None):
    args = parse_args(argv)
    working_dir_on_path()  # `projects.<name>` from a clone's root
    from mmidc.apis import IDCInferencer, ImageInputError
    from mmidc.apis.pair_sources import pairs_from_folder, pairs_from_jsonl
    try:
        pairs = None
        if args.pairs_file:
            pairs = pairs_from_jsonl(args.pairs_file, args.data_root)
        elif args.folder:
            pairs = pairs_from_folder(args.folder)
        inferencer = IDCInferencer(args.config, args.checkpoint, args.device,
                                   max_pixels=int(args.max_pixels),
                                   value_range=args.value_range,
                                   **decode_options(args.beam))
        if pairs is None:
            result = inferencer(args.before, args.after)
            print(result['caption'])
            print(f'score (mean log-prob per token): {result["score"]:.4f}')
            if args.show_attention:
                inferencer.visualize_attention(args.before, args.after,
                                               args.show_attention, result['caption'])
                print(f'attention maps saved to {args.show_attention}')
            return 0
    except (ImageInputError, FileNotFoundError, NotADirectoryError, ValueError,
            TypeError, KeyError) as err:
        print(f'error: {err}', file=sys.stderr)
        return 2
    start = time.perf_counter()
    failed = caption_many(inferencer, pairs, args.out, args.batch_size,
                          args.workers, args.worker_type)
    seconds = time.perf_counter() - start
    print(f'{len(pairs) - failed} of {len(pairs)} pairs captioned in '
          f'{seconds:.2f} s ({len(pairs) / seconds:.1f} pairs/s) -> {args.out}')
    if failed:
        print(f'{failed} pair(s) failed: see their "error" in {args.out}', file=sys.stderr)
        hint = data_root_hint(args, pairs)
        if hint:
            print(hint, file=sys.stderr)
    return 1 if failed else 0


def data_root_hint(args, pairs) -> str:
    """Without ``--data-root``, the relative image paths of ``--pairs-file``
    are read from the working directory; when some of them are missing
    there but are in the pairs file's own folder (ImagePairDataset's
    ``train.jsonl`` / ``test.jsonl`` are written relative to it), the
    ``--data-root`` that finds them, else ``''``."""
    import os.path as osp
    if not args.pairs_file or args.data_root:
        return ''
    folder = osp.dirname(osp.abspath(args.pairs_file))
    if folder == osp.abspath('.'):
        return ''
    paths = [p for pair in pairs for p in (pair.img1, pair.img2)
             if not osp.isabs(p) and not osp.exists(p)]
    if not paths or not any(osp.exists(osp.join(folder, p)) for p in paths):
        return ''
    return (f'the image paths of {args.pairs_file} are relative: without '
            f'--data-root they are read from the working directory '
            f'{osp.abspath(".")}, and {len(paths)} of them are not there; the '
            f"file's own folder holds them: --data-root {folder}")


if __name__ == '__main__':
    sys.exit(main())
