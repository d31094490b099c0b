"""A rehearsal of the page's start, once and small (``make run`` runs it last, in a child
process): what ``diceopt serve`` does at start-up (every game's default table loaded and
its example advised, ``ServedGames.warm``), then for each game that plays against the
computer, with each of its strategies, one turn of the page's game against it: a new
game, your chance of winning, the best moves for the score and to beat the computer,
until you write a box and the computer plays its whole turn. It answers nothing; it
leaves in numba's cache every kernel those answers use, compiled for the types the
server gives them (its tables as loaded from the files: read-only arrays), so that the
server loads them in hundredths of a second instead of compiling them on first use.

    python -m diceopt.web.rehearse        # one line: the games rehearsed and the seconds
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from diceopt.games.contract import GameSpec
from diceopt.tables import Table
from diceopt.web.games import GameTables
from diceopt.web.served import served_games

MAX_STEPS = 10  # a turn's moves (keeps, then a box) before the rehearsal gives up on it


def ready(tables: GameTables, wanted: Iterable[Table]) -> None:
    """Load (or build) the stored tables a request reads, as the server does before it
    answers (``tables_ready`` in :mod:`diceopt.web.routes`)."""
    for table in wanted:
        tables.store.ensure(table)


def play_turn(tables: GameTables, game: str, variant: str, strategy: str) -> int:
    """One turn of a new game against the computer (``strategy``), as the page plays it
    (best moves for the score, the advice to beat the computer beside, the chance of
    winning apart), through the computer's whole turn, each request's stored tables
    loaded first as the server does; the number of requests made."""
    spec = tables.spec(game)
    with_opponent = any(p.name == "opponent" for p in spec.advise_options)
    ready(tables, tables.duel_tables(game, variant, strategy))
    data = tables.duel_new(game, variant, strategy, 1, estimate=False)
    ready(tables, tables.duel_tables(game, variant, strategy, data["state"]))
    tables.duel_estimate(game, variant, data["state"])
    requests = 2
    for step in range(1, MAX_STEPS + 1):
        state = data["state"]
        ready(tables, tables.advice_tables(game, variant, state["you"]))
        advice = tables.advice_data(game, variant, state["you"])
        if with_opponent:
            options = {"opponent": state["computer"], "opponent_plays": strategy}
            ready(tables, tables.advice_tables(game, variant, state["you"], options))
            tables.advice_json(game, variant, state["you"], options)
            requests += 1
        action = advice["actions"][0]["action"]
        ready(tables, tables.duel_tables(game, variant, strategy, state))
        data = tables.duel_apply(game, variant, state, action, step, estimate=False)
        requests += 2
        if data["computer_moves"] or data["game_over"]:
            break
    return requests


def rehearse(
    games: Iterable[str | GameSpec] | None = None,
    out: Callable[[str], Any] | None = None,
    variants: Mapping[str, str] | None = None,
) -> dict[str, float]:
    """Warm every served game's default variant (``games``: these only; ``variants``:
    another variant of a game id) as the server does at start-up, then play one turn
    against the computer with each of its strategies (:func:`play_turn`); each game's
    seconds. ``out``: a line per game."""
    tables = GameTables(served_games(games))
    seconds: dict[str, float] = {}
    for game, spec in tables.specs.items():
        t0 = time.perf_counter()
        variant = tables.variant(game, (variants or {}).get(game))
        tables.warm(game, variant)
        for strategy in spec.computer_strategies:
            play_turn(tables, game, variant, strategy)
        seconds[game] = time.perf_counter() - t0
        if out is not None:
            plays = ", ".join(spec.computer_strategies)
            what = f"warmed, one turn against the computer ({plays})" if plays else "warmed"
            out(f"{game}/{variant}: {what} in {seconds[game]:.1f} s")
    return seconds


def main() -> None:
    """Rehearse every game; print one line with the seconds."""
    t0 = time.perf_counter()
    seconds = rehearse()
    print(
        f"the page's start rehearsed ({len(seconds)} games, one turn against the computer "
        f"each where it plays): {time.perf_counter() - t0:.1f} s",
        flush=True,
    )


if __name__ == "__main__":
    main()
