"""tools/analysis_tools/validation_cost.py on a tiny captioner and a tiny
generated synthetic set."""
import copy
import json

import pytest
from mmengine.registry import init_default_scope

from mmidc.synthetic import generate_dataset
from mmidc.registry import MODELS
from tests.helpers import load_tool
from tests.helpers.tiny_models import (captioner_cfg, save_checkpoint,
                                       write_config)


def test_times_the_model_and_each_metric(tmp_path, one_thread):
    root = str(tmp_path / 'synth')
    generate_dataset(root, 8, seed=1, image_size=(48, 32), progress=False,
                     split_fractions=(0.5, 0.5, 0.0))
    with open(f'{root}/splits.json') as f:
        num_val = len(json.load(f)['val'])
    cfg = captioner_cfg()
    init_default_scope('mmidc')
    checkpoint = save_checkpoint(MODELS.build(copy.deepcopy(cfg['model'])),
                                 tmp_path / 'captioner.pth')
    pipeline = [dict(type='LoadImagePair'), dict(type='ResizePair', size=32),
                dict(type='PackIDCInputs')]
    cfg.update(
        val_dataloader=dict(
            batch_size=4, num_workers=0,
            sampler=dict(type='DefaultSampler', shuffle=False),
            collate_fn=dict(type='pseudo_collate'),
            dataset=dict(type='CLEVRChangeDataset', data_root=root,
                         split='val', pipeline=pipeline)),
        val_evaluator=[dict(type='CaptionTruthMetric', data_root=root)],
        val_cfg=dict())
    cfg.pop('test_dataloader')
    config = write_config(cfg, tmp_path / 'tiny_caption.py')
    result = load_tool('tools/analysis_tools/validation_cost.py').main(
        [config, checkpoint])
    assert result['pairs'] == 2 * num_val
    assert list(result['metric_s']) == ['CaptionTruthMetric']
    assert result['total_s'] == pytest.approx(
        result['model_s'] + result['metric_s']['CaptionTruthMetric'])
    with pytest.raises(FileNotFoundError, match='missing.pth'):
        load_tool('tools/analysis_tools/validation_cost.py').main(
            [config, str(tmp_path / 'missing.pth')])


def test_a_config_without_the_split_is_named(tmp_path):
    """A pre-training config validates nothing: the error names the config
    and what it lacks."""
    config = tmp_path / 'pretrain.py'
    config.write_text("model = dict(type='IDCPCLPretrainer')\nval_dataloader = None\n"
                      "val_evaluator = None\n")
    checkpoint = tmp_path / 'x.pth'
    checkpoint.write_bytes(b'')
    tool = load_tool('tools/analysis_tools/validation_cost.py')
    with pytest.raises(SystemExit, match=r'pretrain.py: no val_dataloader and '
                       r'val_evaluator to time.*captioning config'):
        tool.main([str(config), str(checkpoint)])
    with pytest.raises(SystemExit, match=r'pretrain.py: no test_dataloader and '
                       r'test_evaluator to time'):
        tool.main([str(config), str(checkpoint), '--split', 'test'])
