"""docs/distributed.md's tables follow the configs: each row's global batch
is GPUs x batch per GPU, the rows that keep the base batch keep the
configured rate, the auto_scale_lr rows scale it as MMEngine does, and
mmidc.runtime.global_batch stays quiet exactly on the rows that keep the
recipe."""
import re

import pytest
from mmengine.config import Config

import mmidc.runtime.global_batch as module
from tests.helpers import REPO


def sections():
    text = (REPO / 'docs' / 'distributed.md').read_text()
    for block in text.split('\n### ')[1:]:
        header, _, body = block.partition('\n')
        names = re.findall(r'`([^`]+\.py)`', header)
        rows = []
        for line in body.splitlines():
            cells = [c.strip() for c in line.strip().strip('|').split('|')]
            if len(cells) == 5 and cells[0].isdigit():
                rows.append(cells)
        yield names, rows


def config_path(name):
    (path, ) = [p for p in (REPO / 'configs').glob(f'*/{name}')]
    return path


SECTIONS = list(sections())
CASES = [(name, rows) for names, rows in SECTIONS for name in names]


PAPER_SETS = ('clevr-change', 'spot-the-diff', 'image-editing-request',
              'birds-to-words', 'my-pairs')


def test_every_paper_config_has_a_table():
    named = {name for name, _ in CASES}
    paper = {p.name for p in (REPO / 'configs').glob('*/*.py')
             if ('vit-b' in p.name or 'resnet101' in p.name)
             and p.stem.endswith(PAPER_SETS)}
    assert paper <= named, sorted(paper - named)


@pytest.mark.parametrize('name, rows', CASES, ids=[c[0] for c in CASES])
def test_table_rows(monkeypatch, name, rows):
    cfg = Config.fromfile(config_path(name))
    lr = cfg.optim_wrapper.optimizer.lr
    batch = cfg.train_dataloader.batch_size
    auto = cfg.get('auto_scale_lr') or {}
    base = auto.get('base_batch_size', batch)
    monkeypatch.setattr(module, 'print_log', lambda *a, **k: None)
    assert rows
    for gpus, per_gpu, total, rate, options in rows:
        gpus, per_gpu, total = int(gpus), int(per_gpu), int(total)
        rate = float(rate)
        assert gpus * per_gpu == total
        run = Config.fromfile(config_path(name))
        for option in re.findall(r'([\w.]+)=(\w+)', options):
            key, value = option
            run.merge_from_dict({key: eval(value)})
        assert run.train_dataloader.batch_size == per_gpu
        info = module.global_batch(run, gpus)
        assert info['global_batch'] == total
        if 'auto_scale_lr.enable=True' in options:
            assert info['scaled'] and info['base'] == base
            assert rate == pytest.approx(lr * total / base)
        else:
            assert options == 'none' or 'batch_size' in options
            assert total == base and rate == pytest.approx(lr)
        if options == 'none':
            assert per_gpu == batch
