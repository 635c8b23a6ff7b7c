"""mmidc_lab.experiments.quickstart: the pipeline's commands in order (the
commands replaced by a recorder that leaves what they leave, the image caches
recorded), a second run that trains and tests nothing, and its tables."""
import json
import os
import os.path as osp
import sys

import pytest
from mmengine.config import Config, DictAction

import mmidc.synthetic as synthetic
import mmidc.datasets
from mmidc_lab.experiments import quickstart, stages
from tests.helpers import REPO

TRAIN = [sys.executable, '-m', 'mmidc.cli.train']
TEST = [sys.executable, '-m', 'mmidc.cli.test']

SCORES = {'CIDEr': 101.2345, 'Bleu_4': 40.0, 'METEOR': 30.0, 'ROUGE_L': 60.0,
          'color/CIDEr': 50.0, 'truth/total': 55.5, 'truth/color': 10.0}
RECORDS = [dict(pair_id=f'{i:06d}.png', change_type=kind,
                prediction='the cube moved', references=[f'reference {i}'])
           for i, kind in enumerate(['color', 'move', 'none', 'color'])]


class Tools:
    """Stands in for ``stages.run_command`` and ``stages.build_image_cache``:
    keeps each command (a cache as ``['cache', root, splits, size]``) and
    leaves what the training command (the config dump, a best checkpoint)
    and the test command (scores, predictions) leave."""

    def __init__(self, monkeypatch):
        self.calls = []
        monkeypatch.setattr(stages, 'run_command', self)
        monkeypatch.setattr(
            stages, 'build_image_cache',
            lambda root, splits, size, workers: self.calls.append(
                ['cache', root, tuple(splits), tuple(size)]))

    def __call__(self, cmd, log=None, threads=None, cwd=None):
        self.calls.append(list(cmd))
        if cmd[:3] in (TRAIN, TEST):
            work_dir = cmd[cmd.index('--work-dir') + 1]
            os.makedirs(work_dir, exist_ok=True)
        if cmd[:3] == TRAIN:
            key = 'rsum' if 'adapt' in cmd[3] else 'CIDEr'
            open(osp.join(work_dir, f'best_{key}_epoch_3.pth'), 'w').close()
            cfg = Config.fromfile(cmd[3])
            options = [o for o in cmd[cmd.index('--cfg-options') + 1:]
                       if '=' in o] if '--cfg-options' in cmd else []
            cfg.merge_from_dict({o.split('=', 1)[0]: DictAction._parse_iterable(
                o.split('=', 1)[1]) for o in options})
            cfg.dump(osp.join(work_dir, osp.basename(cmd[3])))
        elif cmd[:3] == TEST:
            with open(osp.join(work_dir, 'test_scores.json'), 'w') as f:
                json.dump(SCORES, f)
            with open(osp.join(work_dir, 'predictions_1.json'), 'w') as f:
                json.dump(RECORDS, f)
        return 1.0, 1.0


def test_the_pipelines_commands_and_a_second_run(tmp_path, monkeypatch):
    monkeypatch.chdir(REPO)
    for name in ('DATA_ROOT', 'SHIFTED_ROOT'):
        monkeypatch.setattr(quickstart, name,
                            str(tmp_path / getattr(quickstart, name)))
    generated = []
    monkeypatch.setattr(synthetic, 'generate_dataset',
                        lambda root, **kwargs: generated.append((root, kwargs)))
    vocab_sets = []
    monkeypatch.setattr(mmidc.datasets, 'ensure_vocab_file',
                        lambda dataset: vocab_sets.append(dataset['data_root']))
    tools = Tools(monkeypatch)
    work = str(tmp_path / 'work')

    result = quickstart.run_quickstart(work, caption_options=['a.b=1'],
                                       tiny_clip=False)

    adapted = osp.join(work, 'adapt', 'best_rsum_epoch_3.pth')
    captioner = osp.join(work, 'caption', 'best_CIDEr_epoch_3.pth')
    assert [root for root, _ in generated] == [quickstart.DATA_ROOT,
                                               quickstart.SHIFTED_ROOT]
    assert generated[0][1] == dict(num_scenes=3000, seed=0,
                                   image_size=(240, 160), workers=2)
    # the captioners' vocabulary of the training set; the shifted set has none
    assert vocab_sets == [quickstart.DATA_ROOT]
    cache, adapt, caption, test, shifted_cache, shifted = tools.calls
    assert cache == ['cache', quickstart.DATA_ROOT, ('train', 'val', 'test'),
                     (96, 144)]
    assert adapt == [*TRAIN, quickstart.ADAPT_CFG, '--work-dir',
                     osp.join(work, 'adapt')]
    assert caption == [*TRAIN, quickstart.CAPTION_CFG,
                       '--work-dir', osp.join(work, 'caption'),
                       '--cfg-options', f'model.init_backbone_from={adapted}',
                       '--cfg-options', 'a.b=1']
    assert test == [*TEST, osp.join(work, 'test', 'test_config.py'),
                    captioner, '--work-dir', osp.join(work, 'test')]
    assert shifted_cache[1:3] == [quickstart.SHIFTED_ROOT, ('test', )]
    assert shifted[:3] == TEST and shifted[4] == captioner
    assert result['captioner'] == captioner
    assert result['test'] == result['shifted test'] == SCORES
    assert list(result['times']) == ['data', 'adaptation', 'captioning',
                                     'test', 'shifted data', 'shifted test']

    # again: the data sets are kept, their caches checked, nothing trained
    # or tested again
    (tmp_path / quickstart.DATA_ROOT).mkdir(parents=True)
    (tmp_path / quickstart.DATA_ROOT / 'splits.json').write_text('{}')
    tools.calls.clear()
    quickstart.run_quickstart(work, caption_options=['a.b=1'], shifted=False,
                              tiny_clip=False)
    (cache, ) = tools.calls
    assert cache[:2] == ['cache', quickstart.DATA_ROOT]
    assert len(generated) == 2


def test_the_tiny_clip_path_after_the_from_scratch_one(tmp_path, monkeypatch):
    monkeypatch.chdir(REPO)
    for name in ('DATA_ROOT', 'SHIFTED_ROOT'):
        monkeypatch.setattr(quickstart, name,
                            str(tmp_path / getattr(quickstart, name)))
    monkeypatch.setattr(synthetic, 'generate_dataset', lambda root, **kw: None)
    monkeypatch.setattr(mmidc.datasets, 'ensure_vocab_file', lambda dataset: None)
    tools = Tools(monkeypatch)
    logged = []
    for module in (quickstart, stages):
        monkeypatch.setattr(module, 'print_log',
                            lambda msg, logger=None: logged.append(msg))
    work = str(tmp_path / 'work')

    result = quickstart.run_quickstart(work, tiny_clip=True)

    py = sys.executable
    *scratch, pretrain, caption, test, shifted = tools.calls
    assert [c[0] if c[0] == 'cache' else c[2] for c in scratch] == [
        'cache', 'mmidc.cli.train', 'mmidc.cli.train', 'mmidc.cli.test',
        'cache', 'mmidc.cli.test']
    # the tiny CLIP where the tiny-CLIP config loads it, trained as the
    # documented checkpoint was
    clip = Config.fromfile(quickstart.TINY_CLIP_CAPTION_CFG).model.backbone \
        .pretrained
    assert pretrain == [py, '-m', 'projects.tiny_clip.pretrain', '--work-dir',
                        osp.dirname(clip), '--export', clip, '--epochs', '8']
    # no adaptation checkpoint: the encoder starts from the tiny CLIP file
    assert caption == [*TRAIN, quickstart.TINY_CLIP_CAPTION_CFG,
                       '--work-dir', osp.join(work, 'tiny_clip', 'caption')]
    captioner = osp.join(work, 'tiny_clip', 'caption',
                         'best_CIDEr_epoch_3.pth')
    assert test[3:5] == [osp.join(work, 'tiny_clip', 'test', 'test_config.py'),
                         captioner]
    assert shifted[4] == captioner
    tiny = result['tiny CLIP']
    assert tiny['captioner'] == captioner
    assert tiny['test'] == tiny['shifted test'] == SCORES
    assert list(tiny['times']) == ['tiny CLIP', 'captioning', 'test',
                                   'shifted test']
    # every test split of both paths in one table
    (both, ) = [m for m in logged if m.startswith('Both paths')]
    header = both.splitlines()[1]
    for column in ('from scratch: test', 'tiny CLIP: test',
                   'from scratch: shifted', 'tiny CLIP: shifted'):
        assert column in header
    assert any(m.startswith('=== 11/11 tiny CLIP: the same captioner')
               for m in logged)


def test_test_report():
    text = quickstart.format_test_report('Test split', SCORES, RECORDS,
                                         'p.json', show=3)
    lines = text.splitlines()
    assert lines[0].startswith('Test split, x100 (CIDEr = CIDEr-D)')
    assert 'A few pairs (all 4 in p.json):' in lines
    # one caption of each type in turn, at most `show`
    shown = [line for line in lines if line.startswith('- [')]
    assert shown == ['- [color] 000000.png', '- [move] 000001.png',
                     '- [none] 000002.png']
    assert '    reference: reference 0' in lines
    assert 'A few pairs' not in quickstart.format_test_report(
        't', SCORES, RECORDS, 'p.json', show=0)


def test_side_by_side_table():
    table = quickstart.format_side_by_side({
        'test': {'CIDEr': 115.0, 'Bleu_4': 48.0, 'color/CIDEr': 60.0,
                 'color/Bleu_4': 15.0, 'truth/total': 59.5,
                 'truth/type/total': 90.0},
        'shifted test': {'CIDEr': 80.25, 'Bleu_4': 30.0,
                         'truth/total': 40.0}})
    lines = table.splitlines()
    assert lines[0].split() == ['score', 'test', 'shifted', 'test']
    assert lines[1].split() == ['total/CIDEr', '115.00', '80.25']
    assert ['color/CIDEr', '60.00', '-'] in [line.split() for line in lines]
    assert lines[-1].split() == ['total/true', '%', '59.50', '40.00']
    assert not any('Bleu_4' in line and 'color' in line for line in lines)
    assert not any('type' in line for line in lines)


@pytest.mark.parametrize('num_scenes', [None, 10])
def test_the_synthetic_set_of_the_adaptation_config(num_scenes):
    cfg = Config.fromfile(quickstart.ADAPT_CFG)
    kwargs = quickstart.synthetic_data_kwargs(cfg, num_scenes)
    assert kwargs == dict(num_scenes=num_scenes or 3000, seed=0,
                          image_size=(240, 160))
