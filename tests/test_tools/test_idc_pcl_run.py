"""IDC-PCL through the project's tools: hard negatives, pre-training and
fine-tuning with tools/train.py, tools/test.py, then IDCInferencer, on the
tiny CLEVR-Change tree (a few iterations). The commands run their main in
this process: their command lines run as subprocesses in
tests/test_projects/test_running_projects.py,
tests/test_tools/test_train_options.py and
tests/test_configs/test_rs_configs.py."""
import json
import os.path as osp

import numpy as np

from tests.helpers import REPO, load_tool
from tests.helpers.tiny_run import evaluate_main, make_tiny_data, train_main

TRUNK = """
trunk = dict(
    hidden=32,
    feature_encoder=dict(
        type='PairFeatureEncoder', image_size=(32, 48),
        backbone=dict(type='mmpretrain.ResNet', depth=18, stem_channels=8,
                      base_channels=8, num_stages=3, strides=(1, 2, 2),
                      dilations=(1, 1, 1), out_indices=(2, ))),
    single_image_encoder=dict(type='SingleImageEncoder', num_heads=2),
    pair_encoder=dict(type='PairEncoder', num_heads=2),
    cross_modal=dict(type='CrossModalTransformer', num_layers=1, num_heads=2,
                     max_length=16, vocab=data_root + '/caption_vocab_train.json'))
"""
COMMON = """
_base_ = [{runtime!r}]
data_root = {data_root!r}
load_pair = dict(type='LoadImagePair')
train_dataloader = dict(
    batch_size=4, num_workers=0,
    sampler=dict(type='DefaultSampler', shuffle=True),
    collate_fn=dict(type='pseudo_collate'),
    dataset=dict(type='CLEVRChangeDataset', data_root=data_root,
                 split='train', pipeline=[
                     load_pair, dict(type='ResizePair', size=(32, 48)),
                     dict(type='TokenizeCaptions', context_length=16),
                     {negatives}
                     dict(type='PackIDCInputs', meta_keys=(
                         'pair_id', 'change_type', 'gt_captions',
                         'negative_captions'))]))
optim_wrapper = dict(type='OptimWrapper',
                     optimizer=dict(type='AdamW', lr=1e-3))
train_cfg = dict(by_epoch=True, max_epochs=1, val_interval=1)
default_hooks = dict(logger=dict(interval=1),
                     checkpoint=dict(save_best={save_best}, rule='greater'))
randomness = dict(seed=0)
""" + TRUNK
PRETRAIN = COMMON + """
# task_seed 5 draws each task in the 4 iterations
model = dict(type='IDCPCLPretrainer', **trunk,
             task_weights=dict(mlm=1, mvcl=1, fda=1), task_seed=5)
"""
CAPTION = COMMON + """
test_pipeline = [load_pair, dict(type='ResizePair', size=(32, 48)),
                 dict(type='PackIDCInputs')]
val_dataloader = dict(
    batch_size=4, num_workers=0,
    sampler=dict(type='DefaultSampler', shuffle=False),
    collate_fn=dict(type='pseudo_collate'),
    dataset=dict(type='CLEVRChangeDataset', data_root=data_root, split='val',
                 pipeline=test_pipeline))
test_dataloader = dict(val_dataloader, dataset=dict(
    type='CLEVRChangeDataset', data_root=data_root, split='test',
    pipeline=test_pipeline))
# a list: a dict with a 'metrics' key would be read as an Evaluator
val_evaluator = [dict(type='IDCMetric', metrics=['Bleu', 'CIDEr'])]
test_evaluator = val_evaluator
val_cfg = dict()
test_cfg = dict()
model = dict(type='IDCPCLCaptioner', **trunk, mask_prob=0.5,
             distractor_loss=dict(type='DistractorJudgingLoss'),
             init_from={init_from!r})
"""


def test_pretrain_finetune_test_and_caption(tmp_path, capsys):
    data_root = make_tiny_data(str(tmp_path / 'data'))
    runtime = str(REPO / 'configs' / '_base_' / 'default_runtime.py')

    # hard negatives, written next to the annotations
    load_tool('tools/dataset_converters/make_hard_negatives.py').main([
        '--dataset-type', 'CLEVRChangeDataset', '--data-root', data_root,
        '--split', 'train', '--seed', '0'])
    negatives_file = osp.join(data_root, 'hard_negatives_train.json')
    assert osp.isfile(negatives_file) and 'wrote' in capsys.readouterr().out
    with open(negatives_file) as f:
        written = json.load(f)
    assert written['meta']['seed'] == 0 and written['negatives']

    pretrain = tmp_path / 'pretrain.py'
    pretrain.write_text(PRETRAIN.format(
        runtime=runtime, data_root=data_root, save_best=None,
        negatives=f"dict(type='SampleHardNegatives', negatives_file="
                  f"{negatives_file!r}, num_negatives=2),"))
    train_main(str(pretrain), '--work-dir', str(tmp_path / 'pre'))
    (log, ) = (tmp_path / 'pre').rglob('*.log')
    for task in ('loss_mlm', 'loss_mvcl', 'loss_fda'):
        assert task in log.read_text()
    checkpoint = tmp_path / 'pre' / 'epoch_1.pth'
    assert checkpoint.is_file()

    caption = tmp_path / 'caption.py'
    caption.write_text(CAPTION.format(
        runtime=runtime, data_root=data_root, save_best="'CIDEr'",
        negatives='', init_from=str(tmp_path / 'pre' / 'epoch_*.pth')))
    train_main(str(caption), '--work-dir', str(tmp_path / 'cap'))
    (log, ) = (tmp_path / 'cap').rglob('*.log')
    assert 'IDC-PCL captioner initialised from' in log.read_text()
    best = sorted((tmp_path / 'cap').glob('best_CIDEr_*.pth'))
    assert best

    evaluate_main(str(caption), str(best[0]), '--work-dir', str(tmp_path / 'test'),
                  '--cfg-options', f"test_evaluator.0.output_dir={tmp_path / 'test'}")
    with open(tmp_path / 'test' / 'test_scores.json') as f:
        scores = json.load(f)
    assert 'CIDEr' in scores and 'distractor/CIDEr' in scores
    predictions = sorted((tmp_path / 'test').glob('predictions_*.json'))
    with open(predictions[0]) as f:
        assert json.load(f)[0]['prediction']

    # the inferencer: the caption config and checkpoint as they are
    from mmidc.apis import IDCInferencer
    captioner = IDCInferencer(str(caption), str(best[0]), device='cpu')
    rng = np.random.default_rng(0)
    before = rng.integers(0, 256, (32, 48, 3), dtype=np.uint8)
    result = captioner(before, before.copy(), strategy='beam', beam_size=2)
    assert isinstance(result['caption'], str) and result['score'] <= 0
