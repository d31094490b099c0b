"""Target tables: the highest probability of scoring at least k more points.

Role: for every turn-start state ``(mask, flag, upper)`` (as in
:mod:`diceopt.games.yatzy.kernel.solve`) and every number of points still needed
``k = 0 .. kmax``, the highest achievable P(points still to come >= k) (bonuses
included), in one row per state up to its most points to come (:func:`table_layout`).
One table answers every target: a target K with score s so far needs k = K - s. The
values at k depend only on those at k' <= k, so a table truncated to K is exact up to K.
Stored, read and advised from in :mod:`diceopt.games.yatzy.winning.target_advice`.

Score cap (``kmax`` of the full table, :func:`table_kmax`): the variant's most points
(``rules.max_total``: 374 in Scandinavian, 1575 in American Yahtzee with twelve Yahtzee
bonuses), at most :data:`TABLE_KMAX` = 2000 points (a rule file's table above it holds
k <= 2000, and a target needing more is solved on demand from the position,
:func:`solve_target_from`, exact). In rows up to each state's most points to come,
American Yahtzee's table for every k is 209.9M values (0.84 GB of float32; a dense
array would be 6.6 GB). Targets above ``rules.max_total`` or below 0 are refused
(:func:`check_target`).

Method: the expected-value solver's backward induction over layers, with lanes over k
instead of over states:

1. Layer by layer, last turn first (:func:`~diceopt.games.yatzy.kernel.layers.iter_layer_states`).
2. Per state, its k range up to its most points still to come (:func:`max_to_come`).
3. The layer's states through the target turn (:mod:`diceopt.games.yatzy.kernel.target_turn`),
   in chunks of states called from Python so that Ctrl-C stops a solve between two.

Work skipped, exactly: values at k above a state's most points still to come
(:func:`max_to_come`: every open category at its maximum, the upper bonus only while
those maxima reach the threshold, the Yahtzee bonus only where it can be earned) are
0 and not computed; P = 1 at k <= 0 is not stored but read as such; entries of
unreachable states are 0 and never touched; under the forced order the table has a
row per reachable mask only (:func:`mask_rows`). A single target from one position
(:func:`solve_target_from`) visits only the states whose filled mask contains the
position's (upper total and Yahtzee flag not below its own) and, per state, only k up
to the target less the least points scored on the way (:func:`_gain_floor`), stored in
rows of their own length (:class:`TargetRows`); for that one target alone
(``only_target``, as the advice asks), not below the target less the most points
scored on the way (:func:`_gain_ceiling`) either: the values there are not computed and
their reads refused. Within a state's k range, only the
band where the values it reads differ from k to k is computed: at the k where every
successor value read is exactly 0, or where each roll has a write reading exactly 1,
the state's values are all the same, so the band's end is copied there
(:func:`empty_bands`; Scandinavian: 18% of the values are exactly 1, none exactly 0).

Precision: tables are float32 (default) or float64; the advice computes one turn in
float64.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numba
import numpy as np

from diceopt.blocks import BlockCheck
from diceopt.errors import InputError
from diceopt.games.yatzy.kernel.arrays import KernelArrays, kernel_arrays, read_only
from diceopt.games.yatzy.kernel.layers import iter_layer_states, layer_masks, max_to_come
from diceopt.games.yatzy.kernel.target_turn import margin, set_bands, target_layer, target_turn
from diceopt.games.yatzy.rulebook.rules import YatzyRules
from diceopt.interrupt import Pace, interruptible, run_chunks
from diceopt.memory import zeroed

LANES = 384  # most values of k per batch (measured best: the work arrays fill the L2 cache)


TABLE_KMAX = 2000  # most points still needed a full table holds (see table_kmax)


def table_kmax(rules: YatzyRules) -> int:
    """The largest k (points) a variant's full table holds: ``rules.max_total`` (every
    built-in variant's), at most :data:`TABLE_KMAX` (a bound on a rule file's table)."""
    return min(int(rules.max_total), TABLE_KMAX)


def _gain_floor(
    rules: YatzyRules, start: tuple[int, int, int], mask: np.ndarray, flag: np.ndarray,
    u: np.ndarray,
) -> np.ndarray:  # fmt: skip
    """A lower bound on the points scored from turn-start state ``start`` to each state
    (the upper total's growth, the upper bonus, the Yahtzee box's 50, the least each
    newly filled lower category scores). It grows by at most a move's points, so a state
    reached from ``start`` with k points still needed never needs more than
    ``k - floor`` (vectorised, points)."""
    m0, f0, u0 = start
    T = rules.bonus_threshold
    low = np.minimum(rules.score, rules.joker_score).min(axis=0).astype(np.int64)
    out = np.maximum(u - u0, 0)
    if u0 < T:
        out += np.where(u >= T, rules.bonus, 0)
    if rules.tracks_yahtzee and f0 == 0:
        out += np.where(flag == 1, int(rules.category_max[rules.yahtzee_category]), 0)
    for c in range(rules.num_categories):
        if rules.upper_face[c] < 0 and low[c] > 0 and not (m0 >> c) & 1:
            out += np.where((mask >> c) & 1, low[c], 0)
    return out


def _ceiling_known(rules: YatzyRules) -> bool:
    """Whether no box scores beyond its listed points (no served scores, no Yahtzee or
    Kniffel bonus): :func:`_gain_ceiling` bounds the points scored then."""
    return not (rules.has_served or rules.american_bonus or rules.upper_bonus)


def _box_most(rules: YatzyRules) -> np.ndarray:
    """The most points each box can score (normal or joker; int64 per category)."""
    return np.maximum(rules.score, rules.joker_score).max(axis=0).astype(np.int64)


def _new_boxes_most(
    rules: YatzyRules, start: tuple[int, int, int], mask: np.ndarray, upper: bool
) -> np.ndarray:
    """Per state, the most points of the boxes filled since ``start``: its upper boxes
    (``upper``) or its lower ones (vectorised, points)."""
    most = _box_most(rules)
    out = np.zeros(mask.size, dtype=np.int64)
    for c in range(rules.num_categories):
        if not (start[0] >> c) & 1 and (rules.upper_face[c] >= 0) == upper:
            out += ((mask >> c) & 1) * most[c]
    return out


def _gain_ceiling(
    rules: YatzyRules, start: tuple[int, int, int], mask: np.ndarray, u: np.ndarray,
    upper_most: np.ndarray,
) -> np.ndarray:  # fmt: skip
    """An upper bound on the points scored from turn-start state ``start`` to each state
    (the mirror of :func:`_gain_floor`: the upper total's growth, or, once it is capped,
    the most of the newly filled upper boxes; the upper bonus; the most of the newly
    filled lower boxes): a game from ``start`` needing k points reaches a state needing
    at least ``k - ceiling``, and the bound grows by at least a move's points (rules with
    :func:`_ceiling_known`; states with :func:`_upper_possible`; vectorised, points;
    ``upper_most``: :func:`_new_boxes_most` of the upper boxes)."""
    T, u0 = rules.bonus_threshold, start[2]
    up = np.where(u < T, u - u0, upper_most)
    bonus = np.where(u >= T, rules.bonus, 0) if u0 < T else 0
    return up + bonus + _new_boxes_most(rules, start, mask, False)


def _upper_possible(
    rules: YatzyRules, start: tuple[int, int, int], u: np.ndarray, upper_most: np.ndarray
) -> np.ndarray:
    """Whether the upper boxes filled since ``start`` (their most points ``upper_most``)
    can account for a state's upper total (a solve from a mid-game start also holds
    states of its own layer with more upper points, which no game from it reaches)."""
    T, u0 = rules.bonus_threshold, start[2]
    gained = np.where(u < T, u - u0, max(T - u0, 0))
    return gained <= upper_most


def mask_rows(rules: YatzyRules) -> np.ndarray:
    """Row of each filled mask in a full table (first axis of ``values``), -1 for a mask
    no game reaches: every mask in order, or only the masks of the categories' order
    (forced order: row j for the first j filled), so the table holds no unreachable row."""
    c = rules.num_categories
    if not rules.forced_order:
        return np.arange(1 << c, dtype=np.int64)
    rows = np.full(1 << c, -1, dtype=np.int64)
    for j, masks in enumerate(layer_masks(rules)):
        rows[masks] = j
    return rows


def table_shape(rules: YatzyRules, kmax: int) -> tuple[int, int, int, int]:
    """Shape of a full target table holding k = 0 .. ``kmax``: (reachable masks, flags,
    upper totals, values of k)."""
    nrows = int((mask_rows(rules) >= 0).sum())
    return (nrows, rules.flags, rules.bonus_threshold + 1, kmax + 1)


def row_keys(rules: YatzyRules, keys: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """State keys ``(mask * flags + flag) * (T + 1) + u`` as row indices of a table laid
    out by ``rows`` (:func:`mask_rows`)."""
    fw = rules.flags * (rules.bonus_threshold + 1)
    return rows[keys // fw] * fw + keys % fw


def table_layout(rules: YatzyRules, kmax: int) -> tuple[np.ndarray, np.ndarray]:
    """``off``, ``top`` of a full table over every state key ``(mask * flags + flag) *
    (T + 1) + u``: a state's values at k = 0 .. ``top[key]`` (its most points to come, at
    most ``kmax``) start at ``off[key]``, the states of the last layer first; a
    bonus-dead state shares the row of the state it equals (``copy_src``); keys of no
    layer have ``top`` -1 (P = 1 at k <= 0, else 0; never read by the kernels). The
    values need ``(off + top + 1).max()`` entries (Scandinavian: 200.7M, 0.8 GB of
    float32, where a dense ``[mask, flag, upper, k]`` array takes 3.15 GB)."""
    width = rules.bonus_threshold + 1
    nkeys = (1 << rules.num_categories) * rules.flags * width
    off = np.zeros(nkeys, dtype=np.int64)
    top = np.full(nkeys, -1, dtype=np.int64)
    cursor = 0
    for st in iter_layer_states(rules, reverse=True):
        keys = (st.mask * rules.flags + st.flag) * width + st.upper
        tops = np.minimum(max_to_come(rules, st.mask, st.flag, st.upper), kmax)
        off[keys] = cursor + np.concatenate(([0], np.cumsum(tops + 1)[:-1]))
        top[keys] = tops
        cursor += int((tops + 1).sum())
        off[st.copy_dst] = off[st.copy_src]
        top[st.copy_dst] = top[st.copy_src]
    return off, top


def reached_keys(rules: YatzyRules) -> np.ndarray | None:
    """The state keys of the filled masks a game reaches, in order (a stored table holds
    their row offsets only), or None where that is every key (any order of categories)."""
    if not rules.forced_order:
        return None
    fw = rules.flags * (rules.bonus_threshold + 1)
    masks = np.flatnonzero(mask_rows(rules) >= 0)
    return (masks[:, None] * fw + np.arange(fw, dtype=np.int64)).reshape(-1)


def check_layout(
    values: np.ndarray, off: np.ndarray, top: np.ndarray, nkeys: int, kmax: int
) -> str:
    """Why ``values`` / ``off`` / ``top`` (as a stored table holds them) must not be read,
    or "" when every key's values lie within ``values`` (one row of values) and there is
    one int64 offset and top per state key, ``top`` in -1 .. ``kmax``."""
    if values.ndim != 1:
        return f"its values are {values.ndim}-D, expected one row"
    if off.shape != (nkeys,) or top.shape != (nkeys,):
        return f"it holds {off.size} row offsets, expected {nkeys}"
    if off.dtype != np.int64 or top.dtype != np.int64:
        return "its row offsets are not int64"
    if nkeys and (int(top.min()) < -1 or int(top.max()) > kmax or int(off.min()) < 0):
        return "a row offset is out of range"
    if nkeys and int((off + top + 1).max()) > values.size:
        return "a row runs past the values"
    return ""


def _spans(off: np.ndarray, top: np.ndarray, keys: np.ndarray, width: int) -> tuple:
    """For some keys: the flat indices of their values (k = 0 .. top) and where those sit
    in ``(len(keys), width)`` rows (row-major positions)."""
    cols = np.arange(width, dtype=np.int64)
    held = cols[None, :] <= top[keys][:, None]
    return (off[keys][:, None] + cols)[held], np.flatnonzero(held)


SPAN_KEYS = 8192  # state keys per step of rows_of / put_rows (bounds their index arrays)


def rows_of(
    data: np.ndarray, off: np.ndarray, top: np.ndarray, keys: np.ndarray, width: int
) -> np.ndarray:
    """The values of some state keys as ``(len(keys), width)`` rows, 0 above each key's
    top (the rows of a dense table)."""
    rows = np.zeros((keys.size, width), dtype=data.dtype)
    for lo in range(0, keys.size, SPAN_KEYS):
        src, at = _spans(off, top, keys[lo : lo + SPAN_KEYS], width)
        rows[lo : lo + SPAN_KEYS].reshape(-1)[at] = data[src]
    return rows


def put_rows(
    data: np.ndarray, off: np.ndarray, top: np.ndarray, keys: np.ndarray, rows: np.ndarray
) -> None:
    """Write ``(len(keys), width)`` rows of some state keys into ``data`` (k <= top)."""
    for lo in range(0, keys.size, SPAN_KEYS):
        dst, at = _spans(off, top, keys[lo : lo + SPAN_KEYS], rows.shape[1])
        data[dst] = rows[lo : lo + SPAN_KEYS].reshape(-1)[at]


@dataclass
class TargetTable:
    """The highest P(points still to come >= k), k = 0 .. ``kmax`` (points), for every
    turn-start state: state key ``key = (mask * flags + flag) * (T + 1) + upper`` holds its
    values at ``data[off[key] + k]`` for k <= ``top[key]`` (its most points to come), 0
    above (:func:`table_layout`; ``data`` possibly a read-only memory map). Read through
    :meth:`probability`, :meth:`turn`, :attr:`flat` or :meth:`dense`. ``seconds``: solve
    time; ``states``: states solved. ``check``: a stored table loaded with lazy checks
    (see :func:`load_targets`): :meth:`probability` and :meth:`turn` check the blocks
    they read; call :meth:`verify` before reading ``data`` directly."""

    rules: YatzyRules
    data: np.ndarray
    off: np.ndarray
    top: np.ndarray
    kmax: int
    seconds: float = 0.0
    states: int = 0
    check: BlockCheck | None = None

    def verify(self) -> None:
        """Check every block of a lazily loaded table (TableFileError if one is bad)."""
        if self.check is not None:
            self.check.check_all()

    @property
    def nbytes(self) -> int:
        """Bytes of the values and their row offsets as stored (under the forced order
        only the keys of the masks a game reaches: :func:`reached_keys`)."""
        reached = reached_keys(self.rules)
        keys = self.off.size if reached is None else reached.size
        return int(self.data.nbytes + keys * (self.off.itemsize + self.top.itemsize))

    @cached_property
    def _rows(self) -> np.ndarray:
        return mask_rows(self.rules)

    def row(self, mask: int) -> int:
        """The rank of a filled mask among those a game reaches (InputError if none
        does): the mask itself, or its rank in the categories' order under the forced
        order (:func:`mask_rows`)."""
        r = int(self._rows[mask]) if 0 <= mask < self._rows.size else -1
        if r < 0:
            raise InputError(f"no game of {self.rules.name} reaches these filled categories")
        return r

    def _key(self, mask: int, flag: int, upper: int) -> int:
        width = self.rules.bonus_threshold + 1
        return (mask * self.rules.flags + flag) * width + min(upper, width - 1)

    def _check_masks(self, masks: list[int]) -> None:
        """Check the blocks holding every state of these filled masks (masks no game
        reaches are never read)."""
        if self.check is None:
            return
        fw = self.rules.flags * (self.rules.bonus_threshold + 1)
        size = self.data.itemsize
        for m in sorted(set(masks)):
            if self._rows[m] < 0:
                continue
            off, top = self.off[m * fw : (m + 1) * fw], self.top[m * fw : (m + 1) * fw]
            held = top >= 0
            if held.any():
                lo, hi = int(off[held].min()), int((off + top + 1)[held].max())
                self.check.check(lo * size, hi * size)

    def probability(self, mask: int, flag: int, upper: int, k: int) -> float:
        """P(points still to come >= k) from a turn-start state under target-optimal play."""
        if k <= 0:
            return 1.0
        if k > self.kmax:
            raise InputError(f"this table holds targets up to {self.kmax} points, not {k}")
        self.row(mask)
        self._check_masks([mask])
        key = self._key(mask, flag, upper)
        if k > self.top[key]:
            return 0.0
        return float(self.data[self.off[key] + k])

    @property
    def flat(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(data, off, top)`` read-only: what the kernels read."""
        data, off, top = read_only(self.data, self.off, self.top)
        return data, off, top

    def dense(self) -> np.ndarray:
        """The table as a dense ``values[row, flag, upper, k]`` array (:func:`table_shape`,
        ``row`` as :meth:`row`; 0 above a state's top and for states no game reaches):
        for comparisons; a full Scandinavian table makes 3.15 GB of float32."""
        V = np.zeros(table_shape(self.rules, self.kmax), dtype=self.data.dtype)
        Vf = V.reshape(-1, self.kmax + 1)
        rows = mask_rows(self.rules)
        keys = np.flatnonzero(self.top >= 0)
        keys = keys[rows[keys // (self.rules.flags * (self.rules.bonus_threshold + 1))] >= 0]
        for lo in range(0, keys.size, SPAN_KEYS):
            part = keys[lo : lo + SPAN_KEYS]
            Vf[row_keys(self.rules, part, rows)] = rows_of(
                self.data, self.off, self.top, part, self.kmax + 1
            )
        return V

    @cached_property
    def kernel(self) -> KernelArrays:
        """The variant's :class:`KernelArrays` in float64 (what :meth:`turn` reads; built
        once per table)."""
        return kernel_arrays(self.rules, np.float64)

    def turn(
        self, mask: int, flag: int, upper: int, k: int, first: bool = False
    ) -> tuple[np.ndarray, np.ndarray, float]:
        """:func:`target_turn` for one state and k (probabilities; k <= kmax; ``first``:
        the categories written straight after the first roll)."""
        self._check_masks(
            [mask | 1 << c for c in range(self.rules.num_categories) if not mask >> c & 1]
        )
        return _turn(self, self.kernel, mask, flag, upper, k, first)


def _turn(
    rows: TargetTable | TargetRows, K: KernelArrays, mask: int, flag: int, upper: int, k: int,
    first: bool,
) -> tuple[np.ndarray, np.ndarray, float]:  # fmt: skip
    """:func:`target_turn` read from a table's or rows' values (k clamped to 0 .. kmax,
    the upper total to the threshold; ``K`` float64)."""
    kk = max(0, min(int(k), rows.kmax))
    u = min(upper, rows.rules.bonus_threshold)
    return target_turn(mask, flag, u, kk, *rows.flat, rows.rules.flags, K, margin(K), bool(first))


@dataclass
class TargetRows:
    """The values one target from one state needs (:func:`solve_target_from`): state key
    ``key`` = (mask * flags + flag) * (T + 1) + upper holds P(points still to come >= k)
    for k = 0 .. ``top[key]`` at ``data[off[key] + k]`` (0 above its most points to come;
    unknown above ``top`` where that is less). Exact for ``start`` and k <= ``kmax``.
    ``seconds``: solve time; ``states``: states solved; ``pairs``: (state, k) values."""

    rules: YatzyRules
    data: np.ndarray
    off: np.ndarray
    top: np.ndarray
    kmax: int
    start: tuple[int, int, int]
    seconds: float = 0.0
    states: int = 0
    pairs: int = 0
    kmin: np.ndarray | None = None  # only_target: per key, the least k it holds exactly

    @property
    def flat(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(data, off, top)``: what the kernels read, as :attr:`TargetTable.flat`."""
        data, off, top = read_only(self.data, self.off, self.top)
        return data, off, top

    def _key(self, mask: int, flag: int, upper: int, k: int) -> int:
        """The state's key; InputError where the rows of one target do not hold k there
        (more points than its filled boxes can have scored since the start)."""
        u = min(upper, self.rules.bonus_threshold)
        key = (mask * self.rules.flags + flag) * (self.rules.bonus_threshold + 1) + u
        if self.kmin is not None and 0 < k < int(self.kmin[key]):
            raise InputError(
                f"{k} points still needed is fewer than this position can need on the way "
                f"to {self.kmax} from the start: more points than its boxes can hold"
            )
        return key

    def probability(self, mask: int, flag: int, upper: int, k: int) -> float:
        """P(points still to come >= k) from a state the solve covered (k <= its top)."""
        if k <= 0:
            return 1.0
        key = self._key(mask, flag, upper, k)
        if k > self.top[key]:
            return 0.0
        return float(self.data[self.off[key] + k])

    def turn(
        self, mask: int, flag: int, upper: int, k: int, first: bool = False
    ) -> tuple[np.ndarray, np.ndarray, float]:
        """:func:`target_turn` for the start state (or a later one) and k <= kmax
        (``first``: the categories written straight after the first roll)."""
        self._key(mask, flag, upper, k)
        return _turn(self, kernel_arrays(self.rules, np.float64), mask, flag, upper, k, first)


def check_dtype(dtype: str | np.dtype) -> np.dtype:
    dt = np.dtype(dtype)
    if dt not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise InputError(f"dtype must be float32 or float64, got {dtype}")
    return dt


def _solve_layer(
    rules: YatzyRules, st_mask: np.ndarray, st_flag: np.ndarray, st_u: np.ndarray,
    Vd: np.ndarray, off: np.ndarray, top: np.ndarray, K: KernelArrays, lanes: int,
    band: tuple[np.ndarray, np.ndarray], pace: Pace | None = None,
    kmin: np.ndarray | None = None,
) -> None:  # fmt: skip
    """Solve one layer's states into ``Vd`` (see :func:`target_layer`; ``band``: the
    states' ``(lo, hi)``, see :func:`empty_bands`; ``kmin``: per key the least k read, see
    :func:`solve_target_from`), in chunks of states so that Ctrl-C stops it between two
    (:func:`diceopt.interrupt.run_chunks`)."""
    threads = numba.get_num_threads()
    blocks = 8 * threads
    S = margin(K)
    least = np.zeros(0, dtype=np.int16) if kmin is None else kmin

    def solve(lo: int, hi: int) -> None:
        target_layer(
            st_mask[lo:hi], st_flag[lo:hi], st_u[lo:hi], Vd, off, top, rules.flags, K, S,
            lanes, blocks, band[0], band[1], least,
        )  # fmt: skip

    run_chunks(solve, st_mask.size, align=blocks, pace=pace)


def empty_bands(nkeys: int) -> tuple[np.ndarray, np.ndarray]:
    """Per state key ``(lo, hi)`` (int16): its values at k = 1 .. lo are exactly 1 (lo =
    -1: its value at k = 1 exceeds 1), above hi exactly 0 (both 0 until solved: a state
    never solved holds 0 at every k >= 1).
    The target kernels compute a state only where the values it reads differ from k to
    k (:func:`~diceopt.games.yatzy.kernel.target_turn._target_state`) and copy the rest:
    the same values, bit for bit."""
    return np.zeros(nkeys, dtype=np.int16), np.zeros(nkeys, dtype=np.int16)


def solve_targets(
    rules: YatzyRules,
    *,
    kmax: int | None = None,
    dtype: str | np.dtype = "float32",
    lanes: int = LANES,
    progress: Callable[[int, int], None] | None = None,
    alloc: Callable[[int, np.dtype], np.ndarray] = zeroed,
) -> TargetTable:
    """The target table of a variant for k = 0 .. ``kmax`` points (default
    :func:`table_kmax`: every target the table holds). ``dtype`` float32 or float64;
    ``progress(done, total)`` after each layer; Ctrl-C stops it within a fraction of a
    second (KeyboardInterrupt). Memory: one value per state and k up to its most points
    to come (:func:`table_layout`; Scandinavian: 0.8 GB of float32) and two int64 row
    offsets per state key. ``alloc(n, dtype)``: the values' array, zeros (default: in
    memory with every page present, :func:`diceopt.memory.zeroed`; or in the pages of
    the file that will store it, :class:`diceopt.storage.MappedDraft`)."""
    dt = check_dtype(dtype)
    top_k = table_kmax(rules) if kmax is None else int(kmax)
    if top_k < 0 or top_k > rules.max_total:
        raise InputError(f"the target must be between 0 and {rules.max_total} points, got {top_k}")
    t0 = time.perf_counter()
    K = kernel_arrays(rules, dt)
    c = rules.num_categories
    width = rules.bonus_threshold + 1
    off, top = table_layout(rules, top_k)
    data = alloc(int((off + top + 1).max()), dt)
    layers = iter_layer_states(rules, reverse=True)
    last = next(layers)  # every category filled: P(>= 0) = 1, else 0
    data[off[(last.mask * rules.flags + last.flag) * width + last.upper]] = 1.0
    states = last.mask.size
    band = empty_bands(off.size)  # the last layer: 0 at every k >= 1
    pace = Pace()
    with interruptible():
        for j, st in zip(range(c - 1, -1, -1), layers, strict=True):
            _solve_layer(rules, st.mask, st.flag, st.upper, data, off, top, K, lanes, band, pace)
            for b in band:
                b[st.copy_dst] = b[st.copy_src]
            states += st.mask.size
            if progress is not None:
                progress(c - j, c)
    return TargetTable(rules, data, off, top, top_k, time.perf_counter() - t0, states)


def solve_target_from(
    rules: YatzyRules,
    mask: int,
    flag: int,
    upper: int,
    k: int,
    *,
    dtype: str | np.dtype = "float32",
    lanes: int = LANES,
    progress: Callable[[int, int], None] | None = None,
    draw: bool = False,
    alloc: Callable[[int, np.dtype], np.ndarray] = zeroed,
    only_target: bool = False,
) -> TargetRows:
    """P(points still to come >= k) from turn-start state (mask, flag, upper) and what its
    turn needs: only the states after it (filled mask containing ``mask``, flag and upper
    total not below its own) and, per state, only k up to ``k`` less the least points
    scored on the way there (:func:`_gain_floor`) and up to its most points to come.
    ``progress(done, total)`` after each layer. Memory: one value per (state, k) solved.

    ``draw``: the draw-aware table instead, the highest P(points to come >= k) + 1/2
    P(points to come = k - 1) (k points to beat a finished opponent, k - 1 to tie): the
    same recursion with the end of the game worth 1/2 at k = 1 (a tie) instead of 0.
    ``alloc``: as for :func:`solve_targets`.

    ``only_target``: rows for this one k from the start state only (the advice of one
    target): a state needs no k below ``k`` less the most points scored on the way there
    (:func:`_gain_ceiling`), so below that its values are not computed (Scandinavian
    from the start, k = 250: 55% of the values); the rows' ``kmin`` says so and their
    reads refuse a k below it. Rules where a box can score beyond its listed points
    (:func:`_ceiling_known`) solve every k as without it."""
    dt = check_dtype(dtype)
    most = rules.max_total + (1 if draw else 0)
    if k < 0 or k > most:
        raise InputError(f"the target must be between 0 and {most} points, got {k}")
    if only_target and draw:
        raise ValueError("the draw-aware rows serve every k: not only_target")
    t0 = time.perf_counter()
    T = rules.bonus_threshold
    width = T + 1
    u0 = min(int(upper), T)
    start = (int(mask), int(flag), u0)
    faces = rules.upper_face
    up_max = rules.category_max.astype(np.int64)
    nkeys = (1 << rules.num_categories) * rules.flags * width
    off = np.zeros(nkeys, dtype=np.int64)
    top = np.zeros(nkeys, dtype=np.int64)
    plan = []
    copies: list[tuple[np.ndarray, np.ndarray]] = []  # per layer solved: bands to copy
    ends: list[np.ndarray] = []  # draw: the keys of the rows of the game's end
    cursor = 0
    full = (1 << rules.num_categories) - 1
    kmin = np.zeros(nkeys, dtype=np.int16) if only_target and _ceiling_known(rules) else None
    # only the masks that contain the start's (Maxi Yatzy from 8 boxes filled: 4,096 of
    # its million; every state's arrays took 11 of the 16 s a target from there took)
    for st in iter_layer_states(rules, reverse=True, within=int(mask)):
        if not st.mask.size:
            break  # the layers before the start's
        sup = st.flag >= flag
        up_left = np.zeros(st.mask.size, dtype=np.int64)
        for c in range(rules.num_categories):
            if faces[c] >= 0:
                up_left += np.where((st.mask >> c) & 1, 0, up_max[c])
        dead = st.upper + up_left < T
        reach = (st.upper >= u0) & ((u0 < T) | (st.upper == T))
        need = k - _gain_floor(rules, start, st.mask, st.flag, st.upper)
        bound = max_to_come(rules, st.mask, st.flag, st.upper) + (1 if draw else 0)
        last = np.minimum(need, bound)
        keep = sup & (reach | (dead & (u0 < T))) & (last >= 1)
        sm, sf, su, sl = st.mask[keep], st.flag[keep], st.upper[keep], last[keep]
        keys = (sm * rules.flags + sf) * width + su
        off[keys] = cursor + np.concatenate(([0], np.cumsum(sl + 1)[:-1]))
        top[keys] = sl
        cursor += int((sl + 1).sum())
        dst, src = st.copy_dst, st.copy_src  # (their masks contain the start's too)
        off[dst] = off[src]
        top[dst] = top[src]
        if kmin is not None:
            kmin[keys] = _least_k(rules, start, k, sm, su, sl)
            # a shared row holds the least k of every state sharing it
            least = _least_k(rules, start, k, dst // width // rules.flags, dst % width, top[dst])
            np.minimum.at(kmin, src, least)
            kmin[dst] = kmin[src]
        if int(st.mask[0]) == full:
            ends.append(np.concatenate((keys, dst[top[dst] >= 1])))  # rows (1, 1/2): below
        elif sm.size:
            plan.append((sm, sf, su))
            copies.append((dst, src))
    data = alloc(cursor, dt)
    band = empty_bands(nkeys)
    for keys in ends:
        data[off[keys]] = 1.0
        data[off[keys] + 1] = 0.5
        set_bands(keys, data, off, top, *band)
    K = kernel_arrays(rules, dt)
    states = 0
    pace = Pace()
    with interruptible():
        for i, ((sm, sf, su), (dst, src)) in enumerate(zip(plan, copies, strict=True)):
            _solve_layer(rules, sm, sf, su, data, off, top, K, lanes, band, pace, kmin)
            for b in band:
                b[dst] = b[src]
            states += sm.size
            if progress is not None:
                progress(i + 1, len(plan))
    return TargetRows(
        rules, data, off, top, k, start, time.perf_counter() - t0, states, int(cursor), kmin
    )


def _least_k(
    rules: YatzyRules, start: tuple[int, int, int], k: int, mask: np.ndarray, u: np.ndarray,
    top: np.ndarray,
) -> np.ndarray:  # fmt: skip
    """Per state, the least k a game from ``start`` needing ``k`` can need there (0 to the
    state's ``top``, int16): ``k`` less the most points scored on the way; ``top + 1``
    where no game from ``start`` gets (the reads there are refused)."""
    most = np.maximum(top, 0)
    upper_most = _new_boxes_most(rules, start, mask, True)
    least = np.clip(k - _gain_ceiling(rules, start, mask, u, upper_most), 0, most)
    # a state no game from the start reaches: its one value at its top, reads refused
    least = np.where(_upper_possible(rules, start, u, upper_most), least, most + 1)
    return np.minimum(least, np.iinfo(np.int16).max).astype(np.int16)


def check_target(target: int, rules: YatzyRules) -> int:
    """A target score (points) in 0 .. ``rules.max_total``, else InputError (one line)."""
    if target < 0 or target > rules.max_total:
        raise InputError(f"the target must be between 0 and {rules.max_total} points, got {target}")
    return int(target)


def warm_up_targets(dtype: str | np.dtype = "float32", advice: bool = True) -> float:
    """Compile (or load from numba's cache) the target kernels for ``dtype``: the layer
    kernel of tables and rows and, with ``advice``, the advice's turn (float64, about a
    third of a cold compile: not for a command that only builds a table); seconds."""
    from diceopt.games.yatzy.rulebook.variants import AMERICAN

    t0 = time.perf_counter()
    tiny = AMERICAN.reduced(("ones", "full_house", "yahtzee"), bonus_threshold=3, dice=3)
    table = solve_targets(tiny, dtype=dtype)
    if advice:
        table.turn(0, 0, 0, 5)
        solve_target_from(tiny, 0, 0, 0, 5, dtype=dtype).turn(0, 0, 0, 5)
    return time.perf_counter() - t0


# --- one layer's states, for solves that split a layer (Ray: commands/on_ray.py) --------


def solve_target_states(
    rules: YatzyRules,
    states: tuple[np.ndarray, np.ndarray, np.ndarray],
    Vd: np.ndarray,
    off: np.ndarray,
    top: np.ndarray,
    band: tuple[np.ndarray, np.ndarray],
    lanes: int = LANES,
) -> None:
    """P(points still to come >= k) of some states ``(mask, flag, upper)`` of one layer,
    k = 0 .. ``top[key]``, into ``Vd[off[key]:]``, reading the next layer's values (and
    bands, ``band``: int16 per state key) through the same ``off`` and ``top``: what one
    layer of :func:`solve_targets` does, for any layout of ``Vd``."""
    K = kernel_arrays(rules, Vd.dtype)
    _solve_layer(rules, *states, Vd, off, top, K, lanes, band)
