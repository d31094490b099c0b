"""Dice algebra against brute-force enumeration of ordered outcomes."""

import itertools
import math

import numpy as np
import pytest

from diceopt.dice import (
    Dice,
    KeepLattice,
    count_multisets,
    faces_to_counts,
    multiset_probabilities,
    multisets,
)
from diceopt.errors import InputError


def brute_force_distribution(m, probs):
    """Probability of each count vector by enumerating all k**m ordered rolls."""
    k = len(probs)
    out = {}
    for roll in itertools.product(range(k), repeat=m):
        key = tuple(faces_to_counts(roll, k))
        out[key] = out.get(key, 0.0) + math.prod(probs[f] for f in roll)
    return out


@pytest.mark.parametrize("n,k", [(1, 2), (3, 6), (5, 6), (4, 3), (2, 10)])
def test_multiset_count_and_order(n, k):
    rows = multisets(n, k)
    assert len(rows) == count_multisets(n, k) == math.comb(n + k - 1, n)
    assert (rows.sum(axis=1) == n).all()
    assert len({tuple(r) for r in rows}) == len(rows)
    assert tuple(rows[0]) == (n,) + (0,) * (k - 1)


@pytest.mark.parametrize(
    "m,probs",
    [(3, [1 / 6] * 6), (4, [0.1, 0.2, 0.3, 0.4]), (2, [0.5, 0.0, 0.5]), (5, [0.25, 0.75])],
)
def test_multiset_probabilities_match_brute_force(m, probs):
    rows = multisets(m, len(probs))
    got = multiset_probabilities(rows, np.array(probs))
    want = brute_force_distribution(m, probs)
    for row, p in zip(rows, got):
        assert p == pytest.approx(want.get(tuple(row), 0.0), abs=1e-15)
    assert got.sum() == pytest.approx(1.0, abs=1e-12)


def test_keep_roll_matches_brute_force():
    n, probs = 3, np.array([0.5, 0.3, 0.2])
    lat = KeepLattice(n, 3)
    start, target, prob = lat.keep_roll(probs)
    for i, keep in enumerate(lat.counts):
        m = n - int(keep.sum())
        want = {tuple(np.array(c) + keep): p for c, p in brute_force_distribution(m, probs).items()}
        got = {}
        for e in range(start[i], start[i + 1]):
            got[tuple(lat.counts[target[e]])] = prob[e]
        assert set(got) == set(want)
        for key, p in want.items():
            assert got[key] == pytest.approx(p, abs=1e-15)


def test_add_and_remove_edges_are_inverse():
    lat = KeepLattice(4, 5)
    assert len(lat.counts) == sum(count_multisets(j, 5) for j in range(5))
    for i, row in enumerate(lat.counts):
        for f in range(5):
            j = lat.add_die[i, f]
            if lat.size[i] == 4:
                assert j == -1
            else:
                assert lat.counts[j][f] == row[f] + 1 and lat.remove_die[j, f] == i
            r = lat.remove_die[i, f]
            assert (r == -1) == (row[f] == 0)


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"sides": 1}, "at least 2 sides"),
        ({"sides": 3, "values": [1, 1, 2]}, "distinct"),
        ({"sides": 2, "bias": [0.7, 0.7]}, "sum to 1"),
        ({"sides": 2, "bias": [1.5, -0.5]}, ">= 0"),
        ({"sides": 3, "values": [1, 2]}, "2 face values given for 3 sides"),
    ],
)
def test_bad_dice_are_rejected(kwargs, message):
    with pytest.raises(InputError, match=message):
        Dice.make(**kwargs)
