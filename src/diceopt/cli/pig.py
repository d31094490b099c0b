"""``diceopt pig``: solve Pig (two players, P(win)), the roll/hold boundary, advice, play."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from diceopt.cli.common import (
    add_json_flag,
    check_plot_path,
    print_json,
    prompt,
    seed_value,
    write_plot,
)

BOUNDARY_STEP = 10


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``pig solve|boundary|advise|play``."""
    parser = subparsers.add_parser("pig", help="Pig: two players race to a goal (P(win))")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def rules_args(p: argparse.ArgumentParser) -> None:
        p.add_argument("--goal", type=int, default=100, help="points to win (default 100)")
        p.add_argument("--sides", type=int, default=6, help="die sides, 1 busts (default 6)")

    solve_p = sub.add_parser("solve", help="first player's win probability, optimal play")
    rules_args(solve_p)
    solve_p.add_argument(
        "--tolerance", type=float, default=None, help="value-iteration tolerance (engine default)"
    )
    solve_p.add_argument("--plot", metavar="FILE", help="also write the roll/hold boundary PNG")
    add_json_flag(solve_p)
    solve_p.set_defaults(handler=cmd_solve)

    bound_p = sub.add_parser("boundary", help="turn total from which to hold, per scores")
    rules_args(bound_p)
    bound_p.add_argument(
        "--step", type=int, default=None, help="score step of the printed table (default 10)"
    )
    bound_p.add_argument("--plot", metavar="FILE", help="write the boundary as a PNG")
    add_json_flag(bound_p)
    bound_p.set_defaults(handler=cmd_boundary)

    advise_p = sub.add_parser("advise", help="hold or roll in a position")
    advise_p.add_argument("position", help="e.g. 'me 41 | opponent 49 | turn 22'")
    rules_args(advise_p)
    add_json_flag(advise_p)
    advise_p.set_defaults(handler=cmd_advise)

    play_p = sub.add_parser("play", help="interactive: you against the optimal player")
    rules_args(play_p)
    play_p.add_argument("--seed", type=seed_value, default=None, help="random seed")
    play_p.add_argument(
        "--first", choices=("human", "computer"), default="human", help="who starts"
    )
    play_p.set_defaults(handler=cmd_play)


def _rules(args: argparse.Namespace) -> Any:
    from diceopt.games.pig import PigRules

    return PigRules(goal=args.goal, sides=args.sides)


def _solve(args: argparse.Namespace, tolerance: float | None = None) -> Any:
    from diceopt.games.pig import solve_pig, solved

    rules = _rules(args)
    return solved(rules) if tolerance is None else solve_pig(rules, tolerance=tolerance)


def cmd_solve(args: argparse.Namespace) -> int:
    """Solve and print P(first player wins) (or JSON)."""
    from diceopt.errors import InputError

    if args.tolerance is not None and not 0 < args.tolerance < 1:
        raise InputError(f"--tolerance must be between 0 and 1, got {args.tolerance}")
    check_plot_path(args.plot)
    t0 = time.perf_counter()
    sol = _solve(args, args.tolerance)
    seconds = time.perf_counter() - t0
    if args.plot:
        from diceopt.games.pig import plot_boundary

        write_plot(lambda: plot_boundary(sol, args.plot), args.plot)
    if args.json:
        print_json(
            {
                "game": "pig",
                "rules": sol.rules.describe(),
                "value": sol.value,
                "seconds": seconds,
                "compile_seconds": sol.compile_seconds,
                "solve_seconds": sol.solve_seconds,
                "states": sol.graph.num_states,
                "edges": sol.graph.num_edges,
                "sweeps": sol.solution.sweeps,
                "residual": sol.solution.residual,
                "plot": args.plot,
            }
        )
        return 0
    print(f"Pig: goal {sol.rules.goal}, {sol.rules.sides}-sided die, both players optimal")
    print(f"first player's win probability: {sol.value:.12f}")
    print(
        f"{sol.graph.num_states} nodes, {sol.graph.num_edges} edges; compile "
        f"{sol.compile_seconds:.2f} s, value iteration {sol.solve_seconds:.2f} s "
        f"({sol.solution.sweeps} sweeps, residual {sol.solution.residual:.1e})"
    )
    if args.plot:
        print(f"roll/hold boundary written to {args.plot}")
    return 0


def cmd_boundary(args: argparse.Namespace) -> int:
    """Print the hold-from table (own score rows, opponent score columns) or JSON."""
    import math

    from diceopt.errors import InputError

    check_plot_path(args.plot)
    t0 = time.perf_counter()
    sol = _solve(args)
    hold_from, exceptions = sol.boundary()
    seconds = time.perf_counter() - t0
    if args.plot:
        from diceopt.games.pig import plot_boundary

        write_plot(lambda: plot_boundary(sol, args.plot), args.plot)
    goal = sol.rules.goal
    if args.json:
        table = [[None if math.isnan(x) else int(x) for x in row] for row in hold_from.tolist()]
        print_json(
            {
                "game": "pig",
                "rules": sol.rules.describe(),
                "value": sol.value,
                "seconds": seconds,
                "hold_from": table,
                "exceptions": exceptions,
                "plot": args.plot,
            }
        )
        return 0
    step = args.step if args.step is not None else (BOUNDARY_STEP if goal > 20 else 1)
    if step < 1:
        raise InputError(f"--step must be at least 1, got {step}")
    scores = [s for s in range(0, goal, step) if s != 1]
    print(
        f"Pig, goal {goal}, d{sol.rules.sides}: hold once the turn total reaches the number "
        "(rows: your score, columns: opponent's score)"
    )
    print("you\\opp " + "".join(f"{o:>5}" for o in scores))
    for m in scores:
        cells = "".join(f"{int(hold_from[m, o]):>5}" for o in scores)
        print(f"{m:>7} {cells}")
    print(
        f"{exceptions} (score, score, turn total) positions above the boundary where rolling "
        "is optimal again"
    )
    if args.plot:
        print(f"boundary plot written to {args.plot}")
    return 0


def cmd_advise(args: argparse.Namespace) -> int:
    """Hold or roll in one position, with win probabilities."""
    from diceopt.games.pig import advise, parse_position

    variant = f"goal-{args.goal}-d{args.sides}"
    _rules(args)  # validates goal and sides first
    options = advise(args.position, variant)
    if args.json:
        print_json({"actions": [o.to_json() for o in options]})
        return 0
    pos = parse_position(_rules(args), args.position)
    print(f"{pos.text()} (goal {args.goal}): your win probability by action")
    for o in options:
        note = "best" if o.regret <= 1e-12 else f"loses {o.regret:.6f}"
        print(f"  {o.action:<5} {o.value:.9f}  {note}")
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    """You against the optimal player; each of your decisions is graded."""
    import numpy as np

    from diceopt.errors import InputError
    from diceopt.games.pig import HOLD, PigPosition, parse_action, play_action

    rules = _rules(args)
    print(f"Pig to {rules.goal} with a {rules.sides}-sided die: solving (a few seconds)...")
    sol = _solve(args)
    rng = np.random.default_rng(args.seed)
    human_turn = args.first == "human"
    pos = PigPosition(0, 0, 0)  # always from the mover's point of view
    lost = 0.0
    print("Type 'roll' (r) or 'hold' (h); Ctrl-D quits.")
    while True:
        if human_turn:
            print(f"\nyou {pos.me}, computer {pos.opponent}; turn total {pos.turn}")
            if pos.turn == 0:
                action = "roll"
                print("you roll (a turn starts with a roll)")
            else:
                try:
                    action = parse_action(prompt("roll or hold> "))
                except InputError as exc:
                    print(f"  {exc}", file=sys.stderr)
                    continue
                values = sol.action_values(pos.me, pos.opponent, pos.turn)
                best = max(values, key=values.get)
                cost = values[best] - values[action]
                lost += cost
                grade = "optimal" if cost <= 1e-12 else f"costs {cost:.4f} win probability"
                print(f"  {action}: {grade} (best: {best}, P(win) {values[best]:.4f})")
        else:
            values = sol.action_values(pos.me, pos.opponent, pos.turn)
            action = max(values, key=values.get) if pos.turn > 0 else "roll"
            if action == HOLD:
                print(f"computer holds at {pos.turn}")
        moved = play_action(rules, pos, action, rng)
        new, over = moved.position, moved.over
        die = moved.rolled[0] if moved.rolled else None
        who = "you" if human_turn else "computer"
        if die is not None:
            print(f"{who} rolled {die}" + (": turn total lost" if die == 1 else ""))
        if over:
            winner = "You win" if human_turn else "The computer wins"
            print(f"\n{winner} with {new.me} points against {new.opponent}.")
            print(f"Win probability lost to your decisions: {lost:.4f}")
            return 0
        if moved.passed:
            human_turn = not human_turn
            if not human_turn:
                print(f"\ncomputer's turn: computer {new.me}, you {new.opponent}")
        pos = new
