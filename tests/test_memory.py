"""Memory known up front (``diceopt.memory``): what the machine has available, and a
command whose estimate is over it refused in one line before any work starts."""

from __future__ import annotations

import numpy as np
import pytest

from diceopt import memory
from diceopt.cli import main
from diceopt.errors import InputError
from diceopt.games.yatzy import SPEC
from diceopt.games.yatzy.commands.requests import check_distribution_memory, memory_need


@pytest.fixture
def machine(tmp_path, monkeypatch):
    """A machine whose MemAvailable the test sets (``machine(kib)``), no control group."""

    def set_available(
        kib: int | None, cgroup: tuple[str, str] | None = None, version: int = 2
    ) -> None:
        meminfo = tmp_path / "meminfo"
        lines = ["MemTotal:       99999999 kB"]
        if kib is not None:
            lines.append(f"MemAvailable:   {kib} kB")
        meminfo.write_text("\n".join(lines) + "\n")
        group = tmp_path / "cgroup"
        (group / "memory").mkdir(parents=True, exist_ok=True)
        for pair in memory.CGROUP_FILES:
            for name in pair:
                (group / name).unlink(missing_ok=True)
        if cgroup is not None:
            limit, usage = memory.CGROUP_FILES[0 if version == 2 else 1]
            (group / limit).write_text(cgroup[0] + "\n")
            (group / usage).write_text(cgroup[1] + "\n")
        monkeypatch.setattr(memory, "MEMINFO", meminfo)
        monkeypatch.setattr(memory, "CGROUP", group)

    return set_available


def test_available_is_meminfo_within_the_control_groups_limit(machine):
    machine(2_000_000)
    assert memory.available_bytes() == 2_000_000 * 1024
    machine(2_000_000, ("max", "123"))  # no limit
    assert memory.available_bytes() == 2_000_000 * 1024
    machine(2_000_000, ("1000000000", "400000000"))  # 1 GB limit, 0.4 GB used
    assert memory.available_bytes() == 600_000_000
    machine(None, ("1000000000", "1200000000"))  # over its limit already
    assert memory.available_bytes() == 0
    machine(2_000_000, ("1000000000", "400000000"), version=1)
    assert memory.available_bytes() == 600_000_000
    machine(2_000_000, ("9223372036854771712", "4293820416"), version=1)  # v1: no limit
    assert memory.available_bytes() == 2_000_000 * 1024
    machine(None)
    assert memory.available_bytes() is None
    memory.check_available(10**15, "anything", "no hint")  # unknown: not refused


def test_check_available_says_what_and_how_much_in_one_line(machine):
    machine(1_000_000)  # 1.0 GB
    memory.check_available(900_000_000, "a small job", "do less")
    with pytest.raises(InputError) as err:
        memory.check_available(3_500_000_000, "a big job", "do less")
    assert str(err.value) == (
        "a big job would need about 3.5 GB of memory and this machine has 1.0 GB available: do less"
    )


def test_a_distribution_too_large_for_the_machine_is_refused_before_its_solve(
    machine, capsys, tmp_path
):
    machine(8_000_000)  # 8.2 GB: Maxi from the start needs about 41 GB (module docs)
    cache = tmp_path / "tables"
    assert main(["yatzy", "distribution", "--variant", "maxi", "--cache-dir", str(cache)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.strip().splitlines() == [
        "diceopt: error: the maxi distribution from the start would need about 41.3 GB of "
        "memory and this machine has 8.2 GB available: give a later position (more "
        "categories filled)"
    ]
    assert not cache.exists() or not any(p.is_file() for p in cache.rglob("*"))  # no solve


def test_the_need_shrinks_with_the_filled_categories(machine):
    config = SPEC.rules("maxi")
    start = memory_need(config, "distribution")
    table = memory_need(config, "advice")  # the table's part (not loaded here)
    assert table > 0 and start > 10 * table
    late = "dice 1 2 3 4 5 6 | rerolls 2 | filled " + " ".join(config.rules.categories[:10])
    machine(4_000_000)  # 4.1 GB: enough from ten categories filled on
    check_distribution_memory(config, late)
    with pytest.raises(InputError, match="from the start would need"):
        check_distribution_memory(config, None)
    from diceopt.games.yatzy.play.advice import parse_position

    pos = parse_position(late, config.rules)
    assert memory_need(config, "distribution", pos) - table == (start - table) >> 10
    with pytest.raises(InputError, match="rerolls"):  # a bad position: its own error
        check_distribution_memory(config, "dice 1 2 3 4 5 6 | rerolls 9")


def resident_bytes() -> int:
    """This process's resident memory (bytes), from /proc."""
    import os

    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.parametrize(
    "n, dtype", [(10, "float32"), (memory.ZEROED_MIN_BYTES // 4 + 3, "float32")]
)
def test_zeroed_arrays_are_writable_zeros_of_their_dtype(n, dtype):
    """Small arrays from numpy, large ones from anonymous memory whose pages a thread of
    its own makes present, with nothing written (Linux): both zeros, writable, ``n`` long."""
    import threading

    import numpy as np

    before = resident_bytes()
    a = memory.zeroed(n, dtype)
    for thread in threading.enumerate():
        if thread.name == "diceopt-populate":
            thread.join()
    grew = resident_bytes() - before
    if a.nbytes >= memory.ZEROED_MIN_BYTES:
        assert grew >= 0.9 * a.nbytes  # present at once, not page by page as written
    assert a.dtype == np.dtype(dtype) and a.shape == (n,) and a.flags.writeable
    assert not a.any()
    a[-1] = 2.5
    assert a[-1] == 2.5 and a[:-1].sum() == 0


def test_zeroed_beyond_any_machine_is_numpys_memory_error():
    """A size no mapping can hold ends as numpy's zeros would: a MemoryError."""
    with pytest.raises(MemoryError):
        memory.zeroed(10**15, "float64")


def test_populate_runs_beside_the_caller(monkeypatch):
    """The pages are asked for on a thread of its own: populate returns while the advice
    is still under way (held here until the test lets it go), with the whole view's
    address and length and MADV_POPULATE_WRITE (elsewhere than Linux: nothing starts)."""
    import mmap
    import sys
    import threading

    import numpy as np

    go, calls = threading.Event(), []

    def held_madvise(address: int, length: int, advice: int) -> int:
        go.wait(10)  # (a bound: a populate that waits for its own thread fails, not hangs)
        calls.append((address, length, advice))
        return 0

    monkeypatch.setattr(memory, "_madvise", lambda: held_madvise)
    view = mmap.mmap(-1, 1 << 16)
    thread = memory.populate(view)
    if not sys.platform.startswith("linux"):
        assert thread is None and not calls
        return
    assert thread is not None and thread.is_alive() and not calls
    go.set()
    thread.join()
    address = np.frombuffer(view, dtype=np.uint8).ctypes.data
    assert calls == [(address, 1 << 16, memory.MADV_POPULATE_WRITE)]


@pytest.mark.parametrize("shape", [(463, 64), (252, 72), (10,), 5, (3, 4, 5), (0, 4)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int16, np.int64])
def test_aligned_empty_starts_on_a_cache_line(shape, dtype):
    # numpy's own arrays start 16 bytes past a line; the kernels' work arrays start on one,
    # as numba's do, whatever the size and dtype, and are ordinary writable C arrays
    a = memory.aligned_empty(shape, dtype)
    want = (shape,) if isinstance(shape, int) else shape
    assert a.shape == want and a.dtype == np.dtype(dtype)
    assert a.size == 0 or a.ctypes.data % memory.ALIGN == 0  # an empty one has no data
    assert a.flags.c_contiguous and a.flags.writeable
    a[...] = 7
    assert (a == 7).all()
