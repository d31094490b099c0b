"""The target turn in numba: one turn's P(points still to come >= k) over lanes of k.

Role: the kernels of the target tables (:mod:`diceopt.games.yatzy.analyses.targets`): the
expected-value solver's turn (:mod:`diceopt.games.yatzy.kernel.solve`) with lanes over k, the
points still needed, instead of over states; and the turn read at one k for the advice
(:func:`target_turn`). For one state and a chunk of up to ``LANES`` values of k (a
state's k range in equal chunks of whole 16-lane vectors):

1. Successor rows ``G[row, j]`` (rows as :func:`~diceopt.games.yatzy.kernel.turn.successor_rows`:
   category c and h dice of its face / the Yatzy box scored / a ``needs_yatzy`` box
   scored, its points only while the flag is set), for the open categories only: the
   successor's value at ``k - points``, 1 where that is <= 0, 0 above its most points to
   come. The chunk carries a margin of S columns (:func:`margin`: the most points one
   write adds beside its row, served points and both Yatzy bonuses included) so that a
   shift by a roll's points is a column offset.
2. Score now: the best of "write 0 somewhere" and, for the open categories where the
   roll scores (``pos_id`` / ``pos_s`` less the filled ones, per state:
   :func:`_target_plan`), the row shifted by the points, eight rows a pass; Yatzy rolls
   under the joker rules, the Kniffel bonus rule or with the Yahtzee bonus go category
   by category (:func:`~diceopt.games.yatzy.kernel.turn.allowed_categories` and
   :func:`roll_shift`).
3. Rerolls and the first roll: the solver's lane functions
   (:func:`~diceopt.games.yatzy.kernel.turn.chance_rows`,
   :func:`~diceopt.games.yatzy.kernel.solve.first_roll`,
   :func:`~diceopt.games.yatzy.kernel.solve.choose_rows`), the lanes now values of k.
   With served scores (Generala) the rolls are scored again with the served points
   before the choice after the first roll, as the solver does. Same values as the
   solver's, bit for bit.

Performance: values at k above a state's most points still to come are 0 and not
computed, nor those at the k where every value read is exactly 0, or where each
roll's best write reads exactly 1 (:func:`_read_band`): those are the same at every
such k, copied from the band's end (:func:`_target_state`); threads take interleaved
blocks of a chunk of a layer's states as they finish (:func:`target_layer`; states
differ a lot in their k range). No call and no array view per row of the dice
lattice or per roll (one call per range of rows or for every roll, rows indexed in
place, with unsigned indices where a column moves so that LLVM still vectorises): a
call or a view costs atomic reference counts on its arrays, which cost more than a
row's lanes (measured: the full Scandinavian table 47 s instead of 62 s without views
in the scoring step; at k <= 1, where a state has one chunk of 16 lanes, 13.8 s
instead of 26.5 s on one thread with one call per range of rows instead of per row).
For the same reason the chunk's steps (:func:`_target_rows`, :func:`_score_rolls`,
:func:`_target_rerolls`) and ``joker_rules`` are inlined into their callers (numba's
``inline="always"``): a call that takes ``K`` and ``W`` counts references on their
arrays on entry and exit (the rows to k = 120: 17.3-17.5 s instead of 17.6-18.4 s).
The advice's turn (:func:`target_turn`) computes in float64.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from diceopt.games.yatzy.kernel.arrays import NEG, KernelArrays
from diceopt.games.yatzy.kernel.solve import choose_rows, first_roll
from diceopt.games.yatzy.kernel.turn import (
    allowed_categories,
    category_row,
    chance_rows,
    joker_rules,
    may_write,
    served_extra,
    upper_bonus,
)
from diceopt.memory import aligned_empty
from diceopt.threads import run_shares


def margin(K: KernelArrays) -> int:
    """Most points one roll writes beside its successor row (points): a box's normal,
    joker or served points, the Kniffel bonus and the Yahtzee bonus (an upper bound)."""
    return int(max(K.score.max(), K.joker.max(), K.pos_s.max())) + int(K.ubonus) + int(K.ybonus)


@numba.njit(cache=True, inline="always")  # once per successor row: no call's reference counts
def _succ(
    G: np.ndarray, row: int, Vd: np.ndarray, at: int, last: int, pts: int, k0: int, n: int
) -> None:
    """G[row, j] = P(>= k0 + j - pts) from the state whose values start at Vd[at] and end at
    k = ``last`` (1 at k <= 0, 0 above ``last``), j < n."""
    d = k0 - pts
    m = min(n, max(0, 1 - d))  # columns where d + j <= 0
    e = min(n, max(m, last + 1 - d))  # columns where 0 < d + j <= last
    for j in range(m):
        G[row, j] = 1.0
    for j in range(m, e):
        G[row, j] = Vd[at + d + j]
    for j in range(e, n):
        G[row, j] = 0.0


@numba.njit(cache=True)
def _target_plan(
    mask: int, S: int, K: KernelArrays, live: np.ndarray, ent_i: np.ndarray, ent_o: np.ndarray,
    ent_f: np.ndarray, ent_n: np.ndarray,
) -> None:  # fmt: skip
    """Per state: the categories open to a normal roll (``live``) and, per roll r, the
    successor rows and column offsets of the open categories where r scores (the kernel's
    ``pos_id`` / ``pos_s`` without the filled ones: no work on dead rows; ``ent_f``: the
    offsets when written straight after the first roll, served scores), padded with the
    row of -1 to 4 entries where a roll has at most 4, else to a multiple of 8 (the passes
    of :func:`_score_now`; ``ent_n[r]``: entries with the padding)."""
    ncat = K.upper_face.size
    stride = K.offset.size - 1
    neg_row = ncat * stride
    for c in range(ncat):
        live[c] = may_write(mask, c, K)
    pos_id, pos_s, pos_c = K.pos_id, K.pos_s, K.pos_c
    width = pos_id.shape[1]
    for r in range(pos_id.shape[0]):
        n = 0
        for e in range(width):
            i = pos_id[r, e]
            if i == neg_row:
                break
            if live[pos_c[r, e]]:
                ent_i[r, n] = i
                ent_o[r, n] = S - np.int64(pos_s[r, e])
                ent_f[r, n] = S - np.int64(pos_s[r, width + e])
                n += 1
        while n % (4 if n <= 4 else 8) != 0:
            ent_i[r, n] = neg_row
            ent_o[r, n] = S
            ent_f[r, n] = S
            n += 1
        ent_n[r] = n


@numba.njit(cache=True, inline="always")  # per chunk: no call's reference counts
def _target_rows(
    mask: int, flag: int, u: int, k0: int, n: int, Vd: np.ndarray, off: np.ndarray,
    top: np.ndarray, flags: int, K: KernelArrays, live: np.ndarray, G: np.ndarray,
) -> None:  # fmt: skip
    """Step 1: the successor rows of the open categories for columns k0 .. k0 + n - 1 (k0
    already less S); the rows of the other categories are not written (never read).

    Twin of the kernel's ``successor_rows`` (same rows and successors), with a vector
    over k per row instead of one value: points move the column, not the value.
    """
    T = K.threshold
    width = T + 1
    ncat = K.upper_face.size
    stride = K.offset.size - 1
    for c in range(ncat):
        if not live[c]:
            continue
        b0 = c * stride
        nxt = mask | (1 << c)
        f = K.upper_face[c]
        if f < 0:
            key = (nxt * flags + flag) * width + u
            _succ(G, b0, Vd, off[key], top[key], 0, k0, n)
            if c == K.yz_cat:  # the Yatzy box scored (h = 1): the flag is set if tracked
                if K.track:
                    key = (nxt * flags + 1) * width + u
                    _succ(G, b0 + 1, Vd, off[key], top[key], 0, k0, n)
                else:
                    for j in range(n):
                        G[b0 + 1, j] = G[b0, j]
            elif K.needs[c] >= 0:  # scored (h = 1): its points only while the flag is set
                pts = K.needs[c] if flag == 1 else 0
                _succ(G, b0 + 1, Vd, off[key], top[key], pts, k0, n)
        else:
            for cnt in range(stride):
                pts = cnt * (f + 1)
                b = K.bonus if (u < T and u + pts >= T) else 0
                key = (nxt * flags + flag) * width + min(T, u + pts)
                _succ(G, b0 + cnt, Vd, off[key], top[key], pts + b, k0, n)


@numba.njit(cache=True)
def _score_now(
    A: np.ndarray, Gf: np.ndarray, gw: int, Z: np.ndarray, nw: int, base: int,
    ent_i: np.ndarray, ent_o: np.ndarray, ent_n: np.ndarray, yz_face: np.ndarray,
    skip_yatzy: bool,
) -> None:  # fmt: skip
    """For each roll r (not the Yatzy rolls with ``skip_yatzy``): A[base + r, :nw] =
    max(Z, G[i, o + ln] over roll r's entries) (``Gf``: G flat, rows of ``gw`` columns),
    in passes over the lanes of 8 entries (4 where a roll has at most 4: the padding of
    :func:`_target_plan`), the first one from Z.

    Twin of the kernel's ``_fill``: points shift the column instead of adding. One call
    for every roll (a call per roll costs atomic reference counts on its arrays), rows
    indexed in place with unsigned indices: numba then emits no negative-index
    wrap-around, so LLVM vectorises the loops without a view per entry (each view costs
    reference counts too; see the module's note on performance). The loads bound these
    loops, so each pass reads as many entries as it can and the row of A once: three
    written-out passes (the first of 4 or 8 entries, a later one of 8) instead of a pass
    setting Z and one per 4 entries (the start state's rolls 102 -> 74 ns a value of k,
    a roll with 4 entries 67 -> 48; one thread, the same maxima bit for bit).
    """
    for r in range(ent_n.size):
        if skip_yatzy and yz_face[r] >= 0:
            continue
        row = base + r
        n = ent_n[r]
        if n == 0:
            for ln in range(np.uint64(nw)):
                A[row, ln] = Z[ln]
        elif n == 4:
            b0 = np.uint64(ent_i[r, 0] * gw + ent_o[r, 0])
            b1 = np.uint64(ent_i[r, 1] * gw + ent_o[r, 1])
            b2 = np.uint64(ent_i[r, 2] * gw + ent_o[r, 2])
            b3 = np.uint64(ent_i[r, 3] * gw + ent_o[r, 3])
            for ln in range(np.uint64(nw)):
                A[row, ln] = max(
                    max(Z[ln], Gf[b0 + ln]), max(max(Gf[b1 + ln], Gf[b2 + ln]), Gf[b3 + ln])
                )
        for e in range(0, n if n >= 8 else 0, 8):
            b0 = np.uint64(ent_i[r, e] * gw + ent_o[r, e])
            b1 = np.uint64(ent_i[r, e + 1] * gw + ent_o[r, e + 1])
            b2 = np.uint64(ent_i[r, e + 2] * gw + ent_o[r, e + 2])
            b3 = np.uint64(ent_i[r, e + 3] * gw + ent_o[r, e + 3])
            b4 = np.uint64(ent_i[r, e + 4] * gw + ent_o[r, e + 4])
            b5 = np.uint64(ent_i[r, e + 5] * gw + ent_o[r, e + 5])
            b6 = np.uint64(ent_i[r, e + 6] * gw + ent_o[r, e + 6])
            b7 = np.uint64(ent_i[r, e + 7] * gw + ent_o[r, e + 7])
            if e == 0:
                for ln in range(np.uint64(nw)):
                    A[row, ln] = max(
                        max(max(Z[ln], Gf[b0 + ln]), max(Gf[b1 + ln], Gf[b2 + ln])),
                        max(
                            max(Gf[b3 + ln], Gf[b4 + ln]),
                            max(max(Gf[b5 + ln], Gf[b6 + ln]), Gf[b7 + ln]),
                        ),
                    )
            else:
                for ln in range(np.uint64(nw)):
                    A[row, ln] = max(
                        max(max(A[row, ln], Gf[b0 + ln]), max(Gf[b1 + ln], Gf[b2 + ln])),
                        max(
                            max(Gf[b3 + ln], Gf[b4 + ln]),
                            max(max(Gf[b5 + ln], Gf[b6 + ln]), Gf[b7 + ln]),
                        ),
                    )


@numba.njit(cache=True, inline="always")  # per chunk: no call's reference counts
def _target_rerolls(
    mask: int, flag: int, S: int, nw: int, K: KernelArrays, W: TargetWork
) -> None:  # fmt: skip
    """The kernel's ``_rerolls`` (step 4, both reroll levels): the same values, bit for
    bit. With served scores (``K.served``) the roll rows of A are scored again straight
    after the first roll (:func:`_score_rolls` with ``first``) before the last choice,
    as the kernel does."""
    A, M = W.A, W.M
    add_die, offset, fprob = K.add_die, K.offset, K.fprob
    nd = offset.size - 2
    base = offset[nd]
    for level in range(2):
        chance_rows(A, M if level == 1 else A, base, offset[nd - 1], nw, add_die, fprob)
        chance_rows(A, A, offset[nd - 1], np.int64(0), nw, add_die, fprob)
        if level == 0 and W.E1.shape[0] > 0:
            for i in range(base):
                for ln in range(nw):
                    W.E1[i, ln] = A[i, ln]
        if level == 1 and K.served:
            _score_rolls(mask, flag, S, nw, K, W, np.bool_(True))
        choose_rows(A, M, nw, K.rem_pad, K.rem_n, K.offset)


class TargetWork(NamedTuple):
    """Work arrays of :func:`_target_chunk` for up to ``lanes`` values of k."""

    G: np.ndarray  # (C * (dice + 1) + 1, lanes + S): successor rows, the last one -1
    A: np.ndarray  # (nk + 1, lanes): keep and roll values
    M: np.ndarray  # (2 (nk + 1), lanes): best sub-multisets (solve.choose_rows)
    out: np.ndarray  # (lanes,)
    E1: np.ndarray  # (rows, lanes): keep values with one reroll left (no rows: not kept)
    live: np.ndarray  # (C,) bool: categories open to a normal roll
    ent_i: np.ndarray  # (R, width) int64: per roll, the G rows where it scores
    ent_o: np.ndarray  # (R, width) int64: their column offsets
    ent_f: np.ndarray  # (R, width) int64: the same straight after the first roll (served)
    ent_n: np.ndarray  # (R,) int64: entries per roll (a multiple of 4)
    one: np.ndarray  # (C * (dice + 1),) int64: per successor row, the last k it reads 1


def _target_work(K: KernelArrays, S: int, lanes: int, e1_rows: int, dtype: np.dtype) -> TargetWork:
    """Fresh work arrays (``dtype``) for ``lanes`` values of k, ``e1_rows`` rows of E1, made
    in numpy, aligned as numba's own (:func:`~diceopt.memory.aligned_empty`), and passed
    to the kernels."""
    nk = K.add_die.shape[0]
    ncat = K.upper_face.size
    stride = K.offset.size - 1
    G = aligned_empty((ncat * stride + 1, lanes + S), dtype=dtype)
    G[ncat * stride, :] = -1.0
    R, width = K.pos_id.shape
    width = -(-width // 8) * 8  # the plan pads a roll's entries to a multiple of 8
    return TargetWork(
        G,
        aligned_empty((nk + 1, lanes), dtype=dtype),
        aligned_empty((2 * (nk + 1), lanes), dtype=dtype),
        aligned_empty(lanes, dtype=dtype),
        aligned_empty((e1_rows, lanes), dtype=dtype),
        np.zeros(ncat, dtype=np.bool_),
        aligned_empty((R, width), dtype=np.int64),
        aligned_empty((R, width), dtype=np.int64),
        aligned_empty((R, width), dtype=np.int64),
        aligned_empty(R, dtype=np.int64),
        aligned_empty(ncat * stride, dtype=np.int64),
    )


@numba.njit(cache=True)
def roll_shift(
    mask: int, flag: int, r: int, c: int, use_joker: bool, first: bool | np.bool_, K: KernelArrays
) -> tuple[int, int | np.integer]:
    """The successor row of writing roll r into (allowed) category c from state (mask,
    flag) and the points beside it, ``(row, points)``: the row of
    :func:`~diceopt.games.yatzy.kernel.turn.category_row`, its points with the Kniffel bonus
    (:func:`~diceopt.games.yatzy.kernel.turn.upper_bonus`), the Yahtzee bonus while the flag is
    set, and with ``first`` (straight after the first roll, not a joker) the served
    points (:func:`~diceopt.games.yatzy.kernel.turn.served_extra`). Points move the column of
    a target row: P(>= k) after the write is the row at k - points."""
    i, s = category_row(r, c, use_joker, K)
    pts = np.int64(s) + np.int64(upper_bonus(mask, r, c, K))
    if flag == 1 and K.yz_face[r] >= 0:
        pts += K.ybonus
    if first and not use_joker and K.served:
        pts += np.int64(served_extra(r, c, K))
    return i, pts


@numba.njit(cache=True, inline="always")  # per chunk: no call's reference counts
def _score_rolls(
    mask: int, flag: int, S: int, nw: int, K: KernelArrays, W: TargetWork, first: bool | np.bool_
) -> None:  # fmt: skip
    """Step 2 into the roll rows of ``W.A`` (``W.out``: writing 0 somewhere): each roll's
    best write, from the rows of ``W.G``; Yatzy rolls under the joker rules, the Kniffel
    bonus rule or with the Yahtzee bonus category by category (:func:`roll_shift`), the
    others through the state's plan (``first``: straight after the first roll, the
    served offsets ``W.ent_f``)."""
    A, G = W.A, W.G
    offset, yz_face = K.offset, K.yz_face
    nd = offset.size - 2
    base = offset[nd]
    R = offset[nd + 1] - base
    ncat = K.upper_face.size
    special = joker_rules(mask, K) or (flag == 1 and K.ybonus != 0)
    ent_o = W.ent_f if first else W.ent_o
    Gf = G.reshape(-1)  # G is C-contiguous: a flat view
    _score_now(A, Gf, G.shape[1], W.out, nw, base, W.ent_i, ent_o, W.ent_n, yz_face, special)
    if not special:
        return
    for r in range(R):
        if yz_face[r] < 0:
            continue
        row = base + r
        ok, use_joker = allowed_categories(mask, r, K)
        for ln in range(nw):
            A[row, ln] = -1.0
        for c in range(ncat):
            if ok[c]:
                i, pts = roll_shift(mask, flag, r, c, use_joker, first, K)
                o = S - pts
                for ln in range(nw):
                    A[row, ln] = max(A[row, ln], G[i, o + ln])


@numba.njit(cache=True)
def _target_chunk(
    mask: int, flag: int, u: int, k0: int, nw: int, S: int, Vd: np.ndarray, off: np.ndarray,
    top: np.ndarray, flags: int, K: KernelArrays, W: TargetWork,
) -> None:  # fmt: skip
    """P(points to come >= k) for k = k0 .. k0 + nw - 1 from one state into W.out[:nw].

    ``W.live`` / ``W.ent_*`` hold the state's :func:`_target_plan`. Afterwards ``W.G``
    holds the successor rows of the open categories (column S + ln is k0 + ln), ``W.A``
    the keep values with two rerolls left and ``W.E1`` (when it has rows) with one.
    """
    G, A, M, out, live = W.G, W.A, W.M, W.out, W.live
    nk = K.offset[K.offset.size - 1]
    stride = K.offset.size - 1
    _target_rows(mask, flag, u, k0 - S, nw + S, Vd, off, top, flags, K, live, G)
    for ln in range(nw):
        A[nk, ln] = NEG
        M[nk, ln] = NEG
    # "write 0 somewhere" (kept in out until the end)
    for ln in range(nw):
        out[ln] = -1.0
    for c in range(K.upper_face.size):
        if live[c]:
            g = G[c * stride, S:]
            for ln in range(nw):
                out[ln] = max(out[ln], g[ln])
    _score_rolls(mask, flag, S, nw, K, W, np.bool_(False))
    _target_rerolls(mask, flag, S, nw, K, W)
    first_roll(M, out, nw, K)


@numba.njit(cache=True)
def _read_band(
    mask: int, flag: int, u: int, flags: int, K: KernelArrays, W: TargetWork, S: int,
    lo: np.ndarray, hi: np.ndarray,
) -> tuple[np.int64, np.int64]:  # fmt: skip
    """``(ones, zeros)`` of a state from its successors' bands (``lo[key]``: the values at
    k = 1 .. lo are exactly 1, -1 where a value exceeds 1; ``hi[key]``: the values above
    hi are exactly 0): at every k <= ``ones`` each roll's best write (step 2) is exactly
    1, at every k > ``zeros`` (less the margin S, added by the caller) every value step
    2 reads is exactly 0. The successors are those of :func:`_target_rows`, each with the
    points beside its row; a read at k is a successor's value at k less those points
    less the roll's points (at most S).

    ``ones``: per roll, the last k where one of its writes (the state's plan ``W.ent_*``,
    or a 0 written somewhere) reads exactly 1, the least over the rolls: no value read
    exceeds 1, so the roll's best is exactly 1 there, the same as at every k below, bit
    for bit. Where a successor exceeds 1, or Yatzy rolls go category by category
    (:func:`_score_rolls`), or served scores apply, the k where every value read is 1."""
    T = K.threshold
    width = T + 1
    ncat = K.upper_face.size
    stride = K.offset.size - 1
    one = W.one  # per successor row: the last k where it reads exactly 1
    every = np.int64(1) << 40
    zeros = np.int64(0)
    exact = not K.served and not (joker_rules(mask, K) or (flag == 1 and K.ybonus != 0))
    for c in range(ncat):
        if not W.live[c]:
            continue
        b0 = c * stride
        nxt = mask | (1 << c)
        f = K.upper_face[c]
        rows = stride if f >= 0 else (2 if K.needs[c] >= 0 or c == K.yz_cat else 1)
        for h in range(rows):
            pts = 0  # the points beside the row
            fl = flag
            if f >= 0:
                pts = h * (f + 1)
                pts += K.bonus if (u < T and u + pts >= T) else 0
                key = (nxt * flags + flag) * width + min(T, u + h * (f + 1))
            else:
                if h == 1 and c == K.yz_cat and K.track:  # the Yatzy box scored: flag set
                    fl = 1
                elif h == 1 and c != K.yz_cat and flag == 1:  # its points while the flag is set
                    pts = K.needs[c]
                key = (nxt * flags + fl) * width + u
            one[b0 + h] = np.int64(lo[key]) + pts
            every = min(every, one[b0 + h])
            zeros = max(zeros, np.int64(hi[key]) + pts)
            exact = exact and lo[key] >= 0
    return (_roll_ones(K, W, S) if exact else every), zeros


@numba.njit(cache=True)
def _roll_ones(K: KernelArrays, W: TargetWork, S: int) -> np.int64:
    """The last k where every roll's best write reads exactly 1 (see :func:`_read_band`):
    per roll, the most over its plan's writes and a 0 written in an open category
    (``W.one``: per successor row, the last k where it reads 1; a write of p points
    reads its row at k - p); the least over the rolls."""
    stride = K.offset.size - 1
    neg_row = K.upper_face.size * stride
    zero = np.int64(-1) << 40
    for c in range(K.upper_face.size):
        if W.live[c]:
            zero = max(zero, W.one[c * stride])
    ones = np.int64(1) << 40
    for r in range(W.ent_n.size):
        best = zero
        for e in range(W.ent_n[r]):
            i = W.ent_i[r, e]
            if i != neg_row:
                best = max(best, W.one[i] + S - W.ent_o[r, e])
        ones = min(ones, best)
    return ones


@numba.njit(cache=True)
def _target_state(
    mask: int, flag: int, u: int, Vd: np.ndarray, off: np.ndarray, top: np.ndarray,
    flags: int, K: KernelArrays, S: int, lanes: int, W: TargetWork, lo: np.ndarray,
    hi: np.ndarray, kmin: np.ndarray,
) -> None:  # fmt: skip
    """One state's values for k = 0 .. its ``top`` (1 at k = 0), in equal chunks of at
    most ``lanes`` values of k (whole vectors of 16), and its band (``lo``, ``hi``:
    :func:`_read_band`). ``kmin[key]`` (when ``kmin`` has entries): the least k anyone
    will read of this state; below it the value at ``kmin`` is copied (a lower bound,
    since P(>= k) never falls as k falls: exact where it is 1).

    Only the band where the values read differ from k to k is computed: at every k up to
    the successors' ones every value read is exactly 1, above their zeros (plus the
    margin) exactly 0, so the values there are those at the band's ends (the same
    operations on the same numbers), copied."""
    key = (mask * flags + flag) * (K.threshold + 1) + u
    at = off[key]
    n = top[key]  # k = 1 .. n
    Vd[at] = 1.0
    lo[key] = 0
    hi[key] = 0
    if n <= 0:
        return
    _target_plan(mask, S, K, W.live, W.ent_i, W.ent_o, W.ent_f, W.ent_n)
    ones, zeros = _read_band(mask, flag, u, flags, K, W, S, lo, hi)
    if kmin.size:
        ones = max(ones, np.int64(kmin[key]))  # below kmin: never read
    first = max(1, min(ones, n))  # every k <= ones: the value at ``first``
    last = max(first, min(n, zeros + S + 1))  # every k > zeros + S: the value at ``last``
    m = last + 1 - first
    nch = (m + lanes - 1) // lanes
    step = (m + nch - 1) // nch
    step = min(lanes, (step + 15) // 16 * 16)
    for k0 in range(first, last + 1, step):
        nw = min(step, last + 1 - k0)
        _target_chunk(mask, flag, u, k0, nw, S, Vd, off, top, flags, K, W)
        for ln in range(nw):
            Vd[at + k0 + ln] = W.out[ln]
    for k in range(1, first):
        Vd[at + k] = Vd[at + first]
    for k in range(last + 1, n + 1):
        Vd[at + k] = Vd[at + last]
    _own_band(Vd, at, n, key, lo, hi)


@numba.njit(cache=True)
def _own_band(Vd: np.ndarray, at: int, n: int, key: int, lo: np.ndarray, hi: np.ndarray) -> None:
    """``lo[key]``: how many values from k = 1 on are exactly 1 (-1 where the value at
    k = 1, the largest, exceeds 1); ``hi[key]``: the last k (<= n) whose value is not 0
    (0 if none)."""
    a = 0
    while a < n and Vd[at + a + 1] == 1.0:
        a += 1
    b = n
    while b > 0 and Vd[at + b] == 0.0:
        b -= 1
    if n >= 1 and Vd[at + 1] > 1.0:
        a = -1
    lo[key] = a
    hi[key] = b


@numba.njit(cache=True)
def set_bands(
    keys: np.ndarray, Vd: np.ndarray, off: np.ndarray, top: np.ndarray, lo: np.ndarray,
    hi: np.ndarray,
) -> None:  # fmt: skip
    """The bands (see :func:`_own_band`) of states whose values are written already (the
    rows of the game's end)."""
    for i in range(keys.size):
        key = keys[i]
        _own_band(Vd, off[key], max(0, top[key]), key, lo, hi)


@numba.njit(cache=True, nogil=True)
def _target_block(
    b: int, st_mask: np.ndarray, st_flag: np.ndarray, st_u: np.ndarray, Vd: np.ndarray,
    off: np.ndarray, top: np.ndarray, flags: int, K: KernelArrays, S: int, lanes: int,
    nblocks: int, lo: np.ndarray, hi: np.ndarray, kmin: np.ndarray, W: TargetWork,
) -> None:  # fmt: skip
    """Block b of :func:`target_layer` (states b, b + nblocks, ...), with work arrays of
    its own (``W``, ``lanes`` values of k)."""
    for i in range(b, st_mask.size, nblocks):
        _target_state(
            st_mask[i], st_flag[i], st_u[i], Vd, off, top, flags, K, S, lanes, W, lo, hi, kmin
        )


def target_layer(
    st_mask: np.ndarray, st_flag: np.ndarray, st_u: np.ndarray, Vd: np.ndarray,
    off: np.ndarray, top: np.ndarray, flags: int, K: KernelArrays, S: int, lanes: int,
    nblocks: int, lo: np.ndarray, hi: np.ndarray, kmin: np.ndarray,
) -> None:  # fmt: skip
    """One layer's states (k = 0 .. ``top[key]`` at ``Vd[off[key]:]``) from later layers'
    (``kmin``: see :func:`_target_state`; no entries: every k).

    The states are dealt into ``nblocks`` interleaved blocks (state i in block i mod
    nblocks, so the blocks carry similar work whatever the spread of ``top``); threads
    take blocks as they finish (serial shares, :func:`diceopt.threads.run_shares`: faster
    than the parallel loop they replace, the full Scandinavian rows 33.4-35.4 s against
    37.2-38.2 s, and half its cold compile). ``lo``, ``hi``: the states'
    bands (read for the later layers', written for this one's: :func:`_target_state`).
    """
    nblocks = max(1, min(st_mask.size, nblocks))

    def share(b: int) -> None:
        W = _target_work(K, S, lanes, 0, Vd.dtype)
        _target_block(
            b, st_mask, st_flag, st_u, Vd, off, top, flags, K, S, lanes, nblocks, lo, hi, kmin, W
        )

    run_shares(share, nblocks)


def target_turn(
    mask: int, flag: int, u: int, k: int, Vd: np.ndarray, off: np.ndarray, top: np.ndarray,
    flags: int, K: KernelArrays, S: int, first: bool = False,
) -> tuple[np.ndarray, np.ndarray, float]:  # fmt: skip
    """One turn at one k, in float64 (``K`` float64): returns ``(keep, category, value)``.

    ``keep[t, i]`` (t = 1, 2 rerolls left): P(>= k) after keeping multiset i (flat lattice
    index) and rerolling the rest; ``category[r, c]``: P(>= k) after writing roll r into
    c (-1 where c may not take r), with ``first`` straight after the first roll (served
    scores); ``value``: P(>= k) before the first roll. ``Vd``, ``off``, ``top``: the
    solved values of the later states (see :func:`target_layer`).
    """
    W = _target_work(K, S, 1, K.add_die.shape[0], K.fprob.dtype)
    return _target_turn(mask, flag, u, k, Vd, off, top, flags, K, S, bool(first), W)


@numba.njit(cache=True)
def _target_turn(
    mask: int, flag: int, u: int, k: int, Vd: np.ndarray, off: np.ndarray, top: np.ndarray,
    flags: int, K: KernelArrays, S: int, first: bool, W: TargetWork,
) -> tuple[np.ndarray, np.ndarray, float]:  # fmt: skip
    """:func:`target_turn` with its work arrays ``W`` (one value of k)."""
    nk = K.add_die.shape[0]
    ncat = K.upper_face.size
    stride = K.offset.size - 1
    base = K.offset[stride - 1]
    R = nk - base
    # int(1): int64 to numba, not a literal: the lane kernels' one compiled variant
    one = int(1)  # noqa: UP018
    _target_plan(mask, S, K, W.live, W.ent_i, W.ent_o, W.ent_f, W.ent_n)
    _target_chunk(mask, flag, u, k, one, S, Vd, off, top, flags, K, W)
    keep = np.zeros((3, nk))
    for i in range(base):
        keep[1, i] = W.E1[i, 0]
        keep[2, i] = W.A[i, 0]
    cat = np.full((R, ncat), -1.0)
    for r in range(R):
        ok, use_joker = allowed_categories(mask, r, K)
        for c in range(ncat):
            if ok[c]:
                i, pts = roll_shift(mask, flag, r, c, use_joker, first, K)
                cat[r, c] = W.G[i, S - pts]
    return keep, cat, W.out[0]
