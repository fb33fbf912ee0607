#!/usr/bin/env bash
# Rung 5 of the correctness ladder (docs/validation.md#rung-5): SOP-GPU's WW domain,
# pulled as in its own example (examples/ww_pulling.toml: bead 0 fixed, bead 33 on a
# 34.7 pN/nm cantilever spring, T = 0.6 kcal/mol, h = 0.08 τ_H), over the same 24.8 nm of
# cantilever-base travel at several speeds down to SOP-GPU's 2.5 µm/s (5·10⁸ steps);
# each run is then analysed by `ermak analyze`, and a table of unfolding force against
# loading rate is printed. A GPU job: about 15 minutes on one H100 with the defaults.
#
#   scripts/ww-loading-rates.sh [OUTDIR]      # default: ww-loading-rates/
#
# Environment:
#   ERMAK       the ermak binary (default build/ermak)
#   REPLICAS    trajectories per speed (default 450)
#   SPEEDS      base speeds in µm/s (default "2500 250 25 2.5")
#   STEP_LIMIT  stop every run at this step at the latest; running the script again with a
#               larger limit, or none, continues each run from its checkpoint (so does
#               running it again after it was killed: 25 checkpoints per run)
#   ERMAK_SHARED_DATA  where sopgpu/ww/reference/ lives (default ../shared/data)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
ERMAK="${ERMAK:-$ROOT/build/ermak}"
OUTDIR="$(realpath -m "${1:-ww-loading-rates}")"
REPLICAS="${REPLICAS:-450}"
SPEEDS="${SPEEDS:-2500 250 25 2.5}"
STEP_LIMIT="${STEP_LIMIT:-0}"
DATA="$(realpath -m "${ERMAK_SHARED_DATA:-$ROOT/../shared/data}")"
[[ -x "$ERMAK" ]] || { echo "ww-loading-rates: no ermak binary at $ERMAK (build first, or set ERMAK)" >&2; exit 1; }
for f in ww.top ww_cg.pdb; do
  [[ -f "$DATA/sopgpu/ww/reference/$f" ]] || { echo "ww-loading-rates: $DATA/sopgpu/ww/reference/$f not found (set ERMAK_SHARED_DATA)" >&2; exit 1; }
done
mkdir -p "$OUTDIR"

# 24.8 nm of base travel: 5·10⁸ steps at 2.5 µm/s, proportionally fewer when faster.
steps_for() { python3 -c "print(round(5e8 * 2.5 / float('$1')))"; }

for v in $SPEEDS; do
  steps=$(steps_for "$v")
  every=$((steps / 5000))  # 5000 rows of pulling.tsv per replica: 0.005 nm of travel apart
  ((every >= 1)) || every=1
  target=$steps
  ((STEP_LIMIT > 0 && STEP_LIMIT < steps)) && target=$STEP_LIMIT
  dir="$OUTDIR/v$v"
  reached=0
  [[ -f "$dir/reached_step" ]] && reached=$(cat "$dir/reached_step")  # written after a run ends
  args=(examples/ww_pulling.toml --quiet
        --set "input.topology=\"$DATA/sopgpu/ww/reference/ww.top\""
        --set "input.coordinates=\"$DATA/sopgpu/ww/reference/ww_cg.pdb\""
        --set "pulling.speed_um_per_s=$v" --set "run.replicas=$REPLICAS" --set "run.steps=$target"
        --set "pulling.output_every=$every" --set "output.energy_every=$((every * 10))"
        --set "output.trajectory_every=0" --set "output.checkpoint_every=$((every * 200))"
        --set "output.directory=\"$dir\"")
  if ((reached >= target)); then
    echo "v = $v µm/s: at step $reached already"
  elif [[ -f "$dir/checkpoint.ckpt" ]]; then  # a run stopped at a limit, or killed
    echo "v = $v µm/s: from the checkpoint to step $target of $steps"
    "$ERMAK" run "${args[@]}" --resume
  else
    echo "v = $v µm/s: steps 0 → $target of $steps"
    "$ERMAK" run "${args[@]}" --force
  fi
  echo "$target" >"$dir/reached_step"
  grep -h "] finished:" "$dir/run.log" | tail -1 || true
  if ((target == steps)) && [[ ! -f "$dir/analysis/summary.txt" ]]; then
    "$ERMAK" analyze "$dir" --temperature-K 302 --force >/dev/null
  fi
done

# The table: one row per finished speed, from each analysis summary.
printf '\n%-10s %-14s %-12s %-26s %-22s %s\n' "v[µm/s]" "κv[pN/s]" "with peak" "first peak[pN] mean±sd (sem)" "ΔLc[nm] mean±sd" "Lc at end[nm]"
for v in $SPEEDS; do
  s="$OUTDIR/v$v/analysis/summary.txt"
  [[ -f "$s" ]] || continue
  python3 - "$s" "$v" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
v = float(sys.argv[2])
def stats(label):
    m = re.search(re.escape(label) + r": n = (\d+), mean = ([\d.eE+-]+) \S+, sd = ([\d.eE+-]+) \S+, sem = ([\d.eE+-]+)", text)
    return m.groups() if m else None
peaks = re.search(r"replicas with a peak: (\d+) of (\d+)", text)
first = stats("first peak")
dlc = stats("ΔLc (successive edges)")
lc = stats("Lc after the last peak")
fmt = lambda s, d: f"{float(s[1]):.{d}f}±{float(s[2]):.{d}f}" if s else "-"
print(f"{v:<10g} {34.7 * v * 1e3:<14.3g} {peaks.group(1) + '/' + peaks.group(2) if peaks else '-':<12} "
      f"{(fmt(first, 1) + ' (' + format(float(first[3]), '.1f') + ')') if first else '-':<26} {fmt(dlc, 2):<22} {fmt(lc, 2)}")
EOF
done
