"""The shared table storage: several arrays per file, bad files, unwritable caches."""

from __future__ import annotations

import numpy as np
import pytest

from diceopt import storage
from diceopt.cli import main
from diceopt.storage import TableKey, get_or_build, load, read_arrays, store, table_path

KEY = TableKey("demo", "small", "win", 0.0, "float64", shape=(5,), extra=("policy",))


def build():
    return {"values": np.linspace(0, 1, 5), "policy": np.arange(3, dtype=np.int8)}, {"value": 0.5}


@pytest.fixture()
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("DICEOPT_CACHE", str(tmp_path))
    return tmp_path


def test_round_trip_with_extra_arrays(cache):
    stored, info = get_or_build(KEY, build)
    assert not info.loaded and info.saved and info.path == cache / "demo" / KEY.file_name()
    again, info2 = get_or_build(KEY, build)
    assert info2.loaded and info2.header["value"] == 0.5
    np.testing.assert_array_equal(again.arrays["values"], np.linspace(0, 1, 5))
    assert again.arrays["policy"].dtype == np.int8 and again.arrays["policy"].tolist() == [0, 1, 2]
    assert again.arrays["values"].flags.writeable
    # a key with shape None takes whatever size was stored; a missing array is refused
    loose = TableKey("demo", "small", "win", 0.0, "float64")
    assert read_arrays(info.path, loose).arrays["values"].shape == (5,)
    with pytest.raises(storage.TableFileError, match="no 'other' array"):
        read_arrays(info.path, TableKey("demo", "small", "win", extra=("other",)))


def test_distinct_files_per_key():
    keys = [
        KEY,
        TableKey("demo", "small", "expected", 0.0, "float64"),
        TableKey("demo", "small", "win", 0.1, "float64"),
        TableKey("demo", "small", "win", 0.0, "float32"),
        TableKey("demo", "large", "win", 0.0, "float64"),
    ]
    assert len({k.file_name() for k in keys}) == len(keys)


@pytest.mark.parametrize("how", ["flip", "truncate", "shape"])
def test_bad_file_warns_once_and_is_rebuilt(cache, capsys, how):
    _, info = get_or_build(KEY, build)
    data = bytearray(info.path.read_bytes())
    if how == "flip":
        data[-2] ^= 1
    elif how == "truncate":
        data = data[:-7]
    info.path.write_bytes(bytes(data))
    key = KEY if how != "shape" else TableKey("demo", "small", "win", shape=(6,))
    capsys.readouterr()
    assert load(key) is None
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "warning" in err and "rebuilding" in err


def test_unwritable_cache_says_once_that_nothing_was_saved(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    stored, info = get_or_build(KEY, build, blocker)
    assert not info.saved and not info.loaded and stored.arrays["values"].size == 5
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not saved" in err and "saved to" not in err
    assert store(KEY, build()[0], {}, blocker) is False
    assert not table_path(KEY, blocker).exists()


def test_yatzy_solve_with_unwritable_cache_does_not_claim_saved(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    argv = ["yatzy", "solve", "--variant", "scandinavian-forced", "--cache-dir", str(blocker)]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert "saved to" not in captured.out
    assert captured.err.count("warning") == 1 and "not saved" in captured.err
