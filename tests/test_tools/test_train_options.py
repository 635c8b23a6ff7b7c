"""tools/train.py's speed options on the tiny config: --compile (through
MMEngine's ``compile`` key, compile time logged), --fused-optim, --amp bf16
and --image-cache (the cache built on first use, then read)."""
import os.path as osp

from mmengine.config import Config

from test_tools.tiny_run import run_train, write_tiny_config


def dumped_config(work_dir) -> Config:
    """The config MMEngine saved in the work dir (what the run used)."""
    (path, ) = [p for p in work_dir.rglob('tiny_adapt.py')]
    return Config.fromfile(str(path))


def test_compile_goes_through_mmengine(tmp_path):
    config = write_tiny_config(str(tmp_path), max_epochs=1)
    work_dir = tmp_path / 'work'
    # the eager backend: the pass-through without minutes of CPU compilation
    result = run_train(config, '--work-dir', str(work_dir), '--compile',
                       '--cfg-options', 'compile.backend=eager')
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-3000:]
    assert 'Model has been "compiled"' in output
    assert 'torch.compile: first iteration' in output
    assert dumped_config(work_dir).compile == dict(backend='eager')


def test_fused_bf16_and_image_cache(tmp_path):
    config = write_tiny_config(str(tmp_path), max_epochs=1)
    work_dir = tmp_path / 'work'
    result = run_train(config, '--work-dir', str(work_dir), '--fused-optim',
                       '--amp', 'bf16', '--image-cache')
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-3000:]
    cfg = dumped_config(work_dir)
    assert cfg.optim_wrapper.type == 'AutocastOptimWrapper'
    assert cfg.optim_wrapper.dtype == 'bfloat16'
    assert cfg.optim_wrapper.optimizer.fused is True
    cache = osp.join(str(tmp_path), 'data', 'cache_32x32')
    for shard in ('CLEVRChangeDataset_train', 'CLEVRChangeDataset_val'):
        assert osp.isfile(osp.join(cache, f'{shard}.json')), shard
    for key in ('train_dataloader', 'val_dataloader'):
        load = cfg[key].dataset.pipeline[0]
        assert load.type == 'LoadImagePair' and load.cache_dir == cache
        assert tuple(load.cache_size) == (32, 32)
    assert 'decoding the original images instead' not in output  # all hits
