"""Playing Yatzy to win: the win-seeking turn against the generic engine, advice against an
opponent's sheet (CLI and bad input), and head-to-head duels (reduced variants)."""

from __future__ import annotations

import json
from collections.abc import Hashable

import numba
import numpy as np
import pytest

from diceopt.cli import main
from diceopt.engine import Chance, Decision, Objective, Terminal, compile_game, solve
from diceopt.errors import InputError, SolveError
from diceopt.games.yatzy.analyses.distribution import distribution
from diceopt.games.yatzy.analyses.targets import solve_target_from, solve_targets
from diceopt.games.yatzy.kernel.arrays import kernel_arrays
from diceopt.games.yatzy.kernel.solve import solve_table
from diceopt.games.yatzy.play.engine_game import YatzyEngineGame
from diceopt.games.yatzy.rulebook.variants import SCANDINAVIAN, get_rules
from diceopt.games.yatzy.winning.duel import parse_strategy, play_duel
from diceopt.games.yatzy.winning.win import (
    RISK_THETA,
    chance_to_beat,
    opponent_distribution,
    parse_opponent,
    win_detail,
)

SMALL = SCANDINAVIAN.reduced(("ones", "one_pair", "chance"), dice=4, bonus_threshold=3)
DUEL = SCANDINAVIAN.reduced(
    ("ones", "twos", "threes", "one_pair", "three_of_a_kind", "chance"),
    bonus_threshold=8,
    bonus=20,
)


def exit_code(argv: list[str]) -> int:
    """``main``'s exit status, also when argparse exits."""
    try:
        return main(argv)
    except SystemExit as exc:
        return int(exc.code)


class Start:
    """An engine game started from one of its states."""

    def __init__(self, game, state) -> None:
        self.game = game
        self.state = state

    def initial_state(self) -> Hashable:
        return self.state

    def node(self, state):
        return self.game.node(state)


class Beat:
    """The engine game "beat an opponent who finished with ``so`` points": the Yatzy engine
    game from a turn-start state with ``b`` points; at the end 1 for more than ``so``, 1/2
    for exactly ``so``, 0 for less."""

    def __init__(self, rules, start: Hashable, b: int, so: int) -> None:
        self.inner = YatzyEngineGame(rules)
        self.start = (start, b)
        self.so = so

    def initial_state(self) -> Hashable:
        return self.start

    def node(self, state):
        inner, b = state
        node = self.inner.node(inner)
        if isinstance(node, Terminal):
            return Terminal(1.0 if b > self.so else 0.5 if b == self.so else 0.0)
        if isinstance(node, Chance):
            return Chance([(p, 0.0, (s, b + int(r))) for p, r, s, *_ in node.outcomes])
        return Decision([(a, 0.0, (s, b + int(r))) for a, r, s in node.actions])


@pytest.fixture(scope="module")
def small_targets():
    return solve_targets(SMALL, dtype="float64")


def exact_against_finished(rules, mask: int, upper: int, b: int, so: int) -> float:
    graph = compile_game(Beat(rules, ("turn", mask, 0, upper), b, so))
    return solve(graph, Objective()).value


def estimate_against_finished(rules, targets, mask: int, upper: int, b: int, so: int) -> float:
    K = kernel_arrays(rules, np.float64)
    rows = targets.flat
    _, _, value = win_detail(mask, 0, upper, b, so, np.ones(1), 0, *rows, K, rules.flags, False)
    return value


@pytest.mark.parametrize("so", [4, 10, 14, 17, 21])
def test_last_turn_is_exact(so, small_targets):
    # ones and one_pair filled (upper 2), chance open: one turn left
    value = estimate_against_finished(SMALL, small_targets, 0b011, 2, 0, so)
    exact = exact_against_finished(SMALL, 0b011, 2, 0, so)
    assert value == pytest.approx(exact, abs=1e-9)
    assert 0.0 < exact < 1.0


@pytest.mark.parametrize("so", [15, 22, 30])
def test_earlier_turns_estimate_from_above(so, small_targets):
    exact = exact_against_finished(SMALL, 0, 0, 0, so)
    value = estimate_against_finished(SMALL, small_targets, 0, 0, 0, so)
    assert exact - 1e-9 <= value <= exact + 0.05


@pytest.mark.parametrize("so", [0, 15, 22, 30, 40])
@pytest.mark.parametrize("start", [(0, 0), (0b001, 2), (0b100, 0)])
def test_draw_aware_rows_are_exact_against_a_finished_opponent(so, start):
    # the whole rest of the game, every turn-start state on the way checked by the engine
    mask, upper = start
    rules = SMALL
    rows = solve_target_from(rules, mask, 0, upper, so + 1, dtype="float64", draw=True)
    K = kernel_arrays(rules, np.float64)
    _, _, value = win_detail(mask, 0, upper, 0, so, np.ones(1), 0, *rows.flat, K, rules.flags, True)
    assert value == pytest.approx(exact_against_finished(rules, mask, upper, 0, so), abs=1e-9)


def test_advice_against_a_finished_opponent_matches_the_engine(capsys):
    # forced order, two categories left: every action's value against the engine's
    rules = get_rules("scandinavian-forced")
    names = rules.categories
    filled = " ".join(names[:13])
    pos = f"dice 2 3 4 5 6 | rerolls 1 | filled {filled} | upper 63 | score 200"
    opp = f"filled {' '.join(names)} | upper 63 | score 236"
    assert main(["yatzy", "advise", pos, "--opponent", opp, "--json", *FORCED]) == 0
    got = {a["action"]: a["value"] for a in json.loads(capsys.readouterr().out)["actions"]}
    game = Beat(rules, None, 200, 236)
    mask = (1 << 13) - 1
    for action, value in got.items():
        if action.startswith("score "):
            c = names.index(action.split()[1])
            assert c == 13  # forced order: the next category only
            counts = np.bincount([2, 3, 4, 5, 6], minlength=7)[1:]
            from diceopt.games.yatzy.play.engine_game import score_points

            pts, nmask, nflag, nup = score_points(rules, mask, 0, 63, counts, c)
            state = (("turn", nmask, nflag, nup), 200 + int(pts))
        else:
            continue  # keeps: checked through the turn value below
        graph = compile_game(Start(game, state))
        assert value == pytest.approx(solve(graph, Objective()).value, abs=1e-9)
    assert max(got.values()) <= 1.0


def test_parse_opponent():
    rules = get_rules("scandinavian")
    opp = parse_opponent("filled ones twos chance | upper 5 | score 25", rules)
    assert opp.filled == ("ones", "twos", "chance") and opp.score == 25 and opp.upper == 5
    same = parse_opponent({"filled": ["chance", "twos", "ones"], "upper": 5, "score": 25}, rules)
    assert same == opp
    assert parse_opponent('{"filled": [], "score": 0}', rules).filled == ()
    bad = [
        ("filled ones | upper 1", "score"),
        ("dice 1 2 3 4 5 | rerolls 2 | score 3", "sheet and score"),
        ("filled three_pairs | score 12", "three_pairs"),
        ("filled ones | upper 1 | score 400", "impossible"),
        ("filled ones | upper 7 | score 7", "upper total 7"),
        ('{"filled": "ones", "score": 1}', "list"),
        ("[1, 2]", "field"),
        (["a list"], "opponent"),
    ]
    for text, word in bad:
        with pytest.raises(InputError, match=word):
            parse_opponent(text, rules)


# the forced-order variant keeps on-demand tables small
LATE = (
    "dice 1 3 3 5 6 | rerolls 2 | filled ones twos threes fours fives sixes one_pair "
    "two_pairs three_of_a_kind four_of_a_kind small_straight | upper 63 | score 150"
)
FORCED = ["--variant", "scandinavian-forced"]


def test_advise_opponent_cli(capsys):
    opp = "filled ones twos threes fours fives sixes one_pair two_pairs three_of_a_kind "
    opp += "four_of_a_kind small_straight large_straight | upper 63 | score 180"
    assert main(["yatzy", "advise", LATE, "--opponent", opp, "--json", *FORCED]) == 0
    data = json.loads(capsys.readouterr().out)
    assert "winning" in data["value_is"]
    values = [a["value"] for a in data["actions"]]
    assert values == sorted(values, reverse=True) and data["actions"][0]["regret"] == 0.0
    assert all(0.0 <= v <= 1.0 for v in values)
    assert all(a["expected"] >= 150 for a in data["actions"])
    # an opponent further ahead: every chance falls
    far = opp.replace("score 180", "score 220")
    assert main(["yatzy", "advise", LATE, "--opponent", far, "--json", *FORCED]) == 0
    farther = json.loads(capsys.readouterr().out)
    assert farther["actions"][0]["value"] < values[0]
    win = ["--opponent", opp, "--opponent-plays", "win"]
    assert main(["yatzy", "advise", LATE, *win, *FORCED]) == 0
    assert capsys.readouterr().out.count("expected") > 5


def test_chance_to_beat_counts_every_pair():
    rng = np.random.default_rng(4)
    theirs, ours = rng.random(7), rng.random(11)
    theirs, ours = theirs / theirs.sum(), ours / ours.sum()
    for lead in (-12, -3, 0, 2, 9, 20):
        want = sum(
            theirs[x] * ours[y] * (1.0 if x + lead > y else 0.5 if x + lead == y else 0.0)
            for x in range(theirs.size)
            for y in range(ours.size)
        )
        assert chance_to_beat(theirs, ours, lead) == pytest.approx(want, abs=1e-15)


@pytest.mark.parametrize("lead", [-35, 0, 12])
def test_an_opponent_playing_to_win_picks_its_best_table(lead):
    # the opponent (lead points ahead of us) plays the table, among expected score and
    # theta -0.05 / +0.05, with the best chance to beat our expected-score play
    from diceopt.games.registry import get_game
    from diceopt.games.yatzy import get_solved
    from diceopt.games.yatzy.play.advice import state_of

    spec = get_game("yatzy")
    config = spec.rules("scandinavian-forced")
    rules = config.rules
    mine = spec.parse(config, LATE)
    filled = "ones twos threes fours fives sixes one_pair two_pairs three_of_a_kind"
    opponent = parse_opponent(f"filled {filled} | upper 63 | score {150 + lead}", rules)
    ours = distribution(
        get_solved("scandinavian-forced", 0.0, "float32"),
        **dict(zip(("mask", "flag", "upper"), state_of(mine, rules), strict=True)),
        base=None,
    ).pmf
    chances = {}
    for theta in (0.0, -RISK_THETA, RISK_THETA):
        table = get_solved("scandinavian-forced", theta, "float32")
        pmf = distribution(
            table,
            **dict(zip(("mask", "flag", "upper"), state_of(opponent, rules), strict=True)),
            base=None,
        ).pmf
        chances[theta] = (chance_to_beat(pmf, ours, lead), pmf)
    best = max(chances.values(), key=lambda c: c[0])
    got = opponent_distribution(config, opponent, mine, "win")
    assert np.array_equal(got, best[1])
    # never weaker than the expected-score opponent against our expected-score play
    assert chance_to_beat(got, ours, lead) >= chances[0.0][0]
    same = opponent_distribution(config, opponent, mine, "expected")
    assert np.array_equal(same, chances[0.0][1])


@pytest.mark.parametrize(
    ("extra", "word"),
    [
        (["--opponent", "filled super_house | score 20"], "super_house"),
        (["--opponent", "filled castle | score 20"], "opponent: unknown category 'castle'"),
        (["--opponent", "filled ones | upper 2 | score 1"], "score 1"),
        (["--opponent", "filled ones | upper 2 | score 2", "--target", "200"], "either"),
        (["--opponent", "filled ones | upper 2 | score 2", "--opponent-plays", "lucky"], "lucky"),
    ],
)
def test_advise_opponent_bad_input(extra, word, capsys):
    assert exit_code(["yatzy", "advise", LATE, *extra, *FORCED]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and word in err


def test_advise_opponent_needs_my_score(capsys):
    pos = LATE.replace(" | score 150", "")
    assert main(["yatzy", "advise", pos, "--opponent", "score 0", *FORCED]) == 2
    assert "your score" in capsys.readouterr().err


# --- duels -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def duel_inputs():
    from diceopt.games.yatzy.analyses.distribution import state_distributions

    table = solve_table(DUEL, dtype="float32")
    return table, solve_targets(DUEL), state_distributions(table)


def test_state_distributions_feed_the_duel(duel_inputs):
    table, _, dist = duel_inputs
    pmf = dist.pmf(0b000011, 0, 3)
    want = distribution(table, mask=0b000011, flag=0, upper=3, base=None).pmf
    np.testing.assert_allclose(pmf[: want.size], want, atol=1e-6)


def test_expected_against_itself_is_even(duel_inputs):
    table, targets, dist = duel_inputs
    e = parse_strategy("expected")
    res = play_duel(e, e, (table, table), 20_000, np.random.default_rng(5))
    data = res.to_json()
    lo, hi = data["ci95"]
    assert lo < 0.5 < hi
    assert data["wins"] + data["draws"] + data["losses"] == 20_000
    # each seat's mean score agrees with the table's value (4 standard errors)
    for col in range(2):
        s = res.scores[:, col]
        assert abs(s.mean() - table.value) < 4 * s.std() / np.sqrt(s.size)


@pytest.fixture(scope="module")
def fixed_duel(duel_inputs):
    """Expected score against theta 0.05: both final-score distributions (exact) and
    40,000 seeded games of the two (one duel for every lead below)."""
    table, _, _ = duel_inputs
    risky = solve_table(DUEL, dtype="float32", theta=0.05)
    ours = distribution(table, base=None).pmf
    theirs = distribution(risky, base=None).pmf
    res = play_duel(parse_strategy("expected"), parse_strategy("theta:0.05"), (table, risky),
                    40_000, np.random.default_rng(11))  # fmt: skip
    return ours, theirs, res.scores


@pytest.mark.parametrize("lead", [0, 3, -5])
def test_the_chance_of_two_fixed_policies_is_exact_against_their_duel(fixed_duel, lead):
    # win_chance's method: the two final scores have exact independent distributions and
    # the chance is their convolution; a seeded duel of the same two policies agrees
    # within 4 standard errors
    ours, theirs, scores = fixed_duel
    exact = chance_to_beat(ours, theirs, lead)
    mine, other = scores[:, 0] + lead, scores[:, 1]
    outcome = (mine > other) + 0.5 * (mine == other)
    assert abs(outcome.mean() - exact) < 4 * outcome.std() / np.sqrt(outcome.size)
    assert 0.05 < exact < 0.95  # a case where the two differ


def test_win_beats_expected(duel_inputs):
    table, targets, dist = duel_inputs
    w, e = parse_strategy("win"), parse_strategy("expected")
    res = play_duel(w, e, (table, table), 8_000, np.random.default_rng(6), targets=targets,
                    dist=dist)  # fmt: skip
    data = res.to_json()
    assert data["ci95"][0] > 0.5  # measured 0.521 at 40,000 games
    # it gives up expected score to do so
    assert data["mean_score"]["first"] < data["mean_score"]["second"]
    back = play_duel(e, w, (table, table), 8_000, np.random.default_rng(6), targets=targets,
                     dist=dist)  # fmt: skip
    assert back.to_json()["ci95"][1] < 0.5


def test_reached_rows_play_the_same_duel(duel_inputs):
    # a duel of win against expected read from the rows of the states expected-score play
    # reaches from the start (those of every state, bit for bit: tests/test_yatzy_distribution)
    # is the same games; a state without a row stops the duel
    from dataclasses import replace

    from diceopt.games.yatzy.analyses.distribution import reached_distributions

    table, targets, dist = duel_inputs
    got = reached_distributions(table)
    assert 0 < np.count_nonzero(got.slot >= 0) < np.count_nonzero(dist.slot >= 0)
    w, e = parse_strategy("win"), parse_strategy("expected")
    runs = [
        play_duel(w, e, (table, table), 2_000, np.random.default_rng(4), targets=targets, dist=d)
        for d in (dist, got)
    ]
    np.testing.assert_array_equal(runs[0].scores, runs[1].scores)
    none = replace(got, slot=np.full_like(got.slot, -1))
    with pytest.raises(SolveError, match="no distribution"):
        play_duel(w, e, (table, table), 10, np.random.default_rng(4), targets=targets, dist=none)


def test_duel_is_seeded_and_thread_independent(duel_inputs):
    table, targets, dist = duel_inputs
    w, e = parse_strategy("win"), parse_strategy("theta:0.05")
    theta = solve_table(DUEL, dtype="float32", theta=0.05)
    runs = []
    for threads in (1, numba.config.NUMBA_NUM_THREADS):
        numba.set_num_threads(threads)
        try:
            res = play_duel(w, e, (table, theta), 500, np.random.default_rng(9),
                            targets=targets, dist=dist, batch=128)  # fmt: skip
        finally:
            numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
        runs.append(res.scores)
    np.testing.assert_array_equal(runs[0], runs[1])


def test_parse_strategy():
    assert parse_strategy("Expected").theta == 0.0
    assert parse_strategy("win").wins
    assert parse_strategy("theta:-0.1").theta == -0.1
    for bad in ("lucky", "theta:x", "theta:5"):
        with pytest.raises(InputError):
            parse_strategy(bad)


def test_duel_cli(capsys):
    args = ["yatzy", "duel", "--games", "200", "--seed", "3", "--json", *FORCED]
    assert main([*args, "--first", "expected", "--second", "expected"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["games"] == 200 and data["first"] == "expected"
    assert data["wins"] + data["draws"] + data["losses"] == 200
    assert data["ci95"][0] <= data["win_rate"] <= data["ci95"][1]
    assert main([*args, "--first", "expected", "--second", "expected"]) == 0
    assert json.loads(capsys.readouterr().out)["wins"] == data["wins"]


@pytest.mark.parametrize(
    ("extra", "word"),
    [
        (["--games", "0"], "games"),
        (["--first", "lucky"], "lucky"),
        (["--second", "theta:9"], "theta"),
    ],
)
def test_duel_bad_input(extra, word, capsys):
    assert exit_code(["yatzy", "duel", *extra, *FORCED]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and word in err


def test_main_job_section_names_its_game_count_and_interval(monkeypatch, capsys):
    import diceopt.games.yatzy.winning.duel as duel_module

    monkeypatch.setattr(duel_module, "MAIN_JOB_GAMES", 300)
    lines: list[str] = []
    duel_module.main_job(lines.append)
    capsys.readouterr()  # progress lines
    # no stored Scandinavian target table in the test cache: the forced-order variant
    assert lines[0].startswith("== Yatzy head to head (scandinavian-forced)")
    assert "diceopt yatzy targets" in lines[1]
    games = [line for line in lines if "300 games, seed 0: win rate" in line]
    assert len(games) == 1 and "95% interval" in games[0] and "a small sample" in games[0]
    assert any(line.strip().startswith("mean final score: win ") for line in lines)


def test_early_rows_are_the_distributions_of_the_first_turns():
    # stored once, read back memory-mapped: the very numbers of a pass from each state,
    # and ``points_to_come`` reads them (forced order: few states, small tables)
    from diceopt.games.registry import get_game
    from diceopt.games.yatzy import get_solved
    from diceopt.games.yatzy.rulebook.variants import get_rules
    from diceopt.games.yatzy.stored import store as early_module
    from diceopt.games.yatzy.winning.win import points_to_come

    rules = get_rules("scandinavian-forced")
    solved = get_solved(rules, 0.0, "float32")
    table = early_module.early_table(rules)
    assert table.build(None) is True and table.ready() and table.is_stored()
    early_module._EARLY.clear()
    assert not table.ready() and table.load() and table.ready()
    rows = early_module.early_rows(solved)
    per = rows.flags * (rows.threshold + 1)
    seen = 0
    for key in rows.keys[:: max(1, rows.keys.size // 12)]:
        mask, rest = divmod(int(key), per)
        flag, upper = divmod(rest, rows.threshold + 1)
        assert bin(mask).count("1") <= early_module.EARLY_FILLED
        full = distribution(solved, mask=mask, flag=flag, upper=upper, base=None)
        assert np.array_equal(rows.pmf(mask, flag, upper), full.pmf)
        assert rows.rates(mask, flag, upper) == (full.bonus_rate, full.yatzy_rate)
        assert np.array_equal(points_to_come(solved, mask, flag, upper), full.pmf)
        seen += 1
    assert seen >= 10
    late = (1 << (early_module.EARLY_FILLED + 1)) - 1  # more boxes filled: not stored
    assert rows.pmf(late, 0, 0) is None and rows.rates(late, 0, 0) is None
    spec = get_game("yatzy")
    config = spec.rules(rules.name)
    names = [t.name for t in spec.tables(config, "versus", strategy="win")]
    assert sum("early distributions" in n for n in names) == 3  # theta 0, -0.05, +0.05
    names = [t.name for t in spec.tables(config, "versus", strategy="expected")]
    assert sum("early distributions" in n for n in names) == 1


def test_an_opponents_first_turns_are_read_from_the_stored_rows(monkeypatch):
    # an opponent with at most EARLY_FILLED boxes filled: its distribution comes from the
    # stored rows of the first turns (loaded on the way, not built), the very numbers of
    # a pass, for each table the win-seeking opponent tries; a table that is not this
    # process's own (a fresh solve) loads nothing
    import diceopt.games.yatzy.winning.win as win_module
    from diceopt.games.registry import get_game
    from diceopt.games.yatzy import get_solved
    from diceopt.games.yatzy.stored import store

    spec = get_game("yatzy")
    config = spec.rules("scandinavian-forced")
    rules = config.rules
    for theta in (0.0, -RISK_THETA, RISK_THETA):
        assert store.early_table(rules, theta).build(None) is True
    mine = parse_opponent("filled ones twos | upper 5 | score 5", rules)
    opponent = parse_opponent("filled ones twos threes | upper 9 | score 9", rules)
    plays_all = ("expected", "win")
    win_module._PMFS.clear()
    computed = {plays: opponent_distribution(config, opponent, mine, plays) for plays in plays_all}
    store._EARLY.clear()
    win_module._PMFS.clear()

    def no_pass(*args, **kwargs):
        raise AssertionError("a distribution was computed")

    monkeypatch.setattr("diceopt.games.yatzy.analyses.distribution.distribution", no_pass)
    for plays in plays_all:
        assert np.array_equal(opponent_distribution(config, opponent, mine, plays), computed[plays])
    solved = get_solved(rules, 0.0, "float32")
    assert store.stored_early_rows(solved) is store.early_rows(solved) is not None
    store._EARLY.clear()
    other = solve_table(rules, dtype="float32")
    assert store.stored_early_rows(other) is None and store.early_rows(solved) is None
    win_module._PMFS.clear()


def test_the_state_distributions_build_stores_the_early_rows_of_its_table():
    # one float64 pass gives both: the state distributions (rounded to float32) and the
    # early rows of the theta 0 table, the very bytes of the early rows' own build
    from diceopt.games.yatzy import get_solved
    from diceopt.games.yatzy.rulebook.variants import get_rules
    from diceopt.games.yatzy.stored import store

    rules = get_rules("scandinavian-forced")
    solved = get_solved(rules, 0.0, "float32")
    early = store.early_table(rules)
    assert early.build(None) is True
    own = store.early_rows(solved)
    store._EARLY.clear()
    early.path.unlink()
    pmfs = store.state_pmfs_table(rules)
    assert pmfs.build(None) is True
    assert early.ready() and early.is_stored()
    store._EARLY.clear()
    assert early.load()
    got = store.early_rows(solved)
    for name in ("values", "off", "length", "keys", "rows", "bonus_rate", "yatzy_rate"):
        assert np.array_equal(getattr(got, name), getattr(own, name)), name
    sd = store.loaded_pmfs(rules)
    assert sd is not None and sd.data.dtype == np.float32
    key = int(got.keys[0])
    per = got.flags * (got.threshold + 1)
    mask, rest = divmod(key, per)
    flag, upper = divmod(rest, got.threshold + 1)
    want = got.pmf(mask, flag, upper).astype(np.float32)
    assert np.array_equal(sd.pmf(mask, flag, upper), want.astype(np.float64))


@pytest.mark.parametrize("variant", ["scandinavian-forced", "american-forced-joker"])
def test_the_turns_writes_read_the_rows_roll_shift_names(variant):
    # win_turn spells out roll_shift for a normal write (a hot-loop twin); every write's
    # estimate read back through roll_shift (cat) must give the keep value with one
    # reroll of every die: sum over rolls of P(roll) x its best write
    rules = get_rules(variant)
    rows = solve_target_from(rules, 0, 0, 0, 120, dtype="float64", draw=True)
    K = kernel_arrays(rules, np.float64)
    rng = np.random.default_rng(3)
    full = (1 << rules.num_categories) - 1
    for i in range(6):
        mask = int(rng.integers(0, full))
        flag = i % rules.flags  # American: the Yahtzee bonus's flag set every other state
        if flag:
            mask = (mask | 1 << int(K.yz_cat)) & ~1  # the Yahtzee box filled, ones open
        upper = int(rng.integers(0, rules.bonus_threshold + 1))
        p = np.zeros(150)
        p[40:100] = rng.random(60)
        p /= p.sum()
        score, so = int(rng.integers(0, 60)), int(rng.integers(0, 60))
        args = (mask, flag, upper, score, so, p)
        best = []
        for r in range(K.roll_p.size):
            keep, cat, _ = win_detail(*args, r, *rows.flat, K, rules.flags, True)
            best.append(cat.max())
        assert min(best) >= 0.0  # every roll has a write whose row the turn filled
        assert keep[1, 0] == pytest.approx(float(np.dot(K.roll_p, best)), abs=1e-12)
