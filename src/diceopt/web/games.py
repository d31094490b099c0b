"""The web app's side of the game registry: tables, answer cache, threads, JSON answers.

Every game comes from the registry (``diceopt.games.registry``) and is used through its
:class:`~diceopt.games.contract.GameSpec` only; nothing here names a game.

- Solved tables live in the game modules (one per process, shared by all requests). The
  first use of a (game, variant) is serialised by a lock, so concurrent first requests
  build a table once (``GameTables.run``); ``warm`` builds a default variant ahead of
  use, one log line when it starts and one when it is ready. The stored tables a game
  names (``GameSpec.tables``: expected-score tables, Yatzy's target rows) are loaded or
  built through the table store (``diceopt.tables``: once per cache directory, whatever
  the processes; ``needed``, ``unready``), the request checked first so that a bad one
  never starts a build.
- Advice answers are kept as JSON bytes in an LRU cache (``DICEOPT_WEB_ADVICE_CACHE``
  entries; 0: none).
- Advice that is quick once its table is built (under INLINE_SECONDS on average) is
  answered on the event loop; first uses and slow advice go to a few threads
  (``needs_thread``), so the loop is never blocked for long. Advice with options (a
  target, an opponent), distributions and games against the computer always go to a
  thread, at most HEAVY_THREADS (``DICEOPT_WEB_HEAVY_THREADS``) at a time.
- Advice options are the game's ``advise_options`` (by name); distributions and play
  against the computer are the spec's optional hooks (``distribution``,
  ``computer_strategies`` and ``versus_*``): a game without them answers 400, one line.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import statistics
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np

from diceopt import tables as tables_module
from diceopt.advice import ActionAdvice
from diceopt.errors import InputError, one_line
from diceopt.games.contract import GameSpec, Parameter, Versus, offers
from diceopt.games.registry import games, get_game
from diceopt.progress import Cancelled
from diceopt.tables import Build, Table, TableStore

log = logging.getLogger("diceopt.web")

# Answers kept per process (least recently used dropped); DICEOPT_WEB_ADVICE_CACHE=0: none.
ADVICE_CACHE_SIZE = int(os.environ.get("DICEOPT_WEB_ADVICE_CACHE", "4096"))
# Advice that takes less than this (CPU time, median, table built) is answered on the event
# loop: a hop to the thread pool costs more than that and makes threads fight for the GIL.
INLINE_SECONDS = 0.002
COST_SAMPLES = 32  # advice times kept per table for the median
ADVICE_THREADS = int(os.environ.get("DICEOPT_WEB_ADVICE_THREADS", "4"))
# Threads for long work (advice with options, distributions, play against the computer):
# each may take seconds of CPU, so few run at once and the rest wait their turn.
HEAVY_THREADS = int(os.environ.get("DICEOPT_WEB_HEAVY_THREADS", "2"))
PREVIEW_SEED = 0  # dice of /api/preview: the same answer every time
# A request whose stored tables are not ready waits this long for their build (seconds),
# then answers 503 "being built" with Retry-After (the build goes on; GET /api/tables).
TABLE_WAIT = float(os.environ.get("DICEOPT_WEB_TABLE_WAIT", "5"))
# Rule files pasted on the page (``rules`` of a request) kept per process: the least
# recently used beyond this many is let go, its tables with it (``GameSpec.forget``).
RULE_FILES = int(os.environ.get("DICEOPT_WEB_RULE_FILES", "8"))
PASTED = "file:"  # the variant id of a pasted rule file: file:<its key>
# The work of one request beyond the shared tables (e.g. a solve for an opponent who has
# finished) is stopped after this long (seconds, 503), or as soon as its client has gone.
WORK_SECONDS = float(os.environ.get("DICEOPT_WEB_WORK_SECONDS", "60"))


class ApiError(Exception):
    """An error with its HTTP status (and headers, e.g. Retry-After), answered as
    ``{"error": ...}``."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.headers = headers or {}


def _plain(value: Any) -> Any:
    """numpy scalars and arrays, tuples and sets as plain JSON data (``json`` default)."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray | tuple | set | frozenset):
        return list(value)
    raise TypeError(f"{type(value).__name__} is not JSON data")


def dumps(data: Any) -> bytes:
    """Compact JSON bytes (numpy values as plain numbers, no NaN)."""
    return json.dumps(data, allow_nan=False, separators=(",", ":"), default=_plain).encode()


def jsonable(data: Mapping[str, Any]) -> dict[str, Any]:
    """The entries of ``data`` that are plain JSON (tuples become lists; others left out)."""
    out = {}
    for key, value in data.items():
        try:
            out[str(key)] = json.loads(dumps(value))
        except (TypeError, ValueError):
            continue
    return out


def action_json(entry: ActionAdvice) -> dict[str, Any]:
    """``entry.to_json()``, quicker for a plain ActionAdvice (``asdict`` is slow)."""
    if type(entry) is ActionAdvice:
        data = {"action": entry.action, "value": entry.value, "regret": entry.regret}
        if entry.expected is not None:
            data["expected"] = entry.expected
        return data
    return entry.to_json()


def board_kind(position_json: Mapping[str, Any]) -> str:
    """How the page draws a position, from the fields of its JSON form.

    ``dice-sheet``: dice (a list of numbers) and a score sheet (``filled``, a list of
    names); ``tiles``: ``open``, a list of numbers; ``dice``: dice only;
    ``colour-dice``: ``rolled``, the last roll's dice as ``{"colour", "face"}`` objects
    (colours g, y, r; faces brain, shotgun, footprints), drawn with the dice of the turn
    so far (``shotguns``, ``feet``, ``aside``: colour letters) and an input per other
    field; ``form``: any other game (an input per field, and the position's text).
    """
    if isinstance(position_json.get("rolled"), list):
        return "colour-dice"
    dice = isinstance(position_json.get("dice"), list)
    if dice and isinstance(position_json.get("filled"), list):
        return "dice-sheet"
    if isinstance(position_json.get("open"), list):
        return "tiles"
    return "dice" if dice else "form"


def option_json(param: Parameter) -> dict[str, Any]:
    """An advice option for /api/games: name, help, value type (int, float, text), choices."""
    kind = "int" if param.type is int else "float" if param.type is float else "text"
    return {
        "name": param.name,
        "help": param.help,
        "type": kind,
        "choices": None if param.choices is None else list(param.choices),
        "default": param.default if isinstance(param.default, int | float | str) else None,
    }


def has_distribution(spec: GameSpec) -> bool:
    """Whether the game gives score distributions (it overrides ``GameSpec.distribution``)."""
    return offers(spec, "distribution")


def check_options(spec: GameSpec, options: Mapping[str, Any]) -> dict[str, Any]:
    """The advice options as ``advise`` takes them: names from the spec's ``advise_options``
    (ApiError 400, one line, for a name the game does not have), text values parsed by the
    option's type, ``choices`` checked."""
    known = {p.name: p for p in spec.advise_options}
    out = {}
    for name, value in options.items():
        param = known.get(name)
        if param is None:
            offered = ", ".join(known) or "none"
            raise ApiError(400, f"this game has no option {name} (its options: {offered})")
        if isinstance(value, str) and param.type is not str:
            try:
                value = param.type(value)
            except (TypeError, ValueError) as exc:
                raise ApiError(400, f"{name}: {one_line(exc)}") from None
        if param.choices is not None and value not in param.choices:
            choices = ", ".join(map(str, param.choices))
            raise ApiError(400, f"{name} must be one of {choices}, got {value!r}")
        out[name] = value
    return out


def page_sheet(spec: GameSpec, rules: Any) -> dict[str, Any]:
    """The score sheet's layout for the page (the spec's optional ``page_sheet(rules)``:
    ``upper`` boxes, ``bonus_threshold``, ``bonus``), as plain JSON; {} without one."""
    try:
        return jsonable(spec.page_sheet(rules) or {})
    except Exception as exc:  # the page then draws the sheet without a bonus line
        log.warning("%s: no sheet layout: %s", spec.id, one_line(exc))
        return {}


def served_games(selection: Iterable[str | GameSpec] | None = None) -> dict[str, GameSpec]:
    """The games to serve: every registered game, or the listed ids / GameSpec objects.

    InputError (one line, naming the nearest id) for an id that is not registered.
    """
    if selection is None:
        return dict(games())
    out = {}
    for item in selection:
        spec = item if isinstance(item, GameSpec) else get_game(item)
        out[spec.id] = spec
    return out


def warm_setting(text: str, known: Iterable[str] | None = None) -> bool | list[str]:
    """``all`` -> True, ``none`` -> False, else a comma-separated list of game ids.

    InputError (one line) names any id that is not a registered game (or not in ``known``).
    """
    words = [w.strip().lower() for w in text.split(",") if w.strip()]
    if words in ([], ["none"]):
        return False
    if words == ["all"]:
        return True
    check_game_ids(words, "--warm", known, "use all, none or ids separated by commas from")
    return words


def check_game_ids(
    ids: Iterable[str],
    option: str,
    known: Iterable[str] | None = None,
    choices: str = "the games are",
) -> None:
    """InputError (one line, naming them) when ids are not registered games."""
    known = list(games() if known is None else known)
    unknown = [g for g in ids if g not in known]
    if unknown:
        raise InputError(
            f"{option}: unknown game {', '.join(map(repr, unknown))}; {choices} {', '.join(known)}"
        )


PositionIn = str | Mapping[str, Any]  # a position as a request gives it: text or JSON
Options = Mapping[str, Any] | None  # an advice's options (the game's ``advise_options``)


def position_key(position: PositionIn) -> str:
    """The cache key of a position as sent: text with its spaces collapsed, or JSON."""
    if isinstance(position, str):
        text = position.strip()
        return text if text.startswith("{") else " ".join(text.split())
    return json.dumps(position, sort_keys=True, separators=(",", ":"), default=str)


class GameTables:
    """The served games: rules per variant, first use locked, answers cached."""

    def __init__(self, specs: Mapping[str, GameSpec], store: TableStore | None = None) -> None:
        self.specs = dict(specs)
        self.store = store or tables_module.DEFAULT
        self.status: dict[str, str] = {}  # "game/variant" -> loading | ready | error: ...
        self._rules: dict[tuple[str, str], Any] = {}
        self._ready: set[tuple[str, str]] = set()
        self._locks: dict[tuple[str, str], threading.Lock] = {}
        self._guard = threading.Lock()
        self._cache: OrderedDict[tuple[str, str, str], bytes] = OrderedDict()
        self._cache_lock = threading.Lock()
        # CPU seconds of the latest advice answers per (game, variant): their median says
        # whether advice is quick (a garbage collection now and then does not)
        self._cost: dict[tuple[str, str], deque[float]] = {}
        # pasted rule files: (game, sha256 of the text) -> variant id, and the variant ids
        # held, least recently used first
        self._texts: dict[tuple[str, str], str] = {}
        self._pasted: OrderedDict[tuple[str, str], None] = OrderedDict()

    # --- games, variants, rules ------------------------------------------------------------
    def spec(self, game: str) -> GameSpec:
        """The spec of a served game (id case-insensitive); ApiError 400 otherwise."""
        spec = self.specs.get(game) or self.specs.get(game.strip().lower())
        if spec is None:
            known = ", ".join(self.specs) or "none"
            raise ApiError(400, f"unknown game {game!r}; available games: {known}")
        return spec

    def variant(self, game: str, variant: str | None, rules: str | None = None) -> str:
        """The variant id (None or "" = the game's default), or with ``rules`` (a rule
        file's text) the id of those rules (:meth:`pasted`); InputError if not offered."""
        spec = self.spec(game)
        if rules is not None:
            if variant:
                raise InputError("give either a variant or rules (a rule file), not both")
            return self.pasted(spec.id, rules)
        if variant is not None and variant in spec.variants:
            return variant
        return spec.variant_id(variant or None)

    def ids(self, game: str, variant: str | None, rules: str | None = None) -> tuple[str, str]:
        """(the game's id, the variant id) of a request's game and variant, or of its
        pasted rule file ``rules`` (see ``spec`` and ``variant``)."""
        return self.spec(game).id, self.variant(game, variant, rules)

    def rules(self, game: str, variant: str) -> Any:
        """The rules object of a variant (made once) or of a pasted rule file held."""
        key = (game, variant)
        rules = self._rules.get(key)
        if rules is None:
            if variant.startswith(PASTED):
                raise InputError("that rule file is no longer held here: send its text again")
            rules = self._rules[key] = self.spec(game).rules(variant)
        return rules

    def pasted(self, game: str, text: str) -> str:
        """The variant id (``file:<key>``) of a rule file's text for ``game`` (the game's
        ``rules_text``: InputError, one line, for a bad file or one too large to solve on
        request). At most RULE_FILES are held; the least recently used beyond them is let
        go, with its tables (``GameSpec.forget``) and answers."""
        spec = self.spec(game)
        digest = hashlib.sha256(text.encode()).hexdigest()
        with self._guard:
            vid = self._texts.get((game, digest))
            if vid is not None and (game, vid) in self._pasted:
                self._pasted.move_to_end((game, vid))
                return vid
        rules = spec.rules_text(text)
        vid = PASTED + str(spec.describe(rules).get("key") or digest[:16])
        dropped = []
        with self._guard:
            self._texts[(game, digest)] = vid
            self._rules.setdefault((game, vid), rules)
            self._pasted[(game, vid)] = None
            self._pasted.move_to_end((game, vid))
            while len(self._pasted) > max(1, RULE_FILES):
                dropped.append(self._pasted.popitem(last=False)[0])
            for old in dropped:
                self._drop(*old)
        if dropped:
            log.info("let go of %d pasted rule file(s)", len(dropped))
        return vid

    def _drop(self, game: str, vid: str) -> None:
        """Forget a pasted rule file (``_guard`` held): its rules, state and answers."""
        rules = self._rules.pop((game, vid), None)
        self._ready.discard((game, vid))
        self._locks.pop((game, vid), None)
        self._cost.pop((game, vid), None)
        self.status.pop(f"{game}/{vid}", None)
        for text_key in [k for k, v in self._texts.items() if k[0] == game and v == vid]:
            del self._texts[text_key]
        with self._cache_lock:
            for key in [k for k in self._cache if k[0] == game and k[1] == vid]:
                del self._cache[key]
        if rules is not None:
            self.spec(game).forget(rules)

    def rules_json(self, game: str, variant: str) -> dict[str, str]:
        """Which rules an answer used: ``name`` and ``key`` (what the tables are filed
        under: a rule file's name and content hash), from the game's ``describe``."""
        spec = self.spec(game)
        described = spec.describe(self.rules(game, variant))
        return {
            "name": str(described.get("name") or variant),
            "key": str(described.get("key") or variant),
        }

    def rules_used(self, game: str, variant: str) -> dict[str, Any]:
        """``{"rules": rules_json}`` for an answer under a pasted rule file (which rules it
        used); ``{}`` under a variant (the answer is as it always was)."""
        return {"rules": self.rules_json(game, variant)} if variant.startswith(PASTED) else {}

    # --- stored tables (diceopt.tables): built once, shared by processes -----------------
    def needed(
        self,
        game: str,
        variant: str,
        need: str = "advice",
        options: Options = None,
        pos: Any = None,
    ) -> tuple[Table, ...]:
        """The stored tables an answer reads (the game's ``tables`` hook; ``pos``: the
        parsed position asked about); InputError (one line, naming the first advice option)
        when the game finds the request bad."""
        spec = self.spec(game)
        rules = self.rules(game, variant)
        try:
            return tuple(spec.tables(rules, need, pos, **dict(options or {})))
        except InputError as exc:
            if not options or need != "advice":
                raise
            name = next(iter(options))
            line = one_line(exc)
            raise InputError(line if line.startswith(f"{name}:") else f"{name}: {line}") from None

    def advice_tables(
        self,
        game: str,
        variant: str,
        position: PositionIn,
        options: Options = None,
    ) -> tuple[Table, ...]:
        """The stored tables an advice reads, after checking the position and the options
        (InputError / ApiError 400, one line, before any table is built)."""
        spec = self.spec(game)
        pos = spec.parse(self.rules(game, variant), position)
        kwargs = check_options(spec, options) if options else {}
        return self.needed(game, variant, "advice", kwargs, pos)

    def duel_tables(
        self,
        game: str,
        variant: str,
        strategy: str,
        state: Mapping[str, Any] | None = None,
    ) -> tuple[Table, ...]:
        """The stored tables a game against the computer reads, after checking the strategy
        and (``state``: an apply's) both sides (ApiError / InputError 400, one line)."""
        spec = self.spec(game)
        strategy = self.check_strategy(spec, strategy)
        options: dict[str, Any] = {"strategy": strategy}
        pos = None
        if state is not None:
            pos = spec.parse(self.rules(game, variant), state["you"])
            options["computer"] = state["computer"]
        return self.needed(game, variant, "versus", options, pos)

    def unready(self, wanted: Iterable[Table]) -> list[Build]:
        """The builds of the tables not ready in this process, each started if it was not
        (single flight: one build per table, whoever asks)."""
        return [self.store.start(t) for t in wanted if not t.ready()]

    def ensure_tables(self, game: str, variant: str) -> None:
        """Load or build (waiting for it) the tables every answer of game/variant reads;
        ApiError 500 (one line) when one could not be made."""
        for table in self.needed(game, variant):
            build = self.store.ensure(table)
            if build.stage == "failed":
                raise ApiError(500, f"{table.title} could not be made ready: {build.error}")

    # --- first use, warm-up --------------------------------------------------------------
    def run(self, game: str, variant: str, fn: Callable[[], Any], builds: bool = True) -> Any:
        """Call ``fn``, which uses the table of game/variant; serialised until it is built.

        ``builds``: a successful call leaves the table built (advice does; apply may not).
        The stored tables the game names (``GameSpec.tables``) are loaded or built first,
        through the table store: once per cache directory, whatever the processes.
        """
        key = (game, variant)
        if key in self._ready:
            return fn()
        with self._guard:
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:
            if key in self._ready or not builds:
                return fn()
            name = f"{game}/{variant}"
            before = self.status.get(name)
            self.status[name] = "loading"
            t0 = time.perf_counter()
            try:
                self.ensure_tables(game, variant)
                result = fn()
            # a bad request, or its work stopped (client gone): the table is as it was
            except (InputError, ApiError, Cancelled) as exc:
                if getattr(exc, "status", 400) >= 500:
                    self.status[name] = f"error: {one_line(exc, 120)}"
                    raise
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
        """Load or build the table of a variant: its position example is advised once."""
        spec = self.spec(game)
        variant = self.variant(game, variant)
        name = f"{game}/{variant}"
        log.info("warming %s ...", name)
        t0 = time.perf_counter()
        try:
            rules = self.rules(game, variant)
            self.run(game, variant, lambda: spec.advise(rules, self._example(spec, rules)))
        except Exception as exc:  # the table then loads on first use
            log.warning("warming %s failed: %s", name, one_line(exc))
            return
        log.info("%s warm in %.2f s", name, time.perf_counter() - t0)

    @staticmethod
    def _example(spec: GameSpec, rules: Any) -> Any:
        """The game's position example under ``rules``, else a seeded starting position."""
        try:
            return spec.parse(rules, spec.position_example)
        except InputError:
            return spec.new_position(rules, np.random.default_rng(0))

    # --- advice ------------------------------------------------------------------------------
    def advice_json(
        self,
        game: str,
        variant: str,
        position: PositionIn,
        options: Options = None,
    ) -> bytes:
        """JSON bytes of a position's advice (see ``advice_data``), cached (LRU)."""
        key = self._key(game, variant, position, options)
        body = self._cached(key)
        if body is not None:
            return body
        # a first call's build is not advice time, nor is advice with options
        was_ready = (game, variant) in self._ready and not options
        # CPU time of this thread: a busy machine's waits do not make advice look slow
        t0 = time.thread_time()
        data = self.run(game, variant, lambda: self.advice_data(game, variant, position, options))
        seconds = time.thread_time() - t0
        if was_ready:
            self._cost.setdefault((game, variant), deque(maxlen=COST_SAMPLES)).append(seconds)
        return self._store(key, dumps(data))

    def advice_data(
        self,
        game: str,
        variant: str,
        position: PositionIn,
        options: Options = None,
    ) -> dict[str, Any]:
        """``{"actions", "value_is", "position", "position_json"}`` of a position.

        ``actions`` and ``value_is`` are ``Advice.to_json()`` (what ``diceopt GAME advise
        --json`` prints); ``position`` is the canonical text, ``position_json`` the JSON form.
        ``options``: the game's advice options (``check_options``); an error the game finds
        with them names the first option (``target: ...``), so the page shows it there.
        """
        spec = self.spec(game)
        rules = self.rules(game, variant)
        pos = spec.parse(rules, position)
        if options:
            kwargs = check_options(spec, options)
            try:
                advice = spec.advise(rules, pos, **kwargs)
            except InputError as exc:
                name = next(iter(kwargs))
                line = one_line(exc)
                raise InputError(
                    line if line.startswith(f"{name}:") else f"{name}: {line}"
                ) from None
        else:
            advice = spec.advise(rules, pos)
        return {
            "actions": [action_json(a) for a in advice.actions],
            "value_is": advice.value_is,
            "position": spec.format(rules, pos),
            "position_json": spec.to_json(rules, pos),
            **self.rules_used(game, variant),
        }

    def cached_advice(
        self,
        game: str,
        variant: str,
        position: PositionIn,
        options: Options = None,
    ) -> bytes | None:
        """The cached JSON of a position (with these options), or None."""
        return self._cached(self._key(game, variant, position, options))

    @staticmethod
    def _key(
        game: str,
        variant: str,
        position: PositionIn,
        options: Options = None,
        what: str = "",
    ) -> tuple[str, str, str]:
        """The cache key: plain advice is (game, variant, position); other answers add
        what they are and their options to the position's part."""
        text = position_key(position)
        if options:
            text += " " + json.dumps(options, sort_keys=True, separators=(",", ":"), default=str)
        return (game, variant, f"{what}:{text}" if what else text)

    def _cached(self, key: tuple[str, str, str]) -> bytes | None:
        with self._cache_lock:
            body = self._cache.get(key)
            if body is not None:
                self._cache.move_to_end(key)
            return body

    def _store(self, key: tuple[str, str, str], body: bytes) -> bytes:
        if ADVICE_CACHE_SIZE > 0:
            with self._cache_lock:
                self._cache[key] = body
                if len(self._cache) > ADVICE_CACHE_SIZE:
                    self._cache.popitem(last=False)
        return body

    # --- distribution -------------------------------------------------------------------
    def distribution_json(self, game: str, variant: str, position: PositionIn) -> bytes:
        """JSON bytes of the final-score distribution from a position (the game's
        ``distribution``), cached; ApiError 400 for a game without one."""
        spec = self.spec(game)
        if not has_distribution(spec):
            raise ApiError(400, "this game has no score distribution")
        key = self._key(game, variant, position, what="distribution")
        body = self._cached(key)
        if body is not None:
            return body
        rules = self.rules(game, variant)

        def distribution() -> dict[str, Any]:
            data = spec.distribution(rules, spec.parse(rules, position))
            if data is None:
                raise InputError("this game has no score distribution")
            return data | self.rules_used(game, variant)

        return self._store(key, dumps(self.run(game, variant, distribution)))

    # --- play against the computer ------------------------------------------------------
    def check_strategy(self, spec: GameSpec, strategy: str) -> str:
        """The strategy as the game names it; ApiError 400 (one line) otherwise."""
        if not spec.computer_strategies:
            raise ApiError(400, "this game has no play against the computer")
        wanted = strategy.strip().lower()
        for name in spec.computer_strategies:
            if name.lower() == wanted:
                return name
        raise ApiError(
            400,
            f"unknown strategy {strategy!r}: the computer plays "
            + " or ".join(spec.computer_strategies),
        )

    def duel_new(
        self, game: str, variant: str, strategy: str, seed: int | None, estimate: bool = True
    ) -> dict[str, Any]:
        """A new game against the computer (the human's first roll with ``seed``);
        ``estimate`` False: without the human's chance of winning (``duel_estimate``)."""
        spec = self.spec(game)
        strategy = self.check_strategy(spec, strategy)
        rules = self.rules(game, variant)
        rng = np.random.default_rng(seed)
        extra = {} if estimate else {"estimate": False}
        versus = self.run(game, variant, lambda: spec.versus_start(rules, strategy, rng, **extra))
        data = self._duel_data(spec, rules, strategy, versus)
        return data | self.rules_used(game, variant)

    def duel_estimate(self, game: str, variant: str, state: Mapping[str, Any]) -> bytes:
        """JSON bytes of ``{"win_probability", "win_probability_is"}``: the human's
        chance of winning (0-1, a draw counting 1/2; ``win_probability_is`` names its
        model) at the start of their turn in ``state`` (as an answer of ``duel_new`` /
        ``duel_apply`` gave it), cached."""
        spec = self.spec(game)
        strategy = self.check_strategy(spec, str(state["strategy"]))
        rules = self.rules(game, variant)
        options = {"computer": state["computer"], "strategy": strategy}
        key = self._key(game, variant, state["you"], options, what="estimate")
        body = self._cached(key)
        if body is not None:
            return body

        def estimate() -> tuple[float, str]:
            return spec.versus_estimate(rules, state["you"], state["computer"], strategy)

        value, what = self.run(game, variant, estimate)
        data = {"win_probability": float(value), "win_probability_is": what}
        return self._store(key, dumps(data))

    def duel_apply(
        self,
        game: str,
        variant: str,
        state: Mapping[str, Any],
        action: str,
        seed: int | None,
        estimate: bool = True,
    ) -> dict[str, Any]:
        """The human's action in a game against the computer (``state`` as the last answer
        gave it); after a turn, the computer's whole turn (dice rolled with ``seed``) and
        (``estimate``) the human's chance of winning from their next turn."""
        spec = self.spec(game)
        strategy = self.check_strategy(spec, str(state["strategy"]))
        rules = self.rules(game, variant)
        rng = np.random.default_rng(seed)
        extra = {} if estimate else {"estimate": False}

        def play() -> Versus:
            return spec.versus_play(
                rules, state["you"], state["computer"], strategy, action, rng, **extra
            )

        data = self._duel_data(spec, rules, strategy, self.run(game, variant, play))
        return data | self.rules_used(game, variant)

    @staticmethod
    def _duel_data(spec: GameSpec, rules: Any, strategy: str, versus: Versus) -> dict[str, Any]:
        you = spec.format(rules, versus.you)
        return {
            "state": {"strategy": strategy, "you": you, "computer": versus.computer},
            "you": spec.to_json(rules, versus.you),
            "computer": json.loads(dumps(versus.computer_json)),
            "computer_moves": [
                {
                    "action": action,
                    "position": spec.format(rules, pos),
                    "position_json": spec.to_json(rules, pos),
                }
                for action, pos in versus.moves
            ],
            "events": [str(e) for e in versus.events],
            "game_over": bool(versus.game_over),
            "to_move": 0,
            "result": None if versus.result is None else float(versus.result),
            "win_probability": (
                None if versus.win_probability is None else float(versus.win_probability)
            ),
            "win_probability_is": versus.win_probability_is,
        }

    def needs_thread(self, game: str, variant: str) -> bool:
        """Whether advice may be slow: first use (table build) or over INLINE_SECONDS."""
        samples = self._cost.get((game, variant))
        return not samples or statistics.median(samples) >= INLINE_SECONDS

    # --- evaluate, play ----------------------------------------------------------------------
    def evaluate(
        self, game: str, variant: str, position: PositionIn, action: str
    ) -> dict[str, Any]:
        """One action's value and regret, the best action's value and what values mean."""
        spec = self.spec(game)
        rules = self.rules(game, variant)

        def evaluate() -> tuple[Any, Any]:
            return spec.evaluate(rules, spec.parse(rules, position), action)

        entry, advice = self.run(game, variant, evaluate)
        # Actions come best first: not value + regret, since regret is a loss whichever
        # way the objective points (lower is better in some games).
        return {
            **entry.to_json(),
            "best_value": advice.best.value,
            "value_is": advice.value_is,
            **self.rules_used(game, variant),
        }

    def new(self, game: str, variant: str, seed: int | None) -> dict[str, Any]:
        """A starting position (dice rolled with ``seed``), as ``step_data`` answers it."""
        spec = self.spec(game)
        rules = self.rules(game, variant)
        pos = spec.new_position(rules, np.random.default_rng(seed))
        return self._position_data(spec, rules, pos) | {
            "game_over": False,
            "to_move": int(spec.to_move(rules, pos)),
            "events": [],
            "result": None,
            **self.rules_used(game, variant),
        }

    def apply(
        self,
        game: str,
        variant: str,
        position: PositionIn,
        action: str,
        seed: int | None,
    ) -> dict[str, Any]:
        """Play an action (dice rolled with ``seed``): the next position and game state."""
        spec = self.spec(game)
        rules = self.rules(game, variant)
        rng = np.random.default_rng(seed)

        def play() -> dict[str, Any]:
            step = spec.apply(rules, spec.parse(rules, position), action, rng)
            return self._position_data(spec, rules, step.position) | {
                "game_over": bool(step.game_over),
                "to_move": int(step.to_move),
                "events": [str(e) for e in step.events],
                "result": None if step.result is None else float(step.result),
                **self.rules_used(game, variant),
            }

        return self.run(game, variant, play, builds=False)

    def preview(
        self, game: str, variant: str, position: PositionIn, actions: list[str]
    ) -> dict[str, Any]:
        """What each action leads to, dice rolled with a fixed seed (e.g. a sheet's points)."""
        spec = self.spec(game)
        rules = self.rules(game, variant)

        def play_each() -> list[dict[str, Any]]:
            pos = spec.parse(rules, position)
            out = []
            for action in actions:
                step = spec.apply(rules, pos, action, np.random.default_rng(PREVIEW_SEED))
                out.append(
                    {
                        "action": action,
                        "position_json": spec.to_json(rules, step.position),
                        "game_over": bool(step.game_over),
                        "events": [str(e) for e in step.events],
                    }
                )
            return out

        return {"outcomes": self.run(game, variant, play_each, builds=False)}

    @staticmethod
    def _position_data(spec: GameSpec, rules: Any, pos: Any) -> dict[str, Any]:
        return {"position": spec.format(rules, pos), "position_json": spec.to_json(rules, pos)}

    # --- analyse ---------------------------------------------------------------------------
    def analyse(self, game: str, variant: str, record: str) -> dict[str, Any]:
        """A record's graded decisions and luck and skill split (``diceopt.analyse``)."""
        from diceopt.analyse import analyse_record

        spec = self.spec(game)
        rules = self.rules(game, variant)
        analysis = self.run(game, variant, lambda: analyse_record(spec, rules, record, "game"))
        return json.loads(dumps(analysis.to_json()))

    # --- listing -------------------------------------------------------------------------
    def listing(self) -> dict[str, Any]:
        """The body of ``GET /api/games``: everything the page needs to know of a game."""
        out = []
        for game, spec in self.specs.items():
            variants = []
            for vid, description in spec.variants.items():
                entry: dict[str, Any] = {"id": vid, "description": str(description)}
                try:
                    entry.update(self.variant_entry(game, vid))
                except Exception as exc:  # listed, without what could not be worked out
                    log.warning("%s/%s: no example position: %s", game, vid, one_line(exc))
                    entry.setdefault("parameters", {})
                variants.append(entry)
            first = next((v for v in variants if "position_example_json" in v), {})
            out.append(
                {
                    "id": game,
                    "title": spec.title or game,
                    "summary": spec.summary,
                    "rules_help": spec.rules_help,
                    "units": spec.units,
                    "players": spec.players,
                    "lower_is_better": spec.lower_is_better,
                    "variants": variants,
                    "default_variant": variants[0]["id"] if variants else None,
                    "position_example": spec.position_example,
                    "board": board_kind(first.get("position_example_json", {})),
                    "advise_options": [option_json(p) for p in spec.advise_options],
                    "distribution": has_distribution(spec),
                    "computer_strategies": list(spec.computer_strategies),
                    "featured": bool(spec.featured),
                    "variable_dice": bool(spec.variable_dice),
                    "rule_files": offers(spec, "rules_text"),
                }
            )
        return {"games": out}

    def variant_entry(self, game: str, vid: str) -> dict[str, Any]:
        """What the page needs of a variant (or a pasted rule file's id): its rules'
        parameters, players, units, sheet and an example position (text and JSON)."""
        spec = self.spec(game)
        rules = self.rules(game, vid)
        pos = self._example(spec, rules)
        entry: dict[str, Any] = {
            "parameters": jsonable(spec.describe(rules)),
            "players": int(spec.players_of(rules)),
            "units": str(spec.units_of(rules)),
            "lower_is_better": bool(spec.lower_is_better_of(rules)),
        }
        sheet = page_sheet(spec, rules)
        if sheet:
            entry["sheet"] = sheet
        entry["position_example"] = spec.format(rules, pos)
        entry["position_example_json"] = json.loads(dumps(spec.to_json(rules, pos)))
        return entry

    def rule_file(self, game: str, text: str) -> dict[str, Any]:
        """The body of ``POST /api/rules``: a pasted rule file checked, as a variant entry
        (``id`` ``file:<key>``, ``rules``: its name and key) for the page."""
        vid = self.variant(game, None, text)
        entry = {"id": vid, "description": f"rule file {self.rules_json(game, vid)['name']}"}
        return entry | self.variant_entry(game, vid) | {"rules": self.rules_json(game, vid)}
