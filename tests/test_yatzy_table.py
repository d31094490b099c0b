"""The plain Python widget of a solved table (``games.yatzy.plain``, through
``YatzyTable``) is the numba kernel's scalar widget bit for bit: roll values, keep values,
policies (tie-breaks) and category values; the state's value to 1e-12 (the roll
probabilities are computed apart). On every variant without saved rerolls and the
shipped rule files (reduced to a few categories), for theta 0, > 0, < 0, in float32 and
float64.
"""

from __future__ import annotations

import numpy as np
import pytest

from diceopt.games.yatzy.kernel import solve, widget
from diceopt.games.yatzy.rulebook.compiler import load_rules
from diceopt.games.yatzy.rulebook.variants import VARIANT_RULES

CATEGORIES = {
    "scandinavian": ("ones", "twos", "threes", "two_pairs", "full_house", "chance", "yatzy"),
    "american": ("ones", "twos", "threes", "full_house", "small_straight", "yahtzee", "chance"),
    "maxi": ("ones", "twos", "three_pairs", "castle", "chance", "maxi_yatzy"),
}
VARIANTS = [v for v, r in VARIANT_RULES.items() if not r.saved_rerolls]


def reduced(variant: str):
    rules = VARIANT_RULES[variant]
    style = next(s for s in CATEGORIES if variant.startswith(s))
    return rules.reduced(CATEGORIES[style], bonus_threshold=12)


def states(table, count: int, seed: int):
    """Up to ``count`` reachable turn-start states (the start and the last turns among
    them), drawn with a seeded generator."""
    rules = table.rules
    full = (1 << rules.num_categories) - 1
    found = np.argwhere(np.isfinite(table.values))
    found = found[found[:, 0] != full]  # a turn is left to play
    rng = np.random.default_rng(seed)
    pick = rng.choice(len(found), size=min(count, len(found)), replace=False)
    return [(0, 0, 0)] + [tuple(int(x) for x in found[i]) for i in pick]


def assert_twins_agree(table, theta: float, count: int, seed: int, where: str) -> None:
    """The plain widget and category values of ``count`` random states are the kernel's."""
    K = table.arrays64
    R = K.roll_p.size
    for mask, flag, upper in states(table, count, seed):
        want = widget.widget_detail(mask, flag, upper, table.values, K, theta, widget.TURN_REROLLS)
        got = table.widget(mask, flag, upper)
        at = f"{where} state {(mask, flag, upper)}"
        for name, a, b in zip(("roll values", "keep values", "policy"), got, want, strict=False):
            assert a.dtype == b.dtype and np.array_equal(a, b), f"{name} differ: {at}"
        assert abs(got[3] - want[3]) <= 1e-12, at
        for r in range(0, R, 7):
            for t in (0, 2):
                a = table.category_values(mask, flag, upper, r, t)
                b = widget.category_values(mask, flag, upper, r, table.values, K, t)
                assert np.array_equal(a, b), f"category values of roll {r}, {t} rerolls: {at}"


@pytest.mark.parametrize("theta", [0.0, 0.05, -0.05])
@pytest.mark.parametrize("variant", VARIANTS)
def test_plain_widget_is_the_kernel_bit_for_bit(variant, theta):
    table = solve.solve_table(reduced(variant), dtype="float32", theta=theta)
    assert_twins_agree(table, theta, 40, len(variant), f"{variant} theta {theta}")


RULE_FILES = {
    "yacht": ("ones", "sixes", "full_house", "four_of_a_kind", "small_straight", "yacht"),
    "generala": ("twos", "escalera", "full", "poker", "generala", "doble_generala"),
    "kniffel": ("ones", "twos", "full_house", "large_straight", "kniffel", "chance"),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(RULE_FILES))
def test_plain_widget_is_the_kernel_on_rule_files(name, dtype):
    rules = load_rules(name).reduced(RULE_FILES[name], bonus_threshold=6)
    table = solve.solve_table(rules, dtype=dtype)
    assert_twins_agree(table, 0.0, 40, 3, f"{name} {dtype}")
