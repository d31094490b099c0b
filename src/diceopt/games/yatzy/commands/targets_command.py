"""``diceopt yatzy targets``: the full target table of a variant, loaded or built and stored.

Role: load the stored full target table, or build it (progress shown by the front end)
and store it, through :mod:`~diceopt.games.yatzy.stored.store`; prints where it is,
seconds, size, peak memory and P(final >= K) from the start.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from diceopt.games.contract import CommandOutput
from diceopt.games.yatzy.analyses.targets import (
    TargetTable,
    solve_targets,
    table_kmax,
    warm_up_targets,
)
from diceopt.games.yatzy.stored.store import (
    load_targets,
    store_targets,
    target_draft,
    targets_path,
)


def size_text(nbytes: int) -> str:
    """A size for people: GB from 0.1 GB up, MB from 0.1 MB up, else kB."""
    if nbytes >= 1e8:
        return f"{nbytes / 1e9:.2f} GB"
    return f"{nbytes / 1e6:.1f} MB" if nbytes >= 1e5 else f"{nbytes / 1e3:.1f} kB"


def targets_on_ray(
    rules: Any, dtype: str, address: str, progress: Callable[[int, int], None]
) -> TargetTable:
    """The full target table solved on Ray (``address``: ``"local"`` or HOST:PORT), each
    layer's states in as many tasks as the cluster has CPUs."""
    from diceopt.games.yatzy.commands.on_ray import cluster_cpus, connect, solve_targets_ray

    with connect(address) as ray:
        chunks = cluster_cpus(ray)
        return solve_targets_ray(rules, dtype=dtype, chunks=chunks, progress=progress)


START_TARGETS = (200, 250, 300)  # P(final score >= K) printed from the start (points)


def run_targets(config: Any, args: Any) -> CommandOutput:
    """``diceopt yatzy targets``: load the stored full target table, or build it (progress
    shown by the front end) and store it; where it is, seconds, size, P(final >= K) from
    the start. ``--ray``: build it layer by layer in Ray tasks (the same table)."""
    import resource

    from diceopt.games.yatzy.commands.solving import on_ray
    from diceopt.progress import Stage

    ray = getattr(args, "ray", None)
    place = on_ray(ray)  # a bad address or a missing extra: one line, before anything
    t0 = time.perf_counter()
    variant, dtype, rules = config.variant, config.dtype, config.rules
    path = targets_path(rules, dtype)
    loaded = None if args.force else load_targets(rules, dtype)
    compile_seconds = store_seconds = 0.0
    if loaded is not None:
        table, load_seconds = loaded
        saved = True
    else:
        load_seconds = 0.0
        compile_seconds = warm_up_targets(dtype, advice=False)  # only the table's kernel
        label = f"solving the {variant} target table (k = 0 .. {table_kmax(rules)}){place}"
        with target_draft(rules, dtype) as (draft, alloc):  # solved into its file's pages
            with Stage(label, "layers") as stage:
                if ray is None:
                    table = solve_targets(rules, dtype=dtype, progress=stage.update, alloc=alloc)
                else:
                    table = targets_on_ray(rules, dtype, ray, stage.update)
            t1 = time.perf_counter()
            with Stage(f"storing it ({size_text(table.nbytes)})") as stage:
                saved = store_targets(table, draft=draft)
                if not saved:
                    stage.fail()  # the warning above says why: no "done"
            store_seconds = time.perf_counter() - t1
    size = path.stat().st_size if saved else table.nbytes
    p_at = {k: table.probability(0, 0, 0, k) for k in START_TARGETS if k <= table.kmax}
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2
    data = {
        "variant": variant,
        "dtype": dtype,
        "kmax": table.kmax,
        "states": table.states,
        "bytes": size,
        "loaded": loaded is not None,
        "path": str(path) if saved else None,
        "solve_seconds": table.seconds,
        "compile_seconds": compile_seconds,
        "store_seconds": store_seconds,
        "load_seconds": load_seconds,
        "seconds": time.perf_counter() - t0,
        "peak_rss_gb": peak,
        "ray": ray,
        "p_at_least": {str(k): p for k, p in p_at.items()},
    }
    lines = [
        f"{variant}: target table, P(points still to come >= k) for k = 0 .. {table.kmax}, "
        f"{table.states:,} states, {size_text(size)} ({dtype})"
    ]
    if loaded is not None:
        lines.append(f"loaded {path} in {load_seconds:.2f} s (solved in {table.seconds:.1f} s)")
    else:
        where = f"stored {path} in {store_seconds:.1f} s" if saved else "not stored"
        lines.append(
            f"solved in {table.seconds:.1f} s (numba compile {compile_seconds:.1f} s, "
            f"peak memory {peak:.2f} GB); {where}"
        )
    lines.append(
        "from the start: " + "  ".join(f"P(final >= {k}) {p:.6f}" for k, p in p_at.items())
    )
    lines.append(f"{data['seconds']:.1f} s")
    return CommandOutput(data, lines)
