"""Stored tables checked block by block, on demand: a block is checked before its bytes
are first used, each block once, so that reading a few rows checks a few blocks.

- :class:`BlockCheck`: memory-mapped tables (``*.mmap``, :mod:`diceopt.storage`), whose
  header holds a 64-bit checksum per 1 MiB block (:mod:`diceopt.checksum`, parallel
  numba, loaded only when a block is checked).
- :class:`RowReader`: table files (``*.tbl``) read a few rows at a time, in plain Python
  (no numpy: advice from a stored table starts without it). Their header holds the
  CRC-32 (:func:`zlib.crc32`) of every block of ``block_bytes`` bytes of the payload
  (``block_crc32``: 8 hex digits a block, :func:`block_crcs`) beside the sha256 of the
  whole payload, which is checked whenever the table is read whole. CRC-32 catches any
  damage confined to 32 consecutive bits and other accidental damage (a truncated or
  garbled block, a bit flip) with probability 1 - 2^-32 per block; it guards against
  accidents, not against deliberate change.

A block that does not match raises :class:`~diceopt.errors.TableFileError` (one line
naming the byte where it starts); its reader then refuses every further read.
"""

from __future__ import annotations

import mmap
import struct
import zlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from diceopt.errors import TableFileError
from diceopt.lazy import numpy as np

PAGE = 4096  # the payload of a mapped table starts at a multiple of this (bytes)
ROW_BLOCK_BYTES = 1 << 14  # 16 KiB a block of a table file (8 MB: 512 blocks)
STRUCT_CODES = {"float32": "f", "float64": "d"}  # the dtypes RowReader reads


def block_crcs(buffers: Iterable[Any], block: int = ROW_BLOCK_BYTES) -> str:
    """The CRC-32 of every ``block`` bytes of the buffers taken back to back (the last
    block may be shorter), as 8 hex digits each, joined."""
    out: list[str] = []
    crc = fill = 0
    for buf in buffers:
        view = memoryview(buf).cast("B")
        pos = 0
        while pos < len(view):
            take = min(block - fill, len(view) - pos)
            crc = zlib.crc32(view[pos : pos + take], crc)
            fill += take
            pos += take
            if fill == block:
                out.append(f"{crc:08x}")
                crc = fill = 0
    if fill:
        out.append(f"{crc:08x}")
    return "".join(out)


class RowReader:
    """Rows of the main array of a table file, as floats, each block checked once
    before its first use (see the module doc).

    ``data``: the file (a read-only map), the payload at byte ``start`` (``nbytes``
    long); the main array is float32 or float64 (``dtype``) of ``row_items`` items a
    row (its first axis is the row); ``crcs``: the header's ``block_crc32``.
    """

    def __init__(
        self,
        path: Path,
        data: mmap.mmap,
        start: int,
        nbytes: int,
        dtype: str,
        row_items: int,
        block: int,
        crcs: str,
    ) -> None:
        if block <= 0 or len(crcs) != 8 * -(-nbytes // block):
            raise TableFileError("unreadable header")
        self.path, self.block = path, block
        self._data, self._view = data, memoryview(data)
        self._start, self._nbytes, self._crcs = start, nbytes, crcs
        self._format = struct.Struct(f"<{row_items}{STRUCT_CODES[dtype]}")
        self._checked = bytearray(len(crcs) // 8)
        self.bad: int | None = None

    def __call__(self, i: int) -> tuple[float, ...]:
        """Row i of the main array (TableFileError if a block under it is damaged)."""
        size = self._format.size
        lo = i * size
        if i < 0 or lo + size > self._nbytes:
            raise IndexError(f"row {i} is outside the table")
        self.check(lo, lo + size)
        return self._format.unpack_from(self._data, self._start + lo)

    def check(self, lo: int, hi: int) -> None:
        """Check the blocks holding payload bytes lo .. hi - 1 not checked yet."""
        if self.bad is not None:
            raise TableFileError(f"checksum mismatch at byte {self.bad * self.block}")
        for b in range(lo // self.block, -(-hi // self.block)):
            if self._checked[b]:
                continue
            at = self._start + b * self.block
            end = self._start + min(self._nbytes, (b + 1) * self.block)
            if f"{zlib.crc32(self._view[at:end]):08x}" != self._crcs[8 * b : 8 * b + 8]:
                self.bad = b
                raise TableFileError(f"checksum mismatch at byte {b * self.block}")
            self._checked[b] = 1

    def check_all(self) -> None:
        """Check every block not checked yet."""
        self.check(0, self._nbytes)


class BlockCheck:
    """The block checksums of a memory-mapped payload, checked on demand, each block once:
    ``check(lo, hi)`` before reading payload bytes lo .. hi - 1, ``check_all()``.
    TableFileError (one line, the file named) when a block does not match."""

    def __init__(self, path: Path, mm: Any, data: np.ndarray, block: int, sums: list[str]):
        self.path = path
        self._mm = mm  # the mmap.mmap of the payload (read-ahead advice)
        self._data = data
        self.block = block
        self._sums = sums
        self.checked = np.zeros(len(sums), dtype=bool)
        self.bad: int | None = None

    def check(self, lo: int, hi: int) -> None:
        """Check the blocks holding payload bytes lo .. hi - 1 not checked yet."""
        from diceopt.checksum import checksums

        if self.bad is not None:
            raise TableFileError(f"checksum mismatch at byte {self.bad * self.block}")
        b0 = max(0, lo // self.block)
        b1 = min(len(self._sums), -(-hi // self.block))
        todo = np.flatnonzero(~self.checked[b0:b1]) + b0
        if todo.size == 0:
            return
        # runs of consecutive blocks: read ahead (the file may not be in the page cache)
        # and checksum each run in parallel
        cuts = np.flatnonzero(np.diff(todo) != 1) + 1
        for run in np.split(todo, cuts):
            lo_b, hi_b = int(run[0]) * self.block, min((int(run[-1]) + 1) * self.block,
                                                       self._data.size)  # fmt: skip
            if self._mm is not None and hasattr(mmap, "MADV_WILLNEED"):
                at = lo_b - lo_b % PAGE
                try:
                    self._mm.madvise(mmap.MADV_WILLNEED, at, hi_b - at)
                except (OSError, ValueError):  # advice only
                    pass
            got = checksums(self._data[lo_b:hi_b], self.block, int(run[0]))
            for b, sum_ in zip(run, got, strict=True):
                if sum_ != self._sums[b]:
                    self.bad = int(b)
                    raise TableFileError(f"checksum mismatch at byte {self.bad * self.block}")
            self.checked[run] = True

    def check_all(self) -> None:
        """Check every block not checked yet."""
        self.check(0, self._data.size)
