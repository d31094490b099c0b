"""Pig's rules (RULES §5): the goal and the die, their variant names, and the same game as
push-your-luck rules (``rules/pig.toml``), which the race solver reads.

A turn starts with a forced roll; after each roll of 2..K the player holds (banks the
turn total, the turn passes) or rolls again; a 1 loses the turn total and passes the
turn. Reaching the goal (banked score + turn total) wins at once. In the family's terms:
one die, a single of face f scores f points for f >= 2 (a 1 scores nothing: a bust), and
a die set aside is hot (the die is rolled again).
"""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from diceopt.errors import InputError
from diceopt.games.families.push_luck import Combination, PushLuckRules, load_rules
from diceopt.notation import parse_int

GOAL_MAX = 150
SIDES_MAX = 20
RULE_FILE = "pig"  # the shipped rule file: six-sided die, goal 100

VARIANTS = {
    "goal-100": "first to 100 points, six-sided die (Neller & Presser 2004)",
    "goal-50": "first to 50 points, six-sided die",
    "goal-20": "first to 20 points, six-sided die",
}
VARIANT_TITLES = {
    "goal-100": "To 100 points",
    "goal-50": "To 50 points (a shorter game)",
    "goal-20": "To 20 points (a quick game)",
}
VARIANT_RE = re.compile(r"^goal-(\d+)(?:-d(\d+))?$")


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

    def possible_total(self, points: int) -> bool:
        """True when a turn total or banked score of ``points`` can occur (0, or a sum of
        faces 2..K: every value from 2 on, only even ones with a two-sided die)."""
        return points == 0 or (points >= 2 and (self.sides >= 3 or points % 2 == 0))

    @cached_property
    def family(self) -> PushLuckRules:
        """These rules in the push-your-luck family: the shipped ``pig.toml`` with this
        goal, and with this die (faces 2..K score their pips, a 1 busts) where it is not
        the file's. The step (points per scoring step) is the gcd of the faces' points:
        1, or 2 for a two-sided die."""
        base = load_rules(RULE_FILE)
        if self.sides == base.sides:
            return dataclasses.replace(base, goal=self.goal)
        points = (0, *range(2, self.sides + 1))
        return dataclasses.replace(
            base,
            sides=self.sides,
            goal=self.goal,
            step=math.gcd(*points),
            combinations=(Combination("single", 1, points),),
        )

    @property
    def step(self) -> int:
        """Points per scoring step of the family's race (1; 2 for a two-sided die)."""
        return self.family.step

    @property
    def goal_steps(self) -> int:
        """The goal in steps, rounded up (a race ends on reaching it)."""
        return -(-self.goal // self.step)


def rules_for_variant(variant: str | None) -> PigRules:
    """Rules of a variant id ``goal-G`` or ``goal-G-dK`` (K-sided die); None = goal-100."""
    text = (variant or "goal-100").strip().lower()
    m = VARIANT_RE.match(text)
    if m is None:
        raise InputError(f"unknown pig variant {variant!r}; use goal-G or goal-G-dK, e.g. goal-100")
    return PigRules(goal=parse_int(m.group(1)), sides=parse_int(m.group(2) or "6"))
