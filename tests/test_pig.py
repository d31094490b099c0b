"""Pig on the push-your-luck family's race solver, checked against hand-derived values,
an independent value iteration and the engine graph (every node); the published figure
(goal 100), seeded simulation, exact evaluation, advice and bad input."""

import json
from fractions import Fraction

import numpy as np
import pytest
from cli_status import exit_status

from diceopt.advice import ActionAdvice
from diceopt.cli import main
from diceopt.engine import Objective, compile_game, solve
from diceopt.errors import InputError
from diceopt.games import pig
from diceopt.games.families import race
from diceopt.games.pig import graph, play, position, solution
from diceopt.games.pig.graph import (
    PigGame,
    build_graph,
    chance_node,
    decision_node,
    node_values,
    optimal_policy,
    solve_engine,
)
from diceopt.games.pig.position import PigPosition
from diceopt.games.pig.rules import PigRules, rules_for_variant
from diceopt.games.pig.solution import solve_pig
from diceopt.simulate import simulate


def advise(position, variant=None):
    """The advice list of a position through the game's spec."""
    rules = pig.SPEC.rules(variant)
    return pig.SPEC.advise(rules, pig.SPEC.parse(rules, position)).actions


def apply(position, action, variant, rng):
    """(next position text, game over) through the game's spec."""
    rules = pig.SPEC.rules(variant)
    step = pig.SPEC.apply(rules, pig.SPEC.parse(rules, position), action, rng)
    return pig.SPEC.format(rules, step.position), step.game_over


def apply_step(position, action, variant, rng):
    """The engine walk of one action (die rolled, turn passed)."""
    rules = pig.SPEC.rules(variant)
    return play.play_action(rules, pig.SPEC.parse(rules, position), action, rng)


@pytest.fixture(scope="module", autouse=True)
def cache(tmp_path_factory):
    """Solutions stored by this module go to a fresh cache directory."""
    path = tmp_path_factory.mktemp("pig-cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DICEOPT_CACHE", str(path))
        mp.setattr(solution, "_SOLVED", {})
        mp.setattr(race, "_SOLVED", {})
        yield path


@pytest.fixture(scope="module")
def pig100():
    """The one full-size solve of this suite (goal 100, six-sided die)."""
    return solve_pig(PigRules())


# --- hand-derived values ----------------------------------------------------------------
# Goal 2: any roll of 2..6 wins at once, a 1 passes the turn: x = 5/6 + (1 - x)/6, x = 6/7.
# Goal 3 (x[m, o] = P(mover wins) at the start of a turn, mover at m, opponent at o):
#   x[2, o] = 5/6 + (1 - x[o, 2])/6 (any non-1 roll reaches 3),
#   x[0, o] = 4/6 + (1 - x[o, 0])/6 + (1/6) max(hold 2: 1 - x[o, 2],
#                                              roll on: 5/6 + (1 - x[o, 0])/6);
#   rolling on always wins here, so x[2, 2] = 6/7, x[0, 2] = 174/209, x[2, 0] = 180/209 and
#   x[0, 0] = 29/36 + 7/36 (1 - x[0, 0]) = 36/43.


@pytest.mark.parametrize(
    ("goal", "sides", "value"),
    [
        (1, 6, Fraction(6, 7)),
        (2, 6, Fraction(6, 7)),
        (3, 6, Fraction(36, 43)),
        (2, 4, Fraction(4, 5)),
    ],
)
def test_hand_derived_first_player_values(goal, sides, value):
    sol = solve_pig(PigRules(goal, sides))
    assert sol.value == pytest.approx(float(value), abs=1e-13)
    assert solve_engine(PigRules(goal, sides)).value == pytest.approx(float(value), abs=1e-13)


def test_goal_three_every_start_of_turn():
    sol = solve_pig(PigRules(3))
    assert sol.win_probability(0, 2) == pytest.approx(174 / 209, abs=1e-13)
    assert sol.win_probability(2, 0) == pytest.approx(180 / 209, abs=1e-13)
    assert sol.win_probability(2, 2) == pytest.approx(6 / 7, abs=1e-13)
    values = sol.action_values(0, 0, 2)
    assert values["roll"] > values["hold"]
    assert values["hold"] == pytest.approx(1 - 174 / 209, abs=1e-13)


# --- an independent path: plain value iteration on the symmetric formulation ----------


def reference_values(goal, sides, sweeps=10_000):
    """f[m, o, k]: P(mover wins) by Jacobi-free Gauss-Seidel, no engine, no players."""
    f = np.zeros((goal, goal, goal))
    for _ in range(sweeps):
        old = f.copy()
        for m in range(goal - 1, -1, -1):
            for o in range(goal - 1, -1, -1):
                for k in range(goal - m - 1, -1, -1):
                    roll = (1 - f[o, m, 0]) / sides
                    for r in range(2, sides + 1):
                        roll += (1.0 if m + k + r >= goal else f[m, o, k + r]) / sides
                    hold = 1 - f[o, m + k, 0] if k > 0 else -1.0
                    f[m, o, k] = max(roll, hold)
        if np.abs(f - old).max() < 1e-14:
            return f
    raise AssertionError("reference value iteration did not converge")


@pytest.mark.parametrize(("goal", "sides"), [(8, 6), (10, 4)])
def test_race_solver_matches_independent_value_iteration(goal, sides):
    sol = solve_pig(PigRules(goal, sides))
    f = reference_values(goal, sides)
    assert sol.value == pytest.approx(f[0, 0, 0], abs=1e-12)
    for m in range(goal):
        for o in range(goal):
            assert sol.win_probability(m, o) == pytest.approx(f[m, o, 0], abs=1e-12)
            for k in range(1, goal - m):
                assert sol.win_probability(m, o, k) == pytest.approx(f[m, o, k], abs=1e-12)
                assert sol.roll_value(m, o, k) <= f[m, o, k] + 1e-12


@pytest.mark.parametrize(("goal", "sides"), [(12, 6), (9, 2), (10, 2), (7, 3), (11, 20), (1, 2)])
def test_race_solver_matches_the_engine_graph_at_every_node(goal, sides):
    # the family's race solver (rules/pig.toml) and the engine graph (value iteration):
    # every node's value, roll and decision, to 1e-12; with a two-sided die the race has
    # the even scores only (the odd ones cannot occur)
    rules = PigRules(goal, sides)
    family = node_values(solve_pig(rules))
    engine = solve_engine(rules)
    assert engine.game.num_states == goal**3 + 1 and family.shape == engine.values.shape
    m, o, k = np.meshgrid(*[np.arange(goal)] * 3, indexing="ij")
    live = m + k < goal
    even = (m % 2 == 0) & (o % 2 == 0) & (k % 2 == 0)
    nodes = chance_node(goal, m[live], o[live], k[live])
    kept = even[live] if sides == 2 else np.ones(nodes.size, dtype=bool)
    assert np.isfinite(family[nodes[kept]]).all() and np.isnan(family[nodes[~kept]]).all()
    decisions = nodes[kept & (k[live] >= 1)] - 1
    for checked in (nodes[kept], decisions, [graph.win_node(goal)]):
        np.testing.assert_allclose(family[checked], engine.values[checked], rtol=0, atol=1e-12)


@pytest.mark.parametrize(("goal", "sides"), [(12, 6), (9, 2), (7, 3)])
def test_array_graph_matches_node_protocol_version(goal, sides):
    # the vectorised graph and PigGame (engine node protocol) are the same rules
    rules = PigRules(goal, sides)
    sol = solve_engine(rules)
    proto = compile_game(PigGame(rules))
    ref = solve(proto, Objective("win"))
    assert proto.has_flips and sol.game.num_states == goal**3 + 1
    assert proto.num_states <= sol.game.num_states  # only the reachable states
    for state, i in proto.index.items():
        if state == "won":
            continue
        m, o, k, is_chance = state
        node = chance_node(goal, m, o, k) if is_chance else decision_node(goal, m, o, k)
        assert sol.values[node] == pytest.approx(ref.values[i], abs=1e-13)
    assert sol.value == pytest.approx(ref.value, abs=1e-13)


def test_race_and_engine_policies_agree():
    # the boundary of the race solution is the engine's optimal policy (ties to hold)
    from diceopt.engine import extract_policy

    rules = PigRules(20, 3)  # short races with a six-sided die never hold: roll to the goal
    engine = solve_engine(rules)
    ours = optimal_policy(engine.game, solve_pig(rules))
    theirs = extract_policy(engine)
    m, o, k = np.meshgrid(*[np.arange(20)] * 3, indexing="ij")
    live = (m + k < 20) & (k >= 2)
    decisions = decision_node(20, m[live], o[live], k[live])
    np.testing.assert_array_equal(ours[decisions], theirs[decisions])
    assert set(ours[decisions] - engine.game.start[decisions]) == {0, 1}


def test_tighter_tolerance_keeps_nine_decimals():
    loose = solve_pig(PigRules(50), tolerance=1e-10)
    tight = solve_pig(PigRules(50))
    assert round(loose.value, 9) == round(tight.value, 9)
    assert abs(loose.value - tight.value) < 1e-10
    assert tight.stats["residual"] <= 1e-15 < loose.stats["residual"] <= 1e-10


# --- the published figure ---------------------------------------------------------------


def test_published_first_player_win_probability(pig100):
    # Neller & Presser (2004): the first player wins about 53.06% with optimal play
    assert pig100.value == pytest.approx(0.5306, abs=1e-4)
    assert f"{pig100.value:.9f}" == "0.530592725"
    assert pig100.stats["residual"] <= 1e-15
    assert pig100.states == 100 * 100 + 100 * (100 * 99 // 2)  # turn starts, decisions


def test_boundary_shape_goal_100(pig100):
    hold_from, exceptions = pig100.boundary()
    # at the start hold at a turn total in the low-to-mid twenties (Neller & Presser's
    # figure); far behind (opponent near the goal) roll on to the goal
    assert 19 <= hold_from[0, 0] <= 27
    assert hold_from[0, 99] == 100 and hold_from[50, 99] == 50
    assert np.isnan(hold_from[1, 0]) and np.isnan(hold_from[0, 1])
    assert exceptions >= 0
    hold, _ = pig100.decision_table()
    assert hold[0, 0, int(hold_from[0, 0])] == 1 and hold[0, 0, int(hold_from[0, 0]) - 1] == 0


def test_advise_goal_100(pig100):
    solution._SOLVED[PigRules()] = pig100
    options = advise("me 41 | opponent 49 | turn 22")
    assert [o.action for o in options][0] in ("hold", "roll") and len(options) == 2
    assert options[0].regret == 0 and options[1].regret > 0
    assert options[0].value == pytest.approx(max(pig100.action_values(41, 49, 22).values()))


# --- simulation ----------------------------------------------------------------------


def test_exact_value_matches_seeded_simulation():
    sol = solve_pig(PigRules(20))
    totals = play.simulate(sol, 20_000, np.random.default_rng(3))
    se = totals.std(ddof=1) / np.sqrt(totals.size)
    # 4 standard errors: a false alarm about once in 16,000 runs
    assert abs(totals.mean() - sol.value) < 4 * se


@pytest.mark.parametrize(("goal", "sides"), [(15, 6), (9, 2)])
def test_simulation_draws_as_the_engine_simulator(goal, sides):
    # the same seed, the same rolls, the same policy: game for game the engine's outcomes
    rules = PigRules(goal, sides)
    sol = solve_pig(rules)
    graph_ = build_graph(rules)
    policy = optimal_policy(graph_, sol)
    ours = play.simulate(sol, 3_000, np.random.default_rng(8))
    theirs = simulate(graph_, policy, 3_000, np.random.default_rng(8), objective=Objective("win"))
    np.testing.assert_array_equal(ours, theirs)


def test_exact_evaluation_of_optimal_and_greedy_play():
    rules = PigRules(14)
    sol = solve_pig(rules)
    solution._SOLVED[rules] = sol

    def best(pos, legal):  # asked at every decision node, impossible positions too
        hold = sol.hold_value(pos.me, pos.opponent, pos.turn)
        return "hold" if hold >= sol.roll_value(pos.me, pos.opponent, pos.turn) else "roll"

    def hold_at_six(pos, legal):
        return "hold" if pos.turn >= 6 else "roll"

    first, asked = pig.SPEC.exact_evaluation(rules, best, seat=1)
    second, _ = pig.SPEC.exact_evaluation(rules, best, seat=2)
    assert first == pytest.approx(sol.value, abs=1e-12)
    assert second == pytest.approx(1 - sol.value, abs=1e-12)
    assert asked == 14 * (14 * 13 // 2)  # every decision node D(m, o, k >= 1)
    greedy, _ = pig.SPEC.exact_evaluation(rules, hold_at_six, seat=1)
    assert greedy < first - 1e-3


# --- advice contract ------------------------------------------------------------------


def test_variants_example_and_advise():
    assert next(iter(pig.SPEC.variants)) == "goal-100"
    assert rules_for_variant("goal-20") == PigRules(20)
    assert rules_for_variant("goal-30-d8") == PigRules(30, 8)
    position.parse_position(PigRules(), position.POSITION_EXAMPLE)
    options = advise("me 10 | opponent 12 | turn 6", "goal-20")
    assert all(isinstance(o, ActionAdvice) for o in options)
    assert [o.value for o in options] == sorted((o.value for o in options), reverse=True)
    start = advise("me 10 | opponent 12", "goal-20")
    assert [o.action for o in start] == ["roll"]
    # a turn total that reaches the goal cannot occur: that roll won the game
    with pytest.raises(InputError, match="reaches the goal 20"):
        advise("me 15 | opponent 12 | turn 6", "goal-20")


def test_apply_rolls_holds_and_ends():
    rng = np.random.default_rng(1)
    position, over = apply("me 10 | opponent 12 | turn 6", "hold", "goal-20", rng)
    assert (position, over) == ("me 12 | opponent 16 | turn 0 | player 2", False)
    with pytest.raises(InputError, match="cannot hold with turn total 0"):
        apply("me 10 | opponent 12", "hold", "goal-20", rng)
    position, over = "me 0 | opponent 0 | turn 0", False
    for _ in range(500):
        best = advise(position, "goal-20")[0].action
        position, over = apply(position, best, "goal-20", rng)
        if over:
            break
    assert over and int(position.split()[1]) >= 20


def test_apply_step_reports_die_and_passes_turn():
    seen = set()
    rng = np.random.default_rng(0)
    for _ in range(60):
        st = apply_step("me 4 | opponent 6 | turn 3", "roll", "goal-20", rng)
        assert len(st.rolled) == 1
        die = st.rolled[0]
        seen.add(die)
        if die == 1:
            assert st.position == PigPosition(6, 4, 0, 1) and st.passed and not st.over
        elif 4 + 3 + die >= 20:
            assert st.over and st.position == PigPosition(7 + die, 6, 0)
        else:
            assert st.position == PigPosition(4, 6, 3 + die) and not st.passed and not st.over
    assert seen == {1, 2, 3, 4, 5, 6}
    held = apply_step("me 4 | opponent 6 | turn 3", "hold", "goal-20", rng)
    assert held == play.PigStep(PigPosition(6, 7, 0, 1), False, (), True)
    # a turn start rolls at once; the same seed gives the same rolls
    a = [apply_step("me 0 | opponent 0", "roll", "goal-20", np.random.default_rng(9))]
    b = [apply_step("me 0 | opponent 0", "roll", "goal-20", np.random.default_rng(9))]
    assert a == b


def test_solved_is_stored_and_advice_reads_stored_values(cache):
    rules = PigRules(25)
    first = solution.solved(rules)
    assert not first.loaded
    key = solution.table_key(rules)
    assert (cache / "pig" / key.file_name()).exists() and key.shape == (25, 25)
    assert solution.table_key(PigRules(25, 5)) != key  # the die is part of the key
    solution._SOLVED.clear()
    race._SOLVED.clear()
    again = solution.solved(rules)
    assert again.loaded
    np.testing.assert_array_equal(again.race.w, first.race.w)
    options = advise("me 10 | opponent 12 | turn 6", "goal-25-d6")
    assert "tables" not in again.__dict__  # advice read one pair, not every turn
    want = first.action_values(10, 12, 6)
    assert {o.action: o.value for o in options} == want
    assert again.boundary()[1] == first.boundary()[1]
    assert again.value == first.value


def test_boundary_with_a_two_sided_die():
    # odd scores cannot occur: their rows and columns are empty; even ones match the
    # engine's optimal policy
    sol = solve_pig(PigRules(13, 2))
    hold_from, _ = sol.boundary()
    assert np.isnan(hold_from[1::2, :]).all() and np.isnan(hold_from[:, 1::2]).all()
    assert np.isfinite(hold_from[::2, ::2]).all()
    even = hold_from[::2, ::2]
    to_goal = 13 - np.arange(0, 13, 2)[:, None]  # roll on to the goal
    assert ((even % 2 == 0) | (even == to_goal)).all() and (even == to_goal).any()


# --- bad input ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("position", "message"),
    [
        ("me -1 | opponent 2", "me must be >= 0"),
        ("me 3 | opponent -5", "opponent must be >= 0"),
        ("me 3 | opponent 5 | turn -2", "turn must be >= 0"),
        ("me 1 | opponent 2", "cannot occur"),
        ("me 2 | opponent 4 | turn 1", "turn 1 cannot occur"),
        ("me 20 | opponent 2", "reached the goal"),
        ("me 2 | opponent 2 | turn 200", "reaches the goal 20"),
        ("me 10 | opponent 2 | turn 10", "reaches the goal 20"),
        ("me 2 | opponent 2 | turn two", "cannot read"),
        ("me 2", "needs 'opponent N'"),
        ("me 2 | me 3 | opponent 1", "given twice"),
        ("hello", "cannot read"),
    ],
)
def test_bad_positions_raise_one_line(position, message):
    with pytest.raises(InputError, match=message) as exc:
        advise(position, "goal-20")
    assert "\n" not in str(exc.value)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["solve", "--goal", "0"], "goal must be"),
        (["solve", "--goal", "1000"], "goal must be"),
        (["solve", "--sides", "1"], "2 to 20 sides"),
        (["solve", "--goal", "10", "--tolerance", "-1"], "--tolerance"),
        (["advise", "me -3 | opponent 4", "--goal", "20"], "me must be >= 0"),
        (["advise", "me 3 | opponent 4 | turn 1", "--goal", "20"], "turn 1 cannot occur"),
        (["advise", "me 3 | opponent 4", "--goal", "20", "--sides", "0"], "sides"),
        (["boundary", "--goal", "20", "--step", "0"], "--step"),
    ],
)
def test_cli_bad_input_one_line_exit_2(argv, message, capsys):
    assert exit_status(["pig", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_cli_solve_json_and_plot(capsys, tmp_path):
    png = tmp_path / "boundary.png"
    assert main(["pig", "solve", "--goal", "3", "--json", "--plot", str(png)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["value"] == pytest.approx(36 / 43, abs=1e-13)
    assert {"seconds", "solve_seconds", "cpu_seconds", "states", "residual"} <= set(data)
    assert data["states"] == 3 * 3 + 3 * 3  # turn starts and decisions (turn 1 and 2)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["pig", "solve", "--goal", "12"]) == 0
    assert "optimal value from the start: 0." in capsys.readouterr().out


def test_cli_boundary_and_advise(capsys, tmp_path):
    assert main(["pig", "boundary", "--goal", "20", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["hold_from"]) == 20 and data["hold_from"][1][0] is None
    assert data["hold_from"][0][19] == 20  # far behind: roll to the goal
    png = tmp_path / "b.png"
    assert main(["pig", "boundary", "--goal", "20", "--step", "5", "--plot", str(png)]) == 0
    out = capsys.readouterr().out
    assert "you\\opp" in out and png.exists()
    assert main(["pig", "advise", "me 10 | opponent 12 | turn 6", "--goal", "20", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {a["action"] for a in data["actions"]} == {"hold", "roll"}
    assert data["actions"][0]["regret"] == 0.0


def test_cli_play_against_the_optimal_player(monkeypatch, capsys):
    answers = iter(["maybe", "roll", "hold"] + ["roll"] * 200)
    monkeypatch.setattr("builtins.input", lambda _prompt="": next(answers))
    assert main(["pig", "play", "--goal", "12", "--seed", "5"]) == 0
    captured = capsys.readouterr()
    assert "unknown action 'maybe'" in captured.err and "Traceback" not in captured.err
    assert "you win" in captured.out or "you lose" in captured.out
    assert "rolled a" in captured.out  # the die is shown


def test_cli_play_eof_ends_quietly(monkeypatch, capsys):
    def eof(_prompt=""):
        raise EOFError

    monkeypatch.setattr("builtins.input", eof)
    assert main(["pig", "play", "--goal", "10", "--seed", "1", "--seat", "1"]) == 0
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "goodbye: 0 decisions" in out


def test_compiled_graph_is_numbered_in_sweep_order():
    # compile_game numbers nodes in reverse DFS postorder: the stored order must be what a
    # fresh DFS on the arrays finds, and every name must point back to its node
    from diceopt.engine.kernels import postorder

    g = compile_game(PigGame(PigRules(12)))
    order, acyclic = g.order()
    fresh, fresh_acyclic = postorder(g.start, g.target, g.num_states)
    assert np.array_equal(order, fresh) and not acyclic and not fresh_acyclic
    assert np.array_equal(order, np.arange(g.num_states)[::-1])
    assert g.states[0] == (0, 0, 0, True) and all(g.index[s] == i for i, s in enumerate(g.states))
    decisions = np.flatnonzero(g.kind == 2)
    assert {g.actions[e] for d in decisions for e in g.edges(d)} == {"hold", "roll"}


def test_impossible_totals_with_a_two_sided_die():
    # faces 1 and 2: every banked score and turn total is even
    with pytest.raises(InputError, match="cannot occur with a 2-sided die"):
        advise("me 3 | opponent 2", "goal-10-d2")
    with pytest.raises(InputError, match="turn 5 cannot occur"):
        advise("me 2 | opponent 2 | turn 5", "goal-10-d2")
    assert len(advise("me 2 | opponent 4 | turn 4", "goal-10-d2")) == 2


def test_validation_comes_before_any_solve(monkeypatch):
    def boom(*args, **kwargs):
        raise AssertionError("solved before validating")

    monkeypatch.setattr(race, "solve_race", boom)
    monkeypatch.setattr(race, "_SOLVED", {})
    monkeypatch.setattr(solution, "_SOLVED", {})
    with pytest.raises(InputError, match="reaches the goal 100"):
        advise("me 41 | opponent 49 | turn 200", "goal-100")
    with pytest.raises(InputError, match="goal must be"):
        advise("me 1 | opponent 2", "goal-1000")
