"""The web API of a Yatzy table of 2 to 6 players (stateless: the client sends the table).

- ``POST /api/yatzy/table/chances`` ``{"variant"?, "rules"?, "players": [{"name",
  "sheet"}, ...], "to_move"?}``: every player's exact chance of winning (everyone playing
  for the expected score from their sheet; a k-way tie at the top counts 1/k), each with
  the sheet (canonical text and JSON), score, boxes filled and expected final score;
  ``to_move`` (0-based) echoed; ``boxes``: every box's possible points (any roll), with
  which a page checks a box written by hand.
- ``POST /api/yatzy/table/advice`` ``{"variant"?, "rules"?, "players", "to_move",
  "position"}``: for the player to move (``position``: their position, dice showing, whose
  sheet is ``players[to_move].sheet``), every legal action ranked by the estimated chance
  of winning against the others' sheets, each with its expected final score; ``table``:
  the best move to win against the best for the expected score (the chance of winning
  lost by the one, the expected points lost by the other); and every player's chance, as
  the chances endpoint answers (one request for the page's update).

A sheet is the opponent notation (``filled ... | upper N | score S``) or its JSON form.
Bad input is 400 (or 422 for the schema: 2 to 6 players, names of 1 to 40 characters),
one line; the tables they read (the expected-score table, the distributions of every
state, for advice the target rows) are waited for as every answer does (503 with
Retry-After while one is built). Computations: :mod:`diceopt.games.yatzy.winning.table`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import FastAPI, Request
from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from diceopt.web.errors import ApiError
from diceopt.web.schemas import ERRORS, OpponentValue, Position, RulesOut, RulesText, VariantId

MIN_PLAYERS, MAX_PLAYERS = 2, 6  # the table's bounds (winning.table loads numba)


def table_game() -> str:
    """The id of the game with a table mode (the Yatzy family's spec)."""
    from diceopt.games.yatzy import YatzySpec

    return YatzySpec.id


def table_path() -> str:
    """Where the table endpoints answer (``{path}/chances``, ``{path}/advice``); the
    game's entry in /api/games names it (``table``)."""
    return f"/api/{table_game()}/table"


Name = Annotated[str, StringConstraints(min_length=1, max_length=40, strip_whitespace=True)]


class SeatIn(BaseModel):
    """A player at the table: a name and their sheet at the start of their turn."""

    model_config = ConfigDict(extra="forbid")
    name: Name = Field(description="the player's name (distinct at the table)")
    sheet: OpponentValue


class TableRequest(BaseModel):
    """A table: the variant (or a rule file), every player in the order they play, and
    (optionally) whose turn it is."""

    model_config = ConfigDict(extra="forbid")
    variant: VariantId = None
    rules: RulesText = None
    players: list[SeatIn] = Field(
        min_length=MIN_PLAYERS, max_length=MAX_PLAYERS, description="2 to 6 players"
    )
    to_move: int | None = Field(
        default=None, ge=0, lt=MAX_PLAYERS, description="the player to move (0-based index)"
    )


class TableAdviceRequest(TableRequest):
    """A table and the position of the player to move (dice showing)."""

    to_move: int = Field(ge=0, lt=MAX_PLAYERS, description="the player to move (0-based)")
    position: Position


class PlayerOut(BaseModel):
    """One player's chance."""

    name: str
    sheet: str = Field(description="the sheet, canonical text")
    sheet_json: dict[str, Any]
    score: float
    filled: int = Field(description="boxes filled")
    expected_final: float = Field(description="expected final score under expected-score play")
    chance: float = Field(description="probability of winning (0-1), ties split")


class ChancesOut(BaseModel):
    """Every player's chance of winning at the table."""

    variant: str
    players: list[PlayerOut]
    to_move: int | None
    chance_is: str = Field(description="the model, in words")
    boxes: dict[str, list[int]] = Field(
        default_factory=dict,
        description="every box's possible points (any roll; a page checks a written box)",
    )
    rules: RulesOut | None = None


class TableActionOut(BaseModel):
    """One action: its estimated chance of winning, regret and expected final score."""

    action: str
    value: float
    regret: float
    expected: float | None = None


class ComparisonOut(BaseModel):
    """The best move to win against the best move for the expected score."""

    best_to_win: str
    best_for_expected: str
    differ: bool
    chance_lost_by_expected: float = Field(description="chance of winning lost (0-1)")
    points_lost_by_win: float = Field(description="expected points lost")
    opponents: int
    exact: bool = Field(description="the values are exact (else estimates that err high)")


class TableAdviceOut(ChancesOut):
    """Advice for the player to move, and every player's chance."""

    position: str
    position_json: dict[str, Any]
    actions: list[TableActionOut]
    value_is: str
    table: ComparisonOut


def add_table_routes(
    app: FastAPI,
    tables: Any,
    tables_ready: Callable[..., Any],
    guarded: Callable[..., Any],
    threads: Callable[[], Any],
) -> None:
    """Register the table endpoints on ``app`` (``tables``: the app's served games;
    ``tables_ready(request, wanted)``, ``guarded(request, limiter, fn, *args)`` and
    ``threads()`` (the limiter): the app's waiting for tables and its guarded work)."""

    def table_of(body: TableRequest) -> tuple[Any, str, Any, list[Any]]:
        """(config, variant id, the variant's served rules, the seats), checked."""
        from diceopt.games.yatzy.winning.table import check_config, parse_table

        game, variant = tables.ids(table_game(), body.variant, body.rules)
        config = tables.rules(game, variant)
        check_config(config)
        seats = [{"name": p.name, "sheet": p.sheet} for p in body.players]
        return config, variant, game, parse_table(seats, config.rules)

    path = table_path()

    @app.post(f"{path}/chances", response_model=ChancesOut, responses=ERRORS)
    async def table_chances(body: TableRequest, request: Request) -> dict[str, Any]:
        """Every player's chance of winning at the table (exact for its model)."""
        from diceopt.games.yatzy.commands.requests import needed_tables

        config, variant, game, seats = table_of(body)
        if body.to_move is not None and body.to_move >= len(seats):
            raise ApiError(400, f"to_move {body.to_move}: the table has {len(seats)} players")
        await tables_ready(request, needed_tables(config, advice=False))
        data = await guarded(request, threads(), chances, config, seats, body.to_move)
        return data | {"boxes": box_scores(config.rules)} | tables.rules_used(game, variant)

    @app.post(f"{path}/advice", response_model=TableAdviceOut, responses=ERRORS)
    async def table_advice(body: TableAdviceRequest, request: Request) -> dict[str, Any]:
        """The player to move's actions ranked by the chance of winning against the
        others, compared with the expected-score advice, and every player's chance."""
        from diceopt.games.yatzy.commands.requests import needed_tables
        from diceopt.games.yatzy.winning.table import check_mover

        config, variant, game, seats = table_of(body)
        if body.to_move >= len(seats):
            raise ApiError(400, f"to_move {body.to_move}: the table has {len(seats)} players")
        spec = tables.spec(game)
        pos = spec.parse(config, body.position)
        check_mover(pos, config)
        mover = seats[body.to_move]
        if not same_sheet(pos, mover.sheet):
            raise ApiError(
                400,
                f"the position is not the sheet of {mover.name} (players[{body.to_move}]): "
                "filled boxes, upper total and score must agree",
            )
        await tables_ready(request, needed_tables(config, advice=True))
        data = await guarded(request, threads(), advise, config, seats, body.to_move, pos)
        return data | tables.rules_used(game, variant)


def same_sheet(pos: Any, sheet: Any) -> bool:
    """Whether a position (dice showing) stands on the sheet given at its turn's start."""
    return (
        set(pos.filled) == set(sheet.filled)
        and pos.upper == sheet.upper
        and float(pos.score if pos.score is not None else -1) == float(sheet.score)
        and bool(pos.yahtzee_bonus) == bool(sheet.yahtzee_bonus)
    )


def box_scores(rules: Any) -> dict[str, list[int]]:
    """Every box's possible points under ``rules``: the points any roll writes there (a
    joker's too), ascending (the page refuses a written box's other points)."""
    import numpy as np

    rows = np.concatenate([rules.score, rules.joker_score])
    return {
        name: sorted({int(x) for x in np.unique(rows[:, i])})
        for i, name in enumerate(rules.categories)
    }


def chances(config: Any, seats: list[Any], to_move: int | None) -> dict[str, Any]:
    """The chances answer (worker thread)."""
    from diceopt.games.yatzy.winning.table import chances_json

    return chances_json(config, seats, to_move)


def advise(config: Any, seats: list[Any], to_move: int, pos: Any) -> dict[str, Any]:
    """The advice answer and every player's chance (worker thread)."""
    from diceopt.games.yatzy.play.advice import format_position, position_to_json
    from diceopt.games.yatzy.winning.table import advise_table, chances_json

    others = [s.sheet for i, s in enumerate(seats) if i != to_move]
    advice = advise_table(pos, config, others)
    data = chances_json(config, seats, to_move)
    out = advice.to_json()
    return data | {
        "position": format_position(pos, config.rules),
        "position_json": position_to_json(pos, config.rules),
        "actions": out["actions"],
        "value_is": out["value_is"],
        "table": out["table"],
    }
