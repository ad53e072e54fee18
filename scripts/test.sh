#!/usr/bin/env bash
# Set up (with test tools) and run the whole test suite, browser tests included.
# Browser tests drive Debian's Chromium (/usr/bin/chromium); as root with apt it is installed here.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --dev
if [ ! -x /usr/bin/chromium ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >/dev/null
fi
# npm installs axe-core for the accessibility test (tests/support/axe.py)
if ! command -v npm >/dev/null && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm) >/dev/null
fi
# The suite runs in parallel (pytest-xdist), one worker per core unless VALUATION_TEST_WORKERS says
# otherwise (0: in this process); each test file stays on one worker (its module fixtures built once), the files
# handed out slowest first (tests/conftest.py SLOWEST_FIRST, xdist's own reordering off).
exec .venv/bin/python -m pytest -n "${VALUATION_TEST_WORKERS:-auto}" --dist loadfile --no-loadscope-reorder "$@"
