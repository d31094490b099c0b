"""Benchmark: Yatzy tables on Ray against the in-process solve (Scandinavian, float32).

Prints one JSON object per line:

- ``ray_layers``: states solved per layer (Scandinavian and Maxi), the work the
  layer-by-layer split has to spread;
- ``inprocess_table``: ``solve_table`` with numba's threads (all cores);
- ``ray_layer_chunks``: ``solve_table_ray`` on a local Ray instance with ``--cpus``
  worker processes, each layer in ``--chunks`` tasks (one numba thread each);
- ``inprocess_sweep`` / ``ray_sweep``: the tables of ``--thetas`` one after the other in
  process, and as one Ray task each;
- with ``--maxi``: the Maxi Yatzy table in process and in layer chunks (minutes).

Numba compile time (in the driver and in each worker) is taken before the timings.
Needs the cluster extra (``pip install 'diceopt[cluster]'``).

    .venv/bin/python benchmarks/ray_sweep.py [--cpus 2] [--chunks 2] [--repeat 2]
"""

from __future__ import annotations

import argparse
import json
import time

import numba
import numpy as np


def emit(**data):
    print(json.dumps(data), flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cpus", type=int, default=2, help="CPUs of the local Ray instance")
    parser.add_argument("--chunks", type=int, default=2, help="tasks per layer")
    parser.add_argument("--repeat", type=int, default=2, help="timed solves (best kept)")
    parser.add_argument("--thetas", default="-0.05,0.05", help="tables of the sweep timing")
    parser.add_argument(
        "--maxi", action="store_true", help="also Maxi Yatzy, in process and in layer chunks"
    )
    args = parser.parse_args()

    import ray

    from diceopt.games.yatzy.commands.on_ray import solve_table_ray, solve_tables_ray
    from diceopt.games.yatzy.kernel.layers import iter_layer_states
    from diceopt.games.yatzy.kernel.solve import solve_table, warm_up
    from diceopt.games.yatzy.rulebook.variants import MAXI, SCANDINAVIAN, get_rules

    for rules in (SCANDINAVIAN, MAXI):
        sizes = [int(st.mask.size) for st in iter_layer_states(rules, reverse=True)]
        emit(
            benchmark="ray_layers",
            variant=rules.name,
            states_per_layer=sizes,
            largest_share=max(sizes) / sum(sizes),
        )

    threads = numba.get_num_threads()
    compile_seconds = warm_up("float32")

    def best(solve):
        times, table = [], None
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            table = solve()
            times.append(time.perf_counter() - t0)
        return min(times), table

    t_in, ref = best(lambda: solve_table(SCANDINAVIAN, dtype="float32"))
    emit(
        benchmark="inprocess_table",
        seconds=t_in,
        threads=threads,
        compile_seconds=compile_seconds,
        value=ref.value,
    )

    t0 = time.perf_counter()
    ray.init(num_cpus=args.cpus, include_dashboard=False, log_to_driver=False)
    start_seconds = time.perf_counter() - t0
    t0 = time.perf_counter()
    tiny = SCANDINAVIAN.reduced(("ones", "chance"), bonus_threshold=3)
    for theta in (0.0, 0.1):  # compile (or load) the read-only kernels in every worker
        solve_table_ray(tiny, "float32", theta, chunks=args.cpus)
    solve_tables_ray(get_rules("scandinavian-forced"), [0.0, 0.1][: args.cpus])
    warm_seconds = time.perf_counter() - t0
    t_ray, got = best(lambda: solve_table_ray(SCANDINAVIAN, "float32", 0.0, args.chunks))
    emit(
        benchmark="ray_layer_chunks",
        seconds=t_ray,
        cpus=args.cpus,
        chunks=args.chunks,
        speedup_vs_inprocess=t_in / t_ray,
        ray_start_seconds=start_seconds,
        worker_warm_seconds=warm_seconds,
        identical=bool(np.array_equal(got.values, ref.values, equal_nan=True)),
    )

    thetas = [float(t) for t in args.thetas.split(",")]
    t0 = time.perf_counter()
    local = [solve_table(SCANDINAVIAN, dtype="float32", theta=t) for t in thetas]
    t_seq = time.perf_counter() - t0
    emit(benchmark="inprocess_sweep", seconds=t_seq, tables=len(thetas), threads=threads)
    t0 = time.perf_counter()
    remote = solve_tables_ray(SCANDINAVIAN, thetas, "float32")
    t_par = time.perf_counter() - t0
    same = all(np.array_equal(a.values, b.values, equal_nan=True) for a, b in zip(local, remote))
    emit(
        benchmark="ray_sweep",
        seconds=t_par,
        tables=len(thetas),
        cpus=args.cpus,
        speedup_vs_inprocess=t_seq / t_par,
        task_solve_seconds=[t.seconds for t in remote],
        identical=same,
    )
    if args.maxi:
        t0 = time.perf_counter()
        ref = solve_table(MAXI, dtype="float32")
        t_in = time.perf_counter() - t0
        emit(benchmark="inprocess_table", variant="maxi", seconds=t_in, threads=threads)
        t0 = time.perf_counter()
        got = solve_table_ray(MAXI, "float32", 0.0, args.chunks)
        t_ray = time.perf_counter() - t0
        emit(
            benchmark="ray_layer_chunks",
            variant="maxi",
            seconds=t_ray,
            cpus=args.cpus,
            chunks=args.chunks,
            speedup_vs_inprocess=t_in / t_ray,
            identical=bool(np.array_equal(got.values, ref.values, equal_nan=True)),
        )
    ray.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
