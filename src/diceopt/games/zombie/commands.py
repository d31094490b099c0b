"""Zombie Dice's own commands: ``turn`` (one turn from an empty hand, exactly, and
optionally simulated) and ``fair`` (the head start that makes the race fairest)."""

from __future__ import annotations

from typing import Any

from diceopt.errors import InputError
from diceopt.games.contract import Command, CommandOutput, Parameter
from diceopt.games.fair import fair_command
from diceopt.games.zombie import game
from diceopt.games.zombie.position import ZombieRules
from diceopt.lazy import numpy as np
from diceopt.options import MAX_GAMES, MAX_SEED


def zombie_commands() -> tuple[Command, ...]:
    """``fair`` and ``turn``, with their options."""
    return (
        fair_command(fair_start, units="brains"),
        Command(
            "turn",
            "expected brains of one turn from an empty hand: the optimum and 'stop at "
            "two shotguns', exactly (optionally simulated)",
            run_turn,
            (
                Parameter(
                    "games",
                    "also simulate this many seeded turns of each policy",
                    0,
                    int,
                    low=0,
                    high=MAX_GAMES,
                ),
                Parameter("seed", "simulation seed", 1, int, low=0, high=MAX_SEED),
            ),
        ),
    )


def turn_summary() -> dict[str, Any]:
    """The one-turn values and the optimal policy's banking thresholds, as JSON data."""
    from diceopt.games.zombie.dice import transitions
    from diceopt.games.zombie.turn import expected_brains

    best = expected_brains()
    simple = expected_brains("two-shotguns")
    t = transitions()
    tv = best.policy
    thresholds = {}
    out = t.configs.sum(axis=1)
    aside = t.aside_count.tolist()  # (a property that sums every configuration: once)
    for shots in range(3):
        # configurations of a turn in progress (3 dice or more out of the cup) before
        # any recycling (brains = brain dice set aside)
        rows = []
        for c in np.flatnonzero((t.shots == shots) & (out >= 3)).tolist():
            g0 = aside[c]
            banks = [g for g in range(g0, g0 + 1) if tv.values[g, c] <= tv.h[g]]
            rows.append((g0, bool(banks)))
        rolled = [g for g, bank in rows if not bank]
        banked = [g for g, bank in rows if bank]
        thresholds[str(shots)] = {
            "most_brains_rolled": max(rolled) if rolled else None,
            "fewest_brains_banked": min(banked) if banked else None,
        }
    return {
        "value": best.value,
        "upper_bound": best.upper,
        "brains_cap": best.cap,
        "two_shotguns": simple.value,
        "two_shotguns_upper_bound": simple.upper,
        "bank_thresholds_by_shotguns": thresholds,
    }


def fair_start(rules: ZombieRules, candidates: int | None) -> dict[str, Any]:
    """The brains given to the second player at the start (negative: to the first) that
    bring the first player's chance closest to 1/2 (:func:`diceopt.games.fair.fairest`),
    from the solved race's round starts."""
    from diceopt.games.fair import fairest

    sol = game.solved(rules)

    def chance(c: int) -> float:
        return float(sol.first[0, c] if c >= 0 else sol.first[-c, 0])

    return fairest(chance, rules.goal - 1, 1, candidates)


def run_turn(rules: ZombieRules, args: Any) -> CommandOutput:
    """``diceopt zombie turn``: the one-turn optimum and the two-shotguns policy."""
    if args.games < 0:
        raise InputError(f"--games must be >= 0, got {args.games}")
    data = turn_summary()
    if args.games:
        for policy, key in (("optimal", "value"), ("two-shotguns", "two_shotguns")):
            x = game.simulate_turns(args.games, np.random.default_rng(args.seed), policy)
            data[f"simulated_{key}"] = {
                "mean": float(x.mean()),
                "std_error": float(x.std(ddof=1) / np.sqrt(len(x))) if len(x) > 1 else None,
                "games": len(x),
            }
    lines = [
        f"most expected brains in one turn (optimal play): {data['value']:.12f}",
        f"rolling until two shotguns, then banking: {data['two_shotguns']:.12f}",
    ]
    for shots, row in data["bank_thresholds_by_shotguns"].items():
        lines.append(
            f"  {shots} shotgun(s): rolls on with up to {row['most_brains_rolled']} brains, "
            f"banks from {row['fewest_brains_banked']} in some hands"
        )
    for key in ("value", "two_shotguns"):
        sim = data.get(f"simulated_{key}")
        if sim:
            error = "" if sim["std_error"] is None else f" +/- {sim['std_error']:.4f}"
            lines.append(f"  simulated {key}: {sim['mean']:.4f}{error} ({sim['games']} turns)")
    return CommandOutput({"game": "zombie", **data}, lines)
