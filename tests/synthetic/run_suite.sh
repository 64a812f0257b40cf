#!/usr/bin/env bash
# ctest label "synthetic": a suite of synthetic traces from a fresh seed each run (printed; set
# SFR_SUITE_SEED to replay one), every trace run on every host MPI backend that needs no nodes
# (the catalogue's: `sf-replay backends --names no-gpu no-petsc no-pattern-only no-nodes`) and checked against the
# reference semantics, and simulated with every backend. A failure prints the one line that
# reproduces it with that seed.
# Usage: run_suite.sh SF_REPLAY MPIEXEC WORKDIR [MATRICES_DIR]
set -uo pipefail
cli=$1 mpiexec=$2 work=$3 matrices=${4:-}
seed=${SFR_SUITE_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
echo "synthetic suite: seed $seed (replay the whole label: SFR_SUITE_SEED=$seed ctest -L synthetic)"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
rm -rf "$work" && mkdir -p "$work"
suite="$work/suite"
IFS=, read -ra one_node_backends <<< "$("$cli" backends --names no-gpu no-petsc no-pattern-only no-nodes)"
gen=("$cli" generate suite --seed "$seed" -o "$suite")
[ -n "$matrices" ] && [ -d "$matrices" ] && gen+=(--matrices "$matrices")
if ! "${gen[@]}"; then
  echo "FAILED: suite generation; reproduce: ${gen[*]}"
  exit 1
fi
# The manifest lists "file" and "ranks" of each trace (one trace per line in the manifest's order).
mapfile -t entries < <(sed -n 's/^ *"file": "\(.*\)",$/\1/p' "$suite/manifest.json")
mapfile -t ranks < <(sed -n 's/^ *"ranks": \([0-9]*\),$/\1/p' "$suite/manifest.json")
[ ${#entries[@]} -gt 0 ] && [ ${#entries[@]} -eq ${#ranks[@]} ] || { echo "FAILED: cannot read $suite/manifest.json"; exit 1; }
fail=0
for k in "${!entries[@]}"; do
  t="$suite/${entries[$k]}" n=${ranks[$k]}
  for b in "${one_node_backends[@]}"; do
    d="$work/dump-$b.json"
    out=$("$mpiexec" -n "$n" --oversubscribe "$cli" run "$t" --backend "$b" --dump "$d" 2>&1 && "$cli" check "$t" "$d" 2>&1)
    if [ $? -ne 0 ]; then
      echo "$out" | tail -5
      echo "FAILED: ${entries[$k]} on $b; reproduce: ${gen[*]} && $mpiexec -n $n --oversubscribe $cli run $t --backend $b --dump $d && $cli check $t $d"
      fail=1
    fi
  done
  out=$("$cli" simulate "$t" --machine generic --all-backends 2>&1)
  if [ $? -ne 0 ]; then
    echo "$out" | tail -5
    echo "FAILED: simulating ${entries[$k]}; reproduce: ${gen[*]} && $cli simulate $t --machine generic --all-backends"
    fail=1
  fi
  echo "ok ${entries[$k]} ($n ranks): 4 backends conform, simulated"
done
[ $fail -eq 0 ] && rm -rf "$work"
exit $fail
