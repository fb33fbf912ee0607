#!/usr/bin/env bash
# Copies the header-only dependencies that a GPU machine may lack (gemmi with its
# third-party headers, toml++, Random123, and tao/pegtl, which gemmi's CIF reader needs)
# from this machine's /usr/include into ./.deps/include (git-ignored). CMake looks there
# through ERMAK_EXTRA_INCLUDE, so a machine without these packages still configures.
# It also copies the test and benchmark inputs that live outside the repository (the
# SOP-GPU WW, PF8 and titin systems and the PDB entries from ../shared/data, and freesasa's
# test PDBs) into ./.deps/data, for machines that get only the repository
# (scripts/gpu-check.sh uses them through ERMAK_SHARED_DATA).
# Usage: scripts/collect-deps.sh [SOURCE_INCLUDE_DIR]   (default /usr/include)
set -euo pipefail
cd "$(dirname "$0")/.."
src="${1:-/usr/include}"
dest=.deps/include
mkdir -p "$dest"
for dir in gemmi toml++ Random123 tao; do
  if [[ ! -d "$src/$dir" ]]; then
    echo "collect-deps: $src/$dir not found (install gemmi-dev, libtomlplusplus-dev, librandom123-dev, tao-pegtl-dev)" >&2
    exit 1
  fi
  rm -rf "${dest:?}/$dir"
  cp -r "$src/$dir" "$dest/$dir"
done
shared="${ERMAK_SHARED_DATA:-../shared/data}"
if [[ -d "$shared/sopgpu" ]]; then
  mkdir -p .deps/data/sopgpu
  for system in ww pf8 titin; do
    rm -rf ".deps/data/sopgpu/$system"
    cp -r "$shared/sopgpu/$system" ".deps/data/sopgpu/$system"
  done
else
  echo "collect-deps: $shared/sopgpu not found: GPU tests and benchmarks of WW/PF8 will skip" >&2
fi
# The capsid benchmarks (ermak bench ccmv, ccmv4) and the fibrinogen one (fg).
for derived in 1CWP_pdb2cif.cif fibrinogen_fullfg_sopgpu_model.pdb; do
  if [[ -f "$shared/derived/$derived" ]]; then
    mkdir -p .deps/data/derived
    cp "$shared/derived/$derived" .deps/data/derived/
  fi
done
# The PDB entries of the bench (i27, lmb) and of the CPU tests (the capsid 1CWP, villin 1VII, …).
for pdb in 1TIT.pdb 1LMB.pdb 1YRF.pdb 2F4K.pdb 1CWP.pdb 1VII.pdb; do
  if [[ -f "$shared/pdb/$pdb" ]]; then
    mkdir -p .deps/data/pdb
    cp "$shared/pdb/$pdb" .deps/data/pdb/
  fi
done
if [[ -d /usr/share/freesasa/test-data ]]; then
  mkdir -p .deps/data/freesasa
  cp /usr/share/freesasa/test-data/*.pdb .deps/data/freesasa/
fi
du -sh .deps | sed 's/^/collect-deps: /'
