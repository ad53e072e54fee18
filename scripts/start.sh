#!/usr/bin/env bash
# Set up, seed the demo database on first run, migrate it, and start the service on 127.0.0.1:8501:
# uvicorn serving service/asgi.py (the Streamlit app, the session cookie, the daily jobs, calendar
# feeds and the command line's bridge) in one process that owns the DuckDB file.
#   HOST=0.0.0.0 PORT=8080 bash scripts/start.sh      (behind a TLS proxy: also FORWARDED_ALLOW_IPS)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
DB="${VALUATION_DB:-data/valuation.duckdb}"
export VALUATION_DB="$DB"
# The data folder and everything the service writes there (the database and its WAL, attached files,
# backups, trust anchors) are the service's OS user's only, whatever the login's umask (SECURITY.md);
# a database or data folder left readable by an earlier version is closed too.
umask 077
mkdir -p -m 700 "$(dirname "$DB")"
chmod go-rwx "$(dirname "$DB")"
for f in "$DB" "$DB.wal"; do if [ -e "$f" ]; then chmod go-rwx "$f"; fi; done
# db init's JSON summary is for scripts (README "Command line"); a person reads one line when the
# service is ready ("Painel em http://…; usuários de demonstração no README", service/console.py)
if [ ! -f "$DB" ]; then
  echo "Criando o banco de demonstração em $DB (cerca de um minuto na primeira vez)…"
  .venv/bin/python -m valuation db init --db "$DB" --demo >/dev/null
else
  .venv/bin/python -m valuation db init --db "$DB" >/dev/null
fi
export VALUATION_HOST="${HOST:-127.0.0.1}" VALUATION_PORT="${PORT:-8501}"
exec .venv/bin/python -m uvicorn service.asgi:app --host "$VALUATION_HOST" --port "$VALUATION_PORT" \
  --lifespan on --proxy-headers --forwarded-allow-ips "${FORWARDED_ALLOW_IPS:-127.0.0.1}" \
  --timeout-graceful-shutdown 30
