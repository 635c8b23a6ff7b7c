"""caption_pair on the CPU against the model alone, with the inference tests'
tiny captioner (docs/benchmark.md, "caption_pair on the CPU").

    python -m mmidc_lab.caption_pair_speed --size 32x32 --pairs 1024 \
        --batch 64 --workers 0 2 [--out-dir work_dirs/caption_pair_speed]

Writes ``--pairs`` pairs of noise PNGs of ``--size`` (``WxH``), the tiny
captioner's config and random weights, times the model alone on pre-batched
tensors (``uint8 [B, 2, 3, H, W]`` already resized: ``data_preprocessor`` +
``predict``, best of 3), then runs ``python -m mmidc.cli.caption_pair
--pairs-file`` twice per ``--workers`` value and reads the pairs/s it prints.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import torch
from PIL import Image


def write_pairs(folder: Path, size, count: int) -> Path:
    """``count`` noise PNG pairs of ``size`` (W, H) and their pairs.jsonl."""
    rng = np.random.default_rng(0)
    records = []
    for i in range(count):
        before = rng.integers(0, 256, (size[1], size[0], 3), np.uint8)
        after = before.copy()
        after[10:30, 10:30] = rng.integers(0, 256, 3)  # a changed square
        for name, image in ((f'{i}_a.png', before), (f'{i}_b.png', after)):
            Image.fromarray(image).save(folder / name)
        records.append(dict(img1=str(folder / f'{i}_a.png'),
                            img2=str(folder / f'{i}_b.png'), pair_id=str(i)))
    path = folder / 'pairs.jsonl'
    path.write_text('\n'.join(map(json.dumps, records)))
    return path


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--size', default='32x32')
    parser.add_argument('--pairs', type=int, default=1024)
    parser.add_argument('--batch', type=int, default=64)
    parser.add_argument('--workers', type=int, nargs='+', default=[0, 2])
    parser.add_argument('--out-dir', default='work_dirs/caption_pair_speed')
    args = parser.parse_args(argv)
    from mmengine.dataset import pseudo_collate

    from mmidc.apis import IDCInferencer
    from mmidc.apis.pair_sources import pairs_from_jsonl
    from mmidc.registry import MODELS
    from tests.helpers.tiny_models import captioner_cfg, save_checkpoint, write_config
    size = tuple(int(v) for v in args.size.split('x'))
    folder = Path(args.out_dir) / args.size
    folder.mkdir(parents=True, exist_ok=True)
    pairs_file = write_pairs(folder, size, args.pairs)
    torch.manual_seed(0)
    cfg = captioner_cfg()
    config = write_config(cfg, folder / 'captioner.py')
    checkpoint = save_checkpoint(MODELS.build(cfg['model']), folder / 'captioner.pth')
    inferencer = IDCInferencer(config, checkpoint, 'cpu')
    samples = [inferencer.prepare_pair(p.img1, p.img2, p.pair_id)
               for p in pairs_from_jsonl(str(pairs_file))]
    batches = [pseudo_collate(samples[i:i + args.batch])
               for i in range(0, len(samples), args.batch)]
    for batch in batches:
        batch['inputs'] = torch.stack(batch['inputs'])  # [B, 2, 3, H, W]

    def model_alone() -> float:
        start = time.perf_counter()
        with torch.no_grad():
            for batch in batches:
                data = inferencer.model.data_preprocessor(batch, False)
                inferencer.model.predict(data['inputs'], data['data_samples'])
        return time.perf_counter() - start

    model_alone()  # warm-up
    rate = args.pairs / min(model_alone() for _ in range(3))
    print(f'load {os.getloadavg()[0]:.2f}: model alone {rate:.1f} pairs/s '
          f'({torch.get_num_threads()} threads)', flush=True)
    for workers in args.workers:
        cmd = [sys.executable, '-m', 'mmidc.cli.caption_pair', config, checkpoint,
               '--pairs-file', str(pairs_file), '--out', str(folder / 'out.jsonl'),
               '--batch-size', str(args.batch), '--device', 'cpu',
               '--workers', str(workers)]
        rates = []
        for _ in range(2):
            out = subprocess.run(cmd, capture_output=True, text=True)
            found = re.search(r'\(([\d.]+) pairs/s\)', out.stdout)
            rates.append(float(found.group(1)) if found else out.stderr[-300:])
        print(f'load {os.getloadavg()[0]:.2f}: caption_pair --workers {workers}: '
              f'{rates} pairs/s', flush=True)


if __name__ == '__main__':
    main()
