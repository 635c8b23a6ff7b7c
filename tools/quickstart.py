"""The quickstart pipeline on the synthetic CLEVR-Change-style set.

    python tools/quickstart.py [--work-dir work_dirs/quickstart]
        [--num-scenes N] [--caption-config CONFIG]

Stages (each skipped when already done, resumed when interrupted):
 1. generate the synthetic data set (CLEVR-Change layout) if absent,
 2. build the pre-resized image cache,
 3. adaptation (pair<->text contrastive) with the tiny CPU config,
 4. captioning, initialised from the adapted encoder,
 5. test: the metric table (total, per type, distractor) and a few captions.
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


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--work-dir', default='work_dirs/quickstart')
    p.add_argument('--num-scenes', type=int, default=None,
                   help='scenes to generate (default: the config\'s)')
    p.add_argument('--workers', type=int, default=2)
    p.add_argument('--caption-config', default=CAPTION_CFG,
                   help='captioning config (stage 4 and the test), e.g. '
                   'the 10-epoch variant of the default')
    p.add_argument('--show', type=int, default=8,
                   help='test captions to print next to their references')
    return p.parse_args()


def banner(text):
    print(f'\n=== {text} ' + '=' * max(0, 70 - len(text)), flush=True)


def run(cmd):
    print('$ ' + ' '.join(cmd), flush=True)
    subprocess.run(cmd, check=True, cwd=ROOT)


def stage_done(work_dir):
    return osp.isfile(osp.join(work_dir, 'DONE'))


def model_settings(config_file):
    """A config's ``model`` as a dict, without the run's
    ``init_backbone_from`` (the quickstart passes it on the command line)."""
    from mmengine.config import Config
    model = Config.fromfile(config_file).get('model')
    model = model.to_dict() if model is not None else {}
    model.pop('init_backbone_from', None)
    return model


def train_stage(name, config, work_dir, extra=()):
    banner(name)
    if stage_done(work_dir):
        dumped = osp.join(work_dir, osp.basename(config))
        if not osp.isfile(dumped):
            sys.exit(f'{work_dir} holds a finished run of another config '
                     f'than {config}: choose another --work-dir')
        if model_settings(dumped) != model_settings(config):
            sys.exit(f'{work_dir} holds a finished run of an earlier version '
                     f'of {config} (its model settings differ): choose '
                     'another --work-dir, or delete it to train again')
        print(f'already done ({work_dir}/DONE): skipped')
        return
    cmd = [sys.executable, 'tools/train.py', config, '--work-dir', work_dir,
           *extra]
    if osp.isfile(osp.join(work_dir, 'last_checkpoint')):
        print('found an interrupted run: resuming it')
        cmd.append('--resume')
    t0 = time.time()
    run(cmd)
    with open(osp.join(work_dir, 'DONE'), 'w') as f:
        f.write(f'{time.time() - t0:.0f} s\n')


def best_checkpoint(work_dir):
    found = sorted(glob.glob(osp.join(work_dir, 'best_*.pth')),
                   key=osp.getmtime)
    if not found:
        raise FileNotFoundError(f'no best_*.pth in {work_dir}')
    return found[-1]


def main():
    args = parse_args()
    os.chdir(ROOT)
    sys.path.insert(0, ROOT)
    t_start = time.time()
    from mmengine.config import Config
    adapt_cfg = Config.fromfile(ADAPT_CFG)
    synth = adapt_cfg.get('synthetic_data', {})

    banner('1/5 synthetic CLEVR-Change-style data')
    if osp.isfile(osp.join(DATA_ROOT, 'splits.json')):
        print(f'{DATA_ROOT} exists: kept')
    else:
        from mmidc.datasets.synthetic import generate_dataset
        generate_dataset(DATA_ROOT,
                         num_scenes=args.num_scenes or synth['num_scenes'],
                         seed=synth.get('seed', 0),
                         image_size=tuple(synth['image_size']),
                         workers=args.workers)

    banner('2/5 pre-resized image cache')
    h, w = adapt_cfg.image_size
    run([sys.executable, 'tools/dataset_converters/build_resized_cache.py',
         '--dataset-type', 'CLEVRChangeDataset', '--data-root', DATA_ROOT,
         '--splits', 'train', 'val', 'test', '--size', str(h), str(w),
         '--workers', str(args.workers)])

    adapt_dir = osp.join(args.work_dir, 'adapt')
    caption_dir = osp.join(args.work_dir, 'caption')
    train_stage('3/5 adaptation (pair<->text contrastive)', ADAPT_CFG,
                adapt_dir)
    adapted = best_checkpoint(adapt_dir)
    train_stage('4/5 captioning (initialised from the adapted encoder)',
                args.caption_config, caption_dir,
                extra=('--cfg-options', f'model.init_backbone_from={adapted}'))

    banner('5/5 test split')
    test_dir = osp.join(args.work_dir, 'test')
    run([sys.executable, 'tools/test.py', args.caption_config,
         best_checkpoint(caption_dir), '--work-dir', test_dir,
         '--cfg-options', f'test_evaluator.output_dir={test_dir}'])
    report(test_dir, args.show)
    print(f'\n[quickstart] pipeline wall time (after setup): '
          f'{time.time() - t_start:.0f} s; checkpoints and logs in '
          f'{args.work_dir}/')


def report(test_dir, show):
    """Print the metric table and a few test captions next to references."""
    from mmidc.evaluation.metrics.caption_scorer import (format_score_table,
                                                         subset_counts)
    with open(osp.join(test_dir, 'test_scores.json')) as f:
        scores = json.load(f)
    preds_file = sorted(glob.glob(osp.join(test_dir, 'predictions*.json')),
                        key=osp.getmtime)[-1]
    with open(preds_file) as f:
        records = json.load(f)
    print('\nTest split, x100 (CIDEr = CIDEr-D), rows: all pairs, each change '
          'type, all change pairs (semantic), no-change pairs (distractor):')
    print(format_score_table(scores, subset_counts(records)))
    print(f'\nA few test pairs (all {len(records)} in {preds_file}):')
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


if __name__ == '__main__':
    main()
