"""The generic engine on hand-computed games."""

import math

import numpy as np
import pytest

from diceopt.engine import (
    Chance,
    Decision,
    Handover,
    Objective,
    Terminal,
    action_values,
    advance,
    compile_arrays,
    compile_game,
    evaluate_policy,
    extract_policy,
    q_values,
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


# --- minimising, labels, hand-overs, walking -------------------------------------------


class CostD6:
    """Roll a d6 and pay its face (points, lower is better) or pay 1 to roll again."""

    def __init__(self, player=0):
        self.player = player

    def initial_state(self):
        return "roll"

    def node(self, s):
        if s == "roll":
            return Chance([(1 / 6, 0.0, ("die", f), f) for f in range(1, 7)])
        if s == "end":
            return Terminal(0.0)
        return Decision([("stick", s[1], "end"), ("reroll", 1.0, "roll")], self.player)


def test_minimise_objective():
    # Stick on 1..4, reroll 5 and 6: V = (1+2+3+4)/6 + (2/6)(V + 1)  =>  V = 3.
    game = compile_game(CostD6())
    sol = solve(game, Objective("expected", minimize=True))
    assert sol.value == pytest.approx(3.0, abs=1e-13)
    policy = extract_policy(sol)
    chosen = {game.states[s][1]: game.actions[policy[s]] for s in np.flatnonzero(policy >= 0)}
    assert chosen == {1: "stick", 2: "stick", 3: "stick", 4: "stick", 5: "reroll", 6: "reroll"}
    s6 = game.state_id(("die", 6))
    assert q_values(sol, s6) == pytest.approx([6.0, 4.0])
    assert regrets(sol, s6) == pytest.approx([2.0, 0.0], abs=1e-12)  # >= 0 although lower wins
    assert [(a.action, a.regret) for a in action_values(sol, s6)] == [
        ("stick", pytest.approx(2.0)),
        ("reroll", pytest.approx(0.0, abs=1e-12)),
    ]
    # the same game with an absolute-value "player 1" who minimises
    old = solve(compile_game(CostD6(player=1)))
    assert old.value == pytest.approx(sol.value, abs=1e-13)
    # evaluating a policy keeps the direction: always sticking is worth 3.5
    stick = np.where(game.kind == 2, game.start[:-1], -1)
    minimise = Objective("expected", minimize=True)
    assert evaluate_policy(game, stick, minimise).value == pytest.approx(3.5)


def test_labelled_chance_outcomes():
    class TwoCoins:
        def initial_state(self):
            return "toss"

        def node(self, s):
            if s == "toss":
                # labelled and unlabelled outcomes may mix in one node
                return Chance(
                    [
                        (0.25, 2.0, "two", ("H", "H")),
                        (0.5, 1.0, "one", ("H", "T")),
                        (0.25, 0.0, "none"),
                    ]
                )
            return Terminal(0.0)

    game = compile_game(TwoCoins())
    root = game.edges(0)
    assert [game.label(e) for e in root] == [("H", "H"), ("H", "T"), None]
    assert game.labels[root.start : root.stop] == [("H", "H"), ("H", "T"), None]
    assert len(game.labels) == game.num_edges
    assert solve(game).value == pytest.approx(1.0)
    # CostD6 labels its die faces 1..6
    d6 = compile_game(CostD6())
    faces = sorted(game_label for game_label in d6.labels if game_label is not None)
    assert faces == [1, 2, 3, 4, 5, 6]


def test_bad_outcome_tuple_is_reported():
    class Odd:
        def initial_state(self):
            return 0

        def node(self, s):
            return Chance([(1.0, 0.0)]) if s == 0 else Terminal()

    with pytest.raises(InputError, match="chance outcome"):
        compile_game(Odd())


def test_bad_decision_edge_is_reported():
    # a decision edge is (action, reward, next_state): no label, no missing entry
    class Odd:
        def __init__(self, edge):
            self.edge = edge

        def initial_state(self):
            return 0

        def node(self, s):
            return Decision([self.edge]) if s == 0 else Terminal()

    for edge in [("go", 0.0), ("go", 0.0, 1, "label")]:
        with pytest.raises(InputError, match=r"^a decision edge is \(action, reward, next_state\)"):
            compile_game(Odd(edge))


class RiskyDuel:
    """Players alternate; first to win a coin wins the game.

    On a turn the mover plays ``safe`` (wins with 1/3, else the turn passes) or
    ``risky`` (wins with 1/2, loses at once with 1/6, else the turn passes); the first
    player's very first turn must be safe. ``mover_view`` writes it with hand-over
    edges, otherwise with absolute values (player 0's win probability, player 1 moves
    on its turns).
    """

    def __init__(self, mover_view):
        self.mover_view = mover_view

    def initial_state(self):
        return ("opening", 0)

    def node(self, s):
        if self.mover_view:
            if s == "won":
                return Terminal(1.0)
            if s == "lost":
                return Terminal(0.0)
            what, _ = s
            if what == "opening":
                return Decision([("safe", 0.0, ("safe", 0))])
            if what == "turn":
                return Decision([("safe", 0.0, ("safe", 0)), ("risky", 0.0, ("risky", 0))])
            nxt = Handover(("turn", 0))
            if what == "safe":
                return Chance([(1 / 3, 0.0, "won", "win"), (2 / 3, 0.0, nxt, "miss")])
            return Chance(
                [
                    (1 / 2, 0.0, "won", "win"),
                    (1 / 6, 0.0, "lost", "bust"),
                    (1 / 3, 0.0, nxt, "miss"),
                ]
            )
        if s in ("win0", "win1"):
            return Terminal(1.0 if s == "win0" else 0.0)
        what, p = s
        mine, theirs = ("win0", "win1") if p == 0 else ("win1", "win0")
        if what == "opening":
            return Decision([("safe", 0.0, ("safe", p))], p)
        if what == "turn":
            return Decision([("safe", 0.0, ("safe", p)), ("risky", 0.0, ("risky", p))], p)
        nxt = ("turn", 1 - p)
        if what == "safe":
            return Chance([(1 / 3, 0.0, mine, "win"), (2 / 3, 0.0, nxt, "miss")])
        return Chance(
            [(1 / 2, 0.0, mine, "win"), (1 / 6, 0.0, theirs, "bust"), (1 / 3, 0.0, nxt, "miss")]
        )


def test_two_player_mover_view_equals_absolute_values():
    # Mover's value x at the start of a turn: risky gives 1/2 + (1/3)(1 - x), safe
    # 1/3 + (2/3)(1 - x). Risky's fixed point x = 5/8 beats safe there (7/12 < 5/8).
    # The first player must open safe: 1/3 + (2/3)(1 - 5/8) = 7/12.
    mover = compile_game(RiskyDuel(mover_view=True))
    absolute = compile_game(RiskyDuel(mover_view=False))
    assert mover.has_flips and not absolute.has_flips
    assert mover.num_states < absolute.num_states
    win = Objective("win")
    a, b = solve(mover, win), solve(absolute, win)
    assert a.value == pytest.approx(7 / 12, abs=1e-13)
    assert b.value == pytest.approx(7 / 12, abs=1e-13)
    turn = mover.state_id(("turn", 0))
    assert a.values[turn] == pytest.approx(5 / 8, abs=1e-13)
    assert b.values[absolute.state_id(("turn", 1))] == pytest.approx(1 - 5 / 8, abs=1e-13)
    options = action_values(a, turn)
    assert [o.action for o in options] == ["safe", "risky"]
    assert options[0].value == pytest.approx(7 / 12) and options[0].regret == pytest.approx(1 / 24)
    assert options[1].regret == pytest.approx(0.0, abs=1e-12)
    policy = extract_policy(a)
    assert mover.actions[policy[turn]] == "risky"
    # policy evaluation across hand-overs: both always safe, x = 1/3 + (2/3)(1 - x) = 3/5
    safe = np.where(mover.kind == 2, mover.start[:-1], -1)
    assert evaluate_policy(mover, safe, win).values[turn] == pytest.approx(3 / 5, abs=1e-13)
    # simulation reports the first player's wins although values are the mover's
    totals = simulate(mover, policy, 100_000, np.random.default_rng(11), objective=win)
    se = totals.std(ddof=1) / math.sqrt(totals.size)
    assert abs(totals.mean() - 7 / 12) < 4 * se
    with pytest.raises(InputError, match="zero-sum"):
        solve(mover, Objective("exponential", 0.1))


def test_hand_over_with_points_is_zero_sum():
    class Exchange:
        """The first player scores 3 and passes; the second scores 1 and the game ends."""

        def initial_state(self):
            return "first"

        def node(self, s):
            if s == "first":
                return Decision([("take", 3.0, Handover("second"))])
            if s == "second":
                return Decision([("take", 1.0, "end"), ("give", -2.0, "end")])
            return Terminal(0.0)

    game = compile_game(Exchange())
    sol = solve(game)
    assert sol.value == 2.0 and sol.values[game.state_id("second")] == 1.0
    totals = simulate(game, extract_policy(sol), 3, np.random.default_rng(0), objective=Objective())
    assert totals.tolist() == [2.0, 2.0, 2.0]
    with pytest.raises(InputError, match="needs its objective"):
        simulate(game, extract_policy(sol), 3, np.random.default_rng(0))


def test_advance_walks_the_rules_with_labels():
    game = compile_game(RiskyDuel(mover_view=True))
    turn = game.state_id(("turn", 0))
    risky = next(e for e in game.edges(turn) if game.actions[e] == "risky")

    def walk(seed):
        rng = np.random.default_rng(seed)
        return [advance(game, turn, risky, rng) for _ in range(50)]

    steps = walk(5)
    assert steps == walk(5)
    seen = {st.labels for st in steps}
    assert seen == {("win",), ("bust",), ("miss",)}
    for st in steps:
        assert st.edges[0] == risky and len(st.edges) == 2
        if st.labels == ("miss",):
            assert st.node == turn and st.flips == 1 and st.handed_over
        else:
            assert game.kind[st.node] == 0 and st.flips == 0
            assert game.states[st.node] == ("won" if st.labels == ("win",) else "lost")
    with pytest.raises(InputError, match="not an action"):
        advance(game, turn, 0, np.random.default_rng(0))

    class PassThenRoll:
        """Player 1 passes; player 2's turn starts with a coin toss."""

        def initial_state(self):
            return "pass"

        def node(self, s):
            if s == "pass":
                return Decision([("pass", 0.0, Handover("toss"))])
            if s == "toss":
                return Chance([(0.5, 0.0, "end", "heads"), (0.5, 0.0, "end", "tails")])
            return Terminal(0.5)

    g = compile_game(PassThenRoll())
    through = advance(g, 0, 0, np.random.default_rng(1))
    assert g.states[through.node] == "end" and len(through.labels) == 1 and through.flips == 1
    # stopping at the hand-over leaves the next player's first roll to them
    stopped = advance(g, 0, 0, np.random.default_rng(1), stop_on_handover=True)
    assert g.states[stopped.node] == "toss" and stopped.labels == () and stopped.handed_over
    # a walk may also start at a chance node: CostD6 rolls once and stops at a decision
    d6 = compile_game(CostD6())
    st = advance(d6, 0, None, np.random.default_rng(2))
    assert d6.states[st.node] == ("die", st.labels[0]) and st.reward == 0.0


def test_compile_arrays_builds_and_validates():
    # the Lottery game by hand: 0 choose -> (sure 10 -> 2) | (gamble -> 1); 1 flip -> 2 | 3
    kind = np.array([2, 1, 0, 0])
    start = np.array([0, 2, 4, 4, 4])
    target = np.array([2, 1, 2, 3])
    prob = np.array([0.0, 0.0, 0.5, 0.5])
    game = compile_arrays(
        kind,
        start,
        target,
        prob,
        reward=np.array([10.0, 0, 0, 0]),
        terminal_value=np.array([0.0, 0, 0, 25]),
        label_code=np.array([-1, -1, 0, 1]),
        label_table=["tails", "heads"],
    )
    assert solve(game).value == 12.5 and game.label(3) == "heads" and game.label(0) is None
    with pytest.raises(InputError, match="summing to 1"):
        compile_arrays(kind, start, target, np.array([0.0, 0.0, 0.5, 0.4]))
    with pytest.raises(InputError, match="outside"):
        compile_arrays(kind, start, np.array([2, 1, 2, 9]), prob)
