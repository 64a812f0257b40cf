#!/usr/bin/env bash
# Every test filter names tests: each top-level alternative of each pattern in the files matches at
# least one test of this build. The patterns: a script's ctest -R / -E '...' (.ci/test) and a
# planted bug's "# tests: REGEX" line (tests/mutation/*.patch). A filter that matches nothing
# drops its tests silently: from the sanitizer build (a parameterized test's name ends in its
# "# GetParam()" comment, so a pattern ending in $ matched none of the three host backends it was
# written for), or from the tests a planted bug is run against.
# Usage: test_filters_name_tests.sh BUILD_DIR FILE...
set -euo pipefail
build=$(realpath "$1")
shift
[ $# -gt 0 ] || { echo "usage: $0 BUILD_DIR FILE... (no file given: nothing would be checked)"; exit 1; }
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

# Checks each top-level alternative of the patterns ("line:pattern" lines) of one file.
check() {
  local file=$1 entry line alt
  while IFS= read -r entry; do
    line=${entry%%:*}
    while IFS= read -r alt; do
      n=$((n + 1))
      grep -qE -- "$alt" <<<"$all" || { echo "$file:$line: the filter alternative '$alt' matches no test"; bad=1; }
    done < <(alternatives "${entry#*:}")
  done
}

bad=0 n=0
for f in "$@"; do
  patterns=$(grep -noE -- "-[RE] '[^']+'|^# tests: .+" "$f" | sed -E "s/^([0-9]+):(-[RE] '(.*)'|# tests: (.*))$/\1:\3\4/") ||
    { echo "$f: no -R / -E '...' or '# tests:' pattern"; bad=1; continue; }
  check "$f" <<<"$patterns"
done
[ $bad -eq 0 ] && echo "$n filter alternatives in $# file(s): each matches at least one test"
exit $bad
