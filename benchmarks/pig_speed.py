"""Pig: the family path (the race solver on ``rules/pig.toml``) against the engine path
(the engine graph, G³ + 1 nodes built in numba and solved by value iteration), side by
side, and whole-process advice from the stored table.

Both paths solve from nothing (numba kernels already compiled and cached) at goals 50
and 100; each row gives both times and the ratio engine / family. Times are CPU seconds
of this process (``time.process_time``, all threads: the race solver runs pairs of
scores in parallel) beside wall seconds; the machine may be shared, so wall times are
noisy and the CPU ratio is the figure to compare. The values of the two paths agree (the
largest difference over the turn starts is printed). The family's solve is repeated at a
looser fixed-point tolerance to show that the printed 9 decimals do not depend on it.
Target: ``diceopt pig advise`` as a whole process under 1 s once the table is stored.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

from diceopt.games.pig.graph import chance_node, solve_engine
from diceopt.games.pig.rules import PigRules
from diceopt.games.pig.solution import solve_pig
from diceopt.lazy import numpy as np

ADVISE_TARGET_SECONDS = 1.0
POSITION = "me 41 | opponent 49 | turn 22"


def timed(run: Callable[[], Any]) -> tuple[Any, float, float]:
    """(result, wall seconds, CPU seconds of this process) of ``run()``."""
    wall, cpu = time.perf_counter(), time.process_time()
    out = run()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def advise_process_seconds(cache: str, runs: int = 3) -> list[float]:
    """Wall seconds of ``diceopt pig advise`` as a whole process (solution stored first)."""
    env = dict(os.environ, DICEOPT_CACHE=cache)
    cmd = [sys.executable, "-m", "diceopt", "pig", "advise", POSITION]
    subprocess.run(cmd, env=env, check=True, capture_output=True)  # stores the solution
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(cmd, env=env, check=True, capture_output=True)
        times.append(time.perf_counter() - t0)
    return times


def main() -> None:
    solve_pig(PigRules(10))  # warm-up: numba kernels loaded (compiled once, then cached)
    solve_engine(PigRules(10))
    for goal in (50, 100):
        rules = PigRules(goal)
        family, family_wall, family_cpu = timed(lambda: solve_pig(rules))  # noqa: B023
        engine, engine_wall, engine_cpu = timed(lambda: solve_engine(rules))  # noqa: B023
        starts = engine.values[
            [chance_node(goal, i, j, 0) for i in range(goal) for j in range(goal)]
        ]
        row = {
            "benchmark": "pig: family (race solver) vs engine graph",
            "goal": goal,
            "sides": 6,
            "value_family": family.value,
            "value_engine": engine.value,
            "value_9": f"{family.value:.9f}",
            "max_difference_turn_starts": float(np.abs(starts - family.race.w.ravel()).max()),
            "family_cpu_seconds": family_cpu,
            "engine_cpu_seconds": engine_cpu,
            "cpu_ratio_engine_to_family": engine_cpu / family_cpu,
            "family_wall_seconds": family_wall,
            "engine_wall_seconds": engine_wall,
            "family_states": family.states,
            "engine_nodes": engine.game.num_states,
            "engine_sweeps": engine.sweeps,
            "family_residual": family.stats["residual"],
            "cpus": os.cpu_count(),
        }
        print(json.dumps(row), flush=True)
        if goal == 100:
            loose, _, loose_cpu = timed(lambda: solve_pig(rules, tolerance=1e-10))  # noqa: B023
            check = {
                "benchmark": "pig",
                "goal": goal,
                "check": "family re-solved with tolerance 1e-10",
                "value": loose.value,
                "difference": abs(loose.value - family.value),
                "same_9_decimals": f"{loose.value:.9f}" == f"{family.value:.9f}",
                "cpu_seconds": loose_cpu,
            }
            print(json.dumps(check), flush=True)
    with tempfile.TemporaryDirectory() as cache:
        times = advise_process_seconds(cache)
    print(
        json.dumps(
            {
                "benchmark": "pig advise (whole process, stored solution)",
                "goal": 100,
                "position": POSITION,
                "seconds": min(times),
                "runs": times,
                "limit_seconds": ADVISE_TARGET_SECONDS,
                "within_limit": max(times) < ADVISE_TARGET_SECONDS,
            }
        ),
        flush=True,
    )


if __name__ == "__main__":
    main()
