"""Two-player Farkle (RULES §9, the rules of Busche & Neller 2017) from ``rules/farkle.toml``.

The rules come from the push-your-luck rule file (``families.push_luck``: the scoring
combinations, compiled into a roll table); the race solver (``families.race``) gives the
mover's win probability W at every turn start, both players optimal. Points are
multiples of the file's step (50).

Positions, notation, advice and play are the family's (``families.push_luck_spec``, as
Zilch's): a roll on the table from the mover's point of view, ``me 4000 | opponent 3500
| turn 300 | dice 1 3 5 5`` (``| player 2`` when the second player moves); actions set
scoring dice aside and then bank or roll on: ``set aside 1 5 5, roll 1`` or ``set aside
1, bank 250`` (the total banked; after setting all dice aside, ``roll 6``: hot dice). A
roll that scores nothing is a position whose one action is ``bust``: the turn passes
with nothing banked. A turn total that reaches the goal wins at once (``set aside ...,
bank``; no roll is offered there).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from diceopt.errors import InputError
from diceopt.games.contract import Parameter, Report, Step
from diceopt.games.families.push_luck import PushLuckRules, load_rules
from diceopt.games.families.push_luck_spec import PushLuckPosition, PushLuckSpec
from diceopt.games.families.race import RaceSolution, fair_command, race_solution
from diceopt.games.families.turn_engine import TurnValues
from diceopt.lazy import numpy as np

GOAL_MAX = 20_000
GOAL_STEPS_MAX = GOAL_MAX // 50  # the most scoring steps of a goal (W: steps x steps)
POSITION_EXAMPLE = "me 4000 | opponent 3500 | turn 300 | dice 1 3 5 5"


@dataclass(frozen=True)
class FarkleRules:
    """Farkle's parameters: the goal (points, a multiple of the step) and the dice;
    ``source``: the two-player push-your-luck rule file (a shipped name or a path;
    ``--rules``), Farkle's own by default."""

    goal: int = 10_000
    dice: int = 6
    source: str = "farkle"

    def __post_init__(self) -> None:
        base = self.base
        if base.players != 2:
            raise InputError(
                f"{self.source}: a one-player rule file; farkle takes two-player files "
                "(diceopt zilch solve --rules FILE takes one-player ones)"
            )
        step = base.step
        top = min(GOAL_MAX, GOAL_STEPS_MAX * step)
        if not isinstance(self.goal, int) or not step <= self.goal <= top:
            raise InputError(f"the goal must be {step} to {top} points, got {self.goal}")
        if self.goal % step:
            raise InputError(f"the goal must be a multiple of {step} points, got {self.goal}")
        if not isinstance(self.dice, int) or not 1 <= self.dice <= 6:
            raise InputError(f"Farkle is played with 1 to 6 dice, got {self.dice}")

    @functools.cached_property
    def base(self) -> PushLuckRules:
        """The rule file's rules as written."""
        return load_rules(self.source)

    def describe(self) -> dict[str, Any]:
        """The parameters as plain JSON-ready data (points)."""
        more = {} if self.source == "farkle" else {"rules": self.base.name}
        return {"goal": self.goal, "dice": self.dice, "step": self.base.step} | more

    @functools.cached_property
    def family(self) -> PushLuckRules:
        """The rule file's rules with this goal and number of dice."""
        return dataclasses.replace(self.base, goal=self.goal, dice=self.dice)


def base_rules() -> PushLuckRules:
    """The shipped rule file ``farkle.toml``."""
    return load_rules("farkle")


def solved(rules: FarkleRules) -> RaceSolution:
    """The solved race (cached per process and on disk, keyed by the rule file's hash)."""
    return race_solution("farkle", rules.family)


@functools.lru_cache(maxsize=16)
def roll_values(rules: FarkleRules, me: int, opponent: int) -> Any:
    """roll[t, n - 1] of ``RaceSolution.roll_values``: the win probability of rolling n
    dice at turn total t (kept for the few latest turns: advice asks for every set-aside
    of a roll)."""
    return solved(rules).roll_values(me, opponent)


class FarkleSpec(PushLuckSpec):
    """Two-player Farkle in the registry (see ``diceopt.games.contract``)."""

    id = "farkle"
    title = "Farkle"
    env_name = "Farkle"
    summary = "Farkle: two players race to 10,000 with six dice, each maximising P(win)"
    rules_help = (
        "Roll six dice; set aside scoring dice (single 1 = 100, single 5 = 50, three 1s =\n"
        "1000, three of another face n = 100 n), then bank the turn total or roll the rest\n"
        "(all six again once all are set aside). A roll that scores nothing loses the turn\n"
        "total (action 'bust'). First to bank 10,000 wins. Positions: 'me 4000 | opponent\n"
        "3500 | turn 300 | dice 1 3 5 5'. Actions: 'set aside 1 5 5, roll 1' or 'set aside\n"
        "1, bank'."
    )
    units = "probability that the player to move wins"
    players = 2
    bust_word = "farkle"
    parameters = (
        Parameter("goal", f"points to win, a multiple of 50 up to {GOAL_MAX}", type=int),
        Parameter("dice", "dice per turn, 1 to 6 (reduced games for checks)", type=int),
        Parameter(
            "rules",
            "a two-player push-your-luck rule file instead of Farkle's: a path, or a shipped "
            "file's name (see diceopt rules list); its goal and dice unless given",
            metavar="NAME|FILE",
            aliases=("--rule-file",),
        ),
    )
    variants = {
        "acg2017": "Busche & Neller 2017: simplest scoring, six dice, to 10,000",
        "quick": "the same rules to 2,000 points (a short game; solved in a second)",
    }
    variant_titles = {
        "acg2017": "To 10,000 (Busche & Neller 2017)",
        "quick": "To 2,000 (a quick game)",
    }
    position_example = POSITION_EXAMPLE
    small = {"goal": 1000, "dice": 6}
    small_position = "me 300 | opponent 500 | turn 150 | dice 1 1 5 2"  # each roll's value

    def legal_actions(self, rules: Any, pos: PushLuckPosition) -> list[str]:
        """Every legal action (set-asides with roll or bank, or bust), without solving."""
        return [text for text, _, _ in self.legal(rules, pos)]

    def rules(self, variant: str | None = None, **params: Any) -> FarkleRules:
        """The rules of a variant (``quick``: to 2,000) or of a two-player rule file
        (``rules``: its goal and dice), ``goal`` and ``dice`` as given."""
        goal, dice, source = params.get("goal"), params.get("dice"), params.get("rules")
        if source is not None:
            if variant is not None:
                raise InputError("give either --variant or --rules (a rule file), not both")
            base = load_rules(source)
            goal = base.goal if goal is None else goal
            return FarkleRules(goal, base.dice if dice is None else dice, source)
        default = 2_000 if self.variant_id(variant) == "quick" else 10_000
        return FarkleRules(default if goal is None else goal, 6 if dice is None else dice)

    def family_rules(self, rules: FarkleRules) -> PushLuckRules:
        """The rule file's rules with the goal and dice of ``rules``."""
        return rules.family

    def choice_values(
        self, rules: FarkleRules, pos: PushLuckPosition, total: int, left: int
    ) -> tuple[float | None, float]:
        """The mover's win probability after banking ``total`` points and after rolling
        on (0 where the bank reaches the goal: no roll is offered)."""
        sol = solved(rules)
        me, opp, t = pos.me // sol.step, pos.opponent // sol.step, total // sol.step
        bank = sol.bank_value(me, opp, t)
        if me + t >= sol.goal:
            return bank, 0.0
        return bank, float(roll_values(rules, me, opp)[t, (left or rules.dice) - 1])

    def bust_value(self, rules: FarkleRules, pos: PushLuckPosition) -> float:
        """The mover's win probability after a farkle: the opponent's turn starts."""
        sol = solved(rules)
        return 1.0 - sol.win_probability(pos.opponent // sol.step, pos.me // sol.step)

    def turn_terminals(self, rules: FarkleRules, pos: PushLuckPosition) -> TurnValues:
        """A bank of t points: the opponent's turn at the new scores, or a win; a bust:
        the opponent's turn at the old scores (the race's turn-start values)."""
        sol = solved(rules)
        me, opp = pos.me // sol.step, pos.opponent // sol.step
        return TurnValues(
            bank=lambda total: sol.bank_value(me, opp, total // sol.step),
            bust=self.bust_value(rules, pos),
            may_roll=lambda total: pos.me + total < rules.goal,
            key=(pos.me, pos.opponent),
        )

    def end_turn(
        self,
        rules: FarkleRules,
        pos: PushLuckPosition,
        banked: int | None,
        rng: np.random.Generator,
    ) -> Step:
        """A bank that reaches the goal wins; otherwise the other player's first roll."""
        me = pos.me + (banked or 0)
        if me >= rules.goal:
            final = dataclasses.replace(pos, me=me, turn=0)
            return Step(
                final, True, pos.player, (f"player {pos.player + 1} wins",), 1.0 - pos.player
            )
        dice = self.roll(rules, rules.dice, rng)
        nxt = PushLuckPosition(dice, me=pos.opponent, opponent=me, player=1 - pos.player)
        return Step(
            nxt, False, nxt.player, (f"player {nxt.player + 1} rolled {' '.join(map(str, dice))}",)
        )

    def solve(self, rules: FarkleRules, **options: Any) -> Report:
        """The first player's win probability (stored solution, or a solve)."""
        sol = solved(rules)
        stats = sol.stats
        lines = [
            f"{rules.base.title or rules.base.name}: goal {rules.goal}, {rules.dice} dice, "
            "both players optimal",
            f"first player's win probability: {sol.value:.12f}",
            f"{sol.goal * sol.goal:,} turn starts; "
            + (
                "loaded from the cache"
                if sol.loaded
                else f"solved in {stats['seconds']:.1f} s ({stats['cpu_seconds']:.1f} CPU s)"
            ),
        ]
        data = {"loaded": sol.loaded, "goal_steps": sol.goal, "step": sol.step, **stats}
        return Report(sol.value, data, lines)

    def simulate(
        self, rules: FarkleRules, games: int, rng: np.random.Generator, **options: Any
    ) -> Report:
        """Seeded games of mutual optimal play on the race kernel (first player's wins)."""
        from diceopt.games.families.race import simulate

        sol = solved(rules)
        seed = int(rng.integers(2**31 - 1))
        sim = simulate(sol, games, seed)
        outcomes = sim.pop("outcomes")
        return self.simulation_report(outcomes, sol.value)

    def commands(self) -> tuple:
        """``fair``: the compensation for the second player."""
        return (fair_command(lambda rules: race_solution("farkle", rules.family)),)

    main_job_weight = 20.0  # the race solve and its compile

    def main_job(self, out: Callable[[str], None]) -> None:
        """The first player's win probability and the fair compensation."""
        from diceopt.games.families.race import fair

        sol = solved(FarkleRules())
        out("== Farkle (Busche & Neller 2017 rules, to 10,000), both players optimal ==")
        out(f"first player's win probability: {sol.value:.12f} (not published)")
        out(f"fairest compensation for the second player: {fair(sol)['compensation']} points")


SPEC = FarkleSpec()
