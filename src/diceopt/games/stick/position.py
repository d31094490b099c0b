"""Positions of stick or reroll (the dice shown, optionally the points so far) and
actions (stick, hold some dice): text and JSON forms, and rerolling the dice not held."""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from diceopt.errors import InputError
from diceopt.games.stick.rules import MAX_POINTS, STICK, StickRules, format_value
from diceopt.lazy import numpy as np
from diceopt.notation import parse_number, parse_numbers, split_fields

POSITION_EXAMPLE = "dice 1 3 3"
POSITION_FIELDS = ("dice", "points")


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
