"""Benchmark: every table the page needs, built from nothing.

By default the tables ``diceopt serve --prepare`` builds for every game's default rules
(:func:`diceopt.cli.serve.page_tables`: Yatzy's and the Zombie Dice race); with
``--variant`` those of ``needed(config, "all")`` for that Yatzy variant only
(:mod:`diceopt.games.yatzy.commands.requests`): the expected-score table, the two risk
tables, the target rows from the start, the state distributions and the early rows of
theta 0, -0.05 and 0.05. Each is built through the store's
:class:`~diceopt.tables.Table` as the page's builds do, in an empty cache directory (a
temporary one unless ``--cache-dir``). Prints one JSON object per line, each with the
load average (1, 5, 15 min) when it was taken:

- ``imports``: seconds to import the package's modules the builds use;
- ``compile``: seconds to compile (or load from numba's cache) the kernels, on tiny
  variants (``--no-compile``: left to the first build);
- one line per table: ``seconds`` (compute until the ``storing`` stage, ``store``
  after it; a table an earlier build made too, as the state distributions make the
  early rows of theta 0: its load, ``made``), ``cpu_seconds`` (all threads), peak
  resident memory of the process during its build (sampled every 10 ms) and the sha256
  of the arrays of the target rows (``--fingerprint``);
- ``total``: the builds' seconds in all, the process's peak resident memory.

    .venv/bin/python benchmarks/page_tables.py [--variant scandinavian] [--fingerprint]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import tempfile
import threading
import time

# as the command line (``serve --prepare``) does: numba's OpenMP threads sleep between
# parallel loops, numpy's large arrays on small pages (set before numpy loads)
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("NUMPY_MADVISE_HUGEPAGE", "0")


def emit(**data: object) -> None:
    data["loadavg"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(data), flush=True)


def cpu_seconds() -> float:
    """CPU seconds (user + system) this process has used so far, all threads."""
    use = resource.getrusage(resource.RUSAGE_SELF)
    return use.ru_utime + use.ru_stime


def rss_gb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1024**3


class PeakSampler:
    """The peak resident memory of this process between :meth:`reset` calls."""

    def __init__(self) -> None:
        self.peak = rss_gb()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(0.01):
            self.peak = max(self.peak, rss_gb())

    def reset(self) -> float:
        peak, self.peak = max(self.peak, rss_gb()), rss_gb()
        return peak

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def fingerprint(rows: object) -> dict[str, str]:
    """sha256 of the target rows' arrays (values, off, top)."""
    import numpy as np

    arrays = {"values": rows.data, "off": rows.off, "top": rows.top}
    return {
        k: hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest() for k, a in arrays.items()
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", help="only this Yatzy variant's tables")
    parser.add_argument("--cache-dir", help="an empty cache directory (default: a temporary one)")
    parser.add_argument("--no-compile", action="store_true", help="no warm-up before the builds")
    parser.add_argument("--fingerprint", action="store_true", help="sha256 of the target rows")
    parser.add_argument("--only", default="", help="build only tables whose name has this")
    args = parser.parse_args()
    tmp = tempfile.TemporaryDirectory(prefix="page-tables-")
    os.environ["DICEOPT_CACHE"] = args.cache_dir or tmp.name

    t0 = time.perf_counter()
    import numba

    from diceopt.games.yatzy.commands.requests import needed
    from diceopt.games.yatzy.rulebook.variants import get_rules
    from diceopt.games.yatzy.stored import store
    from diceopt.tables import Build

    emit(benchmark="page_tables_imports", seconds=time.perf_counter() - t0,
         threads=numba.get_num_threads(), cpus=os.cpu_count())  # fmt: skip
    if not args.no_compile:
        from diceopt.games.yatzy.analyses.distribution import warm_up as warm_distribution
        from diceopt.games.yatzy.analyses.targets import warm_up_targets
        from diceopt.games.yatzy.kernel.solve import warm_up as warm_solve

        t0 = time.perf_counter()
        parts = {
            "solve": warm_solve(),
            "targets": warm_up_targets(),
            "distribution": warm_distribution(),
        }
        emit(benchmark="page_tables_compile", seconds=time.perf_counter() - t0, parts=parts)

    if args.variant:
        tables = list(needed(store.YatzyConfig(get_rules(args.variant)), "all"))
    else:
        from diceopt.cli.serve import page_tables

        tables = page_tables(False)
    tables = [t for t in tables if args.only in t.name]
    sampler = PeakSampler()
    total = 0.0
    for table in tables:
        marks: dict[str, float] = {}
        build = Build(table)
        set_stage = build.set_stage

        def stage(name: str, set_stage=set_stage, marks=marks) -> None:
            marks.setdefault(name, time.perf_counter())
            set_stage(name)

        build.set_stage = stage  # type: ignore[method-assign]
        sampler.reset()
        c0 = cpu_seconds()
        t0 = time.perf_counter()
        if table.ready() or table.load():  # made by an earlier build (as the store does)
            end = time.perf_counter()
            total += end - t0
            emit(benchmark="page_tables_build", table=table.name, seconds=end - t0,
                 made="with an earlier table", peak_rss_gb=sampler.reset())  # fmt: skip
            continue
        stored = table.build(build)
        end = time.perf_counter()
        cut = marks.get("storing", end)
        line = {"table": table.name, "seconds": end - t0, "compute_seconds": cut - t0,
                "store_seconds": end - cut, "cpu_seconds": cpu_seconds() - c0, "stored": stored,
                "peak_rss_gb": sampler.reset()}  # fmt: skip
        if args.fingerprint and "target rows" in table.name:
            rules = get_rules(args.variant or "scandinavian")  # the page's default variant
            line["sha256"] = fingerprint(store.load_rows(rules, "float32"))
        total += end - t0
        emit(benchmark="page_tables_build", **line)
    sampler.stop()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2
    emit(benchmark="page_tables_total", variant=args.variant or "every game's default",
         tables=len(tables), seconds=total, peak_rss_gb=peak, goal_seconds=60)  # fmt: skip
    tmp.cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
