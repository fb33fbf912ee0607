#!/usr/bin/env bash
# Builds (if needed) and runs every CPU test. CUDA tests carry the label "cuda" and run
# only where a GPU is present (scripts/gpu-check.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
[[ -d build ]] || ERMAK_SKIP_APT=1 bash scripts/setup.sh
cmake --build build -j "$(nproc)"
# The tests read real inputs from the shared data beside the repository, or beside the
# checkout this one was cloned from (README.md, cmake/shared_data.cmake).
data="${ERMAK_SHARED_DATA:-$(cat build/shared_data_path.txt 2>/dev/null || echo "$PWD/../shared/data")}"
[[ -d "$data/sopgpu" ]] ||
  echo "scripts/test.sh: no shared test data at $data: the tests that read it will fail (set ERMAK_SHARED_DATA)" >&2
ctest --test-dir build --output-on-failure -j "$(nproc)" -LE cuda "$@"
