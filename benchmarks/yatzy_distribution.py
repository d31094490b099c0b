"""Benchmark: the exact final-score distribution of optimal Scandinavian Yatzy from the start.

Prints one JSON object per line: numba compile time; the stored float32 table's load
time; the distribution's time (target: at most 10 s on 2 cores) with its summary beside
the published figures (10 million simulated games, Delta Yatzy: mean 248.4, std 38.5,
median 249, 5th percentile 179, 95th 309, 99th 325; upper bonus about 90%, Yatzy about
39%); with ``--games N`` a seeded simulation of N games compared with it
(Kolmogorov-Smirnov distance, target below 0.002, and a chi-square statistic); with
``--american`` the free-choice-joker American figures (Verhoeff: mean 254.5896, std
59.6117, median 248); with ``--states float64`` (or float32) the distributions of every
turn-start state (``state_distributions``): time, rows, values and memory. Every line
carries the load average (1 minute) at its start and end. A second distribution's
kernels are timed (``yatzy_distribution_kernels``: the turn outcomes, the supports,
the combining; wall and CPU seconds). The Scandinavian line also
carries the split of one run in this process (``imports``, ``compile``: numba's cached
code and the warm-up, ``load``: the stored table, ``compute``: the distribution, wall
and core seconds, ``print``: its summary and lines) and the whole command ``diceopt
yatzy distribution --json --force`` (computed) as a fresh process (``--whole`` timed runs
after an untimed one, the table stored in a temporary cache directory): wall and core
seconds; then without ``--force`` (``start_row_``: read from the start's row the runs
before stored, ``states`` null, the same pmf and rates, ``same``). Then
(``yatzy_distribution_stored``) the rows of the first turns are built into that directory
as the page's tables do, and the whole command is timed again: read from them, the same
pmf and rates bit for bit (``same``), and from a position of the first turns
(``position_whole_seconds``: its turn combined from those rows, ``position_states`` null).

    .venv/bin/python benchmarks/yatzy_distribution.py [--games 1000000] [--american]
        [--states float64]
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
import tempfile  # noqa: E402

import numba  # noqa: E402
import numpy as np  # noqa: E402
from timed_calls import split_of, timed_calls  # noqa: E402
from whole_process import time_command  # noqa: E402

TARGET_WHOLE = 1.0  # seconds, the whole command on 2 cores
# a position of the first turns (two boxes filled): its turn combined from the stored rows
EARLY_POSITION = "dice 1 3 3 5 6 | rerolls 2 | filled ones twos | upper 3 | score 3"


def emit(**data):
    print(json.dumps(data), flush=True)


def load() -> float:
    """The 1-minute load average."""
    return os.getloadavg()[0]


def whole_process(cache: str, runs: int) -> dict:
    """``diceopt yatzy distribution --json --force`` (computed) as fresh processes: wall
    and core seconds; then without ``--force``: read from the start's row they stored."""
    got = time_command(["yatzy", "distribution", "--force"], cache, runs)
    answer = got.pop("answer") or {}
    load_average = got.pop("load_average")
    read = time_command(["yatzy", "distribution"], cache, runs)
    again = read["answer"]
    same = all(again.get(k) == answer.get(k) for k in ("pmf", "bonus_rate", "yatzy_rate"))
    return got | {
        "command_mean": answer.get("mean"),
        "command_seconds": answer.get("seconds"),
        "target_whole_seconds": TARGET_WHOLE,
        "load_average_whole": load_average,
        "start_row_whole_seconds": read["whole_seconds"],
        "start_row_whole_seconds_all": read["whole_seconds_all"],
        "start_row_states": again.get("states"),
        "start_row_same": same,
    }


def stored_whole(cache: str, runs: int, computed) -> dict:
    """The whole command again once the page's rows of the first turns are stored in
    ``cache`` (built here, timed): read from them, its pmf and rates those of ``computed``
    bit for bit (``same``)."""
    from diceopt.games.yatzy.rulebook.variants import SCANDINAVIAN
    from diceopt.games.yatzy.stored import store

    os.environ["DICEOPT_CACHE"] = cache
    la0 = load()
    t0 = time.perf_counter()
    store.early_table(SCANDINAVIAN).build(None)
    build_seconds = time.perf_counter() - t0
    got = time_command(["yatzy", "distribution"], cache, runs)
    answer = got.pop("answer") or {}
    position = time_command(["yatzy", "distribution", EARLY_POSITION], cache, runs)
    same = (
        answer.get("pmf") == computed.pmf.tolist()
        and answer.get("bonus_rate") == computed.bonus_rate
        and answer.get("yatzy_rate") == computed.yatzy_rate
    )
    return got | {
        "position": EARLY_POSITION,
        "position_whole_seconds": position["whole_seconds"],
        "position_states": position["answer"].get("states"),
        "rows_build_seconds": build_seconds,
        "states": answer.get("states"),
        "same": same,
        "target_whole_seconds": TARGET_WHOLE,
        "load_average_build": [la0, load()],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=0, help="simulated games to compare")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--american", action="store_true")
    parser.add_argument("--states", choices=["float64", "float32"], default=None)
    parser.add_argument("--whole", type=int, default=2, help="timed whole-command runs")
    args = parser.parse_args()

    la_start = load()
    t0 = time.perf_counter()
    import diceopt.games.yatzy.analyses.distribution as dist_module
    from diceopt.games.yatzy.analyses.distribution import (
        distribution,
        state_distributions,
        warm_up,
    )
    from diceopt.games.yatzy.analyses.score_distribution import summary_lines
    from diceopt.games.yatzy.kernel.solve import warm_up as solver_warm_up
    from diceopt.games.yatzy.rulebook.variants import get_rules
    from diceopt.games.yatzy.stored.files import get_table, load_table

    imports = time.perf_counter() - t0
    t0 = time.perf_counter()
    compile_seconds = warm_up("float32")
    solver_warm_up("float32")
    emit(
        benchmark="yatzy_distribution_compile",
        imports_seconds=imports,
        compile_seconds=compile_seconds,
        total_seconds=time.perf_counter() - t0,
        threads=numba.get_num_threads(),
        load_average=[la_start, load()],
    )
    variants = ["scandinavian"] + (["american"] if args.american else [])
    with tempfile.TemporaryDirectory() as tmp:
        for variant in variants:
            rules = get_rules(variant)
            _, info = get_table(rules, 0.0, "float32", tmp)
            table, load_seconds = load_table(rules, 0.0, "float32", tmp)
            load_before = load()
            c0 = time.process_time()
            dist = distribution(table)
            core = time.process_time() - c0
            # once more, its kernels timed: where the compute goes
            la0 = load()
            c0 = time.process_time()
            # the combining of a layer as one call (its kernel runs in shares on the threads)
            names = ["layer_outcomes", "support", "_combine_chunked"]
            with timed_calls(dist_module, names) as acc:
                timed = distribution(table)
            acc["combine"] = acc.pop("_combine_chunked")
            emit(
                benchmark="yatzy_distribution_kernels",
                variant=variant,
                seconds=timed.seconds,
                core_seconds=time.process_time() - c0,
                kernels=split_of(acc),
                note="layer_outcomes: the turn policies and the turns' outcomes; combine: "
                "the vectors of points to come",
                load_average=[la0, load()],
            )
            t0 = time.perf_counter()
            s = dist.summary()
            text = "\n".join(summary_lines(dist, rules.yatzy_box)) + json.dumps(
                s | {"pmf": dist.pmf.tolist()}
            )
            print_seconds = time.perf_counter() - t0
            scand = variant == "scandinavian"
            extra = whole_process(tmp, args.whole) if scand and args.whole > 0 else {}
            emit(
                benchmark="yatzy_distribution",
                variant=variant,
                seconds=dist.seconds,
                core_seconds=core,
                split={
                    "imports": imports,
                    "compile": compile_seconds,
                    "load": load_seconds,
                    "compute": dist.seconds,
                    "print": print_seconds,
                },
                printed_chars=len(text),
                **extra,
                process_seconds=time.perf_counter() - T_START,
                load_average=[load_before, load()],
                target_seconds=10.0 if variant == "scandinavian" else None,
                states=dist.states,
                solve_seconds=info.seconds,
                load_seconds=load_seconds,
                table_value=table.value,
                **{k: s[k] for k in ("mean", "std", "median", "percentiles", "p_at_least")},
                bonus_rate=s["bonus_rate"],
                yatzy_rate=s["yatzy_rate"],
                total=s["total"],
                published=(
                    {"mean": 248.4, "std": 38.5, "median": 249, "p5": 179, "p95": 309,
                     "p99": 325, "bonus_rate": 0.90, "yatzy_rate": 0.39}
                    if variant == "scandinavian"
                    else {"mean": 254.5896, "std": 59.6117, "median": 248}
                ),
            )  # fmt: skip
            if scand and args.whole > 0:
                emit(benchmark="yatzy_distribution_stored", **stored_whole(tmp, args.whole, dist))
            if args.states:
                load_before = load()
                sd = state_distributions(table, dtype=args.states)
                emit(
                    benchmark="yatzy_state_distributions",
                    variant=variant,
                    dtype=args.states,
                    seconds=sd.seconds,
                    load_average=[load_before, load()],
                    rows=sd.states,
                    values=int(sd.data.size),
                    data_mb=sd.data.nbytes / 2**20,
                    total_mb=sd.nbytes / 2**20,
                    start_mean=float(sd.pmf(0, 0, 0) @ np.arange(sd.length[sd.row(0, 0, 0)])),
                )
                del sd
            if args.games > 0:
                from diceopt.games.yatzy.kernel.simulation import simulate
                from diceopt.games.yatzy.kernel.simulation import warm_up as sim_warm_up

                sim_warm_up("float32")
                sim = simulate(table, args.games, np.random.default_rng(args.seed))
                counts = np.bincount(sim.scores, minlength=dist.pmf.size)
                cdf = np.cumsum(dist.pmf)
                ks = float(np.abs(cdf - np.cumsum(counts[: cdf.size]) / args.games).max())
                expected = dist.pmf * args.games
                big = expected >= 20
                e = np.append(expected[big], expected[~big].sum())
                o = np.append(counts[: cdf.size][big], counts[: cdf.size][~big].sum())
                chi2 = float(((o - e) ** 2 / e).sum())
                emit(
                    benchmark="yatzy_distribution_vs_simulation",
                    variant=variant,
                    games=args.games,
                    seed=args.seed,
                    ks=ks,
                    ks_target=0.002,
                    chi2=chi2,
                    dof=int(e.size - 1),
                    outside_support=int(counts[cdf.size :].sum()),
                    simulated_mean=float(sim.scores.mean()),
                    simulated_bonus_rate=float(sim.bonus.mean()),
                    simulated_yatzy_rate=float(sim.yatzy.mean()),
                    simulate_seconds=sim.seconds,
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
