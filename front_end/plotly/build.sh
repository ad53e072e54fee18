#!/usr/bin/env bash
# Builds service/vendor/plotly-<sha256[:12]>.min.js, the partial plotly.js the dashboard's charts draw with
# (service/assets/plotly_chart.js), and its packages' licenses. Needs Node 20+ and npm; the result is committed,
# so neither the service nor its tests need Node. Run it after changing entry.js or a version in package.json.
set -euo pipefail
cd "$(dirname "$0")"
npm ci --no-audit --no-fund --ignore-scripts
out=$(mktemp -d)
npx esbuild entry.js --bundle --minify --format=esm --target=es2020 --loader:.css=empty \
  --define:global=globalThis --legal-comments=eof --metafile="$out/meta.json" --outfile="$out/plotly.js"
hash=$(sha256sum "$out/plotly.js" | cut -c1-12)
vendor=../../service/vendor
rm -f "$vendor"/plotly-*.min.js "$vendor"/plotly-*.LICENSES.txt
cp "$out/plotly.js" "$vendor/plotly-$hash.min.js"
node licenses.mjs "$out/meta.json" "$vendor/plotly-$hash.LICENSES.txt"
rm -rf "$out"
echo "service/vendor/plotly-$hash.min.js"
