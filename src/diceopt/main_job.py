"""``make run``: solve the games and show what the solver finds, section by section."""

from __future__ import annotations

import time
from collections.abc import Callable

DISCOUNTED_AGENTS = ((0.96, 0.1), (0.97, 0.001))


def stick_section(out: Callable[[str], None] = print) -> None:
    """3d6 stick or reroll: exact expectation and what discounted agents leave behind."""
    from diceopt.games.stick import (
        StickRules,
        discounted_agent_policy,
        evaluate_stick_policy,
        solve_stick,
    )

    out("== Stick or reroll (3 dice x 6 sides, penalty 1) ==")
    rules = StickRules()
    t0 = time.perf_counter()
    sol = solve_stick(rules)
    out(f"optimal expected score from the first roll: {sol.value:.9f}")
    out(f"solved exactly in {time.perf_counter() - t0:.3f} s (no discount, no threshold)")
    for discount, threshold in DISCOUNTED_AGENTS:
        value = evaluate_stick_policy(rules, discounted_agent_policy(rules, discount, threshold))
        out(
            f"value-iteration agent (discount {discount}, threshold {threshold}): "
            f"{value:.9f}, loses {sol.value - value:.9f} points per game"
        )


def main() -> None:
    """Every section of ``make run``."""
    from diceopt.games import pig, shutbox, yatzy

    stick_section()
    for game in (yatzy, shutbox, pig):
        print()
        game.main_job()
    print()
    print("Web advisor: `.venv/bin/diceopt serve` then open http://127.0.0.1:8000/")


if __name__ == "__main__":
    main()
