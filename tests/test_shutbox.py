"""Shut the Box on the generic engine: hand-computed values, an independent exact recursion,
seeded simulation, the two-player comparison, advice, and bad input."""

import itertools
import json
from fractions import Fraction
from functools import cache

import numpy as np
import pytest

from diceopt.advice import ActionAdvice
from diceopt.cli import main
from diceopt.engine import compile_game, evaluate_policy
from diceopt.errors import InputError
from diceopt.games import shutbox as sb
from diceopt.games.shutbox import ShutRules, solve_shutbox, solved
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


@pytest.mark.parametrize("key", sorted(HAND))
def test_hand_computed_values(key):
    tiles, rule, objective = key
    assert solve_shutbox(ShutRules(tiles, rule), objective).value == pytest.approx(
        float(HAND[key]), abs=1e-12
    )
    assert reference(tiles, rule, objective) == HAND[key]


def test_optional_one_never_beats_one_die_on_small_boxes():
    # with <= 6 open one die is the better choice, so the values match two-then-one
    for tiles in (1, 2, 3):
        for objective in ("score", "shut", "win"):
            a = solve_shutbox(ShutRules(tiles, "optional-one"), objective).value
            b = solve_shutbox(ShutRules(tiles, "two-then-one"), objective).value
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
    got = solve_shutbox(ShutRules(tiles, rule), objective).value
    assert got == pytest.approx(float(reference(tiles, rule, objective)), abs=1e-12)


def test_nine_tiles_match_the_exact_fraction_recursion():
    rules = ShutRules()
    score, shut, win = solved(rules, "score"), solved(rules, "shut"), solved(rules, "win")
    assert score.graph.acyclic and win.graph.acyclic
    for sol, objective in ((score, "score"), (shut, "shut"), (win, "win")):
        exact = reference(9, "two-then-one", objective)
        assert sol.value == pytest.approx(float(exact), abs=1e-12)
    # one die at 6 or less helps: always rolling two dice gives a higher expected score
    assert score.value < solved(ShutRules(9, "always-two"), "score").value


def test_twelve_tiles_one_player_solves():
    sol = solved(ShutRules(12), "score")
    assert sol.graph.acyclic and sol.graph.num_states > 10_000
    assert 30.0 < sol.value < 40.0


# --- simulation -----------------------------------------------------------------------


@pytest.mark.parametrize("objective", ["score", "shut", "win"])
def test_exact_value_matches_seeded_simulation(objective):
    sol = solved(ShutRules(9), objective)
    totals = simulate(sol.graph, sol.policy, 20_000, np.random.default_rng(7))
    se = totals.std(ddof=1) / np.sqrt(totals.size)
    assert abs(totals.mean() - sol.value) < 4 * se


# --- two players: win-optimal versus score-optimal ------------------------------------


@pytest.fixture(scope="module")
def report():
    return sb.duel_report(ShutRules(9))


def test_duel_report_gains_and_costs(report):
    r = report
    assert r["both_win_optimal"] == pytest.approx(solved(ShutRules(9), "win").value)
    assert r["p1_gain"] > 0 and r["p2_gain"] > 0
    assert r["p1_score_given_up"] > 0 and r["p2_score_given_up"] > 0
    assert r["p1_expected_score_score_policy"] == pytest.approx(solved(ShutRules(9), "score").value)
    # player 1 best-replying to a score-playing player 2 does at least as well
    assert r["p2_score_optimal_p1_best_reply"] >= r["p2_score_optimal"] - 1e-12
    assert 0.05 < r["p1_shuts"] < 0.15


def test_score_policy_evaluation_matches_recursion_on_small_duel():
    # both players score-optimal on 4 tiles: engine policy evaluation vs a direct recursion
    rules = ShutRules(4)
    win, score = solved(rules, "win"), solved(rules, "score")
    choice = sb.score_policy_in(win, score)
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
    rules = ShutRules(9)
    rows = sb.differing_positions(rules)
    assert any(r["player"] == 1 for r in rows) and any(r["player"] == 2 for r in rows)
    for r in rows[:20] + [r for r in rows if r["player"] == 1][:5]:
        assert r["win_move"] != r["score_move"] and r["win_lost"] > 0
        assert r["score_given_up"] >= 0
        advice = sb.advise(r["position"], "two-then-one/win")
        assert advice[0].action == r["win_move"]
        values = {a.action: a.value for a in advice}
        assert values[r["score_move"]] == pytest.approx(r["score_move_win_value"], abs=1e-12)
        one = sb.advise(r["position"].split(" | target")[0], "two-then-one/score")
        assert r["score_move"] == one[0].action


# --- advice contract ------------------------------------------------------------------


def test_cli_choices_match_the_game_module():
    from diceopt.cli import shutbox as cli

    assert cli.DICE_RULES == sb.DICE_RULES and cli.OBJECTIVES == sb.OBJECTIVES


def test_variants_and_example():
    assert next(iter(sb.VARIANTS)) == "two-then-one/score"
    for variant in sb.VARIANTS:
        rules, objective = sb.variant_of(variant)
        assert rules.tiles == 9 and objective in ("score", "shut", "win")
    options = sb.advise(sb.POSITION_EXAMPLE)
    assert all(isinstance(o, ActionAdvice) for o in options)
    assert options[0].regret == 0 and all(o.regret >= 0 for o in options)
    assert [o.value for o in options] == sorted(o.value for o in options)  # lower is better
    assert sb.variant_of("win/always-two/5") == (ShutRules(5, "always-two"), "win")


def test_advise_values_match_engine_states():
    rules = ShutRules()
    score = solved(rules, "score")
    options = sb.advise("open 1 3 4 7 | roll 8")
    assert {o.action for o in options} == {"shut 1 7", "shut 1 3 4"}
    state_value = score.solution.values[score.graph.state_id(("roll", sb.mask_of([1, 3, 4, 7]), 8))]
    assert options[0].value == pytest.approx(state_value)
    # player 2 values are player 2's expected wins
    p2 = sb.advise("open 1 2 3 4 5 6 7 8 9 | roll 7 | target 20", "win")
    win = solved(rules, "win")
    node = win.graph.state_id(("roll2", rules.full, 7, 20))
    assert p2[0].value == pytest.approx(1 - win.solution.values[node])
    # a target above the open tiles: player 2 has already won
    assert all(o.value == 1.0 for o in sb.advise("open 1 3 4 7 | roll 8 | target 16", "win"))


def test_advise_before_the_roll_and_without_moves():
    first = sb.advise("open 1 2 3 4 5 6 7 8 9", "win")
    assert [o.action for o in first] == ["roll"]
    assert first[0].value == pytest.approx(solved(ShutRules(), "win").value)
    choice = sb.advise("open 1 2 3", "optional-one/shut")
    assert [o.action for o in choice] == ["roll one die", "roll two dice"]
    stuck = sb.advise("open 1 2 | roll 6")
    assert [(o.action, o.value) for o in stuck] == [("end turn", 3.0)]


def test_unreachable_positions_are_solved_on_demand():
    # tile 1 alone can never be the first tile shut with two dice: unreachable from the start
    options = sb.advise("open 2 3 4 5 6 7 8 9 | roll 5")
    direct = solve_shutbox(ShutRules(), "score", start=("turn", sb.mask_of([2, 3, 4, 6, 7, 8, 9])))
    assert options[0].action == "shut 5" and options[0].value == pytest.approx(direct.value)


def test_apply_plays_through_a_two_player_game():
    rng = np.random.default_rng(11)
    position, over, seen_target = "open 1 2 3 4 5 6 7 8 9 | roll 7", False, False
    for _ in range(40):
        action = sb.advise(position, "win")[0].action
        position, over = sb.apply(position, action, "win", rng)
        seen_target |= "target" in position
        if over:
            break
    assert over
    # apply rolls for the player: every returned live position shows a roll
    position, over = sb.apply("open 1 2 3 4 5 6 7 8 9 | roll 7", "shut 7", "score", rng)
    assert "roll" in position and not over
    position, over = sb.apply("open 2 | roll 2", "shut 2", "score", rng)
    assert over and position.startswith("open none")


def test_apply_player_one_shutting_wins_and_turn_passes():
    rng = np.random.default_rng(0)
    position, over = sb.apply("open 3 | roll 3", "shut 3", "win", rng)
    assert over
    rules, _ = sb.variant_of("win")
    pos = sb.parse_position(rules, "open 1 2 | roll 2", True)
    new, over, events = sb.step(rules, "win", pos, "shut 2", np.random.default_rng(0))
    # tile 1 is left: one die; a 1 shuts the box, anything else ends player 1's turn
    if over:
        assert any("player 1 shut the box" in e for e in events)
    else:
        assert new.target == 1 and new.open == rules.full
        assert any("player 1's turn ends with score 1" in e for e in events)


def test_optional_one_dice_choice_in_apply():
    rng = np.random.default_rng(5)
    position, over = sb.apply("open 1 2 3", "roll one die", "optional-one/score", rng)
    assert "roll" in position
    roll = int(position.split("roll ")[1].split()[0])
    assert 1 <= roll <= 6
    with pytest.raises(InputError, match="choose 'roll one die' or 'roll two dice'"):
        sb.apply("open 1 2 3", "roll", "optional-one/score", rng)


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
        sb.advise(position, variant)
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
        sb.apply("open 1 3 4 7 | roll 8", action, None, np.random.default_rng(0))


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["solve", "--tiles", "13"], "tiles must be 1 to 12"),
        (["solve", "--tiles", "0"], "tiles must be 1 to 12"),
        (["solve", "--players", "2", "--objective", "score"], "use --objective win"),
        (["solve", "--players", "1", "--objective", "win"], "use --players 2"),
        (["advise", "open 1 3 4 7 | roll 13"], "roll 13 is impossible"),
        (["advise", "open 2 4 | roll 7", "--objective", "score"], "rolls one die"),
        (["advise", "open 1 3 4 7 | roll 8 | target x"], "not a whole number"),
        (["advise", "open 1 3 4 7 | roll 8", "--tiles", "5"], "tile 7 is not on a box"),
        (["diff", "--limit", "-1"], "--limit"),
    ],
)
def test_cli_bad_input_one_line_exit_2(argv, message, capsys):
    assert main(["shutbox", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_cli_solve_json(capsys):
    assert main(["shutbox", "solve", "--tiles", "3", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["value"] == pytest.approx(61 / 36) and data["seconds"] >= 0 and data["states"] > 0
    assert main(["shutbox", "solve", "--tiles", "3", "--objective", "shut", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["value"] == pytest.approx(1 / 3)
    assert main(["shutbox", "solve", "--tiles", "2", "--players", "2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["value"] == pytest.approx(680 / 1296) and "comparison" in data
    assert main(["shutbox", "solve", "--tiles", "4", "--policy", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["policy"] and {"position", "move", "value"} <= set(data["policy"][0])


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
    assert main(["shutbox", "advise", "open 1 3 4 7 9 | roll 8 | target 16"]) == 0
    assert "expected wins" in capsys.readouterr().out
    assert main(["shutbox", "diff", "--limit", "5"]) == 0
    out = capsys.readouterr().out
    assert "win move" in out and len(out.strip().splitlines()) == 8
    assert main(["shutbox", "diff", "--player", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["count"] == data["count_player1"] + data["count_player2"]
    assert len(data["positions"]) == data["count_player1"] > 0


def test_cli_play_one_player_survives_bad_lines(monkeypatch, capsys):
    answers = iter(["banana", "shut 2 9", "hint"])
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
        return sb.advise(position)[0].action  # play the best move

    monkeypatch.setattr("builtins.input", fake_input)
    assert main(["shutbox", "play", "--seed", "2"]) == 0
    captured = capsys.readouterr()
    out = "".join(printed) + captured.out
    assert "Final score" in out and "Traceback" not in captured.err
    assert "regret" in out  # the hint
    errors.append(captured.err)
    assert "'banana' is not a whole number" in "".join(errors)
    assert "is not open" in "".join(errors) or "not the roll" in "".join(errors)


def test_cli_play_two_players_and_eof(monkeypatch, capsys):
    def eof(_prompt=""):
        raise EOFError

    monkeypatch.setattr("builtins.input", eof)
    assert main(["shutbox", "play", "--objective", "win", "--seat", "2", "--seed", "1"]) == 0
    captured = capsys.readouterr()
    assert "computer (player 1)" in captured.out and "Traceback" not in captured.err


def test_compile_keeps_states_and_actions_consistent():
    g = compile_game(sb.ShutGame(ShutRules(4), "score"))
    assert g.states[0] == ("turn", ShutRules(4).full)
    for s in range(g.num_states):
        assert g.index[g.states[s]] == s
        for e in g.edges(s):
            if g.kind[s] == 2:
                assert isinstance(g.actions[e], tuple)
            else:
                assert g.actions[e] is None
