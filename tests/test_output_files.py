"""Files the user names (exports, records, plots) are written by one helper
(``diceopt.output.replace_file``): a regular file atomically, a symlink through to its
target, a device or FIFO in place and never renamed over; a write error is one line."""

from __future__ import annotations

import errno
import json
import os
import stat
import threading
from pathlib import Path

import numpy as np
import pytest

from diceopt import storage
from diceopt.cli import main
from diceopt.errors import InputError
from diceopt.games.yatzy.commands.export import export
from diceopt.games.yatzy.kernel.solve import solve_table
from diceopt.games.yatzy.rulebook.variants import SCANDINAVIAN
from diceopt.output import replace_file, write_file


@pytest.fixture(scope="module")
def small():
    rules = SCANDINAVIAN.reduced(("ones", "sixes", "chance"), bonus_threshold=9)
    return solve_table(rules, dtype="float64")


def _read_fifo(path: Path) -> tuple[threading.Thread, list[bytes]]:
    """A reader of the FIFO at ``path`` in a thread (the writer's open waits for it)."""
    got: list[bytes] = []

    def read() -> None:
        with open(path, "rb") as fh:
            got.append(fh.read())

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread, got


def test_export_to_a_fifo_writes_into_it_and_leaves_it_a_fifo(small, tmp_path):
    fifo = tmp_path / "rows.jsonl"
    os.mkfifo(fifo)
    thread, got = _read_fifo(fifo)
    info = export(small, str(fifo), 7, fmt="jsonl")
    thread.join(10)
    assert info["rows"] == 7 and len(got[0].decode().splitlines()) == 7
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)  # not renamed over
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rows.jsonl"]  # no temporary


def test_export_through_a_symlink_replaces_its_target_and_keeps_the_link(small, tmp_path):
    target = tmp_path / "data" / "rows.jsonl"
    target.parent.mkdir()
    target.write_text("old\n")
    target.chmod(0o640)
    link = tmp_path / "link.jsonl"
    link.symlink_to(target)
    export(small, str(link), 5, fmt="jsonl")
    assert link.is_symlink() and os.readlink(link) == str(target)
    rows = [json.loads(line) for line in target.read_text().splitlines()]
    assert len(rows) == 5
    assert stat.S_IMODE(target.stat().st_mode) == 0o640  # the file's permissions kept
    assert sorted(p.name for p in target.parent.iterdir()) == ["rows.jsonl"]


def test_a_write_error_is_one_line_and_leaves_nothing(tmp_path):
    def full(name: str) -> None:
        Path(name).write_text("partial")
        raise OSError(errno.ENOSPC, "No space left on device")

    with pytest.raises(InputError, match=r"^cannot write .*out\.txt \(the export\): No space"):
        write_file(str(tmp_path / "out.txt"), full, "the export")
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "out.txt").write_text("kept")
    with pytest.raises(InputError):
        write_file(str(tmp_path / "out.txt"), full)
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]
    assert (tmp_path / "out.txt").read_text() == "kept"  # the old file as it was


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
def test_dev_full_stays_a_device_and_the_error_is_one_line(tmp_path, capsys):
    """``simulate --record /dev/full``: written in place (ENOSPC), status 2, one line,
    no "saved to"; /dev/full is still the device."""
    status = main(
        ["stick", "simulate", "--games", "2", "--record", "/dev/full", "--cache-dir", str(tmp_path)]
    )
    out, err = capsys.readouterr()
    assert status == 2 and "saved to" not in out
    errors = [line for line in err.splitlines() if "error" in line]
    assert errors == [
        "diceopt: error: cannot save the record to /dev/full: No space left on device"
    ]
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


def test_replace_file_writes_a_new_file_as_open_would(tmp_path):
    path = tmp_path / "new.svg"
    seen: list[str] = []

    def write(name: str) -> None:
        seen.append(name)
        Path(name).write_text("<svg/>")

    replace_file(str(path), write)
    assert path.read_text() == "<svg/>" and seen[0].endswith(".svg")  # a plot's format
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask


@pytest.mark.parametrize("kind", ["fifo", "symlink"])
def test_stored_tables_are_never_renamed_over_a_non_regular_file(tmp_path, kind):
    key = storage.TableKey("stick", "t", "score", 0.0, "float64", (3,))
    path = storage.table_path(key, tmp_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
    else:
        (tmp_path / "elsewhere").write_text("x")
        path.symlink_to(tmp_path / "elsewhere")
    with pytest.raises(OSError, match="not a regular file"):
        storage.save_arrays(path, key, {"values": np.zeros(3)}, {})
    assert stat.S_ISFIFO(os.lstat(path).st_mode) if kind == "fifo" else path.is_symlink()
    assert [p for p in path.parent.iterdir() if p.name.endswith(".tmp")] == []
