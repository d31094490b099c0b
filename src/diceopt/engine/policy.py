"""Policies: extraction from values, exact evaluation, action values and regret.

A policy is an int64 array with one entry per node: the edge number taken at a
decision node, -1 elsewhere.

Tie-break (deterministic): at a decision node the policy takes the lowest-numbered
edge whose value is within ``TIE_TOLERANCE * max(1, |best|)`` of the best, so games
list their preferred action (e.g. "stick") first.
"""

from __future__ import annotations

import numba
import numpy as np

from diceopt.engine.compile import CompiledGame
from diceopt.engine.solve import Objective, Solution, solve
from diceopt.errors import InputError

TIE_TOLERANCE = 1e-9


def q_values(solution: Solution, s: int) -> np.ndarray:
    """Value of each edge of decision node s: edge reward plus successor value."""
    g = solution.game
    e = np.arange(g.start[s], g.start[s + 1])
    return g.reward[e] + solution.discount * solution.values[g.target[e]]


def regrets(solution: Solution, s: int) -> np.ndarray:
    """Regret of each edge of decision node s, >= 0, in the objective's units.

    How much the mover gives up by taking that edge instead of the best one.
    """
    q = q_values(solution, s)
    best = solution.values[s]
    return np.maximum(0.0, (q - best) if solution.game.player[s] == 1 else (best - q))


def extract_policy(solution: Solution) -> np.ndarray:
    """The optimal policy of a solution (edge per decision node, tie-break above)."""
    g = solution.game
    return _extract(
        g.kind,
        g.player,
        g.start,
        g.target,
        g.reward,
        solution.values,
        solution.discount,
        TIE_TOLERANCE,
    )


def evaluate_policy(
    game: CompiledGame, policy: np.ndarray, objective: Objective | None = None, **kwargs: float
) -> Solution:
    """Exact value of every node when decision nodes follow ``policy`` (same units as solve)."""
    policy = np.asarray(policy, dtype=np.int64)
    if policy.shape != (game.num_states,):
        raise InputError(f"policy has shape {policy.shape}, expected ({game.num_states},)")
    return solve(game, objective, choice=policy, **kwargs)


@numba.njit(cache=True)
def _extract(
    kind: np.ndarray,
    player: np.ndarray,
    start: np.ndarray,
    target: np.ndarray,
    reward: np.ndarray,
    values: np.ndarray,
    discount: float,
    tol: float,
) -> np.ndarray:
    policy = np.full(kind.size, -1, dtype=np.int64)
    for s in range(kind.size):
        if kind[s] != 2:
            continue
        best = values[s]
        slack = tol * max(1.0, abs(best))
        for e in range(start[s], start[s + 1]):
            q = reward[e] + discount * values[target[e]]
            gap = (q - best) if player[s] == 1 else (best - q)
            if gap <= slack:
                policy[s] = e
                break
        if policy[s] < 0:  # values not converged at this node: take the best edge
            top = start[s]
            for e in range(start[s], start[s + 1]):
                q = reward[e] + discount * values[target[e]]
                qt = reward[top] + discount * values[target[top]]
                if (q < qt) if player[s] == 1 else (q > qt):
                    top = e
            policy[s] = top
    return policy
