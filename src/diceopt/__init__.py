"""diceopt: exact optimal play for dice games, solved with the Bellman equation."""

__version__ = "0.1.0"

from diceopt.evaluate import evaluate  # noqa: E402  (diceopt.evaluate(agent, game, ...))

__all__ = ["__version__", "evaluate"]
