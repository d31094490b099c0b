"""Stick or reroll: solve and simulate times, with a course-style peer in the same run.

The peer is how earlier course solutions worked: discounted value iteration (discount
0.96, threshold 0.1) over every index action through ``DiceGame.get_next_states``, then
10,000 games played through ``DiceGame.roll``. Prints one JSON object per line.
Targets: 3d6 solved + 10,000 games < 0.05 s; 6d6 < 0.5 s; 10d10 < 60 s; the whole
``diceopt stick simulate --games 10000 --json`` process < 2 s with a warm numba cache.
"""

import json
import math
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from course_dicegame import DiceGame  # noqa: E402
from diceopt.games.stick.rules import StickRules  # noqa: E402
from diceopt.games.stick.solve import play_games, solve_stick  # noqa: E402


def best_of(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def peer_course_agent(games: int) -> float:
    """Discounted value iteration over index actions, then play through roll()."""
    game = DiceGame(seed=0)
    values = {s: 0.0 for s in game.states}
    values[None] = 0.0
    while True:
        delta = 0.0
        new = {}
        for s in game.states:
            best = -math.inf
            for a in game.actions:
                states, _, reward, probs = game.get_next_states(a, s)
                best = max(
                    best, sum(p * (reward + 0.96 * values[t]) for t, p in zip(states, probs))
                )
            new[s] = best
            delta = max(delta, abs(best - values[s]))
        values.update(new)
        if delta < 0.1:
            break
    policy = {}
    for s in game.states:
        q = []
        for a in game.actions:
            states, _, reward, probs = game.get_next_states(a, s)
            q.append(sum(p * (reward + 0.96 * values[t]) for t, p in zip(states, probs)))
        policy[s] = game.actions[int(np.argmax(q))]
    for _ in range(games):
        state = game.reset()
        over = False
        while not over:
            _, state, over = game.roll(policy[state])
    return 0.0


def solve_and_simulate(rules: StickRules, games: int) -> None:
    sol = solve_stick(rules)
    play_games(sol, games, np.random.default_rng(0))


def main() -> None:
    t0 = time.perf_counter()
    solve_and_simulate(StickRules(dice=2, sides=3), 10)
    compile_seconds = time.perf_counter() - t0

    ours = best_of(lambda: solve_and_simulate(StickRules(), 10_000), 5)
    t0 = time.perf_counter()
    peer_course_agent(10_000)
    peer = time.perf_counter() - t0
    print(
        json.dumps(
            {
                "benchmark": "stick_3d6_solve_and_10000_games",
                "seconds": ours,
                "target_seconds": 0.05,
                "peer": "course-style discounted value iteration + 10000 games via roll()",
                "peer_seconds": peer,
                "speedup": peer / ours,
                "numba_compile_seconds": compile_seconds,
            }
        )
    )
    for dice, sides, target, repeats in [(6, 6, 0.5, 3), (10, 10, 60.0, 1)]:
        rules = StickRules(dice=dice, sides=sides)
        t0 = time.perf_counter()
        sol = solve_stick(rules)
        seconds = time.perf_counter() - t0
        if repeats > 1:
            seconds = min(seconds, best_of(lambda r=rules: solve_stick(r), repeats))
        print(
            json.dumps(
                {
                    "benchmark": f"stick_{dice}d{sides}_solve",
                    "rolls": len(rules.lattice.full()),
                    "graph_nodes": sol.graph.num_states,
                    "value": sol.value,
                    "seconds": seconds,
                    "graph_build_seconds": sol.compile_seconds,
                    "target_seconds": target,
                }
            )
        )
    cmd = [sys.executable, "-m", "diceopt", "stick", "simulate", "--games", "10000", "--json"]
    subprocess.run(cmd, check=True, capture_output=True)  # warm the numba cache
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True)
    print(
        json.dumps(
            {
                "benchmark": "cli_stick_simulate_10000_process",
                "seconds": time.perf_counter() - t0,
                "target_seconds": 2.0,
            }
        )
    )


if __name__ == "__main__":
    main()
