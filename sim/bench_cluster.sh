#!/usr/bin/env bash
# The calibrated model across real nodes (a benchmark, not a test): on clusters of network
# namespaces (.ci/cluster; root), 2 nodes x 1 rank and 2 nodes x 2 ranks, sim/bench_model.sh's
# calibrate, validate-model and --backend auto on the SpMV ghost exchanges of the shared matrices,
# then the node-aware strategies against basic on the real network beside their predictions
# (2 x 2, from validate-model's document). ROUNDS (default 1) repeats each placement.
# Usage: bash sim/bench_cluster.sh   (after a release build in build/release)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${ROUNDS:-1}
for placement in 2x1 2x2; do
  nodes=${placement%x*} per=${placement#*x}
  for ((k = 1; k <= rounds; ++k)); do
    id=$(bash .ci/cluster up "$nodes" "$per")
    trap 'bash .ci/cluster down "$id"' EXIT
    echo "== cluster $id: $nodes nodes x $per ranks, round $k"
    CLUSTER=$id RANKS=$((nodes * per)) RANKS_PER_NODE=$per OUT_DIR=out/bench/cluster-$placement AUTO_REPEATS=${AUTO_REPEATS:-3} ITERS=${ITERS:-200} \
      bash sim/bench_model.sh
    bash .ci/cluster down "$id"
    trap - EXIT
  done
done
# Node-aware against basic at 2 x 2, per op: measured and predicted (us), from validate.json.
echo "== node-aware strategies against basic on the real network, 2 nodes x 2 ranks (us: measured / predicted)"
printf "%-40s %-19s %-19s %-19s %-19s\n" "trace op" basic 3step 2step split-md
awk 'BEGIN { RS = "{"; FS = "," }
  /"backend"/ && /"measured_us"/ {
    t = ""; o = ""; b = ""; m = ""; p = ""
    for (i = 1; i <= NF; ++i) {
      if ($i ~ /"trace":/) { t = $i; sub(/.*: *"/, "", t); sub(/".*/, "", t) }
      if ($i ~ /"op":/) { o = $i; sub(/.*: */, "", o) }
      if ($i ~ /"backend":/) { b = $i; sub(/.*: *"/, "", b); sub(/".*/, "", b) }
      if ($i ~ /"measured_us":/) { m = $i; sub(/.*: */, "", m) }
      if ($i ~ /"predicted_us":/) { p = $i; sub(/.*: */, "", p) }
    }
    if (b ~ /^(basic|3step|2step|split-md)$/) { key = t " " o; row[key] = row[key] sprintf(" %8.1f / %-8.1f", m, p); keys[key] = 1 }
  }
  END { for (k in keys) printf "%-40s%s\n", k, row[k] }' \
  out/bench/cluster-2x2/validate.json | sort
