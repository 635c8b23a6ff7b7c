#!/usr/bin/env bash
# Multi-GPU (or multi-process CPU, gloo) testing with torchrun + MMEngine DDP.
#   bash tools/dist_test.sh CONFIG CHECKPOINT NPROC [test.py args...]
# Several machines: set NNODES, NODE_RANK, MASTER_ADDR and PORT on each.
CONFIG=$1
CHECKPOINT=$2
NPROC=$3
# Checked before torchrun starts: a message and exit 2.
fail() {
    printf '%s\n' "$(basename "$0"): $*" >&2
    exit 2
}
[ $# -ge 3 ] || fail "usage: bash $0 CONFIG CHECKPOINT NPROC [test.py args...]"
[[ $NPROC =~ ^[1-9][0-9]{0,3}$ ]] ||
    fail "NPROC (processes per machine, the third argument) must be a whole number of at least 1, got '$NPROC'"
[ -f "$CONFIG" ] || fail "config not found: $CONFIG"
[ ! -d "$CHECKPOINT" ] ||
    fail "$CHECKPOINT is a folder, not a checkpoint: give a checkpoint file in it"
[ -f "$CHECKPOINT" ] || fail "checkpoint not found: $CHECKPOINT"
NNODES=${NNODES:-1}
NODE_RANK=${NODE_RANK:-0}
PORT=${PORT:-29500}
MASTER_ADDR=${MASTER_ADDR:-"127.0.0.1"}
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PY=${PYTHON:-"$ROOT/.venv/bin/python"}
[ -x "$PY" ] || PY=python

PYTHONPATH="$ROOT:$PYTHONPATH" \
"$PY" -m torch.distributed.run \
    --nnodes="$NNODES" \
    --node_rank="$NODE_RANK" \
    --master_addr="$MASTER_ADDR" \
    --nproc_per_node="$NPROC" \
    --master_port="$PORT" \
    "$ROOT/tools/test.py" "$CONFIG" "$CHECKPOINT" --launcher pytorch "${@:4}"
