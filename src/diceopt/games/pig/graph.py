"""Pig on the generic engine: the independent second path to the family's race solver.

The engine graph is written from the mover's point of view, so one state serves both
players: every value is the win probability of the player to move, and the edges where
the turn passes (a hold, a 1) are hand-over edges (``1 - v``). For goal G and a K-sided
die the graph has G³ + 1 nodes, numbered arithmetically (``chance_node``,
``decision_node``): for banked points m (mover) and o (opponent), a block of 2(G - m) - 1
nodes holds the roll R(k) (a chance node, k = 0..G-m-1 the turn total) at offset 2k and
the hold-or-roll decision D(k) (k >= 1) at offset 2k - 1; blocks are ordered by m, then
o; the last node is the terminal "the mover has won" (value 1). Chance edges carry the
die face as their label (faces 1..K in order).

``build_graph`` (numba) builds it from arrays and ``PigGame`` writes the same rules to
the engine's node protocol; ``solve_engine`` solves it by Gauss-Seidel value iteration
(the game is cyclic: two 1s in a row repeat a position). Tests compare every node's value
with the race solver's (``node_values``). The game itself uses the graph only where the
engine is needed: ``evaluate_seat`` evaluates any policy exactly against the optimal
player (the race solver has no path for a policy given position by position).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from diceopt.engine.game import Chance, Decision, Handover, Terminal
from diceopt.games.pig.position import HOLD, ROLL, PigPosition
from diceopt.games.pig.rules import PigRules
from diceopt.lazy import numpy as np

if TYPE_CHECKING:
    from diceopt.engine import CompiledGame, Objective, Solution
    from diceopt.engine.solver import SolveOptions
    from diceopt.games.pig.solution import PigSolution


def win_objective() -> Objective:
    """The engine objective of Pig: the mover's win probability."""
    from diceopt.engine import Objective

    return Objective("win")


def num_nodes(rules: PigRules) -> int:
    """Nodes of the engine graph: G³ + 1."""
    return rules.goal**3 + 1


# --- node numbers -------------------------------------------------------------------------

Points = TypeVar("Points", int, "np.ndarray")  # a number of points, or an array of them


def block_start(goal: int, me: Points) -> Points:
    """First node of the blocks of a mover with ``me`` banked points (elementwise for an
    array)."""
    return goal * me * (2 * goal - me)


def chance_node(goal: int, me: int, opponent: int, turn: int) -> int:
    """Node of the roll R with turn total ``turn`` (0: the start of a turn)."""
    return block_start(goal, me) + opponent * (2 * (goal - me) - 1) + 2 * turn


def decision_node(goal: int, me: int, opponent: int, turn: int) -> int:
    """Node of the hold-or-roll decision D at turn total ``turn`` >= 1."""
    return chance_node(goal, me, opponent, turn) - 1


def win_node(goal: int) -> int:
    """The terminal node: the player who moved there has won (value 1)."""
    return goal**3


def decode_node(goal: int, node: int) -> tuple[int, int, int, bool]:
    """(me, opponent, turn, is_chance) of a non-terminal node number."""
    starts = goal * np.arange(goal + 1) * (2 * goal - np.arange(goal + 1))
    me = int(np.searchsorted(starts, node, side="right")) - 1
    rest = node - int(starts[me])
    width = 2 * (goal - me) - 1
    opponent, off = divmod(rest, width)
    return me, opponent, (off + 1) // 2, off % 2 == 0


def _build_arrays(goal: int, sides: int) -> tuple:
    """The CSR arrays of Pig (see the module docstring): the rules, once.

    Compiled with numba on first use (``_build``), so that loading the game does not
    load numba.
    """
    g, k_max = goal, sides
    n = g * g * g + 1
    win = n - 1
    edges = 0
    for m in range(g):
        width = g - m
        edges += g * (k_max * width + 2 * (width - 1))
    kind = np.empty(n, dtype=np.int8)
    start = np.empty(n + 1, dtype=np.int64)
    target = np.empty(edges, dtype=np.int64)
    prob = np.zeros(edges, dtype=np.float64)
    flip = np.zeros(edges, dtype=np.bool_)
    label = np.full(edges, -1, dtype=np.int32)
    terminal = np.zeros(n, dtype=np.float64)
    q = 1.0 / k_max
    e = 0
    s = 0
    for m in range(g):
        width = 2 * (g - m) - 1
        for o in range(g):
            base = s  # R(m, o, 0)
            for off in range(width):
                start[s] = e
                if off % 2 == 0:  # the roll R(k)
                    k = off // 2
                    kind[s] = 1
                    # a 1: the turn total is lost and the turn passes
                    target[e] = g * o * (2 * g - o) + m * (2 * (g - o) - 1)
                    prob[e] = q
                    flip[e] = True
                    label[e] = 0
                    e += 1
                    for r in range(2, k_max + 1):
                        t = k + r
                        target[e] = win if m + t >= g else base + 2 * t - 1
                        prob[e] = q
                        label[e] = r - 1
                        e += 1
                else:  # the decision D(k): hold (the turn passes) or roll
                    k = (off + 1) // 2
                    kind[s] = 2
                    target[e] = g * o * (2 * g - o) + (m + k) * (2 * (g - o) - 1)
                    flip[e] = True
                    target[e + 1] = s + 1
                    e += 2
                s += 1
    kind[win] = 0
    terminal[win] = 1.0
    start[win] = e
    start[n] = e
    return kind, start, target, prob, flip, label, terminal


_KERNEL: list[Any] = []


def _build(goal: int, sides: int) -> tuple:
    """``_build_arrays`` compiled by numba (cached on disk like every engine kernel)."""
    if not _KERNEL:
        import numba

        _KERNEL.append(numba.njit(cache=True)(_build_arrays))
    return _KERNEL[0](goal, sides)


def build_graph(rules: PigRules) -> CompiledGame:
    """Pig's engine graph (G³ + 1 nodes, see the module docstring), built from arrays."""
    from diceopt.engine import compile_arrays

    kind, start, target, prob, flip, label, terminal = _build(rules.goal, rules.sides)
    game = compile_arrays(
        kind,
        start,
        target,
        prob,
        terminal_value=terminal,
        flip=flip,
        label_code=label,
        label_table=list(range(1, rules.sides + 1)),
    )
    decisions = np.flatnonzero(kind == 2)
    actions: list[Any] = [None] * game.num_edges
    for e in game.start[decisions].tolist():
        actions[e], actions[e + 1] = HOLD, ROLL
    game.actions = actions
    return game


class PigGame:
    """The same rules on the engine's node protocol (mover's view): a cross-check.

    States: ``(me, opponent, turn, is_chance)`` and ``"won"`` (the mover has won).
    """

    def __init__(self, rules: PigRules) -> None:
        self.rules = rules

    def initial_state(self) -> tuple[int, int, int, bool]:
        """The first player's first roll: both scores 0."""
        return (0, 0, 0, True)

    def node(self, state: Any) -> Terminal | Chance | Decision:
        """The node of a state (see the class docstring)."""
        if state == "won":
            return Terminal(1.0)
        m, o, k, is_chance = state
        g, sides = self.rules.goal, self.rules.sides
        if is_chance:
            q = 1.0 / sides
            outcomes: list[tuple[Any, ...]] = [(q, 0.0, Handover((o, m, 0, True)), 1)]
            for r in range(2, sides + 1):
                outcomes.append((q, 0.0, "won" if m + k + r >= g else (m, o, k + r, False), r))
            return Chance(outcomes)
        return Decision([(HOLD, 0.0, Handover((o, m + k, 0, True))), (ROLL, 0.0, (m, o, k, True))])


# --- solving and evaluating on the engine ---------------------------------------------


def solve_engine(rules: PigRules, *, tolerance: float | None = None) -> Solution:
    """The engine graph built and solved by value iteration (``tolerance``: the engine's,
    default its own): ``values[node]`` is the mover's win probability at every node."""
    from diceopt.engine import solve

    kwargs: SolveOptions = {} if tolerance is None else {"tolerance": tolerance}
    return solve(build_graph(rules), win_objective(), **kwargs)


_ENGINE_SOLVED: dict[PigRules, Solution] = {}


def engine_action_values(rules: PigRules, pos: PigPosition) -> dict[str, float]:
    """Roll (and hold, from a turn total of 1 on) with the mover's win probability from
    the engine graph solved by value iteration (the last rules asked about are kept):
    the second path of the race solver's advice."""
    from diceopt.engine import action_values

    if rules not in _ENGINE_SOLVED:
        _ENGINE_SOLVED.clear()
        _ENGINE_SOLVED[rules] = solve_engine(rules)
    sol = _ENGINE_SOLVED[rules]
    g = rules.goal
    if pos.turn == 0:
        return {ROLL: float(sol.values[chance_node(g, pos.me, pos.opponent, 0)])}
    node = decision_node(g, pos.me, pos.opponent, pos.turn)
    return {str(a.action): a.value for a in action_values(sol, node)}


def node_values(sol: PigSolution) -> np.ndarray:
    """The race solution's values at the engine graph's nodes (nan at nodes of scores off
    the step: odd ones with a two-sided die): R(m, o, 0) = W, R(m, o, k) = rolling at k,
    D(m, o, k) = the better of holding and rolling, the terminal node 1."""
    start, roll = sol.tables
    g = sol.rules.goal
    values = np.empty(num_nodes(sol.rules))
    m, o, k = np.meshgrid(np.arange(g), np.arange(g), np.arange(g), indexing="ij")
    live = m + k < g
    m, o, k = m[live], o[live], k[live]
    chance = block_start(g, m) + o * (2 * (g - m) - 1) + 2 * k
    values[chance] = np.where(k == 0, start[m, o], roll[m, o, k])
    d = k >= 1
    hold = 1.0 - start[o[d], m[d] + k[d]]
    values[chance[d] - 1] = np.maximum(hold, roll[m[d], o[d], k[d]])
    values[win_node(g)] = 1.0
    return values


def optimal_policy(graph: CompiledGame, sol: PigSolution) -> np.ndarray:
    """The optimal policy of the race solution on the engine graph: the decision edge
    (hold or roll, ties to hold as in ``decision_table``) at every decision node, -1
    elsewhere; hold at decisions the race has no value for (turn 1, scores off the step:
    positions that cannot occur)."""
    hold, _ = sol.decision_table()
    g = sol.rules.goal
    policy = np.full(graph.num_states, -1, dtype=np.int64)
    m, o, k = np.meshgrid(np.arange(g), np.arange(g), np.arange(g), indexing="ij")
    live = (m + k < g) & (k >= 1)
    m, o, k = m[live], o[live], k[live]
    node = block_start(g, m) + o * (2 * (g - m) - 1) + 2 * k - 1
    # a decision's edges are hold, then roll (``build_graph``)
    policy[node] = graph.start[node] + (hold[m, o, k] == 0)
    return policy


def evaluate_seat(
    rules: PigRules, sol: PigSolution, choose: Callable[[Any, list[str]], str], seat: int = 1
) -> tuple[float, int]:
    """The policy ``choose`` in ``seat`` (1 or 2) against the optimal player, exactly: the
    seat's chance of winning and the number of decisions asked. The graph is written from
    the mover's point of view (one node serves both players), so this runs on two copies
    of it: copy 0 where the first player moves, copy 1 the second; a hand-over edge
    crosses copies."""
    from diceopt.engine import compile_arrays, evaluate_policy
    from diceopt.engine.compile import DECISION

    g = build_graph(rules)
    n, m = g.num_states, g.num_edges
    flip = g.flip.astype(np.int64)
    target = np.concatenate([g.target + n * flip, g.target + n * (1 - flip)])
    start = np.concatenate([g.start[:-1], g.start + m])
    doubled = compile_arrays(
        np.concatenate([g.kind, g.kind]),
        start,
        target,
        np.concatenate([g.prob, g.prob]),
        reward=np.concatenate([g.reward, g.reward]),
        terminal_value=np.concatenate([g.terminal_value, g.terminal_value]),
        flip=np.concatenate([g.flip, g.flip]),
    )
    optimal = optimal_policy(g, sol)
    policy = np.concatenate([optimal, np.where(optimal >= 0, optimal + m, -1)])
    decisions = np.flatnonzero(g.kind == DECISION)
    offset = 0 if seat == 1 else n
    for s in decisions.tolist():
        me, opponent, turn, _ = decode_node(rules.goal, s)
        action = choose(PigPosition(me, opponent, turn, seat - 1), [HOLD, ROLL])
        edge = int(g.start[s]) + (0 if action == HOLD else 1)
        policy[s + offset] = edge + (m if seat == 2 else 0)
    value = float(evaluate_policy(doubled, policy, win_objective()).values[0])
    return (value if seat == 1 else 1.0 - value), len(decisions)
