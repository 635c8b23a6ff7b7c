"""Score a predictions file, from mmidc or from another code base, under a
paper's scoring protocol.

Reads mmidc's predictions file (references included), coco-caption results
``[{"image_id", "caption"}]``, JSON Lines (``caption_pair.py``'s output
among them) and RSICC / Chg2Cap's ``{"<id>": ["caption"]}``; the
references come from the predictions file (mmidc's), a references file
(``--references``: coco-caption, Karpathy, Spot-the-Diff) or a data-set
config (``--config CONFIG --split test``: the reader's references).
Formats are detected (``--format`` / ``--references-format`` name one).
Every pair of the references needs a prediction (an error names the
missing ones); predictions of pairs the references do not hold are named
in a warning and left out. Prints the same table as ``IDCMetric`` (x100,
CIDEr = CIDEr-D, S*m) and optionally writes the scores as JSON.
docs/evaluation.md: "Reproduce a paper's number".

Example:
    python tools/analysis_tools/eval_captions.py \\
        work_dirs/clip4idc_clevr/20250101_120000/predictions_20250101_130000.json
    # Spot-the-Diff as coco-caption scores it
    python tools/analysis_tools/eval_captions.py results.json \\
        --references gtfile.json --tokenizer ptb
    # LEVIR-CC as RSICC scores it: ids of the words seen more than 5 times
    # in every split of the annotation file
    python tools/analysis_tools/eval_captions.py PREDICTIONS.json \\
        --config configs/clip4idc/clip4idc-caption_vit-b32_levir-cc.py \\
        --tokenizer rs_ids --min-word-freq 5 --word-freq-rule '>' \\
        --vocab-ann-file data/levir_cc/LevirCCcaptions.json \\
        --vocab-field tokens
"""
import argparse
import json
import logging
import os
import os.path as osp
import sys

from mmengine.logging import print_log

from mmidc.cli import working_dir_on_path
from mmidc.runtime.cfg_options import CfgOptionsAction
from mmidc.evaluation.metrics.caption_scorer import (METRIC_GROUPS,
                                                     TOKENIZERS,
                                                     CaptionScorer,
                                                     format_score_table,
                                                     subset_counts)
from mmidc.evaluation.prediction_files import (PREDICTION_FORMATS,
                                               REFERENCE_FORMATS,
                                               match_records,
                                               read_predictions,
                                               read_references)
from mmidc.evaluation.protocols.rs_vocab import WORD_FREQ_RULES
from mmidc.text.no_change import NO_CHANGE_SENTENCES


def parse_args(argv=None):
    parser = argparse.ArgumentParser(
        description='Score change captions (coco-caption metrics, per type) '
        "under a paper's protocol.")
    parser.add_argument('predictions', help='the predictions file')
    parser.add_argument('--format', default='auto',
                        choices=('auto', *PREDICTION_FORMATS),
                        help='the predictions format (default: detected)')
    refs = parser.add_mutually_exclusive_group()
    refs.add_argument('--references', help='a references file')
    refs.add_argument('--config', help="a data-set config: its reader's "
                      'references of --split')
    parser.add_argument('--references-format', default='auto',
                        choices=('auto', *REFERENCE_FORMATS))
    parser.add_argument('--split', default='test',
                        help='the split of --config (or of a Karpathy '
                        'references file) (default: test)')
    parser.add_argument('--cfg-options', nargs='+', action=CfgOptionsAction,
                        help='--config overrides, key=value')
    parser.add_argument('--out', help='write the scores to this JSON file')
    parser.add_argument(
        '--metrics', nargs='+', default=list(METRIC_GROUPS),
        choices=METRIC_GROUPS, help='metric groups to compute (default: all)')
    parser.add_argument('--no-per-type', action='store_true',
                        help='only score all pairs together')
    parser.add_argument(
        '--java', help='java binary (default: $MMIDC_JAVA or java on PATH)')
    parser.add_argument(
        '--tokenizer', default='auto', choices=TOKENIZERS,
        help='the scoring protocol: PTB (Java) or the Java-free Python '
        'tokenizer (default: PTB when Java is found), or the remote-sensing '
        'rs_words / rs_ids (docs/evaluation.md)')
    parser.add_argument(
        '--protocol', help='the protocol as a JSON dict, e.g. '
        '\'{"type": "RSIdsProtocol", "min_word_freq": 5, '
        '"word_freq_rule": ">", "vocab_ann_file": "LevirCCcaptions.json"}\' '
        '(in place of --tokenizer)')
    parser.add_argument('--min-word-freq', type=int,
                        help='rs_ids: the word-count threshold')
    parser.add_argument('--word-freq-rule', choices=WORD_FREQ_RULES,
                        help="rs_ids: '>' (RSICC) or '>=' (Chg2Cap)")
    parser.add_argument(
        '--vocab-ann-file', nargs='+',
        help='rs_ids: the annotation file(s) whose captions (every split) '
        'the vocabulary counts')
    parser.add_argument(
        '--vocab-config',
        help='rs_ids: a config whose train, val and test data sets\' '
        'captions the vocabulary counts (default: --config\'s)')
    parser.add_argument(
        '--vocab-field', choices=('raw', 'tokens'), default='raw',
        help="rs_ids with --vocab-ann-file: count each sentence's raw text "
        "(Chg2Cap, default) or its tokens (RSICC)")
    parser.add_argument('--word-map',
                        help="rs_ids: a paper's {word: id} vocab.json")
    parser.add_argument('--keep-case', action='store_true',
                        help="rs_ids: do not lowercase (Chg2Cap's words)")
    parser.add_argument(
        '--no-change-sentences', nargs='*',
        help="the no-change decision's sentences, or one data set's name "
        "(levir_cc ...) (default: the protocol's: LEVIR-CC's under rs_words"
        ' / rs_ids, none otherwise); given empty: no decision')
    parser.add_argument(
        '--java-timeout', type=float, default=600.,
        help='seconds the PTB tokenizer may run, and METEOR may take for one '
        'answer, before the Java process is killed (default: 600)')
    return parser.parse_args(argv)


def load_config(path: str, options=None):
    """A config with its ``--cfg-options`` (a dict) merged."""
    from mmengine.config import Config

    from mmidc.runtime.data_root import resolve_paths
    if not osp.isfile(path):
        sys.exit(f'eval_captions: no such config: {path}')
    cfg = Config.fromfile(path)
    merged = options or None
    if merged:
        cfg.merge_from_dict(merged)
    # paths derived from data_root follow it (explicit values kept)
    resolve_paths(cfg, path, merged)
    return cfg


def config_dataset(cfg, split: str, path: str) -> dict:
    """The data set config of ``split``'s loader."""
    loader = cfg.get(f'{split}_dataloader')
    if not loader or not loader.get('dataset'):
        sys.exit(f'eval_captions: {path} has no {split}_dataloader.dataset '
                 '(--split train, val or test)')
    return loader['dataset']


def config_references(cfg, split: str, path: str) -> dict:
    """``{key: reference entry}`` of a config's data set (its reader's
    references, read from the annotations without images)."""
    from mmidc.evaluation.prediction_files import pair_key
    from mmidc.evaluation.protocols.rs_ids_protocol import dataset_entries
    refs = {}
    for entry in dataset_entries(config_dataset(cfg, split, path)):
        refs[pair_key(entry['pair_id'])] = dict(
            pair_id=entry['pair_id'], references=list(entry['gt_captions']),
            change_type=entry.get('change_type') or 'unknown')
    return refs


def build_scorer(args, cfg=None) -> CaptionScorer:
    """The scorer of the protocol the options name."""
    from mmidc.evaluation.protocols import build_protocol
    from mmidc.evaluation.protocols.rs_ids_protocol import (check_vocab,
                                                            dataset_captions)
    from mmidc.evaluation.protocols.rs_vocab import (RSWordVocab,
                                                     check_vocab_options)
    protocol = args.tokenizer
    if args.protocol:
        try:
            protocol = json.loads(args.protocol)
        except ValueError as e:
            sys.exit(f'eval_captions: --protocol is not a JSON dict ({e})')
    elif args.tokenizer == 'rs_ids':
        if args.word_map:
            protocol = dict(type='RSIdsProtocol', word_map=args.word_map,
                            lowercase=not args.keep_case)
        else:
            try:
                check_vocab_options(args.min_word_freq, args.word_freq_rule)
            except ValueError as e:
                sys.exit(f'eval_captions: {e} (--min-word-freq, '
                         '--word-freq-rule)')
            if args.vocab_ann_file:
                protocol = dict(type='RSIdsProtocol',
                                vocab_ann_file=args.vocab_ann_file,
                                vocab_field=args.vocab_field,
                                min_word_freq=args.min_word_freq,
                                word_freq_rule=args.word_freq_rule,
                                lowercase=not args.keep_case)
            else:
                vocab_cfg_path = args.vocab_config or args.config
                if not vocab_cfg_path:
                    sys.exit('eval_captions: --tokenizer rs_ids needs the '
                             'captions its vocabulary counts: '
                             '--vocab-ann-file, --vocab-config (or --config)'
                             ', or a paper\'s --word-map')
                vocab_cfg = (cfg if vocab_cfg_path == args.config else
                             load_config(vocab_cfg_path))
                datasets = [vocab_cfg[f'{s}_dataloader']['dataset']
                            for s in ('train', 'val', 'test')
                            if vocab_cfg.get(f'{s}_dataloader')]
                captions = dataset_captions(datasets)
                try:
                    vocab = RSWordVocab(captions, args.min_word_freq,
                                        args.word_freq_rule,
                                        not args.keep_case)
                    check_vocab(vocab, f'--min-word-freq '
                                f'{args.min_word_freq} --word-freq-rule '
                                f"'{args.word_freq_rule}'")
                except ValueError as e:
                    sys.exit(f'eval_captions: {e}')
                print_log(f"'rs_ids' vocabulary of {len(vocab)} words: the "
                          f'words of {len(captions)} captions of '
                          f'{vocab_cfg_path} (train, val and test) seen '
                          f'{args.word_freq_rule} {args.min_word_freq} times',
                          logger='current')
                protocol = dict(type='RSIdsProtocol', vocab=vocab)
    no_change = args.no_change_sentences
    if no_change is None:
        no_change = 'auto'
    elif len(no_change) == 0:
        no_change = None
    elif len(no_change) == 1 and ' ' not in no_change[0]:
        no_change = no_change[0]  # a data set's name
        if no_change not in NO_CHANGE_SENTENCES:
            sys.exit(f'eval_captions: --no-change-sentences {no_change!r} is no '
                     f'data set\'s name (known: {", ".join(sorted(NO_CHANGE_SENTENCES))}'
                     f'); a no-change sentence of one word: write it '
                     f'"{no_change} ." (the period is dropped when sentences '
                     'are compared)')
    if protocol != 'auto':
        protocol = build_protocol(protocol)
    return CaptionScorer(metrics=args.metrics, java=args.java,
                         protocol=protocol,
                         meteor_timeout=args.java_timeout,
                         tokenizer_timeout=args.java_timeout,
                         no_change_sentences=no_change)


def main(argv=None) -> dict:
    args = parse_args(argv)
    working_dir_on_path()  # a project's config (projects.<name>) from a clone's root
    if not osp.isfile(args.predictions):
        sys.exit(f'eval_captions: no such file: {args.predictions}')
    if args.references and not osp.isfile(args.references):
        sys.exit(f'eval_captions: no such references file: {args.references}')
    cfg = load_config(args.config, args.cfg_options) if args.config else None
    scorer = build_scorer(args, cfg)
    predictions, records, fmt = read_predictions(args.predictions,
                                                 args.format)
    if args.references or cfg is not None:
        if args.references:
            references = read_references(
                args.references, args.references_format, args.split,
                scorer.no_change_sentences)
            source = args.references
        else:
            references = config_references(cfg, args.split, args.config)
            source = f'{args.config} ({args.split})'
        records, extra = match_records(predictions, references,
                                       args.predictions, source)
        if extra:
            shown = ', '.join(repr(k) for k in extra[:5])
            print_log(f'{args.predictions}: {len(extra)} predictions of '
                      f'pairs {source} does not hold are left out ({shown}'
                      f'{", ..." if len(extra) > 5 else ""})',
                      logger='current', level=logging.WARNING)
    elif records is None:
        sys.exit(f'eval_captions: {args.predictions} ({fmt}) holds no '
                 'references: give --references FILE or --config CONFIG '
                 '--split SPLIT')
    per_type = not args.no_per_type
    scores = scorer.score(records, per_type=per_type, source=args.predictions)
    print(f'{args.predictions} ({fmt}): {len(records)} pairs (scores x100, '
          f'CIDEr = CIDEr-D, protocol {scorer.tokenizer!r})')
    print(format_score_table(scores, subset_counts(
        records, per_type, scorer.names_for(records))))
    if args.out:
        os.makedirs(osp.dirname(osp.abspath(args.out)), exist_ok=True)
        with open(args.out, 'w') as f:
            json.dump(scores, f, indent=1)
        print(f'scores written to {args.out}')
    return dict(scores)


if __name__ == '__main__':
    main()
