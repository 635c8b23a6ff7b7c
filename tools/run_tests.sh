#!/usr/bin/env bash
# Set up .venv/ (if needed) and run the test suite without the slow tests.
#   bash tools/run_tests.sh            # CI set
#   bash tools/run_tests.sh -m slow    # only the slow tests
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup_env.sh
if [ $# -eq 0 ]; then set -- -m "not slow"; fi
exec .venv/bin/python -m pytest -q "$@"
