#!/usr/bin/env bash
# Refreshes the dashboards' vendored charting library in reports/vendor/dist/ from the npm
# registry, exactly at the versions pinned by package.json / package-lock.json (npm ci checks
# every package's integrity hash against the lock file). The dist/ files are checked in, so that
# building a dashboard needs no network: the machines sf-replay is built on (CI, a fresh Debian
# behind a proxy) may reach Debian's mirror but not registry.npmjs.org.
# Usage: bash reports/vendor/update.sh   (needs npm and network; then commit dist/)
set -euo pipefail
cd "$(dirname "$0")"
npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
rm -rf dist && mkdir dist
for p in vega vega-lite vega-embed; do
  cp "node_modules/$p/build/$p.min.js" dist/
  [ -f "node_modules/$p/LICENSE" ] && cp "node_modules/$p/LICENSE" "dist/LICENSE-$p"
done
{
  echo "Vendored by reports/vendor/update.sh from the npm registry (pinned by package-lock.json):"
  for p in vega vega-lite vega-embed; do
    node -e "const j=require('./node_modules/$p/package.json'); console.log('  ' + j.name + ' ' + j.version + ' (' + j.license + ', ' + (j.homepage || (j.repository && (j.repository.url || j.repository)) || '') + ')')"
  done
  echo "(vega's npm package ships no LICENSE file; package.json declares BSD-3-Clause, like the other two.)"
  echo "sha256 of the files:"
  (cd dist && sha256sum ./*.min.js | sed 's/^/  /')
} > dist/VERSIONS
echo "reports/vendor/dist updated:"
cat dist/VERSIONS
