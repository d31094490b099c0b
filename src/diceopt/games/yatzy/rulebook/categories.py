"""The Yatzy family's category vocabulary: what one box of the sheet scores.

Role: a :class:`CategoryRule` is one category's scoring rule, taken from a small closed
vocabulary (:data:`KINDS`); :func:`category_points` turns it into the points of every
sorted roll, the columns of
:attr:`YatzyRules.score <diceopt.games.yatzy.rulebook.rules.YatzyRules.score>`.
Rule files (:mod:`diceopt.games.yatzy.rulebook.compiler`) and the built-in variants both
describe their categories this way, so the kernel arrays of a file and of a built-in are
made by the same code.

Kinds:

1. ``face``: the sum of the dice showing ``face`` (pips 1..sides): an upper category.
2. ``of_a_kind``, ``pairs``, ``full_house``, ``groups``: groups of dice showing one face
   each (``groups``: the dice per group; ``of_a_kind`` n: ``(n,)``; ``pairs`` n:
   ``(2,) * n``; ``full_house``: ``(3, 2)``; e.g. Maxi's Castle ``(3, 3)`` and Tower
   ``(4, 2)``). The groups show different faces unless ``same_face`` (a full house that
   accepts five of a kind, two pairs that accept four of a kind). More matching dice
   still qualify; where several choices qualify, the highest-scoring one counts.
3. ``straight``: one of the ``straights`` (each a tuple of pips) shows among the dice.
4. ``chance``: the sum of the dice.
5. ``yatzy``: every die shows the same face. This is the Yatzy box that jokers and the
   Yatzy bonus refer to; a variant has at most one.

Points (``score``): ``"sum"`` the sum of all the dice, ``"matched"`` the sum of the dice
that form the combination, ``"points"`` the fixed ``points``; 0 where the roll does not
qualify. ``joker``: points when the roll is written as a joker (None: as usual).
``served``: points when the roll is written straight after the turn's first roll, no
reroll used (Generala's served Escalera, Full and Poker; None: as usual); only where the
roll qualifies. ``needs_yatzy``: the category scores only once the Yatzy box holds its
points (Generala's Doble Generala: nothing while the Generala box is open or crossed
out); both take fixed points (``score = N``) on a lower category.

Precision: integer points (int64). Performance: a table is built once per variant (at
most 1,287 rolls of 8 dice); the loops over rolls run in Python, outside every solve.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from diceopt.errors import InputError
from diceopt.lazy import numpy as np

KINDS = ("face", "of_a_kind", "pairs", "full_house", "groups", "straight", "chance", "yatzy")
SCORES = ("sum", "matched", "points")
UPPER = ("ones", "twos", "threes", "fours", "fives", "sixes")


@dataclass(frozen=True)
class CategoryRule:
    """What one category scores (see the module doc for the kinds).

    ``face``: pips 1..6 (kind ``face``); ``groups``: dice per group (the group kinds);
    ``same_face``: groups may share a face; ``straights``: the alternatives (pips) of a
    ``straight``; ``score`` in :data:`SCORES` and ``points`` (fixed points);
    ``joker``: points when written as a joker, None to score the roll as usual;
    ``served``: points when written after the first roll (None: as usual);
    ``needs_yatzy``: scores only once the Yatzy box holds its points.
    """

    kind: str
    face: int = 0
    groups: tuple[int, ...] = ()
    same_face: bool = False
    straights: tuple[tuple[int, ...], ...] = ()
    score: str = "points"
    points: int = 0
    joker: int | None = None
    served: int | None = None
    needs_yatzy: bool = False

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise InputError(f"unknown category kind {self.kind!r}; kinds are {', '.join(KINDS)}")
        if self.score not in SCORES:
            raise InputError(f"score must be 'sum', 'matched' or a number, got {self.score!r}")
        if self.points < 0 or (self.joker is not None and self.joker < 0):
            raise InputError("a category cannot score negative points")
        if self.served is not None or self.needs_yatzy:
            what = "a served score" if self.served is not None else "needs_yatzy"
            if self.kind in ("face", "yatzy", "chance") or self.score != "points":
                raise InputError(
                    f"{what} needs a lower category with fixed points (score = N), "
                    f"not a {self.kind} category scoring {self.score!r}"
                )
            if self.served is not None and self.needs_yatzy:
                raise InputError("a category takes a served score or needs_yatzy, not both")
            if self.served is not None and self.served < self.points:
                raise InputError(
                    f"a served score ({self.served}) below the category's points ({self.points})"
                )
        if self.kind == "face" and not 1 <= self.face <= 6:
            raise InputError(f"face must be 1..6, got {self.face}")
        if self.kind in ("of_a_kind", "pairs", "full_house", "groups"):
            if not self.groups or any(g < 1 for g in self.groups):
                raise InputError(f"a {self.kind} category needs groups of at least one die")
        if self.kind == "straight":
            if not self.straights or any(not s for s in self.straights):
                raise InputError("a straight needs its faces, e.g. faces = [1, 2, 3, 4, 5]")
            for s in self.straights:
                if len(set(s)) != len(s) or not all(1 <= p <= 6 for p in s):
                    raise InputError(f"straight faces must be different pips 1..6, got {list(s)}")

    @property
    def upper_face(self) -> int:
        """Face index (0-based) of an upper (``face``) category, -1 otherwise."""
        return self.face - 1 if self.kind == "face" else -1

    @property
    def min_dice(self) -> int:
        """The fewest dice that can ever qualify (0: any roll scores)."""
        if self.kind in ("of_a_kind", "pairs", "full_house", "groups"):
            return max(self.groups) if self.same_face else sum(self.groups)
        if self.kind == "straight":
            return min(len(s) for s in self.straights)
        return 0


def category_points(rule: CategoryRule, counts: np.ndarray) -> np.ndarray:
    """Points (int64) of every roll in one category; ``counts``: dice per face of each
    roll, shape (R, sides) (:func:`roll_points` as an array)."""
    counts = np.asarray(counts, dtype=np.int64)
    return np.array(roll_points(rule, counts.tolist()), dtype=np.int64).reshape(len(counts))


def roll_points(rule: CategoryRule, rows: list[list[int]]) -> list[int]:
    """Points of every roll in one category, in plain Python (no numpy: advice from a
    stored table reads the rules without it); ``rows``: dice per face of each roll."""
    if rule.kind == "face":
        f = rule.face
        return [row[f - 1] * f if f <= len(row) else 0 for row in rows]
    totals = [sum(c * (f + 1) for f, c in enumerate(row)) for row in rows]
    if rule.kind == "chance":
        return totals
    if rule.kind == "yatzy":
        matched = [t if max(row) == sum(row) else -1 for row, t in zip(rows, totals, strict=True)]
    elif rule.kind == "straight":
        matched = [
            t
            if any(
                max(faces) <= len(row) and all(row[p - 1] >= 1 for p in faces)
                for faces in rule.straights
            )
            else -1
            for row, t in zip(rows, totals, strict=True)
        ]
    elif len(rule.groups) == 1:  # n of a kind, one pair: the highest face shown n times
        n = rule.groups[0]
        tops = [max((f + 1 for f, c in enumerate(row) if c >= n), default=0) for row in rows]
        matched = [n * top if top > 0 else -1 for top in tops]
    else:
        matched = [best_groups(row, rule.groups, rule.same_face) for row in rows]
    if rule.score == "points":
        return [rule.points if m >= 0 else 0 for m in matched]
    if rule.score == "sum":
        return [t if m >= 0 else 0 for m, t in zip(matched, totals, strict=True)]
    return [max(m, 0) for m in matched]


def best_groups(row: list[int], groups: tuple[int, ...], same_face: bool) -> int:
    """Highest sum of the dice in ``groups`` (dice per group, each one face: different faces
    unless ``same_face``) that the roll ``row`` (dice per face) can supply; -1 if none."""
    best = -1
    choices = [[f for f, have in enumerate(row) if have >= g] for g in groups]
    for faces in itertools.product(*choices):
        if same_face:
            used = [0] * len(row)
            for f, g in zip(faces, groups, strict=True):
                used[f] += g
            if any(u > have for u, have in zip(used, row, strict=True)):
                continue
        elif len(set(faces)) < len(faces):
            continue
        best = max(best, sum(g * (f + 1) for f, g in zip(faces, groups, strict=True)))
    return best


_RUNS = {4: ((1, 2, 3, 4), (2, 3, 4, 5), (3, 4, 5, 6)), 5: ((1, 2, 3, 4, 5), (2, 3, 4, 5, 6))}


def style_rule(style: str, name: str, fh_accepts: bool, tp_accepts: bool) -> CategoryRule:
    """The scoring rule of the built-in category ``name`` in ``style`` (scandinavian,
    american or maxi; RULES.md sections 2, 3 and 6), for rules made without rule files.
    InputError for a name the style does not have."""
    american = style == "american"
    if name in UPPER:
        return CategoryRule("face", face=UPPER.index(name) + 1)
    if name == "chance":
        return CategoryRule("chance")
    if name in ("yatzy", "yahtzee", "maxi_yatzy"):
        return CategoryRule("yatzy", points=100 if name == "maxi_yatzy" else 50)
    if name in ("one_pair", "two_pairs", "three_pairs"):
        n = ("one_pair", "two_pairs", "three_pairs").index(name) + 1
        return CategoryRule(
            "pairs", groups=(2,) * n, score="matched", same_face=n == 2 and tp_accepts
        )
    if name in ("three_of_a_kind", "four_of_a_kind", "five_of_a_kind"):
        n = ("three_of_a_kind", "four_of_a_kind", "five_of_a_kind").index(name) + 3
        return CategoryRule("of_a_kind", groups=(n,), score="sum" if american else "matched")
    if name == "full_house":
        if american:
            return CategoryRule("full_house", groups=(3, 2), points=25, joker=25)
        score = "matched" if style == "maxi" else "sum"
        return CategoryRule("full_house", groups=(3, 2), score=score, same_face=fh_accepts)
    if name in ("castle", "tower"):
        groups = (3, 3) if name == "castle" else (4, 2)
        return CategoryRule("groups", groups=groups, score="matched")
    if name == "small_straight":
        if american:
            return CategoryRule("straight", straights=_RUNS[4], points=30, joker=30)
        return CategoryRule("straight", straights=((1, 2, 3, 4, 5),), points=15)
    if name == "large_straight":
        if american:
            return CategoryRule("straight", straights=_RUNS[5], points=40, joker=40)
        return CategoryRule("straight", straights=((2, 3, 4, 5, 6),), points=20)
    if name == "full_straight":
        return CategoryRule("straight", straights=((1, 2, 3, 4, 5, 6),), points=21)
    raise InputError(f"unknown {style} category {name!r}")
