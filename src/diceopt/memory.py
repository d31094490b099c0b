"""Memory: sizes in words, how much this machine can still give a process, large zeroed
arrays, work arrays aligned as numba's own.

Role: work whose memory is estimated up front (``GameSpec.memory_need``) is refused
before it starts when it would not fit: by a server's bound per request
(``diceopt serve --max-memory``), and on the command line by what the machine has
available (:func:`check_available`), so that a command too large for the machine ends
with one line instead of filling the memory and being killed.

Large arrays that threads fill (the Yatzy target tables, up to 0.8 GB) get all their
pages at once (:func:`zeroed`, :func:`populate`): one fault per page as the threads
write took 1.7 s for 0.8 GB, and the threads contended on them; at once, 0.2 s on
recently used memory. On memory the host backs as it is first used, 0.8 GB took 3.1 s
on one core while the other waited; :func:`populate` therefore runs beside the work
that fills the array, on a thread of its own.

Work arrays that numba kernels take from their Python callers start on a cache line
(:func:`aligned_empty`), as the arrays numba allocates do: numpy's start 16 bytes past
one, and the lanes' 32-byte loads of rows that straddle two lines made the exact
distribution's turns a tenth slower.
"""

from __future__ import annotations

import math
import mmap
import sys
import threading
from pathlib import Path
from typing import Any

from diceopt.errors import InputError
from diceopt.lazy import numpy as np

ALIGN = 64  # bytes: a cache line
MADV_POPULATE_WRITE = 23  # Linux 5.14 on (not in Python 3.11's mmap module)
ZEROED_MIN_BYTES = 1 << 24  # smaller arrays: numpy's zeros

MEMINFO = Path("/proc/meminfo")
CGROUP = Path("/sys/fs/cgroup")  # the control group as this process sees it mounted
# (limit, usage) files of its memory controller: cgroup v2, then v1
CGROUP_FILES = (
    ("memory.max", "memory.current"),
    ("memory/memory.limit_in_bytes", "memory/memory.usage_in_bytes"),
)


def size_words(nbytes: float) -> str:
    """``13.8 GB``, ``8.4 MB``, ``32.8 kB``, ``512 bytes``: a size (bytes) for people
    (decimal units)."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if nbytes >= scale:
            return f"{nbytes / scale:.1f} {unit}"
    return f"{int(nbytes)} bytes"


def _read_int(path: Path) -> int | None:
    try:
        return int(path.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def available_bytes() -> int | None:
    """Bytes this process can still take without swapping: the machine's ``MemAvailable``,
    at most what its control group's memory limit leaves (cgroup v2 or v1, as mounted
    in a container); None where neither is known."""
    out = None
    try:
        for line in MEMINFO.read_text().splitlines():
            if line.startswith("MemAvailable:"):
                out = int(line.split()[1]) * 1024
                break
    except (OSError, ValueError, IndexError):
        pass
    for limit_file, usage_file in CGROUP_FILES:
        limit, used = _read_int(CGROUP / limit_file), _read_int(CGROUP / usage_file)
        if limit is not None and used is not None:  # (v2 "max": no limit, not a number)
            left = max(limit - used, 0)
            out = left if out is None else min(out, left)
    return out


def check_available(need: int, what: str, hint: str) -> None:
    """InputError (one line) when ``need`` bytes (an estimate made before the work) are
    more than this machine has available: ``what`` the work, ``hint`` what to do instead."""
    have = available_bytes()
    if have is not None and need > have:
        raise InputError(
            f"{what} would need about {size_words(need)} of memory and this machine has "
            f"{size_words(have)} available: {hint}"
        )


def _madvise() -> Any:
    """libc's ``madvise`` through ctypes, which lets go of the interpreter's lock while it
    runs (``mmap.madvise`` holds it: every other thread would wait). ctypes is imported
    here, not by every process that imports this module."""
    import ctypes

    call = ctypes.CDLL(None, use_errno=True).madvise
    call.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    call.restype = ctypes.c_int
    return call


def populate(view: mmap.mmap) -> threading.Thread | None:
    """Start making every page of ``view`` present and writable (Linux 5.14 on) on a thread
    of its own, and return it: the threads that fill the array meanwhile fault only the
    pages it has not reached yet (the same zeros), and no core waits for the whole. The
    thread keeps the map alive until it is done. None where nothing was started (not
    Linux, an empty view, no libc): the pages then fault in as they are written, as they
    also do where the kernel refuses the advice."""
    if not sys.platform.startswith("linux") or len(view) == 0:
        return None
    try:
        madvise = _madvise()
    except (OSError, AttributeError):
        return None
    pages = np.frombuffer(view, dtype=np.uint8)

    def run() -> None:
        madvise(pages.ctypes.data, pages.size, MADV_POPULATE_WRITE)

    thread = threading.Thread(target=run, name="diceopt-populate", daemon=True)
    thread.start()
    return thread


def zeroed(n: int, dtype: Any) -> np.ndarray:
    """``n`` zeros of ``dtype``, writable; from :data:`ZEROED_MIN_BYTES` on in fresh
    anonymous memory whose pages are made present beside the caller's work
    (:func:`populate`), for arrays that threads then fill."""
    dt = np.dtype(dtype)
    nbytes = int(n) * dt.itemsize
    if nbytes < ZEROED_MIN_BYTES:
        return np.zeros(n, dtype=dt)
    try:
        view = mmap.mmap(-1, nbytes)
    except OSError:  # no such mapping to be had: numpy's zeros (its MemoryError, if any)
        return np.zeros(n, dtype=dt)
    populate(view)
    return np.frombuffer(view, dtype=dt)


def aligned_empty(shape: int | tuple[int, ...], dtype: Any = float) -> np.ndarray:
    """An uninitialised C-contiguous array of ``shape`` and ``dtype`` whose data starts on
    an :data:`ALIGN`-byte boundary (a view into a slightly larger buffer)."""
    dt = np.dtype(dtype)
    dims = tuple(int(d) for d in (shape if isinstance(shape, tuple) else (shape,)))
    nbytes = math.prod(dims) * dt.itemsize
    raw = np.empty(nbytes + ALIGN, dtype=np.uint8)
    start = -raw.ctypes.data % ALIGN
    return raw[start : start + nbytes].view(dt).reshape(dims)
