#!/usr/bin/env python3
"""Randomised agreement sweep: the same configuration run two ways must give the same run.

Each case is a random but valid `ermak run` configuration drawn from the features a user
combines — systems from one chain to a protofilament, 1 to 2000 replicas, heating,
minimisation, fixed beads, every noise generator, pulling, force clamps and schedules,
moving planes, indentation with and without a surface, hydrodynamic interactions, output and
checkpoint intervals.
A share of the cases (--sop-share, default 0.15) are instead SOP-GPU's own WW
equilibration and pulling and PF8 indentation configurations (`ermak run FILE.sop`) with
random overrides of their runs, steps, pulling or constant force, directions, time step,
temperature, cutoff and output intervals.
Every case is run with way A and way B (default: the CUDA backend and the CPU backend),
and once more stopped half way on A and resumed on B (docs/outputs.md#resuming-elsewhere).
Every table (energies, pulling, plane, indentation; a .sop run's SOP-GPU files) and every
trajectory frame of A must equal B's to float rounding (or byte for byte with --bitwise),
and so must the split run's. docs/validation.md#backend-agreement-sweep says what is compared and why the
tolerances are what they are.

Usage:
  scripts/backend_agreement.py [--cases N] [--seed S] [--a cuda] [--b cpu] [--out DIR]
Ways: cpu, cuda, with options after colons: cpu:threads=2, cuda:kernels=block, cuda:device=1,
cpu:set=run.seed=5 (any --set override, e.g. to see that a difference is found; a key
with a section applies to the TOML cases, one without, e.g. set=seed=5, to the .sop cases;
kernels= applies to the TOML cases only).
Exit status: 0 when every case agrees, 1 when one does not, 2 for bad arguments (or no numpy).
Needs python3 with numpy.
"""

import argparse
import math
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import time
from pathlib import Path

try:
    import numpy as np
except ImportError:
    print(f"backend_agreement.py: needs numpy, which {sys.executable} lacks: install python3-numpy "
          "(scripts/setup.sh does) or run the script with a python3 that has it", file=sys.stderr)
    sys.exit(2)

REPO = Path(__file__).resolve().parent.parent

# Systems by name: (how the model is given, replica counts to draw from, step range).
# Replica counts include the block family's layouts (all-pairs, tiles for 249…1987
# WW-sized replicas, rows) and the per-bead family's (cluster rows from 4096 beads in all).
SYSTEMS = {
    "ww": ({"topology": "sopgpu/ww/reference/ww.top", "coordinates": "sopgpu/ww/reference/ww_cg.pdb"},
           [1, 2, 3, 5, 17, 64, 150, 249, 300, 600, 1000, 2000], (1000, 3000)),
    "villin": ({"structure": "pdb/1YRF.pdb"}, [1, 3, 8, 40, 400, 1000], (1000, 3000)),
    "trpcage": ({"structure": "pdb/2F4K.pdb"}, [1, 2, 16, 300], (1000, 3000)),
    "titin_i27": ({"structure": "pdb/1TIT.pdb"}, [1, 2, 7, 50, 200], (1000, 2500)),
    "lambda_repressor": ({"structure": "pdb/1LMB.pdb"}, [1, 2, 4, 30], (1000, 2000)),
    "fibrinogen": ({"structure": "derived/fibrinogen_fullfg_sopgpu_model.pdb"}, [1, 2], (400, 1000)),
    "pf8": ({"topology": "sopgpu/pf8/PF8.top", "coordinates": "sopgpu/pf8/PF8_sop.pdb"}, [1, 2], (300, 700)),
    # The CCMV capsid (28 620 beads) as `ermak topology` builds it from its NCS operators.
    "ccmv": ({"topology": "@/1CWP_pdb2cif.etop", "coordinates": "@/1CWP_pdb2cif.pdb"}, [1], (200, 400)),
}
SYSTEM_WEIGHTS = {"ww": 30, "villin": 10, "trpcage": 8, "titin_i27": 14, "lambda_repressor": 14,
                  "fibrinogen": 12, "pf8": 12, "ccmv": 6}
# Systems whose model `ermak topology` builds first ("@/" in their inputs): the structure
# in the data folder and the command's options.
BUILT_BY_TOPOLOGY = {"ccmv": ("derived/1CWP_pdb2cif.cif", ["--assembly", "ncs", "--ncs-frame", "origx"])}
GENERATORS = [("hybrid_taus", "per_thread"), ("ran2", "per_thread"), ("lcg", "per_thread"),
              ("lagged_fibonacci", "shared"), ("mt19937", "per_thread"), ("mt19937", "shared")]
BLOCK_FAMILY_MAX_BEADS = 4096  # docs/gpu.md: "block" handles at most 4096 beads per replica
TABLES = ("energies.tsv", "pulling.tsv", "plane.tsv", "indentation.tsv")
# SOP-GPU working directories (docs/migrating-from-sop-gpu.md): the shared data's files and
# where its configurations expect them.
SOP_SYSTEMS = {
    "ww": {"sopgpu/ww/reference/ww.top": "topologies/ww.top", "sopgpu/ww/reference/ww_cg.pdb": "structures/ww.pdb",
           "sopgpu/ww/ww_1-100_equil.sop": "ww_equil.sop", "sopgpu/ww/ww_1-100_pull.sop": "ww_pull.sop"},
    "pf8": {"sopgpu/pf8/PF8.top": "topologies/PF8.top", "sopgpu/pf8/PF8_sop.pdb": "structures/PF8_sop.pdb",
            "sopgpu/pf8/PF8_vf_3.0_R_100.sop": "pf8.sop"},
}
SOP_TABLE_FOLDERS = ("dat", "pull", "indentation")  # the configurations' tables (no header)


def fail_usage(message):
    print(f"backend_agreement.py: {message}", file=sys.stderr)
    sys.exit(2)


# --------------------------------------------------------------------------- ways to run

def parse_way(text):
    """'cuda:kernels=block' -> ('cuda', ['--set', 'run.cuda_kernels=block'])."""
    backend, *options = text.split(":")
    if backend not in ("cpu", "cuda"):
        fail_usage(f"way {text!r}: the backend must be cpu or cuda")
    sets = ["--set", f"run.backend={backend}"]
    for option in options:
        key, _, value = option.partition("=")
        if key == "threads" and value.isdigit():
            sets += ["--set", f"run.threads={value}"]
        elif key == "kernels" and value in ("auto", "block", "perbead"):
            sets += ["--set", f"run.cuda_kernels={value}"]
        elif key == "device" and value.isdigit():
            sets += ["--set", f"run.device={value}"]
        elif key == "set" and "=" in value:  # any other override, e.g. set=run.seed=5
            sets += ["--set", value]
        else:
            fail_usage(f"way {text!r}: unknown option {option!r} "
                       "(threads=N, kernels=auto|block|perbead, device=N, set=SECTION.KEY=VALUE)")
    return backend, sets


# --------------------------------------------------------------------------- TOML writing

def toml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    raise TypeError(v)


def write_toml(path, tables):
    lines = []
    for name, body in tables.items():
        if isinstance(body, list):  # array of tables
            for item in body:
                lines.append(f"[[{name}]]")
                lines += [f"{k} = {toml_value(v)}" for k, v in item.items()]
                lines.append("")
        else:
            lines.append(f"[{name}]")
            lines += [f"{k} = {toml_value(v)}" for k, v in body.items()]
            lines.append("")
    path.write_text("\n".join(lines))


# --------------------------------------------------------------------------- reading outputs

def read_dcd_frames(path):
    """All frames of a CHARMM DCD (docs/outputs.md#dcd) as an array [frames, beads, 3]."""
    data = path.read_bytes()
    offset = 0

    def record():
        nonlocal offset
        (length,) = struct.unpack_from("<i", data, offset)
        body = data[offset + 4:offset + 4 + length]
        (closing,) = struct.unpack_from("<i", data, offset + 4 + length)
        if closing != length:
            raise ValueError(f"{path}: broken record at byte {offset}")
        offset += length + 8
        return body

    header = record()
    if header[:4] != b"CORD":
        raise ValueError(f"{path}: not a DCD file")
    record()  # title
    (beads,) = struct.unpack("<i", record())
    frames = []
    while offset < len(data):
        xyz = [np.frombuffer(record(), dtype="<f4") for _ in range(3)]
        frames.append(np.stack(xyz, axis=1))
    return np.array(frames).reshape(len(frames), beads, 3)


def read_pdb_positions(path):
    rows = [line for line in path.read_text().splitlines() if line.startswith(("ATOM", "HETATM"))]
    return np.array([[float(r[30:38]), float(r[38:46]), float(r[46:54])] for r in rows])


def read_number_rows(path):
    """A SOP-GPU table (whitespace-separated numbers, no header): (values [rows, columns],
    the unit of each value's last printed digit: 1 for an integer, such as the count of
    formed native contacts, where one contact at its threshold may count on one backend
    and not the other)."""
    values, digits = [], []
    for line in path.read_text().splitlines():
        fields = line.split()
        if not fields:
            continue
        values.append([float(f) for f in fields])
        digits.append([0.0 if "e" in f.lower() else 10.0 ** -len(f.split(".")[1]) if "." in f else 1.0
                       for f in fields])
    if len({len(v) for v in values}) > 1:
        raise ValueError(f"{path}: rows of different lengths")
    return np.array(values, dtype=float).reshape(len(values), -1), np.array(digits).reshape(len(values), -1)


def read_table(path):
    """(header lines, steps as text, values [rows, columns])."""
    header, steps, values = [], [], []
    for line in path.read_text().splitlines():
        if not line or line.startswith("#"):
            header.append(line)
            continue
        fields = line.split("\t")
        steps.append(fields[0])
        values.append([float(x) for x in fields[1:]])
    return header, steps, np.array(values, dtype=float).reshape(len(values), -1)


def output_files(directory, inputs=()):
    """The files a run wrote, less its log and checkpoint (and a .sop run's input files)."""
    return sorted(name for name in (str(p.relative_to(directory)) for p in directory.rglob("*") if p.is_file())
                  if name not in inputs and not name.endswith((".log", ".ckpt", ".tmp")))


# --------------------------------------------------------------------------- comparing runs

class Tolerance:
    """Float rounding, compounded over a run's steps (docs/validation.md#backend-agreement-sweep)."""

    def __init__(self, position_A, relative, minimised_energy):
        self.position_A = position_A
        self.relative = relative
        self.minimised_energy = minimised_energy


def table_allowance(va, vb, tolerance, extra=0.0):
    """What |a − b| may be: 10⁻³ (the relative tolerance) of the value or of its column's
    scale over the run — a force near zero from a stiff tether magnifies position
    differences of float rounding (10⁻⁵ Å) the most — plus `extra` (per value)."""
    scale = np.maximum(np.max(np.abs(vb), axis=0), 1.0)
    return tolerance.relative * np.maximum(np.maximum(np.abs(va), np.abs(vb)), scale) + extra


def compare_runs(a_dir, b_dir, tolerance, bitwise, native_contacts=0, sop_inputs=None):
    """(problems, largest difference of trajectory positions in Å, (largest table difference over its
    allowance, in which file and column)). With sop_inputs, two SOP-GPU working directories:
    their tables under dat/, pull/ and indentation/ (numbers printed with a few decimals, so
    the allowance adds one unit of the last digit), DCDs and PDBs, not the inputs."""
    sop = sop_inputs is not None
    problems = []
    files_a, files_b = output_files(a_dir, sop_inputs or ()), output_files(b_dir, sop_inputs or ())
    if not files_a:
        problems.append("no output files")
    if files_a != files_b:
        only_a = sorted(set(files_a) - set(files_b))
        only_b = sorted(set(files_b) - set(files_a))
        problems.append(f"different files: only in A {only_a[:4]}, only in B {only_b[:4]}")
    largest_dx, worst_table = 0.0, (0.0, "")
    for name in sorted(set(files_a) & set(files_b)):
        fa, fb = a_dir / name, b_dir / name
        if bitwise:
            if fa.read_bytes() != fb.read_bytes():
                problems.append(f"{name}: bytes differ")
            continue
        base = Path(name).name
        if base == "trajectory.dcd" or (sop and base.endswith(".dcd")):
            xa, xb = read_dcd_frames(fa), read_dcd_frames(fb)
            if xa.shape != xb.shape:
                problems.append(f"{name}: frames {xa.shape} against {xb.shape}")
                continue
            dx = float(np.max(np.abs(xa - xb))) if xa.size else 0.0
            largest_dx = max(largest_dx, dx)
            if not dx <= tolerance.position_A:
                frame = int(np.argmax(np.max(np.abs(xa - xb), axis=(1, 2))))
                problems.append(f"{name}: positions differ by {dx:.3g} Å (first bad frame {frame})")
        elif base == "final.pdb" or (base == "model.pdb" and "replica" not in name) or (sop and base.endswith(".pdb")):
            xa, xb = read_pdb_positions(fa), read_pdb_positions(fb)
            if xa.shape != xb.shape:
                problems.append(f"{name}: {len(xa)} against {len(xb)} atoms")
                continue
            dx = float(np.max(np.abs(xa - xb))) if xa.size else 0.0
            if not dx <= tolerance.position_A + 1.5e-3:  # PDB keeps 3 decimals
                problems.append(f"{name}: positions differ by {dx:.3g} Å")
        elif base in TABLES or (sop and Path(name).parts[0] in SOP_TABLE_FOLDERS):
            if sop:
                (va, digits), (vb, _) = read_number_rows(fa), read_number_rows(fb)
                same_layout = va.shape == vb.shape
                columns = [f"column {c}" for c in range(va.shape[1] if va.ndim == 2 else 0)]
                steps = [f"row {k}" for k in range(len(va))]
            else:
                ha, steps, va = read_table(fa)
                hb, steps_b, vb = read_table(fb)
                same_layout = ha == hb and steps == steps_b and va.shape == vb.shape
                columns = ha[0].lstrip("# ").split("\t")[1:] if ha else [""] * va.shape[1]
            if not same_layout:
                problems.append(f"{name}: headers, steps or shape differ ({va.shape} against {vb.shape})")
                continue
            if not va.size:
                continue
            allowed = table_allowance(va, vb, tolerance, 1.01 * digits if sop else 0.0)
            for c, column in enumerate(columns):
                if column == "Q" and native_contacts:
                    # A contact within rounding of the formed/broken threshold may count on
                    # one backend and not the other: one contact of the replica's, plus the
                    # rounding of the two printed values (7 significant digits).
                    allowed[:, c] = np.maximum(allowed[:, c], 1.0 / native_contacts + 2e-7)
                if column.startswith("time"):
                    allowed[:, c] = 1e-9 * np.maximum(np.abs(va[:, c]), 1.0)
            ratio = np.abs(va - vb) / allowed
            ratio[~np.isfinite(ratio)] = np.inf
            worst = float(np.max(ratio))
            if worst > worst_table[0]:
                worst_table = (worst, f"{name if sop else base}:{columns[int(np.argmax(np.max(ratio, axis=0)))]}")
            if not worst <= 1.0:
                row, c = np.unravel_index(int(np.argmax(ratio)), ratio.shape)
                problems.append(f"{name}: {columns[c]} at {'' if sop else 'step '}{steps[row]}: {va[row, c]:.7g} "
                                f"against {vb[row, c]:.7g}")
        elif fa.read_bytes() != fb.read_bytes():
            problems.append(f"{name}: bytes differ")
    return problems, largest_dx, worst_table


NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def same_error(err_a, err_b, tolerance):
    """Whether two runs stopped with one error: the same words, and the same numbers to the
    tables' relative tolerance or the positions' (a broken bond's length differs by rounding;
    a step or bead index must be equal)."""
    if NUMBER.sub("#", err_a) != NUMBER.sub("#", err_b):
        return False
    for a, b in zip(map(float, NUMBER.findall(err_a)), map(float, NUMBER.findall(err_b))):
        if not abs(a - b) <= max(tolerance.relative * max(abs(a), abs(b)), tolerance.position_A):
            return False
    return True


# --------------------------------------------------------------------------- drawing cases

class Model:
    """Bead count, native contacts and positions of a system, from a zero-step run."""

    def __init__(self, positions, native_contacts):
        self.positions = positions
        self.beads = len(positions)
        self.native_contacts = native_contacts


def probe_model(ermak, data, system, work):
    directory = work / f"model-{system}"
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    tables = {"input": input_table(data, work, system), "run": {"steps": 0, "backend": "cpu"},
              "output": {"directory": str(directory / "out"), "trajectory_every": 0}}
    write_toml(directory / "run.toml", tables)
    run = subprocess.run([str(ermak), "run", "--quiet", str(directory / "run.toml")],
                         capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"{system}: the model did not load: {run.stderr.strip()}")
    log = (directory / "out/run.log").read_text()
    contacts = 0
    for line in log.splitlines():
        if "] model: " in line and "native contacts" in line:
            contacts = int(line.split(" bonds, ")[1].split()[0])
    return Model(read_pdb_positions(directory / "out/model.pdb"), contacts)


def built_model_folder(work, system):
    return work / f"model-{system}-topology"


def input_table(data, work, system):
    """The [input] table: the shared data's files, or those `ermak topology` built in work."""
    return {key: str(built_model_folder(work, system) / path[2:]) if path.startswith("@/") else str(data / path)
            for key, path in SYSTEMS[system][0].items()}


def build_model(ermak, data, system, work):
    """`ermak topology` of a system that has no ready topology (BUILT_BY_TOPOLOGY)."""
    structure, options = BUILT_BY_TOPOLOGY[system]
    folder = built_model_folder(work, system)
    done = subprocess.run([str(ermak), "topology", str(data / structure), *options, "-o", str(folder)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{system}: ermak topology failed: {done.stderr.strip()}")



def log_uniform(rng, low, high):
    return math.exp(rng.uniform(math.log(low), math.log(high)))


def unit_vector(rng):
    while True:
        v = np.array([rng.gauss(0, 1) for _ in range(3)])
        if np.linalg.norm(v) > 0.1:
            return v / np.linalg.norm(v)


def draw_sop_case(rng, data, max_beads, max_replicas):
    """A SOP-GPU configuration of the shared data, unchanged, with random --set overrides:
    (system, configuration file, overrides, features)."""
    with_pf8 = max_beads >= 6928 and all((data / f).is_file() for f in SOP_SYSTEMS["pf8"])
    pick = rng.random()  # drawn either way, so that --max-beads changes only PF8's cases
    system = "pf8" if with_pf8 and pick < 0.2 else "ww"
    sets = {"seed": rng.randrange(1, 10**7)}
    if system == "ww":
        config = rng.choice(["ww_equil.sop", "ww_pull.sop"])
        runs = min(rng.choice([1, 2, 5, 17, 64, 150, 300]), max_replicas)
        sets.update(numsteps=rng.randrange(500, 3001, 100), runnum=runs, firstrun=rng.randint(1, 9))
        features = [f"{config} x{runs}", f"{sets['numsteps']} steps"]
        if config == "ww_pull.sop":
            sets["coordinates"] = "structures/<name>.pdb"  # not the equilibration's final files
            if rng.random() < 0.3:  # deltax 0: a constant force (force clamp)
                sets.update(deltax=0, fconst=round(rng.uniform(0.5, 2.0), 3))
                features.append(f"fconst {sets['fconst']}")
            else:
                sets.update(deltax=round(rng.uniform(0.01, 0.2), 4), pullFreq=rng.choice([50, 100, 200]),
                            k_trans=round(rng.uniform(0.05, 1.0), 3))
                features.append("pulling")
            if rng.random() < 0.3:
                u = np.array([rng.gauss(0, 1) for _ in range(3)])
                u /= np.linalg.norm(u)
                sets.update(pullDirection="vector", pullVector=" ".join(f"{x:.4f}" for x in u))
                features.append("pullVector")
    else:
        config = "pf8.sop"
        sets.update(numsteps=rng.randrange(200, 601, 100), indentationDeltaX=round(rng.uniform(0.01, 0.1), 4),
                    indentationOutputFreq=rng.choice([50, 100]))
        features = ["pf8.sop indentation", f"{sets['numsteps']} steps"]
    if rng.random() < 0.3:
        sets["timestep"] = round(rng.uniform(0.02, 0.08), 4)
        features.append(f"timestep {sets['timestep']}")
    if rng.random() < 0.3:
        sets["temperature"] = round(rng.uniform(0.5, 0.7), 3)
        features.append(f"temperature {sets['temperature']}")
    if rng.random() < 0.2:
        sets["pairs_cutoff"] = round(rng.uniform(12.0, 20.0), 2)
        features.append(f"pairs_cutoff {sets['pairs_cutoff']}")
    sets.update(outputtiming=rng.choice([50, 100, 250, 500]), dcdfreq=rng.choice([100, 250, 500, 1000]),
                restartfreq=rng.choice([200, 500, 1000]))
    return system, config, sets, features


def draw_case(rng, data, work, models, max_beads, max_replicas):
    """A random valid configuration: (tables, a short description of its features)."""
    names = [s for s in SYSTEMS if models[s].beads <= max_beads]
    system = rng.choices(names, weights=[SYSTEM_WEIGHTS[s] for s in names])[0]
    model = models[system]
    n = model.beads
    _, replica_counts, (low, high) = SYSTEMS[system]
    replicas = min(rng.choice(replica_counts), max_replicas)
    steps = rng.randrange(low, high + 1, 100)
    features = [f"{system}x{replicas}", f"{steps} steps"]
    run = {"steps": steps, "replicas": replicas, "seed": rng.randrange(0, 2**40)}
    if rng.random() < 0.2:
        run["timestep_tau"] = round(rng.uniform(0.02, 0.08), 4)
        features.append(f"h={run['timestep_tau']}")
    heating = rng.random() < 0.15
    if rng.random() < 0.3:
        run["temperature_K"] = round(rng.uniform(250, 400), 2)
        features.append(f"T={run['temperature_K']}K")
    if rng.random() < 0.25:
        run["rng"], run["rng_layout"] = rng.choice(GENERATORS)
        features.append(f"{run['rng']}/{run['rng_layout']}")
    tables = {"input": input_table(data, work, system), "run": run}
    if rng.random() < 0.15:
        tables["model"] = {"pair_cutoff_A": round(rng.uniform(12, 20), 2)}
        features.append(f"cutoff={tables['model']['pair_cutoff_A']}A")
    if heating:  # from the [run] temperature (heating.start_K would give it twice)
        start = run.get("temperature_K", 301.9317)
        stop = round(start + rng.choice([-1, 1]) * rng.uniform(20, 60), 1)
        increment = round(math.copysign(rng.uniform(2, 10), stop - start), 1)
        tables["heating"] = {"stop_K": stop, "increment_K": increment, "every_steps": rng.randrange(50, 400)}
        features.append("heating")
    if rng.random() < 0.15:
        tables["minimize"] = {"steps": rng.randrange(20, 200)}
        features.append("minimize")
    if rng.random() < 0.25:
        tables["neighbor"] = {"skin_A": round(rng.uniform(1.5, 4.0), 2)}
        features.append(f"skin={tables['neighbor']['skin_A']}A")

    taken = set()

    def some_beads(count):
        free = [b for b in range(n) if b not in taken]
        chosen = sorted(rng.sample(free, min(count, len(free))))
        taken.update(chosen)
        return chosen

    if rng.random() < 0.3:
        tables["fixed"] = {"beads": some_beads(rng.randint(1, 3))}
        features.append(f"fixed{tables['fixed']['beads']}")
    # The protocols' default end-to-end vector starts at the first fixed bead, or bead 0; a
    # pulled bead there would leave it without a direction.
    taken.add(tables["fixed"]["beads"][0] if "fixed" in tables else 0)
    protocol = rng.choices(["none", "pulling", "clamp", "plane", "indentation", "clamp+indentation"],
                           weights=[25, 25, 18, 15, 12, 5])[0]
    if protocol == "pulling":
        pulled = [n - 1] if n - 1 not in taken and rng.random() < 0.6 else some_beads(rng.randint(1, 2))
        taken.update(pulled)
        pulling = {"pulled_beads": pulled, "speed_um_per_s": round(log_uniform(rng, 1e3, 3e5), 1),
                   "spring_pN_per_nm": round(rng.uniform(10, 100), 2),
                   "output_every": rng.choice([50, 100, 250])}
        if rng.random() < 0.3:
            pulling["direction"] = [round(float(x), 4) for x in unit_vector(rng)]
        tables["pulling"] = pulling
        features.append(f"pulling{pulled}")
    if protocol.startswith("clamp"):
        pulled = some_beads(rng.randint(1, 2))
        clamp = {"pulled_beads": pulled, "output_every": rng.choice([50, 100, 250])}
        if rng.random() < 0.5:
            clamp["force_pN"] = round(rng.uniform(-50, 300), 2)
            features.append(f"clamp {clamp['force_pN']} pN")
        else:
            points = sorted(rng.sample(range(0, steps), rng.randint(2, 4)))
            clamp["schedule"] = [[p, round(rng.uniform(0, 300), 1)] for p in points]
            features.append("clamp schedule")
        if rng.random() < 0.3:
            clamp["direction"] = [round(float(x), 4) for x in unit_vector(rng)]
        elif rng.random() < 0.3:
            clamp["ends"] = [min(b for b in range(n) if b not in pulled), pulled[0]]
        tables["force_clamp"] = clamp
    if protocol == "plane":
        planes = []
        for _ in range(rng.randint(1, 2)):
            speed = 0.0 if rng.random() < 0.3 else round(rng.choice([-1, 1]) * log_uniform(rng, 1e3, 1e5), 1)
            planes.append({"beads": some_beads(rng.randint(1, 4)),
                           "normal": [round(float(x), 4) for x in unit_vector(rng)],
                           "speed_um_per_s": speed, "spring_pN_per_nm": round(rng.uniform(10, 200), 1)})
        tables["plane_pulling"] = {"output_every": rng.choice([50, 100, 250])}
        tables["plane_pulling.plane"] = planes
        features.append(f"{len(planes)} plane(s)")
    if protocol.endswith("indentation"):
        centre = model.positions.mean(axis=0)
        reach = float(np.max(np.linalg.norm(model.positions - centre, axis=1)))
        u = unit_vector(rng)
        radius_nm = round(rng.uniform(1.0, 3.0), 2)
        tip = centre + (reach + radius_nm * 10 + 3.0) * u
        indentation = {"tip_radius_nm": radius_nm, "tip_position_A": [round(float(x), 3) for x in tip],
                       "direction": [round(float(x), 4) for x in -u],
                       "spring_pN_per_nm": round(rng.uniform(20, 100), 1),
                       "speed_um_per_s": round(log_uniform(rng, 3e4, 3e5), 1),
                       "tip_interaction": rng.choice(["repulsive", "lennard_jones"]),
                       "output_every": rng.choice([50, 100, 250])}
        retraction = rng.random()
        if retraction < 0.2:
            indentation["retract_at_step"] = rng.randrange(steps // 3, steps)
        elif retraction < 0.3:
            indentation["retract_at_depth_nm"] = round(rng.uniform(0.3, 1.5), 2)
        elif retraction < 0.4:
            indentation["retract_at_force_pN"] = round(rng.uniform(20, 200), 1)
        if rng.random() < 0.2:
            indentation["tip_along_direction_only"] = False
            features.append("free tip")
        tables["indentation"] = indentation
        features.append(f"indentation R={radius_nm}nm")
        if rng.random() < 0.4:
            surface = {"type": rng.choice(["plane", "beads"]),
                       "point_A": [round(float(x), 3) for x in centre - (reach + 6.0) * u],
                       "normal": [round(float(x), 4) for x in u]}
            if surface["type"] == "beads":
                surface["grid_size"] = rng.randint(3, 12)
            if rng.random() < 0.3:
                surface["interaction"] = "repulsive"
            tables["indentation.surface"] = surface
            features.append(f"surface {surface['type']}")
            if rng.random() < 0.25:
                # The surface moves up to the tip instead: the base stays, the molecule is pushed.
                indentation["move_surface"] = True
                features.append("moving surface")
    if rng.random() < 0.1:
        tables["output"] = {"contact_formed_ratio": round(rng.uniform(1.1, 1.8), 2)}
    tables.setdefault("output", {}).update({"energy_every": rng.choice([50, 100, 250, 500]),
                        "trajectory_every": rng.choice([0, 100, 250, 500]),
                        "checkpoint_every": rng.choice([0, 300, 1000])})
    # Hydrodynamic interactions (docs/model.md#hydrodynamic-interactions) in a share of the
    # cases small enough for the CPU's O(M²) (TEA) and O(M³) (exact) steps: drawn from a
    # generator of the case's own seed, so that every other draw of the sweep — and the cases
    # of earlier sweeps with the same --seed — stay as they were.
    own = random.Random(run["seed"])
    if own.random() < 0.2:
        exact_fits = n <= 40 and replicas <= 17
        tea_fits = n * n * replicas * steps <= 3e9
        methods = (["cholesky", "auto"] if exact_fits else []) + (["tea"] if tea_fits else [])
        if methods:
            method = own.choice(methods)
            tables["hydrodynamics"] = {"method": method, "radius_A": own.choice([1.9, 1.0, 2.5])}
            features.append(f"hydrodynamics {method} a={tables['hydrodynamics']['radius_A']}A")
    return system, tables, features


# --------------------------------------------------------------------------- running

def run_ermak(ermak, config, directory, way_sets, extra=(), resume=False):
    command = [str(ermak), "run", "--quiet", str(config), *way_sets,
               "--set", f'output.directory="{directory}"', *extra]
    if resume:
        command.append("--resume")
    started = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True)
    return done.returncode, done.stderr.strip(), time.monotonic() - started


def outcomes_differ(a, b, tolerance, features=None, labels=("exit status A", "B")):
    """(exit status, stderr) of two runs: None when both finished, or when both stopped with
    the same error (a drawn configuration may be too harsh for its time step, e.g. a bond
    torn by a moving surface: then both ways must stop at the same report, and their files
    up to there are compared) — noted in `features`; else the problem."""
    (code_a, err_a), (code_b, err_b) = a, b
    if not code_a and not code_b:
        return None
    if code_a == code_b and same_error(err_a, err_b, tolerance):
        if features is not None:
            features.append(f"(both stopped: {err_a.removeprefix('ermak: error: ')[:60]}…)")
        return None
    return f"{labels[0]} {code_a} ({err_a[-300:]}), {labels[1]} {code_b} ({err_b[-300:]})"


def whole_and_split(run, compare, directory, features, tolerance, split, bitwise, split_bitwise):
    """A case run whole on way A and on way B, then stopped half way on A and resumed on B,
    compared against B. run(folder, way, half=False, resume=False) runs way "a" or "b" in
    directory/folder and gives (exit status, stderr, seconds); compare(x, y, bitwise) gives
    (problems, largest frame difference in Å, (worst table ratio, where))."""
    problems = []
    dx = split_dx = float("nan")
    table = split_table = (float("nan"), "")
    code_a, err_a, seconds_a = run("a", "a")
    code_b, err_b, seconds_b = run("b", "b")
    problem = outcomes_differ((code_a, err_a), (code_b, err_b), tolerance, features)
    if problem:
        return [problem], (dx, table, split_dx, split_table, seconds_a, seconds_b)
    if code_a and not output_files(directory / "a") and not output_files(directory / "b"):
        # Both refused at the start with one error (a spring or speed too harsh for the time
        # step): they agree, and wrote nothing to compare or to resume.
        return [], (0.0, (0.0, ""), 0.0, (0.0, ""), seconds_a, seconds_b)
    found, dx, table = compare(directory / "a", directory / "b", bitwise)
    problems += [f"A/B {p}" for p in found]
    if split and not problems:
        code, err, _ = run("split", "a", half=True)
        if code == 0:
            code, err, _ = run("split", "b", resume=True)
        problem = outcomes_differ((code, err), (code_b, err_b), tolerance, labels=("split run: exit status", "B"))
        if problem:
            problems.append(problem)
        else:
            found, split_dx, split_table = compare(directory / "split", directory / "b", split_bitwise)
            problems += [f"split {p}" for p in found]
    return problems, (dx, table, split_dx, split_table, seconds_a, seconds_b)


def plain_case(ermak, config, directory, sets_a, sets_b, tables, features, tolerance, split_bitwise, native, split,
               bitwise):
    """A TOML configuration: whole on A and B, and stopped half way on A and resumed on B."""
    sets = {"a": sets_a, "b": sets_b}
    half_steps = ["--set", f"run.steps={tables['run']['steps'] // 2}"]

    def run(folder, way, half=False, resume=False):
        return run_ermak(ermak, config, directory / folder, sets[way], half_steps if half else [], resume)

    def compare(x, y, exact):
        return compare_runs(x, y, tolerance, exact, native)

    return whole_and_split(run, compare, directory, features, tolerance, split, bitwise, split_bitwise)


def sop_way(text):
    """A way's options for `ermak run FILE.sop`, whose --set takes SOP-GPU keys: the backend
    and threads by their own options, the device by its key."""
    backend, *options = text.split(":")
    args = ["--backend", backend]
    for option in options:
        key, _, value = option.partition("=")
        if key == "threads":
            args += ["--threads", value]
        elif key == "device":
            args += ["--set", f"device={value}"]
        elif key == "set" and "=" in value and "." not in value.split("=")[0]:
            args += ["--set", value]
        # kernels= and TOML keys have no .sop form: the run keeps its defaults
    return args


def sop_case(ermak, data, system, config, sets, directory, way_a, way_b, features, tolerance, split, bitwise):
    """A SOP-GPU configuration run in its working directory on A and on B, and stopped half
    way on A and resumed on B (`--resume` with the full numsteps)."""
    inputs = set(SOP_SYSTEMS[system].values())

    def working_directory(name):
        folder = directory / name
        for source, destination in SOP_SYSTEMS[system].items():
            (folder / destination).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(data / source, folder / destination)
        return folder

    ways = {"a": way_a, "b": way_b}

    def run(folder, way, half=False, resume=False):
        command = [str(ermak), "run", config, "--quiet"]
        for key, value in {**sets, "numsteps": sets["numsteps"] // 2 if half else sets["numsteps"]}.items():
            command += ["--set", f"{key}={value}"]
        command += sop_way(ways[way])  # after the case's overrides: a way's set= wins
        if resume:
            command.append("--resume")
        started = time.monotonic()
        done = subprocess.run(command, capture_output=True, text=True,
                              cwd=directory / folder if resume else working_directory(folder))
        return done.returncode, done.stderr.strip(), time.monotonic() - started

    def compare(x, y, exact):
        return compare_runs(x, y, tolerance, exact, sop_inputs=inputs)

    same_backend = way_a.split(":")[0] == way_b.split(":")[0]
    return whole_and_split(run, compare, directory, features, tolerance, split, bitwise, bitwise and same_backend)


def minimised_case(ermak, config, directory, sets_a, sets_b, tables, features, tolerance, bitwise, native):
    """With [minimize]: each backend minimises (no steps); their energies must agree, but
    their structures only while their accept/reject decisions do (docs/gpu.md#numerics).
    Then the dynamics from A's minimised state, continued on A and on B, must agree."""
    problems = []
    dx, table = float("nan"), (0.0, "energies.tsv:U_total after minimisation")
    zero = ["--set", "run.steps=0"]
    code_a, err_a, seconds_a = run_ermak(ermak, config, directory / "min_a", sets_a, zero)
    code_b, err_b, seconds_b = run_ermak(ermak, config, directory / "min_b", sets_b, zero)
    if code_a or code_b:
        # Both refused at the start with one error (a configuration too harsh for its time
        # step): they agree; there is nothing to continue.
        problem = outcomes_differ((code_a, err_a), (code_b, err_b), tolerance, features,
                                  labels=("minimisation: exit status A", "B"))
        if problem:
            problems.append(problem)
        return problems, (float("nan") if problem else 0.0, table, float("nan") if problem else 0.0,
                          (float("nan") if problem else 0.0, ""), seconds_a, seconds_b)
    for replica in sorted(p.name for p in (directory / "min_a").glob("replica_*")):
        ha, _, ua = read_table(directory / "min_a" / replica / "energies.tsv")
        _, _, ub = read_table(directory / "min_b" / replica / "energies.tsv")
        total = ha[0].lstrip("# ").split("\t")[1:].index("U_total[kcal/mol]")
        difference = abs(ua[0, total] - ub[0, total]) / max(abs(ub[0, total]), 1.0)
        table = max(table, (difference / tolerance.minimised_energy, table[1]))
        if not difference <= tolerance.minimised_energy:
            problems.append(f"minimised {replica}: U_total {ua[0, total]:.7g} against {ub[0, total]:.7g}")
    xa = read_pdb_positions(directory / "min_a/replica_000/final.pdb")
    xb = read_pdb_positions(directory / "min_b/replica_000/final.pdb")
    dx = float(np.max(np.abs(xa - xb)))
    outcomes = []
    for way, sets in (("cont_a", sets_a), ("cont_b", sets_b)):
        shutil.copytree(directory / "min_a", directory / way)
        code, err, _ = run_ermak(ermak, config, directory / way, sets, resume=True)
        outcomes.append((code, err))
    problem = outcomes_differ(*outcomes, tolerance, features, labels=("cont_a: exit status", "cont_b:"))
    if problem:
        problems.append(problem)
    if problems:
        return problems, (dx, table, float("nan"), (float("nan"), ""), seconds_a, seconds_b)
    found, split_dx, split_table = compare_runs(directory / "cont_a", directory / "cont_b", tolerance, bitwise, native)
    problems += [f"from A's minimised state {p}" for p in found]
    return problems, (dx, table, split_dx, split_table, seconds_a, seconds_b)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ermak", default=str(REPO / "build" / "ermak"), help="the ermak binary")
    parser.add_argument("--data", default=os.environ.get("ERMAK_SHARED_DATA", str(REPO.parent / "shared" / "data")),
                        help="the shared data folder ($ERMAK_SHARED_DATA, else ../shared/data)")
    parser.add_argument("--cases", type=int, default=40, help="how many random configurations (default 40)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the case draws (default 1)")
    parser.add_argument("--only", type=int, action="append", help="run only case K (repeatable)")
    parser.add_argument("--a", default="cuda", help="way A (default cuda)")
    parser.add_argument("--b", default="cpu", help="way B, the reference (default cpu)")
    parser.add_argument("--bitwise", action="store_true", help="require byte-identical files (same backend)")
    parser.add_argument("--no-split", action="store_true", help="skip the run stopped on A and resumed on B")
    parser.add_argument("--max-beads", type=int, default=10**9, help="only systems of at most this many beads")
    parser.add_argument("--max-replicas", type=int, default=10**9, help="at most this many replicas per case")
    parser.add_argument("--list", action="store_true", help="print the drawn cases without running them")
    parser.add_argument("--sop-share", type=float, default=0.15,
                        help="share of the cases that are SOP-GPU .sop configurations (default 0.15)")
    parser.add_argument("--position-tolerance-A", type=float, default=1e-2,
                        help="largest position difference of a frame (default 0.01 Å)")
    parser.add_argument("--relative-tolerance", type=float, default=1e-3)
    parser.add_argument("--minimised-energy-tolerance", type=float, default=1e-4,
                        help="largest relative difference of the minimised total energies (default 1e-4)")
    parser.add_argument("--out", default="backend-agreement", help="work folder (default backend-agreement)")
    parser.add_argument("--force", action="store_true", help="replace an existing work folder")
    args = parser.parse_args()
    if args.cases < 1:
        fail_usage("--cases must be at least 1")
    if not 0.0 <= args.sop_share <= 1.0:
        fail_usage("--sop-share must be between 0 and 1")
    ermak, data, out = Path(args.ermak).resolve(), Path(args.data).resolve(), Path(args.out).resolve()
    if not ermak.is_file():
        fail_usage(f"--ermak {ermak}: no such binary (build first: scripts/setup.sh)")
    if not data.is_dir():
        fail_usage(f"--data {data}: no such folder (set ERMAK_SHARED_DATA)")
    if out.exists():
        if not args.force:
            fail_usage(f"{out} exists; give --force to replace it")
        shutil.rmtree(out)
    out.mkdir(parents=True)
    _, sets_a = parse_way(args.a)
    _, sets_b = parse_way(args.b)
    tolerance = Tolerance(args.position_tolerance_A, args.relative_tolerance, args.minimised_energy_tolerance)
    same_backend = args.a.split(":")[0] == args.b.split(":")[0]

    models = {}
    for system in SYSTEMS:
        if system in BUILT_BY_TOPOLOGY:
            if not (data / BUILT_BY_TOPOLOGY[system][0]).is_file():
                continue
            build_model(ermak, data, system, out)
        elif not all((data / path).is_file() for path in SYSTEMS[system][0].values()):
            continue
        models[system] = probe_model(ermak, data, system, out)
    if not any(m.beads <= args.max_beads for m in models.values()):
        fail_usage(f"no system of at most {args.max_beads} beads in {data}")
    print(f"# ermak {ermak}, A = {args.a}, B = {args.b}, seed {args.seed}, {args.cases} cases, "
          f"tolerance {tolerance.position_A} Å / relative {tolerance.relative}"
          f"{', bitwise' if args.bitwise else ''}", flush=True)
    rows = ["case\tsystem\tbeads\treplicas\tsteps\tfeatures\tA_vs_B_dx_A\tA_vs_B_table\tA_vs_B_worst_column"
            "\tsplit_dx_A\tsplit_table\tsplit_worst_column"
            "\tseconds_A\tseconds_B\tverdict"]
    failures = 0
    for case in range(args.cases):
        rng = random.Random(args.seed * 1_000_003 + case)
        # Whether the case is a SOP-GPU configuration comes from a stream of its own, so that
        # the TOML cases of a seed stay what they were.
        sop = random.Random(args.seed * 1_000_003 + case + 0x50B).random() < args.sop_share
        if sop:
            system, sop_config, sop_sets, features = draw_sop_case(rng, data, args.max_beads, args.max_replicas)
            replicas, steps = sop_sets.get("runnum", 1), sop_sets["numsteps"]
        else:
            system, tables, features = draw_case(rng, data, out, models, args.max_beads, args.max_replicas)
            replicas, steps = tables["run"]["replicas"], tables["run"]["steps"]
        if args.only and case not in args.only:
            continue
        if args.list:
            print(f"case {case:3d} {' '.join(features)}")
            continue
        directory = out / f"case_{case:03d}"
        directory.mkdir()
        minimised = not sop and "minimize" in tables
        if sop:
            problems, result = sop_case(ermak, data, system, sop_config, sop_sets, directory, args.a, args.b, features,
                                        tolerance, not args.no_split, args.bitwise)
        else:
            config = directory / "run.toml"
            write_toml(config, tables)
            kernels = []
            if "cuda" in args.a and models[system].beads > BLOCK_FAMILY_MAX_BEADS:
                kernels = []  # "block" would be refused for this size; leave the family to auto
            elif "cuda" in args.a and ":kernels=" not in args.a and rng.random() < 0.35:
                kernels = ["--set", f"run.cuda_kernels={rng.choice(['block', 'perbead'])}"]
                features.append(kernels[1].split("=")[1])
            native = models[system].native_contacts
            if minimised:
                problems, result = minimised_case(ermak, config, directory, sets_a + kernels, sets_b, tables,
                                                  features, tolerance, args.bitwise, native)
            else:
                problems, result = plain_case(ermak, config, directory, sets_a + kernels, sets_b, tables, features,
                                              tolerance, args.bitwise and same_backend, native, not args.no_split,
                                              args.bitwise)
        dx, table, split_dx, split_table, seconds_a, seconds_b = result
        verdict = "ok" if not problems else "FAIL"
        failures += bool(problems)
        n = models[system].beads if system in models else 0
        print(f"case {case:3d} {verdict:4s} {' '.join(features)}: A/B dx {dx:.2g} Å, tables {table[0]:.2g} "
              f"({table[1]}); {'from the minimised state' if minimised else 'split'} dx {split_dx:.2g} Å, "
              f"tables {split_table[0]:.2g} ({split_table[1]}); {seconds_a:.1f} s, {seconds_b:.1f} s", flush=True)
        for p in problems[:6]:
            print(f"    {p}", flush=True)
        rows.append(f"{case}\t{system}{'.sop' if sop else ''}\t{n}\t{replicas}\t{steps}\t"
                    f"{' '.join(features[2:])}\t{dx:.3g}\t{table[0]:.3g}\t{table[1]}\t{split_dx:.3g}\t{split_table[0]:.3g}\t"
                    f"{split_table[1]}\t"
                    f"{seconds_a:.2f}\t{seconds_b:.2f}\t{verdict}")
        if not problems:
            shutil.rmtree(directory)  # keep only what failed, to look at
    if args.list:
        return 0
    (out / "agreement.tsv").write_text("\n".join(rows) + "\n")
    ran = len(rows) - 1
    print(f"# {ran - failures} of {ran} cases agree; table in {out / 'agreement.tsv'}"
          f"{'; failed cases kept in ' + str(out) if failures else ''}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
