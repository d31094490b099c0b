"""The exact distribution of the final Yatzy/Yahtzee score under a table's optimal policy.

Role: the probability of every final score (points) when the rest of the game is
played by the policy of a solved table (any variant, expected score or theta != 0):
the policy the advice ranks first and the simulation plays (the scalar widget
:func:`diceopt.games.yatzy.kernel.widget.widget_into` and its documented tie-break). No
sampling: every probability is a sum of products of dice probabilities.

Method (layer by layer: the number of filled categories; numba, parallel over states):

1. The turn's policy at a turn-start state ``(mask, flag, upper)``: from the solver's
   lanes (:func:`diceopt.games.yatzy.kernel.policy.policy_lanes`: the widget's float64
   numbers and tie-break, bit for bit, at a quarter of its cost per state, any theta);
   with served scores from the scalar widget.
2. Probabilities are pushed through the policy: the first roll's distribution, for
   every roll either "write now" (its mass goes to that final roll) or a keep (its
   mass goes to the keep); the mass of every keep is spread up the keep lattice by one
   die at a time (the transpose of the solver's chance step, over lanes of 64 states)
   into the rolls of the next level. The result, ``F[r]`` (the probability that the
   turn ends with roll r written into the policy's category), is grouped into the
   turn's *outcomes*: (successor state, points incl. bonuses, probability), about 30
   per state.
3. From a position, a forward pass first: the position's state, then layer after
   layer only the states some recorded outcome leads to (Scandinavian from the start:
   451,969 of the 958,975 turn-start states), each through steps 1-2 once, its
   outcomes kept. They are found from the outcomes' keys (``successor_index``), so a
   position lists no layer's states (Maxi Yatzy has 36.8 million: listing them and
   their index took a second; the distribution from a mid-game position 0.1 s). Then
   backward, last turn first, each visited state gets the vector
   ``pmf[x]`` = P(points still to come = x) (float64): the sum over its outcomes of
   probability x the successor's vector shifted by the points (successors lie in the
   next layer, already done: no write conflicts). A vector is as long as the most
   points to come with positive probability (+ 1). The bonus and Yatzy rates are
   carried the same way (scalars). A position in mid-turn (dice showing, rerolls left)
   starts step 2 from its roll; the answer adds its points so far.
4. :func:`state_distributions`: every state of every layer, each layer's outcomes
   computed just before it is combined, every layer's vectors kept.

Upper totals from which the bonus is out of reach share one state (as in the solver).
Time (Scandinavian, float32 table, 2 threads on 2 cores busy with other jobs, load
average 5.2-5.4): from the start 7-8.5 s (every state through the widget: 36 s); every
state (``state_distributions``) 19 s. See ``benchmarks/yatzy_distribution.py``.

Precision: float64 throughout (``state_distributions`` may store its rows in float32
once combined; the table may be float32: the policy is then the one
the float32 table implies, and the mean equals the table value to float32 precision;
for a float64 expected-score table the mean equals the value within 1e-9). The
probabilities sum to 1 within about 1e-12.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

import numba
import numpy as np

from diceopt.errors import InputError
from diceopt.games.contract import CommandOutput
from diceopt.games.yatzy.analyses.score_distribution import (
    ScoreDistribution,
    distribution_png,
    summary_lines,
)
from diceopt.games.yatzy.kernel.arrays import StateArrays
from diceopt.games.yatzy.kernel.layers import (
    LayerStates,
    layer_states,
    max_to_come,
    upper_canon,
)
from diceopt.games.yatzy.kernel.table import YatzyTable, expected_table
from diceopt.games.yatzy.kernel.turn_outcomes import (
    LANES,
    combine,
    layer_outcomes,
    successor_index,
    support,
)
from diceopt.games.yatzy.rulebook.rules import YatzyRules
from diceopt.interrupt import Pace, interruptible, run_chunks
from diceopt.threads import run_shares

if TYPE_CHECKING:
    from diceopt.games.yatzy.kernel.saved import SavedTable


def _category_outcomes(rules: YatzyRules) -> np.ndarray:
    """Per category, its distinct (points, Yatzy roll) pairs: how many outcomes writing
    into it can have (the state fixes the bonuses those add)."""
    yz = rules.is_yahtzee_roll.tolist()
    out = np.zeros(rules.num_categories, dtype=np.int64)
    for c in range(rules.num_categories):
        pairs = set(zip(rules.score[:, c].tolist(), yz, strict=True))
        pairs |= set(zip(rules.joker_score[:, c].tolist(), yz, strict=True))
        pairs |= set(zip(rules.served_score[:, c].tolist(), yz, strict=True))
        out[c] = len(pairs)
    return out


def _outcome_bound(rules: YatzyRules, per_category: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """An upper bound on the number of outcomes (category, points) of a turn from
    turn-start states (vectorised): the open categories' ``per_category``
    (:func:`_category_outcomes`)."""
    out = np.zeros(mask.size, dtype=np.int64)
    for c in range(rules.num_categories):
        out += np.where(((mask >> c) & 1) == 0, per_category[c], 0)
    # one outcome per final roll (two with served scores: written after the first roll or not)
    return np.minimum(out, len(rules.roll_counts) * (2 if rules.has_served else 1))


def _layer_index(layers: list[LayerStates], nkeys: int, flags: int, width: int) -> np.ndarray:
    """``where[flat key]``: a turn-start state's index in its layer's list (a bonus-dead
    copy: that of the state it copies), -1 for keys no layer lists (int32: half the
    memory, 2^C x flags x (T + 1) keys)."""
    where = np.full(nkeys, -1, dtype=np.int32)
    for st in layers:
        where[(st.mask * flags + st.flag) * width + st.upper] = np.arange(st.mask.size)
        where[st.copy_dst] = where[st.copy_src]
    return where


class _Rows(NamedTuple):
    """One layer's vectors: row i is ``data[off[i] : off[i] + ln[i]]`` (P(points to come
    = x), x = 0 ..), ``pb[i]`` / ``py[i]`` the upper bonus and Yatzy 50 rates."""

    off: np.ndarray
    ln: np.ndarray
    data: np.ndarray
    pb: np.ndarray
    py: np.ndarray


COMBINE_SHARES = 4  # shares of a chunk of the combining per thread (see _combine_chunked)
NO_ROWS = np.zeros(0, dtype=np.float32)  # combine's ``narrow`` when no keeper keeps float32


class _Keeper:
    """The rows of ``_pass`` of layers 0 .. ``last`` in one array (``state_distributions``).

    ``data`` is allocated once at an upper bound on the total (its pages are only touched
    as rows are written); with float64 storage a layer is combined in place there, with
    float32 in a float64 array and written there rounded as each row is finished
    (:func:`~diceopt.games.yatzy.kernel.turn_outcomes.combine`'s ``narrow``).
    """

    def __init__(
        self, rules: YatzyRules, layers: list[LayerStates], dtype: str | np.dtype, last: int
    ) -> None:
        self.flags = rules.flags
        self.width = rules.bonus_threshold + 1
        self.layers = layers
        self.last = last  # layers 0 .. last are kept
        bound = sum(
            int(max_to_come(rules, s.mask, s.flag, s.upper).sum()) + s.mask.size
            for s in layers[: last + 1]
        )
        self.data = np.empty(bound, dtype=dtype)
        nkeys = (1 << rules.num_categories) * self.flags * self.width
        self.slot = np.full(nkeys, -1, dtype=np.int64)
        self.used = 0
        self.rows = 0
        self.parts: list[tuple[np.ndarray, ...]] = []
        self._view: np.ndarray | None = None

    def _room(self, size: int) -> None:
        if self.used + size > self.data.size:  # not reached: the bound holds (safety)
            more = np.empty(size, dtype=self.data.dtype)
            self.data = np.concatenate([self.data[: self.used], more])

    def buffer(self, size: int, dtype: type = np.float64) -> np.ndarray | None:
        """A view of ``data`` for the next layer's rows where it is ``dtype``, else None."""
        if self.data.dtype != dtype:
            return None
        self._room(size)
        self._view = self.data[self.used : self.used + size]
        return self._view

    def add(self, j: int, rows: _Rows, narrow: np.ndarray | None = None) -> None:
        """Keep layer j's rows (its states in ``layer_states`` order), copied unless they
        were combined into this keeper's :meth:`buffer` (``rows.data``, or ``narrow``:
        the float32 rows written beside them)."""
        size = int(rows.off[-1])
        view = self._view
        if view is None or (rows.data is not view and narrow is not view):
            self._room(size)
            self.data[self.used : self.used + size] = rows.data
        st = self.layers[j]
        keys = (st.mask * self.flags + st.flag) * self.width + st.upper
        self.slot[keys] = self.rows + np.arange(rows.ln.size)
        self.slot[st.copy_dst] = self.slot[st.copy_src]
        self.parts.append((rows.off[:-1] + self.used, rows.ln, rows.pb, rows.py))
        self.used += size
        self.rows += rows.ln.size
        self._view = None


def _combine_chunked(
    start: np.ndarray, succ: np.ndarray, pts: np.ndarray, q: np.ndarray, rows: _Rows,
    new: _Rows, narrow: np.ndarray, threads: int, pace: Pace,
) -> None:  # fmt: skip
    """:func:`combine` of a layer into ``new`` (and, rounded, into ``narrow`` where it has
    entries) in chunks of states (Ctrl-C stops it between two; ``rows``: the next
    layer's), each chunk in ``threads`` shares of its states."""

    # more shares than threads, taken as threads come free: states differ in cost (their
    # outcomes and their successors' row lengths), so halves of a chunk did not finish
    # together (theta -0.05: 1.55 s wall for 2.51 CPU seconds)
    shares = threads * COMBINE_SHARES

    def part(lo: int, hi: int) -> None:
        def share(t: int) -> None:
            a = lo + (hi - lo) * t // shares
            b = lo + (hi - lo) * (t + 1) // shares
            combine(
                start[a : b + 1], succ, pts, q, *rows, new.off[a : b + 1], new.data,
                new.pb[a:b], new.py[a:b], narrow,
            )  # fmt: skip

        run_shares(share, shares)

    run_chunks(part, start.size - 1, align=shares, pace=pace)


def _stored_rows(st: StateArrays, first_turns: Any) -> _Rows | None:
    """The rows of the states ``st`` read from the stored first turns' rows
    (``first_turns``: ``pmf`` and ``rates`` of a turn-start state), as the pass would have
    combined them (the same numbers: the pass made them); None if one is not stored."""
    pmfs, pb, py = [], [], []
    for mask, flag, upper in zip(st.mask, st.flag, st.upper, strict=True):
        pmf, rates = first_turns.pmf(mask, flag, upper), first_turns.rates(mask, flag, upper)
        if pmf is None or rates is None:
            return None
        pmfs.append(pmf)
        pb.append(rates[0])
        py.append(rates[1])
    ln = np.array([p.size for p in pmfs], dtype=np.int64)
    off = np.zeros(ln.size + 1, dtype=np.int64)
    np.cumsum(ln, out=off[1:])
    data = np.concatenate(pmfs) if pmfs else np.zeros(0)
    return _Rows(off, ln, data, np.array(pb), np.array(py))


class _Outcomes(NamedTuple):
    """A layer's turn outcomes: state i's are ``start[i] .. start[i + 1] - 1``, each its
    successor (an index into the next layer's states), ``points * 4 + events`` and
    probability; from a position, ``reached``: the next layer's states (those outcomes
    lead to, in key order; none listed for every state's outcomes)."""

    start: np.ndarray
    succ: np.ndarray
    pts: np.ndarray
    q: np.ndarray
    reached: StateArrays


def _decode(keys: np.ndarray, flags: int, width: int) -> StateArrays:
    """Turn-start states from their flat keys ``(mask * flags + flag) * width + upper``."""
    mf, upper = np.divmod(keys, width)
    mask, flag = np.divmod(mf, flags)
    return StateArrays(mask, flag, upper)


def _listed(
    rules: YatzyRules, canon: tuple[np.ndarray, np.ndarray], mask: int, flag: int, upper: int
) -> bool:
    """Whether some play reaches the turn-start state (mask, flag, upper) (upper capped at
    the threshold): a filled mask of a layer, the flag only once the Yatzy box is filled
    where it is tracked, an upper total the filled upper boxes can make (``canon``:
    :func:`~diceopt.games.yatzy.kernel.layers.upper_canon`)."""
    sub, rep = canon
    ncat = rules.num_categories
    if not (0 <= mask < 1 << ncat and 0 <= flag < rules.flags and 0 <= upper < rep.shape[1]):
        return False
    if rules.forced_order and mask != (1 << bin(mask).count("1")) - 1:
        return False
    yz = rules.yahtzee_category
    if flag == 1 and not (yz >= 0 and (mask >> yz) & 1):
        return False
    return bool(rep[sub[mask], upper] >= 0)


def _pass(
    table: YatzyTable,
    position: tuple[int, int, int, int, int] | None,
    store: str | np.dtype = "float64",
    keep: int | None = None,
    early: int | None = None,
    first_turns: Any | None = None,
    keep_reached: bool = False,
) -> tuple[_Rows, int | None, list[_Keeper]]:
    """The pass over turn-start states, layer by layer (module docstring, steps 1-4).

    ``position`` ``(mask, flag, upper, roll, rerolls)``: first a forward pass from it
    records the turn outcomes of every state it reaches with positive probability (one
    policy each); the backward pass then combines the vectors of those states only and
    returns the position's layer (one row: the position). ``None``: every state of every
    layer, each layer's outcomes computed just before it is combined, and the rows of
    layers 0 .. ``keep`` (default: every layer) kept in ``store`` dtype
    (``state_distributions``: the ``_Keeper``), with ``early`` those of layers 0 ..
    ``early`` in float64 too (a second keeper, first in the list: combined into it, then
    copied into the other). Also returns the number of states combined and the keepers
    (none from a position, unless ``keep_reached``: one in float64 that keeps the rows of
    every state reached, bonus-dead copies left to the caller). From a position,
    ``first_turns`` (the stored first turns' rows, :func:`_stored_rows`): when they hold
    every state the position's turn leads to, only the position is combined, from them
    (the number of states returned: None).
    """
    rules = table.rules
    tab, K = table.policy_arrays, table.arrays64
    flags, width = tab.flags, tab.width
    ncat = rules.num_categories
    nkeys = (1 << ncat) * flags * width
    canon = upper_canon(rules)
    per_category = _category_outcomes(rules)
    threads = numba.get_num_threads()
    # every state of every layer (state_distributions); from a position only the states
    # its play reaches, layer by layer, found from the outcomes' keys (successor_index: no
    # list of every state, which Maxi Yatzy's 36.8 million make slow)
    layers = layer_states(rules) if position is None else []
    where = _layer_index(layers, nkeys, flags, width) if position is None else None
    slot = np.empty(nkeys if position is not None else 0, dtype=np.int32)  # any content
    unlisted = StateArrays(*[np.zeros(0, dtype=np.int64)] * 3)  # every state: not tracked

    # work arrays of the outcomes (key, successor, points, probability), reused from
    # layer to layer (fresh ones per layer cost as much in page faults as the rest)
    work: list[np.ndarray] = [np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int32)]
    work += [np.empty(0, dtype=np.int32), np.empty(0)]
    paces = (Pace(), Pace())  # chunks of the outcomes, of the combining

    def outcomes(st: StateArrays, roll: int = -1, t0: int = 2) -> _Outcomes:
        """Outcomes of states (views of the work arrays where ``position`` is None), in
        chunks of states (Ctrl-C stops between two), each packed after the one before;
        from a position with the states they lead to (``reached``)."""
        sm = st.mask
        bound_off = np.zeros(sm.size + 1, dtype=np.int64)
        np.cumsum(_outcome_bound(rules, per_category, sm), out=bound_off[1:])
        if work[0].size < bound_off[-1]:
            work[:] = [np.empty(int(bound_off[-1] * 1.25), dtype=w.dtype) for w in work]
        start = np.zeros(sm.size + 1, dtype=np.int64)

        def part(lo: int, hi: int) -> None:
            b0, at = int(bound_off[lo]), int(start[lo])
            o_key, o_succ, o_pts, o_q = (w[b0:] for w in work)
            local = layer_outcomes(
                StateArrays(sm[lo:hi], st.flag[lo:hi], st.upper[lo:hi]), roll, t0, tab, K,
                canon, where, bound_off[lo : hi + 1] - b0, o_key, o_succ, o_pts, o_q, threads,
                LANES,
            )  # fmt: skip
            m = int(local[-1])
            if at != b0:  # packed after the previous chunk's (numpy copes with the overlap)
                for w in work:
                    w[at : at + m] = w[b0 : b0 + m]
            start[lo + 1 : hi + 1] = at + local[1:]

        run_chunks(part, sm.size, align=threads * LANES, pace=paces[0])
        m = int(start[-1])
        if position is None:
            return _Outcomes(start, work[1][:m], work[2][:m], work[3][:m], unlisted)
        keys = np.empty(m, dtype=np.int64)
        n = successor_index(work[0][:m], slot, keys, work[1][:m])
        # the reached states in key order (a mask's states side by side: their turns read
        # the same successors' values; in the order they came, the pass took a tenth longer)
        order = np.argsort(keys[:n])
        index = np.empty(n, dtype=np.int32)
        index[order] = np.arange(n, dtype=np.int32)
        succ, pts, q = index[work[1][:m]], work[2][:m].copy(), work[3][:m].copy()
        return _Outcomes(start, succ, pts, q, _decode(keys[:n][order], flags, width))

    # each layer's states (from a position: those reached) and, from a position, their
    # outcomes (successors: indices into the next layer's states)
    states_of: dict[int, StateArrays] = {}
    outs: dict[int, _Outcomes] = {}
    stored: _Rows | None = None  # the rows of layer j0 + 1 from ``first_turns``
    if position is None:
        j0 = 0
        for j in range(ncat + 1):
            states_of[j] = StateArrays(layers[j].mask, layers[j].flag, layers[j].upper)
    else:
        mask, flag, upper, roll, rerolls = position
        j0 = bin(mask).count("1")
        if not _listed(rules, canon, mask, flag, upper):
            raise InputError(f"no reachable turn-start state mask {mask} flag {flag} upper {upper}")
        states_of[j0] = StateArrays(np.array([mask]), np.array([flag]), np.array([upper]))
        outs[j0] = outcomes(states_of[j0], roll, rerolls)
        if first_turns is not None and j0 + 1 < ncat:
            stored = _stored_rows(outs[j0].reached, first_turns)
        for j in range(j0 + 1, ncat + 1 if stored is None else j0 + 2):
            states_of[j] = outs[j - 1].reached
            if j < ncat and stored is None:
                outs[j] = outcomes(states_of[j])
    # the rows the combining starts from: the last layer's (nothing more to come), or
    # the stored ones of the layer after the position's
    top = ncat if stored is None else j0 + 1
    n = states_of[top].mask.size
    rows = stored or _Rows(
        np.arange(n + 1, dtype=np.int64),
        np.ones(n, dtype=np.int64),
        np.ones(n),
        np.zeros(n),
        np.zeros(n),
    )
    last = ncat if keep is None else min(keep, ncat)
    keepers = [] if position is not None else [_Keeper(rules, layers, store, last)]
    if position is not None and keep_reached and stored is None:
        none = np.zeros(0, dtype=np.int64)
        reached = [
            LayerStates(*states_of[j], none, none) if j in states_of else LayerStates(*[none] * 5)
            for j in range(ncat + 1)
        ]
        keepers = [_Keeper(rules, reached, "float64", ncat)]
    if keepers and early is not None and np.dtype(store) != np.float64:
        keepers.insert(0, _Keeper(rules, layers, "float64", min(early, last)))
    for kept in keepers:
        if kept.last == ncat:
            kept.add(ncat, rows)
    # float64 rows of layers j (even j, odd j) in two arrays reused from layer to layer,
    # allocated at a bound (pages are touched only as rows are written; fresh pages cost
    # about as much as the combining itself): layer j reads j + 1's and overwrites j + 2's
    most = [0, 0]
    for j in range(j0, top):
        st = states_of[j]
        bound = int(max_to_come(rules, st.mask, st.flag, st.upper).sum()) + st.mask.size
        most[j % 2] = max(most[j % 2], bound)
    pingpong = [np.empty(m) for m in most]
    states = n
    for j in range(top - 1, j0 - 1, -1):
        # a successor's row in ``rows``: its index among the next layer's states
        start, succ, pts, q, _ = outs.pop(j) if j in outs else outcomes(states_of[j])
        n = start.size - 1
        ln = support(start, succ, pts, rows.ln, threads)
        off = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(ln, out=off[1:])
        # combined into the first keeper that keeps this layer in float64, if any, and
        # written rounded into the first that keeps it in float32
        data = narrow = None
        for kept in keepers:
            if j <= kept.last:  # (a keeper of the other dtype hands out no buffer)
                data = data if data is not None else kept.buffer(int(off[-1]))
                narrow = narrow if narrow is not None else kept.buffer(int(off[-1]), np.float32)
        if data is None:
            if pingpong[j % 2].size < off[-1]:  # not reached: the bound holds (safety)
                pingpong[j % 2] = np.empty(int(off[-1]))
            data = pingpong[j % 2][: int(off[-1])]
        new = _Rows(off, ln, data, np.empty(n), np.empty(n))
        _combine_chunked(
            start, succ, pts, q, rows, new, NO_ROWS if narrow is None else narrow, threads,
            paces[1],
        )  # fmt: skip
        for kept in keepers:
            if j <= kept.last:
                kept.add(j, new, narrow)
        rows = new
        states += n
    return rows, (states if stored is None else None), keepers


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
    first_turns: Any | None = None,
) -> ScoreDistribution:
    """The exact final-score distribution from a position, under ``table``'s policy.

    The position: turn-start state (``mask`` of filled categories, Yahtzee-bonus
    ``flag``, capped ``upper`` total), the roll showing (``roll``: index among the
    sorted rolls, -1 before the turn's first roll) with ``rerolls`` left, ``base``
    points so far (None: the pmf is of the points still to come). ``bonus_done`` /
    ``yatzy_done``: the position already holds the upper bonus / a Yatzy 50 (for the
    rates). Defaults: the start of the game. Time: Scandinavian from the start visits
    451,969 states (a policy and a shifted vector sum per outcome each), 7-8.5 s on 2
    busy cores (load average 5); see ``benchmarks/yatzy_distribution.py``. With
    ``first_turns``, the stored first turns' rows (``YatzyConfig.first_turns``): when
    they hold every state the position's turn leads to, only the position's turn is
    combined, from them (the same numbers; ``states`` None). InputError if the game is
    over or no play reaches the state.
    """
    t0 = time.perf_counter()
    rules = table.rules
    T = rules.bonus_threshold
    upper = min(int(upper), T)
    if bin(mask).count("1") >= rules.num_categories:
        raise InputError("the game is over: every category is filled")
    with interruptible():  # Ctrl-C: between two chunks of states
        rows, states, _ = _pass(table, (mask, flag, upper, roll, rerolls), first_turns=first_turns)
    value = _value_of(table, mask, flag, upper, roll, rerolls)
    return _answer(
        table, rows.data[: rows.ln[0]].copy(), (float(rows.pb[0]), float(rows.py[0])), value,
        base, bonus_done, yatzy_done, t0, states,
    )  # fmt: skip


def _answer(
    table: YatzyTable, pmf: np.ndarray, rates: tuple[float, float], value: float,
    base: float | None, bonus_done: bool, yatzy_done: bool, t0: float, states: int | None,
) -> ScoreDistribution:  # fmt: skip
    """The distribution of a position from its row of points still to come (``pmf``, a
    fresh array), its bonus and Yatzy rates and the table's value of it: shifted by
    ``base`` points, trailing zeros cut, the rates of what the position already holds."""
    if base is not None:
        shift = int(round(base))
        pmf = np.concatenate([np.zeros(shift), pmf])
        value += shift
    nz = np.flatnonzero(pmf > 0)
    pmf = pmf[: nz[-1] + 1] if nz.size else pmf[:1]
    return ScoreDistribution(
        pmf,
        base,
        # rules without an upper bonus (e.g. Generala) never earn one, whatever upper
        # total the states track
        0.0 if table.rules.bonus <= 0 else 1.0 if bonus_done else rates[0],
        1.0 if yatzy_done else rates[1],
        value,
        theta=float(table.theta),
        seconds=time.perf_counter() - t0,
        states=states,
    )


@dataclass
class StateDistributions:
    """P(points still to come = x) from every turn-start state, under a table's policy.

    Row ``i`` is ``data[off[i] : off[i] + length[i]]``, x = 0 .. length[i] - 1 (points;
    the last entry is the most points still to come with positive probability);
    ``slot[(mask * flags + flag) * (T + 1) + min(upper, T)]`` is the row of a
    turn-start state (``T`` the bonus threshold; bonus-dead upper totals share a row;
    -1: no reachable state). ``bonus_rate[i]`` / ``yatzy_rate[i]``: probabilities that
    the upper bonus is reached / a Yatzy 50 is written from the state on. ``data`` is
    float64 or float32 (the rows are combined in float64 either way). ``seconds``: wall
    time of the pass. All arrays are plain numpy (int64 indices), for numba kernels.
    """

    slot: np.ndarray
    off: np.ndarray
    length: np.ndarray
    data: np.ndarray
    bonus_rate: np.ndarray
    yatzy_rate: np.ndarray
    flags: int
    threshold: int
    theta: float = 0.0
    seconds: float = 0.0
    early: StateDistributions | None = None  # float64 rows of the first layers (see early=)

    def key(self, mask: int, flag: int, upper: int) -> int:
        """The flat state key of (mask, flag, upper) (upper in points, capped here)."""
        return (int(mask) * self.flags + int(flag)) * (self.threshold + 1) + min(
            int(upper), self.threshold
        )

    def row(self, mask: int, flag: int, upper: int) -> int:
        """The row of a turn-start state; InputError if no reachable state has that key."""
        k = self.key(mask, flag, upper)
        i = int(self.slot[k]) if 0 <= k < self.slot.size and upper >= 0 else -1
        if i < 0:
            raise InputError(f"no reachable turn-start state mask {mask} flag {flag} upper {upper}")
        return i

    def pmf(self, mask: int, flag: int, upper: int) -> np.ndarray:
        """P(points still to come = x), x = 0, 1, .. (float64 copy of the state's row)."""
        i = self.row(mask, flag, upper)
        o = int(self.off[i])
        return self.data[o : o + int(self.length[i])].astype(np.float64)

    @property
    def states(self) -> int:
        """Number of rows (turn-start states computed; bonus-dead copies share one)."""
        return int(self.off.size)

    @property
    def nbytes(self) -> int:
        """Memory of the arrays (bytes)."""
        arrays = (self.slot, self.off, self.length, self.data, self.bonus_rate, self.yatzy_rate)
        return int(sum(a.nbytes for a in arrays))


def state_distributions(
    table: YatzyTable | SavedTable,
    *,
    dtype: str | np.dtype = "float64",
    filled: int | None = None,
    early: int | None = None,
) -> StateDistributions:
    """The distribution of the points still to come from every turn-start state that
    some play reaches (every state of every layer of ``layer_states``, bonus-dead
    copies included), under ``table``'s policy: the backward pass of
    :func:`distribution` keeping every layer (``filled``: only the states with at most
    that many categories filled; every state is still combined). ``dtype``: storage of
    the rows, float64 (default) or float32 (half the memory, values rounded to float32).
    ``early`` with float32 rows: the rows of the states with at most that many
    categories filled in float64 as well, as ``.early`` (what a float64 pass with
    ``filled=early`` gives, in the same pass). Scandinavian: 958,976 rows, 200.7 million
    values, 1.53 GB in float64 (0.77 GB in float32), 4-8 s on 2 cores.
    """
    table = expected_table(table, "the state distributions")
    t0 = time.perf_counter()
    dt = np.dtype(dtype)
    if dt not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise InputError(f"dtype must be float32 or float64, got {dtype}")
    with interruptible():  # Ctrl-C: between two chunks of states
        _, _, keepers = _pass(table, None, dt, filled, early)
    seconds = time.perf_counter() - t0
    out = [_kept_distributions(kept, table, seconds) for kept in keepers]
    if len(out) > 1:
        out[-1].early = out[0]
    return out[-1]


def reached_distributions(table: YatzyTable) -> StateDistributions:
    """The float64 rows of :func:`state_distributions` for the turn-start states that
    ``table``'s policy reaches from the start of the game with positive probability (and
    their bonus-dead copies), the same numbers bit for bit; the others have no row (slot
    -1). Every state a player of that policy meets, in the pass from the start
    (Scandinavian: 451,969 states combined against 958,975, about half the time and the
    memory)."""
    table = expected_table(table, "the state distributions")
    t0 = time.perf_counter()
    with interruptible():  # Ctrl-C: between two chunks of states
        _, _, keepers = _pass(table, (0, 0, 0, -1, 2), keep_reached=True)
    kept = keepers[0]
    for st in layer_states(table.rules):  # bonus-dead totals: their representative's row
        kept.slot[st.copy_dst] = kept.slot[st.copy_src]
    return _kept_distributions(kept, table, time.perf_counter() - t0)


def _kept_distributions(kept: _Keeper, table: YatzyTable, seconds: float) -> StateDistributions:
    """The rows a keeper holds as :class:`StateDistributions`."""
    off, length, pb, py = (np.concatenate(a) for a in zip(*kept.parts, strict=True))
    rules = table.rules
    return StateDistributions(
        kept.slot,
        off,
        length,
        kept.data[: kept.used],
        pb,
        py,
        rules.flags,
        rules.bonus_threshold,
        float(table.theta),
        seconds,
    )


def _value_of(table: YatzyTable, mask: int, flag: int, upper: int, roll: int, rerolls: int):
    """The table's value of the position (points still to come)."""
    if roll < 0:
        return float(table.widget(mask, flag, upper)[3])
    rv, _, _, _ = table.widget(mask, flag, upper)
    return float(rv[rerolls, roll])


def start_from_rows(table: YatzyTable, rows: Any) -> ScoreDistribution | None:
    """The final-score distribution from the start of the game read from ``rows``, the
    stored first turns' rows under ``table`` (:meth:`pmf` and :meth:`rates` of a turn-start
    state, as ``YatzyConfig.first_turns`` gives them): :func:`state_distributions` made
    them, so they are :func:`distribution`'s numbers bit for bit (``states`` None: no pass
    ran). None when they lack the start."""
    t0 = time.perf_counter()
    pmf, rates = rows.pmf(0, 0, 0), rows.rates(0, 0, 0)
    if pmf is None or rates is None:
        return None
    value = _value_of(table, 0, 0, 0, -1, 2)
    return _answer(table, pmf, rates, value, 0.0, False, False, t0, None)


def position_distribution(
    table: YatzyTable | SavedTable, pos: Any | None = None, first_turns: Any | None = None
) -> ScoreDistribution:
    """The distribution from an advice ``Position`` (None: the start of the game, read
    from ``first_turns`` when given and holding it: :func:`start_from_rows`; a position
    whose turn leads to states they hold: its turn combined from them)."""
    from diceopt.games.yatzy.play.advice import dice_counts, state_of, validate

    table = expected_table(table, "the distribution")
    rules = table.rules
    if pos is None:
        stored = None if first_turns is None else start_from_rows(table, first_turns)
        return stored if stored is not None else distribution(table)
    validate(pos, rules)
    if pos.over(rules):
        raise InputError("the game is over: every category is filled")
    mask, flag, upper = state_of(pos, rules)
    lat = rules.lattice
    roll = int(lat.index(dice_counts(pos.dice, rules.sides))) - int(lat.offset[rules.dice])
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
        first_turns=first_turns,
    )


def warm_up(dtype: str | np.dtype = "float32", table: YatzyTable | None = None) -> float:
    """Compile (or load from numba's cache) the distribution kernels for tables of
    ``dtype`` (a small American variant: jokers and the Yahtzee bonus); seconds. With
    ``table``: the distribution of its last turn from a state with every upper box
    scratched, when the rules reach one (what a distribution of it loads, without the
    solver's code), else the small variant's."""
    from diceopt.games.yatzy.kernel.solve import solve_table
    from diceopt.games.yatzy.rulebook.variants import AMERICAN

    t0 = time.perf_counter()
    if table is not None:
        rules = table.rules
        full = (1 << rules.num_categories) - 1
        lower = [c for c in range(rules.num_categories) if rules.upper_face[c] < 0]
        if lower:
            try:
                distribution(table, mask=full & ~(1 << lower[-1]))
                return time.perf_counter() - t0
            except InputError:
                pass
    tiny = AMERICAN.reduced(("ones", "full_house", "yahtzee"), bonus_threshold=3)
    table = solve_table(tiny, dtype=dtype)
    distribution(table)
    distribution(table, mask=1, upper=2, roll=3, rerolls=1, base=2.0)
    return time.perf_counter() - t0


def run_distribution(config: Any, args: Any) -> CommandOutput:
    """``diceopt yatzy distribution [POSITION]``: the exact final-score distribution."""
    from diceopt.games.yatzy.play.advice import format_position, parse_position
    from diceopt.output import check_plot_path, write_plot

    check_plot_path(args.plot)
    rules = config.rules
    pos = parse_position(args.position, rules) if args.position else None
    table = config.table()
    # stored: the start read, a position's turn from them (--force: none)
    first_turns = config.distribution_rows(pos, args.force)
    read = pos is None and first_turns is not None  # no kernel runs
    compile_seconds = 0.0 if read else warm_up(config.dtype, table)
    try:
        dist = position_distribution(table, pos, first_turns)
    except MemoryError:
        raise InputError(
            f"not enough memory for the {config.variant} distribution from this position: "
            "give a later one (more categories filled)"
        ) from None
    config.keep_start(pos, dist)
    where = "the start" if pos is None else format_position(pos, rules)
    if args.plot:
        title = f"{config.variant}: exact distribution from {where}"
        if config.theta:
            title += f" (theta {config.theta:g})"
        write_plot(lambda out: distribution_png(dist, out, title[:90]), args.plot)
    data = {
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
    what = "expected score" if config.theta == 0 else f"theta {config.theta:g}"
    lines = [
        f"{config.variant}, exact distribution from {where}",
        f"policy: the {config.dtype} table's ({what}); table value {dist.value:.6f} points",
        *(f"  {line}" for line in summary_lines(dist, rules.yatzy_box)),
        f"  {dist.states:,} states in {dist.seconds:.2f} s (compile {compile_seconds:.2f} s)"
        if dist.states is not None
        else f"  from the stored rows in {dist.seconds:.2f} s"
        + ("" if read else f" (compile {compile_seconds:.2f} s)"),
    ]
    if args.plot:
        lines.append(f"plot written to {args.plot}")
    return CommandOutput(data, lines)
