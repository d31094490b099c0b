"""Zombie Dice against the computer (the page's play mode; ``GameSpec.versus_*``).

The human plays first in every round; the computer plays second, maximising its chance
of winning (strategy ``win``: the solved race). Between calls the computer's side is
its brains (``brains N``), which must agree with the human's position (``opponent N``).
The human's chance of winning is given at the start of each of their turns: exact, both
sides playing optimally from there.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from diceopt.errors import InputError
from diceopt.games.contract import Step, Versus
from diceopt.games.zombie import game
from diceopt.games.zombie.position import ZombiePosition, ZombieRules
from diceopt.lazy import numpy as np
from diceopt.notation import parse_int

STRATEGIES = ("win",)
WIN_TEXT = "your chance of winning from the start of your turn, both sides playing to win"


def check_strategy(strategy: str) -> str:
    """The strategy (case-insensitive) if the computer plays it, else InputError."""
    word = strategy.strip().lower()
    if word not in STRATEGIES:
        raise InputError(
            f"unknown strategy {strategy!r}: the computer plays {' or '.join(STRATEGIES)}"
        )
    return word


def computer_brains(computer: Any) -> int:
    """The computer's brains from its side: ``brains N`` or ``{"brains": N}``."""
    if isinstance(computer, Mapping):
        value = computer.get("brains")
    else:
        words = str(computer).split()
        if len(words) != 2 or words[0].lower() != "brains":
            raise InputError(f"the computer's side is 'brains N', got {computer!r}")
        value = parse_int(words[1])
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InputError(f"the computer's brains must be a whole number >= 0, got {value!r}")
    return value


def check_sides(you: ZombiePosition, computer: Any) -> None:
    """InputError (one line) unless the human moves first and the sides agree."""
    if you.seat != 0:
        raise InputError("against the computer you are player 1: the position needs 'player 1'")
    brains = computer_brains(computer)
    if brains != you.opponent:
        raise InputError(
            f"the sides disagree: your position says opponent {you.opponent}, the computer "
            f"has {brains} brains"
        )


def side(brains: int) -> tuple[str, dict[str, Any]]:
    """The computer's side as text and JSON."""
    return f"brains {brains}", {"brains": brains}


def estimate(rules: ZombieRules, you: ZombiePosition) -> float:
    """The human's chance of winning from the start of their turn (optimal play)."""
    start = ZombiePosition(you.me, you.opponent, 0)
    return game.action_values(rules, start)[game.ROLL]


def start(rules: ZombieRules, strategy: str, estimate_too: bool = True) -> Versus:
    """A new game: the human to roll first, both at 0 brains."""
    check_strategy(strategy)
    you = ZombiePosition(0, 0, 0)
    text, data = side(0)
    win = estimate(rules, you) if estimate_too else None
    return Versus(you, text, data, win_probability=win, win_probability_is=WIN_TEXT)


def play(
    rules: ZombieRules,
    you: ZombiePosition,
    computer: Any,
    action: str,
    rng: np.random.Generator,
    apply: Callable[[ZombiePosition, str], Step],
    estimate_too: bool = True,
) -> Versus:
    """The human's action; when it ends their turn, the computer's whole turn (``apply``
    plays one action: the spec's), then the human's next turn or the result."""
    check_sides(you, computer)
    step = apply(you, action)
    events = list(step.events)
    if not step.game_over and step.to_move == 0:  # the human's turn goes on
        text, data = side(you.opponent)
        return Versus(step.position, text, data, events=tuple(events))
    moves = []
    while not step.game_over and step.to_move == 1:
        pos = step.position
        best = max(game.action_values(rules, pos).items(), key=lambda kv: kv[1])[0]
        step = apply(pos, best)
        events.extend(
            e.replace("player 2", "the computer").replace("player 1", "you") for e in step.events
        )
        moves.append((best, step.position))
    mine = step.position
    brains = mine.opponent
    text, data = side(brains)
    if step.game_over:
        return Versus(mine, text, data, moves=tuple(moves), events=tuple(events), game_over=True,
                      result=step.result, win_probability_is=WIN_TEXT)  # fmt: skip
    win = estimate(rules, mine) if estimate_too else None
    return Versus(mine, text, data, moves=tuple(moves), events=tuple(events), win_probability=win,
                  win_probability_is=WIN_TEXT)  # fmt: skip
