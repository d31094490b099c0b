"""Zombie Dice, full size: the one-turn optimum and the race to 13 (JSON lines).

Prints, one JSON object a line: the one-turn expected brains (optimal and "stop at two
shotguns", with the brains cap's lower and upper bounds), the race to 13 solved with the
default lead cap and with half of it (the value must not move by more than the smaller
cap's error bound), and a seeded simulation of the solved race (mean within 4 standard
errors of the exact value). Times are wall seconds on a shared machine: noisy.
"""

from __future__ import annotations

import json
import math
import os
import time

import numpy as np

from diceopt.games.zombie import game, turn
from diceopt.games.zombie.dice import transitions
from diceopt.games.zombie.position import LEAD_CAP, ZombieRules
from diceopt.games.zombie.race import solve_race
from diceopt.threads import threads

SIMULATED_GAMES = 2000


def main() -> None:
    t0 = time.perf_counter()
    t = transitions()
    print(
        json.dumps(
            {
                "what": "roll tables",
                "configurations": t.size,
                "outcomes": len(t.next),
                "time": time.perf_counter() - t0,
            }
        ),
        flush=True,
    )
    for policy in ("optimal", "two-shotguns"):
        t0 = time.perf_counter()
        r = turn.expected_brains(policy)
        row = {
            "what": f"one turn, {policy}",
            "value": r.value,
            "upper_bound": r.upper,
            "brains_cap": r.cap,
            "states": t.size * (r.cap + 1),
            "time": time.perf_counter() - t0,
        }
        print(json.dumps(row), flush=True)
    values = {}
    rules = ZombieRules(13, LEAD_CAP)
    for cap in (LEAD_CAP // 2, LEAD_CAP):
        sol = solve_race(13, cap)  # solved here (the stored table's time is another run's)
        values[cap] = sol
        row = {
            "what": f"race to 13, leads counted to {cap}",
            "value": sol.value,
            "tie": sol.tie,
            "cap_error_bound": sol.cap_error,
            "turn_solves": sol.turn_solves,
            "states": 2 * 13 * 13 + cap + 2,
            "time": sol.seconds,
            "threads": threads(),
            "loadavg": os.getloadavg()[0],
        }
        print(json.dumps(row), flush=True)
    small, full = values[LEAD_CAP // 2], values[LEAD_CAP]
    assert abs(small.value - full.value) <= small.cap_error
    t0 = time.perf_counter()
    results = game.simulate_race(rules, SIMULATED_GAMES, np.random.default_rng(2024))
    error = float(results.std(ddof=1) / math.sqrt(len(results)))
    row = {
        "what": "race to 13, simulated",
        "games": SIMULATED_GAMES,
        "mean": float(results.mean()),
        "std_error": error,
        "exact": full.value,
        "within_4_se": bool(abs(results.mean() - full.value) <= 4 * error),
        "time": time.perf_counter() - t0,
    }
    print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
