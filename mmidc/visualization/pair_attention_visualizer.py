"""Draw CLS attention maps of a pair as one labelled PNG grid, the heat maps
beside the images with colour bars."""
import textwrap
from pathlib import Path
from typing import Dict, Optional, Tuple, Union

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
    """Draw CLIP4IDC's intra/inter CLS attention of a before/after pair.

    The figure (docs/inference.md, "Attention maps") is a grid with the
    caption as title: rows before / after; columns the image as the model
    saw it, then one heat map per encoder (intra, inter; a kind whose maps
    are None is left out) beside the image, not over it, so that the image
    keeps its colours. Each column has a colour bar below it (attention per
    patch, on the ``scale`` chosen), and each map's label gives its
    attention mass: the share of the CLS attention on that image's patches.

    After a call, :attr:`layout` maps each part of the figure (``'before'``,
    ``'before/intra'``, ``'colorbar/inter'``...) to its pixel box ``(top,
    left, bottom, right)``, :attr:`scales` each map kind to the value at
    the top of its colour bar and :attr:`masses` each map
    (``'before/intra'``...) to its attention mass.

    Args:
        name (str): instance name. Defaults to ``'pair_attention'``.
        panel_size (int): height in pixels of each image panel; images are
            upscaled to it with their aspect ratio kept. Defaults to 256.
        alpha (float): heat map opacity over a grey copy of the image (1:
            the heat map alone). Defaults to 0.85.
        cmap (str): matplotlib colour map. Defaults to ``'viridis'``
            (perceptually uniform: equal steps of attention look equal).
        scale (str): ``'figure'``: one colour scale for all heat maps (the
            largest value of all), so equal colours are equal attention in
            every panel; ``'column'``: one per map kind (its maximum over
            before and after), to see the pattern of a weak map. Defaults to
            ``'figure'``.
        **kwargs: passed to :class:`mmengine.visualization.Visualizer`
            (e.g. ``vis_backends`` to log figures with :meth:`add_image`).
    """

    KINDS = ('intra', 'inter')

    def __init__(self,
                 name: str = 'pair_attention',
                 panel_size: int = 256,
                 alpha: float = 0.85,
                 cmap: str = 'viridis',
                 scale: str = 'figure',
                 **kwargs) -> None:
        super().__init__(name=name, **kwargs)
        if panel_size < 32:
            raise ValueError(f'panel_size must be >= 32, got {panel_size}')
        if not 0 <= alpha <= 1:
            raise ValueError(f'alpha must be in [0, 1], got {alpha}')
        if cmap not in colormaps:
            raise ValueError(f'unknown matplotlib colour map cmap={cmap!r}')
        if scale not in ('figure', 'column'):
            raise ValueError(f"scale must be 'figure' or 'column', got "
                             f'{scale!r}')
        self.scale = scale
        self.panel_size = panel_size
        self.alpha = alpha
        self.cmap = colormaps[cmap]
        self.layout: Dict[str, Tuple[int, int, int, int]] = {}
        self.scales: Dict[str, float] = {}
        self.masses: Dict[str, float] = {}

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
        kinds = [key for key in self.KINDS if maps.get(key) is not None]
        if not kinds:
            raise ValueError('no attention maps to draw (intra and inter are None)')
        height = self.panel_size
        width = round(img1.shape[1] * height / img1.shape[0])
        panels = [self._resize(img, (width, height)) for img in (img1, img2)]
        margin, label_h, bar_h, ticks_h = 8, 22, 14, 40
        title = self._wrap(caption, (1 + len(kinds)) * width)
        title_h = 24 + 18 * (title.count('\n') + 1)
        bar_top = title_h + 2 * (label_h + height) + margin
        canvas = np.full((bar_top + bar_h + ticks_h, (1 + len(kinds)) *
                          (width + margin) + margin, 3), 255, np.uint8)
        self.layout, self.scales, self.masses = {}, {}, {}
        heats = {key: upsample_map(maps[key].detach().float().cpu(),
                                   (height, width)) for key in kinds}
        figure_scale = max(float(h.max()) for h in heats.values())
        texts, positions, aligns = [], [], []

        def place(name, image, top, left, label):
            canvas[top:top + image.shape[0], left:left + image.shape[1]] = image
            self.layout[name] = (top, left, top + image.shape[0],
                                 left + image.shape[1])
            if label:
                texts.append(label)
                positions.append((left, top - label_h + 3))
                aligns.append('left')

        for col, key in enumerate(kinds, start=1):
            heat = heats[key]  # [2, H, W]
            scale = max(figure_scale if self.scale == 'figure'
                        else float(heat.max()), 1e-12)
            self.scales[key] = scale
            left = margin + col * (width + margin)
            for row, side in enumerate(('before', 'after')):
                top = title_h + row * (label_h + height) + label_h
                mass = float(maps[key][row].detach().float().sum())
                self.masses[f'{side}/{key}'] = mass
                place(f'{side}/{key}', self._heat_panel(panels[row], heat[row] / scale),
                      top, left,
                      f'{side} - {key} (last block): {100 * mass:.3g} %')
            ramp = np.linspace(0, 1, width)[None].repeat(bar_h, 0)  # [bar_h, W]
            place(f'colorbar/{key}', self._colours(ramp), bar_top, left, '')
            for fraction, align in ((0, 'left'), (0.5, 'center'), (1, 'right')):
                texts.append(f'{fraction * scale:.3g}')
                positions.append((left + round(fraction * (width - 1)),
                                  bar_top + bar_h + 2))
                aligns.append(align)
            texts.append('attention per patch' + (
                ' (one scale)' if self.scale == 'figure' else ''))
            positions.append((left + width // 2, bar_top + bar_h + 20))
            aligns.append('center')
        for row, side in enumerate(('before', 'after')):
            top = title_h + row * (label_h + height) + label_h
            place(side, panels[row], top, margin, side)
        self.set_image(canvas)
        self.draw_texts(texts, np.array(positions), font_sizes=10,
                        colors='black', horizontal_alignments=aligns)
        self.draw_texts(title, np.array([[margin, 6]]), font_sizes=12,
                        colors='black')
        figure = self.get_image()
        if out_file is not None:
            Path(out_file).parent.mkdir(parents=True, exist_ok=True)
            Image.fromarray(figure).save(out_file, format='PNG')
        return figure

    def _colours(self, values: np.ndarray) -> np.ndarray:
        """Values in [0, 1] -> RGB uint8 of the colour map."""
        return (self.cmap(values)[..., :3] * 255).round().astype(np.uint8)

    def _heat_panel(self, image: np.ndarray, heat: Tensor) -> np.ndarray:
        grey = image.astype(np.float32).mean(-1, keepdims=True)  # [H, W, 1]
        blended = (1 - self.alpha) * grey + self.alpha * self._colours(heat.numpy())
        return blended.round().clip(0, 255).astype(np.uint8)

    @staticmethod
    def _resize(image: np.ndarray, size_wh) -> np.ndarray:
        return np.asarray(Image.fromarray(image).resize(size_wh, Image.BILINEAR))

    @staticmethod
    def _wrap(caption: str, width: int) -> str:
        return '\n'.join(textwrap.wrap(caption, max(20, 2 * width // 8))) or ' '
