"""docs/model_zoo.md has a row for every shipped config (``configs/`` and
``projects/*/configs``), with the schedule the config has, and
model-index.yml links the page: a new config, or a changed schedule, without
its zoo row fails here."""
import re
from functools import lru_cache
from pathlib import Path

import pytest
import yaml
from mmengine.config import Config

from tests.helpers import CONFIG_FILES, REPO

ZOO = REPO / 'docs' / 'model_zoo.md'
CONFIG_LINK = re.compile(r'\]\(([^)\s#]+\.py)\)')


def zoo_rows(page: Path) -> dict:
    """``{config path: {column header: cell}}``: the first table row of
    ``page`` that links each config file (later rows may name it again)."""
    rows, header = {}, None
    for line in page.read_text().splitlines():
        if not line.startswith('|'):
            header = None
            continue
        cells = [cell.strip() for cell in line.strip().strip('|').split('|')]
        if header is None:
            header = cells
            continue
        if set(line) <= set('|-: '):  # the separator row
            continue
        for target in CONFIG_LINK.findall(line):
            path = (page.parent / target).resolve()
            rows.setdefault(path, dict(zip(header, cells)))
    return rows


@lru_cache(maxsize=1)
def shipped_rows() -> dict:
    return zoo_rows(ZOO)


def schedule(cfg: Config) -> str:
    """How the zoo writes a config's schedule: ``12 ep × 128`` or
    ``250,000 it × 200`` (the batch per process)."""
    train_cfg = cfg.train_cfg
    batch = cfg.train_dataloader.batch_size
    if 'max_iters' in train_cfg:
        return f'{train_cfg.max_iters:,} it × {batch}'
    return f'{train_cfg.max_epochs} ep × {batch}'


@pytest.mark.parametrize('config', CONFIG_FILES,
                         ids=lambda p: str(p.relative_to(REPO)))
def test_every_config_has_a_zoo_row_with_its_schedule(config):
    name = config.relative_to(REPO)
    rows = shipped_rows()
    listed = config.resolve() in rows
    assert listed, (
        f'{name} has no row in docs/model_zoo.md: add one (data set, stage, '
        f'weights, schedule, expected time and memory, the paper\'s figure)')
    row = rows[config.resolve()]
    assert 'schedule' in row, f'{name}: its zoo row is in a table without a schedule column'
    expected = schedule(Config.fromfile(str(config)))
    assert row['schedule'] == expected, (
        f'{name}: docs/model_zoo.md says {row["schedule"]!r}, the config '
        f'{expected!r}; update the row and its times')


def test_model_index_links_the_zoo():
    index = yaml.safe_load((REPO / 'model-index.yml').read_text())
    docs = (index.get('Library') or {}).get('Docs')
    assert docs, 'model-index.yml: no Library.Docs entry'
    assert (REPO / docs).resolve() == ZOO.resolve(), docs


def test_model_index_loads_with_the_link():
    modelindex = pytest.importorskip('modelindex')
    index = modelindex.load(str(REPO / 'model-index.yml'))
    assert index.library.docs == 'docs/model_zoo.md'
    assert len(index.models) > 0


def test_the_row_reader_finds_each_config_once_with_its_columns(tmp_path):
    (tmp_path / 'docs').mkdir()
    page = tmp_path / 'docs' / 'zoo.md'
    page.write_text(
        '| config | schedule |\n|---|---|\n'
        '| [a](../configs/x/a.py) | 12 ep × 128 |\n'
        'text between tables\n\n'
        '| config | time |\n|---|---|\n'
        '| [a again](../configs/x/a.py) | 5 min |\n'
        '| [b](../configs/x/b.py) | 1 h |\n'
        '`[c](../configs/x/c.py)` outside a table\n')
    rows = zoo_rows(page)
    assert rows == {
        (tmp_path / 'configs/x/a.py').resolve(): {'config': '[a](../configs/x/a.py)',
                                                  'schedule': '12 ep × 128'},
        (tmp_path / 'configs/x/b.py').resolve(): {'config': '[b](../configs/x/b.py)',
                                                  'time': '1 h'}}


def test_the_schedule_is_written_as_the_zoo_writes_it():
    epochs = Config(dict(train_cfg=dict(by_epoch=True, max_epochs=12),
                         train_dataloader=dict(batch_size=128)))
    iters = Config(dict(train_cfg=dict(type='IterBasedTrainLoop', max_iters=250000),
                        train_dataloader=dict(batch_size=200)))
    assert schedule(epochs) == '12 ep × 128'
    assert schedule(iters) == '250,000 it × 200'
