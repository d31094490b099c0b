"""The served games: which games a server serves, their variants and rules (pasted rule
files too), the stored tables their answers read, first use serialised, answers cached.

Every game comes from the registry (``diceopt.games.registry``) and is used through its
:class:`~diceopt.games.contract.GameSpec` only; nothing here names a game. The answers
themselves are ``diceopt.web.games``.

- Solved tables live in the game modules (one per process, shared by all requests). The
  first use of a (game, variant) is serialised by a lock, so concurrent first requests
  build a table once (``ServedGames.run``); ``warm`` builds a default variant ahead of
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
from diceopt.errors import InputError, one_line
from diceopt.games.contract import GameSpec
from diceopt.games.registry import games, get_game
from diceopt.memory import size_words
from diceopt.progress import Cancelled
from diceopt.tables import Build, Table, TableStore
from diceopt.web.errors import ApiError

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


def memory_size(text: str, option: str = "DICEOPT_WEB_MAX_MEMORY") -> int:
    """Bytes from ``4G``, ``4GB``, ``512M``, ``64k`` or a plain number of bytes (``0``: no
    bound); InputError (one line) otherwise."""
    words = str(text).strip().upper().removesuffix("B").removesuffix("I")
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}.get(words[-1:], 1)
    number = words[:-1] if scale > 1 else words
    try:
        value = float(number)
    except ValueError:
        value = -1.0
    if not 0 <= value < 1 << 60 or value != value:
        raise InputError(f"{option}: a size such as 4G or 512M, got {str(text)[:40]!r}")
    return int(value * scale)


# The most memory one request's work may need (bytes, estimated up front by the game's
# ``memory_need``; 0: no bound): a request over it is refused with 400, saying why.
MAX_MEMORY = memory_size(os.environ.get("DICEOPT_WEB_MAX_MEMORY", "4G"))


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


class ServedGames:
    """The served games: rules per variant, first use locked, answers cached."""

    def __init__(
        self,
        specs: Mapping[str, GameSpec],
        store: TableStore | None = None,
        max_memory: int | None = None,
    ) -> None:
        self.specs = dict(specs)
        self.store = store or tables_module.DEFAULT
        self.max_memory = MAX_MEMORY if max_memory is None else int(max_memory)
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
        name = spec.describe(rules).get("name") or "pasted"
        self._check_need(spec, rules, "advice", None, None, f"the solve of rule file {name}")
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

    def check_memory(
        self,
        game: str,
        variant: str,
        need: str = "advice",
        pos: Any = None,
        options: Options = None,
    ) -> None:
        """ApiError 400 (one line, saying why) when the game estimates that the answer
        (its work and the tables it would build: ``GameSpec.memory_need``) needs more
        memory than this server's bound (``max_memory``, 0: none), before it starts."""
        spec = self.spec(game)
        what = "the score distribution" if need == "distribution" else "this answer"
        what += f" of {game}/{variant}"
        self._check_need(spec, self.rules(game, variant), need, pos, options, what)

    def _check_need(
        self, spec: GameSpec, rules: Any, need: str, pos: Any, options: Options, what: str
    ) -> None:
        """ApiError 400 when ``spec.memory_need(rules, need, pos, **options)`` is over
        ``max_memory`` (``what``: the work, in words, for the message)."""
        if self.max_memory <= 0:
            return
        try:
            bytes_needed = spec.memory_need(rules, need, pos, **dict(options or {}))
        except (InputError, TypeError, ValueError):  # the request is checked elsewhere
            return
        if bytes_needed is not None and bytes_needed > self.max_memory:
            raise ApiError(
                400,
                f"{what} would need about {size_words(bytes_needed)} of memory, over this "
                f"server's bound of {size_words(self.max_memory)} per request "
                "(diceopt serve --max-memory)",
            )

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
        if builds:
            self.check_memory(game, variant)
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
            self.run(game, variant, lambda: spec.advise(rules, self.example(spec, rules)))
        except Exception as exc:  # the table then loads on first use
            log.warning("warming %s failed: %s", name, one_line(exc))
            return
        log.info("%s warm in %.2f s", name, time.perf_counter() - t0)

    @staticmethod
    def example(spec: GameSpec, rules: Any) -> Any:
        """The game's position example under ``rules``, else a seeded starting position."""
        try:
            return spec.parse(rules, spec.position_example)
        except InputError:
            return spec.new_position(rules, np.random.default_rng(0))

    # --- the answer cache, advice times --------------------------------------------------
    def cached_advice(
        self,
        game: str,
        variant: str,
        position: PositionIn,
        options: Options = None,
    ) -> bytes | None:
        """The cached JSON of a position (with these options), or None."""
        return self.cached(self.answer_key(game, variant, position, options))

    @staticmethod
    def answer_key(
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

    def cached(self, key: tuple[str, str, str]) -> bytes | None:
        """The answer cached under ``key`` (``answer_key``), now the most recently used; or
        None."""
        with self._cache_lock:
            body = self._cache.get(key)
            if body is not None:
                self._cache.move_to_end(key)
            return body

    def store_answer(self, key: tuple[str, str, str], body: bytes) -> bytes:
        """Cache ``body`` (JSON bytes) under ``key`` (the least recently used beyond
        ADVICE_CACHE_SIZE let go); ``body``."""
        if ADVICE_CACHE_SIZE > 0:
            with self._cache_lock:
                self._cache[key] = body
                if len(self._cache) > ADVICE_CACHE_SIZE:
                    self._cache.popitem(last=False)
        return body

    def needs_thread(self, game: str, variant: str) -> bool:
        """Whether advice may be slow: first use (table build) or over INLINE_SECONDS."""
        samples = self._cost.get((game, variant))
        return not samples or statistics.median(samples) >= INLINE_SECONDS

    def is_ready(self, game: str, variant: str) -> bool:
        """Whether the table of game/variant is built (a ``run`` that builds has succeeded)."""
        return (game, variant) in self._ready

    def note_cost(self, game: str, variant: str, seconds: float) -> None:
        """One advice's CPU seconds, among the latest COST_SAMPLES (see ``needs_thread``)."""
        self._cost.setdefault((game, variant), deque(maxlen=COST_SAMPLES)).append(seconds)


def preload(warm: bool | list[str]) -> float:
    """Load the stored tables of a game against the computer (every strategy, the default
    variant of each warm game that offers one) into this process's table store: ``serve``
    starts it in a thread before the app is made, so that the checks of the large files
    (which release the GIL) overlap the imports, and the first game against the computer
    finds them loaded. A table not stored is left to the requests (built on first use, as
    before); a failure is logged, then the request that needs the table reports it. The
    seconds it took."""
    t0 = time.perf_counter()
    try:
        served = ServedGames(served_games(None if isinstance(warm, bool) else warm))
        for game, spec in served.specs.items():
            variant = served.variant(game, None)
            for strategy in spec.computer_strategies:
                for table in served.duel_tables(game, variant, strategy):
                    if table.ready() or not table.is_stored():
                        continue
                    build = served.store.ensure(table)
                    if build.stage == "failed":
                        log.warning("preloading %s failed: %s", table.title, build.error)
    except Exception as exc:  # the requests load what they need then
        log.warning("preloading failed: %s", one_line(exc))
    seconds = time.perf_counter() - t0
    log.info("the tables of a game against the computer preloaded in %.2f s", seconds)
    return seconds
