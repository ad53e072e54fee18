#!/usr/bin/env bash
# Set up, seed the demo database on first run, migrate it, and start the dashboard on 127.0.0.1:8501.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
DB="${VALUATION_DB:-data/valuation.duckdb}"
export VALUATION_DB="$DB"
if [ ! -f "$DB" ]; then
  .venv/bin/python -m valuation db init --db "$DB" --demo
else
  .venv/bin/python -m valuation db init --db "$DB"
fi
exec .venv/bin/python -m streamlit run app.py --server.address 127.0.0.1 --server.port "${PORT:-8501}" \
  --server.headless true --browser.gatherUsageStats false
