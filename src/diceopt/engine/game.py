"""The game protocol: every state of a game is a terminal, a chance or a decision node.

A game object provides ``initial_state()`` and ``node(state)``; states are any hashable
Python values. Rewards sit on edges (e.g. "pay 1 to reroll", "score 13 in Chance").
For two-player win-probability games, values are player 0's probability of winning
(a draw counts 1/2) and the node's ``player`` says who moves: player 0 maximises,
player 1 minimises (that is, maximises its own win probability).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True, slots=True)
class Terminal:
    """The game is over; ``value`` is added to the total (points, or player 0's win share)."""

    value: float = 0.0


@dataclass(frozen=True, slots=True)
class Chance:
    """Nature moves: ``outcomes`` are (probability, reward, next_state) triples."""

    outcomes: Sequence[tuple[float, float, Hashable]]


@dataclass(frozen=True, slots=True)
class Decision:
    """A player moves: ``actions`` are (action, reward, next_state) triples."""

    actions: Sequence[tuple[Any, float, Hashable]]
    player: int = 0


Node = Terminal | Chance | Decision


class Game(Protocol):
    """What the engine needs from a game."""

    def initial_state(self) -> Hashable:
        """The state the game starts in."""
        ...

    def node(self, state: Hashable) -> Node:
        """The node at ``state``."""
        ...
