"""Zombie Dice in the registry (see ``diceopt.games.contract``): two players to 13 brains.

Values are the mover's win probability (a tie at the goal plays further rounds), or with
``--objective brains`` the expected brains of the turn alone. ``diceopt zombie turn``
prints the one-turn optimum and the "stop at two shotguns" policy, exactly.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from diceopt.advice import Advice, rank_actions
from diceopt.errors import InputError
from diceopt.games.contract import (
    Command,
    GameSpec,
    Parameter,
    Report,
    Step,
    Versus,
    VersusPlay,
    check_variant_params,
)
from diceopt.games.zombie import game
from diceopt.games.zombie.dice import COLOURS
from diceopt.games.zombie.position import (
    FACE_WORDS,
    GOAL_MAX,
    LEAD_CAP,
    POSITION_EXAMPLE,
    ZombiePosition,
    ZombieRules,
    check_position,
    parse_position,
    position_of,
)
from diceopt.lazy import numpy as np

VARIANTS = {
    "goal-13": "two players, first to 13 brains at the end of a round (the box's rules)",
    "goal-3": "two players, first to 3 brains at the end of a round",
}
VARIANT_TITLES = {
    "goal-13": "To 13 brains (the box's rules)",
    "goal-3": "To 3 brains (a quick game)",
}
OBJECTIVES = ("win", "brains")


def parse_action(text: str) -> str:
    """``roll``/``r`` or ``bank``/``b``/``stop``."""
    word = text.strip().lower()
    if word in (game.ROLL, "r"):
        return game.ROLL
    if word in (game.BANK, "b", "stop", "s"):
        return game.BANK
    raise InputError(f"unknown action {text.strip()!r}: type 'roll' or 'bank'")


def roll_words(who: str, rolled: tuple[tuple[int, int], ...]) -> str:
    """A roll in words, e.g. ``player 1 rolled green brain, red shotgun``."""
    dice = ", ".join(f"{COLOURS[c]} {FACE_WORDS[f]}" for c, f in rolled)
    return f"{who} rolled {dice}"


class ZombieSpec(GameSpec):
    """Zombie Dice (RULES §10) in the registry."""

    id = "zombie"
    title = "Zombie Dice"
    env_name = "ZombieDice"
    summary = "Zombie Dice: two players push their luck to 13 brains, each maximising P(win)"
    rules_help = (
        "Draw 3 of 13 dice (6 green, 4 yellow, 3 red) and roll: brains and shotguns are set\n"
        "aside, footprints stay in hand. Three shotguns end the turn with nothing; else bank\n"
        "the brains or roll again (footprints plus new dice from the cup). The round ends\n"
        "after player 2; once someone has 13 at a round's end the most brains wins.\n"
        f"Positions are the mover's: '{POSITION_EXAMPLE}'.\n"
        "Actions: 'roll' (r), 'bank' (b)."
    )
    units = "probability that the player to move wins"
    players = 2
    parameters = (
        Parameter("goal", f"brains to reach, 1 to {GOAL_MAX} (default 13)", type=int),
        Parameter(
            "lead_cap",
            f"leads counted up to this many brains (default {LEAD_CAP}; the error bound "
            "is reported)",
            type=int,
        ),
    )
    variants = VARIANTS
    variant_titles = VARIANT_TITLES
    position_example = POSITION_EXAMPLE
    small = {"goal": 3, "lead_cap": 10}
    computer_strategies = ("win",)
    advise_options = (
        Parameter(
            "objective",
            "win: the mover's win probability; brains: expected brains of this turn alone",
            "win",
            choices=OBJECTIVES,
        ),
    )

    def rules(self, variant: str | None = None, **params: Any) -> ZombieRules:
        """Rules of ``goal-G`` with ``goal`` / ``lead_cap`` overriding."""
        name = self.variant_id(variant)
        goal = int(name.split("-")[1])
        check_variant_params(variant, {"goal": goal}, params)
        if params.get("goal") is not None:
            goal = params["goal"]
        cap = params.get("lead_cap")
        return ZombieRules(goal, LEAD_CAP if cap is None else cap)

    # --- positions --------------------------------------------------------------------
    def parse_text(self, rules: ZombieRules, text: str) -> ZombiePosition:
        """The mover's position (see ``position``)."""
        return parse_position(rules, text)

    def parse_json(self, rules: ZombieRules, data: Mapping[str, Any]) -> ZombiePosition:
        """The JSON form (fields as in the text; dice as colour letters)."""
        unknown = set(data) - {
            "me",
            "opponent",
            "player",
            "brains",
            "shotguns",
            "feet",
            "aside",
            "rolled",
        }
        if unknown:
            raise InputError(f"unknown position field(s) {sorted(unknown)}")
        return position_of(rules, data)

    def new_position(self, rules: ZombieRules, rng: np.random.Generator) -> ZombiePosition:
        """No brains yet, the first player to roll."""
        return ZombiePosition(0, 0, 0)

    def replay_draws(
        self, rules: ZombieRules, pos: Any, action: str | None, after: Any, events: str = ""
    ) -> list[list[Any]] | None:
        """A roll draws dice from the cup (``choice`` of indices into the cup's dice,
        colours in order, as ``game.roll_dice``) and rolls them (``integers``: one face
        per die, feet first): the dice ``after`` shows first, then every other draw and
        face (a bust shows none); a bank and the opening draw nothing."""
        import itertools

        from diceopt.games.zombie.dice import FACES, HAND, TOTAL

        if pos is None or action is None or parse_action(action) != game.ROLL:
            return [[]]
        cup = [TOTAL[i] - pos.shot[i] - pos.feet[i] - pos.aside[i] for i in range(3)]
        need = HAND - sum(pos.feet)
        if sum(cup) < need:
            cup = [cup[i] + pos.aside[i] for i in range(3)]
        pool = [colour for colour in range(3) for _ in range(cup[colour])]
        held = [colour for colour in range(3) for _ in range(pos.feet[colour])]
        firsts = {colour: pool.index(colour) for colour in set(pool)}
        # each face kind's first face of a colour: brains from 0, then shotguns, then feet
        rep = [(0, b, b + s) for b, s, _ in FACES]

        def draws(drawn: tuple[int, ...], kinds: tuple[int, ...]) -> list[Any] | None:
            if len(drawn) != need or any(drawn.count(c) > cup[c] for c in set(drawn)):
                return None
            idx = [firsts[c] + drawn[:k].count(c) for k, c in enumerate(drawn)]
            faces = [rep[c][f] for c, f in zip(held + list(drawn), kinds, strict=True)]
            return ([idx] if need else []) + [faces]

        out = []
        if after is not None and after.rolled:  # the roll the next position shows, first
            shown = draws(
                tuple(c for c, _ in after.rolled[len(held) :]), tuple(f for _, f in after.rolled)
            )
            out += [shown] if shown is not None and len(after.rolled) == HAND else []
        for drawn in itertools.combinations_with_replacement(range(3), need):
            for kinds in itertools.product(range(3), repeat=HAND):
                found = draws(drawn, kinds)
                if found is not None:
                    out.append(found)
        return out

    def to_move(self, rules: ZombieRules, pos: ZombiePosition) -> int:
        """The mover's seat in the round."""
        return pos.seat

    def show(self, rules: ZombieRules, pos: ZombiePosition) -> list[str]:
        """Scores, the turn so far and the last roll."""
        lines = [
            f"player {pos.seat + 1} to move: {pos.me} brains banked, opponent {pos.opponent} "
            f"(goal {rules.goal})"
        ]
        if pos.rolled:
            lines.append(roll_words("last roll:", pos.rolled).replace(" rolled", ""))
        if pos.started:
            lines.append(
                f"this turn: {pos.brains} brains, {sum(pos.shot)} shotgun(s), "
                f"{sum(pos.feet)} footprint dice in hand"
            )
        return lines

    # --- play -------------------------------------------------------------------------
    def advise(
        self, rules: ZombieRules, pos: ZombiePosition, objective: str = "win", **options: Any
    ) -> Advice:
        """Roll and bank with the mover's win probability (or the expected brains of this
        turn, ``objective`` "brains"), best first."""
        if objective not in OBJECTIVES:
            raise InputError(f"objective must be one of {', '.join(OBJECTIVES)}")
        check_position(rules, pos)
        if objective == "brains":
            values = game.brains_values(pos)
            unit = "expected brains of this turn (points)"
        else:
            values = game.action_values(rules, pos)
            unit = self.units
        order = [a for a in (game.BANK, game.ROLL) if a in values]
        return Advice(rank_actions([(a, values[a]) for a in order]), unit)

    def reduced_rules(self) -> ZombieRules:
        """Two brains to win, leads counted to one brain: the engine's race is small."""
        return ZombieRules(2, 1)

    def independent_values(self, rules: ZombieRules, pos: ZombiePosition) -> dict[str, float]:
        """Roll and bank with the mover's win probability by the generic engine's value
        iteration on the whole race (``engine_game``), goals to 3 only (InputError)."""
        from diceopt.games.zombie.engine_game import independent_values

        return independent_values(rules, pos)

    def canonical_action(self, rules: ZombieRules, pos: ZombiePosition, text: str) -> str:
        """``roll``/``r`` or ``bank``/``b``."""
        return parse_action(text)

    def apply(
        self, rules: ZombieRules, pos: ZombiePosition, action: str, rng: np.random.Generator
    ) -> Step:
        """Roll (draw to 3 dice and roll them) or bank; the round and tie rules after a
        turn."""
        check_position(rules, pos)
        action = parse_action(action)
        who = f"player {pos.seat + 1}"
        events: list[str] = []
        if action == game.BANK and not pos.started:
            raise InputError("a turn starts with a roll: you cannot bank before rolling")
        if action == game.ROLL:
            rolled, recycled = game.roll_dice(pos.shot, pos.feet, pos.aside, rng)
            if recycled:
                events.append(f"{who}'s cup ran short: the brain dice go back into it")
            shot, feet, aside, brains, bust = game.after_roll(
                pos.shot, pos.aside, pos.brains, rolled, recycled
            )
            events.append(roll_words(who, tuple(rolled)))
            if not bust:
                nxt = ZombiePosition(
                    pos.me, pos.opponent, pos.seat, brains, shot, feet, aside, tuple(rolled)
                )
                return Step(nxt, False, pos.seat, tuple(events))
            events.append(f"{who} has {sum(shot)} shotguns: the turn ends with nothing")
            gained = 0
        else:
            gained = pos.brains
            events.append(f"{who} banks {gained} brains")
        first, second = pos.scores
        over, result, first, second, seat = game.end_turn(
            rules.goal, first, second, pos.seat, gained
        )
        if over:
            winner = 1 if result == 1.0 else 2
            events.append(f"player {winner} wins {max(first, second)} to {min(first, second)}")
            me, opponent = (first, second) if pos.seat == 0 else (second, first)
            final = ZombiePosition(me, opponent, pos.seat)
            return Step(final, True, pos.seat, tuple(events), result)
        if seat == 0 and first == second and first >= rules.goal:
            events.append(f"tied at {first}: another round")
        me, opponent = (first, second) if seat == 0 else (second, first)
        return Step(ZombiePosition(me, opponent, seat), False, seat, tuple(events))

    # --- play against the computer (see ``versus``) -----------------------------------
    def versus_start(
        self, rules: ZombieRules, strategy: str, rng: np.random.Generator, estimate: bool = True
    ) -> Versus:
        """A new game: you roll first; the computer plays second, to win."""
        from diceopt.games.zombie import versus

        return versus.start(rules, strategy, estimate)

    def versus_estimate(
        self, rules: ZombieRules, you: Any, computer: Any, strategy: str
    ) -> tuple[float, str]:
        """Your chance of winning from the start of your turn, and what it is."""
        from diceopt.games.zombie import versus

        versus.check_strategy(strategy)
        pos = you if isinstance(you, ZombiePosition) else self.parse(rules, you)
        versus.check_sides(pos, computer)
        return versus.estimate(rules, pos), versus.WIN_TEXT

    def versus_move(
        self, rules: ZombieRules, pos: ZombiePosition, computer: Any, action: str, play: VersusPlay
    ) -> Versus:
        """Your action; after your turn the computer's whole turn (see ``versus``)."""
        from diceopt.games.zombie import versus

        versus.check_strategy(play.strategy)
        rng = play.rng
        return versus.play(
            rules,
            pos,
            computer,
            action,
            rng,
            lambda p, a: self.apply(rules, p, a, rng),
            play.estimate,
        )

    def tables(
        self, rules: ZombieRules, need: str = "advice", pos: Any = None, **options: Any
    ) -> tuple[Any, ...]:
        """The solved race (advice to win, play against the computer, everything); none
        for distributions or advice on this turn's brains (solved in a moment)."""
        if pos is not None:
            check_position(
                rules, pos if isinstance(pos, ZombiePosition) else self.parse(rules, pos)
            )
        if need == "distribution" or (need == "advice" and options.get("objective") == "brains"):
            return ()
        return (game.race_table(rules),)

    # --- solving ----------------------------------------------------------------------
    def solve(self, rules: ZombieRules, **options: Any) -> Report:
        """The first player's win probability, both players optimal (stored solution)."""
        sol = game.solved(rules)
        lines = [
            f"Zombie Dice: two players to {rules.goal} brains, both maximising P(win)",
            f"first player wins {sol.value:.12f}; level at the goal or above, the first "
            f"player of the round wins {sol.tie:.12f}",
            f"leads counted to {rules.lead_cap} brains: error at most {sol.cap_error:.1e}; "
            f"{sol.turn_solves} turn solves in {sol.seconds:.1f} s",
        ]
        data = {
            "tie": sol.tie,
            "lead_cap": rules.lead_cap,
            "cap_error": sol.cap_error,
            "turn_solves": sol.turn_solves,
            "solve_seconds": sol.seconds,
        }
        return Report(sol.value, data, lines)

    def simulate(
        self, rules: ZombieRules, games: int, rng: np.random.Generator, **options: Any
    ) -> Report:
        """Seeded games of mutual optimal play (the first player's wins)."""
        outcomes = game.simulate_race(rules, games, rng)
        return self.simulation_report(outcomes, game.solved(rules).value)

    def commands(self) -> tuple[Command, ...]:
        """``turn`` and ``fair`` (:mod:`diceopt.games.zombie.commands`)."""
        from diceopt.games.zombie.commands import zombie_commands

        return zombie_commands()

    def main_job(self, out: Callable[[str], None]) -> None:
        """``make run`` section: the one-turn values (the race is in the benchmark)."""
        from diceopt.games.zombie.turn import expected_brains

        out("== Zombie Dice ==")
        out(f"most expected brains in one turn: {expected_brains().value:.12f}")
        out(f"rolling until two shotguns: {expected_brains('two-shotguns').value:.12f}")
