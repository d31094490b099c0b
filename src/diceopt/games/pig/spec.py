"""Pig (RULES §5) in the registry: each player maximises the probability of winning.

The game runs on the push-your-luck family: its rules are ``rules/pig.toml`` (goal and
die as given), solved by the family's race solver (``solution``); positions, actions and
play are Pig's own (``position``, ``play``). The engine graph (``graph``) is the second,
independent path, used for the exact evaluation of another policy.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from diceopt.advice import Advice, rank_actions
from diceopt.errors import InputError
from diceopt.games.contract import Command, GameSpec, Parameter, Report, Step, check_variant_params
from diceopt.games.pig.position import (
    HOLD,
    POSITION_EXAMPLE,
    ROLL,
    PigPosition,
    check_position,
    parse_action,
    parse_position,
    position_of,
)
from diceopt.games.pig.rules import (
    GOAL_MAX,
    SIDES_MAX,
    VARIANT_RE,
    VARIANT_TITLES,
    VARIANTS,
    PigRules,
    rules_for_variant,
)
from diceopt.games.pig.solution import plot_boundary, solve_pig, solved
from diceopt.lazy import numpy as np
from diceopt.notation import parse_number


class PigSpec(GameSpec):
    """Pig in the registry (see ``diceopt.games.contract``)."""

    id = "pig"
    title = "Pig"
    env_name = "Pig"
    summary = "Pig: two players race to a goal, each maximising P(win)"
    rules_help = (
        "On your turn roll a die as often as you like, adding the pips to a turn total;\n"
        "hold to bank it and pass the turn; a 1 loses the turn total. First to the goal\n"
        "wins. Positions are the mover's: 'me 41 | opponent 49 | turn 22' ('| player 2'\n"
        "when the second player moves). Actions: 'roll' (r), 'hold' (h)."
    )
    units = "probability that the player to move wins"
    players = 2
    parameters = (
        Parameter("goal", f"points to win, 1 to {GOAL_MAX}", type=int),
        Parameter("sides", f"die sides, 2 to {SIDES_MAX} (a 1 busts)", type=int),
    )
    variants = VARIANTS
    variant_titles = VARIANT_TITLES
    position_example = POSITION_EXAMPLE
    small = {"goal": 20}
    small_position = "me 5 | opponent 8 | turn 3"  # its advice reads each roll's value
    solve_options = (
        Parameter(
            "tolerance",
            "the race solver's fixed-point tolerance per pair of scores (default 1e-15)",
            type=parse_number,
        ),
        Parameter("plot", "also draw the roll/hold boundary (png, svg or pdf)", metavar="FILE"),
    )

    def rules(self, variant: str | None = None, **params: Any) -> PigRules:
        """Rules of ``goal-G`` or ``goal-G-dK``; ``goal`` and ``sides`` set what the name
        leaves open (InputError when they contradict it)."""
        base = rules_for_variant(variant)
        if variant is not None:
            named = VARIANT_RE.match(variant.strip().lower())
            fixed = {"goal": base.goal} | (
                {"sides": base.sides} if named and named.group(2) else {}
            )
            check_variant_params(variant, fixed, params)
        goal, sides = params.get("goal"), params.get("sides")
        return PigRules(base.goal if goal is None else goal, base.sides if sides is None else sides)

    def parse_text(self, rules: PigRules, text: str) -> PigPosition:
        """``me 41 | opponent 49 | turn 22`` (``| player 2`` optional)."""
        return parse_position(rules, text)

    def parse_json(self, rules: PigRules, data: Mapping[str, Any]) -> PigPosition:
        """``{"me": 41, "opponent": 49, "turn": 22, "player": 1}`` (turn, player optional)."""
        unknown = set(data) - {"me", "opponent", "turn", "player"}
        if unknown:
            raise InputError(f"unknown position field(s) {sorted(unknown)}")
        return position_of(rules, data)

    def new_position(self, rules: PigRules, rng: np.random.Generator) -> PigPosition:
        """Both scores 0, the first player to roll."""
        return PigPosition(0, 0, 0, 0)

    def to_move(self, rules: PigRules, pos: PigPosition) -> int:
        """The player to move ("me")."""
        return pos.player

    def show(self, rules: PigRules, pos: PigPosition) -> list[str]:
        """Both scores and the turn total."""
        return [
            f"player {pos.player + 1} to move: {pos.me} banked, turn total {pos.turn}; "
            f"opponent {pos.opponent} (goal {rules.goal})"
        ]

    def advise(self, rules: PigRules, pos: PigPosition, **options: Any) -> Advice:
        """Roll and hold with the mover's win probability, best first (stored values)."""
        values = solved(rules).action_values(pos.me, pos.opponent, pos.turn)
        order = [a for a in (HOLD, ROLL) if a in values]
        return Advice(rank_actions([(a, values[a]) for a in order]), self.units)

    def independent_values(self, rules: PigRules, pos: PigPosition) -> dict[str, float]:
        """Roll and hold from the engine graph's value iteration (``graph``), not the race
        solver; InputError for a position the rules cannot reach."""
        from diceopt.games.pig.graph import engine_action_values

        check_position(rules, pos)
        return engine_action_values(rules, pos)

    def canonical_action(self, rules: PigRules, pos: PigPosition, text: str) -> str:
        """``roll``/``r`` or ``hold``/``h``."""
        return parse_action(text)

    def apply(
        self, rules: PigRules, pos: PigPosition, action: str, rng: np.random.Generator
    ) -> Step:
        """Roll or hold: the die rolled, whether the turn passed, the winner."""
        from diceopt.games.pig.play import play_action

        moved = play_action(rules, pos, action, rng)
        who = f"player {pos.player + 1}"
        events = [f"{who} rolled a {r}" for r in moved.rolled]
        if moved.rolled and moved.rolled[-1] == 1:
            events.append(f"{who} loses the turn total")
        elif parse_action(action) == HOLD:
            events.append(f"{who} banks {pos.turn}")
        if moved.over:
            events.append(f"{who} reaches {moved.position.me} and wins")
            result = 1.0 if pos.player == 0 else 0.0
            return Step(moved.position, True, pos.player, tuple(events), result)
        return Step(moved.position, False, moved.position.player, tuple(events))

    def replay_draws(
        self,
        rules: PigRules,
        pos: PigPosition | None,
        action: str | None,
        after: Any,
        events: str = "",
    ) -> list[list[Any]] | None:
        """A roll: one ``random()`` per face (the middle of the face's share of [0, 1));
        a hold and the opening roll nothing."""
        from diceopt.games.pig.play import die

        if pos is None or action is None or parse_action(action) == HOLD:
            return [[]]
        c = np.asarray(die(rules).cumulative, dtype=float)
        low = np.concatenate(([0.0], c[:-1]))
        return [[float((a + b) / 2 / c[-1])] for a, b in zip(low, c, strict=True) if b > a]

    def solve(
        self,
        rules: PigRules,
        tolerance: float | None = None,
        plot: str | None = None,
        **options: Any,
    ) -> Report:
        """The first player's win probability (stored solution, or a solve at ``tolerance``)."""
        from diceopt.output import check_plot_path, write_plot

        if tolerance is not None and not 0 < tolerance < 1:
            raise InputError(f"--tolerance must be between 0 and 1, got {tolerance}")
        check_plot_path(plot)
        sol = solved(rules) if tolerance is None else solve_pig(rules, tolerance=tolerance)
        stats = sol.stats
        lines = [
            f"Pig: goal {rules.goal}, {rules.sides}-sided die, both players optimal",
            f"{sol.states:,} states (turn starts and decisions, the race solver on "
            "rules/pig.toml); "
            + (
                "loaded from the cache"
                if sol.loaded
                else f"solved in {stats.get('seconds', 0.0):.2f} s"
            )
            + f" (residual {stats.get('residual', 0.0):.1e})",
        ]
        if plot:
            write_plot(lambda out: plot_boundary(sol, out), plot)
            lines.append(f"roll/hold boundary written to {plot}")
        data = {
            "solver": "race (push-your-luck family, rules/pig.toml)",
            "solve_seconds": stats.get("seconds", 0.0),
            "cpu_seconds": stats.get("cpu_seconds", 0.0),
            "states": sol.states,
            "max_rounds": stats.get("max_rounds", 0),
            "residual": stats.get("residual", 0.0),
            "loaded": sol.loaded,
            "plot": plot,
        }
        return Report(sol.value, data, lines)

    def simulate(
        self, rules: PigRules, games: int, rng: np.random.Generator, **options: Any
    ) -> Report:
        """Seeded games of mutual optimal play (the first player's wins; the rolls drawn as
        the engine's simulator draws them)."""
        from diceopt.games.pig.play import simulate

        sol = solved(rules)
        return self.simulation_report(simulate(sol, games, rng), sol.value)

    def commands(self) -> tuple[Command, ...]:
        """``boundary`` and ``fair`` (:mod:`diceopt.games.pig.commands`)."""
        from diceopt.games.pig.commands import pig_commands

        return pig_commands()

    def env_codec(self, rules: PigRules) -> Any:
        """Environments: ``hold``, ``roll``; entries seen by ``viewer``: own banked points,
        the other player's, and the turn total at risk (the mover's; environments add who
        moves)."""
        from diceopt.games.codec import Codec, observation

        nvec = (rules.goal + rules.sides, rules.goal + rules.sides, rules.goal)
        fields = ("my points", "opponent's points", "turn total")

        def encode(pos: Any, viewer: int = 0) -> np.ndarray:
            mine = pos.player == viewer
            me, other = (pos.me, pos.opponent) if mine else (pos.opponent, pos.me)
            return observation([me, other, pos.turn], nvec)

        return Codec((HOLD, ROLL), nvec, fields, encode)

    def exact_evaluation(
        self, rules: PigRules, choose: Callable[[Any, list[str]], str], seat: int = 1
    ) -> tuple[float, int]:
        """The policy in ``seat`` against the optimal player, exactly (the seat's chance
        of winning), on the engine graph (``graph.evaluate_seat``): the race solver has
        no path for a policy given position by position."""
        from diceopt.games.pig.graph import evaluate_seat

        return evaluate_seat(rules, solved(rules), choose, seat)

    def main_job(self, out: Callable[[str], None]) -> None:
        """The published Pig figure, reproduced."""
        rules = PigRules()
        sol = solved(rules)
        out("== Pig (goal 100, six-sided die), two players, each maximising P(win) ==")
        out(f"first player's win probability under optimal play: {sol.value:.9f}")
        out("(Neller & Presser 2004 publish about 0.5306)")
        how = (
            "loaded from the cache"
            if sol.loaded
            else f"race solver {sol.stats.get('seconds', 0.0):.2f} s"
        )
        out(f"{sol.states:,} states (turn starts and decisions); {how}")


SPEC = PigSpec()
