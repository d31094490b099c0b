"""Shut the Box on the generic engine: hand-computed values, an independent exact recursion,
seeded simulation, the two-player comparison, the game contract (positions, advice, play
by walking the solved graph), the CLI, and bad input."""

import itertools
import json
from fractions import Fraction
from functools import cache

import numpy as np
import pytest
from cli_status import exit_status

from diceopt.advice import ActionAdvice
from diceopt.cli import main
from diceopt.engine import compile_game, evaluate_policy
from diceopt.errors import InputError
from diceopt.games.registry import get_game
from diceopt.games.shutbox import SPEC
from diceopt.games.shutbox import solve as shut_solve
from diceopt.games.shutbox.duel import differing_positions, duel_report, score_policy_in
from diceopt.games.shutbox.game import ShutGame
from diceopt.games.shutbox.position import ShutPosition, position_of_state
from diceopt.games.shutbox.rules import (
    DICE_RULES,
    OBJECTIVES,
    UNITS,
    ShutRules,
    mask_of,
    tiles_of,
    variant_of,
)
from diceopt.games.shutbox.solve import solve_shutbox, solved, table_key
from diceopt.simulate import simulate

RULES = ("two-then-one", "optional-one", "always-two")
RULE = "two-then-one"

# --- an independent exact recursion (fractions, frozensets; no engine) ------------------

ONE = [(r, Fraction(1, 6)) for r in range(1, 7)]
TWO = [(s, Fraction(6 - abs(s - 7), 36)) for s in range(2, 13)]


def ref_dice(open_tiles, rule):
    if rule == "always-two" or sum(open_tiles) > 6:
        return [TWO]
    return [ONE] if rule == "two-then-one" else [ONE, TWO]


def ref_moves(open_tiles, roll):
    return [
        frozenset(c)
        for k in range(1, len(open_tiles) + 1)
        for c in itertools.combinations(sorted(open_tiles), k)
        if sum(c) == roll
    ]


@cache
def ref_turn(open_tiles, rule, utility, minimise):
    """Value of the rest of a turn: utility(final open sum), mover min- or maximising."""
    pick = min if minimise else max
    if not open_tiles:
        return utility(0)
    options = []
    for dist in ref_dice(open_tiles, rule):
        total = Fraction(0)
        for roll, p in dist:
            moves = ref_moves(open_tiles, roll)
            if not moves:
                total += p * utility(sum(open_tiles))
            else:
                total += p * pick(ref_turn(open_tiles - m, rule, utility, minimise) for m in moves)
        options.append(total)
    return pick(options)


def score_utility(s):
    return Fraction(s)


def shut_utility(s):
    return Fraction(int(s == 0))


@cache
def p2_utility(t):
    """Player 1's share when player 2 ends with u against target t."""

    def u(s):
        return Fraction(1) if s > t else Fraction(1, 2) if s == t else Fraction(0)

    return u


def reference(tiles, rule, objective):
    full = frozenset(range(1, tiles + 1))
    if objective == "score":
        return ref_turn(full, rule, score_utility, True)
    if objective == "shut":
        return ref_turn(full, rule, shut_utility, False)

    @cache
    def p1_end(t):
        return Fraction(1) if t == 0 else ref_turn(full, rule, p2_utility(t), True)

    return ref_turn(full, rule, p1_end, False)


# --- hand-computed values ---------------------------------------------------------------

HAND = {
    # one tile, one die (sum 1 <= 6): shut iff the die shows 1
    (1, "two-then-one", "score"): Fraction(5, 6),
    (1, "two-then-one", "shut"): Fraction(1, 6),
    # player 1 shuts (1/6) or scores 1; then player 2 shuts (1/6, wins) or draws
    (1, "two-then-one", "win"): Fraction(1, 6) + Fraction(5, 6) * Fraction(5, 6) / 2,
    # always two dice: a lone 1 can never be shut; both players score 1: a draw
    (1, "always-two", "score"): Fraction(1),
    (1, "always-two", "shut"): Fraction(0),
    (1, "always-two", "win"): Fraction(1, 2),
    # tiles {1,2}, one die: 1 -> {2} (then 2 shuts), 2 -> {1} (then 1 shuts), 3 shuts,
    # 4..6 end with 3: E = (5/6*2)/6 + (5/6*1)/6 + 3*3/6 = 23/12; P(shut) = 2/36 + 6/36
    (2, "two-then-one", "score"): Fraction(23, 12),
    (2, "two-then-one", "shut"): Fraction(2, 9),
    # scores 0,1,2,3 w.p. 8,5,5,18 /36 for each player (no real choices):
    # 8/36 + 5/36*(23+2.5)/36 + 5/36*(18+2.5)/36 + 18/36*9/36 = 680/1296
    (2, "two-then-one", "win"): Fraction(680, 1296),
    # two dice on {1,2}: 2 shuts tile 2 (1 stays), 3 shuts both, else 3 stays
    (2, "always-two", "score"): Fraction(1, 36) + 3 * Fraction(33, 36),
    (2, "always-two", "shut"): Fraction(2, 36),
    # tiles {1,2,3}, one die throughout; see the hand derivation in the issue notes:
    # E({2,3}) = 115/36, E({1,3}) = 23/9, E({1,2}) = 23/12, E({3}) = 5/2, E({2}) = 5/3,
    # E({1}) = 5/6; roll 3 shuts 3 (keeps {1,2}); E = (115/36+23/9+23/12+5/3+5/6)/6 = 61/36
    (3, "two-then-one", "score"): Fraction(61, 36),
    (3, "two-then-one", "shut"): Fraction(1, 3),
}


# --- helpers --------------------------------------------------------------------------


def advise(position, variant=None):
    """The spec's advice of a position (text or JSON) as a list, best first."""
    rules = SPEC.rules(variant)
    return SPEC.advise(rules, SPEC.parse(rules, position)).actions


def apply(position, action, variant=None, rng=None):
    """The spec's Step after an action in a position (text)."""
    rules = SPEC.rules(variant)
    rng = rng if rng is not None else np.random.default_rng(0)
    return SPEC.apply(rules, SPEC.parse(rules, position), action, rng)


# --- exact values -----------------------------------------------------------------------


@pytest.mark.parametrize("key", sorted(HAND))
def test_hand_computed_values(key):
    tiles, rule, objective = key
    assert solve_shutbox(ShutRules(tiles, rule, objective)).value == pytest.approx(
        float(HAND[key]), abs=1e-12
    )
    assert reference(tiles, rule, objective) == HAND[key]


def test_optional_one_never_beats_one_die_on_small_boxes():
    # with <= 6 open one die is the better choice, so the values match two-then-one
    for tiles in (1, 2, 3):
        for objective in ("score", "shut", "win"):
            a = solve_shutbox(ShutRules(tiles, "optional-one", objective)).value
            b = solve_shutbox(ShutRules(tiles, "two-then-one", objective)).value
            assert a == pytest.approx(b, abs=1e-12)


RECURSION_CASES = [
    (tiles, rule, objective)
    for tiles in (1, 2, 3, 4, 5)
    for rule in RULES
    for objective in ("score", "shut", "win")
    if not (tiles == 5 and objective == "win" and rule != RULE)  # one 5-tile duel suffices
]


@pytest.mark.parametrize(("tiles", "rule", "objective"), RECURSION_CASES)
def test_engine_matches_independent_recursion(tiles, rule, objective):
    got = solve_shutbox(ShutRules(tiles, rule, objective)).value
    assert got == pytest.approx(float(reference(tiles, rule, objective)), abs=1e-12)


def test_nine_tiles_match_the_exact_fraction_recursion():
    score = solved(ShutRules())
    shut, win = solved(ShutRules(objective="shut")), solved(ShutRules(objective="win"))
    assert score.graph.acyclic and win.graph.acyclic
    for sol, objective in ((score, "score"), (shut, "shut"), (win, "win")):
        exact = reference(9, "two-then-one", objective)
        assert sol.value == pytest.approx(float(exact), abs=1e-12)
    # one die at 6 or less helps: always rolling two dice gives a higher expected score
    assert score.value < solved(ShutRules(9, "always-two")).value


def test_published_values_are_unchanged():
    assert solved(ShutRules()).value == pytest.approx(11.021120546, abs=5e-10)
    assert solved(ShutRules(objective="shut")).value == pytest.approx(0.097613716, abs=5e-10)
    assert solved(ShutRules(objective="win")).value == pytest.approx(0.502810354, abs=5e-10)
    rows = differing_positions(ShutRules())
    assert len(rows) == 1905
    assert sum(r["player"] == 1 for r in rows) == 21


def test_score_objective_minimises_explicitly():
    sol = solved(ShutRules(4))
    assert sol.solution.objective.minimize and sol.solution.objective.kind == "expected"
    assert (sol.graph.player[sol.graph.kind == 2] == 0).all()  # no second player posing


def test_twelve_tiles_one_player_solves():
    sol = solved(ShutRules(12))
    assert sol.graph.acyclic and sol.graph.num_states > 10_000
    assert 30.0 < sol.value < 40.0


# --- simulation -----------------------------------------------------------------------


@pytest.mark.parametrize("objective", ["score", "shut", "win"])
def test_exact_value_matches_seeded_simulation(objective):
    sol = solved(ShutRules(9, objective=objective))
    totals = simulate(sol.graph, sol.policy, 20_000, np.random.default_rng(7))
    se = totals.std(ddof=1) / np.sqrt(totals.size)
    assert abs(totals.mean() - sol.value) < 4 * se


def test_spec_simulate_uses_the_engine_simulator():
    rules = SPEC.rules("win")
    report = SPEC.simulate(rules, 5_000, np.random.default_rng(3))
    assert report.data["games"] == 5_000 and report.data["exact"] == pytest.approx(0.502810354)
    assert abs(report.value - report.data["exact"]) < 4 * report.data["std_error"]
    assert "expected wins" in report.lines[1]


# --- two players: win-optimal versus score-optimal ------------------------------------


@pytest.fixture(scope="module")
def report():
    return duel_report(ShutRules(9))


def test_duel_report_gains_and_costs(report):
    r = report
    assert r["both_win_optimal"] == pytest.approx(solved(ShutRules(9, objective="win")).value)
    assert r["p1_gain"] > 0 and r["p2_gain"] > 0
    assert r["p1_score_given_up"] > 0 and r["p2_score_given_up"] > 0
    assert r["p1_expected_score_score_policy"] == pytest.approx(solved(ShutRules(9)).value)
    # player 1 best-replying to a score-playing player 2 does at least as well
    assert r["p2_score_optimal_p1_best_reply"] >= r["p2_score_optimal"] - 1e-12
    assert 0.05 < r["p1_shuts"] < 0.15


def test_score_policy_evaluation_matches_recursion_on_small_duel():
    # both players score-optimal on 4 tiles: engine policy evaluation vs a direct recursion
    win, score = solved(ShutRules(4, objective="win")), solved(ShutRules(4))
    choice = score_policy_in(win, score)
    both_score = evaluate_policy(win.graph, choice).value
    full = frozenset(range(1, 5))
    # under score play the end-score distribution is the same for both players
    dist = {}

    def walk(open_tiles, p):
        for roll, q in ref_dice(open_tiles, "two-then-one")[0]:
            moves = ref_moves(open_tiles, roll)
            if not moves:
                s = sum(open_tiles)
                dist[s] = dist.get(s, 0) + p * q
                continue
            best = min(
                moves, key=lambda m: ref_turn(open_tiles - m, "two-then-one", score_utility, True)
            )
            left = open_tiles - best
            if not left:
                dist[0] = dist.get(0, 0) + p * q
            else:
                walk(left, p * q)

    walk(full, Fraction(1))
    # ties between score-equal moves could differ; check the expected score first
    assert sum(s * p for s, p in dist.items()) == ref_turn(
        full, "two-then-one", score_utility, True
    )
    expected = dist.get(0, 0) + sum(
        pt * sum(pu * (1 if u > t else Fraction(1, 2) if u == t else 0) for u, pu in dist.items())
        for t, pt in dist.items()
        if t > 0
    )
    assert both_score == pytest.approx(float(expected), abs=1e-12)


def test_differing_positions_are_real_differences():
    rows = differing_positions(ShutRules(9))
    assert any(r["player"] == 1 for r in rows) and any(r["player"] == 2 for r in rows)
    for r in rows[:20] + [r for r in rows if r["player"] == 1][:5]:
        assert r["win_move"] != r["score_move"] and r["win_lost"] > 0
        assert r["score_given_up"] >= 0
        options = advise(r["position"], "two-then-one/win")
        assert options[0].action == r["win_move"]
        values = {a.action: a.value for a in options}
        assert values[r["score_move"]] == pytest.approx(r["score_move_win_value"], abs=1e-12)
        one = advise(r["position"].split(" | target")[0], "two-then-one/score")
        assert r["score_move"] == one[0].action


# --- the game contract: rules, variants, positions ---------------------------------------


def test_registered_spec_and_parameters():
    assert get_game("ShutBox") is SPEC and SPEC.title == "Shut the Box"
    choices = {p.name: p.choices for p in SPEC.parameters}
    assert choices["dice_rule"] == DICE_RULES and choices["objective"] == OBJECTIVES
    assert SPEC.rules() == ShutRules(9, "two-then-one", "score")
    assert SPEC.rules(players=2) == ShutRules(objective="win")
    assert SPEC.rules("OPTIONAL-ONE/Win", tiles=5) == ShutRules(5, "optional-one", "win")
    assert SPEC.players_of(SPEC.rules("win")) == 2 and SPEC.players_of(SPEC.rules()) == 1
    assert SPEC.lower_is_better_of(SPEC.rules()) and not SPEC.lower_is_better_of(SPEC.rules("shut"))
    assert "lower is better" in SPEC.units_of(SPEC.rules())
    assert "shutting" in SPEC.units_of(SPEC.rules("shut"))


def test_variants_and_example():
    assert next(iter(SPEC.variants)) == "two-then-one/score"
    for variant in SPEC.variants:
        rules = SPEC.rules(variant)
        assert rules.tiles == 9 and rules.objective in ("score", "shut", "win")
        assert SPEC.rules(variant.upper()) == rules  # names are case-insensitive
    options = advise(SPEC.position_example)
    assert all(isinstance(o, ActionAdvice) for o in options)
    assert options[0].regret == 0 and all(o.regret >= 0 for o in options)
    assert [o.value for o in options] == sorted(o.value for o in options)  # lower is better
    shut = advise(SPEC.position_example, "shut")
    assert [o.value for o in shut] == sorted((o.value for o in shut), reverse=True)
    assert variant_of("win/always-two/5") == ShutRules(5, "always-two", "win")


def test_json_position_is_accepted():
    text = advise("open 1 3 4 7 | roll 8")
    assert advise({"open": [1, 3, 4, 7], "roll": 8}) == text
    assert advise('{"open":[1,3,4,7],"roll":8}') == text
    p2 = advise('{"open": [1, 3, 4, 7, 9], "roll": 8, "target": 16}', "win")
    assert p2 == advise("open 1 3 4 7 9 | roll 8 | target 16", "win")
    assert advise({"open": [1, 2, 3], "roll": None}, "optional-one") == advise(
        "open 1 2 3", "optional-one"
    )


def _all_positions(rules):
    """Every decision position of the solved graph, plus before-roll and final ones."""
    g = solved(rules).graph
    out = []
    for s, state in enumerate(g.states):
        if g.kind[s] == 2 or state[0] in ("turn", "turn2"):
            out.append(position_of_state(state))
    out += [ShutPosition(0), ShutPosition(rules.full, 2)]
    if rules.objective == "win":
        out.append(ShutPosition(0, None, 5))
    return out


@pytest.mark.parametrize("variant", ["score", "optional-one/shut/6", "win/5", "always-two/win"])
def test_positions_round_trip(variant):
    rules = SPEC.rules(variant)
    positions = _all_positions(rules)
    assert len(positions) > 20
    for pos in positions:
        assert SPEC.parse(rules, SPEC.format(rules, pos)) == pos
        assert SPEC.parse_json(rules, SPEC.to_json(rules, pos)) == pos
        assert SPEC.parse(rules, json.dumps(SPEC.to_json(rules, pos))) == pos


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"roll": 8}, "needs the open tiles"),
        ({"open": "1 3", "roll": 8}, "must be a list"),
        ({"open": [1, True], "roll": 8}, "not a whole number"),
        ({"open": [1, 3], "roll": 4.5}, "not a whole number"),
        ({"open": [1, 3], "dice": [1, 3]}, "unknown field 'dice'"),
        ({"open": [1, 3, 4, 7], "roll": 13}, "roll 13 is impossible"),
        ({"open": [1, 3], "target": 3}, "two-player game"),
        ({"open": [], "roll": 3}, "box is shut"),
    ],
)
def test_bad_json_positions_raise_one_line(data, message):
    with pytest.raises(InputError, match=message):
        advise(data)


def test_advise_values_match_engine_states():
    score = solved(ShutRules())
    options = advise("open 1 3 4 7 | roll 8")
    assert {o.action for o in options} == {"shut 1 7", "shut 1 3 4"}
    state_value = score.solution.values[score.graph.state_id(("roll", mask_of([1, 3, 4, 7]), 8))]
    assert options[0].value == pytest.approx(state_value)
    # player 2 values are player 2's expected wins
    rules = ShutRules(objective="win")
    p2 = advise("open 1 2 3 4 5 6 7 8 9 | roll 7 | target 20", "win")
    win = solved(rules)
    node = win.graph.state_id(("roll2", rules.full, 7, 20))
    assert p2[0].value == pytest.approx(1 - win.solution.values[node])
    # a target above the open tiles: player 2 has already won
    assert all(o.value == 1.0 for o in advise("open 1 3 4 7 | roll 8 | target 16", "win"))
    assert all(o.value == 1.0 for o in advise("open 1 3 | roll 5 | target 16", "win"))


def test_advise_before_the_roll_and_without_moves():
    first = advise("open 1 2 3 4 5 6 7 8 9", "win")
    assert [o.action for o in first] == ["roll"]
    assert first[0].value == pytest.approx(solved(ShutRules(objective="win")).value)
    choice = advise("open 1 2 3", "optional-one/shut")
    assert [o.action for o in choice] == ["roll one die", "roll two dice"]
    stuck = advise("open 1 2 | roll 6")
    assert [(o.action, o.value) for o in stuck] == [("end turn", 3.0)]
    with pytest.raises(InputError, match="game is over"):
        advise("open none")


def test_unreachable_positions_are_solved_on_demand():
    # tile 1 alone can never be the first tile shut with two dice: unreachable from the start
    options = advise("open 2 3 4 5 6 7 8 9 | roll 5")
    direct = solve_shutbox(ShutRules(), start=("turn", mask_of([2, 3, 4, 6, 7, 8, 9])))
    assert options[0].action == "shut 5" and options[0].value == pytest.approx(direct.value)
    step = apply("open 2 3 4 5 6 7 8 9 | roll 5", "shut 5")
    assert step.events and step.events[0].startswith("rolled")


# --- play: apply walks the solved graph -------------------------------------------------


def _roll_of(event):
    """The roll of an event ``[player N ]rolled R[: ...]``, or None."""
    words = event.split(":")[0].split()
    return int(words[words.index("rolled") + 1]) if "rolled" in words else None


def replay_check(variant, seed, games=5):
    """Seeded games of best play through ``apply``, each step checked against the rules
    replayed independently (frozensets, ``ref_moves``) with the rolls the events report."""
    rules = SPEC.rules(variant)
    rng = np.random.default_rng(seed)
    trace = []
    for _ in range(games):
        pos = SPEC.new_position(rules, rng)
        for _ in range(200):
            action = SPEC.advise(rules, pos).best.action
            step = SPEC.apply(rules, pos, action, rng)
            trace.append((SPEC.format(rules, pos), action, SPEC.format(rules, step.position)))
            # the independent replay
            open_tiles = frozenset(tiles_of(pos.open))
            target, roll, result = pos.target, None, None
            if action.startswith("shut"):
                open_tiles -= {int(t) for t in action.split()[1:]}
            rolls = [r for r in (_roll_of(e) for e in step.events) if r is not None]

            def turn_over(score):
                nonlocal open_tiles, target, result
                if rules.objective != "win":
                    result = float(score) if rules.objective == "score" else float(score == 0)
                elif target is None and score == 0:
                    result = 1.0
                elif target is None:
                    open_tiles, target = frozenset(range(1, rules.tiles + 1)), score
                else:
                    result = 1.0 if score > target else 0.5 if score == target else 0.0

            if action == "end turn":
                turn_over(sum(open_tiles))
            elif action.startswith("shut") and not open_tiles:
                turn_over(0)
            if target is not None and sum(open_tiles) < target:
                result = 0.0
            for r in rolls:
                assert result is None and roll is None
                moves = ref_moves(open_tiles, r)
                if not moves:
                    turn_over(sum(open_tiles))
                    roll = r if result is not None else None
                elif len(moves) == 1:
                    open_tiles -= moves[0]
                    if not open_tiles:
                        turn_over(0)
                    elif target is not None and sum(open_tiles) < target:
                        result = 0.0
                else:
                    roll = r
            assert step.game_over == (result is not None)
            new = step.position
            assert frozenset(tiles_of(new.open)) == open_tiles
            assert new.target == target and step.to_move == (target is not None)
            if result is not None:
                assert step.result == result
                break
            assert new.roll == roll  # a decision follows (or the dice are chosen)
            if roll is None:
                assert len(rules.dice_options(new.open)) == 2
            else:
                assert len(ref_moves(open_tiles, roll)) >= 2
            pos = new
        else:
            pytest.fail("game did not end")
    return trace


@pytest.mark.parametrize(
    "variant", ["score", "shut", "win", "optional-one/score/6", "optional-one/win/5", "win/3"]
)
def test_apply_walks_the_graph_like_the_rules(variant):
    first = replay_check(variant, seed=11)
    assert first == replay_check(variant, seed=11)  # seeded: the same games again
    assert first != replay_check(variant, seed=12)


def test_seeded_two_player_game_is_reproduced():
    rules = SPEC.rules("win")
    rng = np.random.default_rng(3)
    pos = SPEC.new_position(rules, rng)
    assert SPEC.format(rules, pos) == "open 1 2 3 4 5 6 7 8 9 | roll 4"
    seen = []
    while True:
        step = SPEC.apply(rules, pos, SPEC.advise(rules, pos).best.action, rng)
        seen += step.events
        if step.game_over:
            break
        pos = step.position
    assert seen[3] == "player 1 rolled 4: shut 1 3 (the only move)"
    assert seen[4] == (
        "player 1 rolled 7: no tiles sum to it, player 1's turn ends with score 16; "
        "player 2 plays to beat it"
    )
    assert seen[-1] == (
        "player 2 rolled 6: shut 6 (the only move), player 2's open tiles sum to 15, "
        "less than 16: player 2 wins"
    )
    assert step.result == 0.0 and SPEC.format(rules, step.position) == "open 2 5 8 | target 16"


def test_apply_events_and_results():
    step = apply("open 1 2 | roll 6", "end turn")
    assert step.game_over and step.result == 3.0
    assert step.events == ("the turn ends with score 3",)
    assert SPEC.format(SPEC.rules(), step.position) == "open 1 2 | roll 6"
    step = apply("open 2 | roll 2", "shut 2")
    assert step.game_over and step.result == 0.0 and step.position == ShutPosition(0)
    assert step.events == ("the box is shut: score 0",)
    step = apply("open 3 | roll 3", "shut 3", "win")
    assert step.game_over and step.result == 1.0
    assert step.events == ("player 1 shut the box and wins",)
    step = apply("open 3 | roll 3 | target 2", "shut 3", "win")
    assert step.game_over and step.result == 0.0 and step.to_move == 1
    step = apply("open 2 5 | roll 11 | target 7", "end turn", "win")
    assert step.game_over and step.result == 0.5
    assert step.events == ("player 2's turn ends with score 7 against 7: a draw",)
    # player 1's turn ending passes the turn: player 2 rolls, with player 1's score as target
    step = apply("open 1 2 | roll 6", "end turn", "win")
    assert not step.game_over and step.position.target == 3 and step.to_move == 1
    assert step.events[0].startswith("player 1's turn ends with score 3")
    assert step.events[1].startswith("player 2 rolled")


def test_new_position_and_dice_choice():
    rules = SPEC.rules()
    pos = SPEC.new_position(rules, np.random.default_rng(0))
    assert pos.open == rules.full and pos.roll in range(2, 13) and pos.target is None
    small = SPEC.rules("optional-one/3")
    assert SPEC.new_position(small, np.random.default_rng(0)) == ShutPosition(small.full)
    step = apply("open 1 2 3", "one die", "optional-one/score", np.random.default_rng(5))
    assert step.events and 1 <= _roll_of(step.events[0]) <= 6
    with pytest.raises(InputError, match="choose 'roll one die' or 'roll two dice'"):
        apply("open 1 2 3", "roll", "optional-one/score")
    assert SPEC.canonical_action(small, ShutPosition(3), "Two") == "roll two dice"
    assert SPEC.canonical_action(rules, ShutPosition(rules.full), "roll two dice") == "roll"
    assert SPEC.canonical_action(rules, ShutPosition(rules.full, 8), "7 1") == "shut 1 7"


# --- bad input ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("position", "variant", "message"),
    [
        ("open 1 3 10 | roll 4", None, "tile 10 is not on a box"),
        ("open 0 3 | roll 3", None, "tile 0 is not on a box"),
        ("open 1 3 4 7 | roll 13", None, "roll 13 is impossible"),
        ("open 1 3 4 7 | roll 1", None, "roll 1 is impossible"),
        ("open 1 2 | roll 8", None, "roll 8 is impossible"),
        ("open 1 2 | roll 1", "always-two/score", "rolls two dice"),
        ("open 1 3 | roll 13", "optional-one/score", "roll 13 is impossible"),
        ("open 1 1 2 | roll 3", None, "listed twice"),
        ("open 1 3 | roll 4 | target 5", "score", "two-player game"),
        ("open 1 3 | roll 4 | target -3", "win", "target must be"),
        ("open 1 3 | roll 4 | target 0", "win", "player 1 has won"),
        ("open 1 3 | dice 4", None, "cannot read"),
        ("roll 4", None, "needs the open tiles"),
        ("open x | roll 4", None, "not a whole number"),
        ("open none | roll 4", None, "box is shut"),
        ("open 1 3 | roll 4", "two-then-one/best", "unknown shutbox variant"),
        ("open 1 3 | roll 4", "score/13", "1 to 12"),
    ],
)
def test_bad_positions_raise_one_line(position, variant, message):
    with pytest.raises(InputError, match=message) as exc:
        advise(position, variant)
    assert "\n" not in str(exc.value)


@pytest.mark.parametrize(
    ("action", "message"),
    [
        ("shut 2 6", "tile 2 is not open"),
        ("shut 1 4", "not the roll 8"),
        ("shut 12", "tile 12 is not open"),
        ("shut", "name the tiles"),
        ("roll", "not a whole number"),
        ("end turn", "can be shut"),
    ],
)
def test_bad_moves_raise(action, message):
    with pytest.raises(InputError, match=message):
        apply("open 1 3 4 7 | roll 8", action)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["solve", "--tiles", "13"], "tiles must be 1 to 12"),
        (["solve", "--tiles", "0"], "tiles must be 1 to 12"),
        (["solve", "--players", "2", "--objective", "score"], "use --objective win"),
        (["solve", "--players", "1", "--objective", "win"], "use --players 2"),
        (["advise", "open 1 3 4 7 | roll 13"], "roll 13 is impossible"),
        (["advise", "open 2 4 | roll 7", "--objective", "score"], "rolls one die"),
        (["advise", "open 1 3 4 7 | roll 8 | target 16"], "--objective win"),
        (["advise", "open 1 3 4 7 | roll 8 | target x", "--players", "2"], "not a whole number"),
        (["advise", "open 1 3 4 7 | roll 8", "--tiles", "5"], "tile 7 is not on a box"),
        (["advise", '{"open": [1, 3], "roll": 4, "x": 1}'], "unknown field 'x'"),
        (["diff", "--limit", "-1"], "--limit"),
    ],
)
def test_cli_bad_input_one_line_exit_2(argv, message, capsys):
    assert exit_status(["shutbox", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


# --- the CLI --------------------------------------------------------------------------


def test_cli_solve_json(capsys):
    assert main(["shutbox", "solve", "--tiles", "3", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["value"] == pytest.approx(61 / 36) and data["seconds"] >= 0 and data["states"] > 0
    assert main(["shutbox", "solve", "--tiles", "3", "--objective", "shut", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["value"] == pytest.approx(1 / 3) and data["units"] == UNITS["shut"]
    assert main(["shutbox", "solve", "--tiles", "2", "--players", "2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["value"] == pytest.approx(680 / 1296) and "comparison" in data
    assert data["players"] == 2 and data["objective"] == "win"
    assert main(["shutbox", "solve", "--tiles", "4", "--policy", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["policy"] and {"position", "move", "value"} <= set(data["policy"][0])


def test_cli_solve_text_two_players(capsys):
    assert main(["shutbox", "solve", "--variant", "win"]) == 0
    out = capsys.readouterr().out
    assert "player 1's expected wins, both players win-optimal: 0.502810354" in out
    assert "both play score-optimal" in out and "expected score given up" in out


def test_cli_policy_sorts_rolls_numerically(capsys):
    assert main(["shutbox", "solve", "--tiles", "5", "--policy", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["policy"]
    keys = []
    for row in rows:
        pos = SPEC.parse(SPEC.rules(tiles=5), row["position"])
        keys.append((tiles_of(pos.open), pos.roll))
    assert keys == sorted(keys)
    full = [roll for tiles, roll in keys if tiles == (1, 2, 3, 4, 5)]
    assert full == sorted(full) and 3 in full and 10 in full
    assert main(["shutbox", "solve", "--tiles", "5", "--policy"]) == 0
    lines = capsys.readouterr().out.splitlines()
    table = [line for line in lines if line.startswith("open ")]
    assert [line.split("  ")[0].strip() for line in table] == [r["position"] for r in rows]
    # roll 10 comes after roll 9 (text order would put it before roll 3)
    texts = [r["position"] for r in rows]
    assert texts.index("open 1 2 3 4 5 | roll 3") < texts.index("open 1 2 3 4 5 | roll 10")


def test_cli_advise_and_diff(capsys):
    assert main(["shutbox", "advise", "open 1 3 4 7 | roll 8", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["actions"][0] == {
        "action": "shut 1 7",
        # shut 1 7 leaves {3, 4} (two dice): a 3 (2/36) leaves {4}, one die, E = 5/6 * 4;
        # a 4 (3/36) leaves {3}, E = 5/6 * 3; a 7 (6/36) shuts both; the other 25/36 end at 7
        "value": pytest.approx(2 / 36 * 10 / 3 + 3 / 36 * 2.5 + 25 / 36 * 7, abs=1e-12),
        "regret": 0.0,
    }
    assert main(["shutbox", "advise", '{"open":[1,3,4,7],"roll":8}', "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["actions"] == data["actions"]
    argv = ["shutbox", "advise", "open 1 3 4 7 9 | roll 8 | target 16", "--objective", "win"]
    assert main(argv) == 0
    assert "expected wins of player 2" in capsys.readouterr().out
    assert main(["shutbox", "diff", "--limit", "5"]) == 0
    out = capsys.readouterr().out
    assert "win move" in out and len(out.strip().splitlines()) == 8
    assert main(["shutbox", "diff", "--player", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["count"] == data["count_player1"] + data["count_player2"] == 1905
    assert len(data["positions"]) == data["count_player1"] > 0


def test_cli_diff_columns_align(capsys):
    assert main(["shutbox", "diff", "--limit", "40", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["positions"]
    assert main(["shutbox", "diff", "--limit", "40"]) == 0
    lines = capsys.readouterr().out.splitlines()
    header, table = lines[1], lines[2:42]
    assert len(table) == 40 and len({len(p["position"]) for p in rows}) > 1
    starts = {name: header.index(name) for name in ("position", "win move", "score move")}
    ends = {name: header.index(name) + len(name) for name in ("pl", "P(win) lost", "score cost")}
    for line, r in zip(table, rows):
        assert line.index(r["position"]) == starts["position"]
        assert line.index(r["win_move"], starts["win move"]) == starts["win move"]
        assert line.index(r["score_move"], starts["score move"]) == starts["score move"]
        assert line[: ends["pl"]].strip() == str(r["player"])
        lost = f"{r['win_lost']:.6f}"
        assert line.index(lost, starts["score move"]) + len(lost) == ends["P(win) lost"]
        assert len(line) == ends["score cost"]  # right-aligned last column


def test_cli_play_one_player_survives_bad_lines(monkeypatch, capsys):
    answers = iter(["banana", "shut 2 9", "?"])
    printed: list[str] = []
    errors: list[str] = []

    def fake_input(_prompt=""):
        seen = capsys.readouterr()
        printed.append(seen.out)
        errors.append(seen.err)
        try:
            return next(answers)
        except StopIteration:
            pass
        lines = "".join(printed).splitlines()
        position = [line for line in lines if line.startswith("open")][-1]
        return advise(position)[0].action  # play the best move

    monkeypatch.setattr("builtins.input", fake_input)
    assert main(["shutbox", "play", "--seed", "2"]) == 0
    captured = capsys.readouterr()
    out = "".join(printed) + captured.out
    assert "game over: final result" in out and "Traceback" not in captured.err
    assert "hint:" in out and "rolled" in out
    errors.append(captured.err)
    assert "'banana' is not a whole number" in "".join(errors)
    assert "is not open" in "".join(errors) or "not the roll" in "".join(errors)


def test_cli_play_two_players_and_eof(monkeypatch, capsys):
    def eof(_prompt=""):
        raise EOFError

    monkeypatch.setattr("builtins.input", eof)
    assert main(["shutbox", "play", "--objective", "win", "--seat", "2", "--seed", "1"]) == 0
    captured = capsys.readouterr()
    assert "computer: " in captured.out and "player 1 to move" in captured.out
    assert "goodbye" in captured.out and "Traceback" not in captured.err


def test_cli_simulate(capsys):
    argv = ["shutbox", "simulate", "--variant", "shut", "--games", "2000", "--json"]
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["games"] == 2000 and data["exact"] == pytest.approx(0.097613716)
    assert set(np.unique([data["min"], data["max"]])) <= {0.0, 1.0}


def test_main_job_section():
    lines: list[str] = []
    SPEC.main_job(lines.append)
    text = "\n".join(lines)
    assert "lowest expected score: 11.021120546 points" in text
    assert "best probability of shutting the box: 0.097613716" in text
    assert "player 1 wins 0.502810354" in text
    assert "1905 positions where the win-optimal move differs" in text


def test_compile_keeps_states_actions_and_roll_labels_consistent():
    g = compile_game(ShutGame(ShutRules(4)))
    assert g.states[0] == ("turn", ShutRules(4).full)
    for s in range(g.num_states):
        assert g.index[g.states[s]] == s
        for e in g.edges(s):
            if g.kind[s] == 2:
                assert isinstance(g.actions[e], tuple) and g.label(e) is None
            else:
                assert g.actions[e] is None
                if g.kind[s] == 1:
                    assert g.label(e) in range(1, 13)


@pytest.mark.parametrize("objective", ["score", "win"])
def test_solutions_are_stored_and_loaded_without_solving(objective, tmp_path, monkeypatch):
    monkeypatch.setenv("DICEOPT_CACHE", str(tmp_path))
    rules = ShutRules(6, "two-then-one", objective)
    monkeypatch.setattr(shut_solve, "_SOLVED", {})
    first = solved(rules)
    path = tmp_path / "shutbox" / table_key(rules).file_name()
    assert path.exists()
    monkeypatch.setattr(shut_solve, "_SOLVED", {})
    monkeypatch.setattr(shut_solve, "solve_shutbox", None)  # a load must not solve
    again = solved(rules)
    np.testing.assert_array_equal(again.solution.values, first.solution.values)
    np.testing.assert_array_equal(again.policy, first.policy)
    assert again.graph.states == first.graph.states and again.graph.index == first.graph.index
    pos = SPEC.parse(rules, "open 1 2 4 | roll 3")
    monkeypatch.setattr(shut_solve, "_SOLVED", {(rules, None): first})
    want = SPEC.advise(rules, pos)
    monkeypatch.setattr(shut_solve, "_SOLVED", {(rules, None): again})
    assert SPEC.advise(rules, pos) == want
