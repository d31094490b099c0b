"""Two-player races (families.race) and the Farkle game: the race solver against the
generic engine at reduced goals, a hand-computed case, Pig from its rule file (the
published 0.530592725 and the Pig engine's values), seeded simulation within a stated
bound, fair compensation, advice, play and bad input. The full Farkle solve (10,000) is
a benchmark: benchmarks/farkle_solve.py."""

import dataclasses
import json
import math

import numpy as np
import pytest

from diceopt.cli import main
from diceopt.errors import InputError
from diceopt.games import farkle
from diceopt.games.families.push_luck import compile_rolls, load_rules
from diceopt.games.families.race import (
    compact_rolls,
    fair,
    race_solution,
    simulate,
    solve_race,
    versus_max_score,
)
from diceopt.games.families.race_engine import engine_turn_starts


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("DICEOPT_CACHE", str(tmp_path / "cache"))


def family(name, **changes):
    """A shipped rule file with some rules changed (goal in points, dice)."""
    return dataclasses.replace(load_rules(name), **changes)


@pytest.mark.parametrize(
    "name, goal, dice", [("farkle", 300, 2), ("farkle", 250, 3), ("farkle", 150, 6), ("pig", 12, 1)]
)
def test_race_solver_equals_the_generic_engine(name, goal, dice):
    rules = family(name, goal=goal, dice=dice)
    table = compile_rolls(rules)
    steps = -(-goal // rules.step)
    sol = solve_race(compact_rolls(table), steps, rules.step)
    ref = engine_turn_starts(table, steps)
    assert len(ref) > 1 and sol.stats["residual"] <= 1e-15
    for (i, j), value in ref.items():
        assert sol.w[i, j] == pytest.approx(value, abs=1e-12), (i, j)


def test_one_die_to_fifty_by_hand():
    # one die, goal one step: a 1 or a 5 wins at once (p = 1/3), else the turn passes:
    # W = 1/3 + 2/3 (1 - W), W = 3/5
    sol = solve_race(compact_rolls(compile_rolls(family("farkle", goal=50, dice=1))), 1, 50)
    assert sol.value == pytest.approx(0.6, abs=1e-15)


def test_pig_from_its_rule_file_reproduces_the_published_value():
    from diceopt.games.pig.graph import chance_node, solve_engine
    from diceopt.games.pig.rules import PigRules

    sol = race_solution("pig", load_rules("pig"))
    assert f"{sol.value:.9f}" == "0.530592725"
    engine = solve_engine(PigRules(30))  # Pig's engine graph, value iteration (reduced)
    race30 = race_solution("pig", PigRules(30).family)
    for i, j in [(0, 0), (0, 15), (17, 12), (29, 29), (2, 28)]:
        assert race30.w[i, j] == pytest.approx(engine.values[chance_node(30, i, j, 0)], abs=1e-12)


def test_simulated_optimal_play_within_four_standard_errors():
    sol = race_solution("farkle", family("farkle", goal=1000))
    out = simulate(sol, 40_000, seed=5)
    # 4 standard errors of a Bernoulli mean: a false alarm about once in 16,000 runs
    assert out["within"] and out["bound"] == pytest.approx(
        4 * math.sqrt(0.6 * 0.4 / 40_000), rel=0.05
    )
    assert out["outcomes"].shape == (40_000,) and set(np.unique(out["outcomes"])) <= {0.0, 1.0}
    handicap = simulate(sol, 40_000, seed=6, start_opp=6)
    assert handicap["within"] and handicap["exact"] < sol.value


def test_fair_compensation_is_closest_to_a_half():
    sol = race_solution("farkle", family("farkle", goal=1000))
    answer = fair(sol, 10)
    probs = [c["win_probability"] for c in answer["candidates"]]
    assert len(probs) == 11 and probs == sorted(probs, reverse=True)
    best = min(range(11), key=lambda c: abs(probs[c] - 0.5))
    assert answer["compensation"] == 50 * best and answer["win_probability"] == probs[best]


def test_optimal_beats_max_score_play():
    sol = race_solution("farkle", family("farkle", goal=1000))
    vs = versus_max_score(sol)
    assert 0.5 < vs["average"] < 1 and vs["first"] > sol.value > 1 - vs["second"]
    # the expected-score player's own turn: about 446.6 points a turn with six dice
    assert vs["max_score_expected_turn"] == pytest.approx(446.57, abs=0.01)


def test_pig_fair_and_farkle_fair_json(capsys):
    assert main(["pig", "fair", "--goal", "20", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (
        data["compensation"]
        == min(data["candidates"], key=lambda c: abs(c["win_probability"] - 0.5))["compensation"]
    )
    assert main(["farkle", "fair", "--goal", "500", "--candidates", "3", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [c["compensation"] for c in data["candidates"]] == [0, 50, 100, 150]


def test_advice_values_match_the_solution():
    rules = farkle.SPEC.rules(goal=1000)
    sol = farkle.solved(rules)
    pos = farkle.SPEC.parse(rules, "me 300 | opponent 500 | turn 150 | dice 2 1 5 1")
    advice = farkle.SPEC.advise(rules, pos)
    values = {a.action: a.value for a in advice.actions}
    assert values["set aside 1 1 5, bank 400"] == pytest.approx(1 - sol.w[10, 14], abs=1e-15)
    c = sol.turn_values(6, 10)
    assert values["set aside 1 1 5, roll 1"] == pytest.approx(c[8, 1], abs=1e-15)
    assert advice.best.action == "set aside 1 1 5, roll 1"
    # a whole turn start: the mean over first rolls of the best advice is W
    start = farkle.SPEC.parse(rules, "me 0 | opponent 0 | dice 1 2 3 4 6 6")
    assert farkle.SPEC.advise(rules, start).best.value <= 1


def test_hot_dice_and_winning_bank():
    rules = farkle.SPEC.rules(goal=1000)
    pos = farkle.SPEC.parse(rules, "me 0 | opponent 0 | turn 400 | dice 1 5")
    actions = [a.action for a in farkle.SPEC.advise(rules, pos).actions]
    assert "set aside 1 5, roll 6" in actions and "set aside 1, roll 1" in actions
    near = farkle.SPEC.parse(rules, "me 900 | opponent 0 | turn 0 | dice 1 2 3 4 6 6")
    advice = farkle.SPEC.advise(rules, near)
    assert advice.best.action == "set aside 1, bank 100" and advice.best.value == 1.0
    step = farkle.SPEC.apply(rules, near, "keep 1 bank", np.random.default_rng(1))
    assert step.game_over and step.result == 1.0


@pytest.mark.parametrize(
    "text, message",
    [
        ("me 10 | opponent 0 | dice 1 5 5 2 3 4", "multiple of 50"),
        ("me 0 | opponent 0 | dice 1 5", "all 6 dice"),
        ("me 0 | opponent 1000 | dice 1 2 3 4 5 6", "game is over"),
        ("me 0 | opponent 0 | dice 1 7", "showing 1 to 6"),
    ],
)
def test_bad_positions(text, message):
    rules = farkle.SPEC.rules(goal=1000)
    with pytest.raises(InputError, match=message):
        farkle.SPEC.parse(rules, text)


def test_a_roll_that_scores_nothing_is_a_bust_position():
    rules = farkle.SPEC.rules(goal=1000)
    sol = farkle.solved(rules)
    text = "me 300 | opponent 500 | turn 150 | dice 2 3 | player 2"
    pos = farkle.SPEC.parse(rules, text)
    assert farkle.SPEC.format(rules, pos) == text
    advice = farkle.SPEC.advise(rules, pos)
    # the only action; the opponent then starts a turn at (500, 300): W[10, 6]
    assert [a.action for a in advice.actions] == ["bust"]
    assert advice.best.value == pytest.approx(1 - sol.w[10, 6], abs=1e-15)
    step = farkle.SPEC.apply(rules, pos, "farkle", np.random.default_rng(3))
    nxt = step.position
    assert not step.game_over and step.to_move == 0
    assert (nxt.me, nxt.opponent, nxt.turn, nxt.player, len(nxt.dice)) == (500, 300, 0, 0, 6)
    assert farkle.SPEC.to_json(rules, nxt)["player"] == 1


def test_bad_input_exits_2(capsys):
    assert main(["farkle", "solve", "--goal", "1234"]) == 2
    with pytest.raises(SystemExit) as stop:  # refused as the options are read
        main(["farkle", "fair", "--goal", "500", "--candidates", "-1"])
    assert stop.value.code == 2
    rules = farkle.SPEC.rules(goal=1000)
    pos = farkle.SPEC.parse(rules, "me 0 | opponent 0 | dice 1 2 3 4 6 6")
    with pytest.raises(InputError, match="write e.g."):
        farkle.SPEC.canonical_action(rules, pos, "bank please")
