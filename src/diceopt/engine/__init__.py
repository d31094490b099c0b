"""The generic exact solver: any finite game written to the protocol in ``game.py``."""

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
from diceopt.engine.solve import Objective, Solution, solve

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
