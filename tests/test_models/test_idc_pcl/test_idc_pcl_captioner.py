import pytest
import torch
from mmengine.optim import OptimWrapper

from mmidc.registry import MODELS
from tests.helpers.tiny_idc_pcl import CAPTIONS, tiny_batch, tiny_model_cfg


def build(**kwargs):
    return MODELS.build(tiny_model_cfg('IDCPCLCaptioner', **kwargs))


def test_loss_with_distractor_judge():
    model = build(distractor_loss=dict(type='DistractorJudgingLoss'))
    data = model.data_preprocessor(tiny_batch(), True)
    losses = model(**data, mode='loss')
    assert set(losses) == {'loss_caption', 'accuracy', 'loss_distractor'}
    labels = [model.distractor_label(ds) for ds in data['data_samples']]
    assert labels == [1, 0, 1, 1]  # color, none, add, move
    data['data_samples'][0].set_metainfo(dict(change_type='unknown'))
    assert model.distractor_label(data['data_samples'][0]) == -100
    with pytest.raises(KeyError, match='decode_cfg'):
        build(decode_cfg=dict(stratgy='beam'))


def test_overfits_pairs_to_exact_captions_and_sets_predictions():
    """A tiny captioner learns 4 pairs' exact captions, decoded with the
    cache (greedy) and by beam search; predictions carry pred_caption and
    pred_score like CLIP4IDCCaptioner's."""
    model = build(mask_prob=0.5)
    optim = OptimWrapper(torch.optim.AdamW(model.parameters(), lr=3e-3))
    data = tiny_batch()
    for step in range(300):
        model.train_step(data, optim)
        if step % 20 == 19:
            model.eval()
            preds = model.val_step(data)
            model.train()
            if [p.pred_caption for p in preds] == CAPTIONS:
                break
    assert [p.pred_caption for p in preds] == CAPTIONS, step
    assert all(isinstance(p.pred_score, float) and p.pred_score <= 0 for p in preds)
    model.eval()
    model.decode_cfg = dict(model.decode_cfg, strategy='beam', beam_size=2)
    assert [p.pred_caption for p in model.val_step(data)] == CAPTIONS


def test_init_from_a_pretraining_checkpoint(tmp_path):
    pretrainer = MODELS.build(tiny_model_cfg('IDCPCLPretrainer'))
    path = str(tmp_path / 'pretrain.pth')
    torch.save(dict(state_dict=pretrainer.state_dict()), path)
    model = build(init_from=str(tmp_path / 'pre*.pth'))  # a glob pattern
    assert not torch.equal(model.cross_modal.word_embed.weight,
                           pretrainer.cross_modal.word_embed.weight)
    model.init_weights()
    for name, value in model.state_dict().items():
        if not name.startswith(('data_preprocessor', 'distractor')):
            torch.testing.assert_close(value, pretrainer.state_dict()[name], msg=name)
    # an architecture the checkpoint lacks: the missing key is named
    other = build(init_from=path, single_image_encoder=dict(
        type='SingleImageEncoder', num_heads=2, num_layers=2))
    with pytest.raises(KeyError, match='single_image_encoder.transformer.layers.1'):
        other.init_weights()


def fused_qkv_layout(state: dict) -> dict:
    """A state dict as IDC-PCL's layers stored it before the shared layers:
    ``qkv`` ([3C, C]: queries, keys, values) and ``out_proj`` in the layer."""
    old = {}
    for key, value in state.items():
        if '.attn.q_proj.' in key:
            layer, kind = key.split('.attn.q_proj.')
            old[f'{layer}.qkv.{kind}'] = torch.cat(
                [value, state[f'{layer}.attn.kv_proj.{kind}']])
        elif '.attn.out_proj.' in key:
            old[key.replace('.attn.out_proj.', '.out_proj.')] = value
        elif '.attn.kv_proj.' not in key:
            old[key] = value
    return old


def test_checkpoints_of_the_fused_qkv_layout_load(tmp_path):
    """A pre-training checkpoint of the earlier layer layout initialises the
    captioner, and a captioner checkpoint of it loads strictly."""
    pretrainer = MODELS.build(tiny_model_cfg('IDCPCLPretrainer'))
    old = fused_qkv_layout(pretrainer.state_dict())
    assert any(k.endswith('.qkv.weight') for k in old)
    path = str(tmp_path / 'pretrain.pth')
    torch.save(dict(state_dict=old), path)
    model = build(init_from=path)
    model.init_weights()
    for name, value in model.state_dict().items():
        if not name.startswith(('data_preprocessor', 'distractor')):
            assert torch.equal(value, pretrainer.state_dict()[name]), name
    fresh = build()
    fresh.load_state_dict(fused_qkv_layout(model.state_dict()))  # strict
    data = model.data_preprocessor(tiny_batch(), False)
    assert torch.equal(fresh.eval()(**data, mode='tensor'),
                       model.eval()(**data, mode='tensor'))


def test_tensor_mode_gives_the_visual_tokens():
    model = build(single_image_encoder=None, pair_encoder=None)
    data = model.data_preprocessor(tiny_batch(), False)
    tokens = model(**data, mode='tensor')
    assert tokens.shape == (4, 2 * (6 + 1), 32)
