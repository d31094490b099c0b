"""Helpers for games solved on a compiled graph: the ``exact_evaluation`` hook (a policy
that follows an agent at some decision nodes and the optimal policy elsewhere, evaluated
exactly by the engine) and the ``independent_values`` hook (every action's value under
the exact evaluation of the optimal policy, not the solve's own values)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from diceopt.errors import InputError

if TYPE_CHECKING:  # numpy is imported where used: the registry imports this module
    import numpy as np


def mixed_policy_value(
    graph: Any,
    objective: Any,
    optimal: np.ndarray,
    agent_edges: Callable[[int], int],
    agent_nodes: np.ndarray,
) -> float:
    """The value at node 0 (the objective's units) when the nodes ``agent_nodes`` take the
    edge ``agent_edges(node)`` and every other decision node its edge in ``optimal``."""
    from diceopt.engine import evaluate_policy

    policy = optimal.copy()
    for s in agent_nodes.tolist():
        policy[s] = agent_edges(s)
    return float(evaluate_policy(graph, policy, objective).values[0])


def edge_of(graph: Any, s: int, wanted: str, text_of: Callable[[Any], str]) -> int:
    """The edge out of node ``s`` whose action reads ``wanted`` (``text_of(action)``);
    InputError if there is none."""
    for e in range(int(graph.start[s]), int(graph.start[s + 1])):
        if text_of(graph.actions[e]) == wanted:
            return e
    raise InputError(f"action {wanted!r} has no edge at node {s}")


# the exact evaluations asked about last: id(graph) -> (graph, policy, evaluation)
_EVALUATED: dict[int, tuple[Any, Any, Any]] = {}
EVALUATIONS_KEPT = 8


def evaluated_policy(graph: Any, objective: Any, policy: np.ndarray) -> Any:
    """The engine's exact evaluation of ``policy`` on ``graph`` (a Solution whose values
    are the policy's own, found with the policy fixed rather than by the Bellman
    optimum), computed once per graph and policy (the last few are kept)."""
    from diceopt.engine import evaluate_policy

    kept = _EVALUATED.get(id(graph))
    if kept is None or kept[0] is not graph or kept[1] is not policy:
        kept = (graph, policy, evaluate_policy(graph, policy, objective))
        _EVALUATED.pop(id(graph), None)
        while len(_EVALUATED) >= EVALUATIONS_KEPT:
            del _EVALUATED[next(iter(_EVALUATED))]
        _EVALUATED[id(graph)] = kept
    return kept[2]


def policy_action_values(graph: Any, objective: Any, policy: np.ndarray, s: int) -> list:
    """Every edge of decision node ``s`` as (action, value): the edge's reward plus the
    successor's value when ``policy`` is followed from there (exact evaluation). With the
    optimal policy these are the optimal action values, by a second path."""
    from diceopt.engine import action_values

    evaluated = evaluated_policy(graph, objective, policy)
    return [(a.action, a.value) for a in action_values(evaluated, s)]
