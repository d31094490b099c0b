"""The generic exact solver: any finite game written to the protocol in ``game.py``."""

from diceopt.engine.compile import CompiledGame, compile_game
from diceopt.engine.game import Chance, Decision, Game, Terminal
from diceopt.engine.policy import evaluate_policy, extract_policy, q_values, regrets
from diceopt.engine.solve import Objective, Solution, solve

__all__ = [
    "Chance",
    "CompiledGame",
    "Decision",
    "Game",
    "Objective",
    "Solution",
    "Terminal",
    "compile_game",
    "evaluate_policy",
    "extract_policy",
    "q_values",
    "regrets",
    "solve",
]
