"""Explore a game's reachable graph once into flat numpy arrays (CSR)."""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

import numba
import numpy as np

from diceopt.engine.game import Chance, Decision, Game, Terminal
from diceopt.errors import InputError

TERMINAL, CHANCE, DECISION = 0, 1, 2
PROBABILITY_TOLERANCE = 1e-9


@dataclass
class CompiledGame:
    """A game as arrays. Node 0 is the initial state.

    ``kind[s]`` is TERMINAL, CHANCE or DECISION; the edges of node s are
    ``start[s]:start[s + 1]`` with ``target``, ``reward`` (points on the edge) and
    ``prob`` (chance edges; 0 on decision edges). ``states[s]`` and ``actions[e]`` are
    the Python objects behind the numbers (None where built from arrays).
    """

    kind: np.ndarray
    player: np.ndarray
    terminal_value: np.ndarray
    start: np.ndarray
    target: np.ndarray
    reward: np.ndarray
    prob: np.ndarray
    states: list[Hashable] | None = None
    actions: list[Any] | None = None
    index: dict[Hashable, int] | None = field(default=None, repr=False)
    _order: tuple[np.ndarray, bool] | None = field(default=None, repr=False)

    @property
    def num_states(self) -> int:
        """Number of nodes (terminal, chance and decision) in the reachable graph."""
        return len(self.kind)

    @property
    def num_edges(self) -> int:
        """Number of edges."""
        return len(self.target)

    def state_id(self, state: Hashable) -> int:
        """Node number of a state; InputError if the state is not reachable."""
        if self.index is None:
            raise InputError("this game was built from arrays and has no state names")
        try:
            return self.index[state]
        except KeyError:
            raise InputError(f"state not reachable in this game: {state!r}") from None

    def edges(self, s: int) -> range:
        """Edge numbers of node s."""
        return range(int(self.start[s]), int(self.start[s + 1]))

    def order(self) -> tuple[np.ndarray, bool]:
        """Depth-first postorder from node 0 (successors first) and whether the graph is acyclic."""
        if self._order is None:
            order, acyclic = _postorder(self.start, self.target, self.num_states)
            self._order = (order, bool(acyclic))
        return self._order

    @property
    def acyclic(self) -> bool:
        """True when no state can repeat (detected from the graph, not declared)."""
        return self.order()[1]


def compile_game(game: Game, progress: Callable[[int], None] | None = None) -> CompiledGame:
    """Explore every state reachable from ``game.initial_state()`` into a CompiledGame.

    ``progress`` (optional) is called with the number of states explored so far every
    100,000 states.
    """
    first = game.initial_state()
    index: dict[Hashable, int] = {first: 0}
    states: list[Hashable] = [first]
    kind: list[int] = []
    player: list[int] = []
    terminal_value: list[float] = []
    start: list[int] = [0]
    target: list[int] = []
    reward: list[float] = []
    prob: list[float] = []
    actions: list[Any] = []

    def node_id(state: Hashable) -> int:
        i = index.get(state)
        if i is None:
            i = index[state] = len(states)
            states.append(state)
        return i

    s = 0
    while s < len(states):
        state = states[s]
        node = game.node(state)
        if isinstance(node, Terminal):
            kind.append(TERMINAL)
            player.append(0)
            terminal_value.append(float(node.value))
        elif isinstance(node, Chance):
            if not node.outcomes:
                raise InputError(f"chance node with no outcomes at {state!r}")
            total = 0.0
            for p, r, nxt in node.outcomes:
                if not (p >= 0 and math.isfinite(p)):
                    raise InputError(f"negative or invalid probability {p} at {state!r}")
                total += p
                target.append(node_id(nxt))
                reward.append(float(r))
                prob.append(float(p))
                actions.append(None)
            if abs(total - 1.0) > PROBABILITY_TOLERANCE:
                raise InputError(f"probabilities sum to {total:.12g}, not 1, at {state!r}")
            kind.append(CHANCE)
            player.append(0)
            terminal_value.append(0.0)
        elif isinstance(node, Decision):
            if not node.actions:
                raise InputError(f"decision node with no actions at {state!r}")
            for a, r, nxt in node.actions:
                target.append(node_id(nxt))
                reward.append(float(r))
                prob.append(0.0)
                actions.append(a)
            kind.append(DECISION)
            player.append(int(node.player))
            terminal_value.append(0.0)
        else:
            raise InputError(f"game.node returned {type(node).__name__}, not a node, at {state!r}")
        start.append(len(target))
        s += 1
        if progress is not None and s % 100_000 == 0:
            progress(s)
    return CompiledGame(
        kind=np.array(kind, dtype=np.int8),
        player=np.array(player, dtype=np.int8),
        terminal_value=np.array(terminal_value, dtype=np.float64),
        start=np.array(start, dtype=np.int64),
        target=np.array(target, dtype=np.int64),
        reward=np.array(reward, dtype=np.float64),
        prob=np.array(prob, dtype=np.float64),
        states=states,
        actions=actions,
        index=index,
    )


@numba.njit(cache=True)
def _postorder(start: np.ndarray, target: np.ndarray, n: int) -> tuple[np.ndarray, bool]:
    """Iterative DFS from node 0: postorder of reachable nodes and acyclicity."""
    color = np.zeros(n, dtype=np.int8)  # 0 new, 1 on stack, 2 done
    next_edge = start[:-1].copy()
    stack = np.empty(n, dtype=np.int64)
    order = np.empty(n, dtype=np.int64)
    count = 0
    acyclic = True
    for root in range(n):
        if color[root] != 0:
            continue
        top = 0
        stack[0] = root
        color[root] = 1
        while top >= 0:
            v = stack[top]
            e = next_edge[v]
            if e < start[v + 1]:
                next_edge[v] = e + 1
                w = target[e]
                if color[w] == 0:
                    color[w] = 1
                    top += 1
                    stack[top] = w
                elif color[w] == 1:
                    acyclic = False
            else:
                color[v] = 2
                order[count] = v
                count += 1
                top -= 1
    return order, acyclic
