"""The push-your-luck family: rule files, their checks and the roll tables."""

from fractions import Fraction

import numpy as np
import pytest

from diceopt.errors import InputError
from diceopt.games.families.push_luck import (
    SHIPPED,
    check_file,
    compile_rolls,
    load_rules,
    set_asides,
)


def bust_probability(rules, n):
    table = compile_rolls(rules)
    lo, hi = table.outcome_start[n], table.outcome_start[n + 1]
    empty = table.option_start[lo + 1 : hi + 1] == table.option_start[lo:hi]
    return float(table.outcome_prob[lo:hi][empty].sum())


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_files_load_and_tables_are_distributions(name):
    rules = load_rules(name)
    assert check_file(name) == []
    table = compile_rolls(rules)
    assert table.outcome_start.shape == (rules.dice + 2,)
    for n in range(1, rules.dice + 1):
        lo, hi = table.outcome_start[n], table.outcome_start[n + 1]
        assert table.outcome_prob[lo:hi].sum() == pytest.approx(1.0, abs=1e-12)
    assert np.all(np.diff(table.option_start) >= 0)
    assert np.all(table.option_points > 0)
    for o in range(len(table.outcome_prob)):
        left = table.option_dice[table.option_start[o] : table.option_start[o + 1]]
        assert np.all(np.diff(left) < 0)  # one option per dice left, most dice first


def test_steps_and_fields():
    zilch, farkle, pig = (load_rules(n) for n in ("zilch", "farkle", "pig"))
    assert (zilch.step, farkle.step, pig.step) == (50, 50, 1)
    assert (zilch.bank_minimum, zilch.bust_streak, zilch.bust_penalty) == (300, 3, 500)
    assert (zilch.players, farkle.players, farkle.goal, pig.goal) == (1, 2, 10000, 100)
    assert zilch.content_hash and zilch.content_hash != farkle.content_hash


@pytest.mark.parametrize(
    "name, n, busts",
    [
        # hand counts: rolls of n dice with no 1, no 5 and no three of a kind (of 6**n)
        ("farkle", 1, Fraction(4, 6)),
        ("farkle", 2, Fraction(16, 36)),
        ("farkle", 3, Fraction(60, 216)),
        ("farkle", 4, Fraction(204, 1296)),
        ("farkle", 5, Fraction(600, 7776)),
        ("farkle", 6, Fraction(1440, 46656)),  # faces 2,3,4,6 at most twice each
        ("zilch", 4, Fraction(204, 1296)),
        ("zilch", 6, Fraction(0)),  # a six-dice roll with nothing scores 500
        ("pig", 1, Fraction(1, 6)),
    ],
)
def test_bust_probabilities_by_hand(name, n, busts):
    assert bust_probability(load_rules(name), n) == pytest.approx(float(busts), abs=1e-15)


@pytest.mark.parametrize(
    "roll, best",  # (dice left, points) of each best set-aside, most dice left first
    [
        ((1, 1, 1, 1, 5, 5), [(5, 100), (4, 200), (3, 1000), (2, 2000), (1, 2050), (0, 2100)]),
        ((2, 2, 2, 2, 3, 3), [(3, 200), (2, 400), (0, 1500)]),  # four of a kind + a pair
        ((1, 2, 3, 4, 5, 6), [(5, 100), (4, 150), (0, 1500)]),
        ((2, 2, 3, 4, 6, 6), [(0, 500)]),  # six dice, nothing scores
        ((2, 2, 3, 3, 4, 4), [(0, 1500)]),
        ((2, 2, 2, 2, 2, 2), [(3, 200), (2, 400), (1, 800), (0, 1600)]),
        ((2, 3), []),
    ],
)
def test_zilch_set_asides(roll, best):
    got = [(s.left, s.points) for s in set_asides(load_rules("zilch"), roll)]
    assert got == best


def test_farkle_six_ones_are_two_triples():
    got = [(s.left, s.points) for s in set_asides(load_rules("farkle"), (1,) * 6)]
    assert got == [(5, 100), (4, 200), (3, 1000), (2, 1100), (1, 1200), (0, 2000)]


def write(tmp_path, text):
    path = tmp_path / "game.toml"
    path.write_text(text)
    return str(path)


GOOD = """
family = "push-luck"
dice = 2
sides = 6
[[combination]]
kind = "single"
points = [100, 0, 0, 0, 50, 0]
"""


def test_check_file_good_and_name_from_file(tmp_path):
    path = write(tmp_path, GOOD)
    assert check_file(path) == []
    rules = load_rules(path)
    assert (rules.name, rules.dice, rules.step, rules.players) == ("game", 2, 50, 1)


@pytest.mark.parametrize(
    "change, problem",
    [
        (
            'dice = 0\nsides = 6\n[[combination]]\nkind = "single"\npoints = [1,0,0,0,0,0]',
            "dice must be a whole number from 1",
        ),
        (GOOD.replace('kind = "single"', 'kind = "triple"'), "unknown kind 'triple'"),
        (GOOD + "colour = 3\n", "unknown key 'colour'"),
        (GOOD.replace("[100, 0", "[-100, 0"), "points must be whole numbers from 0"),
        (GOOD.replace("[100, 0, 0, 0, 50, 0]", "[0, 0, 0, 0, 0, 0]"), "scores no points"),
        (GOOD.replace("[100, 0, 0, 0, 50, 0]", "[1, 2]"), "a list of 6 numbers"),
        (GOOD.replace('"push-luck"', '"category"'), 'family must be "push-luck"'),
        (
            GOOD.replace("dice = 2", "dice = 2\nplayers = 2"),
            "goal must be positive for two players",
        ),
        (
            GOOD.replace("dice = 2", "dice = 2\nbust_penalty = 500"),
            "bust_penalty needs bust_streak",
        ),
        (
            GOOD + '[[combination]]\nkind = "of-a-kind"\ncount = 3\npoints = [1,1,1,1,1,1]\n',
            "count 3 needs more than the 2 dice",
        ),
        (
            GOOD.replace("sides = 6", "sides = 6\nplayers = 2\ngoal = 10000000").replace(
                "[100, 0, 0, 0, 50, 0]", "[1, 0, 0, 0, 1, 0]"
            ),
            "state space too large",
        ),
        ("dice = [", "not valid TOML"),
    ],
)
def test_check_file_problems(tmp_path, change, problem):
    problems = check_file(write(tmp_path, change))
    assert any(problem in p for p in problems), problems
    assert all("\n" not in p for p in problems)
    with pytest.raises(InputError, match="game.toml"):
        load_rules(write(tmp_path, change))


def test_check_file_lists_every_problem(tmp_path):
    text = GOOD.replace("dice = 2", "dice = 0\ncolour = 3\nplayers = 3")
    assert len(check_file(write(tmp_path, text))) == 3


def test_missing_file_is_one_line():
    assert check_file("no/such/file.toml")[0].startswith("no rule file")
    with pytest.raises(InputError, match="no rule file"):
        load_rules("no/such/file.toml")


def test_rules_check_command(tmp_path, capsys):
    from diceopt.cli import main

    good = write(tmp_path, GOOD)
    assert main(["rules", "check", good]) == 0
    out = capsys.readouterr().out
    assert "ok;" in out and "states" in out and "MiB" in out
    bad = tmp_path / "bad.toml"
    bad.write_text('family = "push-luck"\ndice = 0\ncolour = 1\n')
    assert main(["rules", "check", str(bad)]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 3 and all(line.startswith(str(bad)) for line in lines), lines
    other = tmp_path / "other.toml"
    other.write_text('family = "dominoes"\n')
    assert main(["rules", "check", str(other)]) == 2
    assert "family must be one of" in capsys.readouterr().err
    assert main(["rules", "check", str(tmp_path / "none.toml")]) == 2
