"""The stages of a pipeline: a command of mmidc (``python -m
mmidc.cli.train`` / ``python -m mmidc.cli.test``), run once.

A stage runs in its own work dir and leaves a ``DONE`` marker when it
finishes, so that a pipeline run again skips it (an interrupted training
stage resumes from its last checkpoint instead). Its command runs in a
subprocess in the current directory (a clone's root: the configs' data and
the work dirs are relative to it), its output appended to a log file or
shown as it comes; its wall and CPU time are measured.
"""
import glob
import json
import os
import os.path as osp
import resource
import subprocess
import sys
import time
from typing import Dict, Optional, Sequence, Tuple

from mmengine.logging import print_log

from . import ExperimentError
from .run_configs import compose_test_config, model_settings

__all__ = ['banner', 'run_command', 'stage_done', 'train_stage', 'test_stage',
           'load_test_results', 'timed_stage', 'ensure_dataset',
           'build_image_cache', 'loadavg']


def banner(text: str) -> None:
    """Log the start of a stage, as a ruled line."""
    print_log(f'=== {text} ' + '=' * max(0, 70 - len(text)), logger='current')


def loadavg() -> list:
    """The 1, 5 and 15 minute load averages, as ``/proc/loadavg`` has them
    (strings)."""
    with open('/proc/loadavg') as f:
        return f.read().split()[:3]


def run_command(cmd: Sequence[str], log: Optional[str] = None,
                threads: Optional[int] = None,
                cwd: Optional[str] = None) -> Tuple[float, float]:
    """Run ``cmd`` in ``cwd``.

    Args:
        cmd (Sequence[str]): The command.
        log (str, optional): Append its output to this file instead of
            showing it.
        threads (int, optional): ``OMP_NUM_THREADS`` / ``MKL_NUM_THREADS``
            of the process.
        cwd (str, optional): Where it runs (default: here).

    Returns:
        tuple[float, float]: Wall seconds and CPU seconds (user + system) of
        the process and its children.

    Raises:
        ExperimentError: It failed.
    """
    print_log('$ ' + ' '.join(cmd) + (f'  (output: {log})' if log else ''),
              logger='current')
    env = None if threads is None else dict(
        os.environ, OMP_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.time()
    if log is None:
        result = subprocess.run(cmd, cwd=cwd, env=env)
    else:
        os.makedirs(osp.dirname(osp.abspath(log)), exist_ok=True)
        with open(log, 'a') as f:
            result = subprocess.run(cmd, cwd=cwd, env=env, stdout=f,
                                    stderr=subprocess.STDOUT)
    wall = time.time() - start
    if result.returncode:
        raise ExperimentError(
            f'command failed (exit {result.returncode}); ' +
            (f'its output: {log}' if log else f'the command: {" ".join(cmd)}'))
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def stage_done(work_dir: str) -> bool:
    """Whether a stage in ``work_dir`` finished (its ``DONE`` marker)."""
    return osp.isfile(osp.join(work_dir, 'DONE'))


def train_stage(name: str, config: str, work_dir: str,
                extra: Sequence[str] = (), options: Sequence[str] = (),
                log: Optional[str] = None) -> None:
    """Train ``config`` in ``work_dir`` with ``python -m mmidc.cli.train``;
    skipped when done, resumed when interrupted. ``DONE`` holds its wall
    time.

    Args:
        name (str): The stage's name (its banner).
        config (str): The config.
        work_dir (str): Its work dir.
        extra (Sequence[str]): More arguments of the training command.
        options (Sequence[str]): ``KEY=VALUE`` overrides of the config.
        log (str, optional): The output file (default: shown).

    Raises:
        ExperimentError: ``work_dir`` holds a finished run of another config,
            or of other model settings.
    """
    banner(name)
    if stage_done(work_dir):
        dumped = osp.join(work_dir, osp.basename(config))
        if not osp.isfile(dumped):
            raise ExperimentError(
                f'{work_dir} holds a finished run of another config than '
                f'{config}: choose another --work-dir')
        if model_settings(dumped) != model_settings(config, options):
            raise ExperimentError(
                f'{work_dir} holds a finished run of an earlier version of '
                f'{config} (its model settings differ): choose another '
                '--work-dir, or delete it to train again')
        print_log(f'already done ({work_dir}/DONE): skipped', logger='current')
        return
    cmd = [sys.executable, '-m', 'mmidc.cli.train', config, '--work-dir',
           work_dir, *extra]
    if options:
        cmd += ['--cfg-options', *options]
    if osp.isfile(osp.join(work_dir, 'last_checkpoint')):
        print_log('found an interrupted run: resuming it', logger='current')
        cmd.append('--resume')
    wall, _ = run_command(cmd, log)
    with open(osp.join(work_dir, 'DONE'), 'w') as f:
        f.write(f'{wall:.0f} s\n')


def test_stage(name: str, config: str, options: Sequence[str],
               checkpoint: str, work_dir: str,
               dataset_config: Optional[str] = None, truth: bool = True,
               log: Optional[str] = None) -> tuple:
    """Score ``checkpoint`` on a test split with ``python -m
    mmidc.cli.test`` (the config of :func:`.run_configs.compose_test_config`);
    skipped when done for that checkpoint (``DONE`` names it).

    Returns:
        tuple: ``(scores, records, predictions_file)``; no records (None)
        without a predictions file (a retrieval test).
    """
    banner(name)
    done = osp.join(work_dir, 'DONE')
    if osp.isfile(done) and open(done).read().strip() == checkpoint:
        print_log(f'already done for {checkpoint} ({done}): skipped',
                  logger='current')
    else:
        composed = compose_test_config(config, options, work_dir,
                                       dataset_config, truth)
        run_command([sys.executable, '-m', 'mmidc.cli.test', composed,
                     checkpoint, '--work-dir', work_dir], log)
        with open(done, 'w') as f:
            f.write(checkpoint + '\n')
    return load_test_results(work_dir)


def load_test_results(test_dir: str) -> tuple:
    """``(scores, records, predictions file)`` of a finished test run."""
    with open(osp.join(test_dir, 'test_scores.json')) as f:
        scores = json.load(f)
    found = sorted(glob.glob(osp.join(test_dir, 'predictions*.json')),
                   key=osp.getmtime)
    if not found:
        return scores, None, None
    with open(found[-1]) as f:
        records = json.load(f)
    return scores, records, found[-1]


def timed_stage(name: str, work_dir: str, cmd: Sequence[str],
                threads: Optional[int], record: Dict) -> None:
    """Run one stage unless its ``DONE`` marker exists; ``record[name]``
    gets its wall and CPU seconds and the load averages before and after,
    which ``DONE`` keeps (JSON), so that a skipped stage reports its times.
    """
    done = osp.join(work_dir, 'DONE')
    if osp.isfile(done):
        with open(done) as f:
            record[name] = json.load(f)
        print_log(f'[{name}] done before: {work_dir}', logger='current')
        return
    load_before = loadavg()
    wall, cpu = run_command(cmd, threads=threads)
    record[name] = dict(wall_s=round(wall, 1), cpu_s=round(cpu, 1),
                        loadavg_before=load_before, loadavg_after=loadavg())
    with open(done, 'w') as f:
        json.dump(record[name], f)


def ensure_dataset(root: str, generate_kwargs: dict, size: Sequence[int],
                   splits: Sequence[str], workers: int) -> None:
    """Generate a synthetic set under ``root`` if absent, write its training
    split's caption vocabulary if absent, then build (or check) its
    pre-resized cache of ``splits`` at ``size`` (H, W)."""
    if osp.isfile(osp.join(root, 'splits.json')):
        print_log(f'{root} exists: kept', logger='current')
    else:
        from mmidc.synthetic import generate_dataset
        generate_dataset(root, workers=workers, **generate_kwargs)
    if 'train' in splits:  # the captioners' vocabulary (the generator writes it)
        from mmidc.datasets import ensure_vocab_file
        ensure_vocab_file(dict(type='CLEVRChangeDataset', data_root=root))
    build_image_cache(root, splits, size, workers)


def build_image_cache(root: str, splits: Sequence[str], size: Sequence[int],
                      workers: int) -> None:
    """Build (or check: current shards are kept) the pre-resized image cache
    of ``splits`` of the CLEVR-Change-style set at ``root``, at ``size``
    (H, W) in ``<root>/cache_<H>x<W>`` (what ``build_resized_cache.py
    --dataset-type CLEVRChangeDataset`` builds)."""
    from mmengine.registry import init_default_scope

    import mmidc  # noqa: F401  (registers the data sets)
    from mmidc.datasets import build_pair_image_cache, default_cache_dir
    from mmidc.runtime.loader_setup import dataset_image_paths
    init_default_scope('mmidc')
    for split in splits:
        paths, data_root = dataset_image_paths(
            dict(type='CLEVRChangeDataset', data_root=root, split=split))
        cache_dir = default_cache_dir(data_root, size)
        start = time.time()
        index = build_pair_image_cache(paths, data_root, cache_dir, size,
                                       split, workers)
        print_log(f'{split}: {len(set(paths))} images ready in '
                  f'{time.time() - start:.1f} s -> {index}', logger='current')
