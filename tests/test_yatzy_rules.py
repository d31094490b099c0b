"""Yatzy/Yahtzee scoring tables: all 252 rolls against a direct scorer, and tricky cases."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from diceopt.errors import InputError
from diceopt.games.yatzy.rulebook.rules import (
    AMERICAN_CATEGORIES,
    SCANDINAVIAN_CATEGORIES,
    YatzyRules,
    check_theta,
    reachable_upper_totals,
)
from diceopt.games.yatzy.rulebook.variants import (
    AMERICAN,
    SCANDINAVIAN,
    VARIANT_RULES,
    get_rules,
    variant_id,
)

ROLLS = list(itertools.combinations_with_replacement(range(1, 7), 5))


def scandinavian_score(dice, cat, fh_accepts=False, tp_accepts=False):
    """Scandinavian rules written out directly on a tuple of pips."""
    cnt = Counter(dice)
    upper = {"ones": 1, "twos": 2, "threes": 3, "fours": 4, "fives": 5, "sixes": 6}
    if cat in upper:
        return upper[cat] * cnt[upper[cat]]
    pairs = sorted(v for v, c in cnt.items() if c >= 2)
    if cat == "one_pair":
        return 2 * pairs[-1] if pairs else 0
    if cat == "two_pairs":
        if len(pairs) >= 2:
            return 2 * (pairs[-1] + pairs[-2])
        fours = [v for v, c in cnt.items() if c >= 4]
        return 4 * fours[0] if (tp_accepts and fours) else 0
    if cat == "three_of_a_kind":
        t = [v for v, c in cnt.items() if c >= 3]
        return 3 * t[0] if t else 0
    if cat == "four_of_a_kind":
        t = [v for v, c in cnt.items() if c >= 4]
        return 4 * t[0] if t else 0
    if cat == "small_straight":
        return 15 if sorted(dice) == [1, 2, 3, 4, 5] else 0
    if cat == "large_straight":
        return 20 if sorted(dice) == [2, 3, 4, 5, 6] else 0
    if cat == "full_house":
        if sorted(cnt.values()) == [2, 3] or (fh_accepts and len(cnt) == 1):
            return sum(dice)
        return 0
    if cat == "chance":
        return sum(dice)
    if cat == "yatzy":
        return 50 if len(cnt) == 1 else 0
    raise AssertionError(cat)


def american_score(dice, cat):
    """American rules (no joker) written out directly on a tuple of pips."""
    cnt = Counter(dice)
    upper = {"ones": 1, "twos": 2, "threes": 3, "fours": 4, "fives": 5, "sixes": 6}
    if cat in upper:
        return upper[cat] * cnt[upper[cat]]
    faces = set(dice)
    if cat == "three_of_a_kind":
        return sum(dice) if max(cnt.values()) >= 3 else 0
    if cat == "four_of_a_kind":
        return sum(dice) if max(cnt.values()) >= 4 else 0
    if cat == "full_house":
        return 25 if sorted(cnt.values()) == [2, 3] else 0
    if cat == "small_straight":
        runs = ({1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6})
        return 30 if any(r <= faces for r in runs) else 0
    if cat == "large_straight":
        return 40 if faces in ({1, 2, 3, 4, 5}, {2, 3, 4, 5, 6}) else 0
    if cat == "yahtzee":
        return 50 if len(cnt) == 1 else 0
    if cat == "chance":
        return sum(dice)
    raise AssertionError(cat)


def _pips(rules, r):
    return tuple(f + 1 for f, c in enumerate(rules.roll_counts[r]) for _ in range(int(c)))


def test_roll_order_and_probabilities():
    assert len(SCANDINAVIAN.roll_counts) == 252
    assert [_pips(SCANDINAVIAN, r) for r in range(252)] == ROLLS
    assert SCANDINAVIAN.roll_probs.sum() == pytest.approx(1.0)
    assert SCANDINAVIAN.roll_probs[0] == pytest.approx(1 / 6**5)  # 1 1 1 1 1
    assert SCANDINAVIAN.roll_probs[ROLLS.index((1, 2, 3, 4, 5))] == pytest.approx(120 / 6**5)


@pytest.mark.parametrize(
    "variant, fh, tp",
    [
        ("scandinavian", False, False),
        ("scandinavian-accepts", True, True),
        ("scandinavian-fh-accepts", True, False),
        ("scandinavian-tp-accepts", False, True),
    ],
)
def test_scandinavian_all_rolls(variant, fh, tp):
    rules = VARIANT_RULES[variant]
    assert rules.categories == SCANDINAVIAN_CATEGORIES
    for r, dice in enumerate(ROLLS):
        for c, cat in enumerate(rules.categories):
            assert rules.score[r, c] == scandinavian_score(dice, cat, fh, tp), (dice, cat)


def test_american_all_rolls():
    rules = AMERICAN
    assert rules.categories == AMERICAN_CATEGORIES
    for r, dice in enumerate(ROLLS):
        for c, cat in enumerate(rules.categories):
            assert rules.score[r, c] == american_score(dice, cat), (dice, cat)
            joker = rules.joker_score[r, c]
            if len(set(dice)) == 1 and cat in ("full_house", "small_straight", "large_straight"):
                assert joker == {"full_house": 25, "small_straight": 30, "large_straight": 40}[cat]
            else:
                assert joker == rules.score[r, c]


def _score(rules, dice, cat):
    return int(rules.score[ROLLS.index(tuple(sorted(dice))), rules.categories.index(cat)])


def test_tricky_scandinavian_cases():
    s = SCANDINAVIAN
    acc = VARIANT_RULES["scandinavian-accepts"]
    assert _score(s, (4, 4, 4, 4, 2), "two_pairs") == 0  # four of a kind is not two pairs
    assert _score(acc, (4, 4, 4, 4, 2), "two_pairs") == 16
    assert _score(s, (4, 4, 4, 4, 4), "two_pairs") == 0
    assert _score(s, (3, 3, 5, 5, 5), "two_pairs") == 16  # full house holds two pairs
    assert _score(s, (6, 6, 6, 6, 6), "full_house") == 0  # five of a kind is not a full house
    assert _score(acc, (6, 6, 6, 6, 6), "full_house") == 30
    assert _score(s, (2, 2, 2, 3, 3), "full_house") == 12
    assert _score(s, (5, 5, 6, 6, 1), "one_pair") == 12  # the highest pair counts
    assert _score(s, (5, 5, 5, 5, 5), "three_of_a_kind") == 15
    assert _score(s, (5, 5, 5, 5, 5), "four_of_a_kind") == 20
    assert _score(s, (5, 5, 5, 5, 5), "yatzy") == 50
    assert _score(s, (1, 2, 3, 4, 5), "small_straight") == 15
    assert _score(s, (1, 2, 3, 4, 5), "large_straight") == 0
    assert _score(s, (2, 3, 4, 5, 6), "large_straight") == 20
    assert _score(s, (1, 2, 3, 4, 6), "small_straight") == 0
    assert _score(s, (3, 3, 3, 2, 6), "threes") == 9
    assert SCANDINAVIAN.score.sum(axis=0).max() > 0


def test_tricky_american_cases():
    a = AMERICAN
    assert _score(a, (3, 4, 5, 6, 6), "small_straight") == 30
    assert _score(a, (1, 3, 4, 5, 6), "small_straight") == 30
    assert _score(a, (1, 2, 3, 5, 6), "small_straight") == 0
    assert _score(a, (1, 2, 3, 4, 5), "large_straight") == 40
    assert _score(a, (2, 2, 2, 5, 5), "full_house") == 25
    assert _score(a, (2, 2, 2, 2, 2), "full_house") == 0  # only as a joker
    assert _score(a, (6, 6, 6, 6, 1), "three_of_a_kind") == 25  # sum of all dice
    assert _score(a, (6, 6, 6, 6, 1), "four_of_a_kind") == 25
    assert _score(a, (6, 6, 6, 6, 6), "yahtzee") == 50
    r = ROLLS.index((2, 2, 2, 2, 2))
    assert a.joker_score[r, a.categories.index("large_straight")] == 40
    assert a.joker_score[r, a.categories.index("chance")] == 10


def test_max_score_374():
    # every category at its best plus the bonus: the published maximum
    assert int(SCANDINAVIAN.score.max(axis=0).sum()) + SCANDINAVIAN.bonus == 374


def test_max_total_from_the_rules():
    # every category at its best, the upper bonus, and a bonus Yahtzee on each other turn
    assert SCANDINAVIAN.max_total == 374
    assert AMERICAN.max_total == 375 + 12 * 100 == 1575
    assert VARIANT_RULES["american-no-bonus"].max_total == 375
    assert VARIANT_RULES["scandinavian-accepts"].max_total == 374 + 2 + 2  # 30 and 24
    assert AMERICAN.category_max[AMERICAN.categories.index("large_straight")] == 40


def test_category_names():
    s, a = SCANDINAVIAN, AMERICAN
    for name in ("full_house", "full-house", "Full House", "FULL_HOUSE", " full  house "):
        assert s.category_id(name) == "full_house"
    assert s.category_id("Yahtzee") == "yatzy" and a.category_id("yatzy") == "yahtzee"
    assert s.category_id("three-of-a-kind") == "three_of_a_kind"
    assert s.find_category("fulhouse") is None
    with pytest.raises(InputError, match="unknown category 'fulhouse'; did you mean 'full_house'"):
        s.category_id("fulhouse")
    with pytest.raises(InputError, match="unknown category 'one_pair'; categories are"):
        a.category_id("one_pair")  # a Scandinavian box, not an American one
    with pytest.raises(InputError, match="unknown category 'zzz'; categories are ones"):
        s.category_id("zzz")


def test_variant_names():
    assert get_rules("American") is AMERICAN and get_rules(" SCANDINAVIAN ") is SCANDINAVIAN
    assert get_rules("american_no_bonus") is VARIANT_RULES["american-no-bonus"]
    assert variant_id("American Forced Joker") == "american-forced-joker"
    assert variant_id(None) == "scandinavian"
    with pytest.raises(InputError, match="unknown Yatzy variant 'amercan' \\(did you mean"):
        get_rules("amercan")


def test_rules_validation():
    assert get_rules(None) is SCANDINAVIAN
    with pytest.raises(InputError, match="unknown Yatzy variant"):
        get_rules("yahtzee-deluxe")
    with pytest.raises(InputError, match="unknown scandinavian category"):
        YatzyRules(categories=("ones", "yahtzee"))
    with pytest.raises(InputError, match="needs at least 6 sides"):
        YatzyRules(categories=("sixes",), sides=4)
    with pytest.raises(InputError):
        YatzyRules(joker="free")
    flags = {v: VARIANT_RULES[v].flags for v in ("scandinavian", "american", "american-no-bonus")}
    assert flags == {"scandinavian": 1, "american": 2, "american-no-bonus": 1}


def test_reachable_upper_totals():
    # brute force: every count 0..dice of each filled face
    for faces in ((), (0,), (2, 4), (0, 1, 5), (0, 1, 2, 3, 4, 5)):
        want = {
            sum(k * (f + 1) for k, f in zip(ks, faces))
            for ks in itertools.product(range(6), repeat=len(faces))
        }
        assert reachable_upper_totals(faces, 5) == sorted(want)
        assert reachable_upper_totals(faces, 5, cap=63) == sorted({min(63, u) for u in want})
    assert reachable_upper_totals([1], 3) == [0, 2, 4, 6]


def test_check_theta():
    assert check_theta(0) == 0.0 and isinstance(check_theta(0), float)
    assert check_theta(-1) == -1.0 and check_theta("0.25") == 0.25
    for bad in (1.5, -2, float("nan"), float("inf"), "x", None):
        with pytest.raises(InputError, match="theta must be"):
            check_theta(bad)


def test_yatzy_box_label_names_the_variants_box_and_points():
    assert get_rules("scandinavian").yatzy_box == "Yatzy (50)"
    assert get_rules("american-no-bonus").yatzy_box == "Yahtzee (50)"
    assert get_rules("maxi").yatzy_box == "Maxi Yatzy (100)"  # simulate's rate line
    assert get_rules("maxi").reduced(("ones", "chance")).yatzy_box == ""
