#!/usr/bin/env bash
# Benchmark (not a test): what the capture costs the application. Two of PETSc's examples and a
# loop of 100,000 bcasts of one double on one SF (the worst case: nothing but SF calls), each run
# plain and under `sf-replay capture` in interleaved repeats; the application's own time
# (-log_view's "Time (sec)", maximum over ranks; the loop's own timer for the loop) and the whole
# command's wall time (mpiexec start-up and the merge included), minimum over repeats (load only
# ever adds time). Prints a table; writes out/bench/capture-overhead.json.
# Usage: bash tests/capture/bench_capture.sh [BUILD_DIR] [REPEATS]
set -euo pipefail
build=${1:-build/release} reps=${2:-5}
cli=$build/src/cli/sf-replay
mkdir -p out/bench
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
cases=(
  "ksp-ex2-cg|$build/tests/sfr_petsc_example_ksp -m 600 -n 600 -ksp_type cg -pc_type jacobi -ksp_rtol 1e-10 -ksp_max_it 3000"
  "snes-ex5|$build/tests/sfr_petsc_example_snes -da_grid_x 200 -da_grid_y 200 -pc_type jacobi"
  "sf-loop|$build/tests/sfr_capture_bench_sf_loop -n 100000"
)
now() { date +%s.%N; }
# app time (s) and wall time (s) of one run; the capture's op count when captured
one() {
  local mode=$1 cmd=$2 t0 t1 log="$tmp/log" ops=0
  t0=$(now)
  if [ "$mode" = capture ]; then
    $cli capture -o "$tmp/t.json" -- mpiexec -n 2 $cmd -log_view > "$log" 2> "$tmp/err"
    ops=$(python3 -c "import json;print(json.load(open('$tmp/t.json'))['meta']['ops_recorded'])")
  else
    mpiexec -n 2 $cmd -log_view > "$log" 2> "$tmp/err"
  fi
  t1=$(now)
  local app
  app=$(sed -n 's/^sf-loop: [0-9]* ops, \([0-9.]*\) s.*/\1/p' "$log")
  [ -n "$app" ] || app=$(sed -n 's/^Time (sec):[[:space:]]*\([0-9.e+-]*\).*/\1/p' "$log" | head -1)
  echo "$app $(python3 -c "print($t1 - $t0)") $ops"
}
json="["
printf '%-12s %12s %12s %8s %12s %12s %8s %10s\n' case "app plain s" "app capt. s" ratio "wall plain s" "wall capt. s" ratio "SF ops"
for c in "${cases[@]}"; do
  name=${c%%|*} cmd=${c#*|}
  bp=1e9 bc=1e9 wp=1e9 wc=1e9 ops=0
  for ((r = 0; r < reps; r++)); do
    read -r a w _ < <(one plain "$cmd")
    bp=$(python3 -c "print(min($bp, $a))") wp=$(python3 -c "print(min($wp, $w))")
    read -r a w ops < <(one capture "$cmd")
    bc=$(python3 -c "print(min($bc, $a))") wc=$(python3 -c "print(min($wc, $w))")
  done
  ra=$(python3 -c "print(f'{$bc / $bp:.3f}')") rw=$(python3 -c "print(f'{$wc / $wp:.3f}')")
  printf '%-12s %12.3f %12.3f %8s %12.3f %12.3f %8s %10s\n' "$name" "$bp" "$bc" "$ra" "$wp" "$wc" "$rw" "$ops"
  json+="{\"case\":\"$name\",\"command\":\"mpiexec -n 2 $(basename "${cmd%% *}") ${cmd#* }\",\"repeats\":$reps,\"app_s_plain\":$bp,\"app_s_capture\":$bc,\"app_ratio\":$ra,\"wall_s_plain\":$wp,\"wall_s_capture\":$wc,\"wall_ratio\":$rw,\"sf_ops\":$ops},"
done
json="${json%,}]"
echo "{\"benchmark\":\"capture-overhead\",\"statistic\":\"minimum over interleaved repeats\",\"host\":\"$(hostname)\",\"commit\":\"$(git rev-parse --short HEAD 2>/dev/null || echo unknown)\",\"results\":$json}" > out/bench/capture-overhead.json
echo "wrote out/bench/capture-overhead.json"
