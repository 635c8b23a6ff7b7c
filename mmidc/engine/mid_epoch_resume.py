"""Resume an epoch-based run in the middle of an epoch: start the epoch at
its first unseen batch, or refuse with the reason (never replay batches).

MMEngine's ``EpochBasedTrainLoop`` runs the resumed epoch from its first
batch: a checkpoint written after ``k`` batches would train them again and
run ``k`` iterations past the schedule. :class:`EpochReseedHook` uses these
helpers to skip them; :class:`SafeCheckpointHook` refuses a mid-epoch
resume that nothing skips.
"""
import types

from mmengine.runner import EpochBasedTrainLoop

from .resume_check import ResumeRefusedError


def batches_done_in_epoch(runner) -> int:
    """The batches of the resumed epoch trained before the checkpoint.

    Args:
        runner (Runner): A runner whose checkpoint is loaded.

    Returns:
        int: 0 for an iteration-based loop or a run at an epoch's start.

    Raises:
        ResumeRefusedError: The checkpoint's iteration lies beyond the resumed
            epoch (the loader has fewer batches per epoch than the run that
            wrote it: another batch size or data set).
    """
    loop = runner.train_loop
    if not isinstance(loop, EpochBasedTrainLoop):
        return 0
    per_epoch = len(loop.dataloader)
    done = runner.iter - runner.epoch * per_epoch
    if done <= 0:
        return 0
    if done > per_epoch:
        raise ResumeRefusedError(
            f'cannot resume: the checkpoint was written at iteration '
            f'{runner.iter}, in epoch {runner.epoch + 1}, but epoch '
            f'{runner.epoch + 1} of this run ends at iteration '
            f'{(runner.epoch + 1) * per_epoch} ({per_epoch} batches an '
            'epoch): the batch size or the training data set differ from '
            "the checkpoint's run")
    return done


def raise_mid_epoch(runner, done: int, reason: str) -> None:
    """Refuse a resume in the middle of an epoch, with ``reason``.

    Args:
        runner (Runner): The resumed runner.
        done (int): Batches of the epoch trained before the checkpoint.
        reason (str): Why the epoch cannot start at its next batch.

    Raises:
        ResumeRefusedError: Always.
    """
    raise ResumeRefusedError(
        f'cannot resume in the middle of epoch {runner.epoch + 1} (the '
        f'checkpoint was written after {done} of its '
        f'{len(runner.train_loop.dataloader)} batches): {reason}, so the '
        'epoch would start again at its first batch and train those '
        f'{done} batches twice. Resume from an epoch checkpoint '
        '(epoch_*.pth) with --resume PATH instead.')


def start_epoch_at(loop: EpochBasedTrainLoop, start: int) -> None:
    """Make the loop's next epoch count its batches from ``start``.

    The loader must leave out the first ``start`` batches (see
    :meth:`~mmidc.datasets.samplers.SampleSeedSampler.start_epoch`); the hooks
    see the batch indices of the uninterrupted run (``batch_idx`` from
    ``start``: the logger's ``[k/n]`` and its end-of-epoch line). Later
    epochs run MMEngine's own ``run_epoch``.

    Args:
        loop (EpochBasedTrainLoop): MMEngine's loop (a subclass that
            overrides ``run_epoch`` is refused).
        start (int): The batches of the epoch already trained.

    Raises:
        ResumeRefusedError: The loop's class has its own ``run_epoch``.
    """
    if type(loop).run_epoch is not EpochBasedTrainLoop.run_epoch:
        raise_mid_epoch(loop.runner, start, f'the train loop '
                        f'{type(loop).__name__} has its own run_epoch')

    def run_epoch(self) -> None:
        # MMEngine 0.10's EpochBasedTrainLoop.run_epoch, counting from start.
        del self.run_epoch  # the next epochs: the class's method
        self.runner.call_hook('before_train_epoch')
        self.runner.model.train()
        for idx, data_batch in enumerate(self.dataloader, start):
            self.run_iter(idx, data_batch)
        self.runner.call_hook('after_train_epoch')
        self._epoch += 1

    loop.run_epoch = types.MethodType(run_epoch, loop)
    loop.mid_epoch_start = start
