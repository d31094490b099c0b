"""Benchmark: Yatzy at a table of N players (N = 2, 3, 4, 6), one seat playing to win
against the others' sheets, every other seat playing for the expected score, seats
rotated (the advised seat of game g is g mod N; seat 0 plays first); and the calibration
of the chances shown at every turn start (``diceopt yatzy chances``: everyone playing for
the expected score).

Default size per N: enough games for a 95% interval of +-0.5 percentage points on the
advised seat's win rate, sized for a win rate of 1/N + 4 points (N = 2: 39,000; 3:
36,000; 4: 32,000; 6: 25,500 games; about 7 minutes of CPU on 2 cores with the
calibration, measured at 3.7 / 5 / 6.5 / 10 ms of CPU per game). ``--games`` plays that
many at every N instead.

Tables (loaded before the clock starts; built and stored when missing): the
expected-score table, the target rows (or the full target table) and the distributions
of every turn-start state (``games.yatzy.stored.store.state_pmfs_table``).

Prints JSON lines: the inputs, then per N the advised seat's win rate (ties 1/k), its
95% interval and half width, 1/N, games, mean scores, the win rate by the advised seat's
place in the order, seconds, ms per game (wall and CPU) and the calibration (bins of the
shown chance: count, mean predicted chance, observed frequency with its 95% interval
clustered by game; for the advised seat, the others and all); then a summary line with
every N and the calibration pooled over them; last a control table (``--control-games``
at ``--control-players``) where every seat plays for the expected score, the chances' own
model, whose calibration shows what the chances are worth where the model holds.

    .venv/bin/python benchmarks/table_play.py [--players 2,3,4,6] [--games N] [--seed 0]
        [--no-calibration] [--variant scandinavian]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time

import numba
import numpy as np

HALF_WIDTH = 0.005  # the interval asked for: +-0.5 percentage points
EDGE = 0.04  # the win rate the default sizes assume: 1/N + EDGE
Z95 = 1.959963984540054


def emit(**data):
    print(json.dumps(data), flush=True)


def default_games(players: int) -> int:
    """Games for a 95% half width of HALF_WIDTH at a win rate of 1/N + EDGE (rounded up to
    500)."""
    p = min(0.5, 1.0 / players + EDGE)
    n = Z95 * Z95 * p * (1.0 - p) / HALF_WIDTH**2
    return int(math.ceil(n / 500.0) * 500)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", default="2,3,4,6", help="table sizes (default 2,3,4,6)")
    parser.add_argument("--games", type=int, default=None, help="games per table size")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--variant", default="scandinavian")
    parser.add_argument("--no-calibration", action="store_true")
    parser.add_argument(
        "--control-games", type=int, default=4000,
        help="games of a control table where every seat plays for the expected score (the "
        "chances' own model; default 4000, 0: none)",
    )  # fmt: skip
    parser.add_argument("--control-players", type=int, default=4)
    args = parser.parse_args()
    sizes = [int(x) for x in args.players.split(",")]

    from diceopt.games.yatzy import get_solved
    from diceopt.games.yatzy.rulebook.variants import get_rules
    from diceopt.games.yatzy.stored.store import build_pmfs, full_targets, load_pmfs, loaded_pmfs
    from diceopt.games.yatzy.winning.table_play import calibration_json, play_tables

    rules = get_rules(args.variant)
    t0 = time.perf_counter()
    expected = get_solved(rules, 0.0, "float32")
    targets = full_targets(rules)
    if not load_pmfs(rules, "float32"):
        build_pmfs(rules, "float32")
    pmfs = loaded_pmfs(rules, "float32")
    emit(
        benchmark="table_play_inputs",
        variant=args.variant,
        seconds=round(time.perf_counter() - t0, 2),
        target_gb=round(targets.flat[0].nbytes / 1e9, 3),
        distributions_gb=round(pmfs.data.nbytes / 1e9, 3),
        threads=numba.get_num_threads(),
        cpus=os.cpu_count(),
    )
    calibrate = not args.no_calibration
    t0 = time.perf_counter()  # compile (or load from numba's cache) on a few games
    play_tables(expected, targets, pmfs, 2, 16, np.random.default_rng(0), calibrate=calibrate)
    emit(benchmark="table_play_warm_up", seconds=round(time.perf_counter() - t0, 2))

    results = []
    pooled = None
    for n in sizes:
        games = args.games or default_games(n)
        rng = np.random.default_rng([args.seed, n])
        load0 = os.getloadavg()[0]
        c0 = time.process_time()
        res = play_tables(expected, targets, pmfs, n, games, rng, calibrate=calibrate)
        cpu = time.process_time() - c0
        data = res.to_json()
        data |= {
            "benchmark": "table_play",
            "seed": args.seed,
            "ms_per_game": round(1000 * res.seconds / games, 3),
            "cpu_ms_per_game": round(1000 * cpu / games, 3),
            "met_half_width": data["half_width"] <= HALF_WIDTH,
            "load_average": [round(load0, 2), round(os.getloadavg()[0], 2)],
        }
        emit(**data)
        results.append(data)
        pooled = res.stats if pooled is None else pooled + res.stats
    summary = {
        "benchmark": "table_play_summary",
        "variant": args.variant,
        "per_players": {
            str(d["players"]): {
                "win_rate": round(d["win_rate"], 5),
                "ci95": [round(x, 5) for x in d["ci95"]],
                "fair_share": round(d["fair_share"], 5),
                "games": d["games"],
                "seconds": round(d["seconds"], 1),
            }
            for d in results
        },
        "seconds": round(sum(d["seconds"] for d in results), 1),
    }
    if calibrate and pooled is not None:
        summary["calibration_pooled"] = calibration_json(pooled, pooled.shape[1])
    emit(**summary)
    if calibrate and args.control_games > 0:
        n = args.control_players
        rng = np.random.default_rng([args.seed, n, 1])
        res = play_tables(expected, targets, pmfs, n, args.control_games, rng, advised=False)
        data = res.to_json()
        emit(
            benchmark="table_play_control",
            players=n,
            games=args.control_games,
            what="every seat plays for the expected score: the chances' model",
            seat_g_mod_n_win_rate=data["win_rate"],
            seat_g_mod_n_ci95=data["ci95"],
            seconds=round(res.seconds, 1),
            calibration=data["calibration"]["others"],
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
