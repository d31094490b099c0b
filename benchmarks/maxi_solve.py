"""Benchmark: Maxi Yatzy (six dice, 20 categories) solved from nothing, stored and loaded.

Prints one JSON object per line: numba compile time (apart), the float32 solve (wall and
CPU seconds, turn-start states, peak resident memory), the table's save and load times,
advice latency, and a float64 solve checking the published optimal expected score
383.305389 (float32-rounded; this run must agree within 5e-5 points).

    .venv/bin/python benchmarks/maxi_solve.py [--skip-float64]
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

PUBLISHED = 383.305389
TOLERANCE = 5e-5


def emit(**data):
    print(json.dumps(data), flush=True)


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def cpu_seconds() -> float:
    use = resource.getrusage(resource.RUSAGE_SELF)
    return use.ru_utime + use.ru_stime


def solve(dtype: str):
    from diceopt.games.yatzy.kernel.solve import solve_table
    from diceopt.games.yatzy.rulebook.variants import MAXI

    c0 = cpu_seconds()
    t0 = time.perf_counter()
    table = solve_table(MAXI, dtype=dtype)
    return table, time.perf_counter() - t0, cpu_seconds() - c0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-float64", action="store_true", help="only the float32 table")
    parser.add_argument("--advice-calls", type=int, default=200)
    args = parser.parse_args()

    from diceopt.games.yatzy.kernel.solve import warm_up
    from diceopt.games.yatzy.play.advice import advise_position, parse_position
    from diceopt.games.yatzy.rulebook.variants import MAXI
    from diceopt.games.yatzy.stored.files import load_table, save_table, table_path

    threads = numba.get_num_threads()
    compile_seconds = warm_up("float32")
    emit(benchmark="maxi_compile", compile_seconds=compile_seconds, threads=threads)

    table, wall, cpu = solve("float32")
    emit(
        benchmark="maxi_solve",
        variant="maxi",
        dtype="float32",
        seconds=wall,
        cpu_seconds=cpu,
        compile_seconds=compile_seconds,
        value=table.value,
        published=PUBLISHED,
        states=table.states,
        solved_states=table.states - _copies(MAXI),
        peak_rss_mb=peak_rss_mb(),
        table_mb=table.values.nbytes / 2**20,
        threads=threads,
        target_seconds=60.0,
    )

    with tempfile.TemporaryDirectory() as tmp:
        path = table_path(MAXI, 0.0, "float32", tmp)
        t0 = time.perf_counter()
        save_table(table, path)
        save = time.perf_counter() - t0
        loads = []
        for _ in range(5):
            t0 = time.perf_counter()
            loaded = load_table(MAXI, 0.0, "float32", tmp)
            loads.append(time.perf_counter() - t0)
            assert loaded is not None and loaded[0].value == table.value
        emit(
            benchmark="maxi_table_load",
            save_seconds=save,
            seconds_median=statistics.median(loads),
            seconds_max=max(loads),
            bytes=os.path.getsize(path),
            target_seconds=1.0,
        )

    texts = [
        "dice 1 2 3 4 5 6 | rerolls 2 | filled -",
        "dice 6 6 6 6 5 5 | rerolls 0 | filled -",
        "dice 1 1 2 2 3 3 | rerolls 1 | filled ones twos castle | upper 6",
        "dice 2 3 4 5 6 6 | rerolls 2 | filled small_straight chance | upper 0",
    ]
    positions = [parse_position(t, MAXI) for t in texts]
    advise_position(positions[0], MAXI, table)  # compile / load the widget once
    lat = []
    for i in range(args.advice_calls):
        t0 = time.perf_counter()
        advise_position(positions[i % len(positions)], MAXI, table)
        lat.append(time.perf_counter() - t0)
    emit(
        benchmark="maxi_advice",
        calls=len(lat),
        seconds_median=statistics.median(lat),
        seconds_max=max(lat),
    )
    del table, loaded

    if args.skip_float64:
        return 0
    table64, wall64, cpu64 = solve("float64")
    error = abs(table64.value - PUBLISHED)
    emit(
        benchmark="maxi_solve_float64",
        seconds=wall64,
        cpu_seconds=cpu64,
        value=table64.value,
        published=PUBLISHED,
        error=error,
        ok=error <= TOLERANCE,
        peak_rss_mb=peak_rss_mb(),
        threads=threads,
    )
    return 0 if error <= TOLERANCE else 1


def _copies(rules) -> int:
    """Turn-start states whose value is copied from a solved one (bonus out of reach)."""
    from diceopt.games.yatzy.kernel.layers import iter_layer_states

    return sum(int(st.copy_dst.size) for st in iter_layer_states(rules))


if __name__ == "__main__":
    sys.exit(main())
