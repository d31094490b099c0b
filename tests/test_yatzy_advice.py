"""Yatzy positions (text and JSON), advice values and regrets, apply, and bad input."""

from __future__ import annotations

import itertools
import re
from dataclasses import replace

import numpy as np
import pytest
from second_path import assert_same_values, random_positions

import diceopt.games.yatzy as yatzy
from diceopt.errors import InputError
from diceopt.games.registry import get_game
from diceopt.games.yatzy.kernel.simulation import turn_policy
from diceopt.games.yatzy.kernel.solve import solve_table
from diceopt.games.yatzy.kernel.table import YatzyTable
from diceopt.games.yatzy.play.advice import (
    advise_position,
    apply_action,
    format_position,
    parse_position,
    position_from_json,
    position_to_json,
    value_is,
)
from diceopt.games.yatzy.rulebook.rules import reachable_upper_totals
from diceopt.games.yatzy.rulebook.variants import AMERICAN, SCANDINAVIAN, VARIANT_RULES


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DICEOPT_CACHE", str(tmp_path_factory.mktemp("cache")))
        from diceopt.games.yatzy.stored import store as solved

        mp.setattr(solved, "TABLES", {})
        yield


@pytest.fixture(scope="module")
def table(cache):
    return yatzy.get_solved("scandinavian")


@pytest.fixture(scope="module")
def table64():
    return solve_table(SCANDINAVIAN, dtype="float64")


@pytest.mark.parametrize(
    "text, canonical",
    [
        (
            "dice 1 3 3 5 6 | rerolls 2 | filled ones twos | upper 3 | score 3",
            "dice 1 3 3 5 6 | rerolls 2 | filled ones twos | upper 3 | score 3",
        ),
        (
            "rerolls 0 |  dice 6 1 3 5 3|filled -",
            "dice 1 3 3 5 6 | rerolls 0 | filled - | upper 0",
        ),
        (
            "dice 2 2 2 2 2 | rerolls 1 | filled chance SIXES | upper 30 | score 52.5",
            "dice 2 2 2 2 2 | rerolls 1 | filled sixes chance | upper 30 | score 52.5",
        ),
    ],
)
def test_parse_format_round_trip(text, canonical):
    pos = parse_position(text, SCANDINAVIAN)
    assert format_position(pos, SCANDINAVIAN) == canonical
    assert parse_position(canonical, SCANDINAVIAN) == pos
    assert position_from_json(position_to_json(pos), SCANDINAVIAN) == pos


def test_american_yahtzee_bonus_notation():
    text = "dice 6 6 6 6 6 | rerolls 0 | filled sixes yahtzee | upper 30 | score 80"
    pos = parse_position(text + " | yahtzee-bonus yes", AMERICAN)
    assert pos.yahtzee_bonus
    assert format_position(pos, AMERICAN) == text + " | yahtzee-bonus yes"
    plain = parse_position(text, AMERICAN)
    assert format_position(plain, AMERICAN) == text + " | yahtzee-bonus no"
    assert position_from_json(position_to_json(pos), AMERICAN) == pos
    with pytest.raises(InputError, match="needs the yahtzee box"):
        parse_position("dice 1 2 3 4 5 | rerolls 0 | yahtzee-bonus yes", AMERICAN)
    with pytest.raises(InputError, match="no Yahtzee bonus"):
        parse_position(
            "dice 1 2 3 4 5 | rerolls 0 | filled yatzy | yahtzee-bonus yes", SCANDINAVIAN
        )


@pytest.mark.parametrize(
    "text, message",
    [
        ("dice 0 3 3 5 6 | rerolls 2", "a die shows 1 to 6, got 0"),
        ("dice 1 3 3 5 7 | rerolls 2", "a die shows 1 to 6, got 7"),
        ("dice 1 3 3 5 | rerolls 2", "expected 5 dice, got 4"),
        ("dice 1 3 3 5 6 6 | rerolls 2", "expected 5 dice, got 6"),
        ("dice 1 3 x 5 6 | rerolls 2", "a die must be a whole number"),
        ("dice 1 3 3 5 6 | rerolls 3", "rerolls left must be 0, 1 or 2"),
        ("dice 1 3 3 5 6 | rerolls -1", "rerolls left must be 0, 1 or 2"),
        ("dice 1 3 3 5 6", "needs rerolls"),
        ("rerolls 2", "needs dice"),
        (
            "dice 1 3 3 5 6 | rerolls 2 | filled fulhouse",
            "unknown category 'fulhouse'; did you mean 'full_house'\\?",
        ),
        ("dice 1 3 3 5 6 | rerolls 2 | filled xyz", "unknown category 'xyz'; categories are"),
        ("dice 1 3 3 5 6 | rerolls 2 | filled ones ones", "listed twice"),
        ("dice 1 3 3 5 6 | rerolls 2 | filled ones | upper 6", "upper total 6 is impossible"),
        ("dice 1 3 3 5 6 | rerolls 2 | upper 3", "upper total 3 is impossible"),
        ("dice 1 3 3 5 6 | rerolls 2 | filled threes fives | upper 7", "impossible"),
        ("dice 1 3 3 5 6 | rerolls 2 | filled ones | upper 3 | score 2", "less than the upper"),
        ("dice 1 3 3 5 6 | rerolls 2 | colour red", "unknown field"),
        ("dice 1 3 3 5 6 | rerolls 2 | rerolls 1", "given twice"),
        ("", "empty position"),
    ],
)
def test_bad_positions(text, message):
    with pytest.raises(InputError, match=message):
        parse_position(text, SCANDINAVIAN)


@pytest.mark.parametrize(
    "text, message",
    [
        ("score nan", "score must be a finite number of points, got nan"),
        ("score inf", "score must be a finite number of points, got inf"),
        ("score -inf", "score must be a finite number of points, got -inf"),
        ("score 1e400", "score too large, got .1e400."),
        ("score five", "score must be a number"),
        # no game scores more than the variant's maximum (374 in Scandinavian)
        ("score 1e20", "a game of scandinavian scores at most 374 points"),
        ("score 400", "a game of scandinavian scores at most 374 points"),
        ("filled ones | upper 3 | score 4", "hold at most 3 points"),
        ("filled ones chance | upper 3 | score 34", "hold at most 33 points"),
        ("filled sixes | upper 30 | score 31", "hold at most 30 points"),
        # the upper bonus is part of the score once the upper total reaches 63
        ("filled ones twos threes fours fives sixes | upper 63 | score 112", "at least 113"),
        ("filled threes fours fives sixes | upper 72 | score 100", "at least 122"),
    ],
)
def test_bad_scores(text, message):
    with pytest.raises(InputError, match=message) as info:
        parse_position("dice 1 3 3 5 6 | rerolls 2 | " + text, SCANDINAVIAN)
    assert "\n" not in str(info.value)


def test_score_lower_bounds():
    upper = "dice 1 3 3 5 6 | rerolls 2 | filled threes fours fives sixes | upper 72"
    assert parse_position(upper + " | score 122", SCANDINAVIAN).score == 122
    assert parse_position(upper.replace("72", "62") + " | score 62", SCANDINAVIAN).score == 62
    # American: the Yahtzee box holds 50 with yahtzee-bonus yes (and the bonus is 35)
    five = "dice 6 6 6 6 6 | rerolls 0 | filled yahtzee | yahtzee-bonus yes"
    with pytest.raises(InputError, match="at least 50 .*got 0"):
        parse_position(five + " | score 0", AMERICAN)
    with pytest.raises(InputError, match="at least 50"):
        parse_position(five + " | score 49.5", AMERICAN)
    pos = parse_position(five + " | score 50", AMERICAN)
    assert pos.score == 50 and pos.yahtzee_bonus
    full = "dice 6 6 6 6 6 | rerolls 0 | filled fours fives sixes yahtzee | upper 63"
    with pytest.raises(InputError, match="at least 98"):
        parse_position(full + " | score 97", AMERICAN)
    parse_position(full + " | score 98", AMERICAN)  # no yahtzee-bonus: the box may hold 0
    with pytest.raises(InputError, match="at least 148"):
        parse_position(full + " | score 147 | yahtzee-bonus yes", AMERICAN)
    parse_position(full + " | score 148 | yahtzee-bonus yes", AMERICAN)


JSON_OK = {
    "dice": [1, 3, 3, 5, 6],
    "rerolls": 2,
    "filled": ["ones", "chance"],
    "upper": 3,
    "score": 9,
}


@pytest.mark.parametrize(
    "change, message",
    [
        ({"score": "5"}, 'score must be a number of points, got "5"'),
        ({"score": True}, "score must be a number of points, got true"),
        ({"score": [5]}, "score must be a number"),
        ({"score": float("nan")}, "score must be a finite number"),
        ({"score": float("inf")}, "score must be a finite number"),
        ({"score": 10**400}, "score is too large"),
        ({"rerolls": 2.7}, "rerolls must be a whole number, got 2.7"),
        ({"rerolls": "2"}, 'rerolls must be a whole number, got "2"'),
        ({"rerolls": True}, "rerolls must be a whole number, got true"),
        ({"rerolls": None}, "rerolls must be a whole number, got null"),
        ({"upper": 3.5}, "upper must be a whole number, got 3.5"),
        ({"upper": False}, "upper must be a whole number, got false"),
        ({"dice": [1, 3, 3, 5, 6.5]}, "a die must be a whole number, got 6.5"),
        ({"dice": [1, 3, 3, 5, True]}, "a die must be a whole number, got true"),
        ({"dice": [1, 3, 3, 5, "6"]}, 'a die must be a whole number, got "6"'),
        ({"dice": "13356"}, 'dice must be a list, got "13356"'),
        ({"filled": "ones"}, 'filled must be a list, got "ones"'),
        ({"filled": [1]}, "filled must list category ids, got 1"),
        ({"yahtzee_bonus": "no"}, 'yahtzee_bonus must be true or false, got "no"'),
        ({"yahtzee_bonus": 0}, "yahtzee_bonus must be true or false, got 0"),
        ({"yahtzee_bonus": None}, "yahtzee_bonus must be true or false, got null"),
        ({"rerolls": None, "colour": "red"}, "unknown position field"),
    ],
)
def test_bad_json_positions(change, message):
    data = JSON_OK | change
    with pytest.raises(InputError, match=re.escape(message)) as info:
        position_from_json(data, AMERICAN)
    assert "\n" not in str(info.value)


def test_json_positions():
    pos = position_from_json(JSON_OK, AMERICAN)
    text = "dice 1 3 3 5 6 | rerolls 2 | filled ones chance | upper 3 | score 9"
    assert pos == parse_position(text, AMERICAN)
    # the score is optional: missing or null is not given
    for data in ({k: v for k, v in JSON_OK.items() if k != "score"}, JSON_OK | {"score": None}):
        bare = position_from_json(data, AMERICAN)
        assert bare.score is None and "score" not in position_to_json(bare)
        assert position_from_json(position_to_json(bare), AMERICAN) == bare
    # integral floats are whole numbers; the score may be any finite number
    floats = JSON_OK | {"dice": [1.0, 3, 3, 5, 6], "rerolls": 2.0, "upper": 3.0, "score": 9.0}
    assert position_from_json(floats, AMERICAN) == pos
    assert position_from_json(JSON_OK | {"score": 9.5}, AMERICAN).score == 9.5
    missing = {k: v for k, v in JSON_OK.items() if k != "rerolls"}
    with pytest.raises(InputError, match="needs rerolls"):
        position_from_json(missing, AMERICAN)
    # the JSON form is accepted by the text parser as well
    with pytest.raises(InputError, match="yahtzee_bonus must be true or false"):
        parse_position('{"dice": [6,6,6,6,6], "rerolls": 0, "yahtzee_bonus": "no"}', AMERICAN)
    bonus = {"dice": [6] * 5, "rerolls": 0, "filled": ["yahtzee"], "yahtzee_bonus": True}
    with pytest.raises(InputError, match="at least 50"):
        position_from_json(bonus | {"score": 0}, AMERICAN)
    assert position_from_json(bonus | {"score": 50}, AMERICAN).yahtzee_bonus


def test_forced_order_position():
    rules = VARIANT_RULES["scandinavian-forced"]
    parse_position("dice 1 2 3 4 5 | rerolls 1 | filled ones twos | upper 3 | score 3", rules)
    with pytest.raises(InputError, match="forced order"):
        parse_position("dice 1 2 3 4 5 | rerolls 1 | filled twos | upper 2 | score 2", rules)


def test_advice_lists_every_action_best_first(table):
    pos = parse_position(yatzy.POSITION_EXAMPLE, SCANDINAVIAN)
    actions = advise_position(pos, SCANDINAVIAN, table)
    names = [a.action for a in actions]
    # 13 open categories + distinct proper sub-multisets of 1 3 3 5 6 (2*3*2*2 - 1 = 23)
    assert len(names) == len(set(names)) == 13 + 23
    assert "keep -" in names and "keep 3 3" in names and "score chance" in names
    assert "keep 1 3 3 5 6" not in names and "score ones" not in names
    values = [a.value for a in actions]
    assert values == sorted(values, reverse=True)
    assert actions[0].regret == 0.0
    assert all(a.regret == pytest.approx(actions[0].value - a.value) for a in actions)
    assert actions[0].action == "keep 3 3"


def test_advice_values_are_expected_final_scores(table64):
    # the first roll of the game: E over rolls of the best first-roll value = table value
    rules = SCANDINAVIAN
    total = 0.0
    for r, counts in enumerate(rules.roll_counts):
        dice = " ".join(str(f + 1) for f, c in enumerate(counts) for _ in range(int(c)))
        pos = parse_position(f"dice {dice} | rerolls 2 | filled -", rules)
        total += rules.roll_probs[r] * advise_position(pos, rules, table64)[0].value
    assert total == pytest.approx(table64.value, abs=1e-9)


def test_keep_value_is_expectation_of_next_position(table64):
    # keep 6 6 with one reroll left: average of the best score after the reroll
    rules = SCANDINAVIAN
    base = "rerolls {t} | filled ones chance | upper 3 | score 20"
    pos = parse_position("dice 1 2 5 6 6 | " + base.format(t=1), rules)
    keep = {a.action: a.value for a in advise_position(pos, rules, table64)}["keep 6 6"]
    expect = 0.0
    for rest in itertools.product(range(1, 7), repeat=3):
        dice = " ".join(map(str, sorted((6, 6) + rest)))
        after = parse_position(f"dice {dice} | " + base.format(t=0), rules)
        expect += advise_position(after, rules, table64)[0].value / 216
    assert keep == pytest.approx(expect, abs=1e-9)


def test_scoring_value_includes_points_and_bonus(table64):
    rules = SCANDINAVIAN
    text = "dice 6 6 6 6 1 | rerolls 0 | filled {f} | upper {u} | score {s}"
    filled = "ones twos threes fours fives"
    pos = parse_position(text.format(f=filled, u=40, s=40), rules)
    values = {a.action: a.value for a in advise_position(pos, rules, table64)}
    rest = float(table64.values[0b111111, 0, 63])
    assert values["score sixes"] == pytest.approx(40 + 24 + 50 + rest, abs=1e-9)


def test_apply_keep_and_score():
    rules = SCANDINAVIAN
    rng = np.random.default_rng(3)
    pos = parse_position(yatzy.POSITION_EXAMPLE, rules)
    after, over = apply_action(pos, "keep 3 3", rules, rng)
    assert not over and after.rerolls == 1 and after.dice.count(3) >= 2
    same, _ = apply_action(pos, "keep 3 3", rules, np.random.default_rng(3))
    assert same == after  # seeded
    scored, over = apply_action(pos, "score chance", rules, rng)
    assert scored.filled == ("ones", "twos", "chance") and scored.score == 3 + 18
    assert scored.rerolls == 2 and len(scored.dice) == 5 and not over
    bonus = parse_position(
        "dice 6 6 6 6 1 | rerolls 0 | filled ones twos threes fours fives | upper 40 | score 40",
        rules,
    )
    after, _ = apply_action(bonus, "score sixes", rules, rng)
    assert after.upper == 64 and after.score == 40 + 24 + 50
    with pytest.raises(InputError, match="cannot keep"):
        apply_action(pos, "keep 4", rules, rng)
    with pytest.raises(InputError, match="keeping all the dice"):
        apply_action(pos, "keep 1 3 3 5 6", rules, rng)
    with pytest.raises(InputError, match="already filled"):
        apply_action(pos, "score ones", rules, rng)
    with pytest.raises(InputError, match="unknown category 'fulhouse'; did you mean 'full_house'"):
        apply_action(pos, "score fulhouse", rules, rng)
    with pytest.raises(InputError, match="unknown action"):
        apply_action(pos, "reroll", rules, rng)
    last = parse_position(
        "dice 1 1 1 1 1 | rerolls 0 | filled "
        + " ".join(rules.categories[:-1])
        + " | upper 63 | score 200",
        rules,
    )
    end, over = apply_action(last, "score yatzy", rules, rng)
    assert over and end.dice == () and end.score == 250
    assert parse_position(format_position(end, rules), rules) == end
    with pytest.raises(InputError, match="game is over"):
        apply_action(end, "score chance", rules, rng)
    with pytest.raises(InputError, match="no rerolls left"):
        apply_action(last, "keep 1", rules, rng)


def test_american_jokers_in_apply():
    rules = AMERICAN
    rng = np.random.default_rng(0)
    text = "dice 4 4 4 4 4 | rerolls 0 | filled {f} | upper {u} | score {s} | yahtzee-bonus yes"
    open_upper = parse_position(text.format(f="yahtzee", u=0, s=50), rules)
    after, _ = apply_action(open_upper, "score large_straight", rules, rng)
    assert after.score == 50 + 100 + 0  # matching upper box open: no joker points
    used_upper = parse_position(text.format(f="fours yahtzee", u=12, s=62), rules)
    after, _ = apply_action(used_upper, "score large_straight", rules, rng)
    assert after.score == 62 + 100 + 40
    forced = VARIANT_RULES["american-forced-joker"]
    pos = parse_position(text.format(f="yahtzee", u=0, s=50), forced)
    with pytest.raises(InputError, match="may not be used"):
        apply_action(pos, "score chance", forced, rng)
    after, _ = apply_action(pos, "score fours", forced, rng)
    assert after.score == 50 + 100 + 20 and after.yahtzee_bonus


def test_game_contract(cache):
    spec = get_game("Yatzy")
    assert next(iter(spec.variants)) == "scandinavian"
    assert {"scandinavian", "american", "american-no-bonus"} <= set(spec.variants)
    rules = spec.rules()
    pos = spec.parse(rules, spec.position_example)
    actions = spec.advise(rules, pos).actions
    assert actions[0].action == "keep 3 3" and actions[0].regret == 0.0
    step = spec.apply(rules, pos, "keep 3 3", np.random.default_rng(1))
    assert not step.game_over and step.position.rerolls == 1
    with pytest.raises(InputError):
        spec.rules("nope")


def test_a_whole_optimal_game(table):
    rules = SCANDINAVIAN
    rng = np.random.default_rng(11)
    pos = parse_position("dice 2 3 3 4 6 | rerolls 2 | score 0", rules)
    over = False
    steps = 0
    while not over:
        best = advise_position(pos, rules, table)[0].action
        pos, over = apply_action(pos, best, rules, rng)
        steps += 1
    assert len(pos.filled) == 15 and 15 <= steps <= 45 and 0 <= pos.score <= 374


def test_widget_policy_matches_advice(table64):
    # the per-roll policy of the widget (for simulation) is the advice's best action
    rules = SCANDINAVIAN
    mask = (1 << 0) | (1 << 13)  # ones and chance filled
    _, _, policy, _ = table64.widget(mask, 0, 3)
    lat = rules.lattice
    for r in range(0, 252, 7):
        dice = " ".join(str(f + 1) for f, c in enumerate(rules.roll_counts[r]) for _ in range(c))
        for t in (0, 1, 2):
            text = f"dice {dice} | rerolls {t} | filled ones chance | upper 3 | score 20"
            best = advise_position(parse_position(text, rules), rules, table64)
            act = policy[t, r]
            if act < 0:
                want = f"score {rules.categories[-act - 1]}"
            else:
                kept = lat.counts[act]
                want = "keep " + (
                    " ".join(str(f + 1) for f, c in enumerate(kept) for _ in range(c)) or "-"
                )
            top = [a.action for a in best if a.value >= best[0].value - 1e-9]
            assert want in top, (text, want, top)


def test_json_text_is_accepted_wherever_a_position_is():
    text = (
        '{"dice": [6, 5, 3, 3, 1], "rerolls": 2, "filled": ["twos", "ones"],'
        ' "upper": 3, "score": 3}'
    )
    assert parse_position(text, SCANDINAVIAN) == parse_position(
        "dice 1 3 3 5 6 | rerolls 2 | filled ones twos | upper 3 | score 3", SCANDINAVIAN
    )
    with pytest.raises(InputError, match="malformed JSON position"):
        parse_position('{"dice": [1, 2', SCANDINAVIAN)


# --- the score is optional: what the values are ------------------------------------------


def test_score_omitted_values_are_points_to_come(table):
    rules = SCANDINAVIAN
    bare = parse_position("dice 1 3 3 5 6 | rerolls 2 | filled ones threes | upper 12", rules)
    assert bare.score is None  # no 'score 0 is less than the upper total 12'
    assert value_is(bare) == "expected points still to come (points)"
    assert format_position(bare, rules) == (
        "dice 1 3 3 5 6 | rerolls 2 | filled ones threes | upper 12"
    )
    given = parse_position(format_position(bare, rules) + " | score 12", rules)
    assert value_is(given) == "expected final score (points)"
    to_come = advise_position(bare, rules, table)
    final = advise_position(given, rules, table)
    assert [a.action for a in to_come] == [a.action for a in final]
    for a, b in zip(to_come, final):
        assert b.value == pytest.approx(12 + a.value) and b.regret == pytest.approx(a.regret)
    # the state's table value is what the best first move expects to come
    assert 0 < to_come[0].value < 374
    # the game's advice says the same
    spec = yatzy.SPEC
    config = spec.rules()
    text = "dice 1 3 3 5 6 | rerolls 2 | upper 0"
    assert spec.advise(config, spec.parse(config, text)).value_is == value_is(bare)
    example = spec.parse(config, yatzy.POSITION_EXAMPLE)
    assert spec.advise(config, example).value_is == "expected final score (points)"
    # applying an action keeps the score not given
    after, _ = apply_action(bare, "score chance", rules, np.random.default_rng(0))
    assert after.score is None and "score" not in format_position(after, rules)
    assert parse_position("dice 1 3 3 5 6 | rerolls 2 | upper 12 | filled ones threes", rules)


def test_category_names_in_positions_and_actions():
    rules = SCANDINAVIAN
    pos = parse_position(
        "dice 1 3 3 5 6 | rerolls 2 | filled Full-House three of a kind Yahtzee ONES | upper 1",
        rules,
    )
    assert pos.filled == ("ones", "three_of_a_kind", "full_house", "yatzy")
    american = parse_position(
        '{"dice": [1, 2, 3, 4, 5], "rerolls": 0, "filled": ["Yatzy"]}', AMERICAN
    )
    assert american.filled == ("yahtzee",)
    with pytest.raises(InputError, match="unknown category 'fulhouse'; did you mean 'full_house'"):
        parse_position("dice 1 3 3 5 6 | rerolls 2 | filled fulhouse", rules)
    with pytest.raises(InputError, match="did you mean 'chance'"):
        parse_position('{"dice": [1, 3, 3, 5, 6], "rerolls": 2, "filled": ["chanse"]}', rules)
    rng = np.random.default_rng(0)
    start = parse_position("dice 2 2 3 3 3 | rerolls 1", rules)
    for name in ("Full House", "full-house", "FULL_HOUSE"):
        after, _ = apply_action(start, f"score {name}", rules, rng)
        assert after.filled == ("full_house",)
    after, _ = apply_action(start, "score Yahtzee", rules, rng)  # scores 0 in yatzy
    assert after.filled == ("yatzy",)


def _action_text(rules, act):
    if act < 0:
        return f"score {rules.categories[-act - 1]}"
    kept = rules.lattice.counts[act]
    return "keep " + (" ".join(str(f + 1) for f, c in enumerate(kept) for _ in range(c)) or "-")


def _positions_of_state(rules, mask, flag, u, rng, rolls):
    faces = [int(rules.upper_face[c]) for c in range(rules.num_categories) if mask >> c & 1]
    faces = [f for f in faces if f >= 0]
    T = rules.bonus_threshold
    upper = min(x for x in reachable_upper_totals(faces, rules.dice) if min(x, T) == u)
    filled = " ".join(c for i, c in enumerate(rules.categories) if mask >> i & 1) or "-"
    extra = " | yahtzee-bonus yes" if flag else ""
    for r in rng.choice(len(rules.roll_counts), size=rolls, replace=False):
        counts = rules.roll_counts[r]
        dice = " ".join(str(f + 1) for f, c in enumerate(counts) for _ in range(int(c)))
        for t in (0, 1, 2):
            text = f"dice {dice} | rerolls {t} | filled {filled} | upper {upper}{extra}"
            yield int(r), t, parse_position(text, rules)


@pytest.mark.parametrize("variant", ["scandinavian", "american"])
def test_advice_best_action_is_the_simulated_move(table, variant):
    # one widget, one tie-break: the first action advised is the one the simulation plays
    rules = VARIANT_RULES[variant]
    tab = table if variant == "scandinavian" else solve_table(rules)
    rng = np.random.default_rng(5)
    values = tab.values
    idx = np.argwhere(~np.isnan(values))
    idx = idx[idx[:, 0] != (1 << rules.num_categories) - 1]
    states = [tuple(int(x) for x in row) for row in idx[rng.choice(len(idx), 30, replace=False)]]
    states += [(0, 0, 0), ((1 << rules.num_categories) - 2, 0, rules.bonus_threshold)]
    if rules.tracks_yahtzee:
        yz = rules.yahtzee_category
        states += [(1 << yz, 1, 0), ((1 << yz) | 0b101, 1, 4), ((1 << yz) | (1 << 8), 0, 0)]
    checked = 0
    for mask, flag, u in states:
        policy = turn_policy(tab, mask, flag, u)
        for r, t, pos in _positions_of_state(rules, mask, flag, u, rng, 12):
            best = advise_position(pos, rules, tab)[0].action
            assert best == _action_text(rules, policy[t, r]), (pos, best)
            checked += 1
    assert checked >= 30 * 12 * 3


def test_ties_follow_the_documented_order(table64):
    # a table of zeros makes every future equal: five 5s with the Yatzy box filled score
    # 25 in fives and in chance alike, and the lower category index (fives) comes first,
    # in the advice and in the simulation's policy
    rules = SCANDINAVIAN
    flat = YatzyTable(rules, np.where(np.isnan(table64.values), np.nan, 0.0))
    pos = parse_position("dice 5 5 5 5 5 | rerolls 0 | filled yatzy", rules)
    acts = advise_position(pos, rules, flat)
    assert [a.action for a in acts[:2]] == ["score fives", "score chance"]
    assert acts[0].value == acts[1].value == 25.0 and acts[1].regret == 0.0
    r = int(rules.lattice.index(np.array([0, 0, 0, 0, 5, 0]))) - int(
        rules.lattice.offset[rules.dice]
    )
    policy = turn_policy(flat, 1 << rules.yahtzee_category, 0, 0)
    assert rules.categories[-policy[0, r] - 1] == "fives"


@pytest.mark.parametrize(
    "variant, sheet, least",
    [
        ("scandinavian", "filled chance", 5),  # chance holds the sum of the dice
        ("scandinavian", "filled chance yatzy one_pair", 5),  # the others may hold 0
        ("scandinavian", "filled ones chance | upper 4", 9),
        ("maxi", "filled chance", 6),  # six dice
        ("american", "filled chance", 5),
        ("american", "filled chance yahtzee | yahtzee-bonus yes", 55),
        ("american-forced-joker", "filled chance full_house", 5),
    ],
)
def test_scores_below_what_the_sheet_holds_are_refused(variant, sheet, least):
    from diceopt.games.yatzy.rulebook.variants import get_rules

    rules = get_rules(variant)
    dice = " ".join(["1"] * rules.dice)
    text = f"dice {dice} | rerolls 0 | {sheet}"
    with pytest.raises(InputError, match=f"hold at least {least} points"):
        parse_position(f"{text} | score {least - 1}", rules)
    assert parse_position(f"{text} | score {least}", rules).score == least


# --- the second path: every action's value by the generic engine ----------------------

# small rules the engine builds in a fraction of a second, named apart so that their
# tables are filed apart: jokers and the Yahtzee bonus (American), two upper boxes with
# their bonus and Chance (Scandinavian, 3d4)
INDEPENDENT = {
    "american-4d6": replace(
        AMERICAN.reduced(
            ("twos", "full_house", "small_straight", "yahtzee"), dice=4, bonus_threshold=6
        ),
        name="independent-american-4d6",
    ),
    "scandinavian-3d4": replace(
        SCANDINAVIAN.reduced(("ones", "twos", "chance"), dice=3, sides=4, bonus_threshold=5),
        name="independent-scandinavian-3d4",
    ),
}


def sampled_positions(spec, rules, count, seed):
    """``count`` positions of seeded random play, every third one without its score
    (values then count the points still to come)."""
    positions = random_positions(spec, rules, count, seed)
    return [replace(p, score=None) if i % 3 == 2 else p for i, p in enumerate(positions)]


@pytest.mark.parametrize("name, theta", [("american-4d6", 0.0), ("scandinavian-3d4", 0.2)])
def test_independent_values_equal_the_advice(cache, name, theta):
    spec = get_game("yatzy")
    rules = spec.config(INDEPENDENT[name], theta=theta, dtype="float64")
    for pos in sampled_positions(spec, rules, 50, seed=3):
        where = spec.format(rules, pos)
        assert_same_values(spec.advise(rules, pos), spec.independent_values(rules, pos), where)


def test_independent_values_catch_a_wrong_value(cache):
    spec = get_game("yatzy")
    rules = spec.config(INDEPENDENT["american-4d6"], dtype="float64")
    pos = spec.parse(rules, "dice 2 2 3 4 | rerolls 1 | filled twos | upper 4 | score 4")
    advice, values = spec.advise(rules, pos), spec.independent_values(rules, pos)
    assert_same_values(advice, values, "as computed")
    worst = advice.actions[-1].action
    with pytest.raises(AssertionError):  # one value off by 1e-8
        assert_same_values(advice, values | {worst: values[worst] + 1e-8}, "perturbed")
    with pytest.raises(AssertionError):  # one action missing
        assert_same_values(advice, {k: v for k, v in values.items() if k != worst}, "dropped")
    # the points on the sheet are in the values: without them, other values
    to_come = spec.independent_values(rules, replace(pos, score=None))
    assert to_come["score full_house"] == values["score full_house"] - 4
    with pytest.raises(AssertionError):
        assert_same_values(advice, to_come, "without the score")


def test_independent_values_refuse_large_rules():
    spec = get_game("yatzy")
    rules = spec.rules()  # Scandinavian Yatzy: millions of engine nodes
    with pytest.raises(InputError, match="too large for the engine"):
        spec.independent_values(rules, spec.parse(rules, spec.position_example))
