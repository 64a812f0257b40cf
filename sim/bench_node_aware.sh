#!/usr/bin/env bash
# Node-aware executor backends against their simulator predictions (a benchmark, not a test):
# SpMV ghost exchanges of the shared matrices at 4 ranks as 2 emulated nodes x 2 ranks
# (--ranks-per-node 2 in the traces' machine), every node-aware strategy and basic measured with
# validate-model beside its prediction on the machine calibrated at 2 ranks. Prints the table;
# writes out/bench/node-aware/{machine,validate}.json.
# Usage: bash sim/bench_node_aware.sh   (after a release build in build/release)
set -euo pipefail
cd "$(dirname "$0")/.."
cli=build/release/src/cli/sf-replay
dir=out/bench/node-aware
mkdir -p "$dir"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
if [ -f out/bench/model/machine.json ]; then cp out/bench/model/machine.json "$dir/machine.json"
else mpiexec -n 2 $cli calibrate -o "$dir/machine.json" --no-default | sed -n '1p'; fi
traces=()
for m in ../shared/matrices/*.mtx; do
  out="$dir/spmv-$(basename "$m" .mtx)-p4n2.json"
  $cli generate spmv --matrix "$m" --ranks 4 --partition rows --ranks-per-node 2 -o "$out" >/dev/null && traces+=("$out")
done
echo "== node-aware strategies, ${#traces[@]} SpMV traces at 4 ranks = 2 emulated nodes x 2 (oversubscribed: 4 ranks on $(nproc) cores)"
mpiexec -n 4 $cli validate-model "${traces[@]}" --machine "$dir/machine.json" --backend "basic,$($cli backends --names node-aware)" --iters 50 \
  --json "$dir/validate.json"
echo "written: $dir/machine.json, $dir/validate.json"
