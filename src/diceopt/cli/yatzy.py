"""``diceopt yatzy``: solve Yatzy/Yahtzee exactly and advise on any position."""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable

from diceopt.cli.common import add_json_flag, print_json
from diceopt.errors import InputError


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``yatzy`` with its ``solve`` and ``advise`` subcommands."""
    from diceopt.games.yatzy.rules import DEFAULT_VARIANT, VARIANTS

    variants = ", ".join(VARIANTS)
    parser = subparsers.add_parser(
        "yatzy",
        help="Yatzy / Yahtzee: exact solver and advice",
        description=f"Yatzy and Yahtzee (variants: {variants}).",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--variant", default=DEFAULT_VARIANT, help=f"rules variant (default {DEFAULT_VARIANT})"
        )
        p.add_argument(
            "--cache-dir",
            default=None,
            help="table directory (default $DICEOPT_CACHE or user cache)",
        )
        add_json_flag(p)

    solve = sub.add_parser("solve", help="solve a variant (or load its cached table)")
    common(solve)
    solve.add_argument("--theta", type=float, default=0.0, help="exponential utility (0: mean)")
    solve.add_argument("--dtype", choices=("float32", "float64"), default="float32")
    solve.add_argument("--force", action="store_true", help="solve even if a table is cached")
    solve.set_defaults(handler=cmd_solve)

    advise = sub.add_parser("advise", help="value of every legal action in a position")
    advise.add_argument(
        "position", help="e.g. 'dice 1 3 3 5 6 | rerolls 2 | filled ones twos | upper 3 | score 5'"
    )
    common(advise)
    advise.set_defaults(handler=cmd_advise)


def _check_variant(variant: str) -> None:
    from diceopt.games.yatzy.rules import get_rules

    get_rules(variant)


def cmd_solve(args: argparse.Namespace) -> int:
    """Solve (or load) a table; print its value and timings.

    JSON: ``seconds`` is the solve alone (numba compile excluded, reported as
    ``compile_seconds``); when the table was loaded from the cache instead, ``loaded`` is
    true, ``seconds`` is the load time and ``solve_seconds`` the original solve's time.
    """
    from diceopt.games.yatzy import progress_bar
    from diceopt.games.yatzy.kernel import warm_up
    from diceopt.games.yatzy.storage import get_table, load_table, table_path

    _check_variant(args.variant)
    if not math.isfinite(args.theta) or abs(args.theta) > 1:
        raise InputError(f"theta must be between -1 and 1, got {args.theta}")
    path = table_path(args.variant, args.theta, args.dtype, args.cache_dir)
    loaded = (
        None if args.force else load_table(args.variant, args.theta, args.dtype, args.cache_dir)
    )
    compile_seconds = 0.0
    if loaded is not None:
        table, seconds = loaded
    else:
        compile_seconds = warm_up(args.dtype)
        bar = progress_bar(f"solving {args.variant}")
        table, info = get_table(
            args.variant, args.theta, args.dtype, args.cache_dir, force=True, progress=bar
        )
        seconds = info.seconds
    if args.json:
        print_json(
            {
                "variant": args.variant,
                "theta": args.theta,
                "dtype": args.dtype,
                "value": table.value,
                "seconds": seconds,
                "compile_seconds": compile_seconds,
                "solve_seconds": table.seconds,
                "states": table.states,
                "loaded": loaded is not None,
                "path": str(path),
            }
        )
        return 0
    what = "expected final score" if args.theta == 0 else "certainty equivalent"
    print(f"{args.variant}: optimal {what} {table.value:.6f} points")
    if loaded is not None:
        print(f"loaded {path} in {seconds * 1000:.1f} ms (solved in {table.seconds:.2f} s)")
    else:
        print(
            f"solved {table.states:,} states in {seconds:.2f} s "
            f"(numba compile {compile_seconds:.2f} s); saved to {path}"
        )
    return 0


def cmd_advise(args: argparse.Namespace) -> int:
    """Print every legal action of a position with its value and regret, best first."""
    from diceopt.games.yatzy.advice import advise_position, format_position, parse_position
    from diceopt.games.yatzy.rules import get_rules
    from diceopt.games.yatzy.storage import get_table

    rules = get_rules(args.variant)
    pos = parse_position(args.position, rules)  # bad input fails before any solve
    if pos.over(rules):
        raise InputError("the game is over: every category is filled")
    progress = None if args.json else _maybe_progress(args.variant)
    table, _ = get_table(args.variant, 0.0, "float32", args.cache_dir, progress=progress)
    actions = advise_position(pos, rules, table)
    if args.json:
        print_json(
            {
                "position": format_position(pos, rules),
                "variant": args.variant,
                "actions": [a.to_json() for a in actions],
            }
        )
        return 0
    print(format_position(pos, rules))
    print(f"{'action':<24} {'expected final score':>20} {'regret':>9}")
    for a in actions:
        print(f"{a.action:<24} {a.value:20.4f} {a.regret:9.4f}")
    return 0


def _maybe_progress(variant: str) -> Callable[[int, int], None] | None:
    from diceopt.games.yatzy import progress_bar

    return progress_bar(f"solving {variant} (first use)") if sys.stderr.isatty() else None
