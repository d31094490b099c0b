"""Seeded Monte Carlo play of any policy on a compiled game."""

from __future__ import annotations

import numba
import numpy as np

from diceopt.engine.compile import CompiledGame
from diceopt.errors import InputError, SolveError


def simulate(
    game: CompiledGame,
    policy: np.ndarray,
    games: int,
    rng: np.random.Generator,
    *,
    max_steps: int = 1_000_000,
) -> np.ndarray:
    """Play ``games`` games from the initial state following ``policy``.

    Returns one float64 per game: the rewards collected plus the terminal value (points,
    or player 0's win share in win games). Raises SolveError if a game runs past
    ``max_steps`` nodes, as a policy that never ends would.
    """
    if games < 1:
        raise InputError(f"the number of games must be at least 1, got {games}")
    totals = np.empty(games, dtype=np.float64)
    cumulative = _cumulative_probabilities(game.start, game.prob, game.kind)
    ok = _play(
        game.kind,
        game.terminal_value,
        game.start,
        game.target,
        game.reward,
        cumulative,
        np.asarray(policy, dtype=np.int64),
        rng,
        max_steps,
        totals,
    )
    if not ok:
        raise SolveError(f"a simulated game did not end within {max_steps} steps")
    return totals


@numba.njit(cache=True)
def _cumulative_probabilities(start: np.ndarray, prob: np.ndarray, kind: np.ndarray) -> np.ndarray:
    cumulative = np.zeros(prob.size, dtype=np.float64)
    for s in range(kind.size):
        if kind[s] == 1:
            acc = 0.0
            for e in range(start[s], start[s + 1]):
                acc += prob[e]
                cumulative[e] = acc
    return cumulative


@numba.njit(cache=True)
def _play(
    kind: np.ndarray,
    terminal_value: np.ndarray,
    start: np.ndarray,
    target: np.ndarray,
    reward: np.ndarray,
    cumulative: np.ndarray,
    policy: np.ndarray,
    rng: np.random.Generator,
    max_steps: int,
    totals: np.ndarray,
) -> bool:
    for g in range(totals.size):
        s = 0
        total = 0.0
        steps = 0
        while kind[s] != 0:
            steps += 1
            if steps > max_steps:
                return False
            if kind[s] == 1:
                lo, hi = start[s], start[s + 1]
                u = rng.random() * cumulative[hi - 1]
                e = lo
                while e < hi - 1 and cumulative[e] <= u:
                    e += 1
            else:
                e = policy[s]
            total += reward[e]
            s = target[e]
        totals[g] = total + terminal_value[s]
    return True
