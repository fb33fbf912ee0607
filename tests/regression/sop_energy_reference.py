#!/usr/bin/env python3
"""Independent SOP energy of a SOP-GPU topology + coordinates, in float64 with numpy.

Written from docs/model.md alone (own .top and PDB parsing), so that a shared bug with
ermak's C++ code is unlikely (DESIGN.md §5, rung 3). Prints `term value` lines in
kcal/mol: fene, native, repulsive, total.

usage: sop_energy_reference.py TOP PDB [--cutoff 20] [--k 20] [--R0 2] [--eps 1] [--sigma 3.8]
"""
import argparse

import numpy as np


def read_top(path):
    sections = {}
    current = None
    with open(path) as f:
        for line in f:
            line = line.split(";")[0].strip()
            if not line:
                continue
            if line.startswith("["):
                current = line.strip("[] ").lower()
                sections[current] = []
                continue
            sections[current].append(line.split())
    n = len(sections["atoms"])
    bonds = np.array([(int(r[0]), int(r[1]), float(r[3])) for r in sections.get("bonds", [])])
    natives = np.array([(int(r[0]), int(r[1]), float(r[3]), float(r[4]))
                        for r in sections.get("native", [])])
    return n, bonds, natives


def read_pdb(path):
    xyz = []
    with open(path) as f:
        for line in f:
            if line.startswith(("ATOM", "HETATM")):
                xyz.append((float(line[30:38]), float(line[38:46]), float(line[46:54])))
    return np.array(xyz, dtype=np.float64)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("top")
    p.add_argument("pdb")
    p.add_argument("--cutoff", type=float, default=20.0)
    p.add_argument("--k", type=float, default=20.0)
    p.add_argument("--R0", type=float, default=2.0)
    p.add_argument("--eps", type=float, default=1.0)
    p.add_argument("--sigma", type=float, default=3.8)
    a = p.parse_args()

    n, bonds, natives = read_top(a.top)
    x = read_pdb(a.pdb)
    assert len(x) == n, f"{a.pdb}: {len(x)} atoms for {n} beads"

    def dist(i, j):
        return np.linalg.norm(x[i.astype(int)] - x[j.astype(int)], axis=1)

    r = dist(bonds[:, 0], bonds[:, 1])
    fene = np.sum(-0.5 * a.k * a.R0**2 * np.log(1.0 - ((r - bonds[:, 2]) / a.R0) ** 2))

    r = dist(natives[:, 0], natives[:, 1])
    s6 = (natives[:, 2] / r) ** 6
    native = np.sum(natives[:, 3] * (s6 * s6 - 2.0 * s6))

    # Repulsion: every pair that is neither bonded nor native, within the cutoff.
    excluded = np.zeros((n, n), dtype=bool)
    for table in (bonds, natives):
        i, j = table[:, 0].astype(int), table[:, 1].astype(int)
        excluded[i, j] = excluded[j, i] = True
    iu, ju = np.triu_indices(n, k=1)
    keep = ~excluded[iu, ju]
    r = np.linalg.norm(x[iu[keep]] - x[ju[keep]], axis=1)
    r = r[r < a.cutoff]
    repulsive = np.sum(a.eps * (a.sigma / r) ** 6)

    for name, value in (("fene", fene), ("native", native), ("repulsive", repulsive),
                        ("total", fene + native + repulsive)):
        print(f"{name} {value:.12g}")


if __name__ == "__main__":
    main()
