"""The shared table storage: several arrays per file, bad files, unwritable caches."""

from __future__ import annotations

import json
import threading

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


def test_loaded_arrays_are_private_to_the_process(cache):
    # loaded through a copy-on-write map: writing into them changes neither the file nor
    # a later load
    _, info = get_or_build(KEY, build)
    before = info.path.read_bytes()
    first = read_arrays(info.path, KEY)
    first.arrays["values"][:] = 7.0
    assert info.path.read_bytes() == before
    again = read_arrays(info.path, KEY).arrays["values"]
    np.testing.assert_array_equal(again, np.linspace(0, 1, 5))
    info.path.write_bytes(b"")  # an empty file is refused, not mapped
    with pytest.raises(storage.TableFileError, match="not a diceopt table file"):
        read_arrays(info.path, KEY)


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


# --- memory-mapped tables ------------------------------------------------------------

MKEY = TableKey("demo", "mapped", "win", 0.0, "float32", shape=(3, 50), extra=("policy",))


def mapped_arrays():
    values = np.arange(150, dtype=np.float32).reshape(3, 50) / 7
    return {"values": values, "policy": np.arange(5, dtype=np.int16)}


def test_mapped_round_trip_is_a_read_only_memory_map(cache):
    path = storage.mapped_path(MKEY)
    storage.save_mapped(path, MKEY, mapped_arrays(), {"seconds": 1.5}, block_bytes=64)
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary left
    stored = storage.read_mapped(path, MKEY)
    values = stored.arrays["values"]
    assert not values.flags.writeable and not values.flags.owndata  # a view of the map
    np.testing.assert_array_equal(values, mapped_arrays()["values"])
    assert stored.arrays["policy"].tolist() == [0, 1, 2, 3, 4]
    h = stored.header
    assert h["seconds"] == 1.5 and h["block_bytes"] == 64
    assert h["payload_bytes"] == 656 and len(h["checksums"]) == 11  # 600 + 40 padding + 10 + 6
    with path.open("rb") as fh:  # the payload starts on a page boundary
        assert fh.read(len(storage.MAPPED_MAGIC)) == storage.MAPPED_MAGIC
    assert (path.stat().st_size - h["payload_bytes"]) % storage.PAGE == 0


def _damage(path, how):
    data = bytearray(path.read_bytes())
    if how == "flip":  # one bit of the payload, in the last block
        data[-9] ^= 0x10
    elif how == "flip-first":
        data[-h_payload(path)] ^= 0x01
    elif how == "truncate":
        data = data[:-4]
    elif how == "extend":
        data += b"\0" * 8
    elif how == "truncate-header":
        data = data[: len(storage.MAPPED_MAGIC) + 20]
    elif how == "magic":
        data[:4] = b"JUNK"
    elif how == "header":  # a changed header no longer matches its own checksum
        i = data.index(b'"variant": "mapped"')
        data[i + 12 : i + 18] = b"mappex"
    path.write_bytes(bytes(data))


def h_payload(path):
    return storage.read_mapped(path, MKEY).header["payload_bytes"]


@pytest.mark.parametrize(
    "how", ["flip", "flip-first", "truncate", "extend", "truncate-header", "magic", "header"]
)
def test_bad_mapped_file_warns_once_and_is_rebuilt(cache, capsys, how):
    assert storage.store(MKEY, mapped_arrays(), {}, mapped=True) is True
    path = storage.mapped_path(MKEY)
    _damage(path, how)
    capsys.readouterr()
    assert storage.load(MKEY, mapped=True) is None  # never used
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "warning" in err and "rebuilding" in err
    assert storage.store(MKEY, mapped_arrays(), {}, mapped=True) is True
    stored, seconds = storage.load(MKEY, mapped=True)
    np.testing.assert_array_equal(stored.arrays["values"], mapped_arrays()["values"])
    assert seconds >= 0


def test_lazy_check_reads_only_the_blocks_asked_for(cache):
    path = storage.mapped_path(MKEY)
    storage.save_mapped(path, MKEY, mapped_arrays(), {}, block_bytes=64)
    data = bytearray(path.read_bytes())
    data[-9] ^= 0x10  # the last block (the policy array)
    path.write_bytes(bytes(data))
    with pytest.raises(storage.TableFileError, match="checksum mismatch at byte 640"):
        storage.read_mapped(path, MKEY)
    stored = storage.read_mapped(path, MKEY, verify="lazy")  # header and size only
    check = stored.check
    check.check(0, 600)  # the values: blocks 0 .. 9 are good
    assert check.checked[:10].all() and not check.checked[10]
    np.testing.assert_array_equal(stored.arrays["values"], mapped_arrays()["values"])
    with pytest.raises(storage.TableFileError, match="checksum mismatch"):
        check.check(640, 650)
    with pytest.raises(storage.TableFileError, match="checksum mismatch"):
        check.check(0, 8)  # once bad, never used again
    with pytest.raises(storage.TableFileError):
        check.check_all()


def test_mapped_file_of_another_key_is_refused(cache, capsys):
    storage.store(MKEY, mapped_arrays(), {}, mapped=True)
    other = TableKey("demo", "mapped", "win", 0.0, "float32", shape=(3, 51), extra=("policy",))
    storage.mapped_path(MKEY).rename(storage.mapped_path(other))
    assert storage.load(other, mapped=True) is None
    assert "header shape" in capsys.readouterr().err
    with pytest.raises(storage.TableFileError, match="no 'other' array"):
        storage.read_mapped(
            storage.mapped_path(other),
            TableKey("demo", "mapped", "win", 0.0, "float32", extra=("other",)),
        )


def test_mapped_unwritable_cache(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    assert storage.store(MKEY, mapped_arrays(), {}, blocker, mapped=True) is False
    assert capsys.readouterr().err.count("not saved") == 1


def test_checksums_catch_any_changed_word():
    from diceopt.checksum import checksums

    rng = np.random.default_rng(1)
    data = rng.integers(0, 256, size=4096, dtype=np.uint8)
    base = checksums(data, 1024)
    assert len(base) == 4 and len(set(base)) == 4
    for i in rng.integers(0, data.size, size=50):
        changed = data.copy()
        changed[i] ^= 1 << int(rng.integers(0, 8))
        got = checksums(changed, 1024)
        assert got[i // 1024] != base[i // 1024] and sum(a != b for a, b in zip(got, base)) == 1
    swapped = np.concatenate([data[1024:2048], data[:1024], data[2048:]])
    assert checksums(swapped, 1024)[:2] != base[:2]


def test_rows_are_read_and_checked_a_block_at_a_time(tmp_path):
    import zlib

    from diceopt.blocks import block_crcs
    from diceopt.storage import read_rows

    key = storage.TableKey("g", "v", dtype="float64", shape=(4096, 3))
    values = np.arange(4096 * 3, dtype=np.float64).reshape(4096, 3)
    path = tmp_path / "t.tbl"
    storage.save_arrays(path, key, {"values": values}, {})
    payload = values.tobytes()
    block = storage.read_arrays(path, key).header["block_bytes"]
    want = "".join(
        f"{zlib.crc32(payload[i : i + block]):08x}" for i in range(0, len(payload), block)
    )
    assert block_crcs([payload[:100], payload[100:]], block) == want  # across buffers
    rows = read_rows(path, key)
    assert rows is not None and rows(17) == tuple(values[17].tolist())
    data = bytearray(path.read_bytes())
    data[len(data) - len(payload) + 3000 * 24] ^= 1  # row 3000's block
    path.write_bytes(bytes(data))
    rows = read_rows(path, key)
    assert rows(17) == tuple(values[17].tolist())  # another block: unchanged, checked
    with pytest.raises(storage.TableFileError, match="checksum mismatch"):
        rows(3000)
    with pytest.raises(storage.TableFileError, match="checksum mismatch"):
        rows(17)  # a reader that found damage reads no more
    with pytest.raises(storage.TableFileError, match="checksum mismatch"):
        storage.read_arrays(path, key)  # read whole: the sha256


def test_files_without_block_checksums_are_read_whole(tmp_path):
    from diceopt.storage import read_rows

    key = storage.TableKey("g", "v", dtype="float32", shape=(8, 2))
    path = tmp_path / "old.tbl"
    storage.save_arrays(path, key, {"values": np.ones((8, 2), np.float32)}, {})
    data = path.read_bytes()
    size = int.from_bytes(data[len(storage.MAGIC) : len(storage.MAGIC) + 8], "little")
    start = len(storage.MAGIC) + 8
    header = json.loads(data[start : start + size])
    del header["block_crc32"], header["block_bytes"]  # as written before block checksums
    head = json.dumps(header).encode()
    path.write_bytes(storage.MAGIC + len(head).to_bytes(8, "little") + head + data[start + size :])
    assert read_rows(path, key) is None
    assert storage.read_arrays(path, key).arrays["values"].sum() == 16


def test_a_table_being_solved_by_another_process_is_waited_for_and_loaded(tmp_path):
    # the first solver holds the lock beside the table while it solves; the second asks
    # meanwhile, finds nothing stored, waits for the lock and loads the first one's table
    path = tmp_path / "t.tbl"
    solves: list[str] = []
    results: list[tuple[str, bool]] = []
    (
        solving,
        second_looked,
    ) = threading.Event(), threading.Event()

    def load() -> str | None:
        found = path.read_text() if path.exists() else None
        if threading.current_thread().name == "second":
            second_looked.set()  # after its look: the first writes only once it has looked
        return found

    def solve(who: str) -> str:
        solves.append(who)
        solving.set()
        assert second_looked.wait(10)  # the second has found nothing stored yet
        path.write_text(f"solved by {who}")
        return f"solved by {who}"

    def ask(who: str) -> None:
        results.append(storage.load_or_solve(path, load, lambda: solve(who)))

    first = threading.Thread(target=ask, args=("first",), name="first")
    first.start()
    assert solving.wait(10)
    second = threading.Thread(target=ask, args=("second",), name="second")
    second.start()
    first.join(10)
    second.join(10)
    assert solves == ["first"]
    assert sorted(results) == [("solved by first", False), ("solved by first", True)]
    # force solves again, under the same lock
    assert storage.load_or_solve(path, load, lambda: solve("third"), force=True) == (
        "solved by third",
        False,
    )


def test_a_thread_holding_a_table_lock_takes_it_again_at_once(tmp_path):
    # a table build holds the lock of its table and solves through get_table, which asks
    # for the same lock: that must not wait for itself; the outer hold stays in force
    import fcntl
    import os

    lock = tmp_path / "t.tbl.lock"

    def free_elsewhere() -> bool:
        fd = os.open(lock, os.O_RDWR)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            return False
        finally:
            os.close(fd)

    with storage.file_lock(lock) as waited:
        assert not waited
        with storage.file_lock(lock) as waited_again:
            assert not waited_again
        assert not free_elsewhere()
    assert free_elsewhere()


# --- a mapped table filled in place (MappedDraft) ------------------------------------

SPECS = {"values": (np.float32, (3, 50)), "policy": (np.int16, (5,))}


def test_draft_filled_in_place_stores_the_same_file_as_save_mapped(cache):
    path = storage.mapped_path(MKEY)
    storage.save_mapped(path, MKEY, mapped_arrays(), {"seconds": 12.25}, block_bytes=64)
    expected = storage.read_mapped(path, MKEY)
    path.unlink()
    with storage.MappedDraft(path, MKEY, block_bytes=64) as draft:
        arrays = draft.open(SPECS, {"seconds": 0.0})
        assert arrays["values"].flags.writeable and not arrays["values"].any()
        arrays["values"][...] = mapped_arrays()["values"]  # computed in place
        assert not path.exists()  # nothing at the table's path until it is stored
        # the policy is copied in; a header number longer than the one at open fits
        assert draft.store({"values": arrays["values"], "policy": np.arange(5)}, {"seconds": 12.25})
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary left
    assert not arrays["values"].flags.writeable  # still readable, never written again
    got = storage.read_mapped(path, MKEY)
    for name in ("values", "policy"):
        np.testing.assert_array_equal(got.arrays[name], expected.arrays[name])
    assert got.header == expected.header


def test_draft_left_without_a_store_leaves_nothing(cache):
    path = storage.mapped_path(MKEY)
    with pytest.raises(KeyboardInterrupt):  # Ctrl-C while the table is being computed
        with storage.MappedDraft(path, MKEY) as draft:
            draft.open(SPECS, {})["values"][0, 0] = 1.0
            raise KeyboardInterrupt
    assert list(path.parent.iterdir()) == []


def test_draft_where_no_file_can_be_made_computes_in_memory(cache, capsys):
    blocked = cache / "demo"
    blocked.write_text("a file where the game's folder should be")
    path = storage.mapped_path(MKEY)
    with storage.MappedDraft(path, MKEY) as draft:
        assert draft.open(SPECS, {}) is None  # the caller computes in memory instead
        assert draft.store(mapped_arrays(), {}) is False
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not saved" in err


def test_draft_is_never_renamed_over_a_directory(cache, capsys):
    path = storage.mapped_path(MKEY)
    with storage.MappedDraft(path, MKEY) as draft:
        arrays = draft.open(SPECS, {})
        path.mkdir()  # something that is not a regular file took the table's name
        assert draft.store(arrays, {}) is False
    assert path.is_dir() and [p.name for p in path.parent.iterdir()] == [path.name]
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a regular file" in err
    np.testing.assert_array_equal(arrays["values"], 0.0)  # readable after the failure


@pytest.mark.parametrize("mapped", [False, True])
@pytest.mark.parametrize("kind", ["fifo", "device", "directory"])
def test_a_table_path_that_is_no_regular_file_is_one_warning_never_a_wait(
    cache, capsys, mapped, kind
):
    import os

    key = TableKey("demo", "odd", "win", 0.0, "float64", extra=("policy",))
    path = storage.mapped_path(key) if mapped else table_path(key)
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "fifo":
        os.mkfifo(path)  # opening it to read would wait for a writer
    elif kind == "device":
        path.symlink_to("/dev/zero")
    else:
        path.mkdir()
    got: list[object] = []
    reader = threading.Thread(target=lambda: got.append(load(key, mapped=mapped)), daemon=True)
    reader.start()
    reader.join(30)
    assert not reader.is_alive(), "the load waited on the path"
    assert got == [None]
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "ignoring cached table" in err[0], err
