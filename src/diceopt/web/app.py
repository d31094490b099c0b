"""The web advisor: a FastAPI app with a JSON API for every game and one static page.

Endpoints (JSON in and out; every error is ``{"error": "one line"}`` with a 4xx status):

- ``GET /api/health``: liveness and which tables are loaded;
- ``GET /api/games``: the importable games, their variants (with the rules' parameters,
  e.g. Yatzy's category ids), position example, units;
- ``POST /api/advice`` ``{"game", "variant", "position"}``: every legal action, best
  first, each with ``value`` (the game's objective: expected final score in points, or
  win probability) and ``regret`` (how much worse than the best, same units);
- ``POST /api/evaluate`` ``{"game", "variant", "position", "action"}``: one action's
  value and regret, and the best action's value;
- ``POST /api/new`` ``{"game", "variant", "seed"?}``: a starting position (play mode);
- ``POST /api/apply`` ``{"game", "variant", "position", "action", "seed"?}``: the next
  position (dice rolled with a seeded numpy Generator) and whether the game is over.

Solved tables live in the game modules (one per process, shared by all requests). The
first use of a (game, variant) is serialised by a lock, so concurrent first requests
build a table once; the default variants are warmed in a background thread at start-up
(progress in the log). Advice answers are kept in an LRU cache of JSON bytes. Advice that
is quick once its table is built (under INLINE_SECONDS) is answered on the event loop;
first uses and slow advice run in a small thread pool, so the loop is never blocked for
long. Well-formed advice requests are answered by the body-limit middleware directly
(same bytes as the FastAPI route, which documents the schema and answers all the rest).
"""

from __future__ import annotations

import importlib
import inspect
import json
import logging
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, MutableMapping
from contextlib import asynccontextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import anyio.to_thread
import numpy as np
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from diceopt import advice
from diceopt.errors import InputError, SolveError

log = logging.getLogger("diceopt.web")

MAX_BODY_BYTES = 64 * 1024
STATIC_DIR = Path(__file__).parent / "static"
# Answers kept per process (least recently used dropped); DICEOPT_WEB_ADVICE_CACHE=0: none.
ADVICE_CACHE_SIZE = int(os.environ.get("DICEOPT_WEB_ADVICE_CACHE", "4096"))
# Advice that takes less than this on average (table built) is answered on the event loop:
# a hop to the thread pool costs more than that and makes threads fight for the GIL.
INLINE_SECONDS = 0.002
ADVICE_THREADS = int(os.environ.get("DICEOPT_WEB_ADVICE_THREADS", "4"))
# Well-formed advice requests skip the framework (DICEOPT_WEB_FAST_PATH=0: they do not).
FAST_PATH = os.environ.get("DICEOPT_WEB_FAST_PATH", "1") != "0"
PROGRESS_SECONDS = 5.0  # a table still building is reported this often in the log

TITLES = {
    "stick": "Stick or reroll",
    "yatzy": "Yatzy",
    "shutbox": "Shut the Box",
    "pig": "Pig",
}
# What ``value`` means, per game (a variant's objective may say more: OBJECTIVE_UNITS).
DEFAULT_UNITS = {
    "stick": "expected final score (points)",
    "yatzy": "expected final score (points)",
    "shutbox": "objective value",
    "pig": "probability of winning",
}
# Units by a variant's objective (shutbox variants differ in what they optimise).
OBJECTIVE_UNITS = {
    "score": "expected final score (points; lower is better)",
    "shut": "probability of shutting the box",
    "win": "expected wins of the player to move (a draw counts 1/2)",
}
# The function of each game module that gives a variant's rules: an object with
# ``describe()`` (plain JSON-ready parameters), or (rules, objective) for Shut the Box.
RULES_FUNCTIONS = {
    "stick": "rules_for_variant",
    "yatzy": "get_rules",
    "shutbox": "variant_of",
    "pig": "rules_for_variant",
}


# --- errors ----------------------------------------------------------------------------


def one_line(text: object, limit: int = 300) -> str:
    """A message as one line of at most ``limit`` characters."""
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 3] + "..."


def error_response(status: int, message: object) -> JSONResponse:
    """``{"error": message}`` with ``status``."""
    return JSONResponse({"error": one_line(message)}, status_code=status)


class ApiError(Exception):
    """An error with its HTTP status, answered as ``{"error": ...}``."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


FastPath = Callable[[bytes], "bytes | None"]


class BodyLimitMiddleware:
    """Answer 413 when a request body exceeds ``limit`` bytes (pure ASGI).

    The declared Content-Length is checked first; the bytes actually received are counted
    too (chunked uploads, or a Content-Length that lies), before the app sees the body.

    ``fast_paths``: POST path -> function of the JSON body returning the JSON answer, or
    None to let the app answer. It serves well-formed requests without the framework's
    per-request work; anything unusual (errors included) goes to the app as usual.
    """

    def __init__(
        self,
        app: Callable[..., Awaitable[None]],
        limit: int = MAX_BODY_BYTES,
        fast_paths: dict[str, FastPath] | None = None,
    ) -> None:
        self.app = app
        self.limit = limit
        self.fast_paths = fast_paths or {}

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
        json_body = True
        for name, value in scope["headers"]:
            if name == b"content-type":
                json_body = value.split(b";")[0].strip().lower() == b"application/json"
            elif name == b"content-length":
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
        fast = self.fast_paths.get(scope["path"]) if json_body else None
        if (
            fast is not None
            and scope["method"] == "POST"
            and messages[-1]["type"] == "http.request"
        ):
            answer = fast(b"".join(m.get("body", b"") for m in messages))
            if answer is not None:
                await send(
                    {
                        "type": "http.response.start",
                        "status": 200,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"content-length", str(len(answer)).encode()),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": answer})
                return
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


# --- games and tables ------------------------------------------------------------------


def load_games(names: list[str] | None = None) -> dict[str, ModuleType]:
    """The game modules of ``diceopt.advice.GAMES`` that import and implement the contract.

    A missing or broken module is left out (logged), so the server runs with what exists.
    """
    games = {}
    for game, module_name in advice.GAMES.items():
        if names is not None and game not in names:
            continue
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            log.info("game %s not available (%s)", game, one_line(exc))
            continue
        except Exception as exc:  # a half-written module must not stop the server
            log.warning("game %s left out: import failed: %s", game, one_line(exc))
            continue
        missing = [
            name
            for name in ("VARIANTS", "POSITION_EXAMPLE", "advise", "apply")
            if not hasattr(module, name)
        ]
        if missing or not module.VARIANTS:
            log.warning("game %s left out: no %s", game, ", ".join(missing) or "VARIANTS")
            continue
        games[game] = module
    return games


class Tables:
    """Access to the games' solved tables: first use of a variant is built once, locked."""

    def __init__(self, games: dict[str, ModuleType]) -> None:
        self.games = games
        self.status: dict[str, str] = {}  # "game/variant" -> loading | ready | error: ...
        self._ready: set[tuple[str, str]] = set()
        self._locks: dict[tuple[str, str], threading.Lock] = {}
        self._guard = threading.Lock()
        self._cache: OrderedDict[tuple[str, str, str], bytes] = OrderedDict()
        self._cache_lock = threading.Lock()
        self._cost: dict[tuple[str, str], float] = {}  # mean seconds per advice (EWMA)

    def module(self, game: str) -> ModuleType:
        """The module of an available game; ApiError 400 otherwise."""
        module = self.games.get(game)
        if module is None:
            known = ", ".join(self.games) or "none"
            raise ApiError(400, f"unknown game {game!r}; available games: {known}")
        return module

    def variant(self, game: str, variant: str | None) -> str:
        """The variant id (None or "" = the game's default); ApiError 400 if not offered."""
        variants = self.module(game).VARIANTS
        if not variant:
            return next(iter(variants))
        if variant not in variants:
            raise ApiError(
                400, f"unknown {game} variant {variant!r}; choose from {', '.join(variants)}"
            )
        return variant

    def run(self, game: str, variant: str, fn: Callable[[], Any], builds: bool = True) -> Any:
        """Call ``fn``, which uses the table of game/variant; serialised until it is built.

        ``builds``: a successful call leaves the table built (advice does; apply may not).
        """
        key = (game, variant)
        if key in self._ready:
            return fn()
        with self._guard:
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:
            if key in self._ready:
                return fn()
            if not builds:
                return fn()
            name = f"{game}/{variant}"
            before = self.status.get(name)
            self.status[name] = "loading"
            t0 = time.perf_counter()
            try:
                result = fn()
            except InputError:
                if before is None:
                    del self.status[name]
                else:
                    self.status[name] = before
                raise
            except Exception as exc:
                self.status[name] = f"error: {one_line(exc, 120)}"
                raise
            self._ready.add(key)
            self.status[name] = "ready"
            seconds = time.perf_counter() - t0
            if seconds > 0.05:
                log.info("%s table ready in %.2f s", name, seconds)
            return result

    def warm(self, game: str, variant: str | None = None) -> None:
        """Load or build the table of a variant (its position example is advised once)."""
        module = self.module(game)
        variant = self.variant(game, variant)
        name = f"{game}/{variant}"
        log.info("warming %s ...", name)
        t0 = time.perf_counter()
        done = threading.Event()

        def progress() -> None:
            while not done.wait(PROGRESS_SECONDS):
                log.info("still building %s (%.0f s so far)", name, time.perf_counter() - t0)

        threading.Thread(target=progress, name="diceopt-warm-progress", daemon=True).start()
        step = [-1]

        def report(count: int, total: int) -> None:  # a solver's progress callback
            tenth = int(10 * count / max(total, 1))
            if tenth > step[0]:
                step[0] = tenth
                log.info("building %s: %d%% (%d of %d)", name, 10 * tenth, count, total)

        def build() -> Any:
            get_solved = getattr(module, "get_solved", None)
            if callable(get_solved) and "progress" in inspect.signature(get_solved).parameters:
                get_solved(variant, progress=report)
            return module.advise(module.POSITION_EXAMPLE, variant)

        try:
            self.run(game, variant, build)
        except Exception as exc:  # the table then loads on first use
            log.warning("warming %s failed: %s", name, one_line(exc))
            return
        finally:
            done.set()
        log.info("%s warm in %.2f s", name, time.perf_counter() - t0)

    def advice_json(self, game: str, variant: str, position: str) -> bytes:
        """JSON bytes ``{"actions": [...]}`` for a position, cached (LRU)."""
        key = (game, variant, " ".join(position.split()))
        with self._cache_lock:
            body = self._cache.get(key)
            if body is not None:
                self._cache.move_to_end(key)
                return body
        was_ready = (game, variant) in self._ready  # a first call's build is not advice time
        t0 = time.perf_counter()
        options = self.run(game, variant, lambda: advice.advise(game, position, variant))
        seconds = time.perf_counter() - t0
        if was_ready:
            old = self._cost.get((game, variant), seconds)
            self._cost[(game, variant)] = 0.9 * old + 0.1 * seconds
        body = json.dumps(
            {"actions": [advice_entry(o) for o in options]},
            allow_nan=False,
            separators=(",", ":"),
        ).encode()
        if ADVICE_CACHE_SIZE > 0:
            with self._cache_lock:
                self._cache[key] = body
                if len(self._cache) > ADVICE_CACHE_SIZE:
                    self._cache.popitem(last=False)
        return body

    def quick(self, game: str, variant: str) -> bool:
        """Whether advice for (game, variant) is built and takes under INLINE_SECONDS."""
        cost = self._cost.get((game, variant))
        return cost is not None and cost < INLINE_SECONDS

    def cached_advice(self, game: str, variant: str, position: str) -> bytes | None:
        """The cached JSON of a position, or None."""
        key = (game, variant, " ".join(position.split()))
        with self._cache_lock:
            return self._cache.get(key)


def advice_entry(option: advice.ActionAdvice) -> dict[str, Any]:
    """One action as plain JSON data (values as Python floats)."""
    return {
        "action": str(option.action),
        "value": float(option.value),
        "regret": float(option.regret),
    }


def variant_rules(game: str, module: ModuleType, variant: str) -> tuple[Any, str | None]:
    """A variant's rules object and objective; (None, None) when the module gives none.

    The rules come from the module's function named in RULES_FUNCTIONS; the objective is
    named by Shut the Box's variants only (else None).
    """
    get = getattr(module, RULES_FUNCTIONS.get(game, ""), None)
    if not callable(get):
        return None, None
    rules = get(variant)
    if isinstance(rules, tuple):  # (rules, objective)
        rules, objective = rules
        return rules, str(objective)
    return rules, None


def variant_parameters(game: str, module: ModuleType, variant: str) -> dict[str, Any]:
    """Parameters of a variant (its rules' ``describe()``, plus ``objective``), else {}."""
    try:
        rules, objective = variant_rules(game, module, variant)
        if rules is None:
            return {}
        extra = {} if objective is None else {"objective": objective}
        return jsonable({**dict(rules.describe()), **extra})
    except Exception as exc:  # parameters are informative only
        log.debug("no parameters for %s/%s: %s", game, variant, exc)
    return {}


def jsonable(data: dict[str, Any]) -> dict[str, Any]:
    """The entries of ``data`` that are plain JSON (tuples become lists)."""
    out = {}
    for key, value in data.items():
        if isinstance(value, tuple):
            value = list(value)
        try:
            json.dumps(value, allow_nan=False)
        except (TypeError, ValueError):
            continue
        out[str(key)] = value
    return out


def games_listing(games: dict[str, ModuleType]) -> dict[str, Any]:
    """The body of ``GET /api/games``."""
    out = []
    for game, module in games.items():
        units = DEFAULT_UNITS.get(game, "value")
        variants = []
        for vid, desc in module.VARIANTS.items():
            parameters = variant_parameters(game, module, vid)
            variants.append(
                {
                    "id": vid,
                    "description": str(desc),
                    "parameters": parameters,
                    "value_units": OBJECTIVE_UNITS.get(parameters.get("objective"), units),
                }
            )
        out.append(
            {
                "id": game,
                "title": TITLES.get(game, game),
                "variants": variants,
                "default_variant": variants[0]["id"],
                "position_example": module.POSITION_EXAMPLE,
                "value_units": units,
            }
        )
    return {"games": out}


def start_position(module: ModuleType, game: str, variant: str, rng: np.random.Generator) -> str:
    """A starting position for play mode, first roll made with ``rng``.

    No game module offers one, so it is built here from the rules: the numbers of dice,
    sides and tiles come from the variant's rules object (``variant_rules``).
    """
    rules, _ = variant_rules(game, module, variant)
    if game in ("stick", "yatzy"):
        faces = np.sort(rng.integers(1, rules.sides + 1, size=rules.dice))
        dice = "dice " + " ".join(str(int(f)) for f in faces)
        if game == "stick":
            return dice
        return f"{dice} | rerolls 2 | filled - | upper 0 | score 0"
    if game == "pig":
        return "me 0 | opponent 0 | turn 0"
    if game == "shutbox":
        box = f"open {' '.join(str(t) for t in range(1, rules.tiles + 1))}"
        try:  # the first roll, made by the game's own rules (dice forced with all tiles open)
            return str(module.apply(box, "roll", variant, rng)[0])
        except InputError:
            return box
    raise ApiError(400, f"{game} has no starting position to play from")


# --- request bodies --------------------------------------------------------------------

GameId = Field(min_length=1, max_length=40, description="game id, as listed by /api/games")
VariantId = Field(
    default=None, max_length=100, description="variant id (default: the game's first)"
)
PositionText = Field(min_length=1, max_length=2000, description="position in the game's notation")
ActionText = Field(min_length=1, max_length=500, description="an action as advice names it")
SeedValue = Field(default=None, ge=0, le=2**63 - 1, description="random seed (dice rolls)")


class GameRequest(BaseModel):
    """A game and variant."""

    model_config = ConfigDict(extra="forbid")
    game: str = GameId
    variant: str | None = VariantId


class NewRequest(GameRequest):
    """Start a game for play mode."""

    seed: int | None = SeedValue


class PositionRequest(GameRequest):
    """A position to advise on."""

    position: str = PositionText


class ActionRequest(PositionRequest):
    """A position and an action played in it."""

    action: str = ActionText


class ApplyRequest(ActionRequest):
    """Play an action; ``seed`` makes the dice reproducible."""

    seed: int | None = SeedValue


class ActionOut(BaseModel):
    """One action: value in the game's units, regret >= 0 against the best."""

    action: str
    value: float
    regret: float


class AdviceOut(BaseModel):
    """Every legal action, best first."""

    actions: list[ActionOut]


class EvaluateOut(ActionOut):
    """One played action, with the best action's value."""

    best_value: float


class PositionOut(BaseModel):
    """A position after an action, and whether the game ended."""

    position: str
    game_over: bool


class ErrorOut(BaseModel):
    """Every error: one line."""

    error: str


ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorOut, "description": "bad input (unknown game, invalid position, ...)"},
    413: {"model": ErrorOut, "description": "request body over 64 KB"},
    422: {"model": ErrorOut, "description": "request body does not match the schema"},
}


# --- the app ---------------------------------------------------------------------------


def create_app(
    warm: bool | list[str] = True, games: list[str] | None = None, wait_warm: bool = False
) -> FastAPI:
    """The advisor app.

    ``warm``: True warms every game's default variant in a background thread at start-up
    (False: tables load on first use; a list: warm only those game ids). ``wait_warm``:
    start serving only once warm (the listening socket holds connections until then).
    ``games``: limit the games served (default: every importable game). InputError for
    an id in ``warm`` that is not a game.
    """
    if not isinstance(warm, bool):
        check_game_ids(list(warm), "warm")
    tables = Tables(load_games(games))

    @asynccontextmanager
    async def lifespan(app: FastAPI):  # noqa: ANN202
        log.info("games served: %s", ", ".join(tables.games) or "none")
        if warm:
            wanted = [g for g in tables.games if warm is True or g in warm]

            def warm_all() -> None:
                t0 = time.perf_counter()
                for game in wanted:
                    tables.warm(game)
                log.info("tables warm (%s) in %.2f s", ", ".join(wanted), time.perf_counter() - t0)

            if wait_warm:
                await anyio.to_thread.run_sync(warm_all)
            else:
                threading.Thread(target=warm_all, name="diceopt-warm", daemon=True).start()
        yield

    app = FastAPI(
        title="diceopt advisor",
        version="1",
        description="Exact optimal play for dice games: advice for any position.",
        lifespan=lifespan,
    )
    app.state.tables = tables

    def fast_advice(raw: bytes) -> bytes | None:
        """POST /api/advice without the framework, for the common case (see BodyLimit)."""
        try:
            body = json.loads(raw)
            if type(body) is not dict or not body.keys() <= {"game", "variant", "position"}:
                return None
            game, variant, position = body.get("game"), body.get("variant"), body.get("position")
            if type(game) is not str or type(position) is not str or not position:
                return None
            if len(position) > 2000 or (variant is not None and type(variant) is not str):
                return None
            if game not in tables.games:
                return None
            variant = tables.variant(game, variant)
            cached = tables.cached_advice(game, variant, position)
            if cached is not None:
                return cached
            if tables.quick(game, variant):
                return tables.advice_json(game, variant, position)
        except Exception:  # the app answers it, with the proper error
            return None
        return None

    limiter: list[anyio.CapacityLimiter] = []

    def advice_threads() -> anyio.CapacityLimiter:
        # Created in the event loop on first use. Few threads: advice holds the GIL
        # mostly, and many threads only fight over it.
        if not limiter:
            limiter.append(anyio.CapacityLimiter(ADVICE_THREADS))
        return limiter[0]

    fast_paths = {"/api/advice": fast_advice} if FAST_PATH else {}
    app.add_middleware(BodyLimitMiddleware, limit=MAX_BODY_BYTES, fast_paths=fast_paths)

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
        where = ".".join(str(p) for p in first.get("loc", ()) if p != "body") or "body"
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

    @app.get("/api/health")
    def health() -> dict[str, Any]:
        """Liveness, the games served and the state of each table."""
        return {"status": "ok", "games": list(tables.games), "tables": dict(tables.status)}

    listing = games_listing(tables.games)

    @app.get("/api/games")
    def list_games() -> dict[str, Any]:
        """Games, variants (with parameters), position examples and value units."""
        return listing

    @app.post("/api/advice", response_model=AdviceOut, responses=ERRORS)
    async def advise_position(body: PositionRequest) -> Response:
        """Every legal action of a position, best first, with value and regret."""
        variant = tables.variant(body.game, body.variant)
        data = tables.cached_advice(body.game, variant, body.position)
        if data is None:
            if tables.quick(body.game, variant):
                data = tables.advice_json(body.game, variant, body.position)
            else:  # first use (table build) or slow advice: keep the event loop free
                data = await anyio.to_thread.run_sync(
                    tables.advice_json,
                    body.game,
                    variant,
                    body.position,
                    limiter=advice_threads(),
                )
        return Response(data, media_type="application/json")

    @app.post("/api/evaluate", response_model=EvaluateOut, responses=ERRORS)
    def evaluate_action(body: ActionRequest) -> dict[str, Any]:
        """The value and regret of one action played in a position."""
        variant = tables.variant(body.game, body.variant)
        options = tables.run(
            body.game, variant, lambda: advice.advise(body.game, body.position, variant)
        )
        wanted = " ".join(body.action.split())
        option = next((o for o in options if o.action == wanted), None)
        if option is None:
            legal = "; ".join(o.action for o in options[:12])
            raise InputError(
                f"{body.action!r} is not a legal action here; legal actions include: {legal}"
            )
        out = advice_entry(option)
        # Options come best first. Not value + regret: regret is a loss whichever way the
        # objective points, and some objectives are better when lower (Shut the Box score).
        out["best_value"] = float(options[0].value)
        return out

    @app.post("/api/new", response_model=PositionOut, responses=ERRORS)
    def new_game(body: NewRequest) -> dict[str, Any]:
        """A starting position to play from (the first roll made with ``seed``)."""
        module = tables.module(body.game)
        variant = tables.variant(body.game, body.variant)
        rng = np.random.default_rng(body.seed)
        return {"position": start_position(module, body.game, variant, rng), "game_over": False}

    @app.post("/api/apply", response_model=PositionOut, responses=ERRORS)
    def apply_action(body: ApplyRequest) -> dict[str, Any]:
        """Play an action: the next position (dice rolled with ``seed``) and game over."""
        variant = tables.variant(body.game, body.variant)
        rng = np.random.default_rng(body.seed)
        position, over = tables.run(
            body.game,
            variant,
            lambda: advice.apply(body.game, body.position, body.action, variant, rng),
            builds=False,
        )
        return {"position": str(position), "game_over": bool(over)}

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        """The advisor page (static HTML; the script and styles are under /static)."""
        return FileResponse(STATIC_DIR / "index.html", headers={"Cache-Control": "no-cache"})

    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    return app


def warm_setting(text: str) -> bool | list[str]:
    """``all`` -> True, ``none`` -> False, else a comma-separated list of game ids.

    InputError (one line) names any id that is not in ``diceopt.advice.GAMES``.
    """
    words = [w.strip() for w in text.split(",") if w.strip()]
    if words in ([], ["none"]):
        return False
    if words == ["all"]:
        return True
    check_game_ids(words, "--warm", "use all, none or ids separated by commas from")
    return words


def check_game_ids(ids: list[str], option: str, choices: str = "the games are") -> None:
    """InputError (one line, naming them) when ids are not in ``diceopt.advice.GAMES``."""
    unknown = [g for g in ids if g not in advice.GAMES]
    if unknown:
        raise InputError(
            f"{option}: unknown game {', '.join(map(repr, unknown))}; "
            f"{choices} {', '.join(advice.GAMES)}"
        )


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
