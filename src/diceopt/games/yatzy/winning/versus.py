"""Yatzy against the computer, turn by turn (the web page's play mode; ``GameSpec.versus_*``).

Two sheets: the human moves first, then the computer plays a whole turn
(:func:`diceopt.games.yatzy.winning.win.computer_turn`, strategy ``expected`` or ``win``), and so
on until both sheets are full. Nothing is kept between calls: the state is the human's
position (with the dice of their turn) and the computer's side between its turns, its
sheet and score (``filled ... | upper N | score S``, the opponent notation of
:func:`diceopt.games.yatzy.winning.win.parse_opponent`). At the start of each of the human's
turns the answer carries the human's chance of winning if both play on as a named model
(:func:`diceopt.games.yatzy.winning.win.win_chance`, exact for that model): the human for the
expected score, the computer for the expected score (strategy ``expected``, as it plays)
or as the risk table that beats that play most often (strategy ``win``, a model of its
win-seeking play, which reacts to the human's sheet turn by turn).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from diceopt.errors import InputError
from diceopt.games.contract import Versus, VersusPlay
from diceopt.games.yatzy.play.advice import Position, format_position, position_to_json

STRATEGIES = ("expected", "win")


def check_strategy(strategy: str) -> str:
    """The strategy (case-insensitive) if the computer can play it, else InputError."""
    name = str(strategy).strip().lower()
    if name not in STRATEGIES:
        raise InputError(
            f"unknown strategy {strategy!r}: the computer plays {' or '.join(STRATEGIES)}"
        )
    return name


def side_text(pos: Position, rules: Any) -> str:
    """A side between its turns in the opponent notation: ``filled ... | upper N | score S``
    (and the Yahtzee-bonus flag where the rules track it)."""
    return " | ".join(format_position(replace(pos, dice=(), rerolls=0), rules).split(" | ")[2:])


def side_json(pos: Position) -> dict[str, Any]:
    """A side between its turns as JSON: ``{"filled", "upper", "score", "yahtzee_bonus"}``."""
    data = position_to_json(pos)
    del data["dice"], data["rerolls"]
    return data


def win_text(strategy: str) -> str:
    """What ``Versus.win_probability`` is: its model, in words."""
    computer = (
        "the computer playing for the expected score, as it does"
        if strategy == "expected"
        else "the computer modelled as the one risk table (theta 0 or +-0.05) that beats "
        "that play most often (its real win-seeking play reacts to your sheet each turn)"
    )
    return (
        "your probability of winning (a draw counting 1/2), exact for this model: you play "
        f"for the expected score from the start of your turn, {computer}"
    )


def _roll(rules: Any, rng: np.random.Generator) -> tuple[int, ...]:
    return tuple(sorted(int(d) for d in rng.integers(1, rules.sides + 1, size=rules.dice)))


def start(config: Any, strategy: str, rng: np.random.Generator, estimate: bool = True) -> Versus:
    """A new game: the human's first roll (``rng``), empty sheets, the estimate (None
    when not ``estimate``)."""
    from diceopt.games.yatzy.winning.win import parse_opponent, win_chance

    strategy = check_strategy(strategy)
    rules = config.rules
    you = Position(_roll(rules, rng), 2, score=0)
    computer = parse_opponent({"filled": [], "upper": 0, "score": 0}, rules)
    win = win_chance(config, you, computer, strategy) if estimate else None
    return Versus(
        you,
        side_text(computer, rules),
        side_json(computer),
        win_probability=win,
        win_probability_is=win_text(strategy),
    )


def check_sides(config: Any, you: Position, computer: Any) -> Position:
    """The computer's side (text or JSON) as a Position, after checking both sides at the
    start of a call of :func:`play`. InputError (one line): a bad side, a position without
    a score, a game that is over, sides that are not level (the human moves first: at the
    start of the human's turn both have filled as many boxes)."""
    from diceopt.games.yatzy.winning.win import parse_opponent

    rules = config.rules
    try:
        theirs = parse_opponent(computer, rules)
    except InputError as exc:
        reason = str(exc).removeprefix("opponent: ")
        raise InputError(f"the computer's side: {reason}") from None
    if you.score is None:
        raise InputError("a game against the computer needs your score ('score N')")
    if you.over(rules):
        raise InputError("the game is over: every category is filled")
    if len(theirs.filled) != len(you.filled):
        raise InputError(
            f"the sides are not level: you have filled {len(you.filled)} boxes and the "
            f"computer {len(theirs.filled)} (you move first, so at your turn both have as many)"
        )
    return theirs


def estimate(config: Any, you: Position, computer: Any, strategy: str) -> float:
    """The human's P(win) + 1/2 P(draw) (0-1) from the start of their turn (``you``: its
    sheet and score; its dice and rerolls are ignored) against the computer (its side,
    text or JSON) with ``strategy``, exact for the model :func:`win_text` names
    (:func:`diceopt.games.yatzy.winning.win.win_chance`): what :func:`start` and :func:`play`
    answer at a turn's start. InputError (one line): as :func:`play`."""
    from diceopt.games.yatzy.winning.win import win_chance

    strategy = check_strategy(strategy)
    theirs = check_sides(config, you, computer)
    return win_chance(config, you, theirs, strategy)


def play(config: Any, you: Position, computer: Any, action: str, how: VersusPlay) -> Versus:
    """The human plays ``action`` (canonical text) in ``you``; when it writes a category the
    computer (``computer``: its side, text or JSON) plays its whole turn with
    ``how.strategy`` (``Versus.moves``: its actions, the last one's position without dice),
    then the human's next roll is dealt (dice from ``how.rng``).

    InputError (one line): an unknown strategy, a bad side, a position without a score,
    sides that are not level (the human moves first: at the start of the human's turn both
    have filled as many boxes), a game that is over, an illegal action. ``how.estimate``
    False: ``win_probability`` None (ask :func:`estimate` apart).
    """
    from diceopt.games.yatzy.play.advice import apply_action, step_events, written_words
    from diceopt.games.yatzy.winning.win import computer_turn, parse_opponent, win_chance

    strategy, rng = check_strategy(how.strategy), how.rng
    rules = config.rules
    theirs = check_sides(config, you, computer)
    mine, over = apply_action(you, action, rules, rng)
    if mine.filled == you.filled:  # a keep: the turn goes on
        return Versus(
            mine,
            side_text(theirs, rules),
            side_json(theirs),
            events=(f"rolled: dice {' '.join(map(str, mine.dice))}",),
        )
    cat = next(c for c in mine.filled if c not in you.filled)
    events = [f"you {written_words(you, mine, rules)} in {cat}"]
    their_turn = replace(theirs, dice=_roll(rules, rng), rerolls=2)
    events.append(f"the computer rolled: dice {' '.join(map(str, their_turn.dice))}")
    steps = computer_turn(config, strategy, their_turn, mine, rng)
    after = steps[-1][1]
    for text, pos in steps:
        if text.startswith("keep"):
            events.append(f"the computer: {text}, rolled: dice {' '.join(map(str, pos.dice))}")
    written = next(c for c in after.filled if c not in theirs.filled)
    events.append(f"the computer {written_words(theirs, after, rules)} in {written}")
    theirs = parse_opponent(side_json(after), rules)
    # the last move wrote the dice: its position is the sheet, no dice (the computer's next
    # roll is made at its next turn)
    moves = (*steps[:-1], (steps[-1][0], replace(after, dice=(), rerolls=0)))

    def answer(pos: Position, **more: Any) -> Versus:
        """The answer after the computer's turn: its moves, the events, ``more``."""
        sides = side_text(theirs, rules), side_json(theirs)
        model = win_text(strategy)
        events_t = tuple(events)
        own = step_events(you, mine, rules)  # the human's own game, as a record says it
        return Versus(
            pos,
            *sides,
            moves=moves,
            events=events_t,
            win_probability_is=model,
            record_events=own,
            **more,
        )

    if over:
        mine_score, their_score = float(mine.points()), float(theirs.points())
        result = 1.0 if mine_score > their_score else 0.5 if mine_score == their_score else 0.0
        words = {1.0: "you win", 0.5: "a draw", 0.0: "the computer wins"}[result]
        events.append(f"game over: {words}, {mine_score:g} to {their_score:g}")
        return answer(mine, game_over=True, result=result)
    mine = replace(mine, dice=_roll(rules, rng))  # the human's next roll, after the computer
    events.append(f"your roll: dice {' '.join(map(str, mine.dice))}")
    win = win_chance(config, mine, theirs, strategy) if how.estimate else None
    return answer(mine, win_probability=win)
