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
    vis = PairAttentionVisualizer(name='side_by_side', panel_size=64, alpha=1,
                                  scale='column')
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
    with pytest.raises(ValueError, match='scale'):
        PairAttentionVisualizer(name='bad_scale', scale='row')


def test_one_scale_per_figure_and_the_mass_of_each_map():
    """By default 0.4 % of the attention does not look like 25 %: every
    heat map is coloured on the figure's one scale, and each map's label
    gives its share of the attention."""
    from matplotlib import colormaps
    before, after, _ = square_pair(size=32)
    weak = torch.full((2, 4, 4), 0.004 / 16)
    strong = torch.rand(2, 4, 4)
    strong = strong / strong.sum((1, 2), keepdim=True) * 0.25
    maps = {'intra': strong, 'inter': weak}
    vis = PairAttentionVisualizer(name='one_scale', panel_size=64, alpha=1)
    figure = vis.draw_pair_attention(before, after, maps, 'a caption')
    viridis = colormaps['viridis']
    top, left, bottom, right = vis.layout['before/inter']
    figure_max = max(float(upsample_map(m, (bottom - top, right - left)).max())
                     for m in maps.values())
    assert vis.scales == {'intra': pytest.approx(figure_max),
                          'inter': pytest.approx(figure_max)}
    heat = upsample_map(weak, (bottom - top, right - left))[0] / figure_max
    expected = viridis(heat.numpy())[..., :3] * 255
    assert np.abs(figure[top:bottom, left:right] - expected).max() <= 1
    assert heat.max() < 0.05  # the weak map stays dark
    assert vis.masses['before/inter'] == pytest.approx(0.004)
    assert vis.masses['after/intra'] == pytest.approx(0.25)
    label = figure[top - 19:top - 3, left:right]  # the label row above it
    assert (label < 100).any()
