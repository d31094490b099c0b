"""Backward solve of Yatzy: the value of every reachable turn-start state, in numba.

Role: :func:`solve_table` solves a variant (every rule from
:class:`~diceopt.games.yatzy.rulebook.rules.YatzyRules`, as the arrays of
:mod:`diceopt.games.yatzy.kernel.arrays`) into a
:class:`~diceopt.games.yatzy.kernel.table.YatzyTable`
``V[mask, flag, upper]``; the per-state steps are the widget's
(:mod:`diceopt.games.yatzy.kernel.widget`), run over many states at once.

1. Layer by layer (number of filled categories, last turn first; only the layer being
   solved has its state list in memory, see
   :func:`~diceopt.games.yatzy.kernel.layers.iter_layer_states`).
2. Within a layer all states are laid out as *lanes* and solved ``lanes`` at a time by
   the widget's steps 1-5: step 1, the successor rows, by :func:`gather` (the only step
   that reads the table), steps 2-5 by :func:`solve_batch`; step 1 and the joker scoring
   of step 2 are the turn kernels (:mod:`diceopt.games.yatzy.kernel.turn`) applied per lane; every
   lattice operation is a loop over contiguous lanes (SIMD).
3. Batches run on several threads (one serial share per thread, :func:`solve_states`,
   :mod:`diceopt.threads`), a layer's states in chunks
   of about 0.2 s called from Python so that Ctrl-C stops a solve between two
   (:func:`solve_states_chunked`, :mod:`diceopt.interrupt`).
4. Upper totals from which the bonus can no longer be reached have the same value: one
   is solved and copied.

Saved rerolls (:mod:`diceopt.games.yatzy.kernel.saved`): a turn has ``2 + s`` rerolls and
writing with t left saves ``min(t, saved_cap)`` for the next turn; ``V`` is then the next
layer (:class:`~diceopt.games.yatzy.kernel.turn.SavedLayer`, read through
:func:`~diceopt.games.yatzy.kernel.turn.next_value`), step 4 runs ``2 + s`` levels
(:func:`solve_batch_saved`: every s of a state in one pass) and the score-now rows are
refreshed per level from the successor lanes found once per batch (index mode of
:func:`~diceopt.games.yatzy.kernel.turn.successor_rows`,
:func:`~diceopt.games.yatzy.kernel.turn.rows_at`).

Served scores (Generala): the roll rows of step 2 are scored again with the served
points before the choice after the first roll (``_rerolls``; with theta != 0 as
utilities with the same reference, raised by
:func:`~diceopt.games.yatzy.kernel.turn.served_shift`).

Precision and performance: tables are float32 (default) or float64, the lanes compute
in the table's dtype; ``LANES`` states per batch (measured best: the work arrays stay in
cache). The remove-one-die edges are padded with a NEG row so the choice loops have no
branches; ``_fill`` takes four maxima at a time. The lattice loops are written twice
(lanes here, scalar in the widget), each twin tagged with the reason.

Size: about 650 lines, because the plain and the saved-rerolls lane kernels
share this module's per-lane steps (``gather``, which the policies and the batch API
call too, ``choose_rows``, and the private ``_fill``, ``_score_rows``); split apart, those
steps would become a public module of their own.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numba
import numpy as np

from diceopt.errors import InputError
from diceopt.games.yatzy.kernel.arrays import NEG, KernelArrays, kernel_arrays, read_only
from diceopt.games.yatzy.kernel.layers import LayerStates, solve_backward
from diceopt.games.yatzy.kernel.rounded_exp import library_rows, utilities32
from diceopt.games.yatzy.kernel.table import YatzyTable
from diceopt.games.yatzy.kernel.turn import (
    SavedLayer,
    chance_rows,
    joker_rolls,
    joker_rules,
    roll_span,
    rows_at,
    served_shift,
    successor_rows,
)
from diceopt.games.yatzy.rulebook.rules import YatzyRules, check_theta
from diceopt.interrupt import Pace, interruptible, run_chunks
from diceopt.threads import run_shares

LANES = {np.dtype(np.float32): 256, np.dtype(np.float64): 128}  # states per batch (measured best)

# ---------------------------------------------------------------------------------------
# The lanes: steps 2, 4 and 5 over ``nb`` states at once (SIMD loops over lanes).


@numba.njit(cache=True)
def gather(
    st_mask: np.ndarray,
    st_flag: np.ndarray,
    st_u: np.ndarray,
    lo: int,
    nb: int,
    V: np.ndarray | SavedLayer,
    SR: np.ndarray,
    Z: np.ndarray,
    YB: np.ndarray,
    K: KernelArrays,
    s: int | np.integer,
    IDX: np.ndarray | None = None,
) -> None:
    """Step 1 for every lane (successors read with s rerolls saved), the best zero score Z
    and the Yahtzee bonus YB per lane (``IDX``: index mode, see :func:`successor_rows`)."""
    for ln in range(nb):
        flag = st_flag[lo + ln]
        z, _ = successor_rows(st_mask[lo + ln], flag, st_u[lo + ln], V, K, SR, ln, s, IDX)
        Z[ln] = z
        YB[ln] = K.ybonus if flag == 1 else 0


@numba.njit(cache=True)
def _fill(
    A: np.ndarray,
    TMP: np.ndarray,
    SR: np.ndarray,
    Z: np.ndarray,
    nb: int,
    K: KernelArrays,
    first: bool | np.bool_,
):
    """Step 2, rows of the rolls: value of writing each roll now (0 rerolls left), per lane.

    max(Z, s + SR[row]) over the rows of the roll's positive scores, four at a time;
    ``first``: written after the first roll (the served points of ``K.pos_s``).
    Deliberate twin of the scalar loop in ``widget_into`` (which tracks the argmax):
    here the lanes need only the maximum, four rows per pass over contiguous lanes.
    """
    offset, pos_id, pos_s = K.offset, K.pos_id, K.pos_s
    nd = offset.size - 2
    base = offset[nd]
    R = pos_id.shape[0]
    width = pos_id.shape[1]
    o = width if first else 0
    for r in range(R):
        row = base + r
        src = Z
        tmp_is_dst = True
        for e in range(0, width, 4):
            i0, i1, i2, i3 = pos_id[r, e], pos_id[r, e + 1], pos_id[r, e + 2], pos_id[r, e + 3]
            if e > 0 and i0 == SR.shape[0] - 1:
                break  # only padding left
            s0, s1 = pos_s[r, o + e], pos_s[r, o + e + 1]
            s2, s3 = pos_s[r, o + e + 2], pos_s[r, o + e + 3]
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
    K: KernelArrays,
) -> None:
    """Step 2 for Yahtzee rolls in lanes where the joker rule (or the Kniffel bonus rule)
    applies (per lane: :func:`~diceopt.games.yatzy.kernel.turn.joker_rolls`, what
    ``joker_best`` gives each roll)."""
    base = K.offset[K.offset.size - 2]
    yz_face = K.yz_face
    vals = np.empty(yz_face.size)
    cats = np.empty(yz_face.size, dtype=np.int64)
    for ln in range(nb):
        mask = st_mask[lo + ln]
        if not joker_rules(mask, K):
            continue
        joker_rolls(mask, K, SR, ln, vals, cats)
        for r in range(yz_face.size):
            if yz_face[r] >= 0:
                A[base + r, ln] = vals[r]


@numba.njit(cache=True)
def _score_rows(
    st_mask: np.ndarray,
    lo: int,
    nb: int,
    A: np.ndarray,
    SR: np.ndarray,
    Z: np.ndarray,
    YB: np.ndarray,
    TMP: np.ndarray,
    K: KernelArrays,
    served: bool | np.bool_,
) -> None:
    """Step 2 per lane from the successor rows SR: the value of writing each roll now
    into A's roll rows (jokers and the Yahtzee bonus included; ``served``: straight after
    the first roll, served scores)."""
    offset, yz_face = K.offset, K.yz_face
    base = offset[offset.size - 2]
    _fill(A, TMP, SR, Z, nb, K, served)
    if K.joker_code != 0 or K.ubonus != 0:
        _joker_rows(A, SR, st_mask, lo, nb, K)
    if K.ybonus != 0:
        for r in range(yz_face.size):
            if yz_face[r] >= 0:
                for ln in range(nb):
                    A[base + r, ln] += YB[ln]


@numba.njit(cache=True)
def _choose_size(
    A: np.ndarray, D: np.ndarray, S: np.ndarray, lo: int, hi: int, nb: int,
    rem_pad: np.ndarray, rem_n: np.ndarray,
) -> None:  # fmt: skip
    """:func:`choose_rows` for the multisets lo .. hi - 1 (one size): D[i] = max(A[i],
    S[i - f]), the rows one die smaller read from ``S``, written to ``D``."""
    six = rem_pad.shape[1] == 6
    for i in range(lo, hi):
        if six:
            j0, j1, j2 = rem_pad[i, 0], rem_pad[i, 1], rem_pad[i, 2]
            if rem_n[i] <= 3:
                for ln in range(nb):
                    D[i, ln] = max(max(A[i, ln], S[j0, ln]), max(S[j1, ln], S[j2, ln]))
            else:
                j3, j4, j5 = rem_pad[i, 3], rem_pad[i, 4], rem_pad[i, 5]
                for ln in range(nb):
                    D[i, ln] = max(
                        max(max(A[i, ln], S[j0, ln]), max(S[j1, ln], S[j2, ln])),
                        max(max(S[j3, ln], S[j4, ln]), S[j5, ln]),
                    )
        else:
            for ln in range(nb):
                D[i, ln] = A[i, ln]
            for e in range(rem_n[i]):
                j = rem_pad[i, e]
                for ln in range(nb):
                    D[i, ln] = max(D[i, ln], S[j, ln])


@numba.njit(cache=True)
def choose_rows(
    A: np.ndarray, M: np.ndarray, nb: int, rem_pad: np.ndarray, rem_n: np.ndarray,
    offset: np.ndarray,
) -> None:  # fmt: skip
    """Step 4 choice, M[i] = max(A[i], M[i - f]): the best sub-multiset, per lane. ``M``
    has 2 (nk + 1) rows: its first nk + 1 hold the multisets of nd, nd - 2, ... dice (the
    rolls among them: a roll's row is its value; row nk NEG, set by the caller), the
    other sizes go to the second half, which is work space.

    Deliberate twin of the scalar choice in ``widget_into`` (which tracks the argmax and
    its tie-break): here only the maximum, branch-free over contiguous lanes. Each size
    reads the size below from the other half: LLVM vectorises a row read through one view
    and written through another, but takes its scalar path for rows of one array read and
    written in one loop, and a row built in a work row costs a copy per row (measured,
    Scandinavian, per lane: 256 float32 lanes 48 ns against 60 through a work row and
    255 within one array; 64 float64 lanes 88 against 142 and 283). Rows indexed in place:
    a view per row costs reference counts (atomic), more than its lanes' work.
    """
    nk = A.shape[0] - 1
    nd = offset.size - 2
    own = M[: nk + 1]
    other = M[nk + 1 : 2 * nk + 2]
    for ln in range(nb):
        other[nk, ln] = own[nk, ln]  # the padding of the edges: NEG in both halves
    empty = own if nd % 2 == 0 else other
    for ln in range(nb):
        empty[0, ln] = A[0, ln]
    for size in range(1, nd + 1):
        if (nd - size) % 2 == 0:
            _choose_size(A, own, other, offset[size], offset[size + 1], nb, rem_pad, rem_n)
        else:
            _choose_size(A, other, own, offset[size], offset[size + 1], nb, rem_pad, rem_n)


@numba.njit(cache=True)
def solve_batch(
    st_mask: np.ndarray,
    lo: int,
    nb: int,
    A: np.ndarray,
    M: np.ndarray,
    SR: np.ndarray,
    Z: np.ndarray,
    YB: np.ndarray,
    TMP: np.ndarray,
    out: np.ndarray,
    K: KernelArrays,
    theta: float,
    E1: np.ndarray,
) -> None:
    """Values of the turn-start states lo .. lo + nb of a layer into out[:nb], from
    their successor rows ``SR``, zero scores ``Z`` and Yahtzee bonuses ``YB`` (step 1,
    :func:`gather`, which alone reads the table: this batch has one compiled variant per
    lane dtype, shared by the float64 solve and the policies of a float32 table).

    Afterwards ``A[k, ln]`` (k below the rolls) is the value of keeping multiset k with
    two rerolls left and ``SR[:, ln]`` the successor rows; when ``E1`` has rows (the
    batch API), ``E1[k, ln]`` gets the value of keeping k with one reroll left (the
    solver passes an empty ``E1``).
    """
    offset = K.offset
    neg = K.neg
    nd = offset.size - 2
    base = offset[nd]
    nk = offset[nd + 1]
    R = nk - base
    for ln in range(nb):
        A[nk, ln] = neg
        M[nk, ln] = neg
    # np.bool_ argument: one compiled variant, not one per literal constant
    _score_rows(st_mask, lo, nb, A, SR, Z, YB, TMP, K, np.bool_(False))  # step 2
    if theta == 0.0:
        _rerolls(A, M, nb, K, E1, st_mask, lo, SR, Z, YB, TMP, theta, out)
        first_roll(M, out, nb, K)
        return
    # step 3 with ref per lane, kept in out until the first roll's average (TMP is the
    # score-now step's work space, which the served scores run again)
    for ln in range(nb):
        out[ln] = A[base, ln]
    for r in range(1, R):
        for ln in range(nb):
            x = A[base + r, ln]
            out[ln] = max(out[ln], x) if theta > 0.0 else min(out[ln], x)
    if K.served:
        shift = served_shift(K, theta)
        for ln in range(nb):
            out[ln] += shift
    _utilities(A, out, nb, K, theta, M)
    _rerolls(A, M, nb, K, E1, st_mask, lo, SR, Z, YB, TMP, theta, out)
    first_roll(M, TMP, nb, K)
    sgn = 1.0 if theta > 0.0 else -1.0
    for ln in range(nb):
        out[ln] = out[ln] + np.log(sgn * TMP[ln]) / theta


@numba.njit(cache=True)
def _utilities(
    A: np.ndarray, REF: np.ndarray, nb: int, K: KernelArrays, theta: float, M: np.ndarray
) -> None:  # fmt: skip
    """Step 3 per lane (theta != 0): the score-now values in A's roll rows, points, to
    utilities ``sign(theta) exp(theta (x - REF[ln]))``; float32 lanes vectorised
    (:func:`~diceopt.games.yatzy.kernel.rounded_exp.utilities32`, the same bits, its work
    row one of M's choice work space, free here)."""
    base, nk = roll_span(K.offset)
    if A.itemsize == 4:
        utilities32(A, base, nk, REF, nb, theta, M[nk + 1])
    else:
        library_rows(A, base, nk, REF, nb, theta)


@numba.njit(cache=True)
def _keep_chance(
    A: np.ndarray, M: np.ndarray, nb: int, K: KernelArrays, first: bool | np.bool_
) -> None:
    """Step 4 chance of one reroll level per lane: the keep values (A below the rolls) from
    the roll values one level down (the roll rows of A at the first level, of M after)."""
    add_die, offset, fprob = K.add_die, K.offset, K.fprob
    nd = offset.size - 2
    base = offset[nd]
    # keeps of size nd-1 .. 0 from the rows with one more die; those of nd - 1 dice read
    # the roll rows. One array per range of rows, not one chosen per row (an array
    # variable assigned per row costs atomic reference counts)
    chance_rows(A, A if first else M, base, offset[nd - 1], nb, add_die, fprob)
    chance_rows(A, A, offset[nd - 1], np.int64(0), nb, add_die, fprob)


@numba.njit(cache=True)
def _keep_choose(A: np.ndarray, M: np.ndarray, nb: int, K: KernelArrays) -> None:
    """Step 4 choice of one reroll level per lane: the best sub-multiset of every multiset
    (:func:`choose_rows`: M has 2 (nk + 1) rows); a roll's row of M is its value (the
    roll rows of A hold scoring now: keeping all dice is never better than the best of
    scoring now and a proper keep, so max(score now, proper keeps) is the roll's value)."""
    choose_rows(A, M, nb, K.rem_pad, K.rem_n, K.offset)


@numba.njit(cache=True)
def _rerolls(
    A: np.ndarray,
    M: np.ndarray,
    nb: int,
    K: KernelArrays,
    E1: np.ndarray,
    st_mask: np.ndarray,
    lo: int,
    SR: np.ndarray,
    Z: np.ndarray,
    YB: np.ndarray,
    TMP: np.ndarray,
    theta: float,
    REF: np.ndarray,
) -> None:
    """Step 4 per lane: from the score-now values in the roll rows of A, the keep values
    with two rerolls left into A (below the rolls) and the roll values into M's roll rows
    (``E1``, when it has rows: the keep values with one reroll left). With served scores
    (``K.served``) the roll rows of A get the served score-now values before the choice
    after the first roll (the chance above has read the level-1 rows of M), as utilities
    with the lane's reference ``REF`` when theta != 0."""
    base = K.offset[K.offset.size - 2]
    _keep_chance(A, M, nb, K, np.bool_(True))
    if E1.shape[0] > 0:
        for i in range(base):
            for ln in range(nb):
                E1[i, ln] = A[i, ln]
    _keep_choose(A, M, nb, K)
    _keep_chance(A, M, nb, K, np.bool_(False))
    if K.served:
        _score_rows(st_mask, lo, nb, A, SR, Z, YB, TMP, K, np.bool_(True))
        if theta != 0.0:
            _utilities(A, REF, nb, K, theta, M)
    _keep_choose(A, M, nb, K)


@numba.njit(cache=True)
def solve_batch_saved(
    st_mask: np.ndarray,
    st_flag: np.ndarray,
    st_u: np.ndarray,
    lo: int,
    nb: int,
    V: SavedLayer,
    A: np.ndarray,
    M: np.ndarray,
    SR: np.ndarray,
    Z: np.ndarray,
    YB: np.ndarray,
    TMP: np.ndarray,
    out: np.ndarray,
    K: KernelArrays,
    nsaved: int,
    ADD: np.ndarray,
    IDX: np.ndarray,
) -> None:
    """Saved rerolls (theta 0): ``out[s, ln]`` for s = 0 .. nsaved - 1, the value of the
    turn-start states lo .. lo + nb of a layer with s rerolls saved; V the next layer.

    One pass of ``nsaved + 1`` reroll levels: roll values with t rerolls left do not
    depend on how many were saved, and the value with s saved is the first-roll average
    at level 2 + s. Writing with t rerolls left saves min(t, cap) for the next turn, so
    before the choice of level t the roll rows of A get the score-now values of level t.
    The successor lanes are found once (``ADD``, ``IDX``: index mode of
    :func:`successor_rows`) and each level reads its rows from them (:func:`rows_at`).
    """
    nk = K.offset[K.offset.size - 1]
    for ln in range(nb):
        A[nk, ln] = K.neg
        M[nk, ln] = K.neg
    flat = V.values.reshape(V.values.size)
    gather(st_mask, st_flag, st_u, lo, nb, V, ADD, Z, YB, K, 0, IDX)
    rows_at(ADD, IDX, flat, 0, SR, Z, nb, K)
    _score_rows(st_mask, lo, nb, A, SR, Z, YB, TMP, K, np.bool_(False))
    for t in range(1, nsaved + 2):
        _keep_chance(A, M, nb, K, t == 1)
        if t <= K.saved_cap:  # (the chance above has read the previous level's rows)
            rows_at(ADD, IDX, flat, t, SR, Z, nb, K)
            _score_rows(st_mask, lo, nb, A, SR, Z, YB, TMP, K, np.bool_(False))
        _keep_choose(A, M, nb, K)
        if t >= 2:
            first_roll(M, out[t - 2], nb, K)


@numba.njit(cache=True)
def first_roll(M: np.ndarray, out: np.ndarray, nb: int, K: KernelArrays) -> None:
    """Step 5 per lane: out = sum_r p_r M[roll r] (the turn's value before its first roll)."""
    offset, roll_p = K.offset, K.roll_p
    nd = offset.size - 2
    base = offset[nd]
    R = offset[nd + 1] - base
    for ln in range(nb):
        out[ln] = K.zero
    roll_p = K.roll_p
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


@numba.njit(cache=True, inline="always")
def lane_batches(As: np.ndarray, nst: int) -> tuple[int, int, int]:
    """How nst states go through per-thread lane buffers ``As`` (chunks, nk + 1, lanes):
    ``(nchunks, lanes, nbatch)``; batch b (states b * lanes on) is chunk b % nchunks's."""
    lanes = As.shape[2]
    return As.shape[0], lanes, (nst + lanes - 1) // lanes


@numba.njit(cache=True, nogil=True)
def _solve_share(
    ch: int,
    st_mask: np.ndarray,
    st_flag: np.ndarray,
    st_u: np.ndarray,
    V: np.ndarray,
    As: np.ndarray,
    Ms: np.ndarray,
    SRs: np.ndarray,
    vecs: np.ndarray,
    K: KernelArrays,
    theta: float,
    res: np.ndarray,
) -> None:
    """Share ``ch`` of :func:`solve_states`: batches ch, ch + nchunks, ... with the
    buffers of chunk ch."""
    nst = st_mask.size
    nchunks, lanes, nbatch = lane_batches(As, nst)
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
        gather(st_mask, st_flag, st_u, lo, nb, V, SR, Z, YB, K, np.int64(0))
        solve_batch(st_mask, lo, nb, A, M, SR, Z, YB, TMP, out, K, theta, As[ch, :0])
        for ln in range(nb):
            res[lo + ln] = out[ln]


def solve_states(
    st_mask: np.ndarray,
    st_flag: np.ndarray,
    st_u: np.ndarray,
    V: np.ndarray,
    As: np.ndarray,
    Ms: np.ndarray,
    SRs: np.ndarray,
    vecs: np.ndarray,
    K: KernelArrays,
    theta: float,
    res: np.ndarray,
) -> None:
    """Values of the states (st_mask, st_flag, st_u) of one layer into ``res``, batch by
    batch, one share per chunk of the lane buffers (``As.shape[0]`` threads); ``V`` is
    only read (the solved later layers), and goes in as a read-only view: the kernels
    compile once for this solve, Ray's (read-only) and the policies of a stored table."""
    (V,) = read_only(V)

    def share(ch: int) -> None:
        _solve_share(ch, st_mask, st_flag, st_u, V, As, Ms, SRs, vecs, K, theta, res)

    run_shares(share, As.shape[0])


@numba.njit(cache=True, nogil=True)
def _saved_share(
    ch: int,
    st_mask: np.ndarray,
    st_flag: np.ndarray,
    st_u: np.ndarray,
    V: SavedLayer,
    As: np.ndarray,
    Ms: np.ndarray,
    SRs: np.ndarray,
    vecs: np.ndarray,
    outs: np.ndarray,
    K: KernelArrays,
    res: np.ndarray,
    ADDs: np.ndarray,
    IDXs: np.ndarray,
) -> None:
    """Share ``ch`` of :func:`solve_states_saved` (as :func:`_solve_share`)."""
    nst = st_mask.size
    nsaved = res.shape[1]
    nchunks, lanes, nbatch = lane_batches(As, nst)
    out = outs[ch]
    for b in range(ch, nbatch, nchunks):
        lo = b * lanes
        nb = min(lanes, nst - lo)
        solve_batch_saved(
            st_mask, st_flag, st_u, lo, nb, V, As[ch], Ms[ch], SRs[ch],
            vecs[ch, 0], vecs[ch, 1], vecs[ch, 2], out, K, nsaved, ADDs[ch], IDXs[ch],
        )  # fmt: skip
        for s in range(nsaved):
            for ln in range(nb):
                res[lo + ln, s] = out[s, ln]


def solve_states_saved(
    st_mask: np.ndarray,
    st_flag: np.ndarray,
    st_u: np.ndarray,
    V: SavedLayer,
    As: np.ndarray,
    Ms: np.ndarray,
    SRs: np.ndarray,
    vecs: np.ndarray,
    outs: np.ndarray,
    K: KernelArrays,
    res: np.ndarray,
    ADDs: np.ndarray,
    IDXs: np.ndarray,
) -> None:
    """Saved rerolls: ``res[i, s]``, the value of state i of a layer with s rerolls saved
    (s < res.shape[1]), batch by batch from the next layer V (read only). The batch loop
    of :func:`solve_states` around :func:`solve_batch_saved` (separate so that the
    published solver and its Ray caller keep their signature)."""

    def share(ch: int) -> None:
        _saved_share(ch, st_mask, st_flag, st_u, V, As, Ms, SRs, vecs, outs, K, res, ADDs, IDXs)

    run_shares(share, As.shape[0])


def solve_states_chunked(
    st_mask: np.ndarray,
    st_flag: np.ndarray,
    st_u: np.ndarray,
    kernel: Callable[..., None],
    head: tuple,
    tail: tuple,
    res: np.ndarray,
    align: int,
    pace: Pace | None = None,
) -> None:
    """``kernel(st_mask, st_flag, st_u, *head, res, *tail)`` (:func:`solve_states` or
    :func:`solve_states_saved`) on slices of the states and of ``res`` in turn, so that
    Ctrl-C stops a layer between two slices (:func:`diceopt.interrupt.run_chunks`;
    ``align``: states per round of batches, a multiple of the lanes; ``pace``: shared by
    the layers of one solve)."""

    def solve(lo: int, hi: int) -> None:
        kernel(st_mask[lo:hi], st_flag[lo:hi], st_u[lo:hi], *head, res[lo:hi], *tail)

    run_chunks(solve, st_mask.size, align=align, pace=pace)


def _solve_layer(
    st: LayerStates,
    V: np.ndarray,
    As: np.ndarray,
    Ms: np.ndarray,
    SRs: np.ndarray,
    vecs: np.ndarray,
    K: KernelArrays,
    theta: float,
    pace: Pace,
) -> None:
    """Solve the states of one layer into V (:func:`solve_states`, in chunks)."""
    res = np.empty(st.mask.size, dtype=V.dtype)
    align = As.shape[0] * As.shape[2]
    head = (V, As, Ms, SRs, vecs, K, theta)
    solve_states_chunked(st.mask, st.flag, st.upper, solve_states, head, (), res, align, pace)
    V[st.mask, st.flag, st.upper] = res


def lane_buffers(
    rules: YatzyRules, dt: np.dtype, lanes: int | None, nvec: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Work arrays of the lane solvers, one set per numba thread (axis 0), ``lanes``
    states side by side (None: :data:`LANES`): ``(As, Ms, SRs, vecs)``, the keep values
    (lattice + NEG row), the choice (twice that: :func:`choose_rows`), the successor rows
    (+ NEG row) and ``nvec`` vectors."""
    width = lanes or LANES[dt]
    nchunks = max(1, numba.get_num_threads())
    nk = int(rules.lattice.offset[-1])
    As = np.empty((nchunks, nk + 1, width), dtype=dt)
    Ms = np.empty((nchunks, 2 * (nk + 1), width), dtype=dt)
    SRs = np.empty((nchunks, rules.num_categories * (rules.dice + 1) + 1, width), dtype=dt)
    SRs[:, -1, :] = NEG
    return As, Ms, SRs, np.empty((nchunks, nvec, width), dtype=dt)


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
    ``lanes``: states per SIMD batch (default by dtype). Ctrl-C stops it within a
    fraction of a second (KeyboardInterrupt; the layers are solved in chunks).
    """
    dt = np.dtype(dtype)
    if dt not in LANES:
        raise InputError(f"dtype must be float32 or float64, got {dtype}")
    theta = check_theta(theta)
    if rules.saved_rerolls:
        raise InputError("saved rerolls need diceopt.games.yatzy.kernel.saved.solve_saved")
    t0 = time.perf_counter()
    K = kernel_arrays(rules, dt)
    As, Ms, SRs, vecs = lane_buffers(rules, dt, lanes, 4)
    pace = Pace()

    def solve_layer(j: int, st: LayerStates, V: np.ndarray) -> None:
        _solve_layer(st, V, As, Ms, SRs, vecs, K, theta, pace)

    with interruptible():
        V, states = solve_backward(rules, dt, solve_layer, progress)
    seconds = time.perf_counter() - t0
    return YatzyTable(rules, V, theta, seconds, states)


def warm_up(dtype: str | np.dtype = "float32") -> float:
    """Compile (or load from numba's cache) the solver for ``dtype``; returns seconds.

    Solves a two-category variant, which runs every kernel the full solve runs.
    """
    t0 = time.perf_counter()
    from diceopt.games.yatzy.rulebook.variants import SCANDINAVIAN

    tiny = SCANDINAVIAN.reduced(("ones", "chance"), bonus_threshold=3)
    solve_table(tiny, dtype=dtype)
    solve_table(tiny, dtype=dtype, theta=0.1)
    return time.perf_counter() - t0
