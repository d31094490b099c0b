"""The rules of stick or reroll (RULES §1): dice, face values, bias, reroll penalty, and
the score of sticking; dice shown as face values (text) and as count vectors."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from diceopt.dice import Dice, KeepLattice, count_multisets
from diceopt.errors import InputError
from diceopt.lazy import numpy as np
from diceopt.notation import parse_numbers

STICK, REROLL = "stick", "reroll"
MAX_MULTISETS = 400_000  # keep-lattice size limit: about a minute of solving
MAX_POINTS = 1e12  # largest total (points) kept exact enough in float64 sums


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
