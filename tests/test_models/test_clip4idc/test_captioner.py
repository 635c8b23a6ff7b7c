import time

import pytest
import torch
import torch.nn.functional as F
from mmengine.optim import OptimWrapper, build_optim_wrapper
from mmpretrain.structures import DataSample

from mmidc.models.utils.caption_vocab import clip_tokenizer
from mmidc.registry import MODELS

CAPTIONS = ['the red cube changed to blue', 'there is no change',
            'the small sphere has been added to the scene', 'the cylinder moved']



@pytest.fixture(autouse=True)
def _one_thread():
    """Tiny tensors: one intra-op thread is faster, and much faster on a busy
    machine (2 threads spin-wait when other processes hold the cores)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)

def tiny_captioner(tiny_arch, **kwargs):
    cfg = dict(
        type='CLIP4IDCCaptioner',
        backbone=dict(type='CLIP4IDCBackbone', arch=tiny_arch, num_inter_layers=1),
        head=dict(type='TransformerCaptionHead', hidden=64, num_heads=4,
                  num_encoder_layers=1, num_decoder_layers=1, dropout=0.0,
                  max_length=16, vocab=CAPTIONS))
    cfg.update(kwargs)
    return MODELS.build(cfg)


def batch(captions=CAPTIONS, size=32):
    g = torch.Generator().manual_seed(1)
    tokens = clip_tokenizer()(captions, context_length=16)  # [N, 16]
    inputs = [torch.randint(0, 256, (2, 3, size, size), generator=g, dtype=torch.uint8)
              for _ in captions]
    samples = []
    for i, t in enumerate(tokens):
        samples.append(DataSample(metainfo=dict(pair_id=str(i))))
        samples[-1].set_field(t, 'text_tokens')
    return dict(inputs=inputs, data_samples=samples)


def test_builds_and_wires_backbone_to_head(tiny_arch):
    model = tiny_captioner(tiny_arch)
    assert model.head.memory_dim == 64  # the backbone's output width
    assert model.head.max_memory_tokens == 2 * (4 * 4 + 1)
    data = model.data_preprocessor(batch(), False)
    logits = model(**data, mode='tensor')
    assert logits.shape == (4, 15, len(model.head.vocab))
    losses = model(**data, mode='loss')
    assert set(losses) == {'loss_caption', 'accuracy'}
    with pytest.raises(KeyError, match='decode_cfg'):
        tiny_captioner(tiny_arch, decode_cfg=dict(stratgy='beam'))
    with pytest.raises(ValueError, match='strategy'):
        tiny_captioner(tiny_arch, decode_cfg=dict(strategy='sample'))


def test_overfits_pairs_to_exact_captions(tiny_arch):
    """The issue's 'done when': a tiny captioner learns 4 pairs' exact captions."""
    model = tiny_captioner(tiny_arch)
    optim = OptimWrapper(torch.optim.AdamW(model.parameters(), lr=3e-3))
    data = batch()
    start = time.perf_counter()
    for step in range(150):
        losses = model.train_step(data, optim)
        if step % 10 == 9:
            model.eval()
            preds = model.val_step(data)
            model.train()
            if [p.pred_caption for p in preds] == CAPTIONS:
                break
    elapsed = time.perf_counter() - start
    assert [p.pred_caption for p in preds] == CAPTIONS, (step, losses)
    assert all(isinstance(p.pred_score, float) and p.pred_score <= 0 for p in preds)
    assert elapsed < 20, elapsed
    # beam search finds the same captions
    model.decode_cfg.update(strategy='beam', beam_size=3)
    assert [p.pred_caption for p in model.val_step(data)] == CAPTIONS


def test_separate_learning_rates_through_paramwise_cfg(tiny_arch):
    model = tiny_captioner(tiny_arch)
    wrapper = build_optim_wrapper(model, dict(
        optimizer=dict(type='Adam', lr=1e-4),
        paramwise_cfg=dict(custom_keys={'backbone': dict(lr_mult=1e-3)})))
    lrs = {id(p): g['lr'] for g in wrapper.optimizer.param_groups for p in g['params']}
    for name, param in model.named_parameters():
        expected = 1e-7 if name.startswith('backbone.') else 1e-4
        assert lrs[id(param)] == pytest.approx(expected), name


def test_freeze_backbone(tiny_arch):
    model = tiny_captioner(tiny_arch, freeze_backbone=True).train()
    assert not model.backbone.training and model.head.training
    data = model.data_preprocessor(batch(), True)
    model(**data, mode='loss')['loss_caption'].backward()
    assert all(p.grad is None for p in model.backbone.parameters())
    assert model.head.word_embed.weight.grad is not None


def _adaptation_checkpoint(tiny_arch, path, drop=None):
    retriever = MODELS.build(dict(
        type='CLIP4IDCRetriever',
        backbone=dict(type='CLIP4IDCBackbone', arch=tiny_arch, num_inter_layers=1),
        text_encoder=dict(type='CLIPTextEncoder', arch=tiny_arch)))
    state = retriever.state_dict()
    if drop:
        del state[drop]
    torch.save(dict(meta=dict(epoch=1), state_dict=state), path)
    return retriever


def test_init_backbone_from_adaptation_checkpoint(tiny_arch, tmp_path):
    path = tmp_path / 'adapt.pth'
    retriever = _adaptation_checkpoint(tiny_arch, path)
    model = tiny_captioner(tiny_arch, init_backbone_from=str(path))
    for key, value in retriever.backbone.state_dict().items():
        torch.testing.assert_close(model.backbone.state_dict()[key], value)
    _adaptation_checkpoint(tiny_arch, path, drop='backbone.image_id_embedding')
    with pytest.raises(KeyError, match='image_id_embedding'):
        tiny_captioner(tiny_arch, init_backbone_from=str(path))


def test_runs_under_bf16_autocast(tiny_arch):
    model = tiny_captioner(tiny_arch, decode_cfg=dict(strategy='beam', beam_size=2))
    data = model.data_preprocessor(batch(), True)
    with torch.autocast('cpu', dtype=torch.bfloat16):
        loss = model(**data, mode='loss')['loss_caption']
        loss.backward()
        model.eval()
        preds = model(**data, mode='predict')
    assert torch.isfinite(loss) and loss.dtype == torch.float32
    assert all(isinstance(p.pred_caption, str) for p in preds)


def test_checkpoint_is_self_contained_for_load_from(tiny_arch, tmp_path):
    """A restricted-vocab captioner checkpoint rebuilds its head from itself."""
    from mmengine.runner import load_checkpoint
    trained = tiny_captioner(tiny_arch).eval()
    path = tmp_path / 'epoch_3.pth'
    torch.save(dict(meta=dict(epoch=3), state_dict=trained.state_dict()), path)
    head = dict(type='TransformerCaptionHead', hidden=64, num_heads=4, num_encoder_layers=1,
                num_decoder_layers=1, max_length=16, vocab=str(path))
    restored = tiny_captioner(tiny_arch, head=head).eval()
    load_checkpoint(restored, str(path), strict=True)  # what Runner's load_from does
    data = trained.data_preprocessor(batch(), False)
    assert torch.equal(restored.generate(data['inputs']).tokens,
                       trained.generate(data['inputs']).tokens)
    wrong = tiny_captioner(tiny_arch, head=dict(head, vocab=CAPTIONS[:2]))
    with pytest.raises(RuntimeError, match='head.vocab.clip_ids'):
        load_checkpoint(wrong, str(path), strict=True)


def test_difference_tokens_reach_the_head_as_a_third_segment(tiny_arch):
    model = MODELS.build(dict(
        type='CLIP4IDCCaptioner',
        backbone=dict(type='CLIP4IDCBackbone', arch=tiny_arch,
                      num_inter_layers=1, difference_tokens=True,
                      conv_stem=(8, 16)),
        head=dict(type='TransformerCaptionHead', hidden=32, num_heads=2,
                  num_encoder_layers=1, num_decoder_layers=1)))
    assert model.head.num_segments == 3
    assert model.head.max_memory_tokens == 3 * 17
    assert model.head.segment_embed.shape == (3, 32)
    memory = model.extract_feat(torch.randn(2, 2, 3, 32, 32))
    assert memory.shape == (2, 51, 64)
    tokens = model.head.greedy_decode(memory, max_length=5).tokens
    assert tokens.shape[0] == 2


def test_reference_word_targets_come_from_the_samples_gt_captions(tiny_arch):
    model = tiny_captioner(tiny_arch, head=dict(
        type='TransformerCaptionHead', hidden=64, num_heads=4, num_encoder_layers=1,
        num_decoder_layers=1, dropout=0.0, max_length=16, vocab=CAPTIONS,
        word_loss_weight=1.0, word_targets='references'))
    data = model.data_preprocessor(batch(), True)
    with pytest.raises(ValueError, match='reference captions'):
        model(**data, mode='loss')  # no gt_captions in the samples
    refs = [[c, 'there is no change'] for c in CAPTIONS]
    for ds, r in zip(data['data_samples'], refs):
        ds.set_metainfo(dict(gt_captions=r))
    torch.manual_seed(0)
    losses = model(**data, mode='loss')
    memory = model.extract_feat(data['inputs'])
    logits = model.head.word_classifier(model.head.segment_max(memory).flatten(1))
    torch.testing.assert_close(losses['loss_words'], F.binary_cross_entropy_with_logits(
        logits, model.head.reference_word_targets(refs)))
