"""Benchmark: 1,000,000 optimal Scandinavian Yatzy games from a stored float32 table.

Prints one JSON object per line, each with the 1-minute load average at its start and
end. The kernels of one more run (``yatzy_simulate_kernels``: the dice, the grouping by
state, the policies, the turns; wall and CPU seconds). The split of one run in this
process: ``imports`` (the package's modules),
``compile`` (numba: loading the cached machine code, the warm-up on a small variant),
``load`` (the stored table), ``compute`` (the simulation, best of ``--repeat``, wall
and core seconds), ``print`` (the summary and the histogram, as the command prints
them); then the whole command ``diceopt yatzy simulate --games N --json`` as a fresh
process (``--whole`` runs after an untimed one, the table stored in a temporary cache
directory beforehand): wall seconds and core seconds (the child's user + system CPU).
The table is solved once into that directory (not timed in the split). Ratios: Delta
Yatzy's published 1M games in 279 ms on 18 threads (about 5 core-seconds), and, if the
PyPI package ``yatzy-solver`` is importable, its ``Solver.simulate`` (optimal policy,
all cores) on ``--peer-games`` games in the same run (per-game time ratio).

    .venv/bin/python benchmarks/yatzy_simulate.py [--games 1000000] [--repeat 2] [--whole 2]
"""

from __future__ import annotations

import time

T_START = time.perf_counter()

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402

# as the command line does: numba's OpenMP threads sleep between parallel loops, numpy's
# large arrays on small pages
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("NUMPY_MADVISE_HUGEPAGE", "0")
import resource  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402

import numba  # noqa: E402
import numpy as np  # noqa: E402
from timed_calls import TimedGenerator, split_of, timed_calls  # noqa: E402
from whole_process import time_command  # noqa: E402

DELTA_SECONDS = 0.279  # Delta Yatzy: 1M games on 18 threads (published)
DELTA_THREADS = 18
TARGET_WHOLE = 1.0  # seconds, the whole command on 2 cores
TARGET_CORE = 2.0  # core-seconds of the whole command


def emit(**data):
    print(json.dumps(data), flush=True)


def load() -> float:
    """The 1-minute load average."""
    return os.getloadavg()[0]


def whole_process(games: int, seed: int, cache: str, runs: int) -> dict:
    """``diceopt yatzy simulate`` as fresh processes: wall and core seconds per run."""
    argv = ["yatzy", "simulate", "--games", str(games), "--seed", str(seed)]
    got = time_command(argv, cache, runs)
    answer = got.pop("answer") or {}
    return got | {"command_mean": answer.get("mean"), "command_seconds": answer.get("seconds")}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=2, help="timed runs (best reported)")
    parser.add_argument("--whole", type=int, default=2, help="timed whole-command runs")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--peer-games", type=int, default=100_000)
    parser.add_argument("--no-peer", action="store_true")
    args = parser.parse_args()

    la_start = load()
    t0 = time.perf_counter()
    from diceopt.games.yatzy.kernel.simulation import histogram_lines, simulate, warm_up
    from diceopt.games.yatzy.rulebook.variants import SCANDINAVIAN
    from diceopt.games.yatzy.stored.files import get_table, load_table

    imports = time.perf_counter() - t0
    threads = numba.get_num_threads()
    compile_seconds = warm_up("float32")
    emit(
        benchmark="yatzy_simulate_compile",
        imports_seconds=imports,
        compile_seconds=compile_seconds,
        threads=threads,
        load_average=[la_start, load()],
    )

    tmp_dir = tempfile.TemporaryDirectory()
    tmp = tmp_dir.name
    la0 = load()
    _, info = get_table(SCANDINAVIAN, 0.0, "float32", tmp)
    t0 = time.perf_counter()
    table, _ = load_table(SCANDINAVIAN, 0.0, "float32", tmp)
    load_seconds = time.perf_counter() - t0
    emit(
        benchmark="yatzy_table",
        solve_seconds=info.seconds,
        load_seconds=load_seconds,
        load_average=[la0, load()],
    )

    times, cores = [], []
    result = None
    for i in range(args.repeat):
        la0 = load()
        c0 = time.process_time()
        result = simulate(table, args.games, np.random.default_rng(args.seed + i))
        cores.append(time.process_time() - c0)
        times.append(result.seconds)
        s = result.summary()
        emit(
            benchmark="yatzy_simulate_run",
            run=i,
            games=args.games,
            seconds=result.seconds,
            core_seconds=cores[-1],
            games_per_second=args.games / result.seconds,
            mean=s["mean"],
            std_error=s["std_error"],
            exact=table.value,
            z=(s["mean"] - table.value) / s["std_error"],
            load_average=[la0, load()],
        )
    # one more run, its kernels timed: where the compute goes
    import diceopt.games.yatzy.kernel.simulation as sim_module

    gen = TimedGenerator(np.random.default_rng(args.seed))
    la0 = load()
    c0 = time.process_time()
    kernels = ["_group", "_decode", "_direct", "_policies", "_play"]
    with timed_calls(sim_module, kernels) as acc:
        timed = simulate(table, args.games, gen)
    core = time.process_time() - c0
    emit(
        benchmark="yatzy_simulate_kernels",
        games=args.games,
        seconds=timed.seconds,
        core_seconds=core,
        kernels=split_of(acc | {"dice": gen.acc}),
        note="dice: the Generator's integers (a turn ahead on a pool thread, beside _group: "
        "their seconds overlap it, and their core seconds count every thread); _direct: the "
        f"turns of the states fewer than {sim_module.DIRECT_BELOW} games reach, each roll's "
        "choice as it comes; _policies: the whole turn policies of the other states; "
        "_play: their turns; _group: the counting sort by state",
        load_average=[la0, load()],
    )
    t0 = time.perf_counter()
    summary = result.summary()
    text = "\n".join(histogram_lines(result.scores)) + json.dumps(summary)
    print_seconds = time.perf_counter() - t0
    best = int(np.argmin(times))
    ours = times[best]
    la0 = load()
    whole = whole_process(args.games, args.seed, tmp, args.whole)
    ds = result.distinct_states
    delta_core = DELTA_SECONDS * DELTA_THREADS
    emit(
        benchmark="yatzy_simulate",
        variant="scandinavian",
        dtype="float32",
        games=args.games,
        split={
            "imports": imports,
            "compile": compile_seconds,
            "load": load_seconds,
            "compute": ours,
            "print": print_seconds,
        },
        seconds=ours,
        seconds_all=times,
        core_seconds=cores[best],
        core_seconds_all=cores,
        games_per_second=args.games / ours,
        **whole,
        target_whole_seconds=TARGET_WHOLE,
        target_core_seconds=TARGET_CORE,
        delta_yatzy={
            "seconds": DELTA_SECONDS,
            "threads": DELTA_THREADS,
            "core_seconds": delta_core,
            "ratio_core_seconds": delta_core / max(whole["whole_core_seconds"], 1e-9),
            "note": "Delta Yatzy core-seconds (published) / this command's, whole process",
        },
        distinct_states_per_turn=ds.tolist(),
        distinct_states_total=int(ds.sum()),
        game_turns=args.games * len(ds),
        peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
        threads=threads,
        printed_chars=len(text),
        load_average_whole=[la0, load()],
        process_seconds=time.perf_counter() - T_START,
    )
    tmp_dir.cleanup()

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
