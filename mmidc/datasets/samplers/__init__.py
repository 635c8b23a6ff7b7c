"""Data samplers."""
from .group_sampler import GroupSampler
from .paired_scene_sampler import PairedSceneSampler, scene_groups
from .repeat_by_captions_sampler import RepeatByCaptionsSampler
from .sample_seed_sampler import SampleIndex, SampleSeedSampler
from .task_ratio_sampler import TaskRatioSampler

__all__ = [
    'GroupSampler', 'PairedSceneSampler', 'RepeatByCaptionsSampler',
    'SampleIndex', 'SampleSeedSampler', 'scene_groups', 'TaskRatioSampler'
]
