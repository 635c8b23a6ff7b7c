"""Spot-the-Diff (Jhamtani & Berg-Kirkpatrick, 2018), read as distributed."""
import logging
import os.path as osp
from typing import Dict, List, Optional

from mmengine.logging import print_log

from mmidc.registry import DATASETS
from .annotation_checks import (caption_list, check_record, has_words,
                                load_json, str_field)
from .image_pair_dataset import ImagePairDataset


def _ids(ids: List[str], limit: int = 10) -> str:
    shown = ', '.join(ids[:limit])
    return shown + (f', ... ({len(ids)} in all)' if len(ids) > limit else '')


@DATASETS.register_module()
class SpotTheDiffDataset(ImagePairDataset):
    """Spot-the-Diff: surveillance-camera frame pairs.

    Layout of ``data_root``::

        annotations/{train,val,test}.json  [{"img_id": "5406",
                                             "sentences": ["...", ...]}, ...]
        resized_images/<img_id>.png     before
        resized_images/<img_id>_2.png   after

    The files hold one record per annotator. Each ``img_id`` is **one
    pair**, in the order of its first record, whose references
    (``gt_captions``) are the sentences of all its records in file order,
    as the official test references are built (docs/datasets.md).
    ``pair_id`` is the ``img_id`` (a string); ``change_type`` is
    ``unknown``. The merge is logged (records, pairs, ``img_id`` values
    merged).

    Empty sentences (``""``, or with no letter or digit) are **kept** as
    references on ``val`` and ``test``, as the official scoring keeps them
    (docs/evaluation.md), and dropped on ``train``, with the pairs left
    with none (counted and logged, their ``img_id`` values named). A split
    with no pair raises; missing images raise at build time.

    Training: ``TokenizeCaptions(mode='random')`` draws one sentence of a
    pair at each visit; ``RepeatByCaptionsSampler`` visits a pair once per
    sentence in an epoch (CLIP4IDC's adaptation stage).

    Args:
        data_root (str): The Spot-the-Diff root folder.
        split (str): ``'train'``, ``'val'`` or ``'test'``. Defaults to
            ``'train'``.
        keep_empty_sentences (bool, optional): Keep the empty sentences as
            references. Defaults to None: kept on ``val`` and ``test``,
            dropped on ``train``.
        **kwargs: Other arguments of :class:`ImagePairDataset`.
    """

    def __init__(self,
                 data_root: str,
                 split: str = 'train',
                 keep_empty_sentences: Optional[bool] = None,
                 **kwargs):
        self.set_split(split)
        if keep_empty_sentences is None:
            keep_empty_sentences = split != 'train'
        if not isinstance(keep_empty_sentences, bool):
            raise ValueError('SpotTheDiffDataset: keep_empty_sentences must '
                             'be True, False or None, got '
                             f'{keep_empty_sentences!r}')
        self.keep_empty_sentences = keep_empty_sentences
        super().__init__(
            ann_file=osp.join('annotations', f'{split}.json'),
            data_root=data_root,
            data_prefix=dict(img_path='resized_images'),
            **kwargs)

    def parse_annotations(self) -> List[dict]:
        records = load_json(self.ann_file)
        if not isinstance(records, list):
            raise ValueError(f'{self.ann_file}: expected a list of '
                             f'{{"img_id", "sentences"}} records')
        sentences: Dict[str, List[str]] = {}
        num_records: Dict[str, int] = {}
        for index, record in enumerate(records):
            where = f'{self.ann_file}: record {index}'
            check_record(record, where, ('img_id', 'sentences'))
            img_id = str_field(record['img_id'], where, 'img_id',
                               allow_int=True)
            sentences.setdefault(img_id, []).extend(
                caption_list(record['sentences'], where, 'sentences'))
            num_records[img_id] = num_records.get(img_id, 0) + 1
        merged = [i for i, n in num_records.items() if n > 1]
        print_log(
            f'{self.ann_file}: {len(records)} records -> {len(sentences)} '
            f'pairs, {sum(map(len, sentences.values()))} sentences (the '
            f'{len(records) - len(sentences) + len(merged)} records of the '
            f'{len(merged)} img_ids listed more than once are merged: a '
            "pair's references are the sentences of all its records)",
            logger='current')

        img_dir = self.data_prefix['img_path']
        data_list, num_empty, only_empty = [], 0, []
        for img_id, given in sentences.items():
            worded = [s for s in given if has_words(s)]
            num_empty += len(given) - len(worded)
            if not worded:
                only_empty.append(img_id)
            if not self.keep_empty_sentences:
                if not worded:
                    continue
                given = worded
            data_list.append(
                dict(
                    img1_path=osp.join(img_dir, f'{img_id}.png'),
                    img2_path=osp.join(img_dir, f'{img_id}_2.png'),
                    gt_captions=given,
                    pair_id=img_id,
                    change_type='unknown'))
        self._log_empty(num_empty, only_empty)
        return data_list

    def _log_empty(self, num_empty: int, only_empty: List[str]) -> None:
        """Log the empty sentences and the pairs with no other."""
        if not num_empty:
            return
        what = '(blank or with no letter or digit)'
        if self.keep_empty_sentences:
            msg = (f'{self.ann_file}: kept {num_empty} empty sentences {what} '
                   'as references, as the official scoring does')
            if only_empty:
                msg += (f'; {len(only_empty)} pairs have only empty '
                        'references (they match no prediction): img_id '
                        f'{_ids(only_empty)}')
            print_log(msg, logger='current')
            return
        print_log(f'{self.ann_file}: dropped {num_empty} empty sentences '
                  f'{what}', logger='current')
        if only_empty:
            print_log(f'{self.ann_file}: dropped {len(only_empty)} pairs '
                      f'with no non-empty sentence: img_id '
                      f'{_ids(only_empty)}', logger='current',
                      level=logging.WARNING)

    def check_captions(self, captions: List[str], where: str) -> None:
        """Empty sentences are references too where they are kept."""
        if not self.keep_empty_sentences:
            return super().check_captions(captions, where)
        if not captions or not all(isinstance(c, str) for c in captions):
            raise ValueError(f'{where}: gt_captions must be a non-empty list '
                             f'of strings, got {captions!r}')
