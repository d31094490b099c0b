"""The exact distribution of the final Yatzy/Yahtzee score under a table's optimal policy.

Role: the probability of every final score (points) when the rest of the game is
played by the policy of a solved table (any variant, expected score or theta != 0):
the policy the advice ranks first and the simulation plays (the scalar widget
:func:`diceopt.games.yatzy.kernel.widget_into` and its documented tie-break). No
sampling: every probability is a sum of products of dice probabilities.

Method (a pass over turn-start states, layer by layer, last turn first; numba):

1. For a turn-start state ``(mask, flag, upper)`` the widget gives the turn's policy.
   Probabilities are pushed through it: the first roll's distribution, for every roll
   either "write now" (its mass goes to that final roll) or a keep (its mass goes to
   the keep); the mass of every keep is spread up the keep lattice by one die at a
   time (the transpose of the solver's chance step) into the rolls of the next level.
   The result is ``F[r]``: the probability that the turn ends with roll r written into
   the policy's category, grouped into outcomes (category, points incl. bonuses).
2. Each state carries the vector ``pmf[x]`` = P(points still to come = x) (lanes over
   points, float64). It is the sum over outcomes of probability x the successor's
   vector shifted by the outcome's points. Successors lie in the next layer, already
   done: every state of a layer is computed independently (parallel, no write
   conflicts). The bonus and Yatzy rates are carried the same way (scalars).
3. The answer from a position adds its points so far; a position in mid-turn (dice
   showing, rerolls left) starts step 1 from its roll. Only states whose filled mask
   contains the position's mask are visited, so later positions cost less.

This "pull" over successors is the forward pass written backwards: the same products
and sums as pushing points-so-far vectors from the start, but each state is written
by one thread only. Upper totals from which the bonus is out of reach share one state
(as in the solver).

Precision: float64 throughout (the table may be float32: the policy is then the one
the float32 table implies, and the mean equals the table value to float32 precision;
for a float64 expected-score table the mean equals the value within 1e-9). The
probabilities sum to 1 within about 1e-12.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numba
import numpy as np

from diceopt.errors import InputError
from diceopt.games.yatzy.kernel import (
    KernelArrays,
    YatzyTable,
    _allowed,
    layer_states,
    widget_buffers,
    widget_into,
)
from diceopt.games.yatzy.rules import YatzyRules

PERCENTILES = (1, 5, 25, 50, 75, 95, 99)
AT_LEAST = (200, 250, 300)


# ---------------------------------------------------------------------------------------
# numba kernels (``K`` is the float64 KernelArrays of the table)


@numba.njit(cache=True)
def _finish_turn(
    P: np.ndarray, t0: int, pol: np.ndarray, K: KernelArrays, F: np.ndarray, mass: np.ndarray
) -> None:
    """F[r] = probability that the turn ends writing roll r, from roll probabilities P
    (R,) with t0 rerolls left, under the turn policy ``pol`` (3, R) (P is consumed)."""
    add_die, offset, fprob = K.add_die, K.offset, K.fprob
    nd = offset.size - 2
    base = offset[nd]
    nk = offset[nd + 1]
    R = nk - base
    k = add_die.shape[1]
    for r in range(R):
        F[r] = 0.0
    for t in range(t0, 0, -1):
        for i in range(nk):
            mass[i] = 0.0
        for r in range(R):
            p = P[r]
            if p == 0.0:
                continue
            a = pol[t, r]
            if a < 0:
                F[r] += p
            else:
                mass[a] += p
        for i in range(base):  # smaller multisets first: one more die of each face
            m = mass[i]
            if m != 0.0:
                for f in range(k):
                    mass[add_die[i, f]] += fprob[f] * m
        for r in range(R):
            P[r] = mass[base + r]
    for r in range(R):
        F[r] += P[r]


@numba.njit(cache=True)
def _combine(
    mask: int,
    flag: int,
    u: int,
    F: np.ndarray,
    pol: np.ndarray,
    K: KernelArrays,
    slot: np.ndarray,
    flags: int,
    width: int,
    off: np.ndarray,
    ln: np.ndarray,
    data: np.ndarray,
    pb: np.ndarray,
    py: np.ndarray,
    out: np.ndarray,
    idx: np.ndarray,
    oq: np.ndarray,
    orow: np.ndarray,
    opts: np.ndarray,
    oev: np.ndarray,
) -> tuple[float, float]:
    """out[x] += P(points to come = x) given the turn's final-roll probabilities F, from
    the successors' vectors (off/ln/data, by ``slot`` of the flat state key); returns
    the probabilities of reaching the upper bonus and of writing a Yatzy 50 from here.

    Rolls with the same (category, points) lead to the same successor: their
    probabilities are summed first (``idx[c, points]``, reset to -1 before returning),
    so each outcome costs one shifted vector sum.
    """
    R = F.size
    # the rules' arrays as locals (a call or attribute per roll costs more than the work)
    T, bon, ybonus, yz_cat, joker_code = K.threshold, K.bonus, K.ybonus, K.yz_cat, K.joker_code
    roll_cnt, yz_face, upper_face = K.roll_cnt, K.yz_face, K.upper_face
    score, joker = K.score, K.joker
    n = 0
    for r in range(R):
        q = F[r]
        if q == 0.0:
            continue
        c = -pol[0, r] - 1
        # points and successor of writing roll r into c (as the simulation scores it)
        pts = ybonus if (flag == 1 and yz_face[r] >= 0) else 0
        fc = upper_face[c]
        ev = 0
        f2 = flag
        u2 = u
        if fc >= 0:
            got = roll_cnt[r, fc] * (fc + 1)
            pts += got
            if u < T and u + got >= T:
                pts += bon
                ev = 1
            u2 = min(T, u + got)
        else:
            use_joker = False
            if joker_code != 0 and yz_face[r] >= 0:
                _, use_joker = _allowed(mask, r, K)
            got = np.int64(joker[r, c] if use_joker else score[r, c])
            pts += got
            if c == yz_cat and got > 0:
                ev = 2
                if ybonus > 0:
                    f2 = 1
        e = idx[c, pts]
        if e < 0:
            e = n
            idx[c, pts] = n
            n += 1
            oq[e] = 0.0
            orow[e] = slot[((mask | (1 << c)) * flags + f2) * width + u2]
            opts[e] = pts
            oev[e] = 4 * c + ev
        oq[e] += q
    bonus = 0.0
    yatzy = 0.0
    for e in range(n):
        q = oq[e]
        row = orow[e]
        pts = opts[e]
        o = off[row]
        dst = out[pts : pts + ln[row]]
        src = data[o : o + ln[row]]
        for x in range(dst.size):
            dst[x] += q * src[x]
        bonus += q * (1.0 if oev[e] & 1 else pb[row])
        yatzy += q * (1.0 if oev[e] & 2 else py[row])
        idx[oev[e] >> 2, pts] = -1
    return bonus, yatzy


@numba.njit(cache=True)
def _scratch(K: KernelArrays):
    """Work arrays of ``_combine``: idx (C, most points of a turn + 1) and the outcomes."""
    ncat = K.upper_face.size
    most = 0
    for c in range(ncat):
        for r in range(K.roll_p.size):
            most = max(most, np.int64(K.score[r, c]), np.int64(K.joker[r, c]))
    most += K.bonus + K.ybonus + 1
    R = K.roll_p.size
    return (
        np.full((ncat, most), -1, dtype=np.int64),
        np.empty(R),
        np.empty(R, dtype=np.int64),
        np.empty(R, dtype=np.int64),
        np.empty(R, dtype=np.int64),
    )


@numba.njit(cache=True)
def _layer_share(
    t: int,
    nthreads: int,
    st_mask: np.ndarray,
    st_flag: np.ndarray,
    st_u: np.ndarray,
    V: np.ndarray,
    K: KernelArrays,
    theta: float,
    slot: np.ndarray,
    flags: int,
    width: int,
    off: np.ndarray,
    ln: np.ndarray,
    data: np.ndarray,
    pb: np.ndarray,
    py: np.ndarray,
    new_off: np.ndarray,
    new_data: np.ndarray,
    new_pb: np.ndarray,
    new_py: np.ndarray,
) -> None:
    """States t, t + nthreads, ... of a layer: one thread's share of ``_layer`` (a
    function of its own: inside the parallel loop the widget runs at half speed)."""
    R = K.roll_p.size
    B = widget_buffers(K)
    P = np.empty(R)
    F = np.empty(R)
    mass = np.empty(K.add_die.shape[0])
    idx, oq, orow, opts, oev = _scratch(K)
    for i in range(t, st_mask.size, nthreads):
        out = new_data[new_off[i] : new_off[i + 1]]
        out[:] = 0.0
        mask, flag, u = st_mask[i], st_flag[i], st_u[i]
        widget_into(mask, flag, u, V, K, theta, B)
        for r in range(R):
            P[r] = K.roll_p[r]
        _finish_turn(P, 2, B.policy, K, F, mass)
        b, y = _combine(
            mask, flag, u, F, B.policy, K, slot, flags, width, off, ln, data, pb, py, out,
            idx, oq, orow, opts, oev,
        )  # fmt: skip
        new_pb[i] = b
        new_py[i] = y


@numba.njit(cache=True, parallel=True)
def _layer(
    st_mask: np.ndarray,
    st_flag: np.ndarray,
    st_u: np.ndarray,
    V: np.ndarray,
    K: KernelArrays,
    theta: float,
    slot: np.ndarray,
    flags: int,
    width: int,
    off: np.ndarray,
    ln: np.ndarray,
    data: np.ndarray,
    pb: np.ndarray,
    py: np.ndarray,
    new_off: np.ndarray,
    new_data: np.ndarray,
    new_pb: np.ndarray,
    new_py: np.ndarray,
    nthreads: int,
) -> None:
    """The vectors of one layer's states (rows 0..n-1) from the next layer's."""
    nthreads = max(1, min(nthreads, st_mask.size))
    for t in numba.prange(nthreads):
        _layer_share(
            t, nthreads, st_mask, st_flag, st_u, V, K, theta, slot, flags, width, off, ln,
            data, pb, py, new_off, new_data, new_pb, new_py,
        )  # fmt: skip


@numba.njit(cache=True)
def _partial(
    mask: int,
    flag: int,
    u: int,
    roll: int,
    t0: int,
    V: np.ndarray,
    K: KernelArrays,
    theta: float,
    slot: np.ndarray,
    flags: int,
    width: int,
    off: np.ndarray,
    ln: np.ndarray,
    data: np.ndarray,
    pb: np.ndarray,
    py: np.ndarray,
    out: np.ndarray,
) -> tuple[float, float]:
    """The rest of a turn from roll ``roll`` with t0 rerolls left (roll -1: the turn's
    first roll is still to come): points-to-come vector into out, bonus and Yatzy rates."""
    B = widget_buffers(K)
    widget_into(mask, flag, u, V, K, theta, B)
    R = K.roll_p.size
    P = np.zeros(R)
    if roll < 0:
        for r in range(R):
            P[r] = K.roll_p[r]
    else:
        P[roll] = 1.0
    F = np.empty(R)
    mass = np.empty(K.add_die.shape[0])
    _finish_turn(P, t0, B.policy, K, F, mass)
    idx, oq, orow, opts, oev = _scratch(K)
    return _combine(
        mask, flag, u, F, B.policy, K, slot, flags, width, off, ln, data, pb, py, out,
        idx, oq, orow, opts, oev,
    )  # fmt: skip


# ---------------------------------------------------------------------------------------
# Python side


@dataclass
class ScoreDistribution:
    """The exact distribution of the final score (or of the points still to come).

    ``pmf[i]``: probability that the final score is i points (with ``base`` None: that
    i points are still to come). ``base``: points so far of the position (None when the
    position gave no score). ``bonus_rate`` / ``yatzy_rate``: probabilities that the
    game ends with the upper bonus / with 50 in the Yatzy box (counting what the
    position already holds, when it tells). ``value``: the table's value of the
    position (points; a certainty equivalent for theta != 0). ``seconds``: wall time.
    """

    pmf: np.ndarray
    base: float | None
    bonus_rate: float
    yatzy_rate: float
    value: float
    theta: float = 0.0
    seconds: float = 0.0
    states: int = 0

    @property
    def support(self) -> np.ndarray:
        """The score of every pmf entry (points)."""
        return np.arange(self.pmf.size, dtype=np.float64)

    @property
    def total(self) -> float:
        """Sum of the probabilities (1 up to rounding)."""
        return float(self.pmf.sum())

    @property
    def mean(self) -> float:
        """Expected final score (points)."""
        return float(self.support @ self.pmf)

    @property
    def std(self) -> float:
        """Standard deviation of the final score (points)."""
        x = self.support - self.mean
        return float(np.sqrt(max(0.0, (x * x) @ self.pmf)))

    def cdf(self) -> np.ndarray:
        """``cdf[i]`` = P(final score <= i)."""
        return np.cumsum(self.pmf)

    def quantile(self, q: float) -> int:
        """The smallest score s with P(final <= s) >= q (points), q in (0, 1]."""
        c = self.cdf()
        i = int(np.searchsorted(c, q * c[-1] - 1e-12))
        return min(i, self.pmf.size - 1)

    @property
    def median(self) -> int:
        """The median final score (points)."""
        return self.quantile(0.5)

    def p_at_least(self, k: float) -> float:
        """P(final score >= k)."""
        i = max(0, int(np.ceil(k)))
        return float(self.pmf[i:].sum()) if i < self.pmf.size else 0.0

    def summary(self) -> dict[str, Any]:
        """Mean, std, median, percentiles, P(>= k) for k = 200, 250, 300, the rates."""
        return {
            "mean": self.mean,
            "std": self.std,
            "median": self.median,
            "percentiles": {str(p): self.quantile(p / 100) for p in PERCENTILES},
            "p_at_least": {str(k): self.p_at_least(k) for k in AT_LEAST},
            "bonus_rate": self.bonus_rate,
            "yatzy_rate": self.yatzy_rate,
            "total": self.total,
            "value": self.value,
            "theta": self.theta,
            "min": int(np.flatnonzero(self.pmf > 0)[0]),
            "max": int(np.flatnonzero(self.pmf > 0)[-1]),
        }


def _max_to_come(rules: YatzyRules, mask: np.ndarray, flag: np.ndarray, u: np.ndarray):
    """An upper bound on the points still to come from turn-start states (vectorised)."""
    cat_max = np.maximum(rules.score.max(axis=0), rules.joker_score.max(axis=0)).astype(np.int64)
    out = np.zeros(mask.size, dtype=np.int64)
    n_open = np.zeros(mask.size, dtype=np.int64)
    for c in range(rules.num_categories):
        is_open = ((mask >> c) & 1) == 0
        out += np.where(is_open, cat_max[c], 0)
        n_open += is_open
    out += np.where(u < rules.bonus_threshold, rules.bonus, 0)
    if rules.tracks_yahtzee:
        yz = rules.yahtzee_category
        can = (flag == 1) | (((mask >> yz) & 1) == 0)
        out += np.where(can, rules.yahtzee_bonus * n_open, 0)
    return out


def distribution(
    table: YatzyTable,
    *,
    mask: int = 0,
    flag: int = 0,
    upper: int = 0,
    roll: int = -1,
    rerolls: int = 2,
    base: float | None = 0.0,
    bonus_done: bool = False,
    yatzy_done: bool = False,
) -> ScoreDistribution:
    """The exact final-score distribution from a position, under ``table``'s policy.

    The position: turn-start state (``mask`` of filled categories, Yahtzee-bonus
    ``flag``, capped ``upper`` total), the roll showing (``roll``: index among the
    sorted rolls, -1 before the turn's first roll) with ``rerolls`` left, ``base``
    points so far (None: the pmf is of the points still to come). ``bonus_done`` /
    ``yatzy_done``: the position already holds the upper bonus / a Yatzy 50 (for the
    rates). Defaults: the start of the game. Time: Scandinavian from the start visits
    959,000 states (a widget and a shifted vector sum per outcome each); see
    ``benchmarks/yatzy_distribution.py``.
    """
    t0 = time.perf_counter()
    rules = table.rules
    K = table.arrays64
    V = table.values
    theta = float(table.theta)
    T = rules.bonus_threshold
    flags = rules.flags
    width = T + 1
    ncat = rules.num_categories
    upper = min(int(upper), T)
    layers = layer_states(rules)
    j0 = bin(mask).count("1")
    if j0 >= ncat:
        raise InputError("the game is over: every category is filled")
    nkeys = (1 << ncat) * flags * width
    slot = np.full(nkeys, -1, dtype=np.int64)
    # the last layer: nothing more to come
    off = np.array([0, 1], dtype=np.int64)
    ln = np.array([1], dtype=np.int64)
    data = np.array([1.0])
    pb = np.zeros(1)
    py = np.zeros(1)
    last = layers[ncat]
    slot[(last.mask * flags + last.flag) * width + last.upper] = 0
    slot[last.copy_dst] = 0
    threads = numba.get_num_threads()
    states = 1
    for j in range(ncat - 1, j0, -1):
        st = layers[j]
        keep = (st.mask & mask) == mask
        sm, sf, su = st.mask[keep], st.flag[keep], st.upper[keep]
        lengths = _max_to_come(rules, sm, sf, su) + 1
        new_off = np.zeros(sm.size + 1, dtype=np.int64)
        np.cumsum(lengths, out=new_off[1:])
        new_data = np.empty(int(new_off[-1]))
        new_pb = np.empty(sm.size)
        new_py = np.empty(sm.size)
        _layer(
            sm,
            sf,
            su,
            V,
            K,
            theta,
            slot,
            flags,
            width,
            off,
            ln,
            data,
            pb,
            py,
            new_off,
            new_data,
            new_pb,
            new_py,
            threads,
        )
        # the next layer's slots are no longer needed; this layer's take their place
        slot[:] = -1
        rows = np.arange(sm.size, dtype=np.int64)
        slot[(sm * flags + sf) * width + su] = rows
        cm = ((st.copy_dst // width) // flags & mask) == mask
        slot[st.copy_dst[cm]] = slot[st.copy_src[cm]]
        off, ln, data, pb, py = new_off, lengths, new_data, new_pb, new_py
        states += sm.size
    size = int(_max_to_come(rules, np.array([mask]), np.array([flag]), np.array([upper]))[0]) + 1
    out = np.zeros(size)
    b, y = _partial(
        mask, flag, upper, roll, rerolls, V, K, theta, slot, flags, width, off, ln, data, pb, py,
        out,
    )  # fmt: skip
    value = _value_of(table, mask, flag, upper, roll, rerolls)
    if base is not None:
        shift = int(round(base))
        out = np.concatenate([np.zeros(shift), out])
        value += shift
    nz = np.flatnonzero(out > 0)
    out = out[: nz[-1] + 1] if nz.size else out[:1]
    return ScoreDistribution(
        out,
        base,
        1.0 if bonus_done else b,
        1.0 if yatzy_done else y,
        value,
        theta,
        time.perf_counter() - t0,
        states + 1,
    )


def _value_of(table: YatzyTable, mask: int, flag: int, upper: int, roll: int, rerolls: int):
    """The table's value of the position (points still to come)."""
    if roll < 0:
        return float(table.widget(mask, flag, upper)[3])
    rv, _, _, _ = table.widget(mask, flag, upper)
    return float(rv[rerolls, roll])


def position_distribution(table: YatzyTable, pos: Any | None = None) -> ScoreDistribution:
    """The distribution from an advice ``Position`` (None: the start of the game)."""
    from diceopt.games.yatzy.advice import _counts, state_of, validate

    rules = table.rules
    if pos is None:
        return distribution(table)
    validate(pos, rules)
    if pos.over(rules):
        raise InputError("the game is over: every category is filled")
    mask, flag, upper = state_of(pos, rules)
    lat = rules.lattice
    roll = int(lat.index(_counts(pos.dice, rules.sides))) - int(lat.offset[rules.dice])
    yz = rules.yahtzee_category
    return distribution(
        table,
        mask=mask,
        flag=flag,
        upper=upper,
        roll=roll,
        rerolls=pos.rerolls,
        base=pos.score,
        bonus_done=pos.upper >= rules.bonus_threshold,
        yatzy_done=bool(pos.yahtzee_bonus) and yz >= 0,
    )


def warm_up(dtype: str | np.dtype = "float32") -> float:
    """Compile (or load from numba's cache) the distribution kernels for tables of
    ``dtype`` (a small American variant: jokers and the Yahtzee bonus); seconds."""
    from diceopt.games.yatzy.kernel import solve_table
    from diceopt.games.yatzy.rules import AMERICAN

    t0 = time.perf_counter()
    tiny = AMERICAN.reduced(("ones", "full_house", "yahtzee"), bonus_threshold=3)
    table = solve_table(tiny, dtype=dtype)
    distribution(table)
    distribution(table, mask=1, upper=2, roll=3, rerolls=1, base=2.0)
    return time.perf_counter() - t0


def distribution_png(dist: ScoreDistribution, path: str, title: str) -> None:
    """The pmf (probability per score, points) with the mean marked, written to ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=100)
    ax.bar(dist.support, dist.pmf, width=1.0, color="#4c78a8")
    ax.axvline(dist.mean, color="#e45756", linestyle="--", label=f"mean {dist.mean:.2f}")
    ax.legend()
    ax.set_xlabel("final score (points)" if dist.base is not None else "points still to come")
    ax.set_ylabel("probability")
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def summary_lines(dist: ScoreDistribution) -> list[str]:
    """The distribution in words: mean, std, median, percentiles, P(>= k), the rates."""
    s = dist.summary()
    what = "final score" if dist.base is not None else "points still to come"
    pct = "  ".join(f"p{p} {v}" for p, v in s["percentiles"].items())
    at_least = "  ".join(f"P(>= {k}) {v:.6f}" for k, v in s["p_at_least"].items())
    return [
        f"{what}: mean {s['mean']:.6f} points, std {s['std']:.4f}, median {s['median']}",
        f"percentiles: {pct}",
        at_least,
        f"range {s['min']} to {s['max']}; probabilities sum to {s['total']:.12f}",
        f"upper bonus {100 * s['bonus_rate']:.4f}% of games, "
        f"Yatzy (50) {100 * s['yatzy_rate']:.4f}%",
    ]


def run_distribution(config: Any, args: Any) -> int:
    """``diceopt yatzy distribution [POSITION]``: the exact final-score distribution."""
    from diceopt.cli.common import check_plot_path, print_json, write_plot
    from diceopt.games.yatzy.advice import format_position, parse_position

    check_plot_path(args.plot)
    rules = config.rules
    pos = parse_position(args.position, rules) if args.position else None
    table = config.table()
    compile_seconds = warm_up(config.dtype)
    dist = position_distribution(table, pos)
    where = "the start" if pos is None else format_position(pos, rules)
    if args.plot:
        title = f"{config.variant}: exact distribution from {where}"
        if config.theta:
            title += f" (theta {config.theta:g})"
        write_plot(lambda: distribution_png(dist, args.plot, title[:90]), args.plot)
    if args.json:
        print_json(
            {
                "variant": config.variant,
                "theta": config.theta,
                "dtype": config.dtype,
                "position": None if pos is None else format_position(pos, rules),
                "of": "final score" if dist.base is not None else "points still to come",
                **dist.summary(),
                "pmf": dist.pmf.tolist(),
                "states": dist.states,
                "seconds": dist.seconds,
                "compile_seconds": compile_seconds,
                "plot": args.plot,
            }
        )
        return 0
    print(f"{config.variant}, exact distribution from {where}")
    what = "expected score" if config.theta == 0 else f"theta {config.theta:g}"
    print(f"policy: the {config.dtype} table's ({what}); table value {dist.value:.6f} points")
    for line in summary_lines(dist):
        print(f"  {line}")
    print(f"  {dist.states:,} states in {dist.seconds:.2f} s (compile {compile_seconds:.2f} s)")
    if args.plot:
        print(f"plot written to {args.plot}")
    return 0
