"""Benchmark: the exact final-score distribution of optimal Scandinavian Yatzy from the start.

Prints one JSON object per line: numba compile time; the stored float32 table's load
time; the distribution's time (target: at most 10 s on 2 cores) with its summary beside
the published figures (10 million simulated games, Delta Yatzy: mean 248.4, std 38.5,
median 249, 5th percentile 179, 95th 309, 99th 325; upper bonus about 90%, Yatzy about
39%); with ``--games N`` a seeded simulation of N games compared with it
(Kolmogorov-Smirnov distance, target below 0.002, and a chi-square statistic); with
``--american`` the free-choice-joker American figures (Verhoeff: mean 254.5896, std
59.6117, median 248); with ``--states float64`` (or float32) the distributions of every
turn-start state (``state_distributions``): time, rows, values and memory. Every line
carries the load average (1 minute) at its start and end.

    .venv/bin/python benchmarks/yatzy_distribution.py [--games 1000000] [--american]
        [--states float64]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time

import numba
import numpy as np


def emit(**data):
    print(json.dumps(data), flush=True)


def load() -> float:
    """The 1-minute load average."""
    return os.getloadavg()[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=0, help="simulated games to compare")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--american", action="store_true")
    parser.add_argument("--states", choices=["float64", "float32"], default=None)
    args = parser.parse_args()

    from diceopt.games.yatzy.analyses.distribution import (
        distribution,
        state_distributions,
        warm_up,
    )
    from diceopt.games.yatzy.kernel.solve import warm_up as solver_warm_up
    from diceopt.games.yatzy.rulebook.variants import get_rules
    from diceopt.games.yatzy.stored.files import get_table, load_table

    t0 = time.perf_counter()
    solver_warm_up("float32")
    compile_seconds = warm_up("float32")
    emit(
        benchmark="yatzy_distribution_compile",
        compile_seconds=compile_seconds,
        total_seconds=time.perf_counter() - t0,
        threads=numba.get_num_threads(),
    )
    variants = ["scandinavian"] + (["american"] if args.american else [])
    with tempfile.TemporaryDirectory() as tmp:
        for variant in variants:
            rules = get_rules(variant)
            _, info = get_table(rules, 0.0, "float32", tmp)
            table, load_seconds = load_table(rules, 0.0, "float32", tmp)
            load_before = load()
            dist = distribution(table)
            s = dist.summary()
            emit(
                benchmark="yatzy_distribution",
                variant=variant,
                seconds=dist.seconds,
                load_average=[load_before, load()],
                target_seconds=10.0 if variant == "scandinavian" else None,
                states=dist.states,
                solve_seconds=info.seconds,
                load_seconds=load_seconds,
                table_value=table.value,
                **{k: s[k] for k in ("mean", "std", "median", "percentiles", "p_at_least")},
                bonus_rate=s["bonus_rate"],
                yatzy_rate=s["yatzy_rate"],
                total=s["total"],
                published=(
                    {"mean": 248.4, "std": 38.5, "median": 249, "p5": 179, "p95": 309,
                     "p99": 325, "bonus_rate": 0.90, "yatzy_rate": 0.39}
                    if variant == "scandinavian"
                    else {"mean": 254.5896, "std": 59.6117, "median": 248}
                ),
            )  # fmt: skip
            if args.states:
                load_before = load()
                sd = state_distributions(table, dtype=args.states)
                emit(
                    benchmark="yatzy_state_distributions",
                    variant=variant,
                    dtype=args.states,
                    seconds=sd.seconds,
                    load_average=[load_before, load()],
                    rows=sd.states,
                    values=int(sd.data.size),
                    data_mb=sd.data.nbytes / 2**20,
                    total_mb=sd.nbytes / 2**20,
                    start_mean=float(sd.pmf(0, 0, 0) @ np.arange(sd.length[sd.row(0, 0, 0)])),
                )
                del sd
            if args.games > 0:
                from diceopt.games.yatzy.kernel.simulation import simulate
                from diceopt.games.yatzy.kernel.simulation import warm_up as sim_warm_up

                sim_warm_up("float32")
                sim = simulate(table, args.games, np.random.default_rng(args.seed))
                counts = np.bincount(sim.scores, minlength=dist.pmf.size)
                cdf = np.cumsum(dist.pmf)
                ks = float(np.abs(cdf - np.cumsum(counts[: cdf.size]) / args.games).max())
                expected = dist.pmf * args.games
                big = expected >= 20
                e = np.append(expected[big], expected[~big].sum())
                o = np.append(counts[: cdf.size][big], counts[: cdf.size][~big].sum())
                chi2 = float(((o - e) ** 2 / e).sum())
                emit(
                    benchmark="yatzy_distribution_vs_simulation",
                    variant=variant,
                    games=args.games,
                    seed=args.seed,
                    ks=ks,
                    ks_target=0.002,
                    chi2=chi2,
                    dof=int(e.size - 1),
                    outside_support=int(counts[cdf.size :].sum()),
                    simulated_mean=float(sim.scores.mean()),
                    simulated_bonus_rate=float(sim.bonus.mean()),
                    simulated_yatzy_rate=float(sim.yatzy.mean()),
                    simulate_seconds=sim.seconds,
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
