"""Pig on the generic engine: graph build, solve and whole-process advice (JSON lines).

Target: goal 100 from nothing (graph build + solve, numba kernels already compiled and
cached) in at most 4 s on 2 cores; ``diceopt pig advise`` as a whole process under 1 s
once the solution is stored. The graph is written from the mover's point of view
(G³ + 1 nodes) and built by a numba kernel; the solve goes component by component.
The same graph is then re-solved with looser tolerances to show that the printed 9
decimals do not depend on the stopping rule. Peer: goal 50.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

from diceopt.engine import Objective, solve
from diceopt.games.pig import PigRules, solve_pig

TARGET_SECONDS = 4.0
ADVISE_TARGET_SECONDS = 1.0
POSITION = "me 41 | opponent 49 | turn 22"


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
    peer = None
    for goal in (50, 100):
        t0 = time.perf_counter()
        sol = solve_pig(PigRules(goal))
        total = time.perf_counter() - t0
        peer = peer or total
        nodes = sol.graph.num_states
        row = {
            "benchmark": "pig",
            "goal": goal,
            "sides": 6,
            "value": sol.value,
            "value_9": f"{sol.value:.9f}",
            "seconds": total,
            "build_seconds": sol.compile_seconds,
            "build_nodes_per_second": nodes / sol.compile_seconds,
            "solve_seconds": sol.solve_seconds,
            "states": nodes,
            "edges": sol.graph.num_edges,
            "sweeps": sol.sweeps,
            "residual": sol.residual,
            "ratio_to_goal_50": total / peer,
            "limit_seconds": TARGET_SECONDS if goal == 100 else None,
            "within_limit": total <= TARGET_SECONDS if goal == 100 else None,
            "cpus": os.cpu_count(),
        }
        print(json.dumps(row), flush=True)
        if goal == 100:
            for tolerance in (1e-12, 1e-9):
                t1 = time.perf_counter()
                other = solve(sol.graph, Objective("win"), tolerance=tolerance)
                print(
                    json.dumps(
                        {
                            "benchmark": "pig",
                            "goal": goal,
                            "check": f"re-solve with tolerance {tolerance:g}",
                            "value": other.value,
                            "value_9": f"{other.value:.9f}",
                            "difference": abs(other.value - sol.value),
                            "same_9_decimals": f"{other.value:.9f}" == f"{sol.value:.9f}",
                            "sweeps": other.sweeps,
                            "solve_seconds": time.perf_counter() - t1,
                        }
                    ),
                    flush=True,
                )
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
