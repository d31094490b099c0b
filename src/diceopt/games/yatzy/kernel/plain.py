"""One Yatzy turn from one state in plain Python: advice from a stored table without numpy.

The kernel's scalar widget (:func:`~diceopt.games.yatzy.kernel.widget.widget_detail` and
:func:`~diceopt.games.yatzy.kernel.widget.category_values`, numba) written again with Python
lists and floats. A twin, for this reason: a command that advises from a stored table
then starts without importing numpy or numba (numpy alone costs more than half of the
0.1 s budget of such a command; ``benchmarks/startup.py``), reading only the table rows
the turn needs (:class:`PlainTable`, rows from :mod:`diceopt.blocks`). Every number
is computed by the kernel's operations in the kernel's order (float64 sums left to
right, ``exp`` and ``log`` of the C library through :mod:`math`), so keep values,
category values, policies and tie-breaks agree bit for bit; the state's value differs
at most by rounding of the roll probabilities (``tests/test_yatzy_table.py`` compares
the twins on every variant, rule files and both objectives). Tables without saved
rerolls only (``SavedTable`` reads its layers with the kernel). Cost: a few ms a turn
(462 multisets of 5 dice, 924 of 6).

A state's table row is ``rows(mask)``: the values ``V[mask, flag, upper]`` of one mask as
a flat sequence, index ``flag * (threshold + 1) + upper`` (points to come; NaN where
unreachable).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import cached_property

from diceopt.errors import InputError
from diceopt.games.yatzy.rulebook.rules import YatzyRules

NEG = -1.0e30  # value of a forbidden choice (far below any score, finite in float32)
TURN = 2  # rerolls in a turn (no saved rerolls)

Rows = Callable[[int], Sequence[float]]  # mask -> V[mask] flat (see the module doc)


class TurnRules:
    """A variant's turn rules as Python lists (the twin of ``KernelArrays``, float64).

    ``offset``/``add``/``rem``: the keep lattice (``rem``: the valid remove-one-die edges
    of each multiset); per roll r: ``counts[r]``, ``prob[r]``, ``score[r][c]`` and
    ``joker[r][c]`` (points), ``yz_face[r]`` and ``entries[r]``: (successor row, points,
    served points, category) of each category where r scores more than the zero row, in
    category order (the kernel's ``pos_id``, ``pos_s``, ``pos_c`` without the padding).
    """

    def __init__(self, rules: YatzyRules) -> None:
        r = rules
        if r.saved_rerolls:
            raise InputError(f"{r.name} has saved rerolls: its turns are read with the kernel")
        rows, self.offset, self.add, remove = r.lattice_lists
        self.rem = [[j for j in edges if j >= 0] for edges in remove]
        self.sides, self.dice = r.sides, r.dice
        self.fprob = [1.0 / r.sides] * r.sides
        self.counts = r.roll_rows
        self.prob = roll_probabilities(self.counts, r.sides)
        self.score = [[float(x) for x in row] for row in r.score_rows]
        self.joker = [[float(x) for x in row] for row in r.joker_rows]
        self.yz_face = [row.index(r.dice) if max(row) == r.dice else -1 for row in self.counts]
        self.upper_face = list(r.upper_faces)
        self.needs = [spec.points if spec.needs_yatzy else -1 for spec in r.specs]
        self.threshold, self.bonus = r.bonus_threshold, r.bonus
        self.yz_cat, self.joker_code = r.yahtzee_category, r.joker_code
        self.ybonus, self.ubonus = r.american_bonus, r.upper_bonus
        self.track, self.served, self.forced = r.tracks_yahtzee, r.has_served, r.forced_order
        self.flags = r.flags
        self.entries = r.score_entries


def roll_probabilities(counts: list[list[int]], sides: int) -> list[float]:
    """Probability of each sorted roll (dice per face) of fair dice, as
    :func:`~diceopt.dice.multiset_probabilities` computes it (multinomial in logs)."""
    logp = math.log(1.0 / sides)
    n = max(sum(row) for row in counts)
    lg = [math.lgamma(i + 1) for i in range(n + 1)]
    out = []
    for row in counts:
        log_coef = lg[sum(row)] - sum(lg[c] for c in row)
        total = 0.0
        for c in row:
            total += c * logp if c > 0 else 0.0
        out.append(math.exp(log_coef + total))
    return out


class PlainTable:
    """A solved table (no saved rerolls) read through ``rows`` (see the module doc), with
    the turn of one state as :class:`~diceopt.games.yatzy.kernel.table.YatzyTable` gives it, as
    lists. ``value``: the table's value from the start (points)."""

    def __init__(self, rules: YatzyRules, rows: Rows, theta: float = 0.0) -> None:
        self.rules, self.rows, self.theta = rules, rows, float(theta)

    @cached_property
    def turn(self) -> TurnRules:
        """The variant's turn rules as lists."""
        return TurnRules(self.rules)

    @property
    def value(self) -> float:
        """Optimal value of the whole game from the first turn (points)."""
        return float(self.rows(0)[0])

    def widget(self, mask: int, flag: int, upper: int, levels: int = TURN) -> tuple:
        """:func:`widget_detail` of one turn-start state (``levels`` 2)."""
        if levels != TURN:
            raise InputError(f"a turn has 2 rerolls without saved rerolls, got {levels}")
        return widget_detail(mask, flag, upper, self.rows, self.turn, self.theta)

    def category_values(
        self, mask: int, flag: int, upper: int, roll: int, rerolls: int = 0
    ) -> list[float]:
        """:func:`category_values` of roll index ``roll`` with ``rerolls`` left."""
        return category_values(mask, flag, upper, roll, self.rows, self.turn, rerolls)


# --- the rules of one turn (twins of the kernel's may_write ... joker_best) --------------


def may_write(mask: int, c: int, T: TurnRules) -> bool:
    """Whether category c is open to a non-joker roll (open; first open if forced order)."""
    if (mask >> c) & 1:
        return False
    return not (T.forced and any(not (mask >> d) & 1 for d in range(c)))


def allowed(mask: int, r: int, T: TurnRules) -> tuple[list[bool], bool]:
    """Categories roll r may be written into, and whether as a joker."""
    upper_face = T.upper_face
    ncat = len(upper_face)
    ok = [may_write(mask, c, T) for c in range(ncat)]
    use_joker = False
    f = T.yz_face[r]
    if T.joker_code != 0 and f >= 0 and T.yz_cat >= 0 and (mask >> T.yz_cat) & 1:
        use_joker = True
        if T.joker_code == 2:  # forced joker: matching upper box, else a lower one, else any
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


def successor_rows(
    mask: int, flag: int, u: int, rows: Rows, T: TurnRules
) -> tuple[list[float], float, int]:
    """Step 1: the successor rows ``SR`` (the last row NEG), the best h = 0 row and its
    category (lowest index on ties)."""
    thr = T.threshold
    width = thr + 1
    stride = T.dice + 1
    ncat = len(T.upper_face)
    SR = [NEG] * (ncat * stride + 1)
    z, zc = NEG, 0
    for c in range(ncat):
        if not may_write(mask, c, T):
            continue
        b0 = c * stride
        V = rows(mask | (1 << c))
        f = T.upper_face[c]
        if f < 0:
            SR[b0] = 0.0 + V[flag * width + u]
            if c == T.yz_cat and T.track:
                SR[b0 + 1] = 0.0 + V[width + u]
            elif T.needs[c] >= 0:
                pts = float(T.needs[c]) if flag == 1 else 0.0
                SR[b0 + 1] = pts + V[flag * width + u]
            else:
                SR[b0 + 1] = SR[b0]
        else:
            for cnt in range(stride):
                pts = cnt * (f + 1)
                b = T.bonus if (u < thr and u + pts >= thr) else 0
                SR[b0 + cnt] = (pts + b) + V[flag * width + min(thr, u + pts)]
        if SR[b0] > z:
            z, zc = SR[b0], c
    return SR, z, zc


def category_value(r: int, c: int, use_joker: bool, T: TurnRules, SR: list[float]) -> float:
    """Value of writing roll r into (allowed) category c: points + successor row, without
    the Yahtzee bonus of either rule and served points."""
    stride = T.dice + 1
    f = T.upper_face[c]
    if f >= 0:
        return 0.0 + SR[c * stride + T.counts[r][f]]
    s = T.joker[r][c] if use_joker else T.score[r][c]
    if T.needs[c] >= 0:
        return 0.0 + SR[c * stride + (1 if s > 0 else 0)]
    h = 1 if (c == T.yz_cat and s > 0) else 0
    return s + SR[c * stride + h]


def served_extra(r: int, c: int, T: TurnRules) -> float:
    """Points more for writing roll r into c after the first roll."""
    for _, s, first, cat in T.entries[r]:
        if cat == c:
            return first - s
    return 0.0


def served_shift(T: TurnRules, theta: float) -> float:
    """What the utilities' reference is raised by (points): with served scores and
    theta > 0 the most a served score adds, else 0 (the kernel's ``turn.served_shift``)."""
    if not T.served or theta <= 0.0:
        return 0.0
    return max([0.0] + [first - s for row in T.entries for _, s, first, _ in row])


def joker_rules(mask: int, T: TurnRules) -> bool:
    """Whether a Yatzy roll is scored category by category."""
    filled = T.yz_cat >= 0 and ((mask >> T.yz_cat) & 1) == 1
    return filled and (T.joker_code != 0 or T.ubonus != 0)


def upper_bonus(mask: int, r: int, c: int, T: TurnRules) -> float:
    """The Kniffel bonus of writing roll r into c."""
    f = T.yz_face[r]
    if T.ubonus == 0 or f < 0 or T.upper_face[c] != f or not (mask >> T.yz_cat) & 1:
        return 0.0
    return float(T.ubonus)


def joker_best(mask: int, r: int, T: TurnRules, SR: list[float]) -> tuple[float, int]:
    """Best value and category (lowest index on ties) of Yahtzee roll r under the joker
    rules, without the American Yahtzee bonus (the Kniffel bonus included)."""
    ok, use_joker = allowed(mask, r, T)
    best, bc = NEG, -1
    for c in range(len(ok)):
        if ok[c]:
            v = category_value(r, c, use_joker, T, SR) + upper_bonus(mask, r, c, T)
            if bc < 0 or v > best:
                best, bc = v, c
    return best, bc


def category_values(
    mask: int, flag: int, upper: int, r: int, rows: Rows, T: TurnRules, rerolls: int = 0
) -> list[float]:
    """Value of writing roll r into each category from state (mask, flag, upper) with
    ``rerolls`` left (2 with served scores: served): points now (bonuses included) plus
    the table value of the next state; NEG where not allowed. The kernel's
    ``category_values`` bit for bit."""
    SR, _, _ = successor_rows(mask, flag, upper, rows, T)
    ok, use_joker = allowed(mask, r, T)
    yb = T.ybonus if (flag == 1 and T.yz_face[r] >= 0) else 0
    served = T.served and rerolls == TURN
    out = [NEG] * len(ok)
    for c in range(len(ok)):
        if ok[c]:
            v = category_value(r, c, use_joker, T, SR) + upper_bonus(mask, r, c, T)
            if served and not use_joker:
                v += served_extra(r, c, T)
            out[c] = v + yb if yb != 0 else v
    return out


def score_now(
    mask: int, flag: int, upper: int, rows: Rows, T: TurnRules, served: bool = False
) -> tuple[list[float], list[int]]:
    """Steps 1-2: the value of writing each roll now and its category (lowest index among
    equal values; ``served``: after the first roll)."""
    SR, z, zc = successor_rows(mask, flag, upper, rows, T)
    joker_filled = joker_rules(mask, T)
    yb = T.ybonus if flag == 1 else 0
    values, cats = [], []
    for r, entries in enumerate(T.entries):
        if joker_filled and T.yz_face[r] >= 0:
            best, bc = joker_best(mask, r, T, SR)
        else:
            best, bc = z, zc
            for row, s, first, c in entries:
                v = (first if served else s) + SR[row]
                if v > best:
                    best, bc = v, c
            if bc == zc:  # writing 0 is best: a lower category may score as much
                for row, s, first, c in entries:
                    if c < bc and (first if served else s) + SR[row] == best:
                        bc = c
        if yb != 0 and T.yz_face[r] >= 0:
            best += yb
        values.append(best)
        cats.append(bc)
    return values, cats


def utilities(values: list[float], ref: float, theta: float) -> list[float]:
    """Points to utilities, ``sign(theta) exp(theta (x - ref))``."""
    sgn = 1.0 if theta >= 0.0 else -1.0
    return [sgn * math.exp(theta * (x - ref)) for x in values]


def to_points(values: list[float], ref: float, theta: float) -> list[float]:
    """Utilities back to points, ``ref + log(sign(theta) W) / theta``."""
    if theta == 0.0:
        return values
    sgn = 1.0 if theta > 0.0 else -1.0
    return [ref + math.log(sgn * w) / theta for w in values]


def widget_detail(
    mask: int, flag: int, upper: int, rows: Rows, T: TurnRules, theta: float
) -> tuple[list[list[float]], list[list[float]], list[list[int]], float]:
    """One turn from state (mask, flag, upper) with two rerolls, in float64 points: the
    kernel's ``widget_detail`` (see there). Returns ``(roll_value, keep_value, policy,
    value)``: ``roll_value[t][r]`` and ``policy[t][r]`` for t = 0 .. 2 rerolls left and
    roll r, ``keep_value[t][k]`` (t = 1, 2; row 0 is 0), and the state's value."""
    now_v, now_c = score_now(mask, flag, upper, rows, T)
    add, offset, rem, fprob = T.add, T.offset, T.rem, T.fprob
    nd = T.dice
    base, nk = offset[nd], offset[nd + 1]
    R = nk - base
    k = T.sides
    RV: list[list[float]] = [list(now_v)]
    E: list[list[float]] = [[0.0] * nk]
    pol: list[list[int]] = [[-c - 1 for c in now_c]]
    # 3. utilities
    ref = 0.0
    if theta != 0.0:
        ref = max(now_v) if theta > 0.0 else min(now_v)
        ref += served_shift(T, theta)  # (0 without served scores)
        now_v = RV[0] = utilities(now_v, ref, theta)
    sub_best = [0.0] * nk
    sub_arg = [0] * nk
    for t in range(1, TURN + 1):
        Et = [0.0] * base + RV[t - 1]
        for i in range(base - 1, -1, -1):  # chance: one die more
            a = add[i]
            acc = fprob[0] * Et[a[0]]
            for f in range(1, k):
                acc = acc + fprob[f] * Et[a[f]]
            Et[i] = acc
        for i in range(base):  # the best sub-multiset of each (lowest index among equals)
            sb = Et[i]
            for j in rem[i]:
                if sub_best[j] > sb:
                    sb = sub_best[j]
            sa = i
            for j in rem[i]:
                if sub_best[j] == sb and sub_arg[j] < sa:
                    sa = sub_arg[j]
            sub_best[i] = sb
            sub_arg[i] = sa
        E.append(Et)
        if T.served and t == TURN:  # writing after the first roll: served scores
            now_v, now_c = score_now(mask, flag, upper, rows, T, True)
            if theta != 0.0:
                now_v = utilities(now_v, ref, theta)
        rv, pt = [0.0] * R, [0] * R
        for r in range(R):
            edges = rem[base + r]
            pb = NEG
            for j in edges:
                if sub_best[j] > pb:
                    pb = sub_best[j]
            if now_v[r] >= pb:  # scoring now wins ties
                pt[r], rv[r] = -now_c[r] - 1, now_v[r]
                continue
            pa = nk
            for j in edges:
                if sub_best[j] == pb and sub_arg[j] < pa:
                    pa = sub_arg[j]
            pt[r], rv[r] = pa, pb
        RV.append(rv)
        pol.append(pt)
    # 5. the first roll, summed in the kernel's order
    value = 0.0
    for p, x in zip(T.prob, RV[TURN], strict=True):
        value += p * x
    if theta != 0.0:
        value = ref + math.log((1.0 if theta > 0.0 else -1.0) * value) / theta
    keep_value = [E[0]] + [to_points(e, ref, theta) for e in E[1:]]
    return [to_points(v, ref, theta) for v in RV], keep_value, pol, value
