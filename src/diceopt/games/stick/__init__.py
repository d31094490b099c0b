"""Stick or reroll, the classic course dice game (RULES §1), on the generic engine.

``SPEC`` is the game's entry in the registry (``diceopt.games.registry``). Modules:
``rules`` (dice, faces, penalty, the score of sticking), ``game`` (the game on the
engine's protocol), ``solve`` (the solution of every roll, stored and kept once per
process; policies evaluated exactly), ``position`` (positions and actions as text and
JSON), ``course`` (the course's agent interface and its discounted agents), ``spec``
(the game in the registry).
"""

from __future__ import annotations

import warnings
from typing import Any

from diceopt.games.stick.spec import StickSpec

SPEC = StickSpec()

# names that moved, kept for one release: name -> (their module, where to import them now)
MOVED = {"OptimalAgent": ("diceopt.games.stick.course", "diceopt.OptimalAgent")}


def __getattr__(name: str) -> Any:
    """A moved name, with a DeprecationWarning saying where it lives now."""
    if name not in MOVED:
        raise AttributeError(f"module 'diceopt.games.stick' has no attribute {name!r}")
    module, now = MOVED[name]
    warnings.warn(
        f"diceopt.games.stick.{name} moved: import {now}", DeprecationWarning, stacklevel=2
    )
    import importlib

    return getattr(importlib.import_module(module), name)
