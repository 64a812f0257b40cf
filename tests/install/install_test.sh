#!/usr/bin/env bash
# Installs the build tree into a scratch prefix, then configures, builds and runs a consumer.
# Usage: install_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
# Public headers only: the MPI executor's internals stay out.
inc="$tmp/prefix/include/sfreplay"
[ -f "$inc/core/graph.hpp" ] && [ -f "$inc/trace/reader.hpp" ] || { echo "public headers missing"; exit 1; }
if [ -f "$build/src/exec/mpi/libsfreplay_mpi.a" ]; then
  [ -f "$inc/exec/mpi/star_forest.hpp" ] || { echo "exec/mpi/star_forest.hpp not installed"; exit 1; }
  for h in link.hpp backend.hpp mpi_types.hpp vector_collective.hpp; do
    [ ! -e "$inc/exec/mpi/$h" ] || { echo "internal header exec/mpi/$h installed"; exit 1; }
  done
fi
# The installed CLI finds the installed capture library (bin/../lib), not the build tree's.
if [ -f "$build/src/capture/preload/libsfr_capture.so" ] && [ -x "$tmp/prefix/bin/sf-replay" ]; then
  lib=$("$tmp/prefix/bin/sf-replay" capture --library)
  case "$lib" in "$tmp/prefix/"*/libsfr_capture.so) ;; *) echo "installed sf-replay capture --library gave '$lib'"; exit 1 ;; esac
  [ -f "$lib" ] || { echo "$lib missing"; exit 1; }
fi
cmake -S "$src/tests/install/consumer" -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/consumer" >/dev/null
out=$("$tmp/consumer/consumer" "$src/traces/handmade-4.json")
echo "$out"
[ "$out" = "multi-SF roots: 8" ]
