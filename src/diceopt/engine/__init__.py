"""The generic exact solver: any finite game written to the protocol in ``game.py``.

Names are imported on first use (PEP 562). The numba kernels are in ``kernels.py``,
imported by the functions that run them, so that the protocol, compiled graphs,
objectives and solutions (e.g. advice from stored values) load without numba.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_WHERE = {
    "CompiledGame": "compile",
    "compile_arrays": "compile",
    "compile_game": "compile",
    "Chance": "game",
    "Decision": "game",
    "Game": "game",
    "Handover": "game",
    "Terminal": "game",
    "Step": "play",
    "advance": "play",
    "sample_edge": "play",
    "ActionValue": "policy",
    "action_values": "policy",
    "evaluate_policy": "policy",
    "extract_policy": "policy",
    "minimises": "policy",
    "q_values": "policy",
    "regrets": "policy",
    "Objective": "solver",
    "Solution": "solver",
    "solve": "solver",
}

__all__ = [
    "ActionValue",
    "Chance",
    "CompiledGame",
    "Decision",
    "Game",
    "Handover",
    "Objective",
    "Solution",
    "Step",
    "Terminal",
    "action_values",
    "advance",
    "compile_arrays",
    "compile_game",
    "evaluate_policy",
    "extract_policy",
    "minimises",
    "q_values",
    "regrets",
    "sample_edge",
    "solve",
]

if TYPE_CHECKING:
    from diceopt.engine.compile import CompiledGame, compile_arrays, compile_game
    from diceopt.engine.game import Chance, Decision, Game, Handover, Terminal
    from diceopt.engine.play import Step, advance, sample_edge
    from diceopt.engine.policy import (
        ActionValue,
        action_values,
        evaluate_policy,
        extract_policy,
        minimises,
        q_values,
        regrets,
    )
    from diceopt.engine.solver import Objective, Solution, solve


def __getattr__(name: str) -> Any:
    """Load an engine name from its module on first use."""
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'diceopt.engine' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"diceopt.engine.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_WHERE))
