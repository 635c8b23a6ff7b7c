#!/usr/bin/env bash
# Create (or refresh) the project's virtual environment in .venv/ and install
# mmidc into it in editable mode. Idempotent: a second run is quick.
#   EXTRAS=tests,demo,tensorboard,clip-pretrain bash tools/setup_env.sh   (the default)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
EXTRAS=${EXTRAS:-tests,demo,tensorboard,clip-pretrain}
stamp=.venv/.mmidc-installed
if [ ! -x .venv/bin/python ]; then
  echo "[setup] creating .venv with $($PY --version)"
  "$PY" -m venv .venv
fi
if [ -f "$stamp" ] && [ "$stamp" -nt setup.cfg ] && [ "$stamp" -nt setup.py ] \
    && grep -qx "$EXTRAS" "$stamp"; then
  echo "[setup] .venv is up to date"
  exit 0
fi
pip() { .venv/bin/python -m pip "$@"; }
# uv (from PyPI) installs the same packages about twice as fast as pip
# (parallel downloads and unpacking); pip, upgraded first, is the fallback.
# Byte-code is compiled at install time, as pip does: without it every
# process compiles torch's modules again at import (about 9 s more each).
if pip install -q uv 2>/dev/null; then
  install() { .venv/bin/uv pip install -q --python .venv/bin/python --compile-bytecode "$@"; }
else
  pip install -q --upgrade pip
  install() { pip install -q "$@"; }
fi
# PyPI's default torch + torchvision pair (runs on CPU; CUDA used when present),
# in the range setup.cfg declares.
.venv/bin/python -c "import torch, torchvision" 2>/dev/null || {
  echo "[setup] installing torch + torchvision (about 1-2 minutes)"
  mapfile -t torch_reqs < <(sed -n 's/^ *\(torch\(vision\)\?[<>=][^ #]*\).*/\1/p' setup.cfg)
  install "${torch_reqs[@]}"
}
echo "[setup] installing mmidc[$EXTRAS] and its dependencies"
install -e ".[$EXTRAS]"
# Keep a full mmcv if one is there; otherwise the op-less build is enough.
# (uv builds mmidc in an environment of its own, from which setup.py cannot
# see a full mmcv in .venv: it declares no mmcv-lite then, and this adds it.)
.venv/bin/python -c "import mmcv" 2>/dev/null || {
  echo "[setup] no mmcv found: installing mmcv-lite"
  install "mmcv-lite>=2.0.0,<2.4.0"
}
.venv/bin/python -c "import mmidc; from mmidc.evaluation.metrics.java import java_version; print('[setup] mmidc', mmidc.__version__, '| java:', java_version() or 'NOT FOUND (needed by the caption metrics)')"
echo "$EXTRAS" > "$stamp"
