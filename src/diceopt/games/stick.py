"""Stick or reroll, the classic course dice game (RULES §1), on the generic engine.

The state is the multiset of dice shown; points so far do not change the best move.
To keep the graph small the choice of which dice to hold is written as a chain of
decisions through the keep lattice instead of one edge per subset:

- ``("roll", R)``: stick (score R, game over) or pay the penalty to reroll;
- ``("drop", R)``: put back one die of R (holding all of R would be sticking);
- ``("sub", K)``: hold exactly K, or put back one more die;
- ``("keep", K)``: roll one of the missing dice (chance), until n dice show.

Multisets are flat indices of a :class:`~diceopt.dice.KeepLattice`.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from diceopt import storage
from diceopt.advice import Advice, rank_actions
from diceopt.dice import Dice, KeepLattice, count_multisets
from diceopt.engine import (
    Chance,
    CompiledGame,
    Decision,
    Solution,
    Terminal,
    compile_game,
    extract_policy,
    solve,
)
from diceopt.errors import InputError
from diceopt.games.contract import GameSpec, Parameter, Report, Step, check_variant_params
from diceopt.lazy import numpy as np
from diceopt.notation import parse_int, parse_number, parse_numbers, split_fields
from diceopt.progress import Stage

STICK, REROLL = "stick", "reroll"
MAX_MULTISETS = 400_000  # keep-lattice size limit: about a minute of solving
MAX_POINTS = 1e12  # largest total (points) kept exact enough in float64 sums
TABLE_LIMIT = 500  # rolls printed by solve without --table
DISCOUNTED_AGENTS = ((0.96, 0.1), (0.97, 0.001))  # (discount, threshold) of course agents
END = ("end", -1)


def _json_number(x: float) -> int | float:
    """``x`` as an int when it is a whole number (JSON ``6``, not ``6.0``), else a float."""
    x = float(x)
    return int(x) if x.is_integer() else x


@dataclass(frozen=True)
class StickRules:
    """Parameters of stick or reroll: dice count, sides, face values, bias, reroll penalty."""

    dice: int = 3
    sides: int = 6
    values: tuple[float, ...] | None = None
    bias: tuple[float, ...] | None = None
    penalty: float = 1.0

    def __post_init__(self) -> None:
        if not isinstance(self.dice, int) or self.dice < 1:
            raise InputError(f"the number of dice must be a positive integer, got {self.dice}")
        if not isinstance(self.sides, int) or self.sides < 2:
            raise InputError(f"a die needs at least 2 sides, got {self.sides}")
        held = count_multisets(self.dice, self.sides + 1)  # multisets of 0..dice dice
        if held > MAX_MULTISETS:
            raise InputError(
                f"{self.dice} dice with {self.sides} sides give {held:,} sets of held dice; "
                f"at most {MAX_MULTISETS:,} are supported (10 dice x 10 sides: 184,756)"
            )
        if not np.isfinite(self.penalty) or not 0 <= self.penalty <= MAX_POINTS:
            raise InputError(f"the reroll penalty must be 0 to {MAX_POINTS:g}, got {self.penalty}")
        largest = max(abs(v) for v in self.die.values)  # validates values and bias
        if largest > MAX_POINTS / self.dice:
            raise InputError(
                f"face values up to {largest:g} are too large: with {self.dice} dice each face "
                f"value must be at most {MAX_POINTS / self.dice:g} in size"
            )

    @cached_property
    def die(self) -> Dice:
        """The die every position uses."""
        return Dice.make(
            self.sides,
            list(self.values) if self.values is not None else None,
            list(self.bias) if self.bias is not None else None,
        )

    @cached_property
    def lattice(self) -> KeepLattice:
        """Multisets of 0..dice dice and their add/remove edges."""
        return KeepLattice(self.dice, self.sides)

    def describe(self) -> dict[str, Any]:
        """The parameters as plain JSON-ready data."""
        return {
            "dice": self.dice,
            "sides": self.sides,
            "values": list(self.die.values),
            "bias": list(self.die.probs),
            "penalty": self.penalty,
        }

    def score(self, counts: np.ndarray) -> float:
        """Points for sticking with a full roll (count per face): repeated faces flip."""
        vals = self.die.values
        k = self.sides
        return float(
            sum(c * (vals[k - 1 - f] if c >= 2 else vals[f]) for f, c in enumerate(counts))
        )

    # --- text forms -------------------------------------------------------------------

    def face_of(self, value: float) -> int:
        """Face index of a face value; InputError if no face shows it."""
        for f, v in enumerate(self.die.values):
            if v == value:
                return f
        shown = " ".join(format_value(v) for v in self.die.values)
        raise InputError(f"{format_value(value)} is not a face of these dice ({shown})")

    def counts_of(self, values: Iterable[float]) -> np.ndarray:
        """Count vector of some face values."""
        counts = np.zeros(self.sides, dtype=np.int64)
        for v in values:
            counts[self.face_of(v)] += 1
        return counts

    def values_of(self, counts: np.ndarray) -> tuple[float, ...]:
        """Sorted face values of a count vector (sorted by value, as the course does)."""
        return tuple(
            sorted(v for f, v in enumerate(self.die.values) for _ in range(int(counts[f])))
        )

    def parse_dice(self, text: str) -> np.ndarray:
        """Count vector of a full roll written as face values, e.g. ``"1 3 3"``."""
        counts = self.counts_of(parse_numbers(text))
        if counts.sum() != self.dice:
            raise InputError(f"expected {self.dice} dice, got {int(counts.sum())}: {text!r}")
        return counts


def format_value(v: float) -> str:
    """A face value as text: integers without a decimal point."""
    return str(int(v)) if float(v).is_integer() else f"{v:g}"


StickState = tuple[str, int]  # an engine state: (tag, lattice index), see the module docstring


class StickGame:
    """Stick or reroll written to the engine's game protocol (optimal play chooses freely).

    With ``policy`` (a map from roll index to the held multiset's index, or None for
    stick) every roll has that single action: solving the game then evaluates the policy.
    """

    def __init__(self, rules: StickRules, policy: dict[int, int | None] | None = None) -> None:
        self.rules = rules
        self.policy = policy
        lat = rules.lattice
        self._n = rules.dice
        self._size = lat.size.tolist()
        self._add = lat.add_die.tolist()
        self._remove = lat.remove_die.tolist()
        self._probs = list(rules.die.probs)
        self._score = [
            rules.score(c) if s == self._n else 0.0 for c, s in zip(lat.counts, self._size)
        ]

    def initial_state(self) -> StickState:
        """Nothing kept yet: roll all the dice."""
        return ("keep", 0)

    def node(self, state: StickState) -> Terminal | Chance | Decision:
        """The node at ``state`` (see the module docstring)."""
        tag, i = state
        if tag == "keep":
            return Chance([(p, 0.0, self.keep_state(j)) for p, j in zip(self._probs, self._add[i])])
        if tag == "roll":
            stick = (STICK, self._score[i], END)
            if self.policy is not None:
                held = self.policy[i]
                if held is None:
                    return Decision([stick])
                return Decision([(REROLL, -self.rules.penalty, self.keep_state(held))])
            return Decision([stick, (REROLL, -self.rules.penalty, ("drop", i))])
        if tag in ("drop", "sub"):
            actions: list[tuple[str | int, float, StickState]] = (
                [("hold", 0.0, self.keep_state(i))] if tag == "sub" else []
            )
            for f, j in enumerate(self._remove[i]):
                if j >= 0:
                    actions.append((f, 0.0, ("sub", j)))
            return Decision(actions)
        return Terminal(0.0)

    def keep_state(self, i: int) -> StickState:
        """State after holding multiset i: a full roll if it has every die, else a keep."""
        return ("roll" if self._size[i] == self._n else "keep", i)


@dataclass
class _Solved:
    """The engine objects of a fresh solve."""

    game: StickGame
    graph: CompiledGame[StickState]
    solution: Solution
    policy: np.ndarray


def _solve_graph(
    rules: StickRules, progress: Callable[[int], None] | None = None
) -> tuple[_Solved, float]:
    """Build and solve the engine graph; the objects and the build seconds."""
    import time

    t0 = time.perf_counter()
    game = StickGame(rules)
    graph = compile_game(game, progress)
    compile_seconds = time.perf_counter() - t0
    solution = solve(graph)
    return _Solved(game, graph, solution, extract_policy(solution)), compile_seconds


@dataclass
class StickSolution:
    """The solved game: expected points still to come, per multiset of the keep lattice.

    ``values[i]`` (points) is the value of the full roll i, or of holding the partial
    multiset i before rolling the rest (penalty not included). ``best[i]`` is the
    optimal hold of full roll i (a lattice index; i itself means stick; -1 for partial
    multisets). These two arrays answer every question and are what the table cache
    stores; ``game``, ``graph``, ``solution`` and ``policy`` (the engine's objects) are
    rebuilt on first use when the solution was loaded.
    """

    rules: StickRules
    values: np.ndarray
    best: np.ndarray
    compile_seconds: float
    solve_seconds: float
    loaded: bool = False
    _engine: _Solved | None = field(default=None, repr=False)

    @classmethod
    def from_engine(
        cls, rules: StickRules, solved: _Solved, compile_seconds: float
    ) -> StickSolution:
        """Lattice values and best holds read off a solved engine graph."""
        lat = rules.lattice
        g, game, pol = solved.graph, solved.game, solved.policy
        assert g.states is not None and g.actions is not None  # compile_game names them
        values = np.full(len(lat.counts), np.nan)
        best = np.full(len(lat.counts), -1, dtype=np.int64)
        for i in range(len(lat.counts)):
            node = g.index.get(game.keep_state(i)) if g.index is not None else None
            if node is not None:
                values[i] = solved.solution.values[node]
        for i in lat.full():
            s = g.state_id(("roll", int(i)))
            while True:
                e = int(pol[s])
                action, s = g.actions[e], int(g.target[e])
                if action == STICK:
                    best[i] = i
                    break
                if action == "hold":
                    best[i] = g.states[s][1]
                    break
        return cls(rules, values, best, compile_seconds, solved.solution.seconds, _engine=solved)

    def _engine_objects(self) -> _Solved:
        if self._engine is None:
            self._engine, _ = _solve_graph(self.rules)
        return self._engine

    @property
    def game(self) -> StickGame:
        """The engine game (rebuilt on first use when loaded)."""
        return self._engine_objects().game

    @property
    def graph(self) -> CompiledGame:
        """The compiled engine graph (rebuilt on first use when loaded)."""
        return self._engine_objects().graph

    @property
    def solution(self) -> Solution:
        """The engine solution (re-solved on first use when loaded)."""
        return self._engine_objects().solution

    @property
    def policy(self) -> np.ndarray:
        """The engine policy (re-solved on first use when loaded)."""
        return self._engine_objects().policy

    @property
    def value(self) -> float:
        """Expected final score of optimal play from the first roll (points)."""
        return float(self.values[0])

    def roll_value(self, counts: np.ndarray) -> float:
        """Expected points still to come from a roll showing ``counts``, before choosing.

        Penalties already paid are not included: add the points so far for the final score.
        """
        return float(self.values[self.rules.lattice.index(counts)])

    def hold_value(self, roll: np.ndarray, held: np.ndarray) -> float:
        """Expected points still to come after holding ``held`` out of ``roll`` (all = stick).

        Includes this reroll's penalty, not the ones already paid.
        """
        roll = np.asarray(roll)
        held = np.asarray(held)
        if (held > roll).any():
            raise InputError("you can only hold dice that show")
        if (held == roll).all():
            return self.rules.score(roll)
        return -self.rules.penalty + float(self.values[self.rules.lattice.index(held)])

    def best_hold(self, roll: np.ndarray) -> np.ndarray:
        """The optimal dice to hold (count vector); equal to ``roll`` means stick."""
        lat = self.rules.lattice
        return lat.counts[int(self.best[lat.index(roll)])].copy()

    def table(self) -> list[dict[str, Any]]:
        """Every roll with its optimal hold and values, in lattice order."""
        rows = []
        lat = self.rules.lattice
        for i in lat.full():
            counts = lat.counts[i]
            hold = self.best_hold(counts)
            rows.append(
                {
                    "dice": list(self.rules.values_of(counts)),
                    "action": STICK if (hold == counts).all() else REROLL,
                    "hold": list(self.rules.values_of(hold)),
                    "value": self.roll_value(counts),
                    "stick_score": self.rules.score(counts),
                }
            )
        return rows


def solve_stick(rules: StickRules, progress: Callable[[int], None] | None = None) -> StickSolution:
    """Solve stick or reroll exactly: the value of every roll and the optimal policy.

    ``progress`` (optional) is called with the number of graph nodes built so far.
    """
    solved_graph, compile_seconds = _solve_graph(rules, progress)
    return StickSolution.from_engine(rules, solved_graph, compile_seconds)


def evaluate_stick_policy(rules: StickRules, policy: dict[int, int | None]) -> float:
    """Exact expected final score (points) of a policy: roll index -> held index or None.

    Every roll of the policy's game has exactly one action, so solving it evaluates the
    policy; a policy that never sticks raises SolveError (its value diverges).
    """
    return solve(compile_game(StickGame(rules, policy))).value


def course_hold_candidates(rules: StickRules) -> tuple[np.ndarray, np.ndarray]:
    """For every roll, the distinct holds in the course's action order.

    The course lists actions as tuples of dice indices, by size then lexicographically
    (``itertools.combinations``); holding every index is sticking and comes last.
    Returns (roll flat indices, candidate held flat indices padded with -1); the last
    real candidate of each row is the roll itself (stick).
    """
    lat = rules.lattice
    n = rules.dice
    index_sets = [c for r in range(n + 1) for c in itertools.combinations(range(n), r)]
    rolls = lat.full()
    rows = []
    for i in rolls:
        faces = [f for f, c in enumerate(lat.counts[i]) for _ in range(int(c))]
        seen: dict[int, None] = {}
        for held in index_sets:
            counts = np.zeros(rules.sides, dtype=np.int64)
            for d in held:
                counts[faces[d]] += 1
            seen.setdefault(lat.index(counts), None)
        rows.append(list(seen))
    width = max(len(r) for r in rows)
    out = np.full((len(rows), width), -1, dtype=np.int64)
    for r, row in enumerate(rows):
        out[r, : len(row)] = row
    return rolls, out


def discounted_agent_policy(
    rules: StickRules, discount: float, threshold: float
) -> dict[int, int | None]:
    """The policy of the discounted value-iteration agents of earlier course solutions.

    Synchronous value iteration over the rolls with discount ``discount`` from V = 0,
    stopped when no value changes by ``threshold`` or more; then greedy in the course's
    action order (first best action wins). Returns roll index -> held index (None = stick).
    """
    lat = rules.lattice
    start, target, prob = lat.keep_roll(rules.die.prob_array)
    first_roll = lat.offset[rules.dice]
    rolls, candidates = course_hold_candidates(rules)
    stick_score = np.array([rules.score(lat.counts[i]) for i in rolls])
    is_stick = candidates == rolls[:, None]
    valid = candidates >= 0
    values = np.zeros(len(rolls))

    def action_values(v: np.ndarray) -> np.ndarray:
        expected = np.add.reduceat(prob * v[target - first_roll], start[:-1])
        q = -rules.penalty + discount * expected[np.where(valid, candidates, 0)]
        q = np.where(is_stick, stick_score[:, None], q)
        return np.where(valid, q, -np.inf)

    for _ in range(1_000_000):
        new = action_values(values).max(axis=1)
        delta = np.abs(new - values).max()
        values = new
        if delta < threshold:
            break
    best = candidates[np.arange(len(rolls)), action_values(values).argmax(axis=1)]
    return {int(r): (None if b == r else int(b)) for r, b in zip(rolls, best)}


def optimal_policy_map(solution: StickSolution) -> dict[int, int | None]:
    """The optimal policy as roll index -> held index (None = stick)."""
    lat = solution.rules.lattice
    out: dict[int, int | None] = {}
    for i in lat.full():
        hold = solution.best_hold(lat.counts[i])
        out[int(i)] = None if (hold == lat.counts[i]).all() else lat.index(hold)
    return out


# --- positions and actions ----------------------------------------------------------------

POSITION_EXAMPLE = "dice 1 3 3"
POSITION_FIELDS = ("dice", "points")
_SOLVED: dict[StickRules, StickSolution] = {}


@dataclass(frozen=True)
class StickPosition:
    """The dice shown (count per face) and, optionally, the points so far.

    With ``points`` None, values are points still to come; with points, final scores.
    """

    counts: tuple[int, ...]
    points: float | None = None

    @property
    def roll(self) -> np.ndarray:
        """The count vector of the dice shown."""
        return np.array(self.counts, dtype=np.int64)


def table_key(rules: StickRules) -> storage.TableKey:
    """The storage key of a solution: ``NdK`` for plain dice with penalty 1, else with a
    digest of the full rules (values, bias, penalty) appended."""
    variant = f"{rules.dice}d{rules.sides}"
    if rules != StickRules(rules.dice, rules.sides):
        text = json.dumps(rules.describe(), sort_keys=True)
        variant += "-" + hashlib.sha256(text.encode()).hexdigest()[:16]
    size = len(rules.lattice.counts)
    return storage.TableKey(
        "stick", variant, "expected", 0.0, "float64", shape=(size,), extra=("best",)
    )


def solved(rules: StickRules, cache_dir: str | None = None) -> StickSolution:
    """The solution of ``rules`` (values and best keeps): once per process, loaded from
    the table cache when stored there, else solved and stored (``cache_dir`` overrides
    the cache directory)."""

    def to_table(sol: StickSolution) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        times = storage.solve_times(sol.compile_seconds, sol.solve_seconds)
        meta = {**times, "value": sol.value, "rules": rules.describe()}
        return {"values": sol.values, "best": sol.best}, meta

    def from_table(stored: storage.Stored) -> StickSolution:
        h = stored.header
        if h.get("rules") != rules.describe():
            storage.warn("a cached stick table has other rules than its name says; re-solving")
            return solve_stick(rules)
        best = stored.arrays["best"].astype(np.int64)
        times = storage.stored_times(h)
        return StickSolution(rules, stored.arrays["values"], best, *times, loaded=True)

    return storage.solved_once(
        _SOLVED,
        rules,
        table_key(rules),
        lambda: solve_stick(rules),
        to_table,
        from_table,
        cache_dir,
    )


def parse_position(rules: StickRules, position: str) -> StickPosition:
    """A position ``dice 1 3 3`` (the word ``dice`` optional), optionally ``| points -2``."""
    fields = (
        split_fields(position, POSITION_FIELDS, POSITION_EXAMPLE)
        if "|" in position or position.strip().lower().startswith(POSITION_FIELDS)
        else {"dice": position}
    )
    if "dice" not in fields:
        raise InputError(f"the position needs the dice shown, e.g. '{POSITION_EXAMPLE}'")
    counts = rules.parse_dice(fields["dice"])
    points = None
    if "points" in fields:
        points = check_points(parse_number(fields["points"]))
    return StickPosition(tuple(int(c) for c in counts), points)


def position_from_json(rules: StickRules, data: Mapping[str, Any]) -> StickPosition:
    """A position ``{"dice": [1, 3, 3], "points": -2}`` (points optional)."""
    unknown = set(data) - set(POSITION_FIELDS)
    if unknown:
        raise InputError(f"unknown position field(s) {sorted(unknown)}; fields: dice, points")
    dice = data.get("dice")
    if not isinstance(dice, list) or not all(
        isinstance(v, int | float) and not isinstance(v, bool) for v in dice
    ):
        raise InputError('"dice" must be a list of face values, e.g. {"dice": [1, 3, 3]}')
    counts = rules.counts_of(float(v) for v in dice)
    if counts.sum() != rules.dice:
        raise InputError(f"expected {rules.dice} dice, got {len(dice)}")
    points = data.get("points")
    if points is not None:
        if not isinstance(points, int | float) or isinstance(points, bool):
            raise InputError('"points" must be a number')
        points = check_points(points)
    return StickPosition(tuple(int(c) for c in counts), points)


def check_points(points: float) -> float:
    """The points so far as a float; InputError unless finite and at most MAX_POINTS in
    size (totals beyond that lose the precision that values and regrets need)."""
    try:
        value = float(points)
    except OverflowError:  # an int too large for a float
        value = math.inf
    if not math.isfinite(value) or abs(value) > MAX_POINTS:
        raise InputError(
            f"points must be between {-MAX_POINTS:g} and {MAX_POINTS:g}, got {points:g}"
        )
    return value


def format_position(rules: StickRules, pos: StickPosition) -> str:
    """Text of a position: ``dice 1 3 3`` (``| points P`` when known)."""
    text = "dice " + " ".join(format_value(v) for v in rules.values_of(pos.roll))
    return text if pos.points is None else f"{text} | points {format_value(pos.points)}"


def format_hold(rules: StickRules, roll: np.ndarray, held: np.ndarray) -> str:
    """``stick`` when all dice are held, else ``hold V ...`` (``hold -`` for none)."""
    if (np.asarray(held) == np.asarray(roll)).all():
        return STICK
    shown = " ".join(format_value(v) for v in rules.values_of(held))
    return f"hold {shown or '-'}"


def parse_hold(rules: StickRules, roll: np.ndarray, text: str) -> np.ndarray:
    """Held count vector from ``stick``, ``hold 3 3``, ``hold -`` or just ``3 3``.

    An empty text is an error, not "hold nothing": rerolling everything is ``hold -``.
    """
    words = text.strip().lower()
    if not words:
        raise InputError("type the dice to hold (e.g. 'hold 3 3'), 'hold -' or 'stick'")
    if words in (STICK, "all"):
        return np.asarray(roll).copy()
    if words.startswith("hold"):
        words = words[4:].strip()
    if words in ("-", "none"):
        return np.zeros(rules.sides, dtype=np.int64)
    if not words:
        raise InputError("say which dice to hold, e.g. 'hold 3 3', or 'hold -' for none")
    try:
        numbers = parse_numbers(words)
    except InputError:
        raise InputError(
            f"unknown action {text.strip()!r}: type 'stick', 'hold 3 3' or 'hold -'"
        ) from None
    held = rules.counts_of(numbers)
    if (held > roll).any():
        raise InputError(f"cannot hold {text.strip()!r}: those dice do not all show")
    return held


def hold_options(roll: np.ndarray) -> list[np.ndarray]:
    """Every distinct hold of a roll (sub-multisets), the roll itself (stick) first."""
    ranges = [range(int(c), -1, -1) for c in roll]
    return [np.array(h, dtype=np.int64) for h in itertools.product(*ranges)]


def reroll(rules: StickRules, held: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The full roll (count vector) after rolling every die not in ``held`` with ``rng``."""
    new = np.array(held, dtype=np.int64)
    faces = rng.choice(rules.sides, size=rules.dice - int(new.sum()), p=rules.die.prob_array)
    np.add.at(new, faces, 1)
    return new


def play_games(solution: StickSolution, games: int, rng: np.random.Generator) -> np.ndarray:
    """Final scores (points) of ``games`` seeded games under optimal play."""
    from diceopt.simulate import simulate

    return simulate(solution.graph, solution.policy, games, rng)


class OptimalAgent:
    """An agent for the course's ``DiceGame`` interface that plays optimally.

    ``OptimalAgent(game)`` reads the game's parameters (``_dice``, ``_sides``,
    ``_values``, ``_bias``, ``_penalty``) and solves once; ``play(state)`` takes the
    sorted tuple of dice values shown and returns the tuple of dice indices to hold
    (all indices = stick).
    """

    def __init__(self, game: Any) -> None:
        values = getattr(game, "_values", None)
        bias = getattr(game, "_bias", None)
        self.game = game
        self.rules = StickRules(
            dice=int(game._dice),
            sides=int(game._sides),
            values=None if values is None else tuple(float(v) for v in values),
            bias=None if bias is None else tuple(float(p) for p in bias),
            penalty=float(getattr(game, "_penalty", 1.0)),
        )
        self.solution = solved(self.rules)

    def play(self, state: Sequence[float]) -> tuple[int, ...]:
        """Indices of the dice to hold in ``state`` (holding every index means stick)."""
        roll = self.rules.counts_of(state)
        if roll.sum() != self.rules.dice:
            raise InputError(f"expected {self.rules.dice} dice, got {len(state)}: {state}")
        remaining = self.solution.best_hold(roll)
        held = []
        for i, v in enumerate(state):
            f = self.rules.face_of(v)
            if remaining[f] > 0:
                remaining[f] -= 1
                held.append(i)
        return tuple(held)


# --- the game contract ---------------------------------------------------------------------


class StickSpec(GameSpec):
    """Stick or reroll in the registry (see ``diceopt.games.contract``)."""

    id = "stick"
    title = "Stick or reroll"
    env_name = "Stick"
    summary = "stick or reroll (the course dice game): hold dice, pay to reroll"
    rules_help = (
        "Roll n dice. Either stick: every value that shows on two or more dice flips to\n"
        "its opposite face (with 1..6: 1<->6, 2<->5, 3<->4), the total is added to your\n"
        "points and the game ends; or hold any dice, pay the penalty and reroll the rest.\n"
        "Maximise the expected final points. Positions: 'dice 1 3 3' (values still to\n"
        "come) or 'dice 1 3 3 | points -2' (final scores). Actions: 'stick',\n"
        "'hold 3 3', 'hold -' (reroll everything)."
    )
    units = "expected final score (points)"
    parameters = (
        Parameter("dice", "number of dice (RULES default 3)", type=int),
        Parameter("sides", "sides per die (default 6)", type=int),
        Parameter(
            "values",
            "face values, e.g. 1,2,3,4,5,6 or 1 2 3 4 5 6 (default 1..sides)",
            type=parse_numbers,
            many=True,
        ),
        Parameter(
            "bias",
            "face probabilities summing to 1, e.g. 1/6 ... or 0.1,0.2,... (default uniform)",
            type=parse_numbers,
            many=True,
        ),
        Parameter("penalty", "points paid per reroll (default 1)", type=parse_number),
    )
    variants = {
        "3d6": "three six-sided dice, reroll penalty 1 (the course default)",
        "2d3": "two three-sided dice, reroll penalty 1",
        "6d6": "six six-sided dice, reroll penalty 1",
    }
    position_example = POSITION_EXAMPLE
    solve_options = (Parameter("table", "print every roll, however many", flag=True),)

    def rules(self, variant: str | None = None, **params: Any) -> StickRules:
        """Rules of a variant ``NdK`` (N dice with K sides, penalty 1); the parameters set
        the rest (dice and sides only as the name says: InputError otherwise)."""
        text = (variant or "3d6").strip().lower()
        dice, _, sides = text.partition("d")
        if not (dice.isdigit() and sides.isdigit()):
            raise InputError(f"unknown stick variant {variant!r}; use NdK, e.g. 3d6")
        base = {"dice": parse_int(dice), "sides": parse_int(sides)}
        check_variant_params(variant, base, params)
        for key in ("values", "bias"):
            if params.get(key) is not None:
                params[key] = tuple(float(v) for v in params[key])
        return StickRules(**{**base, **params})

    def parse_text(self, rules: StickRules, text: str) -> StickPosition:
        """``dice 1 3 3`` or ``dice 1 3 3 | points -2``."""
        return parse_position(rules, text)

    def parse_json(self, rules: StickRules, data: Mapping[str, Any]) -> StickPosition:
        """``{"dice": [1, 3, 3], "points": -2}``."""
        return position_from_json(rules, data)

    def format(self, rules: StickRules, pos: StickPosition) -> str:
        """``dice 1 3 3`` (``| points P`` when known)."""
        return format_position(rules, pos)

    def to_json(self, rules: StickRules, pos: StickPosition) -> dict[str, Any]:
        """``{"dice": [...], "points": ...}`` (points only when known); whole numbers as
        JSON integers (dice 1 4 6, not 1.0 4.0 6.0)."""
        out: dict[str, Any] = {"dice": [_json_number(v) for v in rules.values_of(pos.roll)]}
        if pos.points is not None:
            out["points"] = _json_number(pos.points)
        return out

    def new_position(self, rules: StickRules, rng: np.random.Generator) -> StickPosition:
        """The first roll, 0 points."""
        roll = reroll(rules, np.zeros(rules.sides, dtype=np.int64), rng)
        return StickPosition(tuple(int(c) for c in roll), 0.0)

    def advise(self, rules: StickRules, pos: StickPosition, **options: Any) -> Advice:
        """Every hold (stick first among equals) with its expected points, best first."""
        sol = solved(rules)
        roll = pos.roll
        holds = [(format_hold(rules, roll, h), sol.hold_value(roll, h)) for h in hold_options(roll)]
        value_is = "expected points still to come" if pos.points is None else self.units
        # ranked by the points to come: the points so far are the same for every action
        return Advice(rank_actions(holds, offset=pos.points or 0.0), value_is)

    def canonical_action(self, rules: StickRules, pos: StickPosition, text: str) -> str:
        """``stick``, ``hold 3 3`` or ``hold -`` from any accepted form (``3 3``, ``all``)."""
        return format_hold(rules, pos.roll, parse_hold(rules, pos.roll, text))

    def apply(
        self, rules: StickRules, pos: StickPosition, action: str, rng: np.random.Generator
    ) -> Step:
        """Stick ends the game; a hold pays the penalty and rerolls the other dice."""
        roll = pos.roll
        held = parse_hold(rules, roll, action)
        points = pos.points or 0.0
        if (held == roll).all():
            final = points + rules.score(roll)
            shown = " ".join(format_value(v) for v in rules.values_of(roll))
            events = (f"stick with {shown}: {format_value(rules.score(roll))} points",)
            done = StickPosition(pos.counts, final if pos.points is not None else None)
            return Step(done, True, 0, events, final)
        new = reroll(rules, held, rng)
        after = None if pos.points is None else points - rules.penalty
        shown = " ".join(format_value(v) for v in rules.values_of(new))
        return Step(
            StickPosition(tuple(int(c) for c in new), after), False, 0, (f"rolled {shown}",)
        )

    def solve(self, rules: StickRules, table: bool = False, **options: Any) -> Report:
        """The value of every roll, the optimal holds and the expectation from the first roll."""
        with Stage("solving stick or reroll (or loading the stored solution)"):
            sol = solved(rules)
        rows = sol.table()
        shown = len(rows) <= TABLE_LIMIT or table
        lines = []
        if shown:
            lines.append(f"{'dice':<24} {'action':<28} {'value':>12} {'stick':>8}")
            for row in rows:
                dice = " ".join(format_value(v) for v in row["dice"])
                hold = " ".join(format_value(v) for v in row["hold"]) or "-"
                action = "stick" if row["action"] == STICK else f"hold {hold}"
                lines.append(
                    f"{dice:<24} {action:<28} {row['value']:>12.6f} {row['stick_score']:>8g}"
                )
        else:
            lines.append(f"({len(rows)} rolls; pass --table to print them all)")
        how = (
            "loaded" if sol.loaded else f"solved in {sol.compile_seconds + sol.solve_seconds:.3f} s"
        )
        lines.append(
            f"{rules.dice} dice x {rules.sides} sides, penalty {rules.penalty:g}: "
            f"{len(rows)} rolls; {how}"
        )
        data = {
            "rolls": len(rows),
            "loaded": sol.loaded,
            "solve_seconds": sol.solve_seconds,
            "policy": rows if shown else None,
        }
        return Report(sol.value, data, lines)

    def simulate(
        self, rules: StickRules, games: int, rng: np.random.Generator, **options: Any
    ) -> Report:
        """Seeded games of optimal play on the engine's simulator (final scores, points)."""
        sol = solved(rules)
        return self.simulation_report(play_games(sol, games, rng), sol.value)

    def env_codec(self, rules: StickRules) -> Any:
        """Environments: ``stick``, ``hold -`` and ``hold V ...`` for every multiset of
        fewer than n dice (lattice order); entries: how many dice show each face (0..n)."""
        from diceopt.games.codec import Codec, observation

        lat = rules.lattice
        holds = [
            "hold " + (" ".join(format_value(v) for v in rules.values_of(lat.counts[i])) or "-")
            for i in range(len(lat.counts))
            if lat.size[i] < rules.dice
        ]
        nvec = (rules.dice + 1,) * rules.sides
        fields = tuple(f"dice showing {format_value(v)}" for v in rules.die.values)

        def encode(pos: Any, viewer: int = 0) -> np.ndarray:
            return observation(list(pos.counts), nvec)

        return Codec((STICK, *holds), nvec, fields, encode, points=lambda pos: pos.points)

    def exact_evaluation(
        self, rules: StickRules, choose: Callable[[Any, list[str]], str], seat: int = 1
    ) -> tuple[float, int]:
        """The policy queried once per roll shown (points omitted: the choice may depend on
        the dice only), evaluated exactly (expected final score, points)."""
        lat = rules.lattice
        policy: dict[int, int | None] = {}
        for i in lat.full():
            pos = StickPosition(tuple(int(c) for c in lat.counts[i]), None)
            action = choose(pos, sorted(a.action for a in self.advise(rules, pos).actions))
            held = parse_hold(rules, pos.roll, action)
            policy[int(i)] = None if (held == pos.roll).all() else lat.index(held)
        return float(evaluate_stick_policy(rules, policy)), len(policy)

    def main_job(self, out: Callable[[str], None]) -> None:
        """3d6: the exact expectation and what discounted course agents leave behind."""
        import time

        rules = StickRules()
        out("== Stick or reroll (3 dice x 6 sides, penalty 1) ==")
        t0 = time.perf_counter()
        sol = solve_stick(rules)
        out(f"optimal expected score from the first roll: {sol.value:.9f}")
        out(f"solved exactly in {time.perf_counter() - t0:.3f} s (no discount, no threshold)")
        for discount, threshold in DISCOUNTED_AGENTS:
            value = evaluate_stick_policy(
                rules, discounted_agent_policy(rules, discount, threshold)
            )
            out(
                f"value-iteration agent (discount {discount}, threshold {threshold}): "
                f"{value:.9f}, loses {sol.value - value:.9f} points per game"
            )


SPEC = StickSpec()
