"""Captioning metric for image difference captioning (coco-caption scores)."""
import datetime
import json
import logging
import os
import os.path as osp
from typing import List, Optional, Sequence, Union

from mmengine.evaluator import BaseMetric
from mmengine.logging import MMLogger, print_log
from mmengine.structures import BaseDataElement

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


@METRICS.register_module()
class IDCMetric(BaseMetric):
    """BLEU-1..4, METEOR, ROUGE-L and CIDEr(-D) of predicted difference
    captions, for all pairs and per CLEVR-Change change type.

    Reads ``pred_caption``, ``gt_captions``, ``pair_id`` and ``change_type``
    from each data sample. Scores come from pycocoevalcap (PTB tokenizer,
    ``Bleu(4)``, ``Meteor()``, ``Rouge()``, ``Cider()``, whose CIDEr is the
    CIDEr-D formula), x100. Every reference of a pair is a separate
    reference. Result keys: ``Bleu_1`` .. ``Bleu_4``, ``METEOR``,
    ``ROUGE_L``, ``CIDEr`` over all pairs, then with ``per_type`` the same
    for each change type present (``color/CIDEr``, ...), for all change pairs
    (``semantic/...``) and for the no-change pairs (``distractor/...``),
    each subset scored on its own; pairs of type ``unknown`` count in the
    total only. MMEngine's ``BaseMetric.evaluate`` gathers the results of
    all ranks in data set order and drops the distributed sampler's padding
    (it keeps the data set's ``size``); scoring runs once on rank 0.

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
        tokenizer (str): ``'auto'`` (default: PTB when Java is found, else
            a Python PTB-like tokenizer), ``'ptb'`` or ``'python'``. Without
            Java, score ``metrics=('Bleu', 'ROUGE_L', 'CIDEr')`` (METEOR
            needs Java): see :class:`CaptionScorer` and docs/evaluation.md.
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
            ``PREFIX/KEY``. Defaults to none: the keys as listed above
            (``default_prefix`` is ``''``, so MMEngine does not warn that
            the prefix is not set).
    """

    # No prefix: the documented result keys (CIDEr, rsum, ...) unchanged.
    default_prefix = ''

    def __init__(self,
                 metrics: Optional[Sequence[str]] = None,
                 per_type: bool = True,
                 java: Union[str, bool, None] = None,
                 tokenizer: str = 'auto',
                 tokenizer_timeout: float = 600.,
                 meteor_timeout: float = 600.,
                 output_dir: Optional[str] = None,
                 out_file_prefix: Optional[str] = 'predictions',
                 collect_device: str = 'cpu',
                 prefix: Optional[str] = None):
        super().__init__(collect_device=collect_device, prefix=prefix)
        self.scorer = CaptionScorer(metrics=metrics, java=java,
                                    tokenizer=tokenizer,
                                    meteor_timeout=meteor_timeout,
                                    tokenizer_timeout=tokenizer_timeout)
        self.per_type = per_type
        self.output_dir = output_dir
        self.out_file_prefix = out_file_prefix

    def process(self, data_batch, data_samples: Sequence[dict]) -> None:
        """Keep pair id, prediction, references and change type."""
        for sample in data_samples:
            if isinstance(sample, BaseDataElement):
                sample = sample.to_dict()
            for key in ('pred_caption', 'gt_captions', 'pair_id'):
                if key not in sample:
                    raise KeyError(f'IDCMetric: data sample has no {key!r} '
                                   f'(keys: {sorted(sample)}).')
            self.results.append(
                dict(
                    pair_id=sample['pair_id'],
                    prediction=sample['pred_caption'],
                    references=list(sample['gt_captions']),
                    change_type=sample.get('change_type', 'unknown')))

    def compute_metrics(self, results: List[dict]) -> dict:
        """Save the predictions, score them (``results``: every pair once,
        gathered by ``BaseMetric.evaluate``)."""
        records = results
        self.save_predictions(records)
        scores = self.scorer.score(records, self.per_type, source='IDCMetric')
        counts = subset_counts(records, self.per_type)
        print_log('Captioning scores (x100; CIDEr = CIDEr-D):\n' +
                  format_score_table(scores, counts), logger='current')
        small = small_cider_subsets(scores, counts)
        if small:
            print_log(f'IDCMetric: CIDEr of {", ".join(small)} comes from '
                      f'fewer than {MIN_CIDER_PAIRS} pairs and is noise (see '
                      'the note under the table)', logger='current',
                      level=logging.WARNING)
        return dict(scores)

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
