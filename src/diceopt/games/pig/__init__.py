"""Pig (RULES §5): two players race to a goal, each maximising the probability of winning.

Modules: ``rules`` (goal, die, and the same game in the push-your-luck family),
``position`` (positions and actions), ``solution`` (solved by the family's race solver),
``play`` (one action, whole games), ``graph`` (the engine graph: the second path, and the
exact evaluation of any policy), ``spec`` (the game in the registry).
"""

from diceopt.games.pig.spec import SPEC

__all__ = ["SPEC"]
