"""Generic engine on a random cyclic game of 1,000,000 nodes with about 6 edges each.

Half the nodes are decisions (6 actions, each costing 0..1 points, one of them "stop"
at a cost of 0..20 points), half are chance nodes (6 outcomes, one of which ends the
game with probability 0.1). Every policy that stops ends the game; value iteration
runs to a relative residual of 1e-9 (target: under 30 s on 2 cores).
Prints one JSON object per line.
"""

import json
import time

import numpy as np

from diceopt.engine.compile import CHANCE, DECISION, TERMINAL, CompiledGame
from diceopt.engine.solver import solve


def random_game(nodes: int, seed: int = 0) -> CompiledGame:
    rng = np.random.default_rng(seed)
    width = 6
    terminal = nodes - 1
    kind = np.where(np.arange(nodes) % 2 == 0, DECISION, CHANCE).astype(np.int8)
    kind[terminal] = TERMINAL
    start = np.concatenate([np.arange(nodes) * width, [terminal * width]]).astype(np.int64)
    start[terminal + 1 :] = terminal * width
    edges = terminal * width
    target = rng.integers(0, terminal, size=edges)
    reward = -rng.random(edges)
    prob = np.zeros(edges)
    dec = np.flatnonzero(kind[:terminal] == DECISION)
    cha = np.flatnonzero(kind[:terminal] == CHANCE)
    stop = dec * width
    target[stop] = terminal
    reward[stop] = -20 * rng.random(len(dec))
    for j in range(width):
        prob[cha * width + j] = 0.9 / (width - 1)
    target[cha * width] = terminal
    prob[cha * width] = 0.1
    reward[np.repeat(cha * width, width) + np.tile(np.arange(width), len(cha))] = 0.0
    return CompiledGame(
        kind=kind,
        player=np.zeros(nodes, dtype=np.int8),
        terminal_value=np.zeros(nodes),
        start=start,
        target=target.astype(np.int64),
        reward=reward,
        prob=prob,
    )


def main() -> None:
    warm = random_game(1000)
    t0 = time.perf_counter()
    solve(warm, tolerance=1e-9)
    compile_seconds = time.perf_counter() - t0
    game = random_game(1_000_000)
    t0 = time.perf_counter()
    order_acyclic = game.order()
    order_seconds = time.perf_counter() - t0
    t0 = time.perf_counter()
    sol = solve(game, tolerance=1e-9)
    seconds = time.perf_counter() - t0
    print(
        json.dumps(
            {
                "benchmark": "engine_cyclic_1m",
                "states": game.num_states,
                "edges": game.num_edges,
                "acyclic": order_acyclic[1],
                "sweeps": sol.sweeps,
                "residual": sol.residual,
                "value": sol.value,
                "order_seconds": order_seconds,
                "seconds": seconds,
                "numba_compile_seconds": compile_seconds,
                "target_seconds": 30.0,
            }
        )
    )


if __name__ == "__main__":
    main()
