#!/usr/bin/env bash
# Create .venv (Python 3.11+) and install the pinned dependencies and the package.
#   scripts/setup.sh            runtime only
#   scripts/setup.sh --dev      runtime + test tools
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
"$PY" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "valuation needs Python 3.11 or newer")'
[ -x .venv/bin/python ] || "$PY" -m venv .venv
req=requirements.txt
[ "${1:-}" = "--dev" ] && req=requirements-dev.txt
stamp_of() { echo ".venv/.installed-$(cat "$1" requirements.txt pyproject.toml | sha256sum | cut -c1-16)"; }
stamp="$(stamp_of "$req")"
# a .venv set up with the test tools has the runtime too (requirements-dev.txt includes requirements.txt):
# scripts/start.sh after scripts/test.sh installs nothing
if [ ! -f "$stamp" ] && [ ! -f "$(stamp_of requirements-dev.txt)" ]; then
  .venv/bin/python -m pip install -q --disable-pip-version-check -r "$req"
  .venv/bin/python -m pip install -q --disable-pip-version-check --no-deps -e .
  touch "$stamp"
fi
# the accessibility test's axe-core (tests/support/axe.py: same pinned version), from the npm registry into
# the git-ignored build/; the test installs it itself when this step was skipped
AXE=axe-core-4.14.1
if [ "${1:-}" = "--dev" ] && [ ! -f "build/$AXE/node_modules/axe-core/axe.min.js" ] && command -v npm >/dev/null; then
  npm install --prefix "build/$AXE" "axe-core@${AXE#axe-core-}" --no-audit --no-fund --no-save --silent
fi
