"""mmidc.benchmarks.peer: open_clip's CLIP step, one tiny step."""
import pytest

from mmidc.benchmarks.peer import clip_train_step_time
from tests.helpers.rates import assert_rate

pytestmark = pytest.mark.usefixtures('one_thread')


def test_open_clip_peer_step():
    row = clip_train_step_time('ViT-B-32', batch_size=2, device='cpu',
                               dtype='fp32', steps=1)
    assert row['batch'] == 2
    assert_rate(row['pairs_per_s'], 2, row['step_s'])
