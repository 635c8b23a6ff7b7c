import open_clip
import pytest
import torch
from mmpretrain.structures import DataSample
from torch.testing import assert_close

from mmidc.registry import MODELS

CAPTIONS = ['the red cube has been added', 'the blue sphere is gone',
            'the scene remains the same', 'the gray cylinder moved',
            'the small ball turned green', 'the metal block became rubber',
            'the cyan thing has appeared', 'the large object is missing']


def _retriever(tiny_arch, **kwargs):
    return MODELS.build(dict(
        type='CLIP4IDCRetriever',
        backbone=dict(type='CLIP4IDCBackbone', arch=tiny_arch,
                      num_inter_layers=2),
        text_encoder=dict(type='CLIPTextEncoder', arch=tiny_arch),
        head=dict(type='ContrastiveAdaptationHead'), **kwargs))


def _small_vocab(tiny_arch, size=1000):
    """The tiny arch with a 1000-token vocabulary (a 20x smaller embedding
    table keeps the optimisation test fast); see :func:`_batch`."""
    tiny_arch['text_cfg']['vocab_size'] = size
    return tiny_arch


def _batch(captions, multi=False, vocab_size=None, inputs=None):
    tokens = open_clip.tokenize(captions, context_length=32)
    if vocab_size is not None:  # fold BPE ids; start/end of text stay on top
        specials = tokens >= 49406
        tokens = torch.where(specials, tokens - 49406 + vocab_size - 2,
                             tokens % (vocab_size - 2))
    samples = []
    for i in range(len(captions)):
        ds = DataSample(metainfo=dict(pair_id=f'{i}.png'))
        ds.set_field(tokens[i:i + 2] if multi else tokens[i], 'text_tokens')
        samples.append(ds)
    if inputs is None:
        inputs = [torch.randint(0, 256, (2, 3, 32, 32), dtype=torch.uint8)
                  for _ in captions]
    return dict(inputs=inputs, data_samples=samples)


def test_loss_falls_on_a_synthetic_batch(tiny_arch, one_thread):
    model = _retriever(_small_vocab(tiny_arch))
    optim = torch.optim.Adam(model.parameters(), lr=1e-3)
    data = model.data_preprocessor(_batch(CAPTIONS, vocab_size=1000),
                                   training=True)
    history = []
    for _ in range(30):
        losses = model(**data, mode='loss')
        loss = losses['loss_p2t'] + losses['loss_t2p']
        optim.zero_grad()
        loss.backward()
        optim.step()
        history.append(loss.item())
    assert history[0] > 3.0  # about 2 ln 8 = 4.2 at random init
    assert history[-1] < 0.25 * history[0], history


def test_predict_and_tensor_modes(tiny_arch):
    model = _retriever(tiny_arch).eval()
    raw = _batch(CAPTIONS[:3], multi=True)
    data = model.data_preprocessor(raw)
    with torch.no_grad():
        samples = model(**data, mode='predict')
    counts = [2, 2, 1]  # tokens[i:i + 2] of 3 captions
    for ds, k in zip(samples, counts):
        assert ds.pair_embedding.shape == (64, )
        assert ds.text_embeddings.shape == (k, 64)
        assert_close(ds.text_embeddings.norm(dim=-1), torch.ones(k))
        assert_close(ds.pair_embedding.norm(), torch.tensor(1.0))
    data = model.data_preprocessor(_batch(CAPTIONS[:3], inputs=raw['inputs']))
    with torch.no_grad():
        pair, text = model(**data, mode='tensor')
        pair_only, none = model(data['inputs'], mode='tensor')
    assert pair.shape == text.shape == (3, 64) and none is None
    assert_close(pair, pair_only)
    assert_close(pair[0], samples[0].pair_embedding)


def test_one_checkpoint_seeds_both_towers_and_the_scale(
        tiny_arch, tiny_clip, tiny_clip_file):
    with torch.no_grad():
        tiny_clip.logit_scale.fill_(3.0)
    torch.save(tiny_clip.state_dict(), tiny_clip_file)
    model = _retriever(tiny_arch, pretrained=tiny_clip_file)
    assert_close(model.backbone.conv1.weight, tiny_clip.visual.conv1.weight)
    assert_close(model.text_encoder.token_embedding.weight,
                 tiny_clip.token_embedding.weight)
    assert_close(model.head.logit_scale.detach(), torch.tensor(3.0))


def test_runs_under_bf16_autocast(tiny_arch):
    model = _retriever(tiny_arch)
    data = model.data_preprocessor(_batch(CAPTIONS[:4]), training=True)
    with torch.autocast('cpu', dtype=torch.bfloat16):
        losses = model(**data, mode='loss')
    total = losses['loss_p2t'] + losses['loss_t2p']
    total.backward()
    assert torch.isfinite(total)
    assert model.backbone.proj.grad.dtype == torch.float32


def test_adaptation_checkpoint_seeds_a_new_backbone(tiny_arch, tmp_path):
    from mmidc.models.clip4idc import CLIP4IDCBackbone, CLIPTextEncoder
    model = _retriever(tiny_arch)
    with torch.no_grad():
        model.backbone.image_id_embedding.add_(1.0)
    path = tmp_path / 'epoch_12.pth'
    torch.save(dict(meta=dict(epoch=12), state_dict=model.state_dict()),
               path)
    backbone = CLIP4IDCBackbone(tiny_arch, pretrained=str(path),
                                num_inter_layers=2)
    text = CLIPTextEncoder(tiny_arch, pretrained=str(path))
    for name, value in model.backbone.state_dict().items():
        assert_close(backbone.state_dict()[name], value, msg=name)
    assert_close(text.ln_final.weight, model.text_encoder.ln_final.weight)
