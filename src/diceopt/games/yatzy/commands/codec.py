"""Yatzy's observation codec for the environments (the ``env_codec`` hook)."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from diceopt.games.codec import Codec, observation


def yatzy_codec(config: Any) -> Codec:
    """Yatzy/Yahtzee: ``keep ...`` for every multiset of fewer than all the dice (by size,
    then pips), then ``score CATEGORY`` in the variant's order; entries: dice showing each
    face, rerolls left, each category filled (0/1), upper total, score, Yahtzee bonus flag.
    """
    r = config.rules
    keeps = [
        "keep " + (" ".join(map(str, kept)) or "-")
        for k in range(r.dice)
        for kept in itertools.combinations_with_replacement(range(1, r.sides + 1), k)
    ]
    scores = [f"score {c}" for c in r.categories]
    upper_max = r.dice * r.sides * (r.sides + 1) // 2
    nvec = (
        (r.dice + 1,) * r.sides
        + (3,)
        + (2,) * r.num_categories
        + (upper_max + 1, int(r.max_total) + 1, 2)
    )
    fields = (
        tuple(f"dice showing {f}" for f in range(1, r.sides + 1))
        + ("rerolls left",)
        + tuple(f"{c} filled" for c in r.categories)
        + ("upper total", "score", "yahtzee bonus")
    )

    def encode(pos: Any, viewer: int = 0) -> np.ndarray:
        counts = [0] * r.sides
        for d in pos.dice:
            counts[d - 1] += 1
        filled = [int(c in pos.filled) for c in r.categories]
        score = int(round(pos.score or 0))
        return observation(
            [*counts, pos.rerolls, *filled, pos.upper, score, int(pos.yahtzee_bonus)], nvec
        )

    return Codec(
        (*keeps, *scores),
        nvec,
        fields,
        encode,
        points=lambda pos: None if pos.score is None else float(pos.score),
        turn_ended=lambda old, new: len(new.filled) != len(old.filled),
    )
