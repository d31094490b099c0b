"""Bust: roll a die as often as you like, adding its pips; stop to score the total, but a
total above the limit scores nothing. A complete diceopt game in a few dozen lines."""

from dataclasses import dataclass

from diceopt.engine import Chance, Decision, Terminal
from diceopt.errors import InputError
from diceopt.games.contract import Parameter
from diceopt.games.engine_spec import EngineGameSpec


@dataclass(frozen=True)
class BustRules:
    """The bust limit (points) and the die's sides."""

    limit: int = 10
    sides: int = 6


class BustGame:
    """States are running totals; "bust" is the total gone over the limit."""

    def __init__(self, rules: BustRules) -> None:
        self.rules = rules

    def initial_state(self) -> int:
        return 0

    def node(self, state):
        if state in ("bust", "stopped"):
            return Terminal(0.0)
        if isinstance(state, tuple):  # ("rolling", total): the die is in the air
            return Chance(rolls_of(self.rules, state[1]))
        return Decision([("stop", float(state), "stopped"), ("roll", 0.0, ("rolling", state))])


def rolls_of(rules: BustRules, total: int) -> list:
    """The die's outcomes from a total: (probability, points, next state, pips rolled)."""
    return [
        (1 / rules.sides, 0.0, total + r if total + r <= rules.limit else "bust", r)
        for r in range(1, rules.sides + 1)
    ]


class BustSpec(EngineGameSpec):
    id = "bust"
    title = "Bust"
    summary = "roll to add pips, stop to score the total; over the limit scores 0"
    rules_help = (
        "Roll a die as often as you like, adding its pips to your total; stop to score the\n"
        "total. A total above the limit scores nothing. Positions: 'total 7'. Actions:\n"
        "'roll', 'stop'."
    )
    units = "expected final score (points)"
    parameters = (
        Parameter("limit", "highest total that still scores", type=int),
        Parameter("sides", "sides of the die", type=int),
    )
    variants = {"limit-10": "limit 10, six-sided die", "limit-20": "limit 20, six-sided die"}
    position_example = "total 7"

    def rules(self, variant=None, **params):
        limit = int(self.variant_id(variant).split("-")[1])
        rules = BustRules(**{"limit": limit, **params})
        if not (1 <= rules.limit <= 1000 and 2 <= rules.sides <= 100):
            raise InputError("bust needs a limit of 1 to 1000 and 2 to 100 sides")
        return rules

    def game(self, rules):
        return BustGame(rules)

    def parse_text(self, rules, text):
        words = text.split()
        if len(words) != 2 or words[0].lower() != "total" or not words[1].isdigit():
            raise InputError(f"write a position as 'total N', got {text!r}")
        return int(words[1])

    def format(self, rules, pos):
        return f"total {pos}" if isinstance(pos, int) else str(pos)


SPEC = BustSpec()
