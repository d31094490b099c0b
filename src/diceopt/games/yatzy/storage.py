"""Solved Yatzy tables on disk: one file per (variant, objective, theta, dtype).

Directory: ``--cache-dir`` if given, else ``$DICEOPT_CACHE``, else the user cache
directory (``platformdirs.user_cache_dir("diceopt")``), under ``yatzy/``.

File layout: the magic line ``DICEOPT-TABLE\\n``, an 8-byte little-endian header length,
a JSON header (format version, game, variant, objective, theta, dtype, shape, sha256 of
the payload, solve seconds, state count), then the raw C-order array. Files are written
atomically (a temporary file in the same directory, then ``os.replace``). A file that is
truncated, corrupt (checksum) or does not match what was asked for is reported with one
line on stderr and rebuilt, never used.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from diceopt.errors import InputError
from diceopt.games.yatzy.kernel import YatzyTable, solve_table
from diceopt.games.yatzy.rules import get_rules, variant_id

MAGIC = b"DICEOPT-TABLE\n"
FORMAT_VERSION = 1
ENV_VAR = "DICEOPT_CACHE"


class TableFileError(Exception):
    """A table file that must not be used (the message says why)."""


def cache_dir(override: str | os.PathLike | None = None) -> Path:
    """Directory of the Yatzy tables: ``override``, else $DICEOPT_CACHE, else the user cache."""
    if override:
        root = Path(override)
    elif os.environ.get(ENV_VAR):
        root = Path(os.environ[ENV_VAR])
    else:
        from platformdirs import user_cache_dir

        root = Path(user_cache_dir("diceopt"))
    return root / "yatzy"


def objective_name(theta: float) -> str:
    """``expected`` for theta 0, else ``exponential``."""
    return "expected" if theta == 0.0 else "exponential"


def table_path(
    variant: str, theta: float = 0.0, dtype: str = "float32", directory: str | None = None
) -> Path:
    """Where the table of (variant, objective, theta, dtype) lives."""
    variant = variant_id(variant)
    name = f"{variant}-{objective_name(theta)}-theta{float(theta)!r}-{np.dtype(dtype).name}.tbl"
    return cache_dir(directory) / name


def save_table(table: YatzyTable, variant: str, path: Path) -> None:
    """Write ``table`` to ``path`` atomically (temporary file + rename)."""
    values = np.ascontiguousarray(table.values)
    payload = values.tobytes()
    header = {
        "format": FORMAT_VERSION,
        "game": "yatzy",
        "variant": variant,
        "objective": objective_name(table.theta),
        "theta": float(table.theta),
        "dtype": values.dtype.name,
        "shape": list(values.shape),
        "sha256": hashlib.sha256(payload).hexdigest(),
        "seconds": table.seconds,
        "states": table.states,
        "value": table.value,
    }
    head = json.dumps(header, sort_keys=True).encode()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(MAGIC)
            fh.write(len(head).to_bytes(8, "little"))
            fh.write(head)
            fh.write(payload)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def read_table(path: Path, variant: str, theta: float, dtype: str) -> tuple[np.ndarray, dict]:
    """The array and header of a table file; TableFileError if it must not be used."""
    try:
        with open(path, "rb") as fh:
            data = bytearray(os.fstat(fh.fileno()).st_size)
            got = fh.readinto(data)
        del data[got:]
    except OSError as exc:
        raise TableFileError(f"cannot read it ({exc.strerror})") from None
    if not data.startswith(MAGIC):  # (a bytearray: the array below is writable)
        raise TableFileError("not a diceopt table file")
    pos = len(MAGIC)
    if len(data) < pos + 8:
        raise TableFileError("truncated header")
    size = int.from_bytes(data[pos : pos + 8], "little")
    pos += 8
    if size > 1 << 20 or len(data) < pos + size:
        raise TableFileError("truncated header")
    try:
        header = json.loads(data[pos : pos + size])
    except ValueError:
        raise TableFileError("unreadable header") from None
    pos += size
    rules = get_rules(variant)
    expected = {
        "format": FORMAT_VERSION,
        "game": "yatzy",
        "variant": variant,
        "objective": objective_name(theta),
        "theta": float(theta),
        "dtype": np.dtype(dtype).name,
        "shape": [1 << rules.num_categories, rules.flags, rules.bonus_threshold + 1],
    }
    if not isinstance(header, dict):
        raise TableFileError("unreadable header")
    for key, want in expected.items():
        if header.get(key) != want:
            raise TableFileError(f"header {key} is {header.get(key)!r}, expected {want!r}")
    payload = memoryview(data)[pos:]
    nbytes = int(np.prod(expected["shape"])) * np.dtype(dtype).itemsize
    if len(payload) != nbytes:
        raise TableFileError(f"payload has {len(payload)} bytes, expected {nbytes}")
    if hashlib.sha256(payload).hexdigest() != header.get("sha256"):
        raise TableFileError("checksum mismatch")
    values = np.frombuffer(payload, dtype=np.dtype(dtype)).reshape(expected["shape"])
    return values, header


@dataclass
class TableInfo:
    """How a table was obtained: loaded from ``path`` or solved (and saved there)."""

    path: Path
    loaded: bool
    seconds: float  # load time if loaded, else solve time
    solve_seconds: float  # the solve's own time (from the file header when loaded)
    saved: bool = False


def warn(message: str) -> None:
    """One warning line on stderr."""
    print(f"diceopt: warning: {message}", file=sys.stderr)


def load_table(
    variant: str | None = None,
    theta: float = 0.0,
    dtype: str = "float32",
    directory: str | None = None,
) -> tuple[YatzyTable, float] | None:
    """The cached table and its load seconds, or None (missing, or bad: warned on stderr)."""
    variant = variant_id(variant)
    rules = get_rules(variant)
    path = table_path(variant, theta, dtype, directory)
    if not path.exists():
        return None
    t0 = time.perf_counter()
    try:
        values, header = read_table(path, variant, theta, dtype)
    except TableFileError as exc:
        warn(f"ignoring cached table {path}: {exc}; rebuilding it")
        return None
    table = YatzyTable(
        rules, values, float(theta), float(header.get("seconds", 0.0)), int(header.get("states", 0))
    )
    return table, time.perf_counter() - t0


def get_table(
    variant: str | None = None,
    theta: float = 0.0,
    dtype: str = "float32",
    directory: str | None = None,
    *,
    force: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[YatzyTable, TableInfo]:
    """Load the table of a variant from the cache, or solve it (and save it).

    ``force``: solve even if a good file exists. A file that cannot be written is
    reported (one line on stderr) and the solved table is still returned.
    """
    variant = variant_id(variant)
    rules = get_rules(variant)
    if np.dtype(dtype).name not in ("float32", "float64"):
        raise InputError(f"dtype must be float32 or float64, got {dtype}")
    path = table_path(variant, theta, dtype, directory)
    if not force:
        got = load_table(variant, theta, dtype, directory)
        if got is not None:
            table, seconds = got
            return table, TableInfo(path, True, seconds, table.seconds)
    table = solve_table(rules, dtype=dtype, theta=theta, progress=progress)
    info = TableInfo(path, False, table.seconds, table.seconds)
    try:
        save_table(table, variant, path)
        info.saved = True
    except OSError as exc:
        warn(f"could not save the table to {path}: {exc.strerror or exc}")
    return table, info
