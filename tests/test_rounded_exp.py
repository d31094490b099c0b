"""The float32 solve's vectorised utilities against the math library's exp, bit for bit."""

import numba
import numpy as np
import pytest

from diceopt.games.yatzy.kernel.rounded_exp import (
    GUARD,
    HIGHEST,
    LOWEST,
    exp_near,
    library_rows,
    utilities32,
)


@numba.njit(cache=True)
def _exp_near_all(ys, out):
    for i in range(ys.size):
        out[i] = exp_near(ys[i])


@numba.njit(cache=True)
def _library_exp_all(ys, out):
    for i in range(ys.size):
        out[i] = np.exp(ys[i])


def test_exp_near_is_within_a_ninth_of_the_guard():
    """Over its whole range, far inside GUARD: the exactness argument's margin."""
    ys = np.linspace(LOWEST, HIGHEST, 400_001)
    ys = np.concatenate([ys, [0.0, -1e-300, LOWEST, HIGHEST]])
    near, lib = np.empty_like(ys), np.empty_like(ys)
    _exp_near_all(ys, near)
    _library_exp_all(ys, lib)
    worst = float(np.max(np.abs(near / lib - 1.0)))
    assert worst < 1e-13 < GUARD / 9
    assert near[-4] == 1.0  # exp(0)


@pytest.mark.parametrize("theta", [-1.0, -0.3, -0.05, -0.001, 0.001, 0.05, 0.3, 1.0])
def test_utilities32_are_the_library_exp_rounded(theta):
    """Rows of score-now points (a state's spread of up to 400 points, lanes short of a
    batch, NaN in a lane, a row beyond the fast range) give the library's float32 bits;
    with a small theta most rows take the fast path and some a value's rounding sends
    back to the library."""
    rng = np.random.default_rng(abs(hash(theta)) % 2**32)
    rows, lanes, nb = 3000, 256, 250
    A = (rng.random((rows, lanes)) * 400.0).astype(np.float32)
    REF = (A.max(axis=0) if theta > 0 else A.min(axis=0)).astype(np.float32)
    # the last rows: a NaN lane, then exp far below LOWEST (each ends the fast path)
    A[-2, 3] = np.nan
    A[-1, :] = REF + np.float32(-2000.0 if theta > 0 else 2000.0)
    want = A.copy()
    library_rows(want, 0, rows, REF, nb, theta)  # as the solver wrote them before
    got = A.copy()
    slow = utilities32(got, 0, rows, REF, nb, theta, np.empty(lanes, dtype=np.float32))
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan) and nan.sum() == 1  # (its sign may differ)
    assert np.array_equal(got.view(np.int32)[~nan], want.view(np.int32)[~nan])
    if abs(theta) <= 0.1:  # y within the fast range but for the last two rows
        assert 4 < slow < rows // 20
