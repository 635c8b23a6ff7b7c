"""Time to score 8,000 CLEVR-like pairs (slow: run with ``-m slow -s``)."""
import os
import random
import time

import pytest

from mmidc.evaluation import IDCMetric

COLORS = ['blue', 'brown', 'cyan', 'gray', 'green', 'purple', 'red', 'yellow']
MATERIALS = ['matte', 'metal', 'metallic', 'rubber', 'shiny']
SHAPES = ['ball', 'block', 'cube', 'cylinder', 'sphere', 'object', 'thing']
SIZES = ['big', 'large', 'small', 'tiny']
NO_CHANGE = ['no change was made', 'there is no change',
             'the two scenes seem identical', 'the scene is the same as before',
             'the scene remains the same', 'nothing has changed',
             'nothing was modified', 'no change has occurred',
             'there is no difference']


def clevr_sentence(rng, ctype):
    obj = f'the {rng.choice(SIZES)} {rng.choice(COLORS)} {rng.choice(SHAPES)}'
    if ctype == 'color':
        return f'{obj} {rng.choice(["changed to", "turned", "became"])} ' \
               f'{rng.choice(COLORS)}'
    if ctype == 'material':
        return f'{obj} {rng.choice(["changed to", "turned", "became"])} ' \
               f'{rng.choice(MATERIALS)}'
    if ctype == 'add':
        return f'{obj} ' + rng.choice(['has been added', 'has appeared',
                                       'has been newly placed'])
    if ctype == 'drop':
        return f'{obj} ' + rng.choice(['has disappeared', 'is missing',
                                       'is gone', 'is no longer there'])
    if ctype == 'move':
        return f'{obj} ' + rng.choice(['changed its location', 'moved',
                                       'is in a different location'])
    return rng.choice(NO_CHANGE)


def clevr_like_samples(num_pairs=8000, num_refs=9, seed=0):
    rng = random.Random(seed)
    samples = []
    for i in range(num_pairs):
        ctype = ('none' if i % 2 else rng.choice(
            ['color', 'material', 'add', 'drop', 'move']))
        samples.append(
            dict(pair_id=f'{i // 2:06d}.png' + ('_n' if i % 2 else ''),
                 change_type=ctype,
                 pred_caption=clevr_sentence(rng, ctype),
                 gt_captions=[clevr_sentence(rng, ctype)
                              for _ in range(num_refs)]))
    return samples


@pytest.mark.slow
def test_time_8000_pairs():
    samples = clevr_like_samples()
    metric = IDCMetric(out_file_prefix=None)
    metric.process(None, samples)
    start, cpu_start = time.time(), os.times()
    result = metric.compute_metrics(metric.results)
    seconds, cpu = time.time() - start, os.times()
    python_cpu = (cpu.user + cpu.system) - (cpu_start.user + cpu_start.system)
    java_cpu = ((cpu.children_user + cpu.children_system) -
                (cpu_start.children_user + cpu_start.children_system))
    print(f'\nIDCMetric, 8000 pairs x 9 references, total + per type: '
          f'{seconds:.1f}s wall, CPU {python_cpu:.1f}s Python + '
          f'{java_cpu:.1f}s Java; load average {os.getloadavg()[0]:.1f} '
          f'on {os.cpu_count()} cores; CIDEr {result["CIDEr"]:.1f}')
    assert len(result) == 7 * 8  # total, 5 types, semantic, distractor
    assert 0 < result['CIDEr']
