"""The exact final-score distribution: sums, means, a seeded simulation, positions, CLI."""

from __future__ import annotations

import json

import numpy as np
import pytest

from diceopt.cli import main
from diceopt.errors import InputError
from diceopt.games.yatzy.analyses.distribution import (
    distribution,
    position_distribution,
    reached_distributions,
    state_distributions,
)
from diceopt.games.yatzy.kernel.arrays import StateArrays, kernel_arrays
from diceopt.games.yatzy.kernel.layers import layer_states, upper_canon
from diceopt.games.yatzy.kernel.policy import (
    category_of,
    joker_categories,
    lowest_best,
    policy_buffers,
    policy_lanes,
)
from diceopt.games.yatzy.kernel.simulation import simulate
from diceopt.games.yatzy.kernel.solve import solve_table
from diceopt.games.yatzy.kernel.widget import (
    SCORE_NOW,
    TURN_REROLLS,
    widget_buffers,
    widget_into,
)
from diceopt.games.yatzy.play.advice import advise_position, parse_position
from diceopt.games.yatzy.rulebook.rules import YatzyRules
from diceopt.games.yatzy.rulebook.variants import (
    AMERICAN,
    MAXI,
    SCANDINAVIAN,
    VARIANTS,
    get_rules,
)

# reduced variants: a few categories, a low bonus threshold (fast, but every rule path)
REDUCED: dict[str, YatzyRules] = {
    "scandinavian": SCANDINAVIAN.reduced(
        ("ones", "twos", "one_pair", "full_house", "chance", "yatzy"), bonus_threshold=10
    ),
    "american": AMERICAN.reduced(("ones", "sixes", "full_house", "yahtzee"), bonus_threshold=8),
    "american-forced-joker": AMERICAN.reduced(
        ("threes", "small_straight", "yahtzee", "chance"), bonus_threshold=6
    ),
}


@pytest.fixture(scope="module", params=list(REDUCED))
def table64(request):
    return solve_table(REDUCED[request.param], dtype="float64")


def test_sums_to_one_and_mean_is_the_table_value(table64):
    d = distribution(table64)
    assert d.total == pytest.approx(1.0, abs=1e-9)
    assert (d.pmf >= 0).all()
    assert d.mean == pytest.approx(table64.value, abs=1e-6)
    assert d.value == pytest.approx(table64.value, abs=1e-12)
    s = d.summary()
    assert s["percentiles"]["1"] <= s["median"] <= s["percentiles"]["99"]
    assert 0 <= s["bonus_rate"] <= 1 and 0 <= s["yatzy_rate"] <= 1


def ks_distance(pmf: np.ndarray, scores: np.ndarray) -> float:
    cdf = np.cumsum(pmf)
    counts = np.bincount(scores, minlength=cdf.size)
    assert counts.size == cdf.size  # no simulated score outside the exact support
    return float(np.abs(cdf - np.cumsum(counts) / scores.size).max())


def test_agrees_with_a_seeded_simulation(table64):
    games = 1_000_000
    d = distribution(table64)
    sim = simulate(table64, games, np.random.default_rng(99))
    # Kolmogorov-Smirnov: the bound, 0.002 (1.95 / sqrt(n), the 0.1% critical
    # value, is 0.00195 at a million games)
    assert ks_distance(d.pmf, sim.scores) < 0.002
    # chi-square over scores with expected count >= 20 (the rest pooled)
    expected = d.pmf * games
    observed = np.bincount(sim.scores, minlength=d.pmf.size).astype(float)
    big = expected >= 20
    e = np.append(expected[big], expected[~big].sum())
    o = np.append(observed[big], observed[~big].sum())
    keep = e > 0
    chi2 = float(((o[keep] - e[keep]) ** 2 / e[keep]).sum())
    dof = int(keep.sum()) - 1
    assert chi2 < dof + 4 * np.sqrt(2 * dof)  # far beyond the 0.1% point for these dof
    for rate, flags in ((d.bonus_rate, sim.bonus), (d.yatzy_rate, sim.yatzy)):
        assert abs(rate - flags.mean()) < 5 * np.sqrt(rate * (1 - rate) / games) + 1e-12


def test_theta_table_and_float32():
    rules = REDUCED["scandinavian"]
    for theta in (-0.05, 0.05):
        t = solve_table(rules, dtype="float64", theta=theta)
        d = distribution(t)
        assert d.total == pytest.approx(1.0, abs=1e-9)
        # the certainty equivalent from the exact distribution is the table's value
        ce = np.log(d.pmf @ np.exp(theta * (d.support - d.mean))) / theta + d.mean
        assert ce == pytest.approx(t.value, abs=1e-6)
    t32 = solve_table(rules, dtype="float32")
    assert distribution(t32).mean == pytest.approx(t32.value, abs=1e-3)


def test_start_is_the_mixture_over_first_rolls(table64):
    rules = table64.rules
    d = distribution(table64)
    mix = np.zeros(d.pmf.size + 1)
    for r, p in enumerate(rules.roll_probs):
        part = distribution(table64, roll=r, rerolls=2)
        mix[: part.pmf.size] += p * part.pmf
    assert np.abs(mix[: d.pmf.size] - d.pmf).max() < 1e-12


def test_position_mean_is_the_best_advice():
    rules = REDUCED["scandinavian"]
    table = solve_table(rules, dtype="float64")
    for text in (
        "dice 1 1 2 5 6 | rerolls 1 | filled ones | upper 2 | score 2",
        "dice 2 2 2 3 3 | rerolls 0 | filled chance yatzy | score 20",
        "dice 6 6 6 6 6 | rerolls 2 | filled ones twos one_pair full_house | upper 10 | score 80",
    ):
        pos = parse_position(text, rules)
        d = position_distribution(table, pos)
        best = advise_position(pos, rules, table)[0].value
        assert d.total == pytest.approx(1.0, abs=1e-9)
        assert d.mean == pytest.approx(best, abs=1e-9)
        assert d.pmf[: int(pos.score)].sum() == 0.0  # final >= points so far
    text = "dice 1 1 2 5 6 | rerolls 1 | filled ones twos | upper 10 | score 60"
    pos = parse_position(text, rules)
    assert position_distribution(table, pos).bonus_rate == 1.0  # bonus already earned
    # without a score: the distribution of the points still to come
    pos = parse_position("dice 1 1 2 5 6 | rerolls 1 | filled ones | upper 2", rules)
    d = position_distribution(table, pos)
    assert d.base is None and d.mean == pytest.approx(advise_position(pos, rules, table)[0].value)


def _all_states(rules: YatzyRules) -> list[tuple[int, int, int]]:
    """Every turn-start state of every layer but the last, bonus-dead copies included."""
    T = rules.bonus_threshold
    out = []
    for st in layer_states(rules)[:-1]:
        out += list(zip(st.mask.tolist(), st.flag.tolist(), st.upper.tolist(), strict=True))
        for k in st.copy_dst.tolist():
            out.append((k // (T + 1) // rules.flags, k // (T + 1) % rules.flags, k % (T + 1)))
    return out


def _check_lane_policy(rules: YatzyRules, tables: list) -> None:
    states = _all_states(rules)
    mask, flag, upper = (np.array(x, dtype=np.int64) for x in zip(*states, strict=True))
    for table in tables:
        K = table.arrays64
        W = policy_buffers(K, 8)
        B = widget_buffers(K)
        lane_states = StateArrays(mask, flag, upper)
        for lo in range(0, mask.size, 8):
            nb = min(8, mask.size - lo)
            theta = float(table.theta)
            policy_lanes(lane_states, lo, nb, table.values, K, W, theta, W.policy, 0)
            for ln in range(nb):
                i = lo + ln
                widget_into(
                    int(mask[i]), int(flag[i]), int(upper[i]), table.values, K, theta, B,
                    TURN_REROLLS, SCORE_NOW,
                )  # fmt: skip
                assert np.array_equal(W.policy[ln], B.policy), states[i]
                if table.values.dtype == np.float64:  # the same kernels read float32 tables
                    _check_direct_choices(K, W, ln, int(mask[i]), states[i])


def _check_direct_choices(K, W, ln: int, mask: int, state) -> None:
    """The choices the simulation finds roll by roll for states that few games reach
    (``category_of``, ``lowest_best`` from the lane buffers ``policy_lanes`` left) are the
    whole policy's, for every roll: the category, and with 2 and 1 rerolls left scoring
    now or the keep."""
    A, M, _, M1, SR, vecs, _, tmp, pols = W
    nd = K.offset.size - 2
    base = int(K.offset[nd])
    stack = np.empty(nd * (nd + 1) // 2 + 1, dtype=np.int64)
    joker = np.full(K.roll_p.size, -1, dtype=np.int64)
    joker_categories(mask, K, SR, ln, np.empty(K.roll_p.size), joker)
    for r in range(K.roll_p.size):
        c = category_of(r, ln, K, SR, vecs[0], tmp[2], joker)
        assert pols[ln, 0, r] == -c - 1, (state, r)
        k = base + r
        for t, best in ((2, M), (1, M1)):
            want = pols[ln, t, r]
            if A[k, ln] >= best[k, ln]:
                assert want == pols[ln, 0, r], (state, r, t)
            else:
                assert want == lowest_best(k, best, ln, K, stack), (state, r, t)


def test_lane_policy_is_the_widget_policy(table64):
    # the distribution and the simulation read the policy from the solver's lanes
    rules = table64.rules
    _check_lane_policy(rules, [table64, solve_table(rules, dtype="float32")])


@pytest.mark.parametrize("theta", [-0.05, 0.05, 0.3])
def test_lane_policy_of_a_risk_table_is_the_widget_policy(table64, theta):
    # with theta != 0 the lanes' keep values are the widget's utilities from the same
    # reference: the same choices, bit for bit
    rules = table64.rules
    _check_lane_policy(rules, [solve_table(rules, theta=theta, dtype="float64")])


def test_score_entries_in_category_order():
    # the lanes' category choice takes the lower category on equal values in one pass
    # over a roll's entries, which gives the widget's choice when they are in category
    # order
    for name in VARIANTS:
        pos_c = kernel_arrays(get_rules(name), np.float64).pos_c
        assert np.all(np.diff(pos_c, axis=1) >= 0), name


def test_lane_policy_six_dice():
    rules = MAXI.reduced(("ones", "sixes", "three_pairs", "castle", "chance"), bonus_threshold=8)
    _check_lane_policy(rules, [solve_table(rules, dtype=dt) for dt in ("float64", "float32")])


def test_lane_policy_four_sides():
    # dice of four sides: the keep choice's generic loop over a multiset's edges
    rules = YatzyRules(categories=("ones", "twos", "fours", "chance"), sides=4)
    _check_lane_policy(rules, [solve_table(rules, dtype=dt) for dt in ("float64", "float32")])


def _reference_outcomes(K, mask, flag, u, pol, F, flags, width, canon):
    """A turn's outcomes as the kernel documents them, in Python (plain rules): rolls
    grouped by (category, points) and summed roll by roll; per category, the group whose
    first roll with mass is the latest first; a successor's upper total the one standing
    for it (``canon``: ``upper_canon``)."""
    T = int(K.threshold)
    groups: dict[tuple[int, int], list] = {}
    for r in range(F.size):
        if F[r] == 0.0:
            continue
        c = -int(pol[0, r]) - 1
        got = int(K.score[r, c])
        up = K.upper_face[c] >= 0
        cross = bool(up and u < T <= u + got)
        yzw = c == K.yz_cat and got > 0
        sub, rep = canon
        u2 = int(rep[sub[mask | (1 << c)], min(T, u + got) if up else u])
        key = (c, got)
        if key not in groups:
            succ = ((mask | (1 << c)) * flags + flag) * width + u2
            pts = 4 * (got + (int(K.bonus) if cross else 0)) + cross + 2 * yzw
            groups[key] = [r, 0.0, succ, pts]
        groups[key][1] += float(F[r])
    order = sorted(groups, key=lambda k: (k[0], -groups[k][0]))
    return [tuple(groups[k][2:]) + (groups[k][1],) for k in order]


@pytest.mark.parametrize(
    "rules",
    [
        REDUCED["scandinavian"],
        MAXI.reduced(("ones", "sixes", "three_pairs", "chance"), bonus_threshold=8),
    ],
    ids=["scandinavian", "maxi"],
)
def test_turn_outcomes_group_rolls_by_category_and_points(rules):
    # the plain rules' grouping (a table of groups, not the general path's search) gives
    # the outcomes a direct grouping of the rolls gives: the same successors, points,
    # order and sums, bit for bit
    from diceopt.games.yatzy.kernel.turn_outcomes import (
        LANES,
        finish_turn,
        outcome_work,
        turn_outcomes,
    )

    table = solve_table(rules, dtype="float32", theta=0.05)
    K, tab = table.arrays64, table.policy_arrays
    W = policy_buffers(K, LANES)
    canon = upper_canon(rules)
    P, mass, out, first, scratch = outcome_work(K, LANES, canon)
    checked = 0
    for st in layer_states(rules)[:-1]:
        n = st.mask.size
        states = StateArrays(st.mask, st.flag, st.upper)
        bound_off = np.arange(n + 1, dtype=np.int64) * (K.score.size + 1)
        o_key = np.zeros(bound_off[-1], dtype=np.int64)
        o_pts, o_q, count = np.zeros_like(o_key), np.zeros(bound_off[-1]), np.zeros_like(o_key)
        for lo in range(0, n, LANES):
            nb = min(LANES, n - lo)
            policy_lanes(states, lo, nb, tab.V, K, W, tab.theta, W.policy, 0)
            P[:, :nb] = K.roll_p[:, None]
            finish_turn(P, 2, W.policy, nb, K, mass, out, first)
            turn_outcomes(
                states, lo, nb, W.policy, out, first, K, tab.flags, tab.width, scratch,
                o_key, o_pts, o_q, bound_off, count,
            )  # fmt: skip
            for ln in range(nb):
                i = lo + ln
                want = _reference_outcomes(
                    K, int(st.mask[i]), int(st.flag[i]), int(st.upper[i]), W.policy[ln],
                    out[ln], tab.flags, tab.width, canon,
                )  # fmt: skip
                a, m = bound_off[i], count[i]
                got = list(zip(o_key[a : a + m].tolist(), o_pts[a : a + m].tolist(),
                               o_q[a : a + m].tolist()))  # fmt: skip
                assert got == want, (st.mask[i], st.flag[i], st.upper[i])
                checked += 1
    assert checked == sum(st.mask.size for st in layer_states(rules)[:-1])


def test_state_distributions_are_the_distributions(table64):
    rules = table64.rules
    sd = state_distributions(table64)
    states = _all_states(rules)
    assert sd.states == sum(st.mask.size for st in layer_states(rules))
    rng = np.random.default_rng(5)
    picks = [states[i] for i in rng.choice(len(states), 12, replace=False)]
    picks += [(0, 0, 0), states[-1]] + [s for s in states if s[1] == 1][:2]
    for mask, flag, upper in picks:
        d = distribution(table64, mask=mask, flag=flag, upper=upper, base=None)
        p = sd.pmf(mask, flag, upper)
        assert p.size == d.pmf.size
        assert np.abs(p - d.pmf).max() <= 1e-12
        i = sd.row(mask, flag, upper)
        assert sd.bonus_rate[i] == pytest.approx(d.bonus_rate, abs=1e-12)
        assert sd.yatzy_rate[i] == pytest.approx(d.yatzy_rate, abs=1e-12)
    for i in range(sd.states):
        row = sd.data[sd.off[i] : sd.off[i] + sd.length[i]]
        assert abs(row.sum() - 1.0) <= 1e-9 and row[-1] > 0
    last = (1 << rules.num_categories) - 1
    assert np.array_equal(sd.pmf(last, 0, rules.bonus_threshold), [1.0])
    with pytest.raises(InputError):
        sd.pmf(0, 0, 1)  # no upper points with nothing filled
    s32 = state_distributions(table64, dtype="float32")
    assert s32.data.dtype == np.float32 and s32.data.nbytes * 2 == sd.data.nbytes
    assert np.abs(s32.pmf(0, 0, 0) - sd.pmf(0, 0, 0)).max() < 1e-7


def test_reached_rows_are_every_states_rows(table64):
    # the rows of the states play reaches from the start (bonus-dead copies and the
    # Yahtzee flag included): those of every state, bit for bit; the start is among them
    every, got = state_distributions(table64), reached_distributions(table64)
    keys = np.flatnonzero(got.slot >= 0)
    assert got.slot[every.key(0, 0, 0)] >= 0
    assert np.all(every.slot[keys] >= 0) and keys.size < np.count_nonzero(every.slot >= 0)
    for key in keys:
        a, b = got.slot[key], every.slot[key]
        assert np.array_equal(
            got.data[got.off[a] : got.off[a] + got.length[a]],
            every.data[every.off[b] : every.off[b] + every.length[b]],
        )
        assert (got.bonus_rate[a], got.yatzy_rate[a]) == (every.bonus_rate[b], every.yatzy_rate[b])


def test_state_distributions_of_the_first_layers_only(table64):
    """``filled``: the rows of the states with at most that many categories filled, the
    same numbers as the pass that keeps every layer; no row of a later layer."""
    rules = table64.rules
    every = state_distributions(table64)
    first = state_distributions(table64, filled=1)
    assert first.data.size < every.data.size
    for mask, flag, upper in _all_states(rules):
        if bin(mask).count("1") <= 1:
            assert np.array_equal(first.pmf(mask, flag, upper), every.pmf(mask, flag, upper))
            i, j = first.row(mask, flag, upper), every.row(mask, flag, upper)
            assert first.bonus_rate[i] == every.bonus_rate[j]
        else:
            assert first.slot[first.key(mask, flag, upper)] < 0


def test_float32_rows_with_float64_first_layers(table64):
    """``early`` beside float32 rows: the float64 rows of the first layers are those of a
    float64 pass with ``filled``, bit for bit, and the float32 rows are the float64 pass's
    rounded (what the page stores, in one pass)."""
    every = state_distributions(table64)
    both = state_distributions(table64, dtype="float32", early=1)
    first = state_distributions(table64, filled=1)
    assert both.data.dtype == np.float32 and both.early is not None
    assert np.array_equal(both.data, every.data.astype(np.float32))
    for name in ("slot", "off", "length", "bonus_rate", "yatzy_rate"):
        assert np.array_equal(getattr(both, name), getattr(every, name)), name
        assert np.array_equal(getattr(both.early, name), getattr(first, name)), name
    assert both.early.data.dtype == np.float64
    assert np.array_equal(both.early.data, first.data)
    assert every.early is None and first.early is None


def test_a_position_combined_from_the_stored_first_turns(table64):
    # the rows of the first turns as the page stores them: a position whose turn leads to
    # states they hold combines its turn from them, the very numbers of the whole pass
    from diceopt.games.yatzy.stored.store import EARLY_FILLED, EarlyRows, _early_arrays

    sd = state_distributions(table64, filled=EARLY_FILLED)
    rows = EarlyRows(_early_arrays(sd), sd.flags, sd.threshold)
    per = rows.flags * (rows.threshold + 1)
    R = len(table64.rules.roll_counts)
    ncat = table64.rules.num_categories
    seen = {"stored": 0, "computed": 0}
    for key in rows.keys[:: max(1, rows.keys.size // 9)]:
        mask, rest = divmod(int(key), per)
        flag, upper = divmod(rest, rows.threshold + 1)
        for roll, rerolls in ((0, 2), (R // 2, 1), (R - 1, 0), (-1, 2)):
            where = dict(mask=mask, flag=flag, upper=upper, roll=roll, rerolls=rerolls)
            want = distribution(table64, **where, base=None)
            got = distribution(table64, **where, base=None, first_turns=rows)
            assert np.array_equal(got.pmf, want.pmf)
            assert (got.bonus_rate, got.yatzy_rate, got.value) == (
                want.bonus_rate, want.yatzy_rate, want.value,
            )  # fmt: skip
            filled = bin(mask).count("1")
            stored = filled + 1 <= EARLY_FILLED and filled + 1 < ncat
            assert (got.states is None) == stored and want.states > 0
            seen["stored" if stored else "computed"] += 1
    assert seen["stored"] >= 12


def test_unreachable_state_is_refused(table64):
    with pytest.raises(InputError, match="no reachable turn-start state"):
        distribution(table64, mask=0, upper=1)


@pytest.mark.parametrize(
    "rules",
    [*REDUCED.values(), get_rules("scandinavian-forced").reduced(("ones", "twos", "yatzy"))],
    ids=[*REDUCED, "scandinavian-forced"],
)
def test_listed_states_are_the_layers_states(rules):
    # a position's pass lists no layer: whether a start state is reachable comes from the
    # upper totals' plan, and must say the same as the layers' lists (solved and copied)
    from diceopt.games.yatzy.analyses.distribution import _layer_index, _listed

    flags, width = rules.flags, rules.bonus_threshold + 1
    nkeys = (1 << rules.num_categories) * flags * width
    where = _layer_index(layer_states(rules), nkeys, flags, width)
    canon = upper_canon(rules)
    listed = [
        _listed(rules, canon, key // (flags * width), key // width % flags, key % width)
        for key in range(nkeys)
    ]
    assert listed == (where >= 0).tolist() and 0 < sum(listed) < nkeys
    assert not _listed(rules, canon, 1 << rules.num_categories, 0, 0)
    assert not _listed(rules, canon, 0, flags, 0) and not _listed(rules, canon, 0, 0, width)


def test_successor_index_is_a_first_come_sparse_set():
    from diceopt.games.yatzy.kernel.turn_outcomes import successor_index

    rng = np.random.default_rng(3)
    nkeys = 5000
    o_key = rng.choice(rng.choice(nkeys, 300, replace=False), 20_000)
    # a slot array left as it was: values that point into the keys found, out of range,
    # negative; a believed slot would merge keys or skip them
    slot = rng.integers(-50, 400, nkeys).astype(np.int32)
    keys, o_succ = np.empty(o_key.size, dtype=np.int64), np.empty(o_key.size, dtype=np.int32)
    n = successor_index(o_key, slot, keys, o_succ)
    first = sorted(np.unique(o_key, return_index=True)[1])
    assert keys[:n].tolist() == o_key[first].tolist()
    assert np.array_equal(keys[o_succ], o_key)


def test_a_position_pass_lists_no_layer(table64, monkeypatch):
    # from a position only the states its play reaches are found (Maxi Yatzy lists 36.8
    # million states otherwise): the same numbers as the pass over every state
    import diceopt.games.yatzy.analyses.distribution as dist

    sd = state_distributions(table64)
    rules = table64.rules
    st = layer_states(rules)[1]
    picks = [(int(st.mask[i]), int(st.flag[i]), int(st.upper[i])) for i in (0, st.mask.size - 1)]
    # and a state whose upper total cannot reach the bonus any more (its value copied)
    dead = [int(k) for lay in layer_states(rules)[:-1] for k in lay.copy_dst[:1]]
    width = rules.bonus_threshold + 1
    picks += [(k // width // rules.flags, k // width % rules.flags, k % width) for k in dead[:1]]

    def listed(rules):
        raise AssertionError("a position's pass listed every state")

    monkeypatch.setattr(dist, "layer_states", listed)
    for mask, flag, upper in picks:
        d = distribution(table64, mask=mask, flag=flag, upper=upper, base=None)
        assert np.abs(d.pmf - sd.pmf(mask, flag, upper)).max() <= 1e-12


def test_quantiles_and_tail():
    from diceopt.games.yatzy.analyses.score_distribution import ScoreDistribution

    d = ScoreDistribution(np.array([0.1, 0.0, 0.4, 0.5]), 0.0, 0.0, 0.0, 0.0)
    assert d.quantile(0.1) == 0 and d.median == 2 and d.quantile(0.99) == 3
    assert d.p_at_least(2) == pytest.approx(0.9) and d.p_at_least(400) == 0.0
    assert d.mean == pytest.approx(2.3)


# --- CLI (the small forced-order variant) -------------------------------------------------


@pytest.fixture()
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("DICEOPT_CACHE", str(tmp_path))
    return tmp_path


def run(capsys, *argv):
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


FORCED = ["yatzy", "distribution", "--variant", "scandinavian-forced"]


def test_cli_json_text_and_plot(cache, capsys, tmp_path):
    code, out, _ = run(capsys, *FORCED, "--json", "--dtype", "float64")
    assert code == 0
    data = json.loads(out)
    assert {"mean", "std", "median", "percentiles", "p_at_least", "pmf", "seconds"} <= set(data)
    assert {"bonus_rate", "yatzy_rate"} <= set(data)
    assert set(data["percentiles"]) == {"1", "5", "25", "50", "75", "95", "99"}
    assert set(data["p_at_least"]) == {"200", "250", "300"}
    assert data["mean"] == pytest.approx(122.55852739642387, abs=1e-6)  # published value
    assert sum(data["pmf"]) == pytest.approx(1.0, abs=1e-9)
    assert data["p_at_least"]["200"] == pytest.approx(sum(data["pmf"][200:]), abs=1e-12)
    png = tmp_path / "d.png"
    pos = "dice 1 2 6 6 6 | rerolls 1 | filled ones twos | upper 6 | score 6"
    code, out, _ = run(capsys, *FORCED, pos, "--plot", str(png))
    assert code == 0 and png.read_bytes()[:4] == b"\x89PNG"
    assert "mean" in out and "p99" in out and "P(>= 300)" in out and "upper bonus" in out


def test_cli_from_the_start_reads_the_stored_first_turns(cache, capsys):
    # once the page's rows of the first turns are stored, the distribution from the start
    # is read from them and a position of the first turns combines its turn from them:
    # the very numbers of the pass (states null); a later position runs the pass
    from diceopt.games.yatzy.rulebook.variants import get_rules
    from diceopt.games.yatzy.stored import store

    rules = get_rules("scandinavian-forced")
    early = "dice 1 2 6 6 6 | rerolls 1 | filled ones twos | upper 6 | score 6"
    later = "dice 1 2 3 3 6 | rerolls 2 | filled ones twos threes | upper 9 | score 9"
    store.forget(rules)  # none of this process's rows (an earlier test's)

    def answers() -> list[dict]:
        got = []
        for where in ([], [early], [later]):
            code, out, _ = run(capsys, *FORCED, *where, "--json")
            assert code == 0
            got.append(json.loads(out))
        return got

    computed = answers()
    assert all(a["states"] > 0 for a in computed)
    assert store.early_table(rules).build(None) is True
    store.forget(rules)  # read back from the file
    stored = answers()
    assert [a["states"] is None for a in stored] == [True, True, False]
    assert stored[0]["compile_seconds"] == 0.0
    for a, b in zip(stored, computed, strict=True):
        for key in ("seconds", "compile_seconds", "states"):
            del a[key], b[key]
        assert a == b
    code, out, _ = run(capsys, *FORCED)
    assert code == 0 and "from the stored rows in" in out
    path = store.early_table(rules).path  # damaged: one warning, then the pass
    data = bytearray(path.read_bytes())
    data[-64:] = bytes(64)
    path.write_bytes(bytes(data))
    store.forget(rules)
    code, out, err = run(capsys, *FORCED, "--json")
    assert code == 0 and json.loads(out)["states"] is None  # the start's row, stored first
    warnings = [line for line in err.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "not reading them" in warnings[0], err


def test_cli_start_computed_once_then_read(cache, capsys):
    # without the first turns' rows the distribution from the start is computed once and
    # stored: the next run reads it (the very numbers, states null), --force computes it
    # again; a damaged file, or one whose numbers do not hold, is one warning and the pass
    from types import SimpleNamespace

    from diceopt import storage
    from diceopt.games.yatzy.rulebook.variants import get_rules
    from diceopt.games.yatzy.stored import store
    from diceopt.games.yatzy.stored.store import start_key, store_start_row

    rules = get_rules("scandinavian-forced")
    store.forget(rules)
    path = storage.table_path(start_key(rules, 0.0, "float32"))

    def answer(*argv: str) -> tuple[dict, str]:
        code, out, err = run(capsys, *FORCED, "--json", *argv)
        assert code == 0
        got = json.loads(out)
        for key in ("seconds", "compile_seconds"):
            del got[key]
        return got, err

    computed, _ = answer()
    assert computed["states"] > 0 and path.is_file()
    read, err = answer()
    assert read.pop("states") is None and err == ""
    assert read == {k: v for k, v in computed.items() if k != "states"}
    forced, _ = answer("--force")
    assert forced == computed
    code, out, _ = run(capsys, *FORCED)
    assert code == 0 and "from the stored rows in" in out
    data = bytearray(path.read_bytes())
    data[-8:] = bytes(8)
    path.write_bytes(bytes(data))
    again, err = answer()
    assert again == computed and err.count("warning") == 1, err
    half = SimpleNamespace(pmf=np.array([0.25, 0.25]), bonus_rate=0.5, yatzy_rate=0.5)
    assert store_start_row(rules, 0.0, "float32", half)
    again, err = answer()
    assert again == computed and err.count("warning") == 1 and "does not hold" in err, err
    assert answer()[0]["states"] is None  # stored again by the pass


@pytest.mark.parametrize(
    "argv, message",
    [
        (["dice 1 2 3 | rerolls 1"], "expected 5 dice"),
        (["dice 1 2 3 4 5 | rerolls 3"], "rerolls left must be 0, 1 or 2"),
        (["--plot", "/nonexistent-dir/x/d.png"], "no such directory"),
        (["--plot", "d.gif"], "cannot tell the plot format"),
        (["--theta", "3"], "theta"),
        (["--variant", "nope"], "unknown Yatzy variant"),
    ],
)
def test_cli_bad_input_one_line_exit_2(cache, capsys, argv, message):
    code, out, err = run(capsys, *FORCED[:2], *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("diceopt: error: ") and message in err


# the distribution as it was before the command warmed up on its own table (mean, sum,
# largest probability), float64 tables of two reduced variants
PREVIOUS = {
    ("american", 0.0): (65.24804916724302, 1.0000000000000022, 0.17093156236088214),
    ("american", 0.05): (50.15788545955053, 1.000000000000001, 0.14212019621560468),
    ("scandinavian", 0.0): (114.23759083446693, 1.0000000000000022, 0.04864885327275599),
    ("scandinavian", 0.05): (112.9577045058372, 1.0000000000000018, 0.04110481501747639),
}
PREVIOUS_RULES = {
    "american": AMERICAN.reduced(("ones", "twos", "full_house", "yahtzee"), bonus_threshold=5),
    "scandinavian": SCANDINAVIAN.reduced(
        ("ones", "fives", "sixes", "chance", "yatzy"), bonus_threshold=12
    ),
}


@pytest.mark.parametrize("key", sorted(PREVIOUS))
def test_warm_up_on_the_table_and_previous_distribution(key):
    from diceopt.games.yatzy.analyses.distribution import warm_up

    table = solve_table(PREVIOUS_RULES[key[0]], dtype="float64", theta=key[1])
    assert warm_up("float64", table) >= 0.0
    pmf = distribution(table).pmf
    mean, total, top = PREVIOUS[key]
    assert abs(float(pmf @ np.arange(pmf.size)) - mean) <= 1e-12 * mean
    assert abs(float(pmf.sum()) - total) <= 1e-12 and abs(float(pmf.max()) - top) <= 1e-12
