"""``diceopt evaluate GAME --agent module:callable``: an agent's loss against optimal play."""

from __future__ import annotations

import argparse
from typing import Any

from diceopt.cli.common import add_json_flag, games_count, print_json, seed_value, variant_name
from diceopt.errors import InputError


def register(subparsers: Any) -> None:
    """Add ``evaluate GAME --agent M:F [--games N] [--seed S] [--variant V] [--rule K=V]``."""
    parser = subparsers.add_parser(
        "evaluate",
        help="an agent's mean result and expected loss against optimal play",
        description=(
            "Play seeded games with an agent (a callable agent(spec, rules, position, "
            "legal_actions) -> action text, or an object with .act) and report its mean "
            "result, the optimal value and its expected loss (mean summed regret per game, "
            "95% interval); small games are also evaluated exactly."
        ),
    )
    parser.add_argument("game_id", metavar="GAME", help="a registered game id, e.g. stick")
    parser.add_argument("--agent", required=True, metavar="MODULE:CALLABLE", help="the agent")
    parser.add_argument("--games", type=games_count, default=1000, help="games (default 1000)")
    parser.add_argument("--seed", type=seed_value, help="random seed (default: fresh)")
    parser.add_argument("--variant", type=variant_name, help="a preset of the game's rules")
    parser.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a rules parameter, e.g. --rule dice=2 --rule sides=3 (repeatable)",
    )
    parser.add_argument("--seat", type=int, choices=(1, 2), default=1, help="two players: 1 or 2")
    parser.add_argument(
        "--no-exact", action="store_true", help="skip the exact evaluation of small games"
    )
    add_json_flag(parser)
    parser.set_defaults(handler=cmd_evaluate)


def rules_params(spec: Any, words: list[str]) -> dict[str, Any]:
    """``NAME=VALUE`` words as the game's rules parameters (parsed by their types)."""
    by_name = {p.name: p for p in spec.parameters}
    out: dict[str, Any] = {}
    for word in words:
        name, sep, text = word.partition("=")
        key = name.strip().lstrip("-").replace("-", "_")
        if not sep or key not in by_name:
            known = ", ".join(by_name) or "none"
            raise InputError(f"--rule {word!r}: use NAME=VALUE with NAME one of: {known}")
        param = by_name[key]
        try:
            value = True if param.flag else param.parse(text)
        except InputError as exc:
            raise InputError(f"--rule {word!r}: {exc}") from None
        if param.choices is not None and value not in param.choices:
            raise InputError(f"--rule {word!r}: choose from {', '.join(map(str, param.choices))}")
        out[key] = value
    return out


def cmd_evaluate(args: argparse.Namespace) -> int:
    """Run the evaluation and print it (text or one JSON object); returns 0."""
    from diceopt.evaluate import evaluate, load_agent
    from diceopt.games.registry import get_game

    spec = get_game(args.game_id)
    params = rules_params(spec, args.rule)
    agent = load_agent(args.agent)
    result = evaluate(
        agent,
        spec,
        games=args.games,
        seed=args.seed,
        variant=args.variant,
        seat=args.seat,
        exact=False if args.no_exact else None,
        **params,
    )
    if args.json:
        print_json(result.to_json())
    else:
        for line in result.lines:
            print(line)
    return 0
