"""BasePairInferencer, through the captioner and the retriever: input checks
naming the image, the DataLoader of pairs (worker processes, input order,
errors per pair), the pair encoder's attention maps and their figure."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F
from PIL import Image

from mmidc.apis import IDCRetrievalInferencer, ImageInputError
from mmidc.apis.base_pair_inferencer import resolve_worker_type
from mmidc.visualization import upsample_map
from tests.helpers.tiny_models import retriever_cfg, save_checkpoint, square_pair, write_config

COLOURS = ((220, 30, 30), (30, 200, 30), (30, 30, 220), (230, 220, 30))


def test_wrong_inputs_have_clear_messages(captioner, pair_files, tmp_path):
    with pytest.raises(ImageInputError, match='nope.png: no such image file'):
        captioner(pair_files[0], str(tmp_path / 'nope.png'))
    text = tmp_path / 'notes.png'
    text.write_text('hello')
    with pytest.raises(ImageInputError, match='notes.png: not a readable'):
        captioner(str(text), pair_files[1])
    tall = tmp_path / 'tall.png'  # another shape: warned about, captioned
    Image.new('RGB', (20, 90)).save(tall)
    assert captioner(pair_files[0], str(tall))['caption'] is not None


def test_images_are_read_as_the_config_pipeline_reads_them(captioner_files,
                                                          tmp_path):
    """value_range comes from the config's LoadImagePair (a 12-bit image
    in 16 bits): the packed inputs equal the test pipeline's on the file;
    an explicit value_range wins."""
    from mmengine.config import Config

    from mmidc.apis import IDCInferencer
    from mmidc.registry import TRANSFORMS
    from tests.helpers.wide_images import write_wide
    key = 'test_dataloader.dataset.pipeline.0.value_range'
    twelve = IDCInferencer(*captioner_files, device='cpu',
                           cfg_options={key: (0, 4095)})
    assert twelve.value_range == (0.0, 4095.0)
    assert IDCInferencer(*captioner_files, device='cpu', value_range='image',
                         cfg_options={key: (0, 4095)}).value_range == 'image'
    path, _ = write_wide(tmp_path, 'grey12')
    cfg = Config.fromfile(captioner_files[0])
    cfg.merge_from_dict({key: (0, 4095)})
    trained = dict(img1_path=str(path), img2_path=str(path))
    for step in cfg.test_dataloader.dataset.pipeline[:2]:  # load, resize
        trained = TRANSFORMS.build(step)(trained)
    inputs = twelve.prepare_pair(str(path), str(path))['inputs']  # [2, 3, H, W]
    np.testing.assert_array_equal(inputs[0].permute(1, 2, 0).numpy(),
                                  trained['img1'])
    assert trained['img1'].max() == 255


def _png_pairs(tmp_path, count=7):
    pairs = []
    for i in range(count):
        before, after, _ = square_pair(colour_after=(30, 30 + 20 * i, 220), size=40)
        paths = tmp_path / f'{i}_a.png', tmp_path / f'{i}_b.png'
        Image.fromarray(before).save(paths[0])
        Image.fromarray(after).save(paths[1])
        pairs.append(tuple(str(p) for p in paths))
    return pairs


def test_loader_workers_keep_order_and_report_bad_pairs(captioner, tmp_path):
    """preprocess: worker processes decode ahead, batches come out in input
    order, an unusable pair is an error of its batch (not an exception), each
    batch's images are one uint8 array, and the results equal decoding in
    this process; the workers fork after the model has run here."""
    captioner(*square_pair()[:2])  # this process's intra-op threads have run
    pairs = _png_pairs(tmp_path)
    pairs[4] = (pairs[4][0], str(tmp_path / 'missing.png'))
    parallel = list(captioner.preprocess(pairs, batch_size=3, workers=2,
                                          prefetch=1, resize_on_device=True))
    serial = list(captioner.preprocess(pairs, batch_size=3, workers=0,
                                        resize_on_device=True))
    assert [b.indices for b in parallel] == [[0, 1, 2], [3, 4, 5], [6]]
    assert list(parallel[1].errors) == [4]
    assert isinstance(parallel[1].errors[4], ImageInputError)
    assert [len(b.images) for b in parallel] == [1, 1, 1]  # one array a batch
    assert parallel[1].images[0][1].shape == (4, 40, 40, 3)  # 2 pairs
    for a, b in zip(parallel, serial):
        assert str(a.errors) == str(b.errors) and a.metas == b.metas
        assert torch.equal(a.images[0][1], b.images[0][1])
    good = [p for i, p in enumerate(pairs) if i != 4]
    assert captioner(good, batch_size=4, workers=2) == \
        captioner(good, batch_size=4, workers=0)
    # on the CPU the workers resize with the pipeline: its exact pixels
    (cpu_batch, ) = captioner.preprocess(good[:2], batch_size=2, workers=0)
    assert cpu_batch.packed.shape == (2, 2, 3, 32, 32) and not cpu_batch.images
    assert torch.equal(cpu_batch.packed[1],
                       captioner.prepare_pair(*good[1])['inputs'])
    with pytest.raises(ImageInputError, match='missing.png'):
        captioner(pairs, batch_size=4, workers=2)


def test_worker_processes_send_back_errors_that_cannot_be_pickled(
        captioner, pair_files, monkeypatch):
    from mmidc.apis.pair_loader import PairDecoder

    class LocalError(Exception):  # local to a function: cannot be pickled
        pass

    real = PairDecoder.__call__

    def prepare(self, before, after, pair_id=None):
        if pair_id == 1:
            raise LocalError('pair 1 broke')
        return real(self, before, after, pair_id)

    monkeypatch.setattr(PairDecoder, '__call__', prepare)
    (batch, ) = captioner.preprocess([tuple(pair_files)] * 5, batch_size=5,
                                      workers=2)
    assert batch.indices == [0, 1, 2, 3, 4] and list(batch.errors) == [1]
    assert isinstance(batch.errors[1], RuntimeError)
    assert 'LocalError: pair 1 broke' in str(batch.errors[1])
    assert len(batch.metas) == 4


def test_worker_type_auto_and_bad_names():
    assert resolve_worker_type('auto') == 'process'
    assert resolve_worker_type('process') == 'process'
    assert resolve_worker_type('thread') == 'process'  # old scripts: logged
    with pytest.raises(ValueError, match="worker_type must be 'auto' or one of"):
        resolve_worker_type('fibre')


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
