"""The Yatzy game's own commands (``diceopt yatzy sweep|export|duel|distribution|targets``).

Role: their options (:class:`~diceopt.games.contract.Parameter` tuples), the checks every
command shares (no ``--theta`` where it does not apply, no saved-rerolls variant where a
command does not support it) and :func:`yatzy_commands`, the ``Command`` entries
``SPEC.commands`` returns; each runner imports its module (numba) only when run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from diceopt.errors import InputError
from diceopt.games.contract import Command, CommandOutput, Parameter
from diceopt.notation import parse_number
from diceopt.options import games_count, seed_value

if TYPE_CHECKING:  # the kernel imports numba: only loaded when a table is needed
    pass
from diceopt.games.yatzy.stored.store import YatzyConfig


def no_theta(args: Any, what: str, instead: str) -> None:
    """InputError when ``--theta`` was given to a command that does not use it."""
    if getattr(args, "theta", None) is not None:
        raise InputError(f"{what} does not use --theta: {instead}")


def no_saved_rerolls(config: YatzyConfig, what: str) -> None:
    """InputError: ``what`` is not available for a saved-rerolls variant."""
    if config.rules.saved_rerolls:
        raise InputError(
            f"{what} is not available for {config.variant} (saved rerolls): solve and advise are"
        )


def ray_option(what: str) -> Parameter:
    """``--ray [HOST:PORT]``: ``what`` on Ray (alone: a local 2-CPU instance; with an
    address, that cluster; needs the cluster extra)."""
    return Parameter(
        "ray",
        f"{what}: alone, on a local 2-CPU Ray instance; with HOST:PORT, on that cluster "
        "(needs the cluster extra)",
        const="local",
        metavar="ADDRESS",
    )


SWEEP_OPTIONS = (
    Parameter(
        "thetas",
        "exponential-utility parameters, commas or spaces",
        default="-0.1,-0.05,0,0.05,0.1",
    ),
    Parameter("plot", "write the mean/std frontier (png, svg or pdf)", metavar="FILE"),
    ray_option("solve the tables as Ray tasks"),
)


def probability(text: str) -> float:
    """A probability 0 to 1 (option text, a fraction such as 1/10 too); InputError naming
    the range."""
    value = parse_number(text)
    if not 0.0 <= value <= 1.0:
        raise InputError(f"a probability must be 0 to 1, got {text}")
    return value


EXPORT_OPTIONS = (
    Parameter("rows", "situations to write (one row each)", default=100_000, type=games_count),
    Parameter(
        "from",
        "who plays the games: optimal, random (uniform legal), perturbed (random with "
        "probability --eps, else optimal)",
        default="optimal",
        choices=("optimal", "random", "perturbed"),
    ),
    Parameter("seed", "random seed", default=0, type=seed_value),
    Parameter(
        "format",
        "file format (default: parquet for .parquet/.pq names, else jsonl)",
        choices=("parquet", "jsonl"),
        type=str.lower,
    ),
    Parameter(
        "eps",
        "the perturbed player's probability of a random action (default 0.1; only with "
        "--from perturbed)",
        type=probability,
    ),
    Parameter("out", "the file to write", metavar="OUT", positional=True, required=True),
)


DUEL_OPTIONS = (
    Parameter("games", "games to play", default=10_000, type=games_count),
    Parameter("seed", "random seed", default=0, type=seed_value),
    Parameter("first", "the first-named strategy: expected, win or theta:T", default="win"),
    Parameter("second", "the second-named strategy", default="expected"),
)


DISTRIBUTION_OPTIONS = (
    Parameter(
        "position",
        "a position (text or JSON); default: the start of the game",
        positional=True,
        metavar="POSITION",
    ),
    Parameter("plot", "write the distribution (png, svg or pdf)", metavar="FILE"),
    Parameter("force", "compute it even where stored rows hold it", flag=True),
)


TARGETS_OPTIONS = (
    Parameter("force", "build even if the table is stored", flag=True),
    ray_option("build it layer by layer, each layer's states in Ray tasks"),
)


Run = Callable[[YatzyConfig, Any], CommandOutput]


def _sweep() -> Run:
    from diceopt.games.yatzy.commands.sweep import run_sweep

    return run_sweep


def _export() -> Run:
    from diceopt.games.yatzy.commands.export import run_export

    return run_export


def _duel() -> Run:
    from diceopt.games.yatzy.winning.duel import run_duel

    return run_duel


def _distribution() -> Run:
    from diceopt.games.yatzy.analyses.distribution import run_distribution
    from diceopt.games.yatzy.commands.requests import check_distribution_memory

    def run(config: YatzyConfig, args: Any) -> CommandOutput:
        check_distribution_memory(config, args.position)  # before the table is solved
        return run_distribution(config, args)

    return run


def _targets() -> Run:
    from diceopt.games.yatzy.commands.targets_command import run_targets

    return run_targets


def runner(load: Callable[[], Run], what: str, theta: str | None = None) -> Run:
    """The run of command ``what``: the checks it shares with the others (no saved-rerolls
    variant; with ``theta``, no ``--theta`` either: the error says to do ``theta``
    instead), then the run that ``load`` imports only now (numba)."""

    def run(config: YatzyConfig, args: Any) -> CommandOutput:
        no_saved_rerolls(config, what)
        if theta is not None:
            no_theta(args, what, theta)
        return load()(config, args)

    return run


def yatzy_commands() -> tuple[Command, ...]:
    """``sweep``: score distributions across theta; ``distribution``: the exact one;
    ``export``: a dataset of situations; ``targets``: the stored target table."""

    return (
        Command(
            "sweep",
            "risk-sensitive play: the score distribution for several theta",
            runner(_sweep, "sweep", "give the values to compare with --thetas"),
            SWEEP_OPTIONS,
        ),
        Command(
            "export",
            "write situations from seeded games with every action's exact value (parquet or jsonl)",
            runner(_export, "export"),
            EXPORT_OPTIONS,
        ),
        Command(
            "duel",
            "two strategies play head to head on seeded dice (win rate, 95% interval)",
            runner(_duel, "duel", "name a strategy theta:T with --first or --second"),
            DUEL_OPTIONS,
        ),
        Command(
            "distribution",
            "the exact distribution of the final score under the table's policy",
            runner(_distribution, "distribution"),
            DISTRIBUTION_OPTIONS,
        ),
        Command(
            "targets",
            "build and store the target table (the best P(points to come >= k) for every "
            "state and k; advise --target reads it), or load it",
            runner(_targets, "targets", "the target table holds probabilities"),
            TARGETS_OPTIONS,
        ),
    )
