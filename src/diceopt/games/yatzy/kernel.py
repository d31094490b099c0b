"""Exact Yatzy/Yahtzee solver: backward induction over turn-start states, in numba.

A turn-start state is ``(mask, flag, upper)``: the bit mask of filled categories (bit c =
category c of the rules), ``flag`` = 1 when the Yahtzee box holds 50 (American with the
Yahtzee bonus; always 0 otherwise) and the upper total capped at the bonus threshold.
The table ``V[mask, flag, upper]`` holds the optimal value of the rest of the game from
the start of a turn in that state: expected points still to come (bonuses included),
or, with ``theta != 0``, their certainty equivalent under exponential utility
``(1/theta) log E[exp(theta X)]`` (points). Entries of unreachable states are NaN.

Each turn is a *widget*: roll all dice (2 rerolls left), keep a sub-multiset and reroll
(1 left), keep and reroll again (0 left), then score one open category (a category may
also be scored earlier). The keep lattice (:class:`~diceopt.dice.KeepLattice`) gives
both steps: ``E[keep] = sum_f p_f E[keep + f]`` (a chance node; a certainty equivalent
computed in the utility domain when theta != 0) and ``best[roll] = max over sub-multisets``
through the remove-one-die edges, O(462 * 6) per level for five dice.

Speed: the solve goes layer by layer (number of filled categories, last turn first).
All states of a layer are laid out as *lanes* and solved in batches of ``lanes`` states
at once: every lattice operation is a loop over contiguous lanes (SIMD), batches run in
parallel (``prange``). Upper totals from which the bonus can no longer be reached have
the same value, so only one of them is solved and the value is copied to the others.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numba
import numpy as np

from diceopt.errors import InputError
from diceopt.games.yatzy.rules import YatzyRules, check_theta, reachable_upper_totals

NEG = -1.0e30  # value of a forbidden choice (far below any score, finite in float32)
LANES = {np.dtype(np.float32): 64, np.dtype(np.float64): 32}  # states per batch


@dataclass
class KernelData:
    """The arrays the numba kernels need, built once per rules and dtype.

    ``arrays`` is the tuple ``G`` every kernel takes (fields listed in its docstring).
    """

    rules: YatzyRules
    dtype: np.dtype

    @cached_property
    def arrays(self) -> tuple:
        """(add_die, remove_die, offset, fprob, roll_p, score, joker, roll_cnt, yz_face,
        upper_face, rem_pad, rem_n, pos_id, pos_s, params, consts)."""
        r = self.rules
        lat = r.lattice
        dt = self.dtype
        nk = int(lat.offset[-1])
        nd = r.dice
        R = len(r.roll_counts)
        yz_face = np.where(r.is_yahtzee_roll, r.roll_counts.argmax(axis=1), -1).astype(np.int64)
        # remove-one-die edges, valid ones first, padded with the NEG row (index nk)
        rem_pad = np.full((nk, r.sides), nk, dtype=np.int64)
        rem_n = np.zeros(nk, dtype=np.int64)
        for i in range(nk):
            valid = [int(j) for j in lat.remove_die[i] if j >= 0]
            rem_pad[i, : len(valid)] = valid
            rem_n[i] = len(valid)
        # per roll: successor rows that score more than the zero row (padded to 4)
        stride = nd + 1
        neg_row = r.num_categories * stride
        ids: list[list[int]] = []
        pts: list[list[float]] = []
        for ri in range(R):
            row_i, row_s = [], []
            for c in range(r.num_categories):
                f = int(r.upper_face[c])
                if f >= 0:
                    cnt = int(r.roll_counts[ri, f])
                    if cnt > 0:
                        row_i.append(c * stride + cnt)
                        row_s.append(0.0)
                elif r.score[ri, c] > 0:
                    h = 1 if c == r.yahtzee_category else 0
                    row_i.append(c * stride + h)
                    row_s.append(float(r.score[ri, c]))
            ids.append(row_i)
            pts.append(row_s)
        width = max(4, max(-(-len(x) // 4) * 4 for x in ids))
        pos_id = np.full((R, width), neg_row, dtype=np.int64)
        pos_s = np.zeros((R, width), dtype=dt)
        for ri in range(R):
            pos_id[ri, : len(ids[ri])] = ids[ri]
            pos_s[ri, : len(pts[ri])] = pts[ri]
        return (
            lat.add_die.astype(np.int64),
            lat.remove_die.astype(np.int64),
            lat.offset.astype(np.int64),
            np.full(r.sides, 1.0 / r.sides, dtype=dt),
            r.roll_probs.astype(dt),
            r.score.astype(dt),
            r.joker_score.astype(dt),
            r.roll_counts.astype(np.int64),
            yz_face,
            r.upper_face.astype(np.int64),
            rem_pad,
            rem_n,
            pos_id,
            pos_s,
            np.array(
                [
                    r.bonus_threshold,
                    r.bonus,
                    r.yahtzee_category,
                    r.joker_code,
                    r.yahtzee_bonus if r.tracks_yahtzee else 0,
                    int(r.forced_order),
                ],
                dtype=np.int64,
            ),
            np.array([0.0, NEG], dtype=dt),
        )


def upper_lanes(faces: np.ndarray, dice: int, threshold: int) -> tuple[np.ndarray, np.ndarray]:
    """Reachable capped upper totals for every subset of the upper categories.

    ``faces[i]`` is the face index of upper category i (rank order). Returns ``lanes_n``
    (count per subset) and ``lanes_u`` (the totals, sorted, padded with -1), indexed by
    the subset as a bit mask over ranks.
    """
    m = len(faces)
    lanes_n = np.zeros(1 << m, dtype=np.int64)
    lanes_u = np.full((1 << m, threshold + 1), -1, dtype=np.int64)
    for s in range(1 << m):
        vals = reachable_upper_totals([faces[i] for i in range(m) if s >> i & 1], dice, threshold)
        lanes_n[s] = len(vals)
        lanes_u[s, : len(vals)] = vals
    return lanes_n, lanes_u


def reachable_uppers(rules: YatzyRules, mask: int) -> list[int]:
    """Upper totals (capped) reachable with the filled upper categories of ``mask``."""
    faces = [f for c, f in enumerate(rules.upper_face) if f >= 0 and mask >> c & 1]
    return reachable_upper_totals(faces, rules.dice, rules.bonus_threshold)


# ---------------------------------------------------------------------------------------
# numba kernels. ``G`` is ``KernelData.arrays``.


@numba.njit(cache=True)
def _allowed(mask: int, r: int, yz_face: np.ndarray, upper_face: np.ndarray, params: np.ndarray):
    """Categories roll r (-1: any non-Yahtzee roll) may be written into, and whether as joker."""
    yz_cat = params[2]
    joker_code = params[3]
    forced_order = params[5]
    ncat = upper_face.size
    ok = np.zeros(ncat, dtype=np.bool_)
    if forced_order:
        for c in range(ncat):
            if not (mask >> c) & 1:
                ok[c] = True
                break
    else:
        for c in range(ncat):
            ok[c] = not (mask >> c) & 1
    use_joker = False
    f = yz_face[r] if r >= 0 else -1
    if joker_code != 0 and f >= 0 and yz_cat >= 0 and (mask >> yz_cat) & 1:
        use_joker = True
        if joker_code == 2:  # forced joker: matching upper box, else a lower one, else any
            match = -1
            lower_open = False
            for c in range(ncat):
                if ok[c]:
                    if upper_face[c] == f:
                        match = c
                    elif upper_face[c] < 0:
                        lower_open = True
            if match >= 0:
                for c in range(ncat):
                    ok[c] = c == match
            elif lower_open:
                for c in range(ncat):
                    if upper_face[c] >= 0:
                        ok[c] = False
        else:  # free choice: any open box; joker points once the matching upper box is used
            for c in range(ncat):
                if upper_face[c] == f and not (mask >> c) & 1:
                    use_joker = False
    return ok, use_joker


@numba.njit(cache=True)
def _gather(
    st_mask: np.ndarray,
    st_flag: np.ndarray,
    st_u: np.ndarray,
    lo: int,
    nb: int,
    V: np.ndarray,
    SR: np.ndarray,
    Z: np.ndarray,
    YB: np.ndarray,
    G: tuple,
) -> None:
    """Successor rows of the batch: SR[c * (dice + 1) + h, lane] and the best zero score Z.

    Lower category c: h = 0 scored normally (Yahtzee box: scored 0), h = 1 Yahtzee box
    scored 50. Upper category c: h = count of its face (points and bonus included).
    Rows of categories the lane may not use are NEG.
    """
    offset, yz_face, upper_face, params, consts = G[2], G[8], G[9], G[14], G[15]
    T, bonus, yz_cat, ybonus = params[0], params[1], params[2], params[4]
    neg = consts[1]
    ncat = upper_face.size
    nd = offset.size - 2
    stride = nd + 1
    for ln in range(nb):
        mask = st_mask[lo + ln]
        flag = st_flag[lo + ln]
        u = st_u[lo + ln]
        ok, _ = _allowed(mask, -1, yz_face, upper_face, params)
        z = neg
        for c in range(ncat):
            b0 = c * stride
            if not ok[c]:
                for h in range(stride):
                    SR[b0 + h, ln] = neg
                continue
            nxt = mask | (1 << c)
            f = upper_face[c]
            if f < 0:
                v = V[nxt, flag, u]
                SR[b0, ln] = v
                SR[b0 + 1, ln] = V[nxt, 1, u] if (c == yz_cat and ybonus > 0) else v
            else:
                for cnt in range(nd + 1):
                    pts = cnt * (f + 1)
                    b = bonus if (u < T and u + pts >= T) else 0
                    SR[b0 + cnt, ln] = pts + b + V[nxt, flag, min(T, u + pts)]
            if SR[b0, ln] > z:
                z = SR[b0, ln]
        Z[ln] = z
        YB[ln] = ybonus if flag == 1 else 0


@numba.njit(cache=True)
def _fill(A: np.ndarray, TMP: np.ndarray, SR: np.ndarray, Z: np.ndarray, nb: int, G: tuple):
    """Rows of the rolls: value of writing each roll now (0 rerolls left), per lane.

    max(Z, s + SR[row]) over the rows of the roll's positive scores, four at a time.
    """
    offset, pos_id, pos_s = G[2], G[12], G[13]
    nd = offset.size - 2
    base = offset[nd]
    R = pos_id.shape[0]
    width = pos_id.shape[1]
    for r in range(R):
        row = base + r
        src = Z
        tmp_is_dst = True
        for e in range(0, width, 4):
            i0, i1, i2, i3 = pos_id[r, e], pos_id[r, e + 1], pos_id[r, e + 2], pos_id[r, e + 3]
            if e > 0 and i0 == SR.shape[0] - 1:
                break  # only padding left
            s0, s1, s2, s3 = pos_s[r, e], pos_s[r, e + 1], pos_s[r, e + 2], pos_s[r, e + 3]
            dst = TMP if tmp_is_dst else A[row]
            for ln in range(nb):
                dst[ln] = max(
                    max(src[ln], s0 + SR[i0, ln]),
                    max(max(s1 + SR[i1, ln], s2 + SR[i2, ln]), s3 + SR[i3, ln]),
                )
            src = dst
            tmp_is_dst = not tmp_is_dst
        if not tmp_is_dst:  # result is in TMP
            for ln in range(nb):
                A[row, ln] = TMP[ln]


@numba.njit(cache=True)
def _joker_rows(
    A: np.ndarray,
    SR: np.ndarray,
    st_mask: np.ndarray,
    lo: int,
    nb: int,
    G: tuple,
) -> None:
    """Rows of Yahtzee rolls in lanes where the joker rule applies (recomputed per lane)."""
    offset, score, joker, roll_cnt, yz_face = G[2], G[5], G[6], G[7], G[8]
    upper_face, params = G[9], G[14]
    yz_cat = params[2]
    nd = offset.size - 2
    base = offset[nd]
    stride = nd + 1
    ncat = upper_face.size
    R = joker.shape[0]
    for ln in range(nb):
        mask = st_mask[lo + ln]
        if not (yz_cat >= 0 and (mask >> yz_cat) & 1):
            continue
        for r in range(R):
            if yz_face[r] < 0:
                continue
            ok, use_joker = _allowed(mask, r, yz_face, upper_face, params)
            sc = joker if use_joker else score
            best = NEG
            for c in range(ncat):
                if not ok[c]:
                    continue
                f = upper_face[c]
                if f >= 0:
                    v = SR[c * stride + roll_cnt[r, f], ln]
                else:
                    v = sc[r, c] + SR[c * stride, ln]
                if v > best:
                    best = v
            A[base + r, ln] = best


@numba.njit(cache=True)
def _chance(
    A: np.ndarray, src: np.ndarray, i: int, nb: int, add_die: np.ndarray, fprob: np.ndarray
) -> None:
    """A[i] = sum_f p_f src[i + f] per lane (expected value over one more die)."""
    k = add_die.shape[1]
    if k == 6:
        j0, j1, j2 = add_die[i, 0], add_die[i, 1], add_die[i, 2]
        j3, j4, j5 = add_die[i, 3], add_die[i, 4], add_die[i, 5]
        p0, p1, p2, p3, p4, p5 = fprob[0], fprob[1], fprob[2], fprob[3], fprob[4], fprob[5]
        for ln in range(nb):
            A[i, ln] = (
                p0 * src[j0, ln]
                + p1 * src[j1, ln]
                + p2 * src[j2, ln]
                + p3 * src[j3, ln]
                + p4 * src[j4, ln]
                + p5 * src[j5, ln]
            )
    else:
        j0 = add_die[i, 0]
        p0 = fprob[0]
        for ln in range(nb):
            A[i, ln] = p0 * src[j0, ln]
        for f in range(1, k):
            j = add_die[i, f]
            p = fprob[f]
            for ln in range(nb):
                A[i, ln] = A[i, ln] + p * src[j, ln]


@numba.njit(cache=True)
def _choose(A: np.ndarray, M: np.ndarray, nb: int, rem_pad: np.ndarray, rem_n: np.ndarray):
    """M[i] = max(A[i], M[i - f]): the best sub-multiset of every multiset, per lane."""
    nk = A.shape[0] - 1
    for ln in range(nb):
        M[0, ln] = A[0, ln]
    for i in range(1, nk):
        j0, j1, j2 = rem_pad[i, 0], rem_pad[i, 1], rem_pad[i, 2]
        if rem_n[i] <= 3:
            for ln in range(nb):
                M[i, ln] = max(max(A[i, ln], M[j0, ln]), max(M[j1, ln], M[j2, ln]))
        else:
            j3, j4, j5 = rem_pad[i, 3], rem_pad[i, 4], rem_pad[i, 5]
            for ln in range(nb):
                M[i, ln] = max(
                    max(max(A[i, ln], M[j0, ln]), max(M[j1, ln], M[j2, ln])),
                    max(max(M[j3, ln], M[j4, ln]), M[j5, ln]),
                )


@numba.njit(cache=True)
def _choose_generic(A: np.ndarray, M: np.ndarray, nb: int, rem_pad: np.ndarray, rem_n: np.ndarray):
    """As ``_choose`` for any number of faces."""
    nk = A.shape[0] - 1
    for i in range(nk):
        for ln in range(nb):
            M[i, ln] = A[i, ln]
        for e in range(rem_n[i]):
            j = rem_pad[i, e]
            for ln in range(nb):
                v = M[j, ln]
                M[i, ln] = v if v > M[i, ln] else M[i, ln]


@numba.njit(cache=True)
def _solve_batch(
    st_mask: np.ndarray,
    st_flag: np.ndarray,
    st_u: np.ndarray,
    lo: int,
    nb: int,
    V: np.ndarray,
    A: np.ndarray,
    M: np.ndarray,
    SR: np.ndarray,
    Z: np.ndarray,
    YB: np.ndarray,
    TMP: np.ndarray,
    out: np.ndarray,
    G: tuple,
    theta: float,
) -> None:
    """Values of the turn-start states lo .. lo + nb of a layer into out[:nb]."""
    add_die, offset, fprob, roll_p, yz_face = G[0], G[2], G[3], G[4], G[8]
    rem_pad, rem_n, params, consts = G[10], G[11], G[14], G[15]
    zero, neg = consts[0], consts[1]
    nd = offset.size - 2
    base = offset[nd]
    nk = offset[nd + 1]
    R = nk - base
    for ln in range(nb):
        A[nk, ln] = neg
        M[nk, ln] = neg
    _gather(st_mask, st_flag, st_u, lo, nb, V, SR, Z, YB, G)
    _fill(A, TMP, SR, Z, nb, G)
    if params[3] != 0:
        _joker_rows(A, SR, st_mask, lo, nb, G)
    if params[4] != 0:
        for r in range(R):
            if yz_face[r] >= 0:
                for ln in range(nb):
                    A[base + r, ln] += YB[ln]
    sgn = 1.0 if theta >= 0.0 else -1.0
    if theta != 0.0:
        # exponential utility: work with W = sign(theta) exp(theta (X - ref)), ref per lane
        # the best (theta > 0) or worst (theta < 0) score-now value, so |W| <= 1. W is
        # increasing in X, so choices are still maxima and chance nodes become linear.
        for ln in range(nb):
            TMP[ln] = A[base, ln]
        for r in range(1, R):
            for ln in range(nb):
                x = A[base + r, ln]
                TMP[ln] = max(TMP[ln], x) if theta > 0.0 else min(TMP[ln], x)
        for r in range(R):
            for ln in range(nb):
                A[base + r, ln] = sgn * np.exp(theta * (A[base + r, ln] - TMP[ln]))
    six = rem_pad.shape[1] == 6
    for level in range(2):
        # chance: keeps of size nd-1 .. 0 from the rows with one more die
        for i in range(base - 1, -1, -1):
            src = M if (level == 1 and i >= offset[nd - 1]) else A
            _chance(A, src, i, nb, add_die, fprob)
        # choice: best sub-multiset of every multiset. The roll rows of A still hold the
        # value of scoring now: keeping all dice is never better than the best of scoring
        # now and a proper keep, so max(score now, proper keeps) is the roll's value.
        if six:
            _choose(A, M, nb, rem_pad, rem_n)
        else:
            _choose_generic(A, M, nb, rem_pad, rem_n)
    for ln in range(nb):
        out[ln] = zero
    r = 0
    while r + 4 <= R:
        p0, p1, p2, p3 = roll_p[r], roll_p[r + 1], roll_p[r + 2], roll_p[r + 3]
        b = base + r
        for ln in range(nb):
            out[ln] = out[ln] + (
                p0 * M[b, ln] + p1 * M[b + 1, ln] + p2 * M[b + 2, ln] + p3 * M[b + 3, ln]
            )
        r += 4
    while r < R:
        p0 = roll_p[r]
        for ln in range(nb):
            out[ln] = out[ln] + p0 * M[base + r, ln]
        r += 1
    if theta != 0.0:
        for ln in range(nb):
            out[ln] = TMP[ln] + np.log(sgn * out[ln]) / theta


@numba.njit(cache=True, parallel=True)
def _solve_layer(
    st_mask: np.ndarray,
    st_flag: np.ndarray,
    st_u: np.ndarray,
    V: np.ndarray,
    As: np.ndarray,
    Ms: np.ndarray,
    SRs: np.ndarray,
    vecs: np.ndarray,
    G: tuple,
    theta: float,
) -> None:
    """Solve the states (st_mask, st_flag, st_u) of one layer into V, batch by batch."""
    nchunks = As.shape[0]
    lanes = As.shape[2]
    nst = st_mask.size
    nbatch = (nst + lanes - 1) // lanes
    for ch in numba.prange(nchunks):
        A = As[ch]
        M = Ms[ch]
        SR = SRs[ch]
        Z = vecs[ch, 0]
        YB = vecs[ch, 1]
        TMP = vecs[ch, 2]
        out = vecs[ch, 3]
        for b in range(ch, nbatch, nchunks):
            lo = b * lanes
            nb = min(lanes, nst - lo)
            _solve_batch(st_mask, st_flag, st_u, lo, nb, V, A, M, SR, Z, YB, TMP, out, G, theta)
            for ln in range(nb):
                V[st_mask[lo + ln], st_flag[lo + ln], st_u[lo + ln]] = out[ln]


@numba.njit(cache=True)
def _category_values_into(
    mask: int,
    flag: int,
    upper: int,
    r: int,
    V: np.ndarray,
    G: tuple,
    ok: np.ndarray,
    use_joker: bool,
    out: np.ndarray,
) -> None:
    score, joker, roll_cnt, yz_face, upper_face, params = G[5], G[6], G[7], G[8], G[9], G[14]
    T, bonus, yz_cat, ybonus = params[0], params[1], params[2], params[4]
    extra = ybonus if (flag == 1 and yz_face[r] >= 0) else 0
    for c in range(upper_face.size):
        if not ok[c]:
            out[c] = NEG
            continue
        nxt = mask | (1 << c)
        f = upper_face[c]
        if f >= 0:
            pts = roll_cnt[r, f] * (f + 1)
            b = bonus if (upper < T and upper + pts >= T) else 0
            out[c] = pts + b + extra + np.float64(V[nxt, flag, min(T, upper + pts)])
        else:
            s = joker[r, c] if use_joker else score[r, c]
            f2 = 1 if (c == yz_cat and s > 0 and ybonus > 0) else flag
            out[c] = s + extra + np.float64(V[nxt, f2, upper])


@numba.njit(cache=True)
def category_values(
    mask: int, flag: int, upper: int, r: int, V: np.ndarray, G: tuple
) -> np.ndarray:
    """Value of writing roll r into each category from state (mask, flag, upper).

    Points now (upper bonus and Yahtzee bonus included) plus the table value of the
    next turn-start state; NEG where the category may not be used. float64.
    """
    upper_face = G[9]
    ok, use_joker = _allowed(mask, r, G[8], upper_face, G[14])
    out = np.empty(upper_face.size)
    _category_values_into(mask, flag, upper, r, V, G, ok, use_joker, out)
    return out


@numba.njit(cache=True)
def widget_into(
    mask: int,
    flag: int,
    upper: int,
    V: np.ndarray,
    G: tuple,
    theta: float,
    roll_value: np.ndarray,
    keep_value: np.ndarray,
    policy: np.ndarray,
    sub_best: np.ndarray,
    sub_arg: np.ndarray,
    cv: np.ndarray,
) -> float:
    """``widget_detail`` into preallocated arrays (no allocation per roll); returns value.

    Shapes: roll_value (3, R) float64, keep_value (3, nk) float64, policy (3, R) int64,
    sub_best (nk,) float64, sub_arg (nk,) int64, cv (categories,) float64.
    """
    add_die, remove_die, offset, fprob, roll_p = G[0], G[1], G[2], G[3], G[4]
    yz_face, upper_face, params = G[8], G[9], G[14]
    nd = offset.size - 2
    base = offset[nd]
    nk = offset[nd + 1]
    R = nk - base
    k = add_die.shape[1]
    ok_base, _ = _allowed(mask, -1, yz_face, upper_face, params)
    for r in range(R):
        if yz_face[r] >= 0 and params[3] != 0:
            ok, use_joker = _allowed(mask, r, yz_face, upper_face, params)
            _category_values_into(mask, flag, upper, r, V, G, ok, use_joker, cv)
        else:
            _category_values_into(mask, flag, upper, r, V, G, ok_base, False, cv)
        best = 0
        for c in range(cv.size):
            if cv[c] > cv[best]:
                best = c
        roll_value[0, r] = cv[best]
        policy[0, r] = -best - 1
    for t in range(1, 3):
        E = keep_value[t]
        for r in range(R):
            E[base + r] = roll_value[t - 1, r]
        for i in range(base - 1, -1, -1):
            if theta == 0.0:
                acc = 0.0
                for f in range(k):
                    acc += fprob[f] * E[add_die[i, f]]
                E[i] = acc
            else:
                top = NEG
                for f in range(k):
                    v = theta * E[add_die[i, f]]
                    if fprob[f] > 0 and v > top:
                        top = v
                acc = 0.0
                for f in range(k):
                    if fprob[f] > 0:
                        acc += fprob[f] * np.exp(theta * E[add_die[i, f]] - top)
                E[i] = (top + np.log(acc)) / theta
        # best sub-multiset (itself included) of every multiset smaller than a roll
        for i in range(base):
            sub_best[i] = E[i]
            sub_arg[i] = i
            for f in range(k):
                j = remove_die[i, f]
                if j >= 0 and sub_best[j] > sub_best[i]:
                    sub_best[i] = sub_best[j]
                    sub_arg[i] = sub_arg[j]
        for r in range(R):
            pb = NEG
            pa = -1
            for f in range(k):
                j = remove_die[base + r, f]
                if j >= 0 and (sub_best[j] > pb or (sub_best[j] == pb and sub_arg[j] < pa)):
                    pb = sub_best[j]
                    pa = sub_arg[j]
            if roll_value[0, r] >= pb:
                roll_value[t, r] = roll_value[0, r]
                policy[t, r] = policy[0, r]
            else:
                roll_value[t, r] = pb
                policy[t, r] = pa
    if theta == 0.0:
        value = 0.0
        for r in range(R):
            value += roll_p[r] * roll_value[2, r]
        return value
    top = NEG
    for r in range(R):
        v = theta * roll_value[2, r]
        if roll_p[r] > 0 and v > top:
            top = v
    acc = 0.0
    for r in range(R):
        if roll_p[r] > 0:
            acc += roll_p[r] * np.exp(theta * roll_value[2, r] - top)
    return (top + np.log(acc)) / theta


@numba.njit(cache=True)
def widget_detail(
    mask: int, flag: int, upper: int, V: np.ndarray, G: tuple, theta: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Everything about one turn from state (mask, flag, upper), in float64.

    An independent (scalar) implementation of the widget; ``G`` must be the float64
    ``KernelData.arrays``. Returns ``(roll_value, keep_value, policy, value)``:

    - ``roll_value[t, r]``: value of having roll r (index among the R sorted rolls) with
      t rerolls left (t = 0, 1, 2), acting optimally from there;
    - ``keep_value[t, k]``: value of keeping multiset k (flat lattice index) and rerolling
      the other dice when t rerolls were left (t = 1, 2; row 0 unused);
    - ``policy[t, r]``: optimal action with roll r and t rerolls left: ``>= 0`` keep that
      multiset (flat lattice index, a proper sub-multiset of the roll) and reroll the
      rest; ``< 0`` write the roll into category ``-policy - 1`` now (ties favour scoring);
    - ``value``: value of the turn-start state (expected or certainty-equivalent points).
    """
    offset = G[2]
    nd = offset.size - 2
    nk = offset[nd + 1]
    R = nk - offset[nd]
    roll_value = np.zeros((3, R))
    keep_value = np.zeros((3, nk))
    policy = np.zeros((3, R), dtype=np.int64)
    sub_best = np.empty(nk)
    sub_arg = np.empty(nk, dtype=np.int64)
    cv = np.empty(G[9].size)
    value = widget_into(
        mask, flag, upper, V, G, theta, roll_value, keep_value, policy, sub_best, sub_arg, cv
    )
    return roll_value, keep_value, policy, value


# ---------------------------------------------------------------------------------------
# Python side


@dataclass
class LayerStates:
    """The states one layer solves (mask, flag, upper per lane) and the copies to make.

    ``copy_dst`` / ``copy_src``: flat indices into the table of states whose value equals
    that of a solved state (upper totals from which the bonus is out of reach).
    """

    mask: np.ndarray
    flag: np.ndarray
    upper: np.ndarray
    copy_dst: np.ndarray
    copy_src: np.ndarray


def layer_masks(rules: YatzyRules) -> list[np.ndarray]:
    """Reachable filled masks per layer (number of filled categories), int64 arrays."""
    c = rules.num_categories
    if rules.forced_order:
        return [np.array([(1 << j) - 1], dtype=np.int64) for j in range(c + 1)]
    allm = np.arange(1 << c, dtype=np.int64)
    pop = np.zeros(1 << c, dtype=np.int64)
    for b in range(c):
        pop += (allm >> b) & 1
    return [allm[pop == j] for j in range(c + 1)]


def layer_states(rules: YatzyRules) -> list[LayerStates]:
    """For every layer, the states to solve and the equal-value copies (vectorised numpy)."""
    c = rules.num_categories
    T = rules.bonus_threshold
    up_cats = [i for i in range(c) if rules.upper_face[i] >= 0]
    faces = rules.upper_face[up_cats]
    lanes_n, lanes_u = upper_lanes(faces, rules.dice, T)
    nsub = len(lanes_n)
    max_left = np.zeros(nsub, dtype=np.int64)  # most upper points still possible
    for s in range(nsub):
        max_left[s] = sum(
            rules.dice * (int(faces[i]) + 1) for i in range(len(faces)) if not s >> i & 1
        )
    solve_u = np.full((nsub, T + 1), -1, dtype=np.int64)
    solve_n = np.zeros(nsub, dtype=np.int64)
    rep = np.full((nsub, T + 1), -1, dtype=np.int64)  # u -> solved u with the same value
    for s in range(nsub):
        us = lanes_u[s, : lanes_n[s]]
        live = us[us + max_left[s] >= T]
        dead = us[us + max_left[s] < T]
        chosen = list(live) + ([int(dead[0])] if len(dead) else [])
        solve_n[s] = len(chosen)
        solve_u[s, : len(chosen)] = chosen
        for u in us:
            rep[s, u] = u if u in live or (len(dead) and u == dead[0]) else dead[0]
    yz = rules.yahtzee_category
    out = []
    for masks in layer_masks(rules):
        sub = np.zeros(masks.size, dtype=np.int64)
        for rank, cat in enumerate(up_cats):
            sub |= ((masks >> cat) & 1) << rank
        flags_list = [np.zeros(masks.size, dtype=np.int64)]
        mask_list = [masks]
        sub_list = [sub]
        if rules.flags == 2 and yz >= 0:
            has = ((masks >> yz) & 1) == 1
            mask_list.append(masks[has])
            flags_list.append(np.ones(int(has.sum()), dtype=np.int64))
            sub_list.append(sub[has])
        m_all = np.concatenate(mask_list)
        f_all = np.concatenate(flags_list)
        s_all = np.concatenate(sub_list)
        n = solve_n[s_all]
        st_mask = np.repeat(m_all, n)
        st_flag = np.repeat(f_all, n)
        cols = solve_u[s_all]
        st_u = cols[np.arange(cols.shape[1])[None, :] < n[:, None]]
        # copies: every reachable u whose representative differs from itself
        reps = rep[s_all]  # (M, T + 1)
        uu = np.arange(T + 1)[None, :]
        need = (reps >= 0) & (reps != uu)
        mi, ui = np.nonzero(need)
        fl = rules.flags
        dst = (m_all[mi] * fl + f_all[mi]) * (T + 1) + ui
        src = (m_all[mi] * fl + f_all[mi]) * (T + 1) + reps[mi, ui]
        out.append(LayerStates(st_mask, st_flag, st_u, dst, src))
    return out


def count_states(rules: YatzyRules) -> int:
    """Number of reachable turn-start states (mask, flag, upper total)."""
    return int(sum(s.mask.size + s.copy_dst.size for s in layer_states(rules)))


@dataclass
class YatzyTable:
    """A solved table: ``values[mask, flag, upper]`` (points to come; NaN = unreachable).

    ``seconds``: time of the solve (numba compile excluded when warmed up).
    """

    rules: YatzyRules
    values: np.ndarray
    theta: float = 0.0
    seconds: float = 0.0
    states: int = 0

    @property
    def value(self) -> float:
        """Optimal value of the whole game from the first turn (points)."""
        return float(self.values[0, 0, 0])

    @cached_property
    def g64(self) -> tuple:
        """Kernel arrays in float64 (for the scalar widget)."""
        return KernelData(self.rules, np.dtype(np.float64)).arrays

    def widget(
        self, mask: int, flag: int, upper: int
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
        """``widget_detail`` for one turn-start state (see there), in float64."""
        return widget_detail(mask, flag, upper, self.values, self.g64, self.theta)

    def category_values(self, mask: int, flag: int, upper: int, roll: int) -> np.ndarray:
        """Value of writing roll index ``roll`` into each category (NEG: not allowed)."""
        return category_values(mask, flag, upper, roll, self.values, self.g64)


def solve_table(
    rules: YatzyRules,
    *,
    dtype: str | np.dtype = "float32",
    theta: float = 0.0,
    progress: Callable[[int, int], None] | None = None,
    lanes: int | None = None,
) -> YatzyTable:
    """Solve a variant exactly: the value of every reachable turn-start state.

    ``dtype`` float32 (default) or float64; ``theta`` exponential-utility parameter (0:
    expected points; |theta| <= 1). ``progress(done, total)`` is called after each layer.
    ``lanes``: states per SIMD batch (default by dtype).
    """
    dt = np.dtype(dtype)
    if dt not in LANES:
        raise InputError(f"dtype must be float32 or float64, got {dtype}")
    theta = check_theta(theta)
    t0 = time.perf_counter()
    G = KernelData(rules, dt).arrays
    c = rules.num_categories
    T = rules.bonus_threshold
    nk = int(rules.lattice.offset[-1])
    V = np.full((1 << c, rules.flags, T + 1), np.nan, dtype=dt)
    Vflat = V.reshape(-1)
    layers = layer_states(rules)
    last = layers[c]  # every category filled: nothing more to score
    V[last.mask, last.flag, last.upper] = 0.0
    Vflat[last.copy_dst] = 0.0
    width = lanes or LANES[dt]
    nchunks = max(1, numba.get_num_threads())
    As = np.empty((nchunks, nk + 1, width), dtype=dt)
    Ms = np.empty((nchunks, nk + 1, width), dtype=dt)
    SRs = np.empty((nchunks, c * (rules.dice + 1) + 1, width), dtype=dt)
    SRs[:, -1, :] = NEG
    vecs = np.empty((nchunks, 4, width), dtype=dt)
    states = last.mask.size + last.copy_dst.size
    for j in range(c - 1, -1, -1):
        st = layers[j]
        _solve_layer(st.mask, st.flag, st.upper, V, As, Ms, SRs, vecs, G, theta)
        Vflat[st.copy_dst] = Vflat[st.copy_src]
        states += st.mask.size + st.copy_dst.size
        if progress is not None:
            progress(c - j, c)
    seconds = time.perf_counter() - t0
    return YatzyTable(rules, V, theta, seconds, states)


def warm_up(dtype: str | np.dtype = "float32") -> float:
    """Compile (or load from numba's cache) the solver for ``dtype``; returns seconds.

    Solves a two-category variant, which runs every kernel the full solve runs.
    """
    t0 = time.perf_counter()
    from diceopt.games.yatzy.rules import SCANDINAVIAN

    tiny = SCANDINAVIAN.reduced(("ones", "chance"), bonus_threshold=3)
    solve_table(tiny, dtype=dtype)
    solve_table(tiny, dtype=dtype, theta=0.1)
    return time.perf_counter() - t0
