"""Log how long ``torch.compile`` took in a training run."""
import statistics
import time

from mmengine.hooks import Hook
from mmengine.logging import print_log

from mmidc.registry import HOOKS


@HOOKS.register_module()
class CompileTimerHook(Hook):
    """Time the first training iterations of a compiled run.

    The first iteration of a ``torch.compile``-d training step traces and
    compiles it. After ``num_iters`` iterations this hook logs the first
    iteration's time, the median of the later ones, and their difference:
    the compilation time (recompilations, e.g. for a smaller last batch,
    come on top).

    Args:
        num_iters (int): Iterations to time. Defaults to 20.
    """

    priority = 'VERY_LOW'

    def __init__(self, num_iters: int = 20):
        self.num_iters = max(3, num_iters)
        self.times = []
        self._start = None
        self.compile_s = None

    def before_train_iter(self, runner, batch_idx, data_batch=None) -> None:
        if len(self.times) < self.num_iters:
            self._start = time.perf_counter()

    def after_train_iter(self, runner, batch_idx, data_batch=None,
                         outputs=None) -> None:
        if self._start is None or len(self.times) >= self.num_iters:
            return
        self.times.append(time.perf_counter() - self._start)
        self._start = None
        if len(self.times) == self.num_iters:
            self.report()

    def after_train(self, runner) -> None:
        if self.compile_s is None and len(self.times) >= 2:
            self.report()  # a run shorter than num_iters

    def report(self) -> None:
        steady = statistics.median(self.times[1:])
        self.compile_s = self.times[0] - steady
        print_log(f'torch.compile: first iteration {self.times[0]:.1f} s, '
                  f'median of the next {len(self.times) - 1} {steady:.3f} s: '
                  f'compilation took about {self.compile_s:.1f} s',
                  logger='current')
