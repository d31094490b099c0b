"""Dice algebra: faces and probabilities, multisets of dice, roll distributions, keep lattice.

A multiset of dice is stored as a vector of counts per face (length ``sides``). All
multisets of a given size are enumerated in lexicographic order of their sorted
face-index tuples, so index 0 is "all dice show face 0".
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import cached_property

from diceopt.errors import InputError
from diceopt.lazy import numpy as np

PROBABILITY_TOLERANCE = 1e-9


@dataclass(frozen=True)
class Dice:
    """One kind of die: face values (points) and face probabilities (summing to 1)."""

    values: tuple[float, ...]
    probs: tuple[float, ...]

    def __post_init__(self) -> None:
        k = len(self.values)
        if k < 2:
            raise InputError(f"a die needs at least 2 sides, got {k}")
        if any(not math.isfinite(v) for v in self.values):
            raise InputError(f"face values must be finite numbers, got {list(self.values)}")
        if len(set(self.values)) != k:
            raise InputError(f"face values must be distinct, got {list(self.values)}")
        if len(self.probs) != k:
            raise InputError(f"{len(self.probs)} probabilities given for {k} faces")
        if any(not math.isfinite(p) or p < 0 for p in self.probs):
            raise InputError(f"face probabilities must be >= 0, got {list(self.probs)}")
        if abs(sum(self.probs) - 1.0) > PROBABILITY_TOLERANCE:
            raise InputError(
                f"face probabilities must sum to 1, they sum to {sum(self.probs):.12g}"
            )

    @classmethod
    def make(
        cls, sides: int = 6, values: list[float] | None = None, bias: list[float] | None = None
    ) -> Dice:
        """Build dice from a side count, optional face values (default 1..k) and bias."""
        if sides < 2:
            raise InputError(f"a die needs at least 2 sides, got {sides}")
        vals = tuple(float(v) for v in (values if values is not None else range(1, sides + 1)))
        if len(vals) != sides:
            raise InputError(f"{len(vals)} face values given for {sides} sides")
        probs = tuple(float(p) for p in (bias if bias is not None else [1.0 / sides] * sides))
        return cls(vals, probs)

    @property
    def sides(self) -> int:
        """Number of faces."""
        return len(self.values)

    @cached_property
    def prob_array(self) -> np.ndarray:
        """Face probabilities as a float64 array."""
        return np.array(self.probs, dtype=np.float64)


def count_multisets(n: int, k: int) -> int:
    """Number of multisets of n dice with k faces: C(n + k - 1, n)."""
    return math.comb(n + k - 1, n)


def multisets(n: int, k: int) -> np.ndarray:
    """All multisets of n dice with k faces as an (M, k) int64 count array, lexicographic."""
    rows = []
    for faces in itertools.combinations_with_replacement(range(k), n):
        row = [0] * k
        for f in faces:
            row[f] += 1
        rows.append(row)
    return np.array(rows, dtype=np.int64).reshape(count_multisets(n, k), k)


def faces_to_counts(faces: tuple[int, ...] | list[int], k: int) -> np.ndarray:
    """Count vector (length k) for a collection of face indices."""
    counts = np.zeros(k, dtype=np.int64)
    for f in faces:
        counts[f] += 1
    return counts


def multiset_probabilities(counts: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """Probability of each multiset (rows of ``counts``) when rolling that many dice.

    Multinomial coefficient times the product of face probabilities to their counts.
    """
    counts = np.atleast_2d(counts)
    m = counts.sum(axis=1)
    rows = counts.tolist()
    lg = [math.lgamma(i + 1) for i in range(int(m.max(initial=0)) + 1)]  # log(i!)
    log_coef = np.array([lg[t] for t in m.tolist()]) - np.array(
        [sum(lg[c] for c in row) for row in rows]
    )
    with np.errstate(divide="ignore"):
        logp = np.where(counts > 0, counts * np.log(np.where(probs > 0, probs, 1.0)), 0.0)
    out = np.exp(log_coef + logp.sum(axis=1))
    impossible = ((counts > 0) & (probs[None, :] == 0)).any(axis=1)
    out[impossible] = 0.0
    return out


def lattice_lists(
    n: int, k: int
) -> tuple[list[list[int]], list[int], list[list[int]], list[list[int]]]:
    """The keep lattice of 0..n dice with k faces as Python lists (no numpy): the count
    vector of every multiset (sizes 0..n, each size in lexicographic order), the flat
    index of the first multiset of each size (n + 2 entries), and per multiset the index
    of the one with a die of face f more (``add``, -1 at size n) and fewer (``remove``,
    -1 if none). :class:`KeepLattice` holds the same as arrays."""
    rows: list[list[int]] = []
    offset = [0]
    for j in range(n + 1):
        for faces in itertools.combinations_with_replacement(range(k), j):
            row = [0] * k
            for f in faces:
                row[f] += 1
            rows.append(row)
        offset.append(len(rows))
    index = {tuple(row): i for i, row in enumerate(rows)}
    add = [[-1] * k for _ in rows]
    remove = [[-1] * k for _ in rows]
    for i, row in enumerate(rows):
        grow = sum(row) < n
        for f in range(k):
            row[f] += 1
            if grow:
                add[i][f] = index[tuple(row)]
            row[f] -= 2
            if row[f] >= 0:
                remove[i][f] = index[tuple(row)]
            row[f] += 1
    return rows, offset, add, remove


class KeepLattice:
    """All multisets of 0..n dice with edges between them.

    Multisets of every size are numbered in one flat index: size j occupies
    ``offset[j] : offset[j + 1]``. ``add_die[i, f]`` is the multiset with one more die
    showing f (-1 at size n); ``remove_die[i, f]`` has one die f fewer (-1 if none).
    ``keep_roll(...)`` gives, for every keep, the distribution of the full n-dice roll
    after rerolling the other dice. (:func:`lattice_lists` builds it.)
    """

    def __init__(self, n: int, k: int) -> None:
        if n < 1:
            raise InputError(f"the number of dice must be at least 1, got {n}")
        if k < 2:
            raise InputError(f"a die needs at least 2 sides, got {k}")
        self.n, self.k = n, k
        rows, offset, add, remove = lattice_lists(n, k)
        self.offset = np.array(offset, dtype=np.int64)
        self.counts = np.array(rows, dtype=np.int64).reshape(len(rows), k)
        self.size = self.counts.sum(axis=1)
        self._index = {tuple(row): i for i, row in enumerate(rows)}
        self.add_die = np.array(add, dtype=np.int64).reshape(len(rows), k)
        self.remove_die = np.array(remove, dtype=np.int64).reshape(len(rows), k)

    @staticmethod
    def _key(counts: np.ndarray) -> tuple[int, ...]:
        return tuple(int(c) for c in counts)

    def index(self, counts: np.ndarray | tuple[int, ...]) -> int:
        """Flat index of a count vector."""
        try:
            return self._index[self._key(np.asarray(counts))]
        except KeyError:
            raise InputError(f"not a multiset of at most {self.n} dice: {counts}") from None

    def full(self) -> np.ndarray:
        """Flat indices of the multisets of exactly n dice (the rolls)."""
        return np.arange(self.offset[self.n], self.offset[self.n + 1])

    def keep_roll(self, probs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """CSR transition keep -> full roll: (start, roll_index, probability).

        ``start`` has one entry per flat multiset plus one; roll indices are flat indices
        of size-n multisets. Built by rolling the missing dice: keep K plus every
        multiset of n - |K| dice with its multinomial probability.
        """
        starts = [0]
        targets: list[np.ndarray] = []
        weights: list[np.ndarray] = []
        extra = {m: multisets(m, self.k) for m in range(self.n + 1)}
        extra_p = {m: multiset_probabilities(extra[m], probs) for m in extra}
        for row in self.counts:
            m = self.n - int(row.sum())
            outcome = extra[m] + row[None, :]
            targets.append(np.array([self._index[self._key(o)] for o in outcome]))
            weights.append(extra_p[m])
            starts.append(starts[-1] + len(outcome))
        return (
            np.array(starts, dtype=np.int64),
            np.concatenate(targets).astype(np.int64),
            np.concatenate(weights),
        )
