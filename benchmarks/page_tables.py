"""Benchmark: every table the page needs, built from nothing.

By default the tables ``diceopt serve --prepare`` builds for every game's default rules
(:func:`diceopt.cli.serve.page_tables`: Yatzy's and the Zombie Dice race); with
``--variant`` those of ``needed(config, "all")`` for that Yatzy variant only
(:mod:`diceopt.games.yatzy.commands.requests`): the expected-score table, the two risk
tables, the target rows from the start, the state distributions and the early rows of
theta 0, -0.05 and 0.05. They are made ready as ``serve --prepare`` does
(:func:`diceopt.tables.prepare` on a :class:`~diceopt.tables.TableStore`: one build
computing at a time, the next one starting while the one before stores its table), in an
empty cache directory (a temporary one unless ``--cache-dir``). Prints one JSON object
per line, each with the load average (1, 5, 15 min) when it was taken:

- ``imports``: seconds to import the package's modules the builds use;
- ``compile``: seconds to compile (or load from numba's cache) the kernels, on tiny
  variants (``--no-compile``: left to the first build);
- one line per table, in order: ``how`` it was made ready (``already loaded``: an earlier
  build made it too, as the state distributions make the early rows of theta 0),
  ``seconds`` from its start (queued included) to ready, ``compute_seconds`` (building)
  and ``store_seconds`` (storing: the next build runs meanwhile), ``marks`` (the seconds
  after its start when each stage was first seen; a sample can come late while a thread
  holds the interpreter, as when the target rows' file is mapped), the peak resident
  memory of the process while it ran (sampled every 0.1 s) and the sha256 of the arrays
  of the target rows (``--fingerprint``);
- ``total``: the wall seconds of the whole preparation (the goal: under 60 s on 2
  cores), its CPU seconds (all threads) and the process's peak resident memory.

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


class Watcher:
    """Samples every 0.1 s (a thread that woke every 10 ms slowed the target rows by 2 s,
    60 wake-ups a second more than the command has), for each build of a store: when it
    was first seen in each
    stage (monotonic seconds, as :class:`diceopt.tables.Build` keeps its times) and the
    process's peak resident memory while it ran."""

    def __init__(self, store: object) -> None:
        self.store = store
        self.marks: dict[str, dict[str, float]] = {}  # build id -> stage -> first seen
        self.peaks: dict[str, float] = {}  # build id -> GB
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(0.1):
            now, rss = time.monotonic(), rss_gb()
            for build in self.store.status():
                self.marks.setdefault(build.id, {}).setdefault(build.stage, now)
                if build.running:
                    self.peaks[build.id] = max(self.peaks.get(build.id, 0.0), rss)

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
    # (a build's last status may be published as the directory goes: not an error here)
    tmp = tempfile.TemporaryDirectory(prefix="page-tables-", ignore_cleanup_errors=True)
    os.environ["DICEOPT_CACHE"] = args.cache_dir or tmp.name

    t0 = time.perf_counter()
    import numba

    from diceopt.games.yatzy.commands.requests import needed
    from diceopt.games.yatzy.rulebook.variants import get_rules
    from diceopt.games.yatzy.stored import store
    from diceopt.tables import TableStore, prepare

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
    table_store = TableStore()
    watcher = Watcher(table_store)
    c0 = cpu_seconds()
    t0 = time.perf_counter()
    builds = prepare(tables, table_store, out=lambda line: None)  # as serve --prepare
    total = time.perf_counter() - t0
    cpu = cpu_seconds() - c0
    watcher.stop()
    for build in builds:
        marks = watcher.marks.get(build.id, {})
        line = {"table": build.table.name, "how": build.how, "error": build.error,
                "seconds": build.elapsed}  # fmt: skip
        if "building" in marks:
            storing = marks.get("storing", build.finished)
            line |= {"compute_seconds": storing - marks["building"],
                     "store_seconds": build.finished - storing}  # fmt: skip
        line["peak_rss_gb"] = watcher.peaks.get(build.id)
        line["marks"] = {k: v - build.started for k, v in marks.items()}
        if args.fingerprint and "target rows" in build.table.name:
            rules = get_rules(args.variant or "scandinavian")  # the page's default variant
            line["sha256"] = fingerprint(store.load_rows(rules, "float32"))
        emit(benchmark="page_tables_build", **line)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2
    emit(benchmark="page_tables_total", variant=args.variant or "every game's default",
         tables=len(tables), seconds=total, cpu_seconds=cpu, peak_rss_gb=peak,
         goal_seconds=60)  # fmt: skip
    tmp.cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
