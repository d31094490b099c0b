"""Maxi Yatzy (Finnish rules): six dice, 20 categories, 50 bonus at 75.

Scoring on all 462 rolls of six dice against a brute-force scorer written here from the
rules (every way of choosing the dice a category uses), hand-written tricky cases, and
reduced Maxi variants solved by the kernel and by the generic engine.
"""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest

from diceopt.engine import Objective, compile_game, solve
from diceopt.errors import InputError
from diceopt.games.yatzy.kernel.simulation import simulate
from diceopt.games.yatzy.kernel.solve import solve_table
from diceopt.games.yatzy.play.advice import advise_position, parse_position
from diceopt.games.yatzy.play.engine_game import YatzyEngineGame
from diceopt.games.yatzy.rulebook.rules import MAXI_CATEGORIES, YatzyRules
from diceopt.games.yatzy.rulebook.variants import MAXI, SCANDINAVIAN, get_rules

ROLLS6 = list(itertools.combinations_with_replacement(range(1, 7), 6))
UPPER_PIPS = {"ones": 1, "twos": 2, "threes": 3, "fours": 4, "fives": 5, "sixes": 6}


def _sub_multisets(dice, size):
    return set(itertools.combinations(sorted(dice), size))


def _groups(part, sizes):
    """Whether ``part`` splits into groups of one face each, of these sizes, every group a
    different face."""
    cnt = Counter(part)
    if len(cnt) != len(sizes):
        return False
    return sorted(cnt.values()) == sorted(sizes)


def maxi_score(dice, cat):
    """Maxi Yatzy written out by brute force: the best-scoring choice of dice among all
    sub-multisets that form the category's pattern."""
    if cat in UPPER_PIPS:
        return sum(d for d in dice if d == UPPER_PIPS[cat])
    if cat == "chance":
        return sum(dice)
    if cat == "maxi_yatzy":
        return 100 if len(set(dice)) == 1 else 0
    if cat == "small_straight":
        return 15 if {1, 2, 3, 4, 5} <= set(dice) else 0
    if cat == "large_straight":
        return 20 if {2, 3, 4, 5, 6} <= set(dice) else 0
    if cat == "full_straight":
        return 21 if sorted(dice) == [1, 2, 3, 4, 5, 6] else 0
    patterns = {
        "one_pair": [2],
        "two_pairs": [2, 2],
        "three_pairs": [2, 2, 2],
        "three_of_a_kind": [3],
        "four_of_a_kind": [4],
        "five_of_a_kind": [5],
        "full_house": [3, 2],
        "castle": [3, 3],
        "tower": [4, 2],
    }
    sizes = patterns[cat]
    best = 0
    for part in _sub_multisets(dice, sum(sizes)):
        if _groups(part, sizes):
            best = max(best, sum(part))
    return best


def _score(dice, cat):
    r = ROLLS6.index(tuple(sorted(dice)))
    return int(MAXI.score[r, MAXI.categories.index(cat)])


def test_maxi_rules():
    assert get_rules("maxi") is MAXI and get_rules("Maxi") is MAXI
    assert MAXI.dice == 6 and MAXI.sides == 6
    assert MAXI.num_categories == 20 and MAXI.categories == MAXI_CATEGORIES
    assert MAXI.bonus_threshold == 75 and MAXI.bonus == 50
    assert MAXI.joker_code == 0 and MAXI.flags == 1 and not MAXI.forced_order
    assert len(MAXI.roll_counts) == 462
    assert MAXI.roll_probs.sum() == pytest.approx(1.0)
    assert MAXI.roll_probs[0] == pytest.approx(1 / 6**6)
    assert MAXI.category_id("Super House") == "castle"
    assert MAXI.category_id("maxi-yatzy") == "maxi_yatzy"


def test_maxi_all_rolls():
    assert [
        tuple(f + 1 for f, c in enumerate(MAXI.roll_counts[r]) for _ in range(int(c)))
        for r in range(462)
    ] == ROLLS6
    for r, dice in enumerate(ROLLS6):
        for c, cat in enumerate(MAXI.categories):
            assert MAXI.score[r, c] == maxi_score(dice, cat), (dice, cat)
    assert (MAXI.joker_score == MAXI.score).all()  # no joker


def test_maxi_tricky_cases():
    # three pairs needs three different faces; four of a kind with a pair is a tower
    assert _score((2, 2, 4, 4, 6, 6), "three_pairs") == 24
    assert _score((4, 4, 4, 4, 6, 6), "three_pairs") == 0
    assert _score((4, 4, 4, 4, 6, 6), "tower") == 28
    assert _score((4, 4, 4, 4, 6, 6), "two_pairs") == 20
    assert _score((4, 4, 4, 4, 6, 6), "full_house") == 24  # 4 4 4 + 6 6
    assert _score((4, 4, 4, 4, 4, 4), "two_pairs") == 0  # one face only
    assert _score((4, 4, 4, 4, 4, 4), "tower") == 0
    assert _score((4, 4, 4, 4, 4, 4), "castle") == 0
    assert _score((4, 4, 4, 4, 4, 4), "full_house") == 0
    assert _score((4, 4, 4, 4, 4, 4), "five_of_a_kind") == 20
    assert _score((4, 4, 4, 4, 4, 4), "maxi_yatzy") == 100
    # super house (castle): two different triples; the full house takes the best choice
    assert _score((2, 2, 2, 5, 5, 5), "castle") == 21
    assert _score((2, 2, 2, 5, 5, 5), "full_house") == 19  # 5 5 5 + 2 2
    assert _score((2, 2, 2, 5, 5, 5), "two_pairs") == 14
    assert _score((2, 2, 2, 5, 5, 5), "three_of_a_kind") == 15
    assert _score((2, 2, 2, 5, 5, 1), "castle") == 0
    # tower: four and two; five and one is not
    assert _score((3, 3, 3, 3, 3, 1), "tower") == 0
    assert _score((3, 3, 3, 3, 1, 1), "tower") == 14
    # the full straight needs all six faces
    assert _score((1, 2, 3, 4, 5, 6), "full_straight") == 21
    assert _score((1, 2, 3, 4, 5, 6), "small_straight") == 15
    assert _score((1, 2, 3, 4, 5, 6), "large_straight") == 20
    assert _score((1, 2, 3, 4, 5, 5), "full_straight") == 0
    # the sixth die is ignored in the straights and the full house
    assert _score((1, 2, 3, 4, 5, 5), "small_straight") == 15
    assert _score((1, 1, 2, 3, 4, 5), "small_straight") == 15
    assert _score((2, 3, 4, 5, 6, 2), "large_straight") == 20
    assert _score((1, 2, 3, 4, 5, 5), "large_straight") == 0
    assert _score((3, 3, 3, 6, 6, 1), "full_house") == 21
    assert _score((3, 3, 3, 6, 6, 6), "full_house") == 24  # 6 6 6 + 3 3
    assert _score((6, 6, 6, 5, 5, 4), "full_house") == 28
    # the highest qualifying face counts
    assert _score((5, 5, 5, 6, 6, 6), "three_of_a_kind") == 18
    assert _score((5, 5, 5, 5, 6, 6), "one_pair") == 12
    assert _score((1, 1, 2, 2, 3, 3), "two_pairs") == 10
    assert _score((6, 6, 6, 6, 6, 1), "four_of_a_kind") == 24
    assert _score((6, 6, 6, 6, 6, 1), "chance") == 31
    assert _score((6, 6, 6, 6, 6, 1), "sixes") == 30


def test_maxi_maxima():
    top = dict(zip(MAXI.categories, MAXI.category_max.tolist(), strict=True))
    assert top["three_pairs"] == 30 and top["castle"] == 33 and top["tower"] == 34
    assert top["full_house"] == 28 and top["maxi_yatzy"] == 100 and top["chance"] == 36
    assert MAXI.max_total == 126 + 50 + 423  # upper 6 * 21, bonus, lower maxima


def test_maxi_rules_checked():
    with pytest.raises(InputError, match="unknown maxi category 'yatzy'"):
        YatzyRules(style="maxi", categories=("yatzy",), dice=6)
    with pytest.raises(InputError, match="unknown scandinavian category 'castle'"):
        SCANDINAVIAN.reduced(("castle",))
    with pytest.raises(InputError, match="bonus threshold must be 1..126"):
        MAXI.reduced(("ones",), bonus_threshold=127)
    with pytest.raises(InputError, match="jokers and the Yahtzee bonus need a Yatzy box"):
        MAXI.reduced(("ones",), joker="free")
    with pytest.raises(InputError, match="jokers and the Yahtzee bonus are American rules"):
        YatzyRules(style="maxi", categories=("ones", "maxi_yatzy"), dice=6, joker="free")


REDUCED_MAXI = {
    "upper-chance": MAXI.reduced(("ones", "sixes", "chance"), bonus_threshold=8),
    "pairs-houses": MAXI.reduced(("three_pairs", "castle", "tower", "maxi_yatzy")),
    "straights": MAXI.reduced(("full_house", "full_straight", "small_straight")),
    "5d6": MAXI.reduced(("twos", "large_straight", "five_of_a_kind"), dice=5, bonus_threshold=6),
}


@pytest.mark.parametrize("name", list(REDUCED_MAXI))
def test_reduced_maxi_kernel_agrees_with_engine(name):
    rules = REDUCED_MAXI[name]
    table = solve_table(rules, dtype="float64")
    graph = compile_game(YatzyEngineGame(rules))
    sol = solve(graph, Objective())
    assert table.value == pytest.approx(sol.value, abs=1e-9)
    checked = 0
    for s, state in enumerate(graph.states):
        if state[0] == "turn":
            _, mask, flag, upper = state
            assert table.values[mask, flag, upper] == pytest.approx(sol.values[s], abs=1e-9)
            checked += 1
    assert checked == int(np.isfinite(table.values).sum())


@pytest.fixture(scope="module")
def small_table():
    """A reduced Maxi variant (six dice, 3 categories) solved in float64."""
    return solve_table(REDUCED_MAXI["upper-chance"], dtype="float64")


def test_reduced_maxi_widget_matches_table(small_table):
    for mask, upper in ((0, 0), (0b001, 3), (0b010, 8), (0b011, 8)):
        _, _, policy, value = small_table.widget(mask, 0, upper)
        assert value == pytest.approx(float(small_table.values[mask, 0, upper]), abs=1e-9)
        assert (policy[0] < 0).all()


def test_reduced_maxi_advice(small_table):
    rules = small_table.rules
    # the first roll: E over the 462 six-dice rolls of the best first action = table value
    total = 0.0
    for r, counts in enumerate(rules.roll_counts):
        dice = " ".join(str(f + 1) for f, c in enumerate(counts) for _ in range(int(c)))
        pos = parse_position(f"dice {dice} | rerolls 2 | filled -", rules)
        total += rules.roll_probs[r] * advise_position(pos, rules, small_table)[0].value
    assert total == pytest.approx(small_table.value, abs=1e-9)
    pos = parse_position("dice 6 6 6 6 6 6 | rerolls 0 | filled ones | upper 2", rules)
    best = advise_position(pos, rules, small_table)[0]
    assert best.action == "score sixes"  # 36 points and the bonus (threshold 8)


def test_maxi_positions_need_six_dice():
    with pytest.raises(InputError, match=r"expected 6 dice, got 5 \(variant maxi\)"):
        parse_position("dice 1 2 3 4 5 | rerolls 2", MAXI)
    with pytest.raises(InputError, match=r"expected 5 dice, got 6 \(variant scandinavian\)"):
        parse_position("dice 1 2 3 4 5 6 | rerolls 2", SCANDINAVIAN)
    with pytest.raises(InputError, match="unknown category 'yatzy'; did you mean 'maxi_yatzy'"):
        parse_position("dice 1 2 3 4 5 6 | rerolls 2 | filled yatzy", MAXI)
    with pytest.raises(InputError, match="unknown category 'castle'"):
        parse_position("dice 1 2 3 4 5 | rerolls 2 | filled castle", SCANDINAVIAN)


def test_reduced_maxi_simulation_mean(small_table):
    result = simulate(small_table, 40_000, np.random.default_rng(5))
    se = float(result.scores.std()) / np.sqrt(result.games)
    assert abs(float(result.scores.mean()) - small_table.value) < 4 * se
