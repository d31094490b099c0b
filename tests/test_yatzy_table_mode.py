"""Yatzy at a table of 2 to 6 players (``games.yatzy.winning.table``): the exact chances
against brute force and against the 2-player chance, the advice to win against the
others' sheets (the 2-player advice for one opponent, the engine on the last turn, an
estimate from above before it), the command line and bad input. Reduced variants."""

from __future__ import annotations

import itertools
import json
from collections.abc import Hashable
from dataclasses import replace

import numpy as np
import pytest

from diceopt.cli import main
from diceopt.engine import Chance, Decision, Objective, Terminal, compile_game, solve
from diceopt.errors import InputError
from diceopt.games.yatzy.analyses.targets import solve_targets
from diceopt.games.yatzy.kernel.arrays import kernel_arrays
from diceopt.games.yatzy.play.advice import parse_position
from diceopt.games.yatzy.play.engine_game import YatzyEngineGame
from diceopt.games.yatzy.rulebook.variants import AMERICAN, SCANDINAVIAN
from diceopt.games.yatzy.stored.store import YatzyConfig
from diceopt.games.yatzy.winning.table import (
    advise_table,
    beat_steps,
    chance_with,
    final_pmf,
    parse_seat,
    parse_table,
    table_chances,
    win_chances,
)
from diceopt.games.yatzy.winning.win import (
    advise_opponent,
    parse_opponent,
    win_chance,
    win_detail,
)

# Reduced variants, each under a name of its own (tables are kept and stored by name).
# Six boxes, five dice: fast tables, games of some length
DUEL = replace(
    SCANDINAVIAN.reduced(
        ("ones", "twos", "threes", "one_pair", "three_of_a_kind", "chance"),
        bonus_threshold=8,
        bonus=20,
    ),
    name="table-mode-six",
)
# three boxes, four dice: small enough for the generic engine
SMALL = replace(
    SCANDINAVIAN.reduced(("ones", "one_pair", "chance"), dice=4, bonus_threshold=3),
    name="table-mode-three",
)
# American scoring (jokers, the Yahtzee bonus flag), four boxes
YAHTZEE = replace(
    AMERICAN.reduced(("twos", "full_house", "yahtzee", "chance"), bonus_threshold=6),
    name="table-mode-american",
)


def config(rules) -> YatzyConfig:
    return YatzyConfig(rules, 0.0, "float64")


def exit_code(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exc:
        return int(exc.code)


def brute_force(pmfs: list[np.ndarray]) -> np.ndarray:
    """Every combination of final scores: the winners at the top share its probability."""
    n = len(pmfs)
    out = np.zeros(n)
    for combo in itertools.product(*(range(p.size) for p in pmfs)):
        pr = float(np.prod([p[s] for p, s in zip(pmfs, combo, strict=True)]))
        top = max(combo)
        winners = [i for i in range(n) if combo[i] == top]
        for i in winners:
            out[i] += pr / len(winners)
    return out


def random_pmf(rng: np.random.Generator) -> np.ndarray:
    """A pmf over a few scores, with gaps and a shift (ties are likely)."""
    size, shift = int(rng.integers(1, 6)), int(rng.integers(0, 4))
    p = np.zeros(shift + size)
    p[shift:] = rng.random(size)
    if size > 2:
        p[shift + int(rng.integers(0, size))] = 0.0
    return p / p.sum()


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_chances_are_brute_force_and_sum_to_one(n):
    rng = np.random.default_rng(n)
    for _ in range(5 if n < 6 else 2):
        pmfs = [random_pmf(rng) for _ in range(n)]
        got = win_chances(pmfs)
        np.testing.assert_allclose(got, brute_force(pmfs), atol=1e-12)
        assert abs(got.sum() - 1.0) < 1e-9
        # the mover's chance through the steps of W: the same numbers
        for i in range(n):
            others = pmfs[:i] + pmfs[i + 1 :]
            dw = beat_steps(others)
            assert abs(dw.sum() - 1.0) < 1e-12 and (dw > -1e-15).all()
            assert chance_with(dw, pmfs[i]) == pytest.approx(got[i], abs=1e-12)


def test_ties_are_split_evenly():
    point = np.zeros(11)
    point[10] = 1.0
    np.testing.assert_allclose(win_chances([point] * 3), [1 / 3] * 3, atol=1e-15)
    low = np.zeros(9)
    low[8] = 1.0
    np.testing.assert_allclose(win_chances([point, low, point]), [0.5, 0.0, 0.5], atol=1e-15)
    # unnormalised input is normalised
    np.testing.assert_allclose(win_chances([2 * point, low]), [1.0, 0.0], atol=1e-15)
    with pytest.raises(ValueError):
        win_chances([point, np.zeros(3)])


SHEETS = [
    "filled - | upper 0 | score 0",
    "filled ones | upper 2 | score 2",
    "filled twos one_pair | upper 4 | score 14",
    "filled threes chance | upper 9 | score 40",
    "filled ones twos threes | upper 9 | score 29",
    "filled one_pair three_of_a_kind chance | upper 0 | score 55",
    "filled ones twos threes one_pair three_of_a_kind chance | upper 12 | score 80",
]


def sheets(rules, texts):
    return [parse_opponent(t, rules) for t in texts]


@pytest.mark.parametrize("pair", [(0, 1), (1, 2), (2, 3), (4, 5), (3, 6), (5, 6)])
def test_two_players_is_the_two_player_chance(pair):
    # win_chance: both play for the expected score from their sheets, independent final
    # scores, a draw 1/2, who moves first does not enter: the same model for N = 2
    cfg = config(DUEL)
    a, b = sheets(DUEL, [SHEETS[i] for i in pair])
    if a.over(DUEL):
        pytest.skip("win_chance takes a finished player only when both are")
    mine = parse_position(f"dice 1 2 3 4 5 | rerolls 2 | {SHEETS[pair[0]]}", DUEL)
    chances = table_chances(cfg, [a, b])
    assert chances[0] == pytest.approx(win_chance(cfg, mine, b), abs=1e-12)
    assert chances.sum() == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_chances_at_a_table_sum_to_one(n):
    cfg = config(DUEL)
    seats = sheets(DUEL, SHEETS[:n])
    chances = table_chances(cfg, seats)
    assert abs(chances.sum() - 1.0) < 1e-9
    assert ((0.0 <= chances) & (chances <= 1.0)).all()
    # a player's chance falls as others join
    if n > 2:
        fewer = table_chances(cfg, seats[:-1])
        assert (chances[:-1] <= fewer + 1e-12).all()
    # the final-score pmf: score plus the points still to come
    pmf = final_pmf(cfg, seats[1])
    assert pmf[:2].sum() == 0.0 and pmf.sum() == pytest.approx(1.0, abs=1e-12)


def test_chances_with_the_yahtzee_bonus_flag():
    cfg = config(YAHTZEE)
    flagged = parse_opponent("filled yahtzee | upper 0 | score 50 | yahtzee-bonus yes", YAHTZEE)
    plain = parse_opponent("filled yahtzee | upper 0 | score 0", YAHTZEE)
    fresh = parse_opponent("filled - | score 0", YAHTZEE)
    chances = table_chances(cfg, [flagged, plain, fresh])
    assert abs(chances.sum() - 1.0) < 1e-9
    assert chances[0] > chances[2] > chances[1]
    two = table_chances(cfg, [flagged, fresh])
    mine = parse_position(
        "dice 1 1 2 2 3 | rerolls 0 | filled yahtzee | score 50 | yahtzee-bonus yes", YAHTZEE
    )
    assert two[0] == pytest.approx(win_chance(cfg, mine, fresh), abs=1e-12)


POSITIONS = [
    "dice 1 3 3 5 6 | rerolls 2 | filled ones | upper 2 | score 2",
    "dice 2 2 2 5 6 | rerolls 1 | filled ones threes | upper 5 | score 5",
    "dice 1 1 4 4 6 | rerolls 0 | filled twos one_pair | upper 4 | score 12",
]


@pytest.mark.parametrize("position", POSITIONS)
@pytest.mark.parametrize("opponent", [SHEETS[2], SHEETS[3], SHEETS[5]])
def test_one_opponent_is_the_two_player_advice(position, opponent):
    cfg = config(DUEL)
    pos = parse_position(position, DUEL)
    opp = parse_opponent(opponent, DUEL)
    want = advise_opponent(pos, cfg, opp)
    got = advise_table(pos, cfg, [opp])
    assert [a.action for a in got.actions] == [a.action for a in want.actions]
    for a, b in zip(got.actions, want.actions, strict=True):
        assert a.value == pytest.approx(b.value, abs=1e-12)
        assert a.expected == pytest.approx(b.expected, abs=1e-9)
    assert not got.exact and got.opponents == 1


def test_advice_against_several_compares_with_the_expected_score():
    cfg = config(DUEL)
    pos = parse_position(POSITIONS[1], DUEL)
    opps = sheets(DUEL, [SHEETS[3], SHEETS[5], SHEETS[6]])
    advice = advise_table(pos, cfg, opps)
    values = [a.value for a in advice.actions]
    assert values == sorted(values, reverse=True) and advice.actions[0].regret == 0.0
    assert all(0.0 <= v <= 1.0 for v in values)
    expected_best = max(advice.actions, key=lambda a: a.expected)
    assert advice.find(advice.best_for_expected).expected == pytest.approx(expected_best.expected)
    chosen = advice.find(advice.best_for_expected)
    assert advice.chance_lost == pytest.approx(advice.best.value - chosen.value, abs=1e-15)
    assert advice.points_lost == pytest.approx(chosen.expected - advice.best.expected, abs=1e-9)
    data = advice.to_json()
    assert data["table"]["opponents"] == 3 and data["table"]["differ"] == advice.differ
    assert advice.notes and "winning" in advice.value_is
    # far behind three strong sheets: the chance is small, yet not nothing
    assert 0.0 < advice.best.value < 0.5


def test_a_case_where_playing_to_win_differs():
    # far behind late in the game: the advice to win takes risks the expected score does not
    cfg = config(DUEL)
    found = False
    for dice in ("1 1 2 3 3", "2 2 3 5 6", "1 2 4 6 6", "3 3 4 4 5", "1 1 1 5 6"):
        pos = parse_position(
            f"dice {dice} | rerolls 1 | filled ones twos threes one_pair | upper 6 | score 14",
            DUEL,
        )
        opps = sheets(DUEL, ["filled ones twos threes one_pair | upper 10 | score 40"] * 2)
        advice = advise_table(pos, cfg, opps)
        if advice.differ:
            found = True
            assert advice.chance_lost > 0.0 and advice.points_lost > 0.0
            assert any("gives up" in line for line in advice.notes)
    assert found


class BeatTable:
    """The Yatzy engine game from a turn-start state with ``b`` points; at the end W(b),
    the chance of winning with that final score against the others (``dw``'s sum)."""

    def __init__(self, rules, start: Hashable, b: int, dw: np.ndarray) -> None:
        self.inner = YatzyEngineGame(rules)
        self.start = (start, b)
        self.W = np.cumsum(dw)

    def initial_state(self) -> Hashable:
        return self.start

    def node(self, state):
        inner, b = state
        node = self.inner.node(inner)
        if isinstance(node, Terminal):
            return Terminal(float(self.W[min(b, self.W.size - 1)]))
        if isinstance(node, Chance):
            return Chance([(p, 0.0, (s, b + int(r))) for p, r, s, *_ in node.outcomes])
        return Decision([(a, 0.0, (s, b + int(r))) for a, r, s in node.actions])


@pytest.fixture(scope="module")
def small_targets():
    return solve_targets(SMALL, dtype="float64")


def estimate(rules, targets, mask: int, upper: int, b: int, dw: np.ndarray) -> float:
    K = kernel_arrays(rules, np.float64)
    _, _, value = win_detail(
        mask, 0, upper, b, -1, dw, 0, *targets.flat, K, rules.flags, True, False
    )
    return value


SMALL_OTHERS = [
    "filled ones | upper 2 | score 2",
    "filled one_pair | upper 0 | score 8",
    "filled ones one_pair | upper 1 | score 7",
    "filled ones one_pair chance | upper 2 | score 16",
]


@pytest.mark.parametrize("others", [(0, 1), (1, 2, 3), (2, 3), (3, 3), (0, 2, 2)])
@pytest.mark.parametrize("b", [4, 9, 13])
def test_the_last_turn_is_exact(others, b, small_targets):
    # ones and one_pair filled, chance open: the mover's last turn against others who may
    # still play; the value is E[W(final)] exactly, W from the others' final scores
    cfg = config(SMALL)
    opps = sheets(SMALL, [SMALL_OTHERS[i] for i in others])
    dw = beat_steps([final_pmf(cfg, o) for o in opps])
    got = estimate(SMALL, small_targets, 0b011, 3, b, dw)
    graph = compile_game(BeatTable(SMALL, ("turn", 0b011, 0, 3), b, dw))
    assert got == pytest.approx(solve(graph, Objective()).value, abs=1e-9)


@pytest.mark.parametrize("others", [(0, 1), (1, 2, 3), (0, 0, 1, 1, 2)])
def test_earlier_turns_estimate_from_above(others, small_targets):
    cfg = config(SMALL)
    opps = sheets(SMALL, [SMALL_OTHERS[i] for i in others])
    dw = beat_steps([final_pmf(cfg, o) for o in opps])
    got = estimate(SMALL, small_targets, 0, 0, 0, dw)
    exact = solve(compile_game(BeatTable(SMALL, ("turn", 0, 0, 0), 0, dw)), Objective()).value
    assert exact - 1e-9 <= got <= exact + 0.05


def test_against_finished_others_with_one_leader_the_advice_is_exact():
    cfg = config(DUEL)
    pos = parse_position(POSITIONS[2], DUEL)
    done = "filled ones twos threes one_pair three_of_a_kind chance | upper 12 | score {}"
    opps = sheets(DUEL, [done.format(70), done.format(64)])
    got = advise_table(pos, cfg, opps)
    want = advise_opponent(pos, cfg, opps[0])
    assert got.exact and [a.value for a in got.actions] == [a.value for a in want.actions]
    # two tied at the top: the estimate (a tie of three would count 1/3, not 1/2)
    tied = advise_table(pos, cfg, sheets(DUEL, [done.format(70), done.format(70)]))
    assert not tied.exact


def test_parse_seat_and_table():
    seat = parse_seat("Anna: filled ones | upper 2 | score 2", DUEL, 0)
    assert seat.name == "Anna" and seat.sheet.filled == ("ones",)
    assert parse_seat("filled ones | upper 2 | score 2", DUEL, 2).name == "player 3"
    js = parse_seat({"name": "Bo", "sheet": {"filled": ["ones"], "upper": 2, "score": 2}}, DUEL, 1)
    assert js.sheet == seat.sheet
    assert parse_seat('{"filled": [], "score": 0}', DUEL, 0).name == "player 1"
    bad = [
        (["Anna: filled ones | upper 2 | score 2"], "2 to 6 players, got 1"),
        (["A: filled - | score 0"] * 7, "got 7"),
        (["A: filled - | score 0", "A: filled - | score 0"], "two players are named 'A'"),
        (["A: filled - | score 0", "B: filled castle | score 0"], "B: unknown category"),
        (["A: filled - | score 0", "B: filled ones | upper 2"], "B: the sheet needs a score"),
        (["A: filled - | score 0", "B: dice 1 2 3 4 5 | rerolls 2 | score 0"], "sheet and score"),
        (["A: filled - | score 0", {"name": "B"}], "player 2"),
        (["A: filled - | score 0", 7], "player 2"),
        ([f"{'x' * 41}: filled - | score 0", "B: filled - | score 0"], "at most 40"),
    ]
    for values, word in bad:
        with pytest.raises(InputError, match=word):
            parse_table(values, DUEL)


# --- the command line (forced order: small tables) ---------------------------------------

FORCED = ["--variant", "scandinavian-forced"]
ELEVEN = (
    "ones twos threes fours fives sixes one_pair two_pairs three_of_a_kind four_of_a_kind "
    "small_straight"
)
LATE = f"dice 1 3 3 5 6 | rerolls 2 | filled {ELEVEN} | upper 63 | score 150"
ANNA = f"filled {ELEVEN} large_straight | upper 63 | score 180"
BO = f"filled {ELEVEN} | upper 60 | score 140"
ME = f"filled {ELEVEN} | upper 63 | score 150"


def test_advise_against_several_opponents_cli(capsys):
    args = ["yatzy", "advise", LATE, "--opponent", ANNA, "--opponent", BO, *FORCED]
    assert main([*args, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["table"]["opponents"] == 2 and "others at the table" in data["value_is"]
    values = [a["value"] for a in data["actions"]]
    assert values == sorted(values, reverse=True) and all(0 <= v <= 1 for v in values)
    # the chance against two is below the chance against the stronger one alone
    assert main(["yatzy", "advise", LATE, "--opponent", ANNA, "--json", *FORCED]) == 0
    alone = json.loads(capsys.readouterr().out)
    assert "table" not in alone  # one opponent: the advice as it always was
    assert values[0] <= alone["actions"][0]["value"] + 1e-12
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "best" in out and ("also the best for the expected score" in out or "gives up" in out)


def test_chances_cli(capsys):
    players = ["--player", f"Anna: {ANNA}", "--player", f"Bo: {BO}", "--player", f"Cy: {ME}"]
    assert main(["yatzy", "chances", *players, "--to-move", "Cy", "--json", *FORCED]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [p["name"] for p in data["players"]] == ["Anna", "Bo", "Cy"]
    assert abs(sum(p["chance"] for p in data["players"]) - 1.0) < 1e-9
    assert data["to_move"] == 2 and data["players"][0]["chance"] > 0.5
    assert main(["yatzy", "chances", *players, *FORCED]) == 0
    out = capsys.readouterr().out
    assert "Anna" in out and "%" in out and "expected final" in out


@pytest.mark.parametrize(
    ("argv", "word"),
    [
        (["chances", "--player", f"A: {ANNA}"], "2 to 6 players, got 1"),
        (["chances"], "got 0"),
        (["chances", *[x for i in range(7) for x in ("--player", f"P{i}: {BO}")]], "got 7"),
        (["chances", "--player", f"A: {ANNA}", "--player", f"A: {BO}"], "named 'A'"),
        (
            ["chances", "--player", f"A: {ANNA}", "--player", "B: filled castle | score 1"],
            "castle",
        ),  # fmt: skip
        (
            ["chances", "--player", f"A: {ANNA}", "--player", f"B: {BO}", "--to-move", "C"],
            "no player 'C'",
        ),  # fmt: skip
        (
            ["chances", "--player", f"A: {ANNA}", "--player", f"B: {BO}", "--theta", "0.05"],
            "theta",
        ),  # fmt: skip
        (
            ["advise", LATE, "--opponent", ANNA, "--opponent", BO, "--opponent-plays", "win"],
            "one opponent",
        ),  # fmt: skip
        (["advise", LATE, *[x for _ in range(6) for x in ("--opponent", BO)]], "got 7"),
        (
            ["advise", LATE, "--opponent", ANNA, "--opponent", "filled ones | score 40"],
            "opponent 2",
        ),  # fmt: skip
    ],
)
def test_table_bad_input(argv, word, capsys):
    assert exit_code(["yatzy", *argv, *FORCED]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and word in err, err


# --- whole games at a table (games.yatzy.table_play) -------------------------------------


@pytest.fixture(scope="module")
def table_inputs():
    from diceopt.games.yatzy.analyses.distribution import state_distributions
    from diceopt.games.yatzy.kernel.solve import solve_table

    table = solve_table(DUEL, dtype="float32")
    return table, solve_targets(DUEL), state_distributions(table)


def test_two_seats_are_the_duel_of_win_against_expected(table_inputs):
    # even games: the advised seat is seat 0 and plays first, as the duel's "win" player
    # does, on the same dice; the N-player utility is the 2-player one (so = -1, dW)
    from diceopt.games.yatzy.winning.duel import parse_strategy, play_duel
    from diceopt.games.yatzy.winning.table_play import play_tables

    table, targets, dist = table_inputs
    res = play_tables(table, targets, dist, 2, 600, np.random.default_rng(6), batch=600)
    duel = play_duel(parse_strategy("win"), parse_strategy("expected"), (table, table), 600,
                     np.random.default_rng(6), targets=targets, dist=dist, batch=600)  # fmt: skip
    even = np.arange(0, 600, 2)
    np.testing.assert_array_equal(res.scores[even], duel.scores[even])


def test_table_games_are_seeded_and_thread_independent(table_inputs):
    import numba

    from diceopt.games.yatzy.winning.table_play import play_tables

    table, targets, dist = table_inputs
    runs = []
    for threads in (1, numba.config.NUMBA_NUM_THREADS):
        numba.set_num_threads(threads)
        try:
            res = play_tables(table, targets, dist, 3, 300, np.random.default_rng(9), batch=128)
        finally:
            numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
        runs.append(res)
    np.testing.assert_array_equal(runs[0].scores, runs[1].scores)
    np.testing.assert_array_equal(runs[0].stats, runs[1].stats)


def test_table_games_report_rates_and_calibration(table_inputs):
    from diceopt.games.yatzy.winning.table_play import play_tables

    table, targets, dist = table_inputs
    n, games = 3, 2000
    res = play_tables(table, targets, dist, n, games, np.random.default_rng(2))
    np.testing.assert_allclose(res.shares().sum(axis=1), 1.0)
    data = res.to_json()
    assert data["games"] == games and data["players"] == n and data["fair_share"] == 1 / 3
    assert data["ci95"][0] <= data["win_rate"] <= data["ci95"][1]
    assert len(data["win_rate_by_seat"]) == n
    # every turn start, every player: one prediction each
    ncat = DUEL.num_categories
    assert res.stats[:, :, 0].sum() == games * ncat * n * n
    assert res.stats[0, :, 0].sum() == games * ncat * n  # the advised seat's own
    cal = data["calibration"]["all"]
    assert sum(row["count"] for row in cal) == games * ncat * n * n
    for row in cal:
        assert row["bin"][0] <= row["predicted"] <= row["bin"][1]
        assert row["ci95"][0] <= row["observed"] <= row["ci95"][1]
        if row["count"] >= 5000:  # the shown chances are near what happens
            assert abs(row["predicted"] - row["observed"]) < 0.05
    off = play_tables(table, targets, dist, n, 64, np.random.default_rng(2), calibrate=False)
    np.testing.assert_array_equal(off.scores, res.scores[:64])
    assert off.stats.sum() == 0.0


def test_a_control_table_plays_for_the_expected_score_everywhere(table_inputs):
    # no advised seat: every seat plays the widget, and the chances shown are of that play
    from diceopt.games.yatzy.winning.table_play import play_tables

    table, targets, dist = table_inputs
    res = play_tables(table, targets, dist, 4, 1500, np.random.default_rng(3), advised=False)
    assert res.stats[0].sum() == 0.0  # nobody advised
    assert res.stats[1, :, 0].sum() == 1500 * DUEL.num_categories * 16
    # every seat's mean score is the table's value (4 standard errors)
    for col in range(4):
        s = res.scores[:, col]
        assert abs(s.mean() - table.value) < 4 * s.std() / np.sqrt(s.size)
    for row in res.to_json()["calibration"]["others"]:
        if row["count"] >= 5000:
            assert row["ci95"][0] - 0.01 <= row["predicted"] <= row["ci95"][1] + 0.01


def test_chances_read_the_stored_rows_of_the_first_turns(tmp_path, monkeypatch):
    # with the rows of the first turns stored, the sheets of the first turns are read, not
    # computed: the same chances, bit for bit
    import diceopt.games.yatzy.winning.win as win_module
    from diceopt.games.yatzy.stored import store

    monkeypatch.setenv("DICEOPT_CACHE", str(tmp_path))
    store.forget(DUEL)
    win_module._PMFS.clear()
    cfg = config(DUEL)
    seats = sheets(DUEL, SHEETS[:4])  # at most two boxes filled: their turns lead to rows
    computed = table_chances(cfg, seats)
    assert store.early_table(DUEL, 0.0, "float64").build(None) is True
    store.forget(DUEL)
    win_module._PMFS.clear()

    def no_pass(*args, **kwargs):
        raise AssertionError("a distribution was computed")

    monkeypatch.setattr("diceopt.games.yatzy.analyses.distribution.distribution", no_pass)
    assert np.array_equal(table_chances(config(DUEL), seats), computed)
    store.forget(DUEL)
    win_module._PMFS.clear()
