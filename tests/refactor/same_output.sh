#!/usr/bin/env bash
# A refactor's check (a benchmark-style command, not part of the test command): inspect,
# simulate (text, JSON less its provenance, and --timeline) and compare print the same bytes with
# two builds on every sample trace (traces/*.json): the machines lassen and generic, the default
# model and LogGP, every simulated backend.
# Usage: bash tests/refactor/same_output.sh BASE_SF_REPLAY NEW_SF_REPLAY [TRACES_DIR]
#   e.g. git worktree add /tmp/base REV && cmake -S /tmp/base -B /tmp/base/build -DCMAKE_BUILD_TYPE=Release \
#        -DSFR_BUILD_BENCHMARKS=OFF && cmake --build /tmp/base/build --target sf-replay &&
#        bash tests/refactor/same_output.sh /tmp/base/build/src/cli/sf-replay build/release/src/cli/sf-replay
# Exit status 1 when any command differs (each printed with the first lines of its difference).
set -u
[ $# -ge 2 ] || { echo "usage: $0 BASE_SF_REPLAY NEW_SF_REPLAY [TRACES_DIR]" >&2; exit 2; }
base=$1 new=$2 traces=${3:-$(dirname "$0")/../../traces}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
strip() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d.pop("provenance",None) if isinstance(d,dict) else None; print(json.dumps(d,sort_keys=True))' "$1" 2>/dev/null || cat "$1" 2>/dev/null; }
n=0 diffs=0
for t in "$traces"/*.json; do
  cmds=("inspect $t" "inspect $t --json" "compare $t --machine lassen" "simulate $t --machine generic --timeline @")
  for m in lassen generic; do cmds+=("simulate $t --machine $m --all-backends --json @" "simulate $t --machine $m --all-backends --model loggp --json @"); done
  for cmd in "${cmds[@]}"; do
    n=$((n + 1))
    ${base} ${cmd//@/$out/a.json} > "$out/a.txt" 2>&1; ra=$?
    ${new} ${cmd//@/$out/b.json} > "$out/b.txt" 2>&1; rb=$?
    same=1
    [ $ra = $rb ] && cmp -s "$out/a.txt" "$out/b.txt" || same=0
    if [ -e "$out/a.json" ] || [ -e "$out/b.json" ]; then [ "$(strip "$out/a.json")" = "$(strip "$out/b.json")" ] || same=0; fi
    if [ $same = 0 ]; then diffs=$((diffs + 1)); echo "DIFFERS: $cmd (exit $ra / $rb)"; diff "$out/a.txt" "$out/b.txt" | head -5; fi
    rm -f "$out/a.json" "$out/b.json"
  done
done
echo "$n commands on $(ls "$traces"/*.json | wc -l) traces, $diffs differ"
[ $diffs = 0 ]
