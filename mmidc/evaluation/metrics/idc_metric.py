"""Captioning metric for image difference captioning (coco-caption scores)."""
import datetime
import json
import logging
import os
import os.path as osp
from typing import Iterator, List, Optional, Sequence, Union

from mmengine.evaluator import BaseMetric
from mmengine.logging import MMLogger, print_log
from mmengine.structures import BaseDataElement

from mmidc.evaluation.protocols import ScoringProtocol, build_protocol
from mmidc.registry import METRICS
from .caption_scorer import (MIN_CIDER_PAIRS, CaptionScorer,
                             format_score_table, small_cider_subsets,
                             subset_counts)


def current_log_dir() -> Optional[str]:
    """Folder of the current MMEngine run's log file (``<work_dir>/<timestamp>``
    when a ``Runner`` is active), or None outside a run."""
    if not MMLogger._instance_dict:
        return None
    log_file = MMLogger.get_current_instance().log_file
    return osp.dirname(osp.abspath(log_file)) if log_file else None


def sample_dicts(data_samples: Sequence, keys: Sequence[str],
                 metric: str) -> Iterator[dict]:
    """Each data sample as a dict, or a ``KeyError`` naming ``metric`` and
    the first of ``keys`` a sample lacks."""
    for sample in data_samples:
        if isinstance(sample, BaseDataElement):
            sample = sample.to_dict()
        for key in keys:
            if key not in sample:
                raise KeyError(f'{metric}: data sample has no {key!r} '
                               f'(keys: {sorted(sample)}).')
        yield sample


@METRICS.register_module()
class IDCMetric(BaseMetric):
    """BLEU-1..4, METEOR, ROUGE-L, CIDEr(-D) and S*m of predicted difference
    captions, for all pairs and per change type, under a named scoring
    protocol (scored by :class:`CaptionScorer`; docs/evaluation.md).

    Reads ``pred_caption``, ``gt_captions``, ``pair_id`` and ``change_type``
    from each data sample; every reference of a pair is a separate
    reference. Result keys (x100): ``Bleu_1`` .. ``Bleu_4``, ``METEOR``,
    ``ROUGE_L``, ``CIDEr`` (pycocoevalcap's, the CIDEr-D formula) and ``S_m``
    (the mean of BLEU-4, METEOR, ROUGE-L and CIDEr, when all four are
    scored) over all pairs, then with ``per_type`` the same for each subset
    of :func:`change_type_subsets`, each scored on its own: each change type
    present (any string: ``color/CIDEr``, ...), all change pairs and the
    no-change pairs (type ``'none'``; named ``semantic/`` and ``distractor/``
    on CLEVR-Change's types, else ``change/`` and ``no_change/``). Pairs of
    type ``unknown`` count in the total only. With no-change sentences (the
    remote-sensing protocols' default), ``decision_acc`` and
    ``<subset>/decision_acc`` of the two aggregate subsets: the share of
    pairs on which a no-change sentence is predicted exactly when the pair
    is a no-change pair. MMEngine's ``BaseMetric.evaluate`` gathers the
    results of all ranks in data set order and drops the distributed
    sampler's padding; scoring runs once on rank 0.

    Note: MMEngine reads an evaluator config dict that has a ``metrics`` key
    as an ``Evaluator``; to choose the metrics in a config, wrap the metric
    in a list: ``val_evaluator = [dict(type='IDCMetric', metrics=[...])]``.

    Args:
        metrics (Sequence[str], optional): Subset of ``('Bleu', 'METEOR',
            'ROUGE_L', 'CIDEr')``. Defaults to all (with ``java=False``: all
            but METEOR).
        per_type (bool): Add the per-change-type subsets. Defaults to True.
        java (str | bool, optional): Java binary for the PTB tokenizer and
            METEOR. Defaults to ``MMIDC_JAVA`` or ``java`` on ``PATH``;
            checked here, at construction, when one of them needs it.
            ``False``: Java-free scoring (BLEU, ROUGE-L, CIDEr with the
            Python tokenizer), e.g. ``--cfg-options val_evaluator.java=False``.
        tokenizer (str | dict): The scoring protocol (docs/evaluation.md
            says which papers use which): a shorthand, ``'auto'`` (default:
            ``'ptb'`` when Java is found, else ``'python'``), ``'ptb'``
            (coco-caption, natural-image IDC), ``'python'`` (a Python
            PTB-like tokenizer), ``'rs_words'`` (CCExpert) or ``'rs_ids'``
            (RSICC, Chg2Cap; needs ``min_word_freq``, ``word_freq_rule`` and
            ``vocab_datasets``); or a registered protocol
            (:mod:`mmidc.evaluation.protocols`), e.g.
            ``dict(type='RSIdsProtocol', min_word_freq=5, ...)``.
        protocol (str | dict, optional): The same as ``tokenizer`` (which
            it replaces when given).
        extra_protocols (dict, optional): More protocols to score the same
            predictions under, ``{key_prefix: protocol}``: their keys are
            ``<key_prefix>/<key>`` (``rs_ids/CIDEr``,
            ``rs_ids/change/CIDEr`` ...); the main protocol's keys stay
            unprefixed. The remote-sensing configs report CCExpert's
            ``rs_words`` unprefixed and the RSICC lineage's ``rs_ids`` so.
        min_word_freq (int, optional): ``'rs_ids'``: the word-count
            threshold, as :class:`~mmidc.evaluation.protocols.RSIdsProtocol`'s.
        word_freq_rule (str, optional): ``'rs_ids'``: ``'>'`` (RSICC) or
            ``'>='`` (Chg2Cap), as ``RSIdsProtocol``'s; no default.
        vocab_datasets (dict | list[dict], optional): ``'rs_ids'``: data set
            configs whose captions the vocabulary counts, as
            ``RSIdsProtocol``'s (e.g. the training split's).
        no_change_sentences (Sequence[str] | str, optional): The no-change
            sentences of ``decision_acc`` (see ``ScoringProtocol``); None:
            none. ``'auto'`` (default): the protocol's (LEVIR-CC's under the
            remote-sensing protocols unless set there, none under the others).
        subset_names (dict, optional): ``{'change': ..., 'no_change': ...}``,
            the names of the all-change and no-change subsets. Defaults to
            CLEVR-Change's (``semantic``, ``distractor``) on its types,
            ``change`` and ``no_change`` otherwise.
        tokenizer_timeout (float): Seconds the PTB tokenizer (Java) may run
            before it is killed and an error raised. Defaults to 600.
        meteor_timeout (float): Seconds to wait for one answer of the
            METEOR JVM before it is killed and an error raised. Defaults to
            600.
        output_dir (str, optional): Where to write the predictions JSON.
            Defaults to the current run's log folder
            (``<work_dir>/<timestamp>``); outside a run nothing is written.
        out_file_prefix (str, optional): The file is
            ``<output_dir>/<out_file_prefix>_<YYYYmmdd_HHMMSS>.json``, a list
            of ``{'pair_id', 'prediction', 'references', 'change_type'}``
            that ``tools/analysis_tools/eval_captions.py`` re-scores.
            None: write nothing. Defaults to ``'predictions'``.
        collect_device (str): ``'cpu'`` or ``'gpu'``. Defaults to ``'cpu'``.
        prefix (str, optional): Prefix of the result keys, as
            ``PREFIX/KEY``. Defaults to none: the keys as listed above.
    """

    default_prefix = ''  # not None: MMEngine would warn that none is set

    def __init__(self,
                 metrics: Optional[Sequence[str]] = None,
                 per_type: bool = True,
                 java: Union[str, bool, None] = None,
                 tokenizer: Union[str, dict, ScoringProtocol] = 'auto',
                 protocol: Union[str, dict, ScoringProtocol, None] = None,
                 extra_protocols: Optional[dict] = None,
                 tokenizer_timeout: float = 600.,
                 meteor_timeout: float = 600.,
                 min_word_freq: Optional[int] = None,
                 word_freq_rule: Optional[str] = None,
                 vocab_datasets: Union[dict, Sequence[dict], None] = None,
                 no_change_sentences: Union[str, Sequence[str],
                                            None] = 'auto',
                 subset_names: Optional[dict] = None,
                 output_dir: Optional[str] = None,
                 out_file_prefix: Optional[str] = 'predictions',
                 collect_device: str = 'cpu',
                 prefix: Optional[str] = None):
        super().__init__(collect_device=collect_device, prefix=prefix)
        if protocol is not None:
            tokenizer = protocol
        if tokenizer == 'rs_ids':  # the shorthand's vocabulary options
            tokenizer = build_protocol(
                'rs_ids', min_word_freq=min_word_freq,
                word_freq_rule=word_freq_rule, vocab_datasets=vocab_datasets)
        scorer_args = dict(metrics=metrics, java=java,
                           meteor_timeout=meteor_timeout,
                           tokenizer_timeout=tokenizer_timeout,
                           subset_names=subset_names)
        self.scorer = CaptionScorer(tokenizer=tokenizer,
                                    no_change_sentences=no_change_sentences,
                                    **scorer_args)
        if not isinstance(extra_protocols, (dict, type(None))) or any(
                not isinstance(k, str) or not k or '/' in k
                for k in extra_protocols or {}):
            raise ValueError('extra_protocols must be {key_prefix: '
                             'protocol} with prefixes without "/", got '
                             f'{extra_protocols!r}')
        self.extra_scorers = {
            key: CaptionScorer(tokenizer=spec, no_change_sentences='auto',
                               **scorer_args)
            for key, spec in (extra_protocols or {}).items()}
        self.per_type = per_type
        self.output_dir = output_dir
        self.out_file_prefix = out_file_prefix

    def process(self, data_batch, data_samples: Sequence[dict]) -> None:
        """Keep pair id, prediction, references and change type."""
        for sample in sample_dicts(data_samples, ('pred_caption', 'gt_captions',
                                                  'pair_id'), 'IDCMetric'):
            self.results.append(
                dict(
                    pair_id=sample['pair_id'],
                    prediction=sample['pred_caption'],
                    references=list(sample['gt_captions']),
                    change_type=sample.get('change_type', 'unknown')))

    def compute_metrics(self, records: List[dict]) -> dict:
        """Save the predictions, score them (``records``: every pair once,
        gathered by ``BaseMetric.evaluate``)."""
        self.save_predictions(records)
        scores = dict(self._score(self.scorer, records))
        for key, scorer in self.extra_scorers.items():
            scores.update({f'{key}/{name}': value for name, value in
                           self._score(scorer, records).items()})
        return scores

    def _score(self, scorer: CaptionScorer, records: List[dict]) -> dict:
        """One protocol's scores of ``records``, its table logged."""
        scores = scorer.score(records, self.per_type, source='IDCMetric')
        counts = subset_counts(records, self.per_type,
                               scorer.names_for(records))
        print_log(f'Captioning scores (x100; CIDEr = CIDEr-D; protocol '
                  f'{scorer.tokenizer!r}):\n' +
                  format_score_table(scores, counts), logger='current')
        small = small_cider_subsets(scores, counts)
        if small:
            print_log(f'IDCMetric: CIDEr of {", ".join(small)} comes from '
                      f'fewer than {MIN_CIDER_PAIRS} pairs and is noise (see '
                      'the note under the table)', logger='current',
                      level=logging.WARNING)
        return scores

    def save_predictions(self, records: List[dict]) -> Optional[str]:
        """Write ``records`` as JSON; returns the path (None if skipped)."""
        if self.out_file_prefix is None:
            return None
        out_dir = self.output_dir or current_log_dir()
        if out_dir is None:
            print_log('IDCMetric: no output_dir and no active run, the '
                      'predictions are not saved.', logger='current',
                      level=logging.WARNING)
            return None
        os.makedirs(out_dir, exist_ok=True)
        stamp = datetime.datetime.now().strftime('%Y%m%d_%H%M%S')
        path = osp.join(out_dir, f'{self.out_file_prefix}_{stamp}.json')
        n = 1
        while osp.exists(path):
            n += 1
            path = osp.join(out_dir,
                            f'{self.out_file_prefix}_{stamp}_{n}.json')
        with open(path, 'w') as f:
            json.dump(records, f, indent=1)
        print_log(f'IDCMetric: {len(records)} predictions saved to {path}',
                  logger='current')
        return path
