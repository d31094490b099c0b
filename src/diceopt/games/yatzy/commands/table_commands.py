"""The command line of a table of 2 to 6 players (``diceopt yatzy chances``).

Its options only: the runner (:func:`diceopt.games.yatzy.winning.table.run_chances`, numba)
is imported when the command runs. ``diceopt yatzy advise POSITION --opponent SHEET``
given once per opponent ranks the actions by the chance of winning against all of them
(``YatzySpec.advise``, :func:`diceopt.games.yatzy.winning.table.advise_table`).
"""

from __future__ import annotations

from typing import Any

from diceopt.games.contract import Command, CommandOutput, Parameter

MAX_PLAYERS = 6  # winning.table.MAX_PLAYERS (that module loads numba)

CHANCES_OPTIONS = (
    Parameter(
        "player",
        "a player and their sheet at the start of their turn, 'NAME: filled ones twos | "
        "upper 3 | score 3' (or the sheet's JSON); once per player, 2 to 6, in the order "
        "they play",
        metavar="'NAME: SHEET'",
        repeat=True,
    ),
    Parameter("to_move", "the player to move (name or number from 1), marked in the answer"),
)

OPPONENT_HELP = (
    "rank actions by the estimated P(win) against this opponent's sheet and score at "
    "the start of their turn, e.g. 'filled ones twos chance | upper 5 | score 25' (needs "
    "your score); give it once per opponent at a table of up to 6 (ties split evenly)"
)


def run_chances(config: Any, args: Any) -> CommandOutput:
    """The command's run: the number of players checked first, then the answer."""
    from diceopt.games.yatzy.winning.table import run_chances as run  # (numba)

    return run(config, args)


def advise_at_table(pos: Any, config: Any, opponents: Any) -> Any:
    """``YatzySpec.advise`` with several opponents: the actions ranked by the chance of
    winning against all of them (:func:`diceopt.games.yatzy.winning.table.advise_table`)."""
    from diceopt.games.yatzy.winning.table import advise_table  # (numba)

    return advise_table(pos, config, opponents)


def table_commands() -> tuple[Command, ...]:
    """``chances``: every player's chance of winning at a table."""
    return (
        Command(
            "chances",
            "every player's exact chance of winning at a table of 2 to 6 (everyone playing "
            "for the expected score from their sheet; ties split)",
            run_chances,
            CHANCES_OPTIONS,
        ),
    )
