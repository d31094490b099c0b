"""Benchmark: Scandinavian Yatzy target tables (the highest P(points to come >= k)).

Prints one JSON object per line, each with the load average (1, 5, 15 min) when it was
taken: import time, numba compile time; single targets solved on demand as ``advise``
solves them (only the states after the position, only the k a game from it toward K can
need there: ``only_target``): from the start for each ``--targets`` K and
from a mid-game position (7 categories filled), seconds, states, (state, k) values, peak
resident memory; with ``--full`` the table for every k = 0 .. 374 (seconds, target at
most 45 s on 2 cores; peak resident memory, target at most 3.2 GB; seconds per layer),
its size, store seconds, load seconds (memory-mapped, every block checked; in this
process and in a fresh one), and P(final >= K) from the start for a few K. The last
line, ``yatzy_targets_split``: the seconds of each part (imports, compile, each single
target, the full table's compute and store) with the load average at its end.

    .venv/bin/python benchmarks/yatzy_targets.py [--targets 250] [--full] [--cache-dir DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

import numba
import numpy as np

MID = "dice 1 2 3 5 6 | rerolls 2 | filled ones twos threes fours one_pair two_pairs chance "
MID += "| upper 30 | score 75"  # 7 categories filled, 33 upper points to go for the bonus


def emit(**data):
    data["loadavg"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(data), flush=True)


def peak_gb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2


LOAD_SNIPPET = """
import sys, time
t0 = time.perf_counter()
from diceopt.games.yatzy.rulebook.variants import SCANDINAVIAN
from diceopt.games.yatzy.stored.target_files import load_targets
t1 = time.perf_counter()
table, seconds = load_targets(SCANDINAVIAN, "float32", sys.argv[1])
p = table.probability(0, 0, 0, 250)
print(t1 - t0, seconds, time.perf_counter() - t1, p)
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--targets", default="250", help="targets K from the start, commas (empty: none)"
    )
    parser.add_argument("--full", action="store_true", help="solve the table for every k")
    parser.add_argument("--cache-dir", help="store the full table here (default: a temporary)")
    args = parser.parse_args()

    t0 = time.perf_counter()
    from diceopt.games.yatzy.analyses.targets import (
        max_to_come,
        solve_target_from,
        solve_targets,
        warm_up_targets,
    )
    from diceopt.games.yatzy.kernel.layers import iter_layer_states
    from diceopt.games.yatzy.play.advice import parse_position, state_of
    from diceopt.games.yatzy.rulebook.variants import SCANDINAVIAN
    from diceopt.games.yatzy.stored.target_files import (
        load_targets,
        store_targets,
        target_draft,
    )

    rules = SCANDINAVIAN
    split = {"imports": time.perf_counter() - t0}
    emit(benchmark="yatzy_targets_imports", seconds=split["imports"])
    split["compile"] = warm_up_targets()
    emit(benchmark="yatzy_targets_compile", seconds=split["compile"],
         threads=numba.get_num_threads())  # fmt: skip
    mid = state_of(parse_position(MID, rules), rules)
    runs = [((0, 0, 0), int(k), "start") for k in args.targets.split(",") if k.strip()]
    runs += [(mid, 250 - 75, "mid-game (7 filled, score 75)"), (mid, 300 - 75, "mid-game")]
    for (mask, flag, upper), k, where in runs:
        c0 = time.process_time()
        t = solve_target_from(rules, mask, flag, upper, k, only_target=True)  # as `advise`
        split[f"target {k} from {where}"] = t.seconds
        emit(benchmark="yatzy_target_single", position=where, k=k, seconds=t.seconds,
             cpu_seconds=time.process_time() - c0,
             states=t.states, pairs=t.pairs, p_at_least=t.probability(mask, flag, upper, k),
             peak_rss_gb=peak_gb())  # fmt: skip
    if not args.full:
        emit(benchmark="yatzy_targets_split", seconds=split)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        where = args.cache_dir or tmp
        # as `yatzy targets` does: solved into the pages of its file, then stored
        with target_draft(rules, "float32", where) as (draft, alloc):
            marks = [time.perf_counter()]
            c0 = time.process_time()
            t = solve_targets(
                rules, progress=lambda done, total: marks.append(time.perf_counter()), alloc=alloc
            )
            cpu = time.process_time() - c0
            peak = peak_gb()
            split["full table compute"] = t.seconds
            pairs = [
                int(np.minimum(max_to_come(rules, st.mask, st.flag, st.upper), t.kmax).sum())
                for st in list(iter_layer_states(rules, reverse=True))[1:]
            ]
            p_at_least = {k: t.probability(0, 0, 0, k) for k in (200, 250, 300)}
            emit(benchmark="yatzy_targets_full", seconds=t.seconds, cpu_seconds=cpu,
                 states=t.states, gb=t.nbytes / 1e9, peak_rss_gb=peak, pairs=sum(pairs),
                 layer_seconds=[round(b - a, 2) for a, b in zip(marks, marks[1:])],
                 layer_pairs=pairs, p_at_least=p_at_least)  # fmt: skip
            t1 = time.perf_counter()
            assert store_targets(t, where, draft)
            stored = time.perf_counter() - t1
        del t
        got = load_targets(SCANDINAVIAN, "float32", where)
        assert got is not None
        out = subprocess.run(
            [sys.executable, "-c", LOAD_SNIPPET, where], capture_output=True, text=True, check=True
        ).stdout.split()
        emit(benchmark="yatzy_targets_store_load", store_seconds=stored, load_seconds=got[1],
             fresh_process_import_seconds=float(out[0]), fresh_process_load_seconds=float(out[1]),
             fresh_process_p250=float(out[3]), peak_rss_gb=peak_gb())  # fmt: skip
    split["full table store"] = stored
    emit(benchmark="yatzy_targets_split", seconds=split)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
