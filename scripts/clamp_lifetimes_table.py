#!/usr/bin/env python3
"""The table and checks of scripts/clamp-lifetimes.sh (docs/validation.md#rung-5).

Usage: clamp_lifetimes_table.py OUTDIR THRESHOLD_nm FORCE=RUN_DIR [FORCE=RUN_DIR ...]

Each trajectory's unfolding time is its first passage past THRESHOLD_nm of extension in
replica_NNN/pulling.tsv; a trajectory that never passes it is censored at the run's end.
Per force: the lifetime τ by the exponential model's maximum likelihood with censoring,
τ = Σ t_i / (number unfolded), whose relative standard error is 1/√(number unfolded);
the median and the coefficient of variation of the observed times (1 for a single
exponential, less with a lag). Bell's law, τ = τ₀ exp(−F x_β / kT), is fitted to ln τ
over the forces where at least 90 % of the trajectories unfolded and x_β reported.
Check: over those forces τ falls as the force rises, each step by more than three
combined standard errors of ln τ. Writes OUTDIR/clamp_lifetimes.tsv (and .svg where
matplotlib is there). Exit status 1 when the check fails or fewer than two forces qualify.
"""
import glob
import math
import os
import sys

K_B_PN_NM_PER_K = 0.01380649


def run_temperature_K(run_dir):
    """The temperature in the run log's resolved configuration (300 K if it is not there)."""
    try:
        for line in open(os.path.join(run_dir, "run.log")):
            if line.strip().startswith("temperature_K ="):
                return float(line.split("=")[1].split()[0])
    except OSError:
        pass
    return 300.0


def passage_times(run_dir, threshold_nm):
    """(first-passage times in ns, or None when censored; the run's last time in ns)."""
    times, end = [], 0.0
    for table in sorted(glob.glob(os.path.join(run_dir, "replica_*", "pulling.tsv"))):
        header, passed, last = None, None, 0.0
        with open(table) as f:
            for line in f:
                if line.startswith("#"):
                    header = line[1:].split()
                    t_col, x_col = header.index("time[ns]"), header.index("extension[nm]")
                    continue
                cells = line.split()
                last = float(cells[t_col])
                if passed is None and float(cells[x_col]) > threshold_nm:
                    passed = last
        times.append(passed)
        end = max(end, last)
    return times, end


def main():
    outdir, threshold = sys.argv[1], float(sys.argv[2])
    rows = []
    temperature_K = 300.0
    for arg in sys.argv[3:]:
        force, run_dir = arg.split("=", 1)
        temperature_K = run_temperature_K(run_dir)
        times, end = passage_times(run_dir, threshold)
        if not times:
            continue
        seen = sorted(t for t in times if t is not None)
        k, n = len(seen), len(times)
        total = sum(t if t is not None else end for t in times)
        tau = total / k if k else math.inf
        mean = sum(seen) / k if k else math.nan
        sd = math.sqrt(sum((t - mean) ** 2 for t in seen) / (k - 1)) if k > 1 else math.nan
        median = seen[k // 2] if k % 2 else (0.5 * (seen[k // 2 - 1] + seen[k // 2]) if k else math.nan)
        rows.append(dict(force=float(force), n=n, k=k, end=end, tau=tau, median=median, cv=sd / mean if k > 1 else math.nan))
    rows.sort(key=lambda r: r["force"])
    print(f"\n{'F[pN]':>7}  {'unfolded':>9}  {'run[ns]':>9}  {'τ[ns] (±se)':>20}  {'median[ns]':>11}  {'CV':>5}")
    for r in rows:
        se = r["tau"] / math.sqrt(r["k"]) if r["k"] else math.nan
        print(f"{r['force']:>7g}  {r['k']:>4}/{r['n']:<4}  {r['end']:>9.4g}  {r['tau']:>11.4g} ± {se:<7.2g}  "
              f"{r['median']:>11.4g}  {r['cv']:>5.2f}")
    with open(os.path.join(outdir, "clamp_lifetimes.tsv"), "w") as tsv:
        tsv.write("# force[pN]\treplicas\tunfolded\trun[ns]\ttau[ns]\ttau_se[ns]\tmedian[ns]\tcv\n")
        for r in rows:
            se = r["tau"] / math.sqrt(r["k"]) if r["k"] else math.nan
            tsv.write(f"{r['force']:g}\t{r['n']}\t{r['k']}\t{r['end']:.6g}\t{r['tau']:.6g}\t{se:.6g}\t"
                      f"{r['median']:.6g}\t{r['cv']:.4g}\n")
    ok = [r for r in rows if r["k"] >= 0.9 * r["n"]]
    failed = []
    if len(ok) < 2:
        failed.append(f"{len(ok)} force(s) where ≥ 90 % of the trajectories unfolded; the check needs two")
    for a, b in zip(ok, ok[1:]):
        fall = math.log(a["tau"]) - math.log(b["tau"])
        need = 3.0 * math.hypot(1 / math.sqrt(a["k"]), 1 / math.sqrt(b["k"]))
        print(f"check: ln τ from {a['force']:g} to {b['force']:g} pN falls by {fall:.2f} (needs > {need:.2f})")
        if not fall > need:
            failed.append(f"τ from {a['force']:g} to {b['force']:g} pN")
    if len(ok) >= 2:
        # Least squares of ln τ on F, each point weighted by its k (1/variance of ln τ).
        w = [r["k"] for r in ok]
        x = [r["force"] for r in ok]
        y = [math.log(r["tau"]) for r in ok]
        sw = sum(w)
        mx = sum(wi * xi for wi, xi in zip(w, x)) / sw
        my = sum(wi * yi for wi, yi in zip(w, y)) / sw
        slope = sum(wi * (xi - mx) * (yi - my) for wi, xi, yi in zip(w, x, y)) / sum(
            wi * (xi - mx) ** 2 for wi, xi in zip(w, x))
        kT = K_B_PN_NM_PER_K * temperature_K
        print(f"Bell's law over {len(ok)} forces at {temperature_K:.1f} K: x_β = {-slope * kT:.3f} nm "
              f"(ln τ falls {-slope:.3f} per pN, a factor {math.exp(-slope * 10):.3g} per 10 pN)")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(5, 3.6))
        pts = [(r["force"], r["tau"], r["tau"] / math.sqrt(r["k"])) for r in rows if r["k"]]
        if pts:
            f, t, e = zip(*pts)
            ax.errorbar(f, t, yerr=e, marker="o", capsize=3)
        ax.set_yscale("log")
        ax.set_xlabel("clamp force [pN]")
        ax.set_ylabel("unfolding lifetime τ [ns]")
        fig.tight_layout()
        fig.savefig(os.path.join(outdir, "clamp_lifetimes.svg"))
        print(f"wrote {outdir}/clamp_lifetimes.tsv and clamp_lifetimes.svg")
    except ImportError:
        print(f"wrote {outdir}/clamp_lifetimes.tsv (no matplotlib here: no plot)")
    print("rung 5 (force clamp):", "FAILED: " + "; ".join(failed) if failed else "passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
