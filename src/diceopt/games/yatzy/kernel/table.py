"""A solved Yatzy table: ``values[mask, flag, upper]``, and one turn read from it.

:class:`YatzyTable` holds the value of every turn-start state (see
:mod:`diceopt.games.yatzy.kernel.solve`, which solves it). Its :meth:`~YatzyTable.widget` and
:meth:`~YatzyTable.category_values` evaluate one turn from one state with the plain
Python twin of the kernel's scalar widget (:mod:`diceopt.games.yatzy.kernel.plain`, bit for bit
the kernel's numbers), as arrays: advice without numba. Tables without saved rerolls
only (``SavedTable`` reads its layers with the kernel).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from diceopt.errors import InputError
from diceopt.games.yatzy.kernel import plain
from diceopt.games.yatzy.kernel.arrays import KernelArrays, TableArrays, kernel_arrays
from diceopt.games.yatzy.rulebook.rules import YatzyRules

if TYPE_CHECKING:  # saved.py loads numba; this module reads tables without it
    from diceopt.games.yatzy.kernel.saved import SavedTable

TURN = plain.TURN  # rerolls in a turn (no saved rerolls)


@dataclass
class YatzyTable:
    """A solved table: ``values[mask, flag, upper]`` (points to come; NaN = unreachable).

    ``seconds``: time of the solve (numba compile excluded when warmed up).
    """

    rules: YatzyRules
    values: np.ndarray
    theta: float = 0.0
    seconds: float = 0.0
    states: int = 0

    def __post_init__(self) -> None:
        # One array type for every kernel that reads a solved table, solved here or read
        # from a file (read-only): numba compiles a specialization per type, and a second
        # one would compile each kernel's whole call tree again.
        self.values.flags.writeable = False

    @property
    def value(self) -> float:
        """Optimal value of the whole game from the first turn (points)."""
        return float(self.values[0, 0, 0])

    @cached_property
    def arrays64(self) -> KernelArrays:
        """Kernel arrays in float64 (for the scalar widget)."""
        return kernel_arrays(self.rules, np.float64)

    @cached_property
    def policy_arrays(self) -> TableArrays:
        """The table as the kernels that follow its policy take it (``arrays64`` beside)."""
        rules = self.rules
        return TableArrays(self.values, float(self.theta), rules.flags, rules.bonus_threshold + 1)

    @cached_property
    def turn(self) -> plain.TurnRules:
        """The variant's turn rules as the plain twin takes them."""
        return plain.TurnRules(self.rules)

    def rows(self, mask: int) -> list[float]:
        """``values[mask]`` flat (index ``flag * (threshold + 1) + upper``), as floats."""
        return self.values[mask].ravel().tolist()

    def widget(
        self, mask: int, flag: int, upper: int, levels: int = TURN
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
        """The kernel's ``widget_detail`` for one turn-start state (float64 arrays
        ``roll_value[t, r]``, ``keep_value[t, k]``, ``policy[t, r]`` and the value; see
        :func:`diceopt.games.yatzy.kernel.plain.widget_detail`); ``levels`` is 2 (a table
        without saved rerolls; the argument matches ``SavedTable``)."""
        if levels != TURN:
            raise InputError(f"a turn has 2 rerolls without saved rerolls, got {levels}")
        rv, keep, policy, value = plain.widget_detail(
            mask, flag, upper, self.rows, self.turn, self.theta
        )
        return np.array(rv), np.array(keep), np.array(policy, dtype=np.int64), value

    def category_values(
        self, mask: int, flag: int, upper: int, roll: int, rerolls: int = 0
    ) -> np.ndarray:
        """Value of writing roll index ``roll`` into each category (NEG: not allowed);
        ``rerolls`` left unused matter with served scores (2: the first roll) and with
        saved rerolls (``SavedTable``)."""
        return np.array(
            plain.category_values(mask, flag, upper, roll, self.rows, self.turn, rerolls)
        )


def expected_table(table: YatzyTable | SavedTable, what: str) -> YatzyTable:
    """``table`` as a :class:`YatzyTable` (a variant without saved rerolls); InputError
    for a saved-rerolls table: ``what`` reads only the others."""
    if not isinstance(table, YatzyTable):
        raise InputError(f"{what} is not available for {table.rules.name} (saved rerolls)")
    return table
