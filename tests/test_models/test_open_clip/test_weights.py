"""mmidc.models.open_clip.weights: the positional embedding resized to a
new grid (loading CLIP weights: test_clip4idc/test_clip4idc_backbone.py,
test_clip4idc/test_clip_text_encoder.py)."""
import torch
import torch.nn.functional as F

from mmidc.models.open_clip.weights import interpolate_pos_embed


def test_pos_embed_resize_matches_a_hand_computation():
    """interpolate_pos_embed (MMPretrain's resize_pos_embed underneath) keeps
    the CLS row and resizes the grid like the explicit bicubic below."""
    def by_hand(pos):
        grid = pos[1:].float().reshape(1, 4, 6, 8).permute(0, 3, 1, 2)  # [1, D, h, w]
        grid = F.interpolate(grid, size=(7, 5), mode='bicubic',
                             align_corners=False)  # [1, D, 7, 5]
        return grid.permute(0, 2, 3, 1).reshape(35, 8)  # [h'*w', D]

    pos = torch.randn(1 + 4 * 6, 8)
    resized = interpolate_pos_embed(pos, (4, 6), (7, 5))
    assert torch.equal(resized[0], pos[0])
    assert torch.equal(resized[1:], by_hand(pos))
    assert interpolate_pos_embed(pos, (4, 6), (4, 6)) is pos
    half = interpolate_pos_embed(pos.half(), (4, 6), (7, 5))  # fp32 inside
    assert half.dtype == torch.float16
    assert torch.equal(half[1:], by_hand(pos.half()).half())


def test_missing_clip_weights_name_the_file_and_how_to_get_them(tmp_path):
    """The configs' default CLIP file not written yet: the error names it and
    the converter that writes it, and the recipe without CLIP weights."""
    import os.path as osp

    import pytest

    from mmidc.models.open_clip.weights import load_clip_state_dict
    missing = osp.join(str(tmp_path), 'checkpoints', 'clip', 'ViT-B-32.safetensors')
    with pytest.raises(FileNotFoundError) as error:
        load_clip_state_dict(missing, 'ViT-B-32')
    message = str(error.value)
    assert missing in message and 'pretrained' in message
    assert 'tools/model_converters/openai_clip_to_safetensors.py' in message
    assert 'docs/from_scratch.md' in message


def test_openai_weights_on_a_gelu_arch_are_a_warning(tiny_arch, tmp_path,
                                                     monkeypatch):
    """The converter's file records that OpenAI's CLIP was trained with
    QuickGELU (``quick_gelu: true`` in its metadata): loading it into towers
    built with GELU (an arch without ``-quickgelu``) is a warning naming the
    file and the arch to use; a QuickGELU arch, or a file without that
    record, loads without one."""
    import logging

    from open_clip.model import CLIP
    from safetensors.torch import save_file

    from mmidc.models.open_clip import weights
    logged = []
    monkeypatch.setattr(weights, 'print_log',
                        lambda msg, **kwargs: logged.append((msg, kwargs)))
    state = {k: v.contiguous() for k, v in CLIP(**tiny_arch).state_dict().items()}
    openai = str(tmp_path / 'openai.safetensors')
    save_file(state, openai, metadata=dict(format='pt', source='openai',
                                           quick_gelu='true'))
    plain = str(tmp_path / 'plain.safetensors')
    save_file(state, plain)

    def warnings():
        return [m for m, k in logged if k.get('level') == logging.WARNING]

    weights.load_clip_state_dict(openai, tiny_arch)
    (message, ) = warnings()
    assert openai in message and 'QuickGELU' in message
    assert "'-quickgelu'" in message and 'quick_gelu=True' in message
    logged.clear()
    weights.load_clip_state_dict(openai, dict(tiny_arch, quick_gelu=True))
    weights.load_clip_state_dict(plain, tiny_arch)
    weights.load_clip_state_dict(openai)  # no arch to compare with
    assert warnings() == []
