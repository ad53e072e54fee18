#!/usr/bin/env bash
# Set up (with test tools) and run the whole test suite, browser tests included.
# Browser tests drive Debian's Chromium (/usr/bin/chromium); as root with apt it is installed here.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --dev
if [ ! -x /usr/bin/chromium ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >/dev/null
fi
exec .venv/bin/python -m pytest "$@"
