"""Data samplers."""
from .group_sampler import GroupSampler
from .paired_scene_sampler import PairedSceneSampler, scene_groups
from .repeat_by_captions_sampler import RepeatByCaptionsSampler
from .task_ratio_sampler import TaskRatioSampler

__all__ = [
    'GroupSampler', 'PairedSceneSampler', 'RepeatByCaptionsSampler',
    'scene_groups', 'TaskRatioSampler'
]
