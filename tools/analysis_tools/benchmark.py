"""Speed benchmark: where the time of training, decoding, loading and scoring goes.

One run measures, on this machine and against its own measured limits:

- the dense matmul peak (fp32, bf16) in GFLOP/s, at the start and the end
  (the best of the two is the peak: the machine may be shared);
- training-step throughput (pairs/s) of the adaptation and captioning stages
  for ViT-B/32 at 224 px and the tiny CPU config, fp32 and bf16 autocast, on
  synthetic tensors (loading excluded); FLOPs per step counted with
  ``FlopCounterMode`` and the model FLOP utilisation (MFU) against the peak
  of the same dtype; the top operators of a profiled step;
- the same steps fed by a DataLoader (2 workers) over a generated synthetic
  CLEVR-Change-style set through the real pipeline and the resized cache;
- loader throughput from PNGs vs the cache (``loader_speed.py``);
- captions/s at batch 1 and 64, KV-cached decoding vs the reference-style
  loop (vision encoder, caption encoder and the whole prefix re-run at each of
  the 31 steps after <sot>: 32 tokens), and the time shares of each part;
- the caption head's step with the full 49,408-way softmax vs a restricted
  vocabulary (``vocab_speed.py``);
- with ``--eval``: seconds to score 8,000 pairs (coco-caption, per type).

Prints markdown tables and writes JSON (with the load average beside every
figure: the machine may be shared)::

    python tools/analysis_tools/benchmark.py --out work_dirs/benchmark/bench.json
    python tools/analysis_tools/benchmark.py --quick   # tiny config, seconds
"""
import argparse
import copy
import json
import os
import os.path as osp
import random
import sys
import time
from functools import lru_cache
from types import SimpleNamespace

import torch

sys.path.insert(0, osp.dirname(osp.abspath(__file__)))  # sibling tools
import loader_speed  # noqa: E402
import vocab_speed  # noqa: E402

from mmidc.models.utils.caption_vocab import CaptionVocab, build_caption_vocab  # noqa: E402
from mmidc.utils.benchmark import (count_flops, fraction, load_average,  # noqa: E402
                                   machine_info, matmul_peak, time_call,
                                   top_ops)
from mmidc.utils.benchmark_idc import (build_benchmark_model, build_optim_wrapper,  # noqa: E402
                                       decode_timed, disable_dropout, input_size,
                                       loader_train_timed, normalised_inputs,
                                       synthetic_batch)

ROOT = osp.dirname(osp.dirname(osp.dirname(osp.abspath(__file__))))
MODELS_DIR = osp.join(ROOT, 'configs', '_base_', 'models')
ARCHS = {
    'vit-b32': dict(adaptation='clip4idc-retriever_vit-b32.py',
                    captioning='clip4idc-captioner_vit-b32.py', batch=8),
    'tiny': dict(adaptation='clip4idc-retriever_tiny.py',
                 captioning='clip4idc-captioner_tiny.py', batch=64),
}


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--quick', action='store_true',
                        help='tiny config only, small batches, one step each')
    parser.add_argument('--out', default='work_dirs/benchmark/bench.json')
    parser.add_argument('--device', default='cpu', choices=['cpu', 'cuda'])
    parser.add_argument('--threads', type=int, default=None,
                        help='torch intra-op threads (default: all cores)')
    parser.add_argument('--archs', nargs='+', choices=sorted(ARCHS),
                        help='default: vit-b32 tiny (--quick: tiny)')
    parser.add_argument('--dtypes', nargs='+', default=['fp32', 'bf16'],
                        choices=['fp32', 'bf16'])
    parser.add_argument('--steps', type=int, default=None,
                        help='timed training steps (default 2; --quick 1)')
    parser.add_argument('--data-dir', default='work_dirs/benchmark/synthetic',
                        help='generated synthetic set, reused when present')
    parser.add_argument('--num-scenes', type=int, default=None,
                        help='scenes to generate (default 64; --quick 4)')
    parser.add_argument('--decode-steps', type=int, default=31,
                        help="decoding steps after <sot> (31: the paper's 32 tokens)")
    parser.add_argument('--skip', nargs='+', default=[],
                        choices=['train', 'profile', 'variants', 'loader', 'inference',
                                 'vocab'])
    parser.add_argument('--eval', action='store_true',
                        help='also time scoring 8,000 pairs (minutes; needs Java)')
    args = parser.parse_args(argv)
    args.archs = args.archs or (['tiny'] if args.quick else ['vit-b32', 'tiny'])
    args.steps = args.steps or (1 if args.quick else 2)
    args.num_scenes = args.num_scenes or (4 if args.quick else 64)
    if args.device == 'cuda' and not torch.cuda.is_available():
        parser.error('--device cuda: no CUDA device visible')
    return args


def markdown(rows, columns) -> str:
    lines = ['| ' + ' | '.join(columns) + ' |', '|' + '---|' * len(columns)]
    for row in rows:
        lines.append('| ' + ' | '.join(_fmt(row.get(c)) for c in columns) + ' |')
    return '\n'.join(lines)


def _fmt(value) -> str:
    if isinstance(value, float):
        return f'{value:.3g}' if abs(value) < 100 else f'{value:.0f}'
    return '' if value is None else str(value)


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
    size = 512 if args.quick else 2048
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
    """Model FLOP utilisation of each training row against the peak of its dtype:
    wall-clock (``mfu``) and process CPU time (``mfu_cpu_time``)."""
    for row in rows:
        peak = peaks[row['dtype']]
        row['peak_gflops'] = peak['gflops']
        row['mfu'] = fraction(row['achieved_gflops'], peak['gflops'])
        row['mfu_cpu_time'] = fraction(row['achieved_cpu_time_gflops'],
                                       peak['cpu_time_gflops'])


def measure_training(args, batch_sizes) -> tuple:
    """Synthetic-tensor training steps, FLOPs, MFU and profiles."""
    rows, profiles = [], {}
    for arch in args.archs:
        for stage in ('adaptation', 'captioning'):
            model = build(arch, stage, args.device).train()
            batch = synthetic_batch(model, batch_sizes[arch])
            flops = count_flops(lambda: model.train_step(
                batch, build_optim_wrapper(model, 'fp32')))
            flops_by_op = {k: round(v / 1e9, 2) for k, v in flops['by_op'].items()}
            for dtype in args.dtypes:
                wrapper = build_optim_wrapper(model, dtype)
                timing = time_call(lambda: model.train_step(batch, wrapper),
                                   steps=args.steps, warmup=1, device=args.device)
                achieved = flops['total'] / timing['wall_s'] / 1e9
                cpu_busy = timing['cpu_s'] / torch.get_num_threads()
                rows.append(dict(
                    arch=arch, stage=stage, dtype=dtype, batch=batch_sizes[arch],
                    step_s=round(timing['wall_s'], 3),
                    pairs_per_s=round(batch_sizes[arch] / timing['wall_s'], 2),
                    gflop_per_step=round(flops['total'] / 1e9, 1),
                    achieved_gflops=round(achieved, 1),
                    achieved_cpu_time_gflops=round(flops['total'] / cpu_busy / 1e9, 1),
                    load=timing['load'], gflop_by_op=flops_by_op))
                log(f'train {arch} {stage} {dtype}: {rows[-1]["pairs_per_s"]} pairs/s, '
                    f'{rows[-1]["achieved_gflops"]} GFLOP/s')
                if 'profile' not in args.skip and arch == args.archs[0] and (
                        dtype == 'fp32' or stage == 'captioning'):
                    key = f'{arch}/{stage}/{dtype}'
                    profiles[key] = dict(load=load_average(), ops=top_ops(
                        lambda: model.train_step(batch, wrapper), device=args.device))
            del model
    return rows, profiles


def measure_variants(args, batch_sizes) -> list:
    """Cheap changes to the fp32 step (harness-side only): the fused AdamW
    kernel, and dropout switched off (its cost, not a recommendation)."""
    arch, rows = args.archs[0], []
    variants = [('baseline', False, False), ('fused AdamW', True, False),
                ('no dropout', False, True), ('fused AdamW + no dropout', True, True)]
    for stage in ('adaptation', 'captioning'):
        model = build(arch, stage, args.device).train()
        batch = synthetic_batch(model, batch_sizes[arch])
        for name, fused, no_dropout in variants:
            if no_dropout and stage == 'adaptation':
                continue  # CLIP's towers have no dropout
            if no_dropout:
                disable_dropout(model)
            wrapper = build_optim_wrapper(model, 'fp32', fused=fused)
            timing = time_call(lambda: model.train_step(batch, wrapper),
                               steps=args.steps, warmup=1, device=args.device)
            rows.append(dict(arch=arch, stage=stage, variant=name,
                             step_s=round(timing['wall_s'], 3),
                             cpu_s=round(timing['cpu_s'], 3),
                             pairs_per_s=round(batch_sizes[arch] / timing['wall_s'], 2),
                             load=timing['load']))
            log(f'variant {arch} {stage} {name}: {rows[-1]["step_s"]} s/step')
    return rows


def prepare_data(args) -> str:
    from mmidc.datasets.synthetic import generate_dataset
    if not osp.isfile(osp.join(args.data_dir, 'splits.json')):
        log(f'generating {args.num_scenes} synthetic scenes in {args.data_dir}')
        image_size = (96, 64) if args.quick else (480, 320)  # CLEVR-Change: 480x320
        generate_dataset(args.data_dir, args.num_scenes, image_size=image_size,
                         workers=min(2, os.cpu_count() or 1), overwrite=True,
                         progress=False)
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
        build_pair_image_cache(paths, data_root, cache_dir, size, 'train', workers=1)
    return loader_speed.build_dataset(ns, cache_dir)


def measure_loading(args, data_root, train_rows, batch_sizes) -> tuple:
    """PNG vs cache loader throughput; training fed by the cached loader."""
    loader_rows, fed_rows = [], []
    for arch in args.archs:
        size = input_size(build(arch, 'adaptation', 'cpu'))
        for source in ('png', 'cache'):
            dataset = build_loader_dataset(data_root, size, source == 'cache')
            # at least 6 batches, so the steady rate (after the first) is measured
            repeats = -(-6 * batch_sizes[arch] // len(dataset))
            dataset = torch.utils.data.ConcatDataset([dataset] * repeats)
            for workers in (0, 2):
                row = loader_speed.time_loader(dataset, workers, batch_sizes[arch])
                loader_rows.append(dict(arch=arch, size=f'{size[0]}x{size[1]}',
                                        source=source, load=load_average(), **row))
                log(f'loader {arch} {source} workers={workers}: '
                    f'{row["steady_pairs_per_s"]} pairs/s steady')
        dataset = build_loader_dataset(data_root, size, cached=True)
        for stage in ('adaptation', 'captioning'):
            model = build(arch, stage, args.device)
            wrapper = build_optim_wrapper(model, 'fp32')
            fed = loader_train_timed(model, wrapper, dataset, batch_sizes[arch],
                                     steps=args.steps + 1, warmup=1, workers=2)
            bare = next(r for r in train_rows if (r['arch'], r['stage'], r['dtype'])
                        == (arch, stage, 'fp32'))
            steady = next(r for r in loader_rows if (r['arch'], r['source'], r['workers'])
                          == (arch, 'cache', 2))
            per_batch = batch_sizes[arch] / steady['steady_pairs_per_s'] \
                if steady['steady_pairs_per_s'] else None
            fed_rows.append(dict(
                arch=arch, stage=stage, workers=2, batch=batch_sizes[arch],
                pairs_per_s_synthetic=bare['pairs_per_s'],
                pairs_per_s_loader=round(fed['pairs_per_s'], 2),
                wait_share=fraction(fed['wait_total_s'],
                                    fed['wait_total_s'] + fed['train_total_s']),
                loader_s_per_batch=round(per_batch, 3) if per_batch else None,
                loader_share_of_step=fraction(per_batch, bare['step_s']) if per_batch else None,
                load=load_average()))
            log(f'train+loader {arch} {stage}: {fed_rows[-1]["pairs_per_s_loader"]} pairs/s, '
                f'waiting {fed_rows[-1]["wait_share"]} of the time')
    return loader_rows, fed_rows


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


# --------------------------------------------------------------------- main
def targets(result: dict) -> list:
    """Issue 7's targets against the measured figures (None: not measured)."""
    out = []
    for row in result.get('training', []):
        if row['arch'] == 'vit-b32':
            out.append(dict(target=f'MFU >= 0.5, ViT-B/32 {row["stage"]} {row["dtype"]}',
                            measured=row['mfu'], met=row['mfu'] >= 0.5))
    for row in result.get('inference', []):
        out.append(dict(target=f'cache speed-up >= 5x, {row["arch"]} batch {row["batch"]}',
                        measured=row['speedup'], met=row['speedup'] >= 5))
        if row['batch'] > 1:
            out.append(dict(target=f'decoder < 25% of inference, {row["arch"]} batch '
                            f'{row["batch"]}', measured=row['decoder_share'],
                            met=row['decoder_share'] < 0.25))
    for row in result.get('training_with_loader', []):
        if row['loader_share_of_step'] is not None:
            out.append(dict(target=f'cached loader < 5% of step, 2 workers, {row["arch"]} '
                            f'{row["stage"]}', measured=row['loader_share_of_step'],
                            met=row['loader_share_of_step'] < 0.05))
    return out


def print_tables(result: dict) -> None:
    sections = [
        ('matmul peak (GFLOP/s; MFU uses the best per dtype)', result['peak_measurements'],
         ['dtype', 'when', 'size', 'gflops', 'median_gflops', 'cpu_time_gflops', 'load']),
        ('training step, synthetic tensors', result.get('training', []),
         ['arch', 'stage', 'dtype', 'batch', 'step_s', 'pairs_per_s', 'gflop_per_step',
          'achieved_gflops', 'peak_gflops', 'mfu', 'achieved_cpu_time_gflops',
          'mfu_cpu_time', 'load']),
        ('fp32 step variants', result.get('variants', []),
         ['arch', 'stage', 'variant', 'step_s', 'cpu_s', 'pairs_per_s', 'load']),
        ('data loader', result.get('loader', []),
         ['arch', 'size', 'source', 'workers', 'pairs', 'first_batch_s', 'pairs_per_s',
          'steady_pairs_per_s', 'load']),
        ('training fed by the cached loader (fp32)', result.get('training_with_loader', []),
         ['arch', 'stage', 'workers', 'batch', 'pairs_per_s_synthetic', 'pairs_per_s_loader',
          'wait_share', 'loader_s_per_batch', 'loader_share_of_step', 'load']),
        ('inference (greedy, 32 tokens)', result.get('inference', []),
         ['arch', 'batch', 'cached_s', 'uncached_s', 'uncached_measured',
          'captions_per_s_cached', 'captions_per_s_uncached', 'speedup', 'same_tokens',
          'vision_share', 'caption_encoder_share', 'decoder_share', 'load']),
        ('targets', result.get('targets', []), ['target', 'measured', 'met']),
    ]
    for title, rows, columns in sections:
        if rows:
            print(f'\n### {title}\n\n{markdown(rows, columns)}')
    for key, profile in result.get('profiles', {}).items():
        print(f'\n### top ops, {key} (load {profile["load"]})\n\n'
              f'{markdown(profile["ops"], ["op", "calls", "self_ms", "share"])}')
    if 'vocab' in result:
        v = result['vocab']
        print(f'\n### caption head step, vocabulary\n\nfull ({v["full"]["ids"]} ids) '
              f'{v["full"]["step_s"]} s, restricted ({v["restricted"]["ids"]} ids) '
              f'{v["restricted"]["step_s"]} s: {v["speedup"]}x')
    if 'eval' in result:
        print(f'\n### scoring\n\n{result["eval"]}')


def main(argv=None) -> int:
    args = parse_args(argv)
    torch.set_num_threads(args.threads or os.cpu_count() or 1)
    torch.manual_seed(0)
    batch_sizes = {a: (2 if args.quick else ARCHS[a]['batch']) for a in args.archs}
    result = dict(command=' '.join(['python', 'tools/analysis_tools/benchmark.py']
                                   + (argv if argv is not None else sys.argv[1:])),
                  date=time.strftime('%Y-%m-%d %H:%M:%S'),
                  machine=machine_info(args.device), load_start=load_average(),
                  quick=args.quick, batch_sizes=batch_sizes,
                  decode_steps=args.decode_steps)
    log(f'benchmark on {result["machine"]["cpu_model"]}, '
        f'{torch.get_num_threads()} threads')
    peaks_start = measure_peaks(args, 'start')
    if 'train' not in args.skip:
        result['training'], result['profiles'] = measure_training(args, batch_sizes)
        if 'variants' not in args.skip:
            result['variants'] = measure_variants(args, batch_sizes)
        if 'loader' not in args.skip:
            data_root = prepare_data(args)
            result['loader'], result['training_with_loader'] = measure_loading(
                args, data_root, result['training'], batch_sizes)
    if 'inference' not in args.skip:
        result['inference'] = measure_inference(args)
    if 'vocab' not in args.skip:
        result['vocab'] = measure_vocab(args)
    if args.eval:
        result['eval'] = measure_eval()
    peaks_end = measure_peaks(args, 'end')
    result['peak_measurements'] = list(peaks_start.values()) + list(peaks_end.values())
    result['peaks'] = best_peaks(peaks_start, peaks_end)
    add_mfu(result.get('training', []), result['peaks'])
    result['targets'] = targets(result)
    result['load_end'] = load_average()
    print_tables(result)
    os.makedirs(osp.dirname(osp.abspath(args.out)), exist_ok=True)
    with open(args.out, 'w') as f:
        json.dump(result, f, indent=2)
    print(f'\nwritten {args.out}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
