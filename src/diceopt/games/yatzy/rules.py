"""Yatzy, Yahtzee and Maxi Yatzy rules as data.

A variant is a :class:`YatzyRules`: the dice, the categories (ids), the upper bonus and
the option flags. Scoring is a pair of numpy tables over every sorted roll of the dice
(rolls in :class:`~diceopt.dice.KeepLattice` order):

- ``score[r, c]``: points for writing roll r into category c normally;
- ``joker_score[r, c]``: points when roll r is written as a joker (American: a Yahtzee whose
  Yahtzee box is already filled; Full House, Small and Large Straight score 25/30/40).

Faces are numbered 0..sides-1 and show 1..sides pips.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from diceopt.dice import KeepLattice, multiset_probabilities
from diceopt.errors import InputError
from diceopt.lazy import numpy as np

UPPER = ("ones", "twos", "threes", "fours", "fives", "sixes")
SCANDINAVIAN_CATEGORIES = UPPER + (
    "one_pair",
    "two_pairs",
    "three_of_a_kind",
    "four_of_a_kind",
    "small_straight",
    "large_straight",
    "full_house",
    "chance",
    "yatzy",
)
AMERICAN_CATEGORIES = UPPER + (
    "three_of_a_kind",
    "four_of_a_kind",
    "full_house",
    "small_straight",
    "large_straight",
    "yahtzee",
    "chance",
)
MAXI_CATEGORIES = UPPER + (
    "one_pair",
    "two_pairs",
    "three_pairs",
    "three_of_a_kind",
    "four_of_a_kind",
    "five_of_a_kind",
    "small_straight",
    "large_straight",
    "full_straight",
    "full_house",
    "castle",
    "tower",
    "chance",
    "maxi_yatzy",
)
STYLES = ("scandinavian", "american", "maxi")
STYLE_CATEGORIES = {
    "scandinavian": SCANDINAVIAN_CATEGORIES,
    "american": AMERICAN_CATEGORIES,
    "maxi": MAXI_CATEGORIES,
}
JOKER_MODES = ("free", "forced", "none")
# one box, several spellings (the key is looked up only when it is not a category itself)
CATEGORY_ALIASES = {
    "yahtzee": "yatzy",
    "yatzy": "yahtzee",
    "super_house": "castle",
    "superhouse": "castle",
}
JOKER_POINTS = {"full_house": 25, "small_straight": 30, "large_straight": 40}


@dataclass(frozen=True)
class YatzyRules:
    """One Yatzy/Yahtzee/Maxi Yatzy variant.

    ``style`` is ``"scandinavian"``, ``"american"`` or ``"maxi"`` (it decides what the
    lower categories score and which ones exist; see :data:`STYLE_CATEGORIES`). ``bonus``
    points are added once the upper total reaches ``bonus_threshold`` (points).
    American only: ``joker`` in JOKER_MODES and ``yahtzee_bonus`` (points for each
    further Yahtzee once the Yahtzee box holds 50; 0 disables it). Scandinavian only:
    the two "accepts" flags. ``forced_order``: categories are filled in the order
    listed. ``saved_rerolls``: each turn gives two rerolls and the ones not used are
    added to a pool the player may spend in any later turn (``saved_cap``: the most
    rerolls the pool may hold, None for no cap); see :meth:`max_saved`.
    ``dice``/``sides`` and a subset of ``categories`` give the reduced variants used to
    test the kernel against the generic engine.
    """

    style: str = "scandinavian"
    categories: tuple[str, ...] = SCANDINAVIAN_CATEGORIES
    dice: int = 5
    sides: int = 6
    bonus_threshold: int = 63
    bonus: int = 50
    full_house_accepts_yatzy: bool = False
    two_pairs_accepts_four: bool = False
    forced_order: bool = False
    joker: str = "none"
    yahtzee_bonus: int = 0
    saved_rerolls: bool = False
    saved_cap: int | None = None
    name: str = field(default="custom", compare=False)
    key: str = field(default="", compare=False)

    @property
    def storage_key(self) -> str:
        """The name stored tables are filed under: ``key`` (a rule file's name and content
        hash) or, for a built-in variant, its name."""
        return self.key or self.name

    def __post_init__(self) -> None:
        if self.style not in STYLES:
            raise InputError(f"unknown Yatzy style {self.style!r}")
        if not 1 <= self.dice <= 8:
            raise InputError(f"the number of dice must be 1..8, got {self.dice}")
        if not 2 <= self.sides <= 6:
            raise InputError(f"the number of sides must be 2..6, got {self.sides}")
        known = STYLE_CATEGORIES[self.style]
        if not self.categories:
            raise InputError("a variant needs at least one category")
        if len(self.categories) > 20:
            raise InputError("at most 20 categories are supported")
        if len(set(self.categories)) != len(self.categories):
            raise InputError(f"repeated category in {self.categories}")
        for c in self.categories:
            if c not in known:
                raise InputError(f"unknown {self.style} category {c!r}")
            if c in UPPER and UPPER.index(c) >= self.sides:
                raise InputError(f"category {c!r} needs at least {UPPER.index(c) + 1} sides")
        # 63, or more where every die of every upper box can reach it (Maxi: 126)
        top = max(63, self.dice * self.sides * (self.sides + 1) // 2)
        if not 1 <= self.bonus_threshold <= top:
            raise InputError(f"bonus threshold must be 1..{top}, got {self.bonus_threshold}")
        if self.joker not in JOKER_MODES:
            raise InputError(f"joker mode must be one of {', '.join(JOKER_MODES)}")
        if self.style != "american" and (self.joker != "none" or self.yahtzee_bonus):
            raise InputError("jokers and the Yahtzee bonus are American rules")
        if self.saved_cap is not None:
            if not self.saved_rerolls:
                raise InputError("a cap on saved rerolls needs saved_rerolls")
            if isinstance(self.saved_cap, bool) or not 1 <= self.saved_cap <= 40:
                raise InputError(f"the saved-rerolls cap must be 1..40, got {self.saved_cap}")

    # --- structure -------------------------------------------------------------------

    @property
    def num_categories(self) -> int:
        """Number of categories (rounds in a game)."""
        return len(self.categories)

    def max_saved(self, filled: int) -> int:
        """Most rerolls the pool can hold at the start of a turn with ``filled`` categories
        filled: two per turn played, at most ``saved_cap``; 0 without saved rerolls."""
        if not self.saved_rerolls:
            return 0
        most = 2 * max(0, int(filled))
        return most if self.saved_cap is None else min(most, self.saved_cap)

    @property
    def max_rerolls(self) -> int:
        """Most rerolls one turn can have: two, plus the fullest pool at the last turn."""
        return 2 + self.max_saved(self.num_categories - 1)

    @cached_property
    def upper_face(self) -> np.ndarray:
        """Face index (0-based) of each upper category, -1 for the lower ones."""
        return np.array(
            [UPPER.index(c) if c in UPPER else -1 for c in self.categories], dtype=np.int64
        )

    @cached_property
    def yahtzee_category(self) -> int:
        """Index of the Yatzy/Yahtzee (Maxi: Maxi Yatzy) category, -1 if there is none."""
        for i, c in enumerate(self.categories):
            if c in ("yatzy", "yahtzee", "maxi_yatzy"):
                return i
        return -1

    @property
    def yatzy_box(self) -> str:
        """The Yatzy box in words with its points, as rates are labelled: ``Yatzy (50)``,
        ``Yahtzee (50)``, ``Maxi Yatzy (100)``; empty without one."""
        c = self.yahtzee_category
        if c < 0:
            return ""
        name = self.categories[c].replace("_", " ").title()
        return f"{name} ({int(self.category_max[c])})"

    @property
    def tracks_yahtzee(self) -> bool:
        """Whether the state must remember that the Yahtzee box holds 50 (bonus Yahtzees)."""
        return self.style == "american" and self.yahtzee_bonus > 0 and self.yahtzee_category >= 0

    @property
    def flags(self) -> int:
        """Number of values of the Yahtzee-box flag in the state (1 or 2)."""
        return 2 if self.tracks_yahtzee else 1

    @property
    def joker_code(self) -> int:
        """0 no joker, 1 free-choice joker, 2 forced joker (0 without a Yahtzee category)."""
        if self.style != "american" or self.yahtzee_category < 0:
            return 0
        return {"none": 0, "free": 1, "forced": 2}[self.joker]

    def find_category(self, name: str) -> str | None:
        """The category id ``name`` spells, or None: case is ignored, ``-``, ``_`` and
        spaces are alike (``Full House``, ``full-house``), ``yahtzee`` and ``yatzy`` name
        the same box."""
        key = "_".join(name.lower().replace("-", " ").replace("_", " ").split())
        if key in self.categories:
            return key
        alias = CATEGORY_ALIASES.get(key)
        return alias if alias in self.categories else None

    def category_id(self, name: str) -> str:
        """As :meth:`find_category`, but InputError for an unknown name (with the nearest
        id when there is one: ``unknown category 'fulhouse'; did you mean 'full_house'?``)."""
        found = self.find_category(name)
        if found is not None:
            return found
        key = "_".join(name.lower().replace("-", " ").replace("_", " ").split())
        close = difflib.get_close_matches(key, self.categories, n=1)
        hint = (
            f"did you mean {close[0]!r}?"
            if close
            else f"categories are {' '.join(self.categories)}"
        )
        raise InputError(f"unknown category {name.strip()!r}; {hint}")

    @cached_property
    def lattice(self) -> KeepLattice:
        """Multisets of 0..dice dice with add/remove-one-die edges."""
        return KeepLattice(self.dice, self.sides)

    @cached_property
    def roll_counts(self) -> np.ndarray:
        """Count vector (per face) of every sorted roll, shape (R, sides), lattice order."""
        lat = self.lattice
        return lat.counts[lat.offset[self.dice] :].copy()

    @cached_property
    def roll_probs(self) -> np.ndarray:
        """Probability of each sorted roll when all dice are rolled (fair dice)."""
        return multiset_probabilities(self.roll_counts, np.full(self.sides, 1.0 / self.sides))

    @cached_property
    def is_yahtzee_roll(self) -> np.ndarray:
        """True for the rolls where every die shows the same face."""
        return (self.roll_counts == self.dice).any(axis=1)

    # --- scoring -----------------------------------------------------------------------

    @cached_property
    def score(self) -> np.ndarray:
        """Points of every roll in every category, shape (R, C), int64 (normal scoring)."""
        counts = self.roll_counts
        return np.stack([self._score_category(c, counts) for c in self.categories], axis=1)

    @cached_property
    def joker_score(self) -> np.ndarray:
        """Points of every roll in every category when written as a joker, shape (R, C)."""
        out = self.score.copy()
        if self.joker_code:
            yz = self.is_yahtzee_roll
            for i, c in enumerate(self.categories):
                if c in JOKER_POINTS:
                    out[yz, i] = JOKER_POINTS[c]
        return out

    @cached_property
    def category_max(self) -> np.ndarray:
        """Most points each category can score (normal or joker scoring), int64."""
        return np.maximum(self.score, self.joker_score).max(axis=0)

    @cached_property
    def category_min(self) -> np.ndarray:
        """Fewest points each category can hold once written, int64: 0 where a roll scores
        nothing in it (any open category may take a zero), the sum of the dice in Chance."""
        return np.minimum(self.score, self.joker_score).min(axis=0)

    @cached_property
    def max_total(self) -> int:
        """An upper bound on the final score of a game: every category at its maximum
        (:attr:`category_max`), the upper bonus when those maxima reach the threshold,
        and, where further Yahtzees earn the Yahtzee bonus, one bonus on each of the
        other ``categories - 1`` turns. Tight for Scandinavian (374) and for American
        with jokers (375 + 12 * 100 = 1575: a Yahtzee every turn, jokers in full house
        and the straights); an upper bound for the other variants.
        """
        upper = sum(
            int(self.category_max[c]) for c in range(self.num_categories) if self.upper_face[c] >= 0
        )
        total = int(self.category_max.sum())
        if upper >= self.bonus_threshold:
            total += self.bonus
        if self.tracks_yahtzee:
            total += self.yahtzee_bonus * (self.num_categories - 1)
        return total

    def _score_category(self, cat: str, counts: np.ndarray) -> np.ndarray:
        pips = np.arange(1, self.sides + 1)
        total = counts @ pips
        r = len(counts)
        american = self.style == "american"
        if cat in UPPER:
            f = UPPER.index(cat)
            return counts[:, f] * (f + 1)
        if cat == "chance":
            return total
        if cat in ("yatzy", "yahtzee"):
            return np.where((counts == self.dice).any(axis=1), 50, 0)
        if cat == "maxi_yatzy":
            return np.where((counts == self.dice).any(axis=1), 100, 0)
        if cat == "one_pair":
            return 2 * _highest_face(counts >= 2)
        if cat == "two_pairs":
            out = np.zeros(r, dtype=np.int64)
            for i, row in enumerate(counts.tolist()):
                pairs = [f + 1 for f in range(self.sides) if row[f] >= 2]
                if len(pairs) >= 2:
                    out[i] = 2 * (pairs[-1] + pairs[-2])
                elif self.two_pairs_accepts_four and max(row) >= 4:
                    out[i] = 4 * (row.index(max(row)) + 1)
            return out
        if cat == "three_pairs":
            # three different faces with at least two dice each: the sum of those six dice
            out = np.zeros(r, dtype=np.int64)
            for i, row in enumerate(counts.tolist()):
                pairs = [f + 1 for f in range(self.sides) if row[f] >= 2]
                if len(pairs) >= 3:
                    out[i] = 2 * sum(pairs[-3:])
            return out
        if cat == "five_of_a_kind":
            return 5 * _highest_face(counts >= 5)
        if cat == "full_straight":
            return np.where((counts == 1).all(axis=1) & (self.dice == self.sides), 21, 0)
        if cat in ("castle", "tower"):
            # two different faces: three dice each (castle), four and two (tower)
            need = (3, 3) if cat == "castle" else (4, 2)
            out = np.zeros(r, dtype=np.int64)
            for i, row in enumerate(counts.tolist()):
                best = 0
                for a in range(self.sides):
                    for b in range(self.sides):
                        if a != b and row[a] >= need[0] and row[b] >= need[1]:
                            best = max(best, need[0] * (a + 1) + need[1] * (b + 1))
                out[i] = best
            return out
        if cat == "three_of_a_kind":
            has = counts >= 3
            if american:
                return np.where(has.any(axis=1), total, 0)
            return 3 * _highest_face(has)
        if cat == "four_of_a_kind":
            has = counts >= 4
            if american:
                return np.where(has.any(axis=1), total, 0)
            return 4 * _highest_face(has)
        if cat == "full_house":
            srt = np.sort(counts, axis=1)[:, ::-1]
            # two different faces cover every die, at least 3 of one and 2 of the other
            exact = (srt[:, 0] >= 3) & (srt[:, 1] >= 2) & (srt[:, :2].sum(axis=1) == self.dice)
            if american:
                return np.where(exact, 25, 0)
            if self.style == "maxi":  # three of one face, two of another; best choice
                out = np.zeros(r, dtype=np.int64)
                for i, row in enumerate(counts.tolist()):
                    best = 0
                    for a in range(self.sides):
                        for b in range(self.sides):
                            if a != b and row[a] >= 3 and row[b] >= 2:
                                best = max(best, 3 * (a + 1) + 2 * (b + 1))
                    out[i] = best
                return out
            ok = exact | (self.full_house_accepts_yatzy & (srt[:, 0] == self.dice))
            return np.where(ok, total, 0)
        if cat == "small_straight":
            if american:
                return np.where(_has_run(counts, 4), 30, 0)
            if self.style == "maxi":  # 1-2-3-4-5 among the dice
                return np.where((counts[:, 0:5] >= 1).all(axis=1), 15, 0)
            return np.where(_exactly(counts, range(0, 5), self.dice), 15, 0)
        if cat == "large_straight":
            if american:
                return np.where(_has_run(counts, 5), 40, 0)
            if self.style == "maxi":  # 2-3-4-5-6 among the dice
                if self.sides < 6:
                    return np.zeros(r, dtype=np.int64)
                return np.where((counts[:, 1:6] >= 1).all(axis=1), 20, 0)
            return np.where(_exactly(counts, range(1, 6), self.dice), 20, 0)
        raise InputError(f"unknown category {cat!r}")  # pragma: no cover

    def describe(self) -> dict[str, Any]:
        """The rules as plain JSON-ready data."""
        return {
            "name": self.name,
            "style": self.style,
            "categories": list(self.categories),
            "dice": self.dice,
            "sides": self.sides,
            "bonus_threshold": self.bonus_threshold,
            "bonus": self.bonus,
            "full_house_accepts_yatzy": self.full_house_accepts_yatzy,
            "two_pairs_accepts_four": self.two_pairs_accepts_four,
            "forced_order": self.forced_order,
            "joker": self.joker,
            "yahtzee_bonus": self.yahtzee_bonus,
            "saved_rerolls": self.saved_rerolls,
            "saved_cap": self.saved_cap,
        }

    def reduced(self, categories: tuple[str, ...], **changes: Any) -> YatzyRules:
        """The same rules on a subset of categories (and optionally fewer dice or sides)."""
        return replace(self, categories=tuple(categories), name="reduced", key="", **changes)


def _highest_face(mask: np.ndarray) -> np.ndarray:
    """Pips (1-based) of the highest face where ``mask`` is true, 0 where none is."""
    pips = np.arange(1, mask.shape[1] + 1)
    return np.where(mask, pips[None, :], 0).max(axis=1)


def _has_run(counts: np.ndarray, length: int) -> np.ndarray:
    """True where ``length`` consecutive faces all show."""
    present = counts > 0
    out = np.zeros(len(counts), dtype=bool)
    for start in range(counts.shape[1] - length + 1):
        out |= present[:, start : start + length].all(axis=1)
    return out


def _exactly(counts: np.ndarray, faces: range, dice: int) -> np.ndarray:
    """True where the roll is exactly one die of each face in ``faces``."""
    if dice != len(faces) or faces.stop > counts.shape[1]:
        return np.zeros(len(counts), dtype=bool)
    return (counts[:, faces.start : faces.stop] == 1).all(axis=1)


SCANDINAVIAN = YatzyRules(name="scandinavian")
MAXI = YatzyRules(
    style="maxi",
    categories=MAXI_CATEGORIES,
    dice=6,
    bonus_threshold=75,
    bonus=50,
    name="maxi",
)
"""Maxi Yatzy, Finnish rules: six dice, 20 categories (20 turns), up to two rerolls a turn
(no saved rerolls), any open category may take a zero, upper bonus 50 points once Ones..Sixes
total at least 75, no Yatzy bonus and no joker. Lower categories (points): One Pair, Two
Pairs (two different faces), Three Pairs (three different faces, the sum of all six), Three
/ Four / Five of a Kind (the highest face shown that often, the sum of those dice), Small
Straight (1-2-3-4-5 among the dice: 15), Large Straight (2-3-4-5-6 among the dice: 20),
Full Straight (1-2-3-4-5-6: 21), Full House (three of one face and two of another, best
choice, the sum of those five dice), Castle or Super House (two different triples: the sum
of all six), Tower (four of one face and two of another: the sum of all six), Chance (the
sum of all six), Maxi Yatzy (six of a kind: 100). More matching dice still qualify, and
where several choices qualify the highest-scoring one counts. Published optimal expected
final score: 383.305389 (float32-rounded)."""
AMERICAN = YatzyRules(
    style="american",
    categories=AMERICAN_CATEGORIES,
    bonus=35,
    joker="free",
    yahtzee_bonus=100,
    name="american",
)

VARIANT_RULES: dict[str, YatzyRules] = {
    "scandinavian": SCANDINAVIAN,
    "scandinavian-accepts": replace(
        SCANDINAVIAN,
        full_house_accepts_yatzy=True,
        two_pairs_accepts_four=True,
        name="scandinavian-accepts",
    ),
    "scandinavian-fh-accepts": replace(
        SCANDINAVIAN, full_house_accepts_yatzy=True, name="scandinavian-fh-accepts"
    ),
    "scandinavian-tp-accepts": replace(
        SCANDINAVIAN, two_pairs_accepts_four=True, name="scandinavian-tp-accepts"
    ),
    "scandinavian-forced": replace(SCANDINAVIAN, forced_order=True, name="scandinavian-forced"),
    "american": AMERICAN,
    "american-forced-joker": replace(AMERICAN, joker="forced", name="american-forced-joker"),
    "american-no-joker": replace(AMERICAN, joker="none", name="american-no-joker"),
    "american-no-bonus": replace(AMERICAN, joker="none", yahtzee_bonus=0, name="american-no-bonus"),
    "maxi": MAXI,
    "maxi-saved": replace(MAXI, saved_rerolls=True, name="maxi-saved"),
}

VARIANTS: dict[str, str] = {
    "scandinavian": "Scandinavian Yatzy: 15 categories, 50 bonus at 63 (default)",
    "scandinavian-accepts": "Scandinavian; full house accepts five of a kind, two pairs "
    "accepts four of a kind",
    "scandinavian-fh-accepts": "Scandinavian; full house accepts five of a kind",
    "scandinavian-tp-accepts": "Scandinavian; two pairs accepts four of a kind",
    "scandinavian-forced": "Scandinavian; categories filled top to bottom",
    "american": "American Yahtzee: 13 categories, 35 bonus at 63, Yahtzee bonus 100, "
    "free-choice joker",
    "american-forced-joker": "American Yahtzee with the forced joker rule",
    "american-no-joker": "American Yahtzee without jokers (Yahtzee bonus kept)",
    "american-no-bonus": "American Yahtzee without Yahtzee bonus and jokers",
    "maxi": "Maxi Yatzy (Finnish rules): 6 dice, 20 categories, 50 bonus at 75",
    "maxi-saved": "Maxi Yatzy with saved rerolls: rerolls not used are kept for later turns",
}

DEFAULT_VARIANT = "scandinavian"


def check_theta(theta: float) -> float:
    """``theta`` (exponential-utility parameter, per point) as a float; InputError unless it
    is a finite number in [-1, 1]."""
    try:
        value = float(theta)
    except (TypeError, ValueError):
        raise InputError(f"theta must be a number, got {theta!r}") from None
    if not math.isfinite(value) or abs(value) > 1.0:
        raise InputError(f"theta must be between -1 and 1, got {theta}")
    return value


def reachable_upper_totals(faces: Iterable[int], dice: int, cap: int | None = None) -> list[int]:
    """Upper totals (points, sorted) possible once the upper categories of ``faces`` (face
    indices, 0-based) are filled with ``dice`` dice; capped at ``cap`` unless None."""
    reach = {0}
    for f in faces:
        pips = int(f) + 1
        reach = {u + k * pips for u in reach for k in range(dice + 1)}
        if cap is not None:
            reach = {min(cap, u) for u in reach}
    return sorted(reach)


def variant_id(variant: str | None) -> str:
    """The id of a variant name (None: the default): case, spaces and ``_`` for ``-`` are
    ignored (``American``, ``american_no_bonus``); InputError for an unknown name."""
    key = DEFAULT_VARIANT if variant is None else variant
    if not isinstance(key, str):
        raise InputError(f"a Yatzy variant is a name, got {key!r}")
    norm = "-".join(key.lower().replace("_", " ").replace("-", " ").split())
    if norm in VARIANT_RULES:
        return norm
    close = difflib.get_close_matches(norm, list(VARIANT_RULES), n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise InputError(f"unknown Yatzy variant {key!r}{hint}; choose from {', '.join(VARIANT_RULES)}")


def get_rules(variant: str | None) -> YatzyRules:
    """The rules of a variant (None: the default; names as :func:`variant_id` reads them);
    InputError for an unknown name."""
    return VARIANT_RULES[variant_id(variant)]
