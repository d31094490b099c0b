"""Zilch (RULES §9), one player: the maximum long-run expected score per turn.

The rules come from the push-your-luck rule file ``zilch.toml`` (or any one-player rule
file of the family, ``--rules NAME|FILE``); the solve is
:mod:`diceopt.games.families.push_luck_solo`, positions and play
:mod:`diceopt.games.families.push_luck_spec`. A game here is one turn, started after
``streak`` zilches in a row; its result is the turn's worth: the points banked (less 500
on a third zilch) plus the change of the relative value h of the zilch streak, so that
every turn is worth the long-run average per turn (620.855) in expectation, and advice
values and regrets are long-run points.
"""

from __future__ import annotations

from typing import Any

from diceopt.errors import InputError
from diceopt.games.contract import Parameter, Report, Step
from diceopt.games.families.push_luck import PushLuckRules, load_rules
from diceopt.games.families.push_luck_spec import PushLuckPosition, PushLuckSpec
from diceopt.games.families.turn_engine import TurnValues
from diceopt.lazy import numpy as np

UNITS = "expected turn score in long-run points (a zilch counted at its cost to later turns)"


class ZilchSpec(PushLuckSpec):
    """Zilch in the registry (see ``diceopt.games.contract``)."""

    id = "zilch"
    title = "Zilch"
    summary = "Zilch: set scoring dice aside, roll on or bank; most points per turn in the long run"
    rules_help = (
        "Roll six dice; set aside scoring dice (1 = 100, 5 = 50, three of a kind, a\n"
        "straight, three pairs, ...), then roll the rest or bank (at least 300). A roll\n"
        "with nothing to set aside is a zilch: the turn total is lost; the third in a row\n"
        "costs 500. All six set aside: roll six again. Positions: 'streak 1 | turn 350 |\n"
        "dice 1 1 2 3 5 6' (zilches in a row before the turn, the turn total before the\n"
        "roll). Actions: 'set aside 1 5, roll 4', 'set aside 1 5, bank 500', 'bust'."
    )
    units = UNITS
    players = 1
    bust_word = "zilch"
    parameters = (
        Parameter(
            "rules",
            "a one-player push-your-luck rule file instead of Zilch's: a path, or a shipped "
            "file's name (see diceopt rules list)",
            metavar="NAME|FILE",
            aliases=("--rule-file",),
        ),
    )
    variants = {"zilch": "Zilch as analysed by Matt Busche (2010): bank from 300, 3 zilches -500"}
    variant_titles = {"zilch": "Zilch (Busche 2010)"}
    position_example = "streak 1 | turn 350 | dice 1 2 3 3 6"
    play_limit = 1_000
    one_turn = True  # the page: "turn over", not "game over"

    def legal_actions(self, rules: Any, pos: PushLuckPosition) -> list[str]:
        """Every legal action (set-asides with roll or bank, or bust), without solving."""
        return [text for text, _, _ in self.legal(rules, pos)]

    def rules(self, variant: str | None = None, **params: Any) -> PushLuckRules:
        """Zilch's rules, or a one-player rule file's (``rules``)."""
        if params.get("rules") is not None and variant is not None:
            raise InputError("give either --variant or --rules (a rule file), not both")
        self.variant_id(variant)
        source = params.get("rules") or "zilch"
        rules = load_rules(source)
        if rules.players != 1:
            raise InputError(
                f"{source}: a two-player rule file; zilch takes one-player files "
                "(diceopt farkle solve --rules FILE takes two-player ones)"
            )
        return rules

    def family_rules(self, rules: PushLuckRules) -> PushLuckRules:
        """The rules themselves."""
        return rules

    def describe(self, rules: PushLuckRules) -> dict[str, Any]:
        """The rule file's content as data."""
        return rules.describe()

    def new_position(self, rules: PushLuckRules, rng: np.random.Generator) -> PushLuckPosition:
        """A turn's first roll after no zilches."""
        return PushLuckPosition(self.roll(rules, rules.dice, rng))

    def _solution(self, rules: PushLuckRules) -> Any:
        from diceopt.games.families.push_luck_solo import solved

        return solved(self.id, rules)

    def choice_values(
        self, rules: PushLuckRules, pos: PushLuckPosition, total: int, left: int
    ) -> tuple[float | None, float]:
        """Banking ``total`` and rolling on, in turn-worth points (module docstring)."""
        sol = self._solution(rules)
        t = total // rules.step
        if t > sol.cap:
            top = sol.cap * rules.step
            raise InputError(f"turn totals above {top:,} are not solved (bank: it is best)")
        turn = sol.turns[pos.streak]
        bank = total + sol.bank_add(pos.streak) if total >= rules.bank_minimum else None
        return bank, float(turn.roll[t, left or rules.dice])

    def bust_value(self, rules: PushLuckRules, pos: PushLuckPosition) -> float:
        """A zilch: h(streak after) less any penalty, less h(streak before)."""
        from diceopt.games.families.push_luck_solo import bust_outcome

        sol = self._solution(rules)
        nxt, penalty = bust_outcome(rules, pos.streak)
        return sol.h[nxt] - penalty - sol.h[pos.streak]

    def turn_terminals(self, rules: PushLuckRules, pos: PushLuckPosition) -> TurnValues:
        """Turn-worth terms: banking t points is worth t + h(0) - h(streak) (from the
        bank minimum on), a bust its relative value. The banking tail starts at twice
        the highest total at which the solve still rolls dice that can bust, plus a
        roll's most points (far below the solver's own cap, which the engine could not
        walk; a second, smaller cap leaves the values below it exact as long as it is
        above every such total)."""
        from diceopt.games.families.push_luck import max_roll_points

        sol = self._solution(rules)
        add = sol.bank_add(pos.streak)
        thresholds = [t for t in sol.policy_summary()[str(pos.streak)].values() if t is not None]
        cap = (2 * max(thresholds, default=0) + max_roll_points(rules)) // rules.step
        cap = max(cap, pos.turn // rules.step + 1)
        return TurnValues(
            bank=lambda total: total + add if total >= rules.bank_minimum else None,
            bust=self.bust_value(rules, pos),
            may_roll=lambda total: True,
            key=(pos.streak, cap),
            cap=cap,
            tail_bank=add,
        )

    def end_turn(
        self,
        rules: PushLuckRules,
        pos: PushLuckPosition,
        banked: int | None,
        rng: np.random.Generator,
    ) -> Step:
        """The turn is the game: its worth is the result; after a zilch that is not the
        streak's last, the next turn carries the streak (``Step.next_turn``)."""
        from diceopt.games.families.push_luck_solo import bust_outcome

        if banked is None:
            streak = bust_outcome(rules, pos.streak)[0]
            carry = {"streak": streak} if streak else None
            return Step(pos, True, 0, (), self.bust_value(rules, pos), carry)
        sol = self._solution(rules)
        return Step(pos, True, 0, (), banked + sol.bank_add(pos.streak))

    def solve(self, rules: PushLuckRules, **options: Any) -> Report:
        """The maximum long-run expected score per turn, h by streak, the banking policy."""
        sol = self._solution(rules)
        summary = sol.policy_summary()
        data = {
            "gain": sol.gain,
            "relative_values": list(sol.h),
            "bank_at": summary,
            "policy_iterations": sol.iterations,
            "residual": sol.residual,
            "turn_total_cap": sol.cap * rules.step,
        }
        lines = [
            f"{rules.title or rules.name}: maximum long-run expected score per turn; "
            f"by {self.bust_word}es in a row before the turn (streak):"
        ]
        streaks = len(sol.h)
        for s in range(streaks):
            at = ", ".join(
                f"{n}: {'never' if v is None else v}" for n, v in summary[str(s)].items()
            )
            relative = round(float(sol.h[s]), 3) + 0.0  # h(0) = 0 shows as +0.000, never -0.000
            cost = f"; relative value {relative:+.3f}" if streaks > 1 else ""
            lines.append(f"streak {s}: bank from (dice to roll: least total) {at}{cost}")
        lines.append(
            f"{sol.iterations} policy iterations, Bellman residual {sol.residual:.1e}; "
            f"turn totals solved up to {sol.cap * rules.step:,}"
        )
        return Report(sol.gain, data, lines)


SPEC = ZilchSpec()
