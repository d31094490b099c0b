"""Benchmark: Scandinavian Yatzy solved from nothing (float32), advice latency, table load.

Prints one JSON object per line. Numba compile time is measured separately (warm-up on a
two-category variant). If the PyPI package ``yatzy-solver`` is importable, its time for
the same table (Scandinavian, f32) is measured in the same run and the ratio printed.

    .venv/bin/python benchmarks/yatzy_solve.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import tempfile
import time

import numba
import numpy as np


def emit(**data):
    print(json.dumps(data), flush=True)


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="timed solves (best and median)")
    parser.add_argument("--advice-calls", type=int, default=500)
    args = parser.parse_args()

    from diceopt.games.yatzy.advice import advise_position, parse_position
    from diceopt.games.yatzy.kernel import solve_table, warm_up
    from diceopt.games.yatzy.rules import SCANDINAVIAN
    from diceopt.games.yatzy.storage import load_table, save_table, table_path

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
        seconds_median=statistics.median(times),
        compile_seconds=compile_seconds,
        value=table.value,
        states=table.states,
        peak_rss_mb=rss,
        threads=threads,
        target_seconds=2.0,
    )

    # table storage: write once, then time loads (checksum verified on every load)
    with tempfile.TemporaryDirectory() as tmp:
        path = table_path("scandinavian", 0.0, "float32", tmp)
        save_table(table, "scandinavian", path)
        loads = []
        for _ in range(10):
            t0 = time.perf_counter()
            got = load_table("scandinavian", 0.0, "float32", tmp)
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
    with tempfile.TemporaryDirectory() as tmp:
        variant = ys.Variant("yatzy-scandinavian")
        peer_times = []
        for _ in range(min(args.repeat, 2)):
            t0 = time.perf_counter()
            ys.Solver.build_table(variant, os.path.join(tmp, "peer.tbl"), precision="f32")
            peer_times.append(time.perf_counter() - t0)
        peer_value = ys.Solver.load(os.path.join(tmp, "peer.tbl"), variant).state_value(
            "upper 0 | filled -"
        )
    peer = min(peer_times)
    emit(
        benchmark="yatzy_peer",
        peer="yatzy-solver",
        version=getattr(ys, "__version__", "?"),
        seconds=peer,
        value=peer_value,
        ours_seconds=ours,
        ratio=peer / ours,
        note="peer: Solver.build_table(yatzy-scandinavian, f32), same run, same machine",
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
