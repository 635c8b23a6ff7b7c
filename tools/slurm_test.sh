#!/usr/bin/env bash
# Testing a checkpoint on a Slurm cluster, one task per GPU (OpenMMLab's
# convention):
#   [GPUS=8] [GPUS_PER_NODE=8] [CPUS_PER_TASK=5] [SRUN_ARGS="..."] \
#   bash tools/slurm_test.sh PARTITION JOB_NAME CONFIG CHECKPOINT [test.py args...]
# GPUS: tasks (GPUs) in all; GPUS_PER_NODE: per machine (at most GPUS);
# CPUS_PER_TASK: loader workers' cores per GPU; SRUN_ARGS: more srun options.
set -e
if [ $# -lt 4 ]; then
    echo "usage: [GPUS=8] [GPUS_PER_NODE=8] [CPUS_PER_TASK=5] [SRUN_ARGS=...]" \
        "bash $0 PARTITION JOB_NAME CONFIG CHECKPOINT [test.py args...]" >&2
    exit 2
fi
PARTITION=$1
JOB_NAME=$2
CONFIG=$3
CHECKPOINT=$4
GPUS=${GPUS:-8}
GPUS_PER_NODE=${GPUS_PER_NODE:-$((GPUS < 8 ? GPUS : 8))}
CPUS_PER_TASK=${CPUS_PER_TASK:-5}
SRUN_ARGS=${SRUN_ARGS:-""}
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PY=${PYTHON:-"$ROOT/.venv/bin/python"}
[ -x "$PY" ] || PY=python

set -x
# SRUN_ARGS unquoted: split into its options.
PYTHONPATH="$ROOT:$PYTHONPATH" \
srun -p "$PARTITION" \
    --job-name="$JOB_NAME" \
    --gres=gpu:"$GPUS_PER_NODE" \
    --ntasks="$GPUS" \
    --ntasks-per-node="$GPUS_PER_NODE" \
    --cpus-per-task="$CPUS_PER_TASK" \
    --kill-on-bad-exit=1 \
    $SRUN_ARGS \
    "$PY" -u "$ROOT/tools/test.py" "$CONFIG" "$CHECKPOINT" \
    --launcher=slurm "${@:5}"
