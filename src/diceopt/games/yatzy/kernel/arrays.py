"""The rules of a Yatzy variant as the flat arrays the turn computations read.

:class:`KernelArrays` (``K``) holds the keep lattice, the roll scores and the successor
rows of one variant; the numba kernels (:mod:`diceopt.games.yatzy.kernel.turn` and its users)
take it (the plain Python twin, :mod:`diceopt.games.yatzy.kernel.plain`, reads the same rules
as lists: its score entries are the padded ``pos_*`` rows here). No numba here.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from diceopt.games.yatzy.kernel.plain import NEG
from diceopt.games.yatzy.rulebook.rules import YatzyRules

__all__ = ["NEG", "KernelArrays", "StateArrays", "TableArrays", "kernel_arrays", "saved_cap"]


class KernelArrays(NamedTuple):
    """The rules and the keep lattice as the arrays the numba kernels take (``K``).

    Shapes: nk multisets in the flat lattice, R rolls, C categories; ``dt`` is the
    table's dtype (float32 or float64). Built by :func:`kernel_arrays`.
    """

    add_die: np.ndarray  # (nk, sides) int64: one more die of face f (-1 at full size)
    remove_die: np.ndarray  # (nk, sides) int64: one die of face f fewer (-1 if none)
    offset: np.ndarray  # (dice + 2,) int64: flat index of the first multiset of each size
    fprob: np.ndarray  # (sides,) dt: probability of each face
    roll_p: np.ndarray  # (R,) dt: probability of each sorted roll
    score: np.ndarray  # (R, C) dt: points of writing roll r into c normally
    joker: np.ndarray  # (R, C) dt: points of writing roll r into c as a joker
    roll_cnt: np.ndarray  # (R, sides) int64: dice of each face in roll r
    yz_face: np.ndarray  # (R,) int64: the face of a Yahtzee roll, -1 for other rolls
    upper_face: np.ndarray  # (C,) int64: face of an upper category, -1 for lower ones
    rem_pad: np.ndarray  # (nk, sides) int64: remove_die, valid edges first, padded with nk
    rem_n: np.ndarray  # (nk,) int64: number of valid remove-one-die edges
    pos_id: np.ndarray  # (R, width) int64: successor row of each category where r scores
    pos_s: np.ndarray  # (R, 2 width) dt: its points (0 for upper: the row holds them);
    # columns width.. the points when written after the first roll (served scores): one
    # array, not two, as every field of K is passed to each kernel call (measured: two
    # more arrays slowed American Yahtzee's solve by about 8%)
    pos_c: np.ndarray  # (R, width) int64: its category (C for padding)
    needs: np.ndarray  # (C,) int64: points of a needs_yatzy category (its row holds them), -1
    threshold: int  # upper bonus threshold
    bonus: int  # upper bonus points
    yz_cat: int  # index of the Yatzy/Yahtzee category, -1 if none
    joker_code: int  # 0 no joker, 1 free-choice joker, 2 forced joker
    ybonus: int  # points per further Yahtzee while the flag is set (American rule)
    ubonus: int  # points per further Yatzy written into its upper box, box filled (Kniffel)
    track: int  # 1: the flag (Yatzy box holds its points) is tracked in the state
    served: int  # 1: served scores (pos_s, columns width..) apply after the first roll
    forced: int  # 1: categories are filled in the order listed
    saved_cap: int  # saved rerolls: writing with t rerolls left saves min(t, saved_cap); 0: none
    levels: int  # most rerolls a turn can have (2 without saved rerolls)
    zero: np.floating  # 0 in dt
    neg: np.floating  # NEG in dt


class TableArrays(NamedTuple):
    """A solved table as the numba kernels that follow its policy take it (``tab``, with
    the float64 :class:`KernelArrays` beside it: a tuple nested in a tuple cannot enter
    numba's parallel loops).

    ``V`` its values ``[mask, flag, upper]``, ``theta``; ``flags`` and ``width`` (upper
    totals 0..T) are the radices of a state's flat key ``(mask * flags + flag) * width +
    upper``. Built by ``YatzyTable.policy_arrays``.
    """

    V: np.ndarray
    theta: float
    flags: int
    width: int


class StateArrays(NamedTuple):
    """Turn-start states as the numba kernels take them: int64 arrays of one length."""

    mask: np.ndarray  # filled categories (bit c: category c)
    flag: np.ndarray  # 1: the Yahtzee box holds 50 (further Yahtzees earn the bonus)
    upper: np.ndarray  # upper-section total (points, capped at the threshold)


def read_only(*arrays: np.ndarray) -> tuple[np.ndarray, ...]:
    """Read-only views of ``arrays`` (no copy). Kernels get one array type whether a table
    was memory-mapped from its file (read-only) or solved in this process, so they compile
    once, not once per mix of the two."""
    views = tuple(np.asarray(a).view() for a in arrays)
    for v in views:
        v.flags.writeable = False
    return views


def kernel_arrays(rules: YatzyRules, dtype: npt.DTypeLike = "float64") -> KernelArrays:
    """The :class:`KernelArrays` of a variant with scores and probabilities in ``dtype``."""
    r = rules
    lat = r.lattice
    dt: np.dtype[Any] = np.dtype(dtype)
    nk = int(lat.offset[-1])
    nd = r.dice
    R = len(r.roll_counts)
    ncat = r.num_categories
    yz_face = np.where(r.is_yahtzee_roll, r.roll_counts.argmax(axis=1), -1).astype(np.int64)
    # remove-one-die edges, valid ones first, padded with the NEG row (index nk)
    rem_pad = np.full((nk, r.sides), nk, dtype=np.int64)
    rem_n = np.zeros(nk, dtype=np.int64)
    for i, edges in enumerate(lat.remove_die.tolist()):  # (Python ints: no numpy per edge)
        valid = [j for j in edges if j >= 0]
        rem_pad[i, : len(valid)] = valid
        rem_n[i] = len(valid)
    # per roll: successor rows that score more than the zero row (padded to 4), in
    # category order
    stride = nd + 1
    neg_row = ncat * stride
    entries = r.score_entries
    ids = [[e[0] for e in row] for row in entries]
    pts = [[e[1] for e in row] for row in entries]
    served = [[e[2] for e in row] for row in entries]
    width = max(4, max(-(-len(x) // 4) * 4 for x in ids))
    pos_id = np.full((R, width), neg_row, dtype=np.int64)
    pos_s = np.zeros((R, 2 * width), dtype=dt)
    for ri in range(R):
        pos_id[ri, : len(ids[ri])] = ids[ri]
        pos_s[ri, : len(pts[ri])] = pts[ri]
        pos_s[ri, width : width + len(served[ri])] = served[ri]
    return KernelArrays(
        add_die=lat.add_die.astype(np.int64),
        remove_die=lat.remove_die.astype(np.int64),
        offset=lat.offset.astype(np.int64),
        fprob=np.full(r.sides, 1.0 / r.sides, dtype=dt),
        roll_p=r.roll_probs.astype(dt),
        score=r.score.astype(dt),
        joker=r.joker_score.astype(dt),
        roll_cnt=r.roll_counts.astype(np.int64),
        yz_face=yz_face,
        upper_face=r.upper_face.astype(np.int64),
        rem_pad=rem_pad,
        rem_n=rem_n,
        pos_id=pos_id,
        pos_s=pos_s,
        pos_c=pos_id // stride,
        needs=np.array([s.points if s.needs_yatzy else -1 for s in r.specs], dtype=np.int64),
        threshold=int(r.bonus_threshold),
        bonus=int(r.bonus),
        yz_cat=int(r.yahtzee_category),
        joker_code=int(r.joker_code),
        ybonus=int(r.american_bonus),
        ubonus=int(r.upper_bonus),
        track=int(r.tracks_yahtzee),
        served=int(r.has_served),
        forced=int(r.forced_order),
        saved_cap=saved_cap(r),
        levels=int(r.max_rerolls),
        zero=dt.type(0.0),
        neg=dt.type(NEG),
    )


def saved_cap(rules: YatzyRules) -> int:
    """The kernel's ``saved_cap``: 0 without saved rerolls, else the pool's cap (2 x the
    categories when uncapped, more than any turn can leave unused)."""
    if not rules.saved_rerolls:
        return 0
    return int(rules.saved_cap) if rules.saved_cap is not None else 2 * rules.num_categories
