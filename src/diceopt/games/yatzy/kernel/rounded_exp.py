"""Utilities rounded to float32: ``sign(theta) exp(y)`` over lanes, vectorised, exact.

Role: step 3 of a float32 solve with theta != 0
(:func:`diceopt.games.yatzy.kernel.solve.solve_batch`): every roll row's score-now
values, points, become utilities ``float32(sign(theta) exp(theta (x - ref)))``. The
math library's ``exp`` is one scalar call per value (no vector ``exp`` here: SVML is
not available), 4.3-4.5 ns a value; it was most of a theta solve's time.

Method, per row of lanes (:func:`utilities32`):

1. ``exp(y)`` within 1e-13 relative (:func:`exp_near`) for ``LOWEST <= y <= HIGHEST``,
   in multiplications and additions that vectorise: ``exp(y / 128)`` by its Taylor
   series to degree 15 (``|y / 128| <= 1/2``: the truncation is below 1e-18, the
   rounding a few units in the last place), then squared seven times (the error
   grows 128 times: about 8e-14 in all).
2. Exactness: the value the math library's ``exp`` gives is within 1e-13 of the true
   one too, so both lie in ``[e (1 - GUARD), e (1 + GUARD)]`` (``GUARD`` = 2^-40,
   about 9.1e-13, eleven times the error). Where both ends round to the same float32,
   so does every number between them (rounding is monotonic), the library's value
   included: that float32 is written, the same bits as before. Where they differ (a
   value within GUARD of a midpoint between two float32: about one lane in 30,000, one
   row in 120 of 256 lanes), or ``y`` is out of range or NaN, the row is computed by
   the library's ``exp`` as before.

Rows out of range (``|theta|`` times the spread of a state's score-now values above
64) stop the fast path for the rest of the batch, so a large ``|theta|`` costs a row's
trial, not every row's. Scandinavian, 256 lanes: 1.6 ns a value against 4.4 for the
library's ``exp`` (one thread; ``yatzy_utilities`` of ``benchmarks/yatzy_solve.py``).
"""

from __future__ import annotations

import numba
import numpy as np

GUARD = 2.0**-40  # relative half-width of the interval whose ends must round alike
LOWEST = -64.0  # y range of exp_near (|y / 128| <= 1/2)
HIGHEST = 0.5

# 1 / n! for n = 0 .. 15 (Horner from the highest); written out, as a constant tuple
_C = (
    1.0,
    1.0,
    1.0 / 2.0,
    1.0 / 6.0,
    1.0 / 24.0,
    1.0 / 120.0,
    1.0 / 720.0,
    1.0 / 5040.0,
    1.0 / 40320.0,
    1.0 / 362880.0,
    1.0 / 3628800.0,
    1.0 / 39916800.0,
    1.0 / 479001600.0,
    1.0 / 6227020800.0,
    1.0 / 87178291200.0,
    1.0 / 1307674368000.0,
)


@numba.njit(cache=True, inline="always")  # inside the lane loop: it must vectorise
def exp_near(y: float) -> float:
    """exp(y) within 1e-13 relative for LOWEST <= y <= HIGHEST (see the module)."""
    r = y * (1.0 / 128.0)  # exact: a power of two
    p = _C[15]
    p = p * r + _C[14]
    p = p * r + _C[13]
    p = p * r + _C[12]
    p = p * r + _C[11]
    p = p * r + _C[10]
    p = p * r + _C[9]
    p = p * r + _C[8]
    p = p * r + _C[7]
    p = p * r + _C[6]
    p = p * r + _C[5]
    p = p * r + _C[4]
    p = p * r + _C[3]
    p = p * r + _C[2]
    p = p * r + _C[1]
    p = p * r + _C[0]
    p = p * p
    p = p * p
    p = p * p
    p = p * p
    p = p * p
    p = p * p
    return p * p


@numba.njit(cache=True, inline="always")  # inside the callers' loops over batches
def library_rows(
    A: np.ndarray, lo: int, hi: int, REF: np.ndarray, nb: int, theta: float
) -> None:  # fmt: skip
    """The same utilities by the math library's ``exp``, value by value (rows lo .. hi - 1,
    lanes ln < nb; any float dtype): the fallback of :func:`utilities32`, the float64
    lanes' step 3, and what the tests compare with."""
    sgn = 1.0 if theta > 0.0 else -1.0
    for row in range(lo, hi):
        for ln in range(nb):
            A[row, ln] = sgn * np.exp(theta * (A[row, ln] - REF[ln]))


@numba.njit(cache=True, inline="always")  # one call per batch: no call's reference counts
def utilities32(
    A: np.ndarray, lo: int, hi: int, REF: np.ndarray, nb: int, theta: float, W: np.ndarray
) -> int:
    """A[row, ln] = sign(theta) exp(theta (A[row, ln] - REF[ln])) for rows lo .. hi - 1
    and lanes ln < nb, A float32 (points in, utilities out): the bits of the math
    library's ``exp`` rounded to float32 (see the module); ``W``: float32 work row of at
    least nb lanes. Returns the number of rows the library's ``exp`` computed."""
    sgn = 1.0 if theta > 0.0 else -1.0
    fast = True
    slow = 0
    for row in range(lo, hi):
        bad = 0
        wide = 0
        if fast:
            for ln in range(nb):
                y = theta * (A[row, ln] - REF[ln])
                v = sgn * exp_near(y)
                a = np.float32(v * (1.0 - GUARD))
                b = np.float32(v * (1.0 + GUARD))
                inside = (y >= LOWEST) & (y <= HIGHEST)  # False for NaN
                wide += 0 if inside else 1
                bad += 0 if (a == b) & inside else 1
                W[ln] = a
        if fast and bad == 0:
            for ln in range(nb):
                A[row, ln] = W[ln]
            continue
        fast = fast and wide == 0  # out of range: the library's exp for the rest
        slow += 1
        library_rows(A, row, row + 1, REF, nb, theta)
    return slow
