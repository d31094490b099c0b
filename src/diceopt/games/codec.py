"""What a game gives reinforcement-learning front ends: a fixed action list and an integer
encoding of positions (the ``env_codec`` hook of the contract; numpy only).

A :class:`Codec` turns a game's positions and actions into what reinforcement-learning
code expects: a fixed list of action texts (the Discrete action space; an action's index
is its place in the list, and the texts are exactly what ``spec.advise`` writes), and a
vector of whole numbers per position, entry ``i`` in ``0 .. nvec[i] - 1`` (a
MultiDiscrete space). ``fields`` names the entries. ``points`` reads the points so far
from a position where the game keeps a running score (rewards are then paid as the
points change), None where it does not (the whole result is paid at the end).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from diceopt.errors import InputError

if TYPE_CHECKING:  # numpy is imported where used: the registry imports this module
    import numpy as np


@dataclass(frozen=True)
class Codec:
    """Actions and observation encoding of one game under fixed rules.

    ``actions``: every action text any position can offer, in a fixed order (the
    Discrete action space). ``nvec``: sizes of the observation entries (entry i takes
    values 0 .. nvec[i] - 1). ``fields``: a name per entry. ``encode(pos, viewer)``: the
    entries of a position seen by player ``viewer`` (0 = first player; one-player games
    pass 0). ``points(pos)``: points so far in the game's units, or None when the
    position does not carry them. ``turn_ended(old, new)``: whether a move from ``old``
    to ``new`` ended the player's turn (used by duels; default: never, the whole game is
    one turn).
    """

    actions: tuple[str, ...]
    nvec: tuple[int, ...]
    fields: tuple[str, ...]
    encode: Callable[[Any, int], np.ndarray]
    points: Callable[[Any], float | None] = field(default=lambda pos: None)
    turn_ended: Callable[[Any, Any], bool] = field(default=lambda old, new: False)

    def __post_init__(self) -> None:
        if len(self.nvec) != len(self.fields):
            raise ValueError("a codec needs one field name per observation entry")
        if len(set(self.actions)) != len(self.actions):
            raise ValueError("a codec's actions must be distinct")

    @property
    def index(self) -> dict[str, int]:
        """Action text -> its index in ``actions``."""
        return {a: i for i, a in enumerate(self.actions)}

    def mask(self, legal: list[str]) -> np.ndarray:
        """int8 vector over ``actions``: 1 where the action is in ``legal``."""
        import numpy as np

        out = np.zeros(len(self.actions), dtype=np.int8)
        index = self.index
        for a in legal:
            i = index.get(a)
            if i is None:
                raise InputError(f"action {a!r} is not in the game's fixed action list")
            out[i] = 1
        return out


def observation(values: list[int], nvec: tuple[int, ...]) -> np.ndarray:
    """int64 entries, checked against their bounds (a bug, not bad input, if outside)."""
    import numpy as np

    out = np.asarray(values, dtype=np.int64)
    if out.shape != (len(nvec),) or (out < 0).any() or (out >= np.asarray(nvec)).any():
        raise AssertionError(f"observation {out.tolist()} outside its space {list(nvec)}")
    return out
