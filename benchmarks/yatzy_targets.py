"""Benchmark: Scandinavian Yatzy target tables (the highest P(points to come >= k)).

Prints one JSON object per line: numba compile time; single targets solved on demand
(one k vector truncated to K, seconds); with ``--full`` the table for every k = 0 ..
374 (seconds, target at most 180 s on 2 cores; peak resident memory, target at most
6 GB), its size, store and load seconds, and P(final >= K) from the start for a few K.

    .venv/bin/python benchmarks/yatzy_targets.py [--targets 100,200,250,300] [--full]
"""

from __future__ import annotations

import argparse
import json
import resource
import tempfile
import time

import numba


def emit(**data):
    print(json.dumps(data), flush=True)


def peak_gb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", default="100,200,250,300")
    parser.add_argument("--full", action="store_true", help="solve the table for every k")
    args = parser.parse_args()

    from diceopt.games.yatzy.rules import SCANDINAVIAN
    from diceopt.games.yatzy.targets import load_targets, solve_targets, store_targets

    t0 = time.perf_counter()
    tiny = SCANDINAVIAN.reduced(("ones", "chance"), bonus_threshold=3)
    solve_targets(tiny)
    emit(benchmark="yatzy_targets_compile", seconds=time.perf_counter() - t0,
         threads=numba.get_num_threads())  # fmt: skip
    for k in (int(x) for x in args.targets.split(",")):
        t = solve_targets(SCANDINAVIAN, kmax=k)
        emit(benchmark="yatzy_target_single", target=k, seconds=t.seconds,
             p_at_least=t.probability(0, 0, 0, k), peak_rss_gb=peak_gb())  # fmt: skip
    if args.full:
        t = solve_targets(SCANDINAVIAN)
        emit(benchmark="yatzy_targets_full", seconds=t.seconds, states=t.states,
             gb=t.values.nbytes / 1e9, peak_rss_gb=peak_gb(),
             p_at_least={k: t.probability(0, 0, 0, k) for k in (200, 250, 300)})  # fmt: skip
        with tempfile.TemporaryDirectory() as tmp:
            t1 = time.perf_counter()
            store_targets(t, "scandinavian", tmp)
            stored = time.perf_counter() - t1
            del t
            got = load_targets("scandinavian", "float32", tmp)
            assert got is not None
            emit(benchmark="yatzy_targets_store_load", store_seconds=stored,
                 load_seconds=got[1], peak_rss_gb=peak_gb())  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
