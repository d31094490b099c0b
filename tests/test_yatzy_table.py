"""The numpy widget of a solved table (``games.yatzy.table``) is the numba kernel's scalar
widget bit for bit: values, keep values, policies (tie-breaks) and category values, on
every variant without saved rerolls (reduced to a few categories), for theta 0, > 0, < 0.
"""

from __future__ import annotations

import numpy as np
import pytest

from diceopt.games.yatzy import solve, widget
from diceopt.games.yatzy.rules import VARIANT_RULES
from diceopt.games.yatzy.table import category_values, widget_detail

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


@pytest.mark.parametrize("theta", [0.0, 0.05, -0.05])
@pytest.mark.parametrize("variant", VARIANTS)
def test_numpy_widget_is_the_kernel_bit_for_bit(variant, theta):
    table = solve.solve_table(reduced(variant), dtype="float32", theta=theta)
    K = table.arrays64
    R = K.roll_p.size
    for mask, flag, upper in states(table, 40, seed=len(variant)):
        want = widget.widget_detail(mask, flag, upper, table.values, K, theta, widget.TURN_REROLLS)
        got = widget_detail(mask, flag, upper, table.values, K, theta)
        where = f"{variant} theta {theta} state {(mask, flag, upper)}"
        for name, a, b in zip(("roll values", "keep values", "policy"), got, want, strict=False):
            assert a.dtype == b.dtype and np.array_equal(a, b), f"{name} differ: {where}"
        assert got[3] == want[3], where
        for r in range(0, R, 7):
            a = category_values(mask, flag, upper, r, table.values, K)
            b = widget.category_values(mask, flag, upper, r, table.values, K, 0)
            assert np.array_equal(a, b), f"category values of roll {r}: {where}"
