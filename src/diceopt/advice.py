"""The advice every game gives: each legal action of a position with its value and regret.

Values are in the game's units (expected final score in points, or the mover's
probability of winning); ``regret`` is how much an action loses against the best, in the
same units (>= 0, and 0 for the best).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from diceopt.errors import InputError


@dataclass(frozen=True)
class ActionAdvice:
    """One action in a position: its ``value`` and ``regret`` (game units, regret >= 0)."""

    action: str
    value: float
    regret: float
    expected: float | None = None  # the action's expected final score, beside a probability

    def to_json(self) -> dict[str, Any]:
        """Plain data for JSON (``expected`` only when set)."""
        data = asdict(self)
        if self.expected is None:
            del data["expected"]
        return data


@dataclass(frozen=True)
class Advice:
    """Every legal action of a position, best first, and what the values mean."""

    actions: list[ActionAdvice]
    value_is: str

    @property
    def best(self) -> ActionAdvice:
        """The best action (first)."""
        return self.actions[0]

    def find(self, action: str) -> ActionAdvice | None:
        """The entry of an action text (as ``advise`` writes it), or None."""
        for option in self.actions:
            if option.action == action:
                return option
        return None

    def to_json(self) -> dict[str, Any]:
        """``{"actions": [{"action", "value", "regret", ...}], "value_is": ...}``."""
        return {"actions": [a.to_json() for a in self.actions], "value_is": self.value_is}


def rank_actions(
    values: Sequence[tuple[str, float]], lower_is_better: bool = False, offset: float = 0.0
) -> list[ActionAdvice]:
    """ActionAdvice list from (action, value) pairs, best first; regret >= 0, 0 for the best.

    The sort is stable: equally good actions keep the order the game listed them in
    (the game's documented tie-break). ``offset``: what every action's value shares (e.g.
    points already banked), added to each value after the ranking: regrets and order come
    from the values without it, so that a large offset costs them no precision.
    """
    if not values:
        raise InputError("no legal action in this position")
    sign = -1.0 if lower_is_better else 1.0
    best = max(sign * v for _, v in values)
    ranked = sorted(values, key=lambda av: -sign * av[1])
    return [ActionAdvice(a, float(offset + v), max(0.0, best - sign * v)) for a, v in ranked]
