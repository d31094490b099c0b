"""Request and response bodies of the advisor's JSON API (pydantic models).

A position is the game's text notation or its JSON form (an object), as
``GameSpec.parse`` accepts. Requests reject unknown fields.
"""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    StringConstraints,
)

MAX_BODY_BYTES = 64 * 1024
MAX_JSON_DEPTH = 32  # the most nested arrays and objects a request body may have

GameId = Annotated[
    str, Field(min_length=1, max_length=40, description="game id, as listed by /api/games")
]
VariantId = Annotated[
    str | None,
    Field(default=None, max_length=100, description="variant id (default: the game's first)"),
]
MAX_RULES_CHARS = 20_000
RulesText = Annotated[
    str | None,
    Field(
        default=None,
        max_length=MAX_RULES_CHARS,
        description="a rule file's text (TOML), instead of a variant, for games that take "
        "rule files (rule_files in /api/games); extends names shipped files only",
    ),
]
PositionText = Annotated[str, StringConstraints(min_length=1, max_length=2000)]
Position = Annotated[
    PositionText | dict[str, Any],
    Field(description="a position: the game's text notation, or its JSON form (an object)"),
]
ActionText = Annotated[
    str, Field(min_length=1, max_length=500, description="an action as advice names it")
]
Seed = Annotated[
    int | None,
    Field(default=None, ge=0, le=2**63 - 1, description="random seed of the dice"),
]


def whole_number(value: Any) -> int:
    """A whole number from JSON: an int, a float without a fraction (``1e20`` too) or its
    text; ValueError (one line) otherwise. Its range is the game's to check."""
    if isinstance(value, bool):
        raise ValueError(f"must be a whole number, got {str(value).lower()}")
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if not math.isfinite(value) or not value.is_integer():
            raise ValueError(f"must be a whole number, got {value:g}")
        return int(value)
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            pass
        raise ValueError(f"must be a whole number, got {value[:40]!r}")
    raise ValueError(f"must be a whole number, got {type(value).__name__}")


WholeNumber = Annotated[int, BeforeValidator(whole_number)]


class GameRequest(BaseModel):
    """A game and variant (or a rule file's text: ``rules``)."""

    model_config = ConfigDict(extra="forbid")
    game: GameId
    variant: VariantId = None
    rules: RulesText = None


class RulesOut(BaseModel):
    """Which rules an answer used."""

    name: str = Field(description="the variant's or rule file's name")
    key: str = Field(description="what its tables are filed under (a rule file: name-hash)")


class RuleFileRequest(BaseModel):
    """A rule file's text to check (``POST /api/rules``)."""

    model_config = ConfigDict(extra="forbid")
    game: GameId
    rules: Annotated[str, StringConstraints(min_length=1, max_length=MAX_RULES_CHARS)]


class NewRequest(GameRequest):
    """Start a game (play mode); ``seed`` makes the first roll reproducible."""

    seed: Seed = None
    turn: dict[str, WholeNumber] | None = Field(
        None,
        max_length=4,
        description="start the next turn of a game of one turn with what the last turn's "
        '``next_turn`` carried over (e.g. {"streak": 1} in Zilch)',
    )


class PositionRequest(GameRequest):
    """A position (to advise on, or its score distribution)."""

    position: Position


MAX_TARGET = 1_000_000  # no game's score comes near it


def bounded_target(value: int) -> int:
    """A target beyond +-MAX_TARGET taken as just beyond it: the game refuses it as out of
    its range in its own words, and no answer echoes a number of hundreds of digits."""
    return max(-MAX_TARGET - 1, min(MAX_TARGET + 1, value))


Target = Annotated[WholeNumber, AfterValidator(bounded_target)]


OpponentValue = Annotated[
    Annotated[str, StringConstraints(min_length=1, max_length=2000)] | dict[str, Any],
    Field(
        description="an opponent's side: the game's text (e.g. 'filled ones | upper 1 | "
        "score 1') or its JSON form"
    ),
]


class AdviceRequest(PositionRequest):
    """A position to advise on, and the game's advice options where it has them
    (``advise_options`` in /api/games): a target score, or an opponent to beat."""

    target: Target | None = Field(
        default=None,
        description="rank by P(final score >= target) (points, a whole number; beyond "
        f"{MAX_TARGET:,} either way it is out of every game's range)",
    )
    opponent: OpponentValue | None = None
    opponent_plays: Annotated[str, StringConstraints(max_length=40)] | None = Field(
        default=None, description="how the opponent plays (the option's choices)"
    )

    def options(self) -> dict[str, Any]:
        """The advice options given (not None), by name."""
        names = ("target", "opponent", "opponent_plays")
        return {n: getattr(self, n) for n in names if getattr(self, n) is not None}


class ActionRequest(PositionRequest):
    """A position and an action played in it."""

    action: ActionText


class ApplyRequest(ActionRequest):
    """Play an action; ``seed`` makes the dice reproducible."""

    seed: Seed = None


Strategy = Annotated[
    str,
    StringConstraints(min_length=1, max_length=40),
    Field(description="how the computer plays (computer_strategies in /api/games)"),
]


Estimate = Annotated[
    StrictBool,
    Field(
        description="with your chance of winning (exact for the model it names) (default); false: "
        "win_probability is null, asked apart (POST /api/duel/estimate) so that the move "
        "comes at once"
    ),
]


class DuelNewRequest(GameRequest):
    """Start a game against the computer playing ``strategy``."""

    strategy: Strategy
    seed: Seed = None
    estimate: Estimate = True


class DuelState(BaseModel):
    """A game against the computer, as the last answer gave it (``state``)."""

    model_config = ConfigDict(extra="forbid")
    strategy: Strategy
    you: Position
    computer: OpponentValue


class DuelApplyRequest(GameRequest):
    """Play an action in a game against the computer; ``seed`` makes the dice reproducible."""

    state: DuelState
    action: ActionText
    seed: Seed = None
    estimate: Estimate = True


class DuelEstimateRequest(GameRequest):
    """Your chance of winning (exact for the model it names) at the start of your turn
    (``state`` as the last /api/duel answer gave it)."""

    state: DuelState


class PreviewRequest(PositionRequest):
    """Several actions of one position, each played with the same fixed dice."""

    actions: Annotated[list[ActionText], Field(min_length=1, max_length=200)]


class ActionOut(BaseModel):
    """One action: value in the game's units, regret >= 0 against the best; ``expected``:
    its expected final score, beside a probability (target and opponent advice)."""

    action: str
    value: float
    regret: float
    expected: float | None = None


class AdviceOut(BaseModel):
    """Every legal action, best first (``diceopt GAME advise --json``), and the position."""

    model_config = ConfigDict(extra="allow")  # rules: under a rule file (RulesOut)

    actions: list[ActionOut]
    value_is: str = Field(description="what the values mean, e.g. expected final score")
    position: str = Field(description="the position in the game's notation (canonical)")
    position_json: dict[str, Any] = Field(description="the position's JSON form")


class EvaluateOut(ActionOut):
    """One played action, with the best action's value."""

    model_config = ConfigDict(extra="allow")  # rules: under a rule file (RulesOut)

    best_value: float
    value_is: str


class StepOut(BaseModel):
    """A position reached (a new game, or after an action) and the state of the game."""

    model_config = ConfigDict(extra="allow")  # rules: under a rule file (RulesOut)

    position: str = Field(description="the position in the game's notation")
    position_json: dict[str, Any] = Field(description="the position's JSON form")
    game_over: bool
    to_move: int = Field(description="the player to move (0 = the first player)")
    events: list[str] = Field(description="what happened on the way, in words")
    result: float | None = Field(
        description="when the game is over: the final score, or the first player's wins "
        "(1, 1/2 or 0)"
    )
    next_turn: dict[str, int] | None = Field(
        None,
        description="a game of one turn that is over: what the next turn carries over "
        "(e.g. Zilch's streak after a zilch; give it as ``turn`` to /api/new), else null",
    )


class DistributionOut(BaseModel):
    """The distribution of the final score from a position (``diceopt yatzy distribution
    --json``): summary numbers, and ``pmf[i]`` the probability of a final score of i."""

    model_config = ConfigDict(extra="allow")  # rules: under a rule file (RulesOut)
    of: str = Field(description="final score, or points still to come (no score given)")
    mean: float
    std: float
    median: float
    percentiles: dict[str, float]
    p_at_least: dict[str, float]
    pmf: list[float]
    seconds: float


class MoveOut(BaseModel):
    """One action of the computer, and its position after it."""

    action: str
    position: str
    position_json: dict[str, Any]


class DuelStateOut(BaseModel):
    """What the next /api/duel/apply sends back as ``state``."""

    strategy: str
    you: str = Field(description="your position (canonical text)")
    computer: str = Field(description="the computer's side between its turns")


class DuelEstimateOut(BaseModel):
    """Your chance of winning (exact for the model it names) from the start of your turn."""

    win_probability: float = Field(description="0-1, a draw counting 1/2")
    win_probability_is: str = Field(description="what it is (its opponent model), in words")


class DuelOut(BaseModel):
    """A game against the computer after a call: both sides, the computer's moves, the
    result and your chance of winning (exact for the model it names) at the start of your turn."""

    model_config = ConfigDict(extra="allow")  # rules: under a rule file (RulesOut)

    state: DuelStateOut
    you: dict[str, Any] = Field(description="your position's JSON form")
    computer: dict[str, Any] = Field(description="the computer's side as JSON")
    computer_moves: list[MoveOut]
    events: list[str]
    game_over: bool
    to_move: int = Field(description="0: your turn (the computer plays within the call)")
    result: float | None = Field(description="when over: 1 you win, 1/2 a draw, 0 you lose")
    win_probability: float | None = Field(
        description="an estimate, at the start of your turns (None in mid-turn)"
    )
    win_probability_is: str


RecordText = Annotated[
    str,
    StringConstraints(min_length=1, max_length=60_000),
    Field(description="a record of played moves, as 'diceopt GAME analyse' reads it"),
]


class AnalyseRequest(GameRequest):
    """A record of a game (``diceopt.record``) to grade and split into luck and skill."""

    record: RecordText


class AnalyseOut(BaseModel):
    """``Analysis.to_json()`` of ``diceopt GAME analyse --json``: the decisions' costs and,
    for a whole game, ``result = expected_start + luck - cost`` (``identity``)."""

    model_config = ConfigDict(extra="allow")
    units: str
    count: int
    total_regret: float
    identity: str
    split_units: str
    expected_start: float | None
    luck: float | None
    cost: float | None
    result: float | None
    luck_missing: list[str]


class OutcomeOut(BaseModel):
    """What one action leads to (fixed dice)."""

    action: str
    position_json: dict[str, Any]
    game_over: bool
    events: list[str]


class PreviewOut(BaseModel):
    """The outcome of each action asked about, in the order asked."""

    outcomes: list[OutcomeOut]


class VariantOut(BaseModel):
    """A variant: its title, its rules' parameters and an example position under them."""

    id: str
    title: str | None = Field(default=None, description="the variant's name for people")
    description: str
    parameters: dict[str, Any]
    players: int | None = Field(default=None, description="players under these rules")
    units: str | None = Field(default=None, description="what a value means under these rules")
    lower_is_better: bool | None = None
    sheet: dict[str, Any] | None = Field(
        default=None,
        description="score sheet of the page (upper boxes, bonus threshold and points)",
    )
    position_example: str | None = None
    position_example_json: dict[str, Any] | None = None


class RuleFileOut(VariantOut):
    """A pasted rule file as a variant of the page: ``id`` (``file:<key>``) is what the
    answers to requests with its ``rules`` are filed under."""

    rules: RulesOut


class OptionOut(BaseModel):
    """An advice option: its name in /api/advice, help, value type and choices."""

    name: str
    help: str
    type: str = Field(description="int, float or text")
    choices: list[Any] | None = None
    default: Any = None


class GameOut(BaseModel):
    """A served game, as the registry describes it."""

    id: str
    title: str
    summary: str
    rules_help: str
    units: str
    players: int
    lower_is_better: bool
    variants: list[VariantOut]
    default_variant: str | None
    position_example: str
    board: str = Field(description="how the page draws a position: dice-sheet, tiles, dice, form")
    advise_options: list[OptionOut] = Field(description="options of /api/advice for this game")
    distribution: bool = Field(description="whether /api/distribution answers for this game")
    computer_strategies: list[str] = Field(
        description="how the computer may play in /api/duel (empty: no play against it)"
    )
    featured: bool = Field(
        default=False, description="the page opens on a featured game the first time"
    )
    variable_dice: bool = Field(
        default=False,
        description="a roll may show fewer dice than the rules' number (those not yet set "
        "aside): the page takes 1 to that many",
    )
    rule_files: bool = Field(
        default=False, description="whether requests may give a rule file's text (rules)"
    )
    one_turn: bool = Field(
        default=False,
        description="a game is one turn of a longer game, its result the turn's worth: the "
        "page says the turn is over, not the game",
    )
    table: str | None = Field(
        default=None,
        description="the path of the table endpoints (a game of 2 to 6 players at one "
        "table: POST {table}/chances and {table}/advice); null: the game has none",
    )


class GamesOut(BaseModel):
    """Every served game."""

    games: list[GameOut]


class HealthOut(BaseModel):
    """Liveness and the state of each table (loading, ready, error: ...)."""

    status: str
    games: list[str]
    tables: dict[str, str]


class TableOut(BaseModel):
    """A stored table: its stage (a build's: queued, loading, waiting for another process,
    building, storing, ready, failed; a table not asked for yet: stored or not stored),
    the percentage of that stage, the seconds since its build started, how it was made
    ready (loaded, built) and why it failed."""

    id: str | None = None  # of its build in this process: GET /api/tables/status/{id}
    name: str
    title: str
    stage: str
    percent: float | None = None
    done: int = 0
    total: int | None = None
    elapsed_seconds: float | None = None
    how: str | None = None
    error: str | None = None


class TablesOut(BaseModel):
    """The stored tables of the served games' default variants and every table this
    process has loaded or built (``GET /api/tables``)."""

    tables: list[TableOut]


class BuildStatusOut(BaseModel):
    """How the build of a stored table goes (``GET /api/tables/status/{id}``): ``state``
    building (any ``stage`` before the end: queued, loading, waiting for another process,
    building, storing), ready or failed; ``fraction`` of the stage done (its steps and the
    share of the step under way; None: unknown), the seconds since the build started and
    an estimate of the seconds the stage still needs (None: unknown)."""

    id: str
    name: str
    title: str
    state: Literal["building", "ready", "failed"]
    stage: str
    fraction: float | None = None
    elapsed_seconds: float
    seconds_left: float | None = None
    error: str | None = None


class BuildingOut(BaseModel):
    """202 to a request sent with ``Prefer: respond-async``: tables it reads are still
    being built; ``status`` (also the Location header) is where to ask how the first goes.
    Send the request again once none is ``building``."""

    building: list[BuildStatusOut]
    status: str


class ErrorOut(BaseModel):
    """Every error: one line."""

    error: str


ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorOut, "description": "bad input (unknown game, invalid position, ...)"},
    413: {"model": ErrorOut, "description": "request body over 64 KB"},
    415: {"model": ErrorOut, "description": "the body is not sent as JSON"},
    422: {"model": ErrorOut, "description": "request body does not match the schema"},
    503: {
        "model": ErrorOut,
        "description": "a table the answer reads is being built (Retry-After; GET "
        "/api/tables/status/ID), or the answer's own solve was stopped (time limit)",
    },
}
# The answers that read stored tables: a request sent with ``Prefer: respond-async`` gets
# 202 while one is being built, instead of waiting and then 503.
BUILDING: dict[int | str, dict[str, Any]] = {
    **ERRORS,
    202: {
        "model": BuildingOut,
        "description": "sent with Prefer: respond-async: a table the answer reads is being "
        "built; poll its status, then send the request again",
    },
}
