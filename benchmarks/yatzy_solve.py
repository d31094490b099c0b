"""Benchmark: Scandinavian Yatzy solved from nothing (float32), advice latency, table load.

Prints one JSON object per line. Numba compile time is measured separately (warm-up on a
two-category variant). Kernel and start-up time are reported apart: ``kernel_seconds``
is the solve itself in a warm process (best of ``--repeat``); ``yatzy_solve_process``
runs the same solve in fresh processes (numba's cached kernels, as a command would),
and its ``startup_seconds`` is the process's wall time less its kernel time (interpreter,
imports, numba and loading the cached kernels, ``kernel_load_seconds`` of it). If the
PyPI package ``yatzy-solver`` (the ``bench`` extra) is importable, its time for the same
table (Scandinavian, f32) is measured in the same run and the ratios printed: ``ratio``
on kernel time, ``ratio_with_startup`` against our kernel plus start-up.
``yatzy_solve_command`` times the command ``diceopt yatzy solve --force`` itself in fresh
processes (best and every run, core seconds, the split of the best run).
``yatzy_solve_theta``: the risk tables (theta -0.05 and 0.05, float32), best of
``--repeat``; ``yatzy_utilities``: their step 3 on one thread, nanoseconds a value, the
vectorised utilities (:mod:`diceopt.games.yatzy.kernel.rounded_exp`) against the math
library's exp value by value on the same rows, and whether the bits agree.

    .venv/bin/python benchmarks/yatzy_solve.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import numba
import numpy as np
from whole_process import time_command


def emit(**data):
    print(json.dumps(data), flush=True)


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


FRESH = """
import json, time
t0 = time.perf_counter()
from diceopt.collector import hold_for_start
hold_for_start()  # as the command's process does (diceopt.cli.run)
from diceopt.games.yatzy.kernel.solve import solve_table, warm_up
from diceopt.games.yatzy.rulebook.variants import SCANDINAVIAN
t1 = time.perf_counter()
warm_up("float32")
t2 = time.perf_counter()
table = solve_table(SCANDINAVIAN, dtype="float32")
print(json.dumps({"imports": t1 - t0, "kernel_load": t2 - t1, "kernel": table.seconds}))
"""


def fresh_process_solve() -> dict:
    """One solve in a new process: its wall seconds and what the process measured."""
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", FRESH], capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(done.stderr[-2000:])
    return {"wall": wall, **json.loads(done.stdout.strip().splitlines()[-1])}


def utilities_speed(batches: int = 400, theta: float = -0.05) -> dict:
    """Nanoseconds a value of a float32 solve's utilities (252 roll rows x 256 lanes of
    points up to 400 apart) on one thread: ``utilities32`` against the library's exp
    value by value, the same rows (best of three), and whether the bits agree."""
    from diceopt.games.yatzy.kernel.rounded_exp import library_rows, utilities32

    rng = np.random.default_rng(5)
    rows = [(rng.random((252, 256)) * 400).astype(np.float32) for _ in range(batches)]
    ref = [a.min(axis=0) for a in rows]
    work = np.empty(256, dtype=np.float32)
    fast, lib = [a.copy() for a in rows], [a.copy() for a in rows]
    utilities32(fast[0].copy(), 0, 252, ref[0], 256, theta, work)  # compile / load
    library_rows(lib[0].copy(), 0, 252, ref[0], 256, theta)
    best = {"vectorised": np.inf, "library": np.inf}
    for _ in range(3):
        fast, lib = [a.copy() for a in rows], [a.copy() for a in rows]
        t0 = time.perf_counter()
        for a, r in zip(fast, ref, strict=True):
            utilities32(a, 0, 252, r, 256, theta, work)
        best["vectorised"] = min(best["vectorised"], time.perf_counter() - t0)
        t0 = time.perf_counter()
        for a, r in zip(lib, ref, strict=True):
            library_rows(a, 0, 252, r, 256, theta)
        best["library"] = min(best["library"], time.perf_counter() - t0)
    values = batches * 252 * 256
    same = all(np.array_equal(a.view(np.int32), b.view(np.int32)) for a, b in zip(fast, lib))
    return {
        "theta": theta,
        "ns_per_value": {k: v / values * 1e9 for k, v in best.items()},
        "ratio": best["library"] / best["vectorised"],
        "same_bits": same,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="timed solves (best and median)")
    parser.add_argument("--advice-calls", type=int, default=500)
    args = parser.parse_args()

    from diceopt.games.yatzy.kernel.solve import solve_table, warm_up
    from diceopt.games.yatzy.play.advice import advise_position, parse_position
    from diceopt.games.yatzy.rulebook.variants import SCANDINAVIAN
    from diceopt.games.yatzy.stored.files import load_table, save_table, table_path

    threads = numba.get_num_threads()
    compile_seconds = warm_up("float32")
    emit(benchmark="yatzy_compile", compile_seconds=compile_seconds, threads=threads)

    times = []
    table = None
    for i in range(args.repeat):
        t0 = time.perf_counter()
        table = solve_table(SCANDINAVIAN, dtype="float32")
        wall = time.perf_counter() - t0
        times.append(wall)
        emit(
            benchmark="yatzy_solve_run",
            run=i,
            seconds=wall,
            value=table.value,
            states=table.states,
        )
    rss = peak_rss_mb()
    ours = min(times)
    emit(
        benchmark="yatzy_solve",
        variant="scandinavian",
        dtype="float32",
        seconds=ours,
        kernel_seconds=ours,
        seconds_median=statistics.median(times),
        compile_seconds=compile_seconds,
        value=table.value,
        states=table.states,
        peak_rss_mb=rss,
        threads=threads,
        target_seconds=2.0,
    )

    # the risk tables the page plays with (theta -0.05, 0.05), and their utilities' exp
    for theta in (-0.05, 0.05):
        runs = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            solve_table(SCANDINAVIAN, dtype="float32", theta=theta)
            runs.append(time.perf_counter() - t0)
        emit(benchmark="yatzy_solve_theta", theta=theta, seconds=min(runs), seconds_all=runs)
    emit(benchmark="yatzy_utilities", **utilities_speed())

    # the same solve as a command runs it: a fresh process each time
    runs = [fresh_process_solve() for _ in range(args.repeat)]
    best = min(runs, key=lambda r: r["wall"])
    startup = statistics.median(r["wall"] - r["kernel"] for r in runs)
    emit(
        benchmark="yatzy_solve_process",
        process_seconds=best["wall"],
        kernel_seconds=best["kernel"],
        startup_seconds=startup,
        kernel_load_seconds=statistics.median(r["kernel_load"] for r in runs),
        import_seconds=statistics.median(r["imports"] for r in runs),
        runs=len(runs),
        note="startup: process wall less its kernel (interpreter, imports, numba, cached "
        "kernels); median of the runs",
    )

    # the command itself, as a user runs it: `diceopt yatzy solve --force` in fresh processes
    with tempfile.TemporaryDirectory() as cache:
        got = time_command(["yatzy", "solve", "--force"], cache, max(args.repeat, 3))
    answer = got.pop("answer") or {}
    inside = answer.get("seconds", 0.0)  # the solve command's own wall, as it measured it
    load_seconds = answer.get("compile_seconds", 0.0)
    compute = answer.get("solve_seconds", 0.0)
    emit(
        benchmark="yatzy_solve_command",
        **got,
        split={
            "before_and_after_the_command": got["whole_seconds"] - inside,
            "the_command": inside,
            "load": load_seconds,
            "compute": compute,
            "imports_and_store": inside - load_seconds - compute,
        },
        target_seconds=0.6,
        note="split of the best run: the_command is the command's own wall (as it measured "
        "it), of it load (numba's cached kernels: its compile_seconds), compute (the "
        "solve) and imports_and_store (the solver's modules, writing the table); "
        "before_and_after_the_command: the interpreter, the package's imports, the exit",
    )

    # table storage: write once, then time loads (checksum verified on every load)
    with tempfile.TemporaryDirectory() as tmp:
        path = table_path(SCANDINAVIAN, 0.0, "float32", tmp)
        save_table(table, path)
        loads = []
        for _ in range(10):
            t0 = time.perf_counter()
            got = load_table(SCANDINAVIAN, 0.0, "float32", tmp)
            loads.append(time.perf_counter() - t0)
            assert got is not None
        emit(
            benchmark="yatzy_table_load",
            seconds_median=statistics.median(loads),
            seconds_max=max(loads),
            bytes=os.path.getsize(path),
            target_seconds=0.05,
        )

    # advice latency: random positions (dice, rerolls, filled, upper consistent)
    rules = SCANDINAVIAN
    rng = np.random.default_rng(7)
    positions = []
    for _ in range(args.advice_calls):
        filled = [c for c in rules.categories if rng.random() < 0.4]
        if len(filled) == rules.num_categories:
            filled = filled[1:]
        upper = 0
        for c in filled:
            f = rules.upper_face[rules.categories.index(c)]
            if f >= 0:
                upper += int(rng.integers(0, 6)) * (int(f) + 1)
        dice = " ".join(map(str, sorted(rng.integers(1, 7, size=5))))
        text = (
            f"dice {dice} | rerolls {int(rng.integers(0, 3))} | filled {' '.join(filled) or '-'}"
            f" | upper {upper}"  # no score: values are the points still to come
        )
        positions.append(parse_position(text, rules))
    advise_position(positions[0], rules, table)  # compile / load the widget once
    lat = []
    for pos in positions:
        t0 = time.perf_counter()
        advise_position(pos, rules, table)
        lat.append(time.perf_counter() - t0)
    emit(
        benchmark="yatzy_advice",
        calls=len(lat),
        seconds_median=statistics.median(lat),
        seconds_p99=float(np.percentile(lat, 99)),
        target_seconds=0.01,
    )

    try:
        import yatzy_solver as ys
    except ImportError:
        emit(benchmark="yatzy_peer", peer="yatzy-solver", available=False)
        return 0
    # ours and the peer one after the other, in pairs, so that both meet the same load
    # on the machine (a shared machine's load changes within a minute)
    with tempfile.TemporaryDirectory() as tmp:
        variant = ys.Variant("yatzy-scandinavian")
        peer_times, paired = [], []
        for _ in range(min(args.repeat, 2)):
            paired.append(solve_table(SCANDINAVIAN, dtype="float32").seconds)
            t0 = time.perf_counter()
            ys.Solver.build_table(variant, os.path.join(tmp, "peer.tbl"), precision="f32")
            peer_times.append(time.perf_counter() - t0)
        peer_value = ys.Solver.load(os.path.join(tmp, "peer.tbl"), variant).state_value(
            "upper 0 | filled -"
        )
    peer = min(peer_times)
    kernel = min(paired)
    emit(
        benchmark="yatzy_peer",
        peer="yatzy-solver",
        version=getattr(ys, "__version__", "?"),
        seconds=peer,
        value=peer_value,
        ours_seconds=kernel,
        ours_kernel_seconds=kernel,
        ours_startup_seconds=startup,
        ratio=peer / kernel,
        ratio_with_startup=peer / (kernel + startup),
        target_ratio=14.0,
        load_average=os.getloadavg()[0],
        note="peer: Solver.build_table(yatzy-scandinavian, f32), same run, same machine, "
        "each build right after one of our solves; ratio on kernel time (ours in a warm "
        "process), best of each",
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
