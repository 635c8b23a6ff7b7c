#!/usr/bin/env bash
# Multi-GPU (or multi-process CPU, gloo) training with torchrun + MMEngine DDP.
#   bash tools/dist_train.sh CONFIG NPROC [train.py args...]
# Several machines: set NNODES, NODE_RANK, MASTER_ADDR and PORT on each.
CONFIG=$1
NPROC=$2
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
    "$ROOT/tools/train.py" "$CONFIG" --launcher pytorch "${@:3}"
