"""mmidc_lab.benchmarks.benchmark_run: settings and presets, the speed targets
and the tables of a run's record."""
from argparse import Namespace

import pytest

from mmidc_lab.benchmarks.benchmark_run import (parse_batch, resolve_settings,
                                            tables_text, targets)
from mmidc_lab.benchmarks.sections import batch_size


def parsed(**options):
    """The namespace the benchmark's command line gives with no options."""
    args = dict(quick=False, gpu_rows=False, cpu_rows=False, device=None,
                archs=None, dtypes=None, batch=None, e2e_batch=None,
                steps=None, sections=None, skip=[], variants=None,
                num_scenes=None, image_size=None, cli_pairs=None,
                cli_batch=None, cli_worker_types=None, e2e_sources=None)
    args.update(options)
    return Namespace(**args)


def test_batch_per_stage_and_presets():
    assert parse_batch(['adaptation=128', 'captioning=64']) == dict(
        adaptation=128, captioning=64)
    assert parse_batch(['16']) == dict(adaptation=16, captioning=16)
    with pytest.raises(ValueError, match='STAGE=N'):
        parse_batch(['pretraining=3'])
    args = resolve_settings(parsed(batch=['adaptation=128'], archs=['tiny']))
    assert batch_size(args, 'tiny', 'adaptation') == 128
    assert batch_size(args, 'tiny', 'captioning') == 64  # the arch's
    gpu = resolve_settings(parsed(gpu_rows=True, device='cpu'))
    assert gpu.batch == dict(adaptation=128, captioning=64)
    assert gpu.device == 'cpu' and gpu.preset == 'gpu'
    assert 'peer' in gpu.sections and gpu.archs == ['vit-b32']
    assert gpu.cli_worker_types == ['thread', 'process']  # caption_pair.py's two kinds
    assert gpu.e2e_sources == ['png', 'cache']
    cpu = resolve_settings(parsed(cpu_rows=True, skip=['cli']))
    assert cpu.sections == ['train', 'loader', 'e2e']
    assert cpu.loader_archs == ['vit-b32', 'tiny'] and cpu.steps == 5
    with pytest.raises(ValueError, match='two runs'):
        resolve_settings(parsed(gpu_rows=True, cpu_rows=True))


def test_targets_and_tables():
    e2e = dict(arch='tiny', stage='captioning', source='cache', batch=16,
               data_share=0.05, e2e_over_step=0.7, overhead_share=0.3,
               pairs_per_s=100.0)
    result = dict(machine=dict(gpu=None), e2e=[e2e], cli=[dict(
        arch='tiny', cli_over_model=0.9, cli_pairs_per_s=50.0, command='c',
        workers=2, worker_type='process')])
    met = {t['target']: t['met'] for t in targets(result)}
    assert met == {
        'data_time < 10% of the iteration, tiny captioning cache, batch 16': True,
        'end to end >= 80% of the step pairs/s, tiny captioning cache, batch 16':
            False,
        'per-iteration overhead <= 25%, tiny captioning cache, batch 16': False,
        'caption_pair.py >= 80% of batched decoding, tiny, 2 process workers': True}
    result['targets'] = targets(result)
    text = tables_text(result)
    assert text.startswith('### tools/train.py end to end\n\n| arch | stage')
    assert '| tiny | captioning | cache |' in text
    assert 'CLI command: `c`' in text
