#!/usr/bin/env bash
# What other numerics would buy the production CUDA kernels, measured on patched copies of
# the tree (docs/benchmarks.md#cheaper-noise-and-approximate-arithmetic-measured-forty-fourth-session
# and #free-pair-terms-measured-forty-fifth-session). Each variant is a copy under /tmp/v-NAME
# with one source file patched, built for sm_90 (the ermak target only, in parallel) and run
# through `ermak bench --backend cuda`. A measurement, not a build option: nothing here changes
# the code in the repository. On the GPU machine, after scripts/collect-deps.sh here:
#   bash scripts/numerics-probe.sh > probe.log            (~5 min on an H200 with 16 cores)
#   PROBE=pairs bash scripts/numerics-probe.sh > probe.log (~4 min)
# PROBE=noise (the default): rng/philox_gaussian.h patched (Philox4x32-7, uniform noise of unit
#   variance, no noise) and/or --use_fast_math; WW x 10^3, 10^4 and PF8 x 16.
# PROBE=pairs: the repulsive pair terms removed — no bead in the all-pairs rows (block family,
#   WW x 10^4), no bit in the cluster rows (per-bead family, PF8; their builds still scan the
#   cells) — an upper bound on any numerics of the pair terms; and both with the noise removed
#   too; WW x 10^4, PF8 x 16, WW x 10^3, PF8 x 1.
# PROBE=bound: every cluster-tile step kernel (plain ones too, which production leaves
#   unbounded at ~62 registers) bounded to 48 and to 40 registers — more resident warps against
#   spills, where the rest of PF8 x 16's step is latency
#   (docs/benchmarks.md#bonded-loads-ahead-forty-fifth-session); PF8 x 16, PF8 x 1, CCMV x 1, 4 x CCMV.
set -u
ROOT="$PWD"; export ERMAK_SHARED_DATA="$ROOT/.deps/data"
mk() {  # NAME CUDA_FLAGS FILE PATCH [FILE PATCH …] (PATCH: python code run on FILE's text s)
  local name=$1 flags=$2 dir=/tmp/v-$1; shift 2
  rm -rf $dir; mkdir -p $dir; (cd "$ROOT" && tar cf - --exclude=./build-gpu --exclude=./build --exclude=./.git .) | (cd $dir && tar xf -)
  while [ $# -ge 2 ]; do
    python3 - "$dir/$1" "$2" <<'PY'
import sys
p, patch = sys.argv[1], sys.argv[2]
s = open(p).read(); t = s
exec(patch)
if patch and s == t: raise SystemExit("patch changed nothing: " + patch)
open(p, 'w').write(s)
PY
    shift 2
  done
  (cd $dir && cmake -S . -B b -G Ninja -DCMAKE_BUILD_TYPE=Release -DERMAK_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES='90-real' \
     -DCMAKE_CUDA_FLAGS="$flags" > /tmp/cfg-$name.log 2>&1 && cmake --build b -j "$jobs" --target ermak > /tmp/build-$name.log 2>&1) \
     && echo "built $name" || { echo "BUILD FAILED $name"; tail -20 /tmp/build-$name.log; }
}
bench() {  # CASES VARIANT...
  local cases=$1; shift
  for v in "$@"; do
    echo "=== $v"; [ -x /tmp/v-$v/b/ermak ] || continue
    /tmp/v-$v/b/ermak bench --backend cuda --cases "$cases" --seconds 1 2>&1 | tail -6
  done
}
NOISE=src/ermak/rng/philox_gaussian.h
ZERO='s = s.replace("  box_muller(bits[0], bits[1], g.x, g.y);\n  box_muller(bits[2], bits[3], g.z, unused);", "  (void)unused; (void)bits; g.x = g.y = g.z = 0.0f;")'
case "${PROBE:-noise}" in
noise)
  jobs=3
  P7='s = s.replace("for (int round = 0; round < 10; ++round) philox_round(c, keys.k0[round], keys.k1[round]);", "for (int round = 0; round < 7; ++round) philox_round(c, keys.k0[round], keys.k1[round]);")'
  UNI='s = s.replace("  box_muller(bits[0], bits[1], g.x, g.y);\n  box_muller(bits[2], bits[3], g.z, unused);", "  (void)unused; const float k = 3.4641016f / 16777216.0f; g.x = (float(bits[0] >> 8) + 0.5f) * k - 1.7320508f; g.y = (float(bits[1] >> 8) + 0.5f) * k - 1.7320508f; g.z = (float(bits[2] >> 8) + 0.5f) * k - 1.7320508f;")'
  mk base "" $NOISE "" &
  mk fast "--use_fast_math" $NOISE "" &
  mk p7fast "--use_fast_math" $NOISE "$P7" &
  mk uniform "" $NOISE "$UNI" &
  mk zero "" $NOISE "$ZERO" &
  wait
  bench wwx1000,wwx10000,pf8x16 base fast p7fast uniform zero
  ;;
pairs)
  jobs=6
  ALLPAIRS='s = s.replace("for (int i = 0; i < n_; ++i) excluded[i][i] = true;", "for (int i = 0; i < n_; ++i) for (int j = 0; j < n_; ++j) excluded[i][j] = true;")'
  CLUSTER='s = s.replace("if (dx * dx + dy * dy + dz * dz < m.list_cutoff2 && j != first + a) mask |= 1u << a;", "if (dx * dx + dy * dy + dz * dz < 0.0f * m.list_cutoff2 && j != first + a) mask |= 1u << a;")'
  mk base "" src/ermak/backend/cuda/cuda_engine_memory.cu "" &
  mk norep_block "" src/ermak/backend/cuda/cuda_engine_memory.cu "$ALLPAIRS" &
  mk norep_cluster "" src/ermak/backend/cuda/perbead_kernels.cu "$CLUSTER" &
  # Both families' pair terms and the noise: what the bonds, native contacts and move cost.
  mk norep_nonoise "" src/ermak/backend/cuda/cuda_engine_memory.cu "$ALLPAIRS" \
    src/ermak/backend/cuda/perbead_kernels.cu "$CLUSTER" $NOISE "$ZERO" &
  wait
  bench wwx10000,pf8x16,wwx1000,pf8x1 base norep_block norep_cluster norep_nonoise
  ;;
bound)
  jobs=5
  K=src/ermak/backend/cuda/perbead_kernels.cu
  B48='s = s.replace("return bounded ? 65536 / 64 / kPerBeadBlock : 0;", "return uses_cluster_tile<S, kMultiRound, Index>() ? 5 : bounded ? 65536 / 64 / kPerBeadBlock : 0;")'
  B40='s = s.replace("return bounded ? 65536 / 64 / kPerBeadBlock : 0;", "return uses_cluster_tile<S, kMultiRound, Index>() ? 6 : bounded ? 65536 / 64 / kPerBeadBlock : 0;")'
  mk base "" $K "" &
  mk bound48 "-Xptxas=-v" $K "$B48" &
  mk bound40 "-Xptxas=-v" $K "$B40" &
  wait
  for v in bound48 bound40; do
    echo "--- $v: perbead_step_kernel registers and spills (ptxas)"
    grep -A5 "Compiling entry function .*perbead_step_kernel.*sm_90" /tmp/build-$v.log | grep -E "registers|spill" | sort | uniq -c | head -12
  done
  bench pf8x16,pf8x1,ccmvx1,ccmv4x1 base bound48 bound40 base
  ;;
*) echo "PROBE=${PROBE}: noise, pairs or bound" >&2; exit 2 ;;
esac
