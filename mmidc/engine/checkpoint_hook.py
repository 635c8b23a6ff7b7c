"""MMEngine's CheckpointHook, safe against a kill at any moment."""
import difflib
import inspect
import os
import os.path as osp
import re
import signal
import threading
import time
import zipfile
from typing import Dict, Optional

import torch
from mmengine.dist import all_reduce, barrier, get_world_size, is_main_process
from mmengine.hooks import CheckpointHook
from mmengine.logging import print_log
from mmengine.runner import BaseLoop, EpochBasedTrainLoop, IterBasedTrainLoop

from mmidc.registry import HOOKS
from .atomic_backend import AtomicLocalBackend, remove_stale_temp_files
from .loader_shutdown_hook import shutdown_workers
from .mid_epoch_resume import batches_done_in_epoch, raise_mid_epoch
from .resume_check import (check_resume_config, check_resume_weights,
                           checkpoint_meta)
from .worker_sigterm import is_loader_worker, workers_ignore_sigterm

# A SIGTERM this soon after the first is the same stop: scancel signals every
# process of the job, and torchrun (tools/dist_train.sh) or srun passes its own
# on to the ranks too.
SIGTERM_REPEAT_WINDOW = 5.0  # seconds

_OWN_OPTIONS = frozenset(
    inspect.signature(CheckpointHook.__init__).parameters) - {'self', 'kwargs'}


def _stop_loader_workers(runner) -> None:
    """Stop the run's loader workers the orderly way (they ignore SIGTERM)."""
    for loop in (runner._train_loop, runner._val_loop):
        shutdown_workers(getattr(loop, 'dataloader', None))
        infinite = getattr(loop, 'dataloader_iterator', None)  # iter-based
        stop = getattr(getattr(infinite, '_iterator', None),
                       '_shutdown_workers', None)
        if stop is not None:
            stop()


def _warn_started_unprotected() -> None:
    print_log(
        "the iteration-based loop started its loader's first workers when it "
        'was built, before they could be made to ignore SIGTERM: a SIGTERM '
        '(scancel, preemption) in that pass ends them and the run stops '
        "without saving. Build the runner with runner_type='mmidc.runtime."
        "idc_runner.IDCRunner' (the shipped configs' runner), which does it "
        'when it builds the loaders.', logger='current', level=30)


@HOOKS.register_module()
class SafeCheckpointHook(CheckpointHook):
    """:class:`~mmengine.hooks.CheckpointHook` that never leaves a run
    without its best checkpoint, takes the same options and writes the same
    files.

    The differences:

    * an unknown option (``intervl=1``) is a ``TypeError`` when the hook is
      built, not at the first save an epoch later;
    * the new best checkpoint is written *before* the previous one is
      removed (the stock hook removes first: a kill in between leaves none);
    * the ``last_checkpoint`` pointer is written atomically (temporary file
      and rename);
    * when a run starts, the temporary files of a save that a kill
      interrupted are removed from the work dir;
    * a resume in the middle of an epoch that nothing starts at the epoch's
      next batch (no :class:`~mmidc.engine.EpochReseedHook`) is refused;
    * on resume, every setting that differs from the checkpoint's config is
      logged, and a change that breaks the schedule is refused unless
      ``resume_allow_changes=True``
      (:func:`~mmidc.engine.resume_check.check_resume_config`);
    * on resume, the run validates once before training on when the
      checkpoint records no validation of its step or the best checkpoint
      it names is missing (the resumed model then becomes the best one);
      best checkpoints a kill left behind are removed, another work dir's
      never (its score is kept to beat); a run resumed at its end logs
      that nothing is left to train;
    * on SIGTERM (``scancel``, Slurm's preemption), the run writes
      ``iter_<n>.pth`` at the end of the (training or validation) iteration
      in progress, points ``last_checkpoint`` at it and exits with status
      143; ``--resume`` goes on at the next batch. A second SIGTERM (5 s or
      more after the first) ends the process at once. The ranks agree on
      the stop (one small all-reduce an iteration); the loader workers
      ignore SIGTERM (:mod:`~mmidc.engine.worker_sigterm`). In full:
      docs/distributed.md, "Resuming, preemption and requeue".

    Args:
        save_on_sigterm (bool): Save and stop at SIGTERM as above.
            Defaults to True.
        **kwargs: The options of :class:`~mmengine.hooks.CheckpointHook`.
    """

    def __init__(self, save_on_sigterm: bool = True, **kwargs) -> None:
        self.save_on_sigterm = save_on_sigterm
        self._sigterm = False
        self._sigterm_at = 0.0
        self._old_handler = None
        self._pid = None
        unknown = sorted(set(kwargs) - _OWN_OPTIONS)
        if unknown:
            close = difflib.get_close_matches(unknown[0], sorted(_OWN_OPTIONS),
                                              n=1)
            hint = f'; did you mean {close[0]!r}?' if close else ''
            raise TypeError(
                f'checkpoint hook: unknown option(s) {unknown} '
                f'(default_hooks.checkpoint){hint} Options: '
                f"{sorted(_OWN_OPTIONS | {'save_on_sigterm'})}")
        super().__init__(**kwargs)

    # --- best checkpoints -------------------------------------------------
    def _best_paths(self) -> Dict[str, Optional[str]]:
        if len(self.key_indicators) == 1:
            return {self.key_indicators[0]: self.best_ckpt_path}
        return {k: self.best_ckpt_path_dict.get(k)
                for k in self.key_indicators}

    def _set_best_paths(self, paths: Dict[str, Optional[str]]) -> None:
        if len(self.key_indicators) == 1:
            self.best_ckpt_path = paths[self.key_indicators[0]]
        else:
            self.best_ckpt_path_dict.update(paths)

    def _best_info_keys(self, key: str):
        """The message hub keys of ``key``'s best score and path."""
        if len(self.key_indicators) == 1:
            return 'best_score', 'best_ckpt'
        return f'best_score_{key}', f'best_ckpt_{key}'

    def _remove(self, path: str) -> None:
        if self.file_backend.isfile(path):
            self.file_backend.remove(path)
        elif self.file_backend.isdir(path):
            self.file_backend.rmtree(path)

    def _save_best_checkpoint(self, runner, metrics) -> None:
        if not self.save_best or 'auto' in self.key_indicators:
            return super()._save_best_checkpoint(runner, metrics)
        old = self._best_paths()
        # Hidden from the stock method, which would remove them first.
        self._set_best_paths(dict.fromkeys(old))
        try:
            super()._save_best_checkpoint(runner, metrics)
        except BaseException:
            self._set_best_paths(old)
            raise
        new = self._best_paths()
        for key, path in old.items():
            if new[key] is None:  # not improved
                new[key] = path
            elif path and path != new[key] and is_main_process():
                self._remove(path)
                runner.logger.info(
                    f'The previous best checkpoint {path} is removed')
        self._set_best_paths(new)

    # --- the last_checkpoint pointer ---------------------------------------
    def _save_checkpoint_with_step(self, runner, step, meta):
        """The stock method (MMEngine 0.10), the pointer written atomically."""
        if self.max_keep_ckpts > 0 and not (self.keep_ckpt_ids
                                            and self.keep_ckpt_ids[-1] == step):
            if len(self.keep_ckpt_ids) == self.max_keep_ckpts:
                old_step = self.keep_ckpt_ids.popleft()
                if is_main_process():
                    self._remove(self.file_backend.join_path(
                        self.out_dir, self.filename_tmpl.format(old_step)))
            self.keep_ckpt_ids.append(step)
            runner.message_hub.update_info('keep_ckpt_ids',
                                           list(self.keep_ckpt_ids))
        ckpt_filename = self.filename_tmpl.format(step)
        self.last_ckpt = self.file_backend.join_path(self.out_dir,
                                                     ckpt_filename)
        runner.message_hub.update_info('last_ckpt', self.last_ckpt)
        runner.save_checkpoint(
            self.out_dir,
            ckpt_filename,
            self.file_client_args,
            save_optimizer=self.save_optimizer,
            save_param_scheduler=self.save_param_scheduler,
            meta=meta,
            by_epoch=self.by_epoch,
            backend_args=self.backend_args,
            **self.args)
        if is_main_process():
            AtomicLocalBackend().put_text(
                str(self.last_ckpt), osp.join(runner.work_dir,
                                              'last_checkpoint'))
        self._remove_sigterm_checkpoints(runner)

    def _remove_sigterm_checkpoints(self, runner) -> None:
        """With ``max_keep_ckpts``, remove the ``iter_<n>.pth`` files that
        SIGTERMs wrote (by name, in this run's folder: a copied work dir's
        too), now that a newer checkpoint is saved."""
        stops = runner.message_hub.get_info('sigterm_ckpts', [])
        if self.max_keep_ckpts <= 0 or not stops:
            return
        for name in stops:
            path = self.file_backend.join_path(self.out_dir, name)
            if path != self.last_ckpt and is_main_process() and \
                    self.file_backend.isfile(path):
                self._remove(path)
                runner.logger.info(
                    f'{path}, written at a SIGTERM, is removed: {self.last_ckpt}'
                    f' is newer (max_keep_ckpts={self.max_keep_ckpts})')
        runner.message_hub.update_info('sigterm_ckpts', [])

    # --- SIGTERM: save at the next iteration boundary, then stop ------------
    def _on_sigterm(self, signum, frame) -> None:
        if os.getpid() != self._pid:
            # A process forked while the handler was set (a Pool worker of
            # the user's code): SIGTERM does there what it did before the run.
            if not is_loader_worker():  # those ignore it from their start
                signal.signal(signal.SIGTERM, self._old_handler)
                os.kill(os.getpid(), signal.SIGTERM)
            return
        if self._sigterm:
            if time.monotonic() - self._sigterm_at < SIGTERM_REPEAT_WINDOW:
                return  # the same stop twice: scancel, and torchrun or srun
            # a second SIGTERM: what it would have done
            self.restore_sigterm_handler()
            os.kill(os.getpid(), signal.SIGTERM)
            return
        self._sigterm = True  # acted on at the end of the iteration
        self._sigterm_at = time.monotonic()

    def before_run(self, runner) -> None:
        super().before_run(runner)
        if (self.save_on_sigterm and isinstance(runner._train_loop, BaseLoop)
                and threading.current_thread() is threading.main_thread()):
            self._sigterm = False
            self._pid = os.getpid()
            old = signal.signal(signal.SIGTERM, self._on_sigterm)
            owner = getattr(old, '__self__', None)
            if isinstance(owner, SafeCheckpointHook) and owner is not self:
                # a run of this process that ended in an exception left its
                # handler: the one before it is the original
                old = owner._old_handler
            # A plain Runner's loaders: their workers started from now on.
            for loop in (runner._train_loop, runner._val_loop):
                if workers_ignore_sigterm(getattr(
                        loop, 'dataloader', None)) and isinstance(
                            loop, IterBasedTrainLoop):
                    _warn_started_unprotected()
            # None: a handler not set from Python; the default stands for it
            self._old_handler = signal.SIG_DFL if old is None else old

    def restore_sigterm_handler(self) -> None:
        """Give SIGTERM back to the handler it had before the run (after
        training, and by ``IDCRunner`` when a run ends in an exception)."""
        if self._old_handler is not None:
            signal.signal(signal.SIGTERM, self._old_handler)
            self._old_handler = None

    def after_train(self, runner) -> None:
        self.restore_sigterm_handler()
        super().after_train(runner)

    def _stop_requested(self) -> bool:
        if self._old_handler is None:
            return False
        flag = self._sigterm
        if get_world_size() > 1:  # every rank stops at the same iteration
            agreed = torch.tensor([int(flag)])
            all_reduce(agreed, op='max')
            flag = bool(agreed.item())
        return flag

    def _save_and_stop(self, runner, epoch: int, iters: int,
                       where: str) -> None:
        name = f'iter_{iters}.pth'
        path = self.file_backend.join_path(self.out_dir, name)
        saved = self.last_ckpt is not None and osp.basename(
            str(self.last_ckpt)) == name and osp.isfile(path)
        if not saved:
            # named in the checkpoint: the resumed run removes it once it has
            # saved a newer one (max_keep_ckpts), as it does its own
            runner.message_hub.update_info('sigterm_ckpts', list(
                runner.message_hub.get_info('sigterm_ckpts', [])) + [name])
            runner.save_checkpoint(
                self.out_dir, name, save_optimizer=True,
                save_param_scheduler=True,
                meta=dict(epoch=epoch, iter=iters), by_epoch=False,
                backend_args=self.backend_args)
            self.last_ckpt = path
            runner.message_hub.update_info('last_ckpt', path)
            if is_main_process():
                AtomicLocalBackend().put_text(
                    str(path), osp.join(runner.work_dir, 'last_checkpoint'))
        runner.logger.warning(
            f'SIGTERM received {where}: {"wrote" if not saved else "kept"} '
            f'{path} (iteration {iters}); nothing '
            'trained is lost. Requeue the job with --resume to go on at the '
            'next batch.')
        self.restore_sigterm_handler()
        _stop_loader_workers(runner)
        if get_world_size() > 1:
            barrier()  # rank 0's file is complete before any rank leaves
        raise SystemExit(128 + signal.SIGTERM)

    def after_train_iter(self, runner, batch_idx: int, data_batch=None,
                         outputs=None) -> None:
        super().after_train_iter(runner, batch_idx, data_batch, outputs)
        if self._stop_requested():
            self._save_and_stop(runner, runner.epoch, runner.iter + 1,
                                'during training')

    def after_val_iter(self, runner, batch_idx: int, data_batch=None,
                       outputs=None) -> None:
        super().after_val_iter(runner, batch_idx, data_batch, outputs)
        if self._stop_requested():
            self._save_and_stop(runner, runner.epoch, runner.iter,
                                'during a validation (its scores are lost)')

    # --- start and resume ----------------------------------------------------
    def before_save_checkpoint(self, runner, checkpoint: dict) -> None:
        checkpoint.setdefault('meta', {}).update(checkpoint_meta(runner))

    def after_load_checkpoint(self, runner, checkpoint: dict) -> None:
        if getattr(runner, '_resume', False):
            check_resume_config(runner, checkpoint)
            check_resume_weights(runner, checkpoint)

    def before_train(self, runner) -> None:
        done = batches_done_in_epoch(runner)
        if done and getattr(runner.train_loop, 'mid_epoch_start',
                            None) != done:
            raise_mid_epoch(runner, done, 'the config has no EpochReseedHook '
                            "(custom_hooks = [dict(type='EpochReseedHook')]), "
                            'which starts the epoch at its first unseen batch')
        super().before_train(runner)
        if is_main_process():
            for folder in {str(self.out_dir), runner.work_dir}:
                remove_stale_temp_files(folder)
        finished = self._run_end(runner) if runner.iter > 0 else None
        if finished:
            runner.logger.info(f'resumed at the end of the run ({finished}): '
                               'nothing is left to train')
        if runner.iter > 0 and self.save_best:
            self._check_best_after_resume(runner, finished=bool(finished))

    @staticmethod
    def _run_end(runner) -> Optional[str]:
        """Where the run ends, when the resumed step is its end, else None."""
        loop = runner.train_loop
        if (isinstance(loop, EpochBasedTrainLoop)
                and runner.epoch >= loop.max_epochs):
            return (f'epoch {runner.epoch} of train_cfg.max_epochs='
                    f'{loop.max_epochs}')
        if (isinstance(loop, IterBasedTrainLoop)
                and runner.iter >= loop.max_iters):
            return (f'iteration {runner.iter} of train_cfg.max_iters='
                    f'{loop.max_iters}')
        return None

    def after_val_epoch(self, runner, metrics) -> None:
        # Saved with the checkpoint when the best one changes: a resumed run
        # then knows this validation counted.
        runner.message_hub.update_info('validated_step', self._step(runner))
        super().after_val_epoch(runner, metrics)

    def _step(self, runner) -> int:
        return runner.epoch if self.by_epoch else runner.iter

    def _validation_due(self, runner) -> bool:
        """Whether the train loop validates at the resumed step."""
        loop = runner.train_loop
        if runner.val_loop is None or not hasattr(loop, 'val_interval'):
            return False
        step = self._step(runner)
        by_epoch = isinstance(loop, EpochBasedTrainLoop)
        if by_epoch != self.by_epoch:
            return False
        last = loop.max_epochs if by_epoch else loop.max_iters
        return step >= loop.val_begin and (step % loop.val_interval == 0
                                           or step == last)

    def _best_files(self, key: str) -> Dict[str, int]:
        """Best checkpoints of ``key`` in the out dir, with their steps."""
        prefix = f'best_{key}_'.replace('/', '_')
        pattern = re.compile(
            re.escape(prefix + self.filename_tmpl).replace(r'\{\}', r'(\d+)')
            + '$')
        folder = str(self.out_dir)
        names = os.listdir(folder) if osp.isdir(folder) else []
        return {osp.join(folder, m.string): int(m.group(1))
                for m in map(pattern.match, names) if m}

    def _check_best_after_resume(self, runner, finished: bool = False) -> None:
        hub = runner.message_hub
        step = self._step(runner)
        revalidate = (self._validation_due(runner)
                      and hub.runtime_info.get('validated_step') != step)
        for key, path in self._best_paths().items():
            if not path:
                continue
            here = osp.join(str(self.out_dir), osp.basename(path))
            if path != here and osp.exists(here):  # the work dir was moved
                self._set_best_paths({key: here})
                hub.update_info(self._best_info_keys(key)[1], here)
            elif osp.exists(path) and not _is_inside(path, str(self.out_dir)):
                # Resumed from another work dir's checkpoint: its best file
                # is that run's; this run keeps its score to beat and writes
                # its own best checkpoint, never removing the other's.
                self._set_best_paths({key: None})
                hub.runtime_info.pop(self._best_info_keys(key)[1], None)
                runner.logger.info(
                    f'The best checkpoint {path} named by the resumed '
                    f'checkpoint is in another folder: it is left as it is; '
                    f'this run writes its own best checkpoint to '
                    f'{self.out_dir} when it beats that score.')
            elif not osp.exists(path):
                score_key, _ = self._best_info_keys(key)
                runner.logger.warning(
                    f'The best checkpoint {path} named by the resumed '
                    'checkpoint is missing: validating the resumed model, '
                    'which becomes the best one.')
                hub.runtime_info.pop(score_key, None)
                revalidate = runner.val_loop is not None
        if revalidate:
            unit = 'epoch' if self.by_epoch else 'iter'
            runner.logger.info(f'Validating the resumed model ({unit} {step})'
                               + ('.' if finished else ' before training on.'))
            # The stock hook re-saves the step's checkpoint when the best one
            # changes, once it knows the checkpoint of this run.
            self.last_ckpt = hub.runtime_info.get('last_ckpt')
            runner.val_loop.run()
        if not is_main_process():
            return
        for key, path in self._best_paths().items():
            if not path:
                continue
            for stale, stale_step in self._best_files(key).items():
                if (osp.basename(stale) != osp.basename(path)
                        and stale_step <= step):
                    self._remove(stale)
                    runner.logger.info(
                        f'removed {stale}, a best checkpoint superseded by '
                        f'{path} (left by an interrupted run)')


def _is_inside(path: str, folder: str) -> bool:
    """Whether ``path`` lies in ``folder`` (links resolved)."""
    folder = osp.realpath(folder)
    return osp.commonpath([osp.realpath(path), folder]) == folder


def _valid_checkpoint(path: str) -> bool:
    """A file ``torch.save`` completed (a zip archive with its directory)."""
    return osp.isfile(path) and zipfile.is_zipfile(path)


def _inside_work_dir(named: str, work_dir: str) -> str:
    """The checkpoint a pointer names, in ``work_dir``: a relative name is
    taken from there, and so is an absolute one outside it (a copied or
    moved work dir names the original's files: resume from the copy's)."""
    if not osp.isabs(named):
        return osp.join(work_dir, named)
    if _is_inside(named, work_dir):
        return named
    here = osp.join(work_dir, osp.basename(named))
    print_log(f'{osp.join(work_dir, "last_checkpoint")} names {named}, '
              f'outside the work dir {work_dir} (a copied or moved work '
              f'dir): resuming from {here}, never from another work dir',
              logger='current', level=30)
    return here


def _trained_iters(path: str) -> int:
    """The iterations a complete checkpoint was saved after (its
    ``meta['iter']``): ``epoch_<n>.pth`` counts epochs and ``iter_<n>.pth``
    iterations, so their names do not order them. The file is mapped, not
    read: only its small pickled part is."""
    try:
        ckpt = torch.load(path, map_location='cpu', mmap=True,
                          weights_only=True)
        meta = ckpt.get('meta')
        return int(meta.get('iter', -1)) if isinstance(meta, dict) else -1
    except Exception:  # noqa: BLE001  (unreadable: never the newest)
        return -1


def find_resume_checkpoint(work_dir: str) -> Optional[str]:
    """The checkpoint ``--resume`` (without a path) continues from.

    The one ``work_dir/last_checkpoint`` names, taken from ``work_dir`` when
    the pointer names a file outside it (a copied or moved work dir: the
    file of the same name in ``work_dir``, with a warning); when that file
    is empty, or names a missing or incomplete checkpoint, the newest
    complete ``epoch_*.pth`` / ``iter_*.pth`` in ``work_dir``, the one saved
    after the most training iterations (with a warning).

    Args:
        work_dir (str): The run's work dir.

    Returns:
        str | None: The checkpoint, or None when ``work_dir`` holds no
        pointer and no checkpoint (the run starts from scratch).

    Raises:
        FileNotFoundError: The pointer exists but neither it nor the work
            dir gives a complete checkpoint; the message names both.
    """
    pointer = osp.join(work_dir, 'last_checkpoint')
    named = None
    if osp.isfile(pointer):
        with open(pointer) as f:
            named = f.read().strip()
        if named:
            named = _inside_work_dir(named, work_dir)
        if named and _valid_checkpoint(named):
            return named
    candidates = []
    if osp.isdir(work_dir):
        for name in os.listdir(work_dir):
            match = re.fullmatch(r'(epoch|iter)_(\d+)\.pth', name)
            path = osp.join(work_dir, name)
            if match and _valid_checkpoint(path):
                # meta's iterations first; a tie (no meta): the name's number
                candidates.append(
                    (_trained_iters(path), int(match.group(2)), path))
    if named is None and not candidates:
        return None
    problem = (f'{pointer} names {named!r}, which is missing or incomplete'
               if named else f'{pointer} is empty'
               if named is not None else f'{pointer} is missing')
    if not candidates:
        raise FileNotFoundError(
            f'cannot resume: {problem}, and {work_dir} holds no complete '
            'epoch_*.pth or iter_*.pth checkpoint. Pass the checkpoint with '
            '--resume PATH, or start again without --resume.')
    newest = max(candidates)[-1]
    print_log(f'{problem}: resuming from the newest complete checkpoint '
              f'{newest}', logger='current', level=30)
    return newest
