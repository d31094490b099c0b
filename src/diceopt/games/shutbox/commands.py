"""Shut the Box's own command: ``diff``, the two-player positions where the win-optimal
and the score-optimal moves differ."""

from __future__ import annotations

import argparse
import time

from diceopt.errors import InputError
from diceopt.games.contract import Command, CommandOutput, Parameter
from diceopt.games.shutbox.duel import diff_lines, differing_positions
from diceopt.games.shutbox.rules import ShutRules

DIFF_LIMIT = 25  # rows ``diff`` prints without --limit
LIMIT_MAX = 1_000_000  # the most rows --limit asks for


def shutbox_commands() -> tuple[Command, ...]:
    """``diff`` with its options."""
    return (
        Command(
            "diff",
            "two players: positions where the win- and score-optimal moves differ",
            run_diff,
            (
                Parameter(
                    "player", "whose decisions: 1, 2 or both", "both", choices=("1", "2", "both")
                ),
                Parameter(
                    "limit",
                    f"rows to show (text default {DIFF_LIMIT})",
                    type=int,
                    low=0,
                    high=LIMIT_MAX,
                ),
            ),
        ),
    )


def run_diff(rules: ShutRules, args: argparse.Namespace) -> CommandOutput:
    """``shutbox diff``: the table (or JSON: every position unless ``--limit``) of positions
    where the win-optimal and the score-optimal moves differ."""
    if args.limit is not None and args.limit < 0:
        raise InputError(f"--limit must be >= 0, got {args.limit}")
    t0 = time.perf_counter()
    rows = differing_positions(rules)
    seconds = time.perf_counter() - t0
    counts = {p: sum(1 for r in rows if r["player"] == p) for p in (1, 2)}
    if args.player != "both":
        rows = [r for r in rows if r["player"] == int(args.player)]
    data = {
        "game": "shutbox",
        "rules": {"tiles": rules.tiles, "dice_rule": rules.dice_rule},
        "count": counts[1] + counts[2],
        "count_player1": counts[1],
        "count_player2": counts[2],
        "seconds": seconds,
        "positions": rows[: args.limit if args.limit is not None else len(rows)],
    }
    limit = args.limit if args.limit is not None else DIFF_LIMIT
    lines = [
        f"Shut the Box, {rules.tiles} tiles, {rules.dice_rule}: {counts[1] + counts[2]} positions "
        f"where the score-minimising move loses win probability (player 1: {counts[1]}, "
        f"player 2: {counts[2]}); largest losses first",
        *diff_lines(rows[:limit]),
    ]
    if len(rows) > limit:
        lines.append(f"... {len(rows) - limit} more (--limit N, or --json for all)")
    return CommandOutput(data, lines)
