import pytest
import torch
from mmengine.optim import OptimWrapper, build_optim_wrapper
from mmpretrain.structures import DataSample

from mmidc.text import clip_tokenizer
from mmidc.registry import MODELS

CAPTIONS = ['the red cube changed to blue', 'there is no change',
            'the small sphere has been added to the scene', 'the cylinder moved']

pytestmark = pytest.mark.usefixtures('one_thread')


def tiny_captioner(tiny_arch, **kwargs):
    cfg = dict(
        type='CLIP4IDCCaptioner',
        backbone=dict(type='CLIP4IDCBackbone', arch=tiny_arch, num_inter_layers=1),
        head=paper_head())
    cfg.update(kwargs)
    return MODELS.build(cfg)


def paper_head(**kwargs):
    """TransformerCaptionHead at the tiny CLIP's width, its word embeddings
    trained (there is no CLIP checkpoint to take them from)."""
    return dict(dict(type='TransformerCaptionHead', hidden=64, num_heads=4,
                     num_encoder_layers=1, num_decoder_layers=1, dropout=0.0,
                     max_length=16, vocab=CAPTIONS, freeze_word_embed=False,
                     freeze_word_pos=False), **kwargs)


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


def test_init_backbone_from_without_a_match_names_the_settings(tiny_arch, tmp_path):
    # stage 1 not run, or adapt_work_dir not set to where it wrote its checkpoints
    pattern = str(tmp_path / 'work_dirs' / 'adapt' / 'best_rsum_*.pth')
    with pytest.raises(FileNotFoundError) as error:
        tiny_captioner(tiny_arch, init_backbone_from=pattern)
    message = str(error.value)
    assert pattern in message
    assert 'init_backbone_from' in message and 'adapt_work_dir' in message


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
    head = paper_head(vocab=str(path))
    restored = tiny_captioner(tiny_arch, head=head).eval()
    load_checkpoint(restored, str(path), strict=True)  # what Runner's load_from does
    data = trained.data_preprocessor(batch(), False)
    assert torch.equal(restored.generate(data['inputs']).tokens,
                       trained.generate(data['inputs']).tokens)
    wrong = tiny_captioner(tiny_arch, head=dict(head, vocab=CAPTIONS[:2]))
    with pytest.raises(RuntimeError, match='head.vocab.clip_ids'):
        load_checkpoint(wrong, str(path), strict=True)


def test_the_paper_head_gets_only_what_it_takes(tiny_arch):
    """TransformerCaptionHead reads the backbone's tokens as they are: the
    captioner gives it their width and nothing else; a head that takes more
    (the from-scratch project's) needs the project's captioner."""
    model = tiny_captioner(tiny_arch)
    data = model.data_preprocessor(batch(), False)
    memory, inputs = model.decoder_inputs(data['inputs'])
    assert inputs == {} and memory.shape == (4, 34, 64)
    assert model.head_inputs(memory) == {}
    with pytest.raises(TypeError, match='neck'):
        tiny_captioner(tiny_arch,
                       neck=dict(type='ChangeSummaryNeck', change_tokens=2))
    with pytest.raises(TypeError, match='max_memory_tokens'):
        tiny_captioner(tiny_arch, head=paper_head(max_memory_tokens=34))


@pytest.mark.parametrize('captioner', ['clip4idc', 'idc_pcl'])
def test_predict_takes_decode_options_for_one_call(captioner, tiny_arch):
    """Options given to predict override decode_cfg for that call only; an
    unknown one is named. Both captioners share it (BaseCaptioner)."""
    from tests.helpers.regression_record import build_family, synthetic_batch
    if captioner == 'clip4idc':
        model = tiny_captioner(tiny_arch).eval()
        data = model.data_preprocessor(batch(), False)
    else:
        model = build_family('idc_pcl_captioner').eval()
        data = model.data_preprocessor(synthetic_batch((32, 48)), False)
    saved = dict(model.decode_cfg)
    assert saved['strategy'] == 'greedy'
    beam = model.generate(data['inputs'], strategy='beam', beam_size=2)
    assert model.decode_cfg == saved
    model.decode_cfg = dict(saved, strategy='beam', beam_size=2)
    assert torch.equal(model.generate(data['inputs']).tokens, beam.tokens)
    assert torch.equal(model.generate(data['inputs']).score, beam.score)
    preds = model.predict(data['inputs'], strategy='greedy', max_length=3)
    assert model.decode_cfg == dict(saved, strategy='beam', beam_size=2)
    greedy = model.caption_decoder.greedy_decode(
        *_memory_and_inputs(model, data['inputs']), max_length=3)
    assert [p.pred_caption for p in preds] == \
        model.caption_decoder.decode_text(greedy.tokens)
    assert [p.pred_score for p in preds] == greedy.mean_logprob.tolist()
    with pytest.raises(KeyError, match='beams'):
        model.predict(data['inputs'], beams=2)
    with pytest.raises(ValueError, match='strategy'):
        model.predict(data['inputs'], strategy='sample')
    assert model.decode_cfg == dict(saved, strategy='beam', beam_size=2)


def _memory_and_inputs(model, inputs):
    memory, kwargs = model.decoder_inputs(inputs)
    assert kwargs == {}
    return (memory, )
