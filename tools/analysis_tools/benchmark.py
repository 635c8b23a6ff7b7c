"""Speed benchmark: where the time of training, decoding, loading and scoring goes.

One run measures, on this machine and against its own measured limits:

- the dense matmul peak (fp32, bf16) in GFLOP/s, at the start and the end
  (the best of the two is the peak: the machine may be shared);
- training-step throughput (pairs/s) of the adaptation and captioning stages
  for ViT-B/32 at 224 px and the tiny CPU config, fp32 and bf16 autocast, on
  synthetic tensors (loading excluded); FLOPs per step counted with
  ``FlopCounterMode`` and the model FLOP utilisation (MFU) against the peak
  of the same dtype; the top operators of a profiled step; step variants
  (fused optimizer, ``torch.compile``);
- open_clip's own CLIP training step, as a peer for the MFU (``peer``);
- loader throughput per core from 480x320 PNGs vs the pre-resized cache;
- ``tools/train.py`` end to end on the real configs over a generated
  480x320 set (``e2e``): pairs/s, the share of an iteration spent waiting
  for data, and the overhead against the step on synthetic tensors;
- captions/s at batch 1 and 64, KV-cached decoding vs the reference-style
  loop, and ``tools/caption_pair.py --pairs-file`` against the model's own
  batched decoding rate (``cli``);
- the caption head's step with the full 49,408-way softmax vs a restricted
  vocabulary (``vocab_speed.py``);
- with ``--eval``: seconds to score 8,000 pairs (coco-caption, per type).

Prints markdown tables and writes JSON (with the load average beside every
figure: the machine may be shared)::

    python tools/analysis_tools/benchmark.py --out work_dirs/benchmark/bench.json
    python tools/analysis_tools/benchmark.py --quick   # tiny config, seconds
    # every GPU row of docs/benchmark.md, written into it:
    python tools/analysis_tools/benchmark.py --gpu-rows --write-docs docs/benchmark.md
    # the CPU rows of docs/benchmark.md (loader per core, overhead, CLI):
    python tools/analysis_tools/benchmark.py --cpu-rows --write-docs docs/benchmark.md
"""
import argparse
import copy
import importlib.util
import json
import os
import os.path as osp
import random
import sys
import time
from functools import lru_cache
from types import SimpleNamespace

import torch

HERE = osp.dirname(osp.abspath(__file__))


def _import_sibling(name: str):
    """Import a module or package next to this file by its path (so that
    this tool works however it is loaded, with no ``sys.path`` edit)."""
    if name in sys.modules:
        return sys.modules[name]
    path = osp.join(HERE, name)
    if osp.isdir(path):
        spec = importlib.util.spec_from_file_location(
            name, osp.join(path, '__init__.py'), submodule_search_locations=[path])
    else:
        spec = importlib.util.spec_from_file_location(name, path + '.py')
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


loader_speed = _import_sibling('loader_speed')
vocab_speed = _import_sibling('vocab_speed')
_import_sibling('benchmark_lib')
from benchmark_lib import e2e, inference, peer, report  # noqa: E402
from benchmark_lib.measure import (count_flops, fraction, load_average,  # noqa: E402
                                   machine_info, matmul_peak, time_call, top_ops)
from benchmark_lib.workloads import (build_benchmark_model, build_optim_wrapper,  # noqa: E402
                                     decode_timed, disable_dropout, input_size,
                                     normalised_inputs, synthetic_batch)

from mmidc.text import CaptionVocab, build_caption_vocab  # noqa: E402

ROOT = osp.dirname(osp.dirname(HERE))
MODELS_DIR = osp.join(ROOT, 'configs', '_base_', 'models')
STAGES = ('adaptation', 'captioning')
ARCHS = {
    'vit-b32': dict(adaptation='clip4idc-retriever_vit-b32.py',
                    captioning='clip4idc-captioner_vit-b32.py', batch=8),
    'tiny': dict(adaptation='clip4idc-retriever_tiny.py',
                 captioning='clip4idc-captioner_tiny.py', batch=64),
}
# What tools/train.py runs end to end (e2e) and tools/caption_pair.py loads (cli).
TRAIN_CONFIGS = {
    'vit-b32': dict(adaptation='configs/clip4idc/clip4idc-adapt_vit-b32_clevr-change.py',
                    captioning='configs/clip4idc/clip4idc-caption_vit-b32_clevr-change.py'),
    'tiny': dict(
        adaptation='configs/from_scratch/clip4idc-adapt_tiny_synthetic-clevr-change.py',
        captioning='configs/from_scratch/clip4idc-caption_tiny_synthetic-clevr-change.py'),
}
SECTIONS = ('train', 'profile', 'variants', 'peer', 'loader', 'e2e', 'inference',
            'cli', 'vocab')
VARIANTS = ('fused', 'no-dropout', 'compile', 'compile+fused')
# One command per machine kind for docs/benchmark.md.
PRESETS = {
    'gpu_rows': dict(device='cuda', archs=['vit-b32'], dtypes=['bf16'],
                     batch=dict(adaptation=128, captioning=64), steps=10,
                     sections=['train', 'profile', 'peer', 'e2e', 'cli', 'variants',
                               'inference'],
                     variants=['fused', 'compile+fused'], num_scenes=2000,
                     cli_pairs=3000, cli_batch=256, peak_size=8192, e2e_iters=60,
                     e2e_log_interval=10),
    'cpu_rows': dict(device='cpu', archs=['tiny'], dtypes=['fp32'],
                     batch=dict(adaptation=16, captioning=16), steps=5,
                     sections=['train', 'loader', 'e2e', 'cli'], variants=[],
                     num_scenes=200, cli_pairs=120, cli_batch=64, peak_size=2048,
                     e2e_iters=30, e2e_log_interval=5, loader_archs=['vit-b32', 'tiny'],
                     e2e_batch=dict(adaptation=16, captioning=16)),
}


def parse_batch(values) -> dict:
    """``--batch 128`` (both stages) or ``--batch adaptation=128 captioning=64``."""
    out = {}
    for value in values or []:
        stage, _, number = value.rpartition('=')
        stages = [stage] if stage else list(STAGES)
        if any(s not in STAGES for s in stages) or not number.isdigit():
            raise argparse.ArgumentTypeError(
                f'--batch {value!r}: give N or STAGE=N with STAGE in {STAGES}')
        out.update({s: int(number) for s in stages})
    return out


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--quick', action='store_true',
                        help='tiny config only, small batches, one step each')
    parser.add_argument('--gpu-rows', action='store_true',
                        help='the GPU rows of docs/benchmark.md: ViT-B/32 steps '
                        '(bf16, batch 128 / 64, fused and compiled variants), '
                        "open_clip's CLIP step, tools/train.py end to end (PNG "
                        'and cache), caption_pair.py vs batched decoding')
    parser.add_argument('--cpu-rows', action='store_true',
                        help='the CPU rows of docs/benchmark.md: loader per core, '
                        'tiny configs end to end at batch 16, caption_pair.py vs '
                        'batched decoding')
    parser.add_argument('--out', default='work_dirs/benchmark/bench.json')
    parser.add_argument('--write-docs', metavar='MD',
                        help='write the tables of this run into the generated '
                        'section of this markdown file (docs/benchmark.md)')
    parser.add_argument('--docs-section', default=None,
                        help='name of the generated section --write-docs fills '
                        '(default: gpu / cpu; another name for a run that adds '
                        'rows to an earlier one)')
    parser.add_argument('--device', default=None, choices=['cpu', 'cuda'])
    parser.add_argument('--threads', type=int, default=None,
                        help='torch intra-op threads (default: all cores)')
    parser.add_argument('--archs', nargs='+', choices=sorted(ARCHS),
                        help='default: vit-b32 tiny (--quick: tiny)')
    parser.add_argument('--dtypes', nargs='+', default=None,
                        choices=['fp32', 'bf16'])
    parser.add_argument('--batch', nargs='+', metavar='[STAGE=]N',
                        help='training batch of the step rows, per stage: '
                        'adaptation=128 captioning=64 (default: vit-b32 8, tiny 64)')
    parser.add_argument('--stages', nargs='+', choices=STAGES, default=list(STAGES),
                        help='stages of the e2e rows (default: both)')
    parser.add_argument('--e2e-batch', nargs='+', metavar='[STAGE=]N',
                        help="batch of the end-to-end runs (default: the config's)")
    parser.add_argument('--steps', type=int, default=None,
                        help='timed training steps (default 2; --quick 1)')
    parser.add_argument('--sections', nargs='+', choices=SECTIONS,
                        help='what to measure (default: train profile variants '
                        'loader inference vocab)')
    parser.add_argument('--skip', nargs='+', default=[], choices=SECTIONS)
    parser.add_argument('--variants', nargs='+', choices=VARIANTS,
                        help='step variants (default: fused no-dropout)')
    parser.add_argument('--data-dir', default='work_dirs/benchmark/synthetic',
                        help='generated synthetic set, reused when present')
    parser.add_argument('--num-scenes', type=int, default=None,
                        help='scenes to generate (default 64; --quick 4)')
    parser.add_argument('--image-size', default=None,
                        help='WxH of the generated images (default 480x320, '
                        'CLEVR-Change; --quick 96x64)')
    parser.add_argument('--checkpoint', help='captioner checkpoint for the cli '
                        'section (default: random weights)')
    parser.add_argument('--cli-pairs', type=int, default=None)
    parser.add_argument('--cli-batch', type=int, default=None)
    parser.add_argument('--decode-steps', type=int, default=31,
                        help="decoding steps after <sot> (31: the paper's 32 tokens)")
    parser.add_argument('--eval', action='store_true',
                        help='also time scoring 8,000 pairs (minutes; needs Java)')
    args = parser.parse_args(argv)
    if args.gpu_rows and args.cpu_rows:
        parser.error('--gpu-rows and --cpu-rows are two runs (two machines)')
    preset = PRESETS['gpu_rows' if args.gpu_rows else 'cpu_rows'] \
        if (args.gpu_rows or args.cpu_rows) else {}
    args.device = args.device or preset.get('device', 'cpu')
    args.archs = args.archs or preset.get('archs') or (
        ['tiny'] if args.quick else ['vit-b32', 'tiny'])
    args.dtypes = args.dtypes or preset.get('dtypes') or ['fp32', 'bf16']
    args.steps = args.steps or preset.get('steps') or (1 if args.quick else 2)
    args.num_scenes = args.num_scenes or preset.get('num_scenes') or (4 if args.quick else 64)
    args.image_size = args.image_size or ('96x64' if args.quick else '480x320')
    args.variants = args.variants if args.variants is not None else preset.get(
        'variants', ['fused', 'no-dropout'])
    sections = args.sections or preset.get('sections') or [
        'train', 'profile', 'variants', 'loader', 'inference', 'vocab']
    args.sections = [s for s in sections if s not in args.skip]
    try:
        args.batch = dict(preset.get('batch', {}), **parse_batch(args.batch))
        args.e2e_batch = dict(preset.get('e2e_batch', {}), **parse_batch(args.e2e_batch))
    except argparse.ArgumentTypeError as err:
        parser.error(str(err))
    args.cli_pairs = args.cli_pairs or preset.get('cli_pairs') or (8 if args.quick else 120)
    args.cli_batch = args.cli_batch or preset.get('cli_batch') or (4 if args.quick else 64)
    args.peak_size = 512 if args.quick else preset.get('peak_size', 2048)
    args.loader_archs = preset.get('loader_archs', args.archs)
    args.e2e_iters = 12 if args.quick else preset.get('e2e_iters', 60)
    args.e2e_log_interval = 2 if args.quick else preset.get('e2e_log_interval', 10)
    args.preset = 'gpu' if args.gpu_rows else 'cpu' if args.cpu_rows else None
    if args.device == 'cuda' and not torch.cuda.is_available():
        parser.error('--device cuda: no CUDA device visible')
    return args


def batch_size(args, arch: str, stage: str) -> int:
    if args.quick:
        return 2
    return args.batch.get(stage, ARCHS[arch]['batch'])


def log(message: str) -> None:
    print(f'[{time.strftime("%H:%M:%S")} load {load_average():.1f}] {message}',
          flush=True)


@lru_cache(maxsize=1)
def _clevr_vocab() -> CaptionVocab:
    return build_caption_vocab(vocab_speed.clevr_like_captions())


def restricted_vocab() -> CaptionVocab:
    """The CLEVR-Change caption vocabulary (what the tiny configs train on)."""
    return copy.deepcopy(_clevr_vocab())  # tokenising 10k captions: build once


def build(arch: str, stage: str, device: str):
    vocab = restricted_vocab() if (arch == 'tiny' and stage == 'captioning') else None
    config = osp.join(MODELS_DIR, ARCHS[arch][stage])
    return build_benchmark_model(config, vocab=vocab).to(device)


# ----------------------------------------------------------------- sections
def measure_peaks(args, label: str) -> dict:
    size = args.peak_size
    peaks = {}
    for dtype in args.dtypes:
        peaks[dtype] = matmul_peak(dtype, size=size, repeats=3 if args.quick else 5,
                                   device=args.device)
        peaks[dtype]['when'] = label
        log(f'matmul peak {dtype} ({label}): {peaks[dtype]["gflops"]} GFLOP/s ({size}^3)')
    return peaks


def best_peaks(*measurements) -> dict:
    """Per dtype, the highest of several peak measurements (the machine may be
    shared: the least disturbed measurement is the closest to its limit)."""
    best = {}
    for peaks in measurements:
        for dtype, peak in peaks.items():
            for key in ('gflops', 'cpu_time_gflops'):
                best.setdefault(dtype, {})[key] = max(best.get(dtype, {}).get(key, 0),
                                                      peak[key])
    return best


def add_mfu(rows: list, peaks: dict) -> None:
    """Model FLOP utilisation of each step row against the peak of its dtype:
    wall-clock (``mfu``) and, where measured, process CPU time
    (``mfu_cpu_time``)."""
    for row in rows:
        peak = peaks.get(row['dtype'])
        if not peak or 'achieved_gflops' not in row:
            continue
        row['peak_gflops'] = peak['gflops']
        row['mfu'] = fraction(row['achieved_gflops'], peak['gflops'])
        if 'achieved_cpu_time_gflops' in row:
            row['mfu_cpu_time'] = fraction(row['achieved_cpu_time_gflops'],
                                           peak['cpu_time_gflops'])


def flash_attention_check(model, batch, wrapper) -> str:
    """Whether the step runs with only the flash SDPA kernel allowed (CUDA):
    'yes', or the first line of why not."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    try:
        with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
            model.train_step(batch, wrapper)
        return 'yes'
    except RuntimeError as err:
        return 'no: ' + str(err).strip().splitlines()[0][:120]


def measure_training(args) -> tuple:
    """Synthetic-tensor training steps, FLOPs, MFU and profiles."""
    rows, profiles = [], {}
    for arch in args.archs:
        for stage in STAGES:
            batch_n = batch_size(args, arch, stage)
            model = build(arch, stage, args.device).train()
            batch = device_batch(synthetic_batch(model, batch_n), args.device)
            flops = count_flops(lambda: model.train_step(
                batch, build_optim_wrapper(model, 'fp32', clip_grad=clips(arch))))
            flops_by_op = {k: round(v / 1e9, 2) for k, v in flops['by_op'].items()}
            for dtype in args.dtypes:
                wrapper = build_optim_wrapper(model, dtype, clip_grad=clips(arch))
                timing = time_call(lambda: model.train_step(batch, wrapper),
                                   steps=args.steps, warmup=1, device=args.device)
                achieved = flops['total'] / timing['wall_s'] / 1e9
                row = dict(
                    arch=arch, stage=stage, dtype=dtype, batch=batch_n,
                    step_s=round(timing['wall_s'], 4),
                    pairs_per_s=round(batch_n / timing['wall_s'], 2),
                    gflop_per_step=round(flops['total'] / 1e9, 1),
                    achieved_gflops=round(achieved, 1),
                    load=timing['load'], gflop_by_op=flops_by_op)
                if args.device == 'cpu':
                    cpu_busy = timing['cpu_s'] / torch.get_num_threads()
                    row['achieved_cpu_time_gflops'] = round(
                        flops['total'] / cpu_busy / 1e9, 1)
                else:
                    row['flash_attention'] = flash_attention_check(model, batch, wrapper)
                rows.append(row)
                log(f'train {arch} {stage} {dtype} batch {batch_n}: '
                    f'{row["pairs_per_s"]} pairs/s, {row["achieved_gflops"]} GFLOP/s')
                if ('profile' in args.sections and arch == args.archs[0]
                        and dtype == args.dtypes[0]):
                    key = f'{arch}/{stage}/{dtype}'
                    profiles[key] = dict(load=load_average(), ops=top_ops(
                        lambda: model.train_step(batch, wrapper), device=args.device))
            del model
    return rows, profiles


def clips(arch: str) -> bool:
    """Gradient clipping as the arch's configs: the tiny ones clip (max norm
    1), the paper's ViT-B ones do not."""
    return arch == 'tiny'


def device_batch(batch: dict, device: str) -> dict:
    """The synthetic batch with its pairs stacked on ``device`` (a step on
    tensors already there: loading and transfers excluded)."""
    batch = dict(batch)
    batch['inputs'] = torch.stack(batch['inputs']).to(device)
    return batch


def measure_variants(args, train_rows) -> list:
    """The step of the first arch and dtype with PyTorch's fused optimizer
    kernel, dropout switched off (to price it; not a recommendation) and
    ``torch.compile`` (its compilation time apart) -- harness-side only, no
    model code changed."""
    arch, dtype, rows = args.archs[0], args.dtypes[0], []
    for stage in STAGES:
        batch_n = batch_size(args, arch, stage)
        base = next((r for r in train_rows if (r['arch'], r['stage'], r['dtype'])
                     == (arch, stage, dtype)), None)
        for name in ['baseline'] + list(args.variants):
            if name == 'no-dropout' and stage == 'adaptation':
                continue  # CLIP's towers have no dropout
            model = build(arch, stage, args.device).train()
            batch = device_batch(synthetic_batch(model, batch_n), args.device)
            if name == 'no-dropout':
                disable_dropout(model)
            wrapper = build_optim_wrapper(model, dtype, fused='fused' in name,
                                          clip_grad=clips(arch))
            step = model.train_step
            row = dict(arch=arch, stage=stage, dtype=dtype, batch=batch_n, variant=name)
            if 'compile' in name:
                from torch._dynamo.utils import counters
                torch._dynamo.reset()
                counters.clear()
                step = torch.compile(step)
                start = time.perf_counter()
                step(batch, wrapper)
                if args.device == 'cuda':
                    torch.cuda.synchronize()
                row['first_call_s'] = round(time.perf_counter() - start, 2)
            # compiled: 3 more calls absorb recompilations (changing counters)
            timing = time_call(lambda: step(batch, wrapper), steps=args.steps,
                               warmup=3 if 'compile' in name else 1, device=args.device)
            if 'compile' in name:
                row['graphs'] = counters['stats'].get('unique_graphs', 0)
                row['graph_breaks'] = sum(counters['graph_break'].values())
            row.update(step_s=round(timing['wall_s'], 4), cpu_s=round(timing['cpu_s'], 3),
                       pairs_per_s=round(batch_n / timing['wall_s'], 2),
                       load=timing['load'])
            if 'compile' in name:
                row['compile_s'] = round(row['first_call_s'] - row['step_s'], 1)
            if base is not None:
                row['gflop_per_step'] = base['gflop_per_step']
                row['achieved_gflops'] = round(
                    base['gflop_per_step'] / timing['wall_s'], 1)
            rows.append(row)
            log(f'variant {arch} {stage} {name}: {row["step_s"]} s/step')
            del model, wrapper, step
    return rows


def measure_peer(args) -> list:
    """open_clip's own CLIP training step (ViT-B-32, 256 images), bf16."""
    batch_n = 8 if args.quick else 256
    row = peer.clip_train_step_time('ViT-B-32', batch_n, args.device,
                                    dtype=args.dtypes[-1], steps=args.steps)
    log(f'open_clip CLIP step: {row["step_s"]} s at batch {batch_n}')
    return [row]


def prepare_data(args) -> str:
    from mmidc.synthetic import generate_dataset
    from mmidc.text import ensure_vocab_file
    if not osp.isfile(osp.join(args.data_dir, 'splits.json')):
        width, height = (int(v) for v in args.image_size.split('x'))
        log(f'generating {args.num_scenes} synthetic scenes ({width}x{height}) '
            f'in {args.data_dir}')
        generate_dataset(args.data_dir, args.num_scenes, image_size=(width, height),
                         workers=os.cpu_count() or 1, overwrite=True,
                         progress=False)
    ensure_vocab_file(dict(type='CLEVRChangeDataset', data_root=args.data_dir))
    return args.data_dir


def loader_args(data_root: str, size) -> SimpleNamespace:
    return SimpleNamespace(dataset_type='CLEVRChangeDataset', data_root=data_root,
                           split='train', size=list(size), num_pairs=None)


def build_loader_dataset(data_root: str, size, cached: bool):
    from mmidc.datasets import build_pair_image_cache, default_cache_dir
    ns = loader_args(data_root, size)
    if not cached:
        return loader_speed.build_dataset(ns)
    cache_dir = default_cache_dir(data_root, size)
    if not osp.isfile(osp.join(cache_dir, 'train.json')):
        dataset = loader_speed.build_dataset(ns)
        paths = [dataset.get_data_info(i)[k] for i in range(len(dataset))
                 for k in ('img1_path', 'img2_path')]
        build_pair_image_cache(paths, data_root, cache_dir, size, 'train',
                               workers=os.cpu_count() or 1)
    return loader_speed.build_dataset(ns, cache_dir)


def measure_loading(args, data_root) -> list:
    """Loader pairs/s (and per core) from the PNGs vs the cache, at each
    arch's input size; the pairs of the generated set, at least 6 batches."""
    rows = []
    workers_list = [0, 1, 2] if args.device == 'cpu' else [0, os.cpu_count() or 1]
    # one intra-op thread, as in a loader worker: the tensor packing of the
    # main-process rows (0 workers) otherwise spin-waits on a busy machine
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        _measure_loading(args, data_root, rows, workers_list)
    finally:
        torch.set_num_threads(threads)
    return rows


def _measure_loading(args, data_root, rows, workers_list) -> None:
    for arch in args.loader_archs:
        size = input_size(build(arch, 'adaptation', 'cpu'))
        batch_n = args.batch.get('adaptation', 2 if args.quick else ARCHS[arch]['batch'])
        for source in ('png', 'cache'):
            dataset = build_loader_dataset(data_root, size, source == 'cache')
            repeats = -(-6 * batch_n // len(dataset))
            dataset = torch.utils.data.ConcatDataset([dataset] * repeats)
            for workers in workers_list:
                row = loader_speed.time_loader(dataset, workers, batch_n)
                cores = max(1, workers)
                rows.append(dict(arch=arch, image_size=args.image_size,
                                 size=f'{size[0]}x{size[1]}', source=source,
                                 batch=batch_n, load=load_average(), **row,
                                 steady_pairs_per_s_per_core=round(
                                     (row['steady_pairs_per_s'] or 0) / cores, 1)))
                log(f'loader {arch} {source} workers={workers}: '
                    f'{row["steady_pairs_per_s"]} pairs/s steady')


def measure_e2e(args, data_root) -> list:
    """tools/train.py on each arch's real configs, from the PNGs and from the
    cache (--image-cache), against the same config's step on synthetic
    tensors (the per-iteration overhead)."""
    rows = []
    amp = 'bf16' if (args.device == 'cuda' and 'bf16' in args.dtypes) else None
    options = ['--amp', amp] if amp else []
    # the subprocess gets the harness's intra-op threads: the same as its step
    threads = str(torch.get_num_threads())
    env = dict(OMP_NUM_THREADS=threads, MKL_NUM_THREADS=threads)
    if args.device == 'cpu':
        env['CUDA_VISIBLE_DEVICES'] = ''
    for arch in args.archs:
        for stage in args.stages:
            config = osp.join(ROOT, TRAIN_CONFIGS[arch][stage])
            batch_n = 4 if args.quick else args.e2e_batch.get(stage)
            work = osp.join(osp.dirname(args.out), 'e2e', f'{arch}_{stage}')
            from mmengine.config import Config
            step_batch = batch_n or Config.fromfile(config).train_dataloader.batch_size
            step = e2e.config_step_time(config, step_batch, args.device, data_root,
                                        work, steps=args.steps, amp=amp)
            for source, extra in (('png', []), ('cache', ['--image-cache'])):
                row = e2e.train_throughput(
                    config, data_root, f'{work}_{source}', options + extra,
                    batch_size=batch_n, min_iters=args.e2e_iters,
                    log_interval=args.e2e_log_interval, env=env)
                row.update(arch=arch, stage=stage, source=source,
                           step_pairs_per_s=step['pairs_per_s'], step_s=step['step_s'],
                           e2e_over_step=fraction(row['pairs_per_s'], step['pairs_per_s']),
                           overhead_share=round(1 - step['step_s'] / row['iter_s'], 3))
                rows.append(row)
                log(f'e2e {arch} {stage} {source}: {row["pairs_per_s"]} pairs/s, '
                    f'data {row["data_share"]} of the iteration, step alone '
                    f'{step["pairs_per_s"]} pairs/s')
    return rows


def measure_inference(args) -> list:
    rows = []
    for arch in args.archs:
        model = build(arch, 'captioning', args.device).eval()
        for batch_size in ((1, 4) if args.quick else (1, 64)):
            inputs = normalised_inputs(model, synthetic_batch(model, batch_size))
            repeats = 1 if (arch == 'vit-b32' and batch_size > 1) else 3
            cached = _best_of(lambda: decode_timed(model, inputs, args.decode_steps, True), repeats)
            # The reference-style loop re-runs both encoders at every step. Run
            # it in full where that is affordable; otherwise time its decoder
            # part in full and add steps x the measured encoder time.
            direct = arch != 'vit-b32' or batch_size == 1
            if direct:
                uncached = decode_timed(model, inputs, args.decode_steps, use_cache=False)
            else:
                uncached = _decoder_only_uncached(model, inputs, cached, args.decode_steps)
            rows.append(dict(
                arch=arch, batch=batch_size, tokens=args.decode_steps + 1,
                cached_s=round(cached['total_s'], 3),
                uncached_s=round(uncached['total_s'], 3),
                uncached_measured='direct' if direct else 'composed',
                captions_per_s_cached=round(batch_size / cached['total_s'], 2),
                captions_per_s_uncached=round(batch_size / uncached['total_s'], 3),
                speedup=round(uncached['total_s'] / cached['total_s'], 1),
                same_tokens=bool(torch.equal(cached['tokens'], uncached['tokens']))
                if direct else None,
                vision_share=fraction(cached['vision_s'], cached['total_s']),
                caption_encoder_share=fraction(cached['caption_encoder_s'], cached['total_s']),
                decoder_share=fraction(cached['decoder_s'], cached['total_s']),
                load=load_average()))
            log(f'inference {arch} batch {batch_size}: cached {rows[-1]["cached_s"]} s, '
                f'uncached {rows[-1]["uncached_s"]} s ({rows[-1]["uncached_measured"]})')
    return rows


def _best_of(fn, repeats: int) -> dict:
    runs = [fn() for _ in range(repeats)]
    return min(runs, key=lambda r: r['total_s'])


def _decoder_only_uncached(model, inputs, cached: dict, steps: int) -> dict:
    """Reference-style cost: the full-prefix decoder loop, measured, plus
    ``steps`` x the vision and caption-encoder times of ``cached``."""
    head = model.head
    with torch.no_grad():
        cross_kv = head.cross_kv(head.encode(model.extract_feat(inputs)))
        tokens = head.vocab.to_compact(torch.full((inputs.shape[0], 1), 49406,
                                                  device=inputs.device))
        decoder_start = time.perf_counter()
        for _ in range(steps):
            word = head._log_probs(head.decode_step(tokens, cross_kv)[:, -1]).argmax(-1)
            tokens = torch.cat([tokens, word[:, None]], dim=1)  # [B, t+2]
        decoder_s = time.perf_counter() - decoder_start
    encoders = cached['vision_s'] + cached['caption_encoder_s']
    return dict(tokens=tokens[:, 1:], decoder_s=decoder_s,
                total_s=steps * encoders + decoder_s)


def measure_vocab(args) -> dict:
    kwargs = dict(batch_size=4 if args.quick else 32,
                  memory_tokens=16 if args.quick else 100, caption_len=32,
                  hidden=128 if args.quick else 512, layers=1 if args.quick else 3,
                  steps=1 if args.quick else 3, warmup=0 if args.quick else 1,
                  device=args.device)
    result = {}
    for name, vocab in (('full', CaptionVocab()), ('restricted', restricted_vocab())):
        timing = vocab_speed.step_time(vocab, **kwargs)
        result[name] = dict(ids=len(vocab), step_s=round(timing['wall_s'], 4),
                            cpu_s=round(timing['cpu_s'], 4), load=load_average())
    result['speedup'] = round(result['full']['step_s'] / result['restricted']['step_s'], 2)
    result['setting'] = kwargs
    log(f'vocab: full {result["full"]["step_s"]} s, restricted '
        f'{result["restricted"]["step_s"]} s per head step')
    return result


def clevr_like_records(num_pairs: int = 8000, num_refs: int = 9, seed: int = 0):
    """Prediction records over CLEVR-Change-style captions, half no-change."""
    rng = random.Random(seed)
    captions = vocab_speed.clevr_like_captions()
    no_change = [c for c in captions if 'change' in c or 'same' in c]
    types = ['color', 'material', 'add', 'drop', 'move']
    records = []
    for i in range(num_pairs):
        pool = no_change if i % 2 else captions
        records.append(dict(pair_id=f'{i // 2:06d}.png' + ('_n' if i % 2 else ''),
                            change_type='none' if i % 2 else rng.choice(types),
                            prediction=rng.choice(pool),
                            references=[rng.choice(pool) for _ in range(num_refs)]))
    return records


def measure_eval() -> dict:
    from mmidc.evaluation.metrics.caption_scorer import CaptionScorer
    records = clevr_like_records()
    start = time.perf_counter()
    scores = CaptionScorer().score(records, per_type=True, source='benchmark')
    seconds = time.perf_counter() - start
    log(f'scored {len(records)} pairs in {seconds:.1f} s')
    return dict(pairs=len(records), references_per_pair=9, seconds=round(seconds, 1),
                metrics=len(scores), load=load_average())


def measure_cli(args, data_root) -> list:
    """tools/caption_pair.py --pairs-file against the model's own batched
    decoding rate: the same model, pairs and batch size."""
    rows = []
    work = osp.join(osp.dirname(args.out), 'cli')
    pairs_file = osp.join(work, 'pairs.jsonl')
    num_pairs = inference.write_pairs_file(data_root, pairs_file, args.cli_pairs)
    for arch in args.archs:
        config = osp.join(ROOT, TRAIN_CONFIGS[arch]['captioning'])
        checkpoint = args.checkpoint or inference.random_captioner_checkpoint(
            config, data_root, osp.join(work, f'{arch}_random.pth'))
        model = inference.model_rate(config, checkpoint, pairs_file, args.cli_batch,
                                     args.device, repeats=1 if args.quick else 2)
        cli = inference.cli_rate(config, checkpoint, pairs_file, args.cli_batch,
                                 args.device, osp.join(work, f'{arch}_captions.jsonl'),
                                 threads=torch.get_num_threads())
        rows.append(dict(arch=arch, weights='trained' if args.checkpoint else 'random',
                         image_size=args.image_size, pairs=num_pairs,
                         batch=args.cli_batch,
                         model_pairs_per_s=model['pairs_per_s'],
                         cli_pairs_per_s=cli['pairs_per_s'],
                         prepare_ms_per_pair=model['prepare_ms'],
                         model_ms_per_pair=model['model_ms'],
                         cli_over_model=fraction(cli['pairs_per_s'], model['pairs_per_s']),
                         load=load_average(), command=cli['command']))
        log(f'cli {arch}: {cli["pairs_per_s"]} pairs/s, the model alone '
            f'{model["pairs_per_s"]} pairs/s')
    return rows


# --------------------------------------------------------------------- main
#: The published CLIP4IDC code's adaptation loop, end to end on one H100 with
#: 480x320 PNGs (its loader, 4 workers): pairs/s to double.
PUBLISHED_E2E_PAIRS_PER_S = 245


def targets(result: dict) -> list:
    """The speed targets against the measured figures."""
    out = []
    steps = result.get('training', []) + result.get('variants', [])
    peer_mfu = next((r['mfu'] for r in result.get('peer', []) if 'mfu' in r), None)
    for stage in STAGES:
        rows = [r for r in steps if r['arch'] == 'vit-b32' and r['stage'] == stage
                and r['dtype'] == 'bf16' and r.get('mfu') is not None]
        if rows and stage == 'adaptation':
            best = max(rows, key=lambda r: r['mfu'])
            out.append(dict(target='MFU >= 0.35, ViT-B/32 adaptation step, bf16',
                            measured=f'{best["mfu"]} ({best.get("variant", "baseline")})',
                            met=best['mfu'] >= 0.35))
            if peer_mfu is not None:
                out.append(dict(target="adaptation MFU > open_clip's CLIP step MFU",
                                measured=f'{best["mfu"]} vs {peer_mfu}',
                                met=best['mfu'] > peer_mfu))
    for row in result.get('e2e', []):
        name = f'{row["arch"]} {row["stage"]} {row["source"]}, batch {row["batch"]}'
        out.append(dict(target=f'data_time < 10% of the iteration, {name}',
                        measured=row['data_share'], met=row['data_share'] < 0.10))
        out.append(dict(target=f'end to end >= 80% of the step pairs/s, {name}',
                        measured=row['e2e_over_step'], met=row['e2e_over_step'] >= 0.8))
        if row['batch'] == 16:
            out.append(dict(target=f'per-iteration overhead <= 25%, {name}',
                            measured=row['overhead_share'],
                            met=row['overhead_share'] <= 0.25))
        if row['arch'] == 'vit-b32' and row['stage'] == 'adaptation':
            out.append(dict(target=f'>= 2 x {PUBLISHED_E2E_PAIRS_PER_S} pairs/s '
                            f'end to end, {name}', measured=row['pairs_per_s'],
                            met=row['pairs_per_s'] >= 2 * PUBLISHED_E2E_PAIRS_PER_S))
    for row in result.get('cli', []):
        out.append(dict(target=f'caption_pair.py >= 80% of batched decoding, {row["arch"]}',
                        measured=row['cli_over_model'], met=row['cli_over_model'] >= 0.8))
        if result['machine'].get('gpu'):
            out.append(dict(target=f'caption_pair.py >= 1,500 pairs/s, {row["arch"]}',
                            measured=row['cli_pairs_per_s'],
                            met=row['cli_pairs_per_s'] >= 1500))
    return out


TABLES = [
    ('matmul peak (GFLOP/s; MFU uses the best per dtype)', 'peak_measurements',
     ['dtype', 'when', 'size', 'gflops', 'median_gflops', 'load']),
    ('training step, synthetic tensors', 'training',
     ['arch', 'stage', 'dtype', 'batch', 'step_s', 'pairs_per_s', 'gflop_per_step',
      'achieved_gflops', 'mfu', 'mfu_cpu_time', 'flash_attention', 'load']),
    ('step variants', 'variants',
     ['arch', 'stage', 'dtype', 'batch', 'variant', 'step_s', 'pairs_per_s', 'mfu',
      'compile_s', 'graphs', 'graph_breaks', 'load']),
    ("peer: open_clip's CLIP training step", 'peer',
     ['arch', 'dtype', 'batch', 'batch_unit', 'step_s', 'gflop_per_step',
      'achieved_gflops', 'mfu', 'load']),
    ('data loader', 'loader',
     ['arch', 'image_size', 'size', 'source', 'workers', 'batch', 'pairs',
      'steady_pairs_per_s', 'steady_pairs_per_s_per_core', 'first_batch_s', 'load']),
    ('tools/train.py end to end', 'e2e',
     ['arch', 'stage', 'source', 'options', 'batch', 'iters', 'iter_s', 'data_share',
      'pairs_per_s', 'step_pairs_per_s', 'e2e_over_step', 'overhead_share', 'load']),
    ('inference (greedy, 32 tokens)', 'inference',
     ['arch', 'batch', 'cached_s', 'uncached_s', 'uncached_measured',
      'captions_per_s_cached', 'captions_per_s_uncached', 'speedup', 'same_tokens',
      'vision_share', 'caption_encoder_share', 'decoder_share', 'load']),
    ('tools/caption_pair.py --pairs-file vs batched decoding', 'cli',
     ['arch', 'weights', 'image_size', 'pairs', 'batch', 'model_pairs_per_s',
      'cli_pairs_per_s', 'cli_over_model', 'prepare_ms_per_pair', 'model_ms_per_pair',
      'load']),
    ('targets', 'targets', ['target', 'measured', 'met']),
]


def tables_text(result: dict, level: str = '###') -> str:
    parts = []
    for title, key, columns in TABLES:
        if result.get(key):
            parts.append(f'{level} {title}\n\n{report.markdown(result[key], columns)}')
    for key, profile in result.get('profiles', {}).items():
        parts.append(f'{level} top ops, {key} (load {profile["load"]})\n\n'
                     f'{report.markdown(profile["ops"], ["op", "calls", "self_ms", "share"])}')
    if 'vocab' in result:
        v = result['vocab']
        parts.append(f'{level} caption head step, vocabulary\n\nfull ({v["full"]["ids"]} '
                     f'ids) {v["full"]["step_s"]} s, restricted ({v["restricted"]["ids"]} '
                     f'ids) {v["restricted"]["step_s"]} s: {v["speedup"]}x')
    for row in result.get('e2e', []):
        if row.get('compile_log'):
            parts.append(f'compile ({row["arch"]} {row["stage"]}): {row["compile_log"]}')
    commands = sorted({r['command'] for r in result.get('cli', [])})
    if commands:
        parts.append('CLI command: ' + '; '.join(f'`{c}`' for c in commands))
    if 'eval' in result:
        parts.append(f'{level} scoring\n\n{result["eval"]}')
    return '\n\n'.join(parts)


def git_commit() -> str:
    import subprocess
    try:
        return subprocess.run(['git', 'rev-parse', '--short', 'HEAD'], cwd=ROOT,
                              capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return '?'


def main(argv=None) -> int:
    args = parse_args(argv)
    torch.set_num_threads(args.threads or os.cpu_count() or 1)
    torch.manual_seed(0)
    started = time.time()
    result = dict(command=' '.join(['python', 'tools/analysis_tools/benchmark.py']
                                   + (argv if argv is not None else sys.argv[1:])),
                  date=time.strftime('%Y-%m-%d %H:%M', time.gmtime()),
                  commit=git_commit(), machine=machine_info(args.device),
                  load_start=load_average(), quick=args.quick, sections=args.sections,
                  batch_sizes={a: {s: batch_size(args, a, s) for s in STAGES}
                               for a in args.archs},
                  decode_steps=args.decode_steps)
    result['machine']['cuda'] = torch.version.cuda
    log(f'benchmark on {result["machine"]["gpu"] or result["machine"]["cpu_model"]}, '
        f'{torch.get_num_threads()} threads, sections {" ".join(args.sections)}')
    peaks_start = measure_peaks(args, 'start')
    needs_data = {'loader', 'e2e', 'cli'} & set(args.sections)
    data_root = prepare_data(args) if needs_data else None
    sections = dict(
        train=lambda: result.update(zip(('training', 'profiles'), measure_training(args))),
        variants=lambda: result.update(
            variants=measure_variants(args, result.get('training', []))),
        peer=lambda: result.update(peer=measure_peer(args)),
        loader=lambda: result.update(loader=measure_loading(args, data_root)),
        e2e=lambda: result.update(e2e=measure_e2e(args, data_root)),
        inference=lambda: result.update(inference=measure_inference(args)),
        cli=lambda: result.update(cli=measure_cli(args, data_root)),
        vocab=lambda: result.update(vocab=measure_vocab(args)))
    # In the order asked for; the results so far are written after each
    # section, so a run cut short (a time limit) keeps what it measured.
    for name in [s for s in args.sections if s != 'profile']:
        sections[name]()
        finish(args, result, started, peaks_start, final=False)
    if args.eval:
        result['eval'] = measure_eval()
    finish(args, result, started, peaks_start, final=True)
    return 0


def finish(args, result: dict, started: float, peaks_start: dict, final: bool) -> None:
    """MFU and targets of the rows so far; JSON and docs written."""
    peaks = dict(start=peaks_start)
    if final:
        peaks['end'] = measure_peaks(args, 'end')
    result['peak_measurements'] = [p for group in peaks.values() for p in group.values()]
    result['peaks'] = best_peaks(*peaks.values())
    for key in ('training', 'variants', 'peer'):
        add_mfu(result.get(key, []), result['peaks'])
    result['targets'] = targets(result)
    result['load_end'] = load_average()
    result['duration_s'] = time.time() - started
    result['complete'] = final
    text = tables_text(result)
    if final:
        print('\n' + text)
    os.makedirs(osp.dirname(osp.abspath(args.out)), exist_ok=True)
    with open(args.out, 'w') as f:
        json.dump(result, f, indent=2)
    if args.write_docs:
        name = args.docs_section or args.preset or (
            'gpu' if args.device == 'cuda' else 'cpu')
        report.write_section(args.write_docs, name, '\n'.join(
            report.machine_lines(result)) + '\n\n' + tables_text(result, '####'))
    if final:
        print(f'\nwritten {args.out}' + (f'; tables written into {args.write_docs} '
                                          f'(section "{name}")' if args.write_docs else ''))


if __name__ == '__main__':
    sys.exit(main())
