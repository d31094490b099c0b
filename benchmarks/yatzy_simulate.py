"""Benchmark: 1,000,000 optimal Scandinavian Yatzy games from a cached float32 table.

Prints one JSON object per line. Numba compile time is measured separately (warm-up on a
small variant). The table is solved once into a temporary directory and loaded from
there (the simulation times exclude it). If the PyPI package ``yatzy-solver`` is
importable, its ``Solver.simulate`` (optimal policy, all cores) is timed on
``--peer-games`` games in the same run and the per-game time ratio is printed.

    .venv/bin/python benchmarks/yatzy_simulate.py [--games 1000000] [--repeat 2]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time

import numba
import numpy as np


def emit(**data):
    print(json.dumps(data), flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=2, help="timed runs (best reported)")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--peer-games", type=int, default=100_000)
    parser.add_argument("--no-peer", action="store_true")
    args = parser.parse_args()

    from diceopt.games.yatzy.kernel import solve
    from diceopt.games.yatzy.kernel.simulation import simulate, warm_up
    from diceopt.games.yatzy.rulebook.variants import SCANDINAVIAN
    from diceopt.games.yatzy.stored.files import get_table, load_table

    threads = numba.get_num_threads()
    t0 = time.perf_counter()
    solve.warm_up("float32")
    solver_compile = time.perf_counter() - t0
    compile_seconds = warm_up("float32")
    emit(
        benchmark="yatzy_simulate_compile",
        compile_seconds=compile_seconds,
        solver_compile_seconds=solver_compile,
        threads=threads,
    )

    with tempfile.TemporaryDirectory() as tmp:
        _, info = get_table(SCANDINAVIAN, 0.0, "float32", tmp)
        t0 = time.perf_counter()
        table, _ = load_table(SCANDINAVIAN, 0.0, "float32", tmp)
        load_seconds = time.perf_counter() - t0
    emit(benchmark="yatzy_table", solve_seconds=info.seconds, load_seconds=load_seconds)

    times = []
    result = None
    for i in range(args.repeat):
        result = simulate(table, args.games, np.random.default_rng(args.seed + i))
        times.append(result.seconds)
        s = result.summary()
        emit(
            benchmark="yatzy_simulate_run",
            run=i,
            games=args.games,
            seconds=result.seconds,
            games_per_second=args.games / result.seconds,
            mean=s["mean"],
            std_error=s["std_error"],
            exact=table.value,
            z=(s["mean"] - table.value) / s["std_error"],
        )
    ours = min(times)
    ds = result.distinct_states
    emit(
        benchmark="yatzy_simulate",
        variant="scandinavian",
        dtype="float32",
        games=args.games,
        seconds=ours,
        seconds_all=times,
        games_per_second=args.games / ours,
        compile_seconds=compile_seconds,
        distinct_states_per_turn=ds.tolist(),
        distinct_states_total=int(ds.sum()),
        game_turns=args.games * len(ds),
        peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
        threads=threads,
        target_seconds=10.0,
    )

    if args.no_peer:
        return 0
    try:
        import yatzy_solver as ys
    except ImportError:
        emit(benchmark="yatzy_simulate_peer", peer="yatzy-solver", available=False)
        return 0
    variant = ys.Variant("yatzy-scandinavian")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "peer.tbl")
        t0 = time.perf_counter()
        ys.Solver.build_table(variant, path, precision="f32")
        peer_build = time.perf_counter() - t0
        peer = ys.Solver.load(path, variant)
    t0 = time.perf_counter()
    out = peer.simulate(args.peer_games, seed=args.seed)
    peer_seconds = time.perf_counter() - t0
    per_game_peer = peer_seconds / args.peer_games
    per_game_ours = ours / args.games
    emit(
        benchmark="yatzy_simulate_peer",
        peer="yatzy-solver",
        version=getattr(ys, "__version__", "?"),
        games=args.peer_games,
        seconds=peer_seconds,
        games_per_second=args.peer_games / peer_seconds,
        mean=float(out["mean"]),
        std_error=float(out["std_error"]),
        peer_table_build_seconds=peer_build,
        ours_games_per_second=args.games / ours,
        ratio=per_game_peer / per_game_ours,
        note="ratio: peer seconds per game / ours, same run, same machine",
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
