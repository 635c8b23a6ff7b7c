#!/usr/bin/env bash
# Set up .venv/ (if needed) and run the test suite without the slow tests,
# except the install tests (slow, but CI runs them: fresh virtual
# environments, pip install / mim; tests/test_packaging/test_install.py).
#   bash tools/run_tests.sh            # CI set
#   bash tools/run_tests.sh -m slow    # only the slow tests
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup_env.sh
# Every test runs in CI: the web demo's browser test needs a headless
# Chromium. In CI (CI=true) or as root, install Debian's when none is on PATH.
if ! command -v chromium >/dev/null && ! command -v chromium-browser >/dev/null \
    && { [ "${CI:-}" = true ] || [ "$(id -u)" = 0 ]; } && command -v apt-get >/dev/null; then
  echo "[tests] installing Debian's chromium for the web demo's browser test"
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -qq --no-install-recommends chromium >/dev/null; } \
    || echo "[tests] could not install chromium: the browser test will fail in CI"
fi
if [ $# -eq 0 ]; then set -- -m "not slow or install"; fi
exec .venv/bin/python -m pytest -q "$@"
