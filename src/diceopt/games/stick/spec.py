"""Stick or reroll in the registry (see ``diceopt.games.contract``): the game's commands,
positions, advice, play, simulation, environments and exact evaluation."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from diceopt.advice import Advice, rank_actions
from diceopt.errors import InputError
from diceopt.games.contract import GameSpec, Parameter, Report, Step, check_variant_params
from diceopt.games.stick.course import DISCOUNTED_AGENTS, discounted_agent_policy
from diceopt.games.stick.position import (
    POSITION_EXAMPLE,
    StickPosition,
    format_hold,
    format_position,
    hold_options,
    parse_hold,
    parse_position,
    position_from_json,
    reroll,
)
from diceopt.games.stick.rules import STICK, StickRules, format_value
from diceopt.games.stick.solve import evaluate_stick_policy, play_games, solve_stick, solved
from diceopt.lazy import numpy as np
from diceopt.notation import is_digits, parse_int, parse_number, parse_numbers
from diceopt.progress import Stage

TABLE_LIMIT = 500  # rolls printed by solve without --table


def _json_number(x: float) -> int | float:
    """``x`` as an int when it is a whole number (JSON ``6``, not ``6.0``), else a float."""
    x = float(x)
    return int(x) if x.is_integer() else x


class StickSpec(GameSpec):
    """Stick or reroll in the registry (see ``diceopt.games.contract``)."""

    id = "stick"
    title = "Stick or reroll"
    env_name = "Stick"
    summary = "stick or reroll (the course dice game): hold dice, pay to reroll"
    rules_help = (
        "Roll n dice. Either stick: every value that shows on two or more dice flips to\n"
        "its opposite face (with 1..6: 1<->6, 2<->5, 3<->4), the total is added to your\n"
        "points and the game ends; or hold any dice, pay the penalty and reroll the rest.\n"
        "Maximise the expected final points. Positions: 'dice 1 3 3' (values still to\n"
        "come) or 'dice 1 3 3 | points -2' (final scores). Actions: 'stick',\n"
        "'hold 3 3', 'hold -' (reroll everything)."
    )
    units = "expected final score (points)"
    parameters = (
        Parameter("dice", "number of dice (RULES default 3)", type=int),
        Parameter("sides", "sides per die (default 6)", type=int),
        Parameter(
            "values",
            "face values, e.g. 1,2,3,4,5,6 or 1 2 3 4 5 6 (default 1..sides)",
            type=parse_numbers,
            many=True,
        ),
        Parameter(
            "bias",
            "face probabilities summing to 1, e.g. 1/6 ... or 0.1,0.2,... (default uniform)",
            type=parse_numbers,
            many=True,
        ),
        Parameter("penalty", "points paid per reroll (default 1)", type=parse_number),
    )
    variants = {
        "3d6": "three six-sided dice, reroll penalty 1 (the course default)",
        "2d3": "two three-sided dice, reroll penalty 1",
        "6d6": "six six-sided dice, reroll penalty 1",
    }
    variant_titles = {
        "3d6": "Three six-sided dice",
        "2d3": "Two three-sided dice",
        "6d6": "Six six-sided dice",
    }
    position_example = POSITION_EXAMPLE
    solve_options = (Parameter("table", "print every roll, however many", flag=True),)

    def rules(self, variant: str | None = None, **params: Any) -> StickRules:
        """Rules of a variant ``NdK`` (N dice with K sides, penalty 1); the parameters set
        the rest (dice and sides only as the name says: InputError otherwise)."""
        text = (variant or "3d6").strip().lower()
        dice, _, sides = text.partition("d")
        if not (is_digits(dice) and is_digits(sides)):
            raise InputError(f"unknown stick variant {variant!r}; use NdK, e.g. 3d6")
        base = {"dice": parse_int(dice), "sides": parse_int(sides)}
        check_variant_params(variant, base, params)
        for key in ("values", "bias"):
            if params.get(key) is not None:
                params[key] = tuple(float(v) for v in params[key])
        return StickRules(**{**base, **params})

    def parse_text(self, rules: StickRules, text: str) -> StickPosition:
        """``dice 1 3 3`` or ``dice 1 3 3 | points -2``."""
        return parse_position(rules, text)

    def parse_json(self, rules: StickRules, data: Mapping[str, Any]) -> StickPosition:
        """``{"dice": [1, 3, 3], "points": -2}``."""
        return position_from_json(rules, data)

    def format(self, rules: StickRules, pos: StickPosition) -> str:
        """``dice 1 3 3`` (``| points P`` when known)."""
        return format_position(rules, pos)

    def to_json(self, rules: StickRules, pos: StickPosition) -> dict[str, Any]:
        """``{"dice": [...], "points": ...}`` (points only when known); whole numbers as
        JSON integers (dice 1 4 6, not 1.0 4.0 6.0)."""
        out: dict[str, Any] = {"dice": [_json_number(v) for v in rules.values_of(pos.roll)]}
        if pos.points is not None:
            out["points"] = _json_number(pos.points)
        return out

    def new_position(self, rules: StickRules, rng: np.random.Generator) -> StickPosition:
        """The first roll, 0 points."""
        roll = reroll(rules, np.zeros(rules.sides, dtype=np.int64), rng)
        return StickPosition(tuple(int(c) for c in roll), 0.0)

    def advise(self, rules: StickRules, pos: StickPosition, **options: Any) -> Advice:
        """Every hold (stick first among equals) with its expected points, best first."""
        sol = solved(rules)
        roll = pos.roll
        holds = [(format_hold(rules, roll, h), sol.hold_value(roll, h)) for h in hold_options(roll)]
        value_is = "expected points still to come" if pos.points is None else self.units
        # ranked by the points to come: the points so far are the same for every action
        return Advice(rank_actions(holds, offset=pos.points or 0.0), value_is)

    def independent_values(self, rules: StickRules, pos: StickPosition) -> dict[str, float]:
        """Every hold's value from the engine graph under the exact evaluation of the
        optimal policy (the table of roll values is not read): stick scores the roll, a
        hold pays the penalty and is worth its keep state's evaluated value."""
        from diceopt.games.exact import evaluated_policy

        sol = solved(rules)
        graph = sol.graph
        values = evaluated_policy(graph, sol.solution.objective, sol.policy).values
        assert graph.index is not None  # compile_game names the states
        out: dict[str, float] = {}
        for held in hold_options(pos.roll):
            if (held == pos.roll).all():
                value = rules.score(pos.roll)
            else:
                state = sol.game.keep_state(rules.lattice.index(held))
                value = -rules.penalty + float(values[graph.index[state]])
            out[format_hold(rules, pos.roll, held)] = (pos.points or 0.0) + value
        return out

    def canonical_action(self, rules: StickRules, pos: StickPosition, text: str) -> str:
        """``stick``, ``hold 3 3`` or ``hold -`` from any accepted form (``3 3``, ``all``)."""
        return format_hold(rules, pos.roll, parse_hold(rules, pos.roll, text))

    def apply(
        self, rules: StickRules, pos: StickPosition, action: str, rng: np.random.Generator
    ) -> Step:
        """Stick ends the game; a hold pays the penalty and rerolls the other dice."""
        roll = pos.roll
        held = parse_hold(rules, roll, action)
        points = pos.points or 0.0
        if (held == roll).all():
            final = points + rules.score(roll)
            shown = " ".join(format_value(v) for v in rules.values_of(roll))
            events = (f"stick with {shown}: {format_value(rules.score(roll))} points",)
            done = StickPosition(pos.counts, final if pos.points is not None else None)
            return Step(done, True, 0, events, final)
        new = reroll(rules, held, rng)
        after = None if pos.points is None else points - rules.penalty
        shown = " ".join(format_value(v) for v in rules.values_of(new))
        return Step(
            StickPosition(tuple(int(c) for c in new), after), False, 0, (f"rolled {shown}",)
        )

    def replay_draws(
        self,
        rules: StickRules,
        pos: StickPosition | None,
        action: str | None,
        after: Any,
        events: str = "",
    ) -> list[list[Any]] | None:
        """The faces rolled: those of ``after`` not held (``choice`` draws face indices);
        a stick rolls nothing; with no position after a roll, every roll."""
        held = np.zeros(rules.sides, dtype=np.int64)
        if pos is not None and action is not None:
            held = parse_hold(rules, pos.roll, action)
            if (held == pos.roll).all():
                return [[]]
        if after is None:
            return None  # a game left unfinished after a roll: every roll, in turn
        new = np.array(after.counts, dtype=np.int64) - held
        if len(new) != rules.sides or (new < 0).any():
            return []
        return [[np.repeat(np.arange(rules.sides), new)]]

    def solve(self, rules: StickRules, table: bool = False, **options: Any) -> Report:
        """The value of every roll, the optimal holds and the expectation from the first roll."""
        with Stage("solving stick or reroll (or loading the stored solution)"):
            sol = solved(rules)
        rows = sol.table()
        shown = len(rows) <= TABLE_LIMIT or table
        lines = []
        if shown:
            lines.append(f"{'dice':<24} {'action':<28} {'value':>12} {'stick':>8}")
            for row in rows:
                dice = " ".join(format_value(v) for v in row["dice"])
                hold = " ".join(format_value(v) for v in row["hold"]) or "-"
                action = "stick" if row["action"] == STICK else f"hold {hold}"
                lines.append(
                    f"{dice:<24} {action:<28} {row['value']:>12.6f} {row['stick_score']:>8g}"
                )
        else:
            lines.append(f"({len(rows)} rolls; pass --table to print them all)")
        how = (
            "loaded" if sol.loaded else f"solved in {sol.compile_seconds + sol.solve_seconds:.3f} s"
        )
        lines.append(
            f"{rules.dice} dice x {rules.sides} sides, penalty {rules.penalty:g}: "
            f"{len(rows)} rolls; {how}"
        )
        data = {
            "rolls": len(rows),
            "loaded": sol.loaded,
            "solve_seconds": sol.solve_seconds,
            "policy": rows if shown else None,
        }
        return Report(sol.value, data, lines)

    def simulate(
        self, rules: StickRules, games: int, rng: np.random.Generator, **options: Any
    ) -> Report:
        """Seeded games of optimal play on the engine's simulator (final scores, points)."""
        sol = solved(rules)
        return self.simulation_report(play_games(sol, games, rng), sol.value)

    def env_codec(self, rules: StickRules) -> Any:
        """Environments: ``stick``, ``hold -`` and ``hold V ...`` for every multiset of
        fewer than n dice (lattice order); entries: how many dice show each face (0..n)."""
        from diceopt.games.codec import Codec, observation

        lat = rules.lattice
        holds = [
            "hold " + (" ".join(format_value(v) for v in rules.values_of(lat.counts[i])) or "-")
            for i in range(len(lat.counts))
            if lat.size[i] < rules.dice
        ]
        nvec = (rules.dice + 1,) * rules.sides
        fields = tuple(f"dice showing {format_value(v)}" for v in rules.die.values)

        def encode(pos: Any, viewer: int = 0) -> np.ndarray:
            return observation(list(pos.counts), nvec)

        return Codec((STICK, *holds), nvec, fields, encode, points=lambda pos: pos.points)

    def exact_evaluation(
        self, rules: StickRules, choose: Callable[[Any, list[str]], str], seat: int = 1
    ) -> tuple[float, int]:
        """The policy queried once per roll shown (points omitted: the choice may depend on
        the dice only), evaluated exactly (expected final score, points)."""
        lat = rules.lattice
        policy: dict[int, int | None] = {}
        for i in lat.full():
            pos = StickPosition(tuple(int(c) for c in lat.counts[i]), None)
            action = choose(pos, sorted(a.action for a in self.advise(rules, pos).actions))
            held = parse_hold(rules, pos.roll, action)
            policy[int(i)] = None if (held == pos.roll).all() else lat.index(held)
        return float(evaluate_stick_policy(rules, policy)), len(policy)

    def main_job(self, out: Callable[[str], None]) -> None:
        """3d6: the exact expectation and what discounted course agents leave behind."""
        import time

        rules = StickRules()
        out("== Stick or reroll (3 dice x 6 sides, penalty 1) ==")
        t0 = time.perf_counter()
        sol = solve_stick(rules)
        out(f"optimal expected score from the first roll: {sol.value:.9f}")
        out(f"solved exactly in {time.perf_counter() - t0:.3f} s (no discount, no threshold)")
        for discount, threshold in DISCOUNTED_AGENTS:
            value = evaluate_stick_policy(
                rules, discounted_agent_policy(rules, discount, threshold)
            )
            out(
                f"value-iteration agent (discount {discount}, threshold {threshold}): "
                f"{value:.9f}, loses {sol.value - value:.9f} points per game"
            )
