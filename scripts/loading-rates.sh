#!/usr/bin/env bash
# Rung 5 of the correctness ladder (docs/validation.md#rung-5): a protein pulled by its
# termini at several speeds over the same cantilever-base travel, each run analysed by
# `ermak analyze`, a table of unfolding force against loading rate, and the rung's checks
# (below; exit status 1 when one fails); the table also goes to OUTDIR/loading_rates.tsv
# and, with matplotlib, a plot to OUTDIR/loading_rates.svg. The finished speeds' dynamic
# force spectrum (Bell's x_β and k0) goes to OUTDIR/spectrum/.
#   SYSTEM=ww (default): SOP-GPU's WW domain as in its own example (examples/ww_pulling.toml:
#     bead 0 fixed, bead 33 on a 34.7 pN/nm spring, T = 0.6 kcal/mol, h = 0.08 τ_H) over
#     24.8 nm, down to SOP-GPU's 2.5 µm/s (5·10⁸ steps). A GPU job: about 15 minutes on
#     one H100 (13 of them at 2.5 µm/s).
#   SYSTEM=ubq: ubiquitin as in examples/ubiquitin_pulling.toml (Met1 fixed, Gly76 on a
#     35 pN/nm spring, 300 K) over 40 nm, at 2500, 250 and 25 µm/s (8·10⁷ steps).
#
#   scripts/loading-rates.sh [OUTDIR]      # default: SYSTEM-loading-rates/
#
# Environment:
#   SYSTEM      ww or ubq (default ww)
#   ERMAK       the ermak binary (default build/ermak)
#   REPLICAS    trajectories per speed (default 450)
#   SPEEDS      base speeds in µm/s (default "2500 250 25 2.5" for ww, "2500 250 25" for ubq)
#   STEP_LIMIT  stop every run at this step at the latest; running the script again with a
#               larger limit, or none, continues each run from its checkpoint (so does
#               running it again after it was killed: 25 checkpoints per run)
#   ERMAK_SHARED_DATA  where sopgpu/ww/reference/ lives (default ../shared/data)
# A bad setting stops the script with exit status 2 and a message naming it, before any run.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
SYSTEM="${SYSTEM:-ww}"
ERMAK="${ERMAK:-$ROOT/build/ermak}"
OUTDIR="$(realpath -m "${1:-$SYSTEM-loading-rates}")"
REPLICAS="${REPLICAS:-450}"
STEP_LIMIT="${STEP_LIMIT:-0}"
DATA="$(realpath -m "${ERMAK_SHARED_DATA:-$ROOT/../shared/data}")"
[[ -x "$ERMAK" ]] || { echo "loading-rates: no ermak binary at $ERMAK (build first, or set ERMAK)" >&2; exit 1; }
case "$SYSTEM" in
  ww)
    EXAMPLE=examples/ww_pulling.toml TRAVEL_NM=24.8 TEMPERATURE_K=302 SPEEDS="${SPEEDS:-2500 250 25 2.5}"
    for f in ww.top ww_cg.pdb; do
      [[ -f "$DATA/sopgpu/ww/reference/$f" ]] ||
        { echo "loading-rates: $DATA/sopgpu/ww/reference/$f not found (set ERMAK_SHARED_DATA)" >&2; exit 1; }
    done
    INPUT=(--set "input.topology=\"$DATA/sopgpu/ww/reference/ww.top\""
           --set "input.coordinates=\"$DATA/sopgpu/ww/reference/ww_cg.pdb\"") ;;
  ubq)
    EXAMPLE=examples/ubiquitin_pulling.toml TRAVEL_NM=40 TEMPERATURE_K=300 SPEEDS="${SPEEDS:-2500 250 25}"
    INPUT=() ;;
  *) echo "loading-rates: SYSTEM must be ww or ubq, got '$SYSTEM'" >&2; exit 1 ;;
esac
SCRIPT=loading-rates
source "$ROOT/scripts/lib/env_checks.sh"
need_count REPLICAS "$REPLICAS"
need_count STEP_LIMIT "$STEP_LIMIT" 0
[[ -n "$SPEEDS" ]] || { echo "loading-rates: SPEEDS is empty" >&2; exit 2; }
for v in $SPEEDS; do need_positive SPEEDS "$v"; done
mkdir -p "$OUTDIR"

# The same base travel at every speed: TRAVEL_NM / (v · 19.84 ps) steps (5·10⁸ for WW at
# 2.5 µm/s).
steps_for() { python3 -c "print(round($TRAVEL_NM * 1e9 / (float('$1') * 19.84)))"; }

for v in $SPEEDS; do
  steps=$(steps_for "$v")
  every=$((steps / 5000))  # 5000 rows of pulling.tsv per replica: 0.005 nm of travel apart
  ((every >= 1)) || every=1
  target=$steps
  ((STEP_LIMIT > 0 && STEP_LIMIT < steps)) && target=$STEP_LIMIT
  dir="$OUTDIR/v$v"
  reached=0
  [[ -f "$dir/reached_step" ]] && reached=$(cat "$dir/reached_step")  # written after a run ends
  args=("$EXAMPLE" --quiet "${INPUT[@]}" --set "run.timestep_ps=19.84"
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
    "$ERMAK" analyze "$dir" --temperature-K "$TEMPERATURE_K" --force >/dev/null
  fi
done

# The dynamic force spectrum of the finished speeds: Bell's x_β and k0 fitted to every
# replica's largest peak (docs/analysis.md#dynamic-force-spectrum); informational, the
# rung's checks follow.
finished=()
for v in $SPEEDS; do
  (($(cat "$OUTDIR/v$v/reached_step" 2>/dev/null || echo 0) == $(steps_for "$v"))) && finished+=("$OUTDIR/v$v")
done
if ((${#finished[@]} >= 2)); then
  echo "spectrum of ${#finished[@]} speeds ($OUTDIR/spectrum/summary.txt):"
  "$ERMAK" analyze "${finished[@]}" -o "$OUTDIR/spectrum" --temperature-K "$TEMPERATURE_K" --force | head -1 ||
    echo "spectrum: ermak analyze failed (above)"
fi

# The table and the rung's checks (scripts/loading_rates_table.py).
dirs=()
for v in $SPEEDS; do dirs+=("$v=$OUTDIR/v$v/analysis/summary.txt"); done
SPRING=$(grep -m1 "^spring_pN_per_nm" "$EXAMPLE" | awk '{print $3}')
PYTHON=python3
[[ -x /usr/bin/python3 ]] && PYTHON=/usr/bin/python3  # Debian's, with matplotlib (scripts/setup.sh)
"$PYTHON" "$ROOT/scripts/loading_rates_table.py" "$OUTDIR" "$SPRING" "${dirs[@]}"
