"""PairAttentionVisualizer: the images beside their heat maps, a colour bar
per column."""
import numpy as np
import pytest
import torch
from PIL import Image

from mmidc.visualization import PairAttentionVisualizer, upsample_map
from tests.helpers.tiny_models import square_pair


def test_figure_has_images_beside_heat_maps_and_colour_bars():
    """The images keep their colours (heat maps beside them, not over them);
    each heat map is the colour map of its values over its column's scale,
    which the colour bar below the column shows from 0 to that scale."""
    from matplotlib import colormaps
    before, after, _ = square_pair(size=32)
    maps = {'intra': torch.rand(2, 4, 4) * 0.1, 'inter': torch.rand(2, 4, 4) * 0.01}
    vis = PairAttentionVisualizer(name='side_by_side', panel_size=64, alpha=1)
    figure = vis.draw_pair_attention(before, after, maps, 'the red square turned blue')
    viridis = colormaps['viridis']
    for row, (side, image) in enumerate((('before', before), ('after', after))):
        top, left, bottom, right = vis.layout[side]
        resized = Image.fromarray(image).resize((right - left, bottom - top),
                                                Image.BILINEAR)
        np.testing.assert_array_equal(figure[top:bottom, left:right], resized)
        for key in ('intra', 'inter'):
            top, left, bottom, right = vis.layout[f'{side}/{key}']
            heat = upsample_map(maps[key], (bottom - top, right - left))
            assert vis.scales[key] == pytest.approx(float(heat.max()))
            expected = viridis((heat[row] / heat.max()).numpy())[..., :3] * 255
            assert np.abs(figure[top:bottom, left:right] - expected).max() <= 1
    assert vis.layout['before/intra'][1] >= vis.layout['before'][3]  # beside
    for key in ('intra', 'inter'):
        top, left, bottom, right = vis.layout[f'colorbar/{key}']
        ramp = viridis(np.linspace(0, 1, right - left))[:, :3] * 255
        assert np.abs(figure[top:bottom, left:right] - ramp).max() <= 1
        labels = figure[bottom:bottom + 30, left:right]
        assert (labels < 100).any()  # tick values and the bar's label


def test_visualizer_checks_options():
    with pytest.raises(ValueError, match='cmap'):
        PairAttentionVisualizer(name='bad_cmap', cmap='no-such-map')
    with pytest.raises(ValueError, match='alpha'):
        PairAttentionVisualizer(name='bad_alpha', alpha=2)
