#!/usr/bin/env bash
# The GPU check (docs/gpu.md#checking-a-gpu-build): on a machine with an NVIDIA GPU,
# configure and build for sm_90 (+PTX), run the CUDA tests (ctest label "cuda"), the
# CUDA benchmarks, compute-sanitizer memcheck, initcheck, synccheck and racecheck on short
# runs of both kernel families, the backend agreement sweep (scripts/backend_agreement.py: random
# configurations on the GPU and the CPU, and stopped on one and resumed on the other), and
# the CPU tests; every log goes under $OUT (default
# build-gpu/gpu-check-out),
# and a summary table is printed last.
#
#   bash scripts/collect-deps.sh     # on a machine with the packages, if the GPU machine lacks them
#   bash scripts/gpu-check.sh        # on the GPU machine
#
# Environment: STAGES (default "info build cuda-tests bench sanitize agreement cpu-tests",
# run in that order;
# also "profile": Nsight Compute on the step kernels of each family; and "arch": a second
# build of the CUDA code as compute_80 PTX only, which the driver compiles for this GPU —
# the code an A100 runs, without Hopper's instructions — with its CUDA tests and a bench,
# docs/gpu.md#which-gpus),
# BUDGET_SECONDS (default 600: stages that no longer fit are skipped), BUILD_DIR
# (default build-gpu), BENCH_CASES, BENCH_SECONDS, AGREEMENT_CASES (default 60),
# AGREEMENT_SEED (default 1).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
BUILD="${BUILD_DIR:-build-gpu}"
OUT="${OUT:-$ROOT/$BUILD/gpu-check-out}"  # under the (git-ignored) build directory by default
mkdir -p "$OUT"
STAGES="${STAGES:-info build cuda-tests bench sanitize agreement cpu-tests}"
START=$(date +%s)
DEADLINE=$((START + ${BUDGET_SECONDS:-600}))
BENCH_CASES="${BENCH_CASES:-wwx1,wwx1000,wwx10000,pf8x1,pf8x16}"
BENCH_SECONDS="${BENCH_SECONDS:-1}"
JOBS="$(nproc)"

# Inputs that live outside the repository travel in .deps/data (scripts/collect-deps.sh).
if [[ -d "$ROOT/.deps/data/sopgpu" ]]; then export ERMAK_SHARED_DATA="$ROOT/.deps/data"; fi
if [[ -d "$ROOT/.deps/data/freesasa" && ! -f /usr/share/freesasa/test-data/1ubq.pdb ]]; then
  mkdir -p /usr/share/freesasa/test-data 2>/dev/null &&
    cp "$ROOT"/.deps/data/freesasa/*.pdb /usr/share/freesasa/test-data/ 2>/dev/null || true
fi

SUMMARY="$OUT/summary.txt"
: >"$SUMMARY"
declare -a ROWS=()

# stage NAME LIMIT_SECONDS LOGFILE COMMAND...: runs with the time left, appends to LOGFILE.
stage() {
  local name="$1" limit="$2" log="$3"
  shift 3
  [[ " $STAGES " == *" $name "* ]] || return 0
  local now left rc t0
  now=$(date +%s)
  left=$((DEADLINE - now - 5))
  if ((left < 15)); then
    ROWS+=("$(printf '%-12s %-8s %6s  %s' "$name" skipped - "no time left")")
    return 0
  fi
  ((limit > left)) && limit=$left
  t0=$now
  echo "=== $name (limit ${limit}s) $(date -u +%H:%M:%S) ===" >>"$OUT/$log"
  timeout --kill-after=5 "$limit" bash -c "set -o pipefail; $*" >>"$OUT/$log" 2>&1
  rc=$?
  local dt=$(($(date +%s) - t0))
  local verdict=ok
  ((rc != 0)) && verdict="FAIL($rc)"
  ((rc == 124 || rc == 137)) && verdict="TIMEOUT"
  ROWS+=("$(printf '%-12s %-8s %5ss  %s' "$name" "$verdict" "$dt" "$log")")
  return 0
}

stage info 20 build.log '
  nvidia-smi || true
  nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem --format=csv || true
  nvcc --version | tail -2; cmake --version | head -1; gcc --version | head -1; nproc
  echo "ERMAK_SHARED_DATA=${ERMAK_SHARED_DATA:-unset}"'

stage build 240 build.log "
  cmake -S . -B '$BUILD' -G Ninja -DCMAKE_BUILD_TYPE=Release -DERMAK_CUDA=ON \
    -DCMAKE_CUDA_ARCHITECTURES='90-real;90-virtual' &&
  cmake --build '$BUILD' -j $JOBS --target ermak ermak_cuda_tests"

TESTS="$BUILD/tests/ermak_cuda_tests"
stage cuda-tests 200 cuda-tests.log "
  '$TESTS' --gtest_color=no --gtest_output=xml:'$OUT/cuda-tests.xml' 2>&1 | grep -v '^\[ *RUN *\]'"

stage bench 200 bench.log "
  '$BUILD/ermak' bench --backend cuda --cases '$BENCH_CASES' --seconds $BENCH_SECONDS
  echo '--- forced families ---'
  ERMAK_CUDA_KERNEL=perbead '$BUILD/ermak' bench --backend cuda --cases wwx1,wwx1000,ubqx1 --seconds $BENCH_SECONDS
  ERMAK_CUDA_KERNEL=block '$BUILD/ermak' bench --backend cuda --cases ubqx1,ubqx100 --seconds $BENCH_SECONDS
  echo '--- variants: per-bead 8 lanes; block with 1 lane per bead ---'
  ERMAK_CUDA_LANES=8 '$BUILD/ermak' bench --backend cuda --cases pf8x1,pf8x16 --seconds $BENCH_SECONDS
  ERMAK_CUDA_BLOCK_LANES=1 '$BUILD/ermak' bench --backend cuda --cases wwx1,wwx1000 --seconds $BENCH_SECONDS
  echo '--- block family: the tiles layout off (the lanes kernels), against the defaults ---'
  ERMAK_CUDA_BLOCK_TILES=0 '$BUILD/ermak' bench --backend cuda --cases wwx300,wwx1000,wwx1500 --seconds $BENCH_SECONDS
  echo '--- per-bead family: cluster rows forced on (1) and off (0), against the defaults ---'
  ERMAK_CUDA_CLUSTER_ROWS=1 '$BUILD/ermak' bench --backend cuda --cases fgx1 --seconds $BENCH_SECONDS
  ERMAK_CUDA_CLUSTER_ROWS=0 '$BUILD/ermak' bench --backend cuda --cases pf8x1,pf8x16,ccmvx1 --seconds $BENCH_SECONDS
  echo '--- cluster tiles of one warp per cluster (ERMAK_CUDA_CLUSTER_SPLIT=1), against the defaults ---'
  ERMAK_CUDA_CLUSTER_SPLIT=1 '$BUILD/ermak' bench --backend cuda --cases pf8x1,pf8x2,ccmvx1 --seconds $BENCH_SECONDS
  echo '--- cluster tiles in chain order (ERMAK_CUDA_CLUSTER_ORDER=0), against the defaults (docs/gpu.md#cluster-order) ---'
  ERMAK_CUDA_CLUSTER_ORDER=0 '$BUILD/ermak' bench --backend cuda --cases pf8x8,pf8x16,fgx16 --seconds $BENCH_SECONDS
  echo '--- step-kernel blocks of 8 warps (ERMAK_CUDA_BLOCK_WARPS=8), against the defaults of 4 (docs/gpu.md#cluster-order) ---'
  ERMAK_CUDA_BLOCK_WARPS=8 '$BUILD/ermak' bench --backend cuda --cases pf8x16,ccmvx1,ccmv4x1 --seconds $BENCH_SECONDS
  echo '--- the CCMV capsid (one 28 620-bead capsid; four of them as one 114 480-bead structure) ---'
  '$BUILD/ermak' bench --backend cuda --cases ccmvx1,ccmv4x1,ccmv4x16 --seconds $BENCH_SECONDS
  echo '--- mid-sized proteins around the all-pairs limit of the block family (192 beads) ---'
  '$BUILD/ermak' bench --backend cuda --cases i27x1,i27x1000,cpx1,cpx1000,lmbx1,lmbx1000,fablx1,fablx1000 --seconds $BENCH_SECONDS
  echo '--- protocol runs: pulled (p) and indented (i) ---'
  '$BUILD/ermak' bench --backend cuda --cases wwx1p,wwx1000p,wwx10000p,pf8x1p,pf8x16p,ccmvx1p,wwx1000i,pf8x1i,ccmvx1i --seconds $BENCH_SECONDS"

# Code for an earlier architecture (compute_80 PTX, compiled by the driver for this GPU):
# the engine must see that it cannot wait on chip and launch the per-bead steps plainly.
# (The bench loads kernels lazily here: eagerly, the driver would compile every kernel's
# PTX before the first case.)
ARCH_BUILD="$BUILD-ptx80"
stage arch 420 arch.log "
  cmake -S . -B '$ARCH_BUILD' -G Ninja -DCMAKE_BUILD_TYPE=Release -DERMAK_CUDA=ON \
    -DCMAKE_CUDA_ARCHITECTURES=80-virtual &&
  cmake --build '$ARCH_BUILD' -j $JOBS --target ermak ermak_cuda_tests &&
  '$ARCH_BUILD/tests/ermak_cuda_tests' --gtest_color=no --gtest_brief=1 \
    --gtest_filter='CudaDeviceCode.*:Systems/CudaVsCpu.*:Families/CudaFamily.*:CudaEngineVariants.*:CudaRun.*' &&
  CUDA_MODULE_LOADING=LAZY '$ARCH_BUILD/ermak' bench --backend cuda --cases wwx1,wwx10000,pf8x1,pf8x16 \
    --seconds $BENCH_SECONDS"

NCU_SECTIONS='--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis'
stage profile 120 profile.log "
  for c in pf8x1 pf8x16; do
    echo \"### perbead_step_kernel, \$c\"
    ncu --clock-control none --kernel-name regex:perbead_step --launch-skip 200 --launch-count 1 $NCU_SECTIONS \
      '$BUILD/ermak' bench --backend cuda --cases \$c --seconds 0.3 | grep -v '^==PROF==' | cut -c1-150
  done
  for c in wwx1 wwx10000; do
    echo \"### block_steps_kernel, \$c\"
    ncu --clock-control none --kernel-name regex:block_steps --launch-skip 1 --launch-count 1 $NCU_SECTIONS \
      '$BUILD/ermak' bench --backend cuda --cases \$c --seconds 0.3 | grep -v '^==PROF==' | cut -c1-150
  done"

# Short runs of each family under the sanitizers: WW trajectories (block and per-bead
# kernels, list builds, graphs), one λ repressor in the block family's blocks of more than
# 512 threads (2 and 4 lanes per bead, list and all-pairs modes; racecheck: a few steps of
# each, through ermak bench, since 1000 of them take minutes) and indentation (tip
# reductions, protocol kernels).
# The variants tests cover the per-bead family's cluster rows (build and step, tiles of
# 1, 2 and 4 warps per cluster) on WW and both cell sorts (cooperative grid and block per
# replica) on PF8 and 300 WW replicas; the indentation tests run the per-bead family with
# rows per bead and with cluster rows. The ceiling kernels of `ermak bench --ceiling`
# (one step of each, both sanitizers: their slots and atomics are shared memory). The
# block family's tiles layout: protocols and stored noise under memcheck, racecheck on a
# few steps of 20 WW replicas (blocks of several replicas, a partial last block). The
# report stops' gathers and stability screen (stop_kernels.cu) under memcheck, also
# overlapped with the next steps. A run split over two engines (backend/split_engine.h;
# both on GPU 0 where there is one) under memcheck. The step kernel in blocks of 4 warps
# (ERMAK_CUDA_BLOCK_WARPS, the default from 16 clusters per SM, which the short tests
# do not reach): a few steps of one PF8 with clusters of one warp and of two. Hydrodynamic
# steps (TEA in lane groups of 8, 16 and 32, the exact factor's block, indentation with TEA):
# the one-step dense-reference checks of 6 to 122 beads, both families.
CEILING='CeilingKernels.OneStepEqualsTheHostsSumOfTheSamePairs:CeilingKernels.TilesWithTheModelTakeOneStepOfThePlainDynamics:CeilingKernels.PairsOnceDiffersFromPairsTwice'
SHORT="Families/CudaHydrodynamics.*OneStep*:Families/CudaHydrodynamics.IndentationWithTeaAgreesWithCpu/*:Systems/CudaVsCpu.TrajectoryAgreesFor1000Steps/ww_*:CudaEngine.BlockFamilyLanesInBlocksOfMoreThan512ThreadsAgreeWithCpu:Families/CudaFamily.IndentationAgreesWithCpu/*:Families/CudaFamily.MinimisationAgreesWithCpu/*:CudaEngineVariants.PerBeadMultiRoundAndBlockLaneCountsAgreeWithCpu:CudaEngineVariants.GridCellSortEqualsOneBlockPerReplica:Families/CudaFamily.ProtocolsAgreeWithCpu/block_tiles*:Families/CudaFamily.StoredNoiseAgreesWithCpu/block_tiles*:Families/CudaFamily.StopsWithoutAllPositionsSeeWhatTheStateShows/*:Families/CudaFamily.OverlappedStopsGiveTheValuesOfStopsInTurn/*:CudaEngine.BlockListsThatOverflowInLaunchesRunAheadGiveTheSameBits:Families/CudaSplit.*:$CEILING"
stage sanitize 480 sanitize.log "
  echo '--- memcheck ---'
  compute-sanitizer --tool memcheck --error-exitcode 9 --print-limit 20 '$TESTS' --gtest_color=no --gtest_filter='$SHORT' --gtest_brief=1
  m=\$?
  echo '--- initcheck and synccheck (device memory read or copied before it is written; barriers in divergent code) ---'
  compute-sanitizer --tool initcheck --error-exitcode 9 --print-limit 20 '$TESTS' --gtest_color=no --gtest_filter='$SHORT' --gtest_brief=1 || m=9
  compute-sanitizer --tool synccheck --error-exitcode 9 --print-limit 20 '$TESTS' --gtest_color=no --gtest_filter='$SHORT' --gtest_brief=1 || m=9
  echo '--- racecheck (per-bead family with cluster rows) ---'
  ERMAK_CUDA_CLUSTER_ROWS=1 compute-sanitizer --tool racecheck --error-exitcode 9 --print-limit 20 '$TESTS' --gtest_color=no --gtest_filter='Systems/CudaVsCpu.TrajectoryAgreesFor1000Steps/ww_*:Families/CudaFamily.IndentationAgreesWithCpu/block:Families/CudaFamily.IndentationAgreesWithCpu/perbead_cluster_rows:Families/CudaHydrodynamics.*OneStep*:$CEILING' --gtest_brief=1
  r=\$?
  echo '--- racecheck (block family, one λ repressor in blocks of 576 and 928 threads, lists and all pairs: a few steps) ---'
  b=0
  for lanes in 2 4; do for limit in 0 255; do
    ERMAK_CUDA_BLOCK_LANES=\$lanes ERMAK_CUDA_ALLPAIRS_MAX_BEADS=\$limit compute-sanitizer --tool racecheck --error-exitcode 9 --print-limit 20 \
      '$BUILD/ermak' bench --backend cuda --cases lmbx1 --seconds 0.01 | grep -v '^#' || b=9
  done; done
  echo '--- racecheck (block family, tiles layout, 20 WW replicas, bead threads apart and shared: a few steps) ---'
  for apart in 1 0; do
    ERMAK_CUDA_BLOCK_TILES=1 ERMAK_CUDA_TILE_BEADS_APART=\$apart compute-sanitizer --tool racecheck --error-exitcode 9 --print-limit 20 \
      '$BUILD/ermak' bench --backend cuda --cases wwx20 --seconds 0.01 | grep -v '^#' || b=9
  done
  echo '--- memcheck and racecheck (per-bead family, cluster tiles in blocks of 4 warps: one PF8, clusters of one warp and of two; a few steps) ---'
  w=0
  for split in 1 2; do
    ERMAK_CUDA_CLUSTER_SPLIT=\$split ERMAK_CUDA_BLOCK_WARPS=4 compute-sanitizer --tool memcheck --error-exitcode 9 --print-limit 20 \
      '$BUILD/ermak' bench --backend cuda --cases pf8x1 --seconds 0.01 | grep -v '^#' || w=9
  done
  ERMAK_CUDA_CLUSTER_SPLIT=1 ERMAK_CUDA_BLOCK_WARPS=4 compute-sanitizer --tool racecheck --error-exitcode 9 --print-limit 20 \
    '$BUILD/ermak' bench --backend cuda --cases pf8x1 --seconds 0.01 | grep -v '^#' || w=9
  echo \"memcheck, initcheck, synccheck rc=\$m racecheck rc=\$r racecheck (large blocks) rc=\$b blocks of 4 warps rc=\$w\"
  exit \$((m + r + b + w))"

# 60 random configurations on the GPU and the CPU: 200–206 s on an H100 with 16 cores.
stage agreement 240 agreement.log "
  python3 scripts/backend_agreement.py --ermak '$BUILD/ermak' --a cuda --b cpu --cases ${AGREEMENT_CASES:-60} \
    --seed ${AGREEMENT_SEED:-1} --out '$OUT/agreement' --force"

# The tests that read ermak's files with MDAnalysis need it installed (scripts/setup.sh
# does; they fail rather than skip where it is missing, so that CI cannot lose them). A GPU
# machine without it (and without a network to install it) leaves them out, and says so.
CPU_TEST_EXCLUDE=""
CPU_TEST_NOTE=""
if ! python3 -c 'import MDAnalysis' >/dev/null 2>&1; then
  CPU_TEST_EXCLUDE="-E Mdanalysis"
  CPU_TEST_NOTE="MDAnalysis is not installed here: the tests named *Mdanalysis* were left out"
fi
stage cpu-tests 300 ctest.log "
  cmake --build '$BUILD' -j $JOBS &&
  ctest --test-dir '$BUILD' -j $JOBS --timeout 240 --output-on-failure -LE cuda $CPU_TEST_EXCLUDE"

{
  echo "# gpu-check $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
  printf '%-12s %-8s %6s  %s\n' stage result time log
  for r in "${ROWS[@]}"; do echo "$r"; done
  echo
  if [[ -f "$OUT/cuda-tests.log" ]]; then
    echo "## CUDA tests"
    grep -E '^\[  (PASSED|FAILED) |tests ran|FAILED TEST|SKIPPED \] [0-9]+ test|max \|x_cuda' "$OUT/cuda-tests.log" | tail -40
  fi
  if [[ -f "$OUT/agreement.log" ]]; then
    echo "## backend agreement"
    grep -E '^# [0-9]+ of|FAIL' "$OUT/agreement.log" | head -12
  fi
  if [[ -f "$OUT/bench.log" ]]; then
    echo "## bench"
    grep -vE '^=== ' "$OUT/bench.log" | tail -45
  fi
  if [[ -f "$OUT/arch.log" ]]; then
    echo "## compute_80 PTX build"
    grep -E 'tests ran|PASSED|FAILED|^# GPU|^(ww|pf8) ' "$OUT/arch.log" | tail -12
  fi
  if [[ -f "$OUT/sanitize.log" ]]; then
    echo "## sanitizers"
    grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|rc=|Error|Hazard' "$OUT/sanitize.log" | head -20
  fi
  if [[ -f "$OUT/ctest.log" ]]; then
    echo "## ctest (CPU)"
    [[ -n "$CPU_TEST_NOTE" ]] && echo "$CPU_TEST_NOTE"
    grep -E 'tests passed|tests failed|\(Failed\)|\(Timeout\)' "$OUT/ctest.log" | head -20
  fi
} | tee "$SUMMARY"
