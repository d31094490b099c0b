"""Benchmark: the Yatzy batch API (state values; every action's value in situations).

Prints one JSON object per line. Scandinavian Yatzy, float32 table solved into a
temporary directory and loaded. Situation sets (``--situations`` each):

- ``distinct``: every situation on its own random reachable turn-start state, random
  roll and rerolls (the worst case: one widget per situation);
- ``turns``: each state three times, at 2, 1 and 0 rerolls left with random rolls (the
  shape of situations taken from played turns).

If the PyPI package ``yatzy-solver`` is importable, its ``Solver.state_values`` and
``Solver.option_values_batch`` (the comparable batch calls) are timed on the same
situations in the same run (its solver is built in memory first, not timed) and the
values are compared with ours.

    .venv/bin/python benchmarks/yatzy_batch.py [--situations 200000] [--states 2000000]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time

import numba
import numpy as np


def emit(**data):
    print(json.dumps(data), flush=True)


def best_of(repeat, fn):
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def situation_sets(table, n, rng):
    rules = table.rules
    states = np.argwhere(~np.isnan(table.values))
    states = states[states[:, 0] != (1 << rules.num_categories) - 1]
    R = len(rules.roll_counts)
    pick = states[rng.permutation(len(states))[:n]]
    distinct = (pick[:, 0], pick[:, 1], pick[:, 2], rng.integers(0, R, n), rng.integers(0, 3, n))
    m = -(-n // 3)
    turn = states[rng.permutation(len(states))[:m]]
    turns = tuple(np.repeat(turn[:, j], 3)[:n] for j in range(3)) + (
        rng.integers(0, R, n),
        np.tile([2, 1, 0], m)[:n],
    )
    return {"distinct": distinct, "turns": turns}


def peer_solver():
    try:
        import yatzy_solver as ys
    except ImportError:
        return None, None
    variant = ys.Variant("yatzy-scandinavian")
    t0 = time.perf_counter()
    solver = ys.Solver.build(variant)
    emit(benchmark="yatzy_batch_peer_build", seconds=time.perf_counter() - t0)
    return ys, solver


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--situations", type=int, default=200_000)
    parser.add_argument("--states", type=int, default=2_000_000)
    parser.add_argument("--repeat", type=int, default=3, help="timed runs (best reported)")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--no-peer", action="store_true")
    args = parser.parse_args()

    from diceopt.games.yatzy.commands.batch import option_values, roll_dice, state_values
    from diceopt.games.yatzy.rulebook.variants import SCANDINAVIAN
    from diceopt.games.yatzy.stored.files import get_table, load_table

    threads = numba.get_num_threads()
    with tempfile.TemporaryDirectory() as tmp:
        get_table(SCANDINAVIAN, 0.0, "float32", tmp)
        table, _ = load_table(SCANDINAVIAN, 0.0, "float32", tmp)
    rules = table.rules
    rng = np.random.default_rng(args.seed)
    sets = situation_sets(table, args.situations, rng)
    t0 = time.perf_counter()
    option_values(table, *(a[:10] for a in sets["distinct"]))
    emit(benchmark="yatzy_batch_compile", seconds=time.perf_counter() - t0, threads=threads)

    states = np.argwhere(~np.isnan(table.values))
    pick = states[rng.integers(0, len(states), args.states)]
    mask, flag, upper = pick[:, 0], pick[:, 1], pick[:, 2]
    seconds, ours_sv = best_of(args.repeat, lambda: state_values(table, mask, flag, upper))
    emit(
        benchmark="yatzy_batch_state_values",
        impl="diceopt",
        states=args.states,
        seconds=seconds,
        per_second=args.states / seconds,
        threads=threads,
        target_per_second=1_000_000,
    )
    ours = {}
    for name, sit in sets.items():
        seconds, out = best_of(args.repeat, lambda sit=sit: option_values(table, *sit))
        ours[name] = out
        emit(
            benchmark="yatzy_batch_option_values",
            impl="diceopt",
            set=name,
            situations=args.situations,
            distinct_states=int(len(np.unique(sit[0] * 64 + sit[2]))),
            seconds=seconds,
            per_second=args.situations / seconds,
            threads=threads,
            target_per_second=200_000,
        )

    if args.no_peer:
        emit(benchmark="yatzy_batch_peer", skipped="--no-peer")
        return 0
    ys, solver = peer_solver()
    if solver is None:
        emit(benchmark="yatzy_batch_peer", skipped="yatzy-solver is not installed")
        return 0
    filled = mask.astype(np.uint32)
    seconds, peer_sv = best_of(
        args.repeat,
        lambda: solver.state_values(filled, upper.astype(np.uint16), flag.astype(bool)),
    )
    emit(
        benchmark="yatzy_batch_state_values",
        impl="yatzy-solver",
        states=args.states,
        seconds=seconds,
        per_second=args.states / seconds,
        max_abs_difference=float(np.abs(peer_sv - ours_sv).max()),
        note="peer values are float64 from its own solve; ours are the float32 table",
    )
    variant = solver.variant
    for name, (m, f, u, roll, t) in sets.items():
        peer_args = (
            m.astype(np.uint32),
            u.astype(np.uint16),
            f.astype(bool),
            roll_dice(rules, roll).astype(np.uint8),
            t.astype(np.uint8),
        )
        seconds, (codes, values, counts) = best_of(
            args.repeat, lambda a=peer_args: solver.option_values_batch(*a)
        )
        diff = np.abs(variant.dense(codes, values, counts) - ours[name].dense())
        emit(
            benchmark="yatzy_batch_option_values",
            impl="yatzy-solver",
            set=name,
            situations=args.situations,
            seconds=seconds,
            per_second=args.situations / seconds,
            max_abs_difference=float(np.nanmax(diff)),
            same_legal_actions=bool(np.array_equal(np.isnan(diff), np.isnan(ours[name].dense()))),
            same_codes="our action codes are the peer's (225 codes, same order)",
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
