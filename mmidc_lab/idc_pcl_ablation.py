"""IDC-PCL's ablation (its paper's Table 4) in miniature, on the synthetic
CLEVR-Change-style set with the tiny CPU configs.

    python -m mmidc_lab.idc_pcl_ablation \
        [--rows ROW ...] [--seeds 0 1 2] [--work-dir work_dirs/idc_pcl_ablation]

Rows (:data:`mmidc_lab.experiments.idc_pcl_ablation.ROWS`): no-pretraining, mlm,
mlm-mvcl, mlm-mvcl-fda (the full recipe), no-diff-encoder, no-distractor.

Every run of a row and seed: ``python -m mmidc.cli.train`` (pre-training),
then ``python -m mmidc.cli.train`` (fine-tuning; the checkpoint is chosen on
val by CIDEr-D), then ``python -m mmidc.cli.test`` once on the test split
with that checkpoint
(:mod:`mmidc_lab.experiments.idc_pcl_ablation`). Finished stages are skipped
when the command runs again, so an interrupted ablation resumes. The data
set, its 96x144 cache and its hard negatives are made first when absent.
Each run's wall and CPU time and the load average are recorded; the table
of test CIDEr-D (mean +- sd over seeds, total and per change type) goes to
``<work-dir>/summary.md`` and is printed.

``--threads`` sets the training processes' threads (default 1: on a shared
2-core machine one thread per process keeps its steps steady).
"""
import argparse
import sys

from mmidc_lab.experiments import ExperimentError
from mmidc_lab.experiments.idc_pcl_ablation import ROWS, run_ablation, summarise

def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--rows', nargs='+', choices=list(ROWS), default=list(ROWS))
    p.add_argument('--seeds', nargs='+', type=int, default=[0, 1, 2])
    p.add_argument('--work-dir', default='work_dirs/idc_pcl_ablation')
    p.add_argument('--threads', type=int, default=1)
    p.add_argument('--summary-only', action='store_true',
                   help='only tabulate the finished runs')
    return p.parse_args()


def main():
    args = parse_args()
    try:
        if not args.summary_only:
            run_ablation(args.rows, args.seeds, args.work_dir, args.threads)
    except ExperimentError as err:
        sys.exit(str(err))
    print(summarise(args.work_dir))


if __name__ == '__main__':
    main()
