"""Yatzy simulation of optimal play: seeded means vs exact values, flags, policy, sweep, CLI."""

from __future__ import annotations

import json

import numba
import numpy as np
import pytest

import diceopt.games.yatzy.kernel.simulation as sim
from diceopt.cli import main
from diceopt.errors import InputError
from diceopt.games.yatzy.commands.sweep import SweepRow, parse_thetas, sweep, sweep_tables
from diceopt.games.yatzy.kernel.dice_stream import dice_stream
from diceopt.games.yatzy.kernel.simulation import simulate, summarize, turn_policy
from diceopt.games.yatzy.kernel.solve import solve_table
from diceopt.games.yatzy.kernel.turn import box_points, scores_plainly
from diceopt.games.yatzy.rulebook.compiler import load_rules
from diceopt.games.yatzy.rulebook.rules import YatzyRules
from diceopt.games.yatzy.rulebook.variants import AMERICAN, SCANDINAVIAN, VARIANT_RULES, get_rules

SCANDINAVIAN_VALUE = 248.4399893778553
AMERICAN_VALUE = 254.58960948196315


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    """DICEOPT_CACHE points at a temporary directory for the whole module."""
    path = tmp_path_factory.mktemp("yatzy-sim-cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DICEOPT_CACHE", str(path))
        yield path


@pytest.fixture(scope="module")
def scand64():
    return solve_table(SCANDINAVIAN, dtype="float64")


@pytest.fixture(scope="module")
def american32():
    return solve_table(AMERICAN, dtype="float32")


def within_4_se(result, exact):
    s = result.summary()
    return abs(s["mean"] - exact) <= 4 * s["std_error"], s


# --- the simulated mean is the exact value ---------------------------------------------


def test_scandinavian_float64_mean_matches_published_value(scand64):
    assert scand64.value == pytest.approx(SCANDINAVIAN_VALUE, abs=1e-9)
    result = simulate(scand64, 40_000, np.random.default_rng(11))
    ok, s = within_4_se(result, SCANDINAVIAN_VALUE)
    assert ok, s
    assert s["games"] == 40_000 and result.scores.dtype == np.int64
    assert 0.15 < s["std_error"] < 0.25  # std about 38 points
    assert s["min"] >= 0 and s["max"] <= 374  # Scandinavian maximum
    assert list(s["percentiles"]) == ["1", "5", "10", "25", "50", "75", "90", "95", "99"]
    pct = list(s["percentiles"].values())
    assert pct == sorted(pct) and s["min"] <= pct[0] and pct[-1] <= s["max"]
    assert s["exact"] == scand64.value


def test_american_mean_matches_published_value(american32):
    result = simulate(american32, 30_000, np.random.default_rng(12))
    ok, s = within_4_se(result, AMERICAN_VALUE)
    assert ok, s
    assert (result.scores >= 0).all()
    # the Yahtzee bonus (100 each) makes scores above the no-bonus maximum possible
    assert result.scores.max() > 375


@pytest.mark.parametrize(
    "rules",
    [
        SCANDINAVIAN.reduced(("ones", "twos", "three_of_a_kind", "yatzy"), bonus_threshold=6),
        SCANDINAVIAN.reduced(("twos", "small_straight", "full_house", "chance"), forced_order=True),
        VARIANT_RULES["scandinavian-accepts"].reduced(("two_pairs", "full_house", "yatzy")),
        AMERICAN.reduced(("ones", "full_house", "large_straight", "yahtzee"), bonus_threshold=3),
        VARIANT_RULES["american-forced-joker"].reduced(
            ("twos", "small_straight", "yahtzee", "chance"), bonus_threshold=4
        ),
        VARIANT_RULES["american-no-joker"].reduced(("full_house", "yahtzee", "chance")),
        SCANDINAVIAN.reduced(("ones", "twos", "threes", "chance"), dice=3, sides=4),
    ],
    ids=["scand", "forced-order", "accepts", "am-free", "am-forced", "am-no-joker", "3d4"],
)
def test_reduced_variants_mean_matches_exact(rules):
    table = solve_table(rules, dtype="float64")
    result = simulate(table, 60_000, np.random.default_rng(13))
    ok, s = within_4_se(result, table.value)
    assert ok, s


@pytest.mark.parametrize("theta", [-0.3, 0.2])
def test_theta_table_certainty_equivalent_matches(theta):
    """exp(theta * CE) = E[exp(theta X)]: the simulated utility agrees with the table."""
    rules = SCANDINAVIAN.reduced(("threes", "one_pair", "yatzy"), bonus_threshold=6)
    table = solve_table(rules, dtype="float64", theta=theta)
    result = simulate(table, 100_000, np.random.default_rng(14))
    u = np.exp(theta * (result.scores - table.value))  # relative to the CE: mean 1
    assert abs(u.mean() - 1.0) <= 4 * u.std(ddof=1) / np.sqrt(u.size)


def test_yatzy_rate_is_the_three_roll_probability():
    """A one-category game: score 50 exactly when five of a kind is made in three rolls."""
    table = solve_table(SCANDINAVIAN.reduced(("yatzy",)), dtype="float64")
    p = table.value / 50.0
    assert p == pytest.approx(0.04602864, abs=1e-7)  # the classic 4.6%
    result = simulate(table, 200_000, np.random.default_rng(15))
    assert set(np.unique(result.scores)) <= {0, 50}
    assert np.array_equal(result.yatzy, result.scores == 50)
    assert not result.bonus.any()
    s = result.summary()
    assert abs(s["yatzy_rate"] - p) <= 4 * np.sqrt(p * (1 - p) / 200_000)


def test_bonus_flag_is_exactly_the_bonus():
    """Upper categories only: a game has the bonus iff its score is at least 40 + 50."""
    rules = SCANDINAVIAN.reduced(("fours", "fives", "sixes"), bonus_threshold=40)
    table = solve_table(rules, dtype="float64")
    result = simulate(table, 50_000, np.random.default_rng(16))
    assert np.array_equal(result.bonus, result.scores >= 90)
    assert ((result.scores < 40) | (result.scores >= 90)).all()
    assert 0.05 < result.bonus.mean() < 0.95
    assert within_4_se(result, table.value)[0]


def test_flags_consistent_with_scores(scand64, american32):
    for table in (scand64, american32):
        result = simulate(table, 20_000, np.random.default_rng(17))
        s = result.summary()
        assert (result.scores[result.bonus] >= 63 + table.rules.bonus).all()
        assert (result.scores[result.yatzy] >= 50).all()
        assert s["bonus_rate"] == result.bonus.mean() and s["yatzy_rate"] == result.yatzy.mean()
        assert 0.5 < s["bonus_rate"] < 0.95 and 0.25 < s["yatzy_rate"] < 0.5


# --- determinism and the grouping ------------------------------------------------------


def test_same_seed_same_games_and_batches(american32, monkeypatch):
    monkeypatch.setattr(sim, "COUNTING_KEYS_PER_GAME", 1 << 40)  # the counting sort here
    a = simulate(american32, 3000, np.random.default_rng(5))
    b = simulate(american32, 3000, np.random.default_rng(5))
    c = simulate(american32, 3000, np.random.default_rng(6))
    assert np.array_equal(a.scores, b.scores) and np.array_equal(a.bonus, b.bonus)
    assert np.array_equal(a.yatzy, b.yatzy)
    assert not np.array_equal(a.scores, c.scores)
    # the argsort grouping (large state spaces, few games) and the counting sort on each
    # turn's layer (American: 1,048,576 flat keys, at most 219,648 in a layer; below
    # 100,000 in 9 of its 13 turns, the others argsorted) give exactly the counting
    # sort's games
    for limit in (0, 100_000, 300_000):
        monkeypatch.setattr(sim, "MAX_COUNTING_KEYS", limit)
        d = simulate(american32, 3000, np.random.default_rng(5))
        assert np.array_equal(a.scores, d.scores) and np.array_equal(a.yatzy, d.yatzy)
        assert np.array_equal(a.distinct_states, d.distinct_states)
    # batches: every game is played, and the batch size is part of the seed's meaning
    e = simulate(american32, 3001, np.random.default_rng(5), batch=1000)
    f = simulate(american32, 3001, np.random.default_rng(5), batch=1000)
    assert e.games == 3001 and np.array_equal(e.scores, f.scores)
    assert e.distinct_states[0] == 4  # one start state per batch
    with pytest.raises(InputError):
        simulate(american32, 0, np.random.default_rng(5))


@pytest.mark.parametrize("seed", [0, 1])
def test_layer_grouping_is_the_argsorts(seed):
    # games of one layer (4 of 13 boxes filled, both flags, any upper total) grouped on
    # the layer's own keys: the same order of games, groups and keys as a stable argsort
    # of the flat keys
    from diceopt.games.yatzy.kernel.layers import layer_masks

    rng = np.random.default_rng(seed)
    masks = layer_masks(AMERICAN)[4]
    flags, width = AMERICAN.flags, AMERICAN.bonus_threshold + 1
    fw = flags * width
    picked = masks[rng.integers(0, masks.size, 40)]  # few states, many games each
    keys = (picked * flags + rng.integers(0, flags, 40)) * width + rng.integers(0, width, 40)
    words = keys[rng.integers(0, keys.size, 5000)] | (rng.integers(0, 300, 5000) << sim.KEY_BITS)
    rank = np.zeros(1 << AMERICAN.num_categories, dtype=np.int64)
    rank[masks] = np.arange(masks.size)
    count = np.empty(masks.size * fw, dtype=np.int32)
    out = np.empty_like(words)
    lkey = np.empty(words.size, dtype=np.int32)
    starts, gkey = sim._group(words, count, out, rank, masks, fw, lkey)
    want_words, want_starts, want_keys = sim._group_numpy(words)
    assert np.array_equal(out, want_words) and np.array_equal(starts, want_starts)
    assert np.array_equal(gkey, want_keys) and gkey.size <= 40


def test_same_games_on_one_thread(american32):
    # the dice are drawn a turn ahead on a pool thread (or here, on one thread): the same
    # numbers in the same order either way, so the same games
    a = simulate(american32, 2500, np.random.default_rng(9), batch=1000)
    numba.set_num_threads(1)
    try:
        b = simulate(american32, 2500, np.random.default_rng(9), batch=1000)
    finally:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    assert np.array_equal(a.scores, b.scores) and np.array_equal(a.yatzy, b.yatzy)
    # and the numbers a game used are the generator's in order: turn by turn, batch by
    # batch, however many draws may wait (one, or all)
    for most in (1, 1 << 20):
        rng = np.random.default_rng(9)
        stream = dice_stream(np.random.default_rng(9), 7776, 10, 2, batch=4, most_bytes=most)
        draws = list(stream)
        assert [d.shape[0] for d in draws] == [4, 4, 4, 4, 2, 2]
        for d in draws:
            assert np.array_equal(d, rng.integers(0, 7776, size=d.shape, dtype=np.int32))
        stream.thread.join(timeout=60)  # a hang guard, not a timing
        assert not stream.thread.is_alive()


def test_dice_drawn_ahead_play_the_same_games(american32):
    """A command starts the dice before it loads the kernels: the same games; a stream
    for other games is refused, and one closed before its games ends its thread."""
    a = simulate(american32, 2500, np.random.default_rng(4), batch=1000)
    rng = np.random.default_rng(4)
    ncat = american32.rules.num_categories
    b = simulate(american32, 2500, rng, batch=1000, drawn=dice_stream(rng, 7776, 2500, ncat, 1000))
    assert np.array_equal(a.scores, b.scores) and np.array_equal(a.yatzy, b.yatzy)
    rng = np.random.default_rng(4)
    other = dice_stream(rng, 7776, 2400, ncat, 1000)
    with pytest.raises(ValueError, match="other games"):
        simulate(american32, 2500, rng, batch=1000, drawn=other)
    other.thread.join(timeout=60)  # closed by the refusal: the thread ends
    assert not other.thread.is_alive()
    unused = dice_stream(np.random.default_rng(4), 7776, 10**6, ncat, most_bytes=1)
    unused.close()
    unused.thread.join(timeout=60)
    assert not unused.thread.is_alive()


def test_distinct_states_counted(scand64):
    result = simulate(scand64, 5000, np.random.default_rng(3))
    ds = result.distinct_states
    assert ds.size == 15 and ds[0] == 1 and 1 < ds[1] <= 15 * 7
    assert (ds <= 5000).all()


# --- the policy is the widget's ---------------------------------------------------------


def _check_policy(table, states):
    rules = table.rules
    lat = rules.lattice
    base = int(lat.offset[rules.dice])
    for mask, flag, upper in states:
        pol = turn_policy(table, mask, flag, upper)
        roll_value, keep_value, _, _ = table.widget(mask, flag, upper)
        scale = 1e-7 * max(1.0, float(np.abs(roll_value).max()))
        for r in range(roll_value.shape[1]):
            cv = table.category_values(mask, flag, upper, r)
            c = -pol[0, r] - 1
            assert 0 <= c < rules.num_categories
            assert cv[c] == pytest.approx(roll_value[0, r], abs=scale)
            for t in (1, 2):
                a = pol[t, r]
                if a < 0:
                    assert a == pol[0, r]
                    got = roll_value[0, r]
                else:
                    keep = lat.counts[a]
                    assert (keep <= lat.counts[base + r]).all() and keep.sum() < rules.dice
                    got = keep_value[t, a]
                assert got == pytest.approx(roll_value[t, r], abs=scale)


def _random_states(table, n, rng):
    values = table.values
    idx = np.argwhere(~np.isnan(values))
    full = (1 << table.rules.num_categories) - 1
    idx = idx[idx[:, 0] != full]
    pick = idx[rng.choice(len(idx), size=n, replace=False)]
    return [tuple(int(x) for x in row) for row in pick] + [(0, 0, 0)]


def test_policy_matches_widget_scandinavian(scand64):
    _check_policy(scand64, _random_states(scand64, 25, np.random.default_rng(1)))


def test_policy_matches_widget_american(american32):
    table = american32
    states = _random_states(table, 25, np.random.default_rng(2))
    yz = AMERICAN.yahtzee_category
    states += [(1 << yz, 1, 0), ((1 << yz) | 0b111, 1, 20), ((1 << yz) | (1 << 8), 0, 0)]
    _check_policy(table, states)


@pytest.mark.parametrize("theta", [-0.5, 0.3])
def test_policy_matches_widget_with_theta(theta):
    rules = AMERICAN.reduced(("twos", "full_house", "yahtzee", "chance"), bonus_threshold=4)
    table = solve_table(rules, dtype="float64", theta=theta)
    _check_policy(table, _random_states(table, 12, np.random.default_rng(4)))


# --- the simulation's policies (the solver's lanes) and its seeded games -------------------

SMALL_AMERICAN = AMERICAN.reduced(("ones", "twos", "full_house", "yahtzee"), bonus_threshold=5)
SMALL_SCANDINAVIAN = SCANDINAVIAN.reduced(
    ("ones", "fives", "sixes", "chance", "yatzy"), bonus_threshold=12
)


@pytest.mark.parametrize("rules", [SMALL_AMERICAN, SMALL_SCANDINAVIAN], ids=["am", "sc"])
def test_simulation_policies_are_the_widgets(rules):
    """Every reachable state's policy as the simulation computes it (the solver's lanes
    for theta 0, in blocks not a multiple of the lanes) is turn_policy's (the widget)."""
    table = solve_table(rules, dtype="float64")
    tab, K = table.policy_arrays, table.arrays64
    keys = np.flatnonzero(~np.isnan(table.values.reshape(-1)))
    full = (1 << rules.num_categories) - 1
    states = sim._decode(keys.astype(np.int64), tab.flags, tab.width)
    keep = states.mask != full
    states = type(states)(*(a[keep].copy() for a in states))
    n = states.mask.size
    assert n > sim.LANES
    pol = np.empty((n, 3, len(rules.roll_counts)), dtype=np.int16)
    for lo in range(0, n, 100):
        hi = min(n, lo + 100)
        sim._policies(states, lo, hi, tab, K, pol[lo:], 2)
    for i in range(n):
        want = turn_policy(table, states.mask[i], states.flag[i], states.upper[i])
        assert np.array_equal(pol[i], want), (i, states.mask[i], states.upper[i])


DIRECT_CASES = {
    "am": (SMALL_AMERICAN, 0.0),  # jokers and the Yahtzee bonus
    "sc": (SMALL_SCANDINAVIAN, 0.0),
    "sc-theta": (SMALL_SCANDINAVIAN, -0.05),
    "kniffel": (load_rules("kniffel").reduced(("twos", "full_house", "kniffel", "chance")), 0.0),
    "generala": (load_rules("generala").reduced(("ones", "generala", "doble_generala")), 0.0),
    "maxi": (get_rules("maxi").reduced(("ones", "sixes", "three_pairs", "chance")), 0.0),
    "four-sides": (YatzyRules(categories=("ones", "twos", "fours", "chance"), sides=4), 0.0),
}


@pytest.mark.parametrize("key", sorted(DIRECT_CASES))
def test_direct_play_is_the_policys(key, monkeypatch):
    """States few games reach play each roll's choice as it comes (the category and the
    lowest best keep of that roll alone), the others from their whole policy: the same
    games either way, for every game (all direct, none direct; served scores, Generala,
    always from the whole policy)."""
    rules, theta = DIRECT_CASES[key]
    table = solve_table(rules, dtype="float64", theta=theta)
    games = {}
    for below in (0, 1 << 40):
        monkeypatch.setattr(sim, "DIRECT_BELOW", below)
        games[below] = simulate(table, 4000, np.random.default_rng(3))
    a, b = games.values()
    assert np.array_equal(a.scores, b.scores)
    assert np.array_equal(a.bonus, b.bonus) and np.array_equal(a.yatzy, b.yatzy)
    assert a.scores.std() > 0


@numba.njit  # not cached: a cached test kernel keeps the package code it inlined
def _plain_writes_agree(K, masks, uppers, width, flags):
    """Over every roll r, category c (open), first and flag, and the given masks and
    upper totals, where ``scores_plainly`` holds: the number of writes checked, and of those
    where ``write_plain`` (or ``K.score``) differs from ``write_state`` (``box_points``)."""
    R, C = K.score.shape
    checked = 0
    wrong = 0
    for ms in masks:
        for fl in range(flags):
            for u in uppers:
                w = np.int64(7) << sim.KEY_BITS  # 7 points so far
                for r in range(R):
                    for c in range(C):
                        if (ms >> c) & 1:
                            continue
                        for first in (False, True):
                            if not scores_plainly(r, c, first, K.yz_face, K.needs):
                                continue
                            checked += 1
                            full = sim.write_state(w, ms, fl, u, r, c, first, K, flags, width)
                            plain = sim.write_plain(
                                w, ms, fl, u, r, c, K.score, K.upper_face, K.threshold,
                                K.bonus, K.yz_cat, flags, width,
                            )  # fmt: skip
                            points = box_points(ms, fl, r, c, first, K)
                            wrong += (full != plain) | (points != K.score[r, c])
    return checked, wrong


@pytest.mark.parametrize(
    "rules",
    [
        AMERICAN,
        get_rules("american-forced-joker"),
        load_rules("kniffel"),
        load_rules("generala"),
        get_rules("maxi"),
        SCANDINAVIAN,
    ],
    ids=lambda r: r.name,
)
def test_plain_writes_are_the_rules(rules):
    """Where a roll scores plainly (``scores_plainly``: no Yatzy roll, no needs_yatzy box,
    not straight after the first roll), the simulation writes it without the rules' calls
    (``write_plain``) and the distribution scores it ``K.score``: the same game word and
    points as the full rules (``write_state``, ``box_points``) give, on random masks
    (the Yatzy box filled and not), upper totals about the bonus, every flag, roll and
    category."""
    from diceopt.games.yatzy.kernel.arrays import kernel_arrays

    K = kernel_arrays(rules)
    C = rules.num_categories
    rng = np.random.default_rng(11)
    masks = rng.integers(0, (1 << C) - 1, size=12)
    T = rules.bonus_threshold
    uppers = np.unique(np.clip([0, 1, T // 2, T - 6, T - 1, T], 0, T))  # crossing the bonus
    checked, wrong = _plain_writes_agree(K, masks, uppers, T + 1, rules.flags)
    assert wrong == 0
    assert checked > 10_000


@pytest.mark.parametrize("variant", ["scandinavian", "maxi"])
def test_reroll_tables_add_the_digits(variant):
    """The table lookup of the simulation's dice gives the roll the chain of added dice
    gives (play_turn's), for every keep and every random number (5 and 6 dice)."""
    from diceopt.games.yatzy.kernel.arrays import kernel_arrays

    rules = get_rules(variant)
    K = kernel_arrays(rules)
    rolled, koff, kroll, mods = sim.reroll_tables(rules, K)
    digits = sim.die_digits(rules.dice, rules.sides)
    ksize = rules.lattice.size
    base = int(K.offset[rules.dice])
    rng = np.random.default_rng(5)
    xs = rng.integers(0, rules.sides**rules.dice, size=300)
    for k in range(base):
        for x in xs:
            idx = k
            for j in range(rules.dice - int(ksize[k])):
                idx = int(K.add_die[idx, digits[x, j]])
            assert rolled[koff[k] + mods[x, kroll[k]]] == idx - base


# scores of 20,000 seeded games (seed 1, float64 tables) as the simulation played them
# before its policies came from the solver's lanes: (sum, sum of squares, first five)
SEEDED_GAMES = {
    ("am", 0.0): (1303264, 94175662, [65, 65, 67, 65, 65]),
    ("am", 0.05): (1002875, 67370157, [29, 29, 29, 29, 29]),
    ("sc", 0.0): (2287021, 269131375, [106, 102, 96, 103, 103]),
    ("sc", 0.05): (2261210, 265201880, [100, 84, 84, 97, 93]),
}


@pytest.mark.parametrize("key", sorted(SEEDED_GAMES))
def test_seeded_games_unchanged(key):
    rules = {"am": SMALL_AMERICAN, "sc": SMALL_SCANDINAVIAN}[key[0]]
    table = solve_table(rules, dtype="float64", theta=key[1])
    scores = simulate(table, 20000, np.random.default_rng(1)).scores.astype(np.int64)
    assert (int(scores.sum()), int((scores * scores).sum()), scores[:5].tolist()) == (
        SEEDED_GAMES[key]
    )


def test_scandinavian_float32_mean_within_5_standard_errors():
    """The command's table (float32): 200,000 games, the mean within 5 std errors of the
    exact value (the table's)."""
    table = solve_table(SCANDINAVIAN, dtype="float32")
    s = simulate(table, 200_000, np.random.default_rng(11)).summary()
    assert abs(s["mean"] - table.value) <= 5 * s["std_error"]
    assert abs(s["mean"] - SCANDINAVIAN_VALUE) <= 5 * s["std_error"]


def test_summarize_hand_case():
    s = summarize(np.array([10, 20, 30, 40]), np.array([1, 0, 0, 0], bool), np.zeros(4, bool))
    assert s["mean"] == 25 and s["std"] == pytest.approx(np.std([10, 20, 30, 40], ddof=1))
    assert s["std_error"] == pytest.approx(s["std"] / 2) and s["bonus_rate"] == 0.25
    assert s["min"] == 10 and s["max"] == 40 and s["percentiles"]["50"] == 25


@pytest.mark.parametrize("n", [1, 2, 5, 1000, 100_001])
def test_summarize_from_counts_is_numpys(n):
    """The summary from the count of each score: numpy's mean exactly, its std and linear
    percentiles to rounding."""
    rng = np.random.default_rng(n)
    scores = rng.integers(40, 380, size=n)
    flags = rng.random(n) < 0.5
    s = summarize(scores, flags, ~flags)
    x = scores.astype(np.float64)
    assert s["mean"] == x.mean() and s["min"] == x.min() and s["max"] == x.max()
    assert s["std"] == pytest.approx(x.std(ddof=1) if n > 1 else 0.0, rel=1e-12)
    want = np.percentile(x, sim.PERCENTILES)
    assert list(s["percentiles"].values()) == pytest.approx(want, rel=1e-12, abs=1e-12)
    assert s["bonus_rate"] == flags.mean() and s["yatzy_rate"] == (~flags).mean()


def test_text_histogram():
    lines = sim.histogram_lines(np.array([100, 101, 150, 150, 199]), bins=4, width=10)
    assert len(lines) >= 4 and all(line.endswith("%") for line in lines)
    assert max(line.count("#") for line in lines) == 10


# --- risk-sensitive sweep ---------------------------------------------------------------


@pytest.fixture(scope="module")
def sweep_rows(cache):
    return sweep(get_rules("scandinavian-forced"), [-0.1, 0.0, 0.1])


def test_sweep_theta0_row_is_the_expectation_policy(sweep_rows, cache):
    from diceopt.games.yatzy.analyses.distribution import distribution
    from diceopt.games.yatzy.stored.files import get_table

    table, info = get_table(get_rules("scandinavian-forced"))
    assert info.loaded  # the sweep solved and cached it
    row = sweep_rows[1]
    assert row.theta == 0.0 and row.value == table.value
    assert np.array_equal(row.dist.pmf, distribution(table).pmf)
    assert row.to_json()["mean"] == pytest.approx(table.value, abs=2e-3)
    assert sweep_tables([table])[0].to_json()["std"] == row.to_json()["std"]


def test_sweep_risk_attitude_moves_the_spread(sweep_rows):
    averse, neutral, seeking = (r.summary() for r in sweep_rows)
    assert averse["std"] < neutral["std"] < seeking["std"]
    # the expectation policy has the highest mean (exact distributions: no sampling error)
    for s in (averse, seeking):
        assert s["mean"] < neutral["mean"]
    # certainty equivalents: below the mean when averse, above when seeking
    assert sweep_rows[0].value < averse["mean"] and sweep_rows[2].value > seeking["mean"]
    assert all(r.summary()["total"] == pytest.approx(1.0, abs=1e-9) for r in sweep_rows)


def test_sweep_reads_a_thetas_start_from_the_stored_rows(cache, monkeypatch):
    # the rows of the first turns stored (as make run stores the page's thetas): that
    # theta's row is read from them, the very numbers of the distribution's pass
    from diceopt.games.yatzy.analyses.distribution import distribution
    from diceopt.games.yatzy.commands import sweep as sweep_module
    from diceopt.games.yatzy.stored import store
    from diceopt.games.yatzy.stored.files import get_table

    rules = get_rules("scandinavian-forced")
    assert store.early_table(rules, 0.05).build(None) is True
    table, _ = get_table(rules, 0.05)
    want = distribution(table)
    store._EARLY.clear()

    def no_pass(*args, **kwargs):
        raise AssertionError("a distribution was computed")

    monkeypatch.setattr(sweep_module, "distribution", no_pass)
    (row,) = sweep(rules, [0.05])
    assert row.value == table.value and row.dist.states is None
    assert np.array_equal(row.dist.pmf, want.pmf)
    assert (row.dist.bonus_rate, row.dist.yatzy_rate) == (want.bonus_rate, want.yatzy_rate)
    assert row.to_json() == SweepRow(0.05, table.value, want).to_json()
    with pytest.raises(AssertionError, match="computed"):  # another theta: computed
        sweep(rules, [0.02])


def test_sweep_stores_a_computed_start_for_the_next(cache, monkeypatch):
    # a theta whose start was computed is read by the next sweep: the same row
    from diceopt.games.yatzy.commands import sweep as sweep_module

    rules = get_rules("scandinavian-forced")
    (first,) = sweep(rules, [0.03])
    assert first.dist.states is not None

    def no_pass(*args, **kwargs):
        raise AssertionError("a distribution was computed")

    monkeypatch.setattr(sweep_module, "distribution", no_pass)
    (again,) = sweep(rules, [0.03])
    assert again.dist.states is None and again.value == first.value
    assert np.array_equal(again.dist.pmf, first.dist.pmf)
    assert (again.dist.bonus_rate, again.dist.yatzy_rate) == (
        first.dist.bonus_rate,
        first.dist.yatzy_rate,
    )


def test_frontier_png(sweep_rows, tmp_path):
    from diceopt.games.yatzy.commands.sweep import frontier_png

    path = tmp_path / "frontier.png"
    frontier_png(sweep_rows, str(path), "test")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_parse_thetas():
    assert parse_thetas("-0.1,-0.05,0, 0.05 0.1") == [-0.1, -0.05, 0.0, 0.05, 0.1]
    assert parse_thetas("1e-1 -1") == [0.1, -1.0]
    for bad, message in [
        ("", "at least one theta"),
        ("a", "not a number"),
        ("2", "between -1 and 1"),
        ("0.1,1.5", "between -1 and 1"),
        ("0,0", "listed twice"),
        ("nan", "between -1 and 1"),
        ("-inf", "between -1 and 1"),
    ]:
        with pytest.raises(InputError, match=message):
            parse_thetas(bad)


# --- CLI --------------------------------------------------------------------------------


def run(capsys, *argv):
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse errors exit through Parser.error
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_simulate_json_text_and_plot(cache, capsys, tmp_path):
    args = ["yatzy", "simulate", "--variant", "scandinavian-forced", "--games", "4000"]
    code, out, _ = run(capsys, *args, "--seed", "3", "--json")
    assert code == 0
    data = json.loads(out)
    keys = {"mean", "std_error", "games", "seconds", "std", "percentiles", "bonus_rate"}
    assert keys | {"yatzy_rate", "exact", "min", "max", "seed", "compile_seconds"} <= set(data)
    assert data["games"] == 4000 and data["seed"] == 3
    assert data["exact"] == pytest.approx(122.55852739642387, abs=2e-3)
    assert abs(data["mean"] - data["exact"]) <= 4 * data["std_error"]
    again = json.loads(run(capsys, *args, "--seed", "3", "--json")[1])
    assert again["mean"] == data["mean"] and again["percentiles"] == data["percentiles"]
    png = tmp_path / "hist.png"
    code, out, _ = run(capsys, *args, "--seed", "3", "--plot", str(png))
    assert code == 0 and png.read_bytes()[:4] == b"\x89PNG"
    assert f"mean {data['mean']:.4f}" in out and "percentiles: p1" in out
    assert "upper bonus in" in out and "#" in out and "%" in out


def test_cli_sweep_json_and_table(cache, capsys, tmp_path):
    args = ["yatzy", "sweep", "--variant", "scandinavian-forced", "--thetas", "-0.1,0,0.1"]
    code, out, _ = run(capsys, *args, "--json")
    assert code == 0
    data = json.loads(out)
    assert [r["theta"] for r in data["rows"]] == [-0.1, 0.0, 0.1]
    for r in data["rows"]:
        assert {"mean", "std", "percentiles", "certainty_equivalent", "bonus_rate"} <= set(r)
    png = tmp_path / "frontier.png"
    code, out, err = run(capsys, *args, "--plot", str(png))
    assert code == 0 and png.read_bytes()[:4] == b"\x89PNG"
    assert "theta" in out and "p50" in out and len(out.splitlines()) >= 5


@pytest.mark.parametrize(
    "argv, message",
    [
        (["simulate", "--games", "0"], "--games: must be 1 to"),
        (["simulate", "--theta", "5"], "theta"),
        (["simulate", "--variant", "nope"], "unknown Yatzy variant"),
        (["simulate", "--plot", "/nonexistent-dir/x/h.png"], "no such directory"),
        (["simulate", "--seed", "-1"], "--seed: must be >= 0"),
        (["sweep", "--thetas", "a,b"], "bad theta list 'a,b': not a number: 'a'"),
        (["sweep", "--thetas", "0,3"], "between -1 and 1"),
    ],
)
def test_cli_bad_input_one_line_exit_2(cache, capsys, argv, message):
    code, out, err = run(capsys, "yatzy", *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("diceopt: error: ") and message in err
