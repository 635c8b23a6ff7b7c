"""One visit of a pair per reference caption in every epoch."""
from typing import List

from mmidc.registry import DATA_SAMPLERS
from .group_sampler import GroupSampler

__all__ = ['RepeatByCaptionsSampler']


@DATA_SAMPLERS.register_module()
class RepeatByCaptionsSampler(GroupSampler):
    """Each pair comes as many times per epoch as it has reference captions
    (``gt_captions``), in shuffled order.

    The published CLIP4IDC code's adaptation stage iterates over (pair,
    caption) samples, every caption of a pair once per epoch; mmidc's data
    sets hold one sample per pair and ``TokenizeCaptions(mode='random')``
    draws its caption each time. With this sampler an epoch has the
    reference's length (the number of captions) and every caption is seen
    once per epoch on average (drawn with replacement, not each exactly
    once). Use it with the contrastive adaptation stage; an epoch of the
    default sampler is one visit per pair.

    Args:
        dataset (Sized): The data set (entries with ``gt_captions``).
        shuffle (bool): Shuffle. Defaults to True.
        seed (int, optional): Shuffle seed, the same on every rank.
        round_up (bool): Repeat samples so that every rank gets the same
            number. Defaults to True.
    """

    def build_groups(self, dataset) -> List[List[int]]:
        groups = []
        for index in range(len(dataset)):
            count = len(dataset.get_data_info(index)['gt_captions'])
            groups += [[index]] * count
        return groups
