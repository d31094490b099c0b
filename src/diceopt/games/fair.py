"""A fair start for a two-player race: the compensation that brings the first player's
win probability closest to 1/2.

A compensation c (in the game's scoring steps) is given to the second player at the
start; a negative c gives -c to the first player instead (where the second player is the
favourite, as in Zombie Dice). A game supplies ``chance(c)``: the first player's win
probability (both optimal) from that start. The search walks from 0 towards 1/2 until
the chance crosses it, and two more steps, or tries every c up to ``candidates`` steps
in that direction.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from diceopt.errors import InputError
from diceopt.games.contract import Command, CommandOutput, Parameter

CANDIDATES_MAX = 1_000_000  # the most compensations --candidates asks for

MORE = 2  # candidates tried past the crossing of 1/2


def fairest(
    chance: Callable[[int], float], limit: int, step: int = 1, candidates: int | None = None
) -> dict[str, Any]:
    """The fairest compensation (``compensation``: points, ``compensation_steps``), the
    first player's win probability there, and every candidate tried with its probability
    (``candidates``: compensation in points, ``win_probability``). ``limit``: the largest
    compensation the game allows, in steps (either way); ``candidates``: the most steps to
    try (None: until the chance crosses 1/2, and two more)."""
    if candidates is not None and candidates < 0:
        raise InputError(f"--candidates must be >= 0, got {candidates}")
    at_zero = chance(0)
    direction = 1 if at_zero >= 0.5 else -1
    last = limit if candidates is None else min(limit, candidates)
    chances = {0: at_zero}
    crossed = None
    for k in range(1, last + 1):
        c = direction * k
        chances[c] = chance(c)
        if crossed is None and (chances[c] - 0.5) * direction < 0:
            crossed = k
        if candidates is None and crossed is not None and k >= crossed + MORE:
            break
    best = min(chances, key=lambda c: (abs(chances[c] - 0.5), abs(c)))
    return {
        "compensation": best * step,
        "compensation_steps": best,
        "win_probability": chances[best],
        "candidates": [
            {"compensation": c * step, "win_probability": p} for c, p in sorted(chances.items())
        ],
    }


def fair_command(
    answer_of: Callable[[Any, int | None], dict[str, Any]], units: str = "points"
) -> Command:
    """The ``fair`` subcommand of a race game: ``answer_of(rules, candidates)`` is
    :func:`fairest` for the game's solved race; ``units``: what a compensation counts."""

    def run(rules: Any, args: Any) -> CommandOutput:
        answer = answer_of(rules, args.candidates)
        given = answer["compensation"]
        who = "the second player" if given >= 0 else "the first player (the second is favoured)"
        lines = [f"compensation for {who}: {abs(given)} {units}"]
        for row in answer["candidates"]:
            mark = "  <- fairest" if row["compensation"] == given else ""
            chance = row["win_probability"]
            lines.append(f"{row['compensation']:>6}: first player wins {chance:.9f}{mark}")
        return CommandOutput({"rules": rules.describe(), **answer}, lines)

    return Command(
        "fair",
        "the start bonus for the second player that makes the game fairest",
        run,
        (
            Parameter(
                "candidates",
                "largest compensation tried, in scoring steps (default: until the first "
                "player's chance crosses 1/2, and two more)",
                type=int,
                low=0,
                high=CANDIDATES_MAX,
            ),
        ),
    )
