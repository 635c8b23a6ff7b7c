"""mmidc_lab.benchmarks.peer: open_clip's CLIP step, one tiny step."""
import pytest

from mmidc_lab.benchmarks.peer import clip_train_step_time
from tests.helpers.rates import assert_rate

pytestmark = pytest.mark.usefixtures('one_thread')


def test_open_clip_peer_step():
    # any open_clip model: mmidc's tiny CLIP instead of ViT-B-32 (seconds)
    from mmidc.models.open_clip import register_model_configs
    register_model_configs()
    row = clip_train_step_time('mmidc-tiny-clip', batch_size=2, device='cpu',
                               dtype='fp32', steps=1)
    assert row['batch'] == 2 and row['arch'] == 'open_clip mmidc-tiny-clip'
    assert_rate(row['pairs_per_s'], 2, row['step_s'])
