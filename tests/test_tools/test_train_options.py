"""tools/train.py's speed options on the tiny config: --compile (through
MMEngine's ``compile`` key, compile time logged), --fused-optim, --amp bf16
and --image-cache (the cache built on first use, then read).

The options change independent parts of the config (the ``compile`` key,
the optimizer wrapper, the loaders' image loading): one training run with
all of them serves the module, each test checks its options' part."""
import os.path as osp

import pytest
from mmengine.config import Config

from tests.helpers.tiny_run import run_train, write_tiny_config


def dumped_config(work_dir) -> Config:
    """The config MMEngine saved in the work dir (what the run used)."""
    (path, ) = [p for p in work_dir.rglob('tiny_adapt.py')]
    return Config.fromfile(str(path))


@pytest.fixture(scope='module')
def speed_run(tmp_path_factory):
    """(folder, work dir, output) of one 1-epoch run with every option."""
    folder = tmp_path_factory.mktemp('train_options')
    config = write_tiny_config(str(folder), max_epochs=1)
    work_dir = folder / 'work'
    # the eager backend: the pass-through without minutes of CPU compilation
    result = run_train(config, '--work-dir', str(work_dir), '--compile',
                       '--fused-optim', '--amp', 'bf16', '--image-cache',
                       '--cfg-options', 'compile.backend=eager')
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-3000:]
    return folder, work_dir, output


def test_compile_goes_through_mmengine(speed_run):
    _, work_dir, output = speed_run
    assert 'Model has been "compiled"' in output
    assert 'torch.compile: first iteration' in output
    assert dumped_config(work_dir).compile == dict(backend='eager')


def test_fused_bf16_and_image_cache(speed_run):
    folder, work_dir, output = speed_run
    cfg = dumped_config(work_dir)
    assert cfg.optim_wrapper.type == 'AutocastOptimWrapper'
    assert cfg.optim_wrapper.dtype == 'bfloat16'
    assert cfg.optim_wrapper.optimizer.fused is True
    cache = osp.join(str(folder), 'data', 'cache_32x32')
    for shard in ('CLEVRChangeDataset_train', 'CLEVRChangeDataset_val'):
        assert osp.isfile(osp.join(cache, f'{shard}.json')), shard
    for key in ('train_dataloader', 'val_dataloader'):
        load = cfg[key].dataset.pipeline[0]
        assert load.type == 'LoadImagePair' and load.cache_dir == cache
        assert tuple(load.cache_size) == (32, 32)
    assert 'decoding the original images instead' not in output  # all hits
