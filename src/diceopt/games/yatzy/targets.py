"""Target tables: the highest probability of scoring at least k more points.

Role: for every turn-start state ``(mask, flag, upper)`` (as in
:mod:`diceopt.games.yatzy.kernel`) and every number of points still needed
``k = 0 .. kmax``, ``values[mask, flag, upper, k]`` = the highest achievable
P(points still to come >= k) (bonuses included). One table answers every target: a
target K with score s so far needs k = K - s. ``kmax`` is the variant's
``rules.max_total`` for the full table, or a single target K (the values at k depend
only on those at k' <= k, so a table truncated to K is exact up to K).

Method: the expected-value solver's backward induction over layers, with lanes over k
instead of over states. For one state and a chunk of k values:

1. Successor rows ``G[row, j]`` (rows as the kernel's ``_successor_rows``: category c
   and h dice of its face / the Yatzy box scored): the successor's value at
   ``k - points``, 1 where that is <= 0, -1 (never chosen) for forbidden categories.
   The chunk carries a margin of S columns (the most points one roll writes outside an
   upper row, Yahtzee bonus included) so that a shift by a roll's points is a column
   offset.
2. Score now: the best of "write 0 somewhere" and, for the categories where the roll
   scores (the kernel's ``pos_id`` / ``pos_s``), the row shifted by the points; Yahtzee
   rolls under the joker rule or with the Yahtzee bonus go category by category
   (the kernel's ``_allowed`` and ``_category_row``).
3. Rerolls and the first roll: the kernel's lane functions ``_rerolls`` and
   ``_first_roll`` unchanged (the lanes are now values of k).

The policy is the same turn read at one k (:func:`target_turn`): advice ranks every
action by its probability, ties broken as in the expected-score advice.

Values at k above the most points still possible from a state (the distribution's
bound) are 0 and not computed; entries of unreachable states are 0. Tables are float32
(default) or float64; the advice computes one turn in float64.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numba
import numpy as np

from diceopt import storage
from diceopt.advice import ActionAdvice, Advice
from diceopt.errors import InputError
from diceopt.games.yatzy.kernel import (
    NEG,
    KernelArrays,
    _allowed,
    _category_row,
    _first_roll,
    _may_write,
    _rerolls,
    iter_layer_states,
    kernel_arrays,
)
from diceopt.games.yatzy.rules import YatzyRules, get_rules, variant_id

LANES = 64  # values of k per batch (the work arrays stay in the L2 cache)
OBJECTIVE = "target"


def margin(K: KernelArrays) -> int:
    """Most points one roll writes outside an upper row (Yahtzee bonus included)."""
    return int(max(K.score.max(), K.joker.max())) + K.ybonus


# ---------------------------------------------------------------------------------------
# numba kernels (``Vf``: the table as rows of k values, one row per state key)


@numba.njit(cache=True)
def _succ(G: np.ndarray, row: int, Vf: np.ndarray, key: int, pts: int, k0: int, n: int):
    """G[row, j] = P(>= k0 - S + j - pts) from state row ``key`` (1 at k <= 0), j < n."""
    for j in range(n):
        kk = k0 + j - pts
        G[row, j] = 1.0 if kk <= 0 else Vf[key, kk]


@numba.njit(cache=True)
def _target_rows(
    mask: int, flag: int, u: int, k0: int, n: int, Vf: np.ndarray, flags: int, K: KernelArrays,
    G: np.ndarray,
) -> None:  # fmt: skip
    """Step 1: the successor rows for columns k0 .. k0 + n - 1 (k0 already less S).

    Twin of the kernel's ``_successor_rows`` (same rows and successors), with a vector
    over k per row instead of one value: points move the column, not the value.
    """
    T = K.threshold
    width = T + 1
    ncat = K.upper_face.size
    stride = K.offset.size - 1
    for c in range(ncat):
        b0 = c * stride
        if not _may_write(mask, c, K):
            for h in range(stride):
                for j in range(n):
                    G[b0 + h, j] = -1.0
            continue
        nxt = mask | (1 << c)
        f = K.upper_face[c]
        if f < 0:
            _succ(G, b0, Vf, (nxt * flags + flag) * width + u, 0, k0, n)
            if c == K.yz_cat and K.ybonus > 0:
                _succ(G, b0 + 1, Vf, (nxt * flags + 1) * width + u, 0, k0, n)
            else:
                for j in range(n):
                    G[b0 + 1, j] = G[b0, j]
        else:
            for cnt in range(stride):
                pts = cnt * (f + 1)
                b = K.bonus if (u < T and u + pts >= T) else 0
                key = (nxt * flags + flag) * width + min(T, u + pts)
                _succ(G, b0 + cnt, Vf, key, pts + b, k0, n)
    for j in range(n):
        G[ncat * stride, j] = -1.0


@numba.njit(cache=True)
def _target_chunk(
    mask: int, flag: int, u: int, k0: int, nw: int, S: int, Vf: np.ndarray, flags: int,
    K: KernelArrays, G: np.ndarray, A: np.ndarray, M: np.ndarray, out: np.ndarray,
    E1: np.ndarray,
) -> None:  # fmt: skip
    """P(points to come >= k) for k = k0 .. k0 + nw - 1 from one state into out[:nw].

    Afterwards ``G`` holds the successor rows (column S + ln is k0 + ln), ``A`` the keep
    values with two rerolls left and ``E1`` (when it has rows) with one.
    """
    offset, pos_id, pos_s, yz_face = K.offset, K.pos_id, K.pos_s, K.yz_face
    nd = offset.size - 2
    base = offset[nd]
    nk = offset[nd + 1]
    R = nk - base
    ncat = K.upper_face.size
    stride = nd + 1
    neg_row = ncat * stride
    width = pos_id.shape[1]
    _target_rows(mask, flag, u, k0 - S, nw + S, Vf, flags, K, G)
    for ln in range(nw):
        A[nk, ln] = NEG
        M[nk, ln] = NEG
    joker_filled = K.joker_code != 0 and K.yz_cat >= 0 and (mask >> K.yz_cat) & 1
    yb = K.ybonus if flag == 1 else 0
    # "write 0 somewhere" (kept in out until the end)
    for ln in range(nw):
        out[ln] = -1.0
    for c in range(ncat):
        for ln in range(nw):
            out[ln] = max(out[ln], G[c * stride, S + ln])
    for r in range(R):
        row = base + r
        if yz_face[r] >= 0 and (joker_filled or yb != 0):
            ok, use_joker = _allowed(mask, r, K)
            for ln in range(nw):
                A[row, ln] = -1.0
            for c in range(ncat):
                if ok[c]:
                    i, s = _category_row(r, c, use_joker, K)
                    o = S - np.int64(s) - yb
                    for ln in range(nw):
                        A[row, ln] = max(A[row, ln], G[i, o + ln])
            continue
        # twin of the kernel's ``_fill``: points shift the column instead of adding
        for ln in range(nw):
            A[row, ln] = out[ln]
        for e in range(width):
            i = pos_id[r, e]
            if i == neg_row:
                break
            o = S - np.int64(pos_s[r, e])
            for ln in range(nw):
                A[row, ln] = max(A[row, ln], G[i, o + ln])
    _rerolls(A, M, nw, K, E1)
    _first_roll(M, out, nw, K)


@numba.njit(cache=True)
def _target_share(
    t: int, nthreads: int, st_mask: np.ndarray, st_flag: np.ndarray, st_u: np.ndarray,
    kcap: np.ndarray, Vf: np.ndarray, flags: int, K: KernelArrays, S: int, lanes: int,
) -> None:  # fmt: skip
    """States t, t + nthreads, ... of a layer: one thread's share (its own work arrays)."""
    nk = K.add_die.shape[0]
    ncat = K.upper_face.size
    stride = K.offset.size - 1
    width = K.threshold + 1
    G = np.empty((ncat * stride + 1, lanes + S), dtype=Vf.dtype)
    A = np.empty((nk + 1, lanes), dtype=Vf.dtype)
    M = np.empty((nk + 1, lanes), dtype=Vf.dtype)
    out = np.empty(lanes, dtype=Vf.dtype)
    E1 = np.empty((0, lanes), dtype=Vf.dtype)
    for i in range(t, st_mask.size, nthreads):
        mask, flag, u = st_mask[i], st_flag[i], st_u[i]
        key = (mask * flags + flag) * width + u
        Vf[key, 0] = 1.0
        top = kcap[i]
        for k0 in range(1, top + 1, lanes):
            nw = min(lanes, top + 1 - k0)
            _target_chunk(mask, flag, u, k0, nw, S, Vf, flags, K, G, A, M, out, E1)
            for ln in range(nw):
                Vf[key, k0 + ln] = out[ln]


@numba.njit(cache=True, parallel=True)
def _target_layer(
    st_mask: np.ndarray, st_flag: np.ndarray, st_u: np.ndarray, kcap: np.ndarray,
    Vf: np.ndarray, flags: int, K: KernelArrays, S: int, lanes: int, nthreads: int,
) -> None:  # fmt: skip
    """One layer's states (their k vectors up to ``kcap``) from the next layer's."""
    nthreads = max(1, min(nthreads, st_mask.size))
    for t in numba.prange(nthreads):
        _target_share(t, nthreads, st_mask, st_flag, st_u, kcap, Vf, flags, K, S, lanes)


@numba.njit(cache=True)
def target_turn(
    mask: int, flag: int, u: int, k: int, Vf: np.ndarray, flags: int, K: KernelArrays, S: int
) -> tuple[np.ndarray, np.ndarray, float]:
    """One turn at one k, in float64 (``K`` float64): returns ``(keep, category, value)``.

    ``keep[t, i]`` (t = 1, 2 rerolls left): P(>= k) after keeping multiset i (flat lattice
    index) and rerolling the rest; ``category[r, c]``: P(>= k) after writing roll r into
    c (-1 where c may not take r); ``value``: P(>= k) before the first roll.
    """
    nk = K.add_die.shape[0]
    ncat = K.upper_face.size
    stride = K.offset.size - 1
    base = K.offset[stride - 1]
    R = nk - base
    G = np.empty((ncat * stride + 1, 1 + S))
    A = np.empty((nk + 1, 1))
    M = np.empty((nk + 1, 1))
    out = np.empty(1)
    E1 = np.empty((nk, 1))
    _target_chunk(mask, flag, u, k, 1, S, Vf, flags, K, G, A, M, out, E1)
    keep = np.zeros((3, nk))
    for i in range(base):
        keep[1, i] = E1[i, 0]
        keep[2, i] = A[i, 0]
    yb = K.ybonus if flag == 1 else 0
    cat = np.full((R, ncat), -1.0)
    for r in range(R):
        ok, use_joker = _allowed(mask, r, K)
        ybr = yb if K.yz_face[r] >= 0 else 0
        for c in range(ncat):
            if ok[c]:
                i, s = _category_row(r, c, use_joker, K)
                cat[r, c] = G[i, S - np.int64(s) - ybr]
    return keep, cat, out[0]


# ---------------------------------------------------------------------------------------
# Python side


@dataclass
class TargetTable:
    """``values[mask, flag, upper, k]``: the highest P(points still to come >= k), k = 0 ..
    ``kmax`` (points). ``seconds``: solve time; ``states``: states solved."""

    rules: YatzyRules
    values: np.ndarray
    seconds: float = 0.0
    states: int = 0

    @property
    def kmax(self) -> int:
        """The largest k held (points)."""
        return int(self.values.shape[-1]) - 1

    def probability(self, mask: int, flag: int, upper: int, k: int) -> float:
        """P(points still to come >= k) from a turn-start state under target-optimal play."""
        if k <= 0:
            return 1.0
        if k > self.kmax:
            raise InputError(f"this table holds targets up to {self.kmax} points, not {k}")
        return float(self.values[mask, flag, min(upper, self.rules.bonus_threshold), k])

    def turn(
        self, mask: int, flag: int, upper: int, k: int
    ) -> tuple[np.ndarray, np.ndarray, float]:
        """:func:`target_turn` for one state and k (probabilities; k <= kmax)."""
        K = kernel_arrays(self.rules, np.float64)
        Vf = self.values.reshape(-1, self.values.shape[-1])
        kk = max(0, min(int(k), self.kmax))
        return target_turn(mask, flag, upper, kk, Vf, self.rules.flags, K, margin(K))


def solve_targets(
    rules: YatzyRules,
    *,
    kmax: int | None = None,
    dtype: str | np.dtype = "float32",
    lanes: int = LANES,
    progress: Callable[[int, int], None] | None = None,
) -> TargetTable:
    """The target table of a variant for k = 0 .. ``kmax`` points (default
    ``rules.max_total``: every target at once). ``dtype`` float32 or float64;
    ``progress(done, total)`` after each layer. Memory: (2^C x flags x (T + 1) x
    (kmax + 1)) values."""
    from diceopt.games.yatzy.distribution import _max_to_come

    dt = np.dtype(dtype)
    if dt not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise InputError(f"dtype must be float32 or float64, got {dtype}")
    top = rules.max_total if kmax is None else int(kmax)
    if top < 0 or top > rules.max_total:
        raise InputError(f"the target must be between 0 and {rules.max_total} points, got {top}")
    t0 = time.perf_counter()
    K = kernel_arrays(rules, dt)
    S = margin(K)
    c = rules.num_categories
    T = rules.bonus_threshold
    V = np.zeros((1 << c, rules.flags, T + 1, top + 1), dtype=dt)
    Vf = V.reshape(-1, top + 1)
    layers = iter_layer_states(rules, reverse=True)
    last = next(layers)  # every category filled: P(>= 0) = 1, else 0
    width = T + 1
    Vf[(last.mask * rules.flags + last.flag) * width + last.upper, 0] = 1.0
    Vf[last.copy_dst, 0] = 1.0
    states = last.mask.size
    threads = numba.get_num_threads()
    for j, st in zip(range(c - 1, -1, -1), layers, strict=True):
        kcap = np.minimum(_max_to_come(rules, st.mask, st.flag, st.upper), top)
        _target_layer(st.mask, st.flag, st.upper, kcap, Vf, rules.flags, K, S, lanes, threads)
        Vf[st.copy_dst] = Vf[st.copy_src]
        states += st.mask.size
        if progress is not None:
            progress(c - j, c)
    return TargetTable(rules, V, time.perf_counter() - t0, states)


def check_target(target: int, rules: YatzyRules) -> int:
    """A target score (points) in 0 .. ``rules.max_total``, else InputError (one line)."""
    if target < 0 or target > rules.max_total:
        raise InputError(f"the target must be between 0 and {rules.max_total} points, got {target}")
    return int(target)


def target_key(variant: str, dtype: str = "float32") -> storage.TableKey:
    """The storage key of a variant's full target table (objective ``target``)."""
    rules = get_rules(variant)
    return storage.TableKey(
        game="yatzy",
        variant=variant,
        objective=OBJECTIVE,
        theta=0.0,
        dtype=np.dtype(dtype).name,
        shape=(
            1 << rules.num_categories,
            rules.flags,
            rules.bonus_threshold + 1,
            rules.max_total + 1,
        ),
    )


def load_targets(
    variant: str | None = None, dtype: str = "float32", directory: str | None = None
) -> tuple[TargetTable, float] | None:
    """The stored full target table and its load seconds, or None (missing or bad)."""
    variant = variant_id(variant)
    got = storage.load(target_key(variant, dtype), directory)
    if got is None:
        return None
    stored, seconds = got
    h = stored.header
    table = TargetTable(
        get_rules(variant), stored.arrays["values"], float(h.get("seconds", 0.0)),
        int(h.get("states", 0)),
    )  # fmt: skip
    return table, seconds


def store_targets(table: TargetTable, variant: str, directory: str | None = None) -> bool:
    """Save a full target table (one warning line and False if it cannot be written)."""
    key = target_key(variant_id(variant), table.values.dtype.name)
    meta = {"seconds": table.seconds, "states": table.states}
    return storage.store(key, {"values": table.values}, meta, directory)


def target_table_for(variant: str, rules: YatzyRules, k: int) -> TargetTable:
    """The stored full table of ``variant`` (float32) if there is one, else a table solved
    now for k' <= k only (not stored)."""
    got = load_targets(variant)
    if got is not None:
        return got[0]
    return solve_targets(rules, kmax=max(0, k))


def advise_target(pos: Any, config: Any, target: int) -> Advice:
    """Every legal action of ``pos`` ranked by P(final score >= target) (points; without
    a score in the position: P(points still to come >= target)), best first; regrets in
    probability, ``expected`` the action's expected final score (the ordinary table).
    Ties as in the expected-score advice (scoring first, categories in order, keeps in
    lattice order)."""
    from diceopt.games.yatzy.advice import _counts, _keep_text, advise_position, state_of
    from diceopt.games.yatzy.engine_game import legal_categories

    rules = config.rules
    check_target(target, rules)
    if pos.over(rules):
        raise InputError("the game is over: every category is filled")
    k = target - (0 if pos.score is None else int(round(pos.score)))
    table = target_table_for(config.variant, rules, k)
    mask, flag, upper = state_of(pos, rules)
    keep, cat, _ = table.turn(mask, flag, upper, k)
    if k <= 0:
        keep[:] = 1.0
        cat[cat >= 0] = 1.0
    counts = _counts(pos.dice, rules.sides)
    lat = rules.lattice
    roll = lat.index(counts) - int(lat.offset[rules.dice])
    options: list[tuple[float, int, int, str]] = []
    legal, _ = legal_categories(rules, mask, counts)
    for c in legal:
        options.append((float(cat[roll, c]), 0, c, f"score {rules.categories[c]}"))
    if pos.rerolls > 0:
        for kept in itertools.product(*(range(int(n) + 1) for n in counts)):
            kc = np.array(kept, dtype=np.int64)
            if kc.sum() == rules.dice:
                continue
            i = lat.index(kc)
            options.append((float(keep[pos.rerolls, i]), 1, i, _keep_text(kc)))
    options.sort(key=lambda o: (-o[0], o[1], o[2]))
    expected = {a.action: a.value for a in advise_position(pos, rules, config.table())}
    best = options[0][0]
    actions = [
        ActionAdvice(text, p, max(0.0, best - p), expected[text]) for p, _, _, text in options
    ]
    what = "final score" if pos.score is not None else "points still to come"
    return Advice(actions, f"probability that the {what} is at least {target} (0-1)")
