import re
import sys

import open_clip
import pytest
import torch
from mmengine.config import Config
from open_clip.model import CLIP
from safetensors.torch import load_file
from torch.testing import assert_close

from mmidc.models.clip4idc import CLIP4IDCBackbone, CLIPTextEncoder
from tests.helpers import REPO, load_tool


def _tool():
    return load_tool('tools/model_converters/openai_clip_to_safetensors.py')


def _openai_style_archive(arch, path):
    """A tiny CLIP saved the way OpenAI ships it: traced TorchScript, fp16
    weights, QuickGELU, with a bookkeeping entry."""
    model = CLIP(**arch).eval()
    # OpenAI's archives also hold context_length / vocab_size entries; open_clip's
    # CLIP has plain attributes of those names, so only this one is mimicked
    # here (the pure-function test below covers the others)
    model.register_buffer('input_resolution', torch.tensor(32))
    images = torch.ones(2, 3, 32, 32)
    texts = torch.zeros(2, 32, dtype=torch.long)
    traced = torch.jit.trace_module(
        model, dict(encode_image=(images, ), encode_text=(texts, )),
        check_trace=False)  # trace in fp32 (CPU), then store fp16
    traced.half()
    torch.jit.save(traced, str(path))
    reference = CLIP(**arch).eval()  # fp32 copy of the fp16-rounded weights
    reference.load_state_dict(
        {k: v.float() for k, v in traced.state_dict().items()
         if k not in ('input_resolution', 'attn_mask')})
    return reference


def test_openai_archive_round_trip(tiny_arch, tmp_path, monkeypatch):
    tiny_arch['quick_gelu'] = True
    reference = _openai_style_archive(tiny_arch, tmp_path / 'ViT-tiny.pt')
    # no output argument: the file lands where the configs look
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, 'argv', ['convert', str(tmp_path / 'ViT-tiny.pt')])
    _tool().main()
    dst = tmp_path / 'checkpoints' / 'clip' / 'ViT-tiny.safetensors'
    state = load_file(str(dst))
    assert 'input_resolution' not in state
    assert all(v.dtype != torch.float16 for v in state.values())

    backbone = CLIP4IDCBackbone(tiny_arch, pretrained=str(dst),
                                num_inter_layers=0).eval()
    text = CLIPTextEncoder(tiny_arch, pretrained=str(dst)).eval()
    img1, img2 = torch.randn(2, 2, 3, 32, 32)
    tokens = open_clip.tokenize(['the cube moved', 'no change'],
                                context_length=32)
    pair_tokens = backbone(img1, img2)
    assert_close(pair_tokens[:, 0], reference.encode_image(img1))
    assert_close(pair_tokens[:, 17], reference.encode_image(img2))
    assert_close(text(tokens), reference.encode_text(tokens))


def test_convert_state_dict_is_pure_and_checks_keys(tiny_arch):
    tool = _tool()
    state = {k: v.half() for k, v in CLIP(**tiny_arch).state_dict().items()}
    state['context_length'] = torch.tensor(32)
    before = {k: v.clone() for k, v in state.items()}
    converted = tool.convert_openai_state_dict(state)
    assert set(converted) == set(before) - {'context_length'}
    assert all(torch.equal(state[k], before[k]) for k in before)  # untouched
    assert converted['visual.proj'].dtype == torch.float32
    del state['visual.proj']
    with pytest.raises(KeyError, match='visual.proj'):
        tool.convert_openai_state_dict(state)


@pytest.mark.parametrize('config, archive', [
    ('configs/_base_/models/clip4idc-retriever_vit-b32.py', 'ViT-B-32.pt'),
    ('configs/clip4idc/clip4idc-adapt_vit-b16_clevr-change.py', 'ViT-B-16.pt'),
])
def test_default_output_is_the_configs_pretrained_path(config, archive):
    tool = _tool()
    expected = Config.fromfile(str(REPO / config)).model.pretrained
    assert tool.default_output(f'/downloads/{archive}') == expected
    assert expected in tool.__doc__  # the usage example says the same


def test_not_a_torchscript_archive_is_named(tiny_arch, tmp_path, monkeypatch,
                                            capsys):
    """A plain state dict (which ``pretrained=`` reads as it is), a
    safetensors file, a damaged download or a missing file: an error line
    naming the file and what to do, not torch's "checkpoint file is
    corrupted"."""
    from safetensors.torch import save_file
    state = CLIP(**tiny_arch).state_dict()
    torch.save(state, tmp_path / 'open_clip.pt')
    save_file(state, str(tmp_path / 'done.safetensors'))
    (tmp_path / 'cut.pt').write_bytes(b'PK\x03\x04' + b'\0' * 100)
    cases = [('open_clip.pt', 'plain state dict.*no conversion'),
             ('done.safetensors', 'plain state dict.*no conversion'),
             ('cut.pt', 'not a TorchScript archive.*damaged'),
             ('missing.pt', 'no such file')]
    for name, message in cases:
        src = str(tmp_path / name)
        monkeypatch.setattr(sys, 'argv', ['convert', src,
                                          str(tmp_path / 'out.safetensors')])
        with pytest.raises(SystemExit) as exit_info:
            _tool().main()
        assert exit_info.value.code == 1
        err = capsys.readouterr().err
        assert src in err and re.search(message, err), (name, err)
        assert not (tmp_path / 'out.safetensors').exists()
