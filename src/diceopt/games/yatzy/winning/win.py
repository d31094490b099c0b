"""Playing Yatzy to win: the probability of beating an opponent's score sheet.

Role: for a player at a turn-start state with ``score`` points and an opponent with
``so`` points whose points still to come have the distribution ``p`` (an exact score
distribution, :mod:`diceopt.games.yatzy.analyses.distribution`), choose the turn that maximises
P(win) + 1/2 P(draw) and estimate that probability.

Method (one turn solved exactly, the rest of the game through target tables): the value
of ending the turn in turn-start state ``n`` with ``b`` points is

    U(n, b) = sum_x p(x) * 1/2 * [T(n, so + x - b) + T(n, so + x - b + 1)]

where ``T(n, k)`` is the target table (:mod:`diceopt.games.yatzy.analyses.targets`): the highest
P(points still to come >= k) from ``n`` (1 for k <= 0). ``1/2 [T(k) + T(k + 1)]`` is
P(win) + 1/2 P(draw) against an opponent who ends with exactly ``so + x``: exact for the
last turn (then ``T`` is a step), and otherwise the value of a player who would learn the
opponent's final score at the end of this turn, so an estimate that errs high. Against
an opponent who has finished, the advice is exact: the target rows are then draw-aware
(``solve_target_from(..., draw=True)``: the best P(win) + 1/2 P(draw) for each number of
points needed, one policy per target), read directly. The turn itself (which
dice to keep, which category to write) maximises the expected ``U`` exactly: the
expected-score widget's steps 3-5 (:func:`diceopt.games.yatzy.kernel.widget.widget_into`
without its score-now step) with ``U`` in place of "points + table value". ``U`` is
computed only for the (successor, points) pairs some roll can reach: about 150 per turn.

The opponent's distribution ``p`` is that of its expected-score play from its sheet
(exact); a real opponent who also plays to win spreads its scores differently, which
this model does not follow. With ``plays="win"`` the opponent plays whichever of the
expected-score and the theta -RISK_THETA / +RISK_THETA tables beats our expected-score
play most often (:func:`opponent_distribution`): a best response within that family,
fixed for the rest of its game.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

import numba
import numpy as np

from diceopt.advice import Advice
from diceopt.errors import InputError
from diceopt.games.yatzy.kernel.arrays import KernelArrays, kernel_arrays, read_only
from diceopt.games.yatzy.kernel.target_turn import margin, roll_shift
from diceopt.games.yatzy.kernel.turn import allowed_categories, may_write
from diceopt.games.yatzy.kernel.widget import (
    TURN_REROLLS,
    WidgetBuffers,
    widget_buffers,
    widget_into,
)
from diceopt.games.yatzy.play.advice import Position
from diceopt.games.yatzy.rulebook.rules import YatzyRules
from diceopt.notation import load_json, split_fields


@numba.njit(cache=True)
def utility(
    Td: np.ndarray, off: np.ndarray, top: np.ndarray, key: int, b: int, so: int,
    p: np.ndarray, lo: int, hi: int, draw: bool = False,
) -> float:  # fmt: skip
    """U(n, b) of the module docstring: P(win) + 1/2 P(draw) (estimate, 0-1) after
    reaching the turn-start state with flat key ``key`` with ``b`` points, against an
    opponent with ``so`` points and P(points to come = x) = p[x], nonzero for lo..hi.
    Target rows: T(key, k) = Td[off[key] + k] for 1 <= k <= top[key], 0 above.
    ``draw``: the rows are draw-aware (``solve_target_from(..., draw=True)``: T(key, k) is
    already P(win) + 1/2 P(draw) with k points needed to win), read as T(key, k + 1)."""
    kmax = top[key]
    o = off[key]
    d = so - b
    acc = 0.0
    for x in range(lo, hi + 1):
        q = p[x]
        k = x + d
        if k < 0:  # ahead of this opponent score whatever comes
            acc += q
            continue
        t1 = Td[o + k + 1] if k + 1 <= kmax else 0.0
        if draw:
            if t1 == 0.0:  # T falls with k: no later x adds anything
                break
            acc += q * t1
            continue
        t0 = 1.0 if k == 0 else (Td[o + k] if k <= kmax else 0.0)
        if t0 == 0.0:
            break
        acc += q * 0.5 * (t0 + t1)
    return acc


@numba.njit(cache=True)
def support(p: np.ndarray) -> tuple[int, int]:
    """The first and last x with p[x] > 0 (0, -1 when there is none)."""
    lo = 0
    while lo < p.size and p[lo] == 0.0:
        lo += 1
    hi = p.size - 1
    while hi >= lo and p[hi] == 0.0:
        hi -= 1
    return lo, hi


def win_buffers(K: KernelArrays, most: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Work arrays of :func:`win_turn`: (U cache per successor row and points, row keys,
    row points), made in numpy and passed to the kernels (``most``: :func:`margin`, the
    most points one write adds beside its row)."""
    rows = K.upper_face.size * (K.offset.size - 1)
    return (
        np.empty((rows, most + 1)),
        np.empty(rows, dtype=np.int64),
        np.empty(rows, dtype=np.int64),
    )


# the same function compiled, for a kernel that makes its work arrays in each of its
# parallel loop's chunks (a table's games); every other kernel takes them from its caller
win_buffers_in_kernel = numba.njit(cache=True)(win_buffers)


# float32 and read-only (a global) as the stored tables: widget_into's compiled variant of
# the expected-score play, not one more for this argument it never reads
_NO_TABLE = np.zeros((1, 1, 1), dtype=np.float32)


@numba.njit(cache=True)
def win_turn(
    mask: int, flag: int, u: int, score: int, so: int, p: np.ndarray, lo: int, hi: int,
    Td: np.ndarray, off: np.ndarray, top: np.ndarray, K: KernelArrays, flags: int,
    B: WidgetBuffers, cache: np.ndarray, rowkey: np.ndarray, rowpts: np.ndarray,
    draw: bool = False,
) -> float:  # fmt: skip
    """The win-seeking turn from state (mask, flag, upper u) with ``score`` points against
    an opponent with ``so`` points and points to come ``p`` (nonzero for lo..hi).

    Fills ``B`` as :func:`diceopt.games.yatzy.kernel.widget.widget_into` does (values are
    P(win) + 1/2 P(draw) estimates, ``B.policy`` the turn's choices, scoring now and the
    lowest category winning ties) and returns the estimate before the first roll. A
    write's points are those of the target turn (:func:`roll_shift`: Kniffel and Yahtzee
    bonuses; with served scores the rolls are valued again as written straight after the
    first roll, ``B.first_value``, for the choice there).
    ``K`` float64; ``cache``, ``rowkey``, ``rowpts`` from :func:`win_buffers`.
    """
    T = K.threshold
    width = T + 1
    ncat = K.upper_face.size
    stride = K.offset.size - 1
    nd = stride - 1
    R = K.offset[nd + 1] - K.offset[nd]
    # the successor of every row (category c, h dice of its face / the Yatzy box scored /
    # a needs_yatzy box scored) and the points it holds
    for c in range(ncat):
        b0 = c * stride
        if not may_write(mask, c, K):
            for h in range(stride):
                rowkey[b0 + h] = -1
            continue
        nxt = mask | (1 << c)
        f = K.upper_face[c]
        if f < 0:
            rowkey[b0] = (nxt * flags + flag) * width + u
            rowpts[b0] = 0
            y = 1 if (c == K.yz_cat and K.track) else flag
            rowkey[b0 + 1] = (nxt * flags + y) * width + u
            rowpts[b0 + 1] = K.needs[c] if (K.needs[c] >= 0 and flag == 1) else 0
            for h in range(2, stride):
                rowkey[b0 + h] = -1
        else:
            for cnt in range(stride):
                pts = cnt * (f + 1)
                rowkey[b0 + cnt] = (nxt * flags + flag) * width + min(T, u + pts)
                rowpts[b0 + cnt] = pts + (K.bonus if (u < T and u + pts >= T) else 0)
    cache[:] = -1.0
    ok = np.empty(ncat, dtype=np.bool_)
    for c in range(ncat):
        ok[c] = may_write(mask, c, K)
    # the rules' arrays as locals: a call or an attribute of K per roll and category costs
    # atomic reference counts on its arrays, more than the work (measured: half the turn)
    upper_face, roll_cnt, needs = K.upper_face, K.roll_cnt, K.needs
    score_of, yz_face, yz_cat, ybonus = K.score, K.yz_face, K.yz_cat, K.ybonus
    pos_c, pos_s = K.pos_c, K.pos_s
    width = pos_c.shape[1]
    kniffel = K.ubonus != 0  # the Kniffel bonus: a Yatzy roll's writes through roll_shift
    for r in range(R):
        allowed = ok
        use_joker = False
        if yz_face[r] >= 0 and K.joker_code != 0:
            allowed, use_joker = allowed_categories(mask, r, K)
        yb = ybonus if (flag == 1 and yz_face[r] >= 0) else 0
        for first in range(2 if K.served else 1):  # served: again for the first roll
            best = -1.0
            bc = 0
            for c in range(ncat):
                if not allowed[c]:
                    continue
                if not use_joker and not (kniffel and yz_face[r] >= 0):
                    # twin of roll_shift (category_row's row and points, the Yahtzee
                    # bonus, served points) for a write that is no joker and earns no
                    # Kniffel bonus: no call, no attribute of K (a call per write was
                    # most of the turn under the Kniffel and Generala rules)
                    f = upper_face[c]
                    if f >= 0:
                        row, pts = c * stride + roll_cnt[r, f], 0
                    else:
                        got = np.int64(score_of[r, c])
                        if needs[c] >= 0:
                            row, pts = c * stride + (1 if got > 0 else 0), 0
                        else:
                            row = c * stride + (1 if (c == yz_cat and got > 0) else 0)
                            pts = got
                    pts += yb
                    if first == 1:  # straight after the first roll: served_extra
                        for e in range(width):
                            if pos_c[r, e] == c:
                                pts += np.int64(pos_s[r, width + e] - pos_s[r, e])
                                break
                else:
                    row, pts = roll_shift(mask, flag, r, c, use_joker, first == 1, K)
                v = cache[row, pts]
                if v < 0.0:
                    b = score + rowpts[row] + pts
                    v = utility(Td, off, top, rowkey[row], b, so, p, lo, hi, draw)
                    cache[row, pts] = v
                if v > best:
                    best = v
                    bc = c
            if first == 1:
                B.first_value[r] = best
                B.first_cat[r] = bc
            else:
                B.now_value[r] = best
                B.now_cat[r] = bc
    # no saved rerolls here: the table argument is never read
    # bool(False): numba types it bool, not a literal (a compiled variant of its own)
    value, _ = widget_into(mask, flag, u, _NO_TABLE, K, 0.0, B, TURN_REROLLS, bool(False))  # noqa: UP018
    return value


def win_detail(
    mask: int, flag: int, u: int, score: int, so: int, p: np.ndarray, r: int, Td: np.ndarray,
    off: np.ndarray, top: np.ndarray, K: KernelArrays, flags: int, draw: bool = False,
    first: bool = False,
) -> tuple[np.ndarray, np.ndarray, float]:  # fmt: skip
    """:func:`win_turn` for one position: ``(keep, category, value)`` with
    ``keep[t, i]`` (t = 1, 2 rerolls left) the estimate after keeping multiset i (flat
    lattice index), ``category[c]`` after writing roll r into c (-1 where c may not take
    r; ``first``: straight after the first roll, served scores) and ``value`` before the
    first roll (P(win) + 1/2 P(draw) estimates, 0-1)."""
    return _win_detail(
        mask, flag, u, score, so, p, r, Td, off, top, K, flags, bool(draw), bool(first),
        widget_buffers(K), *win_buffers(K, margin(K)),
    )  # fmt: skip


@numba.njit(cache=True)
def _win_detail(
    mask: int, flag: int, u: int, score: int, so: int, p: np.ndarray, r: int, Td: np.ndarray,
    off: np.ndarray, top: np.ndarray, K: KernelArrays, flags: int, draw: bool, first: bool,
    B: WidgetBuffers, cache: np.ndarray, rowkey: np.ndarray, rowpts: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, float]:  # fmt: skip
    """:func:`win_detail` with its work arrays (:func:`widget_buffers`, :func:`win_buffers`)."""
    lo, hi = support(p)
    value = win_turn(
        mask,
        flag,
        u,
        score,
        so,
        p,
        lo,
        hi,
        Td,
        off,
        top,
        K,
        flags,
        B,
        cache,
        rowkey,
        rowpts,
        draw,
    )
    ncat = K.upper_face.size
    cat = np.full(ncat, -1.0)
    ok, use_joker = allowed_categories(mask, r, K)
    for c in range(ncat):
        if ok[c]:
            row, pts = roll_shift(mask, flag, r, c, use_joker, first, K)
            cat[c] = cache[row, pts]
    keep = B.keep_value.copy()
    keep[0] = 0.0
    return keep, cat, value


# ---------------------------------------------------------------------------------------
# Python side: advice against an opponent

OPPONENT_EXAMPLE = "filled ones twos chance | upper 5 | score 25"
OPPONENT_PLAYS = ("expected", "win")
RISK_THETA = 0.05  # the risk-sensitive tables an opponent who plays to win may choose


def parse_opponent(value: Any, rules: YatzyRules) -> Position:
    """The opponent's sheet and score (text ``filled ... | upper N | score S`` or the JSON
    form ``{"filled": [...], "upper": N, "score": S}``), at the start of their turn.

    InputError (one line) when it is malformed, names categories of another variant,
    has no score, has dice or rerolls, or its score cannot fit its sheet.
    """
    from diceopt.games.yatzy.play.advice import FIELDS, filled_ids, parse_position

    data: dict[str, Any] | None
    if isinstance(value, str) and not value.lstrip().startswith("{"):
        seen = split_fields(value, FIELDS, OPPONENT_EXAMPLE)
        words = seen.get("filled", "-").split()
        data = {k: v for k, v in seen.items() if k != "filled"}
        data["filled"] = [] if words in ([], ["-"]) else words
    elif isinstance(value, str):
        try:
            data = load_json(value)
        except json.JSONDecodeError as exc:
            raise InputError(f"malformed JSON opponent: {exc.msg} at character {exc.pos}") from None
    elif isinstance(value, Mapping):
        data = dict(value)
    else:
        data = None
    if not isinstance(data, dict):
        raise InputError(f"the opponent must be text like {OPPONENT_EXAMPLE!r} or a JSON object")
    if "dice" in data or "rerolls" in data:
        raise InputError(
            "the opponent is given at the start of their turn: their sheet and score only, "
            f"e.g. {OPPONENT_EXAMPLE!r}"
        )
    if "score" not in data:
        raise InputError(f"the opponent needs a score, e.g. {OPPONENT_EXAMPLE!r}")
    filled = data.get("filled", [])
    if not isinstance(filled, list):
        raise InputError("the opponent's filled must be a list of category ids")
    try:
        ids = filled_ids([str(c) for c in filled], rules) if filled else ()
    except InputError as exc:
        raise InputError(f"opponent: {exc} (variant {rules.name})") from None
    over = len(set(ids)) == rules.num_categories
    dice = "-" if over else " ".join(["1"] * rules.dice)
    if isinstance(value, str) and not value.lstrip().startswith("{"):
        text = f"{value} | dice {dice} | rerolls 0"
    else:
        text = json.dumps(data | {"dice": [] if over else [1] * rules.dice, "rerolls": 0})
    try:
        return parse_position(text, rules)
    except InputError as exc:
        raise InputError(f"opponent: {exc}") from None


# Distributions of the points still to come, kept per (table, turn-start state): in a game
# against the computer each side's state is asked about several times (the estimate, the
# computer's turn, the hints), and the first turns' states recur from game to game.
PMF_CACHE_SIZE = 4096
_PMFS: OrderedDict[tuple[int, int, int, int], tuple[Any, np.ndarray]] = OrderedDict()
_PMFS_LOCK = threading.Lock()


def points_to_come(table: Any, mask: int, flag: int, upper: int) -> np.ndarray:
    """P(points still to come = x), x = 0, 1, ... points, from the turn-start state
    (``mask``, ``flag``, ``upper``) under ``table``'s policy: the exact distribution
    (:func:`diceopt.games.yatzy.analyses.distribution.distribution`), kept for the process's
    next asks (the last PMF_CACHE_SIZE states; a read-only array). From the start of a
    Scandinavian game about 3 s, after one turn about 1 s, after five 0.1 s (2 cores),
    unless the stored rows of the first turns hold the state
    (:func:`~diceopt.games.yatzy.stored.store.stored_early_rows`, loaded here when they
    are stored): then at once."""
    from diceopt.games.yatzy.analyses.distribution import distribution

    key = (id(table), int(mask), int(flag), int(upper))
    with _PMFS_LOCK:
        hit = _PMFS.get(key)
        if hit is not None and hit[0] is table:
            _PMFS.move_to_end(key)
            return hit[1]
    from diceopt.games.yatzy.stored.store import EARLY_FILLED, stored_early_rows

    early = None  # the first turns' rows (the same numbers), read for the states they hold
    if bin(int(mask)).count("1") <= EARLY_FILLED:
        early = stored_early_rows(table)
    pmf = early.pmf(mask, flag, upper) if early is not None else None
    if pmf is None:
        pmf = distribution(table, mask=mask, flag=flag, upper=upper, base=None).pmf
    pmf.flags.writeable = False
    with _PMFS_LOCK:
        _PMFS[key] = (table, pmf)  # the table kept with it: its id is not reused meanwhile
        while len(_PMFS) > PMF_CACHE_SIZE:
            _PMFS.popitem(last=False)
    return pmf


def opponent_distribution(
    config: Any, opponent: Position, mine: Position, plays: str = "expected"
) -> np.ndarray:
    """P(opponent's points still to come = x), x = 0, 1, ... (exact for the model).

    ``plays == "expected"``: the opponent maximises its expected score. ``"win"``: it
    plays the table, among expected score and the risk-sensitive ones with theta
    -RISK_THETA and +RISK_THETA, that gives it the best P(win) + 1/2 P(draw) against our
    expected-score play from the start of our turn (:func:`chance_to_beat`). An
    approximation: a true win-seeking opponent reacts to our sheet turn by turn.
    """
    from diceopt.games.yatzy.play.advice import state_of
    from diceopt.games.yatzy.stored.store import get_solved

    rules = config.rules
    if plays not in OPPONENT_PLAYS:
        raise InputError(f"the opponent plays 'expected' or 'win', got {plays!r}")
    if opponent.over(rules):
        return np.ones(1)
    mask, flag, upper = state_of(opponent, rules)
    table = get_solved(config.rules, 0.0, config.dtype)
    pmf = points_to_come(table, mask, flag, upper)
    if plays == "expected":
        return pmf
    m_mask, m_flag, m_upper = state_of(mine, rules)
    ours = points_to_come(table, m_mask, m_flag, m_upper)
    lead = float(opponent.points()) - float(mine.points())
    best = chance_to_beat(pmf, ours, lead)
    for theta in (-RISK_THETA, RISK_THETA):
        risky = get_solved(config.rules, theta, config.dtype)
        other = points_to_come(risky, mask, flag, upper)
        chance = chance_to_beat(other, ours, lead)
        if chance > best:
            best, pmf = chance, other
    return pmf


def win_chance(config: Any, mine: Position, opponent: Position, plays: str = "expected") -> float:
    """P(win) + 1/2 P(draw) (0-1), exact for its model: from the start of ``mine``'s turn
    (its sheet and score; its dice are ignored) it plays for the expected score to the
    end, and ``opponent`` plays as :func:`opponent_distribution` models ``plays``
    (``expected``: for the expected score; ``win``: the one risk table, fixed from now on,
    that beats that play most often). Both final scores then have exact, independent
    distributions (:func:`points_to_come`), and the chance is their convolution
    (:func:`chance_to_beat`). 1, 1/2 or 0 when both have finished."""
    from diceopt.games.yatzy.play.advice import state_of
    from diceopt.games.yatzy.stored.store import get_solved

    rules = config.rules
    if mine.score is None or opponent.score is None:
        raise InputError("the chance of winning needs both scores ('score N')")
    if mine.over(rules):
        ours = np.ones(1)
    else:
        table = get_solved(config.rules, 0.0, config.dtype)
        ours = points_to_come(table, *state_of(mine, rules))
    theirs = opponent_distribution(config, opponent, mine, plays)
    chance = chance_to_beat(ours, theirs, float(mine.score) - float(opponent.score))
    return min(1.0, max(0.0, chance))  # (sums of float pmfs may pass 1 by a few ulps)


def chance_to_beat(theirs: np.ndarray, ours: np.ndarray, lead: float) -> float:
    """P(X + lead > Y) + 1/2 P(X + lead = Y) for independent X ~ ``theirs`` and Y ~
    ``ours`` (pmfs over 0, 1, ... points), ``lead`` a whole number of points."""
    cdf = np.concatenate(([0.0], np.cumsum(ours)))  # cdf[i] = P(Y < i)
    y = np.arange(theirs.size) + int(round(lead))  # Y must fall below (or on) this
    below = cdf[np.clip(y, 0, ours.size)]
    equal = np.where((y >= 0) & (y < ours.size), ours[np.clip(y, 0, ours.size - 1)], 0.0)
    return float(theirs @ (below + 0.5 * equal))


def advise_opponent(pos: Position, config: Any, opponent: Any, plays: str = "expected") -> Advice:
    """Every legal action of ``pos`` with its estimated P(win) + 1/2 P(draw) (0-1) against
    ``opponent`` (see :func:`parse_opponent`), best first; regrets in probability,
    ``expected`` the action's expected final score. Method: the module docstring."""
    from diceopt.games.yatzy.play.advice import rank_by_probability, roll_index, state_of

    rules = config.rules
    if pos.over(rules):
        raise InputError("the game is over: every category is filled")
    if pos.score is None:
        raise InputError("advice against an opponent needs your score ('score N')")
    opp = opponent if isinstance(opponent, Position) else parse_opponent(opponent, rules)
    p, score, so, rows, K, draw = _win_inputs(config, pos, opp, plays)
    mask, flag, upper = state_of(pos, rules)
    roll = roll_index(pos, rules)
    keep, cat, _ = win_detail(
        mask, flag, upper, score, so, p, roll, *rows, K, rules.flags, draw, pos.rerolls == 2
    )
    return rank_by_probability(
        pos, rules, config.table(), cat, keep,
        "estimated probability of winning against the opponent, a draw counting 1/2 (0-1)",
    )  # fmt: skip


def _win_inputs(
    config: Any, mine: Position, opponent: Position, plays: str
) -> tuple[np.ndarray, int, int, tuple[np.ndarray, np.ndarray, np.ndarray], KernelArrays, bool]:
    """(opponent's distribution, my score, theirs, target rows, float64 arrays, whether
    the rows are draw-aware). Against a finished opponent: the exact draw-aware rows of a
    solve from ``mine``'s state (:func:`diceopt.games.yatzy.analyses.targets.solve_target_from`
    with ``draw``); otherwise the rows of the stored full target table, else the stored
    target rows from the start (:mod:`diceopt.games.yatzy.stored.store`), else of a solve
    from ``mine``'s state for the targets this opponent can set (progress on stderr)."""
    from diceopt.games.yatzy.analyses.targets import solve_target_from
    from diceopt.games.yatzy.play.advice import state_of
    from diceopt.games.yatzy.stored.store import stored_table
    from diceopt.progress import Stage

    rules = config.rules
    if mine.score is None:
        raise InputError("play against an opponent needs your score ('score N')")
    p = opponent_distribution(config, opponent, mine, plays)
    score = int(round(mine.score))
    so = int(round(opponent.points()))
    draw = opponent.over(rules)
    need = min(rules.max_total + int(draw), max(0, so + p.size - score + 1))
    table = None if draw else stored_table(config.rules, "float32", verified=True)
    if table is None and not draw:
        from diceopt.games.yatzy.stored.store import load_rows

        table = load_rows(config.rules, "float32", full=False)  # stored rows from the start
    if table is not None:
        rows = table.flat
    else:
        what = "to beat" if draw else "up to"
        with Stage(f"solving the targets {what} {need} points still needed", "layers") as stage:
            got = solve_target_from(
                rules, *state_of(mine, rules), need, progress=stage.update, draw=draw,
                dtype="float64" if draw else "float32",
            )  # fmt: skip
        rows = got.flat
    (p,) = read_only(p)  # a distribution kept or just made: one type for the kernels
    return p, score, so, rows, kernel_arrays(rules, np.float64), draw


def win_probability(
    config: Any, mine: Position, opponent: Position, plays: str = "expected"
) -> float:
    """The estimated P(win) + 1/2 P(draw) (0-1) of the win-seeking player at the start of
    its turn (``mine``: sheet and score; its dice are ignored) against ``opponent``; 1, 1/2
    or 0 when both have finished."""
    from diceopt.games.yatzy.play.advice import state_of

    rules = config.rules
    if mine.over(rules):
        if not opponent.over(rules):
            raise InputError("you have finished: the estimate is for the opponent's side")
        mine_score, their_score = mine.points(), opponent.points()
        return 1.0 if mine_score > their_score else 0.5 if mine_score == their_score else 0.0
    p, score, so, rows, K, draw = _win_inputs(config, mine, opponent, plays)
    mask, flag, upper = state_of(mine, rules)
    _, _, value = win_detail(mask, flag, upper, score, so, p, 0, *rows, K, rules.flags, draw, False)
    return float(value)


def computer_turn(
    config: Any, strategy: str, mine: Position, opponent: Position, rng: np.random.Generator
) -> list[tuple[str, Position]]:
    """A whole turn played by the computer from ``mine`` (its first roll showing, two
    rerolls left) with ``strategy`` ``expected`` or ``win`` (against ``opponent``): the
    actions in order, each with the position after it (the last one has written a
    category; new dice come from ``rng``)."""
    from diceopt.games.yatzy.kernel.simulation import turn_policy
    from diceopt.games.yatzy.play.advice import apply_action, dice_counts, keep_text, state_of

    rules = config.rules
    mask, flag, upper = state_of(mine, rules)
    if strategy == "expected":
        policy = turn_policy(config.table(), mask, flag, upper)
    elif strategy == "win":
        p, score, so, rows, K, draw = _win_inputs(config, mine, opponent, "expected")
        B = widget_buffers(K)
        cache, rowkey, rowpts = win_buffers(K, margin(K))
        lo, hi = support(p)
        win_turn(mask, flag, upper, score, so, p, lo, hi, *rows, K, rules.flags, B, cache,
                 rowkey, rowpts, draw)  # fmt: skip
        policy = B.policy.copy()
    else:
        raise InputError(f"the computer plays 'expected' or 'win', got {strategy!r}")
    lat = rules.lattice
    base = int(lat.offset[rules.dice])
    pos = mine
    steps: list[tuple[str, Position]] = []
    while True:
        r = lat.index(dice_counts(pos.dice, rules.sides)) - base
        act = int(policy[pos.rerolls, r])
        if act < 0:
            action = f"score {rules.categories[-act - 1]}"
        else:
            action = keep_text(lat.counts[act])
        pos, _ = apply_action(pos, action, rules, rng)
        steps.append((action, pos))
        if act < 0:
            return steps
