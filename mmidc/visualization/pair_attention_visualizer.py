"""Draw CLS attention maps of a pair as one labelled PNG grid."""
import textwrap
from pathlib import Path
from typing import Dict, Optional, Union

import numpy as np
from matplotlib import colormaps
from mmengine.visualization import Visualizer
from PIL import Image
from torch import Tensor

from mmidc.registry import VISUALIZERS
from .attention_maps import upsample_map

__all__ = ['PairAttentionVisualizer']


@VISUALIZERS.register_module()
class PairAttentionVisualizer(Visualizer):
    """Overlay CLIP4IDC's intra/inter CLS attention on a before/after pair.

    The figure is a grid: columns before / after, rows intra / inter encoder
    (rows whose maps are None are left out), with labels and the caption as
    title. Each row's heat maps share one colour scale (its maximum), so the
    two images of a row compare.

    Args:
        name (str): instance name. Defaults to ``'pair_attention'``.
        panel_size (int): height in pixels of each image panel; images are
            upscaled to it with their aspect ratio kept. Defaults to 256.
        alpha (float): heat map opacity. Defaults to 0.5.
        cmap (str): matplotlib colour map. Defaults to ``'jet'``.
        **kwargs: passed to :class:`mmengine.visualization.Visualizer`
            (e.g. ``vis_backends`` to log figures with :meth:`add_image`).
    """

    ROWS = (('intra', 'intra encoder (last block)'),
            ('inter', 'inter encoder (last block)'))

    def __init__(self,
                 name: str = 'pair_attention',
                 panel_size: int = 256,
                 alpha: float = 0.5,
                 cmap: str = 'jet',
                 **kwargs) -> None:
        super().__init__(name=name, **kwargs)
        if panel_size < 32:
            raise ValueError(f'panel_size must be >= 32, got {panel_size}')
        if not 0 <= alpha <= 1:
            raise ValueError(f'alpha must be in [0, 1], got {alpha}')
        if cmap not in colormaps:
            raise ValueError(f'unknown matplotlib colour map cmap={cmap!r}')
        self.panel_size = panel_size
        self.alpha = alpha
        self.cmap = colormaps[cmap]

    def draw_pair_attention(self,
                            img1: np.ndarray,
                            img2: np.ndarray,
                            maps: Dict[str, Optional[Tensor]],
                            caption: str = '',
                            out_file: Union[str, Path, None] = None) -> np.ndarray:
        """Draw the grid for one pair.

        Args:
            img1, img2 (np.ndarray): RGB ``uint8`` ``[H, W, 3]``, the images
                the model saw (after resizing), so maps line up.
            maps (dict): one pair's ``intra`` / ``inter`` maps, each
                ``[2, gh, gw]`` or None (see :func:`cls_attention_maps`).
            caption (str): title of the figure.
            out_file (str | Path, optional): save the figure as PNG here.

        Returns:
            np.ndarray: the figure, RGB ``uint8``.
        """
        rows = [(key, label) for key, label in self.ROWS
                if maps.get(key) is not None]
        if not rows:
            raise ValueError('no attention maps to draw (intra and inter are None)')
        height = self.panel_size
        width = round(img1.shape[1] * height / img1.shape[0])
        panels = [self._resize(img, (width, height)) for img in (img1, img2)]
        margin, title_h, label_h = 8, 24 + 18 * self._title_lines(caption, width), 22
        canvas_h = title_h + len(rows) * (label_h + height + margin)
        canvas_w = 2 * width + 3 * margin
        canvas = np.full((canvas_h, canvas_w, 3), 255, np.uint8)
        label_positions, labels = [], []
        for row, (key, label) in enumerate(rows):
            top = title_h + row * (label_h + height + margin) + label_h
            heat = upsample_map(maps[key].detach().float().cpu(), (height, width))
            heat = heat / heat.max().clamp_min(1e-12)  # [2, H, W], row scale
            for col, side in enumerate(('before', 'after')):
                left = margin + col * (width + margin)
                canvas[top:top + height, left:left + width] = self._overlay(
                    panels[col], heat[col])
                label_positions.append((left, top - label_h + 3))
                labels.append(f'{side} - {label}')
        self.set_image(canvas)
        self.draw_texts(labels, np.array(label_positions), font_sizes=10,
                        colors='black')
        self.draw_texts(self._wrap(caption, width), np.array([[margin, 6]]),
                        font_sizes=12, colors='black')
        figure = self.get_image()
        if out_file is not None:
            Path(out_file).parent.mkdir(parents=True, exist_ok=True)
            Image.fromarray(figure).save(out_file, format='PNG')
        return figure

    def _overlay(self, image: np.ndarray, heat: Tensor) -> np.ndarray:
        colours = self.cmap(heat.numpy())[..., :3] * 255  # [H, W, 3]
        blended = (1 - self.alpha) * image + self.alpha * colours
        return blended.clip(0, 255).astype(np.uint8)

    @staticmethod
    def _resize(image: np.ndarray, size_wh) -> np.ndarray:
        return np.asarray(Image.fromarray(image).resize(size_wh, Image.BILINEAR))

    @staticmethod
    def _wrap(caption: str, width: int) -> str:
        return '\n'.join(textwrap.wrap(caption, max(20, 2 * width // 8))) or ' '

    def _title_lines(self, caption: str, width: int) -> int:
        return max(1, self._wrap(caption, width).count('\n') + 1)

