"""Yatzy (Scandinavian, the default) and Yahtzee (American): exact solver and advice.

``SPEC`` is the game's entry in the registry (``diceopt.games.registry``). Solved tables
are loaded from the cache directory (or solved and saved there) once per process and
kept in ``_TABLES``.

Modules: ``rules`` (variants as data, scoring tables), ``kernel`` (the numba solver and
the per-turn widget), ``storage`` (table files), ``advice`` (positions and actions),
``engine_game`` (the same rules on the generic engine, for tests), ``moves`` (typed
moves and the sheet), ``simulation`` and ``sweep``.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from diceopt.advice import Advice
from diceopt.errors import InputError
from diceopt.games.registry import Command, GameSpec, Parameter, Report, Step, Versus
from diceopt.games.yatzy.rules import (
    DEFAULT_VARIANT,
    UPPER,
    VARIANTS,
    YatzyRules,
    check_theta,
    get_rules,
    variant_id,
)
from diceopt.lazy import numpy as np
from diceopt.notation import parse_number
from diceopt.options import games_count, seed_value
from diceopt.progress import Stage

if TYPE_CHECKING:  # the kernel imports numba: only loaded when a table is needed
    from diceopt.games.yatzy.saved import SavedTable
    from diceopt.games.yatzy.table import YatzyTable

__all__ = ["POSITION_EXAMPLE", "SPEC", "VARIANTS", "YatzyConfig", "get_solved"]

POSITION_EXAMPLE = "dice 1 3 3 5 6 | rerolls 2 | filled ones twos | upper 3 | score 3"

_TABLES: dict[tuple[str, float, str], YatzyTable | SavedTable] = {}
_DISTRIBUTION_READY: set[str] = set()  # table dtypes whose distribution kernels are loaded
SAVED_CPU = "about 1,100 CPU-seconds in float32"  # maxi-saved, measured


def saved_solve_cost(variant: str, dtype: str = "float32") -> str:
    """What solving a saved-rerolls variant costs: CPU time (measured, maxi-saved) and the
    size of its table in ``dtype`` on disk."""
    from diceopt.games.yatzy.saved import table_bytes

    return f"{SAVED_CPU}, {table_bytes(get_rules(variant), dtype) / 1e9:.1f} GB of disk"


def solve_command(variant: str, dtype: str = "float32", cache_dir: str | None = None) -> str:
    """The command that solves and stores the table of ``variant`` in ``dtype`` where it
    is looked for: ``cache_dir``, else $DICEOPT_CACHE (named with --cache-dir), else the
    default cache directory."""
    import os
    import shlex

    from diceopt import storage

    words = ["diceopt", "yatzy", "solve", "--variant", variant]
    if np.dtype(dtype).name != "float32":
        words += ["--dtype", np.dtype(dtype).name]
    if cache_dir or os.environ.get(storage.ENV_VAR):
        words += ["--cache-dir", str(storage.cache_root(cache_dir))]
    return shlex.join(words)


def _note(line: str) -> None:
    """A line about what a solve did with files (stderr, beside the progress)."""
    print(line, file=sys.stderr, flush=True)


def get_solved(
    variant: str | None = None,
    theta: float = 0.0,
    dtype: str = "float32",
    cache_dir: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> YatzyTable | SavedTable:
    """The solved table of a variant, cached in this process (saved-rerolls variants:
    the stored table only, InputError if it is not stored; see :func:`saved_table`)."""
    from diceopt.games.yatzy.storage import get_table

    variant = variant_id(variant)
    key = (variant, float(theta), dtype)
    if key not in _TABLES:
        if get_rules(variant).saved_rerolls:
            _TABLES[key] = saved_table(variant, dtype, cache_dir)
        else:
            _TABLES[key], _ = get_table(variant, theta, dtype, cache_dir, progress=progress)
    return _TABLES[key]


def saved_table(variant: str, dtype: str = "float32", cache_dir: str | None = None) -> SavedTable:
    """The stored table of a saved-rerolls variant (layers memory-mapped when read);
    InputError when it is not stored: its solve takes minutes, so it is never started
    by a command that only reads it."""
    from diceopt.games.yatzy.saved import load_saved

    got = load_saved(variant, dtype, cache_dir)
    if got is None:
        raise InputError(
            f"the {variant} table ({dtype}) is not stored: solve it first with "
            f"`{solve_command(variant, dtype, cache_dir)}` ({saved_solve_cost(variant, dtype)})"
        )
    return got[0]


def _no_theta(args: Any, what: str, instead: str) -> None:
    """InputError when ``--theta`` was given to a command that does not use it."""
    if getattr(args, "theta", None) is not None:
        raise InputError(f"{what} does not use --theta: {instead}")


def _no_saved_rerolls(config: YatzyConfig, what: str) -> None:
    """InputError: ``what`` is not available for a saved-rerolls variant."""
    if config.rules.saved_rerolls:
        raise InputError(
            f"{what} is not available for {config.variant} (saved rerolls): solve and advise are"
        )


def main_job(out: Callable[[str], None] = print) -> None:
    """`make run`: solve (or load) Scandinavian Yatzy, print its value, time and an advice."""
    from diceopt.games.yatzy.advice import advise_position, parse_position
    from diceopt.games.yatzy.solve import warm_up
    from diceopt.games.yatzy.storage import get_table, load_table

    t0 = time.perf_counter()
    out("== Yatzy (Scandinavian), maximising the expected score ==")
    loaded = load_table(DEFAULT_VARIANT, 0.0, "float32")
    if loaded is not None:
        table, seconds = loaded
        out(f"Scandinavian Yatzy: cached table loaded in {seconds * 1000:.0f} ms")
    else:
        compile_seconds = warm_up("float32")
        with Stage("solving Scandinavian Yatzy", "layers") as stage:
            table, info = get_table(
                DEFAULT_VARIANT, 0.0, "float32", force=True, progress=stage.update
            )
        out(
            f"Scandinavian Yatzy solved in {info.seconds:.2f} s "
            f"(numba compile {compile_seconds:.2f} s, {table.states:,} states)"
        )
    out(f"optimal expected score: {table.value:.4f} points (published 248.4399893778553)")
    rules = get_rules(DEFAULT_VARIANT)
    pos = parse_position(POSITION_EXAMPLE, rules)
    advise_position(pos, rules, table)  # first call loads the widget kernel
    t1 = time.perf_counter()
    actions = advise_position(pos, rules, table)
    ms = (time.perf_counter() - t1) * 1000
    out(f"advice for '{POSITION_EXAMPLE}' ({ms:.2f} ms):")
    for a in actions[:5]:
        out(f"  {a.action:<22} expected final score {a.value:9.4f}   regret {a.regret:7.4f}")
    out(f"  ... {len(actions)} legal actions; total time {time.perf_counter() - t0:.1f} s")
    from diceopt.games.yatzy.duel import main_job as duel_section

    duel_section(out)


# --- the game contract ---------------------------------------------------------------------

SWEEP_OPTIONS = (
    Parameter(
        "thetas",
        "exponential-utility parameters, commas or spaces",
        default="-0.1,-0.05,0,0.05,0.1",
    ),
    Parameter("plot", "write the mean/std frontier (png, svg or pdf)", metavar="FILE"),
    Parameter(
        "ray",
        "solve the tables as Ray tasks: alone, on a local 2-CPU Ray instance; with "
        "HOST:PORT, on that cluster (needs the cluster extra)",
        const="local",
        metavar="ADDRESS",
    ),
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
)


TARGETS_OPTIONS = (Parameter("force", "build even if the table is stored", flag=True),)


@dataclass(frozen=True)
class YatzyConfig:
    """A Yatzy table: the variant's rules, theta (exponential utility, per point; 0 is the
    expected score) and the table's float type."""

    variant: str = DEFAULT_VARIANT
    theta: float = 0.0
    dtype: str = "float32"

    @property
    def rules(self) -> YatzyRules:
        """The variant's rules."""
        return get_rules(self.variant)

    def describe(self) -> dict[str, Any]:
        """The configuration as plain data."""
        return {"variant": self.variant, "theta": self.theta, "dtype": self.dtype}

    def table(self) -> YatzyTable | SavedTable:
        """The solved table (loaded or solved once per process; progress on a terminal;
        saved-rerolls variants: loaded only, see :func:`saved_table`)."""
        key = (self.variant, float(self.theta), self.dtype)
        if key in _TABLES:
            return _TABLES[key]
        if self.rules.saved_rerolls:
            return get_solved(self.variant, self.theta, self.dtype)
        from diceopt.games.yatzy.storage import get_table, load_table

        loaded = load_table(self.variant, self.theta, self.dtype)  # read (and warned) once
        if loaded is not None:
            _TABLES[key] = loaded[0]
        else:
            with Stage(f"solving {self.variant} (first use)", "layers") as stage:
                _TABLES[key], _ = get_table(
                    self.variant, self.theta, self.dtype, force=True, progress=stage.update
                )
        return _TABLES[key]


class YatzySpec(GameSpec):
    """Yatzy and Yahtzee in the registry (see ``diceopt.games.registry``)."""

    id = "yatzy"
    title = "Yatzy"
    summary = "Yatzy / Yahtzee: exact solver, advice, simulation, risk-sensitive play"
    rules_help = (
        "Five dice (six in Maxi), up to two rerolls a turn (keep any dice), then write the\n"
        "roll in an open category; the upper bonus and the variant's scoring as in RULES.\n"
        "Positions: 'dice 1 3 3 5 6 | rerolls 2 | filled ones twos | upper 3 | score 5'\n"
        "(or the JSON form). Actions: 'keep 3 3', 'keep -' (reroll all), 'score chance'.\n"
        "Saved rerolls (maxi-saved): '| saved 3' gives the rerolls saved from earlier turns."
    )
    units = "expected final score (points)"
    parameters = (
        Parameter(
            "theta",
            "exponential utility per point: < 0 risk-averse, > 0 risk-seeking, 0 the mean",
            type=parse_number,
        ),
        Parameter(
            "dtype", "float type of the table", choices=("float32", "float64"), type=str.lower
        ),
    )
    variants = VARIANTS
    position_example = POSITION_EXAMPLE
    solve_options = (Parameter("force", "solve even if the table is stored", flag=True),)
    simulate_options = (Parameter("plot", "write a histogram (png, svg or pdf)", metavar="FILE"),)
    advise_options = (
        Parameter(
            "target",
            "rank actions by P(final score >= K) (without score: P(points to come >= K)); "
            "reads the stored target table (yatzy targets), else solves what K needs",
            type=int,
            metavar="K",
        ),
        Parameter(
            "opponent",
            "rank actions by the estimated P(win) against this opponent's sheet and score at "
            "the start of their turn, e.g. 'filled ones twos chance | upper 5 | score 25' (needs "
            "your score)",
            metavar="OPPONENT",
        ),
        Parameter(
            "opponent_plays",
            "how the opponent of --opponent plays: for the expected score (the default), or "
            "to win (modelled as the best of the expected-score and theta -0.05 / +0.05 "
            "tables against you)",
            choices=("expected", "win"),
            type=str.lower,
        ),
    )

    computer_strategies = ("expected", "win")
    featured = True  # the web page opens on Yatzy the first time
    env_name = "Yatzy"
    env_presets = {"Yahtzee": {"variant": "american"}}

    def env_codec(self, rules: YatzyConfig) -> Any:
        """Environments: keeps, then ``score CATEGORY`` (``diceopt.games.yatzy.codec``)."""
        from diceopt.games.yatzy.codec import yatzy_codec

        return yatzy_codec(rules)

    def page_sheet(self, rules: YatzyConfig) -> dict[str, Any]:
        """The web page's score sheet: the upper boxes and the bonus they earn."""
        r = rules.rules
        upper = [c for c in r.categories if c in UPPER]
        return {
            "upper": upper,
            "upper_faces": [UPPER.index(c) + 1 for c in upper],
            "bonus_threshold": r.bonus_threshold,
            "bonus": r.bonus,
        }

    def rules(self, variant: str | None = None, **params: Any) -> YatzyConfig:
        """The configuration of a variant (name case-insensitive) and theta/dtype."""
        rules = get_rules(variant)
        theta = check_theta(params.get("theta") or 0.0)
        dtype = params.get("dtype") or "float32"
        if rules.saved_rerolls and theta != 0.0:
            raise InputError(f"{rules.name} (saved rerolls) is solved for theta 0 only")
        return YatzyConfig(rules.name, theta, dtype)

    def units_of(self, rules: YatzyConfig) -> str:
        """The expected final score, or with theta != 0 its certainty equivalent."""
        from diceopt.games.yatzy.advice import CE_FINAL

        return self.units if rules.theta == 0.0 else CE_FINAL

    def describe(self, rules: YatzyConfig) -> dict[str, Any]:
        """Variant, theta, dtype, the number of dice and the category ids."""
        r = rules.rules
        return rules.describe() | {"dice": r.dice, "categories": list(r.categories)}

    def parse_text(self, rules: YatzyConfig, text: str) -> Any:
        """The text notation (see ``games.yatzy.advice``)."""
        from diceopt.games.yatzy.advice import parse_position

        return parse_position(text, rules.rules)

    def parse_json(self, rules: YatzyConfig, data: Mapping[str, Any]) -> Any:
        """The JSON form (see ``games.yatzy.advice``)."""
        from diceopt.games.yatzy.advice import position_from_json

        return position_from_json(dict(data), rules.rules)

    def format(self, rules: YatzyConfig, pos: Any) -> str:
        """The canonical text of a position."""
        from diceopt.games.yatzy.advice import format_position

        return format_position(pos, rules.rules)

    def to_json(self, rules: YatzyConfig, pos: Any) -> dict[str, Any]:
        """The JSON form of a position; ``yahtzee_bonus`` only in variants that have the
        Yahtzee bonus (elsewhere it is always false: no field for the web page to offer)."""
        from diceopt.games.yatzy.advice import position_to_json

        data = position_to_json(pos, rules.rules)
        if not rules.rules.tracks_yahtzee:
            del data["yahtzee_bonus"]
        return data

    def new_position(self, rules: YatzyConfig, rng: np.random.Generator) -> Any:
        """The first roll of a game: empty sheet, two rerolls left."""
        from diceopt.games.yatzy.advice import Position

        r = rules.rules
        dice = tuple(sorted(int(d) for d in rng.integers(1, r.sides + 1, size=r.dice)))
        return Position(dice, 2, score=0)

    def show(self, rules: YatzyConfig, pos: Any) -> list[str]:
        """The sheet, then the dice and rerolls left."""
        from diceopt.games.yatzy.moves import sheet_lines

        dice = " ".join(map(str, pos.dice)) or "-"
        saved = f"   saved {pos.saved}" if rules.rules.saved_rerolls else ""
        return [
            *sheet_lines(pos, rules.rules),
            f"dice {dice}   rerolls left {pos.rerolls}{saved}",
        ]

    def advise(
        self,
        rules: YatzyConfig,
        pos: Any,
        target: int | None = None,
        opponent: Any = None,
        opponent_plays: str | None = None,
    ) -> Advice:
        """Every legal action with its expected final score, best first; with ``target``
        (points) every action's P(final score >= target) instead, with ``opponent`` (their
        sheet and score) the estimated P(win) against them; expected score beside."""
        from diceopt.games.yatzy.advice import advise_position, value_is

        if target is not None and opponent is not None:
            raise InputError("give either a target or an opponent, not both")
        if opponent_plays is not None and opponent is None:
            raise InputError("--opponent-plays says how an opponent plays: give --opponent too")
        if (target is not None or opponent is not None) and rules.theta != 0.0:
            what = "--target" if target is not None else "--opponent"
            raise InputError(f"{what} ranks actions by a probability: --theta does not apply")
        if opponent is not None:
            from diceopt.games.yatzy.win import advise_opponent

            _no_saved_rerolls(rules, "advise --opponent")
            return advise_opponent(pos, rules, opponent, opponent_plays or "expected")
        if target is not None:
            from diceopt.games.yatzy.target_store import advise_target

            _no_saved_rerolls(rules, "advise --target")
            return advise_target(pos, rules, int(target))
        table = rules.table()
        return Advice(advise_position(pos, rules.rules, table), value_is(pos, rules.theta))

    def tables(
        self, rules: YatzyConfig, need: str = "advice", pos: Any = None, **options: Any
    ) -> tuple:
        """The tables an answer reads (see ``games.yatzy.tables.needed``): the expected-score
        table; with a target or an opponent, or against the computer, the target rows from
        the start; for an opponent who plays to win, the theta -0.05 / +0.05 tables;
        against the computer, the stored distributions of the first turns' states under
        each of those (``games.yatzy.early``). With ``pos``, InputError (one line) for a
        request that would fail once they are built."""
        from diceopt.games.yatzy.tables import needed

        return needed(rules, need, pos, **options)

    def distribution(self, rules: YatzyConfig, pos: Any) -> dict[str, Any]:
        """The exact distribution of the final score from ``pos`` (of the points still to
        come when it gives no score) under the table's policy: the JSON of
        ``yatzy distribution --json`` (``compile_seconds``: the kernels' first load in
        this process, else 0; ``plot`` None)."""
        _no_saved_rerolls(rules, "distribution")
        from diceopt.games.yatzy.distribution import position_distribution, warm_up

        compile_seconds = 0.0
        if rules.dtype not in _DISTRIBUTION_READY:
            compile_seconds = warm_up(rules.dtype)
            _DISTRIBUTION_READY.add(rules.dtype)
        dist = position_distribution(rules.table(), pos)
        return {
            "variant": rules.variant,
            "theta": rules.theta,
            "dtype": rules.dtype,
            "position": self.format(rules, pos),
            "of": "final score" if dist.base is not None else "points still to come",
            **dist.summary(),
            "pmf": dist.pmf.tolist(),
            "states": dist.states,
            "seconds": dist.seconds,
            "compile_seconds": compile_seconds,
            "plot": None,
        }

    def versus_start(
        self,
        rules: YatzyConfig,
        strategy: str,
        rng: np.random.Generator,
        estimate: bool = True,
    ) -> Versus:
        """A game against the computer (see ``games.yatzy.versus``): the first roll."""
        _no_saved_rerolls(rules, "play against the computer")
        from diceopt.games.yatzy.versus import start

        return start(rules, strategy, rng, estimate)

    def versus_estimate(
        self, rules: YatzyConfig, you: Any, computer: Any, strategy: str
    ) -> tuple[float, str]:
        """Your estimated chance of winning at the start of your turn, and what it is (see
        ``games.yatzy.versus.estimate``)."""
        _no_saved_rerolls(rules, "play against the computer")
        from diceopt.games.yatzy.versus import estimate, win_text

        pos = you if not isinstance(you, str | Mapping) else self.parse(rules, you)
        strategy = strategy.strip().lower()
        return estimate(rules, pos, computer, strategy), win_text(strategy)

    def versus_play(
        self,
        rules: YatzyConfig,
        you: Any,
        computer: Any,
        strategy: str,
        action: str,
        rng: np.random.Generator,
        estimate: bool = True,
    ) -> Versus:
        """Your action; after a written category the computer's whole turn, your next roll
        and (``estimate``) your estimated chance of winning (see ``games.yatzy.versus``)."""
        from diceopt.games.yatzy.versus import check_strategy, play

        strategy = check_strategy(strategy)
        pos = you if not isinstance(you, str | Mapping) else self.parse(rules, you)
        action = self.canonical_action(rules, pos, action)
        return play(rules, pos, computer, strategy, action, rng, estimate)

    def canonical_action(self, rules: YatzyConfig, pos: Any, text: str) -> str:
        """Typed moves (``k 335``, ``r``, ``s ch``, a category) in the action notation."""
        from diceopt.games.yatzy.moves import parse_move

        return parse_move(text, rules.rules)

    def apply(self, rules: YatzyConfig, pos: Any, action: str, rng: np.random.Generator) -> Step:
        """Keep and reroll, or write a category (then the next turn's first roll)."""
        from diceopt.games.yatzy.advice import apply_action

        new, over = apply_action(pos, self.canonical_action(rules, pos, action), rules.rules, rng)
        events = []
        if new.filled != pos.filled and pos.score is not None:
            events.append(f"wrote {new.score - pos.score:g} points")
        if new.dice:
            events.append(f"rolled: dice {' '.join(map(str, new.dice))}")
        return Step(new, over, 0, tuple(events), float(new.score or 0) if over else None)

    def solve(self, rules: YatzyConfig, force: bool = False, **options: Any) -> Report:
        """Load the stored table, or solve it (``force``: always solve) and store it."""
        if rules.rules.saved_rerolls:
            return _solve_saved(rules, force)
        from diceopt.games.yatzy.storage import get_table, load_table, table_path

        path = table_path(rules.variant, rules.theta, rules.dtype)
        loaded = None if force else load_table(rules.variant, rules.theta, rules.dtype)
        compile_seconds = 0.0
        if loaded is not None:
            table, seconds = loaded
            lines = [f"loaded {path} in {seconds * 1000:.1f} ms (solved in {table.seconds:.2f} s)"]
            saved = True
        else:
            from diceopt.games.yatzy.solve import warm_up  # numba: only to solve

            compile_seconds = warm_up(rules.dtype)
            with Stage(f"solving {rules.variant}", "layers") as stage:
                table, info = get_table(
                    rules.variant, rules.theta, rules.dtype, force=True, progress=stage.update
                )
            seconds = info.seconds
            saved = info.saved
            where = f"saved to {path}" if saved else "not saved (see the warning above)"
            lines = [
                f"solved {table.states:,} states in {seconds:.2f} s "
                f"(numba compile {compile_seconds:.2f} s); {where}"
            ]
        _TABLES[(rules.variant, float(rules.theta), rules.dtype)] = table
        what = "expected final score" if rules.theta == 0 else "certainty equivalent"
        lines.insert(0, f"{rules.variant}: optimal {what} {table.value:.6f} points")
        data = {
            "variant": rules.variant,
            "theta": rules.theta,
            "dtype": rules.dtype,
            "compile_seconds": compile_seconds,
            "solve_seconds": table.seconds,
            "table_seconds": seconds,
            "states": table.states,
            "loaded": loaded is not None,
            "path": str(path) if saved else None,
        }
        return Report(table.value, data, lines)

    def simulate(
        self,
        rules: YatzyConfig,
        games: int,
        rng: np.random.Generator,
        plot: str | None = None,
        **options: Any,
    ) -> Report:
        """Optimal games grouped by state: mean, std, percentiles, rates and a histogram."""
        from diceopt.games.yatzy.simulation import (
            histogram_lines,
            histogram_png,
            simulate,
            warm_up,
        )
        from diceopt.output import check_plot_path, write_plot

        _no_saved_rerolls(rules, "simulate")
        check_plot_path(plot)
        table = rules.table()
        compile_seconds = warm_up(rules.dtype)
        result = simulate(table, games, rng)
        summary = result.summary()
        if plot:
            title = f"{rules.variant}: {games:,} optimal games" + (
                f" (theta {rules.theta:g})" if rules.theta else ""
            )
            write_plot(lambda: histogram_png(result.scores, plot, title, summary["mean"]), plot)
        pct = "  ".join(f"p{p} {v:g}" for p, v in summary["percentiles"].items())
        lines = [
            f"table value {table.value:.4f}, {self.units_of(rules)}; "
            f"{games:,} games of optimal play",
            f"mean {summary['mean']:.4f} points, std error {summary['std_error']:.4f}, "
            f"std {summary['std']:.4f}",
            f"percentiles: {pct}",
            f"min {summary['min']}, max {summary['max']}",
            f"upper bonus in {100 * summary['bonus_rate']:.2f}% of games, "
            f"{rules.rules.yatzy_box} in {100 * summary['yatzy_rate']:.2f}%",
            f"simulated in {result.seconds:.2f} s (compile {compile_seconds:.2f} s)",
            "final score distribution:",
            *("  " + line for line in histogram_lines(result.scores)),
        ]
        if plot:
            lines.append(f"histogram written to {plot}")
        data = summary | {
            "exact": table.value,
            "variant": rules.variant,
            "dtype": rules.dtype,
            "compile_seconds": compile_seconds,
            "distinct_states": int(result.distinct_states.sum()),
            "plot": plot,
        }
        return Report(summary["mean"], data, lines)

    def commands(self) -> tuple[Command, ...]:
        """``sweep``: score distributions across theta; ``distribution``: the exact one;
        ``export``: a dataset of situations; ``targets``: the stored target table."""

        def run_distribution(config: YatzyConfig, args: Any) -> int:
            from diceopt.games.yatzy.distribution import run_distribution

            _no_saved_rerolls(config, "distribution")
            return run_distribution(config, args)

        def run_sweep(config: YatzyConfig, args: Any) -> int:
            from diceopt.games.yatzy.sweep import run_sweep

            _no_saved_rerolls(config, "sweep")
            _no_theta(args, "sweep", "give the values to compare with --thetas")
            return run_sweep(config, args)

        def run_duel(config: YatzyConfig, args: Any) -> int:
            from diceopt.games.yatzy.duel import run_duel

            _no_saved_rerolls(config, "duel")
            _no_theta(args, "duel", "name a strategy theta:T with --first or --second")
            return run_duel(config, args)

        def run_export(config: YatzyConfig, args: Any) -> int:
            from diceopt.games.yatzy.export import run_export

            _no_saved_rerolls(config, "export")
            return run_export(config, args)

        def run_targets(config: YatzyConfig, args: Any) -> int:
            from diceopt.games.yatzy.target_store import run_targets

            _no_saved_rerolls(config, "targets")
            _no_theta(args, "targets", "the target table holds probabilities")
            return run_targets(config, args)

        return (
            Command(
                "sweep",
                "risk-sensitive play: the score distribution for several theta",
                run_sweep,
                SWEEP_OPTIONS,
            ),
            Command(
                "export",
                "write situations from seeded games with every action's exact value "
                "(parquet or jsonl)",
                run_export,
                EXPORT_OPTIONS,
            ),
            Command(
                "duel",
                "two strategies play head to head on seeded dice (win rate, 95% interval)",
                run_duel,
                DUEL_OPTIONS,
            ),
            Command(
                "distribution",
                "the exact distribution of the final score under the table's policy",
                run_distribution,
                DISTRIBUTION_OPTIONS,
            ),
            Command(
                "targets",
                "build and store the target table (the best P(points to come >= k) for every "
                "state and k; advise --target reads it), or load it",
                run_targets,
                TARGETS_OPTIONS,
            ),
        )

    def main_job(self, out: Callable[[str], None] = print) -> None:
        """Solve (or load) Scandinavian Yatzy; its value, time and one advice."""
        main_job(out)


def _solve_saved(rules: YatzyConfig, force: bool) -> Report:
    """``solve`` for a saved-rerolls variant: load the stored layers, or solve them layer
    by layer into the cache directory (two layers in memory), resuming an unfinished
    solve's checked layers (notes on stderr)."""
    from diceopt.games.yatzy.saved import get_saved, layers_dir, load_saved, warm_up

    folder = layers_dir(rules.variant, rules.dtype)
    compile_seconds = 0.0
    t0 = time.perf_counter()
    got = None if force else load_saved(rules.variant, rules.dtype)
    if got is not None:
        table = got[0]
        seconds = time.perf_counter() - t0
        lines = [f"loaded {folder} in {seconds * 1000:.1f} ms (solved in {table.seconds:.2f} s)"]
    else:
        compile_seconds = warm_up(rules.dtype)
        label = f"solving {rules.variant} ({saved_solve_cost(rules.variant, rules.dtype)})"
        with Stage(label, "layers") as stage:
            table, _ = get_saved(
                rules.variant, rules.dtype, force=force, progress=stage.update, say=_note,
                load=False,
            )  # fmt: skip
        seconds = table.seconds
        lines = [
            f"solved {table.states:,} states in {seconds:.2f} s "
            f"(numba compile {compile_seconds:.2f} s); saved to {folder}"
        ]
    _TABLES[(rules.variant, 0.0, rules.dtype)] = table
    lines.insert(0, f"{rules.variant}: optimal expected final score {table.value:.6f} points")
    data = {
        "variant": rules.variant,
        "theta": 0.0,
        "dtype": rules.dtype,
        "compile_seconds": compile_seconds,
        "solve_seconds": table.seconds,
        "table_seconds": seconds,
        "states": table.states,
        "loaded": got is not None,
        "path": str(folder),
    }
    return Report(table.value, data, lines)


SPEC = YatzySpec()
