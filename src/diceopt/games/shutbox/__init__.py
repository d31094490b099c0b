"""Shut the Box (RULES §4): one player (lowest score or best chance to shut) and two
players (most wins), on the generic engine.

Modules: ``rules`` (the box, dice rules, objectives, variants), ``game`` (the engine
protocol and its states), ``solve`` (exact solutions, stored), ``position`` (positions
and notation), ``play`` (advice and play), ``duel`` (win- versus score-optimal play),
``spec`` (the registry entry and ``shutbox diff``).
"""

from diceopt.games.shutbox.spec import ShutSpec

SPEC = ShutSpec()
