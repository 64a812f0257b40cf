#!/usr/bin/env bash
# Writes the "Each command's help" section of src/cli/README.md from a built sf-replay: for every
# command `sf-replay --help` lists, in its order, a heading and the command's `--help` output
# (trailing blanks and blank lines at the end removed) in a fenced block between the lines
# "<!-- help: CMD -->" and "<!-- /help -->".
# Everything between the lines "<!-- commands -->" and "<!-- /commands -->" is replaced.
# Usage: update_help.sh SF_REPLAY [README]   (README: default, the README.md beside this script)
# With --print instead of writing, the section's new text goes to stdout (the test compares it).
set -euo pipefail
print=0
if [ "${1:-}" = "--print" ]; then print=1; shift; fi
[ $# -ge 1 ] || { echo "usage: $0 [--print] SF_REPLAY [README]" >&2; exit 2; }
bin=$1
readme=${2:-$(dirname "$0")/README.md}
[ -x "$bin" ] || { echo "$0: $bin is not an executable" >&2; exit 2; }
[ -f "$readme" ] || { echo "$0: no file $readme" >&2; exit 2; }
grep -qx '<!-- commands -->' "$readme" && grep -qx '<!-- /commands -->' "$readme" \
  || { echo "$0: $readme has no <!-- commands --> ... <!-- /commands --> lines" >&2; exit 2; }

# The output must not depend on the terminal: a wide COLUMNS, no terminal (a pipe), C locale.
help_of() { COLUMNS=200 LC_ALL=C "$bin" "$@" --help 2>&1 | sed 's/[[:space:]]*$//' \
  | awk 'NF {while (n > 0) {print ""; n--} print; next} {n++}'; }

# The commands: the first word of each line under "commands:" in `sf-replay --help`.
commands=$(help_of | awk '/^commands:/ {on = 1; next} on && NF {print $1}')
[ -n "$commands" ] || { echo "$0: $bin --help lists no commands" >&2; exit 1; }

section=$(mktemp)
trap 'rm -f "$section" "$section.new"' EXIT
{
  for cmd in $commands; do
    out=$(help_of "$cmd") || { echo "$0: $bin $cmd --help failed" >&2; exit 1; }
    printf '\n### %s\n\n<!-- help: %s -->\n```\n%s\n```\n<!-- /help -->\n' "$cmd" "$cmd" "$out"
  done
  echo
} > "$section"

if [ "$print" = 1 ]; then cat "$section"; exit 0; fi
awk -v section="$section" '
  $0 == "<!-- commands -->" { print; while ((getline line < section) > 0) print line; skip = 1; next }
  $0 == "<!-- /commands -->" { skip = 0 }
  !skip { print }' "$readme" > "$section.new"
cat "$section.new" > "$readme"
echo "$readme: the help of $(echo $commands | wc -w) commands written"
