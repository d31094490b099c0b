"""The generic engine on hand-computed games."""

import math

import numpy as np
import pytest

from diceopt.engine import (
    Chance,
    Decision,
    Objective,
    Terminal,
    compile_game,
    evaluate_policy,
    extract_policy,
    regrets,
    solve,
)
from diceopt.errors import InputError, SolveError
from diceopt.simulate import simulate


class RerollD6:
    """Roll a d6; stick for its face in points or pay ``cost`` to roll again (cyclic)."""

    def __init__(self, cost=1.0):
        self.cost = cost

    def initial_state(self):
        return "roll"

    def node(self, s):
        if s == "roll":
            return Chance([(1 / 6, 0.0, ("die", f)) for f in range(1, 7)])
        if s == "end":
            return Terminal(0.0)
        return Decision([("stick", s[1], "end"), ("reroll", -self.cost, "roll")])


class Lottery:
    """Acyclic: choose a sure 10 or a coin flip between 0 and 25."""

    def initial_state(self):
        return "choose"

    def node(self, s):
        if s == "choose":
            return Decision([("sure", 10.0, "end"), ("gamble", 0.0, "flip")])
        if s == "flip":
            return Chance([(0.5, 0.0, "low"), (0.5, 0.0, "high")])
        return Terminal({"end": 0.0, "low": 0.0, "high": 25.0}[s])


def test_cyclic_reroll_game_solves_to_hand_value():
    # Stick on 3..6, reroll 1..2: V = (3+4+5+6)/6 + (2/6)(V - 1)  =>  V = 4.
    game = compile_game(RerollD6())
    assert not game.acyclic
    sol = solve(game)
    assert sol.value == pytest.approx(4.0, abs=1e-13)
    policy = extract_policy(sol)
    chosen = {
        game.states[s][1]: game.actions[policy[s]] for s in range(game.num_states) if policy[s] >= 0
    }
    assert chosen == {1: "reroll", 2: "reroll", 3: "stick", 4: "stick", 5: "stick", 6: "stick"}
    s3 = game.state_id(("die", 3))
    # Reroll from 3 is worth V - 1 = 3, exactly as good as sticking: tie-break takes stick.
    assert regrets(sol, s3) == pytest.approx([0.0, 0.0], abs=1e-12)
    s2 = game.state_id(("die", 2))
    assert regrets(sol, s2) == pytest.approx([1.0, 0.0], abs=1e-12)


def test_acyclic_game_is_one_sweep_of_backward_induction():
    game = compile_game(Lottery())
    assert game.acyclic
    sol = solve(game)
    assert sol.sweeps == 1 and sol.value == 12.5


def test_exponential_utility_certainty_equivalents():
    game = compile_game(Lottery())
    assert solve(game, Objective("exponential", 0.0)).value == solve(game).value
    for theta in (-0.2, 0.3):
        ce = math.log(0.5 + 0.5 * math.exp(25 * theta)) / theta
        sol = solve(game, Objective("exponential", theta))
        assert sol.values[game.state_id("flip")] == pytest.approx(ce, rel=1e-13)
        assert sol.value == pytest.approx(max(10.0, ce), rel=1e-13)
    # Risk-averse play takes the sure 10.
    averse = solve(game, Objective("exponential", -0.2))
    assert game.actions[extract_policy(averse)[0]] == "sure"


def test_exponential_utility_is_stable_for_large_theta_and_scores():
    class Big:
        def initial_state(self):
            return 0

        def node(self, s):
            if s == 0:
                return Chance([(0.5, 300.0, 1), (0.5, 900.0, 1)])
            return Terminal(0.0)

    game = compile_game(Big())
    for theta in (-1.0, 1.0):
        ce = solve(game, Objective("exponential", theta)).value
        want = (theta * (300 if theta < 0 else 900) + math.log(0.5)) / theta
        assert np.isfinite(ce) and ce == pytest.approx(want, rel=1e-12)


def test_win_objective_player_one_minimises():
    class Duel:
        """Player 0 picks a coin (fair or 0.9); then player 1 may double-flip."""

        def initial_state(self):
            return "p0"

        def node(self, s):
            if s == "p0":
                return Decision([("fair", 0.0, ("p1", 0.5)), ("biased", 0.0, ("p1", 0.9))], 0)
            if s[0] == "p1":
                p = s[1]
                return Decision([("once", 0.0, ("flip", p)), ("twice", 0.0, ("flip", p * p))], 1)
            if s[0] == "flip":
                return Chance([(s[1], 0.0, "win"), (1 - s[1], 0.0, "lose")])
            return Terminal(1.0 if s == "win" else 0.0)

    game = compile_game(Duel())
    sol = solve(game, Objective("win"))
    assert sol.value == pytest.approx(0.81)
    policy = extract_policy(sol)
    assert game.actions[policy[game.state_id(("p1", 0.9))]] == "twice"


def test_policy_evaluation_and_never_ending_policy():
    game = compile_game(RerollD6())
    always_reroll = np.full(game.num_states, -1, dtype=np.int64)
    stick_on_six = always_reroll.copy()
    for s in range(game.num_states):
        if game.kind[s] == 2:
            always_reroll[s] = game.start[s] + 1
            stick_on_six[s] = game.start[s] + (0 if game.states[s][1] == 6 else 1)
    # Stick only on 6: V = 6 - 5 * (expected extra rolls 5) ... = 6 - 5 = 1.
    assert evaluate_policy(game, stick_on_six).value == pytest.approx(1.0, abs=1e-12)
    with pytest.raises(SolveError, match="residual"):
        evaluate_policy(game, always_reroll, max_sweeps=200)


def test_optimal_policy_ends_although_some_policy_never_does():
    # Free rerolls: waiting forever is possible, but the optimum (stick on 6) ends.
    sol = solve(compile_game(RerollD6(cost=0.0)))
    assert sol.value == pytest.approx(6.0, abs=1e-12)


def test_discount():
    sol = solve(compile_game(RerollD6()), discount=0.5)
    # The discount applies on every edge, the roll included: V = 0.5 * E[stick] = 1.75,
    # since rerolling is worth at most -1 + 0.5 * 1.75 < 1.
    assert sol.value == pytest.approx(1.75)
    with pytest.raises(InputError):
        solve(compile_game(RerollD6()), discount=1.5)


def test_simulation_agrees_with_exact_value():
    game = compile_game(RerollD6())
    sol = solve(game)
    totals = simulate(game, extract_policy(sol), 200_000, np.random.default_rng(7))
    se = totals.std(ddof=1) / math.sqrt(len(totals))
    assert abs(totals.mean() - sol.value) < 4 * se
    again = simulate(game, extract_policy(sol), 200_000, np.random.default_rng(7))
    assert (totals == again).all()


def test_bad_game_definitions_are_reported():
    class Bad:
        def initial_state(self):
            return 0

        def node(self, s):
            return Chance([(0.5, 0.0, 1), (0.4, 0.0, 1)]) if s == 0 else Terminal()

    with pytest.raises(InputError, match="sum to 0.9"):
        compile_game(Bad())
    with pytest.raises(InputError, match="unknown objective"):
        Objective("fastest")
