"""Progress and notices go to the display the front end installs; games never print."""

from __future__ import annotations

import ast
from pathlib import Path

import diceopt.games
from diceopt.cli.display import TerminalDisplay
from diceopt.interrupt import run_chunks
from diceopt.progress import Display, Stage, notice, part, shown_on, watching_parts


class Recorder(Display):
    """A display that keeps what it was shown."""

    def __init__(self) -> None:
        self.events: list[tuple] = []

    def begin(self, stage: Stage) -> None:
        self.events.append(("begin", stage.label))

    def advance(self, stage: Stage, done: int, total: int | None) -> None:
        self.events.append(("advance", done, total))

    def end(self, stage: Stage, seconds: float, done: bool) -> None:
        self.events.append(("end", stage.label, done))

    def notice(self, text: str) -> None:
        self.events.append(("notice", text))


def test_stages_and_notices_reach_the_installed_display() -> None:
    recorder = Recorder()
    with shown_on(recorder):
        with Stage("solving", "layers") as stage:
            stage.update(1, 2)
        with Stage("storing") as stage:
            stage.fail()
        notice("diceopt: warning: a table was damaged")
    assert recorder.events == [
        ("begin", "solving"),
        ("advance", 1, 2),
        ("end", "solving", True),
        ("begin", "storing"),
        ("end", "storing", False),
        ("notice", "diceopt: warning: a table was damaged"),
    ]


def test_a_run_in_slices_reports_how_far_it_has_got() -> None:
    seen: list[tuple[int, int]] = []
    with watching_parts(lambda done, total: seen.append((done, total))):
        run_chunks(lambda lo, hi: None, 100)
    # the first slice is one item (no pace yet), then they grow; every slice is reported
    assert seen[0] == (1, 100) and seen[-1] == (100, 100) and len(seen) >= 2
    assert [d for d, _ in seen] == sorted({d for d, _ in seen}) and {t for _, t in seen} == {100}
    part(5, 10)  # outside the block: nobody listens, nothing happens
    inner: list[tuple[int, int]] = []
    with watching_parts(lambda d, t: seen.append((-d, -t))):
        with watching_parts(lambda d, t: inner.append((d, t))):
            part(3, 4)
    assert inner == [(3, 4)]  # the innermost watcher only


def test_without_a_display_nothing_is_shown(capsys) -> None:
    with shown_on(Display()):
        with Stage("solving", "layers") as stage:
            stage.update(1, 2)
        notice("diceopt: warning: a table was damaged")
    assert capsys.readouterr() == ("", "")


def test_the_terminal_display_writes_lines_on_stderr(capsys) -> None:
    with shown_on(TerminalDisplay()):
        with Stage("solving", "layers") as stage:
            stage.update(1, 2)
        with Stage("storing") as stage:
            stage.fail()
        notice("diceopt: warning: a table was damaged")
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.splitlines()
    assert lines[0] == "solving ..." and lines[1].startswith("solving: done in ")
    assert lines[2:] == ["storing ...", "diceopt: warning: a table was damaged"]


def printing_lines(source: str) -> list[int]:
    """Lines of ``source`` that print: a call of ``print``, ``print_json`` or
    ``sys.stdout``/``sys.stderr`` used at all."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id in ("print", "print_json"):
                found.append(node.lineno)
        if isinstance(node, ast.Attribute) and node.attr in ("stdout", "stderr"):
            found.append(node.lineno)
    return sorted(found)


def test_no_game_prints() -> None:
    root = Path(diceopt.games.__file__).parent
    for path in sorted(root.rglob("*.py")):
        lines = printing_lines(path.read_text(encoding="utf-8"))
        assert not lines, f"games/{path.relative_to(root)} prints at lines {lines}"


def test_a_printing_game_is_caught() -> None:
    source = """import sys
def run(out=print):
    print("value")
    out("fine: the front end's writer")
    sys.stderr.write("progress")
"""
    assert printing_lines(source) == [3, 5]
