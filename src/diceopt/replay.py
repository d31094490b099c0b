"""Replaying records through the game's own rules, for any game.

A record (:mod:`diceopt.record`) says what was played and what followed; ``analyse``
trusts none of it. Every move of a game is replayed with the contract's ``apply``, its
dice given by a :class:`Scripted` generator instead of a random one: the record is
accepted only where some chance outcome of the move gives exactly the record's ``~>``
line (what followed, in the game's words), the position of the next move (or, where the
record ends the game, a game over with the record's result). The opening position of a
game that starts with ``~> new game`` must be one that ``new_position`` can give (or, for
a turn that carries something over from the last, such as Zilch's streak, ``new_turn``).

Which dice to try comes from the game's ``replay_draws`` hook (the draws that lead to the
position recorded next: usually one candidate, derived from that position's dice); the
default tries every draw of ``integers`` and ``choice`` in turn (bounded by
:data:`MAX_TRIES`). The game only proposes candidates: whether one follows is decided
here, the same way for every game.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from diceopt.errors import InputError
from diceopt.games.contract import GameSpec, Step
from diceopt.lazy import numpy as np

T = TypeVar("T")

MAX_TRIES = 50_000  # chance outcomes tried for one move by the exhaustive default
RESULT_TOLERANCE = 1e-9  # a recorded result this close to the game's is the game's


class Unscripted(Exception):
    """The game drew what the script does not hold (another draw, or a value off the
    die): the candidate is not one of the move's outcomes."""


def _shape(size: Any) -> tuple[int, ...]:
    if size is None:
        return ()
    return tuple(int(s) for s in size) if isinstance(size, tuple | list) else (int(size),)


class Scripted:
    """A stand-in for ``numpy.random.Generator`` whose draws are given: each call of
    ``integers``, ``random`` or ``choice`` returns the next value of ``draws`` (an int
    or float, or a sequence of the call's ``size``), checked against the call's range
    (:class:`Unscripted` when it does not fit or the draws are used up)."""

    def __init__(self, draws: Sequence[Any] = ()) -> None:
        self.draws = list(draws)
        self.used = 0

    def _next(self) -> Any:
        if self.used >= len(self.draws):
            raise Unscripted("the game drew more than the script holds")
        self.used += 1
        return self.draws[self.used - 1]

    @property
    def done(self) -> bool:
        """Every draw of the script was used."""
        return self.used == len(self.draws)

    def _array(self, value: Any, size: Any) -> Any:
        arr = np.asarray(value)
        if arr.shape != _shape(size) or arr.dtype.kind not in "iu":
            raise Unscripted(f"a draw of shape {_shape(size)}, the script has {value!r}")
        return arr.astype(np.int64)

    def integers(
        self, low: int, high: int | None = None, size: Any = None, dtype: Any = None, **kw: Any
    ) -> Any:
        if high is None:
            low, high = 0, low
        if kw.get("endpoint"):
            high += 1
        arr = self._array(self._next(), size)
        if arr.size and not (arr.min() >= low and arr.max() < high):
            raise Unscripted(f"a draw from {low} to {high - 1}, the script has {arr.tolist()}")
        return arr if size is not None else np.int64(arr)

    def random(self, size: Any = None, **kw: Any) -> Any:
        value = self._next()
        arr = np.asarray(value, dtype=float)
        if arr.shape != _shape(size) or not ((arr >= 0).all() and (arr < 1).all()):
            raise Unscripted(f"a number in [0, 1) of shape {_shape(size)}, got {value!r}")
        return arr if size is not None else float(arr)

    def choice(
        self, a: Any, size: Any = None, replace: bool = True, p: Any = None, **kw: Any
    ) -> Any:
        n = int(a) if np.ndim(a) == 0 else len(a)
        idx = self._array(self._next(), size)
        flat = idx.ravel()
        if flat.size and not (flat.min() >= 0 and flat.max() < n):
            raise Unscripted(f"an index below {n}, the script has {flat.tolist()}")
        if not replace and len(set(flat.tolist())) != flat.size:
            raise Unscripted("a draw without replacement repeats an index")
        if p is not None and flat.size and (np.asarray(p)[flat] <= 0).any():
            raise Unscripted("the script draws a face that cannot show")
        if np.ndim(a) == 0:
            return idx if size is not None else np.int64(idx)
        picked = np.asarray(a)[idx]
        return picked


class _Explorer(Scripted):
    """Every sequence of ``integers``/``choice`` draws in turn (an odometer over the
    draws a run makes): ``path`` holds the index of each draw's value so far."""

    def __init__(self, path: list[int], sizes: list[int]) -> None:
        super().__init__()
        self.path, self.sizes, self.depth = path, sizes, 0

    def _pick(self, domain: int) -> int:
        if self.depth == len(self.path):
            self.path.append(0)
            self.sizes.append(domain)
        self.sizes[self.depth] = domain
        k = self.path[self.depth]
        self.depth += 1
        return k

    def _values(self, low: int, high: int, size: Any) -> Any:
        shape = _shape(size)
        count = int(np.prod(shape)) if shape else 1
        span = high - low
        if span <= 0 or span**count > MAX_TRIES:
            raise InputError(f"too many chance outcomes to replay ({span}^{count})")
        k = self._pick(span**count)
        digits = [(k // span**i) % span + low for i in range(count)]
        return np.array(digits, dtype=np.int64).reshape(shape) if shape else np.int64(digits[0])

    def integers(
        self, low: int, high: int | None = None, size: Any = None, dtype: Any = None, **kw: Any
    ) -> Any:
        if high is None:
            low, high = 0, low
        if kw.get("endpoint"):
            high += 1
        return self._values(int(low), int(high), size)

    def random(self, size: Any = None, **kw: Any) -> Any:
        raise InputError(
            "this game's dice cannot be replayed (it draws with random(); the game's "
            "replay_draws gives the draws)"
        )

    def choice(
        self, a: Any, size: Any = None, replace: bool = True, p: Any = None, **kw: Any
    ) -> Any:
        n = int(a) if np.ndim(a) == 0 else len(a)
        idx = self._values(0, n, size)
        flat = np.ravel(idx)
        if (not replace and len(set(flat.tolist())) != flat.size) or (
            p is not None and (np.asarray(p)[flat] <= 0).any()
        ):
            raise Unscripted("not a draw of this die")
        return idx if np.ndim(a) == 0 else np.asarray(a)[idx]


def explore(play: Callable[[Any], T]) -> Iterator[T]:
    """``play(rng)`` for every sequence of ``integers``/``choice`` draws (values in
    order, at most :data:`MAX_TRIES` runs; InputError beyond)."""
    path: list[int] = []
    sizes: list[int] = []
    for _ in range(MAX_TRIES):
        rng = _Explorer(path, sizes)
        try:
            yield play(rng)
        except Unscripted:
            pass
        del path[rng.depth :], sizes[rng.depth :]
        while path and path[-1] + 1 >= sizes[-1]:
            path.pop()
            sizes.pop()
        if not path:
            return
        path[-1] += 1
    raise InputError(f"too many chance outcomes to replay (over {MAX_TRIES})")


def outcomes(
    spec: GameSpec,
    rules: Any,
    play: Callable[[Any], T],
    pos: Any,
    action: str | None,
    after: Any,
    events: str = "",
) -> Iterator[T]:
    """What ``play(rng)`` gives for each candidate of the game's ``replay_draws`` (every
    draw in turn where it gives none); a candidate the game draws otherwise is skipped."""
    candidates = spec.replay_draws(rules, pos, action, after, events)
    if candidates is None:
        yield from explore(play)
        return
    for draws in candidates:
        rng = Scripted(draws)
        try:
            value = play(rng)
        except Unscripted:
            continue
        if rng.done:
            yield value


# --- checking a recorded game ---------------------------------------------------------


def _text(words: str) -> str:
    return " ".join(words.split())


def events_text(events: Sequence[str]) -> str:
    """A step's events as the record's ``~>`` line writes them (without the ``~>``)."""
    from diceopt.record import NOTHING

    return "; ".join(_text(e) for e in events if e.strip()) or NOTHING


def same_result(a: float, b: float) -> bool:
    """Equal results (within :data:`RESULT_TOLERANCE`, relative for large ones)."""
    return math.isfinite(a) and abs(a - b) <= RESULT_TOLERANCE * max(1.0, abs(b))


@dataclass(frozen=True)
class _Move:
    """A recorded move for the check: its line, position object, canonical action, the
    recorded events (None: no ``~>`` line) and their line."""

    line: int
    pos: Any
    action: str
    events: str | None
    events_line: int | None


def check_game(spec: GameSpec, rules: Any, game: Any, positions: Sequence[Any], name: str) -> None:
    """Replay a recorded game (``positions``: its moves' parsed positions, ``game``: a
    :class:`diceopt.record.RecordedGame`); InputError naming the first line that does
    not follow from the line before it (``NAME line N: ...``)."""
    fmt = lambda p: spec.format(rules, p)  # noqa: E731 - a short local helper
    moves = [
        _Move(m.line, p, m.action, m.events, m.events_line)
        for m, p in zip(game.moves, positions, strict=True)
    ]
    if game.start_line is not None and moves:
        first = fmt(moves[0].pos)
        carried = spec.carried(rules, moves[0].pos)  # a turn after the last (a streak)

        def opening(rng: Any) -> Any:
            if carried is None:
                return spec.new_position(rules, rng)
            return spec.new_turn(rules, carried, rng)

        starts = outcomes(spec, rules, opening, None, None, moves[0].pos)
        if not any(fmt(p) == first for p in starts):
            raise InputError(
                f"{name} line {moves[0].line}: a game does not start in {first!r} "
                f"(the game starts on line {game.start_line})"
            )
    for i, move in enumerate(moves):
        if move.events is None or move.events_line is None:
            continue  # an older record: the move is graded, not replayed
        nxt = moves[i + 1] if i + 1 < len(moves) else None
        ends = nxt is None and game.result is not None
        after = nxt.pos if nxt is not None else None

        def play(rng: Any, m: _Move = move) -> Step:
            return spec.apply(rules, m.pos, m.action, rng)

        steps: list[Step] = list(
            outcomes(
                spec,
                rules,
                play,
                move.pos,
                move.action,
                after,
                move.events,
            )
        )
        said = _text(move.events)
        followed = [s for s in steps if events_text(s.events) == said]
        where = f"{name} line {move.events_line}"
        if not followed:
            shown = "; ".join(sorted({events_text(s.events) for s in steps})[:3])
            raise InputError(
                f"{where}: '{said}' cannot follow '{move.action}' on line {move.line}"
                + (f" (it gives e.g. '{shown}')" if shown else "")
            )
        if nxt is not None:
            going = [s for s in followed if not s.game_over]
            if not going:
                raise InputError(
                    f"{name} line {nxt.line}: a move after the end of the game (it ended "
                    f"after line {move.line})"
                )
            if not any(fmt(s.position) == fmt(nxt.pos) for s in going):
                raise InputError(
                    f"{name} line {nxt.line}: '{fmt(nxt.pos)}' does not follow from line "
                    f"{move.line} ('{move.action}', then '{said}'); it would be "
                    f"'{fmt(going[0].position)}'"
                )
            continue
        over = [s for s in followed if s.game_over]
        if ends:
            assert game.result_line is not None
            if not over:
                raise InputError(
                    f"{name} line {game.result_line}: the game is not over after line {move.line}"
                )
            results = [float(s.result if s.result is not None else 0.0) for s in over]
            if not any(same_result(game.result, r) for r in results):
                raise InputError(
                    f"{name} line {game.result_line}: the result is {results[0]:g}, "
                    f"not {game.result:.12g}"
                )
        elif over and len(over) == len(followed) and over[0].result is not None:
            raise InputError(
                f"{name} line {move.events_line}: the game is over here, but no "
                "'= RESULT' line follows"
            )
