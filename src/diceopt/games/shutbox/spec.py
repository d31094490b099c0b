"""Shut the Box in the registry: ``ShutSpec`` (rules, positions, advice, play, solving,
simulation, environments, exact evaluation, ``make run``) and the ``shutbox diff`` command.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Mapping
from typing import Any, cast

from diceopt.advice import Advice, rank_actions
from diceopt.engine import sample_edge
from diceopt.engine.compile import CHANCE
from diceopt.errors import InputError
from diceopt.games.contract import (
    Command,
    GameSpec,
    Parameter,
    Report,
    Step,
    check_variant_params,
)
from diceopt.games.shutbox.duel import differing_positions, duel_report
from diceopt.games.shutbox.game import DICE_LABELS, END_TURN, ROLL
from diceopt.games.shutbox.play import (
    apply_action,
    independent_move_values,
    move_values,
    policy_rows,
)
from diceopt.games.shutbox.position import (
    POSITION_EXAMPLE,
    ShutPosition,
    action_text,
    parse_move,
    parse_position,
    position_from_json,
    position_of_state,
)
from diceopt.games.shutbox.rules import (
    DICE_RULES,
    OBJECTIVES,
    UNITS,
    VARIANT_TITLES,
    VARIANTS,
    ShutRules,
    tiles_of,
    variant_of,
    variant_parts,
)
from diceopt.games.shutbox.solve import solved
from diceopt.lazy import numpy as np


class ShutSpec(GameSpec):
    """Shut the Box in the registry (see ``diceopt.games.contract``).

    ``players`` is 2 (the win objective); the rules say how many play
    (``players_of``), what values mean (``units_of``) and whether lower is better.
    """

    id = "shutbox"
    title = "Shut the Box"
    env_name = "ShutTheBox"
    summary = "one player (lowest score or best chance to shut) or two players (most wins)"
    rules_help = (
        "Tiles 1..N start open. Roll (two dice; one die once the open tiles sum to 6 or\n"
        "less, as the dice rule says), then shut open tiles summing to the roll; the turn\n"
        "ends when no open tiles sum to the roll, scoring the open tiles. Objectives:\n"
        "score (lowest expected score), shut (best chance to shut the box), win (two\n"
        "players: player 2 plays after player 1, knowing player 1's score; lower wins).\n"
        "Positions: 'open 1 3 4 7 | roll 8' ('| target 16' for player 2; no roll: before\n"
        "the roll) or {\"open\": [1, 3, 4, 7], \"roll\": 8}. Actions: 'shut 1 7', 'roll',\n"
        "'roll one die', 'roll two dice', 'end turn'."
    )
    units = "the objective value (expected final score, probability of shutting, or wins)"
    players = 2
    lower_is_better = True  # the default objective, score
    parameters = (
        Parameter("tiles", "tiles 1..N, N = 1..12 (default 9)", type=int),
        Parameter(
            "dice_rule",
            "two-then-one (default): two dice while the open tiles sum to more than 6; "
            "optional-one: one die allowed at 6 or less; always-two",
            type=str.lower,
            choices=DICE_RULES,
        ),
        Parameter(
            "objective",
            "score: lowest expected score; shut: best P(shut); win: two players "
            "(default: score, or win with --players 2)",
            type=str.lower,
            choices=OBJECTIVES,
        ),
        Parameter("players", "1 or 2 (2 is the win objective)", type=int, choices=(1, 2)),
    )
    variants = VARIANTS
    variant_titles = VARIANT_TITLES
    position_example = POSITION_EXAMPLE
    solve_options = (
        Parameter("policy", "list every decision (player 1's in the two-player game)", flag=True),
    )

    # --- rules ---------------------------------------------------------------------------
    def rules(self, variant: str | None = None, **params: Any) -> ShutRules:
        """Rules of a variant ``RULE/OBJECTIVE[/TILES]``; the parameters set what its name
        leaves open (InputError when they contradict it)."""
        base = variant_of(variant)
        check_variant_params(variant, variant_parts(variant), params)
        objective = params.get("objective")
        players = params.get("players")
        if players == 2:
            if objective not in (None, "win"):
                raise InputError(f"two players play for wins: use --objective win, not {objective}")
            named = variant_parts(variant).get("objective", "win")
            if named != "win":
                raise InputError(
                    f"--variant {variant} sets objective {named}, but --players 2 plays for "
                    "wins: drop one"
                )
            objective = "win"
        elif players == 1 and (objective or base.objective) == "win":
            raise InputError("the win objective is the two-player game: use --players 2")
        tiles = params.get("tiles")
        return ShutRules(
            base.tiles if tiles is None else tiles,
            params.get("dice_rule") or base.dice_rule,
            objective or base.objective,
        )

    def describe(self, rules: ShutRules) -> dict[str, Any]:
        """Tiles, dice rule, objective and players."""
        return rules.describe()

    def players_of(self, rules: ShutRules) -> int:
        """2 in the win game, else 1."""
        return rules.players

    def units_of(self, rules: ShutRules) -> str:
        """Points (lower is better), P(shut), or the mover's expected wins."""
        return UNITS[rules.objective]

    def lower_is_better_of(self, rules: ShutRules) -> bool:
        """True for the score objective."""
        return rules.objective == "score"

    # --- positions -------------------------------------------------------------------------
    def parse_text(self, rules: ShutRules, text: str) -> ShutPosition:
        """``open 1 3 4 7 | roll 8`` (``| target 16`` for player 2; no roll: before it)."""
        return parse_position(rules, text)

    def parse_json(self, rules: ShutRules, data: Mapping[str, Any]) -> ShutPosition:
        """``{"open": [1, 3, 4, 7], "roll": 8, "target": 16}`` (roll, target optional)."""
        return position_from_json(rules, data)

    def new_position(self, rules: ShutRules, rng: np.random.Generator) -> ShutPosition:
        """Every tile open and the first roll shown (before it, where dice are chosen)."""
        g = solved(rules).graph
        if g.kind[0] != CHANCE:
            return ShutPosition(rules.full)
        roll = g.label(sample_edge(g, 0, rng))
        return ShutPosition(rules.full, int(cast(int, roll)))  # labelled with its roll

    def replay_draws(
        self, rules: ShutRules, pos: Any, action: str | None, after: Any, events: str = ""
    ) -> list[list[Any]] | None:
        """The rolls the record names (``rolled N``; the opening: ``after``'s roll), each
        one ``random()`` in the middle of its share of [0, 1) under one die or two."""
        import itertools
        import re

        if pos is None:
            rolls = [] if after is None or after.roll is None else [after.roll]
        else:
            rolls = [int(r) for r in re.findall(r"\brolled (\d+)", events)]
        points = _roll_points(rules)
        return [list(c) for c in itertools.product(*(points.get(r, ()) for r in rolls))]

    def show(self, rules: ShutRules, pos: ShutPosition) -> list[str]:
        """The position, who is to move, and what may be done before a roll."""
        lines = [pos.text()]
        if not pos.open:
            return [*lines, "the box is shut"]
        if pos.roll is not None and not rules.moves(pos.open, pos.roll):
            return [*lines, f"no open tiles sum to {pos.roll}: the turn is over"]
        if pos.target is not None and rules.total(pos.open) < pos.target:
            return [*lines, f"player 2's open tiles sum to less than {pos.target}: player 2 won"]
        if rules.players == 2:
            if pos.target is None:
                lines.append("player 1 to move")
            else:
                lines.append(f"player 2 to move, to beat player 1's score {pos.target}")
        if pos.roll is None:
            options = rules.dice_options(pos.open)
            if len(options) > 1:
                lines.append("choose: 'roll one die' or 'roll two dice'")
            else:
                lines.append(f"'roll' ({rules.rule_text(pos.open)})")
        return lines

    def to_move(self, rules: ShutRules, pos: ShutPosition) -> int:
        """Player 2 (1) when the position has a target, else player 1 (0)."""
        return 0 if pos.target is None else 1

    # --- play ------------------------------------------------------------------------------
    def advise(self, rules: ShutRules, pos: ShutPosition, **options: Any) -> Advice:
        """Every legal action with its value for the mover, best first."""
        values = move_values(rules, pos)
        lower = self.lower_is_better_of(rules)
        if rules.objective == "win":
            value_is = (
                f"expected wins of player {1 if pos.target is None else 2}, "
                "the player to move (a draw counts 1/2)"
            )
        else:
            value_is = UNITS[rules.objective]
        return Advice(rank_actions(values, lower_is_better=lower), value_is)

    def independent_values(self, rules: ShutRules, pos: ShutPosition) -> dict[str, float]:
        """Every legal action's value by exact policy evaluation on the graph
        (``play.independent_move_values``)."""
        return independent_move_values(rules, pos)

    def canonical_action(self, rules: ShutRules, pos: ShutPosition, text: str) -> str:
        """``shut 1 7`` from ``7 1``, ``roll one die`` from ``one``, ``end turn`` from ``end``."""
        return parse_move(rules, pos, text)

    def apply(
        self, rules: ShutRules, pos: ShutPosition, action: str, rng: np.random.Generator
    ) -> Step:
        """Play an action, then roll on to the next decision (``play.apply_action``)."""
        return apply_action(rules, pos, action, rng)

    # --- solving -----------------------------------------------------------------------
    def solve(self, rules: ShutRules, policy: bool = False, **options: Any) -> Report:
        """The optimal value from the start, the two-player comparison (win objective)
        and, with ``policy``, every decision."""
        t0 = time.perf_counter()
        sol = solved(rules)
        seconds = time.perf_counter() - t0
        data: dict[str, Any] = {
            "players": rules.players,
            "objective": rules.objective,
            "compile_seconds": sol.compile_seconds,
            "solve_seconds": sol.solve_seconds,
            "states": sol.graph.num_states,
            "edges": sol.graph.num_edges,
        }
        players = "two players" if rules.players == 2 else "one player"
        lines = [f"Shut the Box: {rules.tiles} tiles, {rules.dice_rule} dice rule, {players}"]
        if policy:
            rows = policy_rows(sol)
            data["policy"] = rows
            lines.append(f"{'position':<40} {'move':<16} value")
            for row in rows:
                lines.append(f"{row['position']:<40} {row['move']:<16} {row['value']:.6f}")
        label = {
            "score": "lowest expected score (points)",
            "shut": "highest probability of shutting the box",
            "win": "player 1's expected wins, both players win-optimal",
        }[rules.objective]
        lines.append(f"{label}: {sol.value:.9f}")
        if rules.objective == "win":
            t1 = time.perf_counter()
            r = duel_report(rules)
            data["comparison"] = r
            data["comparison_seconds"] = time.perf_counter() - t1
            lines += [
                "player 1's expected wins when...",
                f"  both play win-optimal              {r['both_win_optimal']:.9f}",
                f"  player 1 plays score-optimal        {r['p1_score_optimal']:.9f}"
                f"  (win-optimal play gains player 1 {r['p1_gain']:.6f})",
                f"  player 2 plays score-optimal        {r['p2_score_optimal']:.9f}"
                f"  (win-optimal play gains player 2 {r['p2_gain']:.6f})",
                f"  both play score-optimal             {r['both_score_optimal']:.9f}",
                "expected score given up by win-optimal play: player 1 "
                f"{r['p1_score_given_up']:.6f} points ({r['p1_expected_score_win_policy']:.6f} "
                f"vs {r['p1_expected_score_score_policy']:.6f}), player 2 "
                f"{r['p2_score_given_up']:.6f} points ({r['p2_expected_score_win_policy']:.6f} "
                f"vs {r['p2_expected_score_score_policy']:.6f}, when player 2 plays)",
            ]
        lines.append(
            f"{sol.graph.num_states} nodes; compile {sol.compile_seconds:.3f} s, solve "
            f"{sol.solve_seconds:.3f} s (this call {seconds:.3f} s)"
        )
        return Report(sol.value, data, lines)

    def simulate(
        self, rules: ShutRules, games: int, rng: np.random.Generator, **options: Any
    ) -> Report:
        """Seeded games of optimal play on the engine's simulator: final scores (points),
        shut or not (1/0), or player 1's wins (1, 1/2, 0)."""
        from diceopt.simulate import simulate

        sol = solved(rules)
        outcomes = simulate(sol.graph, sol.policy, games, rng)
        report = self.simulation_report(outcomes, sol.value)
        d = report.data
        spread = f" +/- {d['std_error']:.6f} (standard error)" if games > 1 else ""
        report.lines = [
            f"{games:,} games of optimal play: mean {d['mean']:.6f}{spread}",
            f"exact value {sol.value:.9f} ({self.units_of(rules)}); "
            f"range {d['min']:g} to {d['max']:g}",
        ]
        return report

    def commands(self) -> tuple[Command, ...]:
        """``diff`` (:mod:`diceopt.games.shutbox.commands`)."""
        from diceopt.games.shutbox.commands import shutbox_commands

        return shutbox_commands()

    def env_codec(self, rules: ShutRules) -> Any:
        """Environments: ``roll``, ``roll one die``, ``roll two dice``, ``end turn``, then
        ``shut T ...`` for every set of tiles summing to 12 or less (by sum, then the
        game's canonical order); entries: each tile open (0/1), the roll shown (0 = none
        yet), player 2's target (0 = none: player 1's or the only player's position)."""
        from diceopt.games.codec import Codec, observation

        shut = [
            action_text(tiles_of(m)) for roll in range(1, 13) for m in rules.moves(rules.full, roll)
        ]
        top = rules.total(rules.full)
        nvec = (2,) * rules.tiles + (13, top + 1)
        fields = tuple(f"tile {t} open" for t in range(1, rules.tiles + 1)) + ("roll", "target")

        def encode(pos: Any, viewer: int = 0) -> np.ndarray:
            tiles = [(pos.open >> t) & 1 for t in range(rules.tiles)]
            return observation([*tiles, pos.roll or 0, pos.target or 0], nvec)

        return Codec((ROLL, DICE_LABELS[1], DICE_LABELS[2], END_TURN, *shut), nvec, fields, encode)

    def exact_evaluation(
        self, rules: ShutRules, choose: Callable[[Any, list[str]], str], seat: int = 1
    ) -> tuple[float, int]:
        """The policy queried at every decision of the seat in the solved graph, the other
        player optimal: its exact value (the seat's terms)."""
        from diceopt.engine.compile import DECISION
        from diceopt.games.exact import edge_of, mixed_policy_value

        sol = solved(rules)
        g = sol.graph
        states, actions = g.states, g.actions
        assert states is not None and actions is not None  # compile_game names them
        decisions = np.flatnonzero(g.kind == DECISION)
        if rules.players == 2:
            decisions = decisions[g.player[decisions] == seat - 1]

        def edge(s: int) -> int:
            edges = range(int(g.start[s]), int(g.start[s + 1]))
            legal = sorted(action_text(actions[e]) for e in edges)
            return edge_of(g, s, choose(position_of_state(states[s]), legal), action_text)

        value = mixed_policy_value(g, sol.solution.objective, sol.policy, edge, decisions)
        if rules.players == 2 and seat == 2:
            value = 1.0 - value
        return value, len(decisions)

    def main_job(self, out: Callable[[str], None]) -> None:
        """``make run`` section: one- and two-player results for 9 tiles."""
        rules = ShutRules()
        score, shut = solved(rules), solved(rules.with_objective("shut"))
        out("== Shut the Box (9 tiles, two dice then one die at 6 or less) ==")
        out(f"lowest expected score: {score.value:.9f} points")
        out(f"best probability of shutting the box: {shut.value:.9f}")
        r = duel_report(rules)
        out(f"two players, both win-optimal: player 1 wins {r['both_win_optimal']:.9f}")
        out(
            f"win-optimal instead of score-optimal play gains player 1 {r['p1_gain']:.6f} and "
            f"player 2 {r['p2_gain']:.6f} in win probability, giving up "
            f"{r['p1_score_given_up']:.6f} and {r['p2_score_given_up']:.6f} points of "
            "expected score"
        )
        rows = differing_positions(rules)
        out(f"{len(rows)} positions where the win-optimal move differs from the score-optimal one")


@functools.lru_cache(maxsize=16)
def _roll_points(rules: ShutRules) -> dict[int, tuple[float, ...]]:
    """For each roll, the ``random()`` values (one per distinct chance node's
    distribution: one die, two dice) in the middle of its share of [0, 1), as
    ``engine.play.sample_edge`` draws."""
    g = solved(rules).graph
    seen: dict[tuple[Any, ...], None] = {}
    for node in np.flatnonzero(g.kind == CHANCE).tolist():
        lo, hi = int(g.start[node]), int(g.start[node + 1])
        seen.setdefault(tuple((g.label(e), float(g.prob[e])) for e in range(lo, hi)), None)
    points: dict[int, set[float]] = {}
    for dist in seen:
        c = np.cumsum([p for _, p in dist])
        low = np.concatenate(([0.0], c[:-1]))
        for (label, _), a, b in zip(dist, low, c, strict=True):
            if b > a:
                points.setdefault(int(label), set()).add(float((a + b) / 2 / c[-1]))
    return {r: tuple(sorted(u)) for r, u in points.items()}
