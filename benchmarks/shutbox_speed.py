"""Shut the Box solve times on the generic engine (one JSON object per line).

Targets (issue 4): two players with 9 tiles solved in under 2 s; one player with 12 tiles
in under 5 s. ``compile_seconds`` is exploring the game into arrays (for shut and win it
includes the score-optimal solve that orders the moves), ``solve_seconds`` the Bellman
sweep and policy extraction. Each case runs REPEATS times from scratch; the median is
reported with the fastest and slowest. The peer row (one player, 9 tiles) gives ratios.
"""

from __future__ import annotations

import json
import os
import statistics
import time

from diceopt.games.shutbox import solve as shut_solve
from diceopt.games.shutbox.duel import differing_positions, duel_report
from diceopt.games.shutbox.rules import ShutRules
from diceopt.games.shutbox.solve import solve_shutbox

REPEATS = 3
CASES = [
    ("one player, 9 tiles, score (peer)", ShutRules(9), None),
    ("two players, 9 tiles, win", ShutRules(9, objective="win"), 2.0),
    ("one player, 12 tiles, score", ShutRules(12), 5.0),
    ("one player, 12 tiles, shut", ShutRules(12, objective="shut"), 5.0),
    ("two players, 9 tiles, win, optional-one", ShutRules(9, "optional-one", "win"), 2.0),
]


def run(rules: ShutRules) -> tuple[float, float, float, int, float]:
    shut_solve._SOLVED.clear()
    t0 = time.perf_counter()
    sol = solve_shutbox(rules)
    total = time.perf_counter() - t0
    return total, sol.compile_seconds, sol.solve_seconds, sol.graph.num_states, sol.value


def main() -> None:
    solve_shutbox(ShutRules(3, objective="win"))  # warm-up: numba kernels loaded and compiled
    peer = None
    for name, rules, limit in CASES:
        runs = [run(rules) for _ in range(REPEATS)]
        totals = [r[0] for r in runs]
        median = statistics.median(totals)
        best = min(runs)
        peer = peer or median
        row = {
            "benchmark": "shutbox",
            "case": name,
            "tiles": rules.tiles,
            "dice_rule": rules.dice_rule,
            "objective": rules.objective,
            "seconds_median": median,
            "seconds_min": min(totals),
            "seconds_max": max(totals),
            "compile_seconds": best[1],
            "solve_seconds": best[2],
            "states": best[3],
            "value": best[4],
            "ratio_to_peer": median / peer,
            "limit_seconds": limit,
            "within_limit": None if limit is None else max(totals) < limit,
            "cpus": os.cpu_count(),
        }
        print(json.dumps(row), flush=True)
    shut_solve._SOLVED.clear()
    t0 = time.perf_counter()
    duel_report(ShutRules(9))
    rows = differing_positions(ShutRules(9))
    print(
        json.dumps(
            {
                "benchmark": "shutbox",
                "case": "two-player comparison and differing positions, 9 tiles (from scratch)",
                "seconds": time.perf_counter() - t0,
                "differing_positions": len(rows),
            }
        ),
        flush=True,
    )


if __name__ == "__main__":
    main()
