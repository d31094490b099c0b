"""Stick or reroll, the classic course dice game (RULES §1), on the generic engine.

``SPEC`` is the game's entry in the registry (``diceopt.games.registry``). Modules:
``rules`` (dice, faces, penalty, the score of sticking), ``game`` (the game on the
engine's protocol), ``solve`` (the solution of every roll, stored and kept once per
process; policies evaluated exactly), ``position`` (positions and actions as text and
JSON), ``course`` (the course's agent interface and its discounted agents), ``spec``
(the game in the registry).
"""

from diceopt.games.stick.spec import StickSpec

SPEC = StickSpec()
