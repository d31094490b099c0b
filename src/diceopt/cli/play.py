"""The one interactive play loop every game uses.

Each turn shows the position; the player types an action as ``advise`` writes it (the
game also accepts its short forms), ``?`` for a hint, or an empty line to be asked
again. Every decision is graded with its regret against the best action. End of input
(Ctrl-D) says goodbye with the total regret so far and exits with status 0. In two-player
games (``spec.players_of(rules)``) the computer plays the other seat optimally.

``record``: a file to save the game in (:mod:`diceopt.record`): every move, the human's
decisions as ``POSITION => ACTION``, the computer's and the only legal moves as
``POSITION -> ACTION``, each followed by what the dice did (``~> ...``) and a finished
game by its result (``= RESULT``), so that ``analyse`` can split it into luck and skill;
written once when the game ends or input ends; a failed write says so
(``diceopt: error: ...``, status 2) and nothing claims it was saved.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from diceopt.cli.common import check_output_path, prompt, resolve_seed
from diceopt.cli.streams import check_stdin
from diceopt.errors import InputError, one_line
from diceopt.games.contract import GameSpec

HINT_ACTIONS = 3  # actions listed by the hint


def play(
    spec: GameSpec, rules: Any, seed: int | None = None, seat: int = 0, record: str | None = None
) -> int:
    """Play one game of ``spec`` on the terminal; returns the exit status (0; 2 when the
    record could not be saved). ``record``: where to save the game (module docstring)."""
    from diceopt import record as rec

    if record is not None:
        check_output_path(record, "--record")
    check_stdin("play")  # before the game starts: it reads every move from there
    if seat != 0 and spec.players_of(rules) == 1:
        raise InputError(f"{spec.title} with these rules has one player: --seat 2 does not apply")
    seed = resolve_seed(seed)
    rng = np.random.default_rng(seed)
    pos = spec.new_position(rules, rng)
    units, players = spec.units_of(rules), spec.players_of(rules)
    print(f"{spec.title} (seed {seed}). Values: {units}.")
    print("Type an action, '?' for a hint; Ctrl-D stops.")
    lost, decisions = 0.0, 0
    lines = [
        *rec.header_lines(spec, rules, f"seed {seed}"),
        rec.start_line(seat if players == 2 else 0),
    ]
    while True:
        mover = spec.to_move(rules, pos)
        print()
        for line in spec.show(rules, pos):
            print(line)
        advice = spec.advise(rules, pos)
        if players == 2 and mover != seat:
            action = advice.best.action
            print(f"computer: {action}")
            lines.append(rec.move_line(spec, rules, pos, action, graded=False))
        elif len(advice.actions) == 1:
            action = advice.best.action
            print(f"you: {action} (the only move)")
            lines.append(rec.move_line(spec, rules, pos, action, graded=False))
        else:
            try:
                action = _ask(spec, rules, pos, advice)
            except EOFError:
                print(f"\ngoodbye: {decisions} decisions, total regret {lost:.4f} ({units})")
                return _save(record, lines, decisions)
            entry = advice.find(action)
            assert entry is not None  # _ask returns a legal action
            lines.append(rec.move_line(spec, rules, pos, action))
            decisions += 1
            lost += entry.regret
            if entry.regret <= 1e-9:
                print(f"  {action}: optimal")
            else:
                print(
                    f"  {action}: costs {entry.regret:.4f} "
                    f"(best: {advice.best.action}, {advice.best.value:.4f})"
                )
        step = spec.apply(rules, pos, action, rng)
        lines.append(rec.events_line(step.events))
        for event in step.events:
            print(f"  {event}")
        if step.game_over:
            if step.result is not None:
                lines.append(rec.result_line(step.result))
            print()
            for line in spec.show(rules, step.position):
                print(line)
            print(_outcome(players, step.result, seat))
            print(f"{decisions} decisions graded; total regret {lost:.4f} ({units})")
            return _save(record, lines, decisions)
        pos = step.position


def _save(record: str | None, lines: list[str], decisions: int) -> int:
    """Write the record (if asked); 0 when saved or not asked, 2 when the write failed."""
    from diceopt.record import save_record

    if record is None:
        return 0
    try:
        save_record(record, lines)
    except InputError as exc:
        print(f"diceopt: error: {exc}", file=sys.stderr)
        return 2
    print(f"record of {decisions} decisions saved to {record}")
    return 0


def _ask(spec: GameSpec, rules: Any, pos: Any, advice: Any) -> str:
    """Prompt until the player types a legal action; ``?`` prints a hint."""
    while True:
        line = prompt("> ")
        if not line:
            continue
        if line == "?":
            for a in advice.actions[:HINT_ACTIONS]:
                note = "best" if a.regret <= 1e-12 else f"loses {a.regret:.4f}"
                print(f"  hint: {a.action:<24} {a.value:.4f}  {note}")
            continue
        try:
            entry, _ = spec.evaluate(rules, pos, line)
        except InputError as exc:
            print(f"  {one_line(exc)}", file=sys.stderr)
            continue
        return entry.action


def _outcome(players: int, result: float | None, seat: int) -> str:
    """The end of the game in words, for the human's seat."""
    if result is None:
        return "game over"
    if players == 2:
        mine = result if seat == 0 else 1.0 - result
        return "you win" if mine > 0.5 else "you lose" if mine < 0.5 else "a draw"
    return f"game over: final result {result:g}"
