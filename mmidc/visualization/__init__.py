"""Visualisation: attention maps of the pair encoder."""
from .attention_maps import cls_attention_maps, patch_grid_shape, upsample_map
from .pair_attention_visualizer import PairAttentionVisualizer

__all__ = ['cls_attention_maps', 'patch_grid_shape', 'upsample_map',
           'PairAttentionVisualizer']
