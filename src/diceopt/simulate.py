"""Seeded Monte Carlo play of any policy on a compiled game."""

from __future__ import annotations

import numba
import numpy as np

from diceopt.engine.compile import CompiledGame
from diceopt.engine.solver import Objective
from diceopt.errors import InputError, SolveError


def simulate(
    game: CompiledGame,
    policy: np.ndarray,
    games: int,
    rng: np.random.Generator,
    *,
    objective: Objective | None = None,
    max_steps: int = 1_000_000,
) -> np.ndarray:
    """Play ``games`` games from the initial state following ``policy``.

    Returns one float64 per game: the rewards collected plus the terminal value (points,
    or the win share in win games), always for the player who moves first. In games
    with hand-over edges the simulator tracks who is to move: a reward or terminal value
    seen by the second player counts ``-x`` (expected) or ``1 - x`` (win) for the first.
    ``objective`` says which (required for such games; default expected otherwise).
    Raises SolveError if a game runs past ``max_steps`` nodes, as a policy that
    never ends would.
    """
    if games < 1:
        raise InputError(f"the number of games must be at least 1, got {games}")
    if objective is None:
        if game.has_flips:
            raise InputError("a game with hand-over edges needs its objective (win or expected)")
        objective = Objective()
    objective.check_game(game)
    totals = np.empty(games, dtype=np.float64)
    cumulative = _cumulative_probabilities(game.start, game.prob, game.kind)
    ok = _play(
        game.kind,
        game.terminal_value,
        game.start,
        game.target,
        game.reward,
        game.flip,
        objective.handover_base,
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
    flip: np.ndarray,
    base: float,
    cumulative: np.ndarray,
    policy: np.ndarray,
    rng: np.random.Generator,
    max_steps: int,
    totals: np.ndarray,
) -> bool:
    for g in range(totals.size):
        s = 0
        total = 0.0
        second = False  # the second player is to move
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
            total += -reward[e] if second else reward[e]
            if flip[e]:
                second = not second
            s = target[e]
        totals[g] = total + (base - terminal_value[s] if second else terminal_value[s])
    return True
