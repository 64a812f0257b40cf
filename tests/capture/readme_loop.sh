#!/usr/bin/env bash
# The README's capture loop ("Your own application: capture, then ask"), run as written: the
# block is taken from the README itself, run in a scratch folder with the built CLI on PATH, and
# its report must name the captured application's dominant SF and end in the verdict, PetscSF beside.
# Usage: readme_loop.sh README CLI_DIR
set -euo pipefail
readme=$1 cli_dir=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
awk '/^## Your own application/{sec=1} sec && /^```sh$/{go=1; next} go && /^```$/{exit} go{print}' "$readme" > "$tmp/loop.sh"
[ -s "$tmp/loop.sh" ] || { echo "no capture loop block found in $readme"; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export PATH="$cli_dir:$PATH"
cd "$tmp"
bash -euo pipefail loop.sh > log.txt 2>&1 || { cat log.txt; echo "the README's capture loop failed"; exit 1; }
report=out/capture/ex5.md
grep -q '^## Captured application' "$report" || { echo "no 'Captured application' section in $report"; exit 1; }
grep -q '^| sf[0-9]* | bcast | [0-9]* | [0-9]* |' "$report" || { echo "no SF rows in the report"; exit 1; }
# The verdict ends it, with PetscSF's own rows beside sf-replay's.
grep -q '^## Verdict' "$report" || { echo "no 'Verdict' section in $report"; exit 1; }
grep -q '^| petsc | .* | [0-9.]*x | PetscSF itself (-sf_type basic) |' "$report" || { echo "no PetscSF row in the verdict"; exit 1; }
grep -q '^\*\*Verdict:\*\* `.*` is fastest' "$report" || { echo "no verdict line"; exit 1; }
# ... and scales to 4,096 ranks, which compare answers on Lassen.
grep -q '^sf0 .* 2x2 -> 64x64 ' log.txt || { echo "scale did not regenerate the ghost update at 64 x 64 processes"; cat log.txt; exit 1; }
grep -q '^placement: 4096 ranks on 1024 node(s)' log.txt || { echo "compare did not answer at 4096 ranks"; cat log.txt; exit 1; }
grep -q '^\*\*Predicted verdict:\*\* `.*` is fastest on `lassen`' out/capture/ex5-4096.md || { echo "no predicted verdict at 4096 ranks"; exit 1; }
echo "the README's capture loop ran as written"
