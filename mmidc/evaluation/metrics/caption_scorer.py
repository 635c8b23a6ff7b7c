"""coco-caption scoring of IDC predictions, total and per change type.

Shared by :class:`IDCMetric` (during validation / test) and
``tools/analysis_tools/eval_captions.py`` (re-scoring a predictions file).
A *record* is one pair: ``{'pair_id', 'prediction', 'references',
'change_type'}``, the same layout as the predictions JSON the metric writes.
"""
import logging
import time
from collections import OrderedDict
from typing import Dict, List, Optional, Sequence, Union

import numpy as np
from mmengine.logging import print_log
from pycocoevalcap.bleu.bleu import Bleu
from pycocoevalcap.cider.cider import Cider
from pycocoevalcap.rouge.rouge import Rouge

from mmidc.evaluation.protocols import (SHORTHANDS, ScoringProtocol,
                                        build_protocol)
from mmidc.evaluation.protocols.base_protocol import \
    check_no_change_sentences
from mmidc.evaluation.protocols.rs_vocab import RSWordVocab
from mmidc.text.no_change import no_change_set, normalize_sentence
from .coco_caption_java import shared_meteor
from .java import find_java, require_java

METRIC_GROUPS = ('Bleu', 'METEOR', 'ROUGE_L', 'CIDEr')
#: The metrics that need no Java (with the Python tokenizer).
JAVA_FREE_METRICS = ('Bleu', 'ROUGE_L', 'CIDEr')
#: The shorthands of the scoring protocols (``tokenizer``): coco-caption's
#: (``'auto'``, ``'ptb'``, ``'python'``) and the remote-sensing ones
#: (:mod:`mmidc.evaluation.protocols`).
TOKENIZERS = ('auto', *SHORTHANDS)
#: The metrics whose mean is S*m (key ``S_m``), as remote-sensing papers
#: report it.
S_M_METRICS = ('Bleu_4', 'METEOR', 'ROUGE_L', 'CIDEr')
# Change types of CLEVR-Change, in the order its evaluation reports them.
KNOWN_CHANGE_TYPES = ('color', 'material', 'add', 'drop', 'move')
NO_CHANGE_TYPE = 'none'
UNKNOWN_TYPE = 'unknown'
#: Fewer pairs than this in a subset flags its CIDEr-D as noise: its idf
#: comes from the subset's own references, so on a few pairs the score swings
#: with which pairs are in it (measured in docs/evaluation.md, "Small
#: subsets": from 50 pairs on the spread is about 10 points).
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


def subset_names(change_types: Sequence[str]) -> Dict[str, str]:
    """The names of the all-change and the no-change subsets for data with
    these change types: CLEVR-Change's (``semantic``, ``distractor``) when
    every type is one of CLEVR-Change's (:data:`KNOWN_CHANGE_TYPES`,
    ``'none'``, ``'unknown'``), else ``change`` and ``no_change``.

    Args:
        change_types (Sequence[str]): The change types of the records.
    """
    known = set(KNOWN_CHANGE_TYPES) | {NO_CHANGE_TYPE, UNKNOWN_TYPE}
    if set(change_types) <= known:
        return dict(change='semantic', no_change='distractor')
    return dict(change='change', no_change='no_change')


def change_type_subsets(records: Sequence[dict],
                        names: Optional[Dict[str, str]] = None
                        ) -> 'OrderedDict[str, list]':
    """Pair ids of each per-type subset, in report order.

    Any string is a change type. ``'none'`` marks the no-change pairs,
    ``'unknown'`` (or no type) a pair whose change is not labelled: it is
    only part of the total (data sets without types, e.g. Spot-the-Diff).
    Subsets: each change type present (CLEVR-Change's ``color``,
    ``material``, ``add``, ``drop``, ``move`` first, then any other type in
    alphabetical order), all change pairs and the no-change pairs, named by
    ``names`` (default :func:`subset_names`: ``semantic`` / ``distractor``
    on CLEVR-Change's types, ``change`` / ``no_change`` otherwise). A type
    whose pairs are exactly an aggregate subset of the same name (a data
    set whose one change type is ``'change'``) gives one row. Empty subsets
    are left out.

    Args:
        records (Sequence[dict]): Records with ``pair_id`` and
            ``change_type``.
        names (dict, optional): ``{'change': ..., 'no_change': ...}``.

    Raises:
        ValueError: A change type is named like another subset
            (``'total'``, or an aggregate subset with other pairs).
    """
    by_type: Dict[str, list] = {}
    for rec in records:
        ctype = rec.get('change_type') or UNKNOWN_TYPE
        by_type.setdefault(ctype, []).append(rec['pair_id'])
    names = dict(names or subset_names(list(by_type)))
    change_types = [t for t in by_type if t not in (NO_CHANGE_TYPE,
                                                     UNKNOWN_TYPE)]
    order = [t for t in KNOWN_CHANGE_TYPES if t in change_types]
    order += sorted(t for t in change_types if t not in KNOWN_CHANGE_TYPES)
    subsets = OrderedDict((t, by_type[t]) for t in order)
    aggregates = [(names['change'],
                   [rec['pair_id'] for rec in records
                    if (rec.get('change_type') or UNKNOWN_TYPE)
                    in change_types]),
                  (names['no_change'], by_type.get(NO_CHANGE_TYPE, []))]
    if 'total' in subsets or 'total' in names.values():
        raise ValueError("'total' names the score over all pairs: a change "
                         f'type (types: {order}) or subset name ({names}) '
                         'needs another name')
    for name, pair_ids in aggregates:
        if not pair_ids:
            continue
        if name in subsets:
            if subsets[name] != pair_ids:
                raise ValueError(
                    f'change type {name!r} is also the name of the subset of '
                    f'all {name.replace("_", "-")} pairs, which holds other '
                    f'pairs; give the type another name (no-change pairs '
                    f"have the type {NO_CHANGE_TYPE!r})")
            subsets.move_to_end(name)
            continue
        subsets[name] = pair_ids
    return subsets


class CaptionScorer:
    """BLEU-1..4, METEOR, ROUGE-L and CIDEr-D as coco-caption computes them.

    Every reference sentence of a pair is a separate reference (so the
    Spot-the-Diff single-sentence protocol needs nothing special). Sentences
    are tokenised once by the scoring protocol (the PTB one: one JVM), METEOR
    runs in one JVM per process (:func:`.coco_caption_java.shared_meteor`,
    kept from one evaluation to the next) and its per-pair statistics are
    reused for every subset;
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
        tokenizer (str | dict | ScoringProtocol): The scoring protocol, as
            :class:`IDCMetric`'s ``tokenizer``, or a protocol. Defaults to
            ``'auto'`` (PTB when Java is found, else the Python tokenizer,
            logged).
        vocab (RSWordVocab, optional): The word vocabulary of
            ``'rs_ids'`` (may be set on :attr:`vocab` before scoring).
        no_change_sentences (str | Sequence[str], optional): As
            :class:`IDCMetric`'s. Defaults to ``'auto'``.
        protocol (str | dict | ScoringProtocol, optional): The scoring
            protocol, in place of ``tokenizer``.
        subset_names (dict, optional): Names of the all-change and
            no-change subsets (:func:`change_type_subsets`).
        meteor_timeout (float): Seconds to wait for one METEOR answer before
            the JVM is killed and an error raised. Defaults to 600.
        tokenizer_timeout (float): Seconds the PTB tokenizer may run before
            it is killed and an error raised. Defaults to 600.

    A reference empty after tokenisation stays a reference, as in
    coco-caption (:func:`warn_empty_references`; 7 Spot-the-Diff test pairs
    have only such references). An empty list of records is a
    ``ValueError`` naming the source. Java is looked for only where METEOR
    or the PTB tokenizer needs it.
    """

    def __init__(self,
                 metrics: Optional[Sequence[str]] = None,
                 java: Union[str, bool, None] = None,
                 tokenizer: str = 'auto',
                 meteor_timeout: float = 600.,
                 tokenizer_timeout: float = 600.,
                 vocab: Optional[RSWordVocab] = None,
                 no_change_sentences: Union[str, Sequence[str],
                                            None] = 'auto',
                 subset_names: Optional[Dict[str, str]] = None,
                 protocol: Union[str, dict, ScoringProtocol, None] = None):
        if protocol is not None:
            tokenizer = protocol
        for name, value in (('meteor_timeout', meteor_timeout),
                            ('tokenizer_timeout', tokenizer_timeout)):
            if (isinstance(value, bool) or not isinstance(value, (int, float))
                    or not value > 0):
                raise ValueError(f'{name} must be a positive number of '
                                 f'seconds, got {value!r}')
        if tokenizer == 'rs_ids' and vocab is not None:
            tokenizer = dict(type='RSIdsProtocol', vocab=vocab)
        if tokenizer != 'auto':
            tokenizer = build_protocol(tokenizer)
        if java is False:  # Java-free scoring
            if (tokenizer != 'auto' and tokenizer.needs_java) or (
                    metrics and 'METEOR' in metrics):
                raise ValueError(
                    'java=False scores without Java: METEOR and the PTB '
                    f'tokenizer need it (metrics={metrics!r}, '
                    f'tokenizer={tokenizer!r})')
            java = None
            if tokenizer == 'auto':
                tokenizer = build_protocol('python')
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
        self.metrics = tuple(m for m in METRIC_GROUPS if m in metrics)
        self.java = None
        if 'METEOR' in self.metrics:
            self.java = require_java(java, 'METEOR', hint=(
                ' Or score BLEU, ROUGE-L and CIDEr without Java: java=False '
                '(e.g. --cfg-options val_evaluator.java=False '
                'test_evaluator.java=False; where a config lists several '
                'evaluators, index them: val_evaluator.0.java=False) or '
                f'metrics={JAVA_FREE_METRICS!r}; docs/evaluation.md.'))
        if tokenizer == 'auto':
            tokenizer = build_protocol(
                'ptb' if (self.java or find_java(java)) else 'python')
            if tokenizer.name == 'python':
                print_log('Caption scoring: no Java runtime found, sentences '
                          'are tokenised by the Python PTB-like tokenizer '
                          'instead of the PTB tokenizer (the same tokens on '
                          'CLEVR-Change-style text; docs/evaluation.md)',
                          logger='current', level=logging.WARNING)
        if tokenizer.needs_java and self.java is None:
            self.java = require_java(java, needed_by='The PTB tokenizer '
                                     "(tokenizer='python' needs no Java)")
        self.protocol = tokenizer
        if vocab is not None:
            self.vocab = vocab
        if no_change_sentences != 'auto':
            self.protocol.no_change_sentences = check_no_change_sentences(
                no_change_sentences)
        if subset_names is not None and set(subset_names) != {'change',
                                                              'no_change'}:
            raise ValueError("subset_names must have the keys 'change' and "
                             f"'no_change', got {subset_names!r}")
        self.subset_names = subset_names
        self.meteor_timeout = meteor_timeout
        self.tokenizer_timeout = tokenizer_timeout

    @property
    def tokenizer(self) -> str:
        """The protocol's shorthand (``'ptb'``, ``'rs_ids'``...)."""
        return self.protocol.name

    @property
    def no_change_sentences(self) -> Optional[Sequence[str]]:
        """The protocol's no-change sentences (None: no decision)."""
        return self.protocol.no_change_sentences

    @property
    def vocab(self) -> Optional[RSWordVocab]:
        """The ``'rs_ids'`` vocabulary (None before it is read)."""
        return getattr(self.protocol, 'vocab', None)

    @vocab.setter
    def vocab(self, vocab: RSWordVocab) -> None:
        if not hasattr(self.protocol, 'vocab'):
            raise ValueError(f'protocol {self.protocol.name!r} has no '
                             'vocabulary (vocab is for rs_ids)')
        self.protocol.vocab = vocab

    def score(self, records: Sequence[dict], per_type: bool = True,
              source: str = 'records') -> 'OrderedDict[str, float]':
        """Score ``records``; keys ``Bleu_1`` .. ``CIDEr`` for all pairs,
        then ``<subset>/<metric>`` for each subset of
        :func:`change_type_subsets` when ``per_type``; with no-change
        sentences, ``decision_acc`` (and per aggregate subset with
        ``per_type``; :func:`no_change_decisions`)."""
        check_records(records, source)
        if not records:
            raise ValueError(f'{source}: no predictions to score (an empty '
                             'list of pairs)')
        subsets = OrderedDict(total=[r['pair_id'] for r in records])
        names = self.names_for(records)
        if per_type:
            subsets.update(change_type_subsets(records, names))

        times = OrderedDict(start=time.time())
        # The METEOR JVM (started once per process) loads its paraphrase
        # table while the sentences are tokenised.
        meteor = (shared_meteor(self.java, timeout=self.meteor_timeout)
                  if 'METEOR' in self.metrics else None)
        gts, res = self.tokenize(records)
        warn_empty_references(gts, source)
        times['tokenize'] = time.time()
        # Per-pair scores do not depend on the rest of a subset.
        meteor_stats = {}
        if meteor is not None:
            meteor_stats = dict(zip(gts, meteor.segment_stats(
                [res[pid][0] for pid in gts], list(gts.values()))))
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
                # No reference with a word: no n-gram, nothing matches
                # (pycocoevalcap's Cider fails on max() of no frequency).
                value = (Cider().compute_score(sub_gts, sub_res)[0]
                         if any(r.strip() for refs in sub_gts.values()
                                for r in refs) else 0.)
                results[f'{prefix}CIDEr'] = float(value) * 100
            if all(f'{prefix}{m}' in results for m in S_M_METRICS):
                results[f'{prefix}S_m'] = float(np.mean(
                    [results[f'{prefix}{m}'] for m in S_M_METRICS]))
        shares = (None if self.no_change_sentences is None else
                  no_change_decisions(records, self.no_change_sentences))
        if shares is not None:
            results['decision_acc'] = shares['total']
            for key in ('change', 'no_change'):
                if per_type and key in shares:
                    results[f'{names[key]}/decision_acc'] = shares[key]
        times['BLEU, METEOR, CIDEr per subset'] = time.time()
        steps = list(times.items())
        detail = ', '.join(f'{name} {t - steps[i][1]:.1f}s'
                           for i, (name, t) in enumerate(steps[1:]))
        print_log(
            f'Scored {len(records)} pairs and {len(subsets) - 1} subsets in '
            f'{steps[-1][1] - times["start"]:.1f}s ({detail})',
            logger='current')
        return results

    def names_for(self, records: Sequence[dict]) -> Dict[str, str]:
        """The names of the all-change and no-change subsets of
        ``records`` (``subset_names``, else :func:`subset_names`)."""
        return dict(self.subset_names or subset_names(
            [r.get('change_type') or UNKNOWN_TYPE for r in records]))

    def tokenize(self, records: Sequence[dict]):
        """Tokenised ``(references, predictions)`` dicts keyed by pair id,
        in coco-caption's ``{id: [sentence, ...]}`` layout: the protocol's
        words (:mod:`mmidc.evaluation.protocols`)."""
        return self.protocol.tokenize(records, self.java,
                                      self.tokenizer_timeout)


def no_change_decisions(records: Sequence[dict], no_change: Sequence[str]
                        ) -> Optional[Dict[str, float]]:
    """How often a no-change sentence is predicted exactly on the no-change
    pairs, x100: ``'change'`` (change pairs predicted with another
    sentence), ``'no_change'`` (no-change pairs predicted with a no-change
    sentence) and ``'total'`` (both); a share is left out when its pairs are
    missing. Pairs of type ``'unknown'`` are not counted; None when no pair
    has a type. The remote-sensing papers (RSICC, Chg2Cap, CCExpert)
    report it with their data set's no-change sentences.

    Args:
        records (Sequence[dict]): ``pair_id``, ``prediction``,
            ``change_type``.
        no_change (str | Sequence[str]): The no-change sentences, or a data
            set's name (:mod:`mmidc.text.no_change`), compared after
            :func:`mmidc.text.no_change.normalize_sentence`.
    """
    right = {'change': [], 'no_change': []}
    sentences = no_change_set(no_change)
    for rec in records:
        ctype = rec.get('change_type') or UNKNOWN_TYPE
        if ctype == UNKNOWN_TYPE:
            continue
        said = normalize_sentence(rec['prediction']) in sentences
        if ctype == NO_CHANGE_TYPE:
            right['no_change'].append(said)
        else:
            right['change'].append(not said)
    every = right['change'] + right['no_change']
    if not every:
        return None
    shares = {key: 100. * sum(values) / len(values)
              for key, values in right.items() if values}
    shares['total'] = 100. * sum(every) / len(every)
    return shares


def warn_empty_references(gts: Dict[object, List[str]],
                          source: str = 'records') -> None:
    """Warn about the tokenised references that are empty (``""`` or
    punctuation only). They are scored as coco-caption scores them: they
    match nothing, and a pair with no other reference scores 0 but counts
    in the corpus (BLEU's candidate length, CIDEr-D's document frequencies).

    Args:
        gts (dict): Tokenised references of each pair id.
        source (str): Named in the warning.
    """
    some, only = [], []
    for pid, refs in gts.items():
        empty = sum(1 for r in refs if not r.strip())
        if empty == len(refs):
            only.append(pid)
        elif empty:
            some.append(pid)
    for pids, what in ((only, 'have only references that are'),
                       (some, 'have references that are')):
        if pids:
            shown = ', '.join(repr(p) for p in pids[:5])
            print_log(f'{source}: {len(pids)} pairs {what} empty or '
                      'punctuation only, scored as coco-caption scores them '
                      f'(they match nothing; pairs {shown}'
                      f'{", ..." if len(pids) > 5 else ""})',
                      logger='current', level=logging.WARNING)


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
    return plain_table(lines) + (small_cider_note() if small else '')


def plain_table(lines: List[List[str]]) -> str:
    """Rows of cells, the first column left-aligned, the rest right."""
    widths = [max(len(line[i]) for line in lines) for i in range(len(lines[0]))]
    return '\n'.join('  '.join(cell.rjust(w) if i else cell.ljust(w)
                               for i, (cell, w) in enumerate(zip(line, widths)))
                     for line in lines)


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


def subset_counts(records: Sequence[dict], per_type: bool = True,
                  names: Optional[Dict[str, str]] = None) -> Dict[str, int]:
    """Number of pairs in the total and in each per-type subset
    (``names``: see :func:`change_type_subsets`)."""
    counts = {'total': len(records)}
    if per_type:
        counts.update({k: len(v) for k, v in change_type_subsets(
            records, names).items()})
    return counts
