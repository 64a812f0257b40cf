#!/usr/bin/env bash
# Benchmark (not a test): nothing grows with the calls. Two parts, on 2 ranks:
#  1. sfr_bench_soak (tests/bench/bench_soak.cpp): CALLS calls of each op of a 2-rank exchange on
#     every host backend in one process, then SETUPS star forests set up, used once and torn down;
#     resident memory, live MPI objects (PMPI counts), mappings and open files sampled; a backend is
#     flat when its memory grows by <= 1 MiB after the warm-up and its objects end as they were.
#  2. `sf-replay run --iters RUN_ITERS` of one op (its timings are kept in a bounded reservoir):
#     each rank's peak resident memory, which must stay under 64 MiB.
# Prints both tables; writes out/bench/soak.json (sf-bench) and out/bench/soak-run.json.
# Usage: bash tests/bench/soak.sh [BUILD_DIR] [CALLS] [SETUPS] [RUN_ITERS]   (defaults: 1e6, 1e4, 1e7)
set -euo pipefail
build=${1:-build/release} calls=${2:-1000000} setups=${3:-10000} iters=${4:-10000000}
cli=$build/src/cli/sf-replay
mkdir -p out/bench
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# Each rank has 2 roots and 2 leaves on the other rank's roots, 256 doubles a vertex (4 KiB messages).
cat > "$tmp/pair.json" <<'EOF'
{"format": "sf-trace", "version": 1, "name": "soak-pair", "nranks": 2,
 "sfs": {"A": {"ranks": [{"nroots": 2, "remote_rank": [1, 1], "remote_index": [0, 1]},
                         {"nroots": 2, "remote_rank": [0, 0], "remote_index": [0, 1]}]}},
 "ops": [{"op": "bcast", "sf": "A", "unit": "float64", "bs": 256, "mpi_op": "replace", "memtype": "host", "repeat": 1, "overlap_us": 0},
         {"op": "reduce", "sf": "A", "unit": "float64", "bs": 256, "mpi_op": "sum", "memtype": "host", "repeat": 1, "overlap_us": 0},
         {"op": "fetch_and_op", "sf": "A", "unit": "int64", "bs": 1, "mpi_op": "sum", "memtype": "host", "repeat": 1, "overlap_us": 0}]}
EOF
echo "== soak: $calls calls of each op and $setups set-ups on every host backend"
mpiexec -n 2 "$build/tests/sfr_bench_soak" "$tmp/pair.json" --calls "$calls" --setups "$setups" --json out/bench/soak.json

echo "== sf-replay run --iters $iters of one op: peak resident memory per rank (limit 64 MiB)"
sed -e 's/"soak-pair"/"soak-one"/' -e '/"op": "reduce"/d' -e '/"op": "fetch_and_op"/d' -e 's/"overlap_us": 0},$/"overlap_us": 0}]}/' \
  "$tmp/pair.json" > "$tmp/one.json"
start=$(date +%s)
mpiexec -n 2 "$build/tests/sfr_bench_soak" peak-rss -- "$cli" run "$tmp/one.json" --backend basic --iters "$iters" --warmup 1000 \
  --timing "$tmp/timing.json" > "$tmp/run.log"
secs=$(( $(date +%s) - start ))
grep -v '^peak-rss' "$tmp/run.log" | tail -n +2
peaks=$(sed -n 's/^peak-rss rank \([0-9]*\): \([0-9]*\) KiB, status \([0-9]*\)$/\1 \2 \3/p' "$tmp/run.log")
worst=0 ok=1
while read -r rank kib status; do
  echo "rank $rank: peak resident memory $((kib / 1024)) MiB ($kib KiB), exit status $status"
  [ "$kib" -gt "$worst" ] && worst=$kib
  [ "$status" = 0 ] || ok=0
done <<< "$peaks"
kept=$(awk '/"samples_us": \[/ { f = 1; next } f && /\]/ { f = 0 } f { n++ } END { print n + 0 }' "$tmp/timing.json")
exact=$(grep -o '"samples_exact": [a-z]*' "$tmp/timing.json" | head -1 || true)
verdict=$([ "$ok" = 1 ] && [ "$worst" -lt $((64 * 1024)) ] && echo "under 64 MiB" || echo "OVER 64 MiB OR FAILED")
echo "$iters iterations in $secs s; samples kept in the timing document: $kept ($exact); $verdict"
printf '{"benchmark": "sf-soak-run", "iterations": %s, "seconds": %s, "peak_rss_kib": %s, "samples_kept": %s, "under_64_mib": %s}\n' \
  "$iters" "$secs" "$worst" "$kept" "$([ "$verdict" = "under 64 MiB" ] && echo true || echo false)" > out/bench/soak-run.json
grep -q '"all_flat": true' out/bench/soak.json && [ "$verdict" = "under 64 MiB" ]
