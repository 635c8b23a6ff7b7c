"""A run of the speed benchmark: its settings (presets for the docs'
machine kinds), the sections in the order asked for, the speed targets
against the measured figures, the JSON record and the markdown tables
(``python -m mmidc_lab.benchmark`` is its command line).
"""
import json
import os
import os.path as osp
import time

import torch

from mmidc_lab.checkout import git_commit
from . import report
from .measure import load_average, machine_info
from .sections import (STAGES, batch_size, best_peaks, add_mfu, log,
                       measure_cli, measure_e2e, measure_eval,
                       measure_inference, measure_loading, measure_optimizer,
                       measure_peaks, measure_peer, measure_training, measure_variants,
                       measure_vocab, prepare_data)

__all__ = ['resolve_settings', 'run_benchmark', 'tables_text', 'targets',
           'docs_section']

SECTIONS = ('train', 'profile', 'variants', 'optimizer', 'peer', 'loader', 'e2e',
            'inference', 'cli', 'vocab')
VARIANTS = ('fused', 'no-dropout', 'compile', 'compile+fused', 'config-optim',
            'config-optim+compile')
# One command per machine kind for docs/benchmark.md.
PRESETS = {
    'gpu_rows': dict(device='cuda', archs=['vit-b32'], dtypes=['bf16'],
                     batch=dict(adaptation=128, captioning=64), steps=10,
                     sections=['train', 'profile', 'peer', 'optimizer', 'e2e', 'cli',
                               'variants', 'inference'],
                     variants=['fused', 'compile+fused', 'config-optim',
                               'config-optim+compile'], num_scenes=2000,
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
            raise ValueError(
                f'--batch {value!r}: give N or STAGE=N with STAGE in {STAGES}')
        out.update({s: int(number) for s in stages})
    return out


def resolve_settings(args):
    """Fill in what the command line left open: a preset's values
    (``gpu_rows`` / ``cpu_rows``), then ``--quick``'s, then the defaults.

    Args:
        args (argparse.Namespace): The benchmark's parsed command line.

    Returns:
        argparse.Namespace: ``args``, completed.

    Raises:
        ValueError: Contradicting or impossible options.
    """
    if args.gpu_rows and args.cpu_rows:
        raise ValueError('--gpu-rows and --cpu-rows are two runs (two machines)')
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
    args.batch = dict(preset.get('batch', {}), **parse_batch(args.batch))
    args.e2e_batch = dict(preset.get('e2e_batch', {}), **parse_batch(args.e2e_batch))
    args.cli_pairs = args.cli_pairs or preset.get('cli_pairs') or (8 if args.quick else 120)
    args.cli_batch = args.cli_batch or preset.get('cli_batch') or (4 if args.quick else 64)
    args.cli_worker_types = args.cli_worker_types or ['thread', 'process']
    args.e2e_sources = args.e2e_sources or ['png', 'cache']
    args.peak_size = 512 if args.quick else preset.get('peak_size', 2048)
    args.loader_archs = preset.get('loader_archs', args.archs)
    args.e2e_iters = 12 if args.quick else preset.get('e2e_iters', 60)
    args.e2e_log_interval = 2 if args.quick else preset.get('e2e_log_interval', 10)
    args.preset = 'gpu' if args.gpu_rows else 'cpu' if args.cpu_rows else None
    if args.device == 'cuda' and not torch.cuda.is_available():
        raise ValueError('--device cuda: no CUDA device visible')
    return args


#: The published CLIP4IDC code's adaptation loop, end to end on one H100 with
#: 480x320 PNGs (its loader, 4 workers): pairs/s to double.
PUBLISHED_E2E_PAIRS_PER_S = 245
#: Targets: end to end (both stages) against that figure, and the ViT-B/32
#: adaptation step's MFU.
TARGET_E2E_SPEEDUP = 3
TARGET_MFU = 0.25


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
            out.append(dict(target=f'MFU >= {TARGET_MFU}, ViT-B/32 adaptation step, bf16',
                            measured=f'{best["mfu"]} ({best.get("variant", "baseline")})',
                            met=best['mfu'] >= TARGET_MFU))
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
        if row['arch'] == 'vit-b32':
            out.append(dict(target=f'>= {TARGET_E2E_SPEEDUP} x {PUBLISHED_E2E_PAIRS_PER_S} '
                            f'pairs/s end to end, {name}', measured=row['pairs_per_s'],
                            met=row['pairs_per_s'] >= TARGET_E2E_SPEEDUP
                            * PUBLISHED_E2E_PAIRS_PER_S))
    for row in result.get('cli', []):
        name = row['arch'] + (f', {row["workers"]} {row["worker_type"]} workers'
                              if 'worker_type' in row else '')
        out.append(dict(target=f'caption_pair.py >= 80% of batched decoding, {name}',
                        measured=row['cli_over_model'], met=row['cli_over_model'] >= 0.8))
        if result['machine'].get('gpu'):
            out.append(dict(target=f'caption_pair.py >= 1,500 pairs/s, {name}',
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
    ("the configs' optimizer step alone (gradient clipping, BertAdam)", 'optimizer',
     ['arch', 'stage', 'device', 'tensors', 'params', 'groups', 'what', 'step_ms',
      'min_ms', 'load']),
    ("peer: open_clip's CLIP training step", 'peer',
     ['arch', 'dtype', 'batch', 'batch_unit', 'step_s', 'gflop_per_step',
      'achieved_gflops', 'mfu', 'load']),
    ('data loader', 'loader',
     ['arch', 'image_size', 'size', 'source', 'workers', 'batch', 'pairs',
      'steady_pairs_per_s', 'steady_pairs_per_s_per_core', 'first_batch_s', 'load']),
    ('tools/train.py end to end', 'e2e',
     ['arch', 'stage', 'source', 'options', 'batch', 'iters', 'iter_s', 'data_share',
      'pairs_per_s', 'step_pairs_per_s', 'e2e_over_step', 'overhead_share', 'wall_s',
      'outside_loop_s', 'startup_s', 'to_first_log_s', 'shutdown_s', 'load']),
    ('inference (greedy, 32 tokens)', 'inference',
     ['arch', 'batch', 'cached_s', 'uncached_s', 'uncached_measured',
      'captions_per_s_cached', 'captions_per_s_uncached', 'speedup', 'same_tokens',
      'vision_share', 'caption_encoder_share', 'decoder_share', 'load']),
    ('tools/caption_pair.py --pairs-file vs batched decoding', 'cli',
     ['arch', 'weights', 'image_size', 'pairs', 'batch', 'workers', 'worker_type',
      'model_pairs_per_s', 'cli_pairs_per_s', 'cli_over_model', 'prepare_ms_per_pair',
      'model_ms_per_pair', 'load']),
    ('targets', 'targets', ['target', 'measured', 'met']),
]


def docs_section(args) -> str:
    """The name of the generated section ``--write-docs`` fills."""
    return args.docs_section or args.preset or (
        'gpu' if args.device == 'cuda' else 'cpu')


def tables_text(result: dict, level: str = '###') -> str:
    """The markdown tables of a run's record, headings at ``level``."""
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


def run_benchmark(args, command: str) -> dict:
    """Measure the sections of ``args`` (see :func:`resolve_settings`).

    The results so far are written to ``args.out`` (and into the generated
    section of ``args.write_docs``) after each section, and after each row of
    the long ones (``variants``, ``e2e``), so that a run cut short keeps what
    it measured.

    Args:
        args (argparse.Namespace): The settings.
        command (str): The command line, for the record.

    Returns:
        dict: The record written to ``args.out``.
    """
    torch.set_num_threads(args.threads or os.cpu_count() or 1)
    torch.manual_seed(0)
    started = time.time()
    commit = git_commit()
    result = dict(command=command,
                  date=time.strftime('%Y-%m-%d %H:%M', time.gmtime()),
                  commit=commit[0] if commit else '?', machine=machine_info(args.device),
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

    def save_so_far():  # after each row of the long sections
        finish(args, result, started, peaks_start, final=False)

    sections = dict(
        train=lambda: result.update(zip(('training', 'profiles'), measure_training(args))),
        variants=lambda: measure_variants(args, result.get('training', []),
                                          result.setdefault('variants', []), save_so_far),
        optimizer=lambda: result.update(optimizer=measure_optimizer(args)),
        peer=lambda: result.update(peer=measure_peer(args)),
        loader=lambda: result.update(loader=measure_loading(args, data_root)),
        e2e=lambda: measure_e2e(args, data_root, result.setdefault('e2e', []),
                                save_so_far),
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
    return result


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
    os.makedirs(osp.dirname(osp.abspath(args.out)), exist_ok=True)
    with open(args.out, 'w') as f:
        json.dump(result, f, indent=2)
    if args.write_docs:
        report.write_section(args.write_docs, docs_section(args), '\n'.join(
            report.machine_lines(result)) + '\n\n' + tables_text(result, '####'))
