#!/usr/bin/env bash
# What tools/slurm_train.sh and tools/slurm_test.sh share: run one of mmidc's
# tools under srun, one task per GPU (OpenMMLab's convention):
#   bash tools/slurm_launch.sh PARTITION JOB_NAME TOOL [TOOL args...]
# TOOL is relative to the repository (tools/train.py); the environment
# settings are the calling script's (GPUS, GPUS_PER_NODE, CPUS_PER_TASK,
# SRUN_ARGS, PYTHON).
# Nothing is submitted when an argument is wrong: a message and exit 2.
set -e
PARTITION=$1
JOB_NAME=$2
TOOL=$3
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
fail() {
    printf '%s\n' "$(basename "$0"): $*" >&2
    exit 2
}
# A count is digits only, checked before any shell arithmetic reads it
# (bash evaluates a variable's text there: GPUS='a[$(cmd)]' would run cmd).
whole_number() {
    [[ $2 =~ ^[1-9][0-9]{0,5}$ ]] ||
        fail "$1 must be a whole number of at least 1, got '$2'"
}
[ $# -ge 3 ] || fail "usage: bash $0 PARTITION JOB_NAME TOOL [TOOL args...]"
[ -f "$ROOT/$TOOL" ] || fail "tool not found: $ROOT/$TOOL"
GPUS=${GPUS:-8}
whole_number GPUS "$GPUS"
GPUS_PER_NODE=${GPUS_PER_NODE:-$((GPUS < 8 ? GPUS : 8))}
whole_number GPUS_PER_NODE "$GPUS_PER_NODE"
CPUS_PER_TASK=${CPUS_PER_TASK:-5}
whole_number CPUS_PER_TASK "$CPUS_PER_TASK"
SRUN_ARGS=${SRUN_ARGS:-""}
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
