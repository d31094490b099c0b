"""``diceopt rules check FILE``: check a rule file of any rule family, one line per problem.

A rule file names its family (``family = "push-luck"``); the family's module checks it
(``check_file(path) -> list[str]``, one line per problem) and sizes it
(``size_line(path) -> str``: states, estimated memory and time).
"""

from __future__ import annotations

import argparse
import os
import sys
import tomllib
from importlib import import_module
from typing import Any

FAMILIES = {  # a rule file's family -> the module that checks it
    "push-luck": "diceopt.games.families.push_luck",
}


def register(subparsers: Any) -> None:
    """Add ``rules check FILE``."""
    parser = subparsers.add_parser("rules", help="rule files: check one")
    sub = parser.add_subparsers(dest="rules_command", metavar="COMMAND", required=True)
    check = sub.add_parser(
        "check",
        help="check a rule file: one line per problem (exit 2), else its size",
        description=(
            "Check a rule file of a rule family (family = "
            + ", ".join(f'"{f}"' for f in FAMILIES)
            + "): every problem on one line each and exit status 2, or the state count "
            "and the estimated memory and time of a solve."
        ),
    )
    check.add_argument(
        "file", metavar="FILE", help="the rule file (TOML), or a shipped one's name (zilch)"
    )
    check.set_defaults(handler=cmd_check)


def shipped(name: str) -> str | None:
    """The path of a rule file shipped with diceopt (``games/rules/NAME.toml``), or None."""
    from importlib import resources

    if not name.replace("-", "").replace("_", "").isalnum():
        return None
    path = resources.files("diceopt.games").joinpath(f"rules/{name}.toml")
    return str(path) if path.is_file() else None


def family_module(path: str) -> tuple[Any, list[str]]:
    """The family module of a rule file, or None with the problem (one line)."""
    try:
        with open(path, "rb") as handle:
            data = tomllib.load(handle)
    except FileNotFoundError:
        return None, [f"{path}: no such file (nor a shipped rule file of that name)"]
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        return None, [f"{path}: cannot read it as TOML: {exc}"]
    family = data.get("family")
    if family not in FAMILIES:
        known = ", ".join(f'"{f}"' for f in FAMILIES)
        return None, [f"{path}: family must be one of {known}, got {family!r}"]
    return import_module(FAMILIES[family]), []


def cmd_check(args: argparse.Namespace) -> int:
    """Print each problem of the file (stderr, exit 2) or its size line (stdout, exit 0)."""
    path = args.file if os.path.exists(args.file) else shipped(args.file) or args.file
    module, problems = family_module(path)
    if module is not None:
        problems = [f"{args.file}: {p}" for p in module.check_file(path)]
    if problems:
        for line in problems:
            print(line, file=sys.stderr)
        return 2
    print(f"{args.file}: ok; {module.size_line(path)}")
    return 0
