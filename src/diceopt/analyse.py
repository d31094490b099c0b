"""Analysing a played game: the cost of every decision of a record, for any game.

A record is text, one decision per line::

    POSITION => ACTION

``POSITION`` in the game's text notation (or its JSON form), ``ACTION`` as ``advise``
writes it (or a short form the game accepts in ``play``). Blank lines and lines whose
first non-blank character is ``#`` are ignored. ``diceopt GAME play --record FILE``
writes such a record of the decisions it graded (a ``#`` header names the game, seed
and rules). Only the :class:`~diceopt.games.registry.GameSpec` is used (``parse``,
``evaluate``), so every registered game can be analysed.

Every decision's cost is its regret: how much the action loses against the best action
of its position, in the game's units (points, or the mover's probability of winning);
the analysis sums them, averages them per decision, splits them by kind of decision
(the first word of the action: ``keep``, ``score``, ``hold``, ``roll`` ...) and lists
the costliest mistakes.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from diceopt.errors import InputError
from diceopt.games.registry import GameSpec

SEPARATOR = "=>"
MISTAKE = 1e-9  # a regret above this (game units) is a mistake
WORST = 3  # mistakes listed


@dataclass(frozen=True)
class Decision:
    """One graded line: its number (1-based), the position and action as the game
    writes them, the kind (first word of the action), the action's value and regret and
    the best action with its value (game units)."""

    line: int
    position: str
    action: str
    kind: str
    value: float
    regret: float
    best_action: str
    best_value: float


@dataclass
class Analysis:
    """The decisions of a record and their costs (game units)."""

    decisions: list[Decision]
    units: str

    @property
    def total(self) -> float:
        """Summed regret of every decision."""
        return float(sum(d.regret for d in self.decisions))

    @property
    def mean(self) -> float:
        """Mean regret per decision."""
        return self.total / len(self.decisions)

    def by_kind(self) -> dict[str, dict[str, float]]:
        """``{kind: {"decisions", "total_regret", "mean_regret"}}`` in order of first use."""
        out: dict[str, dict[str, float]] = {}
        for d in self.decisions:
            entry = out.setdefault(d.kind, {"decisions": 0, "total_regret": 0.0})
            entry["decisions"] += 1
            entry["total_regret"] += d.regret
        for entry in out.values():
            entry["mean_regret"] = entry["total_regret"] / entry["decisions"]
        return out

    def mistakes(self, n: int = WORST) -> list[Decision]:
        """The n costliest decisions with a regret above :data:`MISTAKE` (earliest first
        among equal costs)."""
        wrong = [d for d in self.decisions if d.regret > MISTAKE]
        return sorted(wrong, key=lambda d: (-d.regret, d.line))[:n]

    def to_json(self) -> dict[str, Any]:
        """Plain data: decisions, total/mean regret, by kind, the costliest mistakes."""
        return {
            "units": self.units,
            "count": len(self.decisions),
            "total_regret": self.total,
            "mean_regret": self.mean,
            "by_kind": self.by_kind(),
            "mistakes": [asdict(d) for d in self.mistakes()],
            "decisions": [asdict(d) for d in self.decisions],
        }

    def lines(self) -> list[str]:
        """The analysis as text (what ``diceopt GAME analyse`` prints)."""
        n = len(self.decisions)
        out = [
            f"{n} decisions: total cost {self.total:.6f}, mean {self.mean:.6f} per decision "
            f"({self.units})"
        ]
        for d in self.decisions:
            note = (
                "best" if d.regret <= MISTAKE else f"costs {d.regret:.6f} (best: {d.best_action})"
            )
            out.append(f"  line {d.line}: {d.action}: {note}")
        out.append("by kind of decision:")
        for kind, e in self.by_kind().items():
            out.append(
                f"  {kind:<8} {int(e['decisions']):>5} decisions  cost {e['total_regret']:.6f}"
                f"  mean {e['mean_regret']:.6f}"
            )
        worst = self.mistakes()
        out.append("costliest mistakes:" if worst else "costliest mistakes: none")
        for i, d in enumerate(worst, 1):
            out.append(
                f"  {i}. line {d.line}: {d.position} => {d.action}: costs {d.regret:.6f} "
                f"(best: {d.best_action}, {d.best_value:.6f})"
            )
        return out


def record_line(spec: GameSpec, rules: Any, pos: Any, action: str) -> str:
    """One decision as a record line: ``POSITION => ACTION``."""
    return f"{spec.format(rules, pos)} {SEPARATOR} {action}"


def analyse_record(spec: GameSpec, rules: Any, text: str, name: str = "record") -> Analysis:
    """Grade every decision of a record (module docstring); InputError naming the line
    (``NAME line N: ...``) for the first malformed or illegal line, or when there is none."""
    decisions = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        where = f"{name} line {number}"
        if SEPARATOR not in line:
            raise InputError(f"{where}: expected 'POSITION {SEPARATOR} ACTION', got {line!r}")
        position, action = (part.strip() for part in line.rsplit(SEPARATOR, 1))
        if not position or not action:
            raise InputError(f"{where}: expected 'POSITION {SEPARATOR} ACTION', got {line!r}")
        try:
            pos = spec.parse(rules, position)
            entry, advice = spec.evaluate(rules, pos, action)
        except InputError as exc:
            raise InputError(f"{where}: {exc}") from None
        decisions.append(
            Decision(
                number,
                spec.format(rules, pos),
                entry.action,
                entry.action.split()[0] if entry.action.split() else entry.action,
                entry.value,
                entry.regret,
                advice.best.action,
                advice.best.value,
            )
        )
    if not decisions:
        raise InputError(f"{name}: no decisions (lines 'POSITION {SEPARATOR} ACTION')")
    return Analysis(decisions, spec.units_of(rules))
