#!/usr/bin/env bash
# Rung 5 of the correctness ladder (docs/validation.md#rung-5), under constant force:
# SOP-GPU's WW domain held by a force clamp (examples/ww_force_clamp.toml: bead 0 fixed,
# a constant force on bead 33 along the initial end-to-end vector, T = 0.6 kcal/mol,
# h = 19.84 ps)
# at several forces; the unfolding time of each trajectory is its first passage past an
# extension of THRESHOLD_NM, and scripts/clamp_lifetimes_table.py tabulates the lifetimes
# against the force and checks Bell's law (below; exit status 1 when a check fails); the
# same lifetimes' dynamic force spectrum (Bell's x_β and k0) goes to OUTDIR/spectrum/.
# A GPU job: a few minutes on one H100 with the defaults.
#
#   scripts/clamp-lifetimes.sh [OUTDIR]          # default: ww-clamp-lifetimes/
#
# Environment:
#   ERMAK         the ermak binary (default build/ermak)
#   REPLICAS      trajectories per force (default 450)
#   FORCES        forces in pN with their step counts, "F:STEPS …"
#                 (default "125:20000000 115:60000000 105:150000000")
#   THRESHOLD_NM  extension that counts as unfolded (default 8: past the main barrier,
#                 which WW crosses at ~5 nm; the unfolded chain holds ~11 nm at these forces)
#   ERMAK_SHARED_DATA  where sopgpu/ww/reference/ lives (default ../shared/data)
# A bad setting stops the script with exit status 2 and a message naming it, before any run.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
ERMAK="${ERMAK:-$ROOT/build/ermak}"
OUTDIR="$(realpath -m "${1:-ww-clamp-lifetimes}")"
REPLICAS="${REPLICAS:-450}"
FORCES="${FORCES:-125:20000000 115:60000000 105:150000000}"
THRESHOLD_NM="${THRESHOLD_NM:-8}"
DATA="$(realpath -m "${ERMAK_SHARED_DATA:-$ROOT/../shared/data}")"
[[ -x "$ERMAK" ]] || { echo "clamp-lifetimes: no ermak binary at $ERMAK (build first, or set ERMAK)" >&2; exit 1; }
for f in ww.top ww_cg.pdb; do
  [[ -f "$DATA/sopgpu/ww/reference/$f" ]] ||
    { echo "clamp-lifetimes: $DATA/sopgpu/ww/reference/$f not found (set ERMAK_SHARED_DATA)" >&2; exit 1; }
done
SCRIPT=clamp-lifetimes
source "$ROOT/scripts/lib/env_checks.sh"
need_count REPLICAS "$REPLICAS"
need_positive THRESHOLD_NM "$THRESHOLD_NM"
[[ -n "$FORCES" ]] || { echo "clamp-lifetimes: FORCES is empty" >&2; exit 2; }
for fs in $FORCES; do
  [[ "$fs" == *:* ]] || { echo "clamp-lifetimes: FORCES entries are F:STEPS, got '$fs'" >&2; exit 2; }
  need_positive "FORCES (force of '$fs')" "${fs%%:*}"
  need_count "FORCES (steps of '$fs')" "${fs##*:}"
done
mkdir -p "$OUTDIR"

runs=()
for fs in $FORCES; do
  force=${fs%%:*} steps=${fs##*:}
  every=$((steps / 2000))  # 2000 rows per replica: the passage time to 0.05 % of the run
  ((every >= 1)) || every=1
  dir="$OUTDIR/f$force"
  if [[ -f "$dir/reached_step" ]] && (($(cat "$dir/reached_step") >= steps)); then
    echo "F = $force pN: done"
  else
    echo "F = $force pN: $steps steps"
    args=(examples/ww_force_clamp.toml --quiet
          --set "input.topology=\"$DATA/sopgpu/ww/reference/ww.top\""
          --set "input.coordinates=\"$DATA/sopgpu/ww/reference/ww_cg.pdb\""
          --set "run.timestep_ps=19.84" --set "force_clamp.force_pN=$force" --set "run.replicas=$REPLICAS"
          --set "run.steps=$steps" --set "force_clamp.output_every=$every"
          --set "output.energy_every=$((every * 10))" --set "output.trajectory_every=0"
          --set "output.checkpoint_every=$((every * 100))" --set "output.directory=\"$dir\"")
    if [[ -f "$dir/checkpoint.ckpt" ]]; then
      "$ERMAK" run "${args[@]}" --resume
    else
      "$ERMAK" run "${args[@]}" --force
    fi
    echo "$steps" >"$dir/reached_step"
    grep -h "] finished:" "$dir/run.log" | tail -1 || true
  fi
  runs+=("$force=$dir")
done

# The same lifetimes through `ermak analyze`'s dynamic force spectrum: Bell's x_β and k0 by
# maximum likelihood over every trajectory (docs/analysis.md#dynamic-force-spectrum);
# informational, the checks follow.
if ((${#runs[@]} >= 2)); then
  echo "spectrum of ${#runs[@]} forces ($OUTDIR/spectrum/summary.txt):"
  "$ERMAK" analyze "${runs[@]#*=}" -o "$OUTDIR/spectrum" --unfolded-extension-nm "$THRESHOLD_NM" --force | head -1 ||
    echo "spectrum: ermak analyze failed (above)"
fi

PYTHON=python3
[[ -x /usr/bin/python3 ]] && PYTHON=/usr/bin/python3
"$PYTHON" "$ROOT/scripts/clamp_lifetimes_table.py" "$OUTDIR" "$THRESHOLD_NM" "${runs[@]}"
