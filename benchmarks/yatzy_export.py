"""Benchmark: ``diceopt yatzy export`` of 100,000 rows (jsonl and parquet, each source).

Prints one JSON object per line. Scandinavian Yatzy, float32 table solved into a
temporary directory and loaded (not timed). If the PyPI package ``yatzy-solver`` is
importable, its ``Solver.export`` (the comparable call) is timed on the same row count
and format in the same run (its in-memory solve is not timed).

    .venv/bin/python benchmarks/yatzy_export.py [--rows 100000] [--no-peer]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time


def emit(**data):
    print(json.dumps(data), flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-peer", action="store_true")
    args = parser.parse_args()

    from diceopt.games.yatzy.commands.export import export
    from diceopt.games.yatzy.rulebook.variants import SCANDINAVIAN
    from diceopt.games.yatzy.stored.files import get_table, load_table

    with tempfile.TemporaryDirectory() as tmp:
        get_table(SCANDINAVIAN, 0.0, "float32", tmp)
        table, _ = load_table(SCANDINAVIAN, 0.0, "float32", tmp)
        export(table, os.path.join(tmp, "warm.jsonl"), 50)  # numba compile or cache load
        runs = [("jsonl", "optimal"), ("parquet", "optimal"), ("parquet", "perturbed")]
        for fmt, source in runs:
            path = os.path.join(tmp, f"rows.{fmt}")
            info = export(table, path, args.rows, source, args.seed, fmt)
            emit(
                benchmark="yatzy_export",
                impl="diceopt",
                **info,
                bytes=os.path.getsize(path),
                target_seconds=30,
            )
        if args.no_peer:
            emit(benchmark="yatzy_export", impl="yatzy-solver", skipped="--no-peer")
            return 0
        try:
            import yatzy_solver as ys
        except ImportError:
            emit(benchmark="yatzy_export", impl="yatzy-solver", skipped="not installed")
            return 0
        solver = ys.Solver.build(ys.Variant("yatzy-scandinavian"))
        for fmt, source in runs:
            path = os.path.join(tmp, f"peer.{fmt}")
            t0 = time.perf_counter()
            rows = solver.export(path, args.rows, source=source, seed=args.seed, format=fmt)
            emit(
                benchmark="yatzy_export",
                impl="yatzy-solver",
                rows=rows,
                format=fmt,
                source=source,
                seconds=time.perf_counter() - t0,
                bytes=os.path.getsize(path),
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
