"""Image-Editing-Request (Tan et al., 2019), read as distributed."""
import os.path as osp
from typing import List, Optional

from mmengine.logging import print_log

from mmidc.registry import DATASETS
from .annotation_checks import (caption_list, check_record, has_words,
                                load_json, str_field)
from .image_pair_dataset import ImagePairDataset


@DATASETS.register_module()
class ImageEditingRequestDataset(ImagePairDataset):
    """Image-Editing-Request: photo pairs with editing instructions.

    Layout of ``data_root``::

        {train,valid,test}.json  [{"img0": "a.jpg", "img1": "b.png",
                                   "sents": ["...", ...],
                                   "uid": "Reddit_1012"}, ...]
        images/                  both images of every pair (.jpg and .png)

    ``pair_id`` is the ``uid``, ``change_type`` is ``unknown``. The two
    images of a pair may differ in size and format: ``ResizePair`` brings
    both to one size. Empty strings inside ``sents`` (or with no letter or
    digit: ``"..."``) are dropped (count logged); a record whose ``sents``
    has no non-empty sentence raises.

    Args:
        data_root (str): The IER root folder.
        split (str): ``'train'``, ``'valid'`` or ``'test'``; ``'val'`` is
            accepted as an alias of ``'valid'``. Defaults to ``'train'``.
        data_prefix (dict, optional): ``img_path``: the image folder relative
            to ``data_root``. Defaults to ``dict(img_path='images')``.
        **kwargs: Other arguments of :class:`ImagePairDataset`.
    """

    SPLITS = ('train', 'valid', 'test')
    ALIASES = {'val': 'valid'}

    def __init__(self,
                 data_root: str,
                 split: str = 'train',
                 data_prefix: Optional[dict] = None,
                 **kwargs):
        split = self.ALIASES.get(split, split)
        self.set_split(split, hint=' (or "val")')
        super().__init__(
            ann_file=f'{split}.json',
            data_root=data_root,
            data_prefix=data_prefix or dict(img_path='images'),
            **kwargs)

    def parse_annotations(self) -> List[dict]:
        records = load_json(self.ann_file)
        if not isinstance(records, list):
            raise ValueError(f'{self.ann_file}: expected a list of '
                             f'{{"img0", "img1", "sents", "uid"}} records')
        img_dir = self.data_prefix['img_path']
        data_list, num_empty = [], 0
        for index, record in enumerate(records):
            where = f'{self.ann_file}: record {index}'
            check_record(record, where, ('img0', 'img1', 'sents', 'uid'))
            img0, img1 = (str_field(record[key], where, key)
                          for key in ('img0', 'img1'))
            uid = str_field(record['uid'], where, 'uid', allow_int=True)
            given = caption_list(record['sents'], where, 'sents')
            sentences = [s for s in given if has_words(s)]
            num_empty += len(given) - len(sentences)
            if not sentences:
                raise ValueError(f'{where} (uid "{uid}") has no non-empty '
                                 f'sentence in "sents"')
            data_list.append(
                dict(
                    img1_path=osp.join(img_dir, img0),
                    img2_path=osp.join(img_dir, img1),
                    gt_captions=sentences,
                    pair_id=uid,
                    change_type='unknown'))
        if num_empty:
            print_log(f'{self.ann_file}: dropped {num_empty} empty sentences '
                      '(blank or with no letter or digit)',
                      logger='current')
        return data_list
