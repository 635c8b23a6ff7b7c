"""Keep each scene's change and no-change pair next to each other."""
from collections import OrderedDict
from typing import List

from mmidc.registry import DATA_SAMPLERS
from .group_sampler import GroupSampler

__all__ = ['PairedSceneSampler', 'scene_groups']

NO_CHANGE_SUFFIX = '_n'


def scene_groups(dataset) -> List[List[int]]:
    """Indices of each scene's ``[change pair, no-change pair]``.

    A scene is a ``pair_id`` without the no-change suffix ``_n``
    (CLEVR-Change's convention: ``000123.png`` and ``000123.png_n``). Every
    scene must have exactly one change pair (``change_type`` other than
    ``'none'``) and one no-change pair (``'none'``); otherwise a
    ``ValueError`` names the scene.
    """
    scenes = OrderedDict()
    for index in range(len(dataset)):
        info = dataset.get_data_info(index)
        pair_id = str(info['pair_id'])
        scene = (pair_id[:-len(NO_CHANGE_SUFFIX)]
                 if pair_id.endswith(NO_CHANGE_SUFFIX) else pair_id)
        slot = 1 if info['change_type'] == 'none' else 0
        group = scenes.setdefault(scene, [None, None])
        if group[slot] is not None:
            kind = 'no-change' if slot else 'change'
            raise ValueError(f'PairedSceneSampler: scene "{scene}" has two '
                             f'{kind} pairs (entries {group[slot]} and '
                             f'{index})')
        group[slot] = index
    for scene, group in scenes.items():
        if None in group:
            missing = 'change' if group[0] is None else 'no-change'
            raise ValueError(
                f'PairedSceneSampler: scene "{scene}" has no {missing} pair '
                f'(CLEVRChangeDataset needs with_no_change=True)')
    return list(scenes.values())


@DATA_SAMPLERS.register_module()
class PairedSceneSampler(GroupSampler):
    """Shuffle scenes, not pairs: each scene's change pair is followed by
    its no-change pair, so a batch of even size holds both pairs of each of
    its scenes, one change and one no-change pair per scene.

    This is the batch composition of the published CLIP4IDC captioning code
    on CLEVR-Change, which runs two forward passes per batch of scenes:
    (before, semantic change, change caption) and (before, distractor,
    no-change caption). A batch of ``2k`` pairs here is a batch of ``k``
    scenes there (the reference's batch 16 is ``batch_size=32`` here).

    Scenes are found by :func:`scene_groups`; distributed training splits
    whole scenes across ranks (:class:`GroupSampler`). ``batch_size`` must
    be even (checked by :func:`mmidc.runtime.config_check.check_config`).

    Args:
        dataset (Sized): A data set of change and no-change pairs.
        shuffle (bool): Shuffle the scenes. Defaults to True.
        seed (int, optional): Shuffle seed, the same on every rank.
        round_up (bool): Repeat scenes so that every rank gets the same
            number. Defaults to True.
    """

    def build_groups(self, dataset) -> List[List[int]]:
        return scene_groups(dataset)
