"""Hostile positions and actions for every registered game: the Hypothesis strategies and
the one-input checks that ``tests/test_fuzz.py`` runs a bounded number of times in
``make test`` and ``benchmarks/fuzz.py`` runs for as long as it is asked.

The property: a position's text or JSON, and an action's text, are accepted (advice,
a step of play) or refused with one InputError line; never another exception.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from diceopt import errors
from diceopt.errors import InputError
from diceopt.games.contract import GameSpec
from diceopt.games.registry import games

GAMES = sorted(games())
NUMBERS = st.one_of(
    st.integers(-(10**30), 10**30),
    st.sampled_from([0, 1, -1, 6, 7, 63, 10**44, 2**63, -(2**63)]),
    st.floats(allow_nan=True, allow_infinity=True),
)
WORDS = st.one_of(
    st.text(max_size=30),
    st.sampled_from(["dice", "roll", "bank", "hold", "keep", "score", "|", "-", "", "  "]),
    NUMBERS.map(str),
)


def valid_texts(spec: GameSpec, rules: Any, seed: int) -> tuple[str, list[str]]:
    """A real position of a seeded game (a few random moves in) and its legal actions."""
    rng = np.random.default_rng(seed)
    pos = spec.new_position(rules, rng)
    for _ in range(seed % 5):
        actions = spec.advise(rules, pos).actions
        step = spec.apply(rules, pos, actions[int(rng.integers(len(actions)))].action, rng)
        if step.game_over:
            break
        pos = step.position
    return spec.format(rules, pos), [a.action for a in spec.advise(rules, pos).actions]


@st.composite
def position_texts(draw: st.DrawFn, spec: GameSpec, rules: Any) -> str:
    """A real position's text with words replaced, dropped, added or repeated."""
    text, _ = valid_texts(spec, rules, draw(st.integers(0, 50)))
    words = text.split(" ")
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(words)))
        how = draw(st.sampled_from(["replace", "drop", "insert", "repeat"]))
        if how == "replace" and i < len(words):
            words[i] = draw(WORDS)
        elif how == "drop" and i < len(words):
            del words[i]
        elif how == "insert":
            words.insert(i, draw(WORDS))
        elif words:
            words = words * draw(st.integers(2, 50))
    return " ".join(words)


JSON_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), NUMBERS, st.text(max_size=20)),
    lambda inner: st.lists(inner, max_size=8) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=20,
)


@st.composite
def position_json(draw: st.DrawFn, spec: GameSpec, rules: Any) -> dict[str, Any]:
    """A real position's JSON with fields replaced by any JSON value, dropped or added."""
    text, _ = valid_texts(spec, rules, draw(st.integers(0, 50)))
    data = dict(spec.to_json(rules, spec.parse(rules, text)))
    keys = sorted(data)
    for _ in range(draw(st.integers(1, 3))):
        key = draw(st.sampled_from(keys) | st.text(max_size=8))
        if draw(st.booleans()) and key in data:
            del data[key]
        else:
            data[key] = draw(JSON_VALUES)
    return data


@st.composite
def actions(draw: st.DrawFn, spec: GameSpec, rules: Any) -> tuple[str, str]:
    """A real position and an action: a legal one changed, or any words."""
    text, legal = valid_texts(spec, rules, draw(st.integers(0, 50)))
    action = draw(st.sampled_from(legal))
    words = action.split(" ")
    i = draw(st.integers(0, len(words)))
    if draw(st.booleans()) and i < len(words):
        words[i] = draw(WORDS)
    else:
        words.insert(i, draw(WORDS))
    return text, draw(st.sampled_from([" ".join(words), action.upper(), draw(WORDS)]))


def one_line(exc: InputError) -> None:
    """A refusal says something: the front ends show it as one line (``errors.one_line``:
    an echo of input that holds a line break is joined there)."""
    assert errors.one_line(exc), repr(exc)


def check_position(spec: GameSpec, rules: Any, given: str | dict[str, Any]) -> None:
    """A position (text or JSON) is advised or refused in one line."""
    try:
        pos = spec.parse(rules, given)
        spec.advise(rules, pos)
    except InputError as exc:
        one_line(exc)


def check_action(spec: GameSpec, rules: Any, text: str, action: str) -> None:
    """An action at a real position is graded and played, or refused in one line."""
    pos = spec.parse(rules, text)
    try:
        spec.evaluate(rules, pos, action)
        spec.apply(rules, pos, action, np.random.default_rng(0))
    except InputError as exc:
        one_line(exc)
