"""Helpers for the ``exact_evaluation`` hook of games solved on a compiled graph: a policy
that follows an agent at some decision nodes and the optimal policy elsewhere, evaluated
exactly by the engine."""

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
