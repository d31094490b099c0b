"""numba's on-disk kernel cache kept in step with the package's sources.

numba checks a cached kernel against its own source file only: a kernel whose callees
live in another file (most of them: the turn's rules in one module, the solver, the
simulation and the target tables in others, every callee compiled into its caller) is
loaded as it was compiled even after a callee's file has changed, e.g. after a
``git pull``, and computes with the old code. So at import, :func:`keep_in_step`
compares the files that hold numba code (those that mention it) with the stamp written
last time; when one of them has changed, every cached kernel of the package is removed
(numba compiles them again on first use, ``diceopt warm`` ahead of it).

Only numba's cache beside the sources (``__pycache__``, its default where the package
is writable) is kept: with ``NUMBA_CACHE_DIR`` set, or a package that cannot be
written, nothing is done. Costs about a millisecond when nothing has changed (a
``stat`` per source file), a few when a file has.

A kernel that is not in the cache compiles for seconds on first use (10 to 25 s for a
Yatzy command on 2 cores) before the command shows anything. So within
:func:`compile_notices` (the command line's, on a terminal) the first compile says so
in one line: numba calls :func:`listen_for_compiles` (the package's ``numba_extensions``
entry point, numba's hook for extensions) before its first compile in a process, and
the listener hears numba's compile events (a cache miss; loading from the cache is
none).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from diceopt.collector import resume

STAMP = "kernel-sources.json"  # in the package's own __pycache__
CACHED_KERNEL = (".nbi", ".nbc")  # numba's index and data files
MAX_STAMP_BYTES = 1 << 20  # a stamp holds one short entry per source file (about 10 kB)


def _sources(root: Path) -> dict[str, tuple[int, int]]:
    """Every ``.py`` file under ``root`` (relative path -> size in bytes, mtime in ns)."""
    found: dict[str, tuple[int, int]] = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                st = os.stat(path)
                found[os.path.relpath(path, root)] = (st.st_size, st.st_mtime_ns)
    return found


def _read_stamp(path: Path) -> dict:
    """The last stamp (empty when there is none, it cannot be read or it is larger than
    any stamp the package writes)."""
    try:
        if os.stat(path).st_size > MAX_STAMP_BYTES:
            return {}
        with open(path, encoding="utf-8") as f:
            stamp = json.load(f)
        return stamp if isinstance(stamp, dict) and isinstance(stamp.get("files"), dict) else {}
    except (OSError, ValueError):
        return {}


def _mentions_numba(path: Path) -> bool:
    with open(path, "rb") as f:
        return b"numba" in f.read()


def _clear(root: Path) -> int:
    """Remove numba's cached kernels under ``root``; how many files."""
    removed = 0
    for folder, _, files in os.walk(root):
        if os.path.basename(folder) != "__pycache__":
            continue
        for name in files:
            if name.endswith(CACHED_KERNEL):
                try:
                    os.remove(os.path.join(folder, name))
                    removed += 1
                except FileNotFoundError:  # another process removed it first
                    pass
    return removed


def keep_in_step(root: Path | None = None) -> int:
    """Remove the package's cached kernels when a file with numba code has changed
    since the last stamp (``root``: the package folder); the number of files removed."""
    root = Path(__file__).parent if root is None else root
    if os.environ.get("NUMBA_CACHE_DIR") or not os.access(root, os.W_OK):
        return 0
    stamp_path = root / "__pycache__" / STAMP
    files = _sources(root)
    stamp = _read_stamp(stamp_path)
    old = {name: e for name, e in stamp["files"].items() if _entry_ok(e)} if stamp else {}
    if {name: tuple(e[:2]) for name, e in old.items()} == files:
        return 0
    entries = {
        name: [*seen, old[name][2] if tuple(old.get(name, ())[:2]) == seen else None]
        for name, seen in files.items()
    }
    for name, entry in entries.items():
        if entry[2] is None:  # new or changed: read it
            entry[2] = _mentions_numba(root / name)
    kernels = hashlib.sha256(
        json.dumps(sorted((name, e) for name, e in entries.items() if e[2])).encode()
    ).hexdigest()
    removed = _clear(root) if kernels != stamp.get("kernels") else 0
    _write_stamp(stamp_path, {"files": entries, "kernels": kernels})
    return removed


def _entry_ok(entry: object) -> bool:
    """A stamp entry as written: [size, mtime in ns, whether it mentions numba]."""
    return (
        isinstance(entry, list)
        and len(entry) == 3
        and all(isinstance(x, int) and not isinstance(x, bool) for x in entry[:2])
        and isinstance(entry[2], bool)
    )


def _write_stamp(path: Path, stamp: dict) -> None:
    """Write the stamp through a temporary file and a rename, never over a path that is
    not a regular file (then no stamp is kept: the next start checks again)."""
    if os.path.lexists(path) and (path.is_symlink() or not path.is_file()):
        return
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(exist_ok=True)
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(stamp, f)
        os.replace(tmp, path)
    except OSError:  # a read-only or full disk: the next start checks again
        pass
    finally:  # not left behind (an error, or Ctrl-C before the rename)
        if os.path.lexists(tmp):
            try:
                os.remove(tmp)
            except OSError:
                pass


# --- a command says when numba compiles --------------------------------------------------

COMPILE_NOTICE = (
    "compiling numba kernels on first use (seconds, once: later runs load them; "
    "`diceopt warm` compiles every command's ahead) ..."
)
_announce: Callable[[str], None] | None = None  # within compile_notices, until said
_listening = False


@contextmanager
def compile_notices(out: Callable[[str], None] | None) -> Iterator[None]:
    """Within the block, the first kernel numba compiles (not one it loads from its cache)
    says :data:`COMPILE_NOTICE` on ``out``, once (None: nothing is said)."""
    global _announce
    before, _announce = _announce, out
    try:
        yield
    finally:
        _announce = before


def listen_for_compiles() -> None:
    """Listen to numba's compile events (once per process): the ``numba_extensions``
    entry point, which numba calls before its first compile or cache load."""
    global _listening
    if _listening:
        return
    _listening = True
    from numba.core import event

    class CompileListener(event.Listener):
        """At the start of a compile, :data:`COMPILE_NOTICE` to the announcer, once, and
        the collector back (:func:`diceopt.collector.resume`)."""

        def on_start(self, ev: event.Event) -> None:
            global _announce
            resume()  # a compile leaves cyclic garbage: the collector back if held
            out, _announce = _announce, None  # numba compiles one kernel at a time
            if out is not None:
                out(COMPILE_NOTICE)

        def on_end(self, ev: event.Event) -> None:
            pass

    event.register("numba:compile", CompileListener())
