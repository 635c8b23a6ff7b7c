"""A tiny CLEVR-Change tree and adaptation config for the runner tests.

Shared by tests/test_tools (config errors) and tests/test_engine (resume, two
processes): 12 scenes of 48x32 px (8 train scenes = 16 pairs with the
no-change ones, 4 iterations of batch 4 per epoch), a 32 px CLIP-shaped model
with 2 vision blocks (1 inter), retrieval validation every epoch. One epoch
takes well under a second.
"""
import itertools
import os
import os.path as osp
import subprocess
import sys

from mmidc.datasets import write_dataset_vocab_file
from . import REPO
from .pair_trees import make_clevr_change_tree

_RUN_IDS = itertools.count()
SPLITS = {'train': list(range(8)), 'val': [8, 9], 'test': [10, 11]}
ITERS_PER_EPOCH = 4

CONFIG_TEMPLATE = """\
_base_ = [{runtime!r}]
data_root = {data_root!r}
tiny_arch = dict(
    embed_dim=32,
    vision_cfg=dict(image_size=32, layers=2, width=32, head_width=16,
                    patch_size=8),
    text_cfg=dict(context_length=16, vocab_size=49408, width=32, heads=2,
                  layers=1))
model = dict(
    type='CLIP4IDCRetriever',
    backbone=dict(type='CLIP4IDCBackbone', arch=tiny_arch,
                  num_inter_layers=1),
    text_encoder=dict(type='CLIPTextEncoder', arch=tiny_arch),
    head=dict(type='ContrastiveAdaptationHead'))
load_pair = dict(type='LoadImagePair')
train_pipeline = [
    load_pair,
    dict(type='ResizePair', size=(32, 32)),
    dict(type='TokenizeCaptions', context_length=16, mode='random'),
    dict(type='PackIDCInputs'),
]
val_pipeline = [
    load_pair,
    dict(type='ResizePair', size=(32, 32)),
    dict(type='TokenizeCaptions', context_length=16, mode='all'),
    dict(type='PackIDCInputs'),
]
train_dataloader = dict(
    batch_size=4, num_workers=0,
    sampler=dict(type='SampleSeedSampler',
                 sampler=dict(type='DefaultSampler', shuffle=True)),
    collate_fn=dict(type='pseudo_collate'),
    dataset=dict(type='CLEVRChangeDataset', data_root=data_root,
                 split='train', pipeline=train_pipeline))
val_dataloader = dict(
    batch_size=4, num_workers=0,
    sampler=dict(type='DefaultSampler', shuffle=False),
    collate_fn=dict(type='pseudo_collate'),
    dataset=dict(type='CLEVRChangeDataset', data_root=data_root,
                 split='val', pipeline=val_pipeline))
val_evaluator = dict(type='RetrievalMetric')
val_cfg = dict()
optim_wrapper = dict(
    type='OptimWrapper',
    optimizer=dict(type='AdamW', lr=1e-3, weight_decay=0.05))
param_scheduler = [
    dict(type='LinearLR', start_factor=0.1, by_epoch=True, begin=0, end=1,
         convert_to_iter_based=True),
    dict(type='CosineAnnealingLR', by_epoch=True, begin=1, end={cosine_end},
         eta_min_ratio=0.1, convert_to_iter_based=True),
]
train_cfg = dict(by_epoch=True, max_epochs={max_epochs}, val_interval=1)
default_hooks = dict(
    logger=dict(interval=1),
    checkpoint=dict(save_best='rsum', rule='greater', max_keep_ckpts=-1))
randomness = dict(seed=0)
"""


CAPTIONER_TEMPLATE = """
# the from-scratch project's caption head
custom_imports = dict(imports=['mmidc', 'projects.from_scratch'],
                      allow_failed_imports=False)
model = dict(
    type='ConditionedCaptioner',
    backbone=dict(type='CLIP4IDCBackbone', arch=tiny_arch, num_inter_layers=1),
    head=dict(type='ScratchCaptionHead', hidden=32, num_heads=2,
              num_encoder_layers=1, num_decoder_layers=1, dropout={dropout},
              max_length=16,
              vocab=data_root + '/caption_vocab_train.json'{head_options}))
"""


def captioner_config(dropout: float = 0.0, head_options: str = '',
                     evaluator: str = None) -> str:
    """Config lines (for ``write_tiny_config(extra=...)``) that make the tiny
    config a captioner of the same backbone (the from-scratch project's
    caption head, imported by the config and registered here), its
    vocabulary from the training captions; validated with ``evaluator`` (a
    config expression), or not at all."""
    import projects.from_scratch  # noqa: F401  (for in-process builds)
    text = CAPTIONER_TEMPLATE.format(dropout=dropout, head_options=head_options)
    if evaluator is None:
        return text + 'val_dataloader = None\nval_cfg = None\nval_evaluator = None\n'
    return text + f'val_evaluator = {evaluator}\n'


def make_tiny_data(root: str) -> str:
    """Write the tiny CLEVR-Change tree and its caption vocabulary under
    ``root`` (once)."""
    if not osp.isfile(osp.join(root, 'splits.json')):
        make_clevr_change_tree(root, splits=SPLITS)
        write_dataset_vocab_file(dict(type='CLEVRChangeDataset', data_root=root, split='train'))
    return root


def write_tiny_config(folder: str, max_epochs: int = 3, extra: str = '',
                      name: str = 'tiny_adapt.py') -> str:
    """Data tree plus config file in ``folder``; returns the config path.

    ``extra`` is appended to the config (overrides, broken settings).
    """
    data_root = make_tiny_data(osp.join(folder, 'data'))
    text = CONFIG_TEMPLATE.format(
        runtime=str(REPO / 'configs' / '_base_' / 'default_runtime.py'),
        data_root=data_root, max_epochs=max_epochs,
        cosine_end=max(2, max_epochs))  # a 1-epoch run: cosine unused
    path = osp.join(folder, name)
    with open(path, 'w') as f:
        f.write(text + extra)
    return path


def tool_env(extra_pythonpath: str = None, extra_env: dict = None) -> dict:
    """Environment for tool subprocesses: one thread, the repo importable
    (plus ``extra_env``)."""
    env = dict(os.environ, OMP_NUM_THREADS='1', MKL_NUM_THREADS='1',
               CUDA_VISIBLE_DEVICES='')
    env.update(extra_env or {})  # may override the defaults (a GPU test's device)
    paths = [str(REPO)] + ([extra_pythonpath] if extra_pythonpath else [])
    env['PYTHONPATH'] = os.pathsep.join(paths + [env.get('PYTHONPATH', '')])
    return env


def run_train(config: str, *args: str, extra_pythonpath: str = None,
              timeout: float = 300,
              extra_env: dict = None) -> subprocess.CompletedProcess:
    """``python tools/train.py CONFIG ARGS`` in the repo root, output kept."""
    cmd = [sys.executable, str(REPO / 'tools' / 'train.py'), config, *args]
    return subprocess.run(cmd, cwd=str(REPO),
                          env=tool_env(extra_pythonpath, extra_env),
                          capture_output=True, text=True, timeout=timeout)


def train_in_process(config: str, work_dir: str, resume: bool = False,
                     cfg_options: dict = None):
    """Train like tools/train.py in this process, single-threaded; returns
    the runner (``cfg_options`` merged into the config)."""
    import torch
    from mmengine.config import Config
    from mmengine.runner import Runner

    from mmidc.runtime.config_check import check_config
    cfg = Config.fromfile(config)
    if cfg_options:
        cfg.merge_from_dict(cfg_options)
    cfg.work_dir = work_dir
    cfg.resume = resume
    cfg.setdefault('load_from', None)
    # A new name per runner: MMEngine keys its logger and message hub on it.
    cfg.experiment_name = f'{osp.basename(work_dir)}_{next(_RUN_IDS)}'
    check_config(cfg)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        if 'runner_type' in cfg:  # the shipped configs' IDCRunner
            from mmidc.registry import RUNNERS
            runner = RUNNERS.build(cfg)
        else:
            runner = Runner.from_cfg(cfg)
        runner.train()
    finally:
        torch.set_num_threads(threads)
    return runner


def _main_in_process(command: str, argv) -> object:
    """``mmidc.cli.<command>.main()`` in this process on the command line
    ``argv`` (a new ``experiment_name`` added), one intra-op thread."""
    import importlib

    import torch
    module = importlib.import_module(f'mmidc.cli.{command}')
    name = f'{command}_main_{next(_RUN_IDS)}'
    saved_argv, threads = sys.argv, torch.get_num_threads()
    sys.argv = [f'tools/{command}.py', *argv, '--cfg-options',
                f'experiment_name={name}']
    torch.set_num_threads(1)
    try:
        return module.main()
    finally:
        sys.argv = saved_argv
        torch.set_num_threads(threads)


def train_main(*argv: str) -> None:
    """tools/train.py's ``main`` (:mod:`mmidc.cli.train`) in this process on
    the command line ``argv``, one intra-op thread; for the tests whose
    subject is not the process boundary (a real subprocess of the command:
    :func:`run_train`). The run gets a new ``experiment_name``: MMEngine keys
    its logger and message hub on it, and two runs of one second would share
    them. Errors propagate (``SystemExit(1)`` for the errors the command
    prints in one line)."""
    _main_in_process('train', argv)


def evaluate_main(*argv: str) -> dict:
    """tools/test.py's ``main`` (:mod:`mmidc.cli.test`) in this process, as
    :func:`train_main`; returns the metrics."""
    return _main_in_process('test', argv)
