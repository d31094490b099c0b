"""Property-based tests (Hypothesis) of every registered game's positions and actions:
hostile text and JSON are advised or refused in one line, never another exception
(``tests/fuzzing.py``; ``benchmarks/fuzz.py`` runs the same checks for longer)."""

from __future__ import annotations

import numpy as np
import pytest
from fuzzing import (
    GAMES,
    actions,
    check_action,
    check_position,
    position_json,
    position_texts,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from diceopt.errors import InputError
from diceopt.games.registry import games

EXAMPLES = 25  # per game and kind of input, in make test
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@pytest.fixture(scope="module", autouse=True)
def _cache(web_env):
    """Tables go to the session's cache directory (each solved once per run)."""
    return web_env


@pytest.mark.parametrize("game_id", GAMES)
@FUZZ
@given(data=st.data())
def test_hostile_position_texts_are_advised_or_refused_in_one_line(game_id, data):
    spec = games()[game_id]
    rules = spec.reduced_rules()
    check_position(spec, rules, data.draw(position_texts(spec, rules)))


@pytest.mark.parametrize("game_id", GAMES)
@FUZZ
@given(data=st.data())
def test_hostile_position_json_is_advised_or_refused_in_one_line(game_id, data):
    spec = games()[game_id]
    rules = spec.reduced_rules()
    check_position(spec, rules, data.draw(position_json(spec, rules)))


@pytest.mark.parametrize("game_id", GAMES)
@FUZZ
@given(data=st.data())
def test_hostile_actions_are_played_or_refused_in_one_line(game_id, data):
    spec = games()[game_id]
    rules = spec.reduced_rules()
    text, action = data.draw(actions(spec, rules))
    check_action(spec, rules, text, action)


def test_the_checks_fail_on_anything_but_a_one_line_refusal():
    spec = games()["stick"]
    rules = spec.reduced_rules()

    class Crashes(type(spec)):
        def parse(self, rules, position):
            raise ValueError("not an InputError")

    with pytest.raises(ValueError):
        check_position(Crashes(), rules, "dice 1 2 3")

    class SaysNothing(type(spec)):
        def evaluate(self, rules, pos, action):
            raise InputError(" \n ")

    text = spec.format(rules, spec.new_position(rules, np.random.default_rng(0)))
    with pytest.raises(AssertionError):
        check_action(SaysNothing(), rules, text, "stick")


@pytest.mark.parametrize("game_id", GAMES)
def test_digits_other_than_0_to_9_are_refused_in_one_line(game_id):
    """``str.isdigit`` takes ``²``, which ``int`` refuses: every legal action with its
    digits written so is played or refused in one line (it was a ValueError)."""
    from fuzzing import valid_texts

    spec = games()[game_id]
    rules = spec.reduced_rules()
    text, legal = valid_texts(spec, rules, 3)
    written = {a.translate(str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")) for a in legal}
    for action in sorted(written - set(legal)):
        check_action(spec, rules, text, action)
        check_action(spec, rules, text, action.replace(" ", ""))


def test_a_number_of_other_digits_is_not_read_as_too_large():
    from diceopt.notation import is_digits, parse_int

    assert is_digits("0123456789") and not is_digits("²") and not is_digits("")
    with pytest.raises(InputError, match="not a whole number"):
        parse_int("²")
    for game_id, variant in [("stick", "²d6"), ("shutbox", "two-then-one/score/¹²")]:
        with pytest.raises(InputError, match="unknown"):
            games()[game_id].rules(variant)
    from diceopt.games.yatzy.winning.table import Seat, seat_index

    seats = [Seat("Ann", None), Seat("Bo", None)]  # (the sheets are not read here)
    assert seat_index("2", seats) == 1 and seat_index("Bo", seats) == 1
    with pytest.raises(InputError, match="no player"):
        seat_index("²", seats)
