"""Yatzy-family rule files: the shipped files are the built-in variants, presets reproduce
their published values, extends and the content hash, and bad files get one line per
problem (exit status 2 from ``diceopt rules check``)."""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path

import numpy as np
import pytest

from diceopt.cli import main
from diceopt.engine import Objective, compile_game, solve
from diceopt.errors import InputError
from diceopt.games.families.category import (
    BUILTIN,
    RuleFileError,
    check_file,
    load_rules,
    load_rules_text,
    shipped_names,
)
from diceopt.games.yatzy.engine_game import YatzyEngineGame
from diceopt.games.yatzy.layers import count_states
from diceopt.games.yatzy.rules import (
    AMERICAN_CATEGORIES,
    MAXI_CATEGORIES,
    SCANDINAVIAN_CATEGORIES,
    VARIANT_RULES,
    VARIANTS,
    YatzyRules,
    get_rules,
)
from diceopt.games.yatzy.solve import solve_table

HOUSE = Path(__file__).resolve().parent.parent / "examples" / "rules" / "house.toml"
YACHT_PUBLISHED = 191.774369  # RULES.md section 8, checked independently to 191.774369188

# the built-in variants written without rule files: style and category names (RULES.md)
BY_STYLE = {
    "scandinavian": YatzyRules(categories=SCANDINAVIAN_CATEGORIES),
    "scandinavian-accepts": YatzyRules(full_house_accepts_yatzy=True, two_pairs_accepts_four=True),
    "scandinavian-fh-accepts": YatzyRules(full_house_accepts_yatzy=True),
    "scandinavian-tp-accepts": YatzyRules(two_pairs_accepts_four=True),
    "scandinavian-forced": YatzyRules(forced_order=True),
    "american": YatzyRules(
        style="american", categories=AMERICAN_CATEGORIES, bonus=35, joker="free", yahtzee_bonus=100
    ),
    "american-forced-joker": YatzyRules(
        style="american",
        categories=AMERICAN_CATEGORIES,
        bonus=35,
        joker="forced",
        yahtzee_bonus=100,
    ),
    "american-no-joker": YatzyRules(
        style="american", categories=AMERICAN_CATEGORIES, bonus=35, yahtzee_bonus=100
    ),
    "american-no-bonus": YatzyRules(style="american", categories=AMERICAN_CATEGORIES, bonus=35),
    "maxi": YatzyRules(style="maxi", categories=MAXI_CATEGORIES, dice=6, bonus_threshold=75),
    "maxi-saved": YatzyRules(
        style="maxi", categories=MAXI_CATEGORIES, dice=6, bonus_threshold=75, saved_rerolls=True
    ),
}


def _roll(rules: YatzyRules, *pips: int) -> int:
    """Index of a sorted roll (pips) among the rules' rolls."""
    counts = np.bincount(np.array(pips) - 1, minlength=rules.sides)
    return int(np.flatnonzero((rules.roll_counts == counts).all(axis=1))[0])


def _points(rules: YatzyRules, category: str, *pips: int) -> int:
    return int(rules.score[_roll(rules, *pips), rules.categories.index(category)])


# --- the built-in variants are the shipped files ------------------------------------------


@pytest.mark.parametrize("name", BUILTIN)
def test_builtin_variants_are_their_shipped_files(name):
    rules = load_rules(name)
    assert get_rules(name) is rules and VARIANT_RULES[name] is rules
    assert rules.storage_key == name  # stored tables of built-ins keep their names
    # the same game as the rules written from the style's category names
    by_style = BY_STYLE[name]
    for f in fields(YatzyRules):
        if f.compare:
            assert getattr(rules, f.name) == getattr(by_style, f.name), f.name
    assert np.array_equal(rules.score, by_style.score)
    assert np.array_equal(rules.joker_score, by_style.joker_score)
    assert rules.joker_code == by_style.joker_code and rules.flags == by_style.flags


def test_variant_list_matches_the_files():
    assert list(VARIANT_RULES) == list(BUILTIN) == list(VARIANTS)
    assert set(BUILTIN) | {"yacht"} <= set(shipped_names())


# --- presets --------------------------------------------------------------------------------


def test_yacht_scores_by_hand():
    y = load_rules("yacht")
    assert _points(y, "full_house", 4, 4, 4, 4, 4) == 20  # five alike is a full house
    assert _points(y, "full_house", 2, 2, 3, 3, 3) == 13
    assert _points(y, "four_of_a_kind", 6, 6, 6, 6, 2) == 26  # the sum of all five
    assert _points(y, "four_of_a_kind", 6, 6, 6, 2, 2) == 0
    assert _points(y, "small_straight", 1, 2, 3, 4, 6) == 15
    assert _points(y, "small_straight", 3, 4, 5, 6, 6) == 15
    assert _points(y, "small_straight", 1, 2, 3, 5, 6) == 0
    assert _points(y, "large_straight", 2, 3, 4, 5, 6) == 30
    assert _points(y, "yacht", 1, 1, 1, 1, 1) == 50
    assert y.bonus == 35 and y.bonus_threshold == 63 and y.joker_code == 0 and y.flags == 1
    assert y.num_categories == 12


def test_yacht_reproduces_its_published_value():
    table = solve_table(load_rules("yacht"), dtype="float64")
    assert table.value == pytest.approx(YACHT_PUBLISHED, abs=5e-7)
    assert table.value == pytest.approx(191.774369188, abs=1e-9)


def test_house_rule_example():
    house = load_rules(str(HOUSE))
    base = get_rules("scandinavian")
    assert house.bonus == 35 and house.categories == base.categories
    assert _points(house, "full_house", 6, 6, 6, 5, 5) == 25
    assert _points(house, "full_house", 6, 6, 6, 6, 6) == 0
    changed = [c for c in range(15) if not np.array_equal(house.score[:, c], base.score[:, c])]
    assert [house.categories[c] for c in changed] == ["full_house"]
    assert house.storage_key.startswith("house-") and house.storage_key != "house"


@pytest.mark.parametrize(
    "source, categories, changes",
    [
        ("yacht", ("twos", "full_house", "small_straight", "yacht"), {"bonus_threshold": 4}),
        ("yacht", ("four_of_a_kind", "large_straight", "choice"), {"dice": 4}),
        (str(HOUSE), ("threes", "full_house", "yatzy"), {"bonus_threshold": 6}),
    ],
)
def test_reduced_presets_kernel_agrees_with_engine(source, categories, changes):
    rules = load_rules(source).reduced(categories, **changes)
    table = solve_table(rules, dtype="float64")
    sol = solve(compile_game(YatzyEngineGame(rules)), Objective())
    assert table.value == pytest.approx(sol.value, abs=1e-9)


# --- the format: extends, hash, vocabulary ---------------------------------------------------


def test_extends_overrides_only_what_differs(tmp_path):
    text = (
        'extends = "scandinavian"\nname = "mine"\nremove = ["one_pair", "chance"]\n'
        "[categories.small_straight]\nscore = 17\n"
        '[categories.double]\nkind = "pairs"\ncount = 2\nscore = 30\n'
    )
    rules = load_rules_text(text)
    assert rules.name == "mine" and "one_pair" not in rules.categories
    assert rules.categories[-1] == "double" and rules.num_categories == 14
    assert _points(rules, "small_straight", 1, 2, 3, 4, 5) == 17
    assert _points(rules, "double", 2, 2, 5, 5, 1) == 30
    assert _points(rules, "large_straight", 2, 3, 4, 5, 6) == 20  # inherited
    # a path relative to the extending file, two levels deep
    (tmp_path / "a.toml").write_text(text)
    (tmp_path / "b.toml").write_text('extends = "a.toml"\n[bonus]\npoints = 10\n')
    child = load_rules(str(tmp_path / "b.toml"))
    assert child.bonus == 10 and child.categories == rules.categories


def test_content_hash_files_tables_apart(tmp_path):
    a = load_rules_text('extends = "yacht"\nname = "t"\n')
    same = load_rules_text('# a comment\nname = "t"\n\nextends   =   "yacht"\n')
    other = load_rules_text('extends = "yacht"\nname = "t"\n[bonus]\npoints = 36\n')
    assert a.storage_key == same.storage_key and a.storage_key.startswith("t-")
    assert other.storage_key != a.storage_key


def test_a_file_can_say_every_rule_without_a_style():
    # jokers and the Yatzy bonus on a sheet of custom names
    text = (
        'joker = "forced"\nyatzy_bonus = 50\n[bonus]\nthreshold = 3\npoints = 5\n'
        '[categories.aces]\nkind = "face"\nface = 1\n'
        '[categories.house]\nkind = "full_house"\nscore = 25\njoker = 25\n'
        '[categories.five]\nkind = "yatzy"\nscore = 50\n'
    )
    rules = load_rules_text(text)
    assert rules.style == "custom" and rules.joker_code == 2 and rules.tracks_yahtzee
    yz = _roll(rules, 3, 3, 3, 3, 3)
    assert rules.joker_score[yz, 1] == 25 and rules.score[yz, 1] == 0
    small = rules.reduced(rules.categories, dice=4, bonus_threshold=2)
    table = solve_table(small, dtype="float64")
    sol = solve(compile_game(YatzyEngineGame(small)), Objective())
    assert table.value == pytest.approx(sol.value, abs=1e-9)


# --- bad files ----------------------------------------------------------------------------------

BAD = {
    "unknown key": ('extends = "yacht"\ncolour = "red"\n', "unknown key 'colour'"),
    "unknown kind": (
        'extends = "yacht"\n[categories.x]\nkind = "pear"\n',
        "unknown category kind 'pear'",
    ),
    "zero dice": ('extends = "yacht"\ndice = 0\n', "dice must be 1..8, got 0"),
    "negative score": (
        'extends = "yacht"\n[categories.full_house]\nscore = -5\n',
        "a negative score (-5)",
    ),
    "unreachable bonus": (
        'extends = "yacht"\n[bonus]\nthreshold = 106\n',
        "the bonus threshold 106 cannot be reached: the upper categories score at most 105",
    ),
    "negative bonus": ('extends = "yacht"\n[bonus]\npoints = -1\n', "a negative score"),
    "not TOML": ("dice = 5\n[bonus\n", "not valid TOML"),
    "missing parameter": (
        'extends = "yacht"\n[categories.x]\nkind = "of_a_kind"\nscore = 5\n',
        "needs 'count'",
    ),
    "rerolls": ('extends = "yacht"\nrerolls = 3\n', "rerolls per turn must be 2"),
    "bad joker": ('extends = "yacht"\njoker = "wild"\n', "joker must be one of"),
    "joker without a box": (
        'extends = "yacht"\nremove = ["yacht"]\njoker = "free"\n',
        "need a Yatzy box",
    ),
    "unknown parent": ('extends = "nosuch"\n', "no shipped rule file 'nosuch'"),
    "remove unknown": ('extends = "yacht"\nremove = ["nope"]\n', "'nope', which is not"),
    "wrong type": ('extends = "yacht"\ndice = "five"\n', "dice must be a whole number"),
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_files_get_one_clear_line_and_status_2(case, tmp_path, capsys):
    text, expected = BAD[case]
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(InputError, match="rule file|no shipped"):
        load_rules(str(path))
    assert main(["rules", "check", str(path)]) == 2
    err = capsys.readouterr().err
    assert expected in err and "Traceback" not in err
    assert all(line.startswith(f"diceopt: error: {path}: ") for line in err.splitlines())


def test_every_problem_is_its_own_line(tmp_path, capsys):
    path = tmp_path / "bad.toml"
    path.write_text(
        'extends = "yacht"\ncolour = 1\n[categories.x]\nkind = "pear"\n'
        "[categories.full_house]\nscore = -2\n"
    )
    with pytest.raises(RuleFileError) as info:
        load_rules(str(path))
    assert len(info.value.problems) == 3 and "(and 2 more)" in str(info.value)
    assert main(["rules", "check", str(path)]) == 2
    assert len(capsys.readouterr().err.splitlines()) == 3


def test_a_state_space_too_large_for_the_machine():
    rules, problems, size = check_file("maxi", memory=10**9)
    assert rules is not None and size["states"] == count_states(rules)
    assert len(problems) == 1 and "too large for this machine" in problems[0]
    assert check_file("maxi", memory=10**12)[1] == []


def test_rules_check_prints_the_size(capsys):
    assert main(["rules", "check", "yacht"]) == 0
    out = capsys.readouterr().out
    states = count_states(load_rules("yacht"))
    assert out.startswith("yacht: 12 categories, 5 dice of 6 sides;")
    assert f"{states:,} states" in out and "solve time about" in out
    assert main(["rules", "check", str(HOUSE), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["ok"] and data["problems"] == [] and data["key"].startswith("house-")
    assert data["states"] == count_states(get_rules("scandinavian"))


def test_rules_list(capsys):
    assert main(["rules", "list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)["rules"]
    assert listed["scandinavian"] == {"family": "category", "description": VARIANTS["scandinavian"]}
    assert "yacht" in listed and listed["zilch"]["family"] == "push-luck"


def test_one_group_categories_score_as_the_general_group_search():
    # n of a kind and one pair take a vectorised path (the highest face shown n times);
    # the general search over groups of faces is the second path
    import numpy as np

    from diceopt.games.families import shipped_names as every_shipped
    from diceopt.games.yatzy.categories import best_groups, category_points

    checked = 0
    for name in every_shipped("category"):
        rules = load_rules(name)
        for spec in rules.specs:
            if spec.kind in ("face", "chance", "yatzy", "straight") or len(spec.groups) != 1:
                continue
            rows = rules.roll_counts.tolist()
            best = np.array([best_groups(row, spec.groups, spec.same_face) for row in rows])
            total = rules.roll_counts @ np.arange(1, rules.sides + 1)
            ok = best >= 0
            want = {"points": np.where(ok, spec.points, 0), "sum": np.where(ok, total, 0)}.get(
                spec.score, np.maximum(best, 0)
            )
            assert (category_points(spec, rules.roll_counts) == want).all(), (name, spec)
            checked += 1
    assert checked >= 30
