"""Memory: sizes in words, and how much this machine can still give a process.

Role: work whose memory is estimated up front (``GameSpec.memory_need``) is refused
before it starts when it would not fit: by a server's bound per request
(``diceopt serve --max-memory``), and on the command line by what the machine has
available (:func:`check_available`), so that a command too large for the machine ends
with one line instead of filling the memory and being killed.
"""

from __future__ import annotations

from pathlib import Path

from diceopt.errors import InputError

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
