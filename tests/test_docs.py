"""The commands shown in README.md and docs/ print what the text says.

Convention (README.md and every page under docs/):

- A ``console`` fenced block holds examples: a line ``$ diceopt ...`` is a command (a
  trailing ``\\`` continues it on the next line; ``printf 'TEXT' | diceopt ...`` types
  TEXT at its prompts), and the lines after it, up to the next ``$`` line, are what it
  prints. Each such line must appear in the command's output (stdout, then stderr), in
  order, each within one output line; spaces may differ in number, and ``...`` stands for
  any text (a line holding only ``...`` skips lines). A command whose expected lines
  include ``diceopt: error:`` must exit with status 2, any other with status 0.
- A fenced block with ``title="NAME"`` is a file the page's commands may read: it is
  written as NAME in the folder where they run (a fresh temporary folder for each).
- An example too slow for the test suite (a full-size target table, Maxi Yatzy, a Ray
  cluster, ...) is preceded by the line ``<!-- not run: REASON -->``; such blocks are
  few, and every other ``console`` block runs.
- A ``diceopt`` command appears in no other kind of fenced block, so none goes unchecked.

Each command runs in this process through ``diceopt.cli.main``, with the test session's
table cache (so the Scandinavian table is solved once for the whole run).
"""

from __future__ import annotations

import io
import re
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from diceopt.cli import main

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]
FENCE = re.compile(r"^(?P<fence>`{3,}|~{3,})\s*(?P<lang>[\w+-]*)(?P<attrs>.*)$")
TITLE = re.compile(r'title="(?P<name>[^"]+)"')
NOT_RUN = re.compile(r"^<!--\s*not run:\s*(?P<reason>\S.*?)\s*-->$")
DICEOPT_LINE = re.compile(r"(^|\|)\s*(\$\s*)?(\S*/)?diceopt\s")
MOST_NOT_RUN = 16  # full-size tables, Ray, the installed plug-in: a short, known list


@dataclass
class Block:
    """One fenced block of a page."""

    page: Path
    line: int  # line number of the opening fence (1-based)
    lang: str
    title: str | None
    lines: list[str]
    not_run: str | None  # the reason, when the block is marked not run


@dataclass
class Example:
    """One ``$ diceopt ...`` command of a console block and the lines it must print."""

    block: Block
    line: int
    command: str
    expected: list[str] = field(default_factory=list)

    @property
    def id(self) -> str:
        return f"{self.block.page.relative_to(ROOT)}:{self.line}"


def blocks(page: Path) -> list[Block]:
    """Every fenced block of a Markdown page, with the not-run marker before it if any."""
    found: list[Block] = []
    lines = page.read_text().splitlines()
    i = 0
    while i < len(lines):
        match = FENCE.match(lines[i].strip())
        if match is None:
            i += 1
            continue
        indent = len(lines[i]) - len(lines[i].lstrip())
        previous = next((s.strip() for s in reversed(lines[:i]) if s.strip()), "")
        marker = NOT_RUN.match(previous)
        title = TITLE.search(match["attrs"])
        start, fence = i, match["fence"]
        i += 1
        body = []
        while i < len(lines) and not lines[i].strip().startswith(fence):
            body.append(lines[i][indent:])
            i += 1
        i += 1
        found.append(
            Block(
                page,
                start + 1,
                match["lang"],
                title["name"] if title else None,
                body,
                marker["reason"] if marker else None,
            )
        )
    return found


def examples(block: Block) -> list[Example]:
    """The commands of a console block, each with the output lines shown after it."""
    out: list[Example] = []
    continued = False
    for offset, text in enumerate(block.lines, start=block.line + 1):
        if continued:
            out[-1].command = out[-1].command[:-1] + " " + text.strip()
        elif text.startswith("$ "):
            out.append(Example(block, offset, text[2:].strip()))
        elif out and text.strip():
            out[-1].expected.append(text.strip())
        elif text.strip():
            raise AssertionError(f"{block.page.name}:{offset}: output before any '$' command")
        continued = bool(out) and out[-1].command.endswith("\\")
    return out


ALL_BLOCKS = [b for page in PAGES for b in blocks(page)]
CONSOLE = [b for b in ALL_BLOCKS if b.lang == "console"]
RUN = [e for b in CONSOLE if b.not_run is None for e in examples(b)]
NOT_RUN_EXAMPLES = [e for b in CONSOLE if b.not_run is not None for e in examples(b)]


def split_command(command: str) -> tuple[list[str], str]:
    """``diceopt ARGS`` -> (ARGS, stdin text); ``printf 'TEXT' | diceopt ARGS`` types TEXT."""
    words = shlex.split(command, comments=True)
    typed = ""
    if "|" in words:
        bar = words.index("|")
        assert words[0] == "printf" and bar == 2, f"only printf 'TEXT' | diceopt: {command}"
        typed = words[1].encode().decode("unicode_escape")
        words = words[bar + 1 :]
    assert Path(words[0]).name == "diceopt", f"not a diceopt command: {command}"
    return words[1:], typed


def compile_line(expected: str) -> re.Pattern[str]:
    """An expected line as a pattern: ``...`` is any text, a run of spaces any spaces."""
    pieces = expected.split("...")
    regex = ".*?".join(r"\s+".join(map(re.escape, piece.split())) for piece in pieces)
    return re.compile(regex)


def missing_lines(expected: list[str], output: str) -> list[str]:
    """The expected lines not found, in order, in the output ([] when all are)."""
    lines = output.splitlines()
    at = 0
    for number, want in enumerate(expected):
        if want == "...":
            continue
        regex = compile_line(want)
        for i in range(at, len(lines)):
            if regex.search(lines[i]):
                at = i + 1
                break
        else:
            return expected[number:]
    return []


@pytest.mark.parametrize("example", RUN, ids=lambda e: e.id)
def test_shown_command_prints_what_the_docs_say(example, tmp_path, monkeypatch, capsys):
    argv, typed = split_command(example.command)
    for block in ALL_BLOCKS:  # the files the page shows, by name
        if block.page == example.block.page and block.title:
            (tmp_path / block.title).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / block.title).write_text("\n".join(block.lines) + "\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))  # a module the page shows is importable
    modules = set(sys.modules)
    monkeypatch.setattr(sys, "stdin", io.StringIO(typed))
    try:
        status = main(argv)
    except SystemExit as exc:  # --help, --version
        status = exc.code or 0
    finally:
        for name in set(sys.modules) - modules:  # forget the page's modules (a new folder)
            module = sys.modules[name]
            where = getattr(module, "__file__", None) or list(getattr(module, "__path__", []))
            if str(tmp_path) in str(where):
                del sys.modules[name]
    captured = capsys.readouterr()
    output = captured.out + captured.err
    error = any("diceopt: error:" in line for line in example.expected)
    assert status == (2 if error else 0), f"{example.command}: status {status}\n{output}"
    missing = missing_lines(example.expected, output)
    assert not missing, f"{example.command}\nnot printed: {missing[0]!r}\noutput:\n{output}"


def test_docs_have_runnable_examples_and_few_not_run():
    assert len(RUN) >= 40
    for page in ("README.md", "docs/games/stick.md", "docs/games/yatzy.md"):
        assert any(e.block.page == ROOT / page for e in RUN), page
    assert NOT_RUN_EXAMPLES, "the not-run marker is used and recognised"
    assert len(NOT_RUN_EXAMPLES) <= MOST_NOT_RUN, [e.id for e in NOT_RUN_EXAMPLES]
    for example in NOT_RUN_EXAMPLES:  # they are still well-formed commands
        split_command(example.command)
    readme = [e for e in RUN if e.block.page.name == "README.md"]
    assert len(readme) >= 4  # one per game
    assert not [b for b in CONSOLE if b.page.name == "README.md" and b.not_run]


def test_no_diceopt_command_outside_console_blocks():
    stray = [
        f"{b.page.relative_to(ROOT)}:{b.line}: {text}"
        for b in ALL_BLOCKS
        if b.lang != "console"
        for text in b.lines
        if DICEOPT_LINE.search(text)
    ]
    assert not stray, stray


def test_console_blocks_hold_only_commands_and_output():
    for block in CONSOLE:
        assert examples(block), f"{block.page.name}:{block.line}: a console block without '$'"


def test_matching_is_strict():
    out = "dice 1 3 3\n  hold 1      13.375000000  best\n  stick   9.000000000  loses 4.375000\n"
    assert missing_lines(["hold 1 13.375000000 best", "stick ... loses 4.375"], out) == []
    assert missing_lines(["...", "stick 9.0"], out) == []
    assert missing_lines(["hold 1 13.375000001"], out) == ["hold 1 13.375000001"]
    assert missing_lines(["stick", "hold 1"], out) == ["hold 1"]  # order counts
    assert missing_lines(["hold 1 ... stick"], out) == ["hold 1 ... stick"]  # within a line


def test_readme_is_a_front_page_whose_links_work():
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= 210
    links = re.findall(r"\]\((?!https?:|#)([^)#\s]+)", text)
    assert any(link.startswith("docs/") for link in links)
    for link in links:
        assert (ROOT / link).exists(), link


def test_the_front_pages_name_every_registered_game():
    from diceopt.games.registry import games

    for page in (ROOT / "README.md", DOCS / "index.md"):
        text = page.read_text(encoding="utf-8").lower()
        missing = [s.title for s in games().values() if s.title.lower() not in text]
        assert not missing, f"{page.name} does not name {missing}"


def test_every_docs_page_is_in_the_navigation():
    config = (ROOT / "mkdocs.yml").read_text()
    for page in DOCS.rglob("*.md"):
        assert str(page.relative_to(DOCS)) in config, page


def test_stick_rules_are_explained_in_help_and_docs(capsys):
    with pytest.raises(SystemExit):
        main(["stick", "--help"])
    text = capsys.readouterr().out
    assert re.search(r"flips\s+to\s+its opposite face", text)
    assert "flips to its opposite face" in (DOCS / "games" / "stick.md").read_text()


def test_yatzy_impossible_score_is_one_line(capsys):
    position = "dice 1 2 3 4 5 | rerolls 2 | score 1e20"
    assert main(["yatzy", "advise", position]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "at most 374 points" in err
