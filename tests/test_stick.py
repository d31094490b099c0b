"""Stick or reroll: exact values checked by independent paths and seeded simulation."""

import math

import numpy as np
import pytest

from course_dicegame import DiceGame
from diceopt.cli import main
from diceopt.errors import InputError
from diceopt.games import stick
from diceopt.games.stick import solve as stick_solve
from diceopt.games.stick.course import OptimalAgent, discounted_agent_policy
from diceopt.games.stick.rules import StickRules
from diceopt.games.stick.solve import (
    evaluate_stick_policy,
    optimal_policy_map,
    play_games,
    solve_stick,
)


@pytest.fixture(scope="module", autouse=True)
def cache(tmp_path_factory):
    """Solutions stored by this module go to a fresh cache directory."""
    path = tmp_path_factory.mktemp("stick-cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DICEOPT_CACHE", str(path))
        mp.setattr(stick_solve, "_SOLVED", {})
        yield path


def brute_force_values(game, sweeps=5000, tol=1e-15):
    """Undiscounted value iteration over every index action, through get_next_states only."""
    values = {s: 0.0 for s in game.states}
    for _ in range(sweeps):
        delta = 0.0
        for s in game.states:
            best = -math.inf
            for a in game.actions:
                states, over, reward, probs = game.get_next_states(a, s)
                q = reward if over else sum(p * (reward + values[t]) for t, p in zip(states, probs))
                best = max(best, q)
            delta = max(delta, abs(best - values[s]))
            values[s] = best
        if delta <= tol:
            break
    return values


CASES = [
    {"dice": 2, "sides": 3},
    {"dice": 3, "sides": 6},
    {"dice": 3, "sides": 4, "values": [2, 3, 5, 7], "bias": [0.1, 0.2, 0.3, 0.4], "penalty": 0.5},
    {"dice": 2, "sides": 6, "penalty": 0.0},
]


@pytest.mark.parametrize("params", CASES)
def test_engine_agrees_with_brute_force_through_the_course_interface(params):
    game = DiceGame(**params)
    rules = StickRules(
        dice=params["dice"],
        sides=params["sides"],
        values=tuple(params["values"]) if "values" in params else None,
        bias=tuple(params["bias"]) if "bias" in params else None,
        penalty=params.get("penalty", 1.0),
    )
    sol = solve_stick(rules)
    brute = brute_force_values(game)
    for state, value in brute.items():
        assert sol.roll_value(rules.counts_of(state)) == pytest.approx(value, abs=1e-9)
    first = sum(
        p * brute[s]
        for s, p in zip(*game.get_next_states((), tuple([game._values[0]] * game._dice))[::3])
    )
    assert sol.value == pytest.approx(first, abs=1e-9)


def test_two_dice_three_sides_is_4_25():
    assert solve_stick(StickRules(dice=2, sides=3)).value == pytest.approx(4.25, abs=1e-12)


def test_three_d6_value_and_best_score():
    sol = solve_stick(StickRules())
    assert len(sol.table()) == 56
    assert sol.value == pytest.approx(13.348269628099, abs=1e-9)
    assert max(row["stick_score"] for row in sol.table()) == 18


def test_optimal_agent_plugs_into_the_course_game():
    game = DiceGame(seed=11)
    agent = OptimalAgent(game)
    sol = agent.solution
    # play() returns a tuple of indices whose held values are the optimal hold.
    for state in game.states:
        hold = agent.play(state)
        assert isinstance(hold, tuple) and hold == tuple(sorted(set(hold)))
        held = [state[i] for i in hold]
        best = sol.best_hold(agent.rules.counts_of(state))
        assert sorted(held) == sorted(agent.rules.values_of(best))
    # Whole games through roll(): the mean score matches the exact value within 4 SE.
    scores = []
    for _ in range(4000):
        state = game.reset()
        over = False
        while not over:
            _, state, over = game.roll(agent.play(state))
        scores.append(game.score)
    se = np.std(scores, ddof=1) / math.sqrt(len(scores))
    assert abs(np.mean(scores) - sol.value) < 4 * se


def test_agent_reads_custom_game_parameters():
    game = DiceGame(dice=2, sides=4, values=[1, 3, 5, 9], bias=[0.4, 0.3, 0.2, 0.1], penalty=2)
    agent = OptimalAgent(game)
    assert agent.rules.penalty == 2 and agent.rules.die.values == (1, 3, 5, 9)
    assert agent.play((1, 1)) == (0, 1)  # two 1s flip to two 9s: 18, the best there is
    assert agent.play((9, 9)) == ()  # two 9s flip to 2 points: reroll both


def test_discounted_agents_are_evaluated_exactly():
    rules = StickRules()
    sol = solve_stick(rules)
    assert evaluate_stick_policy(rules, optimal_policy_map(sol)) == pytest.approx(
        sol.value, abs=1e-12
    )
    game = DiceGame(seed=5)
    for discount, threshold in [(0.96, 0.1), (0.97, 0.001)]:
        policy = discounted_agent_policy(rules, discount, threshold)
        exact = evaluate_stick_policy(rules, policy)
        assert 0 < sol.value - exact < 1.0
        # Independent path: play that policy through the course interface.
        lat = rules.lattice
        scores = []
        for _ in range(4000):
            state = game.reset()
            over = False
            while not over:
                held = policy[lat.index(rules.counts_of(state))]
                if held is None:
                    hold = tuple(range(len(state)))
                else:
                    remaining = lat.counts[held].copy()
                    hold = []
                    for i, v in enumerate(state):
                        f = rules.face_of(v)
                        if remaining[f] > 0:
                            remaining[f] -= 1
                            hold.append(i)
                    hold = tuple(hold)
                _, state, over = game.roll(hold)
            scores.append(game.score)
        se = np.std(scores, ddof=1) / math.sqrt(len(scores))
        assert abs(np.mean(scores) - exact) < 4 * se


def test_simulation_within_four_standard_errors():
    sol = solve_stick(StickRules(dice=4, sides=5, penalty=0.5))
    scores = play_games(sol, 100_000, np.random.default_rng(3))
    se = scores.std(ddof=1) / math.sqrt(len(scores))
    assert abs(scores.mean() - sol.value) < 4 * se


def test_six_dice_solve_matches_value_of_its_own_policy():
    rules = StickRules(dice=6)
    sol = solve_stick(rules)
    assert 29.0 < sol.value < 30.0
    assert evaluate_stick_policy(rules, optimal_policy_map(sol)) == pytest.approx(
        sol.value, abs=1e-10
    )


@pytest.mark.parametrize(
    "argv,message",
    [
        (["--dice", "0"], "number of dice"),
        (["--dice", "-2"], "number of dice"),
        (["--sides", "1"], "at least 2 sides"),
        (["--values", "1,1,2,3,4,5"], "distinct"),
        (["--bias", "0.5,0.5,0.5,0,0,0"], "sum to 1"),
        (["--bias", "1.5,-0.5,0,0,0,0"], ">= 0"),
        (["--penalty", "-1"], "penalty"),
    ],
)
def test_cli_bad_input_gives_one_line_and_exit_2(argv, message, capsys):
    assert main(["stick", "solve", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_cli_solve_and_simulate_json(capsys):
    import json

    assert main(["stick", "solve", "--dice", "2", "--sides", "3", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["value"] == pytest.approx(4.25) and data["seconds"] >= 0
    assert main(["stick", "simulate", "--games", "2000", "--seed", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) >= {"mean", "std_error", "games", "seconds", "min", "max", "exact"}
    assert data["games"] == 2000 and abs(data["mean"] - data["exact"]) < 4 * data["std_error"]


def test_cli_play_grades_moves_and_survives_bad_lines(monkeypatch, capsys):
    lines = iter(["banana", "7", "stick"])
    monkeypatch.setattr("builtins.input", lambda _prompt="": next(lines))
    assert main(["stick", "play", "--seed", "4"]) == 0
    captured = capsys.readouterr()
    assert "unknown action 'banana'" in captured.err
    assert "7 is not a face" in captured.err
    assert "game over: final result" in captured.out and "Traceback" not in captured.err


@pytest.mark.parametrize(
    "rules", [StickRules(3, 6), StickRules(2, 4, values=(1, 2, 5, 9), bias=(0.1, 0.2, 0.3, 0.4))]
)
def test_solved_is_stored_and_answers_without_the_graph(cache, rules):
    key = stick_solve.table_key(rules)
    path = cache / "stick" / key.file_name()
    path.unlink(missing_ok=True)
    stick_solve._SOLVED.clear()
    first = stick_solve.solved(rules)
    assert not first.loaded and path.exists()
    stick_solve._SOLVED.clear()
    again = stick_solve.solved(rules)
    assert again.loaded and again._engine is None
    np.testing.assert_array_equal(again.values, first.values)
    assert again.table() == first.table()
    if rules == StickRules():
        assert key.variant == "3d6"
        spec = stick.SPEC
        options = spec.advise(rules, spec.parse(rules, "dice 1 3 3")).actions
        assert options[0].regret == 0 and len(options) == 6  # holds of 1 3 3
    else:
        assert key.variant.startswith("2d4-")  # other values, bias: a digest in the name
    assert again._engine is None  # advice and the table never rebuilt the graph
    # the engine objects come back on demand, with the same values
    assert again.solution.value == pytest.approx(first.value, abs=1e-12)


def test_advice_with_large_points_keeps_exact_regrets():
    """Regrets come from the points still to come: banked points of any allowed size
    leave them (and the order) exactly as without points; beyond MAX_POINTS the points
    are refused instead of ranking every action best."""
    from diceopt.games.registry import get_game
    from diceopt.games.stick.rules import MAX_POINTS

    spec = get_game("stick")
    rules = spec.rules()
    plain = spec.advise(rules, spec.parse(rules, "dice 1 3 3")).actions
    for points in (-MAX_POINTS, 1e11 + 0.3, MAX_POINTS):
        far = spec.advise(rules, spec.parse(rules, f"dice 1 3 3 | points {points!r}")).actions
        assert [(a.action, a.regret) for a in far] == [(a.action, a.regret) for a in plain]
    for text in ("dice 1 3 3 | points 1e20", '{"dice": [1, 3, 3], "points": 1e20}'):
        with pytest.raises(InputError, match="points must be between -1e\\+12 and 1e\\+12"):
            spec.parse(rules, text)
