"""docs/new_dataset.md's table of epochs for a small data set matches the
tiny own-pairs configs' batch sizes and the quickstart's iterations."""
import math
import re

from mmengine.config import Config

from tests.helpers import REPO

CONFIG = 'projects/from_scratch/configs/clip4idc-{}_tiny_my-pairs.py'


def rows():
    text = (REPO / 'docs' / 'new_dataset.md').read_text()
    section = text.split('### Epochs for a small data set', 1)[1]
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip('|').split('|')]
        if len(cells) == 5 and re.fullmatch(r'[\d,]+', cells[0]):
            yield [int(re.match(r'[\d,]+', c).group().replace(',', ''))
                   for c in cells]


def test_table_follows_the_configs():
    batch = {stage: Config.fromfile(REPO / CONFIG.format(stage))
             .train_dataloader.batch_size for stage in ('adapt', 'caption')}
    default = {stage: Config.fromfile(REPO / CONFIG.format(stage))
               .train_cfg.max_epochs for stage in ('adapt', 'caption')}
    table = list(rows())
    assert len(table) == 5
    for pairs, a_iters, a_epochs, c_iters, c_epochs in table:
        assert a_iters == math.ceil(pairs / batch['adapt'])
        assert c_iters == math.ceil(pairs / batch['caption'])
        assert a_epochs == max(default['adapt'], math.ceil(150 / a_iters))
        assert c_epochs == max(default['caption'], math.ceil(1500 / c_iters))
