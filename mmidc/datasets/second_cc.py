"""SECOND-CC (Karaca et al., 2025), read as distributed."""
from mmidc.registry import DATASETS
from .change_caption_karpathy import KarpathyChangeCaptionDataset


@DATASETS.register_module()
class SECONDCCDataset(KarpathyChangeCaptionDataset):
    """SECOND-CC: SECOND's pairs with change captions and semantic maps.

    Layout of ``data_root`` (as ChangeCapsInRS/SecondCC reads it)::

        SECOND-CC-AUG.json   {"images": [{"filename": ..., "split": "train",
                                          "sentences": [{"raw": ...,
                                                         "tokens": [...]},
                                                        ...], ...}, ...]}
        {train,val,test}/rgb/A/<filename>   before
        {train,val,test}/rgb/B/<filename>   after
        {train,val,test}/sem/A/<filename>   semantic map of the before image
        {train,val,test}/sem/B/<filename>   semantic map of the after image

    Each entry carries ``sem1_path`` / ``sem2_path`` where the maps exist
    (never required). No-change pairs are flagged by the five sentences
    SECOND-CC's own evaluation lists (``no_change_sentences='second_cc'``:
    "no change is occurred", "almost nothing is changed" ...).

    Args:
        data_root (str): The SECOND-CC root folder.
        split (str): ``'train'``, ``'val'`` or ``'test'``. Defaults to
            ``'train'``.
        ann_file (str): The captions file, relative to ``data_root``.
            Defaults to ``'SECOND-CC-AUG.json'``.
        **kwargs: Other arguments of
            :class:`~mmidc.datasets.KarpathyChangeCaptionDataset`.
    """

    NO_CHANGE_NAME = 'second_cc'

    def __init__(self,
                 data_root: str,
                 split: str = 'train',
                 ann_file: str = 'SECOND-CC-AUG.json',
                 **kwargs):
        kwargs.setdefault('img1_dir', '{split}/rgb/A')
        kwargs.setdefault('img2_dir', '{split}/rgb/B')
        kwargs.setdefault('extra_dirs', dict(sem1_path='{split}/sem/A',
                                             sem2_path='{split}/sem/B'))
        super().__init__(data_root=data_root, split=split, ann_file=ann_file,
                         **kwargs)
