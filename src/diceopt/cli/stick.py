"""``diceopt stick``: solve, simulate and play stick or reroll."""

from __future__ import annotations

import argparse
import sys
import time

from diceopt.cli.common import (
    add_json_flag,
    games_count,
    number_list,
    print_json,
    prompt,
    seed_value,
)


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``stick solve|simulate|play``."""
    parser = subparsers.add_parser("stick", help="stick or reroll (the course dice game)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def rules_args(p: argparse.ArgumentParser) -> None:
        p.add_argument("--dice", type=int, default=3, help="number of dice (default 3)")
        p.add_argument("--sides", type=int, default=6, help="sides per die (default 6)")
        p.add_argument("--values", type=number_list, help="face values, e.g. 1,2,3,4,5,6")
        p.add_argument("--bias", type=number_list, help="face probabilities summing to 1")
        p.add_argument("--penalty", type=float, default=1.0, help="points per reroll (default 1)")

    solve_p = sub.add_parser("solve", help="optimal policy, value of every roll, expectation")
    rules_args(solve_p)
    solve_p.add_argument("--table", action="store_true", help="print every roll, however many")
    add_json_flag(solve_p)
    solve_p.set_defaults(handler=cmd_solve)

    sim_p = sub.add_parser("simulate", help="play N seeded games with the optimal policy")
    rules_args(sim_p)
    sim_p.add_argument(
        "--games", type=games_count, default=10_000, help="games to play (default 10000)"
    )
    sim_p.add_argument("--seed", type=seed_value, default=0, help="random seed (default 0)")
    add_json_flag(sim_p)
    sim_p.set_defaults(handler=cmd_simulate)

    play_p = sub.add_parser("play", help="interactive: you choose, the solver grades each move")
    rules_args(play_p)
    play_p.add_argument("--seed", type=seed_value, default=None, help="random seed")
    play_p.set_defaults(handler=cmd_play)


def _rules(args: argparse.Namespace):  # returns StickRules (imported lazily)
    from diceopt.games.stick import StickRules

    return StickRules(
        dice=args.dice,
        sides=args.sides,
        values=tuple(args.values) if args.values else None,
        bias=tuple(args.bias) if args.bias else None,
        penalty=args.penalty,
    )


TABLE_LIMIT = 500


class _GraphProgress:
    """Graph building progress on stderr (large games take seconds)."""

    def __init__(self) -> None:
        self.shown = False

    def __call__(self, nodes: int) -> None:
        print(f"\rbuilding the game graph: {nodes:,} nodes", end="", file=sys.stderr, flush=True)
        self.shown = True

    def done(self) -> None:
        if self.shown:
            print(file=sys.stderr)


def cmd_solve(args: argparse.Namespace) -> int:
    """Solve and print the table of rolls (or JSON)."""
    from diceopt.games.stick import format_value, solve_stick

    rules = _rules(args)
    t0 = time.perf_counter()
    progress = _GraphProgress()
    sol = solve_stick(rules, progress)
    seconds = time.perf_counter() - t0
    progress.done()
    rows = sol.table()
    if args.json:
        print_json(
            {
                "game": "stick",
                "rules": rules.describe(),
                "value": sol.value,
                "seconds": seconds,
                "states": sol.graph.num_states,
                "rolls": len(rows),
                "sweeps": sol.solution.sweeps,
                "policy": rows if len(rows) <= TABLE_LIMIT or args.table else None,
            }
        )
        return 0
    if len(rows) <= TABLE_LIMIT or args.table:
        print(f"{'dice':<24} {'action':<28} {'value':>12} {'stick':>8}")
        for row in rows:
            dice = " ".join(format_value(v) for v in row["dice"])
            hold = " ".join(format_value(v) for v in row["hold"]) or "-"
            action = "stick" if row["action"] == "stick" else f"hold {hold}"
            print(f"{dice:<24} {action:<28} {row['value']:>12.6f} {row['stick_score']:>8g}")
    else:
        print(f"({len(rows)} rolls; pass --table to print them all)")
    print(
        f"{rules.dice} dice x {rules.sides} sides, penalty {rules.penalty:g}: "
        f"{len(rows)} rolls, {sol.graph.num_states} nodes in the game graph"
    )
    print(f"expected score from the first roll: {sol.value:.9f}")
    print(f"solved in {seconds:.3f} s ({sol.solution.sweeps} value-iteration sweeps)")
    return 0


def cmd_simulate(args: argparse.Namespace) -> int:
    """Simulate optimal play and compare with the exact expectation."""
    import numpy as np

    from diceopt.games.stick import play_games, solve_stick

    rules = _rules(args)
    t0 = time.perf_counter()
    sol = solve_stick(rules)
    scores = play_games(sol, args.games, np.random.default_rng(args.seed))
    seconds = time.perf_counter() - t0
    std_error = float(scores.std(ddof=1) / np.sqrt(len(scores))) if len(scores) > 1 else 0.0
    result = {
        "games": int(args.games),
        "seed": args.seed,
        "mean": float(scores.mean()),
        "std_error": std_error,
        "min": float(scores.min()),
        "max": float(scores.max()),
        "exact": sol.value,
        "seconds": seconds,
    }
    if args.json:
        print_json(result)
        return 0
    print(f"{args.games} games, seed {args.seed}:")
    print(f"  mean {result['mean']:.4f} +- {std_error:.4f} (standard error)")
    print(f"  min {result['min']:g}, max {result['max']:g}")
    print(f"  exact expectation {sol.value:.9f}")
    print(f"  {seconds:.3f} s (solve and simulate)")
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    """Interactive game: type the dice to hold; the solver shows the best move and your cost."""
    import numpy as np

    from diceopt.errors import InputError
    from diceopt.games.stick import (
        format_hold,
        format_position,
        format_value,
        parse_hold,
        reroll,
        solve_stick,
    )

    rules = _rules(args)
    sol = solve_stick(rules)
    rng = np.random.default_rng(args.seed)
    roll = reroll(rules, np.zeros(rules.sides, dtype=np.int64), rng)
    points, total_cost = 0.0, 0.0
    print(f"Stick or reroll: {rules.dice} dice, penalty {rules.penalty:g} per reroll.")
    print("Type the face values to hold (e.g. '3 3'), 'stick' (or 'all'), or '-' for none.")
    print(f"Optimal expected score from the first roll: {sol.value:.4f}")
    while True:
        print(f"\n{format_position(rules, roll)}   (points so far {points:g})")
        try:
            held = parse_hold(rules, roll, prompt("hold> "))
        except InputError as exc:
            print(f"  {exc}", file=sys.stderr)
            continue
        best = sol.best_hold(roll)
        cost = sol.roll_value(roll) - sol.hold_value(roll, held)
        total_cost += max(0.0, cost)
        verdict = "optimal" if cost <= 1e-9 else f"costs {cost:.4f} points in expectation"
        print(f"  you: {format_hold(rules, roll, held)}; best: {format_hold(rules, roll, best)}")
        print(f"  {verdict}")
        if (held == roll).all():
            points += rules.score(roll)
            shown = " ".join(format_value(v) for v in rules.values_of(roll))
            print(f"\nStick with {shown}: final score {points:g}.")
            print(f"Expected points lost to your decisions: {total_cost:.4f}")
            return 0
        points -= rules.penalty
        roll = reroll(rules, held, rng)
