#!/usr/bin/env bash
# Test the lowest dependency versions setup.cfg admits: every ">=X" of
# install_requires (and of the mmcv-lite extra) is pinned to "==X" in a separate
# virtual environment, .venv-lower/, and a smoke subset of the tests runs there
# (open_clip towers and their parity with open_clip, the model utils, every
# config built and stepped once, including the tiny schedule's fused AdamW,
# checkpoint safety, resume, inference).
#   bash tools/check_lower_bounds.sh            # the smoke subset
#   bash tools/check_lower_bounds.sh tests/...  # other tests
# Slow (it downloads torch and its CUDA libraries the first time, then a few
# minutes): not part of CI (tools/run_tests.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
VENV=${LOWER_VENV:-.venv-lower}
[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
"$VENV/bin/python" -m pip install -q uv 2>/dev/null || true
if [ -x "$VENV/bin/uv" ]; then
  install() { "$VENV/bin/uv" pip install -q --python "$VENV/bin/python" "$@"; }
else
  install() { "$VENV/bin/python" -m pip install -q "$@"; }
fi
# install_requires and the lite extra, lower bounds pinned exactly
mapfile -t PINS < <("$VENV/bin/python" - <<'PYEOF'
import configparser, re
cfg = configparser.ConfigParser()
cfg.read('setup.cfg')
lines = cfg['options']['install_requires'].split('\n')
lines += cfg['options.extras_require']['lite'].split('\n')
for line in lines:
    line = line.split('#')[0].strip()
    if not line:
        continue
    match = re.match(r'^([A-Za-z0-9_.-]+)\s*(.*)$', line)
    name, spec = match.groups()
    low = re.search(r'>=\s*([^,\s]+)', spec)
    print(f'{name}=={low.group(1)}' if low else name)
PYEOF
)
echo "[lower bounds] ${PINS[*]}"
install "${PINS[@]}" pytest pytest-timeout
install --no-deps -e .
"$VENV/bin/python" -c "import torch, open_clip, mmengine, mmpretrain, mmcv, safetensors; print('[lower bounds] torch', torch.__version__, '| open_clip', open_clip.__version__, '| mmengine', mmengine.__version__, '| mmpretrain', mmpretrain.__version__, '| mmcv', mmcv.__version__, '| safetensors', safetensors.__version__)"
if [ $# -eq 0 ]; then
  set -- tests/test_models tests/test_configs tests/test_engine/test_checkpoint_safety.py \
    tests/test_engine/test_resume.py tests/test_datasets/test_transforms \
    tests/test_apis/test_idc_inferencer.py
fi
exec "$VENV/bin/python" -m pytest -q -p no:cacheprovider "$@"
