"""Target tables, playing to win and the duel under the Generala and Kniffel rules (served
scores, a box that needs the Yatzy box's points, the Kniffel bonus) on reduced variants:
every action of the target turn and of the win-seeking turn against the generic engine, a
hand-computed served game against the exact distribution, a one-box duel against its
exact win rates, and the commands with a rule file (full-size presets only where the
position leaves little to solve)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from test_yatzy_presets import ONE_DIE
from test_yatzy_presets import REDUCED as PRESETS
from test_yatzy_targets import AtLeast, assert_close_each
from test_yatzy_win import Beat, exact_against_finished

from diceopt.cli import main
from diceopt.engine import Chance, Decision, Objective, Terminal, compile_game, solve
from diceopt.engine.compile import DECISION
from diceopt.games.yatzy.analyses.distribution import distribution, state_distributions
from diceopt.games.yatzy.analyses.targets import solve_target_from, solve_targets
from diceopt.games.yatzy.kernel.arrays import kernel_arrays
from diceopt.games.yatzy.kernel.layers import iter_layer_states
from diceopt.games.yatzy.kernel.solve import solve_table
from diceopt.games.yatzy.play.engine_game import YatzyEngineGame, score_points
from diceopt.games.yatzy.rulebook.compiler import load_rules, load_rules_text
from diceopt.games.yatzy.winning.duel import parse_strategy, play_duel
from diceopt.games.yatzy.winning.win import win_detail

RULES = {name: load_rules(src).reduced(cats, **ch) for name, (src, cats, ch) in PRESETS.items()}
# the engine's graphs of these stay small (four dice or three sides)
SMALL = ["generala-4d4-bonus", "generala-5d3-full", "kniffel-4d6", "kniffel-3d3-free"]
# and of these with every target in one graph (about a million nodes: 20 s each)
EVERY = ["generala-5d3-full", "kniffel-3d3"]


@pytest.fixture(scope="module")
def tables():
    return {name: solve_targets(RULES[name], dtype="float64") for name in {*SMALL, *EVERY}}


# --- a hand-computed served game -----------------------------------------------------------


def test_served_by_hand_targets_are_the_exact_distribution():
    # one die of two sides, one box (10, served 15): P(>= k) is 7/8 up to 10 points and
    # 1/2 up to 15; the expected-score policy is the target policy at every k here, so
    # the table is the exact distribution's tail at every k
    rules = load_rules_text(ONE_DIE)
    table = solve_targets(rules, dtype="float64")
    start = table.dense()[0, 0, 0]
    want = np.array([1.0] + [7 / 8] * 10 + [1 / 2] * 5)
    np.testing.assert_allclose(start, want, atol=1e-15)
    pmf = distribution(solve_table(rules, dtype="float64")).pmf
    tail = np.cumsum(pmf[::-1])[::-1]
    np.testing.assert_allclose(start, tail, atol=1e-12)
    # after a 2 on the first roll, 15 points are reached only by writing it now
    two = 1  # the roll "2" (index among the sorted rolls)
    keep, cat, value = table.turn(0, 0, 0, 15, first=True)
    assert cat[two, 0] == 1.0 and value == pytest.approx(0.5, abs=1e-15)
    _, later, _ = table.turn(0, 0, 0, 15, first=False)
    assert later[two, 0] == 0.0 and keep[2, 0] == 0.0  # a reroll cannot serve it


# --- every action of the target turn against the engine -----------------------------------


class EveryTarget(AtLeast):
    """The engine games "P(points to come >= k)" for several k (``ks``) in one graph: a
    first chance node picks k (each the same probability)."""

    def __init__(self, rules, ks: list[int]) -> None:
        super().__init__(rules, 0)
        self.ks = ks

    def initial_state(self):
        return "k"

    def node(self, state):
        if state == "k":
            p = 1 / len(self.ks)
            return Chance([(p, 0.0, (self.inner.initial_state(), k)) for k in self.ks])
        return super().node(state)


def _target_turns_agree(rules, table, ks: list[int]) -> int:
    """Every turn-start state and every decision of the engine games "P(points to come >=
    k)" for k in ``ks`` (:class:`EveryTarget`): the table's probability, and each action's
    engine value (its successor's) against the target turn's (``table.turn`` at the
    node's state and points needed, ``first`` at two rerolls left) where the points needed
    are 1 more than a multiple of 5 (a fifth of the turns: the Python loop is the test's
    cost). Returns the decisions checked."""
    graph = compile_game(EveryTarget(rules, ks))
    sol = solve(graph, Objective())
    start = table.dense()[0, 0, 0, ks]
    assert sol.value == pytest.approx(start.mean(), abs=1e-9)
    base = int(rules.lattice.offset[rules.dice])
    turns: dict[tuple, tuple] = {}
    checked = 0
    full = (1 << rules.num_categories) - 1
    # the table's values, the engine node each must equal, and the state it belongs to
    got: list[float] = []
    node: list[int] = []
    at: list[int] = []
    kind, first_edge, target = graph.kind.tolist(), graph.start.tolist(), graph.target.tolist()
    for s, state in enumerate(graph.states):
        if state == "k":
            continue
        inner, need = state
        if inner[0] == "turn" and need > 0 and inner[1] != full:  # every turn-start state
            got.append(table.probability(*inner[1:], need))
            node.append(s)
            at.append(s)
        if kind[s] != DECISION or inner[0] != "roll" or need % 5 != 1:
            continue
        _, mask, flag, upper, t, r_flat = inner
        key = (mask, flag, upper, need, t == 2)
        if key not in turns:
            keep, cat, _ = table.turn(*key[:4], first=key[4])
            turns[key] = (keep.tolist(), cat.tolist())
        keep_rows, cat_rows = turns[key]
        cat_row, keep_row = cat_rows[r_flat - base], keep_rows[t]
        for e in range(first_edge[s], first_edge[s + 1]):
            what, arg = graph.actions[e]
            got.append(cat_row[arg] if what == "score" else keep_row[arg])
            node.append(target[e])
            at.append(s)
        checked += 1
    assert_close_each(got, sol.values[node], 1e-9, graph.states, at)
    return checked


@pytest.mark.parametrize("name", [*EVERY, "generala-4d4-bonus", "kniffel-4d6", "kniffel-3d3-free"])
def test_every_action_of_the_target_turn_is_the_engines(name, tables):
    # every k where the graph allows, else four (where served scores matter in 4d4)
    rules = RULES[name]
    top = rules.max_total
    ks = list(range(1, top + 1)) if name in EVERY else [1, top // 4, top // 2, 5 * top // 6]
    assert _target_turns_agree(rules, tables[name], ks) > 0


@pytest.mark.parametrize("name", SMALL)
def test_at_least_the_expected_policy_and_above_it_somewhere(name, tables):
    # P(final >= k) of the target table against the exact distribution of the
    # expected-score policy: never below it, equal at k = 0, and above it at some k (the
    # policies differ), falling with k
    rules = RULES[name]
    start = tables[name].dense()[0, 0, 0]
    pmf = distribution(solve_table(rules, dtype="float64")).pmf
    tail = np.zeros(start.size)
    tail[: pmf.size] = np.cumsum(pmf[::-1])[::-1][: start.size]
    assert start[0] == 1.0 and tail[0] == pytest.approx(1.0, abs=1e-12)
    assert (start >= tail - 1e-9).all()
    assert (start - tail).max() > 1e-3
    assert (np.diff(start) <= 1e-12).all()


def test_served_and_doble_change_the_target_turn(tables):
    # the checks above can fail: a served Poker, and a Doble with the Generala box held,
    # move the probabilities of writing a roll
    rules = RULES["generala-4d4-bonus"]
    table = tables["generala-4d4-bonus"]
    cats = rules.categories
    four = int(np.flatnonzero((rules.roll_counts == [0, 4, 0, 0]).all(axis=1))[0])
    poker = cats.index("poker")
    _, later, _ = table.turn(0, 0, 0, 45)
    _, first, _ = table.turn(0, 0, 0, 45, first=True)
    assert first[four, poker] == 1.0 > later[four, poker]
    rules = RULES["generala-5d3-full"]  # five dice: a Doble exists
    table = tables["generala-5d3-full"]
    five = int(np.flatnonzero((rules.roll_counts == [5, 0, 0]).all(axis=1))[0])
    doble, gen = (rules.categories.index(c) for c in ("doble_generala", "generala"))
    held = 1 << gen
    _, with_flag, _ = table.turn(held, 1, 0, 100)
    _, without, _ = table.turn(held, 0, 0, 100)  # the Generala box crossed out
    assert with_flag[five, doble] == 1.0 and without[five, doble] == 0.0


@pytest.mark.parametrize("name", ["generala-4d4-bonus", "kniffel-3d3-free"])
def test_target_from_a_state_is_the_full_table(name, tables):
    rules = RULES[name]
    table = tables[name]
    full = (1 << rules.num_categories) - 1
    states = [
        (int(m), int(f), int(u))
        for st in iter_layer_states(rules)
        for m, f, u in zip(st.mask, st.flag, st.upper, strict=True)
        if m != full
    ]
    for mask, flag, upper in states[::2]:
        for k in (1, 17, rules.max_total // 3):
            rows = solve_target_from(rules, mask, flag, upper, k, dtype="float64")
            assert rows.probability(mask, flag, upper, k) == table.probability(mask, flag, upper, k)
            for first in (False, True):
                got = rows.turn(mask, flag, upper, k, first)
                want = table.turn(mask, flag, upper, k, first)
                for a, b in zip(got, want, strict=True):
                    np.testing.assert_array_equal(a, b)


# --- playing to win -----------------------------------------------------------------------


@pytest.mark.parametrize("name", ["generala-4d4-bonus", "kniffel-4d6", "kniffel-3d3-free"])
@pytest.mark.parametrize("share", [0.2, 0.45])
def test_draw_aware_rows_are_exact_against_a_finished_opponent(name, share):
    rules = RULES[name]
    so = int(share * rules.max_total)
    rows = solve_target_from(rules, 0, 0, 0, so + 1, dtype="float64", draw=True)
    K = kernel_arrays(rules, np.float64)
    _, _, value = win_detail(0, 0, 0, 0, so, np.ones(1), 0, *rows.flat, K, rules.flags, True, False)
    assert value == pytest.approx(exact_against_finished(rules, 0, 0, 0, so), abs=1e-9)


def test_win_advice_scores_a_served_box_on_the_first_roll(tables):
    # every category of one roll against the engine, on the first roll (served) and later
    rules = RULES["generala-4d4-bonus"]
    table = tables["generala-4d4-bonus"]
    K = kernel_arrays(rules, np.float64)
    counts = np.array([0, 4, 0, 0])
    r = int(np.flatnonzero((rules.roll_counts == counts).all(axis=1))[0])
    so = 30
    for first in (True, False):
        _, cat, _ = win_detail(
            0, 0, 0, 0, so, np.ones(1), r, *table.flat, K, rules.flags, False, first
        )
        game = Beat(rules, None, 0, so)
        for c in range(rules.num_categories):
            pts, m2, f2, u2 = score_points(rules, 0, 0, 0, counts, c, first)
            engine = solve(compile_game(_From(game, (("turn", m2, f2, u2), int(pts)))), Objective())
            assert cat[c] == pytest.approx(engine.value, abs=1e-9), (first, c)


class _From:
    """An engine game started from one of its states."""

    def __init__(self, game, state) -> None:
        self.game, self.state = game, state

    def initial_state(self):
        return self.state

    def node(self, state):
        return self.game.node(state)


class AgainstPmf:
    """The engine game "beat an opponent whose final score is drawn from ``pmf`` (points,
    not seen)": the Yatzy engine game scored at its end by P(opponent < b) + 1/2
    P(opponent = b) for the b points made."""

    def __init__(self, rules, pmf: np.ndarray) -> None:
        self.inner = YatzyEngineGame(rules)
        cdf = np.concatenate(([0.0], np.cumsum(pmf)))
        self.worth = lambda b: float(cdf[min(b, pmf.size)] + 0.5 * (pmf[b] if b < pmf.size else 0))

    def initial_state(self):
        return (self.inner.initial_state(), 0)

    def node(self, state):
        inner, b = state
        node = self.inner.node(inner)
        if isinstance(node, Terminal):
            return Terminal(self.worth(b))
        if isinstance(node, Chance):
            return Chance([(p, 0.0, (s, b + int(r))) for p, r, s, *_ in node.outcomes])
        return Decision([(a, 0.0, (s, b + int(r))) for a, r, s in node.actions])


def test_one_box_duel_is_the_exact_win_rates():
    # one box (Poker, served 45 on the first roll): the win-seeking turn is exact in both
    # seats (its one turn ends the game), so its estimate is the engine's value, and a
    # seeded duel against expected-score play wins as often within 4 standard errors
    rules = load_rules("generala").reduced(("poker",), dice=4)
    table = solve_table(rules, dtype="float64")
    targets = solve_targets(rules, dtype="float64")
    pmf = distribution(table).pmf
    K = kernel_arrays(rules, np.float64)
    rows = targets.flat
    # moving first, against the expected-score player's distribution
    first = solve(compile_game(AgainstPmf(rules, pmf)), Objective()).value
    _, _, est = win_detail(0, 0, 0, 0, 0, pmf, 0, *rows, K, rules.flags, False, False)
    assert est == pytest.approx(first, abs=1e-9)
    # moving second, against each final score of the first player
    second = sum(q * exact_against_finished(rules, 0, 0, 0, x) for x, q in enumerate(pmf) if q)
    e, w = parse_strategy("expected"), parse_strategy("win")
    res = play_duel(e, w, (table, table), 40_000, np.random.default_rng(4), targets=targets,
                    dist=state_distributions(table))  # fmt: skip
    mine, other = res.scores[:, 1], res.scores[:, 0]
    outcome = (mine > other) + 0.5 * (mine == other)
    for seat, exact in ((0, second), (1, first)):  # even games: expected starts
        y = outcome[seat::2]
        assert abs(y.mean() - exact) < 4 * y.std() / np.sqrt(y.size), seat
    assert 0.1 < first < 0.9 and 0.1 < second < 0.9
    assert set(np.unique(res.scores)) <= {0, 40, 45}


def test_kniffel_duel_scores_as_the_table():
    # win against expected under the Kniffel bonus rule: the expected-score seat averages
    # the table's value, the game is seeded
    rules = RULES["kniffel-4d6"]
    table = solve_table(rules, dtype="float64")
    targets, dist = solve_targets(rules, dtype="float64"), state_distributions(table)
    w, e = parse_strategy("win"), parse_strategy("expected")

    def play(seed: int):
        return play_duel(w, e, (table, table), 10_000, np.random.default_rng(seed),
                         targets=targets, dist=dist)  # fmt: skip

    res = play(8)
    s = res.scores[:, 1]
    assert abs(s.mean() - table.value) < 4 * s.std() / np.sqrt(s.size)
    assert res.scores.max() <= rules.max_total
    np.testing.assert_array_equal(play(8).scores, res.scores)


# --- the commands with a rule file ----------------------------------------------------------

# a reduced Generala: a served Poker and Full, the Generala box and a Doble
GENERALA_FILE = """\
name = "small-generala"
dice = 5
sides = 3
[bonus]
points = 0
[categories.twos]
kind = "face"
face = 2
[categories.full]
kind = "full_house"
score = 30
served = 35
[categories.poker]
kind = "of_a_kind"
count = 4
score = 40
served = 45
[categories.generala]
kind = "yatzy"
score = 50
[categories.doble_generala]
kind = "of_a_kind"
count = 5
score = 100
needs_yatzy = true
"""


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out = capsys.readouterr()
    return status, out.out, out.err


def test_targets_advice_and_duel_take_a_generala_file(tmp_path, capsys):
    path = tmp_path / "small-generala.toml"
    path.write_text(GENERALA_FILE)
    rules = ["--rules", str(path)]
    status, out, err = run(capsys, "yatzy", "targets", *rules, "--json")
    assert status == 0, err
    data = json.loads(out)
    want = solve_targets(load_rules(path), dtype=data["dtype"])  # a rule file's: float64
    assert data["kmax"] == want.kmax and data["states"] == want.states
    assert data["p_at_least"]["200"] == want.probability(0, 0, 0, 200)
    pos = "dice 1 2 2 2 2 | rerolls 2 | score 0"
    status, out, err = run(capsys, "yatzy", "advise", *rules, pos, "--target", "45", "--json")
    assert status == 0, err
    actions = {a["action"]: a["value"] for a in json.loads(out)["actions"]}
    small = load_rules(path)
    r = int(np.flatnonzero((small.roll_counts == [1, 4, 0]).all(axis=1))[0])
    poker = small.categories.index("poker")
    assert actions["score poker"] == pytest.approx(want.turn(0, 0, 0, 45, True)[1][r, poker])
    assert actions["score poker"] > 0.9  # served: 45 points now, then the rest
    opp = "filled twos | upper 4 | score 4"
    status, out, err = run(capsys, "yatzy", "advise", *rules, pos, "--opponent", opp, "--json")
    assert status == 0, err
    assert all(0.0 <= a["value"] <= 1.0 for a in json.loads(out)["actions"])
    duel = ["yatzy", "duel", *rules, "--games", "300", "--seed", "3", "--json"]
    status, out, err = run(capsys, *duel)
    assert status == 0, err
    data = json.loads(out)
    assert data["games"] == 300 and data["first"] == "win"
    again = json.loads(run(capsys, *duel)[1])
    assert {**again, "seconds": 0} == {**data, "seconds": 0}  # seeded


@pytest.mark.parametrize(
    ("preset", "pos"),
    [
        ("generala", "dice 6 6 6 6 5 | rerolls 1 | filled ones twos threes fours fives "
         "escalera full generala | upper 30 | yahtzee-bonus yes | score 120"),
        ("kniffel", "dice 6 6 6 6 6 | rerolls 0 | filled ones twos threes fours fives "
         "three_of_a_kind four_of_a_kind full_house small_straight large_straight kniffel "
         "| upper 40 | score 230"),
    ],
)  # fmt: skip
def test_full_size_presets_advise_a_target_late_in_the_game(preset, pos, capsys):
    # the target advice solves only what the position needs (two or three boxes open)
    status, out, err = run(capsys, "yatzy", "advise", "--rules", preset, pos, "--target",
                           "280", "--json")  # fmt: skip
    assert status == 0, err
    actions = json.loads(out)["actions"]
    assert actions[0]["regret"] == 0.0 and all(0.0 <= a["value"] <= 1.0 for a in actions)
    if preset == "kniffel":  # a further Kniffel must go into the free Sixes: 30 + 50 more
        assert [a["action"] for a in actions] == ["score sixes"]
