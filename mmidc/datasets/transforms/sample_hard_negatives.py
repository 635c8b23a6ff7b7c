"""Pick the hard negative captions of the caption a sample trains on."""
from typing import Optional, Sequence

import numpy as np
from mmcv.transforms import BaseTransform

from mmidc.registry import TRANSFORMS
from ..preparation.hard_negatives import KINDS, load_hard_negatives
from .sample_rng import sample_rng


@TRANSFORMS.register_module()
class SampleHardNegatives(BaseTransform):
    """Add ``negative_captions``: ``num_negatives`` hard negatives of the
    caption ``TokenizeCaptions`` chose (``caption_index``), for IDC-PCL's
    FDA task.

    The negatives come from a file written by
    ``tools/dataset_converters/make_hard_negatives.py``. They are drawn
    kind by kind in turn (retrieve, replace, confuse; each kind's list
    shuffled), and when the caption has too few, filled up with random
    captions of the file (easy negatives), so every sample has the same
    number; the pair's own references (``gt_captions``) are never drawn
    as easy negatives. The draws are the sample's (:func:`sample_rng`). Put
    it after ``TokenizeCaptions`` and add
    ``'negative_captions'`` to ``PackIDCInputs``' ``meta_keys``.

    Required keys: ``gt_captions``, ``caption_index``. Added key:
    ``negative_captions`` (list of str).

    Args:
        negatives_file (str): The file of hard negatives.
        num_negatives (int): ``K``. Defaults to 6 (the published code's
            ``neg_num``).
        kinds (Sequence[str], optional): Kinds used. Defaults to all.
    """

    def __init__(self, negatives_file: str, num_negatives: int = 6,
                 kinds: Optional[Sequence[str]] = None):
        kinds = tuple(kinds or KINDS)
        unknown = set(kinds) - set(KINDS)
        if unknown:
            raise ValueError(f'SampleHardNegatives: unknown kinds '
                             f'{sorted(unknown)}; expected some of {KINDS}')
        if num_negatives < 1:
            raise ValueError(f'num_negatives must be >= 1, got {num_negatives}')
        self.negatives_file = negatives_file
        self.num_negatives = num_negatives
        self.kinds = kinds
        self._negatives = None
        self._pool = None

    def _load(self):
        if self._negatives is None:
            self._negatives = load_hard_negatives(self.negatives_file)
            self._pool = list(self._negatives)
        return self._negatives

    def check_dataset_captions(self, captions: Sequence[str],
                               source: str) -> None:
        """Check that the file holds the negatives of every caption of a
        data set (which calls it when built, so a file of other captions
        stops the run before its first step).

        Args:
            captions (Sequence[str]): The data set's captions.
            source (str): Their annotation file(s), named in the error.

        Raises:
            ValueError: captions without negatives, naming the file, how
                many, the first and the tool that writes the file.
        """
        negatives = self._load()
        captions = list(dict.fromkeys(captions))
        missing = [c for c in captions if c not in negatives]
        if missing:
            raise ValueError(
                f'{self.negatives_file}: no hard negatives for {len(missing)} '
                f'of the {len(captions)} captions of {source}, e.g. '
                f'{missing[0]!r}; the file was written for another split or '
                'data set, or before the captions changed: write it again '
                'with tools/dataset_converters/make_hard_negatives.py')

    def transform(self, results: dict) -> dict:
        negatives = self._load()
        index = results.get('caption_index', -1)
        if index is None or index < 0:
            raise KeyError('SampleHardNegatives needs the caption_index of '
                           "one caption: put TokenizeCaptions (mode 'random' "
                           "or 'first') before it")
        caption = results['gt_captions'][index]
        if caption not in negatives:
            raise KeyError(f'{self.negatives_file}: no hard negatives for the '
                           f'caption {caption!r} (pair '
                           f'{results.get("pair_id")!r}); the file was written '
                           'for another split or data set: write it again')
        rng = sample_rng(results, 'SampleHardNegatives')
        lists = [list(negatives[caption].get(k, [])) for k in self.kinds]
        for options in lists:
            rng.shuffle(options)
        chosen = []
        while len(chosen) < self.num_negatives and any(lists):
            for options in lists:
                if options and len(chosen) < self.num_negatives:
                    chosen.append(options.pop(0))
        references = set(results['gt_captions'])
        chosen = [c for c in chosen if c not in references]
        while len(chosen) < self.num_negatives:  # easy negatives
            chosen.append(self._easy_negative(references, rng))
        results['negative_captions'] = chosen
        return results

    def _easy_negative(self, references: set,
                       rng: np.random.Generator) -> str:
        """A random caption of the file that is none of ``references``."""
        for _ in range(100):
            other = self._pool[rng.integers(len(self._pool))]
            if other not in references:
                return other
        others = [c for c in self._pool if c not in references]
        if not others:
            raise ValueError(f'{self.negatives_file}: every caption of the file '
                             'is a reference of this pair: no easy negative '
                             'to draw')
        return others[rng.integers(len(others))]

    def __repr__(self) -> str:
        return (f'{self.__class__.__name__}(negatives_file='
                f'{self.negatives_file!r}, num_negatives={self.num_negatives}, '
                f'kinds={self.kinds})')
