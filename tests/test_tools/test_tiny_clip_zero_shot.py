"""tools/analysis_tools/tiny_clip_zero_shot.py on a random tiny CLIP."""
import json

import torch

from tests.helpers import load_tool


def test_prints_and_writes_each_attribute(tmp_path, capsys):
    import open_clip
    from safetensors.torch import save_file

    from mmidc.models.utils.open_clip_utils import register_model_configs
    register_model_configs()
    torch.manual_seed(0)
    model = open_clip.create_model('mmidc-tiny-clip')
    ckpt = str(tmp_path / 'tiny.safetensors')
    save_file({k: v.contiguous() for k, v in model.state_dict().items()},
              ckpt)
    tool = load_tool('tools/analysis_tools/tiny_clip_zero_shot.py')
    out = str(tmp_path / 'zs.json')
    results = tool.main([ckpt, '--num-images', '4', '--out', out])
    assert set(results) == {'color', 'material', 'shape', 'size'}
    assert results['color']['chance'] == 1 / 8
    assert all(r['num'] == 4 and 0 <= r['accuracy'] <= 1
               for r in results.values())
    assert json.load(open(out)) == results
    printed = capsys.readouterr().out
    assert 'material' in printed and '50.0%' in printed
