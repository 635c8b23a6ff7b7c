"""Attention maps of the pair encoder (mmidc.visualization), through the
inferencer API. Kept in tests/test_apis because they run via the inferencer."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F
from PIL import Image

from mmidc.apis import IDCRetrievalInferencer
from mmidc.visualization import (PairAttentionVisualizer, cls_attention_maps,
                                 patch_grid_shape, upsample_map)
from tests.helpers.tiny_models import retriever_cfg, save_checkpoint, square_pair, write_config

COLOURS = ((220, 30, 30), (30, 200, 30), (30, 30, 220), (230, 220, 30))


def test_cls_attention_maps_pick_cls_rows_and_split_images():
    heads, n = 2, 6  # a 2x3 patch grid
    intra = torch.zeros(1, 2, heads, n + 1, n + 1)
    intra[0, 1, :, 0, 1 + 4] = 1.0  # image 2's CLS looks at its patch 4
    inter = torch.zeros(1, heads, 2 * (n + 1), 2 * (n + 1))
    inter[0, :, 0, (n + 1) + 1 + 2] = 1.0  # CLS1 looks at image 2, patch 2
    inter[0, :, n + 1, 1 + 5] = 1.0  # CLS2 looks at image 1, patch 5
    maps = cls_attention_maps({'intra': [intra], 'inter': [inter]}, (16, 24))
    assert maps['intra'].shape == maps['inter'].shape == (1, 2, 2, 3)
    assert maps['inter_per_query'].shape == (1, 2, 2, 2, 3)
    assert maps['intra'][0, 1, 1, 1] == 1 and maps['intra'].sum() == 1
    assert maps['inter_per_query'][0, 0, 1, 0, 2] == 1  # query 1, image 2
    assert maps['inter_per_query'][0, 1, 0, 1, 2] == 1  # query 2, image 1
    assert maps['inter'][0, 1, 0, 2] == 0.5 and maps['inter'][0, 0, 1, 2] == 0.5
    assert upsample_map(maps['inter'], (16, 24)).shape == (1, 2, 16, 24)
    assert patch_grid_shape(49, (224, 224)) == (7, 7)
    with pytest.raises(ValueError, match='no attention maps'):
        cls_attention_maps({'intra': [], 'inter': []}, (16, 16))


def test_cls_attention_maps_leave_out_the_difference_segment():
    heads, n = 2, 6
    inter = torch.zeros(1, heads, 3 * (n + 1), 3 * (n + 1))
    inter[0, :, 0, (n + 1) + 1 + 2] = 0.5  # CLS1 -> image 2, patch 2
    inter[0, :, 0, 2 * (n + 1) + 1] = 0.5  # CLS1 -> difference segment
    inter[0, :, n + 1, 1 + 5] = 1.0  # CLS2 -> image 1, patch 5
    maps = cls_attention_maps({'inter': [inter], 'num_segments': 3}, (16, 24))
    assert maps['inter_per_query'].shape == (1, 2, 2, 2, 3)
    assert maps['inter_per_query'][0, 0, 1, 0, 2] == 0.5
    assert maps['inter_per_query'][0, 1, 0, 1, 2] == 1
    assert maps['inter_per_query'].sum() == 1.5  # difference column dropped


def test_inferencer_maps_and_png(retriever_files, pair_files, tmp_path):
    ranker = IDCRetrievalInferencer(*retriever_files, device='cpu')
    maps = ranker.attention_maps(*pair_files)
    assert maps['images'].shape == (2, 32, 32, 3)  # resized to the model input
    assert maps['intra'].shape == maps['inter'].shape == (2, 4, 4)
    # softmax rows: intra CLS mass over own patches < 1 (CLS keeps some);
    # inter: both images share the mass of one softmax per query
    assert torch.all(maps['intra'].sum((-1, -2)) <= 1 + 1e-5)
    assert maps['inter_per_query'].sum((-1, -2, -3)).max() <= 1 + 1e-5
    out = tmp_path / 'attention.png'
    figure = ranker.visualize_attention(*pair_files, out, 'the red square turned blue')
    saved = np.asarray(Image.open(out))
    assert saved.shape == figure.shape and saved.shape[2] == 3
    assert saved.shape[0] > 2 * 256 and saved.shape[1] > 2 * 256  # 2x2 panels


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


def _square_batch(generator, size=32, cell=8, batch=32):
    """uint8 pairs [B, 2, 3, H, W]: one patch-aligned square changes colour
    on a plain background of a random colour (the same in both images);
    labels: the square's new colour; masks [B, H, W]: the square."""
    def draw(high, low=0):
        return torch.randint(low, high, (1,), generator=generator).item()

    pairs, labels, masks = [], [], []
    cells = size // cell
    for _ in range(batch):
        old, new = draw(4), None
        new = (old + draw(4, 1)) % 4
        top, left = divmod(draw(cells * cells), cells)
        background = tuple(draw(200, 60) for _ in range(3))
        before, after, mask = square_pair(
            COLOURS[old], COLOURS[new],
            (top * cell, left * cell, (top + 1) * cell, (left + 1) * cell),
            size, background)
        pair = np.stack([before, after])  # [2, H, W, 3]
        pairs.append(torch.from_numpy(pair).permute(0, 3, 1, 2))  # [2, 3, H, W]
        labels.append(new)
        masks.append(torch.from_numpy(mask))
    return torch.stack(pairs), torch.tensor(labels), torch.stack(masks)


def _trained_ratio(seed, tmp_path):
    """Train the tiny pair encoder with ``seed``; the mean inside/outside
    ratio of its inter-block CLS attention per pixel on held-out pairs."""
    import mmidc  # noqa: F401
    from mmidc.registry import MODELS
    torch.manual_seed(seed)
    model = MODELS.build(retriever_cfg()['model'])
    classifier = torch.nn.Linear(model.backbone.output_dim, len(COLOURS))
    params = list(model.backbone.parameters()) + list(classifier.parameters())
    optimizer = torch.optim.Adam(params, lr=2e-3)
    generator = torch.Generator().manual_seed(seed)
    for _ in range(60):
        pairs, labels, _ = _square_batch(generator)
        inputs = model.data_preprocessor({'inputs': pairs}, True)['inputs']
        tokens = model.backbone(inputs[:, 0], inputs[:, 1])  # [B, 2(n+1), D]
        loss = F.cross_entropy(classifier(model.neck(tokens)), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    assert loss.item() < 1.25, f'seed {seed}: no better than chance (ln 4 = 1.39)'

    config = write_config(retriever_cfg(), tmp_path / f'trained{seed}.py')
    checkpoint = save_checkpoint(model, tmp_path / f'trained{seed}.pth')
    ranker = IDCRetrievalInferencer(config, checkpoint, device='cpu')
    pairs, _, masks = _square_batch(
        torch.Generator().manual_seed(1000 + seed), batch=8)
    ratios = []
    for pair, mask in zip(pairs, masks):
        before, after = pair.permute(0, 2, 3, 1).numpy()  # [H, W, 3] each
        inter = ranker.attention_maps(before, after)['inter']  # [2, gh, gw]
        per_pixel = upsample_map(inter, mask.shape)  # [2, H, W]
        inside = per_pixel[:, mask].mean()
        outside = per_pixel[:, ~mask].mean()
        ratios.append(float(inside / outside))
    return float(np.mean(ratios))


def test_inter_attention_finds_the_changed_square(tmp_path):
    """The inter map puts more mass per pixel on the changed square.

    With random weights the CLS attention has no reason to look at the
    change (inside/outside ratio about 0.8-1 here), so the test first
    *trains* the tiny model's pair encoder for 60 steps (a few seconds on one
    core) to name the square's new colour from the pooled pair vector (mean
    of the two CLS tokens, a linear classifier on top: a stand-in for the
    caption/contrastive objectives that is fast enough for CI). Background
    colours vary per pair, so the change cannot be read off a uniform
    average of all patches. Then, through the inferencer API (checkpoint
    file, image arrays, data preprocessor, attention maps), on held-out
    pairs, the head-averaged inter-block CLS attention must put at least
    twice the mass per pixel on the square as on the background.

    Nothing forces a model to solve the task by looking: in an earlier
    survey of 12 training seeds, 11 gave ratios of 4-28 and one about 1 (it
    learned the colour through another route). So the claim is tested as a
    majority over three consecutive seeds (0, 1, 2, not chosen to pass): the
    median ratio must exceed 2, which fails only if two of the three runs
    do not look at the change.
    """
    ratios = [_trained_ratio(seed, tmp_path) for seed in range(3)]
    print(f'mean inside/outside ratio per seed: {np.round(ratios, 2)}')
    assert np.median(ratios) > 2, ratios
