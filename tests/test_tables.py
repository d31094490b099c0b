"""The shared table store (``diceopt.tables``): one build per table in a process (single
flight), one per cache directory across processes (a file lock), status, failures; and
Yatzy's stored target rows from the start, built by one process and loaded by another."""

from __future__ import annotations

import dataclasses
import fcntl
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from diceopt.progress import part
from diceopt.storage import file_lock, lock_path
from diceopt.tables import (
    STATUS_MAX_BYTES,
    Build,
    Table,
    TableStore,
    build_id,
    prepare,
    published_status,
    status_file,
)

SRC = str(Path(__file__).resolve().parent.parent / "src")


class FileTable:
    """A table stored as a small file: built when asked (counted), loaded when stored.
    ``gate``: each of its three steps waits for it; ``storing``: one step, then the
    ``storing`` stage, which waits for the gate."""

    def __init__(
        self, path: Path, gate: threading.Event | None = None, storing: bool = False
    ) -> None:
        self.path = path
        self.gate = gate
        self.storing = storing
        self.builds = 0
        self.loaded: str | None = None
        self.lock = threading.Lock()

    def table(self) -> Table:
        return Table(
            name=f"test {self.path.name}",
            title=f"the {self.path.stem} table",
            path=self.path,
            ready=lambda: self.loaded is not None,
            load=self.load,
            build=self.build,
        )

    def load(self) -> bool:
        if not self.path.exists():
            return False
        self.loaded = self.path.read_text()
        return True

    def build(self, report: Build) -> bool:
        with self.lock:
            self.builds += 1
        for i in range(1 if self.storing else 3):
            report.update(i + 1, 1 if self.storing else 3)
            if self.storing:
                report.set_stage("storing")
            if self.gate is not None:
                assert self.gate.wait(60), "the test never let the build finish"
        self.path.write_text("42")
        self.loaded = "42"
        return True


def test_concurrent_callers_share_one_build(tmp_path):
    gate = threading.Event()
    made = FileTable(tmp_path / "t.tbl", gate)
    store = TableStore()
    builds = []

    def caller() -> None:
        builds.append(store.ensure(made.table()))

    threads = [threading.Thread(target=caller) for _ in range(6)]
    for t in threads:
        t.start()
    first = store.start(made.table())
    while first.stage != "building":  # the build waits at the gate until released
        first.wait(0.01)
    assert first.running and first.to_json()["stage"] == "building"
    gate.set()
    for t in threads:
        t.join()
    assert made.builds == 1 and store.built == 1
    assert len(builds) == 6 and all(b is first for b in builds)
    assert first.stage == "ready" and first.how == "built" and first.percent == 100.0
    # ready in the process: a later caller gets the same, finished build
    assert store.ensure(made.table()) is first and made.builds == 1


def test_a_stored_table_is_loaded_not_built(tmp_path):
    (tmp_path / "t.tbl").write_text("7")
    made = FileTable(tmp_path / "t.tbl")
    build = TableStore().ensure(made.table())
    assert build.stage == "ready" and build.how == "loaded" and made.builds == 0
    assert made.loaded == "7"


def test_status_entry_shape(tmp_path):
    made = FileTable(tmp_path / "t.tbl")
    store = TableStore()
    store.ensure(made.table())
    (entry,) = [b.to_json() for b in store.status()]
    assert set(entry) == {
        "id", "name", "title", "stage", "percent", "done", "total", "elapsed_seconds", "how",
        "error",
    }  # fmt: skip
    assert entry["stage"] == "ready" and entry["title"] == "the t table"
    assert entry["elapsed_seconds"] >= 0 and entry["error"] is None
    assert entry["id"] == build_id(made.table()) and len(entry["id"]) == 16


class SteppedTable:
    """A table whose build the test moves on one report at a time: each report waits for
    ``go``, is made (a step through ``Build.update``, a part through
    ``diceopt.progress.part`` as a kernel's slices report), then says so on ``said``."""

    REPORTS = [("step", 0, 4), ("part", 1, 8), ("part", 4, 8), ("part", 2, 8), ("step", 1, 4),
               ("part", 6, 8), ("step", 4, 4)]  # fmt: skip

    def __init__(self, path: Path) -> None:
        self.path = path
        self.go = threading.Semaphore(0)
        self.said = threading.Semaphore(0)
        self.made = False

    def table(self) -> Table:
        return Table("stepped", "the stepped table", self.path, lambda: self.made,
                     lambda: False, self.build)  # fmt: skip

    def build(self, report: Build) -> bool:
        for kind, done, total in self.REPORTS:
            assert self.go.acquire(timeout=60), "the test never moved the build on"
            if kind == "step":
                report.update(done, total)
            else:
                part(done, total)
            self.said.release()
        assert self.go.acquire(timeout=60), "the test never let the build end"
        self.made = True
        return False

    def next(self) -> None:
        """Let the next report be made, and wait until it is."""
        self.go.release()
        assert self.said.acquire(timeout=60), "the build did not report"


def test_a_build_reports_its_steps_refined_by_the_parts_of_the_step_under_way(tmp_path):
    stepped = SteppedTable(tmp_path / "s.tbl")
    store = TableStore()
    build = store.start(stepped.table())
    assert build.id == build_id(stepped.table())
    seen = []
    for _ in SteppedTable.REPORTS:
        stepped.next()
        status = build.status_json()
        assert status["state"] == "building" and status["stage"] == "building"
        seen.append(status["fraction"])
    # steps of a quarter; within the first, 1/8 then 4/8 of it; a part that goes back
    # (another run within the step) never lowers it; the next step starts at its own
    # share; the last step reported: all of it
    assert seen == [0.0, 0.0312, 0.125, 0.125, 0.25, 0.4375, 1.0]
    assert build.percent == 100.0
    stepped.go.release()
    build.wait(60)
    done = build.status_json()
    assert done["state"] == "ready" and done["fraction"] == 1.0 and done["seconds_left"] == 0.0
    assert store.by_id(build.id) is build and store.by_id("0" * 16) is None


def test_the_time_left_is_the_pace_of_the_stage_so_far(tmp_path):
    table = SteppedTable(tmp_path / "s.tbl").table()
    build = Build(table)
    assert build.seconds_left is None  # nothing done yet: no estimate
    build.set_stage("building")
    build.stage_started -= 30.0  # the stage began 30 s ago
    build.update(1, 4)
    assert build.seconds_left == pytest.approx(90.0, abs=0.5)  # a quarter in 30 s
    build.update_part(1, 2)  # half of the second step: 3/8 in 30 s
    assert build.seconds_left == pytest.approx(50.0, abs=0.5)
    build.set_stage("storing")  # a stage without steps: no fraction, no estimate
    assert build.fraction is None and build.seconds_left is None


def test_a_store_keeps_a_bounded_number_of_finished_builds(tmp_path):
    store = TableStore(keep=2)
    made = [FileTable(tmp_path / f"t{i}.tbl") for i in range(5)]
    builds = [store.ensure(m.table()) for m in made]
    assert [b.stage for b in builds] == ["ready"] * 5
    assert store.status() == builds[-2:]  # the oldest finished ones let go
    assert store.by_id(builds[0].id) is None and store.by_id(builds[-1].id) is builds[-1]
    # a running build is never let go
    gate = threading.Event()
    slow = FileTable(tmp_path / "slow.tbl", gate)
    running = store.start(slow.table())
    for m in made[:3]:
        m.loaded = None  # forgotten by the process: loaded again, a new finished build
        store.ensure(m.table())
    assert running in store.status() and len(store.status()) == 3
    gate.set()
    assert running.wait(60) and running.stage == "ready"


def test_a_failed_build_is_reported_and_tried_again(tmp_path):
    tries = []

    def build(report: Build) -> bool:
        tries.append(1)
        if len(tries) == 1:
            raise MemoryError("no room\nfor it")
        return True

    done = []
    table = Table("t", "the t table", tmp_path / "t.tbl", lambda: bool(done), lambda: False, build)
    store = TableStore()
    failed = store.ensure(table)
    assert failed.stage == "failed" and failed.error == "MemoryError: no room for it"
    again = store.ensure(table)
    assert again is not failed and again.stage == "ready" and len(tries) == 2


def test_a_table_dropped_by_the_process_is_loaded_again(tmp_path):
    made = FileTable(tmp_path / "t.tbl")
    store = TableStore()
    first = store.ensure(made.table())
    made.loaded = None  # the process forgot it (e.g. a memo cleared)
    second = store.ensure(made.table())
    assert second is not first and second.how == "loaded" and made.builds == 1


def test_file_lock_says_whether_it_waited(tmp_path):
    path = tmp_path / "x.lock"
    with file_lock(path) as waited:
        assert waited is False
        assert lock_path(tmp_path / "a.mmap") == tmp_path / "a.mmap.lock"


def test_prepare_prints_one_line_per_table(tmp_path, capsys):
    made = FileTable(tmp_path / "t.tbl")
    lines: list[str] = []
    builds = prepare([made.table()], TableStore(), out=lines.append)
    assert [b.stage for b in builds] == ["ready"]
    assert len(lines) == 1 and lines[0].startswith("the t table: ready (built, ")


# --- the status a build publishes for the other processes --------------------------------


def test_a_build_publishes_its_status_for_the_other_processes(tmp_path, monkeypatch):
    monkeypatch.setenv("DICEOPT_CACHE", str(tmp_path))
    gate = threading.Event()
    made = FileTable(tmp_path / "t.tbl", gate)
    build = TableStore().start(made.table())
    other = TableStore()  # another worker's store: it does not build this table
    try:
        while not (build.stage == "building" and build.done == 1):
            build.wait(0.01)
        assert other.by_id(build.id) is None
        seen = published_status(build.id)
        while seen is None or seen["fraction"] is None:  # the last report, within 0.5 s
            build.wait(0.05)
            seen = published_status(build.id)
        # the same answer as this process's, but for the times, which move on meanwhile
        moving = ("elapsed_seconds", "seconds_left")
        now = build.own_status()
        assert {k: v for k, v in seen.items() if k not in moving} == {
            k: v for k, v in now.items() if k not in moving
        }
        assert 0 <= seen["elapsed_seconds"] <= now["elapsed_seconds"]
        assert seen["seconds_left"] is not None and seen["seconds_left"] >= 0
        assert seen["state"] == "building" and seen["title"] == "the t table"
        assert seen["fraction"] == round(1 / 3, 4) and "pid" not in seen
        stored = json.loads(status_file(build.id).read_text())
        assert stored["pid"] == os.getpid() and stored["id"] == build.id
    finally:
        gate.set()
    build.wait(60)
    for _ in range(600):  # its end is published too, just after it ends (within 6 s)
        done = published_status(build.id)
        if done is not None and done["state"] != "building":
            break
        time.sleep(0.01)  # (not build.wait: it returns at once, the build has ended)
    assert done is not None and done["state"] == "ready" and done["fraction"] == 1.0
    # a table loaded (not built) publishes nothing
    loaded = TableStore().ensure(FileTable(tmp_path / "t.tbl").table())
    assert loaded.how == "loaded" and loaded.published is None


def test_a_build_waiting_for_another_process_answers_with_that_builds_status(tmp_path, monkeypatch):
    monkeypatch.setenv("DICEOPT_CACHE", str(tmp_path))
    table = FileTable(tmp_path / "t.tbl").table()
    waiting = Build(table)
    waiting.set_stage("waiting")  # (a build waiting for the lock publishes nothing)
    assert waiting.published is None and published_status(waiting.id) is None
    assert waiting.status_json()["stage"] == "waiting"
    builder = Build(table)  # the other process's build of the same table
    builder.set_stage("building")
    builder.update(2, 4)
    builder.publish(force=True)  # (at once: a report this soon is published 0.5 s later)
    answer = waiting.status_json()
    assert answer["stage"] == "building" and answer["fraction"] == 0.5
    assert answer["id"] == waiting.id and answer["title"] == "the t table"


def test_published_status_reads_only_a_status_file(tmp_path, monkeypatch):
    monkeypatch.setenv("DICEOPT_CACHE", str(tmp_path))
    for bad in ("", "../../etc/passwd", "0123456789ABCDEF", "g" * 16, "0" * 17):
        assert status_file(bad) is None and published_status(bad) is None
    ident = "0123456789abcdef"
    path = status_file(ident)
    assert path == tmp_path / "builds" / f"{ident}.json"
    assert published_status(ident) is None  # none published
    path.parent.mkdir()
    entry = {"id": ident, "title": "t", "state": "building", "fraction": 0.5, "pid": os.getpid()}
    path.write_text(json.dumps(entry))
    assert published_status(ident) == {k: v for k, v in entry.items() if k != "pid"}
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    dead = int(gone.stdout)  # a process that has ended: its build is no more
    for data in (
        entry | {"pid": dead}, entry | {"pid": "1"}, entry | {"id": "f" * 16},
        entry | {"state": "asleep"}, [entry], "building",
    ):  # fmt: skip
        path.write_text(json.dumps(data))
        assert published_status(ident) is None, data
    path.write_text(json.dumps(entry | {"state": "ready", "pid": dead}))  # ended: still said
    assert published_status(ident)["state"] == "ready"
    os.utime(path, (1, 1))  # older than STATUS_MAX_AGE
    assert published_status(ident) is None
    path.write_text("{" + " " * STATUS_MAX_BYTES + "}")
    assert published_status(ident) is None
    path.write_bytes(b"\xff\xfe{")
    assert published_status(ident) is None
    path.unlink()
    (tmp_path / "elsewhere.json").write_text(json.dumps(entry))
    path.symlink_to(tmp_path / "elsewhere.json")  # a link is not followed
    assert published_status(ident) is None
    path.unlink()
    os.mkfifo(path)  # read without blocking, and refused
    assert published_status(ident) is None
    # a build does not rename its status over what is not a regular file
    path.unlink()
    path.mkdir()
    build = Build(FileTable(tmp_path / "t.tbl").table())
    build.id = ident
    build.set_stage("building")
    assert path.is_dir() and build.published is not None


# --- two processes on one cache directory -----------------------------------------------

WORKER = """
import sys, threading
from pathlib import Path
sys.path.insert(0, {tests!r})
from test_tables import FileTable
from diceopt.tables import TableStore

folder = Path(sys.argv[1])
gate = threading.Event()
made = FileTable(folder / "shared.tbl", gate)
store = TableStore()
build = store.start(made.table())
while build.running:
    if build.stage in ("building", "waiting"):
        (folder / f"{{sys.argv[2]}}-{{build.stage}}").touch()
    if (folder / "release").exists():
        gate.set()
    build.wait(0.02)
print(build.stage, build.how, made.builds, flush=True)
"""


def test_a_second_process_waits_for_the_first_build_then_loads_it(tmp_path):
    script = WORKER.format(tests=str(Path(__file__).parent))
    env = dict(os.environ, PYTHONPATH=SRC)

    def worker(name: str) -> subprocess.Popen:
        return subprocess.Popen(
            [sys.executable, "-c", script, str(tmp_path), name],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )

    first = worker("a")
    try:
        while not (tmp_path / "a-building").exists():
            assert first.poll() is None, first.communicate()
            threading.Event().wait(0.02)
        second = worker("b")
        while not (tmp_path / "b-waiting").exists():  # the lock is held: b waits
            assert second.poll() is None, second.communicate()
            threading.Event().wait(0.02)
    finally:
        (tmp_path / "release").touch()
    out_a, err_a = first.communicate(timeout=120)
    out_b, err_b = second.communicate(timeout=120)
    assert out_a.split() == ["ready", "built", "1"], err_a
    assert out_b.strip() == "ready loaded (built by another process) 0", err_b
    assert (tmp_path / "shared.tbl").read_text() == "42"


YATZY_WORKER = """
import json
from diceopt.games.yatzy.stored import store as tables
from diceopt.games.yatzy.rulebook.variants import get_rules
from diceopt.tables import DEFAULT

rules = get_rules("scandinavian-forced")
build = DEFAULT.ensure(tables.target_table(rules))
rows = tables.loaded_rows(rules)
print(json.dumps({
    "stage": build.stage, "how": build.how, "built": DEFAULT.built,
    "p": rows.probability(0, 0, 0, 150), "size": int(rows.data.size),
}))
"""


def test_yatzy_target_rows_are_built_by_one_process_and_loaded_by_another(tmp_path):
    env = dict(os.environ, PYTHONPATH=SRC, DICEOPT_CACHE=str(tmp_path))
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", YATZY_WORKER],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for _ in range(2)
    ]
    answers = []
    for proc in procs:
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err
        answers.append(json.loads(out))
    assert sorted(a["built"] for a in answers) == [0, 1]  # one build between them
    assert all(a["stage"] == "ready" for a in answers)
    assert {a["how"] for a in answers} <= {"built", "loaded", "loaded (built by another process)"}
    assert answers[0]["p"] == answers[1]["p"] and answers[0]["size"] == answers[1]["size"]
    assert 0.0 < answers[0]["p"] < 1.0
    stored = list((tmp_path / "yatzy").glob("scandinavian-forced-target-rows-*.mmap"))
    assert len(stored) == 1


def test_target_rows_from_the_start_match_a_solve_from_the_position(monkeypatch, tmp_path):
    from diceopt.games.yatzy.analyses.targets import solve_target_from
    from diceopt.games.yatzy.rulebook.variants import get_rules
    from diceopt.games.yatzy.stored import store as tables

    monkeypatch.setenv("DICEOPT_CACHE", str(tmp_path))
    assert tables.build_rows(get_rules("scandinavian-forced")) is True
    rows = tables.loaded_rows(get_rules("scandinavian-forced"))
    assert not rows.data.flags.writeable  # the stored copy, memory-mapped
    rules = get_rules("scandinavian-forced")
    mask, flag, upper = 0b111, 0, 9  # ones, twos and threes filled, 9 in the upper section
    for k in (50, 120, 200):
        own = solve_target_from(rules, mask, flag, upper, k)
        assert rows.probability(mask, flag, upper, k) == pytest.approx(
            own.probability(mask, flag, upper, k), abs=1e-6
        )


def test_builds_run_one_at_a_time(tmp_path):
    gate = threading.Event()
    first, second = FileTable(tmp_path / "a.tbl", gate), FileTable(tmp_path / "b.tbl", gate)
    store = TableStore()
    a = store.start(first.table())
    while a.stage != "building":
        a.wait(0.01)
    b = store.start(second.table())
    while b.stage != "queued":  # it waits for the build before it (stage "queued")
        b.wait(0.01)
    assert second.builds == 0
    gate.set()
    assert store.ensure(second.table()).stage == "ready" and a.stage == "ready"
    assert (first.builds, second.builds) == (1, 1)


def test_the_next_build_computes_while_the_one_before_stores(tmp_path):
    gate = threading.Event()
    first = FileTable(tmp_path / "a.tbl", gate, storing=True)
    second = FileTable(tmp_path / "b.tbl")
    store = TableStore()
    a = store.start(first.table())
    while a.stage != "storing":
        a.wait(0.01)
    b = store.ensure(second.table(), timeout=60)  # built while the first still stores
    assert b.stage == "ready" and second.builds == 1
    assert a.running and a.stage == "storing"
    with pytest.raises(BlockingIOError):  # the first's table stays locked until stored
        with open(lock_path(first.path), "a") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
    gate.set()
    assert a.wait(60) and a.stage == "ready" and first.builds == 1


def test_prepare_reports_in_order_when_builds_overlap(tmp_path):
    stored = threading.Event()
    first = FileTable(tmp_path / "a.tbl", stored, storing=True)
    second = FileTable(tmp_path / "b.tbl")
    plain = second.table()

    lines: list[str] = []

    def build_then_let_the_first_store(report: Build) -> bool:
        assert first.builds == 1 and not first.path.exists()  # the first is still storing
        ok = plain.build(report)
        stored.set()
        for _ in range(3000):  # the first's line comes while this one still builds
            if lines:
                break
            time.sleep(0.01)
        assert lines and lines[0].startswith("the a table: ready"), lines
        return ok

    tables = [first.table(), dataclasses.replace(plain, build=build_then_let_the_first_store)]
    builds = prepare(tables, TableStore(), lines.append)
    assert [b.stage for b in builds] == ["ready", "ready"]
    assert [line.split(":")[0] for line in lines] == ["the a table", "the b table"]


class SlowTable(FileTable):
    """A build that writes a draft beside its file and works in slices (checkpoints)
    until stopped, removing the draft as it stops (as the Yatzy drafts do)."""

    def build(self, report: Build) -> bool:
        from diceopt.progress import checkpoint

        draft = self.path.with_suffix(".tmp")
        draft.write_text("half")
        try:
            if self.storing:
                report.set_stage("storing")
            for _ in range(3000):
                checkpoint()
                time.sleep(0.01)
            raise AssertionError("the build was never stopped")
        finally:
            draft.unlink()


def test_stop_ends_the_running_builds_at_their_next_slice(tmp_path):
    slow = SlowTable(tmp_path / "s.tbl")
    store = TableStore()
    build = store.start(slow.table())
    while build.stage != "building":
        build.wait(0.01)
    store.stop()
    assert not build.running and build.stage == "failed" and "KeyboardInterrupt" in build.error
    assert list(tmp_path.glob("*.tmp")) == []
    after = FileTable(tmp_path / "t.tbl")  # the store builds again
    assert store.ensure(after.table(), timeout=60).stage == "ready"


def test_an_interrupted_prepare_stops_its_builds_before_it_raises(tmp_path):
    slow = SlowTable(tmp_path / "s.tbl", storing=True)  # the next table is asked for
    store = TableStore()

    def tables():
        yield slow.table()
        raise KeyboardInterrupt  # Ctrl-C while the first one works

    with pytest.raises(KeyboardInterrupt):
        prepare(tables(), store, out=lambda line: None)
    (build,) = store.status()
    assert not build.running and build.stage == "failed"
    assert list(tmp_path.glob("*.tmp")) == []
