"""Watching a run of a tiny config: validation every epoch gives a metric
curve in ``vis_data/scalars.json`` without changing the training, MMPretrain's
``analyze_logs.py`` plots it, and the TensorBoard backend writes events."""
import json
import subprocess
import sys
from pathlib import Path

import mmpretrain
import pytest
from mmengine.runner import Runner

from tests.helpers.pair_trees import make_my_pairs_tree
from tests.helpers.tiny_run import tool_env
from tests.test_projects.test_from_scratch.test_configs.test_tiny_my_pairs import \
    tiny_run_cfg

CONFIG = 'clip4idc-adapt_tiny_my-pairs.py'
ANALYZE_LOGS = (Path(mmpretrain.__file__).parent / '.mim' / 'tools' /
                'analysis_tools' / 'analyze_logs.py')


def scalars(work_dir: str):
    """(train lines, val lines) of the run's vis_data/scalars.json."""
    path, = Path(work_dir).glob('*/vis_data/scalars.json')
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    return ([line for line in lines if 'lr' in line],
            [line for line in lines if 'lr' not in line], str(path))


def train(root: str, work_dir: str, **options) -> None:
    cfg = tiny_run_cfg(CONFIG, root, work_dir, **{
        'train_cfg.max_epochs': 2, 'default_hooks.logger.interval': 1,
        'train_dataloader.num_workers': 0,
        'train_dataloader.persistent_workers': False,
        'val_dataloader.num_workers': 0,
        'val_dataloader.persistent_workers': False, **options})
    Runner.from_cfg(cfg).train()


@pytest.fixture(scope='module')
def runs(tmp_path_factory):
    """The tiny config for 2 epochs of 2 steps, validated as the config
    says (every epoch) and at the end only."""
    tmp = tmp_path_factory.mktemp('watch')
    root = str(tmp / 'my_pairs')
    make_my_pairs_tree(root, {'train': 8, 'val': 3, 'test': 1})
    every, end = str(tmp / 'every_epoch'), str(tmp / 'end_only')
    train(root, every)  # the config's own val_interval
    train(root, end, **{'train_cfg.val_interval': 2})
    return every, end


def test_the_config_validates_every_epoch(runs):
    every, _ = runs
    train_lines, val_lines, _ = scalars(every)
    assert [line['step'] for line in val_lines] == [1, 2]  # a curve
    assert all('rsum' in line for line in val_lines)
    assert [line['step'] for line in train_lines] == [1, 2, 3, 4]
    assert all('loss' in line for line in train_lines)


def test_validation_does_not_change_the_training(runs):
    """Bit for bit the same losses and learning rates, with and without
    the validation passes between the epochs."""
    every, end = runs
    keys = ('loss', 'loss_p2t', 'loss_t2p', 'lr', 'grad_norm')
    train_every, val_every, _ = scalars(every)
    train_end, val_end, _ = scalars(end)
    assert len(val_every) == 2 and len(val_end) == 1
    assert ([{k: line.get(k) for k in keys} for line in train_every] ==
            [{k: line.get(k) for k in keys} for line in train_end])
    assert val_every[-1]['rsum'] == val_end[-1]['rsum']


def test_mmpretrain_analyze_logs_plots_the_run(runs, tmp_path):
    _, _, path = scalars(runs[0])
    out = tmp_path / 'curves.png'
    result = subprocess.run(
        [sys.executable, str(ANALYZE_LOGS), 'plot_curve', path, '--keys',
         'loss', 'rsum', '--out', str(out)],
        env=tool_env(extra_env={'MPLBACKEND': 'Agg'}), capture_output=True,
        text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert out.stat().st_size > 1000
    assert 'metric is rsum' in result.stdout


def test_tensorboard_backend_writes_events(tmp_path):
    pytest.importorskip('tensorboard')  # the `tensorboard` extra
    root = str(tmp_path / 'my_pairs')
    make_my_pairs_tree(root, {'train': 4, 'val': 2, 'test': 1})
    work_dir = str(tmp_path / 'tb')
    train(root, work_dir, **{
        'train_cfg.max_epochs': 1,
        'visualizer.vis_backends': [dict(type='LocalVisBackend'),
                                    dict(type='TensorboardVisBackend')]})
    events = list(Path(work_dir).glob('*/vis_data/events.out.tfevents.*'))
    assert events and events[0].stat().st_size > 0
    from tensorboard.backend.event_processing.event_accumulator import \
        EventAccumulator
    accumulator = EventAccumulator(str(events[0].parent))
    accumulator.Reload()
    assert {'loss', 'rsum'} <= set(accumulator.Tags()['scalars'])
