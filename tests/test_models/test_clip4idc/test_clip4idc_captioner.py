import pytest
import torch
import torch.nn.functional as F
from mmengine.optim import OptimWrapper, build_optim_wrapper
from mmpretrain.structures import DataSample

import projects.from_scratch  # noqa: F401  (its caption head, neck, plug-ins)
from mmidc.text import clip_tokenizer
from mmidc.registry import MODELS

CAPTIONS = ['the red cube changed to blue', 'there is no change',
            'the small sphere has been added to the scene', 'the cylinder moved']



pytestmark = pytest.mark.usefixtures('one_thread')


def tiny_captioner(tiny_arch, **kwargs):
    cfg = dict(
        type='CLIP4IDCCaptioner',
        backbone=dict(type='CLIP4IDCBackbone', arch=tiny_arch, num_inter_layers=1),
        head=dict(type='ScratchCaptionHead', hidden=64, num_heads=4,
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
    for step in range(150):
        losses = model.train_step(data, optim)
        if step % 10 == 9:
            model.eval()
            preds = model.val_step(data)
            model.train()
            if [p.pred_caption for p in preds] == CAPTIONS:
                break
    assert [p.pred_caption for p in preds] == CAPTIONS, (step, losses)
    assert all(isinstance(p.pred_score, float) and p.pred_score <= 0 for p in preds)
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
    head = dict(type='ScratchCaptionHead', hidden=64, num_heads=4, num_encoder_layers=1,
                num_decoder_layers=1, max_length=16, vocab=str(path))
    restored = tiny_captioner(tiny_arch, head=head).eval()
    load_checkpoint(restored, str(path), strict=True)  # what Runner's load_from does
    data = trained.data_preprocessor(batch(), False)
    assert torch.equal(restored.generate(data['inputs']).tokens,
                       trained.generate(data['inputs']).tokens)
    wrong = tiny_captioner(tiny_arch, head=dict(head, vocab=CAPTIONS[:2]))
    with pytest.raises(RuntimeError, match='head.vocab.clip_ids'):
        load_checkpoint(wrong, str(path), strict=True)


def test_extra_segments_reach_the_head_as_more_segments(tiny_arch):
    model = MODELS.build(dict(
        type='CLIP4IDCCaptioner',
        backbone=dict(type='CLIP4IDCBackbone', arch=tiny_arch,
                      num_inter_layers=1,
                      patch_embed=dict(type='ConvStem', channels=(8, 16)),
                      extra_segments=[dict(type='DifferenceSegment')]),
        head=dict(type='ScratchCaptionHead', hidden=32, num_heads=2,
                  num_encoder_layers=1, num_decoder_layers=1)))
    assert model.head.num_segments == 3
    assert model.head.max_memory_tokens == 3 * 17
    assert model.head.segment_embed.shape == (3, 32)
    memory = model.extract_feat(torch.randn(2, 2, 3, 32, 32))
    assert memory.shape == (2, 51, 64)
    tokens = model.head.greedy_decode(memory, max_length=5).tokens
    assert tokens.shape[0] == 2


def _with_summary_parts(tiny_arch, word_prior=True):
    return tiny_captioner(
        tiny_arch,
        backbone=dict(type='CLIP4IDCBackbone', arch=tiny_arch,
                      num_inter_layers=1,
                      extra_segments=[dict(type='DifferenceSegment')]),
        neck=dict(type='ChangeSummaryNeck', change_tokens=2),
        aux_head=dict(type='BagOfWordsHead', loss_weight=3.0,
                      word_prior=word_prior))


def test_neck_and_aux_head_condition_the_caption_head(tiny_arch):
    model = _with_summary_parts(tiny_arch)
    # wired from the backbone and the caption head's vocabulary
    assert model.neck.segments == ('before', 'after', 'diff')
    assert model.head.num_extra_tokens == 3 + 4
    assert model.aux_head.fc.in_features == 7 * 64
    assert model.aux_head.num_classes == len(model.head.vocab)
    data = model.data_preprocessor(batch(), True)
    with pytest.raises(KeyError, match="key='ref_tokens'"):
        model(**data, mode='loss')  # no ref_tokens in the samples
    refs = [[c, 'there is no change'] for c in CAPTIONS]
    for ds, r in zip(data['data_samples'], refs):
        ds.set_field(clip_tokenizer()(r, context_length=16), 'ref_tokens')
    losses = model(**data, mode='loss')
    memory = model.extract_feat(data['inputs'])
    summary = model.neck(memory)
    word_logits = model.aux_head(summary)
    compact = [model.head.vocab.to_compact(ds.ref_tokens) for ds in data['data_samples']]
    torch.testing.assert_close(losses['loss_words'], 3.0 * F.binary_cross_entropy_with_logits(
        word_logits, model.aux_head.targets(compact)))
    text = torch.stack([ds.text_tokens for ds in data['data_samples']])
    torch.testing.assert_close(losses['loss_caption'], model.head.loss(
        memory, text, extra_tokens=summary,
        logit_bias=model.aux_head.logit_bias(word_logits))['loss_caption'])
    # the caption loss trains the neck and the aux head through the prior
    model.zero_grad()
    losses['loss_caption'].backward()
    assert model.aux_head.prior_scale.grad is not None
    assert model.aux_head.fc.weight.grad.abs().sum() > 0
    assert model.neck.change_score.weight.grad.abs().sum() > 0
    # decoding uses them too
    model.eval()
    out = model.generate(data['inputs'])
    expected = model.head.greedy_decode(memory, extra_tokens=summary,
                                        logit_bias=model.aux_head.logit_bias(word_logits))
    assert torch.equal(out.tokens, expected.tokens)


def test_aux_head_needs_a_neck(tiny_arch):
    with pytest.raises(ValueError, match='set a neck'):
        tiny_captioner(tiny_arch, aux_head=dict(type='BagOfWordsHead'))


def test_the_paper_head_gets_only_what_it_takes(tiny_arch):
    """TransformerCaptionHead reads the backbone's tokens as they are: the
    captioner gives it their width and nothing else; a neck's summary
    tokens need a head that takes extra tokens."""
    head = dict(type='TransformerCaptionHead', hidden=64, num_heads=4,
                num_encoder_layers=1, num_decoder_layers=1, dropout=0.0,
                max_length=16, vocab=CAPTIONS, freeze_word_embed=False,
                freeze_word_pos=False)
    model = tiny_captioner(tiny_arch, head=head)
    assert model.head.memory_dim == 64
    data = model.data_preprocessor(batch(), False)
    assert set(model(**data, mode='loss')) == {'loss_caption', 'accuracy'}
    memory, inputs = model.decoder_inputs(data['inputs'])
    assert inputs == {} and memory.shape == (4, 34, 64)
    with pytest.raises(ValueError, match='does not take extra tokens'):
        tiny_captioner(tiny_arch, head=head,
                       neck=dict(type='ChangeSummaryNeck', change_tokens=2))
