"""The push-your-luck rule family (RULES §9): rule files in TOML and their roll tables.

A game of the family: a player rolls dice, sets scoring combinations aside, then rolls
the rest or banks the turn total; a roll with nothing to set aside is a bust (the turn
total is lost); all dice set aside are "hot dice" (roll them all again). A rule file::

    family = "push-luck"
    name = "zilch"
    dice = 6                 # dice rolled at the start of a turn and after hot dice
    sides = 6
    players = 1              # 1: long-run expected score per turn; 2: win probability
    goal = 0                 # points that win a two-player race (0 for one player)
    bank_minimum = 300       # least turn total that may be banked
    bust_streak = 3          # busts in a row that cost bust_penalty (0: no penalty)
    bust_penalty = 500       # banked points lost on that bust

    [[combination]]
    kind = "single"          # one die; points by face 1..sides (0: that face scores nothing)
    points = [100, 0, 0, 0, 50, 0]

    [[combination]]
    kind = "of-a-kind"       # `count` dice showing one face; points by face
    count = 3
    points = [1000, 200, 300, 400, 500, 600]

    [[combination]]
    kind = "straight"        # one die of every face (uses `sides` dice)
    points = 1500

    [[combination]]
    kind = "pairs"           # `count` pairs; distinct = false: a face may make two pairs
    count = 3
    points = 1500

    [[combination]]
    kind = "nothing"         # a roll of all `dice` dice with no other combination
    points = 500

Each die of a roll counts in one combination at most; any disjoint set of combinations
from one roll may be set aside. :func:`check_file` lists every problem of a file, one
line each; :func:`load_rules` reads a file (or a shipped one by name: ``zilch``,
``farkle``, ``pig``); :func:`compile_rolls` tabulates every roll of 1..``dice`` dice with
the most points that can be set aside for each number of dice left.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import math
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from diceopt.errors import InputError
from diceopt.games.families import MAX_NAME_CHARS, parse_toml, read_rule_file
from diceopt.lazy import numpy as np

FAMILY = "push-luck"
SHIPPED = ("zilch", "farkle", "pig")
KINDS = ("single", "of-a-kind", "straight", "pairs", "nothing")
DICE_MAX = 10  # dice per roll (rolls of 10 six-sided dice: 3,003 outcomes)
SIDES_MAX = 12
POINTS_MAX = 10**7
ONE_PLAYER_STATES_MAX = 10**7  # streak x turn total (steps, up to the cap) x dice to roll
TWO_PLAYER_STATES_MAX = 2 * 10**8  # banked x banked x turn total x dice to roll
STATE_BYTES = 8  # one float64 value per state
OPTIONS_PER_SECOND = 1.5e8  # rough speed of a kernel (set-asides weighed per second, one core)
TOP_KEYS = {
    "family": "the rule family: push-luck",
    "name": "the game's name",
    "title": "a title for people",
    "dice": "dice rolled at the start of a turn",
    "sides": "sides of each die",
    "players": "1 or 2",
    "goal": "points that win a race",
    "bank_minimum": "least turn total that may be banked",
    "bust_streak": "busts in a row that cost bust_penalty",
    "bust_penalty": "banked points lost",
    "combination": "a scoring combination",
}
# the whole-number keys: (least, most, default)
NUMBERS = {
    "dice": (1, DICE_MAX, 6),
    "sides": (2, SIDES_MAX, 6),
    "players": (1, 2, 1),
    "goal": (0, POINTS_MAX, 0),
    "bank_minimum": (0, POINTS_MAX, 0),
    "bust_streak": (0, 100, 0),
    "bust_penalty": (0, POINTS_MAX, 0),
}
COMBINATION_KEYS = ("kind", "count", "points", "distinct")


@dataclass(frozen=True)
class Combination:
    """One scoring combination of a rule file.

    ``kind``: "single", "of-a-kind", "straight", "pairs" or "nothing"; ``count``: dice of
    one face (of-a-kind; 1 for single), pairs (pairs), dice used (straight: ``sides``;
    nothing: ``dice``); ``points``: by face 1..sides for single and of-a-kind (0: the face
    does not score), else one number (points); ``distinct``: pairs must show different
    faces.
    """

    kind: str
    count: int
    points: tuple[int, ...]
    distinct: bool = False


@dataclass(frozen=True)
class PushLuckRules:
    """A game of the push-your-luck family, as its rule file describes it (points)."""

    name: str  # e.g. "zilch"
    dice: int  # dice rolled at the start of a turn and after hot dice
    sides: int  # 6
    step: int  # points per scoring step: the gcd of every combination's points
    goal: int  # points to win a two-player race (0: no race, one player)
    players: int  # 1 (long-run expected score per turn) or 2 (win probability)
    bank_minimum: int  # least turn total that may be banked
    bust_streak: int  # busts in a row that cost bust_penalty (0: no penalty)
    bust_penalty: int  # banked points lost on that bust
    combinations: tuple[Combination, ...] = ()
    title: str = ""
    content_hash: str = field(default="", compare=False)

    def describe(self) -> dict[str, Any]:
        """The rules as plain JSON-ready data (points)."""
        data = asdict(self)
        data["combinations"] = [
            {
                "kind": c.kind,
                "count": c.count,
                "points": list(c.points) if len(c.points) > 1 else c.points[0],
                **({"distinct": True} if c.distinct else {}),
            }
            for c in self.combinations
        ]
        return data


@dataclass(frozen=True)
class RollTable:
    """Every roll of n dice (n = 1..dice) and the best set-aside per number of dice left."""

    dice: int
    outcome_start: np.ndarray  # int64 (dice + 2,): outcomes of n dice: [start[n], start[n+1])
    outcome_prob: np.ndarray  # float64 (O,): probability of each outcome given n dice
    option_start: np.ndarray  # int64 (O + 1,): options of outcome o: [start[o], start[o+1])
    option_points: np.ndarray  # int64 (K,): points set aside, in steps (points / step)
    option_dice: np.ndarray  # int64 (K,): dice left to roll; 0 = hot dice (roll `dice` again)


@dataclass(frozen=True)
class SetAside:
    """One way to set dice aside from a roll: the dice (faces, sorted), the points and
    the dice left to roll (0: hot dice)."""

    dice: tuple[int, ...]
    points: int
    left: int


# --- reading and checking a rule file ----------------------------------------------------


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_number(
    data: dict[str, Any], key: str, low: int, high: int, problems: list[str], default: int
) -> int:
    """The whole number ``data[key]`` in [low, high]; a problem line otherwise."""
    value = data.get(key, default)
    if not _whole(value) or not low <= value <= high:
        problems.append(f"{key} must be a whole number from {low} to {high}, got {value!r}")
        return default
    return value


def _check_combination(
    index: int, entry: Any, dice: int, sides: int, problems: list[str]
) -> Combination | None:
    """The combination of a ``[[combination]]`` table, or None with its problems."""
    where = f"combination {index + 1}"
    if not isinstance(entry, dict):
        problems.append(f"{where}: must be a table ([[combination]])")
        return None
    before = len(problems)
    for key in entry:
        if key not in COMBINATION_KEYS:
            problems.append(f"{where}: unknown key {key!r} (keys: {', '.join(COMBINATION_KEYS)})")
    kind = entry.get("kind")
    if kind not in KINDS:
        problems.append(f"{where}: unknown kind {kind!r} (kinds: {', '.join(KINDS)})")
        return None
    where = f"combination {index + 1} ({kind})"
    per_face = kind in ("single", "of-a-kind")
    points = entry.get("points")
    if per_face:
        if not isinstance(points, list) or len(points) != sides:
            problems.append(f"{where}: points must be a list of {sides} numbers (one per face)")
            return None
        values = points
    else:
        if isinstance(points, list):
            problems.append(f"{where}: points must be one number")
            return None
        values = [points]
    for value in values:
        if not _whole(value) or not 0 <= value <= POINTS_MAX:
            problems.append(f"{where}: points must be whole numbers from 0 to {POINTS_MAX:,}")
            return None
    if not any(values) or (not per_face and values[0] <= 0):
        problems.append(f"{where}: scores no points (a set-aside must score)")
    default_count = {"single": 1, "of-a-kind": 3, "straight": sides, "pairs": 3, "nothing": dice}
    count: Any = entry.get("count", default_count[kind])
    used: Any = {"pairs": 2 * count if _whole(count) else 0}.get(kind, count)
    if kind == "single" and count != 1:
        problems.append(f"{where}: a single is one die (count 1), got count {count!r}")
    elif kind == "straight" and count != sides:
        problems.append(f"{where}: a straight uses one die of each of the {sides} faces")
    elif kind == "nothing" and count != dice:
        problems.append(f"{where}: 'nothing' is a roll of all {dice} dice (count {dice})")
    elif not _whole(count) or count < 1 or used > dice:
        problems.append(f"{where}: count {count!r} needs more than the {dice} dice")
    elif kind == "of-a-kind" and count < 2:
        problems.append(f"{where}: of-a-kind needs count >= 2 (one die is a 'single')")
    distinct = entry.get("distinct", False)
    if not isinstance(distinct, bool) or (distinct and kind != "pairs"):
        problems.append(f"{where}: distinct is true or false, for pairs only")
    if len(problems) > before:
        return None
    return Combination(kind, count, tuple(values), bool(distinct))


def _parse(data: dict[str, Any], default_name: str) -> tuple[PushLuckRules | None, list[str]]:
    """The rules of parsed TOML data and every problem found (one line each)."""
    problems: list[str] = []
    family = data.get("family")
    if family != FAMILY:
        problems.append(f'family must be "{FAMILY}" for this check, got {family!r}')
    for key in data:
        if key not in TOP_KEYS:
            problems.append(f"unknown key {key!r} (keys: {', '.join(TOP_KEYS)})")
    name = data.get("name", default_name)
    too_long = "name" in data and isinstance(name, str) and len(name) > MAX_NAME_CHARS
    if not isinstance(name, str) or not name.strip() or too_long:
        got = f"{len(name):,} characters" if isinstance(name, str) else repr(name)
        problems.append(f"name must be text of 1 to {MAX_NAME_CHARS} characters, got {got}")
        name = default_name
    title = data.get("title", "")
    if not isinstance(title, str):
        problems.append("title must be text")
        title = ""
    numbers: dict[str, Any] = {
        key: _check_number(data, key, low, high, problems, default)
        for key, (low, high, default) in NUMBERS.items()
    }
    dice, sides, players, goal = (numbers[k] for k in ("dice", "sides", "players", "goal"))
    bust_streak, bust_penalty = numbers["bust_streak"], numbers["bust_penalty"]
    if players == 1 and goal != 0:
        problems.append(f"goal must be 0 for one player (no race), got {goal}")
    if players == 2 and goal <= 0:
        problems.append("goal must be positive for two players (the race to it)")
    if bust_penalty > 0 and bust_streak == 0:
        problems.append("bust_penalty needs bust_streak >= 1 (busts in a row that cost it)")
    entries = data.get("combination", [])
    if not isinstance(entries, list) or not entries:
        problems.append("no [[combination]] given: nothing scores")
        entries = []
    checked = [_check_combination(i, e, dice, sides, problems) for i, e in enumerate(entries)]
    combos = [c for c in checked if c is not None]
    if problems or len(combos) != len(checked):
        return None, problems
    step = math.gcd(*(p for c in combos for p in c.points if p))
    combinations = tuple(combos)
    rules = PushLuckRules(
        name.strip(), step=step, combinations=combinations, title=title, **numbers
    )
    digest = hashlib.sha256(json.dumps(rules.describe(), sort_keys=True).encode()).hexdigest()
    rules = dataclasses.replace(rules, content_hash=digest[:16])
    problems.extend(size_problems(rules))
    return rules, problems


def _read(source: str) -> tuple[dict[str, Any], str]:
    """The parsed TOML of a path or a shipped file's name, and the default name."""
    if source in SHIPPED:
        text = resources.files("diceopt.games").joinpath(f"rules/{source}.toml").read_text()
        name = source
    else:
        path = Path(source)
        try:
            exists = path.exists()
        except (OSError, ValueError):  # a name too long, a NUL
            exists = False
        if not exists:
            shipped = ", ".join(SHIPPED)
            raise InputError(f"no rule file {source!r} (shipped ones: {shipped})")
        text = read_rule_file(path)  # bounded: a regular file, its size
        name = path.stem
    try:
        return parse_toml(text), name  # bounded: its nesting
    except InputError as exc:
        raise InputError(f"{source}: {exc}") from None


def check_file(source: str) -> list[str]:
    """Every problem of a rule file (a path or a shipped name), one line each; empty: none."""
    try:
        data, name = _read(source)
    except InputError as exc:
        return [str(exc)]
    return _parse(data, name)[1]


def size_line(source: str) -> str:
    """One line for a rule file without problems: states, estimated memory and time."""
    rules = load_rules(source)
    return size_summary(rules, compile_rolls(rules))


def load_rules(source: str) -> PushLuckRules:
    """The rules of a TOML file (a path) or of a shipped one by name ("zilch", "farkle",
    "pig"); InputError with the first problem (and how many there are)."""
    return _load(source) if source in SHIPPED else _load_uncached(source)


@lru_cache(maxsize=8)
def _load(source: str) -> PushLuckRules:
    return _load_uncached(source)


def _load_uncached(source: str) -> PushLuckRules:
    data, name = _read(source)
    rules, problems = _parse(data, name)
    if problems or rules is None:
        more = f" (and {len(problems) - 1} more: diceopt rules check)" if len(problems) > 1 else ""
        raise InputError(f"{source}: {problems[0]}{more}")
    return rules


# --- sizes -------------------------------------------------------------------------------


def turn_cap(rules: PushLuckRules) -> int:
    """The turn total (steps) from which a one-player solve banks with any dice that can
    bust: far above any threshold of optimal play (tests check that raising it changes
    nothing). 40 times the largest points of one roll, at least 2000 steps."""
    return max(2000, 40 * max_roll_points(rules) // rules.step)


def max_roll_points(rules: PushLuckRules) -> int:
    """The most points one roll of ``dice`` dice can set aside (points)."""
    best = best_partition(rules)
    return max(best.values())


def state_count(rules: PushLuckRules) -> int:
    """States of the solve: streak x turn total x dice to roll (one player), or banked x
    banked x turn total x dice to roll (two players; a turn total below what is missing
    to the goal), turn totals in steps."""
    if rules.players == 1:
        return max(rules.bust_streak, 1) * (turn_cap(rules) + 1) * rules.dice
    g = -(-rules.goal // rules.step)
    return g * g * (g + 1) // 2 * rules.dice


def size_problems(rules: PushLuckRules) -> list[str]:
    """A line when the state space is too large to solve, else none."""
    states = state_count(rules)
    limit = ONE_PLAYER_STATES_MAX if rules.players == 1 else TWO_PLAYER_STATES_MAX
    if states > limit:
        return [
            f"state space too large: {states:,} states (at most {limit:,}); "
            "use fewer dice, a smaller goal or points with a larger common step"
        ]
    return []


def size_summary(rules: PushLuckRules, table: RollTable) -> str:
    """One line: states, estimated memory and (roughly) time of a solve."""
    states = state_count(rules)
    outcomes = len(table.outcome_prob)
    options = len(table.option_points)
    work = states * (options / max(outcomes, 1)) * (outcomes / rules.dice)
    # one player: about 4 policy iterations per streak; two: the race solver merges equal
    # outcomes and settles each pair in a few rounds, calibrated on Farkle to 10,000
    # (about 22 CPU seconds measured: an effective 0.4 sweeps of this count)
    sweeps = 4 * max(rules.bust_streak, 1) if rules.players == 1 else 0.4
    seconds = work * sweeps / OPTIONS_PER_SECOND
    memory = states * STATE_BYTES
    return (
        f"{states:,} states, {outcomes:,} roll outcomes, {options:,} set-asides; "
        f"about {memory / 2**20:,.1f} MiB and roughly {seconds:,.1f} s per solve"
    )


# --- scoring a roll ----------------------------------------------------------------------


def combination_vectors(rules: PushLuckRules) -> list[tuple[tuple[int, ...], int, str]]:
    """Every combination as (dice counts by face, points, name in words); the 'nothing'
    roll is left out (it is no part of a set-aside of several combinations)."""
    k = rules.sides
    out: list[tuple[tuple[int, ...], int, str]] = []
    for c in rules.combinations:
        if c.kind in ("single", "of-a-kind"):
            for face, points in enumerate(c.points):
                if points:
                    vec = tuple(c.count if f == face else 0 for f in range(k))
                    out.append((vec, points, " ".join([str(face + 1)] * c.count)))
        elif c.kind == "straight":
            out.append((tuple([1] * k), c.points[0], "straight"))
        elif c.kind == "pairs":
            pick = itertools.combinations if c.distinct else itertools.combinations_with_replacement
            for faces in pick(range(k), c.count):
                vec = tuple(2 * faces.count(f) for f in range(k))
                out.append((vec, c.points[0], f"{c.count} pairs"))
    return out


@lru_cache(maxsize=16)
def best_partition(rules: PushLuckRules) -> dict[tuple[int, ...], int]:
    """The most points of each multiset of at most ``dice`` dice (counts by face) that is
    exactly a disjoint union of combinations (points); multisets that are not are absent."""
    k = rules.sides
    digit = [(rules.dice + 1) ** f for f in range(k)]  # a multiset as one number: counts
    # as digits, so that taking a combination out is one subtraction (no tuple per try)
    combos = [
        (sum(c * d for c, d in zip(cvec, digit)), [(f, c) for f, c in enumerate(cvec) if c], pts)
        for cvec, pts, _ in combination_vectors(rules)
    ]
    best: dict[tuple[int, ...], int] = {tuple([0] * k): 0}
    by_code = {0: 0}  # the same, keyed by the multiset's number
    for total in range(1, rules.dice + 1):
        for faces in itertools.combinations_with_replacement(range(k), total):
            vec = tuple(faces.count(f) for f in range(k))
            code = sum(c * d for c, d in zip(vec, digit))
            top = -1
            for ccode, needs, points in combos:
                if all(vec[f] >= c for f, c in needs):
                    rest = by_code.get(code - ccode)
                    if rest is not None:
                        top = max(top, points + rest)
            if top >= 0:
                best[vec] = top
                by_code[code] = top
    return best


def set_asides(rules: PushLuckRules, roll: tuple[int, ...]) -> list[SetAside]:
    """The best set-aside of a roll (faces 1..sides) for each number of dice left (the
    most points), sorted by dice left, descending; none: the roll is a bust."""
    k = rules.sides
    counts = [0] * k
    for face in roll:
        counts[face - 1] += 1
    n = len(roll)
    best = best_partition(rules)
    by_left: dict[int, tuple[int, tuple[int, ...]]] = {}
    for sub in itertools.product(*(range(c + 1) for c in counts)):
        points = best.get(sub)
        if not points:
            continue
        left = n - sum(sub)
        if left not in by_left or points > by_left[left][0]:
            by_left[left] = (points, sub)
    if not by_left:
        nothing = [c for c in rules.combinations if c.kind == "nothing" and c.count == n]
        if nothing:
            by_left[0] = (nothing[0].points[0], tuple(counts))
    return [
        SetAside(tuple(f + 1 for f in range(k) for _ in range(sub[f])), points, left)
        for left, (points, sub) in sorted(by_left.items(), reverse=True)
    ]


def rolls(rules: PushLuckRules, n: int) -> list[tuple[int, ...]]:
    """Every roll of n dice as sorted faces (1..sides), in the order of the roll table."""
    return list(itertools.combinations_with_replacement(range(1, rules.sides + 1), n))


def roll_probability(rules: PushLuckRules, roll: tuple[int, ...]) -> float:
    """The probability of a sorted roll (any order of the dice)."""
    ways = math.factorial(len(roll))
    for face in set(roll):
        ways //= math.factorial(roll.count(face))
    return ways / rules.sides ** len(roll)


@lru_cache(maxsize=16)
def compile_rolls(rules: PushLuckRules) -> RollTable:
    """Every roll of 1..dice dice with its probability and its best set-aside for each
    number of dice left (points in steps; dice left 0: hot dice), sorted by dice left,
    descending; an outcome with no option is a bust."""
    starts, probs, opt_start, opt_points, opt_dice = [0, 0], [], [0], [], []
    for n in range(1, rules.dice + 1):
        for roll in rolls(rules, n):
            probs.append(roll_probability(rules, roll))
            for option in set_asides(rules, roll):
                opt_points.append(option.points // rules.step)
                opt_dice.append(option.left)
            opt_start.append(len(opt_points))
        starts.append(len(probs))
    table = RollTable(
        dice=rules.dice,
        outcome_start=np.array(starts, dtype=np.int64),
        outcome_prob=np.array(probs, dtype=np.float64),
        option_start=np.array(opt_start, dtype=np.int64),
        option_points=np.array(opt_points, dtype=np.int64),
        option_dice=np.array(opt_dice, dtype=np.int64),
    )
    for arr in (table.outcome_start, table.outcome_prob, table.option_start):
        arr.setflags(write=False)
    table.option_points.setflags(write=False)
    table.option_dice.setflags(write=False)
    return table
