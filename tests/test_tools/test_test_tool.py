"""tools/test.py tests a trained checkpoint without the files its config
trains from: the CLIP weights of ``backbone.pretrained`` and the caption
vocabulary file."""
import copy
import json
import sys

import pytest
import torch

from tests.helpers import REPO, load_tool
from tests.helpers.pair_trees import make_generic_tree
from tests.helpers.tiny_models import (IMAGE_PIPELINE, captioner_cfg,
                                       save_checkpoint, write_config)


@pytest.fixture
def trained_captioner(tmp_path):
    """(config, checkpoint): the config names a CLIP file and a vocabulary
    file that do not exist; the checkpoint holds the weights and the
    vocabulary of the model trained from them."""
    import mmidc  # noqa: F401
    from mmidc.registry import MODELS
    root = tmp_path / 'pairs'
    make_generic_tree(str(root), ann_name='test.jsonl')  # no train.jsonl
    cfg = captioner_cfg()
    model = MODELS.build(copy.deepcopy(cfg['model']))  # as trained
    checkpoint = save_checkpoint(model, tmp_path / 'epoch_1.pth')

    cfg['_base_'] = [str(REPO / 'configs' / '_base_' / 'default_runtime.py')]
    cfg['model']['backbone']['pretrained'] = str(tmp_path / 'clip.safetensors')
    cfg['model']['head']['vocab'] = str(root / 'caption_vocab_train.json')
    pipeline = [p for p in IMAGE_PIPELINE if p['type'] != 'TokenizeCaptions']
    cfg['test_dataloader'] = dict(
        batch_size=2, num_workers=0,
        sampler=dict(type='DefaultSampler', shuffle=False),
        collate_fn=dict(type='pseudo_collate'),
        dataset=dict(type='ImagePairDataset', data_root=str(root),
                     ann_file='test.jsonl', data_prefix=dict(img_path='imgs'),
                     pipeline=pipeline))
    # a list: MMEngine reads a dict with a `metrics` key as an Evaluator
    cfg['test_evaluator'] = [dict(type='IDCMetric', metrics=('Bleu', 'CIDEr'),
                                  per_type=False, out_file_prefix=None)]
    cfg['test_cfg'] = dict()
    return write_config(cfg, tmp_path / 'captioner.py'), checkpoint


def test_checkpoint_is_tested_without_clip_file_or_vocabulary_file(
        trained_captioner, tmp_path, monkeypatch):
    from mmengine.config import Config

    from mmidc.registry import MODELS
    config, checkpoint = trained_captioner
    model_cfg = Config.fromfile(config).model
    with pytest.raises(FileNotFoundError, match='clip.safetensors'):
        MODELS.build(copy.deepcopy(model_cfg))  # what training needs
    model_cfg.backbone.pretrained = None
    with pytest.raises(FileNotFoundError, match='caption_vocab_train.json'):
        MODELS.build(copy.deepcopy(model_cfg))

    work_dir = tmp_path / 'test_run'
    monkeypatch.setattr(sys, 'argv', ['tools/test.py', config, checkpoint,
                                      '--work-dir', str(work_dir)])
    metrics = load_tool('tools/test.py').main()
    scores = json.loads((work_dir / 'test_scores.json').read_text())
    assert set(scores) == set(metrics) and 'CIDEr' in scores


def test_model_cfg_for_checkpoint_at_every_depth():
    from mmidc.apis.model_loading import prepare_model_cfg_for_checkpoint
    cfg = dict(type='Captioner', init_backbone_from='adapt/best_*.pth',
               pretrained='clip.pt',
               backbone=dict(type='B', pretrained='clip.safetensors',
                             arch=dict(vision_cfg=dict(layers=2))),
               heads=[dict(type='H', vocab='data/caption_vocab_train.json',
                           hidden=8),
                   dict(type='H2', vocab=None)])
    prepare_model_cfg_for_checkpoint(cfg, 'work/epoch_3.pth')
    assert cfg == dict(type='Captioner', init_backbone_from=None,
                       pretrained=None,
                       backbone=dict(type='B', pretrained=None,
                                     arch=dict(vision_cfg=dict(layers=2))),
                       heads=[dict(type='H', vocab='work/epoch_3.pth',
                                   hidden=8),
                              dict(type='H2', vocab=None)])


def test_vocabulary_comes_from_the_checkpoint(trained_captioner):
    """init_model (the inferencers) and tools/test.py share the one
    implementation: the vocabulary buffer is the checkpoint's."""
    from mmidc.apis import init_model
    config, checkpoint = trained_captioner
    model = init_model(config, checkpoint, device='cpu')
    saved = torch.load(checkpoint, weights_only=True)['state_dict']
    assert torch.equal(model.head.vocab.clip_ids,
                       saved['head.vocab.clip_ids'])


def test_checkpoint_of_another_model_is_refused(trained_captioner, tmp_path,
                                                monkeypatch):
    """An IDC-PCL checkpoint on a CLIP4IDC config: MMEngine would load it
    non-strictly and score a random captioner. The error names the key
    prefixes; --partial-load is the explicit way to load what fits."""
    from mmidc.registry import MODELS
    from tests.helpers.tiny_idc_pcl import tiny_model_cfg
    config, _ = trained_captioner
    other = save_checkpoint(MODELS.build(tiny_model_cfg()),
                            tmp_path / 'idc_pcl.pth')
    argv = ['tools/test.py', config, other, '--work-dir', str(tmp_path / 'w')]
    monkeypatch.setattr(sys, 'argv', argv)
    with pytest.raises(ValueError) as err:
        load_tool('tools/test.py').main()
    message = str(err.value)
    assert 'idc_pcl.pth' in message and '--partial-load' in message
    assert 'missing' in message and 'backbone' in message
    assert 'unexpected' in message and 'feature_encoder' in message
    assert not (tmp_path / 'w' / 'test_scores.json').exists()

    monkeypatch.setattr(sys, 'argv', argv + ['--partial-load'])
    metrics = load_tool('tools/test.py').main()
    assert 'CIDEr' in metrics


def test_a_work_dir_given_as_the_checkpoint_names_its_checkpoints(
        tmp_path, monkeypatch):
    """A work dir in place of the checkpoint: not "checkpoint not found"
    (the folder exists) but an error saying it is a folder and naming the
    checkpoints in it."""
    work_dir = tmp_path / 'work_dir'
    work_dir.mkdir()
    for name in ('epoch_1.pth', 'best_CIDEr_epoch_1.pth'):
        (work_dir / name).write_bytes(b'')
    config = tmp_path / 'x.py'
    config.write_text('')
    monkeypatch.setattr(sys, 'argv', ['tools/test.py', str(config),
                                      str(work_dir)])
    with pytest.raises(IsADirectoryError) as err:
        load_tool('tools/test.py').main()
    message = str(err.value)
    assert str(work_dir) in message and 'a folder' in message
    assert 'best_CIDEr_epoch_1.pth' in message and 'epoch_1.pth' in message
    assert 'not found' not in message
