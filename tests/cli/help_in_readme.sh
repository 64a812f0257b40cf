#!/usr/bin/env bash
# The command line reference holds the binary's own help: src/cli/README.md has one block
# "<!-- help: CMD -->" ... "<!-- /help -->" per command `sf-replay --help` lists, no other, each
# equal to `sf-replay CMD --help` (trailing blanks and blank lines at the end removed), in the
# listing's order. The output must not depend on the terminal: it is read with COLUMNS=200
# through a pipe, and again with COLUMNS=40, and both must agree.
# Usage: help_in_readme.sh SF_REPLAY SOURCE_DIR
set -euo pipefail
bin=$1 root=$2
readme=$root/src/cli/README.md
fix="run: bash src/cli/update_help.sh $bin"
fail=0
help_of() { COLUMNS=${cols:-200} LC_ALL=C "$bin" "$@" --help 2>&1 | sed 's/[[:space:]]*$//' \
  | awk 'NF {while (n > 0) {print ""; n--} print; next} {n++}'; }

commands=$(help_of | awk '/^commands:/ {on = 1; next} on && NF {print $1}')
[ -n "$commands" ] || { echo "$bin --help lists no commands"; exit 1; }
in_readme=$(sed -n 's/^<!-- help: \(.*\) -->$/\1/p' "$readme")

# Missing and extra commands.
for c in $commands; do
  grep -qx "$c" <<< "$in_readme" || { echo "$readme: no help block for '$c' ($fix)"; fail=1; }
done
for c in $in_readme; do
  grep -qx "$c" <<< "$commands" || { echo "$readme: help block for '$c', which $bin --help does not list ($fix)"; fail=1; }
done

# Each block against the binary, and the terminal's width changing nothing.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for c in $commands; do
  help_of "$c" > "$tmp/binary"
  cols=40 help_of "$c" > "$tmp/narrow"
  cmp -s "$tmp/binary" "$tmp/narrow" || { echo "'$c --help' depends on COLUMNS:"; diff "$tmp/binary" "$tmp/narrow" || true; fail=1; }
  awk -v c="$c" '$0 == "<!-- help: " c " -->" {on = 1; next} on && $0 == "<!-- /help -->" {exit}
                 on && !/^```$/ {print}' "$readme" > "$tmp/readme"
  grep -qx "$c" <<< "$in_readme" || continue
  if ! cmp -s "$tmp/binary" "$tmp/readme"; then
    echo "$readme: the help block of '$c' differs from '$bin $c --help' ($fix):"
    diff "$tmp/readme" "$tmp/binary" || true
    fail=1
  fi
done

# The whole section as the script writes it: headings, order, fences.
bash "$root/src/cli/update_help.sh" --print "$bin" "$readme" > "$tmp/section"
awk '$0 == "<!-- /commands -->" {on = 0} on {print} $0 == "<!-- commands -->" {on = 1}' "$readme" > "$tmp/current"
if [ "$fail" = 0 ] && ! cmp -s "$tmp/section" "$tmp/current"; then
  echo "$readme: the help section is not as update_help.sh writes it (order, headings or fences) ($fix):"
  diff "$tmp/current" "$tmp/section" || true
  fail=1
fi
[ "$fail" = 0 ] && echo "src/cli/README.md holds the help of all $(echo $commands | wc -w) commands, as the binary prints it"
exit "$fail"
