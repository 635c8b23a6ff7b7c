"""LEVIR-MCI (Liu et al., 2024), read as distributed."""
from mmidc.registry import DATASETS
from .levir_cc import LEVIRCCDataset


@DATASETS.register_module()
class LEVIRMCIDataset(LEVIRCCDataset):
    """LEVIR-MCI: LEVIR-CC's pairs and captions with change masks.

    Layout of ``data_root`` (as Chen-Yang-Liu/Change-Agent reads it)::

        LevirCCcaptions.json                     as LEVIR-CC's
        images/{train,val,test}/A/<filename>     before
        images/{train,val,test}/B/<filename>     after
        images/{train,val,test}/label/<filename> change mask

    Each entry carries ``mask_path`` where the mask exists (masks are
    passed along, never required). Its no-change sentences are LEVIR-CC's
    five (``no_change_sentences='levir_mci'``).

    Args:
        data_root (str): The LEVIR-MCI root folder.
        split (str): ``'train'``, ``'val'`` or ``'test'``. Defaults to
            ``'train'``.
        **kwargs: Other arguments of :class:`LEVIRCCDataset`.
    """

    NO_CHANGE_NAME = 'levir_mci'

    def __init__(self, data_root: str, split: str = 'train', **kwargs):
        kwargs.setdefault('extra_dirs', dict(mask_path='images/{split}/label'))
        super().__init__(data_root=data_root, split=split, **kwargs)
