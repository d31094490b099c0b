"""A solved Yatzy table and one turn read from it, in numpy: advice without numba.

:class:`YatzyTable` holds ``values[mask, flag, upper]``, the value of every turn-start
state (see :mod:`diceopt.games.yatzy.solve`, which solves it). Its
:meth:`~YatzyTable.widget` and :meth:`~YatzyTable.category_values` evaluate one turn
from one state with the functions below: the kernel's scalar widget
(:func:`~diceopt.games.yatzy.widget.widget_detail` and
:func:`~diceopt.games.yatzy.widget.category_values`) written again in numpy, a lattice
level (the multisets of one size) at a time. A twin, for this reason: advice from a
stored table then starts without importing numba and loading its kernels (about 0.2 s of
a 0.1 s budget per command; ``benchmarks/startup.py``). Every number is computed by the
kernel's operations in the kernel's order (sums left to right, ``exp`` and ``log`` of the
C library through :mod:`math`), so values, policies and tie-breaks agree bit for bit
(``tests/test_yatzy_table.py`` compares the twins on every variant and both objectives).
Tables without saved rerolls only (``SavedTable`` reads its layers with the kernel).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from diceopt.errors import InputError
from diceopt.games.yatzy.arrays import NEG, KernelArrays, TableArrays, kernel_arrays
from diceopt.games.yatzy.rules import YatzyRules

if TYPE_CHECKING:  # saved.py loads numba; this module reads tables without it
    from diceopt.games.yatzy.saved import SavedTable

TURN = 2  # rerolls in a turn (no saved rerolls)


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
    def arrays64(self) -> KernelArrays:
        """Kernel arrays in float64 (for the scalar widget)."""
        return kernel_arrays(self.rules, np.float64)

    @cached_property
    def policy_arrays(self) -> TableArrays:
        """The table as the kernels that follow its policy take it (``arrays64`` beside)."""
        rules = self.rules
        return TableArrays(self.values, float(self.theta), rules.flags, rules.bonus_threshold + 1)

    def widget(
        self, mask: int, flag: int, upper: int, levels: int = TURN
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
        """:func:`widget_detail` for one turn-start state, in float64; ``levels`` is 2 (a
        table without saved rerolls; the argument matches ``SavedTable``)."""
        if levels != TURN:
            raise InputError(f"a turn has 2 rerolls without saved rerolls, got {levels}")
        return widget_detail(mask, flag, upper, self.values, self.arrays64, self.theta)

    def category_values(
        self, mask: int, flag: int, upper: int, roll: int, rerolls: int = 0
    ) -> np.ndarray:
        """Value of writing roll index ``roll`` into each category (NEG: not allowed);
        ``rerolls`` left unused matter with served scores (2: the first roll) and with
        saved rerolls (``SavedTable``)."""
        return category_values(mask, flag, upper, roll, self.values, self.arrays64, rerolls)


# --- the rules of one turn (twins of the kernel's _may_write ... _joker_best) -------------


def expected_table(table: YatzyTable | SavedTable, what: str) -> YatzyTable:
    """``table`` as a :class:`YatzyTable` (a variant without saved rerolls); InputError
    for a saved-rerolls table: ``what`` reads only the others."""
    if not isinstance(table, YatzyTable):
        raise InputError(f"{what} is not available for {table.rules.name} (saved rerolls)")
    return table


def _may_write(mask: int, c: int, K: KernelArrays) -> bool:
    """Whether category c is open to a non-joker roll (open; first open if forced order)."""
    if (mask >> c) & 1:
        return False
    return not (K.forced and any(not (mask >> d) & 1 for d in range(c)))


def _allowed(mask: int, r: int, K: KernelArrays) -> tuple[list[bool], bool]:
    """Categories roll r may be written into, and whether as a joker."""
    upper_face = K.upper_face.tolist()
    ncat = len(upper_face)
    ok = [_may_write(mask, c, K) for c in range(ncat)]
    use_joker = False
    f = int(K.yz_face[r])
    if K.joker_code != 0 and f >= 0 and K.yz_cat >= 0 and (mask >> K.yz_cat) & 1:
        use_joker = True
        if K.joker_code == 2:  # forced joker: matching upper box, else a lower one, else any
            match = -1
            lower_open = False
            for c in range(ncat):
                if ok[c]:
                    if upper_face[c] == f:
                        match = c
                    elif upper_face[c] < 0:
                        lower_open = True
            if match >= 0:
                ok = [c == match for c in range(ncat)]
            elif lower_open:
                ok = [ok[c] and upper_face[c] < 0 for c in range(ncat)]
        else:  # free choice: any open box; joker points once the matching upper box is used
            for c in range(ncat):
                if upper_face[c] == f and not (mask >> c) & 1:
                    use_joker = False
    return ok, use_joker


def _successor_rows(
    mask: int, flag: int, u: int, V: np.ndarray, K: KernelArrays
) -> tuple[np.ndarray, float, int]:
    """Step 1: the successor rows ``SR`` (float64, the last row NEG), the best h = 0 row
    and its category (lowest index on ties)."""
    T = K.threshold
    stride = K.offset.size - 1
    ncat = K.upper_face.size
    SR = np.full(ncat * stride + 1, NEG)
    z, zc = NEG, 0
    for c in range(ncat):
        if not _may_write(mask, c, K):
            continue
        b0 = c * stride
        nxt = mask | (1 << c)
        f = int(K.upper_face[c])
        if f < 0:
            SR[b0] = 0.0 + float(V[nxt, flag, u])
            if c == K.yz_cat and K.track:
                SR[b0 + 1] = 0.0 + float(V[nxt, 1, u])
            elif K.needs[c] >= 0:
                pts = float(K.needs[c]) if flag == 1 else 0.0
                SR[b0 + 1] = pts + float(V[nxt, flag, u])
            else:
                SR[b0 + 1] = SR[b0]
        else:
            for cnt in range(stride):
                pts = cnt * (f + 1)
                b = K.bonus if (u < T and u + pts >= T) else 0
                SR[b0 + cnt] = (pts + b) + float(V[nxt, flag, min(T, u + pts)])
        if SR[b0] > z:
            z, zc = float(SR[b0]), c
    return SR, z, zc


def _category_value(r: int, c: int, use_joker: bool, K: KernelArrays, SR: np.ndarray) -> float:
    """Value of writing roll r into (allowed) category c: points + successor row, without
    the Yahtzee bonus of either rule and served points."""
    stride = K.offset.size - 1
    f = int(K.upper_face[c])
    if f >= 0:
        return 0.0 + float(SR[c * stride + int(K.roll_cnt[r, f])])
    s = float(K.joker[r, c] if use_joker else K.score[r, c])
    if K.needs[c] >= 0:
        return 0.0 + float(SR[c * stride + (1 if s > 0 else 0)])
    h = 1 if (c == K.yz_cat and s > 0) else 0
    return s + float(SR[c * stride + h])


def _served_extra(r: int, c: int, K: KernelArrays) -> float:
    """Points more for writing roll r into c after the first roll (the kernel's
    ``served_extra``)."""
    width = K.pos_id.shape[1]
    for e in range(width):
        if K.pos_c[r, e] == c:
            return float(K.pos_s[r, width + e] - K.pos_s[r, e])
    return 0.0


def _joker_rules(mask: int, K: KernelArrays) -> bool:
    """Whether a Yatzy roll is scored category by category (the kernel's ``joker_rules``)."""
    filled = K.yz_cat >= 0 and ((mask >> K.yz_cat) & 1) == 1
    return filled and (K.joker_code != 0 or K.ubonus != 0)


def _upper_bonus(mask: int, r: int, c: int, K: KernelArrays) -> float:
    """The Kniffel bonus of writing roll r into c (the kernel's ``upper_bonus``)."""
    f = int(K.yz_face[r])
    if K.ubonus == 0 or f < 0 or int(K.upper_face[c]) != f or not (mask >> K.yz_cat) & 1:
        return 0.0
    return float(K.ubonus)


def _joker_best(mask: int, r: int, K: KernelArrays, SR: np.ndarray) -> tuple[float, int]:
    """Best value and category (lowest index on ties) of Yahtzee roll r under the joker
    rules, without the American Yahtzee bonus (the Kniffel bonus included)."""
    ok, use_joker = _allowed(mask, r, K)
    best, bc = NEG, -1
    for c in range(len(ok)):
        if ok[c]:
            v = _category_value(r, c, use_joker, K, SR) + _upper_bonus(mask, r, c, K)
            if bc < 0 or v > best:
                best, bc = v, c
    return best, bc


def category_values(
    mask: int, flag: int, upper: int, r: int, V: np.ndarray, K: KernelArrays, rerolls: int = 0
) -> np.ndarray:
    """Value of writing roll r into each category from state (mask, flag, upper) with
    ``rerolls`` left (2 with served scores: served): points now (bonuses included) plus
    the table value of the next state; NEG where not allowed. ``K`` float64; the
    kernel's ``category_values`` bit for bit."""
    SR, _, _ = _successor_rows(mask, flag, upper, V, K)
    ok, use_joker = _allowed(mask, r, K)
    yb = K.ybonus if (flag == 1 and K.yz_face[r] >= 0) else 0
    served = K.served != 0 and rerolls == TURN
    out = np.full(len(ok), NEG)
    for c in range(len(ok)):
        if ok[c]:
            v = _category_value(r, c, use_joker, K, SR) + _upper_bonus(mask, r, c, K)
            if served and not use_joker:
                v += _served_extra(r, c, K)
            out[c] = v + yb if yb != 0 else v
    return out


def _score_now(
    mask: int, flag: int, upper: int, V: np.ndarray, K: KernelArrays, served: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """Steps 1-2: the value of writing each roll now and its category (lowest index among
    equal values), all rolls at once (``served``: after the first roll)."""
    SR, z, zc = _successor_rows(mask, flag, upper, V, K)
    R = K.yz_face.size
    width = K.pos_id.shape[1]
    o = width if served else 0  # served points in the columns width..
    vals = K.pos_s[:, o : o + width] + SR[K.pos_id]  # (R, width): padding reads the NEG row
    top = vals.max(axis=1)
    better = top > z
    first = np.argmax(vals == top[:, None], axis=1)  # the kernel's strict ">" keeps the first
    best = np.where(better, top, z)
    cat = np.where(better, K.pos_c[np.arange(R), first], zc)
    # writing 0 is best: a lower category may score as much (lowest index wins)
    tied = np.where((K.pos_c < zc) & (vals == best[:, None]), K.pos_c, zc).min(axis=1)
    cat = np.where(cat == zc, tied, cat)
    yz = np.flatnonzero(K.yz_face >= 0)
    if _joker_rules(mask, K):
        for r in yz.tolist():
            best[r], cat[r] = _joker_best(mask, r, K, SR)
    if flag == 1 and K.ybonus != 0:
        best[yz] += K.ybonus
    return best, cat


def _to_points(W: np.ndarray, ref: float, theta: float) -> np.ndarray:
    """Utilities back to points, ``ref + log(sign(theta) W) / theta`` (C library log)."""
    if theta == 0.0:
        return W
    sgn = 1.0 if theta > 0.0 else -1.0
    out = [ref + math.log(sgn * w) / theta for w in W.ravel().tolist()]
    return np.array(out).reshape(W.shape)


def widget_detail(
    mask: int, flag: int, upper: int, V: np.ndarray, K: KernelArrays, theta: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """One turn from state (mask, flag, upper) with two rerolls, in float64 points: the
    kernel's ``widget_detail`` (see there) bit for bit. ``K`` float64. Returns
    ``(roll_value, keep_value, policy, value)``: ``roll_value[t, r]`` and ``policy[t, r]``
    for t = 0 .. 2 rerolls left and roll r, ``keep_value[t, k]`` (t = 1, 2; row 0 is 0),
    and the state's value."""
    now_v, now_c = _score_now(mask, flag, upper, V, K)
    add_die, offset, fprob, rem_pad = K.add_die, K.offset, K.fprob.tolist(), K.rem_pad
    nd = offset.size - 2
    base, nk = int(offset[nd]), int(offset[nd + 1])
    R = nk - base
    RV = np.zeros((TURN + 1, R))
    E = np.zeros((TURN + 1, nk))
    pol = np.zeros((TURN + 1, R), dtype=np.int64)
    RV[0] = now_v
    pol[0] = -now_c - 1
    # 3. utilities
    ref = 0.0
    sgn = 1.0 if theta >= 0.0 else -1.0
    if theta != 0.0:
        ref = float(now_v.max() if theta > 0.0 else now_v.min())
        if K.served and theta > 0.0:  # the kernel's ``served_shift``
            width = K.pos_id.shape[1]
            ref += max(0.0, float((K.pos_s[:, width:] - K.pos_s[:, :width]).max()))
        RV[0] = [sgn * math.exp(theta * (x - ref)) for x in now_v.tolist()]
        now_v = RV[0].copy()
    sub_best = np.empty(nk + 1)
    sub_arg = np.empty(nk + 1, dtype=np.int64)
    sub_best[nk], sub_arg[nk] = NEG, nk
    rolls = rem_pad[base:nk]
    for t in range(1, TURN + 1):
        Et = E[t]
        Et[base:] = RV[t - 1]
        for n in range(nd - 1, -1, -1):  # chance, one die more: sizes nd - 1 .. 0
            lo, hi = int(offset[n]), int(offset[n + 1])
            acc = fprob[0] * Et[add_die[lo:hi, 0]]
            for f in range(1, len(fprob)):
                acc = acc + fprob[f] * Et[add_die[lo:hi, f]]
            Et[lo:hi] = acc
        for n in range(nd):  # the best sub-multiset of each, sizes 0 .. nd - 1
            lo, hi = int(offset[n]), int(offset[n + 1])
            subs = rem_pad[lo:hi]
            sb = np.maximum(Et[lo:hi], sub_best[subs].max(axis=1))
            arg = np.where(sub_best[subs] == sb[:, None], sub_arg[subs], nk).min(axis=1)
            sub_best[lo:hi] = sb
            sub_arg[lo:hi] = np.minimum(np.arange(lo, hi), arg)
        if K.served and t == TURN:  # writing after the first roll: served scores
            now_v, now_c = _score_now(mask, flag, upper, V, K, True)
            if theta != 0.0:
                now_v = np.array([sgn * math.exp(theta * (x - ref)) for x in now_v.tolist()])
        pb = np.maximum(NEG, sub_best[rolls].max(axis=1))
        pa = np.where(sub_best[rolls] == pb[:, None], sub_arg[rolls], nk).min(axis=1)
        now = now_v >= pb  # scoring now wins ties
        pol[t] = np.where(now, -now_c - 1, pa)
        RV[t] = np.where(now, now_v, pb)
    # 5. the first roll, summed in the kernel's order
    value = 0.0
    for p, x in zip(K.roll_p.tolist(), RV[TURN].tolist(), strict=True):
        value += p * x
    if theta != 0.0:
        value = ref + math.log(sgn * value) / theta
    keep_value = E.copy()
    keep_value[0] = 0.0
    keep_value[1:] = _to_points(keep_value[1:], ref, theta)
    return _to_points(RV, ref, theta), keep_value, pol, value
