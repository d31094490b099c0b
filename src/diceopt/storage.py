"""Solved tables on disk, for every game: one file per (game, variant, objective, theta, dtype).

Directory: a ``cache_dir`` argument if given, else ``$DICEOPT_CACHE``, else the user
cache directory (``platformdirs.user_cache_dir("diceopt")``), then one folder per game
(``yatzy/``, ``pig/``, ...).

File layout: the magic line ``DICEOPT-TABLE\\n``, an 8-byte little-endian header length,
a JSON header, then the raw C-order arrays back to back. The header holds the format
version, game, variant (the rules' parameters as text), objective, theta, the dtype and
shape of the main array, ``extra`` (name, dtype and shape of each further array, if
any), the sha256 of the whole payload, the CRC-32 of each block of ``block_bytes``
(``block_crc32``: :func:`read_rows` reads and checks a few rows without numpy, files
written before have none and are read whole) and whatever the game adds (solve
seconds, state count, value). Files are written atomically (a temporary file in the same
directory, then ``os.replace``). A file that is truncated, corrupt (checksum) or does
not match what was asked for is reported with one line on stderr and rebuilt, never
used. A cache that cannot be written is reported with one line too, and the caller is
told (``saved`` False) so that it never claims the table was saved.

Memory-mapped tables (:func:`save_mapped` / :func:`read_mapped`, files ``*.mmap``) are
for tables too large to read and checksum whole at every start (the Yatzy target
table, 0.84 GB, and the layers of a saved-rerolls table): the magic line
``DICEOPT-MAPPED\n\0``, an 8-byte little-endian header length, the sha256 of the
header, the JSON header (as above, plus each array's byte
offset, the payload length, the block size and one checksum per 1 MiB block of the
payload, :mod:`diceopt.checksum`), zero padding to a multiple of 4096 bytes, then the
arrays (each at a multiple of 64 bytes). Loading maps the file read-only and checks
the header, the size and every block's checksum (in parallel, no copy: about 0.3 s
for 3 GB on 2 cores from the page cache); the arrays are read-only ``np.memmap`` views.
Written atomically like the others; a truncated, corrupt or mismatched file is reported
and rebuilt, never used. A large table can be computed straight into its new file's
pages (:class:`MappedDraft`) instead of being copied there once computed.

A table is solved by one process at a time (:func:`load_or_solve`): the solver holds an
exclusive ``flock`` on ``<table file>.lock`` beside it, and a second process asking for
the same table waits, then loads what the first stored.
"""

from __future__ import annotations

import fcntl
import json
import mmap
import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Literal, TypeVar

from diceopt.blocks import (
    PAGE,
    ROW_BLOCK_BYTES,
    STRUCT_CODES,
    BlockCheck,
    RowReader,
    block_crcs,
)
from diceopt.errors import TableFileError
from diceopt.lazy import numpy as np
from diceopt.memory import populate
from diceopt.names import MAX_VARIANT_CHARS, bounded_name

T = TypeVar("T")

__all__ = ["BlockCheck", "TableFileError"]  # (defined in diceopt.blocks, diceopt.errors)

MAGIC = b"DICEOPT-TABLE\n"
FORMAT_VERSION = 1
ENV_VAR = "DICEOPT_CACHE"
MAX_HEADER_BYTES = 1 << 20
MAPPED_MAGIC = b"DICEOPT-MAPPED\n\0"
MAPPED_FORMAT = 1
MAPPED_SUFFIX = ".mmap"
ARRAY_ALIGN = 64  # each array of a mapped table starts at a multiple of this (bytes)


@dataclass(frozen=True)
class TableKey:
    """What a table file must match: game, variant, objective, theta and main array.

    ``shape`` None accepts any shape of the main array (e.g. a graph's node count that
    is only known after building it); the checksum still guards the contents. ``extra``
    names the further arrays that must be present (any dtype and shape).
    """

    game: str
    variant: str
    objective: str = "expected"
    theta: float = 0.0
    dtype: str = "float64"
    shape: tuple[int, ...] | None = None
    extra: tuple[str, ...] = ()

    def file_name(self, suffix: str = ".tbl") -> str:
        """``{variant}-{objective}-theta{theta}-{dtype}.tbl`` (``suffix``: memory-mapped
        tables use ``.mmap``); a variant longer than :data:`MAX_VARIANT_CHARS` is written
        as :func:`bounded_name` writes it, so that every file name fits a file system."""
        dtype = dtype_name(self.dtype)
        variant = self.variant
        if len(variant) > MAX_VARIANT_CHARS:
            variant = bounded_name(variant)
        return f"{variant}-{self.objective}-theta{float(self.theta)!r}-{dtype}{suffix}"


@dataclass
class Stored:
    """Arrays read from (or written to) a table file, with its header.

    ``arrays`` maps names to arrays, the main one first (named ``values``).
    """

    arrays: dict[str, np.ndarray]
    header: dict[str, Any]
    check: BlockCheck | None = None  # memory-mapped, checked lazily: see read_mapped


@dataclass
class TableInfo:
    """How a table was obtained: loaded from ``path``, or built (and maybe saved there).

    ``seconds``: load time if loaded, else build time. ``solve_seconds``: the build's own
    time (from the file header when loaded). ``saved``: True only if the file was written.
    """

    path: Path
    loaded: bool
    seconds: float
    solve_seconds: float
    saved: bool = False
    header: dict[str, Any] = field(default_factory=dict)


def dtype_name(dtype: Any) -> str:
    """The name of a numpy dtype-like (``float32``); the names of float32 and float64
    without numpy."""
    return dtype if dtype in STRUCT_CODES else np.dtype(dtype).name


def cache_root(override: str | os.PathLike | None = None) -> Path:
    """The cache directory: ``override``, else $DICEOPT_CACHE, else the user cache."""
    if override:
        return Path(override)
    if os.environ.get(ENV_VAR):
        return Path(os.environ[ENV_VAR])
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("diceopt"))


def cache_dir(game: str, override: str | os.PathLike | None = None) -> Path:
    """The folder of one game's tables inside the cache directory."""
    return cache_root(override) / game


def table_path(key: TableKey, directory: str | os.PathLike | None = None) -> Path:
    """Where the table of ``key`` lives."""
    return cache_dir(key.game, directory) / key.file_name()


def warn(message: str) -> None:
    """One warning line (``diceopt: warning: ...``) through the front end's display."""
    from diceopt.progress import notice

    notice(f"diceopt: warning: {message}")


def _contiguous(arrays: Mapping[str, np.ndarray]) -> list[tuple[str, np.ndarray]]:
    """(name, C-contiguous array) of each array to save, main first; ValueError if none."""
    items = [(name, np.ascontiguousarray(a)) for name, a in arrays.items()]
    if not items:
        raise ValueError("nothing to save")
    return items


def _header(
    meta: Mapping[str, Any], key: TableKey, items: list[tuple[str, np.ndarray]], version: int
) -> dict[str, Any]:
    """``meta`` with what every table file's header holds: the format ``version``, the key,
    the main array's dtype and shape, and ``extra`` (each further array's) if any."""
    main = items[0][1]
    header = dict(meta)
    header.update(
        {
            "format": version,
            "game": key.game,
            "variant": key.variant,
            "objective": key.objective,
            "theta": float(key.theta),
            "dtype": main.dtype.name,
            "shape": list(main.shape),
        }
    )
    if len(items) > 1:
        header["extra"] = [
            {"name": n, "dtype": a.dtype.name, "shape": list(a.shape)} for n, a in items[1:]
        ]
    return header


def save_arrays(
    path: Path, key: TableKey, arrays: Mapping[str, np.ndarray], meta: Mapping[str, Any]
) -> None:
    """Write ``arrays`` (main array first) to ``path`` atomically (temporary file + rename).

    ``meta`` (JSON-ready) is added to the header. Raises OSError when it cannot write.
    """
    import hashlib  # (OpenSSL: not loaded by a command that reads rows)

    items = _contiguous(arrays)
    digest = hashlib.sha256()
    for _, a in items:
        digest.update(a.data.cast("B"))
    header = _header(meta, key, items, FORMAT_VERSION)
    header["sha256"] = digest.hexdigest()
    header["block_bytes"] = ROW_BLOCK_BYTES
    header["block_crc32"] = block_crcs(a.data for _, a in items)
    head = json.dumps(header, sort_keys=True).encode()
    with _replacing(path, "wb") as (fh, _):
        fh.write(MAGIC)
        fh.write(len(head).to_bytes(8, "little"))
        fh.write(head)
        for _, a in items:
            fh.write(a.data.cast("B"))


@contextmanager
def _replacing(
    path: Path, mode: Literal["wb", "r+b"], sync: bool = True
) -> Iterator[tuple[BinaryIO, str]]:
    """A temporary file beside ``path``, open in ``mode``, and its name: once the block
    ends without an error it is flushed, synced (unless not ``sync``) and renamed to
    ``path`` (atomically); after an error it is removed and ``path`` left as it was."""
    import tempfile  # (writing only: reading a table does not load it)

    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, mode) as fh:
            yield fh, tmp
            fh.flush()
            if sync:
                os.fsync(fh.fileno())
        _check_replaceable(path)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def replace_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (:func:`_replacing`, not synced: for small
    notes such as a build's status, not tables); OSError when it cannot be written or
    ``path`` is not a regular file (never renamed over a device or a link)."""
    with _replacing(path, "wb", sync=False) as (fh, _):
        fh.write(text.encode("utf-8"))


def _check_replaceable(path: Path) -> None:
    """OSError unless ``path`` is missing or a regular file: a table is never renamed over
    a device, a FIFO, a directory or a symlink (which would be replaced, not followed)."""
    import stat

    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISREG(mode):
        raise OSError(f"{path} is not a regular file; the table is not stored over it")


def _array_spec(entry: Any) -> tuple[str, np.dtype, tuple[int, ...]]:
    """(name, dtype, shape) of one ``extra`` header entry; TableFileError if malformed."""
    try:
        name = str(entry["name"])
        dtype = np.dtype(entry["dtype"])
        shape = tuple(int(x) for x in entry["shape"])
    except (KeyError, TypeError, ValueError):
        raise TableFileError("unreadable header") from None
    if dtype.hasobject or any(x < 0 for x in shape):
        raise TableFileError("unreadable header")
    return name, dtype, shape


def check_key(header: Any, key: TableKey, version: int) -> dict[str, Any]:
    """``header`` after checking that it matches ``key`` (format ``version``; no numpy
    for float32 and float64 tables); TableFileError if not."""
    if not isinstance(header, dict):
        raise TableFileError("unreadable header")
    expected: dict[str, Any] = {
        "format": version,
        "game": key.game,
        "variant": key.variant,
        "objective": key.objective,
        "theta": float(key.theta),
        "dtype": dtype_name(key.dtype),
    }
    if key.shape is not None:
        expected["shape"] = list(key.shape)
    for name, want in expected.items():
        if header.get(name) != want:
            raise TableFileError(f"header {name} is {header.get(name)!r}, expected {want!r}")
    return header


def _check_header(header: Any, key: TableKey, version: int) -> list[tuple[str, np.dtype, tuple]]:
    """The (name, dtype, shape) of every array a header names, main first, after checking
    it matches ``key`` (format ``version``); TableFileError if not."""
    check_key(header, key, version)
    specs = [_array_spec({"name": "values", "dtype": key.dtype, "shape": header.get("shape")})]
    extra = header.get("extra", [])
    if not isinstance(extra, list):
        raise TableFileError("unreadable header")
    specs += [_array_spec(e) for e in extra]
    names = [sp[0] for sp in specs]
    for want in key.extra:
        if want not in names:
            raise TableFileError(f"it has no {want!r} array")
    return specs


def read_header(data: bytes | mmap.mmap, key: TableKey) -> tuple[dict[str, Any], int]:
    """The header of a table file (its first bytes) and the payload's offset, checked
    against ``key`` (:func:`check_key`, no numpy); TableFileError if it must not be used."""
    if bytes(data[: len(MAGIC)]) != MAGIC:
        raise TableFileError("not a diceopt table file")
    pos = len(MAGIC)
    if len(data) < pos + 8:
        raise TableFileError("truncated header")
    size = int.from_bytes(data[pos : pos + 8], "little")
    pos += 8
    if size > MAX_HEADER_BYTES or len(data) < pos + size:
        raise TableFileError("truncated header")
    try:
        header = json.loads(bytes(data[pos : pos + size]))
    except ValueError:
        raise TableFileError("unreadable header") from None
    return check_key(header, key, FORMAT_VERSION), pos + size


def open_table_file(path: Path) -> BinaryIO:
    """``path`` open for reading, a regular file: OSError for anything else (a FIFO is
    opened without waiting for a writer, then refused; a device is refused before it is
    read)."""
    import stat

    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError("not a regular file")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_rows(path: Path, key: TableKey) -> RowReader | None:
    """The rows of a table file's main array (float32 or float64, ``key.shape`` given),
    read and checked a block at a time without numpy (:class:`RowReader`), or None where
    the file must be read whole (``storage.read_arrays``): it has no block checksums, or
    further arrays. TableFileError if it must not be used."""
    dtype = dtype_name(key.dtype)
    if key.shape is None or dtype not in STRUCT_CODES:
        raise ValueError("rows are read from a float32 or float64 table of known shape")
    try:
        with open_table_file(path) as fh:
            data = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError) as exc:
        raise TableFileError(f"cannot read it ({getattr(exc, 'strerror', None) or exc})") from None
    header, pos = read_header(data, key)
    if "block_crc32" not in header or header.get("extra"):
        return None
    row_items = 1
    for n in key.shape[1:]:
        row_items *= n
    nbytes = key.shape[0] * row_items * (4 if dtype == "float32" else 8)
    if len(data) - pos != nbytes:
        raise TableFileError(f"payload has {len(data) - pos} bytes, expected {nbytes}")
    try:
        block, crcs = int(header["block_bytes"]), str(header["block_crc32"])
    except (KeyError, TypeError, ValueError):
        raise TableFileError("unreadable header") from None
    return RowReader(path, data, pos, nbytes, dtype, row_items, block, crcs)


def _parse_header(data: mmap.mmap | bytes, key: TableKey) -> tuple[dict, int, list]:
    """(header, payload offset, array specs) of a file's first bytes, checked against
    ``key``; TableFileError if it must not be used."""
    header, pos = read_header(data, key)
    return header, pos, _check_header(header, key, FORMAT_VERSION)


def _payload_bytes(specs: list) -> int:
    return sum(int(np.prod(shape)) * dtype.itemsize for _, dtype, shape in specs)


def read_arrays(path: Path, key: TableKey) -> Stored:
    """The arrays and header of a table file; TableFileError if it must not be used.

    The arrays are writable and private to this process: views of one copy-on-write map
    of the file (its pages come from the page cache as they are read, and are copied
    only where written), so a load neither allocates nor copies the table.
    """
    data: mmap.mmap | bytes = b""
    try:
        with open_table_file(path) as fh:
            if os.fstat(fh.fileno()).st_size:
                data = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_COPY)
    except (OSError, ValueError) as exc:
        raise TableFileError(f"cannot read it ({getattr(exc, 'strerror', None) or exc})") from None
    header, pos, specs = _parse_header(data, key)
    payload = memoryview(data)[pos:]
    nbytes = _payload_bytes(specs)
    if len(payload) != nbytes:
        raise TableFileError(f"payload has {len(payload)} bytes, expected {nbytes}")
    import hashlib  # (OpenSSL: not loaded by a command that reads rows)

    if hashlib.sha256(payload).hexdigest() != header.get("sha256"):
        raise TableFileError("checksum mismatch")
    arrays: dict[str, np.ndarray] = {}
    offset = 0
    for name, dtype, shape in specs:
        count = int(np.prod(shape))
        arrays[name] = np.frombuffer(payload, dtype=dtype, count=count, offset=offset).reshape(
            shape
        )
        offset += count * dtype.itemsize
    return Stored(arrays, header)


def _aligned(n: int, to: int) -> int:
    return -(-n // to) * to


def _mapped_layout(items: list[tuple[str, np.ndarray]]) -> tuple[list[int], int]:
    """Byte offsets of the arrays in the payload and the payload length (a multiple of 8)."""
    offsets = []
    pos = 0
    for _, a in items:
        pos = _aligned(pos, ARRAY_ALIGN)
        offsets.append(pos)
        pos += a.nbytes
    return offsets, _aligned(pos, 8)


def _mapped_header(
    key: TableKey, items: list[tuple[str, np.ndarray]], meta: Mapping[str, Any], block: int
) -> tuple[dict[str, Any], int, int]:
    """The header of a mapped table file (checksums zero: they are fixed width), its length
    in bytes and the payload's; each array's offset is in ``header["offsets"]``."""
    offsets, nbytes = _mapped_layout(items)
    header = _header(meta, key, items, MAPPED_FORMAT)
    header.update(
        {
            "offsets": offsets,
            "payload_bytes": nbytes,
            "block_bytes": block,
            "checksums": ["0" * 16] * (-(-nbytes // block)),
        }
    )
    return header, len(json.dumps(header, sort_keys=True).encode()), nbytes


def _payload_start(size: int) -> int:
    """The payload's byte offset in a mapped table file whose header has ``size`` bytes."""
    return _aligned(len(MAPPED_MAGIC) + 40 + size, PAGE)


def _write_mapped_head(fh: BinaryIO, header: Mapping[str, Any], size: int) -> None:
    """The magic line, the header's length, its sha256 and the header (padded with spaces
    to ``size`` bytes) at the start of ``fh``; OSError if it is longer."""
    import hashlib

    head = json.dumps(header, sort_keys=True).encode()
    if len(head) > size:
        raise OSError(f"the header has {len(head)} bytes, room for {size}")
    head = head.ljust(size)
    fh.seek(0)
    fh.write(MAPPED_MAGIC)
    fh.write(size.to_bytes(8, "little"))
    fh.write(hashlib.sha256(head).digest())
    fh.write(head)


def save_mapped(
    path: Path,
    key: TableKey,
    arrays: Mapping[str, np.ndarray],
    meta: Mapping[str, Any],
    block_bytes: int | None = None,
) -> None:
    """Write ``arrays`` (main first) as a memory-mappable table file (see the module
    docstring), atomically; ``meta`` (JSON-ready) joins the header. OSError on failure."""
    from diceopt.checksum import BLOCK_BYTES, checksums

    block = block_bytes or BLOCK_BYTES
    items = _contiguous(arrays)
    main = items[0][1]
    header, size, nbytes = _mapped_header(key, items, meta, block)
    start = _payload_start(size)
    with _replacing(path, "r+b") as (fh, tmp):
        fh.truncate(start + nbytes)  # zero padding between and after the arrays
        for (_, a), at in zip(items, header["offsets"], strict=True):
            fh.seek(start + at)
            flat = a.reshape(-1).view(np.uint8)
            step = 1 << 26
            for lo in range(0, flat.size, step):
                fh.write(flat[lo : lo + step].data)
        fh.flush()
        if len(items) == 1 and main.nbytes == nbytes:  # the payload is the array itself
            header["checksums"] = checksums(main.reshape(-1).view(np.uint8), block)
        elif nbytes:  # read back what was written (no second copy in memory)
            payload = np.memmap(tmp, dtype=np.uint8, mode="r", offset=start, shape=nbytes)
            header["checksums"] = checksums(payload, block)
            del payload
        _write_mapped_head(fh, header, size)


META_SLACK = 256  # bytes a draft's header keeps for the numbers known only at its commit


class MappedDraft:
    """A memory-mapped table file filled in place: a large table is computed straight into
    the pages of its file instead of being copied there afterwards (the full Yatzy target
    table: 0.8 GB, about 2 s of copying).

    :meth:`open` creates a temporary file beside ``path``, its disk space reserved (so a
    full disk is an OSError there, never a fault while writing through the map), and
    returns its arrays: zeros, writable. The caller fills them; :meth:`store` then
    writes the checksums and the header, syncs the file and renames it to ``path`` (the
    format of :func:`save_mapped`). Where the file cannot be made, :meth:`open` returns
    None and the caller computes in memory; :meth:`store` then saves as :func:`store`
    does. Leaving the ``with`` block without a store (an error, Ctrl-C) removes the
    temporary file."""

    def __init__(self, path: Path, key: TableKey, block_bytes: int | None = None) -> None:
        self.path = path
        self.key = key
        self.block = block_bytes or 0  # (0: the checksum module's block, set by open)
        self.arrays: dict[str, np.ndarray] = {}
        self._tmp: str | None = None
        self._fd = -1
        self._header: dict[str, Any] = {}
        self._size = 0
        self._payload = np.zeros(0, dtype=np.uint8)

    def __enter__(self) -> MappedDraft:
        return self

    def __exit__(self, *exc: object) -> None:
        self._let_go()

    def open(
        self, specs: Mapping[str, tuple[Any, tuple[int, ...]]], meta: Mapping[str, Any]
    ) -> dict[str, np.ndarray] | None:
        """The arrays ``specs`` (name: (dtype, shape), the main one first) as zeros in a
        new temporary file, writable; None (nothing left behind) if it cannot be made.
        ``meta``: the header's own fields, their numbers as long as the final ones give
        or take :data:`META_SLACK` bytes in all."""
        import tempfile

        from diceopt.checksum import BLOCK_BYTES

        if self._tmp is not None:
            raise ValueError("the draft is open already")
        self.block = self.block or BLOCK_BYTES
        # zero-stride stand-ins: the dtype, shape and size of each array, no memory
        items = [(n, np.broadcast_to(np.zeros((), d), shape)) for n, (d, shape) in specs.items()]
        header, size, nbytes = _mapped_header(self.key, items, meta, self.block)
        size += META_SLACK
        start = _payload_start(size)
        reserve = getattr(os, "posix_fallocate", None)
        if reserve is None:  # no reservation: a full disk would fault while writing
            return None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fd, self._tmp = tempfile.mkstemp(
                prefix=self.path.name + ".", suffix=".tmp", dir=self.path.parent
            )
            reserve(self._fd, 0, start + nbytes)
            view = mmap.mmap(self._fd, nbytes, offset=start) if nbytes else b""
        except OSError:
            self._let_go()
            return None
        if isinstance(view, mmap.mmap):  # every page at once beside the solve, not one by one
            populate(view)
        payload = np.frombuffer(view, dtype=np.uint8)
        for (name, spec), at in zip(items, header["offsets"], strict=True):
            part = payload[at : at + spec.nbytes]
            self.arrays[name] = part.view(spec.dtype).reshape(spec.shape)
        self._header, self._size, self._payload = header, size, payload
        return self.arrays

    def store(self, arrays: Mapping[str, np.ndarray], meta: Mapping[str, Any]) -> bool:
        """Save the table ``arrays`` (those filled in place are not copied) with ``meta``
        at ``path``: the open draft, completed and renamed, else a new file
        (:func:`save_mapped`). True if stored; else one warning line and False. The
        draft's arrays stay readable, read-only."""
        if self._tmp is None:
            return _save(save_mapped, self.path, self.key, arrays, meta)
        from diceopt.checksum import checksums

        try:
            for name, a in arrays.items():
                if a is not self.arrays[name]:
                    self.arrays[name][...] = a
            header = self._header | dict(meta)
            header["checksums"] = checksums(self._payload, self.block)
            with os.fdopen(self._fd, "r+b", closefd=False) as fh:
                _write_mapped_head(fh, header, self._size)
                fh.flush()
                os.fsync(self._fd)  # the mapped pages are the file's: synced with it
            _check_replaceable(self.path)
            os.replace(self._tmp, self.path)
        except OSError as exc:
            warn(f"the table was not saved: cannot write {self.path} ({exc.strerror or exc})")
            self._let_go()
            return False
        self._tmp = None
        self._let_go()
        return True

    def _let_go(self) -> None:
        """Close the file (the map stays while its arrays live) and remove it unless it
        was stored; the arrays become read-only."""
        for a in self.arrays.values():
            a.flags.writeable = False
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
        if self._tmp is not None:
            try:
                os.unlink(self._tmp)
            except OSError:
                pass
            self._tmp = None


def read_mapped(path: Path, key: TableKey, verify: str = "full") -> Stored:
    """The arrays (read-only views of a memory map, no copy) and header of a mapped table
    file, after checking its header and size and (``verify`` "full") every block's
    checksum; with ``verify`` "lazy" the blocks are checked when first read through
    ``Stored.check`` (a :class:`BlockCheck`). TableFileError if it must not be used."""
    if verify not in ("full", "lazy"):
        raise ValueError(f"verify must be 'full' or 'lazy', got {verify!r}")
    import hashlib

    pre = len(MAPPED_MAGIC) + 40
    try:
        with open_table_file(path) as fh:
            total = os.fstat(fh.fileno()).st_size
            first = fh.read(pre)
            if not first.startswith(MAPPED_MAGIC):
                raise TableFileError("not a diceopt mapped table file")
            if len(first) < pre:
                raise TableFileError("truncated header")
            size = int.from_bytes(first[len(MAPPED_MAGIC) : len(MAPPED_MAGIC) + 8], "little")
            if size > MAX_HEADER_BYTES or total < pre + size:
                raise TableFileError("truncated header")
            head = fh.read(size)
            if hashlib.sha256(head).digest() != first[len(MAPPED_MAGIC) + 8 :]:
                raise TableFileError("header checksum mismatch")
            try:
                header = json.loads(head)
            except ValueError:
                raise TableFileError("unreadable header") from None
            specs = _check_header(header, key, MAPPED_FORMAT)
            try:
                offsets = [int(x) for x in header["offsets"]]
                nbytes = int(header["payload_bytes"])
                block = int(header["block_bytes"])
                sums = [str(x) for x in header["checksums"]]
            except (KeyError, TypeError, ValueError):
                raise TableFileError("unreadable header") from None
            start = _aligned(pre + size, PAGE)
            if total != start + nbytes:
                raise TableFileError(f"it has {total} bytes, expected {start + nbytes}")
            if len(offsets) != len(specs) or block <= 0 or block % 8 or nbytes % 8:
                raise TableFileError("unreadable header")
            if len(sums) != -(-nbytes // block):
                raise TableFileError("unreadable header")
            for (_, dtype, shape), at in zip(specs, offsets, strict=True):
                end = at + int(np.prod(shape)) * dtype.itemsize
                if at < 0 or at % ARRAY_ALIGN or end > nbytes:
                    raise TableFileError("unreadable header")
            mm = None
            if nbytes:
                mm = mmap.mmap(fh.fileno(), nbytes, offset=start, prot=mmap.PROT_READ)
    except OSError as exc:
        raise TableFileError(f"cannot read it ({exc.strerror or exc})") from None
    data = np.frombuffer(mm, dtype=np.uint8) if mm is not None else np.zeros(0, np.uint8)
    check = BlockCheck(path, mm, data, block, sums)
    if verify == "full":
        check.check_all()
    arrays: dict[str, np.ndarray] = {}
    for (name, dtype, shape), at in zip(specs, offsets, strict=True):
        count = int(np.prod(shape))
        arrays[name] = data[at : at + count * dtype.itemsize].view(dtype).reshape(shape)
    return Stored(arrays, header, check)


def mapped_path(key: TableKey, directory: str | os.PathLike | None = None) -> Path:
    """Where the memory-mapped table of ``key`` lives."""
    return cache_dir(key.game, directory) / key.file_name(MAPPED_SUFFIX)


def load(
    key: TableKey,
    directory: str | os.PathLike | None = None,
    *,
    mapped: bool = False,
    verify: str = "full",
    then: str = "rebuilding it",
) -> tuple[Stored, float] | None:
    """The stored table of ``key`` and its load seconds (checks included), or None
    (missing, or bad: one warning line on stderr ending with ``then``, what the caller
    does instead). ``mapped``: the memory-mapped file (:func:`read_mapped`, ``verify``
    as there), else the file read whole (:func:`read_arrays`)."""
    path = mapped_path(key, directory) if mapped else table_path(key, directory)
    if not path.exists():
        return None
    t0 = time.perf_counter()
    try:
        stored = read_mapped(path, key, verify) if mapped else read_arrays(path, key)
    except TableFileError as exc:
        warn(f"ignoring cached table {path}: {exc}; {then}")
        return None
    return stored, time.perf_counter() - t0


def store(
    key: TableKey,
    arrays: Mapping[str, np.ndarray],
    meta: Mapping[str, Any],
    directory: str | os.PathLike | None = None,
    *,
    mapped: bool = False,
) -> bool:
    """Save a table (``mapped``: memory-mappable, :func:`save_mapped`); True if written.
    A failure is one warning line, never an exception."""
    path = mapped_path(key, directory) if mapped else table_path(key, directory)
    return _save(save_mapped if mapped else save_arrays, path, key, arrays, meta)


def _save(
    save: Callable[..., None],
    path: Path,
    key: TableKey,
    arrays: Mapping[str, np.ndarray],
    meta: Mapping[str, Any],
) -> bool:
    """``save(path, key, arrays, meta)``; True if written, else one warning line."""
    try:
        save(path, key, arrays, meta)
    except OSError as exc:
        warn(f"the table was not saved: cannot write {path} ({exc.strerror or exc})")
        return False
    return True


def lock_path(path: Path) -> Path:
    """The lock file of a stored table: beside it, ``<name>.lock``."""
    return path.with_name(path.name + ".lock")


# lock files held in this process: path -> the thread holding it (a nested request of
# that thread, e.g. a table build that solves through get_table, is already held)
_HELD: dict[str, int] = {}


@contextmanager
def file_lock(path: Path, on_wait: Callable[[], None] | None = None) -> Iterator[bool]:
    """Hold an exclusive ``flock`` on ``path`` (created if missing) for the block; yields
    whether another process or thread held it first (``on_wait`` called before waiting
    for it). Re-entrant in a thread: a thread that holds it already runs the block at
    once. A lock file that cannot be created is no lock: the block runs unlocked (yields
    False)."""
    key, me = str(path), threading.get_ident()
    if _HELD.get(key) == me:
        yield False
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        yield False
        return
    try:
        waited = False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            waited = True
            if on_wait is not None:
                on_wait()
            fcntl.flock(fd, fcntl.LOCK_EX)
        _HELD[key] = me
        yield waited
    finally:
        if _HELD.get(key) == me:
            del _HELD[key]
        os.close(fd)  # releases the lock


def load_or_solve(
    path: Path, load: Callable[[], T | None], solve: Callable[[], T], *, force: bool = False
) -> tuple[T, bool]:
    """``load()`` the table stored at ``path`` (None: missing or bad), or else ``solve()``
    it (``solve`` stores it); returns (table, loaded). ``force``: solve without loading.

    One process solves a table at a time: the solver holds the lock beside ``path``
    (:func:`file_lock`), and a process that had to wait for it, or that finds ``path``
    changed once it holds the lock, loads what the other one stored instead of solving
    it again."""
    before = _stamp(path)
    if not force:
        got = load()
        if got is not None:
            return got, True
    with file_lock(lock_path(path)) as waited:
        if not force and (waited or _stamp(path) != before):
            got = load()
            if got is not None:
                return got, True
        return solve(), False


def _stamp(path: Path) -> tuple[int, int, int] | None:
    """(inode, mtime in ns, size) of ``path``, or None if it is missing."""
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_ino, st.st_mtime_ns, st.st_size


def get_or_build(
    key: TableKey,
    build: Callable[[], tuple[Mapping[str, np.ndarray], Mapping[str, Any]]],
    directory: str | os.PathLike | None = None,
    *,
    force: bool = False,
) -> tuple[Stored, TableInfo]:
    """Load the table of ``key``, or ``build()`` it (arrays, header extras) and save it.

    ``force``: build even if a good file exists. The header extras may carry
    ``seconds`` (the build's own time, seconds); else the measured build time is used.
    """
    path = table_path(key, directory)

    def loaded() -> tuple[Stored, TableInfo] | None:
        got = load(key, directory)
        if got is None:
            return None
        stored, seconds = got
        solve_seconds = float(stored.header.get("seconds", 0.0))
        return stored, TableInfo(path, True, seconds, solve_seconds, False, stored.header)

    def built() -> tuple[Stored, TableInfo]:
        t0 = time.perf_counter()
        arrays, meta = build()
        seconds = time.perf_counter() - t0
        meta = dict(meta)
        meta.setdefault("seconds", seconds)
        saved = store(key, arrays, meta, directory)
        info = TableInfo(path, False, seconds, float(meta["seconds"]), saved, meta)
        return Stored(dict(arrays), meta), info

    return load_or_solve(path, loaded, built, force=force)[0]


def solve_times(compile_seconds: float, solve_seconds: float) -> dict[str, float]:
    """A solved table's header timings (seconds): ``seconds`` (both), ``compile_seconds``,
    ``solve_seconds``; ``stored_times`` reads them back."""
    return {
        "seconds": compile_seconds + solve_seconds,
        "compile_seconds": compile_seconds,
        "solve_seconds": solve_seconds,
    }


def stored_times(header: Mapping[str, Any]) -> tuple[float, float]:
    """(compile_seconds, solve_seconds) of a stored header (0 where absent)."""
    return float(header.get("compile_seconds", 0.0)), float(header.get("solve_seconds", 0.0))


def solved_once(
    memo: dict[Any, Any],
    rules: Any,
    key: TableKey,
    solve: Callable[[], Any],
    to_table: Callable[[Any], tuple[Mapping[str, np.ndarray], Mapping[str, Any]]],
    from_table: Callable[[Stored], Any],
    directory: str | os.PathLike | None = None,
) -> Any:
    """A game's solution of ``rules``: from ``memo`` (once per process), else loaded from
    the stored table of ``key`` (``from_table``), else ``solve()``d and stored
    (``to_table`` gives its arrays and header extras)."""
    if rules in memo:
        return memo[rules]
    fresh: list[Any] = []

    def build() -> tuple[Mapping[str, np.ndarray], Mapping[str, Any]]:
        fresh.append(solve())
        return to_table(fresh[0])

    stored, _ = get_or_build(key, build, directory)
    memo[rules] = fresh[0] if fresh else from_table(stored)
    return memo[rules]
