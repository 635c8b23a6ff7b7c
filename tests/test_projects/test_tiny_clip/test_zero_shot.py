"""python -m projects.tiny_clip.zero_shot on a random tiny CLIP."""
import json

import pytest

from projects.tiny_clip import zero_shot as tool
from tests.helpers.tiny_models import write_tiny_clip


def test_prints_and_writes_each_attribute(tmp_path, capsys):
    ckpt = write_tiny_clip(tmp_path / 'tiny.safetensors')
    out = str(tmp_path / 'zs.json')
    results = tool.main([ckpt, '--num-images', '4', '--out', out])
    assert set(results) == {'color', 'material', 'shape', 'size'}
    assert results['color']['chance'] == 1 / 8
    assert all(r['num'] == 4 and 0 <= r['accuracy'] <= 1
               for r in results.values())
    assert json.load(open(out)) == results
    printed = capsys.readouterr().out
    assert 'material' in printed and '50.0%' in printed


def test_linear_probe_and_random_init(tmp_path, capsys):
    out = str(tmp_path / 'zs.json')
    results = tool.main(['--random-init', '--num-images', '4',
                         '--linear-probe', '6', '--out', out])
    assert all(0 <= r['linear_probe'] <= 1 and r['num_probe_train'] == 6
               for r in results.values())
    assert json.load(open(out)) == results
    printed = capsys.readouterr().out
    assert 'random initialisation' in printed and 'linear probe' in printed
    # a checkpoint and --random-init, or neither: named
    ckpt = write_tiny_clip(tmp_path / 'tiny.safetensors')
    for argv in ([], [ckpt, '--random-init']):
        with pytest.raises(SystemExit):
            tool.main(argv)
        assert 'a checkpoint or --random-init' in capsys.readouterr().err
    with pytest.raises(SystemExit):
        tool.main([ckpt, '--linear-probe', '-1'])
    assert '--linear-probe takes' in capsys.readouterr().err


def test_finetuned_probe(tmp_path, capsys):
    results = tool.main(['--random-init', '--num-images', '3',
                         '--finetune', '4', '--finetune-epochs', '2'])
    shape = results['shape']
    assert len(shape['finetuned_per_epoch']) == 2
    assert shape['finetuned'] == shape['finetuned_per_epoch'][-1]
    assert shape['num_finetune_train'] == 4
    assert 'finetuned' not in results['color']
    assert 'fine-tuned' in capsys.readouterr().out
    with pytest.raises(SystemExit):
        tool.main(['--random-init', '--finetune', '4',
                   '--finetune-epochs', '0'])
    assert '--finetune-epochs' in capsys.readouterr().err
