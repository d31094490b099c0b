"""One player of the push-your-luck family: the long-run expected score per turn (Zilch)."""

import itertools
from fractions import Fraction

import numpy as np
import pytest

from diceopt.games.families import push_luck_solo
from diceopt.games.families.push_luck import load_rules
from diceopt.games.families.push_luck_solo import fixed_policy_gain, solve_solo, solved

COIN = """
family = "push-luck"
dice = 1
sides = 2
bust_streak = 2
bust_penalty = {penalty}
[[combination]]
kind = "single"
points = [1, 0]
"""


@pytest.fixture(scope="module")
def zilch():
    return solved("zilch", load_rules("zilch"))


def test_zilch_published_value(zilch):
    # RULES §9: 620.855 (Busche), reproduced independently to 620.854672
    assert round(zilch.gain, 3) == 620.855
    assert zilch.gain == pytest.approx(620.854672, abs=1e-6)
    assert zilch.residual < 1e-9
    assert zilch.h[0] == pytest.approx(0.0, abs=1e-9)
    assert zilch.h[2] < zilch.h[1] < 0  # a zilch streak costs later turns


def test_zilch_policy_depends_on_the_streak(zilch):
    summary = zilch.policy_summary()
    assert summary["0"]["6"] is None  # six dice never bust in Zilch: always roll them
    assert summary["0"]["5"] > summary["1"]["5"] > summary["2"]["5"]  # bolder with no zilch
    for s in range(3):
        assert all(zilch.rolls_above(s, n) == [] for n in range(1, 7))  # thresholds


def test_a_stored_solution_loads_as_solved(tmp_path, monkeypatch, zilch):
    """Solved once and stored: a later process (the memo cleared) loads the same gain,
    h and turn arrays bit for bit without solving; a damaged file is solved again."""
    rules = zilch.rules
    monkeypatch.setattr(push_luck_solo, "_SOLVED", {})
    first = solved("zilch", rules, tmp_path)
    files = list((tmp_path / "zilch").glob("solo-*.tbl"))
    assert len(files) == 1
    monkeypatch.setattr(push_luck_solo, "_SOLVED", {})
    monkeypatch.setattr(push_luck_solo, "solve_solo", lambda *a, **k: pytest.fail("solved"))
    again = solved("zilch", rules, tmp_path)
    assert (again.gain, again.h, again.cap) == (first.gain, first.h, first.cap)
    assert (again.iterations, again.residual) == (first.iterations, first.residual)
    for a, b in zip(again.turns, first.turns, strict=True):
        for name in push_luck_solo.TURN_ARRAYS:
            assert np.array_equal(getattr(a, name), getattr(b, name))
    assert again.policy_summary() == first.policy_summary()
    data = bytearray(files[0].read_bytes())
    data[-9] ^= 0xFF  # a flipped byte in the arrays: the checksum fails
    files[0].write_bytes(bytes(data))
    monkeypatch.setattr(push_luck_solo, "_SOLVED", {})
    monkeypatch.setattr(push_luck_solo, "solve_solo", lambda r: zilch)
    assert solved("zilch", rules, tmp_path) is zilch


def test_the_process_keeps_a_few_solutions(tmp_path, monkeypatch):
    """Solutions kept in the process are bounded (the oldest let go), each still stored."""
    monkeypatch.setattr(push_luck_solo, "_SOLVED", {})
    rules = []
    for penalty in range(push_luck_solo.KEEP_SOLVED + 1):
        path = tmp_path / f"coin{penalty}.toml"
        path.write_text(COIN.format(penalty=penalty))
        rules.append(load_rules(str(path)))
        solved("zilch", rules[-1], tmp_path / "cache")
    kept = push_luck_solo._SOLVED
    assert len(kept) == push_luck_solo.KEEP_SOLVED and ("zilch", rules[0]) not in kept
    assert len(list((tmp_path / "cache" / "zilch").glob("solo-*.tbl"))) == len(rules)


def test_raising_the_cap_changes_nothing(zilch):
    wider = solve_solo(zilch.rules, cap=2 * zilch.cap)
    assert wider.gain == pytest.approx(zilch.gain, abs=1e-9)
    assert wider.policy_summary() == zilch.policy_summary()


def coin_gain(penalty):
    """By hand: one two-sided die (a 1 scores a point, a 2 busts), two busts in a row cost
    ``penalty``; a policy banks after j0 (j1) points at streak 0 (1); stationary chain."""
    best = None
    for j0, j1 in itertools.product(range(1, 12), repeat=2):
        q0 = 1 - Fraction(1, 2**j0)
        r0 = j0 * Fraction(1, 2**j0)
        r1 = j1 * Fraction(1, 2**j1) - penalty * (1 - Fraction(1, 2**j1))
        g = (r0 + q0 * r1) / (1 + q0)
        best = g if best is None else max(best, g)
    return best


@pytest.mark.parametrize("penalty", [0, 1, 3])
def test_one_die_by_hand(tmp_path, penalty):
    path = tmp_path / "coin.toml"
    path.write_text(COIN.format(penalty=penalty))
    rules = load_rules(str(path))
    assert solve_solo(rules, cap=200).gain == pytest.approx(float(coin_gain(penalty)), abs=1e-12)


def zilch_points(dice):
    """The most points of a set of Zilch dice used up entirely (None: not all score),
    straight from RULES §9 (independent of the rule file's compiler)."""
    counts = [dice.count(f) for f in range(1, 7)]
    options = []
    if len(dice) == 6 and all(c == 1 for c in counts):
        options.append(1500)
    if len(dice) == 6 and all(c % 2 == 0 for c in counts):
        options.append(1500)
    for f in range(1, 7):
        for c in range(3, counts[f - 1] + 1):
            rest = list(dice)
            for _ in range(c):
                rest.remove(f)
            sub = zilch_points(tuple(rest))
            if sub is not None:
                options.append((1000 if f == 1 else 100 * f) * 2 ** (c - 3) + sub)
    for f, p in ((1, 100), (5, 50)):
        if f in dice:
            rest = list(dice)
            rest.remove(f)
            sub = zilch_points(tuple(rest))
            if sub is not None:
                options.append(p + sub)
    if not dice:
        return 0
    return max(options) if options else None


CHOICES = {}


def greedy_choice(roll, cache=CHOICES):
    """Zilch: the set-aside with the most points (ties: more dice left), as (points, dice
    left), or None (a zilch); a six-dice roll with nothing scores 500."""
    if roll not in cache:
        best = None
        for size in range(1, len(roll) + 1):
            for sub in set(itertools.combinations(roll, size)):
                pts = zilch_points(sub)
                if pts and (best is None or pts > best[0]):
                    best = (pts, len(roll) - size)
        if best is None and len(roll) == 6:
            best = (500, 0)
        cache[roll] = best
    return cache[roll]


def test_fixed_policy_exact_matches_simulation():
    rules = load_rules("zilch")
    bank_at = [300, 300, 400, 600, 1000, 10**9]  # by dice to roll 1..6 (never with six)
    gain, _ = fixed_policy_gain(rules, bank_at)
    rng = np.random.default_rng(2024)
    turns, streak, scores = 30_000, 0, []
    for _ in range(turns):
        total, n = 0, 6
        while True:
            roll = tuple(sorted(int(x) for x in rng.integers(1, 7, size=n)))
            choice = greedy_choice(roll)
            if choice is None:
                streak += 1
                scores.append(-500 if streak == 3 else 0)
                streak %= 3
                break
            total += choice[0]
            n = choice[1] or 6
            if total >= bank_at[n - 1] and total >= 300:
                scores.append(total)
                streak = 0
                break
    scores = np.array(scores, dtype=float)
    se = scores.std(ddof=1) / np.sqrt(turns)
    # the start (no zilches) biases the mean by at most |h| / turns (< 0.01 points)
    assert abs(scores.mean() - gain) < 4 * se, (scores.mean(), gain, se)
    assert 400 < gain < 620.85  # a fair policy, below the optimum
