import pytest
import torch
from torch.testing import assert_close

import projects.from_scratch  # noqa: F401  (its plug-ins fill the extension points)
from mmidc.models.clip4idc import CLIP4IDCBackbone
from mmidc.models.necks import PairPooling
from mmidc.registry import MODELS


def _pair(batch=2, size=32):
    return torch.randn(batch, 3, size, size), torch.randn(batch, 3, size, size)


def test_fusion_off_matches_open_clip_encode_image(tiny_arch, tiny_clip):
    backbone = CLIP4IDCBackbone(tiny_arch, pretrained=tiny_clip.state_dict(),
                                num_inter_layers=0).eval()
    img1, img2 = _pair(3)
    tokens = backbone(img1, img2)
    n1 = 4 * 4 + 1
    assert tokens.shape == (3, 2 * n1, 64)
    assert_close(tokens[:, 0], tiny_clip.encode_image(img1))
    assert_close(tokens[:, n1], tiny_clip.encode_image(img2))
    assert_close(PairPooling(backbone.segments)(tokens),
                 (tiny_clip.encode_image(img1) +
                  tiny_clip.encode_image(img2)) / 2)
    # no new parameters without fusion
    assert not any('joint' in k or 'image_id' in k
                   for k in backbone.state_dict())


def test_token_count_follows_input_size(tiny_arch):
    small = CLIP4IDCBackbone(tiny_arch, num_inter_layers=2).eval()
    large = CLIP4IDCBackbone(tiny_arch, num_inter_layers=2,
                             img_size=64).eval()
    assert small(*_pair(1, 32)).shape[1] == 2 * (4 * 4 + 1)
    assert large(*_pair(1, 64)).shape[1] == 2 * (8 * 8 + 1)
    assert large.joint_positional_embedding.shape[0] == 2 * 65
    # a size other than the configured one resizes the embeddings on the fly
    assert small(*_pair(1, 48)).shape[1] == 2 * (6 * 6 + 1)
    with pytest.raises(ValueError, match='divisible'):
        small(*_pair(1, 30))
    with pytest.raises(ValueError, match='divisible'):
        CLIP4IDCBackbone(tiny_arch, img_size=36)


def test_loading_resizes_positional_embedding(tiny_arch, tiny_clip):
    backbone = CLIP4IDCBackbone(tiny_arch, pretrained=tiny_clip.state_dict(),
                                img_size=64, num_inter_layers=1)
    clip_pos = tiny_clip.visual.positional_embedding
    assert backbone.positional_embedding.shape == (65, 64)
    assert_close(backbone.positional_embedding[0], clip_pos[0])  # CLS kept
    assert_close(backbone.joint_positional_embedding,
                 backbone.positional_embedding.repeat(2, 1))


@pytest.mark.parametrize('pretrained', [False, True])
def test_new_parameters_start_from_the_init_component(tiny_arch, tiny_clip,
                                                      pretrained):
    """Without the new parameters in the weights, ``new_param_init`` draws
    the two embeddings (TiledPositionInit by default); ln_joint is 1 / 0."""
    weights = tiny_clip.state_dict() if pretrained else None
    ours = CLIP4IDCBackbone(tiny_arch, pretrained=weights, num_inter_layers=2)
    assert_close(ours.joint_positional_embedding,
                 ours.positional_embedding.repeat(2, 1))
    published = CLIP4IDCBackbone(
        tiny_arch, pretrained=weights, num_inter_layers=2,
        new_param_init=dict(type='WidthScaledNormalInit'))
    tiled = published.positional_embedding.repeat(2, 1)
    assert (published.joint_positional_embedding - tiled).abs().max() > 0.1
    for backbone in (ours, published):
        assert torch.equal(backbone.ln_joint.weight, torch.ones(64))
        assert torch.equal(backbone.ln_joint.bias, torch.zeros(64))
    with pytest.raises(KeyError, match='OpenAIInit'):
        CLIP4IDCBackbone(tiny_arch, new_param_init=dict(type='OpenAIInit'))


@pytest.mark.parametrize('num_inter', [0, 2])
def test_inter_blocks_mix_the_two_images(tiny_arch, num_inter):
    backbone = CLIP4IDCBackbone(tiny_arch, num_inter_layers=num_inter).eval()
    img1, img2 = _pair(2)
    n1 = 17
    before = backbone(img1, img2)
    after = backbone(img1, img2 + 1.0)  # change image 2 only
    image1_changed = not torch.allclose(before[:, :n1], after[:, :n1])
    assert image1_changed == (num_inter > 0)
    assert not torch.allclose(before[:, n1:], after[:, n1:])


def test_attention_maps(tiny_arch):
    backbone = CLIP4IDCBackbone(tiny_arch, num_inter_layers=1).eval()
    img1, img2 = _pair(2)
    tokens, maps = backbone(img1, img2, return_attentions=True)
    assert_close(tokens, backbone(img1, img2), rtol=1e-4, atol=1e-5)
    assert len(maps['intra']) == 3 and len(maps['inter']) == 1
    assert maps['intra'][0].shape == (2, 2, 2, 17, 17)  # [B, 2, heads, ..]
    assert maps['inter'][0].shape == (2, 2, 34, 34)
    assert_close(maps['inter'][0].sum(-1), torch.ones(2, 2, 34))


def test_missing_key_in_checkpoint_file_is_named(tiny_arch, tiny_clip,
                                                 tmp_path):
    state = tiny_clip.state_dict()
    del state['visual.transformer.resblocks.1.mlp.c_fc.weight']
    path = tmp_path / 'broken.pt'
    torch.save(state, path)
    with pytest.raises(KeyError, match=r'transformer\.resblocks\.1\.mlp'):
        CLIP4IDCBackbone(tiny_arch, pretrained=str(path))


def test_loads_files_and_mmengine_checkpoints(tiny_arch, tiny_clip,
                                              tiny_clip_file, tmp_path):
    from safetensors.torch import save_file
    ref = tiny_clip.visual.conv1.weight
    st = tmp_path / 'clip.safetensors'
    save_file({k: v.contiguous() for k, v in tiny_clip.state_dict().items()},
              str(st))
    wrapped = tmp_path / 'epoch_1.pth'
    torch.save({'meta': {}, 'state_dict': {
        'module.visual.' + k: v
        for k, v in tiny_clip.visual.state_dict().items()}}, wrapped)
    for source in (tiny_clip_file, str(st), str(wrapped)):
        backbone = CLIP4IDCBackbone(tiny_arch, pretrained=source)
        assert_close(backbone.conv1.weight, ref)


def test_bad_checkpoints_give_clear_errors(tiny_arch, tmp_path):
    script = tmp_path / 'ViT-B-32.pt'
    torch.jit.save(torch.jit.trace(torch.nn.Linear(2, 2), torch.ones(1, 2)),
                   str(script))
    with pytest.raises(ValueError, match='openai_clip_to_safetensors'):
        CLIP4IDCBackbone(tiny_arch, pretrained=str(script))
    with pytest.raises(FileNotFoundError, match='nowhere.pt'):
        CLIP4IDCBackbone(tiny_arch, pretrained='nowhere.pt')
    with pytest.raises(ValueError, match='not an open_clip tag'):
        CLIP4IDCBackbone('ViT-B-32', pretrained='no_such_tag')
    with pytest.raises(ValueError, match='num_inter_layers'):
        CLIP4IDCBackbone(tiny_arch, num_inter_layers=5)


def test_unreachable_hub_gives_clear_error(monkeypatch):
    import open_clip

    def offline(*args, **kwargs):
        raise OSError('network unreachable')

    monkeypatch.setattr(open_clip, 'download_pretrained', offline)
    with pytest.raises(RuntimeError, match='local path'):
        CLIP4IDCBackbone('ViT-B-32', pretrained='openai')


def test_frozen_stages(tiny_arch):
    backbone = CLIP4IDCBackbone(tiny_arch, frozen_stages=2)
    backbone.train()
    frozen = [backbone.conv1.weight, backbone.class_embedding,
              backbone.positional_embedding,
              *backbone.transformer.resblocks[1].parameters()]
    assert not any(p.requires_grad for p in frozen)
    assert all(p.requires_grad
               for p in backbone.transformer.resblocks[2].parameters())
    assert backbone.image_id_embedding.requires_grad
    tokens = backbone(*_pair(2))
    tokens.sum().backward()
    assert backbone.transformer.resblocks[0].mlp.c_fc.weight.grad is None
    assert backbone.transformer.resblocks[3].mlp.c_fc.weight.grad is not None


def test_grad_checkpointing_gives_same_gradients(tiny_arch):
    plain = CLIP4IDCBackbone(tiny_arch, num_inter_layers=2).train()
    ckpt = CLIP4IDCBackbone(tiny_arch, num_inter_layers=2,
                            grad_checkpointing=True).train()
    ckpt.load_state_dict(plain.state_dict())
    img1, img2 = _pair(2)
    for model in (plain, ckpt):
        PairPooling()(model(img1, img2)).pow(2).sum().backward()
    for (name, p), q in zip(plain.named_parameters(), ckpt.parameters()):
        assert_close(p.grad, q.grad, msg=name)


def test_builds_from_registry_and_runs_in_bf16(tiny_arch):
    backbone = MODELS.build(dict(type='CLIP4IDCBackbone', arch=tiny_arch,
                                 num_inter_layers=2))
    with torch.autocast('cpu', dtype=torch.bfloat16):
        tokens = backbone(*_pair(2))
        pooled = PairPooling()(tokens)
    assert tokens.shape == (2, 34, 64) and pooled.shape == (2, 64)
    assert backbone.conv1.weight.dtype == torch.float32
    assert torch.isfinite(tokens.float()).all()


def test_extra_segments_join_the_inter_blocks_as_named_segments(tiny_arch):
    backbone = CLIP4IDCBackbone(
        tiny_arch, num_inter_layers=1,
        extra_segments=[dict(type='DifferenceSegment')]).eval()
    assert backbone.segments == ('before', 'after', 'diff')
    assert backbone.num_segments == 3
    assert backbone.image_id_embedding.shape == (3, 64)
    assert_close(backbone.joint_positional_embedding,
                 backbone.positional_embedding.repeat(3, 1))
    img1, img2 = _pair(2)
    tokens = backbone(img1, img2)
    assert tokens.shape == (2, 3 * 17, 64) == (2, backbone.num_tokens(), 64)
    parts = backbone.split_segments(tokens)
    assert list(parts) == ['before', 'after', 'diff']
    assert_close(parts['diff'], tokens[:, 34:])
    # identical images: the difference segment's input is 0 + its embeddings
    captured = {}
    block = backbone.transformer.resblocks[-1]
    handle = block.register_forward_pre_hook(
        lambda module, args: captured.setdefault('x', args[0]))
    backbone(img1, img1)
    handle.remove()
    pos = backbone.joint_positional_embedding[34:]
    expected = backbone.ln_joint(
        (backbone.image_id_embedding[2] + pos).expand(2, 17, 64))
    assert_close(captured['x'][:, 34:], expected)
    tokens, maps = backbone(img1, img2, return_attentions=True)
    assert maps['inter'][0].shape == (2, 2, 51, 51)
    assert maps['num_segments'] == 3
    assert maps['segments'] == ('before', 'after', 'diff')
    with pytest.raises(ValueError, match='unique'):
        CLIP4IDCBackbone(tiny_arch, extra_segments=[
            dict(type='DifferenceSegment', name='after')])


def test_extra_segments_without_inter_blocks_are_appended(tiny_arch):
    backbone = CLIP4IDCBackbone(
        tiny_arch, num_inter_layers=0,
        extra_segments=[dict(type='DifferenceSegment')]).eval()
    img1, img2 = _pair(2)
    tokens = backbone(img1, img2)  # [2, 51, 64]
    parts = backbone.split_segments(tokens)
    # no inter blocks: each segment goes through ln_post and proj alone
    captured = []
    handle = backbone.ln_post.register_forward_pre_hook(
        lambda module, args: captured.append(args[0]))
    backbone(img1, img2)
    handle.remove()
    x = captured[0].view(2, 3, 17, -1)  # [B, S, n+1, D] before ln_post
    assert_close(x[:, 2], x[:, 1] - x[:, 0])
    assert not hasattr(backbone, 'image_id_embedding')
    assert parts['diff'].shape == (2, 17, 64)


def test_patch_embed_replaces_the_patch_conv(tiny_arch, tiny_clip):
    backbone = CLIP4IDCBackbone(
        tiny_arch, num_inter_layers=1,
        patch_embed=dict(type='ConvStem', channels=(8, 16)))
    assert type(backbone.conv1).__name__ == 'ConvStem'
    assert backbone(*_pair(2)).shape == (2, 34, 64)
    with pytest.raises(ValueError, match='patch_embed'):
        CLIP4IDCBackbone(tiny_arch,
                         patch_embed=dict(type='ConvStem', channels=(8, 16)),
                         pretrained=tiny_clip.state_dict())


def test_checkpoint_with_other_segment_count_is_refused(tiny_arch):
    two = CLIP4IDCBackbone(tiny_arch, num_inter_layers=1)
    state = {f'visual.{k}': v for k, v in two.state_dict().items()}
    with pytest.raises(ValueError, match='image_id_embedding has 2 segments'):
        CLIP4IDCBackbone(tiny_arch, num_inter_layers=1,
                         extra_segments=[dict(type='DifferenceSegment')],
                         pretrained=state)
