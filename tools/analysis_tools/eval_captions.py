"""Re-score a predictions file written by ``IDCMetric``.

The file is a JSON list of ``{"pair_id", "prediction", "references",
"change_type"}``. Prints the same table as the metric (total, each change
type, semantic, distractor; x100, CIDEr = CIDEr-D) and optionally writes the
scores as JSON.

Example:
    python tools/analysis_tools/eval_captions.py \\
        work_dirs/clip4idc_clevr/20250101_120000/predictions_20250101_130000.json \\
        --out scores.json
"""
import argparse
import json
import os.path as osp
import sys

from mmidc.datasets.annotation_checks import load_json
from mmidc.evaluation.metrics.caption_scorer import (METRIC_GROUPS,
                                                     CaptionScorer,
                                                     format_score_table,
                                                     subset_counts)


def parse_args(argv=None):
    parser = argparse.ArgumentParser(
        description='Score IDC predictions (coco-caption metrics, per type).')
    parser.add_argument('predictions', help='predictions JSON from IDCMetric')
    parser.add_argument('--out', help='write the scores to this JSON file')
    parser.add_argument(
        '--metrics',
        nargs='+',
        default=list(METRIC_GROUPS),
        choices=METRIC_GROUPS,
        help='metric groups to compute (default: all)')
    parser.add_argument(
        '--no-per-type',
        action='store_true',
        help='only score all pairs together')
    parser.add_argument(
        '--java', help='java binary (default: $MMIDC_JAVA or java on PATH)')
    parser.add_argument(
        '--tokenizer', default='auto', choices=['auto', 'ptb', 'python'],
        help="PTB (Java) or the Java-free Python tokenizer (default: PTB "
        "when Java is found)")
    parser.add_argument(
        '--java-timeout', type=float, default=600.,
        help='seconds the PTB tokenizer may run, and METEOR may take for one '
        'answer, before the Java process is killed (default: 600)')
    return parser.parse_args(argv)


def main(argv=None) -> dict:
    args = parse_args(argv)
    if not osp.isfile(args.predictions):
        sys.exit(f'eval_captions: no such file: {args.predictions}')
    records = load_json(args.predictions)  # names the file when not UTF-8
    if not isinstance(records, list):
        sys.exit(f'eval_captions: {args.predictions} must hold a JSON list '
                 'of {"pair_id", "prediction", "references", "change_type"}')
    per_type = not args.no_per_type
    scorer = CaptionScorer(metrics=args.metrics, java=args.java,
                           tokenizer=args.tokenizer,
                           meteor_timeout=args.java_timeout,
                           tokenizer_timeout=args.java_timeout)
    scores = scorer.score(records, per_type=per_type, source=args.predictions)
    print(f'{args.predictions}: {len(records)} pairs '
          '(scores x100, CIDEr = CIDEr-D)')
    print(format_score_table(scores, subset_counts(records, per_type)))
    if args.out:
        with open(args.out, 'w') as f:
            json.dump(scores, f, indent=1)
        print(f'scores written to {args.out}')
    return dict(scores)


if __name__ == '__main__':
    main()
