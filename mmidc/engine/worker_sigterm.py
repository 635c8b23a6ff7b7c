"""Loader workers that ignore SIGTERM, and their kill at exit."""
import atexit
import multiprocessing
import multiprocessing.util  # noqa: F401  (its exit handler runs after ours)
import signal


class WorkerIgnoresSigterm:
    """A loader's ``worker_init_fn`` that first makes the worker ignore
    SIGTERM, then runs the loader's own one (MMEngine's seeding).

    ``scancel`` and Slurm's preemption signal every process of the job, the
    loader workers too; PyTorch's workers die of it, and their death ends
    the main process's iteration before it can save. The worker still ends
    when the main process stops it or dies (PyTorch's watchdog).

    Args:
        init_fn (callable, optional): The loader's ``worker_init_fn``.
    """

    def __init__(self, init_fn=None) -> None:
        self.init_fn = init_fn

    def __call__(self, worker_id: int) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        if self.init_fn is not None:
            self.init_fn(worker_id)


def is_loader_worker() -> bool:
    """Whether this process is a PyTorch loader worker (told by the target
    its ``multiprocessing`` process runs, known from its start)."""
    target = getattr(multiprocessing.current_process(), '_target', None)
    return getattr(target, '__module__', '') == 'torch.utils.data._utils.worker'


def _sigterm_ignored(pid: int) -> bool:
    try:
        with open(f'/proc/{pid}/status') as f:
            masks = [int(line.split()[1], 16) for line in f
                     if line.startswith('SigIgn:')]
    except OSError:
        return False
    return any(mask >> (signal.SIGTERM - 1) & 1 for mask in masks)


def kill_workers_ignoring_sigterm() -> None:
    """At exit, kill the loader workers still alive (a run that ended in an
    exception): they ignore the SIGTERM with which ``multiprocessing`` would
    end them before it joins them (for ever). ``Process._target`` cannot
    tell them: ``multiprocessing`` deletes it in the parent at start."""
    left = [child for child in multiprocessing.active_children()
            if child.daemon and _sigterm_ignored(child.pid)]
    if left:  # PyTorch's check of its workers would call the kill a failure
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    for child in left:
        child.kill()


_exit_cleanup = []


def workers_ignore_sigterm(loader) -> bool:
    """Make the workers that ``loader`` starts from now on ignore SIGTERM.

    Args:
        loader (DataLoader, optional): A built loader; one without workers
            or already wrapped is left as it is.

    Returns:
        bool: Whether its ``worker_init_fn`` was wrapped now.
    """
    if not getattr(loader, 'num_workers', 0) or \
            isinstance(loader.worker_init_fn, WorkerIgnoresSigterm):
        return False
    loader.worker_init_fn = WorkerIgnoresSigterm(loader.worker_init_fn)
    if not _exit_cleanup:  # runs before multiprocessing's own exit handler
        atexit.register(kill_workers_ignoring_sigterm)
        _exit_cleanup.append(True)
    return True
