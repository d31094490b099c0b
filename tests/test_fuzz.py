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
