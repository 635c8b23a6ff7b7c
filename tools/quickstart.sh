#!/usr/bin/env bash
# The quickstart on a fresh machine: set up .venv/, generate the synthetic
# CLEVR-Change-style set, adapt, fine-tune the captioner, test, print results.
# Re-running resumes where it stopped. Arguments go to the quickstart pipeline
# (python -m mmidc_lab.quickstart, run from the repository's root).
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
bash tools/setup_env.sh
.venv/bin/python -m mmidc_lab.quickstart "$@"
echo "[quickstart] total wall time, install included: $(( $(date +%s) - start )) s"
