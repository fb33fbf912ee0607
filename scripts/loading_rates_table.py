#!/usr/bin/env python3
"""The table and checks of scripts/loading-rates.sh (docs/validation.md#rung-5).

Usage: loading_rates_table.py OUTDIR SPRING_pN_per_nm SPEED=SUMMARY [SPEED=SUMMARY ...]

Reads each speed's `ermak analyze` summary.txt, prints the table of unfolding forces
against the loading rate, writes it to OUTDIR/loading_rates.tsv (and a plot to
OUTDIR/loading_rates.svg where matplotlib is there), and runs the rung's checks: where at
least 90 % of the replicas show a peak, the mean largest peak rises with the loading rate
by more than 3 combined standard errors per step, and the contour length fitted after the
last peak agrees within 2 %. Exit status 1 when a check fails or fewer than two speeds
qualify.
"""
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
