"""Shut the Box rules (RULES §4): the box, the dice rules, the objectives and variants.

Tiles 1..N (N = 1..12) start open. A turn: roll, then shut open tiles whose sum equals
the roll; the turn ends when no set of open tiles sums to the roll. The score is the sum
of the tiles left open (0 when the box is shut). Dice rules (ids in ``DICE_RULES``):
``two-then-one`` (two dice while the open tiles sum to more than 6, then one die),
``optional-one`` (at 6 or less the player chooses one or two dice), ``always-two``.

Objectives: ``score`` (one player, minimise the expected score, points), ``shut`` (one
player, maximise the probability of shutting the box), ``win`` (two players, RULES §4:
player 1 plays a whole turn scoring t, shutting wins outright; player 2 then plays knowing
t; lower score wins, a tie is half a win; values are player 1's expected wins).

Sets of tiles are bit masks: bit i is set when tile i + 1 is open.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from diceopt.errors import InputError
from diceopt.notation import is_digits, parse_int

DICE_RULES = ("two-then-one", "optional-one", "always-two")
OBJECTIVES = ("score", "shut", "win")
TILES_MAX = 12
ONE_DIE_AT = 6  # open tiles summing to this or less allow (or force) one die
ONE_DIE = tuple((r, 1.0 / 6.0) for r in range(1, 7))
TWO_DICE = tuple((s, (6 - abs(s - 7)) / 36.0) for s in range(2, 13))
UNITS = {
    "score": "expected final score (points, lower is better)",
    "shut": "probability of shutting the box",
    "win": "expected wins of the player to move (a draw counts 1/2)",
}


def tiles_of(mask: int) -> tuple[int, ...]:
    """Tile numbers of a bit mask (bit i = tile i + 1), ascending."""
    return tuple(i + 1 for i in range(mask.bit_length()) if mask >> i & 1)


def mask_of(tiles: tuple[int, ...] | list[int]) -> int:
    """Bit mask of tile numbers."""
    mask = 0
    for t in tiles:
        mask |= 1 << (t - 1)
    return mask


def tile_sum(mask: int) -> int:
    """Sum of the tiles in a mask (points)."""
    return sum(tiles_of(mask))


@dataclass(frozen=True)
class ShutRules:
    """Shut the Box: the number of tiles (1..12), the dice rule and the objective."""

    tiles: int = 9
    dice_rule: str = "two-then-one"
    objective: str = "score"

    def __post_init__(self) -> None:
        if not isinstance(self.tiles, int) or not 1 <= self.tiles <= TILES_MAX:
            raise InputError(f"the number of tiles must be 1 to {TILES_MAX}, got {self.tiles}")
        if self.dice_rule not in DICE_RULES:
            raise InputError(
                f"unknown dice rule {self.dice_rule!r}; choose from {', '.join(DICE_RULES)}"
            )
        if self.objective not in OBJECTIVES:
            raise InputError(
                f"unknown objective {self.objective!r}; choose from {', '.join(OBJECTIVES)}"
            )

    @property
    def players(self) -> int:
        """2 in the win game, else 1."""
        return 2 if self.objective == "win" else 1

    @property
    def full(self) -> int:
        """Mask of all tiles open."""
        return (1 << self.tiles) - 1

    def with_objective(self, objective: str) -> ShutRules:
        """The same box and dice rule with another objective."""
        return dataclasses.replace(self, objective=objective)

    def describe(self) -> dict[str, Any]:
        """The parameters as plain JSON-ready data."""
        return {
            "tiles": self.tiles,
            "dice_rule": self.dice_rule,
            "objective": self.objective,
            "players": self.players,
        }

    @cached_property
    def _sums(self) -> list[int]:
        return [tile_sum(m) for m in range(1 << self.tiles)]

    @cached_property
    def _by_sum(self) -> dict[int, list[int]]:
        """Submasks of the full box by their sum (2..12 and 1..6 only matter)."""
        out: dict[int, list[int]] = {r: [] for r in range(1, 13)}
        for m in range(1, 1 << self.tiles):
            s = self._sums[m]
            if s <= 12:
                out[s].append(m)
        for r in out:  # canonical order: fewer tiles first, then higher tiles first
            out[r].sort(key=lambda m: (m.bit_count(), [-t for t in reversed(tiles_of(m))]))
        return out

    def total(self, mask: int) -> int:
        """Sum of the open tiles (points)."""
        return self._sums[mask]

    def dice_options(self, mask: int) -> tuple[int, ...]:
        """Numbers of dice the player may roll with these tiles open."""
        if self.dice_rule == "always-two" or self._sums[mask] > ONE_DIE_AT:
            return (2,)
        return (1,) if self.dice_rule == "two-then-one" else (1, 2)

    def possible_rolls(self, mask: int) -> range:
        """Rolls that can show with these tiles open under the dice rule."""
        options = self.dice_options(mask)
        if options == (2,):
            return range(2, 13)
        if options == (1,):
            return range(1, 7)
        return range(1, 13)

    def moves(self, mask: int, roll: int) -> list[int]:
        """Submasks of ``mask`` summing to ``roll`` (canonical order)."""
        if not 1 <= roll <= 12:
            return []
        return [s for s in self._by_sum[roll] if s & mask == s]

    def rule_text(self, mask: int) -> str:
        """How many dice may be rolled here, in words."""
        options = self.dice_options(mask)
        if options == (1, 2):
            return "one or two dice"
        return "one die" if options == (1,) else "two dice"


def roll_distribution(n: int) -> tuple[tuple[int, float], ...]:
    """(roll, probability) pairs of one die or the sum of two dice."""
    return ONE_DIE if n == 1 else TWO_DICE


VARIANTS = {
    f"{rule}/{objective}": f"9 tiles, {rule.replace('-', ' ')} dice rule: {desc}"
    for objective, desc in (
        ("score", "one player, lowest expected score"),
        ("shut", "one player, best chance to shut the box"),
        ("win", "two players, most wins (add '| target T' for player 2)"),
    )
    for rule in DICE_RULES
}
_RULE_WORDS = {
    "two-then-one": "two dice, then one",
    "optional-one": "one die optional",
    "always-two": "always two dice",
}
_OBJECTIVE_WORDS = {"score": "Lowest score", "shut": "Shut the box", "win": "Two players"}
VARIANT_TITLES = {
    f"{rule}/{objective}": f"{_OBJECTIVE_WORDS[objective]} ({_RULE_WORDS[rule]})"
    for objective in OBJECTIVES
    for rule in DICE_RULES
}


def variant_parts(variant: str | None) -> dict[str, Any]:
    """What a variant id ``RULE/OBJECTIVE[/N]`` names (parts in any order, any case), as
    rules parameters: ``dice_rule``, ``objective``, ``tiles`` (only those it names)."""
    parts: dict[str, Any] = {}
    for part in (variant or "").lower().replace(",", "/").split("/"):
        part = part.strip()
        if not part:
            continue
        if part in DICE_RULES:
            parts["dice_rule"] = part
        elif part in OBJECTIVES:
            parts["objective"] = part
        elif is_digits(part.removesuffix("-tiles").removesuffix("tiles")):
            parts["tiles"] = parse_int(part.removesuffix("-tiles").removesuffix("tiles"))
        else:
            raise InputError(
                f"unknown shutbox variant {variant!r}: use RULE/OBJECTIVE[/TILES], "
                f"e.g. two-then-one/score (rules: {', '.join(DICE_RULES)}; "
                f"objectives: {', '.join(OBJECTIVES)})"
            )
    if variant is not None and not parts:
        raise InputError(f"unknown shutbox variant {variant!r}: use RULE/OBJECTIVE[/TILES]")
    return parts


def variant_of(variant: str | None) -> ShutRules:
    """Rules of a variant id ``RULE/OBJECTIVE[/N]`` (:func:`variant_parts`).

    RULE in DICE_RULES (default two-then-one), OBJECTIVE in OBJECTIVES (default score),
    N the number of tiles (default 9). None = ``two-then-one/score``.
    """
    parts = variant_parts(variant)
    return ShutRules(
        parts.get("tiles", 9),
        parts.get("dice_rule", "two-then-one"),
        parts.get("objective", "score"),
    )
