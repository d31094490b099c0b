"""The commands every game gets: ``solve``, ``advise``, ``play``, ``simulate``, ``analyse``.

Built from the game's ``GameSpec``: its rules parameters become options of every command
(``--variant`` picks a preset, the parameters set what its name leaves open; one that
contradicts the name is refused), ``solve_options`` and
``simulate_options`` extend those two commands, and ``commands()`` adds the game's own.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from typing import Any

from diceopt.cli.common import (
    RawDescriptionHelpFormatter,
    add_json_flag,
    check_output_path,
    games_count,
    print_json,
    seed_value,
    variant_name,
)
from diceopt.errors import InputError
from diceopt.games.contract import Command, GameSpec, Parameter, Report
from diceopt.record import POLICIES
from diceopt.storage import ENV_VAR

CACHE_ENV = ENV_VAR  # the cache directory override


class JoinLists(argparse.Action):
    """Store the lists parsed from each word of a ``many`` option as one list."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        """Flatten ``values`` (a list of lists) into the option's value."""
        setattr(namespace, self.dest, [x for words in values for x in words])


def argparse_type(param: Parameter) -> Any:
    """``param.parse`` with its InputError as argparse's message (what the value must be;
    never "invalid X value" naming a function)."""

    def parse(text: str) -> Any:
        try:
            return param.parse(text)
        except InputError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    parse.__name__ = param.name
    return parse


def help_text(text: str) -> str:
    """A game's text as argparse ``help``: argparse %-formats help strings, so a literal
    ``%`` (e.g. "95% interval") is doubled to print as itself. Descriptions are not
    formatted and take the text as it is."""
    return text.replace("%", "%%")


def add_parameter(parser: argparse.ArgumentParser, param: Parameter) -> None:
    """``param`` as an argparse option (a switch when ``param.flag``)."""
    if param.flag:
        parser.add_argument(
            param.option, dest=param.name, action="store_true", help=help_text(param.help)
        )
        return
    default_text = "" if param.default is None else f" (default {param.default})"
    if param.positional:
        parser.add_argument(
            param.name,
            nargs=None if param.required else "?",
            type=argparse_type(param),
            default=param.default,
            metavar=param.metavar,
            help=help_text(param.help + default_text),
        )
        return
    extra: dict[str, Any] = {"nargs": "+", "action": JoinLists} if param.many else {}
    if param.const is not None:
        extra = {"nargs": "?", "const": param.const}
    if param.repeat:  # each use appends its value: a list in the order given
        extra = {"action": "append"}
    parser.add_argument(
        param.option,
        dest=param.name,
        type=argparse_type(param),
        default=param.default,
        choices=param.choices,
        metavar=param.metavar,
        help=help_text(param.help + default_text),
        **extra,
    )
    for alias in param.aliases:  # an older spelling: the same option, not in --help
        parser.add_argument(
            alias,
            dest=param.name,
            type=argparse_type(param),
            choices=param.choices,
            default=argparse.SUPPRESS,
            help=argparse.SUPPRESS,
            **extra,
        )


def add_rules_options(parser: argparse.ArgumentParser, spec: GameSpec) -> None:
    """``--variant`` and the game's rules parameters."""
    names = ", ".join(spec.variants)
    parser.add_argument(
        "--variant",
        type=variant_name,
        help=help_text(
            f"a preset of the rules (default {next(iter(spec.variants))}; choose from {names})"
        ),
    )
    for param in spec.parameters:
        add_parameter(parser, param)


def rules_from(spec: GameSpec, args: argparse.Namespace) -> Any:
    """The validated rules of the parsed options (InputError, one line)."""
    params = {p.name: getattr(args, p.name) for p in spec.parameters}
    given = {k: v for k, v in params.items() if v is not None and v is not False}
    return spec.rules(args.variant, **given)


def options_of(params: tuple[Parameter, ...], args: argparse.Namespace) -> dict[str, Any]:
    """The parsed values of ``params`` by name."""
    return {p.name: getattr(args, p.name) for p in params}


def register_game(
    subparsers: argparse._SubParsersAction, spec: GameSpec, only: str | None = None
) -> None:
    """Add ``diceopt GAME solve|advise|play|simulate|...`` for one game.

    ``only``: the command about to run. When it is one of the game's commands, only its
    parser is built (the others would cost start-up time and not be used); else all.
    """
    parser = subparsers.add_parser(
        spec.id,
        help=help_text(spec.summary),
        description=f"{spec.summary}\n\n{spec.rules_help}".rstrip(),
        formatter_class=RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def command(name: str, text: str, handler: Any, json: bool = True) -> Any:
        p = sub.add_parser(name, help=help_text(text), description=text)
        add_rules_options(p, spec)
        p.add_argument(
            "--cache-dir",
            metavar="DIR",
            help="where solved tables are stored (default $DICEOPT_CACHE or the user cache)",
        )
        if json:
            add_json_flag(p)
        p.set_defaults(handler=lambda args: with_cache_dir(args.cache_dir, handler, spec, args))
        return p

    def solve() -> None:
        solve_p = command("solve", f"solve exactly: {spec.units} from the start", cmd_solve)
        for param in spec.solve_options:
            add_parameter(solve_p, param)

    def advise() -> None:
        advise_p = command("advise", "every legal action in a position, best first", cmd_advise)
        advise_p.add_argument(
            "position",
            help=help_text(f"text notation (e.g. '{spec.position_example}') or a JSON object"),
        )
        for param in spec.advise_options:
            add_parameter(advise_p, param)

    def play() -> None:
        play_p = command(
            "play", "play interactively; the solver grades every decision", cmd_play, json=False
        )
        play_p.add_argument("--seed", type=seed_value, default=None, help="random seed")
        play_p.add_argument(
            "--record",
            metavar="FILE",
            help="save the game as a record for analyse: every move ('POSITION => ACTION' for "
            "yours), the dice and the result",
        )
        if spec.players == 2:
            play_p.add_argument(
                "--seat", type=int, choices=(1, 2), default=1, help="your seat (1 moves first)"
            )

    def simulate() -> None:
        sim_p = command(
            "simulate", "play seeded games (the optimal policy by default)", cmd_simulate
        )
        sim_p.add_argument(
            "--games", type=games_count, help="games to play (default 10000; 1 with --record)"
        )
        sim_p.add_argument("--seed", type=seed_value, default=0, help="random seed (default 0)")
        sim_p.add_argument(
            "--record",
            metavar="FILE",
            help="save every game, moves, dice and results, as one record file for analyse "
            "(played move by move through the solver's advice: slower)",
        )
        sim_p.add_argument(
            "--policy",
            choices=POLICIES,
            default="optimal",
            help="optimal (default), or random: a legal action picked uniformly at every move "
            "(played move by move, as with --record)",
        )
        for param in spec.simulate_options:
            add_parameter(sim_p, param)

    def analyse() -> None:
        analyse_p = command(
            "analyse",
            "the cost of every decision of played games (a record file) and, with the rolls, "
            "the luck of every roll",
            cmd_analyse,
        )
        analyse_p.add_argument(
            "file",
            metavar="FILE",
            help="a record of play --record or simulate --record, or 'POSITION => ACTION' lines "
            "('-': stdin)",
        )

    def own(extra: Command) -> Callable[[], None]:
        def build() -> None:
            p = command(extra.name, extra.help, _extra_handler(extra), json=extra.json)
            for param in extra.options:
                add_parameter(p, param)

        return build

    builders = {"solve": solve, "advise": advise, "play": play, "simulate": simulate}
    builders["analyse"] = analyse
    builders.update((extra.name, own(extra)) for extra in spec.commands())
    for name, build in builders.items():
        if only not in builders or name == only:
            build()


def with_cache_dir(directory: str | None, handler: Any, *args: Any) -> int:
    """Run ``handler(*args)`` with tables stored in ``directory`` (None: the default)."""
    if directory is None:
        return handler(*args)
    before = os.environ.get(CACHE_ENV)
    os.environ[CACHE_ENV] = directory
    try:
        return handler(*args)
    finally:
        if before is None:
            del os.environ[CACHE_ENV]
        else:
            os.environ[CACHE_ENV] = before


def _extra_handler(extra: Command) -> Any:
    def handler(spec: GameSpec, args: argparse.Namespace) -> int:
        output = extra.run(rules_from(spec, args), args)
        if extra.json and args.json:
            print_json(output.data)
            return 0
        for line in output.lines:
            print(line)
        return 0

    return handler


def cmd_solve(spec: GameSpec, args: argparse.Namespace) -> int:
    """Solve the rules; print the report (or one JSON object with value and seconds)."""
    rules = rules_from(spec, args)
    t0 = time.perf_counter()
    report = spec.solve(rules, **options_of(spec.solve_options, args))
    seconds = time.perf_counter() - t0
    if args.json:
        data = {"game": spec.id, "rules": spec.describe(rules), "value": report.value}
        print_json({**data, "seconds": seconds, "units": spec.units_of(rules), **report.data})
        return 0
    for line in report.lines:
        print(line)
    print(f"optimal value from the start: {report.value:.9f} ({spec.units_of(rules)})")
    print(f"{seconds:.3f} s")
    return 0


def cmd_advise(spec: GameSpec, args: argparse.Namespace) -> int:
    """Every legal action of a position with value and regret, best first."""
    rules = rules_from(spec, args)
    pos = spec.parse(rules, args.position)
    advice = spec.advise(rules, pos, **options_of(spec.advise_options, args))
    if args.json:
        print_json({"position": spec.format(rules, pos), **advice.to_json()})
        return 0
    print(f"{spec.format(rules, pos)}")
    print(f"values: {advice.value_is}")
    width = max(len(a.action) for a in advice.actions)
    for a in advice.actions:
        note = "best" if a.regret <= 1e-12 else f"loses {a.regret:.6f}"
        also = "" if a.expected is None else f"  (expected {a.expected:.4f})"
        print(f"  {a.action:<{width}}  {a.value:14.9f}  {note}{also}")
    for line in getattr(advice, "notes", ()):  # e.g. a table's best moves compared
        print(line)
    return 0


def cmd_play(spec: GameSpec, args: argparse.Namespace) -> int:
    """The interactive game loop (shared by every game)."""
    from diceopt.cli.play import play

    rules = rules_from(spec, args)
    seat = getattr(args, "seat", 1) - 1
    return play(spec, rules, seed=args.seed, seat=seat, record=args.record)


def cmd_analyse(spec: GameSpec, args: argparse.Namespace) -> int:
    """Grade every decision of a record: per-decision cost, total, mean, by kind, worst."""
    from diceopt.analyse import analyse_record
    from diceopt.cli.streams import read_stdin

    rules = rules_from(spec, args)
    if args.file == "-":
        text, name = read_stdin("analyse -"), "stdin"
    else:
        try:
            with open(args.file, encoding="utf-8") as fh:
                text = fh.read()
        except (OSError, UnicodeDecodeError) as exc:
            reason = getattr(exc, "strerror", None) or exc
            raise InputError(f"cannot read {args.file}: {reason}") from None
        name = args.file
    analysis = analyse_record(spec, rules, text, name)
    if args.json:
        print_json({"game": spec.id, "rules": spec.describe(rules), **analysis.to_json()})
        return 0
    print(f"{spec.title}: {name}")
    for line in analysis.lines():
        print(line)
    return 0


def cmd_simulate(spec: GameSpec, args: argparse.Namespace) -> int:
    """Play seeded games (the optimal policy: the game's simulator; ``--record`` or
    ``--policy random``: move by move through the contract); compare with the exact value."""
    import numpy as np

    rules = rules_from(spec, args)
    generic = args.record is not None or args.policy != "optimal"
    games = args.games or (1 if args.record is not None else 10_000)
    t0 = time.perf_counter()
    if generic:
        report = simulate_recorded(spec, rules, args, games)
    else:
        report = spec.simulate(
            rules,
            games,
            np.random.default_rng(args.seed),
            **options_of(spec.simulate_options, args),
        )
    seconds = time.perf_counter() - t0
    if args.json:
        data = {"game": spec.id, "seed": args.seed, "policy": args.policy, **report.data}
        print_json({**data, "seconds": seconds})
        return 0
    print(f"{spec.title}, seed {args.seed}:")
    for line in report.lines:
        print(f"  {line}")
    print(f"  {seconds:.3f} s")
    return 0


def simulate_recorded(spec: GameSpec, rules: Any, args: argparse.Namespace, games: int) -> Report:
    """``simulate --record``/``--policy``: whole games through ``advise``/``apply``, the
    record saved when asked (InputError, one line, when it cannot be)."""
    import numpy as np

    from diceopt import record

    for param in spec.simulate_options:
        if getattr(args, param.name) not in (None, False, param.default):
            raise InputError(f"{param.option} cannot be combined with --record or --policy random")
    if args.record is not None:
        check_output_path(args.record, "--record")
    what = f"{games} game{'s' if games > 1 else ''}, seed {args.seed}, policy {args.policy}"
    outcomes, lines = record.play_games(
        spec, rules, games, np.random.default_rng(args.seed), args.policy
    )
    report = spec.simulation_report(outcomes, spec.solve(rules).value, policy=args.policy)
    report.data["record"] = args.record
    if args.record is not None:
        record.save_record(args.record, [*record.header_lines(spec, rules, what), *lines])
        report.lines.append(f"record of {what} saved to {args.record}")
    return report
