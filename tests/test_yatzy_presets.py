"""The Generala and Kniffel presets and the kernel rules they need: served scores, a
category that needs the Yatzy box's points (Doble Generala) and Kniffel's bonus for a
further Kniffel in its upper box. No published values exist: the kernel is checked
against the generic engine on reduced variants (expected score and exponential utility),
against hand-computed small games and the exact score distribution, and the full-size
values are recorded (docs/values.md)."""

from __future__ import annotations

import numpy as np
import pytest
from test_yatzy_kernel import assert_kernel_agrees

from diceopt.engine import Objective, compile_game, solve
from diceopt.games.yatzy.analyses.distribution import distribution
from diceopt.games.yatzy.kernel import widget
from diceopt.games.yatzy.kernel.simulation import simulate
from diceopt.games.yatzy.kernel.solve import solve_table
from diceopt.games.yatzy.play.engine_game import YatzyEngineGame
from diceopt.games.yatzy.rulebook.compiler import load_rules, load_rules_text
from diceopt.games.yatzy.rulebook.rules import YatzyRules

GENERALA = 159.61845611788866  # float64, this solver (no published value)
KNIFFEL = 251.4900675995774


def _roll(rules: YatzyRules, *pips: int) -> int:
    counts = np.bincount(np.array(pips) - 1, minlength=rules.sides)
    return int(np.flatnonzero((rules.roll_counts == counts).all(axis=1))[0])


def _cat(rules: YatzyRules, name: str) -> int:
    return rules.categories.index(name)


# --- the presets score as their rules say -------------------------------------------------


def test_generala_scores():
    g = load_rules("generala")
    assert g.num_categories == 11 and g.bonus == 0 and g.joker_code == 0
    assert g.flags == 2  # the state remembers whether the Generala box holds 50
    roll = _roll(g, 2, 3, 4, 5, 6)
    assert g.score[roll, _cat(g, "escalera")] == 20
    assert g.served_score[roll, _cat(g, "escalera")] == 25
    full = _roll(g, 3, 3, 3, 5, 5)
    assert (g.score[full, _cat(g, "full")], g.served_score[full, _cat(g, "full")]) == (30, 35)
    five = _roll(g, 4, 4, 4, 4, 4)
    assert g.served_score[five, _cat(g, "poker")] == 45  # five alike is a poker
    assert g.score[five, _cat(g, "full")] == 0  # but not a full
    assert g.served_score[five, _cat(g, "generala")] == 50  # served: its points here
    assert g.score[five, _cat(g, "doble_generala")] == 100
    assert g.served_score[_roll(g, 1, 1, 2, 3, 4), _cat(g, "escalera")] == 0


def test_kniffel_rules():
    k = load_rules("kniffel")
    assert k.num_categories == 13 and k.joker == "forced" and k.flags == 1
    assert (k.upper_bonus, k.american_bonus, k.bonus, k.bonus_threshold) == (50, 0, 35, 63)


def test_full_size_values():
    # no published values: recorded here and in docs/values.md (each solves in well
    # under a second once compiled)
    assert solve_table(load_rules("generala"), dtype="float64").value == pytest.approx(
        GENERALA, abs=1e-9
    )
    assert solve_table(load_rules("kniffel"), dtype="float64").value == pytest.approx(
        KNIFFEL, abs=1e-9
    )


# --- kernel == generic engine on reduced variants -----------------------------------------

REDUCED = {
    "generala-5d6": ("generala", ("escalera", "poker", "generala", "doble_generala"), {}),
    "generala-4d4-bonus": (
        "generala",
        ("twos", "poker", "generala", "doble_generala"),
        {"dice": 4, "sides": 4, "bonus_threshold": 6, "bonus": 10},
    ),
    "generala-5d3-full": ("generala", ("ones", "full", "generala", "doble_generala"), {"sides": 3}),
    "kniffel-4d6": (
        "kniffel",
        ("twos", "full_house", "small_straight", "kniffel"),
        {"dice": 4, "bonus_threshold": 6},
    ),
    "kniffel-3d3": (
        "kniffel",
        ("ones", "twos", "three_of_a_kind", "kniffel", "chance"),
        {"dice": 3, "sides": 3, "bonus_threshold": 4},
    ),
    "kniffel-3d3-free": (
        "kniffel",
        ("ones", "twos", "three_of_a_kind", "kniffel", "chance"),
        {"dice": 3, "sides": 3, "bonus_threshold": 4, "joker": "free"},
    ),
}


@pytest.mark.parametrize("name", list(REDUCED))
def test_kernel_agrees_with_engine(name):
    source, categories, changes = REDUCED[name]
    assert_kernel_agrees(load_rules(source).reduced(categories, **changes))


# --- hand-computed small games ------------------------------------------------------------

ONE_DIE = """
name = "served-by-hand"
dice = 1
sides = 2
[categories.two]
kind = "straight"
faces = [2]
score = 10
served = 15
"""


def test_served_by_hand():
    # one die of two sides, one box: a 2 on the first roll is served (15, p 1/2); after
    # a 1, two rerolls find a 2 with p 3/4 (10): 7.5 + 0.5 * 0.75 * 10 = 11.25
    rules = load_rules_text(ONE_DIE)
    assert solve_table(rules, dtype="float64").value == pytest.approx(11.25, abs=1e-12)
    assert solve_table(rules.reduced(("two",)), dtype="float32").value == pytest.approx(11.25)


def test_doble_generala_needs_the_generala_points():
    g = load_rules("generala").reduced(("ones", "generala", "doble_generala"))
    table = solve_table(g, dtype="float64")
    five = _roll(g, 1, 1, 1, 1, 1)
    gen, doble = _cat(g, "generala"), _cat(g, "doble_generala")
    ones = _cat(g, "ones")
    after = 1 << gen | 1 << ones  # one turn left, Doble open
    held = table.category_values(after, 1, 0, five)
    crossed = table.category_values(after, 0, 0, five)
    assert held[doble] == 100.0 and crossed[doble] == 0.0
    # with the Generala box open a Doble scores nothing yet
    start = table.category_values(0, 0, 0, five)
    assert start[doble] == pytest.approx(float(table.values[1 << doble, 0, 0]), abs=1e-12)


def test_kniffel_bonus_only_in_the_upper_box():
    k = load_rules("kniffel").reduced(("twos", "full_house", "kniffel", "chance"))
    table = solve_table(k, dtype="float64")
    twos, fh, kn, ch = (_cat(k, c) for c in ("twos", "full_house", "kniffel", "chance"))
    five = _roll(k, 2, 2, 2, 2, 2)
    crossed = 1 << kn  # the Kniffel box holds a zero: still an entry
    cv = table.category_values(crossed, 0, 0, five)
    assert cv[twos] == pytest.approx(10 + 50 + float(table.values[crossed | 1 << twos, 0, 10]))
    assert (cv[[fh, ch]] < -1e29).all()  # the free upper box must take it
    used = crossed | 1 << twos  # upper box used: a joker in the lower boxes, no bonus
    cv = table.category_values(used, 0, 10, five)
    assert cv[fh] == pytest.approx(25 + float(table.values[used | 1 << fh, 0, 10]))
    assert cv[ch] == pytest.approx(10 + float(table.values[used | 1 << ch, 0, 10]))


@pytest.mark.parametrize("theta", [0.0, 0.2, -0.3])
@pytest.mark.parametrize("name", ["generala", "kniffel"])
def test_plain_widget_is_the_kernel(name, theta):
    rules = load_rules(name)
    keep = {
        "generala": ("twos", "escalera", "full", "poker", "generala", "doble_generala"),
        "kniffel": ("ones", "twos", "full_house", "large_straight", "kniffel", "chance"),
    }[name]
    table = solve_table(rules.reduced(keep, bonus_threshold=4), dtype="float32", theta=theta)
    K = table.arrays64
    found = np.argwhere(np.isfinite(table.values))
    full = (1 << len(keep)) - 1
    for mask, flag, upper in [tuple(int(x) for x in s) for s in found if s[0] != full][::3]:
        want = widget.widget_detail(mask, flag, upper, table.values, K, theta, widget.TURN_REROLLS)
        got = table.widget(mask, flag, upper)
        for a, b in zip(got[:3], want[:3], strict=True):
            assert np.array_equal(a, b)
        assert got[3] == pytest.approx(want[3], abs=1e-12)
        assert want[3] == pytest.approx(float(table.values[mask, flag, upper]), abs=2e-4)
        for r in range(0, K.roll_p.size, 11):
            for t in (0, 2):
                a = table.category_values(mask, flag, upper, r, t)
                b = widget.category_values(mask, flag, upper, r, table.values, K, t)
                assert np.array_equal(a, b)


# --- exponential utility (theta != 0) -------------------------------------------------------

RISK_REDUCED = ["generala-4d4-bonus", "generala-5d3-full", "kniffel-3d3", "kniffel-4d6"]


@pytest.mark.parametrize("theta", [-0.3, 0.2])
@pytest.mark.parametrize("name", RISK_REDUCED)
def test_kernel_agrees_with_engine_exponential(name, theta):
    # the lanes' certainty equivalents against the generic engine's, every state, 1e-9
    source, categories, changes = REDUCED[name]
    assert_kernel_agrees(load_rules(source).reduced(categories, **changes), theta)


def _one_die(served: int) -> YatzyRules:
    return load_rules_text(ONE_DIE.replace("served = 15", f"served = {served}"))


@pytest.mark.parametrize("served", [15, 200])
@pytest.mark.parametrize("theta", [-1.0, -0.5, 0.5, 1.0])
def test_served_by_hand_exponential(served, theta):
    # the one-die game of test_served_by_hand has one policy for every theta (write a 2,
    # reroll a 1): served w.p. 1/2, 10 w.p. 3/8, 0 w.p. 1/8. A served score far above
    # the others (200) at theta 1 stays finite in float32: the reference is raised.
    p = np.array([0.5, 0.375, 0.125])
    x = np.array([served, 10.0, 0.0])
    top = x.max() if theta > 0 else x.min()
    want = top + np.log(p @ np.exp(theta * (x - top))) / theta
    rules = _one_die(served)
    assert solve_table(rules, dtype="float64", theta=theta).value == pytest.approx(want, abs=1e-12)
    assert solve_table(rules, theta=theta).value == pytest.approx(want, rel=1e-6)
    value = widget.widget_detail(0, 0, 0, *_table64(rules, theta), theta, widget.TURN_REROLLS)[3]
    assert value == pytest.approx(want, abs=1e-12)


def _table64(rules: YatzyRules, theta: float) -> tuple:
    table = solve_table(rules, dtype="float64", theta=theta)
    return table.values, table.arrays64


@pytest.mark.parametrize("theta", [-0.05, 0.03])
@pytest.mark.parametrize("name", ["generala", "kniffel"])
def test_certainty_equivalent_of_the_exact_distribution(name, theta):
    # full size: the table's value is (1/theta) log E[exp(theta X)] of the exact score
    # distribution of the table's own policy (the distribution follows the widget)
    table = solve_table(load_rules(name), dtype="float64", theta=theta)
    pmf = distribution(table).pmf
    x = np.flatnonzero(pmf)
    top = x.max() if theta > 0 else x.min()
    ce = top + np.log(pmf[x] @ np.exp(theta * (x - top))) / theta
    assert table.value == pytest.approx(ce, abs=1e-9)
    plain = solve_table(load_rules(name), dtype="float64").value
    assert (table.value > plain) == (theta > 0)


def test_theta_to_zero_is_the_expected_score():
    # CE(theta) = mean + theta var / 2 + O(theta^2): the slope at 0 is half the variance of
    # the optimal policy's score (exact distribution)
    rules = load_rules("generala")
    base = solve_table(rules, dtype="float64")
    pmf = distribution(base).pmf
    x = np.arange(pmf.size)
    var = float(pmf @ (x - base.value) ** 2)
    for theta in (1e-3, 1e-5):
        up = solve_table(rules, dtype="float64", theta=theta).value
        down = solve_table(rules, dtype="float64", theta=-theta).value
        assert down < base.value < up
        assert abs(up - base.value) < 2 * theta * var
        assert (up - down) / (2 * theta) == pytest.approx(var / 2, rel=1e-2)


# --- simulation and exact distribution of the full-size presets ---------------------------


@pytest.fixture(scope="module", params=["generala", "kniffel"])
def played(request):
    """(table, 20,000 seeded simulated games, exact distribution) of a full-size preset."""
    table = solve_table(load_rules(request.param), dtype="float64")
    return table, simulate(table, 20_000, np.random.default_rng(7)), distribution(table)


def test_simulated_mean_is_the_value(played):
    table, result, _ = played
    s = result.summary()
    assert abs(s["mean"] - table.value) <= 4 * s["std_error"], s
    assert s["max"] <= table.rules.max_total


def test_distribution_mean_is_the_value(played):
    table, _, dist = played
    x = np.arange(dist.pmf.size)
    assert dist.pmf.min() >= 0.0 and dist.pmf.sum() == pytest.approx(1.0, abs=1e-12)
    assert float(x @ dist.pmf) == pytest.approx(table.value, abs=1e-9)


def test_distribution_is_the_simulation_histogram(played):
    # per bin of 5 points: |share - p| within 4 sigma (+ one game) of the binomial
    _, result, dist = played
    n = result.games
    top = max(dist.pmf.size, int(result.scores.max()) + 1)
    edges = np.arange(0, top + 5, 5)
    p = np.add.reduceat(np.pad(dist.pmf, (0, edges[-1] - dist.pmf.size)), edges[:-1])
    share = np.histogram(result.scores, bins=edges)[0] / n
    assert (np.abs(share - p) <= 4 * np.sqrt(p * (1 - p) / n) + 1 / n).all()
    assert (share[p == 0.0] == 0.0).all()


def test_reduced_generala_simulation_is_the_engine_value():
    rules = load_rules("generala").reduced(("escalera", "full", "generala", "doble_generala"))
    sol = solve(compile_game(YatzyEngineGame(rules)), Objective())
    table = solve_table(rules, dtype="float64")
    s = simulate(table, 40_000, np.random.default_rng(3)).summary()
    assert abs(s["mean"] - sol.value) <= 4 * s["std_error"], s
    x = np.arange(distribution(table).pmf.size)
    assert float(x @ distribution(table).pmf) == pytest.approx(sol.value, abs=1e-9)


def test_served_by_hand_simulated_and_exact():
    # the one-die game of test_served_by_hand: 15 w.p. 1/2, 10 w.p. 3/8, 0 w.p. 1/8
    table = solve_table(load_rules_text(ONE_DIE), dtype="float64")
    assert np.allclose(distribution(table).pmf[[0, 10, 15]], [1 / 8, 3 / 8, 1 / 2], atol=1e-15)
    scores = simulate(table, 8_000, np.random.default_rng(5)).scores
    share = np.array([np.mean(scores == v) for v in (0, 10, 15)])
    assert np.abs(share - [1 / 8, 3 / 8, 1 / 2]).max() < 4 * np.sqrt(0.25 / 8_000)
    assert np.isin(scores, [0, 10, 15]).all()


@pytest.mark.parametrize(("rerolls", "points"), [(2, 15), (1, 10)])
def test_play_and_sheet_score_a_served_write_as_served(rerolls, points):
    # the one-box game: a 2 written straight after the first roll scores its served 15,
    # after a reroll its 10 (the play's score and the sheet's "with these dice" alike)
    from diceopt.games.yatzy.play.advice import apply_action, parse_position
    from diceopt.games.yatzy.play.moves import sheet_lines

    rules = load_rules_text(ONE_DIE)
    pos = parse_position(f"dice 2 | rerolls {rerolls} | score 0", rules)
    after, over = apply_action(pos, "score two", rules, np.random.default_rng(0))
    assert over and after.score == points
    assert any(f"open   {points} with these dice" in line for line in sheet_lines(pos, rules))
