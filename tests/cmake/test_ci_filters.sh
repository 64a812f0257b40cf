#!/usr/bin/env bash
# Every test filter of .ci/test names tests: each top-level alternative of each -R / -E pattern
# matches at least one test of this build. A filter that matches nothing drops its tests from the
# sanitizer build silently (a parameterized test's name ends in its "# GetParam()" comment, so a
# pattern ending in $ matched none of the three host backends it was written for).
# Usage: test_ci_filters.sh CI_TEST_SCRIPT BUILD_DIR
set -euo pipefail
script=$(realpath "$1") build=$(realpath "$2")
# The list comes from a copy of the build's ctest files: a ctest run in the build itself would
# replace the LastTest.log of the ctest that runs this test (.ci/skipped reads it).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$build" && find . -name CTestTestfile.cmake) | while IFS= read -r f; do
  mkdir -p "$tmp/$(dirname "$f")" && cp "$build/$f" "$tmp/$f"
done
all=$(cd "$tmp" && ctest -N | sed -n 's/^ *Test *#[0-9]*: //p')
[ -n "$all" ] || { echo "no tests listed in $build"; exit 1; }

# Splits a regex at the | that are outside parentheses.
alternatives() {
  local re=$1 depth=0 cur="" c i
  for ((i = 0; i < ${#re}; i++)); do
    c=${re:i:1}
    case $c in
      '(') depth=$((depth + 1)) ;;
      ')') depth=$((depth - 1)) ;;
      '|') if [ $depth -eq 0 ]; then printf '%s\n' "$cur"; cur=""; continue; fi ;;
    esac
    cur+=$c
  done
  printf '%s\n' "$cur"
}

# line:pattern, for each -R / -E pattern of the script
patterns=$(grep -noE -- "-[RE] '[^']+'" "$script" | sed -E "s/^([0-9]+):-[RE] '(.*)'$/\1:\2/")
[ -n "$patterns" ] || { echo "no -R / -E patterns found in $script"; exit 1; }
bad=0 n=0
while IFS= read -r entry; do
  line=${entry%%:*}
  while IFS= read -r alt; do
    n=$((n + 1))
    grep -qE -- "$alt" <<<"$all" || { echo "$script:$line: the filter alternative '$alt' matches no test"; bad=1; }
  done < <(alternatives "${entry#*:}")
done <<<"$patterns"
[ $bad -eq 0 ] && echo "$n filter alternatives in $script: each matches at least one test"
exit $bad
