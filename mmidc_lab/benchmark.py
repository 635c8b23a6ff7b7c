"""Speed benchmark: where the time of training, decoding, loading and scoring goes.

One run measures, on this machine and against its own measured limits:

- the dense matmul peak (fp32, bf16) in GFLOP/s, at the start and the end
  (the best of the two is the peak: the machine may be shared);
- training-step throughput (pairs/s) of the adaptation and captioning stages
  for ViT-B/32 at 224 px and the tiny CPU config, fp32 and bf16 autocast, on
  synthetic tensors (loading excluded); FLOPs per step counted with
  ``FlopCounterMode`` and the model FLOP utilisation (MFU) against the peak
  of the same dtype; the top operators of a profiled step; step variants
  (fused optimizer, ``torch.compile``);
- open_clip's own CLIP training step, as a peer for the MFU (``peer``);
- loader throughput per core from 480x320 PNGs vs the pre-resized cache;
- the training command (``python -m mmidc.cli.train``, what
  ``tools/train.py`` runs) end to end on the real configs over a generated
  480x320 set (``e2e``): pairs/s, the share of an iteration spent waiting
  for data, and the overhead against the step on synthetic tensors;
- captions/s at batch 1 and 64, KV-cached decoding vs the reference-style
  loop, and the captioning command (``python -m mmidc.cli.caption_pair
  --pairs-file``, what ``tools/caption_pair.py`` runs) against the model's own
  batched decoding rate (``cli``);
- the caption head's step with the full 49,408-way softmax vs a restricted
  vocabulary (``python -m mmidc_lab.vocab_speed``);
- with ``--eval``: seconds to score 8,000 pairs (coco-caption, per type).

Prints markdown tables and writes JSON (with the load average beside every
figure: the machine may be shared)::

    python -m mmidc_lab.benchmark --out work_dirs/benchmark/bench.json
    python -m mmidc_lab.benchmark --quick   # tiny config, seconds
    # every GPU row of docs/benchmark.md, written into it:
    python -m mmidc_lab.benchmark --gpu-rows --write-docs docs/benchmark.md
    # the CPU rows of docs/benchmark.md (loader per core, overhead, CLI):
    python -m mmidc_lab.benchmark --cpu-rows --write-docs docs/benchmark.md
"""
import argparse
import sys

import mmidc  # noqa: F401  (registers the components)
import projects.from_scratch  # noqa: F401  (the tiny captioner's head)
from mmidc_lab.benchmarks.benchmark_run import (SECTIONS, VARIANTS, docs_section,
                                            resolve_settings, run_benchmark,
                                            tables_text)
from mmidc_lab.benchmarks.sections import ARCHS, STAGES


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--quick', action='store_true',
                        help='tiny config only, small batches, one step each')
    parser.add_argument('--gpu-rows', action='store_true',
                        help='the GPU rows of docs/benchmark.md: ViT-B/32 steps '
                        '(bf16, batch 128 / 64, fused and compiled variants), '
                        "open_clip's CLIP step, tools/train.py end to end (PNG "
                        'and cache), caption_pair.py vs batched decoding')
    parser.add_argument('--cpu-rows', action='store_true',
                        help='the CPU rows of docs/benchmark.md: loader per core, '
                        'tiny configs end to end at batch 16, caption_pair.py vs '
                        'batched decoding')
    parser.add_argument('--out', default='work_dirs/benchmark/bench.json')
    parser.add_argument('--write-docs', metavar='MD',
                        help='write the tables of this run into the generated '
                        'section of this markdown file (docs/benchmark.md)')
    parser.add_argument('--docs-section', default=None,
                        help='name of the generated section --write-docs fills '
                        '(default: gpu / cpu; another name for a run that adds '
                        'rows to an earlier one)')
    parser.add_argument('--device', default=None, choices=['cpu', 'cuda'])
    parser.add_argument('--threads', type=int, default=None,
                        help='torch intra-op threads (default: all cores)')
    parser.add_argument('--archs', nargs='+', choices=sorted(ARCHS),
                        help='default: vit-b32 tiny (--quick: tiny)')
    parser.add_argument('--dtypes', nargs='+', default=None,
                        choices=['fp32', 'bf16'])
    parser.add_argument('--batch', nargs='+', metavar='[STAGE=]N',
                        help='training batch of the step rows, per stage: '
                        'adaptation=128 captioning=64 (default: vit-b32 8, tiny 64)')
    parser.add_argument('--stages', nargs='+', choices=STAGES, default=list(STAGES),
                        help='stages of the e2e rows (default: both)')
    parser.add_argument('--e2e-sources', nargs='+', choices=['png', 'cache'],
                        help='images of the end-to-end runs: the PNGs and/or the '
                        'pre-resized cache (--image-cache) (default: png cache)')
    parser.add_argument('--e2e-batch', nargs='+', metavar='[STAGE=]N',
                        help="batch of the end-to-end runs (default: the config's)")
    parser.add_argument('--steps', type=int, default=None,
                        help='timed training steps (default 2; --quick 1)')
    parser.add_argument('--sections', nargs='+', choices=SECTIONS,
                        help='what to measure (default: train profile variants '
                        'loader inference vocab)')
    parser.add_argument('--skip', nargs='+', default=[], choices=SECTIONS)
    parser.add_argument('--variants', nargs='+', choices=VARIANTS,
                        help='step variants (default: fused no-dropout)')
    parser.add_argument('--data-dir', default='work_dirs/benchmark/synthetic',
                        help='generated synthetic set, reused when present')
    parser.add_argument('--num-scenes', type=int, default=None,
                        help='scenes to generate (default 64; --quick 4)')
    parser.add_argument('--image-size', default=None,
                        help='WxH of the generated images (default 480x320, '
                        'CLEVR-Change; --quick 96x64)')
    parser.add_argument('--checkpoint', help='captioner checkpoint for the cli '
                        'section (default: random weights)')
    parser.add_argument('--cli-pairs', type=int, default=None)
    parser.add_argument('--cli-batch', type=int, default=None)
    parser.add_argument('--cli-worker-types', nargs='+', choices=['thread', 'process'],
                        help="caption_pair.py's decoding workers to measure "
                        '(default: thread process)')
    parser.add_argument('--decode-steps', type=int, default=31,
                        help="decoding steps after <sot> (31: the paper's 32 tokens)")
    parser.add_argument('--eval', action='store_true',
                        help='also time scoring 8,000 pairs (minutes; needs Java)')
    args = parser.parse_args(argv)
    try:
        return resolve_settings(args)
    except ValueError as err:
        parser.error(str(err))


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    result = run_benchmark(args, ' '.join(
        ['python', '-m', 'mmidc_lab.benchmark'] + argv))
    print('\n' + tables_text(result))
    print(f'\nwritten {args.out}' + (
        f'; tables written into {args.write_docs} (section '
        f'"{docs_section(args)}")' if args.write_docs else ''))
    return 0


if __name__ == '__main__':
    sys.exit(main())
