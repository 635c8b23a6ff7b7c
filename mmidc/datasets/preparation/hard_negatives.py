"""Hard negative captions for IDC-PCL's fine-grained difference aligning.

Three kinds (:data:`KINDS`), made offline from a data set's own training
captions, for any language the captions use (no tagger, no download):
**retrieve** (the most TF-IDF-similar other captions, paraphrases left
out), **replace** (content words swapped for words of their kind) and
**confuse** (roles swapped). docs/idc_pcl.md describes each kind and its
options. Replace and confuse change words in place; no negative of any kind
is a reference of a pair the caption describes; everything is deterministic
for a given ``seed``.
"""
import json
import math
import os
import os.path as osp
import random
import warnings
from collections import Counter, defaultdict
from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple

import torch

from mmidc.text.caption_words import word_spans
from mmidc.text.text_files import load_json

__all__ = ['HardNegativeGenerator', 'load_hard_negatives', 'KINDS',
           'DEFAULT_ROLE_PAIRS', 'DEFAULT_SYNONYMS', 'save_hard_negatives',
           'hard_negatives_path', 'write_hard_negatives']

KINDS = ('retrieve', 'replace', 'confuse')
#: Role words swapped by ``confuse`` (Birds-to-Words names the two birds so).
DEFAULT_ROLE_PAIRS = (('animal1', 'animal2'), )
#: English near-synonym groups never swapped for each other (a swap would
#: make a false negative: ``light pink`` -> ``pale pink``), added to the
#: synonyms found in the corpus, which a small corpus may miss.
DEFAULT_SYNONYMS = (
    ('light', 'pale', 'faint'), ('dark', 'deep'), ('big', 'large', 'huge'),
    ('small', 'little', 'tiny'), ('gray', 'grey'), ('shiny', 'metal',
                                                     'metallic'),
    ('matte', 'rubber'), ('bright', 'vivid', 'brilliant'),
    ('dull', 'drab', 'muted'), ('thin', 'slender', 'skinny', 'narrow'),
    ('thick', 'stout', 'wide'), ('long', 'elongated'),
    ('short', 'stubby'), ('spotted', 'speckled', 'dotted'),
    ('striped', 'streaked', 'barred'), ('cube', 'block'),
    ('sphere', 'ball'), ('object', 'thing'), ('chest', 'breast'),
    ('bill', 'beak'))
_START, _END = '<s>', '</s>'


def _nested(a: Sequence[str], b: Sequence[str],
            synonyms: Set[frozenset] = frozenset()) -> bool:
    """Whether one word sequence is a subsequence of the other, a word
    matching itself or a synonym (greedy matching)."""
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    i = 0
    for w in long:
        if i < len(short) and (w == short[i] or frozenset((w, short[i])) in synonyms):
            i += 1
    return i == len(short)


def _replace_spans(caption: str, edits: Dict[Tuple[int, int], str]) -> str:
    """``caption`` with the spans of ``edits`` replaced (the case of the
    original word's first letter kept)."""
    out, last = [], 0
    for (start, end), word in sorted(edits.items()):
        old = caption[start:end]
        if old[:1].isupper():
            word = word[:1].upper() + word[1:]
        out += [caption[last:start], word]
        last = end
    return ''.join(out + [caption[last:]])


class HardNegativeGenerator:
    """Fit on a training set's captions, then make negatives of each kind.

    Args:
        captions_by_pair (Sequence[Sequence[str]]): The reference captions
            of each training pair.
        role_pairs (Sequence[tuple]): Words swapped by ``confuse``.
            Defaults to ``(('animal1', 'animal2'),)``.
        max_df (float): Words in more than this share of the unique captions
            are function words: never replaced. Defaults to 0.3.
        min_count (int): Words seen fewer times are never replaced or used
            as replacements. Defaults to 2.
        min_similarity (float): Cosine similarity of the neighbour counts
            above which two words are of one kind. Defaults to 0.8.
        backoff_similarity (float): The lower similarity a word with no
            kin at ``min_similarity`` takes its kin at (small corpora).
            Defaults to 0.5.
        synonym_threshold (float): Two words are synonyms when, among the
            pairs whose references mention either, at least this share has
            one reference with only the first and another with only the
            second. Defaults to 0.28 (on CLEVR-Change-style captions,
            synonyms alternate in 0.5-0.7 of such pairs, other words of one
            kind in at most 0.25).
        synonyms (Sequence[Sequence[str]]): Near-synonym groups never
            swapped for each other, besides those found. Defaults to
            :data:`DEFAULT_SYNONYMS`.
        replace_words (int): Most words a replace negative swaps (each
            swaps between 1 and this many). Defaults to 3.
        seed (int): Seed of the random choices. Defaults to 0.
    """

    def __init__(self,
                 captions_by_pair: Sequence[Sequence[str]],
                 role_pairs: Sequence[Tuple[str, str]] = DEFAULT_ROLE_PAIRS,
                 max_df: float = 0.3,
                 min_count: int = 2,
                 min_similarity: float = 0.8,
                 backoff_similarity: float = 0.5,
                 synonym_threshold: float = 0.28,
                 synonyms: Sequence[Sequence[str]] = DEFAULT_SYNONYMS,
                 replace_words: int = 3,
                 seed: int = 0):
        self.role_of = {}
        for a, b in role_pairs:
            self.role_of[a.lower()], self.role_of[b.lower()] = b.lower(), a.lower()
        self.max_df = max_df
        self.min_count = min_count
        self.min_similarity = min_similarity
        self.backoff_similarity = min(backoff_similarity, min_similarity)
        if replace_words < 1:
            raise ValueError(f'replace_words must be >= 1, got {replace_words}')
        self.replace_words = replace_words
        self.given_synonyms = {
            frozenset((a.lower(), b.lower())) for group in synonyms
            for a in group for b in group if a.lower() != b.lower()}
        self.synonym_threshold = synonym_threshold
        self.seed = seed
        pairs = [list(dict.fromkeys(p)) for p in captions_by_pair if p]
        if not pairs:
            raise ValueError('HardNegativeGenerator: no captions to fit on')
        self._fit(pairs)

    # --------------------------------------------------------------- fitting
    def _fit(self, pairs: List[List[str]]) -> None:
        self.captions = list(dict.fromkeys(c for p in pairs for c in p))
        self.index = {c: i for i, c in enumerate(self.captions)}
        self.words = words = {c: [w for _, _, w in word_spans(c)] for c in self.captions}
        # paraphrases: every reference of every pair a caption describes
        pairs_of = defaultdict(list)
        for k, p in enumerate(pairs):
            for c in p:
                pairs_of[c].append(k)
        self._pairs, self._pairs_of = pairs, pairs_of

        counts, df = Counter(), Counter()
        self.bigrams: Set[Tuple[str, str]] = set()
        left, right = defaultdict(Counter), defaultdict(Counter)
        for p in pairs:
            for c in p:
                counts.update(words[c])
        for c in self.captions:
            seq = [_START] + words[c] + [_END]
            df.update(set(words[c]))
            for a, b in zip(seq, seq[1:]):
                self.bigrams.add((a, b))
            for a, b, n in zip(seq, seq[1:], seq[2:]):
                left[b][a] += 1
                right[b][n] += 1
        num = len(self.captions)
        self.function_words = {w for w in df if df[w] / num > self.max_df}
        self.content = sorted(
            w for w in counts
            if counts[w] >= self.min_count and df[w] / num <= self.max_df
            and w not in self.role_of)
        self.kind_of = self._word_kinds(left, right)
        self.synonyms = self._synonyms(pairs, words) | self.given_synonyms
        self._fit_tfidf(words, df)

    def _word_kinds(self, left, right) -> Dict[str, List[str]]:
        """Each content word's words of the same kind, most similar first."""
        def vector(w):
            v = {('L', k): x for k, x in left[w].items()}
            v.update({('R', k): x for k, x in right[w].items()})
            norm = math.sqrt(sum(x * x for x in v.values())) or 1.0
            return {k: x / norm for k, x in v.items()}

        vectors = {w: vector(w) for w in self.content}
        kinds = {}
        for w in self.content:
            vw = vectors[w]
            sims = []
            for o in self.content:
                if o == w:
                    continue
                vo = vectors[o]
                s = sum(x * vo.get(k, 0.0) for k, x in vw.items())
                if s >= self.backoff_similarity:
                    sims.append((-s, o))
            sims.sort()
            strong = [o for s, o in sims if -s >= self.min_similarity]
            kinds[w] = strong or [o for _, o in sims]
        return kinds

    def _synonyms(self, pairs, words) -> Set[frozenset]:
        """Same-kind word pairs that alternate between references of the
        same pairs (see ``synonym_threshold``)."""
        candidates = {frozenset((w, o)) for w, os_ in self.kind_of.items() for o in os_}
        mention, alternate = Counter(), Counter()
        for p in pairs:
            sets = [set(words[c]) for c in p]
            present = set().union(*sets)
            for cand in candidates:
                a, b = tuple(cand)
                if a not in present and b not in present:
                    continue
                mention[cand] += 1
                if any(a in s and b not in s for s in sets) and \
                        any(b in s and a not in s for s in sets):
                    alternate[cand] += 1
        return {c for c in candidates
                if alternate[c] >= self.synonym_threshold * mention[c] > 0}

    def _fit_tfidf(self, words, df) -> None:
        vocab = {w: i for i, w in enumerate(sorted(df))}
        num = len(self.captions)
        idf = torch.tensor([math.log(num / df[w]) + 1.0 for w in sorted(df)])
        rows, cols, vals = [], [], []
        for i, c in enumerate(self.captions):
            for w, n in Counter(words[c]).items():
                rows.append(i)
                cols.append(vocab[w])
                vals.append(n * float(idf[vocab[w]]))
        matrix = torch.sparse_coo_tensor([rows, cols], vals, (num, len(vocab)),
                                         check_invariants=True).coalesce()
        norms = torch.zeros(num).index_add_(0, matrix.indices()[0],
                                            matrix.values() ** 2).sqrt().clamp(min=1e-12)
        values = matrix.values() / norms[matrix.indices()[0]]
        self._vocab, self._idf = vocab, idf
        with warnings.catch_warnings():  # torch: "CSR support is in beta"
            warnings.simplefilter('ignore', UserWarning)
            self._tfidf_csr = torch.sparse_coo_tensor(
                matrix.indices(), values, matrix.shape,
                check_invariants=True).coalesce().to_sparse_csr()  # [U, V]

    # ------------------------------------------------------------- negatives
    def paraphrases(self, caption: str) -> Set[str]:
        """The caption and every reference of the pairs it describes."""
        found = {caption}
        for k in self._pairs_of.get(caption, ()):
            found.update(self._pairs[k])
        return found

    def retrieve_many(self, captions: Sequence[str], k: int,
                      chunk: int = 256) -> List[List[str]]:
        """The ``k`` most TF-IDF-similar other captions of each caption
        (its paraphrases left out), best first."""
        results = []
        for start in range(0, len(captions), chunk):
            part = captions[start:start + chunk]
            queries = torch.stack([self._query(c) for c in part])  # [q, V]
            scores = (self._tfidf_csr @ queries.t()).t()  # [q, U]
            for row, caption in zip(scores, part):
                for p in self.paraphrases(caption):
                    row[self.index[p]] = -1.0
                best = row.topk(min(4 * k, len(row))).indices.tolist()
                words = self._content_words(caption)
                near = [self.captions[j] for j in best if row[j] > -1.0 and
                        not _nested(words, self._content_words(self.captions[j]),
                                    self.synonyms)]
                results.append(near[:k])
        return results

    def _content_words(self, caption: str) -> List[str]:
        return [w for w in self.words[caption] if w not in self.function_words]

    def _query(self, caption: str) -> torch.Tensor:
        """The L2-normalised TF-IDF vector ``[V]`` of a caption."""
        q = torch.zeros(len(self._vocab))
        for w, n in Counter(self.words[caption]).items():
            q[self._vocab[w]] = n * self._idf[self._vocab[w]]
        return q / q.norm().clamp(min=1e-12)

    def replace(self, caption: str, k: int, rng: random.Random) -> List[str]:
        """Up to ``k`` different captions, each with 1 to ``replace_words``
        content words swapped for words of their kind (docs/idc_pcl.md)."""
        spans = word_spans(caption)
        words = [w for _, _, w in spans]
        seq = [_START] + words + [_END]
        options = {}  # word position -> its possible replacements
        for i, w in enumerate(words):
            found = [o for o in self.kind_of.get(w, ())
                     if frozenset((w, o)) not in self.synonyms and
                     (seq[i], o) in self.bigrams and (o, seq[i + 2]) in self.bigrams]
            if found:
                options[i] = found
        positions = sorted(options)
        forbidden = self.paraphrases(caption)
        out = []
        for _ in range(20 * k):
            if not positions or len(out) == k:
                break
            n = rng.randint(1, min(self.replace_words, len(positions)))
            chosen = sorted(rng.sample(positions, n))
            new = list(seq)
            for i in chosen:
                new[i + 1] = rng.choice(options[i])
            # two swapped neighbours make a bigram of two new words
            if any((new[i + 1], new[i + 2]) not in self.bigrams
                   for i in chosen if i + 1 in chosen):
                continue
            negative = _replace_spans(
                caption, {spans[i][:2]: new[i + 1] for i in chosen})
            if negative not in out and negative not in forbidden:
                out.append(negative)
        return out

    def confuse(self, caption: str) -> List[str]:
        """The caption with its roles swapped (at most one), or nothing."""
        spans = word_spans(caption)
        roles = {(s, e): self.role_of[w] for s, e, w in spans if w in self.role_of}
        forbidden = self.paraphrases(caption)
        if roles:
            negative = _replace_spans(caption, roles)
            return [negative] if negative not in forbidden else []
        for i, (s1, e1, w1) in enumerate(spans):
            kind = set(self.kind_of.get(w1, ()))
            for s2, e2, w2 in spans[i + 1:]:
                if w2 != w1 and w2 in kind and frozenset((w1, w2)) not in self.synonyms:
                    negative = _replace_spans(caption, {(s1, e1): w2, (s2, e2): w1})
                    return [negative] if negative not in forbidden else []
        return []

    def generate(self, num_retrieve: int = 3, num_replace: int = 3,
                 progress: Optional[Iterable] = None) -> Dict[str, Dict[str, List[str]]]:
        """Negatives of every caption: ``{caption: {kind: [negative, ...]}}``.

        ``progress``: called with the number of captions done after each
        chunk (a progress bar's ``update``).
        """
        rng = random.Random(self.seed)
        out = {}
        chunk = 256
        for start in range(0, len(self.captions), chunk):
            part = self.captions[start:start + chunk]
            retrieved = self.retrieve_many(part, num_retrieve)
            for caption, near in zip(part, retrieved):
                out[caption] = dict(retrieve=near,
                                    replace=self.replace(caption, num_replace, rng),
                                    confuse=self.confuse(caption))
            if progress is not None:
                progress(len(part))
        return out

    def word_classes(self) -> Dict[str, List[str]]:
        """The kinds found: ``{word: [words of its kind, not synonyms]}``."""
        return {w: [o for o in os_ if frozenset((w, o)) not in self.synonyms]
                for w, os_ in self.kind_of.items() if os_}


def load_hard_negatives(path: str) -> Dict[str, Dict[str, List[str]]]:
    """Read a file written by ``tools/dataset_converters/make_hard_negatives.py``:
    ``{caption: {kind: [negative, ...]}}``."""
    if not osp.isfile(path):
        raise FileNotFoundError(
            f'hard negatives file not found: {path} (write it with '
            'tools/dataset_converters/make_hard_negatives.py)')
    content = load_json(path, 'hard negatives file')
    negatives = content.get('negatives') if isinstance(content, dict) else None
    if not isinstance(negatives, dict):
        raise ValueError(f'{path}: expected an object with key "negatives" '
                         '({caption: {kind: [negative, ...]}})')
    return negatives


def save_hard_negatives(path: str, negatives: dict, meta: dict) -> None:
    """Write ``{"meta": ..., "negatives": ...}`` atomically."""
    os.makedirs(osp.dirname(osp.abspath(path)), exist_ok=True)
    tmp = f'{path}.tmp{os.getpid()}'
    with open(tmp, 'w', encoding='utf-8') as f:
        json.dump(dict(meta=meta, negatives=negatives), f, ensure_ascii=False)
    os.replace(tmp, path)


def hard_negatives_path(dataset) -> str:
    """Where a data set's hard negatives go by default:
    ``hard_negatives_<split>.json`` in the folder of its annotation file
    (a data set without splits: the name of that file, ``val.jsonl`` ->
    ``hard_negatives_val.json``)."""
    folder = osp.dirname(dataset.ann_file) or dataset.data_root
    split = getattr(dataset, 'split', None) or osp.splitext(
        osp.basename(dataset.ann_file))[0] or 'train'
    return osp.join(folder, f'hard_negatives_{split}.json')


def write_hard_negatives(path: str, negatives: dict, dataset,
                         generator: HardNegativeGenerator,
                         seed: int) -> Dict[str, int]:
    """Write ``negatives`` of ``dataset``'s captions made by ``generator``
    with its settings as the file's ``meta`` (:func:`save_hard_negatives`).

    Returns:
        dict: The number of captions with a negative of each kind.
    """
    counts = {k: sum(1 for v in negatives.values() if v[k]) for k in KINDS}
    meta = dict(source=f'{type(dataset).__name__} {dataset.data_root} '
                f'({getattr(dataset, "split", "")})',
                seed=seed, num_captions=len(negatives),
                captions_with=counts, role_pairs=generator.role_of,
                max_df=generator.max_df,
                min_similarity=generator.min_similarity,
                backoff_similarity=generator.backoff_similarity,
                replace_words=generator.replace_words,
                synonym_threshold=generator.synonym_threshold,
                synonyms=sorted(sorted(s) for s in generator.synonyms),
                word_classes=generator.word_classes())
    save_hard_negatives(path, negatives, meta)
    return counts
