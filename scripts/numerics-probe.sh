#!/usr/bin/env bash
# What cheaper noise and approximate arithmetic would buy the production CUDA kernels
# (docs/benchmarks.md#cheaper-noise-and-approximate-arithmetic-measured-forty-fourth-session):
# copies of the tree under /tmp/v-NAME with rng/philox_gaussian.h patched (Philox4x32-7,
# uniform noise of unit variance, no noise) and/or --use_fast_math, each built for sm_90
# (the ermak target only, in parallel) and run through `ermak bench --backend cuda` on
# WW x 10^3, 10^4 and PF8 x 16. A measurement, not a build option: nothing here changes
# the code in the repository. On the GPU machine, after scripts/collect-deps.sh here:
#   bash scripts/numerics-probe.sh > probe.log   (~5 min on an H200 with 16 cores)
set -u
ROOT="$PWD"; export ERMAK_SHARED_DATA="$ROOT/.deps/data"
mk() {  # NAME CUDA_FLAGS PATCH(python code run on src/ermak/rng/philox_gaussian.h text s)
  local name=$1 flags=$2 patch=$3 dir=/tmp/v-$1
  rm -rf $dir; mkdir -p $dir; (cd "$ROOT" && tar cf - --exclude=./build-gpu --exclude=./build --exclude=./.git .) | (cd $dir && tar xf -)
  python3 - "$dir/src/ermak/rng/philox_gaussian.h" "$patch" <<'PY'
import sys
p, patch = sys.argv[1], sys.argv[2]
s = open(p).read(); t = s
exec(patch)
if patch and s == t: raise SystemExit("patch changed nothing: " + patch)
open(p, 'w').write(s)
PY
  (cd $dir && cmake -S . -B b -G Ninja -DCMAKE_BUILD_TYPE=Release -DERMAK_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES='90-real' \
     -DCMAKE_CUDA_FLAGS="$flags" > /tmp/cfg-$name.log 2>&1 && cmake --build b -j 3 --target ermak > /tmp/build-$name.log 2>&1) \
     && echo "built $name" || { echo "BUILD FAILED $name"; tail -20 /tmp/build-$name.log; }
}
P7='s = s.replace("for (int round = 0; round < 10; ++round) philox_round(c, keys.k0[round], keys.k1[round]);", "for (int round = 0; round < 7; ++round) philox_round(c, keys.k0[round], keys.k1[round]);")'
UNI='s = s.replace("  box_muller(bits[0], bits[1], g.x, g.y);\n  box_muller(bits[2], bits[3], g.z, unused);", "  (void)unused; const float k = 3.4641016f / 16777216.0f; g.x = (float(bits[0] >> 8) + 0.5f) * k - 1.7320508f; g.y = (float(bits[1] >> 8) + 0.5f) * k - 1.7320508f; g.z = (float(bits[2] >> 8) + 0.5f) * k - 1.7320508f;")'
ZERO='s = s.replace("  box_muller(bits[0], bits[1], g.x, g.y);\n  box_muller(bits[2], bits[3], g.z, unused);", "  (void)unused; (void)bits; g.x = g.y = g.z = 0.0f;")'
mk base "" "" &
mk fast "--use_fast_math" "" &
mk p7fast "--use_fast_math" "$P7" &
mk uniform "" "$UNI" &
mk zero "" "$ZERO" &
wait
for v in base fast p7fast uniform zero; do
  echo "=== $v"; [ -x /tmp/v-$v/b/ermak ] || continue
  /tmp/v-$v/b/ermak bench --backend cuda --cases wwx1000,wwx10000,pf8x16 --seconds 1 2>&1 | tail -6
done
