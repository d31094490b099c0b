"""Policies: extraction from values, exact evaluation, action values and regret.

A policy is an int64 array with one entry per node: the edge number taken at a
decision node, -1 elsewhere.

Tie-break (deterministic): at a decision node the policy takes the lowest-numbered
edge whose value is within ``TIE_TOLERANCE * max(1, |best|)`` of the best, so games
list their preferred action (e.g. "stick") first. "Best" is the objective's better
direction: the largest value, or the smallest where the node minimises (``minimize``
objectives, player 1 in absolute-value two-player games).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Unpack

from diceopt.engine.compile import CompiledGame
from diceopt.engine.solver import Objective, Solution, SolveOptions, bellman_problem, solve
from diceopt.errors import InputError
from diceopt.lazy import numpy as np

TIE_TOLERANCE = 1e-9


@dataclass(frozen=True)
class ActionValue:
    """One edge of a decision node: its action, value (objective units) and regret (>= 0)."""

    edge: int
    action: Any
    value: float
    regret: float


def minimises(solution: Solution, s: int) -> bool:
    """True when decision node s prefers lower values (see the module docstring)."""
    return bool((solution.game.player[s] == 1) != solution.objective.minimize)


def q_values(solution: Solution, s: int) -> np.ndarray:
    """Value of each edge of decision node s, from the mover's point of view.

    Edge reward plus discounted successor value (``base - value`` across a hand-over).
    """
    g = solution.game
    e = np.arange(g.start[s], g.start[s + 1])
    w = solution.values[g.target[e]]
    w = np.where(g.flip[e], solution.objective.handover_base - w, w)
    return g.reward[e] + solution.discount * w


def regrets(solution: Solution, s: int) -> np.ndarray:
    """Regret of each edge of decision node s, >= 0, in the objective's units.

    How much the mover gives up by taking that edge instead of the best one, measured
    in the objective's better direction.
    """
    q = q_values(solution, s)
    best = solution.values[s]
    return np.maximum(0.0, (q - best) if minimises(solution, s) else (best - q))


def action_values(solution: Solution, s: int) -> list[ActionValue]:
    """Every edge of decision node s with its action, value and regret, in edge order."""
    g = solution.game
    lo = int(g.start[s])
    q, r = q_values(solution, s), regrets(solution, s)
    return [
        ActionValue(
            lo + i, g.actions[lo + i] if g.actions is not None else None, float(v), float(x)
        )
        for i, (v, x) in enumerate(zip(q, r))
    ]


def extract_policy(solution: Solution) -> np.ndarray:
    """The optimal policy of a solution (edge per decision node, tie-break above)."""
    from diceopt.engine.kernels import extract_policy_edges

    problem = bellman_problem(solution.game, solution.objective, solution.discount, solution.values)
    return extract_policy_edges(problem, TIE_TOLERANCE)


def evaluate_policy(
    game: CompiledGame,
    policy: np.ndarray,
    objective: Objective | None = None,
    **kwargs: Unpack[SolveOptions],
) -> Solution:
    """Exact value of every node when decision nodes follow ``policy`` (same units as solve)."""
    policy = np.asarray(policy, dtype=np.int64)
    if policy.shape != (game.num_states,):
        raise InputError(f"policy has shape {policy.shape}, expected ({game.num_states},)")
    return solve(game, objective, choice=policy, **kwargs)
