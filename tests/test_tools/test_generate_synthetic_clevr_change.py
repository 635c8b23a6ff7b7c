"""tools/generate_synthetic_clevr_change.py: presets and overrides."""
import os.path as osp

from mmidc.synthetic import PRESETS, SceneSettings
from tests.helpers import load_tool
from tests.helpers.pair_trees import read_json, synthetic_scene


def test_shifted_preset_from_the_tool(tmp_path):
    tool = load_tool('tools/generate_synthetic_clevr_change.py')
    _, args = tool.parse_args(['out', '--preset', 'shifted', '--num-scenes',
                               '4', '--image-size', '96x64'])
    kwargs = tool.generation_kwargs(args)
    assert kwargs == dict(PRESETS['shifted'], num_scenes=4,
                          image_size=(96, 64))
    assert kwargs['seed'] != 0 and kwargs['settings'].min_objects == 6
    _, args = tool.parse_args(['out', '--max-objects', '7'])
    assert tool.generation_kwargs(args) == dict(
        num_scenes=1000, seed=0, image_size=(480, 320),
        split_fractions=(0.8, 0.1, 0.1),
        settings=SceneSettings(max_objects=7))
    root = str(tmp_path / 'shifted')
    tool.main([root, '--preset', 'shifted', '--num-scenes', '4',
               '--image-size', '96x64'])
    splits = read_json(osp.join(root, 'splits.json'))
    assert splits['train'] == [] and len(splits['test']) == 2
    scene = synthetic_scene(root, 0)
    assert all(len(r['objects']) >= 6 for r in scene['images'].values())
    assert scene['images']['default']['image_size'] == [96, 64]
