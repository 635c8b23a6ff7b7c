#!/usr/bin/env bash
# Everything of the speed work that needs a GPU, in one command on a machine
# with one CUDA GPU, Python >= 3.9 and PyTorch; it needs no internet and no
# Java, and installs mmidc's other dependencies from wheels (below).
#
#   bash tools/analysis_tools/gpu_session.sh [setup] [tests] [bench]   # default: all three
#
# 1. setup: installs the wheels in .whl/ (mmidc's dependencies, downloaded
#    with `pip download` where pip works; docs/benchmark.md) into .site/,
#    checks the imports, generates the 2,000-scene 480x320 synthetic set (CLEVR-Change's size).
# 2. tests: the `cuda` tests (pytest -m cuda): AMP fp16/bf16 steps, one-process
#    NCCL dist_train.sh, resume on CUDA, the inferencer on CUDA, the batched
#    preprocessor and the step numerics on CUDA.
# 3. bench: python -m mmidc_lab.benchmark --gpu-rows, writing the GPU
#    section of docs/benchmark.md (a copy under $OUT) and the JSON; sections in
#    order of priority, the results so far saved after each one, stopped
#    cleanly before the time limit ($BUDGET seconds in all, default 570).
#
# BENCH_ARGS are added to the benchmark's command, e.g. a second command for
# the sections a first one did not reach:
#   BENCH_ARGS="--sections variants inference --docs-section gpu-more" \
#       bash tools/analysis_tools/gpu_session.sh bench
#
# Results go to $OUT (default work_dirs/gpu_session): session.log,
# cuda_tests.log, bench.log, bench.json, benchmark.md, nvidia-smi.txt,
# e2e_logs.tgz (each end-to-end run's output, stamped). Copy $OUT/benchmark.md over docs/benchmark.md
# (only its generated GPU section changes) and commit it.
set -uo pipefail
cd "$(dirname "$0")/../.."
START=$(date +%s)
OUT=${OUT:-work_dirs/gpu_session}
BUDGET=${BUDGET:-570}
DATA=${DATA:-work_dirs/gpu_session_data/synthetic_480x320}
PY=${PYTHON:-python3}
export PYTHON=$PY PYTHONUNBUFFERED=1
mkdir -p "$OUT"
PARTS=("$@")
[ ${#PARTS[@]} -eq 0 ] && PARTS=(setup tests bench)
log() { echo "[gpu_session $(date -u +%H:%M:%S) +$(( $(date +%s) - START ))s] $*" | tee -a "$OUT/session.log"; }
wants() { local p; for p in "${PARTS[@]}"; do [ "$p" = "$1" ] && return 0; done; return 1; }

# The environment, every part (a fresh machine has nothing installed).
if [ -d .whl ] && ls .whl/*.whl >/dev/null 2>&1; then
  if [ ! -f .site/.installed ]; then
    log "installing $(ls .whl/*.whl | wc -l) wheels into .site/"
    if "$PY" -m pip install -q --no-index --no-deps --no-compile --target "$PWD/.site" \
        .whl/*.whl >> "$OUT/session.log" 2>&1; then
      touch .site/.installed
    else
      log "pip install failed (see session.log)"
    fi
  fi
  export PYTHONPATH="$PWD/.site:$PWD/.whl/extra:$PWD${PYTHONPATH:+:$PYTHONPATH}"
else
  log "no .whl/ here: using the installed packages"
  export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
fi
"$PY" - <<'PYEOF' 2>&1 | tee -a "$OUT/session.log"
import torch, mmengine, mmpretrain, open_clip, mmidc
print('torch', torch.__version__, 'cuda', torch.version.cuda, 'mmengine', mmengine.__version__,
      'mmpretrain', mmpretrain.__version__, 'open_clip', open_clip.__version__,
      'gpu', torch.cuda.get_device_name() if torch.cuda.is_available() else None)
PYEOF
nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1 || true
# The shipped configs where an installed mmidc keeps them (mmidc/.mim/configs,
# which the lab resolves mmidc::NAME against): linked as an editable install
# links them, since mmidc runs from this clone uninstalled.
if [ ! -e mmidc/.mim/configs ]; then
  mkdir -p mmidc/.mim && ln -s ../../configs mmidc/.mim/configs
fi

if wants setup || wants bench; then
  if [ ! -f "$DATA/splits.json" ]; then
    log "generating 2,000 synthetic scenes at 480x320 in $DATA"
    "$PY" tools/generate_synthetic_clevr_change.py "$DATA" --num-scenes 2000 \
      --workers "$(nproc)" 2>&1 | tail -2 | tee -a "$OUT/session.log"
  fi
fi

if wants tests; then
  log "cuda tests"
  # collection errors (a module needing a package the machine lacks, e.g. the
  # web demo's) must not stop the cuda tests
  "$PY" -m pytest -q -m cuda -rA -p no:cacheprovider --continue-on-collection-errors \
    tests 2>&1 | tee "$OUT/cuda_tests.log" | tail -30
  log "cuda tests: $(tail -1 "$OUT/cuda_tests.log")"
fi

if wants bench; then
  cp docs/benchmark.md "$OUT/benchmark.md"
  LEFT=$(( BUDGET - ($(date +%s) - START) ))
  log "benchmark, ${LEFT}s left"
  timeout --signal=INT --kill-after=20 "$LEFT" "$PY" -m mmidc_lab.benchmark \
    --gpu-rows --data-dir "$DATA" --out "$OUT/bench.json" --write-docs "$OUT/benchmark.md" \
    ${BENCH_ARGS:-} 2>&1 | tee "$OUT/bench.log" | grep "^\[\|^|" | tail -60
  log "benchmark exit status ${PIPESTATUS[0]} (124/130: stopped at the time limit; the sections before are in bench.json)"
  # the e2e runs' stamped outputs, one file (the device tool returns $OUT's
  # top two levels only)
  logs=$(cd "$OUT" && find e2e -name train_output.log 2>/dev/null)
  [ -n "$logs" ] && (cd "$OUT" && tar czf e2e_logs.tgz $logs)
fi
log "done"
