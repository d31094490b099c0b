"""Pig (RULES §5) on the generic engine: each player maximises the probability of winning.

Positions are written from the point of view of the player to move:
``me 41 | opponent 49 | turn 22`` (``turn`` is the turn total at risk; omitted = 0, the
start of a turn). A turn starts with a forced roll; after each roll of 2..K the player
holds (banks the turn total, the turn passes) or rolls again; a 1 loses the turn total
and passes the turn. Reaching the goal (banked score + turn total) wins at once.

The engine graph is written from the mover's point of view, so one state serves both
players: every value is the win probability of the player to move, and the edges where
the turn passes (a hold, a 1) are hand-over edges (``1 - v``). For goal G and a K-sided
die the graph has G³ + 1 nodes, numbered arithmetically (``chance_node``,
``decision_node``): for banked points m (mover) and o (opponent), a block of 2(G - m) - 1
nodes holds the roll R(k) (a chance node, k = 0..G-m-1 the turn total) at offset 2k and
the hold-or-roll decision D(k) (k >= 1) at offset 2k - 1; blocks are ordered by m, then
o; the last node is the terminal "the mover has won" (value 1). Chance edges carry the
die face as their label.

``build_graph`` (numba) is the one place the rules live: solving, advice (values read
at arithmetic node numbers, so stored values answer without rebuilding anything),
``apply`` (the engine's ``advance`` walks this graph) and simulation all use it.
``PigGame`` writes the same rules to the engine's node protocol, as a cross-check for
small goals (tests compare the two graphs' values). The game is cyclic (two 1s in a row
repeat a position), so it is solved by Gauss-Seidel value iteration.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, TypeVar, cast

from diceopt import storage
from diceopt.advice import Advice, rank_actions
from diceopt.engine.game import Chance, Decision, Handover, Terminal
from diceopt.errors import InputError
from diceopt.games.contract import (
    Command,
    CommandOutput,
    GameSpec,
    Parameter,
    Report,
    Step,
    check_variant_params,
)
from diceopt.lazy import numpy as np
from diceopt.notation import parse_int, parse_number, split_fields

if TYPE_CHECKING:
    from diceopt.engine import CompiledGame, Objective, Solution
    from diceopt.engine.solver import SolveOptions

GOAL_MAX = 150
SIDES_MAX = 20
HOLD, ROLL = "hold", "roll"


def win_objective() -> Objective:
    """The engine objective of Pig: the mover's win probability."""
    from diceopt.engine import Objective

    return Objective("win")


@dataclass(frozen=True)
class PigRules:
    """Pig's parameters: the goal (points) and the number of die sides (faces 1..K)."""

    goal: int = 100
    sides: int = 6

    def __post_init__(self) -> None:
        if not isinstance(self.goal, int) or not 1 <= self.goal <= GOAL_MAX:
            raise InputError(f"the goal must be an integer from 1 to {GOAL_MAX}, got {self.goal}")
        if not isinstance(self.sides, int) or not 2 <= self.sides <= SIDES_MAX:
            raise InputError(f"the die must have 2 to {SIDES_MAX} sides, got {self.sides}")

    def describe(self) -> dict[str, Any]:
        """The parameters as plain JSON-ready data."""
        return {"goal": self.goal, "sides": self.sides}

    @property
    def variant(self) -> str:
        """The variant id ``goal-G-dK``."""
        return f"goal-{self.goal}-d{self.sides}"

    @property
    def num_nodes(self) -> int:
        """Nodes of the engine graph: G³ + 1."""
        return self.goal**3 + 1

    def possible_total(self, points: int) -> bool:
        """True when a turn total or banked score of ``points`` can occur (0, or a sum of
        faces 2..K: every value from 2 on, only even ones with a two-sided die)."""
        return points == 0 or (points >= 2 and (self.sides >= 3 or points % 2 == 0))


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

    Compiled with numba on first use (``_build``), so that advice from stored values
    never loads numba.
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


# --- solutions ------------------------------------------------------------------------


@dataclass
class PigSolution:
    """Solved Pig: ``values[node]`` is the win probability of the player to move there.

    Nodes are numbered arithmetically (``chance_node``, ``decision_node``), so a stored
    solution answers every question without the graph; ``graph``, ``solution`` and
    ``policy`` are built on first use. ``compile_seconds``: building the graph,
    ``solve_seconds``: value iteration and policy (seconds, from the stored header when
    ``loaded``).
    """

    rules: PigRules
    values: np.ndarray
    sweeps: int
    residual: float
    compile_seconds: float
    solve_seconds: float
    loaded: bool = False
    _graph: CompiledGame | None = field(default=None, repr=False)

    @property
    def graph(self) -> CompiledGame:
        """The engine graph (built on first use when the values were loaded)."""
        if self._graph is None:
            self._graph = build_graph(self.rules)
        return self._graph

    @cached_property
    def solution(self) -> Solution:
        """The engine's view of these values (objective win)."""
        from diceopt.engine import Solution

        return Solution(
            self.graph,
            self.values,
            win_objective(),
            1.0,
            self.sweeps,
            self.residual,
            self.solve_seconds,
        )

    @cached_property
    def policy(self) -> np.ndarray:
        """The optimal policy (edge per decision node, the engine's tie-break: hold first)."""
        from diceopt.engine import extract_policy

        return extract_policy(self.solution)

    @property
    def value(self) -> float:
        """Probability that the first player wins under mutual optimal play."""
        return float(self.values[0])

    def win_probability(self, me: int, opponent: int, turn: int = 0) -> float:
        """Probability that the player to move wins (optimal play on both sides)."""
        g = self.rules.goal
        if me + turn >= g:
            return 1.0
        if turn == 0:
            return float(self.values[chance_node(g, me, opponent, 0)])
        return float(self.values[decision_node(g, me, opponent, turn)])

    def action_values(self, me: int, opponent: int, turn: int) -> dict[str, float]:
        """Win probability of the player to move for each legal action (roll; hold if turn > 0).

        InputError if the position cannot occur under these rules.
        """
        check_position(self.rules, PigPosition(me, opponent, turn))
        g = self.rules.goal
        roll = float(self.values[chance_node(g, me, opponent, turn)])
        if turn == 0:
            return {ROLL: roll}
        hold = 1.0 - float(self.values[chance_node(g, opponent, me + turn, 0)])
        return {HOLD: hold, ROLL: roll}

    def decision_table(self) -> tuple[np.ndarray, np.ndarray]:
        """(hold, value) arrays indexed [me, opponent, turn] for the player to move.

        ``hold`` is 1 where holding is optimal, 0 where rolling is, -1 where no decision
        exists (turn 0 or 1, or me + turn >= goal); ``value`` is the mover's win
        probability after deciding (nan where no decision exists). Ties go to hold, as in
        the engine's policy.
        """
        from diceopt.engine.policy import TIE_TOLERANCE

        g = self.rules.goal
        m = np.arange(g)[:, None, None]
        o = np.arange(g)[None, :, None]
        k = np.arange(g)[None, None, :]
        valid = (k >= 2) & (m + k < g)
        kk = np.where(valid, k, 1)
        mk = np.minimum(m + kk, g - 1)
        best = self.values[block_start(g, m) + o * (2 * (g - m) - 1) + 2 * kk - 1]
        hold_q = 1.0 - self.values[block_start(g, o) + mk * (2 * (g - o) - 1)]
        holds = (best - hold_q) <= TIE_TOLERANCE * np.maximum(1.0, np.abs(best))
        hold = np.where(valid, holds.astype(np.int8), np.int8(-1)).astype(np.int8)
        value = np.where(valid, best, np.nan)
        return hold, value

    def boundary(self) -> tuple[np.ndarray, int]:
        """Hold-from turn totals indexed [me, opponent] and the number of exceptions.

        ``hold_from[m, o]`` (points) is the smallest turn total at which holding is
        optimal for a mover with m banked against o (``goal - m`` when the mover should
        roll until reaching the goal); nan where a score of 1 makes the pair impossible.
        Exceptions count the larger turn totals (m, o, turn) where rolling is optimal
        again (0 when every row is a pure threshold).
        """
        hold, _ = self.decision_table()
        n = self.rules.goal
        ks = np.arange(n)[None, None, :]
        first_hold = np.where(hold == 1, ks, n).min(axis=2)
        me = np.arange(n)[:, None]
        hold_from = np.minimum(first_hold, n - me).astype(np.float64)
        exceptions = int(((hold == 0) & (ks > hold_from[:, :, None])).sum())
        if n > 1:
            hold_from[1, :] = np.nan
            hold_from[:, 1] = np.nan
        return hold_from, exceptions


def solve_pig(rules: PigRules, *, tolerance: float | None = None) -> PigSolution:
    """Build and solve Pig: the mover's win probability at every node (no cache).

    ``tolerance`` (optional) overrides the engine's value-iteration tolerance.
    """
    from diceopt.engine import solve

    t0 = time.perf_counter()
    graph = build_graph(rules)
    t1 = time.perf_counter()
    kwargs: SolveOptions = {} if tolerance is None else {"tolerance": tolerance}
    solution = solve(graph, win_objective(), **kwargs)
    t2 = time.perf_counter()
    return PigSolution(
        rules,
        solution.values,
        solution.sweeps,
        float(solution.residual),
        t1 - t0,
        t2 - t1,
        _graph=graph,
    )


def family_rules(rules: PigRules) -> Any:
    """Pig as push-your-luck rules (``rules/pig.toml``, its die and goal replaced): the
    race solver's input (``families.race``), used by ``fair``."""
    import dataclasses
    import math

    from diceopt.games.families.push_luck import Combination, load_rules

    base = load_rules("pig")
    if rules.sides == base.sides:
        return dataclasses.replace(base, goal=rules.goal)
    points = (0, *range(2, rules.sides + 1))
    return dataclasses.replace(
        base,
        sides=rules.sides,
        goal=rules.goal,
        step=math.gcd(*points),
        combinations=(Combination("single", 1, points),),
    )


def race_solved(rules: PigRules) -> Any:
    """Pig solved by the race solver from its rule file (the family path)."""
    from diceopt.games.families.race import race_solution

    return race_solution("pig", family_rules(rules))


def table_key(rules: PigRules) -> storage.TableKey:
    """The storage key of a Pig solution (one float64 value per node)."""
    return storage.TableKey("pig", rules.variant, "win", 0.0, "float64", shape=(rules.num_nodes,))


_SOLVED: dict[PigRules, PigSolution] = {}


def solved(rules: PigRules, cache_dir: str | None = None) -> PigSolution:
    """Pig's solution (values per node): once per process, from the table cache where
    stored, else solved and stored (``cache_dir``: another cache directory)."""

    def to_table(sol: PigSolution) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        meta = {
            **storage.solve_times(sol.compile_seconds, sol.solve_seconds),
            "sweeps": sol.sweeps,
            "residual": sol.residual,
            "value": sol.value,
            "states": sol.graph.num_states,
            "edges": sol.graph.num_edges,
        }
        return {"values": sol.values}, meta

    def from_table(stored: storage.Stored) -> PigSolution:
        h = stored.header
        sweeps, residual = int(h.get("sweeps", 0)), float(h.get("residual", 0.0))
        values = stored.arrays["values"]
        return PigSolution(rules, values, sweeps, residual, *storage.stored_times(h), loaded=True)

    return storage.solved_once(
        _SOLVED, rules, table_key(rules), lambda: solve_pig(rules), to_table, from_table, cache_dir
    )


# --- positions ------------------------------------------------------------------------

POSITION_VALUE_RE = re.compile(r"^-?\d+$")


@dataclass(frozen=True)
class PigPosition:
    """A position from the mover's point of view: banked points and the turn total."""

    me: int
    opponent: int
    turn: int = 0
    player: int = 0  # who is "me": 0 the first player, 1 the second

    def text(self) -> str:
        """``me 41 | opponent 49 | turn 22`` (``| player 2`` when the second player moves)."""
        text = f"me {self.me} | opponent {self.opponent} | turn {self.turn}"
        return text if self.player == 0 else f"{text} | player 2"

    def to_json(self) -> dict[str, int]:
        """``{"me", "opponent", "turn", "player"}`` (player 1 or 2)."""
        return {
            "me": self.me,
            "opponent": self.opponent,
            "turn": self.turn,
            "player": self.player + 1,
        }


def check_position(rules: PigRules, pos: PigPosition) -> None:
    """InputError (one line) unless ``pos`` can occur under ``rules`` with the game on."""
    g = rules.goal
    for key, v in (("me", pos.me), ("opponent", pos.opponent), ("turn", pos.turn)):
        if v < 0:
            raise InputError(f"{key} must be >= 0, got {v}")
    for key, v in (("me", pos.me), ("opponent", pos.opponent)):
        if v >= g:
            raise InputError(f"{key} {v} has reached the goal {g}: the game is over")
        if not rules.possible_total(v):
            if v == 1:
                raise InputError(f"{key} 1 cannot occur: a turn banks 0 or at least 2 points")
            raise InputError(f"{key} {v} cannot occur with a {rules.sides}-sided die")
    if pos.turn == 1:
        raise InputError("turn 1 cannot occur: a 1 ends the turn, other rolls add 2 or more")
    if not rules.possible_total(pos.turn):
        raise InputError(f"turn {pos.turn} cannot occur with a {rules.sides}-sided die")
    if pos.me + pos.turn >= g:
        raise InputError(
            f"me {pos.me} + turn {pos.turn} reaches the goal {g}: that roll won, the game is over"
        )


def parse_position(rules: PigRules, text: str) -> PigPosition:
    """Parse ``me 41 | opponent 49 | turn 22`` (turn optional); InputError if impossible."""
    example = POSITION_EXAMPLE
    fields: dict[str, int] = {}
    for key, value in split_fields(
        text, ("me", "opponent", "turn", "player"), example, {"opp": "opponent"}
    ).items():
        if POSITION_VALUE_RE.match(value) is None:
            raise InputError(f"cannot read '{key} {value}': write e.g. '{example}'")
        fields[key] = parse_int(value)
    return position_of(rules, fields)


def position_of(rules: PigRules, fields: Mapping[str, Any]) -> PigPosition:
    """A checked position from its fields (``me``, ``opponent``, optional ``turn`` and
    ``player`` 1 or 2); InputError (one line) if one is missing, not whole, or impossible."""
    for key in ("me", "opponent"):
        if key not in fields:
            raise InputError(f"the position needs '{key} N', e.g. '{POSITION_EXAMPLE}'")
    for key, value in fields.items():
        if isinstance(value, bool) or not isinstance(value, int):
            raise InputError(f"{key} must be a whole number, got {value!r}")
    player = fields.get("player", 1)
    if player not in (1, 2):
        raise InputError(f"player must be 1 or 2, got {player}")
    pos = PigPosition(fields["me"], fields["opponent"], fields.get("turn", 0), player - 1)
    check_position(rules, pos)
    return pos


# --- advice contract (diceopt.advice) ---------------------------------------------------

VARIANTS = {
    "goal-100": "first to 100 points, six-sided die (Neller & Presser 2004)",
    "goal-50": "first to 50 points, six-sided die",
    "goal-20": "first to 20 points, six-sided die",
}
POSITION_EXAMPLE = "me 41 | opponent 49 | turn 22"
VARIANT_RE = re.compile(r"^goal-(\d+)(?:-d(\d+))?$")


def rules_for_variant(variant: str | None) -> PigRules:
    """Rules of a variant id ``goal-G`` or ``goal-G-dK`` (K-sided die); None = goal-100."""
    text = (variant or "goal-100").strip().lower()
    m = VARIANT_RE.match(text)
    if m is None:
        raise InputError(f"unknown pig variant {variant!r}; use goal-G or goal-G-dK, e.g. goal-100")
    return PigRules(goal=parse_int(m.group(1)), sides=parse_int(m.group(2) or "6"))


def parse_action(text: str) -> str:
    """``hold`` or ``roll`` (also ``h`` / ``r``)."""
    word = text.strip().lower()
    if word in (HOLD, "h"):
        return HOLD
    if word in (ROLL, "r"):
        return ROLL
    raise InputError(f"unknown action {text.strip()!r}: type 'roll' or 'hold'")


_GRAPHS: dict[PigRules, CompiledGame] = {}


def graph_for(rules: PigRules) -> CompiledGame:
    """The engine graph of ``rules``, built once per process (the solved one if at hand)."""
    if rules not in _GRAPHS:
        sol = _SOLVED.get(rules)
        _GRAPHS[rules] = sol.graph if sol is not None else build_graph(rules)
    return _GRAPHS[rules]


@dataclass(frozen=True)
class PigStep:
    """What one action did: the new position and what was rolled.

    ``position`` is from the next mover's point of view, or the winner's final score as
    ``me`` when ``over``. ``rolled``: the die faces rolled (empty after a hold). ``passed``:
    the turn passed to the other player (a hold or a 1).
    """

    position: PigPosition
    over: bool
    rolled: tuple[int, ...]
    passed: bool


def play_action(
    rules: PigRules, pos: PigPosition, action: str, rng: np.random.Generator
) -> PigStep:
    """Play ``hold`` or ``roll`` from ``pos`` by walking the engine graph (dice from ``rng``)."""
    from diceopt.engine import advance

    action = parse_action(action)
    check_position(rules, pos)
    g = rules.goal
    graph = graph_for(rules)
    if pos.turn == 0:
        if action == HOLD:
            raise InputError("a turn starts with a roll: you cannot hold with turn total 0")
        step = advance(
            graph, chance_node(g, pos.me, pos.opponent, 0), None, rng, stop_on_handover=True
        )
    else:
        node = decision_node(g, pos.me, pos.opponent, pos.turn)
        edge = int(graph.start[node]) + (0 if action == HOLD else 1)
        step = advance(graph, node, edge, rng, stop_on_handover=True)
    rolled = tuple(int(cast(int, x)) for x in step.labels)  # the labels are the faces
    if step.node == win_node(g):
        final = PigPosition(pos.me + pos.turn + sum(rolled), pos.opponent, 0, pos.player)
        return PigStep(final, True, rolled, False)
    me, opponent, turn, _ = decode_node(g, step.node)
    player = 1 - pos.player if step.handed_over else pos.player
    return PigStep(PigPosition(me, opponent, turn, player), False, rolled, step.handed_over)


def plot_boundary(sol: PigSolution, path: str) -> None:
    """Write the roll/hold boundary (hold-from turn total per own and opponent score) as PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    hold_from, _ = sol.boundary()
    g = sol.rules.goal
    fig, ax = plt.subplots(figsize=(7, 6))
    img = ax.imshow(hold_from, origin="lower", cmap="viridis", aspect="auto")
    ax.set_xlabel("opponent score (points)")
    ax.set_ylabel("own score (points)")
    ax.set_title(
        f"Pig, goal {g}, d{sol.rules.sides}: hold from this turn total\n"
        f"P(first player wins) = {sol.value:.9f}"
    )
    fig.colorbar(img, ax=ax, label="turn total from which to hold (points)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


BOUNDARY_STEP = 10  # score step of the printed boundary table (goals above 20)


class PigSpec(GameSpec):
    """Pig in the registry (see ``diceopt.games.contract``)."""

    id = "pig"
    title = "Pig"
    env_name = "Pig"
    summary = "Pig: two players race to a goal, each maximising P(win)"
    rules_help = (
        "On your turn roll a die as often as you like, adding the pips to a turn total;\n"
        "hold to bank it and pass the turn; a 1 loses the turn total. First to the goal\n"
        "wins. Positions are the mover's: 'me 41 | opponent 49 | turn 22' ('| player 2'\n"
        "when the second player moves). Actions: 'roll' (r), 'hold' (h)."
    )
    units = "probability that the player to move wins"
    players = 2
    parameters = (
        Parameter("goal", f"points to win, 1 to {GOAL_MAX}", type=int),
        Parameter("sides", f"die sides, 2 to {SIDES_MAX} (a 1 busts)", type=int),
    )
    variants = VARIANTS
    position_example = POSITION_EXAMPLE
    small = {"goal": 20}
    solve_options = (
        Parameter("tolerance", "value-iteration tolerance (engine default)", type=parse_number),
        Parameter("plot", "also draw the roll/hold boundary (png, svg or pdf)", metavar="FILE"),
    )

    def rules(self, variant: str | None = None, **params: Any) -> PigRules:
        """Rules of ``goal-G`` or ``goal-G-dK``; ``goal`` and ``sides`` set what the name
        leaves open (InputError when they contradict it)."""
        base = rules_for_variant(variant)
        if variant is not None:
            named = VARIANT_RE.match(variant.strip().lower())
            fixed = {"goal": base.goal} | (
                {"sides": base.sides} if named and named.group(2) else {}
            )
            check_variant_params(variant, fixed, params)
        goal, sides = params.get("goal"), params.get("sides")
        return PigRules(base.goal if goal is None else goal, base.sides if sides is None else sides)

    def parse_text(self, rules: PigRules, text: str) -> PigPosition:
        """``me 41 | opponent 49 | turn 22`` (``| player 2`` optional)."""
        return parse_position(rules, text)

    def parse_json(self, rules: PigRules, data: Mapping[str, Any]) -> PigPosition:
        """``{"me": 41, "opponent": 49, "turn": 22, "player": 1}`` (turn, player optional)."""
        unknown = set(data) - {"me", "opponent", "turn", "player"}
        if unknown:
            raise InputError(f"unknown position field(s) {sorted(unknown)}")
        return position_of(rules, data)

    def new_position(self, rules: PigRules, rng: np.random.Generator) -> PigPosition:
        """Both scores 0, the first player to roll."""
        return PigPosition(0, 0, 0, 0)

    def to_move(self, rules: PigRules, pos: PigPosition) -> int:
        """The player to move ("me")."""
        return pos.player

    def show(self, rules: PigRules, pos: PigPosition) -> list[str]:
        """Both scores and the turn total."""
        return [
            f"player {pos.player + 1} to move: {pos.me} banked, turn total {pos.turn}; "
            f"opponent {pos.opponent} (goal {rules.goal})"
        ]

    def advise(self, rules: PigRules, pos: PigPosition, **options: Any) -> Advice:
        """Roll and hold with the mover's win probability, best first (stored values)."""
        values = solved(rules).action_values(pos.me, pos.opponent, pos.turn)
        order = [a for a in (HOLD, ROLL) if a in values]
        return Advice(rank_actions([(a, values[a]) for a in order]), self.units)

    def canonical_action(self, rules: PigRules, pos: PigPosition, text: str) -> str:
        """``roll``/``r`` or ``hold``/``h``."""
        return parse_action(text)

    def apply(
        self, rules: PigRules, pos: PigPosition, action: str, rng: np.random.Generator
    ) -> Step:
        """Walk the engine graph: the dice rolled, whether the turn passed, the winner."""
        moved = play_action(rules, pos, action, rng)
        who = f"player {pos.player + 1}"
        events = [f"{who} rolled a {r}" for r in moved.rolled]
        if moved.rolled and moved.rolled[-1] == 1:
            events.append(f"{who} loses the turn total")
        elif parse_action(action) == HOLD:
            events.append(f"{who} banks {pos.turn}")
        if moved.over:
            events.append(f"{who} reaches {moved.position.me} and wins")
            result = 1.0 if pos.player == 0 else 0.0
            return Step(moved.position, True, pos.player, tuple(events), result)
        return Step(moved.position, False, moved.position.player, tuple(events))

    def solve(
        self,
        rules: PigRules,
        tolerance: float | None = None,
        plot: str | None = None,
        **options: Any,
    ) -> Report:
        """The first player's win probability (stored solution, or a solve at ``tolerance``)."""
        from diceopt.output import check_plot_path, write_plot

        if tolerance is not None and not 0 < tolerance < 1:
            raise InputError(f"--tolerance must be between 0 and 1, got {tolerance}")
        check_plot_path(plot)
        sol = solved(rules) if tolerance is None else solve_pig(rules, tolerance=tolerance)
        lines = [
            f"Pig: goal {rules.goal}, {rules.sides}-sided die, both players optimal",
            f"{rules.num_nodes:,} nodes (mover's point of view); "
            + ("loaded from the cache" if sol.loaded else f"solved in {sol.solve_seconds:.2f} s")
            + f" ({sol.sweeps} sweeps, residual {sol.residual:.1e})",
        ]
        if plot:
            write_plot(lambda: plot_boundary(sol, plot), plot)
            lines.append(f"roll/hold boundary written to {plot}")
        data = {
            "compile_seconds": sol.compile_seconds,
            "solve_seconds": sol.solve_seconds,
            "states": rules.num_nodes,
            "sweeps": sol.sweeps,
            "residual": sol.residual,
            "loaded": sol.loaded,
            "plot": plot,
        }
        return Report(sol.value, data, lines)

    def simulate(
        self, rules: PigRules, games: int, rng: np.random.Generator, **options: Any
    ) -> Report:
        """Seeded games of mutual optimal play on the engine's simulator (first player's wins)."""
        from diceopt.simulate import simulate

        sol = solved(rules)
        outcomes = simulate(graph_for(rules), sol.policy, games, rng, objective=win_objective())
        return self.simulation_report(outcomes, sol.value)

    def commands(self) -> tuple[Command, ...]:
        """``boundary``: the turn total from which to hold, per pair of scores; ``fair``:
        the compensation for the second player (the race solver on ``pig.toml``)."""
        from diceopt.games.families.race import fair_command

        return (
            fair_command(race_solved),
            Command(
                "boundary",
                "the turn total from which to hold, per pair of scores",
                run_boundary,
                (
                    Parameter(
                        "step",
                        f"score step of the table (default {BOUNDARY_STEP}; 1 for goals to 20)",
                        type=int,
                    ),
                    Parameter("plot", "draw the boundary (png, svg or pdf)", metavar="FILE"),
                ),
            ),
        )

    def env_codec(self, rules: PigRules) -> Any:
        """Environments: ``hold``, ``roll``; entries seen by ``viewer``: own banked points,
        the other player's, and the turn total at risk (the mover's; environments add who
        moves)."""
        from diceopt.games.codec import Codec, observation

        nvec = (rules.goal + rules.sides, rules.goal + rules.sides, rules.goal)
        fields = ("my points", "opponent's points", "turn total")

        def encode(pos: Any, viewer: int = 0) -> np.ndarray:
            mine = pos.player == viewer
            me, other = (pos.me, pos.opponent) if mine else (pos.opponent, pos.me)
            return observation([me, other, pos.turn], nvec)

        return Codec((HOLD, ROLL), nvec, fields, encode)

    def exact_evaluation(
        self, rules: PigRules, choose: Callable[[Any, list[str]], str], seat: int = 1
    ) -> tuple[float, int]:
        """The policy in ``seat`` against the optimal player, exactly (the seat's chance
        of winning). Pig's graph is written from the mover's point of view (one node
        serves both players), so this runs on two copies of it: copy 0 where the first
        player moves, copy 1 the second; a hand-over edge crosses copies."""
        from diceopt.engine import compile_arrays, evaluate_policy
        from diceopt.engine.compile import DECISION

        g = graph_for(rules)
        sol = solved(rules)
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
        optimal = sol.policy
        policy = np.concatenate([optimal, np.where(optimal >= 0, optimal + m, -1)])
        decisions = np.flatnonzero(g.kind == DECISION)
        offset = 0 if seat == 1 else n
        for s in decisions.tolist():
            me, opponent, turn, _ = decode_node(rules.goal, s)
            action = choose(PigPosition(me, opponent, turn, seat - 1), [HOLD, ROLL])
            policy[s + offset] = (
                int(g.start[s]) + (0 if action == HOLD else 1) + (m if seat == 2 else 0)
            )
        value = float(evaluate_policy(doubled, policy, sol.solution.objective).values[0])
        return (value if seat == 1 else 1.0 - value), len(decisions)

    def main_job(self, out: Callable[[str], None]) -> None:
        """The published Pig figure, reproduced."""
        rules = PigRules()
        sol = solved(rules)
        out("== Pig (goal 100, six-sided die), two players, each maximising P(win) ==")
        out(f"first player's win probability under optimal play: {sol.value:.9f}")
        out("(Neller & Presser 2004 publish about 0.5306)")
        how = (
            "loaded from the cache"
            if sol.loaded
            else f"build {sol.compile_seconds:.2f} s, value iteration {sol.solve_seconds:.2f} s"
        )
        out(f"{rules.num_nodes:,} nodes (mover's point of view); {how}")


def run_boundary(rules: PigRules, args: Any) -> CommandOutput:
    """``diceopt pig boundary``: the hold-from table (or JSON) and an optional plot."""
    import math

    from diceopt.output import check_plot_path, write_plot

    goal = rules.goal
    step = args.step if args.step is not None else (BOUNDARY_STEP if goal > 20 else 1)
    if step < 1:
        raise InputError(f"--step must be at least 1, got {step}")
    check_plot_path(args.plot)
    sol = solved(rules)
    hold_from, exceptions = sol.boundary()
    if args.plot:
        write_plot(lambda: plot_boundary(sol, args.plot), args.plot)
    table = [[None if math.isnan(x) else int(x) for x in row] for row in hold_from.tolist()]
    data = {
        "game": "pig",
        "rules": rules.describe(),
        "value": sol.value,
        "hold_from": table,
        "exceptions": exceptions,
        "plot": args.plot,
    }
    scores = [s for s in range(0, goal, step) if rules.possible_total(s)]
    lines = [
        f"Pig, goal {goal}, d{rules.sides}: hold once the turn total reaches the number "
        "(rows: your score, columns: opponent's score)",
        "you\\opp " + "".join(f"{o:>5}" for o in scores),
    ]
    for m in scores:
        cells = "".join(f"{int(hold_from[m, o]):>5}" for o in scores)
        lines.append(f"{m:>7} {cells}")
    lines.append(
        f"{exceptions} (score, score, turn total) positions above the boundary where rolling "
        "is optimal again"
    )
    if args.plot:
        lines.append(f"boundary plot written to {args.plot}")
    return CommandOutput(data, lines)


SPEC = PigSpec()
