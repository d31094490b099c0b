"""Yatzy, Yahtzee and Maxi Yatzy rules as data.

A variant is a :class:`YatzyRules`: the dice, the categories (ids, each with its scoring
rule, a :class:`~diceopt.games.yatzy.rulebook.categories.CategoryRule`), the upper bonus and the
option flags. Scoring is a pair of numpy tables over every sorted roll of the dice (rolls
in :class:`~diceopt.dice.KeepLattice` order), made from the category rules:

- ``score[r, c]``: points for writing roll r into category c normally;
- ``joker_score[r, c]``: points when roll r is written as a joker (American: a Yahtzee whose
  Yahtzee box is already filled; Full House, Small and Large Straight score 25/30/40).

The built-in variants are the rule files shipped in ``diceopt/games/rules``, compiled by
:mod:`~diceopt.games.yatzy.rulebook.compiler` and named in
:mod:`~diceopt.games.yatzy.rulebook.variants`.

Faces are numbered 0..sides-1 and show 1..sides pips.

Size: about 630 lines, because every table of the rules is here twice by design: as
Python lists (what advice from a stored table reads without numpy) and as the numpy
arrays made from them; splitting the two would put one concept in two modules.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from diceopt.dice import KeepLattice, lattice_lists, multiset_probabilities
from diceopt.errors import InputError
from diceopt.games.yatzy.rulebook.categories import UPPER, CategoryRule, roll_points, style_rule
from diceopt.lazy import numpy as np

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
STYLES = ("scandinavian", "american", "maxi", "custom")  # custom: a rule file's own sheet
STYLE_CATEGORIES = {
    "scandinavian": SCANDINAVIAN_CATEGORIES,
    "american": AMERICAN_CATEGORIES,
    "maxi": MAXI_CATEGORIES,
}
JOKER_MODES = ("free", "forced", "none")
# when a further Yatzy earns ``yahtzee_bonus``: "points", once the Yatzy box holds its
# points, wherever the roll is written (American); "upper", once the Yatzy box holds any
# entry (its points or a zero), and only when the roll is written into its matching upper
# box (Kniffel)
YATZY_BONUS_RULES = ("points", "upper")
# one box, several spellings (the key is looked up only when it is not a category itself)
CATEGORY_ALIASES = {
    "yahtzee": "yatzy",
    "yatzy": "yahtzee",
    "super_house": "castle",
    "superhouse": "castle",
}


@dataclass(frozen=True)
class YatzyRules:
    """One Yatzy/Yahtzee/Maxi Yatzy variant.

    ``specs``: each category's scoring rule (a :class:`CategoryRule`, aligned with
    ``categories``). Left empty, they follow from ``style`` (``"scandinavian"``,
    ``"american"`` or ``"maxi"``: the category names of :data:`STYLE_CATEGORIES` and what
    they score in RULES.md); rule files give them (style ``"custom"`` or the family they
    follow). ``bonus`` points are added once the upper total reaches ``bonus_threshold``
    (points). With a Yatzy box (a category of kind ``yatzy``): ``joker`` in JOKER_MODES and
    ``yahtzee_bonus`` (points for each further Yahtzee once the Yahtzee box holds its
    points; 0 disables it; ``yatzy_bonus_rule`` in YATZY_BONUS_RULES says when a further
    Yatzy earns it: ``"points"`` American, ``"upper"`` Kniffel). The two "accepts" flags set
    ``same_face`` of the full house and of the two-pairs categories (kind ``pairs`` with two
    groups). ``forced_order``: categories are filled in the order listed. ``saved_rerolls``:
    each turn gives two rerolls and the ones not used are added to a pool the player may
    spend in any later turn (``saved_cap``: the most rerolls the pool may hold, None for no
    cap); see :meth:`max_saved`.
    ``dice``/``sides`` and a subset of ``categories`` give the reduced variants used to
    test the kernel against the generic engine. ``name``, ``key`` and ``digest`` (a rule
    file's content hash) say where tables are filed (:attr:`storage_key`,
    :attr:`file_key`), not what the game is.
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
    yatzy_bonus_rule: str = "points"
    saved_rerolls: bool = False
    saved_cap: int | None = None
    specs: tuple[CategoryRule, ...] = ()
    name: str = field(default="custom", compare=False)
    key: str = field(default="", compare=False)
    digest: str = field(default="", compare=False)

    @property
    def storage_key(self) -> str:
        """The name stored tables are filed under: ``key`` (a rule file's name and content
        hash) or, for a built-in variant, its name; a long or unsafe one as a short slug
        and its hash (:func:`diceopt.names.bounded_name`): file names of bounded
        length whatever the name."""
        from diceopt.names import bounded_name

        return bounded_name(self.key or self.name)

    @property
    def file_key(self) -> str:
        """The name stored table files are filed under: for a rule file, the hash of its
        rules without its name (``digest``), so that files differing only in their names
        share their tables on disk; else :attr:`storage_key`. (Tables held in a process
        stay filed under ``storage_key``: each carries the rules, name included, it was
        asked for.)"""
        return f"rules-{self.digest}" if self.digest else self.storage_key

    def __post_init__(self) -> None:
        if self.style not in STYLES:
            raise InputError(f"unknown Yatzy style {self.style!r}")
        if not 1 <= self.dice <= 8:
            raise InputError(f"the number of dice must be 1..8, got {self.dice}")
        if not 2 <= self.sides <= 6:
            raise InputError(f"the number of sides must be 2..6, got {self.sides}")
        if not self.categories:
            raise InputError("a variant needs at least one category")
        if len(self.categories) > 20:
            raise InputError("at most 20 categories are supported")
        if len(set(self.categories)) != len(self.categories):
            raise InputError(f"repeated category in {self.categories}")
        object.__setattr__(self, "categories", tuple(self.categories))
        derived = not self.specs  # scoring from the style's category names
        object.__setattr__(self, "specs", self._category_specs())
        for c, spec in zip(self.categories, self.specs, strict=True):
            if spec.kind == "face" and spec.face > self.sides:
                raise InputError(f"category {c!r} needs at least {spec.face} sides")
        if sum(spec.kind == "yatzy" for spec in self.specs) > 1:
            raise InputError("at most one category may be of kind 'yatzy' (the Yatzy box)")
        # 63, or more where every die of every upper box can reach it (Maxi: 126)
        top = max(63, self.dice * self.sides * (self.sides + 1) // 2)
        if not 1 <= self.bonus_threshold <= top:
            raise InputError(f"bonus threshold must be 1..{top}, got {self.bonus_threshold}")
        if self.joker not in JOKER_MODES:
            raise InputError(f"joker mode must be one of {', '.join(JOKER_MODES)}")
        if self.joker != "none" or self.yahtzee_bonus:
            if derived and self.style in ("scandinavian", "maxi"):
                raise InputError("jokers and the Yahtzee bonus are American rules")
            if self.yahtzee_category < 0:
                raise InputError(
                    "jokers and the Yahtzee bonus need a Yatzy box (a category of kind 'yatzy')"
                )
        if self.yatzy_bonus_rule not in YATZY_BONUS_RULES:
            raise InputError(f"yatzy_bonus_rule must be one of {', '.join(YATZY_BONUS_RULES)}")
        if any(spec.needs_yatzy for spec in self.specs) and self.yahtzee_category < 0:
            raise InputError("needs_yatzy needs a Yatzy box (a category of kind 'yatzy')")
        if self.has_served:
            if self.saved_rerolls:
                raise InputError("served scores need a turn without saved rerolls")
            if self.joker != "none" or self.upper_bonus:
                raise InputError(
                    "served scores together with jokers or the Kniffel bonus rule are not supported"
                )
        if self.yahtzee_bonus < 0 or self.bonus < 0:
            raise InputError("bonus points cannot be negative")
        if self.saved_cap is not None:
            if not self.saved_rerolls:
                raise InputError("a cap on saved rerolls needs saved_rerolls")
            if isinstance(self.saved_cap, bool) or not 1 <= self.saved_cap <= 40:
                raise InputError(f"the saved-rerolls cap must be 1..40, got {self.saved_cap}")

    def _category_specs(self) -> tuple[CategoryRule, ...]:
        """``specs`` as given (checked against ``categories``) or, left empty, from
        ``style``; the two "accepts" flags set ``same_face`` where they apply."""
        if not self.specs:
            if self.style == "custom":
                raise InputError("custom rules need a scoring rule for every category")
            known = STYLE_CATEGORIES[self.style]
            for c in self.categories:
                if c not in known:
                    raise InputError(f"unknown {self.style} category {c!r}")
            return tuple(
                style_rule(
                    self.style, c, self.full_house_accepts_yatzy, self.two_pairs_accepts_four
                )
                for c in self.categories
            )
        specs = tuple(self.specs)
        if len(specs) != len(self.categories):
            raise InputError(f"{len(specs)} scoring rules for {len(self.categories)} categories")
        for spec in specs:
            if not isinstance(spec, CategoryRule):
                raise InputError(f"a category's scoring rule must be a CategoryRule, got {spec!r}")
        fh, tp = self.full_house_accepts_yatzy, self.two_pairs_accepts_four
        return tuple(_with_flags(s, fh, tp) for s in specs)

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
    def upper_faces(self) -> tuple[int, ...]:
        """Face index (0-based) of each upper category, -1 for the lower ones."""
        return tuple(spec.upper_face for spec in self.specs)

    @cached_property
    def upper_face(self) -> np.ndarray:
        """:attr:`upper_faces` as an int64 array."""
        return np.array(self.upper_faces, dtype=np.int64)

    @cached_property
    def yahtzee_category(self) -> int:
        """Index of the Yatzy/Yahtzee (Maxi: Maxi Yatzy) category, the one of kind ``yatzy``;
        -1 if there is none."""
        for i, spec in enumerate(self.specs):
            if spec.kind == "yatzy":
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
        return f"{name} ({self.max_points[c]})"

    @property
    def tracks_yahtzee(self) -> bool:
        """Whether the state must remember that the Yahtzee box holds its points: for the
        American Yahtzee bonus, or for a category that needs it (Doble Generala)."""
        if self.yahtzee_category < 0:
            return False
        american = self.yahtzee_bonus > 0 and self.yatzy_bonus_rule == "points"
        return american or any(spec.needs_yatzy for spec in self.specs)

    @property
    def american_bonus(self) -> int:
        """Points for each further Yatzy once the Yatzy box holds its points, wherever it
        is written (``yatzy_bonus_rule = "points"``); 0 if none."""
        if self.yahtzee_category < 0 or self.yatzy_bonus_rule != "points":
            return 0
        return self.yahtzee_bonus

    @property
    def upper_bonus(self) -> int:
        """Points for a further Yatzy written into its matching upper box once the Yatzy
        box holds any entry (``yatzy_bonus_rule = "upper"``, Kniffel); 0 if none."""
        if self.yahtzee_category < 0 or self.yatzy_bonus_rule != "upper":
            return 0
        return self.yahtzee_bonus

    @property
    def has_served(self) -> bool:
        """Whether some category scores differently when written after the first roll."""
        return any(spec.served is not None for spec in self.specs)

    @property
    def flags(self) -> int:
        """Number of values of the Yahtzee-box flag in the state (1 or 2)."""
        return 2 if self.tracks_yahtzee else 1

    @property
    def joker_code(self) -> int:
        """0 no joker, 1 free-choice joker, 2 forced joker (0 without a Yahtzee category)."""
        if self.yahtzee_category < 0:
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
    def lattice_lists(self) -> tuple[list[list[int]], list[int], list[list[int]], list[list[int]]]:
        """The keep lattice as Python lists (:func:`~diceopt.dice.lattice_lists`): counts,
        offset, add and remove edges."""
        return lattice_lists(self.dice, self.sides)

    @cached_property
    def lattice_index(self) -> dict[tuple[int, ...], int]:
        """The flat lattice index of each multiset (its count vector as a tuple)."""
        return {tuple(row): i for i, row in enumerate(self.lattice_lists[0])}

    @cached_property
    def roll_rows(self) -> list[list[int]]:
        """Count vector (per face) of every sorted roll, lattice order, as lists."""
        rows, offset, _, _ = self.lattice_lists
        return rows[offset[self.dice] :]

    @cached_property
    def score_entries(self) -> list[list[tuple[int, float, float, int]]]:
        """Per roll: (successor row, points, served points, category) of each category
        where the roll scores more than writing 0, in category order; an upper category's
        row holds its points (0 beside), the Yatzy box's row h = 1 its 50 less the row
        (:func:`~diceopt.games.yatzy.kernel.plain.successor_rows`). The kernel's
        ``pos_id``/``pos_s``/``pos_c`` are these, padded (``kernel.arrays``)."""
        stride = self.dice + 1
        faces = self.upper_faces
        needs = [spec.needs_yatzy for spec in self.specs]
        yz = self.yahtzee_category
        out = []
        for roll, score, first in zip(
            self.roll_rows, self.score_rows, self.served_rows, strict=True
        ):
            row = []
            for c, f in enumerate(faces):
                if f >= 0:
                    if roll[f] > 0:
                        row.append((c * stride + roll[f], 0.0, 0.0, c))
                elif needs[c] and score[c] > 0:  # row h = 1 holds the points (or 0)
                    row.append((c * stride + 1, 0.0, 0.0, c))
                elif score[c] > 0:
                    h = 1 if c == yz else 0
                    row.append((c * stride + h, float(score[c]), float(first[c]), c))
            out.append(row)
        return out

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
    def score_rows(self) -> list[list[int]]:
        """Points of every roll (row) in every category, normal scoring, as lists."""
        columns = [roll_points(spec, self.roll_rows) for spec in self.specs]
        return [list(row) for row in zip(*columns, strict=True)]

    @cached_property
    def joker_rows(self) -> list[list[int]]:
        """Points of every roll in every category when written as a joker, as lists."""
        if not self.joker_code:
            return self.score_rows
        jokers = [spec.joker for spec in self.specs]
        return [
            [p if j is None else j for p, j in zip(row, jokers, strict=True)]
            if max(counts) == self.dice
            else row
            for row, counts in zip(self.score_rows, self.roll_rows, strict=True)
        ]

    @cached_property
    def served_rows(self) -> list[list[int]]:
        """Points of every roll in every category when written straight after the first
        roll (no reroll used), as lists: ``score_rows`` but the ``served`` points where
        a category has them and the roll qualifies."""
        served = [spec.served for spec in self.specs]
        if all(x is None for x in served):
            return self.score_rows
        return [
            [x if (x is not None and p > 0) else p for p, x in zip(row, served, strict=True)]
            for row in self.score_rows
        ]

    @cached_property
    def score(self) -> np.ndarray:
        """Points of every roll in every category, shape (R, C), int64 (normal scoring)."""
        return self._table(self.score_rows)

    @cached_property
    def joker_score(self) -> np.ndarray:
        """Points of every roll in every category when written as a joker, shape (R, C)."""
        return self._table(self.joker_rows)

    @cached_property
    def served_score(self) -> np.ndarray:
        """Points of every roll in every category when written straight after the first
        roll (no reroll used), shape (R, C), int64 (:attr:`served_rows`)."""
        return self._table(self.served_rows)

    def _table(self, rows: list[list[int]]) -> np.ndarray:
        return np.array(rows, dtype=np.int64).reshape(len(self.roll_rows), self.num_categories)

    @cached_property
    def max_points(self) -> tuple[int, ...]:
        """Most points each category can score (normal, joker or served)."""
        tables = (self.score_rows, self.joker_rows, self.served_rows)
        return tuple(max(row[c] for rows in tables for row in rows) for c in range(len(self.specs)))

    @cached_property
    def min_points(self) -> tuple[int, ...]:
        """Fewest points each category can hold once written: 0 where a roll scores
        nothing in it (any open category may take a zero), the sum of the dice in Chance."""
        tables = (self.score_rows, self.joker_rows)
        return tuple(min(row[c] for rows in tables for row in rows) for c in range(len(self.specs)))

    @cached_property
    def category_max(self) -> np.ndarray:
        """:attr:`max_points` as an int64 array."""
        return np.array(self.max_points, dtype=np.int64)

    @cached_property
    def category_min(self) -> np.ndarray:
        """:attr:`min_points` as an int64 array."""
        return np.array(self.min_points, dtype=np.int64)

    @cached_property
    def max_total(self) -> int:
        """An upper bound on the final score of a game: every category at its maximum
        (:attr:`category_max`), the upper bonus when those maxima reach the threshold,
        and, where further Yahtzees earn the Yahtzee bonus, one bonus on each of the
        other ``categories - 1`` turns. Tight for Scandinavian (374) and for American
        with jokers (375 + 12 * 100 = 1575: a Yahtzee every turn, jokers in full house
        and the straights); an upper bound for the other variants.
        """
        most = self.max_points
        upper = sum(p for p, f in zip(most, self.upper_faces, strict=True) if f >= 0)
        total = sum(most)
        if upper >= self.bonus_threshold:
            total += self.bonus
        if self.american_bonus:
            total += self.american_bonus * (self.num_categories - 1)
        if self.upper_bonus:
            n_upper = sum(f >= 0 for f in self.upper_faces)
            total += self.upper_bonus * min(n_upper, self.num_categories - 1)
        return total

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
            # (only where not the default, so that stored headers of older tables still match)
            **({"yatzy_bonus_rule": self.yatzy_bonus_rule} if self.upper_bonus else {}),
        }

    def reduced(self, categories: tuple[str, ...], **changes: Any) -> YatzyRules:
        """The same rules on a subset of categories (and optionally fewer dice or sides)."""
        spec_of = dict(zip(self.categories, self.specs, strict=True))
        for c in categories:
            if c not in spec_of:
                raise InputError(f"unknown {self.style} category {c!r}")
        specs = tuple(spec_of[c] for c in categories)
        return replace(
            self,
            categories=tuple(categories),
            specs=specs,
            name="reduced",
            key="",
            digest="",
            **changes,
        )


def _with_flags(spec: CategoryRule, fh_accepts: bool, tp_accepts: bool) -> CategoryRule:
    """``spec`` with ``same_face`` set by the "accepts" flags where one applies (a full
    house; two pairs); other rules unchanged."""
    if spec.kind == "full_house":
        return replace(spec, same_face=fh_accepts)
    if spec.kind == "pairs" and len(spec.groups) == 2:
        return replace(spec, same_face=tp_accepts)
    return spec


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


def legal_categories(rules: YatzyRules, mask: int, counts: Iterable[int]) -> tuple[list[int], bool]:
    """Categories a roll (count per face) may be written into, and whether as a joker."""
    counts = list(counts)
    n = rules.dice
    open_c = [c for c in range(rules.num_categories) if not mask >> c & 1]
    if rules.forced_order:
        open_c = open_c[:1]
    yz = rules.yahtzee_category
    five = max(counts) == n
    if rules.joker == "none" or yz < 0 or not mask >> yz & 1 or not five:
        return open_c, False
    face = counts.index(n)
    match = [c for c in open_c if rules.upper_faces[c] == face]
    if rules.joker == "forced":
        if match:
            return match, True
        lower = [c for c in open_c if rules.upper_faces[c] < 0]
        return (lower or open_c), True
    return open_c, not match  # free choice: joker points once the upper box is used
