"""WHU-CDC (Shi et al., 2024), read as distributed."""
from mmidc.registry import DATASETS
from .change_caption_karpathy import KarpathyChangeCaptionDataset


@DATASETS.register_module()
class WHUCDCDataset(KarpathyChangeCaptionDataset):
    """WHU-CDC: WHU building change pairs with change captions.

    Layout of ``data_root``::

        whuCCcaptions.json   {"images": [{"filename": ..., "filepath": "train",
                                          "sentences": [{"raw": ...}, ...],
                                          ...}, ...]}
        images/{train,val,test}/A/<filename>      before
        images/{train,val,test}/B/<filename>      after
        images/{train,val,test}/label/<filename>  change mask (optional)

    A record's split is its ``filepath``. Each entry carries ``mask_path``
    where a mask exists (never required). The distributed records carry
    ``changeflag``, which sets the change flag; without it a pair is a
    no-change pair by LEVIR-CC's five sentences, which WHU-CDC's no-change
    pairs use (``no_change_sentences='whu_cdc'``).

    Args:
        data_root (str): The WHU-CDC root folder.
        split (str): ``'train'``, ``'val'`` or ``'test'``. Defaults to
            ``'train'``.
        ann_file (str): The captions file, relative to ``data_root``.
            Defaults to ``'whuCCcaptions.json'``.
        **kwargs: Other arguments of
            :class:`~mmidc.datasets.KarpathyChangeCaptionDataset`.
    """

    NO_CHANGE_NAME = 'whu_cdc'

    def __init__(self,
                 data_root: str,
                 split: str = 'train',
                 ann_file: str = 'whuCCcaptions.json',
                 **kwargs):
        kwargs.setdefault('split_key', 'filepath')
        kwargs.setdefault('extra_dirs', dict(mask_path='images/{split}/label'))
        super().__init__(data_root=data_root, split=split, ann_file=ann_file,
                         **kwargs)
