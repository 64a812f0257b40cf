#!/usr/bin/env bash
# Planted bugs (a benchmark-style command, not part of the test command): each tests/mutation/*.patch
# plants one bug (its first lines say which, and which tests should catch it: "# tests: REGEX").
# In a scratch copy of this checkout (a Release build without CUDA), first every selected test
# must pass unmutated; then, one patch at a time, the patch is applied, the tree rebuilt, the
# selected tests run, and the patch taken back. Prints per bug the tests that failed (caught it)
# and a summary; writes out/bench/mutation.json. A bug caught by fewer than 2 tests is flagged.
# Usage: bash tests/mutation/run.sh [PATCH...]   (default: every patch; about an hour on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/../.."
here=$PWD
patches=("$@")
[ ${#patches[@]} -gt 0 ] || patches=(tests/mutation/*.patch)
work=${TMPDIR:-/tmp}/sfr-mutation
scratch=$work/main
mkdir -p "$work" out/bench
# The checkout as it is (tracked and untracked files, not the ignored ones), with ../shared beside it.
rm -rf "$scratch"
mkdir -p "$scratch"
git ls-files -co --exclude-standard -z | (cd "$here" && xargs -0 cp --parents -t "$scratch")
[ -e "$work/shared" ] || ln -s "$(cd ../shared 2>/dev/null && pwd || echo /nonexistent)" "$work/shared"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mkdir -p "${TMPDIR:-/tmp}/ompi.$(uname -n | cut -d. -f1).$(id -u)"
build() { cmake --build "$scratch/build" -j"$(nproc)" > "$work/build.log" 2>&1; }
cmake -S "$scratch" -B "$scratch/build" -DCMAKE_BUILD_TYPE=Release -DSFR_CUDA=OFF > "$work/configure.log" 2>&1
echo "== building the unmutated copy in $scratch/build"
build
regex_of() { sed -n 's/^# tests: //p' "$1"; }
bug_of() { sed -n 's/^# bug: //p' "$1"; }
# The tests a regex selects that fail, one per line.
failing() {
  rm -f "$scratch/build/Testing/Temporary/LastTestsFailed.log"  # ctest leaves the last failing run's
  (cd "$scratch/build" && ctest -R "$1" -j"$(nproc)" --timeout 300 > "$work/ctest.log" 2>&1) || true
  # (a parameterised test's name without gtest's "  # GetParam() = ..." comment)
  sed -n 's/^[0-9]*:\(.*\)$/\1/p' "$scratch/build/Testing/Temporary/LastTestsFailed.log" 2>/dev/null | sed 's/  # .*//' || true
}
selected() { (cd "$scratch/build" && ctest -N -R "$1" | sed -n 's/^ *Test *#[0-9]*: //p'); }
echo "== every selected test passes unmutated"
all=""
for p in "${patches[@]}"; do all+="${all:+|}($(regex_of "$p"))"; done
base_fail=$(failing "$all")
if [ -n "$base_fail" ]; then
  echo "these selected tests fail without any planted bug (fix them first):"
  echo "$base_fail" | sed 's/^/  /'
  exit 1
fi
json="["
weak=0
printf '%-28s %7s %s\n' "bug" "caught" "tests that failed (of those selected)"
for p in "${patches[@]}"; do
  name=$(basename "$p" .patch)
  (cd "$scratch" && git apply "$here/$p")
  if ! build; then
    caught="(build failed)"
    count=0
  else
    caught=$(failing "$(regex_of "$p")")
    count=$(printf '%s' "$caught" | grep -c . || true)
  fi
  (cd "$scratch" && git apply -R "$here/$p")
  nsel=$(selected "$(regex_of "$p")" | grep -c . || true)
  [ "$count" -ge 2 ] || weak=$((weak + 1))
  printf '%-28s %3d/%-3d %s\n' "$name" "$count" "$nsel" "$(echo "$caught" | head -4 | paste -sd' ' -)$([ "$count" -gt 4 ] && echo " ...")"
  printf '%-28s         (%s)\n' "" "$(bug_of "$p")"
  list=$(printf '%s\n' "$caught" | grep . | sed 's/.*/"&"/' | paste -sd, - || true)
  json+="{\"bug\": \"$name\", \"what\": \"$(bug_of "$p")\", \"selected\": $nsel, \"caught_by\": [${list}]},"
done
build
echo "${json%,}]" > out/bench/mutation.json
echo "$(( ${#patches[@]} - weak )) of ${#patches[@]} planted bugs caught by at least 2 tests; out/bench/mutation.json"
[ "$weak" = 0 ]
