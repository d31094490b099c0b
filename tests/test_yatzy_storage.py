"""Yatzy table files: round trip, atomic write, corrupt / truncated / mismatched files."""

from __future__ import annotations

import json

import numpy as np
import pytest

from diceopt.games.yatzy.rulebook.variants import SCANDINAVIAN, get_rules
from diceopt.games.yatzy.stored.files import (
    MAGIC,
    cache_dir,
    get_table,
    load_table,
    read_table,
    save_table,
    table_path,
)

VARIANT = "scandinavian-forced"  # full-size table file, tiny solve
RULES = get_rules(VARIANT)


@pytest.fixture()
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("DICEOPT_CACHE", str(tmp_path))
    return tmp_path


def test_cache_dir_precedence(tmp_path, monkeypatch):
    monkeypatch.setenv("DICEOPT_CACHE", str(tmp_path / "env"))
    assert cache_dir() == tmp_path / "env" / "yatzy"
    assert cache_dir(tmp_path / "flag") == tmp_path / "flag" / "yatzy"
    monkeypatch.delenv("DICEOPT_CACHE")
    assert cache_dir().name == "yatzy" and "diceopt" in str(cache_dir())


def test_round_trip_and_header(cache):
    table, info = get_table(RULES, 0.0, "float32")
    assert not info.loaded and info.saved and info.path.parent == cache / "yatzy"
    # no temp file left; the lock that the solve held stays beside the table
    lock = info.path.name + ".lock"
    assert sorted(p.name for p in info.path.parent.iterdir()) == [info.path.name, lock]
    again, info2 = get_table(RULES, 0.0, "float32")
    assert info2.loaded
    np.testing.assert_array_equal(again.values, table.values)
    assert again.value == pytest.approx(122.55852739642387, abs=2e-3)
    values, header = read_table(info.path, RULES, 0.0, "float32")
    assert header["format"] == 1 and header["game"] == "yatzy" and header["variant"] == VARIANT
    assert header["dtype"] == "float32" and header["theta"] == 0.0
    assert header["objective"] == "expected" and len(header["sha256"]) == 64
    assert values.flags.writeable


def test_distinct_files_per_key(cache):
    names = {
        table_path(RULES, 0.0, "float32").name,
        table_path(RULES, 0.0, "float64").name,
        table_path(RULES, 0.05, "float32").name,
        table_path(RULES, -0.05, "float32").name,
        table_path(SCANDINAVIAN, 0.0, "float32").name,
    }
    assert len(names) == 5


def _corrupt(path, how):
    data = bytearray(path.read_bytes())
    if how == "flip":
        data[-1000] ^= 0x40
    elif how == "truncate":
        data = data[: len(data) // 2]
    elif how == "truncate-header":
        data = data[: len(MAGIC) + 4]
    elif how == "magic":
        data[0:4] = b"JUNK"
    elif how in ("variant", "dtype", "theta", "shape", "format"):
        size = int.from_bytes(data[len(MAGIC) : len(MAGIC) + 8], "little")
        start = len(MAGIC) + 8
        header = json.loads(data[start : start + size])
        header[how] = {
            "variant": "scandinavian",
            "dtype": "float64",
            "theta": 0.5,
            "shape": [2, 1, 64],
            "format": 99,
        }[how]
        head = json.dumps(header).encode()
        data = data[: len(MAGIC)] + len(head).to_bytes(8, "little") + head + data[start + size :]
    path.write_bytes(bytes(data))


@pytest.mark.parametrize(
    "how",
    [
        "flip",
        "truncate",
        "truncate-header",
        "magic",
        "variant",
        "dtype",
        "theta",
        "shape",
        "format",
    ],
)
def test_bad_file_is_reported_and_rebuilt(cache, capsys, how):
    table, info = get_table(RULES, 0.0, "float32")
    _corrupt(info.path, how)
    capsys.readouterr()
    assert load_table(RULES, 0.0, "float32") is None  # never used
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "warning" in err and str(info.path) in err
    rebuilt, info2 = get_table(RULES, 0.0, "float32")
    assert not info2.loaded and info2.saved
    np.testing.assert_array_equal(rebuilt.values, table.values)
    assert load_table(RULES, 0.0, "float32") is not None  # the file is good again


def test_force_resolves(cache):
    get_table(RULES, 0.0, "float64")
    _, info = get_table(RULES, 0.0, "float64", force=True)
    assert not info.loaded


def test_explicit_directory_and_unwritable(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("DICEOPT_CACHE", str(tmp_path / "env"))
    _, info = get_table(RULES, 0.0, "float32", str(tmp_path / "flag"))
    assert info.path.parent == tmp_path / "flag" / "yatzy"
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    capsys.readouterr()
    table, info = get_table(RULES, 0.0, "float32", str(blocker))
    assert not info.saved and np.isfinite(table.value)
    assert capsys.readouterr().err.count("warning") == 1


def test_save_is_atomic_replace(cache):
    table, info = get_table(RULES, 0.0, "float32")
    before = info.path.stat().st_ino
    save_table(table, info.path)
    assert info.path.stat().st_ino != before  # a new file renamed over the old one
    assert sorted(p.suffix for p in info.path.parent.iterdir()) == [".lock", ".tbl"]


def test_tables_are_filed_under_the_rules_storage_key(cache):
    """A rules object's ``key`` (a rule file's name and content hash) names its files, and
    the key survives nowhere it should not: reduced rules go back to their name."""
    import dataclasses

    keyed = dataclasses.replace(RULES, key="my-rules-0123abcd")
    assert keyed.storage_key == "my-rules-0123abcd" and RULES.storage_key == VARIANT
    assert keyed == RULES  # the key is not part of the rules' identity
    assert "my-rules-0123abcd" in table_path(keyed, 0.0, "float32").name
    assert table_path(keyed, 0.0, "float32") != table_path(RULES, 0.0, "float32")
    assert keyed.reduced(("ones", "chance")).storage_key == "reduced"
    table, info = get_table(keyed, 0.0, "float32")
    assert info.path == table_path(keyed, 0.0, "float32") and info.saved
    assert load_table(RULES, 0.0, "float32") is None  # not filed under the name
    values, header = read_table(info.path, keyed, 0.0, "float32")
    assert header["variant"] == "my-rules-0123abcd"


POSITION = "dice 1 3 3 5 6 | rerolls 2 | filled ones twos | upper 3"  # reads the row of 0b111


def _advice(capsys):
    """The advice of POSITION from the stored table (not from this process) and stderr."""
    from diceopt.games.yatzy import SPEC
    from diceopt.games.yatzy.stored.store import TABLES

    TABLES.clear()
    config = SPEC.rules(VARIANT)
    actions = SPEC.advise(config, SPEC.parse(config, POSITION)).actions
    return actions, capsys.readouterr().err


def _damage_row(path, mask):
    """Flip one bit inside the stored row of ``mask`` (one flag, upper totals 0..63)."""
    data = bytearray(path.read_bytes())
    start = len(MAGIC) + 8 + int.from_bytes(data[len(MAGIC) : len(MAGIC) + 8], "little")
    data[start + mask * 64 * 4 + 10] ^= 0x08
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("how", ["row", "truncate", "magic", "variant", "dtype"])
def test_advice_from_a_damaged_table_is_warned_once_and_rebuilt(cache, capsys, how):
    get_table(RULES, 0.0, "float32")
    want, err = _advice(capsys)  # from the stored rows, read without numpy
    assert err == "" and want
    path = table_path(RULES, 0.0, "float32")
    if how == "row":
        _damage_row(path, 0b111)
    else:
        _corrupt(path, how)
    got, err = _advice(capsys)
    assert err.count("diceopt: warning") == 1 and "ignoring cached table" in err  # (then a solve)
    assert "rebuilding it" in err
    assert str(path) in err and got == want
    again, err = _advice(capsys)  # the rebuilt file is good
    assert err == "" and again == want


def test_damage_where_advice_does_not_read_changes_no_answer(cache, capsys):
    # the blocks advice reads are checked; a damaged row it never reads is caught when the
    # table is read whole (solve, simulate), never used
    get_table(RULES, 0.0, "float32")
    want, _ = _advice(capsys)
    path = table_path(RULES, 0.0, "float32")
    _damage_row(path, (1 << RULES.num_categories) - 2)
    got, err = _advice(capsys)
    assert got == want and err == ""
    assert load_table(RULES, 0.0, "float32") is None
    assert "checksum mismatch" in capsys.readouterr().err


def test_two_threads_loading_one_table_get_the_same_table(monkeypatch):
    """Two threads that miss the in-process cache together both load the table; both are
    given the first one kept, so what is attached to it later is seen by every caller."""
    import threading

    from diceopt.games.yatzy.stored import store

    both_loading = threading.Barrier(2, timeout=30)

    def load(*args, **kwargs):
        both_loading.wait()  # each thread is past the cache check before either stores
        return object(), None

    monkeypatch.setattr(store, "TABLES", {})
    monkeypatch.setattr(store, "get_table", load)
    got: list[object] = []
    threads = [
        threading.Thread(target=lambda: got.append(store.get_solved(SCANDINAVIAN)))
        for _ in range(2)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(got) == 2 and got[0] is got[1]
    assert list(store.TABLES.values()) == [got[0]]
