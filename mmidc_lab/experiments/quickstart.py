"""The quickstart's pipeline on the synthetic CLEVR-Change-style set.

Stages (each skipped when already done, resumed when interrupted):

1. generate the synthetic data set (CLEVR-Change layout) if absent,
2. build the pre-resized image cache,
3. adaptation (pair<->text contrastive) with the tiny CPU config,
4. captioning, initialised from the adapted encoder,
5. test: the metric table (total, per type, distractor), caption truth (the
   share of captions true of the scene graphs) and a few captions,
6. the shifted set (another seed and generator settings, evaluation only):
   generated and cached if absent,
7. the trained captioner on the shifted set's test split, no retraining;
   then both test splits side by side.

With ``tiny_clip`` (``python -m mmidc_lab.quickstart --tiny-clip``; off by default,
since the tiny-CLIP path is below the from-scratch recipe on val), the
tiny-CLIP path follows, then every test split of both paths side by side:

8. pretrain the tiny CLIP with open_clip's trainer
   (``python -m projects.tiny_clip.pretrain``; a finished run is kept, so a
   second quickstart only re-exports it),
9. captioning on the tiny CLIP (:data:`TINY_CLIP_CAPTION_CFG`, the
   tiny-CLIP row best on val: each image encoded alone, no adaptation),
10-11. its test split and the shifted set's.

Each training stage keeps the checkpoint that is best on the val split by
its config's ``default_hooks.checkpoint.save_best``; stages 4, 5 and 7 use
the captioning stage's. The configs are the from-scratch project's and
the shipped shifted-set config (:mod:`mmidc_lab.configs`); the data and
work dirs are relative to the working directory, a clone's root, as the
configs' ``data_root`` is.
"""
import os.path as osp
import sys
import time
from typing import Dict, Optional, Sequence

from mmengine.logging import print_log

from mmidc_lab.configs import core_config, project_config
from mmidc_lab.run_logs import best_checkpoint
from .run_configs import load_config, save_best_key
from . import stages
from .stages import banner, ensure_dataset, test_stage, train_stage

__all__ = ['run_quickstart', 'format_test_report', 'format_side_by_side']

ADAPT_CFG = project_config('from_scratch',
                           'clip4idc-adapt_tiny_synthetic-clevr-change.py')
CAPTION_CFG = project_config('from_scratch',
                             'clip4idc-caption_tiny_synthetic-clevr-change.py')
DATA_ROOT = 'data/synthetic_clevr_change'  # the configs' data_root
SHIFTED_PRESET = 'shifted'
SHIFTED_ROOT = 'data/synthetic_clevr_change_shifted'
SHIFTED_DATASET_CFG = core_config(
    'mmidc::_base_/datasets/synthetic_clevr_change_shifted_96x144.py')
TINY_CLIP_CAPTION_CFG = project_config(
    'from_scratch', 'clip-ft-caption_tiny-clip-prior_synthetic-clevr-change.py')
#: The tiny CLIP's pretraining command (the tiny-CLIP project's).
PRETRAIN_TINY_CLIP = ('-m', 'projects.tiny_clip.pretrain')
# The tiny CLIP every tiny-CLIP figure in docs/ comes from: 8 epochs over
# the default corpus, one cosine.
TINY_CLIP_EPOCHS = 8


def synthetic_data_kwargs(adapt_cfg, num_scenes: Optional[int] = None) -> dict:
    """``generate_dataset`` arguments of the set an adaptation config trains
    on (its ``synthetic_data``): the scenes (or ``num_scenes``), seed and
    image size."""
    synth = adapt_cfg.get('synthetic_data', {})
    return dict(num_scenes=num_scenes or synth['num_scenes'],
                seed=synth.get('seed', 0),
                image_size=tuple(synth['image_size']))


def run_quickstart(work_dir: str = 'work_dirs/quickstart',
                   num_scenes: Optional[int] = None, workers: int = 2,
                   caption_config: str = CAPTION_CFG,
                   adapt_options: Sequence[str] = (),
                   caption_options: Sequence[str] = (),
                   shifted: bool = True, show: int = 8,
                   tiny_clip: bool = False) -> Dict:
    """Run the quickstart's stages; log the test tables as they come.

    Args:
        work_dir (str): Checkpoints, logs and test results.
        num_scenes (int, optional): Scenes to generate (default: the
            adaptation config's).
        workers (int): Processes for generation and caching.
        caption_config (str): The captioning config (stage 4 and the tests).
        adapt_options (Sequence[str]): ``KEY=VALUE`` overrides of stage 3.
        caption_options (Sequence[str]): ``KEY=VALUE`` overrides of stages
            4-7 (and 9-11: both paths share the caption side).
        shifted (bool): Run stages 6-7 (the shifted evaluation set) and,
            with ``tiny_clip``, 11.
        show (int): Test captions to log next to their references.
        tiny_clip (bool): Also run the tiny-CLIP path (stages 8-11) in
            ``<work_dir>/tiny_clip``.

    Returns:
        dict: ``test`` and ``shifted test`` scores (the latter with
        ``shifted``), ``captioner`` (the tested checkpoint) and ``times``
        (wall seconds per stage); with ``tiny_clip`` also ``tiny CLIP``, a
        dict of the same keys but ``times`` for that path.
    """
    t_start = time.time()
    adapt_cfg = load_config(ADAPT_CFG, adapt_options)
    size = tuple(adapt_cfg.image_size)
    times = {}
    last = 11 if tiny_clip else 7

    banner(f'1-2/{last} synthetic CLEVR-Change-style data and its image '
           'cache')
    t0 = time.time()
    ensure_dataset(DATA_ROOT, synthetic_data_kwargs(adapt_cfg, num_scenes),
                   size, ('train', 'val', 'test'), workers)
    times['data'] = time.time() - t0

    adapt_dir = osp.join(work_dir, 'adapt')
    caption_dir = osp.join(work_dir, 'caption')
    t0 = time.time()
    train_stage(f'3/{last} adaptation (pair<->text contrastive)', ADAPT_CFG,
                adapt_dir, options=adapt_options)
    adapted = best_checkpoint(adapt_dir,
                              save_best_key(ADAPT_CFG, adapt_options))
    times['adaptation'] = time.time() - t0
    t0 = time.time()
    train_stage(f'4/{last} captioning (initialised from the adapted '
                'encoder)', caption_config, caption_dir,
                extra=('--cfg-options', f'model.init_backbone_from={adapted}'),
                options=caption_options)
    select = save_best_key(caption_config, caption_options)
    captioner = best_checkpoint(caption_dir, select)
    times['captioning'] = time.time() - t0
    result = dict(captioner=captioner, times=times)
    result.update(_test_captioner(
        caption_config, caption_options, captioner, select, work_dir, size,
        workers, shifted, show, times, numbers=(5, 6, 7), last=last))

    if tiny_clip:
        tiny = dict(times={})
        tiny_dir = osp.join(work_dir, 'tiny_clip')
        t0 = time.time()
        banner(f'8/{last} the tiny CLIP, pretrained with open_clip_train')
        clip_cfg = load_config(TINY_CLIP_CAPTION_CFG)
        clip_file = clip_cfg.model.backbone.pretrained
        stages.run_command([
            sys.executable, *PRETRAIN_TINY_CLIP, '--work-dir',
            osp.dirname(clip_file), '--export', clip_file, '--epochs',
            str(TINY_CLIP_EPOCHS)])
        tiny['times']['tiny CLIP'] = time.time() - t0
        t0 = time.time()
        train_stage(f'9/{last} captioning on the tiny CLIP (each image '
                    'encoded alone, no adaptation)', TINY_CLIP_CAPTION_CFG,
                    osp.join(tiny_dir, 'caption'), options=caption_options)
        tiny_select = save_best_key(TINY_CLIP_CAPTION_CFG, caption_options)
        tiny['captioner'] = best_checkpoint(osp.join(tiny_dir, 'caption'),
                                            tiny_select)
        tiny['times']['captioning'] = time.time() - t0
        tiny.update(_test_captioner(
            TINY_CLIP_CAPTION_CFG, caption_options, tiny['captioner'],
            tiny_select, tiny_dir, size, workers, shifted, show,
            tiny['times'], numbers=(10, None, 11), last=last,
            path='tiny CLIP: '))
        result['tiny CLIP'] = tiny
        columns = {'from scratch: test': result['test'],
                   'tiny CLIP: test': tiny['test']}
        if shifted:
            columns.update({'from scratch: shifted': result['shifted test'],
                            'tiny CLIP: shifted': tiny['shifted test']})
        print_log('Both paths, x100 (from scratch: '
                  f'{osp.relpath(caption_config)}; tiny CLIP: '
                  f'{osp.relpath(TINY_CLIP_CAPTION_CFG)}):\n'
                  + format_side_by_side(columns), logger='current')
        print_log('[quickstart] tiny-CLIP stage wall times: ' + ', '.join(
            f'{name} {seconds:.0f} s'
            for name, seconds in tiny['times'].items()), logger='current')
    print_log('[quickstart] stage wall times: ' + ', '.join(
        f'{name} {seconds:.0f} s' for name, seconds in times.items()),
        logger='current')
    print_log(f'[quickstart] pipeline wall time (after setup): '
              f'{time.time() - t_start:.0f} s; checkpoints and logs in '
              f'{work_dir}/', logger='current')
    return result


def _test_captioner(config: str, options: Sequence[str], captioner: str,
                    select: str, work_dir: str, size: Sequence[int],
                    workers: int, shifted: bool, show: int, times: Dict,
                    numbers: Sequence, last: int, path: str = '') -> Dict:
    """Score a captioner once on the test split and, with ``shifted``, once
    on the shifted set; log the tables. ``numbers`` are the stage numbers of
    the test, the shifted set's generation and caching (None: made before)
    and the shifted test.

    Returns:
        dict: ``test`` and (with ``shifted``) ``shifted test`` scores.
    """
    t0 = time.time()
    test = test_stage(f'{numbers[0]}/{last} {path}test split', config, options,
                      captioner, osp.join(work_dir, 'test'))
    times['test'] = time.time() - t0
    print_log(f'(the captioner: {captioner}, best on val by {select})',
              logger='current')
    print_log(format_test_report(f'{path}Test split', *test, show=show),
              logger='current')
    result = dict(test=test[0])
    if not shifted:
        return result
    from mmidc.synthetic import PRESETS
    if numbers[1] is not None:
        banner(f'{numbers[1]}/{last} shifted evaluation set (another seed and '
               'settings)')
        t0 = time.time()
        ensure_dataset(SHIFTED_ROOT, PRESETS[SHIFTED_PRESET], size,
                       ('test', ), workers)
        times['shifted data'] = time.time() - t0
    t0 = time.time()
    shifted_test = test_stage(
        f'{numbers[2]}/{last} {path}the same '
        'captioner on the shifted test split', config, options, captioner,
        osp.join(work_dir, 'test_shifted'), SHIFTED_DATASET_CFG)
    times['shifted test'] = time.time() - t0
    print_log(format_test_report(
        f'{path}Shifted test split (not trained or selected on)',
        *shifted_test, show=0), logger='current')
    print_log(f'{path}Both test splits, x100 (the shifted set: '
              f'tools/generate_synthetic_clevr_change.py {SHIFTED_ROOT} '
              f'--preset {SHIFTED_PRESET}):\n' + format_side_by_side(
                  {'test': test[0], 'shifted test': shifted_test[0]}),
              logger='current')
    result['shifted test'] = shifted_test[0]
    return result


def format_test_report(title: str, scores: dict, records: list,
                       preds_file: str, show: int = 8) -> str:
    """The metric table, caption truth and a few test captions next to
    their references."""
    from mmidc.evaluation.metrics.caption_scorer import (format_score_table,
                                                         subset_counts)
    from mmidc.evaluation.metrics.caption_truth import format_truth_table
    caption_scores = {k: v for k, v in scores.items()
                      if not k.startswith('truth/')}
    truth = {k[len('truth/'):]: v for k, v in scores.items()
             if k.startswith('truth/')}
    lines = [
        f'{title}, x100 (CIDEr = CIDEr-D), rows: all pairs, each change '
        'type, all change pairs (semantic), no-change pairs (distractor):',
        format_score_table(caption_scores, subset_counts(records)), '',
        f'{title}, caption truth (% of captions true of the scene graph; '
        'right type / object / new value: the partial checks):',
        format_truth_table(truth, subset_counts(records))]
    if show:
        lines += ['', f'A few pairs (all {len(records)} in {preds_file}):']
    by_type = {}
    for r in records:
        by_type.setdefault(r['change_type'], []).append(r)
    shown = 0
    while shown < show and any(by_type.values()):
        for kind in sorted(by_type):
            if by_type[kind] and shown < show:
                r = by_type[kind].pop(0)
                lines.append(f"- [{kind}] {r['pair_id']}\n    predicted: "
                             f"{r['prediction']}\n    reference: "
                             f"{r['references'][0]}")
                shown += 1
    return '\n'.join(lines)


def format_side_by_side(results: Dict[str, dict]) -> str:
    """A row per score (BLEU-4, METEOR, ROUGE-L, CIDEr of every subset,
    then caption truth of every subset), a column per set."""
    names = list(results)
    keys = []
    for scores in results.values():
        keys += [k for k in scores if k not in keys]
    keep = [k for k in keys if k in ('Bleu_4', 'METEOR', 'ROUGE_L', 'CIDEr')
            or (k.endswith('/CIDEr'))]
    keep += [k for k in keys if k.startswith('truth/')
             and k.count('/') == 1]
    lines = [['score'] + names]
    for key in keep:
        label = key if '/' in key else f'total/{key}'
        if key.startswith('truth/'):
            label = f'{key[len("truth/"):]}/true %'
        lines.append([label] + [
            f'{results[n][key]:.2f}' if key in results[n] else '-'
            for n in names])
    widths = [max(len(line[i]) for line in lines)
              for i in range(len(lines[0]))]
    return '\n'.join('  '.join(cell.rjust(w) if i else cell.ljust(w)
                               for i, (cell, w) in enumerate(zip(line, widths)))
                     for line in lines)
