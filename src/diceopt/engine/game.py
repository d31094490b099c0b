"""The game protocol: every state of a game is a terminal, a chance or a decision node.

A game object provides ``initial_state()`` and ``node(state)``; states are any hashable
Python values. Rewards sit on edges (e.g. "pay 1 to reroll", "score 13 in Chance").

Chance outcomes are ``(probability, reward, next_state)`` or ``(probability, reward,
next_state, label)``; the label (any hashable, e.g. the die rolled ``4`` or the dice
``(3, 5)``) names what happened, for play loops and logs. Decision actions are
``(action, reward, next_state)``.

Whether decisions maximise or minimise is the objective's business
(``Objective("expected", minimize=True)`` for "lower is better" games).

Two-player zero-sum games can be written in two ways:

- absolute values: values are player 0's (win probability, or points); a decision
  node's ``player`` says who moves, and player 1 minimises player 0's value;
- the mover's point of view (usually half the states): every value belongs to the
  player to move at that node, and an edge whose next state is wrapped in
  ``Handover(next_state)`` passes the turn; that successor then counts ``1 - v`` under
  the ``win`` objective (a draw is 1/2) and ``-v`` under ``expected`` (a zero-sum
  point difference). Terminal values are the share of the player to move there.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar


@dataclass(frozen=True, slots=True)
class Terminal:
    """The game is over; ``value`` is added to the total (points, or a win share)."""

    value: float = 0.0


@dataclass(frozen=True, slots=True)
class Handover:
    """A next state at which the other player moves (mover's-point-of-view games)."""

    state: Hashable


@dataclass(frozen=True, slots=True)
class Chance:
    """Nature moves: (probability, reward, next_state[, label]) outcomes."""

    outcomes: Sequence[tuple[Any, ...]]


@dataclass(frozen=True, slots=True)
class Decision:
    """A player moves: ``actions`` are (action, reward, next_state) triples.

    ``player`` (0 or 1) matters only in games written with absolute values, where
    player 1 minimises player 0's value.
    """

    actions: Sequence[tuple[Any, float, Hashable]]
    player: int = 0


Node = Terminal | Chance | Decision
S = TypeVar("S", bound=Hashable)  # a game's type of states (``Game[S]``, ``CompiledGame[S]``)


class Game(Protocol[S]):
    """What the engine needs from a game (``S``: its type of states)."""

    def initial_state(self) -> S:
        """The state the game starts in."""
        ...

    def node(self, state: S) -> Node:
        """The node at ``state``."""
        ...
