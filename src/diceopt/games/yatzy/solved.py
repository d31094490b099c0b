"""The solved Yatzy tables of this process, and the configuration that names one.

Role: :class:`YatzyConfig` is what the CLI, the web page and the environments resolve a
variant's name into, once (``SPEC.rules``): the rules object, theta and the table's
float type; everything below takes the rules object, whose ``storage_key`` files its
tables. Solved tables are loaded from the cache directory (or solved and saved there)
once per process and kept in :data:`TABLES` (keyed by :func:`table_memo`).

1. :func:`get_solved` / :meth:`YatzyConfig.table`: the table from this process, else
   the cache directory, else solved (saved-rerolls variants: loaded only,
   :func:`saved_table`).
2. :func:`solve_report` / :func:`solve_saved_report`: ``diceopt yatzy solve`` (load, or
   solve and store), with the lines and data it reports.
3. :func:`main_job`: ``make run``'s Yatzy section.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from diceopt.errors import InputError, TableFileError
from diceopt.games.contract import Report
from diceopt.games.yatzy.rules import DEFAULT_VARIANT, YatzyRules, get_rules
from diceopt.progress import Stage, notice
from diceopt.storage import warn

if TYPE_CHECKING:  # the kernel imports numba: only loaded when a table is needed
    import numpy as np

    from diceopt.games.yatzy.plain import PlainTable
    from diceopt.games.yatzy.saved import SavedTable
    from diceopt.games.yatzy.table import YatzyTable
else:
    from diceopt.lazy import numpy as np


POSITION_EXAMPLE = "dice 1 3 3 5 6 | rerolls 2 | filled ones twos | upper 3 | score 3"


TABLES: dict[tuple[str, float, str], YatzyTable | SavedTable] = {}  # see table_memo


def table_memo(rules: YatzyRules, theta: float, dtype: str) -> tuple[str, float, str]:
    """The key of a table in :data:`TABLES`: (``rules.storage_key``, theta, dtype)."""
    from diceopt.storage import dtype_name

    return (rules.storage_key, float(theta), dtype_name(dtype))


SAVED_CPU = "about 1,100 CPU-seconds in float32"  # maxi-saved, measured


def saved_solve_cost(rules: YatzyRules, dtype: str = "float32") -> str:
    """What solving a saved-rerolls variant costs: CPU time (measured, maxi-saved) and the
    size of its table in ``dtype`` on disk."""
    from diceopt.games.yatzy.saved import table_bytes

    return f"{SAVED_CPU}, {table_bytes(rules, dtype) / 1e9:.1f} GB of disk"


def solve_command(rules: YatzyRules, dtype: str = "float32", cache_dir: str | None = None) -> str:
    """The command that solves and stores the table of ``rules`` in ``dtype`` where it
    is looked for: ``cache_dir``, else $DICEOPT_CACHE (named with --cache-dir), else the
    default cache directory."""
    import os
    import shlex

    from diceopt import storage

    source = ["--rules", "FILE"] if rules.key else ["--variant", rules.name]
    words = ["diceopt", "yatzy", "solve", *source]
    if np.dtype(dtype).name != "float32":
        words += ["--dtype", np.dtype(dtype).name]
    if cache_dir or os.environ.get(storage.ENV_VAR):
        words += ["--cache-dir", str(storage.cache_root(cache_dir))]
    return shlex.join(words)


def note(line: str) -> None:
    """A line about what a solve did with files (shown beside the progress)."""
    notice(line)


def get_solved(
    rules: YatzyRules | str | None = None,
    theta: float = 0.0,
    dtype: str = "float32",
    cache_dir: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> YatzyTable | SavedTable:
    """The solved table of a variant, cached in this process (saved-rerolls variants:
    the stored table only, InputError if it is not stored; see :func:`saved_table`).

    ``rules``: the rules object; the Python API's edge also takes a variant's name (None:
    the default), resolved here once (:func:`~diceopt.games.yatzy.rules.get_rules`)."""
    from diceopt.games.yatzy.storage import get_table

    if not isinstance(rules, YatzyRules):
        rules = get_rules(rules)
    key = table_memo(rules, theta, dtype)
    if key not in TABLES:
        if rules.saved_rerolls:
            TABLES[key] = saved_table(rules, dtype, cache_dir)
        else:
            TABLES[key], _ = get_table(rules, theta, dtype, cache_dir, progress=progress)
    return TABLES[key]


def saved_table(
    rules: YatzyRules, dtype: str = "float32", cache_dir: str | None = None
) -> SavedTable:
    """The stored table of a saved-rerolls variant (layers memory-mapped when read);
    InputError when it is not stored: its solve takes minutes, so it is never started
    by a command that only reads it."""
    from diceopt.games.yatzy.saved import load_saved

    got = load_saved(rules, dtype, cache_dir)
    if got is None:
        raise InputError(
            f"the {rules.name} table ({dtype}) is not stored: solve it first with "
            f"`{solve_command(rules, dtype, cache_dir)}` ({saved_solve_cost(rules, dtype)})"
        )
    return got[0]


def main_job(out: Callable[[str], None]) -> None:
    """`make run`: solve (or load) Scandinavian Yatzy, print its value, time and an advice."""
    from diceopt.games.yatzy.advice import advise_position, parse_position
    from diceopt.games.yatzy.solve import warm_up
    from diceopt.games.yatzy.storage import get_table, load_table

    t0 = time.perf_counter()
    out("== Yatzy (Scandinavian), maximising the expected score ==")
    rules = get_rules(DEFAULT_VARIANT)  # the edge: `make run`
    loaded = load_table(rules, 0.0, "float32")
    if loaded is not None:
        table, seconds = loaded
        out(f"Scandinavian Yatzy: cached table loaded in {seconds * 1000:.0f} ms")
    else:
        compile_seconds = warm_up("float32")
        with Stage("solving Scandinavian Yatzy", "layers") as stage:
            table, info = get_table(rules, 0.0, "float32", force=True, progress=stage.update)
        out(
            f"Scandinavian Yatzy solved in {info.seconds:.2f} s "
            f"(numba compile {compile_seconds:.2f} s, {table.states:,} states)"
        )
    out(f"optimal expected score: {table.value:.4f} points (published 248.4399893778553)")
    pos = parse_position(POSITION_EXAMPLE, rules)
    advise_position(pos, rules, table)  # first call loads the widget kernel
    t1 = time.perf_counter()
    actions = advise_position(pos, rules, table)
    ms = (time.perf_counter() - t1) * 1000
    out(f"advice for '{POSITION_EXAMPLE}' ({ms:.2f} ms):")
    for a in actions[:5]:
        out(f"  {a.action:<22} expected final score {a.value:9.4f}   regret {a.regret:7.4f}")
    out(f"  ... {len(actions)} legal actions; total time {time.perf_counter() - t0:.1f} s")
    from diceopt.games.yatzy.duel import main_job as duel_section

    duel_section(out)


@dataclass(frozen=True)
class YatzyConfig:
    """A Yatzy table: the variant's rules (resolved once from its name, at the edge:
    ``SPEC.rules``), theta (exponential utility, per point; 0 is the expected score) and
    the table's float type. ``requested``: the rules came in a request (a pasted rule
    file, :mod:`diceopt.games.yatzy.requested`): a server builds only small tables for it."""

    rules: YatzyRules
    theta: float = 0.0
    dtype: str = "float32"
    requested: bool = field(default=False, compare=False)

    @property
    def variant(self) -> str:
        """The variant's name (for people: titles, JSON ``variant``)."""
        return self.rules.name

    def describe(self) -> dict[str, Any]:
        """The configuration as plain data."""
        return {"variant": self.variant, "theta": self.theta, "dtype": self.dtype}

    def advised(self, use: Callable[[YatzyTable | SavedTable | PlainTable], Any]) -> Any:
        """``use(table)`` on the table advice reads: this process's, else the stored rows,
        read a few at a time without numpy (:class:`~diceopt.games.yatzy.plain.PlainTable`,
        each block checked before it is used), else :meth:`table`. A damaged stored
        table is reported (one line), solved again and stored; ``use`` then runs on that."""
        from diceopt.games.yatzy.storage import stored_rows, table_path

        key = table_memo(self.rules, self.theta, self.dtype)
        if key in TABLES or self.rules.saved_rerolls:
            return use(self.table())
        try:
            rows = stored_rows(self.rules, self.theta, self.dtype)
            if rows is None:  # not stored, or stored without block checksums
                return use(self.table())
            from diceopt.games.yatzy.plain import PlainTable

            return use(PlainTable(self.rules, rows, self.theta))
        except TableFileError as exc:
            path = table_path(self.rules, self.theta, self.dtype)
            warn(f"ignoring cached table {path}: {exc}; rebuilding it")
        return use(self.solved(force=True))

    def solved(self, force: bool = False) -> YatzyTable | SavedTable:
        """The table loaded (``force``: not) or solved (and stored), kept in this process."""
        from diceopt.games.yatzy.storage import get_table, load_table

        key = table_memo(self.rules, self.theta, self.dtype)
        loaded = None if force else load_table(self.rules, self.theta, self.dtype)
        if loaded is not None:  # (read and warned once)
            TABLES[key] = loaded[0]
        else:
            with Stage(f"solving {self.variant} (first use)", "layers") as stage:
                TABLES[key], _ = get_table(
                    self.rules, self.theta, self.dtype, force=True, progress=stage.update
                )
        return TABLES[key]

    def table(self) -> YatzyTable | SavedTable:
        """The solved table (loaded or solved once per process; progress on a terminal;
        saved-rerolls variants: loaded only, see :func:`saved_table`)."""
        key = table_memo(self.rules, self.theta, self.dtype)
        if key in TABLES:
            return TABLES[key]
        if self.rules.saved_rerolls:
            return get_solved(self.rules, self.theta, self.dtype)
        return self.solved()


def solve_saved_report(rules: YatzyConfig, force: bool) -> Report:
    """``solve`` for a saved-rerolls variant: load the stored layers, or solve them layer
    by layer into the cache directory (two layers in memory), resuming an unfinished
    solve's checked layers (notes on stderr)."""
    from diceopt.games.yatzy.saved import get_saved, layers_dir, load_saved, warm_up

    folder = layers_dir(rules.rules, rules.dtype)
    compile_seconds = 0.0
    t0 = time.perf_counter()
    got = None if force else load_saved(rules.rules, rules.dtype)
    if got is not None:
        table = got[0]
        seconds = time.perf_counter() - t0
        lines = [f"loaded {folder} in {seconds * 1000:.1f} ms (solved in {table.seconds:.2f} s)"]
    else:
        compile_seconds = warm_up(rules.dtype)
        label = f"solving {rules.variant} ({saved_solve_cost(rules.rules, rules.dtype)})"
        with Stage(label, "layers") as stage:
            table, _ = get_saved(
                rules.rules, rules.dtype, force=force, progress=stage.update, say=note,
                load=False,
            )  # fmt: skip
        seconds = table.seconds
        lines = [
            f"solved {table.states:,} states in {seconds:.2f} s "
            f"(numba compile {compile_seconds:.2f} s); saved to {folder}"
        ]
    TABLES[table_memo(rules.rules, 0.0, rules.dtype)] = table
    lines.insert(0, f"{rules.variant}: optimal expected final score {table.value:.6f} points")
    data = {
        "variant": rules.variant,
        "theta": 0.0,
        "dtype": rules.dtype,
        "compile_seconds": compile_seconds,
        "solve_seconds": table.seconds,
        "table_seconds": seconds,
        "states": table.states,
        "loaded": got is not None,
        "path": str(folder),
    }
    return Report(table.value, data, lines)


def solve_report(rules: YatzyConfig, force: bool = False) -> Report:
    """Load the stored table, or solve it (``force``: always solve) and store it."""
    if rules.rules.saved_rerolls:
        return solve_saved_report(rules, force)
    from diceopt.games.yatzy.storage import get_table, load_table, table_path

    path = table_path(rules.rules, rules.theta, rules.dtype)
    loaded = None if force else load_table(rules.rules, rules.theta, rules.dtype)
    compile_seconds = 0.0
    if loaded is not None:
        table, seconds = loaded
        lines = [f"loaded {path} in {seconds * 1000:.1f} ms (solved in {table.seconds:.2f} s)"]
        saved = True
    else:
        from diceopt.games.yatzy.solve import warm_up  # numba: only to solve

        compile_seconds = warm_up(rules.dtype)
        with Stage(f"solving {rules.variant}", "layers") as stage:
            table, info = get_table(
                rules.rules, rules.theta, rules.dtype, force=True, progress=stage.update
            )
        seconds = info.seconds
        saved = info.saved
        where = f"saved to {path}" if saved else "not saved (see the warning above)"
        lines = [
            f"solved {table.states:,} states in {seconds:.2f} s "
            f"(numba compile {compile_seconds:.2f} s); {where}"
        ]
    TABLES[table_memo(rules.rules, rules.theta, rules.dtype)] = table
    what = "expected final score" if rules.theta == 0 else "certainty equivalent"
    lines.insert(0, f"{rules.variant}: optimal {what} {table.value:.6f} points")
    data = {
        "variant": rules.variant,
        "theta": rules.theta,
        "dtype": rules.dtype,
        "compile_seconds": compile_seconds,
        "solve_seconds": table.seconds,
        "table_seconds": seconds,
        "states": table.states,
        "loaded": loaded is not None,
        "path": str(path) if saved else None,
    }
    return Report(table.value, data, lines)
