#!/usr/bin/env bash
# Multi-GPU (or multi-process CPU, gloo) training with torchrun + MMEngine DDP.
#   bash tools/dist_train.sh CONFIG NPROC [train.py args...]
# Several machines: set NNODES, NODE_RANK, MASTER_ADDR and PORT on each.
CONFIG=$1
NPROC=$2
# Checked before torchrun starts: a message and exit 2.
fail() {
    printf '%s\n' "$(basename "$0"): $*" >&2
    exit 2
}
[ $# -ge 2 ] || fail "usage: bash $0 CONFIG NPROC [train.py args...]"
[[ $NPROC =~ ^[1-9][0-9]{0,3}$ ]] ||
    fail "NPROC (processes per machine, the second argument) must be a whole number of at least 1, got '$NPROC'"
[ -f "$CONFIG" ] || fail "config not found: $CONFIG"
NNODES=${NNODES:-1}
NODE_RANK=${NODE_RANK:-0}
PORT=${PORT:-29500}
MASTER_ADDR=${MASTER_ADDR:-"127.0.0.1"}
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PY=${PYTHON:-"$ROOT/.venv/bin/python"}
[ -x "$PY" ] || PY=python

# A SIGTERM (scancel, preemption) reaches the ranks, which save iter_<n>.pth and
# exit with 143; torchrun itself then ends with an error. Exit with 143 too, so
# that a requeue script sees the stop (bash runs the trap when torchrun ends).
trap 'STOPPED=1' TERM
PYTHONPATH="$ROOT:$PYTHONPATH" \
"$PY" -m torch.distributed.run \
    --nnodes="$NNODES" \
    --node_rank="$NODE_RANK" \
    --master_addr="$MASTER_ADDR" \
    --nproc_per_node="$NPROC" \
    --master_port="$PORT" \
    "$ROOT/tools/train.py" "$CONFIG" --launcher pytorch "${@:3}"
RC=$?
if [ -n "${STOPPED:-}" ] && [ "$RC" -ne 0 ]; then exit 143; fi
exit "$RC"
