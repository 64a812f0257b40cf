#!/usr/bin/env bash
# The calibrated model against this machine (a benchmark, not a test): calibrate at 2 ranks,
# then on the SpMV ghost exchanges of every shared matrix at 2 ranks (one per core):
# validate-model (median |error| over (op, backend) pairs, predicted best right), and run with
# every backend and auto (auto's time against the measured best, per op). Prints tables; writes
# out/bench/model/{machine,validate,auto}.json.
# Usage: bash sim/bench_model.sh   (after a release build in build/release)
set -euo pipefail
cd "$(dirname "$0")/.."
cli=build/release/src/cli/sf-replay
dir=out/bench/model
mkdir -p "$dir"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
t0=$(date +%s.%N)
mpiexec -n 2 $cli calibrate -o "$dir/machine.json" --no-default | sed -n '1p'
t1=$(date +%s.%N)
echo "calibrate at 2 ranks: $(echo "$t1 - $t0" | bc) s"
traces=()
for m in ../shared/matrices/*.mtx; do
  out="$dir/spmv-$(basename "$m" .mtx)-p2.json"
  $cli generate spmv --matrix "$m" --ranks 2 --ranks-per-node 2 --partition rows -o "$out" >/dev/null && traces+=("$out")
done
echo "== validate-model, ${#traces[@]} SpMV traces at 2 ranks"
mpiexec -n 2 $cli validate-model "${traces[@]}" --machine "$dir/machine.json" --backend basic,neighbor,window,alltoallv --iters 50 --json "$dir/validate.json" | tail -1
echo "== --backend auto against the measured best backend, per op"
printf '%-34s %3s %-10s %10s %-10s %10s %8s\n' trace op best "best(us)" auto "auto(us)" "auto/best"
json="["
for t in "${traces[@]}"; do
  rows=$(mpiexec -n 2 $cli run "$t" --backend basic,neighbor,window,alltoallv,shm,auto --machine "$dir/machine.json" --iters 50 |
         awk '$1 ~ /^[0-9]+$/ {print $1, $4, $10}')
  while read -r op best bus autob aus; do
    ratio=$(printf %.3f "$(echo "scale=3; $aus / $bus" | bc)")
    printf '%-34s %3s %-10s %10.2f %-10s %10.2f %8.3f\n' "$(basename "$t" .json)" "$op" "$best" "$bus" "$autob" "$aus" "$ratio"
    json+="{\"trace\": \"$(basename "$t" .json)\", \"op\": $op, \"best\": \"$best\", \"best_us\": $bus, \"auto\": \"$autob\", \"auto_us\": $aus, \"auto_over_best\": $ratio},"
  done < <(echo "$rows" | awk '{ if ($2 ~ /^auto:/) { a[$1] = $2; au[$1] = $3 } else if (!($1 in b) || $3 < bu[$1]) { b[$1] = $2; bu[$1] = $3 } }
                              END { for (o in b) print o, b[o], bu[o], a[o], au[o] }' | sort -n)
done
echo "${json%,}]" > "$dir/auto.json"
echo "written: $dir/machine.json, $dir/validate.json, $dir/auto.json"
