"""Yatzy-family rule files: the shipped files are the built-in variants, presets reproduce
their published values, extends and the content hash, and bad files get one line per
problem (exit status 2 from ``diceopt rules check``)."""

from __future__ import annotations

import json
import os
import re
import threading
import time
from dataclasses import fields
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from diceopt.cli import main
from diceopt.engine import Objective, compile_game, solve
from diceopt.errors import InputError
from diceopt.games.families import SHIPPED_DIR, nesting_problem
from diceopt.games.yatzy.commands.rule_check import check_file
from diceopt.games.yatzy.kernel.layers import count_states
from diceopt.games.yatzy.kernel.solve import solve_table
from diceopt.games.yatzy.play.engine_game import YatzyEngineGame
from diceopt.games.yatzy.rulebook.compiler import (
    BUILTIN,
    KIND_KEYS,
    MAX_POINTS,
    MAX_TOTAL,
    TOP_KEYS,
    RuleFileError,
    load_rules,
    load_rules_text,
    most_points,
    shipped_names,
)
from diceopt.games.yatzy.rulebook.rules import (
    AMERICAN_CATEGORIES,
    MAXI_CATEGORIES,
    SCANDINAVIAN_CATEGORIES,
    YatzyRules,
    reachable_upper_totals,
)
from diceopt.games.yatzy.rulebook.variants import VARIANT_RULES, VARIANTS, get_rules
from diceopt.games.yatzy.stored.files import table_path
from diceopt.games.yatzy.stored.store import rows_path
from diceopt.storage import TableKey

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
    from diceopt.games.yatzy.rulebook.categories import best_groups, category_points

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


# --- every rule file bounded before any work --------------------------------------------

BOUNDED = {  # a number out of its range: refused (one line) before anything uses it
    "dice": ("dice = 100000000\n", "dice must be 1..8, got 100000000"),
    "sides": ("sides = 10000000000\n", "sides must be 2..6"),
    "rerolls": ("rerolls = 100000000\n", "rerolls per turn must be 2"),
    "saved cap": ("saved_rerolls = true\nsaved_cap = 10000000000\n", "saved_cap must be 1..40"),
    "yatzy bonus": ("yatzy_bonus = 1" + "0" * 44 + "\n", "a score of more than 100,000"),
    "bonus points": ("[bonus]\npoints = 1" + "0" * 44 + "\n", "a score of more than 100,000"),
    "bonus threshold": ("[bonus]\nthreshold = 100000000\npoints = 5\n", "cannot be reached"),
    "score": (
        "[categories.chance]\nkind = 'yatzy'\nscore = 1" + "0" * 44 + "\n",
        "a score of more than 100,000 points",
    ),
    "joker": ("[categories.full_house]\njoker = 1" + "0" * 20 + "\n", "a joker score of more"),
    "served": ("[categories.full_house]\nscore = 5\nserved = 1" + "0" * 20 + "\n", "served"),
    "of a kind": (
        "[categories.x]\nkind = 'of_a_kind'\ncount = 1" + "0" * 10 + "\nscore = 5\n",
        "count must be 1..8 dice",
    ),  # fmt: skip
    "pairs 1e10": (
        "[categories.x]\nkind = 'pairs'\ncount = 10000000000\nscore = 5\n",
        "count must be 1..4 pairs",
    ),  # fmt: skip
    "pairs 1e8": (
        "[categories.x]\nkind = 'pairs'\ncount = 100000000\nscore = 5\n",
        "count must be 1..4 pairs",
    ),  # fmt: skip
    "groups": (
        "[categories.x]\nkind = 'groups'\nsizes = [1, 1, 1, 1, 1]\nscore = 5\n",
        "sizes must be 1 to 4 groups",
    ),  # fmt: skip
    "group size": (
        "[categories.x]\nkind = 'groups'\nsizes = [10000000000]\nscore = 5\n",
        "sizes must be 1 to 4 groups",
    ),  # fmt: skip
    "straights": (
        "[categories.x]\nkind = 'straight'\nscore = 5\nfaces = [" + "[1, 2]," * 17 + "]\n",
        "at most 16 lists",
    ),
    "categories": (
        "".join(f"[categories.c{i}]\nkind = 'chance'\n" for i in range(21)),
        "at most 20 categories",
    ),
}


@pytest.fixture
def dice_loop_spy(monkeypatch):
    """The loop over the dice that hung ``rules check`` fails at once when it is reached
    with dice out of range."""
    from diceopt.games.yatzy.rulebook import compiler as category

    def spy(faces, dice, cap=None):
        assert 1 <= dice <= 8, f"looped over {dice} dice before the range check"
        return reachable_upper_totals(faces, dice, cap)

    monkeypatch.setattr(category, "reachable_upper_totals", spy)


@pytest.mark.parametrize("case", list(BOUNDED))
def test_every_number_is_bounded_before_it_is_used(case, dice_loop_spy):
    text, expected = BOUNDED[case]
    started = time.process_time()
    with pytest.raises(RuleFileError, match=re.escape(expected)) as info:
        load_rules_text('extends = "scandinavian"\n' + text)
    assert time.process_time() - started < 1.0
    assert all("\n" not in p for p in info.value.problems)


def test_the_62_byte_file_is_refused_at_once(tmp_path, capsys, dice_loop_spy):
    path = tmp_path / "big.toml"
    path.write_text('extends = "scandinavian"\nname = "big-dice-x"\ndice = 100000000\n')
    assert len(path.read_bytes()) == 62
    started = time.process_time()
    assert main(["rules", "check", str(path)]) == 2
    assert time.process_time() - started < 2.0
    err = capsys.readouterr().err
    assert err == f"diceopt: error: {path}: dice must be 1..8, got 100000000\n"


def test_scores_at_their_bounds_solve_exactly():
    # every score at its largest: the tables hold them (int64) and the solve is exact
    top = MAX_POINTS
    text = (
        f'yatzy_bonus = {top}\njoker = "free"\n[bonus]\nthreshold = 3\npoints = {top}\n'
        '[categories.ones]\nkind = "face"\nface = 1\n'
        f'[categories.house]\nkind = "full_house"\nscore = {top}\njoker = {top}\n'
        f'[categories.five]\nkind = "yatzy"\nscore = {top}\n'
    )
    rules = load_rules_text(text).reduced(("ones", "house", "five"), dice=4, bonus_threshold=2)
    assert rules.max_total <= most_points(rules) <= MAX_TOTAL
    table = solve_table(rules, dtype="float64")
    sol = solve(compile_game(YatzyEngineGame(rules)), Objective())
    assert table.value == pytest.approx(sol.value, rel=1e-12)


DEEP = {
    "arrays": "x = " + "[" * 3000 + "]" * 3000 + "\n",
    "inline tables": "x = " + "{a = " * 3000 + "1" + "}" * 3000 + "\n",
    "arrays of tables": "[[" + "a." * 17 + "b]]\n",
    "dotted keys": "a" + ".a" * 20_000 + " = 1\n",
    "table header": "[" + "a." * 20_000 + "a]\n",
    "dotted inline": "x = {" + "a." * 17 + "b = 1}\n",
}


@pytest.mark.parametrize("case", list(DEEP))
def test_deep_nesting_is_one_line_before_parsing(case, tmp_path, capsys):
    text = 'extends = "scandinavian"\n' + DEEP[case]
    started = time.process_time()
    with pytest.raises(InputError, match="not a rule file: .*(nested|dotted parts)"):
        load_rules_text(text)
    assert time.process_time() - started < 1.0
    path = tmp_path / "deep.toml"
    path.write_text(text)
    assert main(["rules", "check", str(path)]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "Traceback" not in err and "Recursion" not in err


def test_nesting_that_rule_files_use_is_accepted():
    # strings and comments with brackets and dots, the shipped files, arrays of straights
    assert nesting_problem('a = "[[[[[[[[[[[[[[[[[[[[" # [[[[[[[[[[[[[[[[[[[[[[\n') is None
    assert nesting_problem("a = '''\n" + "x." * 40 + "\n'''\nb = 1.5\n") is None
    assert nesting_problem('"a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r" = 1\n') is None
    assert nesting_problem("x = [\n" + "1.5, " * 40 + "\n]\n") is None
    for name in shipped_names():
        text = (SHIPPED_DIR / f"{name}.toml").read_text()
        assert nesting_problem(text) is None, name


NEVER = {  # (text after extends = "scandinavian", the category, sides)
    "six of a kind, 5 dice": ("[categories.x]\nkind = 'of_a_kind'\ncount = 6\nscore = 5\n", "x", 6),
    "three pairs, 5 dice": (
        "[categories.three_pairs]\nkind = 'pairs'\ncount = 3\nscore = 5\n",
        "three_pairs",
        6,
    ),
    "castle, 5 dice": (
        "[categories.castle]\nkind = 'groups'\nsizes = [3, 3]\nscore = 5\n",
        "castle",
        6,
    ),
    "full straight, 5 dice": (
        "[categories.full]\nkind = 'straight'\nfaces = [1, 2, 3, 4, 5, 6]\nscore = 5\n",
        "full",
        6,
    ),
    "straight of pips the dice lack": (
        'sides = 4\nremove = ["fives", "sixes", "small_straight", "large_straight"]\n'
        "[bonus]\npoints = 0\n"
        "[categories.high]\nkind = 'straight'\nfaces = [2, 3, 4, 5]\nscore = 5\n",
        "high",
        4,
    ),
    "three faces on two sides": (
        'sides = 2\nremove = ["threes", "fours", "fives", "sixes", "small_straight", '
        '"large_straight"]\n[bonus]\npoints = 0\n'
        "[categories.spread]\nkind = 'groups'\nsizes = [1, 1, 1]\nscore = 5\n",
        "spread",
        2,
    ),
}


@pytest.mark.parametrize("case", list(NEVER))
def test_a_category_that_can_never_score_is_refused(case):
    text, cid, sides = NEVER[case]
    with pytest.raises(RuleFileError) as info:
        load_rules_text('extends = "scandinavian"\n' + text)
    assert info.value.problems == [
        f"category {cid!r} can never score: no roll of 5 dice of {sides} sides qualifies"
    ]
    if "5 dice" in case:  # the same category with the dice it needs is accepted
        assert load_rules_text('extends = "scandinavian"\ndice = 6\n' + text).dice == 6


def test_every_category_of_the_shipped_files_can_score():
    for name in shipped_names():
        assert load_rules(name).num_categories >= 1  # (compile_rules checks each)


def test_a_name_is_bounded_and_storage_keys_are_short_whatever_the_name(tmp_path):
    with pytest.raises(RuleFileError, match="name must be at most 64 characters, got 300"):
        load_rules_text('extends = "yacht"\nname = "' + "n" * 300 + '"\n')
    ok = load_rules_text('extends = "yacht"\nname = "' + "n" * 64 + '"\n')
    assert ok.name == "n" * 64 and len(ok.storage_key) <= 57
    # a file named at length: its stem names the rules, its key stays short
    path = tmp_path / ("s" * 240 + ".toml")
    path.write_text('extends = "yacht"\n')
    rules = load_rules(str(path))
    assert rules.name == "s" * 240 and rules.storage_key == "s" * 40 + rules.key[-17:]
    assert len(table_path(rules).name) < 100 and len(rows_path(rules).name) < 120
    # rules made in Python with any name
    for name in ("x" * 5000, "../../etc/passwd", "a b/c"):
        key = YatzyRules(name=name).storage_key
        assert len(key) <= 100 and "/" not in key and not key.startswith(".")
        assert len(table_path(YatzyRules(name=name)).name) < 160
    assert [get_rules(n).storage_key for n in BUILTIN] == list(BUILTIN)  # unchanged
    assert TableKey("g", "v" * 500).file_name() == TableKey("g", "v" * 500).file_name()
    assert len(TableKey("g", "v" * 500).file_name()) < 160
    assert TableKey("g", "v" * 500).file_name() != TableKey("g", "v" * 499 + "w").file_name()


def test_a_parent_that_is_not_toml_is_named(tmp_path, capsys):
    (tmp_path / "parent.toml").write_text("dice = 5\n[bonus\n")
    child = tmp_path / "child.toml"
    child.write_text('extends = "parent.toml"\nname = "child"\n')
    with pytest.raises(RuleFileError, match=r"its parent parent\.toml: not valid TOML"):
        load_rules(str(child))
    assert main(["rules", "check", str(child)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"diceopt: error: {child}: its parent parent.toml: not valid TOML")
    # two levels: the problem names the file that has it
    grand = tmp_path / "grand.toml"
    grand.write_text('extends = "child.toml"\n')
    with pytest.raises(RuleFileError, match="its parent child.toml: its parent parent.toml"):
        load_rules(str(grand))


def test_a_byte_order_mark_is_accepted(tmp_path, capsys):
    path = tmp_path / "bom.toml"
    path.write_bytes(b'\xef\xbb\xbfextends = "yacht"\nname = "bom"\n')
    assert load_rules(str(path)) == load_rules("yacht")
    assert load_rules_text("\ufeffextends = 'yacht'\n") == load_rules("yacht")
    assert main(["rules", "check", str(path)]) == 0
    assert capsys.readouterr().out.startswith("bom: 12 categories")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_or_folder_is_refused_without_reading(tmp_path, capsys):
    fifo = tmp_path / "rules.toml"
    os.mkfifo(fifo)
    codes: list[int] = []
    worker = threading.Thread(target=lambda: codes.append(main(["rules", "check", str(fifo)])))
    worker.start()
    worker.join(10)
    if worker.is_alive():  # blocked opening the FIFO: a writer lets it go, then fail
        with open(fifo, "w"):
            pass
        worker.join()
        pytest.fail("rules check blocked on a FIFO")
    assert codes == [2]
    assert capsys.readouterr().err == f"diceopt: error: {fifo}: not a regular file\n"
    with pytest.raises(InputError, match="not a regular file"):
        load_rules(str(fifo))
    assert main(["rules", "check", str(tmp_path)]) == 2
    assert "not a regular file" in capsys.readouterr().err


def test_a_large_file_is_refused_before_it_is_read(tmp_path, capsys):
    path = tmp_path / "large.toml"
    path.write_text('extends = "yacht"\n' + "# padding\n" * 10_000)
    assert main(["rules", "check", str(path)]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"diceopt: error: {path}: 100,018 bytes, more than the 65,536 a rule file may have\n"
    )
    with pytest.raises(InputError, match="more than the 65,536"):
        load_rules(str(path))
    with pytest.raises(InputError, match="more than the 65,536"):
        load_rules_text(path.read_text())


def test_push_luck_files_are_bounded_the_same_way(tmp_path):
    from diceopt.games.families import push_luck

    base = (SHIPPED_DIR / "zilch.toml").read_text()
    cases = {
        "deep.toml": (base + "x = " + "[" * 2000 + "]" * 2000 + "\n", "nested more than 16"),
        "bom.toml": ("\ufeff" + base, None),
        "name.toml": (base.replace('name = "zilch"', 'name = "' + "z" * 65 + '"'), "name"),
        "big.toml": (base + "#\n" * 40_000, "more than the 65,536"),
    }
    for file, (text, expected) in cases.items():
        path = tmp_path / file
        path.write_text(text, encoding="utf-8")
        problems = push_luck.check_file(str(path))
        if expected is None:
            assert problems == [], file
        else:
            assert len(problems) == 1 and expected in problems[0], (file, problems)


# --- the property: any text through the loader is a rule set or one InputError ---------

_NUMBERS = st.one_of(
    st.integers(-3, 12),
    st.integers(-(10**44), 10**44),
    st.sampled_from([0, 1, 2, 5, 8, 9, 40, 63, 10**5, 10**5 + 1, 2**24, 10**10, 10**44]),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.booleans(),
    st.text(max_size=6),
)
_LEAF = st.one_of(
    _NUMBERS,
    st.sampled_from(["sum", "matched", "free", "forced", "none", "points", "upper", "custom"]),
    st.lists(st.integers(-2, 9), max_size=7),
    st.lists(st.lists(st.integers(0, 7), max_size=7), max_size=4),
)
_CATEGORY = st.dictionaries(
    st.sampled_from(
        [
            "kind",
            "face",
            "count",
            "score",
            "sizes",
            "faces",
            "same_face",
            "joker",
            "served",
            "needs_yatzy",
            "junk",
        ]
    ),  # fmt: skip
    st.one_of(st.sampled_from(list(KIND_KEYS) + ["pear"]), _LEAF),
    max_size=6,
)
_TOP = st.dictionaries(
    st.sampled_from([k for k in TOP_KEYS if k not in ("categories", "bonus", "extends")]),
    _LEAF,
    max_size=6,
)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, float):
        return repr(value) if "e" in repr(value) or "." in repr(value) else f"{value}.0"
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return str(value)


@st.composite
def rule_texts(draw: Any) -> str:
    """A rule file's text: keys of the real schema with values from tiny to 10**44,
    negative, floats, text, lists and nested tables; sometimes an extends, sometimes
    damaged."""
    lines = []
    if draw(st.booleans()):
        lines.append(f"extends = {json.dumps(draw(st.sampled_from(['yacht', 'maxi', 'x/y'])))}")
    lines += [f"{k} = {_toml_value(v)}" for k, v in draw(_TOP).items()]
    if draw(st.booleans()):
        lines.append("[bonus]")
        for k, v in draw(st.dictionaries(st.sampled_from(["threshold", "points", "x"]),
                                         _NUMBERS, max_size=2)).items():  # fmt: skip
            lines.append(f"{k} = {_toml_value(v)}")
    cids = ["ones", "chance", "full_house", "yatzy", "x", "Bad-id", "a" * 41]
    for cid in draw(st.lists(st.sampled_from(cids), max_size=4, unique=True)):
        lines.append(f'[categories."{cid}"]')
        lines += [f"{k} = {_toml_value(v)}" for k, v in draw(_CATEGORY).items()]
    text = "\n".join(lines) + "\n"
    damage = draw(st.sampled_from(["", "", "", "bom", "deep", "cut", "junk"]))
    if damage == "bom":
        text = "\ufeff" + text
    elif damage == "deep":
        depth = draw(st.integers(10, 3000))
        text += "z = " + "[" * depth + "]" * depth + "\n"
    elif damage == "cut":
        text = text[: draw(st.integers(0, len(text)))]
    elif damage == "junk":
        text += draw(st.text(max_size=30))
    return text


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rule_texts())
def test_any_rule_text_is_rules_or_one_input_error(text):
    started = time.process_time()
    try:
        rules = load_rules_text(text, paths=False)
    except InputError as exc:
        assert str(exc) and "\n" not in str(exc)
    else:
        assert 1 <= rules.dice <= 8 and rules.num_categories <= 20
        assert len(rules.storage_key) <= 100
        assert most_points(rules) <= MAX_TOTAL
    assert time.process_time() - started < 2.0


def test_the_same_rules_under_another_name_share_their_stored_tables(tmp_path):
    from diceopt.games.yatzy.stored.files import get_table

    text = (
        "[bonus]\nthreshold = 6\npoints = 10\n"
        '[categories.threes]\nkind = "face"\nface = 3\n'
        '[categories.house]\nkind = "full_house"\nscore = 25\n'
        '[categories.five]\nkind = "yatzy"\nscore = 50\n'
    )
    first = load_rules_text('name = "first"\n' + text)
    second = load_rules_text('name = "second"\ndescription = "the same rules"\n' + text)
    other = load_rules_text('name = "first"\n' + text.replace("25", "26"))
    assert first.file_key == second.file_key != other.file_key
    assert first.storage_key != second.storage_key  # (held apart in a process: own names)
    solved, info = get_table(first, directory=str(tmp_path), dtype="float64")
    assert not info.loaded and info.saved
    loaded, info = get_table(second, directory=str(tmp_path), dtype="float64")
    assert info.loaded and loaded.rules.name == "second"
    assert np.array_equal(loaded.values, solved.values, equal_nan=True)
    assert len(list((tmp_path / "yatzy").glob("*.tbl"))) == 1
    # built-in variants and reduced rules keep their own keys
    assert [get_rules(n).file_key for n in BUILTIN] == list(BUILTIN)
    assert first.reduced(("threes", "five")).file_key == "reduced"
