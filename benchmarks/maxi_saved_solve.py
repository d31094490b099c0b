"""Benchmark: Maxi Yatzy with saved rerolls (``maxi-saved``) solved from nothing.

Prints one JSON object per line: numba compile time (apart), one line per solved layer
(seconds since the start, CPU seconds, peak resident memory), the float32 solve (wall and
CPU seconds, turn-start states solved and reachable, peak resident memory in GB, the
value from the start), advice latency on the stored table, and with ``--float64`` a
float64 solve (not stored; two layers in memory).

The float32 layers are written to the cache directory (``--cache-dir``, else
``$DICEOPT_CACHE``, else the user cache), where ``diceopt yatzy advise --variant
maxi-saved`` finds them. The solve takes minutes (about 1,100 CPU seconds in float32,
1.5 times that in float64).

    .venv/bin/python benchmarks/maxi_saved_solve.py [--float64 [--skip-float32]] [--cache-dir DIR]
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import time

import numba

WITHOUT_SAVED = 383.305389  # the published value of ``maxi`` (no saved rerolls)


def emit(**data):
    print(json.dumps(data), flush=True)


def peak_rss_gb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def cpu_seconds() -> float:
    use = resource.getrusage(resource.RUSAGE_SELF)
    return use.ru_utime + use.ru_stime


def solve(dtype: str, directory, label: str):
    from diceopt.games.yatzy.rulebook.variants import get_rules
    from diceopt.games.yatzy.stored.saved_files import solve_into

    rules = get_rules("maxi-saved")
    c0 = cpu_seconds()
    t0 = time.perf_counter()

    def progress(done, total):
        emit(
            benchmark=f"{label}_layer",
            layer=total - done,
            seconds=time.perf_counter() - t0,
            cpu_seconds=cpu_seconds() - c0,
            peak_rss_gb=peak_rss_gb(),
        )

    table = solve_into(rules, directory, dtype=dtype, keep=False, progress=progress)
    return table, time.perf_counter() - t0, cpu_seconds() - c0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--float64", action="store_true", help="also solve in float64")
    parser.add_argument(
        "--skip-float32", action="store_true", help="no float32 solve and advice (with --float64)"
    )
    parser.add_argument("--cache-dir", help="cache directory for the float32 layers")
    parser.add_argument("--advice-calls", type=int, default=50)
    args = parser.parse_args()

    from diceopt.games.yatzy.kernel.saved import warm_up

    threads = numba.get_num_threads()
    if not args.skip_float32:
        float32_part(args, threads)
    if not args.float64:
        return 0
    compile_seconds = warm_up("float64")
    table64, wall64, cpu64 = solve("float64", None, "maxi_saved_float64")
    emit(
        benchmark="maxi_saved_solve_float64",
        seconds=wall64,
        cpu_seconds=cpu64,
        compile_seconds=compile_seconds,
        value=table64.value,
        peak_rss_gb=peak_rss_gb(),
        threads=threads,
    )
    return 0


def float32_part(args, threads):
    from diceopt.games.yatzy.kernel.saved import warm_up
    from diceopt.games.yatzy.play.advice import advise_position, parse_position
    from diceopt.games.yatzy.rulebook.variants import get_rules
    from diceopt.games.yatzy.stored.saved_files import layers_dir, load_saved

    compile_seconds = warm_up("float32")
    emit(benchmark="maxi_saved_compile", compile_seconds=compile_seconds, threads=threads)

    folder = layers_dir(get_rules("maxi-saved"), "float32", args.cache_dir)
    table, wall, cpu = solve("float32", folder, "maxi_saved")
    emit(
        benchmark="maxi_saved_solve",
        variant="maxi-saved",
        dtype="float32",
        seconds=wall,
        cpu_seconds=cpu,
        compile_seconds=compile_seconds,
        value=table.value,
        value_without_saved=WITHOUT_SAVED,
        states=table.states,
        reachable_states=table.layout.reachable_states,
        peak_rss_gb=peak_rss_gb(),
        table_gb=sum(table.layout.lanes[j] * table.layout.width(j) for j in range(21)) * 4 / 1e9,
        threads=threads,
        directory=str(folder),
    )
    del table

    rules = get_rules("maxi-saved")
    t0 = time.perf_counter()
    loaded, _ = load_saved(get_rules("maxi-saved"), "float32", args.cache_dir)
    open_seconds = time.perf_counter() - t0
    texts = [
        "dice 1 2 3 4 5 6 | rerolls 2 | saved 0 | filled -",
        "dice 1 1 2 2 3 3 | rerolls 1 | saved 3 | filled ones twos castle | upper 6",
        "dice 2 3 4 5 6 6 | rerolls 0 | saved 12 | filled ones twos threes fours fives sixes "
        "| upper 70",
        "dice 6 6 6 6 5 5 | rerolls 2 | saved 20 | filled ones twos threes fours fives sixes "
        "one_pair two_pairs three_pairs three_of_a_kind | upper 80",
    ]
    positions = [parse_position(t, rules) for t in texts]
    first = []
    for pos in positions:  # each maps (and checks) the layer after its own
        t0 = time.perf_counter()
        advise_position(pos, rules, loaded)
        first.append(time.perf_counter() - t0)
    lat = []
    for i in range(args.advice_calls):
        t0 = time.perf_counter()
        advise_position(positions[i % len(positions)], rules, loaded)
        lat.append(time.perf_counter() - t0)
    emit(
        benchmark="maxi_saved_advice",
        open_seconds=open_seconds,
        first_call_seconds=first,
        calls=len(lat),
        seconds_median=statistics.median(lat),
        seconds_max=max(lat),
    )


if __name__ == "__main__":
    sys.exit(main())
