#!/usr/bin/env bash
# Every planted bug still applies to the sources: each hunk's old lines (context and removed) stand
# in its file, one after another. run.sh is a benchmark outside CI, so a refactor that moves the
# code would break a patch silently; this check (a ctest) names the patch to mend instead.
# Usage: check_apply.sh SOURCE_ROOT [PATCH...]   (default: every tests/mutation/*.patch)
set -euo pipefail
root=$1
shift
patches=("$@")
[ ${#patches[@]} -gt 0 ] || patches=("$root"/tests/mutation/*.patch)
bad=0
for p in "${patches[@]}"; do
  awk -v root="$root" -v patch="$(basename "$p")" '
    function flush() {
      if (old != "" && index(text, old) == 0) { print patch ": a hunk no longer matches " file; bad = 1 }
      old = ""
    }
    /^--- a\// { flush(); file = substr($0, 7); text = ""
                 while ((getline l < (root "/" file)) > 0) text = text l "\n"
                 close(root "/" file); next }
    /^\+\+\+ / { next }
    /^@@/ { flush(); next }
    /^[ -]/ && file != "" { old = old substr($0, 2) "\n" }
    END { flush(); exit bad }' "$p" || bad=1
done
exit $bad
