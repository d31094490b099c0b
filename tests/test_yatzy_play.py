"""Typed Yatzy moves: the short forms the play loop accepts, and their errors."""

from __future__ import annotations

import pytest

from diceopt.errors import InputError
from diceopt.games.yatzy.play.moves import parse_move
from diceopt.games.yatzy.rulebook.variants import AMERICAN, SCANDINAVIAN


@pytest.mark.parametrize(
    "line, action",
    [
        ("keep 3 3", "keep 3 3"),
        ("K 5 3 3", "keep 3 3 5"),
        ("k 335", "keep 3 3 5"),
        ("keep -", "keep -"),
        ("k -", "keep -"),
        ("r", "keep -"),
        ("reroll", "keep -"),
        ("score chance", "score chance"),
        ("s ch", "score chance"),
        ("s Full", "score full_house"),
        ("yatzy", "score yatzy"),
        ("two_pairs", "score two_pairs"),
    ],
)
def test_parse_move_short_forms(line, action):
    assert parse_move(line, SCANDINAVIAN) == action


def test_parse_move_american_and_errors():
    assert parse_move("s yah", AMERICAN) == "score yahtzee"
    assert parse_move("s sm", AMERICAN) == "score small_straight"
    for line in ("", "keep x", "s", "s t", "fly", "r 3"):
        with pytest.raises(InputError):
            parse_move(line, SCANDINAVIAN)
