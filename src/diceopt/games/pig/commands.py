"""Pig's own commands: ``boundary`` (the turn total from which to hold, per pair of
scores, as a table or a plot) and ``fair`` (the compensation for the second player)."""

from __future__ import annotations

import math
from typing import Any

from diceopt.errors import InputError
from diceopt.games.contract import Command, CommandOutput, Parameter
from diceopt.games.pig.rules import GOAL_MAX, PigRules
from diceopt.games.pig.solution import plot_boundary, solved

BOUNDARY_STEP = 10  # score step of the printed boundary table (goals above 20)


def pig_commands() -> tuple[Command, ...]:
    """``fair`` (the race's W) and ``boundary``, with their options."""
    from diceopt.games.families.race import fair_command

    return (
        fair_command(lambda rules: solved(rules).race),
        Command(
            "boundary",
            "the turn total from which to hold, per pair of scores",
            run_boundary,
            (
                Parameter(
                    "step",
                    f"score step of the table (default {BOUNDARY_STEP}; 1 for goals to 20)",
                    type=int,
                    low=1,
                    high=GOAL_MAX,
                ),
                Parameter("plot", "draw the boundary (png, svg or pdf)", metavar="FILE"),
            ),
        ),
    )


def run_boundary(rules: PigRules, args: Any) -> CommandOutput:
    """``diceopt pig boundary``: the hold-from table and an optional plot."""
    from diceopt.output import check_plot_path, write_plot

    goal = rules.goal
    step = args.step if args.step is not None else (BOUNDARY_STEP if goal > 20 else 1)
    if step < 1:
        raise InputError(f"--step must be at least 1, got {step}")
    check_plot_path(args.plot)
    sol = solved(rules)
    hold_from, exceptions = sol.boundary()
    if args.plot:
        write_plot(lambda out: plot_boundary(sol, out), args.plot)
    table = [[None if math.isnan(x) else int(x) for x in row] for row in hold_from.tolist()]
    data = {
        "game": "pig",
        "rules": rules.describe(),
        "value": sol.value,
        "hold_from": table,
        "exceptions": exceptions,
        "plot": args.plot,
    }
    scores = [s for s in range(0, goal, step) if rules.possible_total(s)]
    lines = [
        f"Pig, goal {goal}, d{rules.sides}: hold once the turn total reaches the number "
        "(rows: your score, columns: opponent's score)",
        "you\\opp " + "".join(f"{o:>5}" for o in scores),
    ]
    for m in scores:
        cells = "".join(f"{int(hold_from[m, o]):>5}" for o in scores)
        lines.append(f"{m:>7} {cells}")
    lines.append(
        f"{exceptions} (score, score, turn total) positions above the boundary where rolling "
        "is optimal again"
    )
    if args.plot:
        lines.append(f"boundary plot written to {args.plot}")
    return CommandOutput(data, lines)
