"""The Yatzy kernel: published values, agreement with the generic engine, the widget."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from diceopt.engine import Objective, compile_game, solve
from diceopt.games.yatzy.kernel.arrays import NEG, kernel_arrays
from diceopt.games.yatzy.kernel.layers import count_states, reachable_uppers
from diceopt.games.yatzy.kernel.solve import choose_rows, solve_table
from diceopt.games.yatzy.kernel.turn import joker_best, joker_rolls
from diceopt.games.yatzy.play.engine_game import YatzyEngineGame
from diceopt.games.yatzy.rulebook.compiler import load_rules
from diceopt.games.yatzy.rulebook.rules import YatzyRules
from diceopt.games.yatzy.rulebook.variants import AMERICAN, MAXI, SCANDINAVIAN, VARIANT_RULES

PUBLISHED = {
    "scandinavian": 248.4399893778553,
    "scandinavian-accepts": 248.67488268842226,
    "scandinavian-forced": 122.55852739642387,
    "american": 254.58960948196315,
    "american-forced-joker": 254.58772873449593,
    "american-no-joker": 253.97024118978018,
    "american-no-bonus": 245.87077451411164,
}


@pytest.fixture(scope="module")
def tables64():
    """Every published variant solved once in float64."""
    return {v: solve_table(VARIANT_RULES[v], dtype="float64") for v in PUBLISHED}


@pytest.mark.parametrize("variant", list(PUBLISHED))
def test_published_values_float64(tables64, variant):
    assert tables64[variant].value == pytest.approx(PUBLISHED[variant], abs=1e-9)


def test_scandinavian_float32():
    table = solve_table(SCANDINAVIAN)  # float32 is the default
    assert table.values.dtype == np.float32
    assert abs(table.value - PUBLISHED["scandinavian"]) < 2e-3


def test_state_counts(tables64):
    # every reachable state has a value, every unreachable one is NaN
    table = tables64["scandinavian"]
    assert table.states == count_states(SCANDINAVIAN) == int(np.isfinite(table.values).sum())
    for mask in (0, 1, 0b111111, (1 << 15) - 1, 0b101010 | (1 << 9)):
        finite = np.flatnonzero(np.isfinite(table.values[mask, 0]))
        assert finite.tolist() == reachable_uppers(SCANDINAVIAN, mask)
    american = tables64["american"]
    yz = AMERICAN.yahtzee_category
    assert np.isnan(american.values[0, 1]).all()  # Yahtzee box open: no 50 flag
    assert np.isfinite(american.values[1 << yz, 1, 0])


def test_widget_matches_table(tables64):
    # the scalar widget (independent code) gives the table's value of the state
    for variant, states in {
        "scandinavian": [(0, 0, 0), (0b000111 | (1 << 14), 0, 6), ((1 << 15) - 2, 0, 63)],
        "american": [(0, 0, 0), (1 << 11, 1, 0), ((1 << 13) - 1 - (1 << 8), 1, 63)],
        "american-forced-joker": [(1 << 11 | 0b11, 1, 3), (1 << 11, 0, 0)],
    }.items():
        table = tables64[variant]
        for mask, flag, upper in states:
            _, _, policy, value = table.widget(mask, flag, upper)
            assert value == pytest.approx(float(table.values[mask, flag, upper]), abs=1e-9)
            assert (policy[0] < 0).all()  # with no reroll left, always score


def _engine_values(rules, theta=0.0):
    graph = compile_game(YatzyEngineGame(rules))
    objective = Objective("exponential", theta) if theta else Objective()
    sol = solve(graph, objective)
    return graph, sol


def assert_kernel_agrees(rules, theta=0.0):
    table = solve_table(rules, dtype="float64", theta=theta)
    graph, sol = _engine_values(rules, theta)
    assert table.value == pytest.approx(sol.value, abs=1e-9)
    checked = 0
    for s, state in enumerate(graph.states):
        if state[0] == "turn":
            _, mask, flag, upper = state
            assert table.values[mask, flag, upper] == pytest.approx(sol.values[s], abs=1e-9)
            checked += 1
    # and every reachable turn-start state of the engine is a state of the table
    assert checked == int(np.isfinite(table.values).sum())


REDUCED = {
    "scandinavian-3d4": SCANDINAVIAN.reduced(
        ("ones", "twos", "chance"), dice=3, sides=4, bonus_threshold=5
    ),
    "scandinavian-5d6-lower": SCANDINAVIAN.reduced(
        ("two_pairs", "full_house", "yatzy"), full_house_accepts_yatzy=True
    ),
    "scandinavian-4d6-forced": SCANDINAVIAN.reduced(
        ("threes", "one_pair", "four_of_a_kind", "chance"),
        dice=4,
        bonus_threshold=6,
        forced_order=True,
        two_pairs_accepts_four=True,
    ),
}
for _mode in ("free", "forced", "none"):
    REDUCED[f"american-4d6-{_mode}"] = AMERICAN.reduced(
        ("twos", "full_house", "small_straight", "yahtzee"),
        dice=4,
        bonus_threshold=6,
        joker=_mode,
    )


@pytest.mark.parametrize("name", list(REDUCED))
def test_kernel_agrees_with_engine(name):
    assert_kernel_agrees(REDUCED[name])


@pytest.mark.parametrize("theta", [-0.5, 0.3])
def test_kernel_agrees_with_engine_exponential(theta):
    assert_kernel_agrees(REDUCED["scandinavian-3d4"], theta)
    assert_kernel_agrees(REDUCED["american-4d6-free"], theta)


def test_theta_zero_is_expectation_and_risk_order():
    rules = REDUCED["scandinavian-3d4"]
    base = solve_table(rules, dtype="float64").value
    averse = solve_table(rules, dtype="float64", theta=-0.2).value
    seeking = solve_table(rules, dtype="float64", theta=0.2).value
    assert averse < base < seeking


def test_theta_stable_at_one():
    table = solve_table(SCANDINAVIAN.reduced(("ones", "sixes", "yatzy", "chance")), theta=1.0)
    assert np.isfinite(table.value)
    table = solve_table(SCANDINAVIAN.reduced(("ones", "sixes", "yatzy", "chance")), theta=-1.0)
    assert np.isfinite(table.value)


@pytest.mark.parametrize(
    "rules",
    [SCANDINAVIAN, MAXI, YatzyRules(categories=("ones", "twos", "fours", "chance"), sides=4)],
    ids=["five dice", "six dice", "four sides"],
)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_choice_is_the_best_sub_multiset(rules, dtype):
    # the solver's choice against a direct maximum over every sub-multiset, on random
    # values with ties: each roll's row is the best of its sub-multisets (itself included)
    K = kernel_arrays(rules, np.dtype(dtype))
    lat = rules.lattice
    nk = int(lat.offset[-1])
    lanes = 24
    rng = np.random.default_rng(5)
    A = rng.integers(0, 40, size=(nk + 1, lanes)).astype(dtype)  # small integers: ties
    A[nk] = NEG
    M = np.full((2 * (nk + 1), lanes), np.nan, dtype=dtype)
    M[nk] = NEG
    choose_rows(A, M, lanes - 3, K.rem_pad, K.rem_n, K.offset)  # not every lane
    counts = lat.counts
    for i in range(int(lat.offset[rules.dice]), nk):  # the rolls
        subs = np.all(counts <= counts[i], axis=1)
        assert np.array_equal(M[i, : lanes - 3], A[:nk][subs, : lanes - 3].max(axis=0))
        assert np.isnan(M[i, lanes - 3 :]).all()  # lanes beyond nb untouched


@numba.njit  # not cached: a cached test kernel keeps the package code it called
def _joker_rolls_differ(K, SR, masks):
    """Over the masks, lanes and Yahtzee rolls: where ``joker_rolls`` gives another value
    (bit for bit) or category than ``joker_best``; and the (mask, roll) pairs checked."""
    vals = np.empty(K.yz_face.size)
    cats = np.empty(K.yz_face.size, dtype=np.int64)
    differ = 0
    checked = 0
    for mask in masks:
        for ln in range(SR.shape[1]):
            joker_rolls(mask, K, SR, ln, vals, cats)
            for r in range(K.yz_face.size):
                if K.yz_face[r] >= 0:
                    best, bc = joker_best(mask, r, K, SR, ln)
                    differ += (vals[r] != best) | (cats[r] != bc)
                    checked += 1
    return differ, checked


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(
    "rules",
    [
        AMERICAN,
        VARIANT_RULES["american-forced-joker"],
        load_rules("kniffel"),
        SCANDINAVIAN,
        VARIANT_RULES["scandinavian-forced"],  # categories in order: the open boxes
    ],
    ids=lambda r: r.name,
)
def test_joker_rolls_are_joker_best(rules, dtype):
    """The lanes' Yahtzee rolls under the joker and Kniffel rules (``joker_rolls``, one
    call per lane) score as the widget's ``joker_best`` does roll by roll: the same value
    bit for bit and the same category, on every mask, with successor rows of whole
    points (many ties: the lowest category wins) and of random fractions."""
    K = kernel_arrays(rules, dtype)
    rng = np.random.default_rng(8)
    rows = K.upper_face.size * (rules.dice + 1) + 1
    whole = rng.integers(0, 6, size=(rows, 3)).astype(dtype)
    SR = np.concatenate([whole, (rng.random((rows, 3)) * 50).astype(dtype)], axis=1)
    SR[rows - 1] = NEG
    masks = np.arange(1 << rules.num_categories, dtype=np.int64)
    differ, checked = _joker_rolls_differ(K, SR, masks)
    assert differ == 0
    assert checked == masks.size * SR.shape[1] * rules.sides  # one Yahtzee roll per face
