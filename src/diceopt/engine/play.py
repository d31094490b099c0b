"""Walking a compiled game: the one copy of a game's dynamics that playing uses too.

``advance`` takes a decision edge (or starts at a chance node), then rolls through
chance nodes with a numpy Generator until the next decision or terminal node (or, on
request, the first hand-over to the other player), recording
the label of every chance outcome (e.g. the die rolled). Games implement their
``apply`` with it, so playing, simulating and solving walk the same graph.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

from diceopt.engine.compile import CHANCE, DECISION, CompiledGame
from diceopt.errors import InputError, SolveError
from diceopt.lazy import numpy as np


@dataclass(frozen=True)
class Step:
    """Where a walk stopped and what happened on the way.

    ``node``: the decision or terminal node reached. ``labels``: the labels of the chance
    outcomes drawn, in order (None for an unlabelled outcome). ``edges``: every edge
    taken. ``reward``: rewards collected, from the point of view of the player who
    started the walk (a reward after a hand-over counts negatively). ``flips``: the
    number of hand-over edges passed (odd: the other player moves at ``node``).
    """

    node: int
    labels: tuple[Hashable | None, ...]
    edges: tuple[int, ...]
    reward: float
    flips: int

    @property
    def handed_over(self) -> bool:
        """True when the other player is to move at ``node``."""
        return self.flips % 2 == 1


def sample_edge(game: CompiledGame, node: int, rng: np.random.Generator) -> int:
    """One outcome edge of chance node ``node``, drawn with its probability."""
    lo, hi = int(game.start[node]), int(game.start[node + 1])
    cumulative = np.cumsum(game.prob[lo:hi])
    i = int(np.searchsorted(cumulative, rng.random() * cumulative[-1], side="right"))
    return lo + min(i, hi - lo - 1)


def advance(
    game: CompiledGame,
    node: int,
    edge: int | None,
    rng: np.random.Generator,
    *,
    stop_on_handover: bool = False,
    max_steps: int = 1_000_000,
) -> Step:
    """Take decision ``edge`` of ``node`` (None: ``node`` is a chance node to roll from),
    then draw chance outcomes with ``rng`` until a decision or terminal node.

    ``stop_on_handover``: also stop right after a hand-over edge, even at a chance node
    (in a two-player game the next player's first roll is then theirs to make).

    InputError if ``edge`` is not an edge of decision node ``node``; SolveError if no
    decision or terminal node comes within ``max_steps`` chance outcomes.
    """
    kind = int(game.kind[node])
    labels: list[Hashable | None] = []
    edges: list[int] = []
    total, flips = 0.0, 0
    if edge is None:
        if kind != CHANCE:
            raise InputError(f"node {node} is not a chance node: name the edge to take")
    else:
        if kind != DECISION or not game.start[node] <= edge < game.start[node + 1]:
            raise InputError(f"edge {edge} is not an action of decision node {node}")
        edges.append(edge)
        total += float(game.reward[edge])
        flips += int(game.flip[edge])
        node = int(game.target[edge])
    for _ in range(max_steps):
        if game.kind[node] != CHANCE or (stop_on_handover and flips):
            return Step(node, tuple(labels), tuple(edges), total, flips)
        e = sample_edge(game, node, rng)
        edges.append(e)
        labels.append(game.label(e))
        total += float(game.reward[e]) * (-1.0 if flips % 2 else 1.0)
        flips += int(game.flip[e])
        node = int(game.target[e])
    raise SolveError(f"no decision reached within {max_steps} chance outcomes")
