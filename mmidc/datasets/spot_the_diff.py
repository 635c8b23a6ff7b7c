"""Spot-the-Diff (Jhamtani & Berg-Kirkpatrick, 2018), read as distributed."""
import os.path as osp
from typing import List

from mmengine.logging import print_log

from mmidc.registry import DATASETS
from .annotation_checks import (caption_list, check_record, has_words,
                                load_json, str_field)
from .image_pair_dataset import ImagePairDataset


@DATASETS.register_module()
class SpotTheDiffDataset(ImagePairDataset):
    """Spot-the-Diff: surveillance-camera frame pairs.

    Layout of ``data_root``::

        annotations/{train,val,test}.json  [{"img_id": "5406",
                                             "sentences": ["...", ...]}, ...]
        resized_images/<img_id>.png     before
        resized_images/<img_id>_2.png   after

    ``pair_id`` is the ``img_id`` (as a string); ``change_type`` is
    ``unknown``. Some records hold empty sentences (``""``, or with no letter
    or digit: ``"..."``): they are dropped and their count is logged. A pair left with no sentence at all is
    **dropped** and its ``img_id`` logged as a warning (never silently kept
    or dropped); a split left with no pair raises. Missing images raise at
    build time.

    Args:
        data_root (str): The Spot-the-Diff root folder.
        split (str): ``'train'``, ``'val'`` or ``'test'``. Defaults to
            ``'train'``.
        **kwargs: Other arguments of :class:`ImagePairDataset`.
    """

    SPLITS = ('train', 'val', 'test')

    def __init__(self, data_root: str, split: str = 'train', **kwargs):
        if split not in self.SPLITS:
            raise ValueError(f'SpotTheDiffDataset: unknown split "{split}"; '
                             f'valid splits: {", ".join(self.SPLITS)}')
        self.split = split
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
        img_dir = self.data_prefix['img_path']
        data_list, num_empty, no_sentence = [], 0, []
        for index, record in enumerate(records):
            where = f'{self.ann_file}: record {index}'
            check_record(record, where, ('img_id', 'sentences'))
            img_id = str_field(record['img_id'], where, 'img_id',
                               allow_int=True)
            given = caption_list(record['sentences'], where, 'sentences')
            sentences = [s for s in given if has_words(s)]
            num_empty += len(given) - len(sentences)
            if not sentences:
                no_sentence.append(img_id)
                continue
            data_list.append(
                dict(
                    img1_path=osp.join(img_dir, f'{img_id}.png'),
                    img2_path=osp.join(img_dir, f'{img_id}_2.png'),
                    gt_captions=sentences,
                    pair_id=img_id,
                    change_type='unknown'))
        if num_empty:
            print_log(f'{self.ann_file}: dropped {num_empty} empty sentences '
                      '(blank or with no letter or digit)',
                      logger='current')
        if no_sentence:
            print_log(f'{self.ann_file}: dropped {len(no_sentence)} pairs '
                      f'with no non-empty sentence: img_id '
                      f'{", ".join(no_sentence)}', logger='current',
                      level=30)
        return data_list
