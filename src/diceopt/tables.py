"""Shared tables: each built once per cache directory, then loaded by every process.

Role: the tables an answer reads (a game's expected-score table, Yatzy's target rows,
...) are described by the game as :class:`Table` objects (a name, the stored file, and
how to load it into this process or build and store it); a :class:`TableStore` makes
them ready, whoever asks and however many ask at once:

1. ready in this process (``Table.ready()``): nothing to do;
2. stored: loaded (``Table.load()``; a damaged file is reported and rebuilt);
3. else built once. In a process, one build per table (single flight: a second caller
   gets the same :class:`Build` and waits for it); across processes, the builder holds
   an exclusive ``fcntl.flock`` on ``<table file>.lock`` beside the table, so a second
   process (another server worker, or ``diceopt serve --prepare``) waits for the lock,
   then loads what the first stored instead of building it again.

Builds run in background threads (:meth:`TableStore.start`), one at a time in a process
(a solve keeps every core busy; the others wait, ``queued``) until the build storing its
table: the next one computes while the first writes and syncs its file (that takes the
disk, not the cores; its file lock is held until it is stored). They report their stage
(``loading``, ``queued``, ``waiting`` for another process's build, ``building``,
``storing``, ``ready``, ``failed``), the units done of their total and the seconds since
they started (:meth:`TableStore.status`). A build goes on when the request that started
it is gone: its table is shared, and a later request finds it ready. Only
:meth:`TableStore.stop` (a Ctrl-C of :func:`prepare`, a server's shutdown) stops the
builds, at their next slice of work, each removing the file it had not stored.

Progress: a build reports its steps (``Build.update(done, total)``: e.g. the layers of a
solve, after each), and within a step the kernel's own slices
(:func:`diceopt.progress.part`, reported by :func:`diceopt.interrupt.run_chunks` after
each slice of a fraction of a second): ``Build.fraction`` is the steps done plus the share
of the step under way, never an interpolation in time; ``Build.seconds_left`` estimates the
rest of the stage at its pace so far. A build that reports no steps (a stage without a
total: loading, queued, waiting, storing) has no fraction.

Each build has an ``id`` (a hash of its table's name and file), by which
``GET /api/tables/status/{id}`` finds it (:meth:`TableStore.by_id`). The store keeps every
running build and at most ``keep`` finished ones (the oldest let go first): asking about
builds stores nothing.

Across processes (``serve --workers N``, or ``serve --prepare`` beside a server): a
build that is building or storing publishes its status at most every
:data:`PUBLISH_SECONDS`, and its last one when it ends, in ``<cache directory>/builds/<id>.json``
(one small file per table, overwritten); another process answers for an id it does not
build itself (or waits for, ``waiting``) from that file (:func:`published_status`), so a
poll that reaches any worker gets the same answer. A building status of a process that
is gone is not read.

``DEFAULT`` is the process's store (one per process: every app and command shares it).
"""

from __future__ import annotations

import json
import os
import stat
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from diceopt.progress import Stage, cancellable, watching_parts
from diceopt.storage import cache_root, file_lock, lock_path, replace_text

STAGES = ("queued", "loading", "waiting", "building", "storing", "ready", "failed")
KEEP_FINISHED = 64  # finished builds a store keeps for its status (running ones: all)
PUBLISHED_STAGES = ("building", "storing")  # the stages a build publishes (and its end)
PUBLISH_SECONDS = 0.5  # a running build's status file is written at most this often
STATUS_FOLDER = "builds"  # <cache directory>/builds/<build id>.json
STATUS_MAX_BYTES = 16_384  # a larger status file is not one of ours: not read
STATUS_MAX_AGE = 600.0  # seconds: an older status file is not read (a build long gone)
STOP_SECONDS = 15.0  # the most :meth:`TableStore.stop` waits for the builds to stop


@dataclass(frozen=True)
class Table:
    """A stored table some answers read.

    ``name``: unique words for it (e.g. ``yatzy/scandinavian target rows float32``);
    ``title``: what it is, for people (``the target table of scandinavian``); ``path``:
    its file (the lock file is beside it); ``ready()``: loaded in this process (no I/O);
    ``load()``: load the stored table into this process, False when it is not stored (or
    damaged: reported); ``build(report)``: build it, store it and load it into this
    process (``report``: the :class:`Build`, whose ``update(done, total)`` and
    ``set_stage`` it calls), True when it was stored; ``cost``: how long a build takes
    and its size, in words (for messages); ``stored()``: whether a stored copy exists
    (default: the file exists)."""

    name: str
    title: str
    path: Path
    ready: Callable[[], bool]
    load: Callable[[], bool]
    build: Callable[[Build], bool]
    cost: str = ""
    stored: Callable[[], bool] | None = None

    def is_stored(self) -> bool:
        """Whether a stored copy exists (``stored()``, default: its file exists); not
        checked: loading checks it."""
        return self.stored() if self.stored is not None else self.path.exists()


def build_id(table: Table) -> str:
    """The id of the builds of ``table`` (16 hex digits of a hash of its name and file):
    the same for every build of the table, so a client can ask about it again."""
    import hashlib  # (OpenSSL: not loaded by a command that builds no table)

    return hashlib.sha256(f"{table.name}\0{table.path}".encode()).hexdigest()[:16]


def status_file(build_id: str) -> Path | None:
    """The file where the build ``build_id`` publishes its status for the other processes
    of the cache directory; None for a string that is no build id (16 hex digits), so a
    request never names a path."""
    if len(build_id) != 16 or any(c not in "0123456789abcdef" for c in build_id):
        return None
    return cache_root() / STATUS_FOLDER / f"{build_id}.json"


def _alive(pid: Any) -> bool:
    """Whether the process ``pid`` (of this machine) still runs."""
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # (EPERM: it runs under another user)
        return True
    return True


def published_status(build_id: str) -> dict[str, Any] | None:
    """The status another process published for the build ``build_id``
    (:meth:`Build.status_json` with its ``pid``): one that ended (ready, failed), or one
    still building in a process that runs; None when there is none, it is older than
    :data:`STATUS_MAX_AGE` or it is not a status file."""
    path = status_file(build_id)
    if path is None:
        return None
    try:  # a regular file only (no link followed, never blocked on a FIFO)
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        with os.fdopen(fd, "rb") as fh:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode) or time.time() - info.st_mtime > STATUS_MAX_AGE:
                return None
            raw = fh.read(STATUS_MAX_BYTES + 1)
        data = json.loads(raw) if len(raw) <= STATUS_MAX_BYTES else None
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("id") != build_id:
        return None
    state = data.get("state")
    if state not in ("building", "ready", "failed"):
        return None
    if state == "building" and not _alive(data.get("pid")):
        return None  # a build whose process is gone: asking again starts it anew
    return {k: v for k, v in data.items() if k != "pid"}


@dataclass
class Build:
    """The making of one table in this process: its stage, progress and times."""

    table: Table
    stage: str = "queued"
    done: int = 0
    total: int | None = None
    started: float = field(default_factory=time.monotonic)
    finished: float | None = None
    error: str | None = None
    how: str = ""  # "loaded", "built", "built (not stored)", "already loaded"
    event: threading.Event = field(default_factory=threading.Event)
    # (steps done, steps in all, share of the step under way): replaced whole, so that a
    # reader in another thread never sees a step with the share of the one before
    step: tuple[int, int | None, float] = (0, None, 0.0)
    stage_started: float = field(default_factory=time.monotonic)
    id: str = field(init=False, default="")  # build_id(table)
    published: float | None = None  # when its status was last published (monotonic s)
    trailing: threading.Timer | None = None  # publishes a report made too soon after one
    publishing: threading.Lock = field(default_factory=threading.Lock)
    # called once when it moves to "storing" (set by the store: the next build may start)
    on_storing: Callable[[], None] | None = None

    def __post_init__(self) -> None:
        self.id = build_id(self.table)

    def update(self, done: int, total: int | None = None) -> None:
        """Progress callback: ``done`` units (steps) of ``total`` finished."""
        self.done, self.total = int(done), None if total is None else int(total)
        self.step = (self.done, self.total, 0.0)
        self.publish()

    def update_part(self, done: int, total: int) -> None:
        """Progress within the step under way (:func:`diceopt.progress.part`): ``done`` of
        its ``total`` units finished; the share never goes back within a step."""
        steps, of, share = self.step
        if total > 0:
            self.step = (steps, of, max(share, min(max(int(done), 0), total) / total))
            self.publish()

    def set_stage(self, stage: str) -> None:
        """Move to another stage (one of :data:`STAGES`); progress starts again."""
        if stage == "storing" and self.on_storing is not None:
            leave, self.on_storing = self.on_storing, None
            leave()
        self.step = (0, None, 0.0)
        self.stage_started = time.monotonic()
        self.stage, self.done, self.total = stage, 0, None
        self.publish(force=True)

    def publish(self, force: bool = False) -> None:
        """Write this build's status for the other processes of the cache directory
        (:func:`published_status`) while it is building or storing, and once it has ended
        after that, at most every :data:`PUBLISH_SECONDS` unless ``force``. Best effort:
        a cache directory that cannot be written has no status file."""
        with self.publishing:  # one at a time: a later state is never overwritten
            self._publish(force)

    def _publish(self, force: bool) -> None:
        if self.stage not in PUBLISHED_STAGES and (self.running or self.published is None):
            return
        now = time.monotonic()
        if not force and self.published is not None and now - self.published < PUBLISH_SECONDS:
            # too soon: published once the interval is over (the last report before a
            # pause is not lost), by one timer at a time
            if self.trailing is None or not self.trailing.is_alive():
                wait = PUBLISH_SECONDS - (now - self.published)
                self.trailing = threading.Timer(wait, self.publish, kwargs={"force": True})
                self.trailing.daemon = True
                self.trailing.start()
            return
        self.published = now
        path = status_file(self.id)
        if path is None:
            return
        try:
            replace_text(path, json.dumps(self.own_status() | {"pid": os.getpid()}))
        except OSError:
            pass

    @property
    def running(self) -> bool:
        """Not finished yet."""
        return not self.event.is_set()

    @property
    def state(self) -> str:
        """``building`` (any stage before the end), ``ready`` or ``failed``."""
        if self.running:
            return "building"
        return "ready" if self.stage == "ready" else "failed"

    @property
    def fraction(self) -> float | None:
        """The share of the current stage done, 0-1: the steps reported and the share of
        the step under way (1 when ready; None: unknown, no total reported yet)."""
        if self.stage == "ready":
            return 1.0
        steps, of, share = self.step
        if not of:
            return None
        steps = min(max(steps, 0), of)
        return (steps + (share if steps < of else 0.0)) / of

    @property
    def percent(self) -> float | None:
        """Progress of the current stage, 0-100 (100 when ready; None: unknown)."""
        fraction = self.fraction
        return None if fraction is None else round(100.0 * fraction, 1)

    @property
    def elapsed(self) -> float:
        """Seconds since it started (until it finished)."""
        end = self.finished if self.finished is not None else time.monotonic()
        return end - self.started

    @property
    def seconds_left(self) -> float | None:
        """An estimate of the seconds the current stage still needs, at its pace so far
        (the time since it began over its share done); 0 when ready; None when unknown
        (nothing done yet, a stage without progress, or failed)."""
        if self.stage == "ready":
            return 0.0
        fraction = self.fraction
        if not self.running or not fraction:
            return None
        spent = time.monotonic() - self.stage_started
        return spent * (1.0 - fraction) / fraction

    def describe(self) -> str:
        """One line: the table, its stage, percentage and elapsed seconds."""
        pct = "" if self.percent is None else f", {self.percent:.0f}%"
        return f"{self.table.title}: {self.stage}{pct}, {self.elapsed:.0f} s so far"

    def to_json(self) -> dict[str, Any]:
        """The status entry of ``GET /api/tables``."""
        return {
            "id": self.id,
            "name": self.table.name,
            "title": self.table.title,
            "stage": self.stage,
            "percent": self.percent,
            "done": self.done,
            "total": self.total,
            "elapsed_seconds": round(self.elapsed, 2),
            "how": self.how or None,
            "error": self.error,
        }

    def status_json(self) -> dict[str, Any]:
        """The answer of ``GET /api/tables/status/{id}``: what is made ready (``title``),
        ``state`` (building, ready, failed), ``stage``, ``fraction`` of the stage done
        (None: unknown), ``elapsed_seconds``, ``seconds_left`` (an estimate; None:
        unknown) and ``error``. While it waits for another process's build of its table,
        that build's published status (the same answer from every worker)."""
        if self.stage == "waiting" and self.running:
            other = published_status(self.id)
            if other is not None and other["state"] == "building":
                return other
        return self.own_status()

    def own_status(self) -> dict[str, Any]:
        """:meth:`status_json` of this process's build."""
        fraction, left = self.fraction, self.seconds_left
        return {
            "id": self.id,
            "name": self.table.name,
            "title": self.table.title,
            "state": self.state,
            "stage": self.stage,
            "fraction": None if fraction is None else round(fraction, 4),
            "elapsed_seconds": round(self.elapsed, 2),
            "seconds_left": None if left is None else round(left, 1),
            "error": self.error,
        }

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until finished (at most ``timeout`` seconds); whether it finished."""
        return self.event.wait(timeout)


class TableStore:
    """The tables of this process: loaded or built once each (see the module docstring)."""

    def __init__(self, max_builds: int = 1, keep: int = KEEP_FINISHED) -> None:
        self._builds: dict[tuple[str, str], Build] = {}  # oldest first
        self.keep = max(0, int(keep))  # finished builds kept (running ones: every one)
        self._lock = threading.Lock()
        # builds at once (a solve keeps every core busy): the others wait, stage "queued"
        self._building = threading.Semaphore(max_builds)
        self._stopping = threading.Event()  # set by stop(): builds stop at their next slice
        self.built = 0  # tables this store has built (not loaded): for tests and logs

    @staticmethod
    def _key(table: Table) -> tuple[str, str]:
        return (table.name, str(table.path))

    def find(self, table: Table) -> Build | None:
        """The latest build of ``table`` in this process, if any."""
        with self._lock:
            return self._builds.get(self._key(table))

    def start(self, table: Table) -> Build:
        """The build of ``table``: the one running or done (single flight), else a new
        one started in a background thread (after a failed one, or when the process has
        dropped the table since)."""
        with self._lock:
            key = self._key(table)
            build = self._builds.get(key)
            # a build running, or done and its table still in this process (not dropped)
            if build is not None and (build.running or build.stage == "ready" and table.ready()):
                return build
            self._builds.pop(key, None)
            build = self._builds[key] = Build(table)
            if table.ready():
                self._finish(build, "ready", "already loaded")
                self._let_go()
                return build
        thread = threading.Thread(
            target=self._run, args=(build,), name=f"diceopt-table {table.name}", daemon=True
        )
        thread.start()
        return build

    def _let_go(self) -> None:
        """Let go of the oldest finished builds beyond ``keep`` (the lock held)."""
        finished = [k for k, b in self._builds.items() if not b.running]
        for key in finished[: max(0, len(finished) - self.keep)]:
            del self._builds[key]

    def by_id(self, build_id: str) -> Build | None:
        """The build whose ``id`` is ``build_id`` among those this store keeps, else None."""
        with self._lock:
            return next((b for b in self._builds.values() if b.id == build_id), None)

    def ensure(self, table: Table, timeout: float | None = None) -> Build:
        """:meth:`start`, then wait for it (at most ``timeout`` seconds)."""
        build = self.start(table)
        build.wait(timeout)
        return build

    def stop(self, wait: float = STOP_SECONDS) -> None:
        """Stop the running builds at their next slice of work (a build that is storing
        its table finishes that) and wait for them, at most ``wait`` seconds in all, so
        that each removes the files it had not stored (a Ctrl-C of ``prepare``); builds
        asked for later run again."""
        self._stopping.set()
        try:
            deadline = time.monotonic() + wait
            for build in self.status():
                build.wait(max(0.0, deadline - time.monotonic()))
        finally:
            self._stopping.clear()

    def _check_stop(self) -> None:
        """The builds' checkpoint (:func:`diceopt.progress.cancellable`): raises
        KeyboardInterrupt once :meth:`stop` is called."""
        if self._stopping.is_set():
            raise KeyboardInterrupt

    def status(self) -> list[Build]:
        """Every build of this process, oldest first."""
        with self._lock:
            return list(self._builds.values())

    def _finish(self, build: Build, stage: str, how: str = "", error: str | None = None) -> None:
        build.stage, build.how, build.error = stage, how, error
        build.finished = time.monotonic()
        build.event.set()
        build.publish(force=True)  # its end, where it published its progress

    def _end(self, build: Build, stage: str, how: str = "", error: str | None = None) -> None:
        """:meth:`_finish` from the build's thread, the oldest finished let go at once."""
        with self._lock:
            self._finish(build, stage, how, error)
            self._let_go()

    def _run(self, build: Build) -> None:
        table = build.table
        try:
            build.set_stage("loading")
            if table.ready() or table.load():
                self._end(build, "ready", "loaded")
                return
            build.set_stage("queued")
            with (
                _Slot(self._building) as slot,
                file_lock(lock_path(table.path), lambda: build.set_stage("waiting")),
            ):
                self._check_stop()  # (stopped while it was queued)
                build.set_stage("loading")  # another process may have stored it meanwhile
                if table.load():
                    self._end(build, "ready", "loaded (built by another process)")
                    return
                build.on_storing = slot.release  # its store overlaps the next build
                build.set_stage("building")
                # the kernel's slices of a step; a stop() between two
                with watching_parts(build.update_part), cancellable(self._check_stop):
                    stored = table.build(build)
            with self._lock:
                self.built += 1
            self._end(build, "ready", "built" if stored else "built (not stored)")
        except BaseException as exc:  # noqa: BLE001 - reported in the status, never lost
            text = " ".join(str(exc).split()) or type(exc).__name__
            self._end(build, "failed", error=f"{type(exc).__name__}: {text}"[:300])


class _Slot:
    """One of a store's build slots (its semaphore), held by a build from the queue until
    it stores its table or ends: released once, whichever comes first."""

    def __init__(self, slots: threading.Semaphore) -> None:
        self._slots = slots
        self._held = False
        self._lock = threading.Lock()

    def __enter__(self) -> _Slot:
        self._slots.acquire()
        self._held = True
        return self

    def release(self) -> None:
        """Give the slot back (again: nothing)."""
        with self._lock:
            if self._held:
                self._held = False
                self._slots.release()

    def __exit__(self, *exc: object) -> None:
        self.release()


DEFAULT = TableStore()


def prepare(
    tables: Iterable[Table],
    store: TableStore | None = None,
    out: Callable[[str], None] = print,
) -> list[Build]:
    """Make every table ready (loaded, else built and stored), in order, with progress on
    stderr (a rich bar on a terminal); the next build starts once the one before is
    storing its table. One line each on ``out``, in order: how it was made ready, or why
    it failed. The builds, in order. Interrupted (Ctrl-C), it stops the builds
    (:meth:`TableStore.stop`) before it raises."""
    store = store or DEFAULT
    builds: list[Build] = []
    told = 0  # the builds reported on ``out`` so far
    try:
        for table in tables:
            build = store.start(table)
            builds.append(build)
            if build.running:
                label = table.title + (f" ({table.cost})" if table.cost else "")
                with Stage(label, "") as stage:
                    while not build.wait(0.2) and build.stage != "storing":
                        stage.update(build.done, build.total)
                        told = _tell_finished(builds, told, out)  # one stored meanwhile
            told = _tell_finished(builds, told, out)
        for build in builds[told:]:
            build.wait()
            _tell(build, out)
    except BaseException:  # Ctrl-C: the builds stop and remove what they had not stored
        store.stop()
        raise
    return builds


def _tell_finished(builds: list[Build], told: int, out: Callable[[str], None]) -> int:
    """:func:`_tell` the builds from ``told`` on that have finished, in order (up to the
    first still running); the number told in all."""
    while told < len(builds) and not builds[told].running:
        _tell(builds[told], out)
        told += 1
    return told


def _tell(build: Build, out: Callable[[str], None]) -> None:
    """The line :func:`prepare` gives for a finished build."""
    if build.stage == "ready":
        out(f"{build.table.title}: ready ({build.how}, {build.elapsed:.1f} s)")
    else:
        out(f"{build.table.title}: failed: {build.error}")
