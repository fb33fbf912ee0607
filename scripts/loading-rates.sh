#!/usr/bin/env bash
# Rung 5 of the correctness ladder (docs/validation.md#rung-5): a protein pulled by its
# termini at several speeds over the same cantilever-base travel, each run analysed by
# `ermak analyze`, a table of unfolding force against loading rate, and the rung's checks
# (below; exit status 1 when one fails); the table also goes to OUTDIR/loading_rates.tsv
# and, with matplotlib, a plot to OUTDIR/loading_rates.svg.
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

# The table, one row per finished speed, and the checks of docs/validation.md#rung-5:
# where at least 90 % of the replicas show an unfolding peak, (1) the mean largest peak
# grows with the loading rate κv, each step by more than 3 combined standard errors
# (Bell–Evans: rupture forces rise with log κv), and (2) the runs end unfolded: the
# contour length fitted after the last peak is the same at every such speed (within 2 %).
# Exit status 1 when a check fails or fewer than two speeds qualify.
dirs=()
for v in $SPEEDS; do dirs+=("$v=$OUTDIR/v$v/analysis/summary.txt"); done
SPRING=$(grep -m1 "^spring_pN_per_nm" "$EXAMPLE" | awk '{print $3}')
PYTHON=python3
[[ -x /usr/bin/python3 ]] && PYTHON=/usr/bin/python3  # Debian's, with matplotlib (scripts/setup.sh)
"$PYTHON" - "$OUTDIR" "$SPRING" "${dirs[@]}" <<'EOF2'
import math, re, sys
rows = []
outdir, spring = sys.argv[1], float(sys.argv[2])
for arg in sys.argv[3:]:
    v, path = arg.split("=", 1)
    try:
        text = open(path).read()
    except OSError:
        continue
    def stats(label):
        m = re.search(re.escape(label) + r": n = (\d+), mean = ([\d.eE+-]+) \S+, sd = ([\d.eE+-]+) \S+, sem = ([\d.eE+-]+)", text)
        return tuple(float(x) for x in m.groups()) if m else None
    m = re.search(r"replicas with a peak: (\d+) of (\d+)", text)
    rows.append(dict(v=float(v), peaks=(int(m.group(1)), int(m.group(2))) if m else (0, 0),
                     first=stats("first peak"), largest=stats("largest peak"),
                     dlc=stats("ΔLc (successive edges)"), lc=stats("Lc after the last peak")))
rows.sort(key=lambda r: r["v"])
fmt = lambda s, d: f"{s[1]:.{d}f} ± {s[2]:.{d}f} ({s[3]:.{d}f})" if s else "-"
print(f"\n{'v[µm/s]':>8} {'κv[pN/s]':>9}  {'with peak':>9}  {'first peak[pN]':>20}  {'largest peak[pN]':>20}  {'ΔLc[nm]':>18}  {'Lc at end[nm]':>18}")
print("         (mean ± sd (sem) over the replicas with a peak)")
for r in rows:
    print(f"{r['v']:>8g} {spring * 1e3 * r['v']:>9.3g}  {r['peaks'][0]:>4}/{r['peaks'][1]:<4}  {fmt(r['first'], 1):>20}  "
          f"{fmt(r['largest'], 1):>20}  {fmt(r['dlc'], 2):>18}  {fmt(r['lc'], 2):>18}")
# The table as TSV, and force against loading rate as SVG where matplotlib is there.
with open(f"{outdir}/loading_rates.tsv", "w") as tsv:
    tsv.write("# v[um/s]\tloading_rate[pN/s]\treplicas\twith_peak\tfirst_peak_mean[pN]\tfirst_peak_sd[pN]\t"
              "largest_peak_mean[pN]\tlargest_peak_sd[pN]\tlargest_peak_sem[pN]\tdLc_mean[nm]\tLc_end_mean[nm]\n")
    nan = (math.nan,) * 4
    for r in rows:
        f, l, d, c = r["first"] or nan, r["largest"] or nan, r["dlc"] or nan, r["lc"] or nan
        tsv.write(f"{r['v']:g}\t{spring * 1e3 * r['v']:.6g}\t{r['peaks'][1]}\t{r['peaks'][0]}\t{f[1]:.6g}\t{f[2]:.6g}\t"
                  f"{l[1]:.6g}\t{l[2]:.6g}\t{l[3]:.6g}\t{d[1]:.6g}\t{c[1]:.6g}\n")
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(5, 3.6))
    for key, label in (("largest", "largest peak"), ("first", "first peak")):
        pts = [(spring * 1e3 * r["v"], r[key][1], r[key][2]) for r in rows if r[key]]
        if pts:
            x, y, e = zip(*pts)
            ax.errorbar(x, y, yerr=e, marker="o", capsize=3, label=label + " (mean ± sd)")
    ax.set_xscale("log")
    ax.set_xlabel("loading rate κv [pN/s]")
    ax.set_ylabel("unfolding force [pN]")
    ax.legend()
    fig.tight_layout()
    fig.savefig(f"{outdir}/loading_rates.svg")
    print(f"wrote {outdir}/loading_rates.tsv and loading_rates.svg")
except ImportError:
    print(f"wrote {outdir}/loading_rates.tsv (no matplotlib here: no plot)")
ok = [r for r in rows if r["peaks"][1] and r["peaks"][0] >= 0.9 * r["peaks"][1] and r["largest"] and r["lc"]]
failed = []
if len(ok) < 2:
    failed.append(f"{len(ok)} speed(s) with peaks in ≥ 90 % of the replicas; the checks need two")
for a, b in zip(ok, ok[1:]):
    rise = b["largest"][1] - a["largest"][1]
    need = 3.0 * math.hypot(a["largest"][3], b["largest"][3])
    print(f"check: largest peak {a['v']:g} → {b['v']:g} µm/s rises {rise:.1f} pN (needs > {need:.1f})")
    if not rise > need:
        failed.append(f"largest peak {a['v']:g} → {b['v']:g} µm/s: {rise:.1f} pN")
if ok:
    ref = ok[0]["lc"][1]
    for r in ok:
        print(f"check: Lc after the last peak at {r['v']:g} µm/s {r['lc'][1]:.2f} nm (within 2 % of {ref:.2f})")
        if abs(r["lc"][1] - ref) > 0.02 * ref:
            failed.append(f"Lc at {r['v']:g} µm/s")
print("rung 5:", "FAILED: " + "; ".join(failed) if failed else "passed")
sys.exit(1 if failed else 0)
EOF2
