#!/usr/bin/env bash
# Every relative link of the Markdown pages resolves: README.md and every *.md under the source
# folders. A link [text](PATH) or [text](PATH#ANCHOR) must name an existing file or folder,
# relative to the page; an anchor into a Markdown page (or into the page itself, (#ANCHOR)) must
# be one of its headings as GitHub names them (lower case, punctuation dropped, spaces to
# hyphens). Web links (scheme:...) and fenced code blocks are not checked.
# Usage: links_resolve.sh SOURCE_DIR
set -euo pipefail
root=$(realpath "$1")
cd "$root"
pages=$( { echo README.md; find src sim generators reports tests traces cmake .ci -name '*.md' -not -path 'reports/vendor/*' 2>/dev/null; } | sort -u)
[ -n "$pages" ] || { echo "no Markdown pages under $root"; exit 1; }

# The anchors of a page: one per heading, as GitHub derives them.
anchors() {
  awk '/^```/ {code = !code; next} !code && /^#+ / {
         h = $0; sub(/^#+ +/, "", h); h = tolower(h)
         gsub(/[^a-z0-9 _-]/, "", h); gsub(/ /, "-", h)
         n = seen[h]++; print (n ? h "-" n : h) }' "$1"
}

# The links of a page, one "LINE TARGET" a line, outside fenced code.
links() {
  awk '/^```/ {code = !code; next} code {next} {
         line = $0; gsub(/`[^`]*`/, "", line)
         while (match(line, /\]\([^) ]+/)) {
           print NR, substr(line, RSTART + 2, RLENGTH - 2); line = substr(line, RSTART + RLENGTH) } }' "$1"
}

fail=0 count=0
for page in $pages; do
  dir=$(dirname "$page")
  while read -r line target; do
    case $target in *:*) continue ;; esac   # http:, https:, mailto:
    count=$((count + 1))
    path=${target%%#*}
    anchor=""
    [[ $target == *#* ]] && anchor=${target#*#}
    if [ -z "$path" ]; then file=$page; else file=$dir/$path; fi
    if [ ! -e "$file" ]; then
      echo "$page:$line: link to $target: no such file ($file)"
      fail=1
      continue
    fi
    if [ -n "$anchor" ] && [[ $file == *.md ]] && ! anchors "$file" | grep -qxF "$anchor"; then
      echo "$page:$line: link to $target: $file has no heading with the anchor #$anchor"
      fail=1
    fi
  done < <(links "$page")
done
[ "$fail" = 0 ] && echo "$count relative links in $(echo $pages | wc -w) Markdown pages resolve"
exit "$fail"
