"""Advice to reach a target: every action ranked by P(final score >= K).

Role: the target advice (:func:`advise_target`):

1. The turn at k points still needed from the stored full table when it holds k
   (:func:`target_turn_for`), else from the stored target rows from the start, else
   solved now for this state and k only (the tables come from
   :mod:`~diceopt.games.yatzy.stored.store`).
2. Every legal action ranked by its probability, ties broken as in the expected-score
   advice.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from diceopt.advice import Advice
from diceopt.errors import InputError, TableFileError
from diceopt.games.yatzy.analyses.targets import check_target, solve_target_from
from diceopt.games.yatzy.play.advice import rank_by_probability, roll_index, state_of
from diceopt.games.yatzy.stored.store import (
    forget_target_tables,
    load_rows,
    stored_table,
    targets_path,
    warn,
)
from diceopt.progress import Stage


def target_turn_for(
    config: Any, mask: int, flag: int, upper: int, k: int, first: bool = False
) -> tuple[np.ndarray, np.ndarray, float]:
    """:func:`target_turn` at k points still needed from a turn-start state (``first``:
    the categories written straight after the first roll, served scores): from the
    stored full table when there is one and it holds k (the blocks read are checked:
    a bad one is reported in one line and the table not used), else from the stored
    target rows from the start (``store.load_rows``), else solved now for
    this state and k only (:func:`solve_target_from` with ``only_target``, progress on
    stderr)."""
    rules = config.rules
    table = stored_table(rules, config.dtype)
    if table is not None and k <= table.kmax:
        try:
            return table.turn(mask, flag, upper, k, first)
        except TableFileError as exc:
            path = targets_path(rules, config.dtype)
            warn(f"ignoring cached table {path}: {exc}; `diceopt yatzy targets` rebuilds it")
            forget_target_tables()
            table = None
    rows = load_rows(rules, config.dtype, full=False)  # stored rows from the start
    if rows is not None and k <= rows.kmax:
        return rows.turn(mask, flag, upper, k, first)
    named = f"--rules {rules.name}" if rules.key else f"--variant {config.variant}"
    why = (
        f"no stored target table (`diceopt yatzy targets {named}` stores one for every target)"
        if table is None
        else f"stored table: k <= {table.kmax}"
    )
    label = f"{why}: solving P(>= {k} more points) from this position"
    with Stage(label, "layers") as stage:
        rows = solve_target_from(
            rules, mask, flag, upper, max(0, k), dtype=config.dtype, progress=stage.update,
            only_target=True,
        )  # fmt: skip
    return rows.turn(mask, flag, upper, k, first)


def advise_target(pos: Any, config: Any, target: int) -> Advice:
    """Every legal action of ``pos`` ranked by P(final score >= target) (points; without
    a score in the position: P(points still to come >= target)), best first; regrets in
    probability, ``expected`` the action's expected final score (the ordinary table).
    Ties as in the expected-score advice (scoring first, categories in order, keeps in
    lattice order)."""
    rules = config.rules
    check_target(target, rules)
    if pos.over(rules):
        raise InputError("the game is over: every category is filled")
    k = target - (0 if pos.score is None else int(round(pos.score)))
    mask, flag, upper = state_of(pos, rules)
    if k <= 0:  # reached: every action keeps it
        keep, cat, _ = solve_target_from(rules, mask, flag, upper, 0).turn(mask, flag, upper, 0)
        keep[:] = 1.0
        cat[cat >= 0] = 1.0
    else:
        keep, cat, _ = target_turn_for(config, mask, flag, upper, k, pos.rerolls == 2)
    what = "final score" if pos.score is not None else "points still to come"
    return rank_by_probability(
        pos, rules, config.table(), cat[roll_index(pos, rules)], keep,
        f"probability that the {what} is at least {target} (0-1)",
    )  # fmt: skip
