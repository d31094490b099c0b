"""Helpers of the tests that compare a game's advice with its second path
(``GameSpec.independent_values``) on positions of seeded random play."""

from __future__ import annotations

from typing import Any

import numpy as np


def random_positions(spec: Any, rules: Any, count: int, seed: int) -> list:
    """``count`` positions of seeded games with random legal actions."""
    rng = np.random.default_rng(seed)
    out: list = []
    while len(out) < count:
        pos, over = spec.new_position(rules, rng), False
        while not over and len(out) < count:
            out.append(pos)
            actions = [a.action for a in spec.advise(rules, pos).actions]
            step = spec.apply(rules, pos, actions[rng.integers(len(actions))], rng)
            pos, over = step.position, step.game_over
    return out


def assert_same_values(advice: Any, values: dict[str, float], where: str) -> None:
    """Every advised action has the same value and regret by the second path (1e-9)."""
    assert set(values) == {a.action for a in advice.actions}, where
    best = max(values.values())
    for a in advice.actions:
        got = values[a.action]
        assert abs(got - a.value) <= 1e-9, (where, a.action, a.value, got)
        assert abs((best - got) - a.regret) <= 1e-9, (where, a.action, a.regret, best - got)
