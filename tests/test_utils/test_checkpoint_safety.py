import io
import os

import pytest
import torch
from mmengine.logging import HistoryBuffer, MessageHub

import mmidc.utils  # noqa: F401  (registers the allow-list)


def _roundtrip(obj):
    buf = io.BytesIO()
    torch.save(obj, buf)
    buf.seek(0)
    return torch.load(buf, weights_only=True)


def test_message_hub_state_loads_with_weights_only():
    hub = MessageHub.get_instance('test_checkpoint_safety')
    for i in range(5):
        hub.update_scalar('train/loss', 1.0 / (i + 1))
    hub.update_info('epoch', 3)
    state = _roundtrip({'message_hub': hub.state_dict(), 'w': torch.ones(2)})
    buf = state['message_hub']['log_scalars']['train/loss']
    assert isinstance(buf, HistoryBuffer)
    assert buf.current() == pytest.approx(0.2)
    assert buf.mean() == pytest.approx(sum(1 / (i + 1) for i in range(5)) / 5)


class _ReachesOtherAttribute:
    """Pickles as getattr(HistoryBuffer, '__init__'): not a statistic."""

    def __reduce__(self):
        return getattr, (HistoryBuffer, '__init__')


class _RunsCommand:

    def __reduce__(self):
        return os.system, ('echo should-not-run',)


@pytest.mark.parametrize('payload', [_ReachesOtherAttribute(), _RunsCommand()])
def test_arbitrary_pickles_still_refused(payload):
    with pytest.raises(Exception, match='(?i)refusing getattr|unsupported|blocked'):
        _roundtrip({'x': payload})
