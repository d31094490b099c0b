"""Analysing played games: the cost of every decision and, for whole games, the luck of
every roll, for any game.

A record (:mod:`diceopt.record`) lists a game's moves, ``POSITION => ACTION`` for the
graded decisions; ``diceopt GAME play --record FILE`` and ``diceopt GAME simulate
--record FILE`` write them with the rolls and results. Only the
:class:`~diceopt.games.contract.GameSpec` is used (``parse``, ``evaluate``,
``to_move``, ``solve``, ``players_of``, ``lower_is_better_of``), so every registered
game can be analysed.

Every decision's cost is its regret: how much the action loses against the best action
of its position, in the game's units (points, or the mover's probability of winning);
the analysis sums them, averages them per decision, splits them by kind of decision
(the first word of the action: ``keep``, ``score``, ``hold``, ``roll`` ...) and lists
the costliest mistakes.

Luck and skill. For a whole game (the record has its start, every roll and the result)
the result splits exactly into three parts. With V(p) the optimal value of position p
and Q(p, a) the value of action a there (as ``advise`` gives them), the *cost* of a
decision is V(p) - Q(p, a); the *luck* of what followed it is V(next) - Q(p, a), where
next is the position of the following move, or the end (V = the result); the opening
roll's luck is V(first position) - the optimal value from the start (``solve``; 0 where
the game does not start with a roll). The sums telescope::

    result = expected_start + luck - cost

Units: one-player games in the game's units (points); two-player games in the
probability that the recording player wins (player 1, unless the record says ``~> new
game as player K``): a value given in the other player's terms counts as 1 - v, so the
other player's mistakes are negative costs (gifts) and their rolls count with their
effect on the recording player. Where lower is better (e.g. Shut the Box's score) luck
and cost keep their sense (good luck > 0, a mistake costs > 0): a roll's luck is
Q(p, a) - V(next), a decision's cost its regret Q(p, a) - V(p), and
``result = expected_start - luck + cost``.

Records are replayed, not trusted (:mod:`diceopt.replay`): every move is played again
through the game's ``apply`` with the dice the record shows, and a record whose lines do
not follow from one another is refused (InputError naming the first such line). The
costliest decision named is the recording player's own.

A record with several games gets a split per whole game; the JSON's ``expected_start``,
``luck``, ``cost`` and ``result`` are their means (the identity holds for the means too).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from diceopt.errors import InputError
from diceopt.games.contract import GameSpec
from diceopt.record import DECISION, RecordedGame, read_record
from diceopt.replay import check_game

MISTAKE = 1e-9  # a regret above this (game units) is a mistake
WORST = 3  # mistakes listed


@dataclass(frozen=True)
class Decision:
    """One graded line: its number (1-based), the position and action as the game
    writes them, the kind (first word of the action), the action's value and regret and
    the best action with its value (game units, the mover's terms), the game it belongs
    to and the player who made it (both 1-based)."""

    line: int
    position: str
    action: str
    kind: str
    value: float
    regret: float
    best_action: str
    best_value: float
    game: int = 1
    player: int = 1


LUCK_SHOWN = 1e-9  # a roll is named the luckiest (unluckiest) only beyond this luck


@dataclass(frozen=True)
class Roll:
    """What followed a move (or the opening roll of a game, ``after`` None): the game,
    the ``~>`` line (the ``~> new game`` line for the opening roll), the move it
    followed, the events in words (for the opening roll: the first position) and its
    luck (the split's units; > 0: good luck)."""

    game: int
    line: int
    after: str | None
    events: str
    luck: float


@dataclass(frozen=True)
class MoveCost:
    """One move of a whole game: the game, its line, the player who made it (1-based),
    the action, whether it is a graded decision, its ``regret`` (the mover's terms) and
    its ``cost`` in the split's units (the other player's regrets count negative)."""

    game: int
    line: int
    player: int
    action: str
    graded: bool
    regret: float
    cost: float
    best_action: str


@dataclass
class Split:
    """A whole game's result split (see the module docstring): ``expected_start``,
    ``luck`` and ``cost`` with ``result = expected_start + sign * (luck - cost)``
    (``sign`` -1 where lower is better, else 1); values in the terms of ``seat``
    (0-based; the player in two-player games). ``regrets``: each player's summed regret
    in their own terms."""

    game: int
    seat: int
    sign: int
    expected_start: float
    result: float
    rolls: list[Roll] = field(default_factory=list)
    costs: list[MoveCost] = field(default_factory=list)
    regrets: list[float] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The four parts and each player's regrets (the lists are the analysis's)."""
        return {
            "game": self.game,
            "perspective": self.seat + 1,
            "expected_start": self.expected_start,
            "luck": self.luck,
            "cost": self.cost,
            "result": self.result,
            "regret_by_player": self.regrets,
        }

    @property
    def luck(self) -> float:
        """The summed luck of the game's rolls (the split's units)."""
        return float(sum(r.luck for r in self.rolls))

    @property
    def cost(self) -> float:
        """The summed cost of the game's moves (the split's units)."""
        return float(sum(c.cost for c in self.costs))


def _mean(values: list[float]) -> float:
    return float(sum(values) / len(values))


@dataclass
class Analysis:
    """The graded decisions of a record and their costs (game units), and the luck and
    skill split of its whole games (``splits``; ``missing``: for each other game, why
    its luck cannot be told)."""

    decisions: list[Decision]
    units: str
    players: int = 1
    sign: int = 1
    games: int = 1
    splits: list[Split] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)

    @property
    def total(self) -> float:
        """Summed regret of every graded decision."""
        return float(sum(d.regret for d in self.decisions))

    @property
    def mean(self) -> float | None:
        """Mean regret per graded decision (None: there is none)."""
        return self.total / len(self.decisions) if self.decisions else None

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
        return sorted(wrong, key=lambda d: (-d.regret, d.game, d.line))[:n]

    # --- luck and skill ---------------------------------------------------------------
    def rolls(self) -> list[Roll]:
        """Every roll of the whole games, in record order."""
        return [r for s in self.splits for r in s.rolls]

    def costs(self) -> list[MoveCost]:
        """Every move of the whole games, in record order."""
        return [c for s in self.splits for c in s.costs]

    def luckiest(self) -> Roll | None:
        """The roll with the most luck (the first among equals), None without rolls."""
        rolls = self.rolls()
        return max(rolls, key=lambda r: r.luck) if rolls else None

    def unluckiest(self) -> Roll | None:
        """The roll with the least luck (the first among equals), None without rolls."""
        rolls = self.rolls()
        return min(rolls, key=lambda r: r.luck) if rolls else None

    def costliest(self) -> MoveCost | None:
        """The recording player's own costliest move: the largest cost in the split
        above :data:`MISTAKE` (the first among equals; the other player's mistakes are
        gifts, never named here), None when every such move was best."""
        wrong = [
            c
            for s in self.splits
            for c in s.costs
            if c.player == s.seat + 1 and c.cost > MISTAKE and c.regret > MISTAKE
        ]
        return max(wrong, key=lambda c: c.cost) if wrong else None

    def perspective(self) -> str:
        """Whose terms the split is in, in words."""
        if self.players == 1:
            return self.units
        seats = sorted({s.seat + 1 for s in self.splits})
        who = " or ".join(f"player {k}" for k in seats) or "player 1"
        return f"probability that {who} wins"

    def identity(self) -> str:
        """The split's identity in words."""
        if self.sign < 0:
            return "result = expected_start - luck + cost (lower is better)"
        return "result = expected_start + luck - cost"

    def to_json(self) -> dict[str, Any]:
        """Plain data: decisions, total/mean regret, by kind, the costliest mistakes;
        the split (means over the whole games, None without one), each roll's luck,
        each move's cost, the luckiest and unluckiest roll and the recording player's
        costliest decision (its ``player``: theirs, 1-based)."""

        def part(name: str) -> float | None:
            return _mean([getattr(s, name) for s in self.splits]) if self.splits else None

        luckiest, unluckiest, costliest = self.luckiest(), self.unluckiest(), self.costliest()
        return {
            "units": self.units,
            "count": len(self.decisions),
            "total_regret": self.total,
            "mean_regret": self.mean,
            "by_kind": self.by_kind(),
            "mistakes": [asdict(d) for d in self.mistakes()],
            "decisions": [asdict(d) for d in self.decisions],
            "games": self.games,
            "whole_games": len(self.splits),
            "split_units": self.perspective(),
            "identity": self.identity(),
            "expected_start": part("expected_start"),
            "luck": part("luck"),
            "cost": part("cost"),
            "result": part("result"),
            "splits": [s.to_json() for s in self.splits],
            "rolls": [asdict(r) for r in self.rolls()],
            "costs": [asdict(c) for c in self.costs()],
            "luckiest_roll": None if luckiest is None else asdict(luckiest),
            "unluckiest_roll": None if unluckiest is None else asdict(unluckiest),
            "costliest_decision": None if costliest is None else asdict(costliest),
            "luck_missing": self.missing,
        }

    def lines(self) -> list[str]:
        """The analysis as text (what ``diceopt GAME analyse`` prints)."""
        n = len(self.decisions)
        mean = "" if self.mean is None else f", mean {self.mean:.6f} per decision"
        out = [f"{n} decisions: total cost {self.total:.6f}{mean} ({self.units})"]
        several = self.games > 1
        for d in self.decisions:
            note = (
                "best" if d.regret <= MISTAKE else f"costs {d.regret:.6f} (best: {d.best_action})"
            )
            out.append(f"  {_where(d.game, d.line, several)}: {d.action}: {note}")
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
                f"  {i}. {_where(d.game, d.line, several)}: {d.position} => {d.action}: "
                f"costs {d.regret:.6f} (best: {d.best_action}, {d.best_value:.6f})"
            )
        return out + self.split_lines()

    def split_lines(self) -> list[str]:
        """The luck and skill split in words (or why there is none)."""
        out = []
        if self.splits:
            out.append(f"luck and skill ({self.perspective()}): {self.identity()}")
            plus, minus = ("+", "-") if self.sign > 0 else ("-", "+")
            for s in self.splits:
                who = f" (player {s.seat + 1}'s terms)" if self.players > 1 else ""
                out.append(
                    f"  game {s.game}{who}: result {s.result:.6f} = expected from the start "
                    f"{s.expected_start:.6f} {plus} luck of the dice {s.luck:.6f} {minus} "
                    f"cost of the decisions {s.cost:.6f}"
                )
                if self.players > 1:
                    mine = s.regrets[s.seat]
                    theirs = sum(s.regrets) - mine
                    out.append(
                        f"    decisions of player {s.seat + 1} cost {mine:.6f}; the other "
                        f"player's mistakes gave {theirs:.6f} back"
                    )
            if len(self.splits) > 1:
                data = self.to_json()
                out.append(
                    f"  mean of {len(self.splits)} games: result {data['result']:.6f} = "
                    f"{data['expected_start']:.6f} {plus} {data['luck']:.6f} {minus} "
                    f"{data['cost']:.6f}"
                )
            several = self.games > 1
            for label, roll, sign in (
                ("luckiest", self.luckiest(), 1),
                ("unluckiest", self.unluckiest(), -1),
            ):
                assert roll is not None  # a whole game has its opening roll
                if sign * roll.luck <= LUCK_SHOWN:  # e.g. a bank (luck 0) when all was good
                    than = "better" if sign > 0 else "worse"
                    out.append(f"  {label} roll: none (no roll came out {than} than expected)")
                    continue
                when = "the opening roll" if roll.after is None else f"after {roll.after}"
                out.append(
                    f"  {label} roll: {_where(roll.game, roll.line, several)}, {when}: "
                    f"{roll.events} (luck {roll.luck:+.6f})"
                )
            worst = self.costliest()
            if worst is None:
                whose = " of the recording player" if self.players > 1 else ""
                out.append(f"  costliest decision: none (every move{whose} was best)")
            else:
                who = f", player {worst.player}" if self.players > 1 else ""
                out.append(
                    f"  costliest decision: {_where(worst.game, worst.line, several)}{who}: "
                    f"{worst.action} costs {worst.regret:.6f} (best: {worst.best_action})"
                )
        for reason in self.missing:
            out.append(f"luck and skill: {reason}")
        return out


def _where(game: int, line: int, several: bool) -> str:
    return f"game {game} line {line}" if several else f"line {line}"


def analyse_record(spec: GameSpec, rules: Any, text: str, name: str = "record") -> Analysis:
    """Grade every decision of a record and split each whole game's result into luck
    and skill (module docstring); InputError naming the line (``NAME line N: ...``) for
    the first malformed or illegal line, or when the record has no move."""
    games = read_record(text, name)
    if not games:
        raise InputError(f"{name}: no decisions (lines 'POSITION {DECISION} ACTION')")
    players = spec.players_of(rules)
    sign = -1 if spec.lower_is_better_of(rules) else 1
    start: list[float] = []  # the optimal value from the start, solved on first need
    analysis = Analysis([], spec.units_of(rules), players, sign, len(games))
    for game in games:
        graded = _grade(spec, rules, game, name)
        if game.start_line is not None and game.seat >= players:
            raise InputError(
                f"{name} line {game.start_line}: player {game.seat + 1} in a game of "
                f"{players} player{'s' if players > 1 else ''}"
            )
        check_game(spec, rules, game, [g.pos for g in graded], name)
        analysis.decisions += [
            g.decision for g, m in zip(graded, game.moves, strict=True) if m.graded
        ]
        reason = game.missing()
        if reason is not None:
            analysis.missing.append(f"game {game.number}: {reason}" if len(games) > 1 else reason)
            continue
        if not start:
            start.append(float(spec.solve(rules).value))
        analysis.splits.append(_split(game, graded, start[0], players, sign))
    return analysis


@dataclass(frozen=True)
class _Graded:
    """A move with its advice: the Decision, the mover (0-based), V and Q (mover's terms)
    and the position object."""

    decision: Decision
    mover: int
    best: float
    value: float
    pos: Any = None


def _grade(spec: GameSpec, rules: Any, game: RecordedGame, name: str) -> list[_Graded]:
    """Every move of a game with its advice (InputError naming the line)."""
    out = []
    for move in game.moves:
        try:
            pos = spec.parse(rules, move.position)
            entry, advice = spec.evaluate(rules, pos, move.action)
        except InputError as exc:
            raise InputError(f"{name} line {move.line}: {exc}") from None
        mover = spec.to_move(rules, pos)
        words = entry.action.split()
        move.action = entry.action  # canonical: the replay plays it
        decision = Decision(
            move.line,
            spec.format(rules, pos),
            entry.action,
            words[0] if words else entry.action,
            entry.value,
            entry.regret,
            advice.best.action,
            advice.best.value,
            game.number,
            mover + 1,
        )
        out.append(_Graded(decision, mover, advice.best.value, entry.value, pos))
    return out


def _split(
    game: RecordedGame, graded: list[_Graded], expected: float, players: int, sign: int
) -> Split:
    """The luck and skill split of a whole game (``expected``: the optimal value from
    the start, the first player's terms)."""
    seat = game.seat

    def ours(value: float, mover: int) -> float:
        """A value in the mover's terms, in the recording player's."""
        return value if players == 1 or mover == seat else 1.0 - value

    assert game.result is not None and game.start_line is not None
    start = ours(expected, 0)
    result = ours(game.result, 0)
    split = Split(game.number, seat, sign, start, result, regrets=[0.0] * players)
    first = graded[0]
    split.rolls.append(
        Roll(
            game.number,
            game.start_line,
            None,
            first.decision.position,
            sign * (ours(first.best, first.mover) - start),
        )
    )
    for i, (g, move) in enumerate(zip(graded, game.moves, strict=True)):
        q = ours(g.value, g.mover)
        after = ours(graded[i + 1].best, graded[i + 1].mover) if i + 1 < len(graded) else result
        d = g.decision
        split.costs.append(
            MoveCost(
                game.number,
                move.line,
                g.mover + 1,
                d.action,
                move.graded,
                d.regret,
                sign * (ours(g.best, g.mover) - q),
                d.best_action,
            )
        )
        split.regrets[g.mover] += d.regret
        assert move.events is not None and move.events_line is not None
        split.rolls.append(
            Roll(game.number, move.events_line, d.action, move.events, sign * (after - q))
        )
    return split
