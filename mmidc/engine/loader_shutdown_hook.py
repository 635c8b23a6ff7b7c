"""Stop the data loaders' worker processes when a run ends."""
from mmengine.hooks import Hook
from mmengine.runner import BaseLoop

from mmidc.registry import HOOKS


@HOOKS.register_module()
class LoaderShutdownHook(Hook):
    """Shut down the persistent workers of the run's data loaders at the end
    of ``runner.train()``, ``runner.val()`` and ``runner.test()``.

    A loader with ``persistent_workers=True`` keeps its worker processes
    until its iterator is collected, which for a finished run is at
    interpreter exit. PyTorch then skips its orderly shutdown (the workers
    are not told to stop) and, with pinned memory, joins each worker with a
    5-second timeout before killing it: a process with 15 workers took
    about 60-80 s to exit after its last iteration on a GPU machine. This
    hook shuts the workers down the orderly way while the run is still in
    Python's normal state, so the process exits in about a second, and the
    workers' memory is released as soon as the run ends (not only at exit:
    a notebook or a sweep that runs several runners in one process).

    Loops that were never built, and loaders without live workers, are left
    alone.
    """

    priority = 'LOWEST'  # after every other hook's after_run

    def after_run(self, runner) -> None:
        for name in ('_train_loop', '_val_loop', '_test_loop'):
            loop = getattr(runner, name, None)
            if isinstance(loop, BaseLoop):
                shutdown_workers(loop.dataloader)


def shutdown_workers(loader) -> bool:
    """Shut down ``loader``'s worker processes if it holds live ones.

    Args:
        loader: A :class:`torch.utils.data.DataLoader` (anything else is
            ignored).

    Returns:
        bool: Whether there were workers to shut down.
    """
    iterator = getattr(loader, '_iterator', None)
    stop = getattr(iterator, '_shutdown_workers', None)
    if stop is None:  # no iterator yet, or a single-process one
        return False
    stop()
    loader._iterator = None  # the next epoch (a later train()) starts afresh
    return True
