"""Benchmark: the target table and a saved-rerolls (Maxi) table split by layer on Ray,
1 and 2 workers, against the in-process solve (float32).

Prints one JSON object per line:

- ``ray_layers_profile``: per table (the timed ones, and the full Scandinavian target
  table and Maxi with saved rerolls, not solved here, for estimates), the work the split
  has to spread: per layer (last turn first) the states, the work units (targets:
  values of k computed, sum of the states' k ranges; saved rerolls: lanes times reroll
  levels), the bytes each layer puts into the object store (the next layer's rows or
  values), and the ideal speed-up of the split over W workers (work / the sum over
  layers of the largest part's work), W = 2 .. 64;
- ``ray_layers_inprocess``: the in-process solve with 1 numba thread and with all of
  them (seconds, best of ``--repeat``);
- ``ray_layers``: the solve on a local Ray instance of W CPUs (``--workers``, default
  1 and 2), each layer in W tasks of one numba thread: seconds (best of ``--repeat``),
  speed-up over 1 worker and over the in-process solve, whether the table is the
  in-process one bit for bit, and the load average (1 minute) before and after.

Numba compile time is taken before the timings (a small solve in the driver and in every
worker). Default tables: reduced ones that take seconds (targets: ten Scandinavian
categories; saved rerolls: twelve Maxi categories); ``--full``: the full Scandinavian
target table (minutes, 0.84 GB) instead of the reduced one. Needs the cluster extra.

    .venv/bin/python benchmarks/ray_layers.py [--workers 1,2] [--repeat 2] [--full]
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numba
import numpy as np

from diceopt.games.yatzy.analyses.targets import solve_targets, table_kmax
from diceopt.games.yatzy.commands import on_ray as rl
from diceopt.games.yatzy.kernel.layers import iter_layer_states, max_to_come
from diceopt.games.yatzy.kernel.saved import saved_layout, solve_saved
from diceopt.games.yatzy.rulebook.variants import MAXI, SCANDINAVIAN, get_rules

TARGETS_SMALL = SCANDINAVIAN.reduced(
    SCANDINAVIAN.categories[:6] + ("one_pair", "three_of_a_kind", "chance", "yatzy")
)
SAVED_SMALL = MAXI.reduced(MAXI.categories[:6] + MAXI.categories[-6:], saved_rerolls=True)
WIDTHS = (2, 4, 8, 16, 32, 64)


def emit(**data):
    print(json.dumps(data), flush=True)


def load() -> float:
    """The 1-minute load average."""
    return round(os.getloadavg()[0], 2)


def best(solve, repeat):
    """The least seconds of ``repeat`` calls of ``solve`` and its last result."""
    times, table = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        table = solve()
        times.append(time.perf_counter() - t0)
    return min(times), table


def ideal(works: list[np.ndarray], parts_of) -> dict[str, float]:
    """Work over the sum of each layer's largest part, for W workers."""
    total = sum(float(w.sum()) for w in works)
    out = {}
    for W in WIDTHS:
        longest = sum(max(float(w[p].sum()) for p in parts_of(w.size, W)) for w in works if w.size)
        out[str(W)] = round(total / longest, 2)
    return out


def targets_profile(rules) -> dict:
    """Per layer: states, values of k to compute, bytes put (the next layer's values)."""
    kmax = table_kmax(rules)
    works, states, put, nxt, values = [], [], [], 0, 0
    for st in iter_layer_states(rules, reverse=True):
        top = np.minimum(max_to_come(rules, st.mask, st.flag, st.upper), kmax)
        if nxt:  # the last layer (first here) is not solved
            works.append(top + 1.0)
            states.append(int(st.mask.size))
            put.append(values * 4 + nxt * 36)  # values; keys, offsets, tops, bands
        nxt, values = int(st.mask.size + st.copy_dst.size), int((top + 1).sum())
    return {
        "states_per_layer": states,
        "work_per_layer": [int(w.sum()) for w in works],
        "bytes_put_per_layer": put,
        "ideal_speedup": ideal(works, rl.interleaved_parts),
    }


def saved_profile(rules) -> dict:
    """Per layer: lanes, lanes x reroll levels, bytes put (the next layer's values)."""
    lay = saved_layout(rules)
    c = rules.num_categories
    works = [np.full(lay.lanes[j], 2.0 + rules.max_saved(j)) for j in range(c - 1, -1, -1)]
    batch = rl.LANES[np.dtype(np.float32)]
    return {
        "states_per_layer": [lay.lanes[j] for j in range(c - 1, -1, -1)],
        "work_per_layer": [int(w.sum()) for w in works],
        "bytes_put_per_layer": [
            lay.lanes[j + 1] * lay.width(j + 1) * 4 for j in range(c - 1, -1, -1)
        ],
        "ideal_speedup": ideal(works, lambda n, W: rl.batch_parts(n, W, batch)),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", default="1,2", help="Ray CPUs (= tasks per layer) to time")
    parser.add_argument("--repeat", type=int, default=2, help="timed solves (best kept)")
    parser.add_argument("--full", action="store_true", help="the full Scandinavian target table")
    args = parser.parse_args()
    workers = [int(w) for w in args.workers.split(",")]

    import ray

    targets_rules = SCANDINAVIAN if args.full else TARGETS_SMALL
    cases = [
        (
            "targets",
            targets_rules,
            targets_profile,
            lambda: solve_targets(targets_rules),
            lambda W: rl.solve_targets_ray(targets_rules, chunks=W),
            lambda a, b: np.array_equal(a.data, b.data),
        ),
        (
            "saved",
            SAVED_SMALL,
            saved_profile,
            lambda: solve_saved(SAVED_SMALL),
            lambda W: rl.solve_saved_ray(SAVED_SMALL, chunks=W),
            lambda a, b: all(
                np.array_equal(a.layer(j), b.layer(j))
                for j in range(SAVED_SMALL.num_categories + 1)
            ),
        ),
    ]
    tiny_targets = SCANDINAVIAN.reduced(("ones", "chance"), bonus_threshold=3)
    tiny_saved = MAXI.reduced(("ones", "chance"), bonus_threshold=3, saved_rerolls=True)
    solve_targets(tiny_targets), solve_saved(tiny_saved)  # compile (or load) in the driver
    for name, rules, profile in (
        ("targets", SCANDINAVIAN, targets_profile),
        ("saved", get_rules("maxi-saved"), saved_profile),
    ):  # the full tables, for the estimates (not solved here)
        emit(benchmark="ray_layers_profile", table=name, variant=rules.name, full=True,
             categories=rules.num_categories, dice=rules.dice, **profile(rules))  # fmt: skip
    threads = numba.get_num_threads()
    refs, inproc, one = {}, {}, {}
    for name, rules, profile, here, _, _ in cases:
        full = args.full and name == "targets"
        emit(benchmark="ray_layers_profile", table=name, variant=rules.name, full=full,
             categories=rules.num_categories, dice=rules.dice, **profile(rules))  # fmt: skip
        numba.set_num_threads(1)
        t1, _ = best(here, args.repeat)
        numba.set_num_threads(threads)
        before = load()
        tn, refs[name] = best(here, args.repeat)
        inproc[name] = (t1, tn)
        emit(benchmark="ray_layers_inprocess", table=name, seconds_1_thread=t1,
             seconds=tn, threads=threads, load_before=before, load_after=load())  # fmt: skip
    for W in workers:
        t0 = time.perf_counter()
        ray.init(num_cpus=W, include_dashboard=False, log_to_driver=False)
        start = time.perf_counter() - t0
        t0 = time.perf_counter()
        for _ in range(2):  # every worker loads the kernels (numba's cache)
            rl.solve_targets_ray(tiny_targets, chunks=W), rl.solve_saved_ray(tiny_saved, chunks=W)
        warm = time.perf_counter() - t0
        for name, _, _, _, on_ray, same in cases:
            before = load()
            seconds, got = best(lambda: on_ray(W), args.repeat)  # noqa: B023 (called here)
            t1, tn = inproc[name]
            one.setdefault(name, seconds if W == 1 else None)
            emit(
                benchmark="ray_layers",
                table=name,
                workers=W,
                seconds=seconds,
                speedup_vs_1_worker=round(one[name] / seconds, 3) if one[name] else None,
                speedup_vs_inprocess_1_thread=round(t1 / seconds, 3),
                speedup_vs_inprocess=round(tn / seconds, 3),
                identical=bool(same(got, refs[name])),
                ray_start_seconds=round(start, 2),
                worker_warm_seconds=round(warm, 2),
                load_before=before,
                load_after=load(),
                cores=os.cpu_count(),
            )
        ray.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
