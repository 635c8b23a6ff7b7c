"""The quickstart pipeline on the synthetic CLEVR-Change-style set.

    python tools/quickstart.py [--work-dir work_dirs/quickstart]
        [--num-scenes N] [--caption-config CONFIG]
        [--adapt-options KEY=VALUE ...] [--caption-options KEY=VALUE ...]
        [--no-shifted]

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

Each training stage keeps the checkpoint that is best on the val split by
its config's ``default_hooks.checkpoint.save_best``; stages 4, 5 and 7 use
the captioning stage's. ``--adapt-options`` / ``--caption-options`` override
config settings of stage 3 / stages 4-7 (``--cfg-options`` syntax), e.g.
validate every epoch and keep the captioner that is best by caption truth::

    --caption-options train_cfg.val_interval=1 \\
        default_hooks.checkpoint.save_best=truth/total
"""
import argparse
import glob
import json
import os
import os.path as osp
import subprocess
import sys
import time

ROOT = osp.dirname(osp.dirname(osp.abspath(__file__)))
ADAPT_CFG = 'configs/from_scratch/clip4idc-adapt_tiny_synthetic-clevr-change.py'
CAPTION_CFG = 'configs/from_scratch/clip4idc-caption_tiny_synthetic-clevr-change.py'
DATA_ROOT = 'data/synthetic_clevr_change'  # the configs' data_root
SHIFTED_PRESET = 'shifted'
SHIFTED_ROOT = 'data/synthetic_clevr_change_shifted'
SHIFTED_DATASET_CFG = \
    'configs/_base_/datasets/synthetic_clevr_change_shifted_96x144.py'


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--work-dir', default='work_dirs/quickstart')
    p.add_argument('--num-scenes', type=int, default=None,
                   help='scenes to generate (default: the config\'s)')
    p.add_argument('--workers', type=int, default=2)
    p.add_argument('--caption-config', default=CAPTION_CFG,
                   help='captioning config (stage 4 and the tests)')
    p.add_argument('--adapt-options', nargs='+', default=[],
                   metavar='KEY=VALUE',
                   help='override settings of the adaptation config')
    p.add_argument('--caption-options', nargs='+', default=[],
                   metavar='KEY=VALUE',
                   help='override settings of the captioning config (its '
                   'training and both tests)')
    p.add_argument('--no-shifted', action='store_true',
                   help='skip stages 6-7 (the shifted evaluation set)')
    p.add_argument('--show', type=int, default=8,
                   help='test captions to print next to their references')
    return p.parse_args(argv)


def banner(text):
    print(f'\n=== {text} ' + '=' * max(0, 70 - len(text)), flush=True)


def run(cmd, log=None):
    """Run ``cmd`` in the repository root; its output goes to the file
    ``log`` (appended) if given."""
    print('$ ' + ' '.join(cmd) + (f'  (output: {log})' if log else ''),
          flush=True)
    if log is None:
        subprocess.run(cmd, check=True, cwd=ROOT)
        return
    os.makedirs(osp.dirname(osp.abspath(log)), exist_ok=True)
    with open(log, 'a') as f:
        result = subprocess.run(cmd, cwd=ROOT, stdout=f,
                                stderr=subprocess.STDOUT)
    if result.returncode:
        sys.exit(f'command failed (exit {result.returncode}); its output: '
                 f'{log}')


def stage_done(work_dir):
    return osp.isfile(osp.join(work_dir, 'DONE'))


def parse_options(options):
    """``['a.b=1', 'c=[1,2]']`` -> ``{'a.b': 1, 'c': [1, 2]}``, as
    ``--cfg-options`` parses them."""
    from mmengine.config import DictAction
    parsed = {}
    for option in options:
        key, sep, value = option.partition('=')
        if not sep or not key:
            sys.exit(f'option {option!r} is not KEY=VALUE')
        parsed[key] = DictAction._parse_iterable(value)
    return parsed


def load_config(config_file, options=()):
    """A config with ``options`` (``KEY=VALUE`` strings) merged in."""
    from mmengine.config import Config
    cfg = Config.fromfile(config_file)
    if options:
        cfg.merge_from_dict(parse_options(options))
    return cfg


def model_settings(config_file, options=()):
    """A config's ``model`` as a dict, without the run's
    ``init_backbone_from`` (the quickstart passes it on the command line)."""
    model = load_config(config_file, options).get('model')
    model = model.to_dict() if model is not None else {}
    model.pop('init_backbone_from', None)
    return model


def save_best_key(config_file, options=()):
    """The metric key a config's checkpoint hook keeps the best of."""
    hooks = load_config(config_file, options).get('default_hooks', {})
    key = hooks.get('checkpoint', {}).get('save_best')
    if isinstance(key, (list, tuple)):
        key = key[0] if key else None
    if not key or key == 'auto':
        sys.exit(f'{config_file}: default_hooks.checkpoint.save_best must '
                 f'name a metric key (got {key!r}) for the quickstart to '
                 'pick the val-best checkpoint')
    return key


def train_stage(name, config, work_dir, extra=(), options=(), log=None):
    """Train ``config`` in ``work_dir`` (``extra``: more train.py arguments,
    ``options``: ``KEY=VALUE`` overrides, ``log``: output file); skipped
    when done."""
    banner(name)
    if stage_done(work_dir):
        dumped = osp.join(work_dir, osp.basename(config))
        if not osp.isfile(dumped):
            sys.exit(f'{work_dir} holds a finished run of another config '
                     f'than {config}: choose another --work-dir')
        if model_settings(dumped) != model_settings(config, options):
            sys.exit(f'{work_dir} holds a finished run of an earlier version '
                     f'of {config} (its model settings differ): choose '
                     'another --work-dir, or delete it to train again')
        print(f'already done ({work_dir}/DONE): skipped')
        return
    cmd = [sys.executable, 'tools/train.py', config, '--work-dir', work_dir,
           *extra]
    if options:
        cmd += ['--cfg-options', *options]
    if osp.isfile(osp.join(work_dir, 'last_checkpoint')):
        print('found an interrupted run: resuming it')
        cmd.append('--resume')
    t0 = time.time()
    run(cmd, log)
    with open(osp.join(work_dir, 'DONE'), 'w') as f:
        f.write(f'{time.time() - t0:.0f} s\n')


def best_checkpoint(work_dir, key=None):
    """The val-best checkpoint ``best_<key>_*.pth`` (any ``best_*`` without
    ``key``; the newest if several)."""
    pattern = 'best_*.pth' if key is None else \
        f'best_{key.replace("/", "_")}_*.pth'
    found = sorted(glob.glob(osp.join(work_dir, pattern)), key=osp.getmtime)
    if not found:
        raise FileNotFoundError(
            f'no {pattern} in {work_dir}: the run kept no val-best '
            'checkpoint by that key (finished with another save_best? then '
            'choose another --work-dir)')
    return found[-1]


def ensure_dataset(root, generate_kwargs, size, splits, workers, log=None):
    """Generate a synthetic set under ``root`` if absent, then build (or
    check) its pre-resized cache of ``splits`` at ``size`` (H, W)."""
    if osp.isfile(osp.join(root, 'splits.json')):
        print(f'{root} exists: kept')
    else:
        from mmidc.synthetic import generate_dataset
        generate_dataset(root, workers=workers, **generate_kwargs)
    if 'train' in splits:  # the captioners' vocabulary (the generator writes it)
        from mmidc.text import ensure_vocab_file
        ensure_vocab_file(dict(type='CLEVRChangeDataset', data_root=root))
    run([sys.executable, 'tools/dataset_converters/build_resized_cache.py',
         '--dataset-type', 'CLEVRChangeDataset', '--data-root', root,
         '--splits', *splits, '--size', str(size[0]), str(size[1]),
         '--workers', str(workers)], log)


def test_config(config, options, work_dir, dataset_config=None,
                truth=True):
    """Write the test config of a stage to ``work_dir``: ``config`` (with
    ``options``), the test loader and evaluators of ``dataset_config`` if
    given, predictions saved in ``work_dir`` and (``truth``) caption truth
    evaluated. Returns its path."""
    cfg = load_config(config, options)
    if dataset_config is not None:
        data = load_config(dataset_config)
        cfg.test_dataloader = data.test_dataloader
        cfg.test_evaluator = data.test_evaluator
    evaluators = cfg.test_evaluator
    evaluators = list(evaluators) if isinstance(evaluators, (list, tuple)) \
        else [evaluators]
    for evaluator in evaluators:
        if evaluator['type'] == 'IDCMetric':
            evaluator['output_dir'] = work_dir
    if truth and not any(e['type'] == 'CaptionTruthMetric'
                         for e in evaluators):
        evaluators.append(dict(type='CaptionTruthMetric',
                               data_root=cfg.test_dataloader.dataset.data_root))
    cfg.test_evaluator = evaluators
    os.makedirs(work_dir, exist_ok=True)
    path = osp.join(work_dir, 'test_config.py')
    cfg.dump(path)
    return path


def test_stage(name, config, options, checkpoint, work_dir,
               dataset_config=None, truth=True, log=None):
    """Score ``checkpoint`` on a test split; skipped when done for it.

    Returns:
        tuple: ``(scores, records, predictions_file)``; no records (None)
        without a predictions file (a retrieval test).
    """
    banner(name)
    done = osp.join(work_dir, 'DONE')
    if osp.isfile(done) and open(done).read().strip() == checkpoint:
        print(f'already done for {checkpoint} ({done}): skipped')
    else:
        composed = test_config(config, options, work_dir, dataset_config,
                               truth)
        run([sys.executable, 'tools/test.py', composed, checkpoint,
             '--work-dir', work_dir], log)
        with open(done, 'w') as f:
            f.write(checkpoint + '\n')
    return load_test_results(work_dir)


def load_test_results(test_dir):
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


def main(argv=None):
    args = parse_args(argv)
    os.chdir(ROOT)
    sys.path.insert(0, ROOT)
    t_start = time.time()
    adapt_cfg = load_config(ADAPT_CFG, args.adapt_options)
    synth = adapt_cfg.get('synthetic_data', {})
    size = tuple(adapt_cfg.image_size)
    times = {}

    banner('1-2/7 synthetic CLEVR-Change-style data and its image cache')
    t0 = time.time()
    ensure_dataset(DATA_ROOT, dict(
        num_scenes=args.num_scenes or synth['num_scenes'],
        seed=synth.get('seed', 0), image_size=tuple(synth['image_size'])),
        size, ('train', 'val', 'test'), args.workers)
    times['data'] = time.time() - t0

    adapt_dir = osp.join(args.work_dir, 'adapt')
    caption_dir = osp.join(args.work_dir, 'caption')
    t0 = time.time()
    train_stage('3/7 adaptation (pair<->text contrastive)', ADAPT_CFG,
                adapt_dir, options=args.adapt_options)
    adapted = best_checkpoint(adapt_dir,
                              save_best_key(ADAPT_CFG, args.adapt_options))
    times['adaptation'] = time.time() - t0
    t0 = time.time()
    train_stage('4/7 captioning (initialised from the adapted encoder)',
                args.caption_config, caption_dir,
                extra=('--cfg-options', f'model.init_backbone_from={adapted}'),
                options=args.caption_options)
    captioner = best_checkpoint(caption_dir, save_best_key(
        args.caption_config, args.caption_options))
    times['captioning'] = time.time() - t0

    t0 = time.time()
    test = test_stage('5/7 test split', args.caption_config,
                      args.caption_options, captioner,
                      osp.join(args.work_dir, 'test'))
    times['test'] = time.time() - t0
    print(f'(the captioner: {captioner}, best on val by '
          f'{save_best_key(args.caption_config, args.caption_options)})')
    report('Test split', *test, show=args.show)

    shifted = None
    if not args.no_shifted:
        from mmidc.synthetic import PRESETS
        banner('6/7 shifted evaluation set (another seed and settings)')
        t0 = time.time()
        ensure_dataset(SHIFTED_ROOT, PRESETS[SHIFTED_PRESET], size,
                       ('test', ), args.workers)
        times['shifted data'] = time.time() - t0
        t0 = time.time()
        shifted = test_stage(
            '7/7 the same captioner on the shifted test split',
            args.caption_config, args.caption_options, captioner,
            osp.join(args.work_dir, 'test_shifted'), SHIFTED_DATASET_CFG)
        times['shifted test'] = time.time() - t0
        report('Shifted test split (not trained or selected on)', *shifted,
               show=0)
        print('\nBoth test splits, x100 (the shifted set: '
              f'tools/generate_synthetic_clevr_change.py {SHIFTED_ROOT} '
              f'--preset {SHIFTED_PRESET}):')
        print(format_side_by_side({'test': test[0],
                                   'shifted test': shifted[0]}))
    print('\n[quickstart] stage wall times: ' + ', '.join(
        f'{name} {seconds:.0f} s' for name, seconds in times.items()))
    print(f'[quickstart] pipeline wall time (after setup): '
          f'{time.time() - t_start:.0f} s; checkpoints and logs in '
          f'{args.work_dir}/')


def report(title, scores, records, preds_file, show=8):
    """Print the metric table, caption truth and a few test captions next
    to their references."""
    from mmidc.evaluation.metrics.caption_scorer import (format_score_table,
                                                         subset_counts)
    from mmidc.evaluation.metrics.caption_truth import (format_truth_table,
                                                        subset_sizes)
    caption_scores = {k: v for k, v in scores.items()
                      if not k.startswith('truth/')}
    truth = {k[len('truth/'):]: v for k, v in scores.items()
             if k.startswith('truth/')}
    print(f'\n{title}, x100 (CIDEr = CIDEr-D), rows: all pairs, each change '
          'type, all change pairs (semantic), no-change pairs (distractor):')
    print(format_score_table(caption_scores, subset_counts(records)))
    print(f'\n{title}, caption truth (% of captions true of the scene graph; '
          'right type / object / new value: the partial checks):')
    print(format_truth_table(truth, subset_sizes(records)))
    if show:
        print(f'\nA few pairs (all {len(records)} in {preds_file}):')
    by_type = {}
    for r in records:
        by_type.setdefault(r['change_type'], []).append(r)
    shown = 0
    while shown < show and any(by_type.values()):
        for kind in sorted(by_type):
            if by_type[kind] and shown < show:
                r = by_type[kind].pop(0)
                print(f"- [{kind}] {r['pair_id']}\n    predicted: "
                      f"{r['prediction']}\n    reference: "
                      f"{r['references'][0]}")
                shown += 1


def format_side_by_side(results):
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


if __name__ == '__main__':
    main()
