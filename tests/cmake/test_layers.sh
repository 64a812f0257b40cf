#!/usr/bin/env bash
# The layer check (cmake/check_layers.cmake) passes on this tree and refuses a back-arrow: a copy
# of the tree where a trace header includes an exec header, and one where sim includes analysis.
# Usage: test_layers.sh SOURCE_DIR
set -euo pipefail
src=$1
check="$src/cmake/check_layers.cmake"
cmake -DROOT="$src" -P "$check"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/tree"
cp -r "$src/src" "$src/sim" "$src/generators" "$tmp/tree/"
for bad in 'src/trace/back_arrow.hpp:#include "exec/conformance.hpp"' 'sim/peer.cpp:#include "analysis/report.hpp"' 'generators/up.cpp:#include "sim/machine.hpp"' \
           'src/core/deep.hpp:  #  include "cli/options.hpp"' \
           'src/io/up.hpp:#include "trace/trace.hpp"' 'src/capture/side.hpp:#include "exec/conformance.hpp"'; do
  file=${bad%%:*} line=${bad#*:}
  echo "$line" > "$tmp/tree/$file"
  if out=$(cmake -DROOT="$tmp/tree" -P "$check" 2>&1); then
    echo "FAILED: the layer check accepted $file: $line"
    exit 1
  fi
  echo "$out" | grep -q "$file: .*may not include" || { echo "FAILED: no pointed message for $file:"; echo "$out"; exit 1; }
  rm "$tmp/tree/$file"
done
cmake -DROOT="$tmp/tree" -P "$check"
echo "layer check: passes on the tree, refuses each back-arrow"
