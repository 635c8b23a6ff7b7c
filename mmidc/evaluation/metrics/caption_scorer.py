"""coco-caption scoring of IDC predictions, total and per change type.

Shared by :class:`IDCMetric` (during validation / test) and
``tools/analysis_tools/eval_captions.py`` (re-scoring a predictions file).
A *record* is one pair: ``{'pair_id', 'prediction', 'references',
'change_type'}``, the same layout as the predictions JSON the metric writes.
"""
import logging
import os
import time
from collections import OrderedDict
from typing import Dict, List, Optional, Sequence, Union

import numpy as np
from mmengine.logging import print_log
from pycocoevalcap.bleu.bleu import Bleu
from pycocoevalcap.cider.cider import Cider
from pycocoevalcap.rouge.rouge import Rouge

from mmidc.text.ptb_tokenizer import PythonPTBTokenizer
from .coco_caption_java import JavaMeteor, JavaPTBTokenizer
from .java import INSTALL_HINT, find_java, require_java

METRIC_GROUPS = ('Bleu', 'METEOR', 'ROUGE_L', 'CIDEr')
#: The metrics that need no Java (with the Python tokenizer).
JAVA_FREE_METRICS = ('Bleu', 'ROUGE_L', 'CIDEr')
TOKENIZERS = ('auto', 'ptb', 'python')
# Change types of CLEVR-Change, in the order its evaluation reports them.
KNOWN_CHANGE_TYPES = ('color', 'material', 'add', 'drop', 'move')
NO_CHANGE_TYPE = 'none'
UNKNOWN_TYPE = 'unknown'
#: Fewer pairs than this in a subset flags its CIDEr-D as noise. CIDEr-D's
#: idf comes from the scored subset's own references, so on a few pairs a
#: word that happens to be rare in them weighs a lot, and the score swings
#: with which pairs are in the subset. Measured on a generated synthetic set
#: (600 scenes; one reference of each change pair scored against its other
#: references; 30 random subsets per size): CIDEr-D 136 +- 44 on 5 pairs,
#: 143 +- 26 on 10, +- 15 on 30, +- 11 on 50, +- 7 on 100, and a fixed wrong
#: caption scores twice as high on 5 pairs (28) as on 400 (14)
#: (docs/evaluation.md). From 50 pairs on the spread is about 10 points.
MIN_CIDER_PAIRS = 50


def check_records(records: Sequence[dict], source: str = 'records') -> None:
    """Raise a ``ValueError`` naming ``source`` if a record is malformed."""
    seen = set()
    for i, rec in enumerate(records):
        for key in ('pair_id', 'prediction', 'references'):
            if key not in rec:
                raise ValueError(f'{source}: entry {i} has no {key!r} key '
                                 f'(keys: {sorted(rec)}).')
        pid = rec['pair_id']
        if pid in seen:
            raise ValueError(f'{source}: pair_id {pid!r} appears twice.')
        seen.add(pid)
        if not isinstance(rec['prediction'], str):
            raise ValueError(f'{source}: prediction of pair {pid!r} is not a '
                             f'string: {rec["prediction"]!r}')
        refs = rec['references']
        if (not isinstance(refs, (list, tuple)) or not refs
                or not all(isinstance(r, str) for r in refs)):
            raise ValueError(f'{source}: references of pair {pid!r} must be '
                             f'a non-empty list of strings, got {refs!r}')


def change_type_subsets(records: Sequence[dict]) -> 'OrderedDict[str, list]':
    """Pair ids of each per-type subset, in report order.

    Subsets: each change type present (CLEVR-Change's ``color``,
    ``material``, ``add``, ``drop``, ``move`` first, then any other type in
    alphabetical order), ``semantic`` (all pairs whose type is neither
    ``'none'`` nor ``'unknown'``) and ``distractor`` (type ``'none'``).
    Pairs of type ``'unknown'`` (data sets without types, e.g. Spot-the-Diff)
    are only part of the total. Empty subsets are left out.
    """
    by_type: Dict[str, list] = {}
    for rec in records:
        ctype = rec.get('change_type') or UNKNOWN_TYPE
        by_type.setdefault(ctype, []).append(rec['pair_id'])
    change_types = [t for t in by_type if t not in (NO_CHANGE_TYPE,
                                                     UNKNOWN_TYPE)]
    order = [t for t in KNOWN_CHANGE_TYPES if t in change_types]
    order += sorted(t for t in change_types if t not in KNOWN_CHANGE_TYPES)
    subsets = OrderedDict((t, by_type[t]) for t in order)
    semantic = [rec['pair_id'] for rec in records
                if (rec.get('change_type') or UNKNOWN_TYPE) in change_types]
    if semantic:
        subsets['semantic'] = semantic
    if NO_CHANGE_TYPE in by_type:
        subsets['distractor'] = by_type[NO_CHANGE_TYPE]
    return subsets


class CaptionScorer:
    """BLEU-1..4, METEOR, ROUGE-L and CIDEr-D as coco-caption computes them.

    Every reference sentence of a pair is a separate reference (so the
    Spot-the-Diff single-sentence protocol needs nothing special). Sentences
    are PTB-tokenised once (one JVM), METEOR runs in one JVM per call of
    :meth:`score` and its per-pair statistics are reused for every subset;
    BLEU and CIDEr-D are recomputed on each subset (CIDEr's idf comes from
    the subset scored, as in the CLEVR-Change evaluation). Scores are x100.

    Args:
        metrics (Sequence[str], optional): Any of ``'Bleu'`` (gives
            ``Bleu_1`` .. ``Bleu_4``), ``'METEOR'``, ``'ROUGE_L'``,
            ``'CIDEr'``. Defaults to all four (with ``java=False``: all but
            METEOR).
        java (str | bool, optional): Java binary (path or name). Defaults
            to ``MMIDC_JAVA`` or ``java`` on ``PATH``. ``False``: Java-free
            scoring, BLEU, ROUGE-L and CIDEr with the Python tokenizer.
        tokenizer (str): ``'ptb'``: coco-caption's PTB tokenizer (Stanford
            CoreNLP, needs Java); ``'python'``: :class:`PythonPTBTokenizer`
            (no Java; the same tokens on CLEVR-Change-style text, see
            docs/evaluation.md); ``'auto'`` (default): PTB when Java is
            found, the Python tokenizer otherwise (logged).
        meteor_timeout (float): Seconds to wait for one METEOR answer before
            the JVM is killed and an error raised. Defaults to 600.
        tokenizer_timeout (float): Seconds the PTB tokenizer may run before
            it is killed and an error raised. Defaults to 600.

    A reference that is empty after tokenisation (``""`` or punctuation
    only) has no words to match: it is left out of its pair's references
    (counted in a warning); a pair left with no reference, or an empty list
    of records, is a ``ValueError`` naming the source.

    Java is looked for only when it is needed: by METEOR (always) and by the
    PTB tokenizer. ``java=False`` (or ``metrics=JAVA_FREE_METRICS`` where no
    Java is found) scores without any Java runtime.
    """

    def __init__(self,
                 metrics: Optional[Sequence[str]] = None,
                 java: Union[str, bool, None] = None,
                 tokenizer: str = 'auto',
                 meteor_timeout: float = 600.,
                 tokenizer_timeout: float = 600.):
        for name, value in (('meteor_timeout', meteor_timeout),
                            ('tokenizer_timeout', tokenizer_timeout)):
            if (isinstance(value, bool) or not isinstance(value, (int, float))
                    or not value > 0):
                raise ValueError(f'{name} must be a positive number of '
                                 f'seconds, got {value!r}')
        if java is False:  # Java-free scoring
            if tokenizer == 'ptb' or (metrics and 'METEOR' in metrics):
                raise ValueError(
                    'java=False scores without Java: METEOR and the PTB '
                    f'tokenizer need it (metrics={metrics!r}, '
                    f'tokenizer={tokenizer!r})')
            java, tokenizer = None, 'python'
            metrics = metrics or JAVA_FREE_METRICS
        java = None if java is True else java
        if metrics is None:
            metrics = METRIC_GROUPS
        if isinstance(metrics, str):
            metrics = (metrics, )
        unknown = [m for m in metrics if m not in METRIC_GROUPS]
        if unknown or not metrics:
            raise ValueError(f'metrics={tuple(metrics)!r}: choose from '
                             f'{METRIC_GROUPS} (unknown: {unknown}).')
        if tokenizer not in TOKENIZERS:
            raise ValueError(f'tokenizer={tokenizer!r}: choose from '
                             f'{TOKENIZERS}.')
        self.metrics = tuple(m for m in METRIC_GROUPS if m in metrics)
        self.java = None
        if 'METEOR' in self.metrics:
            if find_java(java) is None:
                wanted = java or os.environ.get('MMIDC_JAVA') or 'java'
                raise RuntimeError(
                    f'METEOR needs a Java runtime, but the java binary '
                    f'{wanted!r} was not found or is not executable. '
                    f'{INSTALL_HINT} Or score BLEU, ROUGE-L and CIDEr '
                    f'without Java: java=False (e.g. --cfg-options '
                    f'val_evaluator.java=False test_evaluator.java=False; '
                    f'where a config lists several evaluators, index them: '
                    f'val_evaluator.0.java=False) or '
                    f'metrics={JAVA_FREE_METRICS!r}; docs/evaluation.md.')
            self.java = find_java(java)
        if tokenizer == 'auto':
            tokenizer = 'ptb' if (self.java or find_java(java)) else 'python'
            if tokenizer == 'python':
                print_log('Caption scoring: no Java runtime found, sentences '
                          'are tokenised by the Python PTB-like tokenizer '
                          'instead of the PTB tokenizer (the same tokens on '
                          'CLEVR-Change-style text; docs/evaluation.md)',
                          logger='current', level=logging.WARNING)
        if tokenizer == 'ptb' and self.java is None:
            self.java = require_java(java, needed_by='The PTB tokenizer '
                                     "(tokenizer='python' needs no Java)")
        self.tokenizer = tokenizer
        self.meteor_timeout = meteor_timeout
        self.tokenizer_timeout = tokenizer_timeout

    def score(self, records: Sequence[dict], per_type: bool = True,
              source: str = 'records') -> 'OrderedDict[str, float]':
        """Score ``records``; keys ``Bleu_1`` .. ``CIDEr`` for all pairs,
        then ``<subset>/<metric>`` for each subset of
        :func:`change_type_subsets` when ``per_type``."""
        check_records(records, source)
        if not records:
            raise ValueError(f'{source}: no predictions to score (an empty '
                             'list of pairs)')
        subsets = OrderedDict(total=[r['pair_id'] for r in records])
        if per_type:
            subsets.update(change_type_subsets(records))

        times = OrderedDict(start=time.time())
        # The METEOR JVM loads its paraphrase table while tokenising.
        meteor = (JavaMeteor(self.java, timeout=self.meteor_timeout)
                  if 'METEOR' in self.metrics else None)
        try:
            gts, res = self.tokenize(records)
            gts = drop_empty_references(gts, source)
            times['tokenize'] = time.time()
            # Per-pair scores do not depend on the rest of a subset.
            meteor_stats = self._meteor_stats(meteor, gts, res)
            times['METEOR (start + statistics)'] = time.time()
            rouge = Rouge()
            rouge_scores = ({pid: rouge.calc_score(res[pid], gts[pid])
                             for pid in gts}
                            if 'ROUGE_L' in self.metrics else {})
            times['ROUGE_L'] = time.time()
            results = OrderedDict()
            for name, pair_ids in subsets.items():
                prefix = '' if name == 'total' else f'{name}/'
                sub_gts = {pid: gts[pid] for pid in pair_ids}
                sub_res = {pid: res[pid] for pid in pair_ids}
                if 'Bleu' in self.metrics:
                    bleu, _ = Bleu(4).compute_score(sub_gts, sub_res,
                                                    verbose=0)
                    for n, value in enumerate(bleu, start=1):
                        results[f'{prefix}Bleu_{n}'] = value * 100
                if meteor is not None:
                    value, _ = meteor.corpus_score(
                        [meteor_stats[pid] for pid in pair_ids])
                    results[f'{prefix}METEOR'] = value * 100
                if 'ROUGE_L' in self.metrics:
                    # The same mean as ``Rouge.compute_score``.
                    value = np.mean(
                        np.array([rouge_scores[pid] for pid in pair_ids]))
                    results[f'{prefix}ROUGE_L'] = float(value) * 100
                if 'CIDEr' in self.metrics:
                    value, _ = Cider().compute_score(sub_gts, sub_res)
                    results[f'{prefix}CIDEr'] = float(value) * 100
        finally:
            if meteor is not None:
                meteor.close()
        times['BLEU, METEOR, CIDEr per subset'] = time.time()
        steps = list(times.items())
        detail = ', '.join(f'{name} {t - steps[i][1]:.1f}s'
                           for i, (name, t) in enumerate(steps[1:]))
        print_log(
            f'Scored {len(records)} pairs and {len(subsets) - 1} subsets in '
            f'{steps[-1][1] - times["start"]:.1f}s ({detail})',
            logger='current')
        return results

    def tokenize(self, records: Sequence[dict]):
        """Tokenised ``(references, predictions)`` dicts keyed by pair id,
        in coco-caption's ``{id: [sentence, ...]}`` layout (PTB: one JVM)."""
        captions = {}
        for rec in records:
            pid = rec['pair_id']
            captions[('gt', pid)] = [{'caption': c} for c in rec['references']]
            captions[('res', pid)] = [{'caption': rec['prediction']}]
        tokenizer = (JavaPTBTokenizer(self.java, self.tokenizer_timeout)
                     if self.tokenizer == 'ptb' else PythonPTBTokenizer())
        tokens = tokenizer.tokenize(captions)
        gts = {r['pair_id']: tokens[('gt', r['pair_id'])] for r in records}
        res = {r['pair_id']: tokens[('res', r['pair_id'])] for r in records}
        return gts, res

    @staticmethod
    def _meteor_stats(meteor: Optional[JavaMeteor], gts: Dict,
                      res: Dict) -> Dict:
        """METEOR sufficient statistics of every pair, reused by every
        subset's corpus score."""
        if meteor is None:
            return {}
        pair_ids = list(gts)
        stats = meteor.segment_stats([res[pid][0] for pid in pair_ids],
                                     [gts[pid] for pid in pair_ids])
        return dict(zip(pair_ids, stats))


def drop_empty_references(gts: Dict[object, List[str]],
                          source: str = 'records') -> Dict[object, List[str]]:
    """Leave out the tokenised references that are empty (``""`` or
    punctuation only: no word to match), with a warning.

    Args:
        gts (dict): Tokenised references of each pair id.
        source (str): Named in the warning and the error.

    Raises:
        ValueError: a pair has no non-empty reference left.
    """
    kept, dropped = {}, []
    for pid, refs in gts.items():
        words = [r for r in refs if r.strip()]
        if not words:
            raise ValueError(
                f'{source}: every reference of pair {pid!r} is empty or '
                'punctuation only; a pair needs at least one reference with '
                'words to be scored')
        if len(words) < len(refs):
            dropped.append(pid)
        kept[pid] = words
    if dropped:
        shown = ', '.join(repr(p) for p in dropped[:5])
        print_log(f'{source}: {len(dropped)} pairs have references that are '
                  f'empty or punctuation only, left out of scoring (pairs '
                  f'{shown}{", ..." if len(dropped) > 5 else ""})',
                  logger='current', level=logging.WARNING)
    return kept


def small_cider_subsets(scores: Dict[str, float],
                        counts: Dict[str, int]) -> List[str]:
    """The subsets with a CIDEr score and fewer than
    :data:`MIN_CIDER_PAIRS` pairs."""
    subsets = []
    for key in scores:
        subset, _, metric = key.rpartition('/')
        subset = subset or 'total'
        if (metric == 'CIDEr' and subset in counts
                and counts[subset] < MIN_CIDER_PAIRS):
            subsets.append(subset)
    return subsets


def format_score_table(scores: Dict[str, float],
                       counts: Optional[Dict[str, int]] = None) -> str:
    """A plain-text table: one row per subset (``total`` first), one column
    per metric. ``counts`` (subset name -> number of pairs) adds a column;
    a subset with fewer than :data:`MIN_CIDER_PAIRS` pairs gets a ``*`` by
    its count and a note under the table: its CIDEr-D is noise."""
    small = small_cider_subsets(scores, counts or {})
    rows: Dict[str, Dict[str, float]] = OrderedDict()
    for key, value in scores.items():
        subset, _, metric = key.rpartition('/')
        rows.setdefault(subset or 'total', OrderedDict())[metric] = value
    columns: List[str] = []
    for row in rows.values():
        columns += [c for c in row if c not in columns]
    header = ['subset'] + (['pairs'] if counts else []) + columns
    lines = [header]
    for subset, row in rows.items():
        line = [subset]
        if counts:
            line.append(str(counts.get(subset, '')) +
                        ('*' if subset in small else ''))
        line += [f'{row[c]:.2f}' if c in row else '-' for c in columns]
        lines.append(line)
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    table = '\n'.join('  '.join(cell.rjust(w) if i else cell.ljust(w)
                                 for i, (cell, w) in enumerate(zip(line,
                                                                   widths)))
                       for line in lines)
    return table + (small_cider_note() if small else '')


def small_cider_note() -> str:
    """The note under a table that flags small subsets."""
    return (f'\n* fewer than {MIN_CIDER_PAIRS} pairs: CIDEr-D weighs words '
            "by their rarity in the subset's own references, so its CIDEr "
            'swings by 10 to 40 points with which pairs are in it; compare '
            f'CIDEr on subsets of {MIN_CIDER_PAIRS} pairs or more. A subset '
            'whose pairs all have the same references (one pair, or one '
            'fixed no-change sentence) scores CIDEr-D 0.00 even for perfect '
            "captions: every n-gram is in every pair's references, so its "
            'idf, and every weight, is 0')


def subset_counts(records: Sequence[dict],
                  per_type: bool = True) -> Dict[str, int]:
    """Number of pairs in the total and in each per-type subset."""
    counts = {'total': len(records)}
    if per_type:
        counts.update({k: len(v)
                       for k, v in change_type_subsets(records).items()})
    return counts
