"""``make run``: every registered game's section, in registry order."""

from __future__ import annotations

from diceopt.cli.display import TerminalDisplay
from diceopt.games.registry import games
from diceopt.progress import shown_on


def main() -> None:
    """Print each game's ``main_job`` section (progress on stderr), then how to start the
    web advisor."""
    with shown_on(TerminalDisplay()):
        for i, spec in enumerate(games().values()):
            if i:
                print()
            spec.main_job(print)
    print()
    print("Web advisor: `.venv/bin/diceopt serve` then open http://127.0.0.1:8000/")
    print("  (`.venv/bin/diceopt serve --prepare` first builds every table the page needs)")


if __name__ == "__main__":
    main()
