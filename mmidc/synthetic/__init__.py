"""Synthetic CLEVR-Change-style data (numpy/PIL renderer, no Blender): the
generator writes a data set in CLEVR-Change's layout, with scene graphs that
the caption checker reads; ``CLEVRChangeDataset`` loads it.

Imported on demand (``mmidc`` does not import it).
"""
from .caption_checker import (CaptionVerdict, check_change_caption,
                              check_dataset, check_no_change_caption,
                              check_scene_graph, judge_change_caption,
                              judge_no_change_caption, resolve_reference,
                              scene_graph_file)
from .caption_grading import grade_records, load_scene_graph
from .generator import (PRESETS, generate_dataset, generate_scene,
                        split_indices)
from .scene import SceneSettings

__all__ = ['generate_dataset', 'generate_scene', 'split_indices', 'PRESETS',
           'SceneSettings',
           'check_dataset', 'check_change_caption', 'check_no_change_caption',
           'check_scene_graph', 'resolve_reference', 'CaptionVerdict',
           'judge_change_caption', 'judge_no_change_caption',
           'scene_graph_file', 'grade_records', 'load_scene_graph']
