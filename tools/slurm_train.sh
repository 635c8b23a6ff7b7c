#!/usr/bin/env bash
# Training on a Slurm cluster, one task per GPU (OpenMMLab's convention):
#   [GPUS=8] [GPUS_PER_NODE=8] [CPUS_PER_TASK=5] [SRUN_ARGS="..."] \
#   bash tools/slurm_train.sh PARTITION JOB_NAME CONFIG WORK_DIR [train.py args...]
# GPUS: tasks (GPUs) in all; GPUS_PER_NODE: per machine (at most GPUS);
# CPUS_PER_TASK: loader workers' cores per GPU; SRUN_ARGS: more srun options
# (e.g. "--time=24:00:00 --qos=normal"). The global batch is GPUS times the
# config's batch: docs/distributed.md.
set -e
if [ $# -lt 4 ]; then
    echo "usage: [GPUS=8] [GPUS_PER_NODE=8] [CPUS_PER_TASK=5] [SRUN_ARGS=...]" \
        "bash $0 PARTITION JOB_NAME CONFIG WORK_DIR [train.py args...]" >&2
    exit 2
fi
# Checked before anything is submitted (the counts: tools/slurm_launch.sh).
if [ ! -f "$3" ]; then
    echo "$(basename "$0"): config not found: $3" >&2
    exit 2
fi
# The srun call: tools/slurm_launch.sh.
exec bash "$(dirname "$0")/slurm_launch.sh" "$1" "$2" tools/train.py "$3" \
    --work-dir="$4" --launcher=slurm "${@:5}"
