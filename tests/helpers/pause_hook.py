"""A hook that parks a training run mid-epoch, for tests that need a run
alive at a known point (a second run on its work dir, a ``kill -9``)."""
import time

from mmengine.hooks import Hook

from mmidc.registry import HOOKS


@HOOKS.register_module(force=True)
class PauseAtIterHook(Hook):
    """Before training iteration ``iteration`` (``runner.iter``, from 0),
    write ``marker`` and sleep ``seconds`` (the test kills the run).

    Args:
        iteration (int): The iteration to stop before.
        marker (str): A file written when the run is parked.
        seconds (float): How long to stay parked. Defaults to 120.
    """

    def __init__(self, iteration: int, marker: str, seconds: float = 120.):
        self.iteration = iteration
        self.marker = marker
        self.seconds = seconds

    def before_train_iter(self, runner, batch_idx, data_batch=None) -> None:
        if runner.iter == self.iteration:
            with open(self.marker, 'w') as f:
                f.write(str(runner.iter))
            time.sleep(self.seconds)
