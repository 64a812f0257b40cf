#!/usr/bin/env bash
# Regenerates the curated sample traces (all of traces/ except the hand-written handmade-4.json).
# Usage: traces/make_traces.sh SF_REPLAY [OUTDIR] [MATRICES_DIR]
#   SF_REPLAY     the sf-replay binary (e.g. build/src/cli/sf-replay)
#   OUTDIR        where to write (default: this folder)
#   MATRICES_DIR  the shared test matrices (default: ../../shared/matrices relative to this folder)
# Deterministic: the same binary gives byte-identical files (tests/generators/test_cli.cpp checks it).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cli=${1:?usage: make_traces.sh SF_REPLAY [OUTDIR] [MATRICES_DIR]}
out=${2:-$here}
mat=${3:-$here/../../shared/matrices}
mkdir -p "$out"
g() { local name=$1; shift; "$cli" generate "$@" -o "$out/$name.json" 2>/dev/null; }

# SpMV ghost exchange of real matrices (square, symmetric-expanded, complex, rectangular).
g spmv-bcsstk13-rows-p4        spmv --matrix "$mat/bcsstk13.mtx" --ranks 4 --partition rows --ranks-per-node 2
g spmv-bcsstk13-metis-p8       spmv --matrix "$mat/bcsstk13.mtx" --ranks 8 --partition metis --seed 1 --ranks-per-node 4
g spmv-bcspwr10-rcm-p8         spmv --matrix "$mat/bcspwr10.mtx" --ranks 8 --partition rcm --ranks-per-node 4
g spmv-young1c-nnz-p4          spmv --matrix "$mat/young1c.mtx" --ranks 4 --partition nnz --ranks-per-node 2
g spmv-groebner-rows-p6        spmv --matrix "$mat/Groebner_id2003_aug.mtx" --ranks 6 --partition rows --ranks-per-node 3
# Structured-grid ghost updates.
g stencil-2d-box-periodic      stencil --dims 2 --size 32x32 --procs 2x2 --dof 2 --stencil box --width 1 --periodic all --ranks-per-node 2
g stencil-3d-star-w2           stencil --dims 3 --size 12x12x12 --procs 2x2x2 --stencil star --width 2 --ranks-per-node 4
g stencil-1d-w1                stencil --dims 1 --size 64 --procs 4 --width 1 --ranks-per-node 2
# Mesh migration (PetscSF paper, mesh-distribution experiment).
for order in sequential chunks; do
  g hexmesh-6-$order-p8        hexmesh --cells 6 --ranks 8 --order $order --ranks-per-node 4
done
g hexmesh-6-random-p8          hexmesh --cells 6 --ranks 8 --order random --seed 1 --ranks-per-node 4
# ParaDiGM data-movement patterns.
g synthetic-diagonal-p8        synthetic --pattern diagonal --per-rank 200 --ranks 8 --ranks-per-node 4
g synthetic-quasi25-p8         synthetic --pattern quasi-diagonal --fraction 0.25 --per-rank 200 --ranks 8 --ranks-per-node 4
g synthetic-random-p2b-p8      synthetic --pattern random --per-rank 200 --ranks 8 --direction part-to-block --seed 1 --ranks-per-node 4
# VecScatter patterns and the ring-send example.
for p in par-to-par seq-to-par par-to-seq ring-send; do
  g scatter-$p-p8              scatter --pattern $p --ranks 8 --per-rank 16 --ranks-per-node 4
done
# Node-aware scenarios (Fig. 4.3).
g scenario-m32-n4-dup25        scenario --msgs 32 --nodes 4 --size 1024 --duplicates 0.25 --ranks-per-node 4
g scenario-m256-n16            scenario --msgs 256 --nodes 16 --size 64 --ranks-per-node 4
# Random SF for property tests.
g random-p6-s1                 random --ranks 6 --seed 1 --max-roots 12 --max-leaves 16 --holes 0.25 --self 0.2
