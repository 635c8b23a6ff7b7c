"""tools/train.py's start-up reads each split's annotations once: the image
cache (its paths), the vocabulary check (its captions) and the runner's
loaders each build the split's data set from the entries read first."""
import collections
import gc
import itertools
import sys

from mmengine.runner import BaseLoop, Runner

from mmidc.cli import train
from mmidc.runtime import loader_setup
from mmidc.datasets import CLEVRChangeDataset, ImagePairDataset
from tests.helpers.tiny_run import captioner_config, write_tiny_config

_RUNS = itertools.count()


def test_each_split_is_read_once_before_the_first_step(tmp_path,
                                                       monkeypatch):
    config = write_tiny_config(str(tmp_path), max_epochs=1, extra=(
        captioner_config(evaluator="dict(type='IDCMetric', java=False)")))
    parsed, loaded = collections.Counter(), collections.Counter()
    parse, load = (CLEVRChangeDataset.parse_annotations,
                   ImagePairDataset.load_data_list)
    monkeypatch.setattr(CLEVRChangeDataset, 'parse_annotations', lambda self: (
        parsed.update([self.split]), parse(self))[1])
    monkeypatch.setattr(ImagePairDataset, 'load_data_list', lambda self: (
        loaded.update([self.split]), load(self))[1])
    # what is slow here and not the subject: the runner's config dump and
    # environment log (2.4 s), MMEngine's gc.collect() after packing a data
    # set's list (0.5 s each), the cache's worker processes
    monkeypatch.setattr(Runner, 'dump_config', lambda self: None)
    monkeypatch.setattr(Runner, '_log_env', lambda self, env_cfg: None)
    monkeypatch.setattr(gc, 'collect', lambda *args: 0)
    monkeypatch.setattr(loader_setup, 'available_cores', lambda: 1)
    monkeypatch.setattr(sys, 'argv', [
        'train.py', config, '--work-dir', str(tmp_path / 'work'),
        '--image-cache', '--cfg-options',
        f'experiment_name=start_up_{next(_RUNS)}'])
    runner = train.start_up(train.parse_args())
    # built three times (cache, vocabulary, loader) and twice; read once
    assert loaded == {'train': 3, 'val': 2}
    assert parsed == {'train': 1, 'val': 1}
    loops = runner._train_loop, runner._val_loop
    assert all(isinstance(loop, BaseLoop) for loop in loops)
    assert [len(loop.dataloader.dataset) for loop in loops] == [16, 4]
    assert loops[0].dataloader.dataset.pipeline.transforms[0].cache_dir
