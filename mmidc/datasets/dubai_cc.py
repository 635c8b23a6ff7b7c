"""Dubai-CC (Hoxha et al., 2022), read as distributed."""
import glob
import os.path as osp
from typing import List, Tuple

from mmidc.registry import DATASETS
from .change_caption_karpathy import KarpathyChangeCaptionDataset


@DATASETS.register_module()
class DubaiCCDataset(KarpathyChangeCaptionDataset):
    """Dubai-CC: 50x50 Landsat crops of Dubai, 2000 and 2010.

    Layout of ``data_root`` (as ShizhenChang/Chg2Cap reads it)::

        description_jsontr_te_val/Train_*.json       {"images": [{"filename",
        description_jsontr_te_val/Validation_*.json    "sentences": [{"raw"},
        description_jsontr_te_val/Test_*.json          ...]}, ...]}
        RGB/500_2000/<filename>   before
        RGB/500_2010/<filename>   after

    Each split is one file (its name starts with ``Train_``,
    ``Validation_`` or ``Test_``): records need no split key (their
    ``image_id`` and ``sentence_id`` restart in each file and are
    ignored). Exactly one file per split must match, else the error names
    the folder and the files found. Dubai-CC has no ``changeflag``: a pair
    is a no-change pair when its five captions are among the 32 ways the
    set says nothing changed (``no_change_sentences='dubai_cc'``, e.g.
    "Everything remains the same.", "There is no change to mention.");
    pairs that mix them with change captions are change pairs by default
    (``mixed_pairs``).

    Args:
        data_root (str): The Dubai-CC root folder (the one holding
            ``description_jsontr_te_val/`` and ``RGB/``).
        split (str): ``'train'``, ``'val'`` or ``'test'``. Defaults to
            ``'train'``.
        ann_dir (str): The folder of the three caption files, relative to
            ``data_root``. Defaults to ``'description_jsontr_te_val'``.
        **kwargs: Other arguments of
            :class:`~mmidc.datasets.KarpathyChangeCaptionDataset`.
    """

    NO_CHANGE_NAME = 'dubai_cc'
    #: The file name prefix of each split's captions.
    PREFIXES = dict(train='Train_', val='Validation_', test='Test_')

    def __init__(self,
                 data_root: str,
                 split: str = 'train',
                 ann_dir: str = 'description_jsontr_te_val',
                 **kwargs):
        kwargs.setdefault('img1_dir', 'RGB/500_2000')
        kwargs.setdefault('img2_dir', 'RGB/500_2010')
        kwargs.setdefault('split_key', None)
        self.ann_dir = ann_dir
        super().__init__(data_root=data_root, split=split, ann_file=ann_dir,
                         **kwargs)

    def annotation_records(self) -> List[Tuple[str, dict]]:
        """The records of the split's own ``<Prefix>_*.json``."""
        folder = self.ann_file
        prefix = self.PREFIXES[self.split]
        if not osp.isdir(folder):
            raise FileNotFoundError(f'Dubai-CC caption folder not found: '
                                    f'{folder} (the split files '
                                    f'{prefix}*.json live there)')
        files = sorted(glob.glob(osp.join(glob.escape(folder),
                                          prefix + '*.json')))
        if len(files) != 1:
            found = sorted(osp.basename(f) for f in glob.glob(
                osp.join(glob.escape(folder), '*.json')))
            raise ValueError(
                f'{folder}: expected one {prefix}*.json for split '
                f'"{self.split}", found {len(files)} (JSON files there: '
                f'{", ".join(found) or "none"})')
        self.split_file = files[0]
        return [(f'{files[0]}: images[{index}]', record)
                for index, record in enumerate(
                    self.load_images_list(files[0]))]

    def annotation_source(self) -> str:
        return getattr(self, 'split_file', self.ann_file)
