"""``diceopt rules check FILE`` and ``diceopt rules list``: rule files of every family.

A rule file names its family (``family = "push-luck"``; none: the Yatzy family); the
family's module checks it (:mod:`diceopt.games.families`): one line per problem and exit
status 2, or the state count and the estimated memory and solve time.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from diceopt.cli.common import add_json_flag, print_json
from diceopt.errors import InputError, one_line
from diceopt.memory import size_words


def register(subparsers: Any) -> None:
    """Add ``rules check FILE [--json]`` and ``rules list [--json]``."""
    parser = subparsers.add_parser(
        "rules",
        help="check a rule file (TOML) or list the shipped ones",
        description="Rule files (Yatzy family, push-your-luck family): check one, or list "
        "the shipped ones.",
    )
    sub = parser.add_subparsers(dest="rules_command", metavar="COMMAND", required=True)
    check = sub.add_parser(
        "check",
        help="one line per problem (exit status 2), else the state count, memory and time",
        description=(
            "Check a rule file: print one line per problem (an unknown key, category or "
            "combination kind, 0 dice, a negative score, a bonus no sheet can reach, a "
            "state space too large for this machine) and exit with status 2; otherwise "
            "print the number of states and the estimated memory and solve time."
        ),
    )
    check.add_argument(
        "file", metavar="FILE", help="a path, or a shipped file's name (yacht, zilch)"
    )
    add_json_flag(check)
    check.set_defaults(handler=cmd_check)
    listing = sub.add_parser("list", help="the shipped rule files")
    add_json_flag(listing)
    listing.set_defaults(handler=cmd_list)


def seconds_words(s: float) -> str:
    """A duration (seconds) in words, rounded: ``0.3 s``, ``2 minutes``."""
    if s < 60:
        return f"{s:.1g} s" if s < 1 else f"{s:.0f} s"
    if s < 3600:
        return f"{s / 60:.0f} minute" + ("s" if round(s / 60) != 1 else "")
    return f"{s / 3600:.1f} hours"


def check_category(source: str) -> tuple[list[str], dict[str, Any], str]:
    """A Yatzy-family file: (problems, JSON data, the summary line)."""
    from diceopt.games.yatzy.commands.rule_check import check_file

    rules, problems, size = check_file(source)
    if rules is None or problems:
        return problems, {}, ""
    data = {"name": rules.name, "key": rules.storage_key, "categories": rules.num_categories}
    data["game"] = game_of(source)
    saved = " (saved rerolls: table values)" if rules.saved_rerolls else ""
    line = (
        f"{rules.name}: {rules.num_categories} categories, {rules.dice} dice of "
        f"{rules.sides} sides; {size['states']:,} states{saved}; table "
        f"{size_words(size['table_bytes'])} (float32), about "
        f"{size_words(size['memory_bytes'])} of memory to solve; solve time about "
        f"{seconds_words(size['seconds'])} (one core, rough estimate)"
    )
    return [], data | size, line


def check_push_luck(source: str) -> tuple[list[str], dict[str, Any], str]:
    """A push-your-luck file: (problems, JSON data, the summary line)."""
    from diceopt.games.families import push_luck

    problems = push_luck.check_file(source)
    if problems:
        return problems, {}, ""
    rules = push_luck.load_rules(source)
    line = push_luck.size_line(source)
    game = game_of(source)
    data = {"name": rules.name, "players": rules.players, "game": game}
    use = f"play it with diceopt {game} COMMAND --rules {source}" if game else "no game takes it"
    return [], data, f"{rules.name}: {line}; {use}"


def game_of(source: str) -> str | None:
    """The registered game whose commands take the rule file ``source`` (``--rules``),
    found by asking each game with a rules parameter (its rules are read, not solved);
    None: no game takes it."""
    from diceopt.games.registry import games

    for game_id, spec in sorted(games().items()):
        if any(p.name == "rules" for p in spec.parameters):
            try:
                spec.rules(None, rules=source)
            except InputError:
                continue
            return game_id
    return None


CHECKS = {"category": check_category, "push-luck": check_push_luck}


def cmd_check(args: argparse.Namespace) -> int:
    """``rules check``: problems (stderr, exit 2) or the size of the solve (exit 0)."""
    from diceopt.games.families import family_of

    family: str | None = None
    data: dict[str, Any] = {}
    line = ""
    try:
        family = family_of(args.file)
    except InputError as exc:
        problems = [str(exc)]
    else:
        problems, data, line = CHECKS[family](args.file)
    if args.json:
        print_json({"file": args.file, "family": family, "ok": not problems,
                    "problems": problems} | data)  # fmt: skip
    else:
        for problem in problems:
            line = one_line(problem.removeprefix(f"rule file {args.file}: "))
            print(f"diceopt: error: {args.file}: {line}", file=sys.stderr)
        if not problems:
            print(line)
    return 2 if problems else 0


def cmd_list(args: argparse.Namespace) -> int:
    """``rules list``: the shipped rule files, their family and description."""
    import tomllib

    from diceopt.games.families import SHIPPED_DIR, shipped_family, shipped_names

    rows = {}
    for name in shipped_names():
        path = SHIPPED_DIR / f"{name}.toml"
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        words = data.get("description") or data.get("title") or ""
        rows[name] = {"family": shipped_family(path), "description": str(words)}
    if args.json:
        print_json({"rules": rows})
    else:
        width = max(map(len, rows))
        for name, row in rows.items():
            print(f"{name:<{width}}  {row['family']:<9}  {row['description']}")
    return 0
