"""Yatzy (Scandinavian, the default) and Yahtzee (American): exact solver and advice.

The advice contract of :mod:`diceopt.advice`: ``VARIANTS``, ``POSITION_EXAMPLE``,
``advise`` and ``apply``. Solved tables are loaded from the cache directory (or solved
and saved there) once per process and kept in ``_TABLES``.

Modules: ``rules`` (variants as data, scoring tables), ``kernel`` (the numba solver and
the per-turn widget), ``storage`` (table files), ``advice`` (positions and actions),
``engine_game`` (the same rules on the generic engine, for tests).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

import numpy as np

from diceopt.advice import ActionAdvice
from diceopt.games.yatzy.rules import DEFAULT_VARIANT, VARIANTS, get_rules, variant_id

if TYPE_CHECKING:  # the kernel imports numba: only loaded when a table is needed
    from diceopt.games.yatzy.kernel import YatzyTable

__all__ = [
    "POSITION_EXAMPLE",
    "VARIANTS",
    "advise",
    "apply",
    "get_solved",
    "main_job",
    "value_is",
]

POSITION_EXAMPLE = "dice 1 3 3 5 6 | rerolls 2 | filled ones twos | upper 3 | score 3"

_TABLES: dict[tuple[str, float, str], YatzyTable] = {}


def get_solved(
    variant: str | None = None,
    theta: float = 0.0,
    dtype: str = "float32",
    cache_dir: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> YatzyTable:
    """The solved table of a variant, cached in this process."""
    from diceopt.games.yatzy.storage import get_table

    variant = variant_id(variant)
    key = (variant, float(theta), dtype)
    if key not in _TABLES:
        _TABLES[key], _ = get_table(variant, theta, dtype, cache_dir, progress=progress)
    return _TABLES[key]


def advise(position: str, variant: str | None = None) -> list[ActionAdvice]:
    """Every legal action of a position with its value, best first: the expected final
    score when the position gives ``score``, else the expected points still to come
    (:func:`value_is` says which)."""
    from diceopt.games.yatzy.advice import advise_position, parse_position

    rules = get_rules(variant)
    pos = parse_position(position, rules)
    return advise_position(pos, rules, get_solved(variant))


def value_is(position: str, variant: str | None = None) -> str:
    """What the values of ``advise(position, variant)`` are: ``"expected final score
    (points)"`` when the position gives its score, ``"expected points still to come
    (points)"`` when not. InputError for a bad position (no table is loaded)."""
    from diceopt.games.yatzy.advice import parse_position
    from diceopt.games.yatzy.advice import value_is as position_value_is

    return position_value_is(parse_position(position, get_rules(variant)))


def apply(
    position: str,
    action: str,
    variant: str | None = None,
    rng: np.random.Generator | None = None,
) -> tuple[str, bool]:
    """The position after ``action`` (dice rolled with ``rng``) and whether the game is over.

    ``rng`` None uses a fresh unseeded generator.
    """
    from diceopt.games.yatzy.advice import apply_action, format_position, parse_position

    rules = get_rules(variant)
    pos = parse_position(position, rules)
    new, over = apply_action(pos, action, rules, rng or np.random.default_rng())
    return format_position(new, rules), over


def progress_bar(label: str, stream: TextIO | None = None) -> Callable[[int, int], None]:
    """A callback(done, total) drawing a one-line text progress bar on stderr."""
    out = stream or sys.stderr

    def show(done: int, total: int) -> None:
        width = 30
        fill = round(width * done / total)
        end = "\n" if done >= total else ""
        out.write(f"\r{label} [{'#' * fill}{'.' * (width - fill)}] {done}/{total} layers{end}")
        out.flush()

    return show


def main_job(out: Callable[[str], None] = print) -> None:
    """`make run`: solve (or load) Scandinavian Yatzy, print its value, time and an advice."""
    from diceopt.games.yatzy.advice import advise_position, parse_position
    from diceopt.games.yatzy.kernel import warm_up
    from diceopt.games.yatzy.storage import get_table, load_table

    t0 = time.perf_counter()
    loaded = load_table(DEFAULT_VARIANT, 0.0, "float32")
    if loaded is not None:
        table, seconds = loaded
        out(f"Scandinavian Yatzy: cached table loaded in {seconds * 1000:.0f} ms")
    else:
        compile_seconds = warm_up("float32")
        bar = progress_bar("solving Scandinavian Yatzy")
        table, info = get_table(DEFAULT_VARIANT, 0.0, "float32", force=True, progress=bar)
        out(
            f"Scandinavian Yatzy solved in {info.seconds:.2f} s "
            f"(numba compile {compile_seconds:.2f} s, {table.states:,} states)"
        )
    out(f"optimal expected score: {table.value:.4f} points (published 248.4399893778553)")
    rules = get_rules(DEFAULT_VARIANT)
    pos = parse_position(POSITION_EXAMPLE, rules)
    advise_position(pos, rules, table)  # first call loads the widget kernel
    t1 = time.perf_counter()
    actions = advise_position(pos, rules, table)
    ms = (time.perf_counter() - t1) * 1000
    out(f"advice for '{POSITION_EXAMPLE}' ({ms:.2f} ms):")
    for a in actions[:5]:
        out(f"  {a.action:<22} expected final score {a.value:9.4f}   regret {a.regret:7.4f}")
    out(f"  ... {len(actions)} legal actions; total time {time.perf_counter() - t0:.1f} s")
