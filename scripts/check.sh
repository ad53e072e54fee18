#!/usr/bin/env bash
# Checked habits (issue 12): lint (ruff) and types (mypy), configured in pyproject.toml.
# Exits non-zero on any finding. Uses the project's virtualenv (scripts/setup.sh --dev installs both);
# VENV=/path/to/venv picks another one.
set -uo pipefail
cd "$(dirname "$0")/.."
VENV="${VENV:-.venv}"
for tool in ruff mypy; do
  if [ ! -x "$VENV/bin/$tool" ]; then
    echo "check.sh: $VENV/bin/$tool not found (run: bash scripts/setup.sh --dev)" >&2
    exit 2
  fi
done
status=0
echo "== ruff check ."
"$VENV/bin/ruff" check . || status=1
echo "== mypy (src/valuation, ui, service, pages, page_tabs, app.py)"
PYTHONPATH="$PWD/src:$PWD${PYTHONPATH:+:$PYTHONPATH}" "$VENV/bin/mypy" || status=1
exit $status
