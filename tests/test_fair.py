"""A fair start for two-player races: the search, and each race game's ``fair``."""

from __future__ import annotations

import json

import pytest

from diceopt.cli import main
from diceopt.errors import InputError
from diceopt.games.fair import fairest


def test_fairest_walks_towards_one_half_and_two_more():
    chances = {0: 0.6, 1: 0.55, 2: 0.51, 3: 0.47, 4: 0.44, 5: 0.40, 6: 0.35}
    answer = fairest(chances.__getitem__, limit=6, step=50)
    assert answer["compensation"] == 100 and answer["compensation_steps"] == 2
    assert answer["win_probability"] == 0.51
    # crossing at 3 (below 1/2), then two more: 4 and 5
    assert [c["compensation"] for c in answer["candidates"]] == [0, 50, 100, 150, 200, 250]


def test_fairest_goes_the_other_way_when_the_second_player_is_favoured():
    answer = fairest(lambda c: 0.45 - 0.04 * c, limit=5)
    assert answer["compensation"] == -1  # the first player gets one step
    # crossing at -2 (above 1/2), then two more
    assert [c["compensation"] for c in answer["candidates"]] == [-4, -3, -2, -1, 0]
    assert answer["win_probability"] == pytest.approx(0.49)


def test_fairest_with_a_fixed_number_of_candidates_and_a_tie():
    answer = fairest(lambda c: 0.5 + 0.1 * (c - 1) ** 2, limit=10, candidates=3)
    assert answer["compensation"] == 1
    assert len(answer["candidates"]) == 4
    with pytest.raises(InputError, match="candidates"):
        fairest(lambda c: 0.5, limit=3, candidates=-1)


def test_zombie_fair_reads_the_solved_race(capsys):
    from diceopt.games.registry import get_game
    from diceopt.games.zombie.game import solved

    assert main(["zombie", "fair", "--variant", "goal-3", "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    sol = solved(get_game("zombie").rules("goal-3"))
    rows = {row["compensation"]: row["win_probability"] for row in answer["candidates"]}
    assert rows[0] == sol.value < 0.5  # the second player, who ends each round, is favoured
    for c, p in rows.items():
        assert p == float(sol.first[0, c] if c >= 0 else sol.first[-c, 0])
    assert answer["compensation"] < 0
    assert answer["win_probability"] == min(rows.values(), key=lambda p: abs(p - 0.5))
    assert main(["zombie", "fair", "--variant", "goal-3"]) == 0
    assert "compensation for the first player" in capsys.readouterr().out
    with pytest.raises(SystemExit) as stop:  # refused as the options are read
        main(["zombie", "fair", "--variant", "goal-3", "--candidates", "-1"])
    assert stop.value.code == 2
