"""Explore a game's reachable graph once into flat numpy arrays (CSR)."""

from __future__ import annotations

import gc
import math
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic

from diceopt.engine.game import Chance, Decision, Game, Handover, S, Terminal
from diceopt.errors import InputError
from diceopt.lazy import numpy as np

TERMINAL, CHANCE, DECISION = 0, 1, 2
PROBABILITY_TOLERANCE = 1e-9


@dataclass
class CompiledGame(Generic[S]):
    """A game as arrays (``S``: the type of its states). Node 0 is the initial state.

    ``kind[s]`` is TERMINAL, CHANCE or DECISION; the edges of node s are
    ``start[s]:start[s + 1]`` with ``target``, ``reward`` (points on the edge), ``prob``
    (chance edges; 0 on decision edges) and ``flip`` (True where the turn passes: a
    ``Handover`` edge). ``label_code[e]`` numbers the label of chance edge e in
    ``label_table`` (-1: no label); ``labels`` is the same as a list aligned with the
    edges. ``states[s]`` and ``actions[e]`` are the Python objects behind the numbers
    (None where built from arrays).
    """

    kind: np.ndarray
    player: np.ndarray
    terminal_value: np.ndarray
    start: np.ndarray
    target: np.ndarray
    reward: np.ndarray
    prob: np.ndarray
    states: list[S] | None = None
    actions: list[Any] | None = None
    index: dict[S, int] | None = field(default=None, repr=False)
    # Omitted (None): no edge flips, no edge has a label; __post_init__ fills in the arrays.
    flip: np.ndarray = field(default=None, repr=False)  # type: ignore[arg-type]
    label_code: np.ndarray = field(default=None, repr=False)  # type: ignore[arg-type]
    label_table: list[Hashable] = field(default_factory=list, repr=False)
    _order: tuple[np.ndarray, bool] | None = field(default=None, repr=False)
    _components: tuple[np.ndarray, np.ndarray, np.ndarray] | None = field(default=None, repr=False)
    _labels: list[Hashable | None] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.flip is None:
            self.flip = np.zeros(len(self.target), dtype=np.bool_)
        if self.label_code is None:
            self.label_code = np.full(len(self.target), -1, dtype=np.int32)

    ARRAYS = ("kind", "player", "terminal_value", "start", "target", "reward", "prob", "flip")

    def to_table(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """The game as arrays plus JSON-ready names (states, actions, labels), for storage.

        Names must be JSON-ready: numbers, strings and tuples of them (tuples come back as
        tuples from ``from_table``).
        """
        arrays = {name: getattr(self, name) for name in self.ARRAYS}
        arrays["label_code"] = self.label_code
        names = {"states": self.states, "actions": self.actions, "labels": self.label_table}
        return arrays, names

    @classmethod
    def from_table(
        cls, arrays: Mapping[str, np.ndarray], names: Mapping[str, Any]
    ) -> CompiledGame[Any]:
        """A game stored with ``to_table`` (names rebuilt as hashable tuples)."""
        states = [_hashable(x) for x in names["states"]]
        actions = names["actions"]
        fields: dict[str, Any] = {name: np.asarray(arrays[name]) for name in cls.ARRAYS}
        return cls(
            **fields,
            states=states,
            actions=None if actions is None else [_hashable(a) for a in actions],
            index={state: i for i, state in enumerate(states)},
            label_code=np.asarray(arrays["label_code"]),
            label_table=[_hashable(x) for x in names["labels"]],
        )

    @property
    def has_flips(self) -> bool:
        """True when some edge hands the turn over (a mover's-point-of-view game)."""
        return bool(self.flip.any())

    def label(self, e: int) -> Hashable | None:
        """Label of chance edge e (e.g. the die rolled), None where it has none."""
        c = int(self.label_code[e])
        return None if c < 0 else self.label_table[c]

    @property
    def labels(self) -> list[Hashable | None]:
        """Labels of every edge, aligned with the edges (None where absent)."""
        if self._labels is None:
            table = np.empty(len(self.label_table) + 1, dtype=object)
            table[: len(self.label_table)] = self.label_table
            table[-1] = None
            self._labels = table[self.label_code].tolist()
        return self._labels

    @property
    def num_states(self) -> int:
        """Number of nodes (terminal, chance and decision) in the reachable graph."""
        return len(self.kind)

    @property
    def num_edges(self) -> int:
        """Number of edges."""
        return len(self.target)

    def state_id(self, state: S) -> int:
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
            from diceopt.engine.kernels import postorder

            order, acyclic = postorder(self.start, self.target, self.num_states)
            self._order = (order, bool(acyclic))
        return self._order

    def components(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Strongly connected components in solving order: (order, comp_start, cyclic).

        ``order[comp_start[c]:comp_start[c + 1]]`` are the nodes of component c, in
        depth-first postorder; components come successors first (a component only leads
        to earlier ones), and ``cyclic[c]`` is True where its nodes can repeat (more than
        one node, or an edge back to itself).
        """
        if self._components is None:
            from diceopt.engine.kernels import strong_components

            self._components = strong_components(self.start, self.target, self.num_states)
        return self._components

    @property
    def acyclic(self) -> bool:
        """True when no state can repeat (detected from the graph, not declared)."""
        return self.order()[1]


def compile_game(game: Game[S], progress: Callable[[int], None] | None = None) -> CompiledGame[S]:
    """Explore every state reachable from ``game.initial_state()`` into a CompiledGame.

    Nodes are numbered in reverse depth-first postorder from node 0 (the initial state):
    the solver's successors-first sweep then walks the arrays in one direction, which
    keeps large games in cache. ``states``, ``actions`` and ``index`` follow that
    numbering. ``progress`` (optional) is called with the number of states explored so
    far every 100,000 states.
    """
    # Exploration keeps millions of small objects alive; the cyclic garbage collector
    # would rescan them again and again (they hold no cycles), so it pauses meanwhile.
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _renumber(*_explore(game, progress))
    finally:
        if enabled:
            gc.enable()


def _explore(
    game: Game[S], progress: Callable[[int], None] | None
) -> tuple[CompiledGame[S], list[Any]]:
    """Breadth-first exploration: the graph numbered in discovery order (``actions``
    left None) and the actions of the decision edges in edge order."""
    first = game.initial_state()
    index: dict[S, int] = {first: 0}
    states: list[S] = [first]
    kind: list[int] = []
    start: list[int] = [0]
    target: list[int] = []
    reward: list[float] = []
    prob: list[float] = []
    decision_actions: list[Any] = []
    flipped: list[int] = []  # edges that hand the turn over
    label_edges: list[int] = []
    label_codes: list[int] = []
    label_ids: dict[Hashable, int] = {}
    decision_nodes: list[int] = []
    decision_players: list[int] = []
    terminal_nodes: list[int] = []
    terminal_values: list[float] = []

    # Hot loop: local names and no function call per edge; probabilities are checked
    # on the arrays afterwards.
    node_of = game.node
    index_get = index.get
    states_append = states.append
    kind_append, start_append = kind.append, start.append
    target_append, reward_append, prob_append = target.append, reward.append, prob.append
    action_append, prob_extend = decision_actions.append, prob.extend
    flipped_append = flipped.append
    kinds = {Terminal: TERMINAL, Chance: CHANCE, Decision: DECISION}
    s, report = 0, 100_000
    while s < len(states):
        state = states[s]
        node: Any = node_of(state)  # its kind comes from a dict on its class, not isinstance
        k = kinds.get(type(node))
        if k is None:
            k = _kind_of(node, state)
        if k == TERMINAL:
            terminal_nodes.append(s)
            terminal_values.append(float(node.value))
        else:
            # a chance edge's first entry is its probability, a decision edge's its action
            if k == CHANCE:
                edges, put = node.outcomes, prob_append
            else:
                edges, put = node.actions, action_append
            if not edges:
                what = "outcomes" if k == CHANCE else "actions"
                raise InputError(
                    f"{'chance' if k == CHANCE else 'decision'} node with no {what} at {state!r}"
                )
            first_edge = len(target)
            for edge in edges:
                if len(edge) == 3:
                    x, r, nxt = edge
                elif len(edge) == 4 and k == CHANCE:  # a labelled outcome
                    x, r, nxt, label = edge
                    code = label_ids.get(label)
                    if code is None:
                        code = label_ids[label] = len(label_ids)
                    label_edges.append(len(target))
                    label_codes.append(code)
                else:
                    raise InputError(_edge_shape(k, edge, state))
                if nxt.__class__ is Handover:
                    flipped_append(len(target))
                    nxt = nxt.state
                i = index_get(nxt)
                if i is None:
                    i = index[nxt] = len(states)
                    states_append(nxt)
                target_append(i)
                reward_append(r)
                put(x)
            if k == DECISION:
                prob_extend([0.0] * (len(target) - first_edge))
                decision_nodes.append(s)
                decision_players.append(node.player)
        kind_append(k)
        start_append(len(target))
        s += 1
        if s == report:
            report += 100_000
            if progress is not None:
                progress(s)

    num = len(states)
    kind_a = np.fromiter(kind, dtype=np.int8, count=num)
    start_a = np.fromiter(start, dtype=np.int64, count=num + 1)
    prob_a = np.fromiter(prob, dtype=np.float64, count=len(prob))
    from diceopt.engine.kernels import first_bad_chance

    bad, why = first_bad_chance(kind_a, start_a, prob_a, PROBABILITY_TOLERANCE)
    if bad >= 0:
        p = prob_a[start_a[bad] : start_a[bad + 1]].tolist()
        if why == 1:
            value = next(x for x in p if not (x >= 0 and math.isfinite(x)))
            raise InputError(f"negative or invalid probability {value} at {states[bad]!r}")
        raise InputError(f"probabilities sum to {sum(p):.12g}, not 1, at {states[bad]!r}")
    player_a = np.zeros(num, dtype=np.int8)
    player_a[decision_nodes] = np.array(decision_players, dtype=np.int64)
    terminal_a = np.zeros(num, dtype=np.float64)
    terminal_a[terminal_nodes] = terminal_values
    num_edges = len(target)
    flip_a = np.zeros(num_edges, dtype=np.bool_)
    flip_a[flipped] = True
    label_a = np.full(num_edges, -1, dtype=np.int32)
    label_a[label_edges] = label_codes
    graph = CompiledGame(
        kind=kind_a,
        player=player_a,
        terminal_value=terminal_a,
        start=start_a,
        target=np.fromiter(target, dtype=np.int64, count=len(target)),
        reward=np.fromiter(reward, dtype=np.float64, count=len(reward)),
        prob=prob_a,
        states=states,
        actions=None,
        index=index,
        flip=flip_a,
        label_code=label_a,
        label_table=list(label_ids),
    )
    return graph, decision_actions


def compile_arrays(
    kind: np.ndarray,
    start: np.ndarray,
    target: np.ndarray,
    prob: np.ndarray,
    *,
    reward: np.ndarray | None = None,
    terminal_value: np.ndarray | None = None,
    player: np.ndarray | None = None,
    flip: np.ndarray | None = None,
    label_code: np.ndarray | None = None,
    label_table: list[Hashable] | None = None,
) -> CompiledGame[Any]:
    """A CompiledGame straight from CSR arrays (vectorised game builders), validated.

    Same meaning as the fields of CompiledGame; node 0 is the initial state and the
    numbering is kept as given. Omitted arrays default to zeros (``label_code``: -1, no
    labels). InputError on inconsistent shapes, edges out of range or chance
    probabilities that are negative or do not sum to 1.
    """
    kind = np.ascontiguousarray(kind, dtype=np.int8)
    start = np.ascontiguousarray(start, dtype=np.int64)
    target = np.ascontiguousarray(target, dtype=np.int64)
    prob = np.ascontiguousarray(prob, dtype=np.float64)
    n, m = kind.size, target.size
    if n < 1 or start.shape != (n + 1,) or start[0] != 0 or start[-1] != m:
        raise InputError("start must have one entry per node plus one, from 0 to the edge count")
    if np.any(np.diff(start) < 0):
        raise InputError("start must not decrease")
    if m and (target.min() < 0 or target.max() >= n):
        raise InputError("an edge points outside the graph")
    if prob.shape != (m,):
        raise InputError(f"prob has shape {prob.shape}, expected ({m},)")

    def edge_array(a: np.ndarray | None, dtype: Any, fill: Any) -> np.ndarray:
        if a is None:
            return np.full(m, fill, dtype=dtype)
        a = np.ascontiguousarray(a, dtype=dtype)
        if a.shape != (m,):
            raise InputError(f"an edge array has shape {a.shape}, expected ({m},)")
        return a

    def node_array(a: np.ndarray | None, dtype: Any) -> np.ndarray:
        if a is None:
            return np.zeros(n, dtype=dtype)
        a = np.ascontiguousarray(a, dtype=dtype)
        if a.shape != (n,):
            raise InputError(f"a node array has shape {a.shape}, expected ({n},)")
        return a

    from diceopt.engine.kernels import first_bad_chance

    bad, why = first_bad_chance(kind, start, prob, PROBABILITY_TOLERANCE)
    if bad >= 0:
        what = "a negative or invalid probability" if why == 1 else "probabilities not summing to 1"
        raise InputError(f"node {bad} has {what}")
    label_a = edge_array(label_code, np.int32, -1)
    table = list(label_table or [])
    if label_a.size and label_a.max() >= len(table):
        raise InputError("a label code has no entry in label_table")
    return CompiledGame(
        kind=kind,
        player=node_array(player, np.int8),
        terminal_value=node_array(terminal_value, np.float64),
        start=start,
        target=target,
        reward=edge_array(reward, np.float64, 0.0),
        prob=prob,
        flip=edge_array(flip, np.bool_, False),
        label_code=label_a,
        label_table=table,
    )


def _edge_shape(kind: int, edge: Any, state: Hashable) -> str:
    """The error line for an edge of the wrong shape at ``state``."""
    if kind == CHANCE:
        return (
            f"a chance outcome is (probability, reward, next_state[, label]), "
            f"got {edge!r} at {state!r}"
        )
    return f"a decision edge is (action, reward, next_state), got {edge!r} at {state!r}"


def _kind_of(node: Any, state: Hashable) -> int:
    """Kind of a node whose class is a subclass of a protocol node (slow path)."""
    if isinstance(node, Terminal):
        return TERMINAL
    if isinstance(node, Chance):
        return CHANCE
    if isinstance(node, Decision):
        return DECISION
    raise InputError(f"game.node returned {type(node).__name__}, not a node, at {state!r}")


def _renumber(g: CompiledGame[S], decision_actions: list[Any]) -> CompiledGame[S]:
    """The graph renumbered in reverse DFS postorder (node 0 stays node 0), with actions.

    A DFS on the renumbered graph visits the same states in the same sequence, so its
    postorder is simply n-1, ..., 0: it is stored instead of being recomputed.
    """
    n = g.num_states
    from diceopt.engine.kernels import postorder

    order, acyclic = postorder(g.start, g.target, n)
    perm = order[::-1].copy()  # new id -> old id
    new_id = np.empty(n, dtype=np.int64)
    new_id[perm] = np.arange(n, dtype=np.int64)
    counts = g.start[perm + 1] - g.start[perm]
    start = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=start[1:])
    eperm = np.repeat(g.start[perm] - start[:-1], counts) + np.arange(int(start[-1]))

    actions = np.empty(g.num_edges, dtype=object)  # None on chance edges
    decisions = np.flatnonzero(g.kind == DECISION)
    if decisions.size:
        lo, hi = g.start[decisions], g.start[decisions + 1]
        width = hi - lo
        first = np.cumsum(width) - width
        where = np.repeat(lo - first, width) + np.arange(int(width.sum()))
        actions[where] = np.fromiter(decision_actions, dtype=object, count=len(decision_actions))
    assert g.states is not None  # _explore names every state
    states = np.fromiter(g.states, dtype=object, count=n)[perm].tolist()
    out = CompiledGame(
        kind=g.kind[perm],
        player=g.player[perm],
        terminal_value=g.terminal_value[perm],
        start=start,
        target=new_id[g.target[eperm]],
        reward=g.reward[eperm],
        prob=g.prob[eperm],
        states=states,
        actions=actions[eperm].tolist(),
        index=dict(zip(states, range(n))),
        flip=g.flip[eperm],
        label_code=g.label_code[eperm],
        label_table=g.label_table,
    )
    out._order = (np.arange(n - 1, -1, -1, dtype=np.int64), bool(acyclic))
    return out


def _hashable(value: Any) -> Any:
    """JSON lists back to (nested) tuples, so stored state names hash as they did."""
    return tuple(_hashable(x) for x in value) if isinstance(value, list) else value
