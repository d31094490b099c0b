"""``diceopt yatzy solve`` and ``make run``'s Yatzy section.

Role: load a variant's stored table or solve and store it (through
:mod:`~diceopt.games.yatzy.stored.store`), with the lines and data the command reports
(:func:`solve_report`, :func:`solve_saved_report`); :func:`main_job` prints the
Scandinavian table's value, its time and one advice, then the duel section.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from diceopt.games.contract import Report
from diceopt.games.yatzy.rulebook.variants import DEFAULT_VARIANT, get_rules
from diceopt.games.yatzy.stored.store import (
    YatzyConfig,
    get_table,
    keep,
    load_table,
    note,
    saved_solve_cost,
    table_path,
)
from diceopt.progress import Stage

if TYPE_CHECKING:
    from diceopt.games.yatzy.kernel.table import YatzyTable

POSITION_EXAMPLE = "dice 1 3 3 5 6 | rerolls 2 | filled ones twos | upper 3 | score 3"


def main_job(out: Callable[[str], None]) -> None:
    """`make run`: solve (or load) Scandinavian Yatzy, print its value, time and an advice."""
    from diceopt.games.yatzy.kernel.solve import warm_up
    from diceopt.games.yatzy.play.advice import advise_position, parse_position

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
    from diceopt.games.yatzy.winning.duel import main_job as duel_section

    duel_section(out)


@contextmanager
def ray_session(address: str | None) -> Iterator[Any]:
    """:func:`~diceopt.games.yatzy.commands.on_ray.connect` for the block (the ``ray``
    module), or None when ``address`` is None (no Ray: the caller solves in process, and
    the Ray module with the kernels it names is not even imported)."""
    if address is None:
        yield None
        return
    from diceopt.games.yatzy.commands.on_ray import connect

    with connect(address) as ray:
        yield ray


def on_ray(address: str | None) -> str:
    """`` on Ray`` (local or at the address) for a stage's label, or nothing; checks the
    extra and the address first (InputError, one line, before any compile)."""
    if address is None:
        return ""
    from diceopt.games.yatzy.commands.on_ray import LOCAL, check_ray

    check_ray(address)
    return " on a local Ray instance" if address == LOCAL else f" on the Ray cluster at {address}"


def solve_saved_report(
    rules: YatzyConfig, force: bool, ray: str | None = None, place: str = ""
) -> Report:
    """``solve`` for a saved-rerolls variant: load the stored layers, or solve them layer
    by layer into the cache directory (two layers in memory), resuming an unfinished
    solve's checked layers (notes on stderr); ``ray``: each layer's lanes in Ray tasks
    (``"local"`` or a cluster's HOST:PORT; ``place``: its :func:`on_ray`), the same table."""
    from diceopt.games.yatzy.kernel.saved import warm_up
    from diceopt.games.yatzy.stored.store import get_saved, layers_dir, load_saved

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
        label = f"solving {rules.variant}{place} ({saved_solve_cost(rules.rules, rules.dtype)})"
        with ray_session(ray) as session, Stage(label, "layers") as stage:
            solve_layer = None
            if session is not None:
                from diceopt.games.yatzy.commands.on_ray import saved_layer_ray

                solve_layer = saved_layer_ray(session, rules.rules, rules.dtype)
            table, _ = get_saved(
                rules.rules, rules.dtype, force=force, progress=stage.update, say=note,
                load=False, solve_layer=solve_layer,
            )  # fmt: skip
        seconds = table.seconds
        lines = [
            f"solved {table.states:,} states in {seconds:.2f} s "
            f"(numba compile {compile_seconds:.2f} s); saved to {folder}"
        ]
    keep(rules.rules, 0.0, rules.dtype, table)
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
        "ray": ray,
    }
    return Report(table.value, data, lines)


def solve_report(rules: YatzyConfig, force: bool = False, ray: str | None = None) -> Report:
    """Load the stored table, or solve it (``force``: always solve) and store it; ``ray``:
    solve it on Ray, each layer's states in tasks (``"local"`` or a cluster's HOST:PORT;
    :mod:`~diceopt.games.yatzy.commands.on_ray`), the same table bit for bit."""
    place = on_ray(ray)  # a bad address or a missing extra: one line, before anything
    if rules.rules.saved_rerolls:
        return solve_saved_report(rules, force, ray, place)

    path = table_path(rules.rules, rules.theta, rules.dtype)
    loaded = None if force else load_table(rules.rules, rules.theta, rules.dtype)
    compile_seconds = 0.0
    if loaded is not None:
        table, seconds = loaded
        lines = [f"loaded {path} in {seconds * 1000:.1f} ms (solved in {table.seconds:.2f} s)"]
        saved = True
    else:
        from diceopt.games.yatzy.kernel.solve import warm_up  # numba: only to solve

        compile_seconds = warm_up(rules.dtype)
        with (
            ray_session(ray) as session,
            Stage(f"solving {rules.variant}{place}", "layers") as stage,
        ):

            def on_session() -> YatzyTable:
                from diceopt.games.yatzy.commands.on_ray import cluster_cpus, solve_table_ray

                return solve_table_ray(
                    rules.rules, rules.dtype, rules.theta, cluster_cpus(session),
                    progress=stage.update,
                )  # fmt: skip

            solve = None if session is None else on_session
            table, info = get_table(
                rules.rules, rules.theta, rules.dtype, force=True, progress=stage.update,
                solve=solve,
            )  # fmt: skip
        seconds = info.seconds
        saved = info.saved
        where = f"saved to {path}" if saved else "not saved (see the warning above)"
        lines = [
            f"solved {table.states:,} states in {seconds:.2f} s "
            f"(numba compile {compile_seconds:.2f} s); {where}"
        ]
    keep(rules.rules, rules.theta, rules.dtype, table)
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
        "ray": ray,
    }
    return Report(table.value, data, lines)
