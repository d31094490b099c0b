"""The web advisor: a FastAPI app with a JSON API for every registered game, and one page.

Endpoints (JSON in and out; every error is ``{"error": "one line"}`` with a 4xx status,
or 500 for a fault of the server). A position is the game's text notation or its JSON
form (an object):

- ``GET /api/health``: liveness and which tables are loaded;
- ``GET /api/games``: the served games (from the registry): title, units, players,
  variants with their rules' parameters and an example position (text and JSON), and the
  ``board`` the page draws a position with;
- ``POST /api/advice`` ``{"game", "variant", "position"}``: every legal action, best first,
  each with ``value`` and ``regret`` (``diceopt GAME advise --json``), what the values mean
  (``value_is``) and the position (canonical text and JSON); the game's advice options
  (``advise_options`` in /api/games: ``"target"``, ``"opponent"``, ``"opponent_plays"``)
  rank by another value, each action with its ``expected`` final score beside;
- ``POST /api/distribution`` ``{"game", "variant", "position"}``: the distribution of the
  final score from the position (mean, std, median, percentiles, ``p_at_least``, ``pmf``),
  for games that give one (``distribution`` in /api/games);
- ``POST /api/evaluate`` ``{"game", "variant", "position", "action"}``: one action's value
  and regret, and the best action's value;
- ``POST /api/new`` ``{"game", "variant", "seed"?}``: a starting position (play mode);
- ``POST /api/apply`` ``{"game", "variant", "position", "action", "seed"?}``: the next
  position (text and JSON; dice rolled with a seeded numpy Generator), ``game_over``,
  ``to_move``, ``events`` (what happened, e.g. the die rolled) and ``result``;
- ``POST /api/preview`` ``{"game", "variant", "position", "actions"}``: what each action
  leads to with fixed dice (the page's score sheet shows the points of each box);
- ``POST /api/analyse`` ``{"game", "variant", "record"}``: a played game's record (the
  text ``diceopt GAME analyse`` reads) graded, and for a whole game its result split
  exactly into ``expected_start + luck - cost`` (the page's end-of-game review);
- ``POST /api/duel/new`` ``{"game", "variant", "strategy", "seed"?}`` and ``POST
  /api/duel/apply`` ``{"game", "variant", "state", "action", "seed"?}``: a game against the
  computer (``computer_strategies`` in /api/games): both sides, the computer's moves (it
  plays its whole turn within the call that ends yours), ``game_over``, ``result`` (yours)
  and, at the start of your turns, your estimated ``win_probability``; ``state`` is what
  the last answer gave (nothing is kept on the server).

``/openapi.json`` is the schema; no documentation page is served (it would need a CDN).
Tables, the answer cache and threads: ``diceopt.web.games``.
"""

from __future__ import annotations

import gc
import json
import logging
import os
import threading
import time
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from diceopt.errors import InputError, SolveError
from diceopt.games.registry import GameSpec
from diceopt.web.games import (
    ADVICE_THREADS,
    HEAVY_THREADS,
    ApiError,
    GameTables,
    check_game_ids,
    one_line,
    served_games,
    warm_setting,
)
from diceopt.web.schemas import (
    ERRORS,
    MAX_BODY_BYTES,
    ActionRequest,
    AdviceOut,
    AdviceRequest,
    AnalyseOut,
    AnalyseRequest,
    ApplyRequest,
    DistributionOut,
    DuelApplyRequest,
    DuelNewRequest,
    DuelOut,
    EvaluateOut,
    GamesOut,
    HealthOut,
    NewRequest,
    PositionRequest,
    PreviewOut,
    PreviewRequest,
    StepOut,
)

log = logging.getLogger("diceopt.web")

STATIC_DIR = Path(__file__).parent / "static"


def error_response(status: int, message: object) -> JSONResponse:
    """``{"error": message}`` (one line) with ``status``."""
    return JSONResponse({"error": one_line(message)}, status_code=status)


class BodyLimitMiddleware:
    """Answer 413 when a request body exceeds ``limit`` bytes (pure ASGI).

    The declared Content-Length is checked first; the bytes actually received are counted
    too (chunked uploads, or a Content-Length that lies), before the app sees the body.
    """

    def __init__(self, app: Callable[..., Awaitable[None]], limit: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.limit = limit

    async def __call__(
        self,
        scope: MutableMapping[str, Any],
        receive: Callable[[], Awaitable[MutableMapping[str, Any]]],
        send: Callable[[MutableMapping[str, Any]], Awaitable[None]],
    ) -> None:
        """ASGI entry point."""
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        for name, value in scope["headers"]:
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    await self._reject(send, 400, "invalid Content-Length header")
                    return
                if declared > self.limit:
                    await self._reject(send, 413, self._too_large())
                    return
        messages = []
        total = 0
        while True:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                break
            total += len(message.get("body", b""))
            if total > self.limit:
                await self._reject(send, 413, self._too_large())
                return
            if not message.get("more_body", False):
                break
        pending = iter(messages)

        async def replay() -> MutableMapping[str, Any]:
            for message in pending:
                return message
            return await receive()

        await self.app(scope, replay, send)

    def _too_large(self) -> str:
        return f"request body too large: the limit is {self.limit // 1024} KB"

    @staticmethod
    async def _reject(
        send: Callable[[MutableMapping[str, Any]], Awaitable[None]], status: int, message: str
    ) -> None:
        body = json.dumps({"error": message}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"connection", b"close"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


def field_path(loc: Iterable[Any]) -> list[str]:
    """The fields of an error location, without ``body`` and the names of union members
    (``constrained-str``, ``dict[str,any]``)."""
    out = []
    for part in loc:
        text = str(part)
        if text == "body":
            continue
        if "-" in text or "[" in text:
            break
        out.append(text)
    return out


def add_error_handlers(app: FastAPI) -> None:
    """Every error as ``{"error": "one line"}``: 400 bad input, 422 schema, 500 fault."""

    @app.exception_handler(ApiError)
    async def api_error(request: Request, exc: ApiError) -> JSONResponse:
        return error_response(exc.status, str(exc))

    @app.exception_handler(InputError)
    async def input_error(request: Request, exc: InputError) -> JSONResponse:
        return error_response(400, str(exc) or "invalid input")

    @app.exception_handler(SolveError)
    async def solve_error(request: Request, exc: SolveError) -> JSONResponse:
        return error_response(500, f"solver failed: {exc}")

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = exc.errors()
        for err in errors:
            if err.get("type") == "json_invalid":
                detail = (err.get("ctx") or {}).get("error", "")
                return error_response(400, f"malformed JSON: {detail}".rstrip(": "))
        first = errors[0] if errors else {}
        where = ".".join(field_path(first.get("loc", ()))) or "body"
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        return error_response(422, f"invalid request: {where}: {first.get('msg', '?')}{more}")

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        message = exc.detail if isinstance(exc.detail, str) else "error"
        return error_response(exc.status_code, message)

    @app.exception_handler(Exception)
    async def internal_error(request: Request, exc: Exception) -> JSONResponse:
        log.exception("internal error on %s", request.url.path)
        return error_response(500, f"internal error: {type(exc).__name__}")


def create_app(
    warm: bool | list[str] = True,
    games: Iterable[str | GameSpec] | None = None,
    wait_warm: bool = False,
) -> FastAPI:
    """The advisor app.

    ``games``: the games served (registry ids or GameSpec objects; default: every
    registered game). ``warm``: True builds every game's default table in a background
    thread at start-up (False: tables load on first use; a list: only those game ids).
    ``wait_warm``: serve only once warm (the listening socket holds connections until
    then). InputError for an id that is not a game.
    """
    tables = GameTables(served_games(games))
    if not isinstance(warm, bool):
        check_game_ids(list(warm), "warm", tables.specs)

    @asynccontextmanager
    async def lifespan(app: FastAPI):  # noqa: ANN202
        log.info("games served: %s", ", ".join(tables.specs) or "none")
        if warm:
            wanted = [g for g in tables.specs if warm is True or g in warm]

            def warm_all() -> None:
                t0 = time.perf_counter()
                for game in wanted:
                    tables.warm(game)
                log.info("tables warm (%s) in %.2f s", ", ".join(wanted), time.perf_counter() - t0)
                # What is loaded by now (modules, tables, solvers) stays for the process's
                # life: leave it out of garbage collections, whose pauses stall every request.
                gc.freeze()

            if wait_warm:
                await anyio.to_thread.run_sync(warm_all)
            else:
                threading.Thread(target=warm_all, name="diceopt-warm", daemon=True).start()
        yield

    app = FastAPI(
        title="diceopt advisor",
        version="2",
        description="Exact optimal play for dice games: advice for any position.",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
    )
    app.state.tables = tables
    app.add_middleware(BodyLimitMiddleware, limit=MAX_BODY_BYTES)
    add_error_handlers(app)

    limiters: dict[str, anyio.CapacityLimiter] = {}

    def advice_threads() -> anyio.CapacityLimiter:
        # Created in the event loop on first use. Few threads: advice holds the GIL
        # mostly, and many threads only fight over it.
        if "advice" not in limiters:
            limiters["advice"] = anyio.CapacityLimiter(ADVICE_THREADS)
        return limiters["advice"]

    def heavy_threads() -> anyio.CapacityLimiter:
        # Long work (seconds of CPU each): fewer at once, the others queue.
        if "heavy" not in limiters:
            limiters["heavy"] = anyio.CapacityLimiter(HEAVY_THREADS)
        return limiters["heavy"]

    @app.get("/api/health", response_model=HealthOut)
    def health() -> dict[str, Any]:
        """Liveness, the games served and the state of each table."""
        return {"status": "ok", "games": list(tables.specs), "tables": dict(tables.status)}

    listing = tables.listing()

    @app.get("/api/games", response_model=GamesOut)
    def list_games() -> dict[str, Any]:
        """Games, variants (with parameters and example positions), units and boards."""
        return listing

    @app.post("/api/advice", response_model=AdviceOut, responses=ERRORS)
    async def advise_position(body: AdviceRequest) -> Response:
        """Every legal action of a position, best first, with value and regret (with a
        target or an opponent where the game offers them: probabilities, and ``expected``)."""
        variant = tables.variant(body.game, body.variant)
        game = tables.spec(body.game).id
        options = body.options()
        data = tables.cached_advice(game, variant, body.position, options)
        if data is None:
            # first use, slow advice or options (tables built on demand): keep the loop free
            if options or tables.needs_thread(game, variant):
                data = await anyio.to_thread.run_sync(
                    tables.advice_json,
                    game,
                    variant,
                    body.position,
                    options,
                    limiter=heavy_threads() if options else advice_threads(),
                )
            else:
                data = tables.advice_json(game, variant, body.position)
        return Response(data, media_type="application/json")

    @app.post("/api/distribution", response_model=DistributionOut, responses=ERRORS)
    async def score_distribution(body: PositionRequest) -> Response:
        """The distribution of the final score from a position, under optimal play."""
        variant = tables.variant(body.game, body.variant)
        game = tables.spec(body.game).id
        data = await anyio.to_thread.run_sync(
            tables.distribution_json, game, variant, body.position, limiter=heavy_threads()
        )
        return Response(data, media_type="application/json")

    @app.post("/api/duel/new", response_model=DuelOut, responses=ERRORS)
    async def duel_new(body: DuelNewRequest) -> dict[str, Any]:
        """A game against the computer playing ``strategy``: your first roll (``seed``)."""
        variant = tables.variant(body.game, body.variant)
        game = tables.spec(body.game).id
        return await anyio.to_thread.run_sync(
            tables.duel_new, game, variant, body.strategy, body.seed, limiter=heavy_threads()
        )

    @app.post("/api/duel/apply", response_model=DuelOut, responses=ERRORS)
    async def duel_apply(body: DuelApplyRequest) -> dict[str, Any]:
        """Your action; when it ends your turn, the computer's whole turn and your next
        roll (dice rolled with ``seed``), with your estimated chance of winning."""
        variant = tables.variant(body.game, body.variant)
        game = tables.spec(body.game).id
        state = body.state.model_dump()
        return await anyio.to_thread.run_sync(
            tables.duel_apply, game, variant, state, body.action, body.seed,
            limiter=heavy_threads(),
        )  # fmt: skip

    @app.post("/api/evaluate", response_model=EvaluateOut, responses=ERRORS)
    def evaluate_action(body: ActionRequest) -> dict[str, Any]:
        """The value and regret of one action played in a position."""
        variant = tables.variant(body.game, body.variant)
        game = tables.spec(body.game).id
        return tables.evaluate(game, variant, body.position, body.action)

    @app.post("/api/new", response_model=StepOut, responses=ERRORS)
    def new_game(body: NewRequest) -> dict[str, Any]:
        """A starting position to play from (the first roll made with ``seed``)."""
        variant = tables.variant(body.game, body.variant)
        return tables.new(tables.spec(body.game).id, variant, body.seed)

    @app.post("/api/apply", response_model=StepOut, responses=ERRORS)
    def apply_action(body: ApplyRequest) -> dict[str, Any]:
        """Play an action: the next position (dice rolled with ``seed``) and game state."""
        variant = tables.variant(body.game, body.variant)
        game = tables.spec(body.game).id
        return tables.apply(game, variant, body.position, body.action, body.seed)

    @app.post("/api/preview", response_model=PreviewOut, responses=ERRORS)
    def preview_actions(body: PreviewRequest) -> dict[str, Any]:
        """What each action leads to, dice rolled with a fixed seed."""
        variant = tables.variant(body.game, body.variant)
        game = tables.spec(body.game).id
        return tables.preview(game, variant, body.position, body.actions)

    @app.post("/api/analyse", response_model=AnalyseOut, responses=ERRORS)
    async def analyse_game(body: AnalyseRequest) -> dict[str, Any]:
        """A played game's record graded; a whole game's luck and skill split."""
        variant = tables.variant(body.game, body.variant)
        game = tables.spec(body.game).id
        return await anyio.to_thread.run_sync(
            tables.analyse, game, variant, body.record, limiter=heavy_threads()
        )

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        """The advisor page (static HTML; the script and styles are under /static)."""
        return FileResponse(STATIC_DIR / "index.html", headers={"Cache-Control": "no-cache"})

    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    return app


def create_app_from_env() -> FastAPI:
    """App factory for uvicorn worker processes (``diceopt serve --workers N``).

    ``DICEOPT_WEB_WARM``: all, none or game ids; ``DICEOPT_WEB_WAIT_WARM=1``: serve once
    warm; ``DICEOPT_WEB_LOG_LEVEL`` sets up logging in the worker (warm-up progress).
    """
    level = os.environ.get("DICEOPT_WEB_LOG_LEVEL")
    if level and not logging.getLogger().handlers:
        logging.basicConfig(level=level.upper(), format="%(asctime)s %(name)s: %(message)s")
    return create_app(
        warm=warm_setting(os.environ.get("DICEOPT_WEB_WARM", "all")),
        wait_warm=os.environ.get("DICEOPT_WEB_WAIT_WARM") == "1",
    )
