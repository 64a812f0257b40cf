#!/usr/bin/env bash
# Benchmark (not a test): issue 51's comparison with PetscSF where the bytes dominate. SpMV ghost
# exchanges at 2 ranks (one per core) whose messages run from 1 KiB to 256 KiB per rank, every
# backend and PetscSF side by side in one run (sfr_bench_mpi sf), the floor beside each row.
#   bash tests/bench/large_messages.sh [BUILD]   (default build/release) -> out/bench/large-messages.json
# The matrices are written here (Matrix Market), each at 5 sizes, half the rows on each rank:
#   coupled  [[T, I], [I, T]] (T tridiagonal): every row has one ghost on the other rank, so each
#            rank sends its whole half as one contiguous run and receives one (both directions)
#   strided  row i couples to column (2i mod h) of the other half: every other entry, so the
#            sender gathers a run of one per value (a scattered pack), both directions
#   arrow    row 0 and column 0 full: rank 0 receives the whole of rank 1's half, rank 1 one value
# Then the bound (sfr_bench_mpi split-copy -> out/bench/split-copy.json): what two ranks can gain on
# a large contiguous run over the kernel's one copy (MPI's and PetscSF's) by copying on both cores.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build/release}
cli=$build/src/cli/sf-replay
bench=$build/tests/sfr_bench_mpi
out=out/bench/large-messages
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# matrix KIND H: a 2H x 2H matrix of the family KIND (entries 1; coordinates 1-based).
matrix() {
  awk -v kind="$1" -v h="$2" 'BEGIN {
    n = 2 * h
    for (i = 0; i < n; i++) {
      e[++m] = i " " i
      if (i > 0 && i != h) e[++m] = i " " i - 1
      if (i + 1 < n && i + 1 != h) e[++m] = i " " i + 1
      other = i < h ? h : 0
      if (kind == "coupled") e[++m] = i " " other + i % h
      if (kind == "strided") e[++m] = i " " other + (2 * i) % h
      if (kind == "arrow" && i > 1) { e[++m] = "0 " i; e[++m] = i " 0" }
    }
    print "%%MatrixMarket matrix coordinate real general"
    print n, n, m
    for (k = 1; k <= m; k++) { split(e[k], ij, " "); print ij[1] + 1, ij[2] + 1, 1 }
  }'
}

traces=()
for kind in coupled strided arrow; do
  for kib in 1 8 32 128 256; do
    h=$((kib * 128))  # 8-byte values: h values are kib KiB
    [ "$kind" = strided ] && h=$((h * 2))  # half the entries are ghosts: the same bytes
    m="$out/$kind-$kib.mtx"
    matrix "$kind" "$h" >"$m"
    t="$out/spmv-$kind-${kib}k-p2.json"
    $cli generate spmv --matrix "$m" --ranks 2 --partition rows -o "$t" >/dev/null
    traces+=("$t")
  done
done
mpiexec -n 2 "$bench" sf "${traces[@]}" --json out/bench/large-messages.json | grep -v '^[ {}]'
echo "# the bound: one copy by the receiver (MPI, CMA) against the receiver and the sender copying half each"
mpiexec -n 2 --bind-to core "$bench" split-copy --json out/bench/split-copy.json | grep -v '^[ {}]'
