"""Yatzy at a table of 2 to 6 players: every player's chance of winning, and the advice
to win against the others' actual sheets.

Model (the chances): every player plays for the expected score from their current sheet
(a turn-start state: filled boxes, upper total, score, flags), independently of the
others, so each final score has an exact distribution: the score so far plus the points
still to come under the expected-score table's policy
(:mod:`diceopt.games.yatzy.analyses.distribution`). The highest final score wins; a k-way tie at
the top gives each of the k players 1/k. Then

    P(i wins) = sum_s P(X_i = s) * E[ 1/(1 + T) * 1{every other final <= s} ]

with T the number of others whose final score is exactly s. The others being
independent, the expectation is an integral over z in [0, 1] of a polynomial of degree
N - 1 at most (1/(1 + k) = int_0^1 z^k dz):

    E[...] = int_0^1 prod_{j != i} (P(X_j < s) + P(X_j = s) z) dz

computed exactly from the polynomial's coefficients (:func:`tie_integral`). The chances
sum to 1 (every outcome's 1 is split among its winners); the pmfs are normalised first,
so they do to about 1e-15. For two players this is exactly the 2-player chance of
:func:`diceopt.games.yatzy.winning.win.win_chance` (``plays="expected"``): both sides' final
scores are independent there too, a draw counts 1/2, and neither model depends on who
moves first (each chance is of the final scores only).

Advice (the player to move against the others' sheets): with ``W(y)`` the chance of
winning with a final score y against the others (the expectation above, for the
mover), P(win) = sum_y P(Y = y) W(y) = sum_s dW(s) P(Y >= s) with dW(s) = W(s) - W(s-1)
>= 0 (W rises with y). The win-seeking turn of :mod:`diceopt.games.yatzy.winning.win` values
the end of the turn in state n with b points by the target tables, P(points to come >=
k) = T(n, k): here sum_s dW(s) T(n, s - b), exactly what its ``utility`` computes with
``draw=True``, the opponent's points ``so = -1`` and ``p = dW`` (it reads
``sum_x p[x] T(n, x + so - b + 1)``). So the turn itself is solved by the existing
kernels (:func:`~diceopt.games.yatzy.winning.win.win_turn`, ``win_detail``) unchanged: one
"opponent" whose final score is the others' best, with the N-player tie split folded
into dW. Exact on the last turn; earlier, the same estimate that errs high as for one
opponent (a player who would learn the others' final scores at the end of this turn).
With one opponent this is that module's advice (the same numbers, up to rounding).
Against others who have all finished, with one of them alone at the top, the exact
draw-aware advice against that one is given (:func:`~diceopt.games.yatzy.winning.win.
advise_opponent`); with two or more tied at the top it stays the estimate.

Where the best move to win and the best move for the expected score differ, the answer
says by how much: the chance of winning lost by playing for the expected score
(estimates, 0-1) and the expected points lost by playing to win.

Distributions of the points still to come come from the stored distributions of every
turn-start state when they are loaded (``store.state_pmfs_table``: objective
``state-pmfs``, float32 rows, Scandinavian 0.8 GB memory-mapped, about 10 s to build on
2 cores; rounded to float32, so chances from them differ from the float64 pass by about
1e-7), else from :func:`diceopt.games.yatzy.winning.win.points_to_come` (kept per state; the
first turns' stored rows; else one pass from the state: 0.1-5 s).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numba
import numpy as np

from diceopt.advice import Advice
from diceopt.errors import InputError
from diceopt.games.yatzy.play.advice import Position
from diceopt.games.yatzy.rulebook.rules import YatzyRules
from diceopt.notation import is_digits

MIN_PLAYERS = 2
MAX_PLAYERS = 6
MAX_NAME = 40  # characters of a player's name
SHEET_EXAMPLE = "Anna: filled ones twos chance | upper 5 | score 25"
MODEL = (
    "each player's probability of winning (0-1), exact for this model: everyone plays "
    "for the expected score from their sheet, independently; a k-way tie at the top "
    "gives each 1/k"
)
VALUE_IS = (
    "estimated probability of winning against the others at the table, a k-way tie "
    "counting 1/k (0-1)"
)


# ---------------------------------------------------------------------------------------
# the exact chances (numba: also read by the simulation of whole tables)


@numba.njit(cache=True)
def cdfs_into(f: np.ndarray, G: np.ndarray, n: int, L: int) -> None:
    """``G[j, s] = P(X_j < s)`` = sum of ``f[j, :s]``, players j < n, s = 0 .. L."""
    for j in range(n):
        acc = 0.0
        for s in range(L + 1):
            G[j, s] = acc
            if s < L:
                acc += f[j, s]


@numba.njit(cache=True)
def tie_integral(
    f: np.ndarray, G: np.ndarray, skip: int, n: int, s: int, L: int, poly: np.ndarray
) -> float:
    """E[1/(1 + T) * 1{every X_j <= s}] over the players j < n but ``skip`` (T: how many
    of them have X_j == s): int_0^1 prod_j (G[j, s] + f[j, s] z) dz, the polynomial's
    coefficients in ``poly`` (length >= n). For s >= L every X_j < s: 1."""
    if s >= L:
        return 1.0
    poly[0] = 1.0
    deg = 0
    for j in range(n):
        if j == skip:
            continue
        g = G[j, s]
        q = f[j, s]
        if q == 0.0:
            if g == 0.0:
                return 0.0
            for k in range(deg + 1):
                poly[k] *= g
            continue
        poly[deg + 1] = 0.0
        for k in range(deg + 1, 0, -1):
            poly[k] = poly[k] * g + poly[k - 1] * q
        poly[0] *= g
        deg += 1
    acc = 0.0
    for k in range(deg + 1):
        acc += poly[k] / (k + 1)
    return acc


@numba.njit(cache=True)
def chances_into(
    f: np.ndarray, G: np.ndarray, n: int, L: int, out: np.ndarray, poly: np.ndarray
) -> None:
    """``out[i]`` = P(player i wins), ties split, for the final-score pmfs ``f[i, :L]``
    (i < n, independent; ``G`` from :func:`cdfs_into`)."""
    for i in range(n):
        acc = 0.0
        for s in range(L):
            q = f[i, s]
            if q != 0.0:
                acc += q * tie_integral(f, G, i, n, s, L, poly)
        out[i] = acc


@numba.njit(cache=True)
def beat_steps_into(
    f: np.ndarray, G: np.ndarray, skip: int, n: int, L: int, dw: np.ndarray, poly: np.ndarray
) -> None:
    """``dw[s] = W(s) - W(s - 1)``, s = 0 .. L (W(-1) = 0, W(L) = 1), where W(s) is the
    chance of winning with a final score s against the players j < n but ``skip``
    (:func:`tie_integral`): what the win-seeking turn reads as its opponent's pmf with
    ``so = -1`` and ``draw=True`` (module docstring). Not clipped: the steps sum to 1."""
    prev = 0.0
    for s in range(L + 1):
        w = tie_integral(f, G, skip, n, s, L, poly)
        dw[s] = w - prev
        prev = w


def _matrix(pmfs: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray, int]:
    """(f, G, L): the pmfs normalised, as rows of one matrix of width L, and their cdfs."""
    if not pmfs:
        raise ValueError("no players")
    L = max(int(np.asarray(p).size) for p in pmfs)
    f = np.zeros((len(pmfs), L + 1))
    for i, p in enumerate(pmfs):
        p = np.asarray(p, dtype=np.float64)
        total = float(p.sum())
        if not total > 0.0 or (p < 0).any():
            raise ValueError("a pmf must be non-negative with a positive sum")
        f[i, : p.size] = p / total
    G = np.empty_like(f)
    cdfs_into(f, G, len(pmfs), L)
    return f, G, L


def win_chances(pmfs: Sequence[np.ndarray]) -> np.ndarray:
    """P(player i wins) for independent final scores with pmfs ``pmfs[i]`` (P(X_i = s),
    s = 0, 1, ... points; each normalised to sum 1), a k-way tie at the top counting 1/k
    to each: ``sum_s P(X_i = s) E[1/(1 + T) 1{others <= s}]`` (module docstring). The
    chances sum to 1 within rounding."""
    f, G, L = _matrix(pmfs)
    out = np.empty(len(pmfs))
    chances_into(f, G, len(pmfs), L, out, np.empty(len(pmfs) + 1))
    return out


def beat_steps(others: Sequence[np.ndarray]) -> np.ndarray:
    """dW(s), s = 0 .. L: the steps of W(s), the chance of winning with a final score s
    against independent others with final-score pmfs ``others`` (ties split as in
    :func:`win_chances`). P(win) for a final score Y = sum_s dW(s) P(Y >= s)."""
    f, G, L = _matrix(others)
    dw = np.empty(L + 1)
    beat_steps_into(f, G, -1, len(others), L, dw, np.empty(len(others) + 1))
    return dw


def chance_with(dw: np.ndarray, pmf: np.ndarray) -> float:
    """sum_s dW(s) P(Y >= s) for Y ~ ``pmf`` (the mover's final score)."""
    pmf = np.asarray(pmf, dtype=np.float64)
    at_least = np.cumsum(pmf[::-1])[::-1]  # P(Y >= s), s < pmf.size
    n = min(dw.size, at_least.size)
    return float(dw[:n] @ at_least[:n])


# ---------------------------------------------------------------------------------------
# players and sheets


@dataclass(frozen=True)
class Seat:
    """A player at the table: ``name`` and ``sheet`` (a turn-start position: filled
    boxes, upper total, score, flags; no dice)."""

    name: str
    sheet: Position


def check_config(config: Any) -> None:
    """InputError (one line) for a table this mode does not play: theta != 0 (the model is
    the expected-score play), saved rerolls."""
    if config.theta != 0.0:
        raise InputError(
            "the chances at a table are of the expected-score play: --theta does not apply"
        )
    if config.rules.saved_rerolls:
        raise InputError(
            f"a table of players is not available for {config.variant} (saved rerolls)"
        )


def check_count(count: int, what: str = "players") -> None:
    """InputError (one line) unless MIN_PLAYERS <= count <= MAX_PLAYERS."""
    if not MIN_PLAYERS <= count <= MAX_PLAYERS:
        raise InputError(f"a table has {MIN_PLAYERS} to {MAX_PLAYERS} {what}, got {count}")


def parse_sheet(value: Any, rules: YatzyRules, who: str = "player") -> Position:
    """A sheet (text ``filled ... | upper N | score S`` or its JSON form, as
    :func:`diceopt.games.yatzy.winning.win.parse_opponent` reads an opponent); InputError (one
    line) naming ``who``."""
    from diceopt.games.yatzy.winning.win import parse_opponent

    if isinstance(value, Position):
        if value.score is None:
            raise InputError(f"{who}: the sheet needs a score ('score N')")
        return value
    try:
        return parse_opponent(value, rules)
    except InputError as exc:
        reason = str(exc).removeprefix("opponent: ").replace("the opponent", "the sheet")
        reason = reason.replace("opponent", "sheet")
        raise InputError(f"{who}: {reason}") from None


def check_name(name: Any, index: int) -> str:
    """A player's name: text of 1 to MAX_NAME characters (spaces at the ends dropped)."""
    if not isinstance(name, str) or not name.strip():
        raise InputError(f"player {index + 1}: a name is text, e.g. 'Anna'")
    name = " ".join(name.split())
    if len(name) > MAX_NAME:
        raise InputError(f"player {index + 1}: a name has at most {MAX_NAME} characters")
    return name


def parse_seat(value: Any, rules: YatzyRules, index: int) -> Seat:
    """``NAME: SHEET`` (text; without ``NAME:`` the player is ``player N``), or JSON
    ``{"name": ..., "sheet": ...}`` (text or a mapping); InputError (one line)."""
    name: Any = f"player {index + 1}"
    sheet: Any = value
    if isinstance(value, Mapping):
        unknown = sorted(set(value) - {"name", "sheet"})
        if unknown or "sheet" not in value:
            raise InputError(
                f"player {index + 1}: give {{'name': ..., 'sheet': ...}}"
                + (f" (unknown field {unknown[0]!r})" if unknown else "")
            )
        name, sheet = value.get("name", name), value["sheet"]
    elif isinstance(value, str):
        text = value.strip()
        head, colon, rest = text.partition(":")
        if colon and not text.startswith("{") and "|" not in head:
            name, sheet = head, rest
    else:
        raise InputError(f"player {index + 1}: give 'NAME: SHEET', e.g. {SHEET_EXAMPLE!r}")
    name = check_name(name, index)
    return Seat(name, parse_sheet(sheet, rules, name))


def parse_table(values: Sequence[Any], rules: YatzyRules) -> list[Seat]:
    """Every player (2 to 6, counted before any is read; distinct names); InputError."""
    check_count(len(values))
    seats = [parse_seat(v, rules, i) for i, v in enumerate(values)]
    names = [s.name for s in seats]
    for i, name in enumerate(names):
        if name in names[:i]:
            raise InputError(f"two players are named {name!r}: give each a name of their own")
    return seats


def sheet_of(pos: Position) -> Position:
    """A position's sheet at the start of its turn (dice and rerolls dropped)."""
    from dataclasses import replace

    return replace(pos, dice=(), rerolls=0, saved=0)


def sheet_text(pos: Position, rules: YatzyRules) -> str:
    """A sheet in the text notation: ``filled ... | upper N | score S``."""
    from diceopt.games.yatzy.winning.versus import side_text

    return side_text(pos, rules)


# ---------------------------------------------------------------------------------------
# distributions and chances of sheets


def points_to_come(config: Any, mask: int, flag: int, upper: int) -> np.ndarray:
    """P(points still to come = x), x = 0, 1, ..., from a turn-start state under the
    expected-score policy: the stored state distributions when loaded, else
    :func:`diceopt.games.yatzy.winning.win.points_to_come` (which reads the stored rows of
    the first turns, loaded here when they are stored: the numbers it would compute)."""
    from diceopt.games.yatzy.stored.store import get_solved, loaded_pmfs
    from diceopt.games.yatzy.winning.win import points_to_come as one_state

    rows = loaded_pmfs(config.rules, config.dtype)
    if rows is not None:
        got = rows.pmf(mask, flag, upper)
        if got is not None:
            return got
    config.first_turns()
    return one_state(get_solved(config.rules, 0.0, config.dtype), mask, flag, upper)


def final_pmf(config: Any, sheet: Position) -> np.ndarray:
    """P(final score = s), s = 0, 1, ... points, from a sheet (its score plus the points
    still to come under expected-score play; a finished sheet: its score)."""
    from diceopt.games.yatzy.play.advice import state_of

    rules = config.rules
    score = int(round(sheet.points()))
    if sheet.over(rules):
        pmf = np.ones(1)
    else:
        pmf = np.asarray(points_to_come(config, *state_of(sheet, rules)), dtype=np.float64)
    out = np.zeros(score + pmf.size)
    out[score:] = pmf
    return out


def table_chances(config: Any, sheets: Sequence[Position]) -> np.ndarray:
    """Every player's chance of winning (0-1, summing to 1) from their sheets: the
    module docstring's model."""
    check_config(config)
    check_count(len(sheets))
    return win_chances([final_pmf(config, s) for s in sheets])


# ---------------------------------------------------------------------------------------
# advice for the player to move


@dataclass(frozen=True)
class TableAdvice(Advice):
    """Advice to win at a table: every action's estimated chance of winning (``value``)
    with its expected final score beside, and how the best move to win compares with the
    best move for the expected score (``best_for_expected``: that move; ``chance_lost``:
    the chance of winning it gives up, 0-1; ``points_lost``: the expected points the best
    move to win gives up; ``exact``: whether the values are exact, not estimates)."""

    best_for_expected: str = ""
    chance_lost: float = 0.0
    points_lost: float = 0.0
    opponents: int = 0
    exact: bool = False

    @property
    def differ(self) -> bool:
        """Whether the best move to win is not the best move for the expected score."""
        return self.best_for_expected != self.best.action

    def comparison(self) -> dict[str, Any]:
        """The comparison as plain data."""
        return {
            "best_to_win": self.best.action,
            "best_for_expected": self.best_for_expected,
            "differ": self.differ,
            "chance_lost_by_expected": self.chance_lost,
            "points_lost_by_win": self.points_lost,
        }

    def to_json(self) -> dict[str, Any]:
        """The advice's JSON and ``table``: the comparison, the number of opponents and
        whether the values are exact."""
        table = self.comparison() | {"opponents": self.opponents, "exact": self.exact}
        return super().to_json() | {"table": table}

    @property
    def notes(self) -> list[str]:
        """The comparison in words (printed after the actions)."""
        if not self.differ:
            who = "1 opponent" if self.opponents == 1 else f"{self.opponents} opponents"
            return [
                f"against {who} the best move to win, {self.best.action}, is also the best "
                "for the expected score"
            ]
        return [
            f"best to win: {self.best.action}; best for the expected score: "
            f"{self.best_for_expected}",
            f"playing for the expected score gives up {100 * self.chance_lost:.2f} percentage "
            f"points of the chance of winning; playing to win gives up {self.points_lost:.2f} "
            "expected points",
        ]


def check_mover(pos: Position, config: Any) -> None:
    """InputError (one line) for a position the table advice cannot take."""
    check_config(config)
    if pos.over(config.rules):
        raise InputError("the game is over: every category is filled")
    if pos.score is None:
        raise InputError("advice at a table needs your score ('score N')")


def advise_table(pos: Position, config: Any, opponents: Sequence[Any]) -> TableAdvice:
    """Every legal action of ``pos`` ranked by its estimated chance of winning against
    ``opponents`` (1 to 5 sheets, text, JSON or Positions; each plays for the expected
    score), best first (regrets in probability, each action's expected final score
    beside), and the comparison with the best move for the expected score. Method: the
    module docstring."""
    from diceopt.games.yatzy.kernel.arrays import kernel_arrays, read_only
    from diceopt.games.yatzy.play.advice import (
        advise_position,
        rank_by_probability,
        roll_index,
        state_of,
    )
    from diceopt.games.yatzy.winning.win import advise_opponent, win_detail

    check_mover(pos, config)
    check_count(len(opponents) + 1)
    rules = config.rules
    opps = [parse_sheet(o, rules, f"opponent {i + 1}") for i, o in enumerate(opponents)]
    exact = False
    if all(o.over(rules) for o in opps):
        top = max(o.points() for o in opps)
        leaders = [o for o in opps if o.points() == top]
        if len(leaders) == 1:  # exact: the draw-aware rows against the one to beat
            base = advise_opponent(pos, config, leaders[0])
            exact = True
    if not exact:
        (dw,) = read_only(beat_steps([final_pmf(config, o) for o in opps]))  # as win.py's
        K = kernel_arrays(rules, np.float64)
        mask, flag, upper = state_of(pos, rules)
        rows = mover_targets(config, (mask, flag, upper), dw.size - int(round(pos.points())))
        keep, cat, _ = win_detail(
            mask, flag, upper, int(round(pos.points())), -1, dw, roll_index(pos, rules),
            *rows, K, rules.flags, True, pos.rerolls == 2,
        )  # fmt: skip
        base = rank_by_probability(pos, rules, config.table(), cat, keep, VALUE_IS)
    expected = advise_position(pos, rules, config.table())[0]
    best = base.actions[0]
    chosen = base.find(expected.action)
    assert chosen is not None and best.expected is not None
    return TableAdvice(
        base.actions,
        VALUE_IS if not exact else VALUE_IS.replace("estimated ", ""),
        best_for_expected=expected.action,
        chance_lost=max(0.0, best.value - chosen.value),
        points_lost=max(0.0, expected.value - best.expected),
        opponents=len(opps),
        exact=exact,
    )


def mover_targets(
    config: Any, state: tuple[int, int, int], need: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Target rows ``(Td, off, top)`` for the mover's turn: the stored full target table,
    else the stored target rows from the start (``store.load_rows``), else
    a solve from the mover's state for the ``need`` points it may need (progress on
    stderr), as the advice against one opponent does."""
    from diceopt.games.yatzy.analyses.targets import solve_target_from
    from diceopt.games.yatzy.stored.store import load_rows, stored_table
    from diceopt.progress import Stage

    rules = config.rules
    table: Any = stored_table(rules, "float32", verified=True)  # a full table, or rows
    if table is None:
        table = load_rows(rules, "float32", full=False)
    if table is None:
        need = min(rules.max_total, max(0, int(need)))
        with Stage(f"solving the targets up to {need} points still needed", "layers") as stage:
            table = solve_target_from(rules, *state, need, progress=stage.update, dtype="float32")
    return table.flat


# ---------------------------------------------------------------------------------------
# answers: the command line and the API


def chances_json(config: Any, seats: Sequence[Seat], to_move: int | None = None) -> dict[str, Any]:
    """Every player's chance at the table: ``players`` (name, sheet text, score, boxes
    filled, expected final score, chance), ``to_move`` and the model in words."""
    from diceopt.games.yatzy.winning.versus import side_json

    rules = config.rules
    check_config(config)
    check_count(len(seats))
    pmfs = [final_pmf(config, s.sheet) for s in seats]
    chances = win_chances(pmfs)
    players = [
        {
            "name": s.name,
            "sheet": sheet_text(s.sheet, rules),
            "sheet_json": side_json(s.sheet),
            "score": s.sheet.points(),
            "filled": len(s.sheet.filled),
            "expected_final": float(np.arange(p.size) @ p),
            "chance": float(c),
        }
        for s, p, c in zip(seats, pmfs, chances, strict=True)
    ]
    return {
        "variant": config.variant,
        "players": players,
        "to_move": to_move,
        "chance_is": MODEL,
    }


def chance_lines(data: Mapping[str, Any]) -> list[str]:
    """:func:`chances_json` for people: one line per player."""
    players = data["players"]
    width = max(len(p["name"]) for p in players)
    total = len(data["players"])
    lines = [
        f"{data['variant']}: the chances of winning at a table of {total} (everyone plays "
        "for the expected score from their sheet; a k-way tie counts 1/k)"
    ]
    for i, p in enumerate(players):
        mark = "  (to move)" if data.get("to_move") == i else ""
        lines.append(
            f"  {p['name']:<{width}}  {100 * p['chance']:6.2f}%   score {p['score']:g}, "
            f"{p['filled']} boxes filled, expected final {p['expected_final']:.1f}{mark}"
        )
    return lines


def run_chances(config: Any, args: Any) -> Any:
    """``diceopt yatzy chances --player 'NAME: SHEET' ...``: every player's chance."""
    from diceopt.games.contract import CommandOutput

    values = list(args.player or [])
    check_count(len(values))  # before any sheet is read or table loaded
    check_config(config)
    seats = parse_table(values, config.rules)
    to_move = None
    if args.to_move is not None:
        to_move = seat_index(args.to_move, seats)
    data = chances_json(config, seats, to_move)
    return CommandOutput(data, chance_lines(data))


def seat_index(value: Any, seats: Sequence[Seat]) -> int:
    """A player by name or by number (1-based text, as typed; an int from JSON is 0-based
    only where the caller says so): InputError (one line) when there is none."""
    names = [s.name for s in seats]
    text = str(value).strip()
    if text in names:
        return names.index(text)
    if is_digits(text) and 1 <= int(text) <= len(seats):
        return int(text) - 1
    raise InputError(f"no player {text!r} at the table (players: {', '.join(names)})")
