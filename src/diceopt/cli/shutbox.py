"""``diceopt shutbox``: solve Shut the Box (one or two players), advise, compare, play.

Positions: ``open 1 3 4 7 | roll 8`` is a one-player position (objectives score and
shut) or player 1's position (objective win); ``open 1 3 4 7 | roll 8 | target 16`` is
player 2's position in the two-player game, player 1 having scored 16. Without
``| roll R`` the position is before the roll (the choice of one or two dice under the
optional-one rule).
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from diceopt.cli.common import add_json_flag, print_json, prompt, seed_value

DIFF_LIMIT = 25
# the same as diceopt.games.shutbox.DICE_RULES / OBJECTIVES (not imported: --help stays quick)
DICE_RULES = ("two-then-one", "optional-one", "always-two")
OBJECTIVES = ("score", "shut", "win")


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``shutbox solve|advise|diff|play``."""
    parser = subparsers.add_parser("shutbox", help="Shut the Box: one player or two")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def rules_args(p: argparse.ArgumentParser, objective: bool = True) -> None:
        p.add_argument("--tiles", type=int, default=9, help="tiles 1..N, N = 1..12 (default 9)")
        p.add_argument(
            "--dice-rule",
            choices=DICE_RULES,
            default="two-then-one",
            help="two-then-one (default): two dice while the open tiles sum to more than 6; "
            "optional-one: one die allowed at 6 or less; always-two",
        )
        if objective:
            p.add_argument(
                "--objective",
                choices=OBJECTIVES,
                default=None,
                help="score: lowest expected score; shut: best P(shut); win: two players "
                "(default: score, or win with --players 2 or a target)",
            )

    solve_p = sub.add_parser("solve", help="optimal value (and policy) of a game")
    rules_args(solve_p)
    solve_p.add_argument("--players", type=int, choices=(1, 2), default=None, help="1 or 2")
    solve_p.add_argument(
        "--policy", action="store_true", help="list every decision (player 1's for win)"
    )
    add_json_flag(solve_p)
    solve_p.set_defaults(handler=cmd_solve)

    advise_p = sub.add_parser("advise", help="every move in a position, best first")
    advise_p.add_argument("position", help="e.g. 'open 1 3 4 7 | roll 8 | target 16'")
    rules_args(advise_p)
    add_json_flag(advise_p)
    advise_p.set_defaults(handler=cmd_advise)

    diff_p = sub.add_parser(
        "diff", help="two players: positions where the win- and score-optimal moves differ"
    )
    rules_args(diff_p, objective=False)
    diff_p.add_argument("--player", choices=("1", "2", "both"), default="both")
    diff_p.add_argument(
        "--limit", type=int, default=None, help=f"rows to show (text default {DIFF_LIMIT})"
    )
    add_json_flag(diff_p)
    diff_p.set_defaults(handler=cmd_diff)

    play_p = sub.add_parser("play", help="interactive: play, the solver grades each move")
    rules_args(play_p)
    play_p.add_argument(
        "--seat", type=int, choices=(1, 2), default=1, help="your seat with --objective win"
    )
    play_p.add_argument("--seed", type=seed_value, default=None, help="random seed")
    play_p.set_defaults(handler=cmd_play)


def _game(args: argparse.Namespace, players: int | None = None) -> tuple[Any, str]:
    """Rules and objective from the options (InputError when they disagree)."""
    from diceopt.errors import InputError
    from diceopt.games.shutbox import ShutRules

    rules = ShutRules(args.tiles, args.dice_rule)
    objective = args.objective
    if players == 2:
        if objective not in (None, "win"):
            raise InputError(f"two players play for wins: use --objective win, not {objective}")
        objective = "win"
    elif players == 1 and objective == "win":
        raise InputError("--objective win is the two-player game: use --players 2")
    return rules, objective or "score"


def _units(objective: str) -> str:
    return {
        "score": "expected final score (points, lower is better)",
        "shut": "probability of shutting the box",
        "win": "expected wins of the player to move (a draw is 1/2)",
    }[objective]


def cmd_solve(args: argparse.Namespace) -> int:
    """Solve one game; the two-player game also compares win- and score-optimal play."""
    from diceopt.games.shutbox import (
        action_text,
        duel_report,
        position_of_state,
        solved,
    )

    rules, objective = _game(args, args.players)
    t0 = time.perf_counter()
    sol = solved(rules, objective)
    seconds = time.perf_counter() - t0
    report = None
    report_seconds = 0.0
    if objective == "win":
        t1 = time.perf_counter()
        report = duel_report(rules)
        report_seconds = time.perf_counter() - t1
    policy = None
    if args.policy:
        g = sol.graph
        policy = []
        for d in range(g.num_states):
            if g.kind[d] != 2 or (objective == "win" and g.player[d] != 0):
                continue
            e = int(sol.policy[d])
            v = float(sol.solution.values[d])
            policy.append(
                {
                    "position": position_of_state(g.states[d]).text(),
                    "move": action_text(g.actions[e]),
                    "value": v,
                }
            )
        policy.sort(key=lambda r: r["position"])
    if args.json:
        out = {
            "game": "shutbox",
            "rules": rules.describe(),
            "players": 2 if objective == "win" else 1,
            "objective": objective,
            "value": sol.value,
            "seconds": seconds,
            "compile_seconds": sol.compile_seconds,
            "solve_seconds": sol.solve_seconds,
            "states": sol.graph.num_states,
            "edges": sol.graph.num_edges,
        }
        if report is not None:
            out["comparison"] = report
            out["comparison_seconds"] = report_seconds
        if policy is not None:
            out["policy"] = policy
        print_json(out)
        return 0
    players = "two players" if objective == "win" else "one player"
    print(f"Shut the Box: {rules.tiles} tiles, {rules.dice_rule} dice rule, {players}")
    if policy is not None:
        print(f"{'position':<40} {'move':<16} value")
        for row in policy:
            print(f"{row['position']:<40} {row['move']:<16} {row['value']:.6f}")
    label = {
        "score": "lowest expected score (points)",
        "shut": "highest probability of shutting the box",
        "win": "player 1's expected wins, both players win-optimal",
    }[objective]
    print(f"{label}: {sol.value:.9f}")
    if report is not None:
        r = report
        print(
            "player 1's expected wins when...\n"
            f"  both play win-optimal              {r['both_win_optimal']:.9f}\n"
            f"  player 1 plays score-optimal        {r['p1_score_optimal']:.9f}"
            f"  (win-optimal play gains player 1 {r['p1_gain']:.6f})\n"
            f"  player 2 plays score-optimal        {r['p2_score_optimal']:.9f}"
            f"  (win-optimal play gains player 2 {r['p2_gain']:.6f})\n"
            f"  both play score-optimal             {r['both_score_optimal']:.9f}"
        )
        print(
            "expected score given up by win-optimal play: player 1 "
            f"{r['p1_score_given_up']:.6f} points ({r['p1_expected_score_win_policy']:.6f} vs "
            f"{r['p1_expected_score_score_policy']:.6f}), player 2 "
            f"{r['p2_score_given_up']:.6f} points ({r['p2_expected_score_win_policy']:.6f} vs "
            f"{r['p2_expected_score_score_policy']:.6f}, when player 2 plays)"
        )
    print(
        f"{sol.graph.num_states} nodes; compile {sol.compile_seconds:.3f} s, solve "
        f"{sol.solve_seconds:.3f} s (total {seconds:.3f} s)"
    )
    return 0


def _position_objective(args: argparse.Namespace) -> tuple[Any, str]:
    rules, objective = _game(args)
    if args.objective is None and "target" in args.position.lower():
        objective = "win"
    return rules, objective


def cmd_advise(args: argparse.Namespace) -> int:
    """Every move of a position with its value and regret."""
    from diceopt.games.shutbox import advise

    rules, objective = _position_objective(args)
    variant = f"{rules.dice_rule}/{objective}/{rules.tiles}"
    options = advise(args.position, variant)
    if args.json:
        print_json({"actions": [o.to_json() for o in options]})
        return 0
    print(f"{args.position.strip()}: {_units(objective)}")
    for o in options:
        note = "best" if o.regret <= 1e-12 else f"regret {o.regret:.6f}"
        print(f"  {o.action:<16} {o.value:.6f}  {note}")
    return 0


def cmd_diff(args: argparse.Namespace) -> int:
    """Table of positions where win-optimal and score-optimal moves differ."""
    from diceopt.errors import InputError
    from diceopt.games.shutbox import ShutRules, differing_positions

    if args.limit is not None and args.limit < 0:
        raise InputError(f"--limit must be >= 0, got {args.limit}")
    rules = ShutRules(args.tiles, args.dice_rule)
    t0 = time.perf_counter()
    rows = differing_positions(rules)
    seconds = time.perf_counter() - t0
    counts = {p: sum(1 for r in rows if r["player"] == p) for p in (1, 2)}
    if args.player != "both":
        rows = [r for r in rows if r["player"] == int(args.player)]
    if args.json:
        limit = args.limit if args.limit is not None else len(rows)
        print_json(
            {
                "game": "shutbox",
                "rules": rules.describe(),
                "count": counts[1] + counts[2],
                "count_player1": counts[1],
                "count_player2": counts[2],
                "seconds": seconds,
                "positions": rows[:limit],
            }
        )
        return 0
    limit = args.limit if args.limit is not None else DIFF_LIMIT
    print(
        f"Shut the Box, {rules.tiles} tiles, {rules.dice_rule}: {counts[1] + counts[2]} positions "
        f"where the score-minimising move loses win probability (player 1: {counts[1]}, "
        f"player 2: {counts[2]}); largest losses first"
    )
    print(
        f"{'pl':>2} {'position':<38} {'win move':<12} {'score move':<12} "
        f"{'P(win) lost':>11} {'score cost':>10}"
    )
    for r in rows[:limit]:
        print(
            f"{r['player']:>2} {r['position']:<38} {r['win_move']:<12} {r['score_move']:<12} "
            f"{r['win_lost']:>11.6f} {r['score_given_up']:>10.4f}"
        )
    if len(rows) > limit:
        print(f"... {len(rows) - limit} more (--limit N, or --json for all)")
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    """Interactive game; in the two-player game the computer takes the other seat."""
    import numpy as np

    from diceopt.errors import InputError
    from diceopt.games.shutbox import (
        ShutPosition,
        action_text,
        advise,
        parse_move,
        step,
        tiles_of,
    )

    rules, objective = _game(args)
    variant = f"{rules.dice_rule}/{objective}/{rules.tiles}"
    rng = np.random.default_rng(args.seed)
    two = objective == "win"
    print(
        f"Shut the Box, {rules.tiles} tiles, {rules.dice_rule} dice rule, objective {objective}"
        + (f"; you are player {args.seat}" if two else "")
    )
    print("Type the tiles to shut (e.g. '1 7'), 'roll one die' / 'roll two dice' when asked,")
    print("'hint' for the solver's advice; Ctrl-D quits.")
    start = ShutPosition(rules.full)
    if len(rules.dice_options(rules.full)) > 1:  # the first choice is one or two dice
        pos, over, events = start, False, []
    else:
        pos, over, events = step(rules, objective, start, "roll", rng)
    lost = 0.0
    while True:
        for line in events:
            print(f"  {line}")
        events = []
        if over:
            if not two:
                print(f"\nFinal score {rules.total(pos.open)}.")
            print(f"Value lost to your decisions: {lost:.6f} ({_units(objective)})")
            return 0
        seat = 2 if pos.target is not None else 1
        text = pos.text()
        options = advise(text, variant)
        if two and seat != args.seat:
            action = options[0].action
            print(f"\n{text}\ncomputer (player {seat}): {action}")
        else:
            print(f"\n{text}")
            line = prompt("move> ")
            if line.lower() in ("hint", "?"):
                for o in options:
                    print(f"  {o.action:<16} {o.value:.6f}  regret {o.regret:.6f}")
                continue
            try:
                move = parse_move(rules, pos, line)
            except InputError as exc:
                print(f"  {exc}", file=sys.stderr)
                continue
            action = action_text(tiles_of(move)) if isinstance(move, int) else move
            chosen = next((o for o in options if o.action == action), None)
            if chosen is not None:
                lost += chosen.regret
                grade = "optimal" if chosen.regret <= 1e-12 else f"regret {chosen.regret:.6f}"
                print(f"  {action}: {grade} (best: {options[0].action})")
        pos, over, events = step(rules, objective, pos, action, rng)
