"""Zombie Dice (RULES §10): no published values, so every value is checked two ways.

- the roll's tables (numba) against a die-by-die enumeration (``engine_game``) and a
  hand-computed bust probability;
- one turn: exact expected brains of "stop at two shotguns" and of the optimum against
  seeded simulations of each policy (within Z standard errors);
- the race: the fixed-point solver against the generic engine's value iteration on a
  reduced goal, the Bellman equations at the solution, and a seeded simulation of the
  solved policy;
- positions, advice, the round and tie rules, and bad input.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from itertools import product

import numpy as np
import pytest
from second_path import assert_same_values, random_positions

from diceopt.cli import main
from diceopt.engine import Objective, compile_game, solve
from diceopt.errors import InputError
from diceopt.games.zombie import SPEC, game, turn
from diceopt.games.zombie.dice import FACES, TOTAL, transitions
from diceopt.games.zombie.engine_game import EMPTY, ZombieGame, roll_outcomes
from diceopt.games.zombie.race import lead_bound, solve_race, unit

Z = 4.0  # standard errors allowed between a simulated mean and an exact value
TURNS = 20_000  # simulated turns per policy
GAMES = 3_000  # simulated races


def test_first_roll_bust_probability_by_hand() -> None:
    # three shotguns on the first roll: draw 3 of 6 green, 4 yellow, 3 red, each a shotgun
    shot = [Fraction(FACES[c][1], 6) for c in range(3)]
    total = Fraction(0)
    for dice in product(range(3), repeat=3):  # ordered draws without replacement
        left = list(TOTAL)
        p = Fraction(1)
        for k, colour in enumerate(dice):
            p *= Fraction(left[colour], 13 - k) * shot[colour]
            left[colour] -= 1
        total += p
    assert math.isclose(transitions().bust[0], float(total), rel_tol=1e-12)


def test_roll_tables_match_a_die_by_die_enumeration() -> None:
    t = transitions()
    rng = np.random.default_rng(5)
    out = t.configs.sum(axis=1)
    recycling = np.flatnonzero(t.configs[:, 6:9].sum(axis=1) >= 9)  # the cup runs short
    sample = np.concatenate([rng.choice(np.flatnonzero(out >= 3), 150), recycling[:50]])
    for c in sample.tolist():
        row = t.configs[c].tolist()
        config = (tuple(row[0:3]), tuple(row[3:6]), tuple(row[6:9]))
        mine = {("bust", 0): t.bust[c]}
        if t.self_loop[c]:
            mine[(c, 0)] = t.self_loop[c]
        for e in range(t.start[c], t.start[c + 1]):
            mine[(int(t.next[e]), int(t.brains[e]))] = t.prob[e]
        other: dict = {}
        for p, brains, nxt in roll_outcomes(config):
            key = ("bust", 0) if nxt is None else (t.find(*nxt), brains)
            other[key] = other.get(key, 0.0) + p
        assert set(other) <= set(mine), config
        for key, p in mine.items():
            assert math.isclose(p, other.get(key, 0.0), abs_tol=1e-14), (config, key)


def test_roll_order_puts_every_outcome_first() -> None:
    # within one brains count, every outcome without brains (a shotgun, or footprints
    # only) is solved before the configuration it comes from
    t = transitions()
    rank = np.empty(t.size, dtype=np.int64)
    rank[turn.roll_order()] = np.arange(t.size)
    source = np.repeat(np.arange(t.size), np.diff(t.start))
    same = t.brains == 0
    assert (rank[t.next[same]] < rank[source[same]]).all()


def test_packed_outcomes_unpack_to_every_successor_and_probability() -> None:
    # the turn kernel reads each roll outcome as 16 bits of successor and 16 of the index
    # of its probability: unpacked, they are the transitions' own, bit for bit
    t = transitions()
    packed, probs = turn.packed_outcomes()
    assert packed.dtype == np.uint32 and packed.size == t.next.size
    place = (packed & 0xFFFF).astype(np.int64)
    assert (place // t.size == t.brains).all() and (place % t.size == t.next).all()
    assert (probs[packed >> 16] == t.prob).all()


@pytest.mark.parametrize("policy", ["two-shotguns", "optimal"])
def test_turn_exact_value_matches_its_simulation(policy: str) -> None:
    exact = turn.expected_brains(policy)
    assert exact.gap == 0.0  # the cap's lower and upper bounds agree: the value is exact
    sim = game.simulate_turns(TURNS, np.random.default_rng(3), policy)
    error = sim.std(ddof=1) / math.sqrt(TURNS)
    assert abs(sim.mean() - exact.value) <= Z * error, (policy, sim.mean(), exact.value)


def test_the_optimum_beats_two_shotguns_and_a_small_cap_is_a_sandwich() -> None:
    best, simple = turn.expected_brains(), turn.expected_brains("two-shotguns")
    assert best.value > simple.value + 0.1
    small = turn.expected_brains("optimal", cap=8)  # bounds from a cap that cuts
    assert small.value <= best.value <= small.upper and small.gap > 1e-6


def test_race_equals_the_generic_engine_on_a_reduced_goal() -> None:
    goal, cap = 2, 1
    graph = compile_game(ZombieGame(goal, cap))
    values = solve(graph, Objective("win")).values
    sol = solve_race(goal, cap)
    assert math.isclose(values[0], sol.value, abs_tol=1e-12)
    tie = values[graph.index[("turn", 0, goal, goal, EMPTY, 0)]]
    assert math.isclose(tie, sol.tie, abs_tol=1e-12)
    second = values[graph.index[("turn", 1, 1, 0, EMPTY, 0)]]
    assert math.isclose(second, sol.second[1, 0], abs_tol=1e-12)


def test_race_solution_satisfies_its_bellman_equations() -> None:
    sol = solve_race(3, 6)
    for a in range(3):
        for b in range(3):
            first = turn.solve(sol.first_payoffs(a, b)).first
            second = turn.solve(sol.second_payoffs(a, b)).first
            assert abs(first - sol.first[a, b]) <= 1e-14
            assert abs(second - sol.second[a, b]) <= 1e-14
    assert abs(turn.solve(sol.first_payoffs(3, 3)).first - sol.tie) <= 1e-14
    assert 0.0 < sol.value < 1.0 and sol.cap_error == lead_bound(6)


@pytest.mark.parametrize("cell", [(0, 0), (1, 2)])
def test_turn_steps_move_the_value_linearly_and_end_where_a_decision_changes(
    cell: tuple[int, int],
) -> None:
    # the race's first-player turn along a change of its bust payoff h[0], as the race's
    # Newton steps move it: within half the reported steps the value is the linear one
    # (a fresh solve there agrees), beyond them a decision changes and the value (convex
    # in the payoffs) rises above the line
    sol = solve_race(3, 6)
    h = sol.first_payoffs(*cell)
    hd = unit(len(h), 0, 1.0)
    tv = turn.solve(h, hd)
    lo, hi = tv.steps
    assert lo < 0.0 < hi
    for t in (0.45 * lo, 0.2 * lo, 0.2 * hi, 0.45 * hi):
        assert abs(tv.first_at(t) - turn.solve(h + t * hd).first) <= 1e-14
    for t in (3.0 * lo, 3.0 * hi):
        assert tv.first_at(t) is None
        assert turn.solve(h + t * hd).first > tv.first + t * tv.first_slope + 1e-11


def test_race_reusing_turns_equals_solving_every_turn(monkeypatch: pytest.MonkeyPatch) -> None:
    reused = solve_race(5, 8)
    monkeypatch.setattr(turn.TurnValues, "first_at", lambda self, t: None)  # solve each time
    fresh = solve_race(5, 8)
    assert np.allclose(reused.first, fresh.first, rtol=0.0, atol=1e-14)
    assert np.allclose(reused.second, fresh.second, rtol=0.0, atol=1e-14)
    assert abs(reused.tie - fresh.tie) <= 1e-14
    assert reused.turn_solves < fresh.turn_solves


def test_lead_cap_changes_the_value_by_at_most_its_bound() -> None:
    coarse, fine = solve_race(3, 4), solve_race(3, 12)
    assert abs(coarse.value - fine.value) <= lead_bound(4)
    assert coarse.value != fine.value  # the cap matters at 4 brains


def test_race_simulation_of_the_solved_policy() -> None:
    rules = SPEC.rules("goal-3", lead_cap=10)
    exact = game.solved(rules).value
    results = game.simulate_race(rules, GAMES, np.random.default_rng(9))
    error = results.std(ddof=1) / math.sqrt(GAMES)
    assert abs(results.mean() - exact) <= Z * error


def test_a_worse_first_player_wins_less_in_simulation() -> None:
    # always banking after the first roll gives up wins the simulation can see
    rules = SPEC.rules("goal-3", lead_cap=10)
    exact = game.solved(rules).value
    results = game.simulate_race(rules, GAMES, np.random.default_rng(9), lambda pos: "bank")
    error = results.std(ddof=1) / math.sqrt(GAMES)
    assert results.mean() < exact - Z * error


def test_round_and_tie_rules() -> None:
    # the first player reaching the goal still gives the second the round's last turn
    assert game.end_turn(13, 10, 12, 0, 3) == (False, None, 13, 12, 1)
    assert game.end_turn(13, 13, 12, 1, 2) == (True, 0.0, 13, 14, 0)
    assert game.end_turn(13, 13, 12, 1, 1) == (False, None, 13, 13, 0)  # tie: play on
    assert game.end_turn(13, 13, 12, 1, 0) == (True, 1.0, 13, 12, 0)
    assert game.end_turn(13, 5, 12, 1, 1) == (True, 0.0, 5, 13, 0)
    assert game.end_turn(13, 5, 7, 1, 0) == (False, None, 5, 7, 0)


def test_advice_positions_and_apply() -> None:
    rules = SPEC.rules("goal-3", lead_cap=10)
    start = SPEC.new_position(rules, np.random.default_rng(0))
    assert [a.action for a in SPEC.advise(rules, start).actions] == ["roll"]
    assert math.isclose(SPEC.advise(rules, start).best.value, game.solved(rules).value)
    text = "me 1 | opponent 2 | player 2 | brains 1 | shotguns rr | feet y | aside g"
    pos = SPEC.parse(rules, text)
    assert SPEC.format(rules, pos) == text
    advice = SPEC.advise(rules, pos)
    assert {a.action for a in advice.actions} == {"roll", "bank"}
    brains = SPEC.advise(rules, pos, objective="brains")
    assert brains.find("bank").value == 1.0
    with pytest.raises(InputError, match="starts with a roll"):
        SPEC.apply(rules, start, "bank", np.random.default_rng(0))
    step = SPEC.apply(rules, start, "roll", np.random.default_rng(0))
    assert step.events and step.events[0].startswith("player 1 rolled")
    assert len(step.position.rolled) == 3 or step.to_move == 1


@pytest.mark.parametrize(
    "text",
    [
        "me 1 | opponent 2 | shotguns rrr",
        "me 1 | opponent 2 | feet gggg",
        "me 1 | opponent 2 | aside rrrr",
        "me 1 | opponent 2 | brains 2",
        "me 1 | opponent 2 | brains 1 | aside gg | feet y",
        "me 14 | opponent 2",
        "me 1 | opponent 2 | shotguns x",
        "me 1 | opponent 2 | player 3",
        "me 1 | opponent 2 | feet g | rolled gq",
    ],
)
def test_bad_positions_are_one_line_errors(text: str) -> None:
    with pytest.raises(InputError) as info:
        SPEC.parse(SPEC.rules(), text)
    assert "\n" not in str(info.value)


def test_cli_turn_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["zombie", "turn", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["value"] == turn.expected_brains().value
    assert data["two_shotguns"] == turn.expected_brains("two-shotguns").value


def test_cli_bad_position_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["zombie", "advise", "--variant", "goal-3", "me 1 | opponent x"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "error" in err


def test_a_game_against_the_computer() -> None:
    rules = SPEC.rules("goal-3", lead_cap=10)
    rng = np.random.default_rng(4)
    v = SPEC.versus_start(rules, "win", rng)
    assert math.isclose(v.win_probability, game.solved(rules).value)
    turns = 0
    while not v.game_over:
        action = "bank" if v.you.brains >= 1 else "roll"
        v = SPEC.versus_play(rules, SPEC.format(rules, v.you), v.computer, "win", action, rng)
        if v.moves:  # the computer played its turn: back to a turn start of the human
            turns += 1
            assert v.game_over or (not v.you.started and v.win_probability is not None)
            assert v.computer_json["brains"] == v.you.opponent
    assert turns >= 1 and v.result in (0.0, 1.0)
    with pytest.raises(InputError, match="disagree"):
        SPEC.versus_play(rules, "me 0 | opponent 1", "brains 2", "win", "roll", rng)
    with pytest.raises(InputError, match="strategy"):
        SPEC.versus_start(rules, "expected", rng)


# --- the second path: every action's value by the engine's value iteration ------------

# where the turn's table once valued rolling wrongly: at the brains cap (enough to win)
# as the state's value, banking's; with three footprint dice in hand and banking better,
# as if rolling on after a footprints-only roll
CAPPED = "me 0 | opponent 1 | player 2 | brains 3 | aside ggg"
SELF_LOOP = "me 1 | opponent 0 | player 2 | brains 2 | shotguns gr | feet gyr | aside gy"


def sampled_positions(rules, count, seed):
    """``count`` positions of seeded games with random legal actions."""
    return random_positions(SPEC, rules, count, seed)


def test_independent_values_equal_the_advice() -> None:
    rules = SPEC.reduced_rules()  # the engine builds the race once
    positions = sampled_positions(rules, 50, seed=5)
    positions += [SPEC.parse(rules, text) for text in (CAPPED, SELF_LOOP)]
    for pos in positions:
        values = SPEC.independent_values(rules, pos)
        assert_same_values(SPEC.advise(rules, pos), values, pos.text())


def test_independent_values_catch_a_wrong_value() -> None:
    rules = SPEC.reduced_rules()
    pos = SPEC.parse(rules, CAPPED)
    advice, values = SPEC.advise(rules, pos), SPEC.independent_values(rules, pos)
    assert values["bank"] == 1.0 and values["roll"] < 0.995  # rolling risks the win
    with pytest.raises(AssertionError):  # one value off by 1e-8
        assert_same_values(advice, values | {"roll": values["roll"] + 1e-8}, "perturbed")
    # the turn table's old value of rolling at the cap (the state's: banking's) is caught
    tv = game.turn_table(rules, game.mover_key(rules, pos.seat, pos.me, pos.opponent))
    old = float(tv.values[tv.cap, game.config_of(pos)])
    with pytest.raises(AssertionError):
        assert_same_values(advice, values | {"roll": old}, "rolling valued as banking")


def test_independent_values_refuse_large_goals() -> None:
    rules = SPEC.rules("goal-13")
    with pytest.raises(InputError, match="too large for the engine"):
        SPEC.independent_values(rules, SPEC.new_position(rules, np.random.default_rng(0)))


def test_race_is_the_same_on_one_thread() -> None:
    # the cells of a diagonal are solved at once on the threads: each starts from its
    # neighbour on the diagonal before, so the values do not depend on the threads
    import numba

    many = solve_race(5, 8)
    before = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        one = solve_race(5, 8)
    finally:
        numba.set_num_threads(before)
    assert np.array_equal(one.first, many.first) and np.array_equal(one.second, many.second)
    assert one.turn_solves == many.turn_solves > 0
