"""Zombie Dice's dice (RULES §10) and the roll's transitions between turn configurations.

Thirteen dice of three colours: green, yellow, red (index 0, 1, 2), each face a brain, a
shotgun or footprints. A *configuration* is what a turn has put where: the shotgun dice
(``shot``, at most 2 of them, else the turn is over), the footprint dice in hand
(``feet``, at most 3) and the brain dice set aside (``aside``), each counted by colour;
the cup holds the rest. The brains of the turn are kept apart (recycled brain dice
return to the cup, their brains still count), so a turn's state is a configuration and
its brains.

``Transitions`` lists, for every configuration, what one roll leads to: draw dice from
the cup to have 3 (when the cup holds fewer than needed, the brain dice set aside go back
into it first and the dice are drawn from the whole cup), roll the 3 dice, set brains and
shotguns aside. Outcomes are the next configuration with the brains rolled and the
probability; a roll to 3 or more shotguns is the bust probability; a roll of 3
footprints with 3 footprint dice in hand changes nothing (the self-loop probability).
The tables are built once by a numba kernel (``cache=True``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, cached_property

from diceopt.lazy import numpy as np

COLOURS = ("green", "yellow", "red")
LETTERS = "gyr"
TOTAL = (6, 4, 3)  # dice of each colour in the cup at the start of a turn
# faces out of 6 of each colour: (brains, shotguns, footprints)
FACES = ((3, 1, 2), (2, 2, 2), (1, 3, 2))
BUST = 3  # shotguns that end a turn with nothing
HAND = 3  # dice rolled at once
MAX_ASIDE = (TOTAL[0] + 1, TOTAL[1] + 1, TOTAL[2] + 1)


def config_key(shot: tuple[int, ...], feet: tuple[int, ...], aside: tuple[int, ...]) -> int:
    """The dense key of a configuration (an index into ``Transitions.index``)."""
    key = 0
    for i in range(3):
        key = key * 3 + shot[i]
    for i in range(3):
        key = key * 4 + feet[i]
    for i in range(3):
        key = key * MAX_ASIDE[i] + aside[i]
    return key


KEYS = 27 * 64 * MAX_ASIDE[0] * MAX_ASIDE[1] * MAX_ASIDE[2]


def _enumerate_configs() -> np.ndarray:
    """Every configuration as a row (shot g y r, feet g y r, aside g y r), int64."""
    rows = []
    for sg in range(3):
        for sy in range(3 - sg):
            for sr in range(3 - sg - sy):
                for fg in range(4):
                    for fy in range(4 - fg):
                        for fr in range(4 - fg - fy):
                            for ag in range(TOTAL[0] - sg - fg + 1):
                                for ay in range(TOTAL[1] - sy - fy + 1):
                                    for ar in range(TOTAL[2] - sr - fr + 1):
                                        rows.append((sg, sy, sr, fg, fy, fr, ag, ay, ar))
    return np.array(rows, dtype=np.int64)


@dataclass(frozen=True)
class Transitions:
    """Every configuration and the outcomes of a roll from it (see the module docstring).

    ``configs[c]``: (shot g y r, feet g y r, aside g y r); ``index[config_key(...)]``: c
    (-1: no configuration); outcomes of configuration c are ``start[c]:start[c+1]`` in
    ``next``, ``brains`` (brains rolled) and ``prob``; ``bust[c]``, ``self_loop[c]``:
    probabilities; ``shots[c]``, ``aside_count[c]``: shotguns and brain dice set aside.
    """

    configs: np.ndarray
    index: np.ndarray
    start: np.ndarray
    next: np.ndarray
    brains: np.ndarray
    prob: np.ndarray
    bust: np.ndarray
    self_loop: np.ndarray

    @property
    def size(self) -> int:
        """Number of configurations."""
        return len(self.configs)

    @cached_property  # read by every turn solve (the sum took 3% of a race's time)
    def shots(self) -> np.ndarray:
        """Shotguns of each configuration (0..2)."""
        return self.configs[:, 0:3].sum(axis=1)

    @cached_property
    def aside_count(self) -> np.ndarray:
        """Brain dice set aside in each configuration."""
        return self.configs[:, 6:9].sum(axis=1)

    def find(self, shot: tuple[int, ...], feet: tuple[int, ...], aside: tuple[int, ...]) -> int:
        """The configuration number of dice by colour, or -1 when there is none."""
        return int(self.index[config_key(shot, feet, aside)])


@cache
def transitions() -> Transitions:
    """The roll's transitions of every configuration (built once per process)."""
    from diceopt.games.zombie.kernels import build_rolls

    configs = _enumerate_configs()
    index = np.full(KEYS, -1, dtype=np.int64)
    for c, row in enumerate(configs.tolist()):
        index[config_key(row[0:3], row[3:6], row[6:9])] = c
    start, nxt, brains, prob, bust, selfp = build_rolls(
        configs, index, np.array(TOTAL, dtype=np.int64), np.array(FACES, dtype=np.int64)
    )
    return Transitions(configs, index, start, nxt, brains, prob, bust, selfp)
