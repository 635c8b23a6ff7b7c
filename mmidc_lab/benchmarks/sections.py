"""The sections of the speed benchmark (:mod:`.benchmark_run` runs them).

Each ``measure_*`` function takes the run's settings (the namespace of
:func:`.benchmark_run.resolve_settings`) and returns its rows: the matmul
peak, training steps on synthetic tensors (FLOPs, MFU, profiles), step
variants, open_clip's CLIP step as a peer, the loader from PNGs vs the cache,
the training command end to end, cached vs reference-style decoding,
the captioning command (``caption_pair``) vs batched decoding, the caption
head's vocabulary and scoring.
"""
import copy
import os
import os.path as osp
import random
import time
from functools import lru_cache
from typing import Callable, Optional

import torch
from mmengine.logging import print_log

from mmidc.text import CaptionVocab, build_caption_vocab
from mmidc_lab.configs import config_file
from . import e2e, inference, loader_speed, optimizer_speed, peer, vocab_speed
from .measure import (count_flops, fraction, load_average, matmul_peak,
                      time_call, top_ops)
from .workloads import (build_benchmark_model, build_optim_wrapper,
                        decode_timed, disable_dropout, input_size,
                        normalised_inputs, synthetic_batch)

MODELS_DIR = 'mmidc::_base_/models'
FROM_SCRATCH = 'projects.from_scratch::'
STAGES = ('adaptation', 'captioning')
# The model of each stage (config names, :func:`mmidc_lab.configs.config_file`).
# The tiny captioner is the from-scratch project's: the benchmark's commands
# import projects.from_scratch, which registers its head.
ARCHS = {
    'vit-b32': dict(adaptation=f'{MODELS_DIR}/clip4idc-retriever_vit-b32.py',
                    captioning=f'{MODELS_DIR}/clip4idc-captioner_vit-b32.py', batch=8),
    'tiny': dict(adaptation=f'{MODELS_DIR}/clip4idc-retriever_tiny.py',
                 captioning=f'{FROM_SCRATCH}_base_/models/clip4idc-captioner_tiny.py',
                 batch=64),
}
# What the training command runs end to end (e2e) and the captioning command
# loads (cli).
TRAIN_CONFIGS = {
    'vit-b32': dict(adaptation='mmidc::clip4idc/clip4idc-adapt_vit-b32_clevr-change.py',
                    captioning='mmidc::clip4idc/clip4idc-caption_vit-b32_clevr-change.py'),
    'tiny': dict(
        adaptation=f'{FROM_SCRATCH}clip4idc-adapt_tiny_synthetic-clevr-change.py',
        captioning=f'{FROM_SCRATCH}clip4idc-caption_tiny_synthetic-clevr-change.py'),
}


def batch_size(settings, arch: str, stage: str) -> int:
    if settings.quick:
        return 2
    return settings.batch.get(stage, ARCHS[arch]['batch'])


def log(message: str) -> None:
    """Progress, with the load average (the machine may be shared)."""
    print_log(f'[load {load_average():.1f}] {message}', logger='current')


@lru_cache(maxsize=1)
def _clevr_vocab() -> CaptionVocab:
    return build_caption_vocab(vocab_speed.clevr_like_captions())


def restricted_vocab() -> CaptionVocab:
    """The CLEVR-Change caption vocabulary (what the tiny configs train on)."""
    return copy.deepcopy(_clevr_vocab())  # tokenising 10k captions: build once


def build(arch: str, stage: str, device: str):
    vocab = restricted_vocab() if (arch == 'tiny' and stage == 'captioning') else None
    config = config_file(ARCHS[arch][stage])
    return build_benchmark_model(config, vocab=vocab).to(device)


def measure_peaks(settings, label: str) -> dict:
    size = settings.peak_size
    peaks = {}
    for dtype in settings.dtypes:
        peaks[dtype] = matmul_peak(dtype, size=size, repeats=3 if settings.quick else 5,
                                   device=settings.device)
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


def measure_training(settings) -> tuple:
    """Synthetic-tensor training steps, FLOPs, MFU and profiles."""
    rows, profiles = [], {}
    for arch in settings.archs:
        for stage in STAGES:
            batch_n = batch_size(settings, arch, stage)
            model = build(arch, stage, settings.device).train()
            batch = device_batch(synthetic_batch(model, batch_n), settings.device)
            flops = count_flops(lambda: model.train_step(
                batch, build_optim_wrapper(model, 'fp32')))
            flops_by_op = {k: round(v / 1e9, 2) for k, v in flops['by_op'].items()}
            for dtype in settings.dtypes:
                wrapper = build_optim_wrapper(model, dtype)
                timing = time_call(lambda: model.train_step(batch, wrapper),
                                   steps=settings.steps, warmup=1, device=settings.device)
                achieved = flops['total'] / timing['wall_s'] / 1e9
                row = dict(
                    arch=arch, stage=stage, dtype=dtype, batch=batch_n,
                    step_s=round(timing['wall_s'], 4),
                    pairs_per_s=round(batch_n / timing['wall_s'], 2),
                    gflop_per_step=round(flops['total'] / 1e9, 1),
                    achieved_gflops=round(achieved, 1),
                    load=timing['load'], gflop_by_op=flops_by_op)
                if settings.device == 'cpu':
                    cpu_busy = timing['cpu_s'] / torch.get_num_threads()
                    row['achieved_cpu_time_gflops'] = round(
                        flops['total'] / cpu_busy / 1e9, 1)
                else:
                    row['flash_attention'] = flash_attention_check(model, batch, wrapper)
                rows.append(row)
                log(f'train {arch} {stage} {dtype} batch {batch_n}: '
                    f'{row["pairs_per_s"]} pairs/s, {row["achieved_gflops"]} GFLOP/s')
                if ('profile' in settings.sections and arch == settings.archs[0]
                        and dtype == settings.dtypes[0]):
                    key = f'{arch}/{stage}/{dtype}'
                    profiles[key] = dict(load=load_average(), ops=top_ops(
                        lambda: model.train_step(batch, wrapper), device=settings.device))
            del model
    return rows, profiles


def device_batch(batch: dict, device: str) -> dict:
    """The synthetic batch with its pairs stacked on ``device`` (a step on
    tensors already there: loading and transfers excluded)."""
    batch = dict(batch)
    batch['inputs'] = torch.stack(batch['inputs']).to(device)
    return batch


def measure_variants(settings, train_rows, rows: Optional[list] = None,
                     on_row: Optional[Callable[[], None]] = None) -> list:
    """The step of the first arch and dtype with PyTorch's fused optimizer
    kernel, with the stage's own optimizer (``config-optim``: the schedule's
    BertAdam, parameter groups and clip, instead of one-group AdamW),
    dropout switched off (to price it; not a recommendation) and
    ``torch.compile`` (its compilation time apart) -- harness-side only, no
    model code changed.

    ``rows`` (appended to and returned) and ``on_row`` (called after each
    row) let the caller save each row as it is measured.
    """
    arch, dtype = settings.archs[0], settings.dtypes[0]
    rows = [] if rows is None else rows
    for stage in STAGES:
        batch_n = batch_size(settings, arch, stage)
        base = next((r for r in train_rows if (r['arch'], r['stage'], r['dtype'])
                     == (arch, stage, dtype)), None)
        for name in ['baseline'] + list(settings.variants):
            if name == 'no-dropout' and stage == 'adaptation':
                continue  # CLIP's towers have no dropout
            model = build(arch, stage, settings.device).train()
            batch = device_batch(synthetic_batch(model, batch_n), settings.device)
            if name == 'no-dropout':
                disable_dropout(model)
            if 'config-optim' in name:  # BertAdam, its groups and the clip
                wrapper = optimizer_speed.config_optim_wrapper(model, stage, dtype)
            else:
                wrapper = build_optim_wrapper(model, dtype, fused='fused' in name)
            step = model.train_step
            row = dict(arch=arch, stage=stage, dtype=dtype, batch=batch_n, variant=name)
            if 'compile' in name:
                from torch._dynamo.utils import counters
                torch._dynamo.reset()
                counters.clear()
                step = torch.compile(step)
                start = time.perf_counter()
                step(batch, wrapper)
                if settings.device == 'cuda':
                    torch.cuda.synchronize()
                row['first_call_s'] = round(time.perf_counter() - start, 2)
            # compiled: 3 more calls absorb recompilations (changing counters)
            timing = time_call(lambda: step(batch, wrapper), steps=settings.steps,
                               warmup=3 if 'compile' in name else 1, device=settings.device)
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
            if on_row:
                on_row()
            del model, wrapper, step
    return rows


def measure_optimizer(settings) -> list:
    """The configs' gradient clipping and BertAdam step alone (loop and
    foreach) on each arch's parameter shapes and groups
    (:mod:`.optimizer_speed`)."""
    rows = []
    for arch in settings.archs:
        for stage in STAGES:
            model = build(arch, stage, 'cpu')  # its shapes and names only
            rows += optimizer_speed.measure_optimizer(
                model, stage, arch, settings.device, steps=settings.steps)
            del model
            log(f'optimizer {arch} {stage}: ' + ', '.join(
                f'{r["what"]} {r["step_ms"]} ms' for r in rows[-4:]))
    return rows


def measure_peer(settings) -> list:
    """open_clip's own CLIP training step (ViT-B-32, 256 images), bf16."""
    batch_n = 8 if settings.quick else 256
    row = peer.clip_train_step_time('ViT-B-32', batch_n, settings.device,
                                    dtype=settings.dtypes[-1], steps=settings.steps)
    log(f'open_clip CLIP step: {row["step_s"]} s at batch {batch_n}')
    return [row]


def prepare_data(settings) -> str:
    from mmidc.synthetic import generate_dataset
    from mmidc.datasets import ensure_vocab_file
    if not osp.isfile(osp.join(settings.data_dir, 'splits.json')):
        width, height = (int(v) for v in settings.image_size.split('x'))
        log(f'generating {settings.num_scenes} synthetic scenes ({width}x{height}) '
            f'in {settings.data_dir}')
        generate_dataset(settings.data_dir, settings.num_scenes, image_size=(width, height),
                         workers=os.cpu_count() or 1, overwrite=True,
                         progress=False)
    ensure_vocab_file(dict(type='CLEVRChangeDataset', data_root=settings.data_dir))
    return settings.data_dir


def build_loader_dataset(data_root: str, size, cached: bool):
    """The generated set's train split at ``size``, from the PNGs or from
    its cache (built where absent)."""
    from mmidc.datasets import default_cache_dir
    data = ('CLEVRChangeDataset', data_root, 'train', size)
    if not cached:
        return loader_speed.build_dataset(*data)
    cache_dir = default_cache_dir(data_root, size)
    loader_speed.ensure_cache(*data, cache_dir, workers=os.cpu_count() or 1)
    return loader_speed.build_dataset(*data, cache_dir=cache_dir)


def measure_loading(settings, data_root) -> list:
    """Loader pairs/s (and per core) from the PNGs vs the cache, at each
    arch's input size; the pairs of the generated set, at least 6 batches."""
    rows = []
    workers_list = [0, 1, 2] if settings.device == 'cpu' else [0, os.cpu_count() or 1]
    # one intra-op thread, as in a loader worker: the tensor packing of the
    # main-process rows (0 workers) otherwise spin-waits on a busy machine
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        _measure_loading(settings, data_root, rows, workers_list)
    finally:
        torch.set_num_threads(threads)
    return rows


def _measure_loading(settings, data_root, rows, workers_list) -> None:
    for arch in settings.loader_archs:
        size = input_size(build(arch, 'adaptation', 'cpu'))
        batch_n = settings.batch.get('adaptation', 2 if settings.quick else ARCHS[arch]['batch'])
        for source in ('png', 'cache'):
            dataset = build_loader_dataset(data_root, size, source == 'cache')
            repeats = -(-6 * batch_n // len(dataset))
            dataset = torch.utils.data.ConcatDataset([dataset] * repeats)
            for workers in workers_list:
                row = loader_speed.time_loader(dataset, workers, batch_n)
                cores = max(1, workers)
                rows.append(dict(arch=arch, image_size=settings.image_size,
                                 size=f'{size[0]}x{size[1]}', source=source,
                                 batch=batch_n, load=load_average(), **row,
                                 steady_pairs_per_s_per_core=round(
                                     (row['steady_pairs_per_s'] or 0) / cores, 1)))
                log(f'loader {arch} {source} workers={workers}: '
                    f'{row["steady_pairs_per_s"]} pairs/s steady')


def measure_e2e(settings, data_root, rows: Optional[list] = None,
                on_row: Optional[Callable[[], None]] = None) -> list:
    """The training command on each arch's real configs, from the PNGs and from the
    cache (--image-cache), against the same config's step on synthetic
    tensors (the per-iteration overhead).

    ``rows`` (appended to and returned) and ``on_row`` (called after each
    row) let the caller save each run as it finishes.
    """
    rows = [] if rows is None else rows
    amp = 'bf16' if (settings.device == 'cuda' and 'bf16' in settings.dtypes) else None
    options = ['--amp', amp] if amp else []
    # the subprocess gets the harness's intra-op threads: the same as its step
    threads = str(torch.get_num_threads())
    env = dict(OMP_NUM_THREADS=threads, MKL_NUM_THREADS=threads)
    if settings.device == 'cpu':
        env['CUDA_VISIBLE_DEVICES'] = ''
    for arch in settings.archs:
        for stage in settings.stages:
            config = config_file(TRAIN_CONFIGS[arch][stage])
            batch_n = 4 if settings.quick else settings.e2e_batch.get(stage)
            work = osp.join(osp.dirname(settings.out), 'e2e', f'{arch}_{stage}')
            from mmengine.config import Config
            step_batch = batch_n or Config.fromfile(config).train_dataloader.batch_size
            step = e2e.config_step_time(config, step_batch, settings.device, data_root,
                                        work, steps=settings.steps, amp=amp)
            for source in settings.e2e_sources:
                extra = ['--image-cache'] if source == 'cache' else []
                row = e2e.train_throughput(
                    config, data_root, f'{work}_{source}', options + extra,
                    batch_size=batch_n, min_iters=settings.e2e_iters,
                    log_interval=settings.e2e_log_interval, env=env)
                row.update(arch=arch, stage=stage, source=source,
                           step_pairs_per_s=step['pairs_per_s'], step_s=step['step_s'],
                           e2e_over_step=fraction(row['pairs_per_s'], step['pairs_per_s']),
                           overhead_share=round(1 - step['step_s'] / row['iter_s'], 3))
                rows.append(row)
                log(f'e2e {arch} {stage} {source}: {row["pairs_per_s"]} pairs/s, '
                    f'data {row["data_share"]} of the iteration, step alone '
                    f'{step["pairs_per_s"]} pairs/s; {row["wall_s"]} s in all, '
                    f'{row["outside_loop_s"]} s outside the training loop (start-up '
                    f'{row.get("startup_s")} s, to the first log {row.get("to_first_log_s")} s, '
                    f'shutdown {row.get("shutdown_s")} s)')
                if on_row:
                    on_row()
    return rows


def measure_inference(settings) -> list:
    rows = []
    for arch in settings.archs:
        model = build(arch, 'captioning', settings.device).eval()
        for batch_size in ((1, 4) if settings.quick else (1, 64)):
            inputs = normalised_inputs(model, synthetic_batch(model, batch_size))
            repeats = 1 if (arch == 'vit-b32' and batch_size > 1) else 3
            cached = _best_of(lambda: decode_timed(
                model, inputs, settings.decode_steps, True), repeats)
            # The reference-style loop re-runs both encoders at every step. Run
            # it in full where that is affordable; otherwise time its decoder
            # part in full and add steps x the measured encoder time.
            direct = arch != 'vit-b32' or batch_size == 1
            if direct:
                uncached = decode_timed(model, inputs, settings.decode_steps, use_cache=False)
            else:
                uncached = _decoder_only_uncached(model, inputs, cached, settings.decode_steps)
            rows.append(dict(
                arch=arch, batch=batch_size, tokens=settings.decode_steps + 1,
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


def measure_vocab(settings) -> dict:
    kwargs = dict(batch_size=4 if settings.quick else 32,
                  memory_tokens=16 if settings.quick else 100, caption_len=32,
                  hidden=128 if settings.quick else 512, layers=1 if settings.quick else 3,
                  steps=1 if settings.quick else 3, warmup=0 if settings.quick else 1,
                  device=settings.device)
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


def measure_cli(settings, data_root) -> list:
    """The captioning command (``--pairs-file``) against the model's own batched
    decoding rate: the same model, pairs and batch size."""
    rows = []
    work = osp.join(osp.dirname(settings.out), 'cli')
    pairs_file = osp.join(work, 'pairs.jsonl')
    num_pairs = inference.write_pairs_file(data_root, pairs_file, settings.cli_pairs)
    workers = min(16, os.cpu_count() or 1)  # caption_pair.py's default
    for arch in settings.archs:
        config = config_file(TRAIN_CONFIGS[arch]['captioning'])
        checkpoint = settings.checkpoint or inference.random_captioner_checkpoint(
            config, data_root, osp.join(work, f'{arch}_random.pth'))
        model = inference.model_rate(config, checkpoint, pairs_file, settings.cli_batch,
                                     settings.device, repeats=1 if settings.quick else 2)
        # decoding on threads (one interpreter lock) and on forked processes
        for worker_type in settings.cli_worker_types:
            cli = inference.cli_rate(
                config, checkpoint, pairs_file, settings.cli_batch, settings.device,
                osp.join(work, f'{arch}_captions.jsonl'), workers=workers,
                threads=torch.get_num_threads(), worker_type=worker_type)
            rows.append(dict(arch=arch, weights='trained' if settings.checkpoint else 'random',
                             image_size=settings.image_size, pairs=num_pairs,
                             batch=settings.cli_batch, workers=workers,
                             worker_type=worker_type,
                             model_pairs_per_s=model['pairs_per_s'],
                             cli_pairs_per_s=cli['pairs_per_s'],
                             prepare_ms_per_pair=model['prepare_ms'],
                             model_ms_per_pair=model['model_ms'],
                             cli_over_model=fraction(cli['pairs_per_s'],
                                                     model['pairs_per_s']),
                             load=load_average(), command=cli['command']))
            log(f'cli {arch} ({workers} {worker_type} workers): {cli["pairs_per_s"]} '
                f'pairs/s, the model alone {model["pairs_per_s"]} pairs/s')
    return rows
