"""tools/analysis_tools/tiny_clip_zero_shot.py on a random tiny CLIP."""
import json

from tests.helpers import load_tool
from tests.helpers.tiny_models import write_tiny_clip


def test_prints_and_writes_each_attribute(tmp_path, capsys):
    ckpt = write_tiny_clip(tmp_path / 'tiny.safetensors')
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
