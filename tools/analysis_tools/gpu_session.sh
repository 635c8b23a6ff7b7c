#!/usr/bin/env bash
# Everything of the speed work that needs a GPU, in one command on a machine
# with one CUDA GPU, Python >= 3.9 and PyTorch; it needs no internet and no
# Java, and installs mmidc's other dependencies from wheels (.whl/, below).
#
#   bash tools/analysis_tools/gpu_session.sh [--dry-run] [PART ...]
#
# The parts, in this order of priority (default: all), each given at most
# its own limit and what is left of the total budget ($BUDGET seconds,
# default 660: 11 minutes), each writing its results under $OUT as it ends:
#
#   tests   pytest -m cuda                            -> tests.log, tests.xml
#   step    training steps on synthetic tensors (ViT-B/32, bf16): the harness
#           step, the configs' optimizer (BertAdam, its groups, the clip) and
#           both compiled; open_clip's own step (MFU); the optimizer alone
#           (loop vs foreach, clip foreach off/on)      -> step.json, step.log
#   e2e     python -m mmidc.cli.train on both ViT-B/32 configs from PNGs
#           (start-up, first window, shutdown columns) -> e2e.json, e2e_logs.tgz
#   cli     python -m mmidc.cli.caption_pair --pairs-file vs batched
#           decoding                                   -> cli.json
#           and the CPU ms per pair of each step of preparing a pair
#           (python -m mmidc_lab.pair_cpu_cost)        -> cpu_cost.json
#   dtypes  the step in fp32 and bf16 (docs/model_zoo.md's speed column)
#                                                      -> dtypes.json
#   scale   python -m mmidc_lab.quickstart --num-scenes 30000 (10x the
#           scenes, so 10x the steps of each epoch; best epoch on val, test and
#           shifted test once, caption truth per type): last, with what is
#           left, stopped cleanly before the end; its logs and checkpoints so
#           far are kept (a second session resumes it)  -> scale.log,
#           scale_results.tgz
#
# Every part also writes <part>.status (exit status, seconds, limit; 124/130:
# stopped at its limit, the rows before kept), and the benchmark parts fill
# their own generated section of $OUT/benchmark.md (a copy of
# docs/benchmark.md): gpu-step, gpu-e2e, gpu-cli, gpu-dtypes.
#
# Settings (environment): OUT (default work_dirs/gpu_session), BUDGET,
# PYTHON, DATA (the generated 480x320 set, reused when present),
# SCALE_SCENES (30000), BENCH_ARGS (added to every benchmark command).
#
# --dry-run (or QUICK=1): the whole script on a CPU with tiny sizes (tiny
# configs, a few scenes and steps, one epoch a stage; budget 1200 s: it took
# about 13 minutes on a 2-core machine shared with other jobs, load about 7), to check it before a GPU
# session; the tests part runs one small file's cuda tests (skipped there).
#
# The environment first: a fresh machine has nothing installed. With .whl/
# here (docs/benchmark.md#gpu-session-for-contributors), the wheels go into
# .site/ (pip --no-index --no-deps --target), which goes on PYTHONPATH.
set -uo pipefail
cd "$(dirname "$0")/../.."
REPO=$PWD
START=$(date +%s)
QUICK=${QUICK:-0}
PARTS=()
for arg in "$@"; do
  case "$arg" in
    --dry-run) QUICK=1 ;;
    tests|step|e2e|cli|dtypes|scale) PARTS+=("$arg") ;;
    setup|bench) echo "gpu_session.sh: '$arg' is no longer a part; parts: tests step e2e cli dtypes scale" >&2; exit 2 ;;
    *) echo "gpu_session.sh: unknown argument '$arg' (parts: tests step e2e cli dtypes scale; --dry-run)" >&2; exit 2 ;;
  esac
done
[ ${#PARTS[@]} -eq 0 ] && PARTS=(tests step e2e cli dtypes scale)
OUT=${OUT:-work_dirs/gpu_session}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
PY=${PYTHON:-python3}
SCALE_SCENES=${SCALE_SCENES:-30000}
if [ "$QUICK" = 1 ]; then
  BUDGET=${BUDGET:-1200}
  DATA=${DATA:-$OUT/work/synthetic_quick}
  # tiny config, few scenes and steps, on the CPU
  BENCH=(--quick --device cpu --archs tiny --dtypes fp32 --threads 2)
  STEP_ARGS=(--sections train optimizer variants --variants config-optim)
  E2E_ARGS=(--sections e2e --e2e-sources png --stages captioning)
  CLI_ARGS=(--sections cli --cli-worker-types thread)
  DTYPE_ARGS=(--sections train --dtypes fp32 bf16)
  TESTS=(tests/test_engine/test_optimizers/test_bert_adam.py
         tests/test_engine/test_autocast_optim_wrapper.py)
  SCALE_SCENES=${QUICK_SCALE_SCENES:-40}
  SCALE_ARGS=(--no-shifted --adapt-options train_cfg.max_epochs=1)
  CAPTION_OPTIONS=(train_cfg.max_epochs=1)
  # no limit of its own for a part: each may take what the budget has left
  LIMITS=(tests=0 step=0 e2e=0 cli=0 cpu_cost=0 dtypes=0 scale=0)
  COST_REPEATS=3
else
  BUDGET=${BUDGET:-660}
  DATA=${DATA:-work_dirs/gpu_session_data/synthetic_480x320}
  BENCH=(--gpu-rows)
  STEP_ARGS=(--sections train peer optimizer variants
             --variants config-optim compile+fused config-optim+compile fused)
  E2E_ARGS=(--sections e2e --e2e-sources png --stages captioning adaptation)
  CLI_ARGS=(--sections cli --cli-worker-types thread)
  DTYPE_ARGS=(--sections train --dtypes fp32 bf16)
  TESTS=(tests)
  SCALE_ARGS=()
  CAPTION_OPTIONS=()
  LIMITS=(tests=120 step=200 e2e=200 cli=90 cpu_cost=40 dtypes=60 scale=0)
  COST_REPEATS=20
fi
MARGIN=15     # seconds kept at the end (archives, the last log lines)
MIN_PART=20   # a part that would get less is skipped
export PYTHON=$PY PYTHONUNBUFFERED=1

log() { echo "[gpu_session $(date -u +%H:%M:%S) +$(( $(date +%s) - START ))s] $*" | tee -a "$OUT/session.log"; }
wants() { local p; for p in "${PARTS[@]}"; do [ "$p" = "$1" ] && return 0; done; return 1; }
limit_of() { local kv; for kv in "${LIMITS[@]}"; do [ "${kv%%=*}" = "$1" ] && echo "${kv#*=}"; done; }
left() { echo $(( BUDGET - ($(date +%s) - START) - MARGIN )); }

# run_part NAME COMMAND...: the command with at most the part's limit (0: all
# that is left), SIGINT at the limit (the benchmark and the trainers save what
# they have), then SIGKILL 10 s later; NAME.log and NAME.status in $OUT.
run_part() {
  local name=$1; shift
  local cap; cap=$(limit_of "$name")
  local t; t=$(left)
  if [ "$cap" -gt 0 ] && [ "$cap" -lt "$t" ]; then t=$cap; fi
  if [ "$t" -lt "$MIN_PART" ]; then
    log "$name: skipped, $(left)s of the budget left"
    echo "rc=skipped seconds=0 limit_s=$t (budget spent)" > "$OUT/$name.status"
    return 0
  fi
  log "$name: up to ${t}s"
  local t0; t0=$(date +%s)
  timeout --signal=INT --kill-after=10 "$t" "$@" > "$OUT/$name.log" 2>&1
  local rc=$?
  echo "rc=$rc seconds=$(( $(date +%s) - t0 )) limit_s=$t" > "$OUT/$name.status"
  log "$name: exit status $rc after $(( $(date +%s) - t0 ))s (124/130/137: stopped at the limit)"
}

bench() {  # the benchmark: its JSON and its generated docs section per part
  local name=$1; shift
  run_part "$name" "$PY" -m mmidc_lab.benchmark "${BENCH[@]}" --data-dir "$DATA" \
    --out "$OUT/$name.json" --write-docs "$OUT/benchmark.md" --docs-section "gpu-$name" \
    "$@" ${BENCH_ARGS:-}
  grep "^|" "$OUT/$name.log" | tail -20
}

log "parts: ${PARTS[*]}; budget ${BUDGET}s; out $OUT$([ "$QUICK" = 1 ] && echo '; dry run (CPU, tiny sizes)')"
if [ -d .whl ] && ls .whl/*.whl >/dev/null 2>&1; then
  if [ ! -f .site/.installed ]; then
    log "installing $(ls .whl/*.whl | wc -l) wheels into .site/"
    if "$PY" -m pip install -q --no-index --no-deps --no-compile --target "$REPO/.site" \
        .whl/*.whl >> "$OUT/session.log" 2>&1; then
      touch .site/.installed
    else
      log "pip install failed (see session.log)"
    fi
  fi
  export PYTHONPATH="$REPO/.site:$REPO/.whl/extra:$REPO${PYTHONPATH:+:$PYTHONPATH}"
else
  log "no .whl/ here: using the installed packages"
  export PYTHONPATH="$REPO${PYTHONPATH:+:$PYTHONPATH}"
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
[ -f "$OUT/benchmark.md" ] || cp docs/benchmark.md "$OUT/benchmark.md"
if [ "$QUICK" != 1 ] && { wants e2e || wants cli; } && [ ! -f "$DATA/splits.json" ]; then
  log "generating 2,000 synthetic scenes at 480x320 in $DATA"
  "$PY" tools/generate_synthetic_clevr_change.py "$DATA" --num-scenes 2000 \
    --workers "$(nproc)" 2>&1 | tail -2 | tee -a "$OUT/session.log"
fi

if wants tests; then
  # collection errors (a module needing a package the machine lacks, e.g. the
  # web demo's) must not stop the cuda tests
  run_part tests "$PY" -m pytest -q -m cuda -rA -p no:cacheprovider \
    --continue-on-collection-errors --junitxml="$OUT/tests.xml" "${TESTS[@]}"
  log "tests: $(tail -1 "$OUT/tests.log")"
fi
wants step && bench step "${STEP_ARGS[@]}"
if wants e2e; then
  bench e2e "${E2E_ARGS[@]}"
  # each run's stamped output, one file (the device tool returns $OUT's top
  # two levels only)
  logs=$(cd "$OUT" && find e2e -name train_output.log 2>/dev/null)
  if [ -n "$logs" ]; then (cd "$OUT" && tar czf e2e_logs.tgz $logs); fi
fi
if wants cli; then
  bench cli "${CLI_ARGS[@]}"
  # the CPU's cost per pair on this machine's cores (decode, resize, pack)
  run_part cpu_cost "$PY" -m mmidc_lab.pair_cpu_cost --repeats "$COST_REPEATS" \
    --cores "$(nproc)" --out-dir "$OUT/work/pair_cpu_cost" --json "$OUT/cpu_cost.json"
  grep -v "^ *PIL:\|^ *plain" "$OUT/cpu_cost.log" | tail -40
fi
wants dtypes && bench dtypes "${DTYPE_ARGS[@]}"

if wants scale; then
  # From a folder of its own: the quickstart's data and work dirs are
  # relative to the working directory (the code comes from PYTHONPATH).
  SCALE_DIR="$OUT/work/scale"
  mkdir -p "$SCALE_DIR"
  # (the projects' configs name the shipped ones by relative paths)
  for d in projects configs; do
    [ -e "$SCALE_DIR/$d" ] || ln -s "$REPO/$d" "$SCALE_DIR/$d"
  done
  # a previous session's results unpacked here resume it
  if [ -f "$OUT/scale_results.tgz" ] && [ ! -d "$SCALE_DIR/work_dirs" ]; then
    tar xzf "$OUT/scale_results.tgz" -C "$SCALE_DIR"
  fi
  # no Java (a GPU machine's usual case): BLEU, ROUGE-L and CIDEr with the
  # Python tokenizer, no METEOR (docs/evaluation.md)
  command -v java >/dev/null 2>&1 || CAPTION_OPTIONS+=(val_evaluator.0.java=False
                                                       test_evaluator.0.java=False)
  [ ${#CAPTION_OPTIONS[@]} -gt 0 ] && SCALE_ARGS+=(--caption-options "${CAPTION_OPTIONS[@]}")
  (cd "$SCALE_DIR" && run_part scale "$PY" -m mmidc_lab.quickstart \
    --num-scenes "$SCALE_SCENES" --workers "$(nproc)" --work-dir work_dirs/scale \
    "${SCALE_ARGS[@]}")
  grep -v " - INFO - \(Iter\|Epoch\)" "$OUT/scale.log" | tail -40
  # what exists so far: logs, scalars, test results, the checkpoints (resume)
  (cd "$SCALE_DIR" && find work_dirs -type f \( -name '*.log' -o -name '*.json' \
      -o -name '*.jsonl' -o -name '*.pth' -o -name '*.py' -o -name 'last_checkpoint' \) \
      -print0 2>/dev/null | tar czf "$OUT/scale_results.tgz" --null -T -)
  log "scale: $(grep -c . "$OUT/scale.log") log lines; results so far in scale_results.tgz"
fi
log "done"
