"""Two players of Shut the Box: win-optimal versus score-optimal play, exactly.

``duel_report`` evaluates each mix of the two policies with the engine;
``differing_positions`` lists the decisions where they differ (``shutbox diff``).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from diceopt.engine import CompiledGame, Objective, evaluate_policy, q_values
from diceopt.games.shutbox.position import action_text, position_of_state
from diceopt.games.shutbox.rules import ShutRules
from diceopt.games.shutbox.solve import ShutSolution, score_state, solved
from diceopt.lazy import numpy as np

DIFF_TOLERANCE = 1e-12  # win probability a move must lose to count as a different move


def _decision_players(graph: CompiledGame) -> tuple[np.ndarray, np.ndarray]:
    """Decision nodes of a two-player graph and their engine player (0 = player 1)."""
    d = np.flatnonzero(graph.kind == 2)
    return d, graph.player[d]


def score_policy_in(target: ShutSolution, score: ShutSolution) -> np.ndarray:
    """The score-optimal policy written on ``target``'s graph (edge per decision node).

    At every decision of ``target`` (player 1's or player 2's) the move is the one the
    score-minimising player takes with the same tiles and roll.
    """
    g, sg = target.graph, score.graph
    # compile_game names every state and action
    assert g.states is not None and g.actions is not None and sg.actions is not None
    choice = np.full(g.num_states, -1, dtype=np.int64)
    for d in np.flatnonzero(g.kind == 2).tolist():
        label = sg.actions[score.policy[sg.state_id(score_state(g.states[d]))]]
        for e in range(g.start[d], g.start[d + 1]):
            if g.actions[e] == label:
                choice[d] = e
                break
    return choice


def policy_on_score_graph(
    source: ShutSolution, score: ShutSolution, choice: np.ndarray
) -> np.ndarray:
    """A policy of player 1's moves in ``source`` written on the one-player score graph."""
    g, sg = source.graph, score.graph
    # compile_game names every state and action
    assert g.actions is not None and sg.states is not None and sg.actions is not None
    out = np.full(sg.num_states, -1, dtype=np.int64)
    for d in np.flatnonzero(sg.kind == 2).tolist():
        label = g.actions[choice[g.state_id(sg.states[d])]]
        for e in range(sg.start[d], sg.start[d + 1]):
            if sg.actions[e] == label:
                out[d] = e
                break
    return out


def duel_report(rules: ShutRules) -> dict[str, Any]:
    """Two players: player 1's expected wins under each mix of win- and score-optimal play.

    Policies are evaluated exactly with the engine. ``*_expected_score`` are points:
    player 1's expected score, and player 2's expected score given that player 2 plays
    (player 1 did not shut the box), under each player's own two policies.
    """
    win, score = solved(rules.with_objective("win")), solved(rules.with_objective("score"))
    g = win.graph
    d, who = _decision_players(g)
    p1_nodes, p2_nodes = d[who == 0], d[who == 1]
    win_pol = win.policy
    score_pol = score_policy_in(win, score)

    def wins(p1: np.ndarray | None, p2: np.ndarray | None) -> float:
        choice = np.full(g.num_states, -1, dtype=np.int64)
        if p1 is not None:
            choice[p1_nodes] = p1[p1_nodes]
        if p2 is not None:
            choice[p2_nodes] = p2[p2_nodes]
        return evaluate_policy(g, choice, Objective("win")).value

    both_win = win.value
    p1_score = wins(score_pol, win_pol)
    p2_score = wins(win_pol, score_pol)
    p2_score_best_reply = wins(None, score_pol)
    both_score = wins(score_pol, score_pol)

    # player 1's expected score with each of its policies (one-player score graph)
    p1_win_on_score = policy_on_score_graph(win, score, win_pol)
    p1_win_points = evaluate_policy(score.graph, p1_win_on_score, Objective("expected")).value

    # player 2's expected score (given that it plays) with each of its policies
    tv = np.zeros(g.num_states)
    shut = np.zeros(g.num_states)
    order = win.order
    assert g.states is not None and order is not None  # the win game has a score order
    for s, state in enumerate(g.states):
        tag = state[0]
        if tag == "p2end":
            tv[s] = state[1]
        elif tag == "p2won":
            tv[s] = order[state[1]]
        elif tag == "p1shut":
            shut[s] = 1.0
    points = dataclasses.replace(g, terminal_value=tv)
    shut_game = dataclasses.replace(g, terminal_value=shut)
    p1_choice = np.full(g.num_states, -1, dtype=np.int64)
    p1_choice[p1_nodes] = win_pol[p1_nodes]
    p_plays = 1.0 - evaluate_policy(shut_game, win_pol, Objective("expected")).value

    def p2_points(policy: np.ndarray) -> float:
        choice = p1_choice.copy()
        choice[p2_nodes] = policy[p2_nodes]
        return evaluate_policy(points, choice, Objective("expected")).value / p_plays

    p2_win_points = p2_points(win_pol)
    p2_score_points = p2_points(score_pol)
    return {
        "rules": rules.with_objective("win").describe(),
        "both_win_optimal": both_win,
        "p1_score_optimal": p1_score,
        "p2_score_optimal": p2_score,
        "p2_score_optimal_p1_best_reply": p2_score_best_reply,
        "both_score_optimal": both_score,
        "p1_gain": both_win - p1_score,
        "p2_gain": p2_score - both_win,
        "p1_expected_score_win_policy": p1_win_points,
        "p1_expected_score_score_policy": score.value,
        "p1_score_given_up": p1_win_points - score.value,
        "p2_expected_score_win_policy": p2_win_points,
        "p2_expected_score_score_policy": p2_score_points,
        "p2_score_given_up": p2_win_points - p2_score_points,
        "p1_shuts": 1.0 - p_plays,
    }


def differing_positions(rules: ShutRules) -> list[dict[str, Any]]:
    """Two-player positions where the win-optimal move differs from the score-optimal one.

    A position counts when the score-minimising move loses win probability (more than
    DIFF_TOLERANCE). Each row: player (1 or 2), position text, both moves, the mover's
    win probability with each (``win_value``, ``score_move_win_value``; probability),
    ``win_lost`` (probability) and the expected score the win-optimal move gives up
    (``score_given_up``, points). Sorted by ``win_lost``, largest first.
    """
    win, score = solved(rules.with_objective("win")), solved(rules.with_objective("score"))
    g, sg = win.graph, score.graph
    # compile_game names every state and action
    assert g.states is not None and g.actions is not None and sg.actions is not None
    score_pol = score_policy_in(win, score)
    rows = []
    for d in np.flatnonzero(g.kind == 2).tolist():
        ew, es = int(win.policy[d]), int(score_pol[d])
        if ew == es:
            continue
        q = q_values(win.solution, d)
        player = int(g.player[d])
        sign = 1.0 if player == 0 else -1.0
        lost = sign * (q[ew - g.start[d]] - q[es - g.start[d]])
        if lost <= DIFF_TOLERANCE:
            continue
        sd = sg.state_id(score_state(g.states[d]))
        sq = q_values(score.solution, sd)
        labels = [sg.actions[e] for e in range(sg.start[sd], sg.start[sd + 1])]
        win_label, score_label = g.actions[ew], g.actions[es]
        points_cost = sq[labels.index(win_label)] - sq[labels.index(score_label)]
        mover = (lambda v: v) if player == 0 else (lambda v: 1.0 - v)
        pos = position_of_state(g.states[d])
        rows.append(
            {
                "player": player + 1,
                "position": pos.text(),
                "win_move": action_text(win_label),
                "score_move": action_text(score_label),
                "win_value": mover(float(q[ew - g.start[d]])),
                "score_move_win_value": mover(float(q[es - g.start[d]])),
                "win_lost": float(lost),
                "score_given_up": float(points_cost),
            }
        )
    # ties (to rounding) by player, then position
    rows.sort(key=lambda r: (-round(r["win_lost"], 12), r["player"], r["position"]))
    return rows


def diff_lines(rows: list[dict[str, Any]]) -> list[str]:
    """The ``diff`` table: one header and one line per row, every column aligned."""
    header = ("pl", "position", "win move", "score move", "P(win) lost", "score cost")
    right = (True, False, False, False, True, True)
    cells = [
        (
            str(r["player"]),
            r["position"],
            r["win_move"],
            r["score_move"],
            f"{r['win_lost']:.6f}",
            f"{r['score_given_up']:.4f}",
        )
        for r in rows
    ]
    widths = [max(len(c[i]) for c in [header, *cells]) for i in range(len(header))]

    def line(cells: tuple[str, ...]) -> str:
        return "  ".join(
            c.rjust(w) if r else c.ljust(w) for c, w, r in zip(cells, widths, right)
        ).rstrip()

    return [line(header), *(line(c) for c in cells)]
