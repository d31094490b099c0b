"""Risk-sensitive Yatzy: the exact score distribution of several exponential-utility tables.

For each theta the table maximising the certainty equivalent
``(1/theta) log E[exp(theta X)]`` of the final score X (points; theta < 0 risk-averse,
theta > 0 risk-seeking, 0 the expectation table) is loaded from the cache or solved and
saved, and the exact distribution of the final score under its policy is computed
(:mod:`diceopt.games.yatzy.analyses.distribution`; no sampling, so no seed and no games).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from diceopt.errors import InputError
from diceopt.games.contract import CommandOutput
from diceopt.games.yatzy.analyses.distribution import distribution
from diceopt.games.yatzy.analyses.score_distribution import ScoreDistribution
from diceopt.games.yatzy.kernel.table import YatzyTable
from diceopt.games.yatzy.rulebook.rules import YatzyRules, check_theta
from diceopt.notation import parse_numbers

PERCENTILES = (1, 5, 10, 25, 50, 75, 90, 95, 99)


@dataclass
class SweepRow:
    """One theta of a sweep: its table's value and the exact final-score distribution."""

    theta: float
    value: float  # table value from the start: certainty equivalent (points)
    dist: ScoreDistribution

    def summary(self) -> dict[str, Any]:
        """Mean, std, percentiles (1 ... 99), min, max (points), bonus and Yatzy rates."""
        s = self.dist.summary()
        s["percentiles"] = {str(p): self.dist.quantile(p / 100) for p in PERCENTILES}
        return s

    def to_json(self) -> dict[str, Any]:
        """Plain data: theta, certainty equivalent and the distribution's summary."""
        return {"theta": self.theta, "certainty_equivalent": self.value} | self.summary()


def parse_thetas(text: str) -> list[float]:
    """Thetas from ``"-0.1,-0.05,0,0.05,0.1"`` (commas or spaces); InputError if invalid."""
    try:
        out = [check_theta(t) for t in parse_numbers(text)]
    except InputError as exc:
        raise InputError(f"bad theta list {text!r}: {exc}") from None
    if not out:
        raise InputError("give at least one theta, e.g. --thetas -0.1,0,0.1")
    if len(set(out)) != len(out):
        raise InputError("a theta is listed twice")
    return out


def sweep_tables(
    tables: Sequence[YatzyTable],
    progress: Callable[[int, int], None] | None = None,
) -> list[SweepRow]:
    """The exact final-score distribution of each table's optimal policy."""
    rows = []
    for i, table in enumerate(tables):
        rows.append(SweepRow(float(table.theta), table.value, distribution(table)))
        if progress is not None:
            progress(i + 1, len(tables))
    return rows


def sweep(
    rules: YatzyRules,
    thetas: Sequence[float],
    dtype: str = "float32",
    cache_dir: str | None = None,
    progress: Callable[[str], None] | None = None,
    ray_address: str | None = None,
) -> list[SweepRow]:
    """Get (or solve and cache) the table of every theta and its exact distribution.

    ``progress(message)`` is called before each solve or distribution. ``ray_address``:
    solve the tables missing from the cache as Ray tasks (``"local"``: a local Ray
    instance, else ``HOST:PORT`` of a cluster; see :mod:`diceopt.games.yatzy.commands.on_ray`),
    all before any is saved, so a failure writes no table; the rows are the same, bit for
    bit, as without Ray.
    """
    from diceopt.games.yatzy.stored.store import get_table, store_table, table_path

    solved: dict[float, YatzyTable] = {}
    if ray_address is not None:
        from diceopt.games.yatzy.commands.on_ray import check_ray, solve_tables_ray

        check_ray(ray_address)  # before any work: one line, nothing written
        missing = [t for t in thetas if not table_path(rules, t, dtype, cache_dir).exists()]
        if missing:
            if progress is not None:
                listed = ", ".join(f"{t:g}" for t in missing)
                progress(f"solving theta {listed} as Ray tasks")
            for table in solve_tables_ray(rules, missing, dtype, ray_address):
                store_table(table, cache_dir)
                solved[table.theta] = table
    rows = []
    for theta in thetas:
        stored = stored_start(rules, theta, dtype) if cache_dir is None else None
        if stored is not None:  # the page's thetas after make run: the same numbers
            if progress is not None:
                progress(f"exact distribution for theta {theta:g} (stored rows)")
            rows.append(SweepRow(float(theta), stored[0].value, stored[1]))
            continue
        got = solved.get(float(theta))
        if got is not None:
            table = got
        else:
            if progress is not None and not table_path(rules, theta, dtype, cache_dir).exists():
                progress(f"solving theta {theta:g} (first use)")
            table, _ = get_table(rules, theta, dtype, cache_dir)
        if progress is not None:
            progress(f"exact distribution for theta {theta:g}")
        rows.extend(sweep_tables([table]))
        if cache_dir is None:  # read by the next sweep or distribution of this table
            from diceopt.games.yatzy.stored.store import store_start_row

            store_start_row(rules, theta, dtype, rows[-1].dist)
    return rows


def stored_start(
    rules: YatzyRules, theta: float, dtype: str
) -> tuple[YatzyTable, ScoreDistribution] | None:
    """The (theta, dtype) table and its distribution from the start, read from stored
    rows (:func:`~diceopt.games.yatzy.analyses.distribution.start_from_rows`:
    :func:`distribution`'s numbers bit for bit) in the default cache directory: the
    first turns' rows (``make run`` stores those of theta 0 and +-0.05; the table is
    then kept in this process with them), else the start's row an earlier run stored
    (:func:`~diceopt.games.yatzy.stored.store.stored_start_row`); None when neither is
    stored."""
    from diceopt.games.yatzy.analyses.distribution import start_from_rows
    from diceopt.games.yatzy.stored.store import (
        early_stored,
        get_solved,
        get_table,
        stored_early_rows,
        stored_start_row,
    )

    table: Any = None
    if early_stored(rules, theta, dtype):
        table = get_solved(rules, theta, dtype)
        rows = stored_early_rows(table) if isinstance(table, YatzyTable) else None
    else:
        rows = stored_start_row(rules, theta, dtype)
        if rows is not None:  # the table not kept: a long sweep holds no more
            table, _ = get_table(rules, theta, dtype)
    if rows is None or not isinstance(table, YatzyTable):  # (saved rerolls: not stored)
        return None
    dist = start_from_rows(table, rows)
    return None if dist is None else (table, dist)


def frontier_png(rows: Sequence[SweepRow], path: str, title: str) -> None:
    """A mean/std scatter (points), one labelled dot per theta, written as PNG to ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.8), dpi=100)
    stds = [r.dist.std for r in rows]
    means = [r.dist.mean for r in rows]
    ax.plot(stds, means, "-", color="0.7", zorder=1)
    ax.scatter(stds, means, c=[r.theta for r in rows], cmap="coolwarm", zorder=2)
    for r, x, y in zip(rows, stds, means):
        ax.annotate(f"θ={r.theta:g}", (x, y), textcoords="offset points", xytext=(5, 5))
    ax.set_xlabel("standard deviation of the final score (points)")
    ax.set_ylabel("mean final score (points)")
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def run_sweep(config: Any, args: argparse.Namespace) -> CommandOutput:
    """``diceopt yatzy sweep``: a table per theta and a frontier plot."""
    import time

    from diceopt.games.yatzy.analyses.distribution import warm_up
    from diceopt.games.yatzy.commands.requests import check_distribution_memory
    from diceopt.output import check_plot_path, write_plot
    from diceopt.progress import notice

    thetas = parse_thetas(args.thetas)
    check_plot_path(args.plot)
    check_distribution_memory(config, None)  # each theta's distribution from the start
    if args.ray is not None:  # a bad address is one line at once, before any compile
        from diceopt.games.yatzy.commands.on_ray import check_ray

        check_ray(args.ray)
    t0 = time.perf_counter()
    compile_seconds = warm_up(config.dtype)
    rows = sweep(config.rules, thetas, config.dtype, None, notice, args.ray)
    if args.plot:
        title = f"{config.variant}: mean and spread by theta (exact distributions)"
        write_plot(lambda out: frontier_png(rows, out, title), args.plot)
    seconds = time.perf_counter() - t0
    data = {
        "variant": config.variant,
        "dtype": config.dtype,
        "rows": [r.to_json() for r in rows],
        "seconds": seconds,
        "compile_seconds": compile_seconds,
        "plot": args.plot,
    }
    head = f"{'theta':>7} {'cert.eq':>8} {'mean':>8} {'std':>7}"
    head += "".join(f" {'p' + str(p):>5}" for p in (1, 5, 10, 25, 50, 75, 90, 95, 99))
    head += f" {'bonus':>6} {'yatzy':>6}"
    lines = [
        f"{config.variant}: exact final-score distribution of each theta's optimal policy",
        head,
    ]
    for r in rows:
        s = r.summary()
        line = f"{r.theta:>7g} {r.value:8.2f} {s['mean']:8.2f} {s['std']:7.2f}"
        line += "".join(f" {v:5.0f}" for v in s["percentiles"].values())
        line += f" {100 * s['bonus_rate']:5.1f}% {100 * s['yatzy_rate']:5.1f}%"
        lines.append(line)
    lines.append(f"total {seconds:.1f} s (compile {compile_seconds:.1f} s)")
    if args.plot:
        lines.append(f"frontier written to {args.plot}")
    return CommandOutput(data, lines)
