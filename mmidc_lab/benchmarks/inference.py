"""Batch captioning: the captioning command (``python -m
mmidc.cli.caption_pair --pairs-file``, which ``tools/caption_pair.py`` runs)
against the model's own batched decoding rate on the same pairs and batch
size."""
import json
import os
import os.path as osp
import re
import subprocess
import sys
import time
from typing import Dict, Optional

import torch

from .measure import load_average, synchronize


def write_pairs_file(data_root: str, out_file: str, num_pairs: int,
                     splits=('test', 'val', 'train')) -> int:
    """A ``--pairs-file`` of ``num_pairs`` pairs of a CLEVR-Change-style set
    (absolute image paths); returns how many it holds."""
    import mmidc  # noqa: F401
    from mmidc.datasets import CLEVRChangeDataset
    with open(osp.join(data_root, 'splits.json')) as f:
        sizes = {k: len(v) for k, v in json.load(f).items()}
    records = []
    for split in [s for s in splits if sizes.get(s)]:
        dataset = CLEVRChangeDataset(data_root=data_root, split=split, pipeline=[])
        for i in range(len(dataset)):
            info = dataset.get_data_info(i)
            records.append(dict(pair_id=f'{split}/{info["pair_id"]}',
                                img1=osp.abspath(info['img1_path']),
                                img2=osp.abspath(info['img2_path'])))
            if len(records) == num_pairs:
                break
        if len(records) == num_pairs:
            break
    os.makedirs(osp.dirname(osp.abspath(out_file)), exist_ok=True)
    with open(out_file, 'w') as f:
        f.writelines(json.dumps(r) + '\n' for r in records)
    return len(records)


def random_captioner_checkpoint(config: str, data_root: str, out_file: str) -> str:
    """Save a randomly initialised captioner of ``config`` (its caption
    vocabulary read from ``data_root``) as a checkpoint the CLI loads."""
    from mmengine.config import Config
    from mmengine.registry import init_default_scope

    from mmidc.registry import MODELS
    from .e2e import _rewrite
    init_default_scope('mmidc')
    cfg = Config.fromfile(config)
    from mmidc.utils.config_placeholders import fill_placeholders
    fill_placeholders(cfg)  # '{data_root}/...', '{vocab_file}'
    cfg = cfg.to_dict()
    _rewrite(cfg, osp.abspath(data_root), osp.dirname(osp.abspath(out_file)))
    torch.manual_seed(0)
    model = MODELS.build(cfg['model'])
    torch.save(dict(meta=dict(note='random weights (benchmark)'),
                    state_dict=model.state_dict()), out_file)
    return out_file


def model_rate(config: str, checkpoint: str, pairs_file: str, batch_size: int,
               device: str, repeats: int = 1) -> Dict:
    """Pairs/s of the model's own batched decoding: ``IDCInferencer``'s
    ``forward`` and ``postprocess`` (resizing and normalising on the device,
    encoders, greedy decoding, detokenising) on batches already decoded into
    memory (``preprocess`` without workers); and the
    milliseconds per pair of decoding and preparing the images in one
    thread (``prepare_ms``) and of the model (``model_ms``)."""
    from mmidc.apis import IDCInferencer
    from mmidc.apis.pair_sources import pairs_from_jsonl
    inferencer = IDCInferencer(config, checkpoint, device)
    pairs = pairs_from_jsonl(pairs_file)
    probe = pairs[:64]
    start = time.perf_counter()
    for p in probe:
        inferencer.prepare_pair(p.img1, p.img2, p.pair_id)
    prepare_ms = (time.perf_counter() - start) / len(probe) * 1e3
    batches = list(inferencer.preprocess([(p.img1, p.img2) for p in pairs],
                                         batch_size, workers=0))
    inferencer.postprocess(inferencer.forward(batches[0]))  # warm-up
    synchronize(device)
    best = None
    for _ in range(repeats):
        start = time.perf_counter()
        for batch in batches:
            inferencer.postprocess(inferencer.forward(batch))
        synchronize(device)
        seconds = time.perf_counter() - start
        best = seconds if best is None else min(best, seconds)
    return dict(pairs=len(pairs), seconds=round(best, 3),
                pairs_per_s=round(len(pairs) / best, 1),
                prepare_ms=round(prepare_ms, 2),
                model_ms=round(best / len(pairs) * 1e3, 2), load=load_average())


def cli_rate(config: str, checkpoint: str, pairs_file: str, batch_size: int,
             device: str, out_file: str, workers: Optional[int] = None,
             threads: Optional[int] = None, worker_type: str = 'auto') -> Dict:
    """Pairs/s that ``python -m mmidc.cli.caption_pair --pairs-file``
    reports for its captioning loop (decoding the PNGs, the model, writing
    JSONL; model loading excluded), run as a user runs it."""
    cmd = [sys.executable, '-m', 'mmidc.cli.caption_pair', config, checkpoint,
           '--pairs-file', pairs_file, '--out', out_file,
           '--batch-size', str(batch_size), '--device', device]
    if workers is not None:
        cmd += ['--workers', str(workers)]
    cmd += ['--worker-type', worker_type]
    env = dict(os.environ)
    if threads:
        env.update(OMP_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads))
    start = time.perf_counter()
    result = subprocess.run(cmd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if result.returncode != 0:
        raise RuntimeError(f'{" ".join(cmd)} failed:\n{result.stderr[-3000:]}')
    match = re.search(r'captioned in ([\d.]+) s \(([\d.]+) pairs/s\)', result.stdout)
    if match is None:
        raise RuntimeError(f'no timing in the output of {" ".join(cmd)}:\n'
                           f'{result.stdout[-2000:]}')
    return dict(seconds=float(match.group(1)), pairs_per_s=float(match.group(2)),
                wall_s=round(wall, 1), load=load_average(),
                command=' '.join(['python'] + [_below_here(c) for c in cmd[1:]]))


def _below_here(arg: str) -> str:
    """A path argument relative to the working directory where it lies
    below it (for the record); any other argument as it is."""
    if not osp.isabs(arg):
        return arg
    relative = osp.relpath(osp.realpath(arg))
    return arg if relative.startswith('..') else relative
