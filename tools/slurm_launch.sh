#!/usr/bin/env bash
# What tools/slurm_train.sh and tools/slurm_test.sh share: run one of mmidc's
# tools under srun, one task per GPU (OpenMMLab's convention):
#   bash tools/slurm_launch.sh PARTITION JOB_NAME TOOL [TOOL args...]
# TOOL is relative to the repository (tools/train.py); the environment
# settings are the calling script's (GPUS, GPUS_PER_NODE, CPUS_PER_TASK,
# SRUN_ARGS, PYTHON).
set -e
PARTITION=$1
JOB_NAME=$2
TOOL=$3
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
    "$PY" -u "$ROOT/$TOOL" "${@:4}"
