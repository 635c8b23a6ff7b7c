"""LEVIR-CC (Liu et al., 2022), read as distributed."""
from mmidc.registry import DATASETS
from .change_caption_karpathy import KarpathyChangeCaptionDataset


@DATASETS.register_module()
class LEVIRCCDataset(KarpathyChangeCaptionDataset):
    """LEVIR-CC: bitemporal 256x256 remote-sensing pairs, five captions each.

    Layout of ``data_root`` (as Chen-Yang-Liu/RSICC distributes it)::

        LevirCCcaptions.json    {"images": [{"filename": "train_000001.png",
                                             "filepath": "train",
                                             "split": "train", "imgid": 0,
                                             "sentences": [{"raw": "...",
                                                            "tokens": [...],
                                                            ...}, ...],
                                             ...}, ...]}
        images/{train,val,test}/A/<filename>   before
        images/{train,val,test}/B/<filename>   after

    PromptCC's ``LevirCCcaptions_v1.json`` (the same records with a
    ``changeflag``) is read with ``ann_file='LevirCCcaptions_v1.json'``;
    without ``changeflag`` a pair is a no-change pair when all its captions
    are LEVIR-CC's five no-change sentences
    (``mmidc.text.no_change.NO_CHANGE_SENTENCES['levir_cc']``). The
    captions are read as the file writes them (``" there is no difference
    ."``, one with a literal backslash: ``" a\\almost all of the plants
    ..."``).

    Args:
        data_root (str): The LEVIR-CC root folder.
        split (str): ``'train'``, ``'val'`` or ``'test'``. Defaults to
            ``'train'``.
        ann_file (str): The captions file, relative to ``data_root``.
            Defaults to ``'LevirCCcaptions.json'``.
        **kwargs: Other arguments of
            :class:`~mmidc.datasets.KarpathyChangeCaptionDataset` (the
            folders, ``extra_dirs``, ``pipeline`` ...).
    """

    NO_CHANGE_NAME = 'levir_cc'

    def __init__(self,
                 data_root: str,
                 split: str = 'train',
                 ann_file: str = 'LevirCCcaptions.json',
                 **kwargs):
        super().__init__(data_root=data_root, split=split, ann_file=ann_file,
                         **kwargs)
