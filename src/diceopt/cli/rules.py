"""``diceopt rules check FILE`` and ``diceopt rules list``: Yatzy-family rule files."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from diceopt.cli.common import add_json_flag, print_json


def register(subparsers: Any) -> None:
    """Add ``rules check FILE [--json]`` and ``rules list [--json]``."""
    parser = subparsers.add_parser(
        "rules",
        help="check a Yatzy-family rule file (TOML) or list the shipped ones",
        description="Yatzy-family rule files: check one, or list the shipped ones.",
    )
    sub = parser.add_subparsers(dest="rules_command", metavar="COMMAND", required=True)
    check = sub.add_parser(
        "check",
        help="one line per problem (exit status 2), else the state count, memory and time",
        description=(
            "Check a rule file: print one line per problem (an unknown key or category "
            "kind, 0 dice, a negative score, a bonus no sheet can reach, a state space too "
            "large for this machine) and exit with status 2; otherwise print the number of "
            "states and the estimated memory and solve time."
        ),
    )
    check.add_argument("file", metavar="FILE", help="a path, or a shipped file's name (yacht)")
    add_json_flag(check)
    check.set_defaults(handler=cmd_check)
    listing = sub.add_parser("list", help="the shipped rule files")
    add_json_flag(listing)
    listing.set_defaults(handler=cmd_list)


def _bytes(n: float) -> str:
    """A size in words: ``8.4 MB``, ``1.3 GB``."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{int(n)} bytes"


def _seconds(s: float) -> str:
    """A duration in words, rounded: ``0.3 s``, ``about 2 minutes``."""
    if s < 60:
        return f"{s:.1g} s" if s < 1 else f"{s:.0f} s"
    if s < 3600:
        return f"{s / 60:.0f} minute" + ("s" if round(s / 60) != 1 else "")
    return f"{s / 3600:.1f} hours"


def cmd_check(args: argparse.Namespace) -> int:
    """``rules check``: problems (exit 2) or the size of the solve."""
    from diceopt.games.families.category import check_file

    rules, problems, size = check_file(args.file)
    if args.json:
        out: dict[str, Any] = {"file": args.file, "ok": not problems, "problems": problems}
        if rules is not None:
            out |= {
                "name": rules.name,
                "key": rules.storage_key,
                "categories": rules.num_categories,
            }
            out |= size
        print_json(out)
    else:
        for line in problems:
            print(f"diceopt: error: {args.file}: {line}", file=sys.stderr)
        if not problems and rules is not None:
            saved = " (saved rerolls: table values)" if rules.saved_rerolls else ""
            print(
                f"{rules.name}: {rules.num_categories} categories, {rules.dice} dice of "
                f"{rules.sides} sides; {size['states']:,} states{saved}; table "
                f"{_bytes(size['table_bytes'])} (float32), about "
                f"{_bytes(size['memory_bytes'])} of memory to solve; solve time about "
                f"{_seconds(size['seconds'])} (one core, rough estimate)"
            )
    return 2 if problems else 0


def cmd_list(args: argparse.Namespace) -> int:
    """``rules list``: the shipped rule files and their descriptions."""
    from diceopt.games.families.category import describe_file, shipped_names

    names = shipped_names()
    if args.json:
        print_json({"rules": {n: describe_file(n) for n in names}})
    else:
        width = max(map(len, names))
        for n in names:
            print(f"{n:<{width}}  {describe_file(n)}")
    return 0
