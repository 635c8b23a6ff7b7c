"""Re-score a predictions file written by ``IDCMetric``.

The file is a JSON list of ``{"pair_id", "prediction", "references",
"change_type"}``. Prints the same table as the metric (total, each change
type, all change pairs, the no-change pairs; x100, CIDEr = CIDEr-D, S*m) under
the scoring protocol of ``--tokenizer`` (docs/evaluation.md) and optionally
writes the scores as JSON.

Example:
    python tools/analysis_tools/eval_captions.py \\
        work_dirs/clip4idc_clevr/20250101_120000/predictions_20250101_130000.json \\
        --out scores.json
    # LEVIR-CC as RSICC scores it: ids of the words seen more than 5 times
    python tools/analysis_tools/eval_captions.py PREDICTIONS.json \\
        --tokenizer rs_ids --min-word-freq 5 --word-freq-rule '>' \\
        --vocab-config configs/clip4idc/clip4idc-caption_vit-b32_levir-cc.py
"""
import argparse
import json
import os.path as osp
import sys

from mmidc.datasets.annotation_checks import load_json
from mmidc.evaluation.metrics.caption_scorer import (METRIC_GROUPS,
                                                     RS_TOKENIZERS,
                                                     TOKENIZERS,
                                                     CaptionScorer,
                                                     format_score_table,
                                                     subset_counts)
from mmidc.evaluation.metrics.rs_protocols import (RS_NO_CHANGE_SENTENCES,
                                                   WORD_FREQ_RULES)
from mmidc.cli import working_dir_on_path


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
        '--tokenizer', default='auto', choices=TOKENIZERS,
        help="the scoring protocol: PTB (Java) or the Java-free Python "
        "tokenizer (default: PTB when Java is found), or the remote-sensing "
        "rs_words / rs_ids (docs/evaluation.md)")
    parser.add_argument(
        '--min-word-freq', type=int,
        help='rs_ids: the word-count threshold of the vocabulary')
    parser.add_argument(
        '--word-freq-rule', choices=WORD_FREQ_RULES,
        help="rs_ids: '>' (RSICC) or '>=' (Chg2Cap) min-word-freq")
    parser.add_argument(
        '--vocab-config',
        help='rs_ids: the config whose training data set\'s captions the '
        'vocabulary counts')
    parser.add_argument(
        '--no-change-sentences', nargs='*',
        help='score the no-change decision with these sentences (default: '
        "LEVIR-CC's five under rs_words / rs_ids, none otherwise)")
    parser.add_argument(
        '--java-timeout', type=float, default=600.,
        help='seconds the PTB tokenizer may run, and METEOR may take for one '
        'answer, before the Java process is killed (default: 600)')
    return parser.parse_args(argv)


def config_vocab(args):
    """The ``rs_ids`` vocabulary of ``--vocab-config``'s training captions."""
    from mmengine.config import Config

    from mmidc.evaluation.metrics import IDCMetric
    from mmidc.runtime.data_root import rebind_derived_paths
    if not args.vocab_config:
        sys.exit('eval_captions: --tokenizer rs_ids needs --vocab-config '
                 '(whose training captions the vocabulary counts), '
                 '--min-word-freq and --word-freq-rule')
    cfg = Config.fromfile(args.vocab_config)
    rebind_derived_paths(cfg, args.vocab_config)
    metric = IDCMetric(tokenizer='rs_ids', java=False,
                       min_word_freq=args.min_word_freq,
                       word_freq_rule=args.word_freq_rule,
                       vocab_datasets=cfg.train_dataloader.dataset,
                       out_file_prefix=None)
    return metric.build_vocab()


def main(argv=None) -> dict:
    args = parse_args(argv)
    working_dir_on_path()  # a project's config (projects.<name>) from a clone's root
    if not osp.isfile(args.predictions):
        sys.exit(f'eval_captions: no such file: {args.predictions}')
    records = load_json(args.predictions)  # names the file when not UTF-8
    if not isinstance(records, list):
        sys.exit(f'eval_captions: {args.predictions} must hold a JSON list '
                 'of {"pair_id", "prediction", "references", "change_type"}')
    per_type = not args.no_per_type
    no_change = args.no_change_sentences
    if no_change is None and args.tokenizer in RS_TOKENIZERS:
        no_change = list(RS_NO_CHANGE_SENTENCES)
    scorer = CaptionScorer(metrics=args.metrics, java=args.java,
                           tokenizer=args.tokenizer,
                           meteor_timeout=args.java_timeout,
                           tokenizer_timeout=args.java_timeout,
                           no_change_sentences=no_change or None)
    if args.tokenizer == 'rs_ids':
        scorer.vocab = config_vocab(args)
    scores = scorer.score(records, per_type=per_type, source=args.predictions)
    print(f'{args.predictions}: {len(records)} pairs '
          f'(scores x100, CIDEr = CIDEr-D, protocol {args.tokenizer!r})')
    print(format_score_table(scores, subset_counts(
        records, per_type, scorer.names_for(records))))
    if args.out:
        with open(args.out, 'w') as f:
            json.dump(scores, f, indent=1)
        print(f'scores written to {args.out}')
    return dict(scores)


if __name__ == '__main__':
    main()
