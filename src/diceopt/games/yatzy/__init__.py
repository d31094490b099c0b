"""Yatzy (Scandinavian, the default) and Yahtzee (American): exact solver and advice.

``SPEC`` is the game's entry in the registry (``diceopt.games.registry``); its
``rules`` resolves a variant's name into its rules object once (a
:class:`~diceopt.games.yatzy.stored.store.YatzyConfig`), and everything below takes that.

Rooms, by stage, each importing only the rooms below it (import-linter checks the
order): ``rulebook`` (the rules as data, the rule-file compiler, the variants),
``kernel`` (the numba kernel: turn, widget, layers, solve, saved rerolls, simulation),
``play`` (positions, moves, every action's value), ``analyses`` (distributions, target
tables, the second path), ``stored`` (``store``: the one module that hands out every
table), ``winning`` (target advice, P(win), duels, the computer, a table of 2 to 6) and
``commands`` (the game's commands and the checks of a request).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from diceopt.advice import Advice
from diceopt.errors import InputError
from diceopt.games.contract import (
    Command,
    GameSpec,
    Parameter,
    Report,
    Step,
    Versus,
    VersusPlay,
    WarmJob,
)
from diceopt.games.yatzy.commands.options import no_saved_rerolls, ray_option, yatzy_commands
from diceopt.games.yatzy.commands.solving import POSITION_EXAMPLE, main_job, solve_report
from diceopt.games.yatzy.commands.table_commands import (
    OPPONENT_HELP,
    advise_at_table,
    table_commands,
)
from diceopt.games.yatzy.rulebook.rules import UPPER, YatzyRules, check_theta
from diceopt.games.yatzy.rulebook.variants import VARIANTS, get_rules
from diceopt.games.yatzy.stored.store import YatzyConfig, get_solved
from diceopt.notation import is_digits, parse_number

TARGET_MAX = 100_000  # --target: far above any sheet's top score (checked by the rules)

if TYPE_CHECKING:  # the types only: numpy itself loads on first use
    import numpy as np
else:
    from diceopt.lazy import numpy as np

__all__ = ["POSITION_EXAMPLE", "SPEC", "VARIANTS", "YatzyConfig", "get_solved"]


_DISTRIBUTION_READY: set[str] = set()  # table dtypes whose distribution kernels are loaded


class YatzySpec(GameSpec):
    """Yatzy and Yahtzee in the registry (see ``diceopt.games.contract``)."""

    id = "yatzy"
    title = "Yatzy"
    variant_titles = {
        "scandinavian": "Scandinavian Yatzy",
        "scandinavian-accepts": "Scandinavian, full house and two pairs accept more",
        "scandinavian-fh-accepts": "Scandinavian, full house accepts five of a kind",
        "scandinavian-tp-accepts": "Scandinavian, two pairs accept four of a kind",
        "scandinavian-forced": "Scandinavian, boxes in order",
        "american": "American Yahtzee",
        "american-forced-joker": "American Yahtzee, forced joker",
        "american-no-joker": "American Yahtzee, no joker",
        "american-no-bonus": "American Yahtzee, no Yahtzee bonus",
        "maxi": "Maxi Yatzy",
        "maxi-saved": "Maxi Yatzy, saved rerolls",
    }
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
            "rules",
            "a rule file instead of --variant: a path, or a shipped file's name (yacht); "
            "see diceopt rules list",
            metavar="FILE",
        ),
        Parameter(
            "theta",
            "exponential utility per point: < 0 risk-averse, > 0 risk-seeking, 0 the mean",
            type=parse_number,
        ),
        Parameter(
            "dtype",
            "float type of the table (default float32; float64 for a rule file, --rules)",
            choices=("float32", "float64"),
            type=str.lower,
        ),
    )
    variants = VARIANTS
    position_example = POSITION_EXAMPLE
    solve_options = (
        Parameter("force", "solve even if the table is stored", flag=True),
        ray_option("solve it layer by layer, each layer's states in Ray tasks"),
    )
    simulate_options = (Parameter("plot", "write a histogram (png, svg or pdf)", metavar="FILE"),)
    advise_options = (
        Parameter(
            "target",
            "rank actions by P(final score >= K) (without score: P(points to come >= K)); "
            "reads the stored target table (yatzy targets), else solves what K needs",
            type=int,
            metavar="K",
            low=0,
            high=TARGET_MAX,
        ),
        Parameter("opponent", OPPONENT_HELP, metavar="OPPONENT", repeat=True),
        Parameter(
            "opponent_plays",
            "how the opponent of --opponent plays: for the expected score (the default), or "
            "to win (modelled as the best against you of three fixed styles of play: steady, "
            "a little bolder, a little more careful; the tables of theta 0, +0.05, -0.05)",
            choices=("expected", "win"),
            type=str.lower,
        ),
    )

    computer_strategies = ("expected", "win")
    featured = True  # the web page opens on Yatzy the first time
    env_name = "Yatzy"
    env_presets = {"Yahtzee": {"variant": "american"}}

    def env_codec(self, rules: YatzyConfig) -> Any:
        """Environments: keeps, then ``score CATEGORY`` (``diceopt.games.yatzy.commands.codec``)."""
        from diceopt.games.yatzy.commands.codec import yatzy_codec

        return yatzy_codec(rules)

    def page_sheet(self, rules: YatzyConfig) -> dict[str, Any]:
        """The web page's score sheet: the upper boxes and the bonus they earn; with the
        Yahtzee box's points remembered (``yahtzee``: that box, ``yahtzee_points``), the
        points each further Yahtzee adds wherever it is written (``yahtzee_bonus``, 0 for
        none: American rules), for boxes written by hand."""
        r = rules.rules
        upper = [c for c in r.categories if c in UPPER]
        yz = r.categories[r.yahtzee_category] if r.tracks_yahtzee else None
        return {
            "upper": upper,
            "upper_faces": [UPPER.index(c) + 1 for c in upper],
            "bonus_threshold": r.bonus_threshold,
            "bonus": r.bonus,
            "yahtzee": yz,
            "yahtzee_points": int(r.max_points[r.yahtzee_category]) if yz else 0,
            "yahtzee_bonus": int(r.american_bonus),
        }

    def rules(self, variant: str | None = None, **params: Any) -> YatzyConfig:
        """The configuration of a variant (name case-insensitive) or of a rule file
        (``rules``: a path or a shipped file's name; not both), and theta/dtype."""
        source = params.get("rules")
        if source is not None:
            if variant is not None:
                raise InputError("give either --variant or --rules (a rule file), not both")
            from diceopt.games.yatzy.rulebook.compiler import load_rules

            # a rule file's table is float64 unless asked: its value to full precision
            return self.config(
                load_rules(source), **{**params, "dtype": params.get("dtype") or "float64"}
            )
        return self.config(get_rules(variant), **params)

    def rules_text(self, text: str, **params: Any) -> YatzyConfig:
        """The configuration of a rule file's text (pasted or uploaded on the web page;
        ``extends`` names shipped files only), refused (InputError, one line) when its
        solve is larger than Scandinavian Yatzy's and its table is not stored (see
        ``games.yatzy.requested``)."""
        from diceopt.games.yatzy.commands.requests import requested_rules

        config = self.config(requested_rules(text), **params)
        return replace(config, requested=True)

    def forget(self, rules: YatzyConfig) -> None:
        """Drop the tables of ``rules`` from this process (the stored files stay)."""
        from diceopt.games.yatzy.stored.store import forget

        forget(rules.rules)

    def config(self, resolved: YatzyRules, **params: Any) -> YatzyConfig:
        """The configuration of resolved rules with theta/dtype (InputError, one line)."""
        theta = check_theta(params.get("theta") or 0.0)
        dtype = params.get("dtype") or "float32"
        if resolved.saved_rerolls and theta != 0.0:
            raise InputError(f"{resolved.name} (saved rerolls) is solved for theta 0 only")
        return YatzyConfig(resolved, theta, dtype)

    def units_of(self, rules: YatzyConfig) -> str:
        """The expected final score, or with theta != 0 its certainty equivalent."""
        from diceopt.games.yatzy.play.advice import CE_FINAL

        return self.units if rules.theta == 0.0 else CE_FINAL

    def describe(self, rules: YatzyConfig) -> dict[str, Any]:
        """Variant, theta, dtype, the number of dice and the category ids; ``name`` and
        ``key`` (what its tables are filed under: a rule file's name and content hash)."""
        r = rules.rules
        return rules.describe() | {
            "dice": r.dice,
            "categories": list(r.categories),
            "name": r.name,
            "key": r.storage_key,
        }

    def parse_text(self, rules: YatzyConfig, text: str) -> Any:
        """The text notation (see ``games.yatzy.advice``)."""
        from diceopt.games.yatzy.play.advice import parse_position

        return parse_position(text, rules.rules)

    def parse_json(self, rules: YatzyConfig, data: Mapping[str, Any]) -> Any:
        """The JSON form (see ``games.yatzy.advice``)."""
        from diceopt.games.yatzy.play.advice import position_from_json

        return position_from_json(dict(data), rules.rules)

    def format(self, rules: YatzyConfig, pos: Any) -> str:
        """The canonical text of a position."""
        from diceopt.games.yatzy.play.advice import format_position

        return format_position(pos, rules.rules)

    def to_json(self, rules: YatzyConfig, pos: Any) -> dict[str, Any]:
        """The JSON form of a position; ``yahtzee_bonus`` only in variants that have the
        Yahtzee bonus (elsewhere it is always false: no field for the web page to offer)."""
        from diceopt.games.yatzy.play.advice import position_to_json

        data = position_to_json(pos, rules.rules)
        if not rules.rules.tracks_yahtzee:
            del data["yahtzee_bonus"]
        return data

    def new_position(self, rules: YatzyConfig, rng: np.random.Generator) -> Any:
        """The first roll of a game: empty sheet, two rerolls left."""
        from diceopt.games.yatzy.play.advice import Position

        r = rules.rules
        dice = tuple(sorted(int(d) for d in rng.integers(1, r.sides + 1, size=r.dice)))
        return Position(dice, 2, score=0)

    def show(self, rules: YatzyConfig, pos: Any) -> list[str]:
        """The sheet, then the dice and rerolls left."""
        from diceopt.games.yatzy.play.moves import sheet_lines

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
        **options: Any,
    ) -> Advice:
        """Every legal action with its expected final score, best first; with ``target``
        (points) every action's P(final score >= target) instead, with ``opponent`` (their
        sheet and score) the estimated P(win) against them; expected score beside. Other
        ``options``: TypeError (the callers pass only ``advise_options``)."""
        from diceopt.games.yatzy.play.advice import advise_position, value_is

        if options:
            raise TypeError(f"unknown Yatzy advice option(s): {', '.join(sorted(options))}")

        if isinstance(opponent, list | tuple) and len(opponent) <= 1:
            opponent = opponent[0] if opponent else None  # one opponent: as it always was
        if target is not None and opponent is not None:
            raise InputError("give either a target or an opponent, not both")
        if opponent_plays is not None and opponent is None:
            raise InputError("--opponent-plays says how an opponent plays: give --opponent too")
        if (target is not None or opponent is not None) and rules.theta != 0.0:
            what = "--target" if target is not None else "--opponent"
            raise InputError(f"{what} ranks actions by a probability: --theta does not apply")
        if opponent is not None:
            from diceopt.games.yatzy.winning.win import advise_opponent

            no_saved_rerolls(rules, "advise --opponent")
            if isinstance(opponent, list | tuple):  # a table (games.yatzy.winning.table)
                if (opponent_plays or "expected") != "expected":
                    raise InputError(
                        "--opponent-plays win takes one opponent: at a table the others "
                        "play for the expected score"
                    )
                return advise_at_table(pos, rules, opponent)
            return advise_opponent(pos, rules, opponent, opponent_plays or "expected")
        if target is not None:
            from diceopt.games.yatzy.winning.target_advice import advise_target

            no_saved_rerolls(rules, "advise --target")
            return advise_target(pos, rules, int(target))
        actions = rules.advised(lambda table: advise_position(pos, rules.rules, table))
        return Advice(actions, value_is(pos, rules.theta))

    def reduced_rules(self) -> YatzyConfig:
        """American scoring cut to four dice and four boxes (twos, full house, small
        straight, Yahtzee; jokers and the Yahtzee bonus kept), in float64: small enough
        for the generic engine's graph."""
        from dataclasses import replace

        from diceopt.games.yatzy.rulebook.variants import AMERICAN

        boxes = ("twos", "full_house", "small_straight", "yahtzee")
        reduced = AMERICAN.reduced(boxes, dice=4, bonus_threshold=6)
        return self.config(replace(reduced, name="reduced-american-4d6"), dtype="float64")

    def independent_values(self, rules: YatzyConfig, pos: Any) -> dict[str, float]:
        """Every legal action's value by the generic engine on the rules' engine graph
        (``games.yatzy.independent``), in the expected-score advice's units; small rules
        only (InputError, one line, for rules whose engine graph is too large)."""
        from diceopt.games.yatzy.analyses.independent import independent_values

        return independent_values(pos, rules)

    def tables(
        self, rules: YatzyConfig, need: str = "advice", pos: Any = None, **options: Any
    ) -> tuple:
        """The tables an answer reads (see ``games.yatzy.tables.needed``): the expected-score
        table; with a target or an opponent, or against the computer, the target rows from
        the start; for an opponent who plays to win, the theta -0.05 / +0.05 tables;
        against the computer, the stored distributions of the first turns' states under
        each of those (``games.yatzy.early``). With ``pos``, InputError (one line) for a
        request that would fail once they are built."""
        from diceopt.games.yatzy.commands.requests import needed

        return needed(rules, need, pos, **options)

    def memory_need(self, rules: YatzyConfig, need: str, pos: Any = None, **options: Any) -> int:
        """The bytes an answer would take beyond what the process holds (the expected-score
        table if it is not loaded, a distribution's work), estimated in constant time
        (``games.yatzy.memory``); the target tables have their own bound."""
        from diceopt.games.yatzy.commands.requests import memory_need

        return memory_need(rules, need, pos)

    def distribution(self, rules: YatzyConfig, pos: Any) -> dict[str, Any]:
        """The exact distribution of the final score from ``pos`` (of the points still to
        come when it gives no score) under the table's policy: the JSON of
        ``yatzy distribution --json`` (``compile_seconds``: the kernels' first load in
        this process, else 0; ``plot`` None)."""
        no_saved_rerolls(rules, "distribution")
        from diceopt.games.yatzy.analyses.distribution import position_distribution, warm_up

        first_turns = rules.distribution_rows(pos)  # stored: the start read, or its turn
        compile_seconds = 0.0
        read = pos is None and first_turns is not None  # no kernel runs
        if not read and rules.dtype not in _DISTRIBUTION_READY:
            compile_seconds = warm_up(rules.dtype)
            _DISTRIBUTION_READY.add(rules.dtype)
        dist = position_distribution(rules.table(), pos, first_turns)
        rules.keep_start(pos, dist)
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
        no_saved_rerolls(rules, "play against the computer")
        from diceopt.games.yatzy.winning.versus import start

        return start(rules, strategy, rng, estimate)

    def versus_estimate(
        self, rules: YatzyConfig, you: Any, computer: Any, strategy: str
    ) -> tuple[float, str]:
        """Your chance of winning at the start of your turn (exact for the model it names),
        and that model in words (see ``games.yatzy.versus.estimate``)."""
        no_saved_rerolls(rules, "play against the computer")
        from diceopt.games.yatzy.winning.versus import estimate, win_text

        pos = you if not isinstance(you, str | Mapping) else self.parse(rules, you)
        strategy = strategy.strip().lower()
        return estimate(rules, pos, computer, strategy), win_text(strategy)

    def versus_move(
        self, rules: YatzyConfig, pos: Any, computer: Any, action: str, play: VersusPlay
    ) -> Versus:
        """Your action; after a written category the computer's whole turn, your next roll
        and (``play.estimate``) your chance of winning (see ``games.yatzy.versus``)."""
        from diceopt.games.yatzy.winning.versus import play as play_turn

        return play_turn(rules, pos, computer, self.canonical_action(rules, pos, action), play)

    def canonical_action(self, rules: YatzyConfig, pos: Any, text: str) -> str:
        """Typed moves (``k 335``, ``r``, ``s ch``, a category) in the action notation."""
        from diceopt.games.yatzy.play.moves import parse_move

        return parse_move(text, rules.rules)

    def apply(self, rules: YatzyConfig, pos: Any, action: str, rng: np.random.Generator) -> Step:
        """Keep and reroll, or write a category (then the next turn's first roll)."""
        from diceopt.games.yatzy.play.advice import apply_action, step_events

        new, over = apply_action(pos, self.canonical_action(rules, pos, action), rules.rules, rng)
        events = step_events(pos, new, rules.rules)
        return Step(new, over, 0, events, float(new.score or 0) if over else None)

    def replay_draws(
        self, rules: YatzyConfig, pos: Any, action: str | None, after: Any, events: str = ""
    ) -> list[list[Any]] | None:
        """The dice rolled: ``after``'s dice (or, in a game left unfinished, those the
        events name) less those kept; nothing once the sheet is full."""
        import re
        from collections import Counter

        shown = re.findall(r"rolled: dice ([\d ]+)", events)
        dice = tuple(after.dice) if after is not None else ()
        if after is None and shown:  # a game left unfinished: the dice the events name
            dice = tuple(int(d) for d in shown[-1].split())
        if not dice:
            return [[]]
        words = (action or "").split()
        kept = [int(w) for w in words[1:] if is_digits(w)] if words[:1] == ["keep"] else []
        rest = Counter(dice)
        rest.subtract(kept)
        if any(n < 0 for n in rest.values()):
            return []
        return [[sorted(rest.elements())]]

    def solve(
        self, rules: YatzyConfig, force: bool = False, ray: str | None = None, **options: Any
    ) -> Report:
        """Load the stored table, or solve it (``force``: always solve) and store it;
        ``ray``: solve it on Ray, split by layer (``"local"`` or a cluster's HOST:PORT)."""
        return solve_report(rules, force, ray)

    def simulate(
        self,
        rules: YatzyConfig,
        games: int,
        rng: np.random.Generator,
        plot: str | None = None,
        **options: Any,
    ) -> Report:
        """Optimal games grouped by state: mean, std, percentiles, rates and a histogram."""
        from diceopt.games.yatzy.kernel.dice_stream import dice_stream
        from diceopt.output import check_plot_path, write_plot

        no_saved_rerolls(rules, "simulate")
        check_plot_path(plot)
        r = rules.rules
        # the dice drawn on a thread of their own while numba is imported and the kernels
        # load (one core's work): the games then find them drawn
        drawn = dice_stream(rng, r.sides**r.dice, games, r.num_categories)
        try:
            from diceopt.games.yatzy.kernel.simulation import (
                histogram_lines,
                histogram_png,
                simulate,
                warm_up,
            )

            table = rules.table()
            compile_seconds = warm_up(rules.dtype, table)
        except BaseException:
            drawn.close()
            raise
        result = simulate(table, games, rng, drawn=drawn)
        summary = result.summary()
        if plot:
            title = f"{rules.variant}: {games:,} optimal games" + (
                f" (theta {rules.theta:g})" if rules.theta else ""
            )
            write_plot(lambda out: histogram_png(result.scores, out, title, summary["mean"]), plot)
        pct = "  ".join(f"p{p} {v:g}" for p, v in summary["percentiles"].items())
        lines = [
            f"table value {table.value:.4f}, {self.units_of(rules)}; "
            f"{games:,} games of optimal play",
            f"mean {summary['mean']:.4f} points, std error {summary['std_error']:.4f}, "
            f"std {summary['std']:.4f}",
            f"percentiles: {pct}",
            f"min {summary['min']}, max {summary['max']}",
            "; ".join(
                part
                for part in (
                    f"upper bonus in {100 * summary['bonus_rate']:.2f}% of games"
                    if rules.rules.bonus > 0
                    else "",
                    f"{rules.rules.yatzy_box} in {100 * summary['yatzy_rate']:.2f}%"
                    if rules.rules.yatzy_box
                    else "",
                )
                if part
            )
            or "no upper bonus, no Yatzy box",
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
        return (*yatzy_commands(), *table_commands())

    def warm_jobs(self, folder: Path) -> list[WarmJob]:
        """Every documented command on a small rule file, per float type and with saved
        rerolls (:mod:`diceopt.games.yatzy.commands.warm`)."""
        from diceopt.games.yatzy.commands.warm import warm_jobs

        return warm_jobs(folder)

    main_job_weight = 75.0  # the solve, the target and distribution kernels, the duel

    def main_job(self, out: Callable[[str], None]) -> None:
        """Solve (or load) Scandinavian Yatzy; its value, time and one advice."""
        main_job(out)


SPEC = YatzySpec()
