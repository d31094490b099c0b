"""The web app's answers for the served games, as JSON data: advice, distributions, play,
games against the computer, analyses, and the listing of ``GET /api/games``.

Every game comes from the registry (``diceopt.games.registry``) and is used through its
:class:`~diceopt.games.contract.GameSpec` only; nothing here names a game. What the server
keeps of a game (rules, stored tables, first use, the answer cache, threads) is
:class:`~diceopt.web.served.ServedGames`, which ``GameTables`` extends with the answers.

Advice options are the game's ``advise_options`` (by name); distributions and play against
the computer are the spec's optional hooks (``distribution``, ``computer_strategies`` and
``versus_*``): a game without them answers 400, one line.
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections import Counter
from collections.abc import Mapping
from typing import Any

import numpy as np

from diceopt.advice import ActionAdvice
from diceopt.errors import InputError, one_line
from diceopt.games.contract import GameSpec, Parameter, Versus, offers
from diceopt.web.errors import ApiError
from diceopt.web.served import Options, PositionIn, ServedGames, check_options

log = logging.getLogger("diceopt.web")

PREVIEW_SEED = 0  # dice of /api/preview: the same answer every time


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


TITLE_CHARS = 56  # a title taken from a variant's description is at most this long


def id_words(vid: str) -> str:
    """A variant id in words: ``scandinavian-accepts`` -> ``Scandinavian accepts``."""
    words = " ".join(w for w in re.split(r"[-_\s]+", vid.replace("/", " / ")) if w)
    return words[:1].upper() + words[1:]


def variant_titles(spec: GameSpec) -> dict[str, str]:
    """A title for people per variant of ``spec`` (the page's list shows these, not ids):
    the game's own (``variant_titles``); else its description up to a colon where that
    is short and no other variant's ("Scandinavian Yatzy: 15 categories, ..." ->
    "Scandinavian Yatzy"; a semicolon as a comma); else the id in words (:func:`id_words`)."""
    own = {str(k): str(v) for k, v in spec.variant_titles.items()}
    heads = {}
    for vid, description in spec.variants.items():
        head = str(description).split(":")[0].strip().replace("; ", ", ")
        heads[vid] = head[:1].upper() + head[1:] if 0 < len(head) <= TITLE_CHARS else ""
    count = Counter(heads.values())
    return {
        vid: own.get(vid)
        or (heads[vid] if heads[vid] and count[heads[vid]] == 1 else "")
        or id_words(vid)
        for vid in spec.variants
    }


def has_distribution(spec: GameSpec) -> bool:
    """Whether the game gives score distributions (it overrides ``GameSpec.distribution``)."""
    return offers(spec, "distribution")


def page_sheet(spec: GameSpec, rules: Any) -> dict[str, Any]:
    """The score sheet's layout for the page (the spec's optional ``page_sheet(rules)``:
    ``upper`` boxes, ``bonus_threshold``, ``bonus``), as plain JSON; {} without one."""
    try:
        return jsonable(spec.page_sheet(rules) or {})
    except Exception as exc:  # the page then draws the sheet without a bonus line
        log.warning("%s: no sheet layout: %s", spec.id, one_line(exc))
        return {}


class GameTables(ServedGames):
    """The served games and their answers (see :class:`~diceopt.web.served.ServedGames`)."""

    # --- advice ------------------------------------------------------------------------------
    def advice_json(
        self,
        game: str,
        variant: str,
        position: PositionIn,
        options: Options = None,
    ) -> bytes:
        """JSON bytes of a position's advice (see ``advice_data``), cached (LRU)."""
        key = self.answer_key(game, variant, position, options)
        body = self.cached(key)
        if body is not None:
            return body
        # a first call's build is not advice time, nor is advice with options
        was_ready = self.is_ready(game, variant) and not options
        # CPU time of this thread: a busy machine's waits do not make advice look slow
        t0 = time.thread_time()
        data = self.run(game, variant, lambda: self.advice_data(game, variant, position, options))
        seconds = time.thread_time() - t0
        if was_ready:
            self.note_cost(game, variant, seconds)
        return self.store_answer(key, dumps(data))

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

    # --- distribution -------------------------------------------------------------------
    def distribution_json(self, game: str, variant: str, position: PositionIn) -> bytes:
        """JSON bytes of the final-score distribution from a position (the game's
        ``distribution``), cached; ApiError 400 for a game without one."""
        spec = self.spec(game)
        if not has_distribution(spec):
            raise ApiError(400, "this game has no score distribution")
        key = self.answer_key(game, variant, position, what="distribution")
        body = self.cached(key)
        if body is not None:
            return body
        rules = self.rules(game, variant)

        def distribution() -> dict[str, Any]:
            data = spec.distribution(rules, spec.parse(rules, position))
            if data is None:
                raise InputError("this game has no score distribution")
            return data | self.rules_used(game, variant)

        return self.store_answer(key, dumps(self.run(game, variant, distribution)))

    # --- play against the computer ------------------------------------------------------
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
        key = self.answer_key(game, variant, state["you"], options, what="estimate")
        body = self.cached(key)
        if body is not None:
            return body

        def estimate() -> tuple[float, str]:
            return spec.versus_estimate(rules, state["you"], state["computer"], strategy)

        value, what = self.run(game, variant, estimate)
        data = {"win_probability": float(value), "win_probability_is": what}
        return self.store_answer(key, dumps(data))

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
            "record_events": [
                str(e)
                for e in (versus.events if versus.record_events is None else versus.record_events)
            ],
            "game_over": bool(versus.game_over),
            "to_move": 0,
            "result": None if versus.result is None else float(versus.result),
            "win_probability": (
                None if versus.win_probability is None else float(versus.win_probability)
            ),
            "win_probability_is": versus.win_probability_is,
        }

    # --- evaluate, play ----------------------------------------------------------------------
    @staticmethod
    def check_legal(spec: GameSpec, rules: Any, pos: Any, action: str) -> None:
        """InputError (one line, naming the legal actions) for an action that the game's
        ``legal_actions`` (found without solving) does not hold: refused before any table
        is loaded or built."""
        legal = spec.legal_actions(rules, pos)
        if legal is None or spec.canonical_action(rules, pos, action) in legal:
            return
        shown = "; ".join(legal[:12]) + (" ..." if len(legal) > 12 else "")
        raise InputError(f"{action.strip()!r} is not a legal action here; legal: {shown}")

    def evaluate(
        self, game: str, variant: str, position: PositionIn, action: str
    ) -> dict[str, Any]:
        """One action's value and regret, the best action's value and what values mean."""
        spec = self.spec(game)
        rules = self.rules(game, variant)
        pos = spec.parse(rules, position)
        self.check_legal(spec, rules, pos, action)

        def evaluate() -> tuple[Any, Any]:
            return spec.evaluate(rules, pos, action)

        entry, advice = self.run(game, variant, evaluate)
        # Actions come best first: not value + regret, since regret is a loss whichever
        # way the objective points (lower is better in some games).
        return {
            **entry.to_json(),
            "best_value": advice.best.value,
            "value_is": advice.value_is,
            **self.rules_used(game, variant),
        }

    def new(
        self, game: str, variant: str, seed: int | None, turn: dict[str, int] | None = None
    ) -> dict[str, Any]:
        """A starting position (dice rolled with ``seed``), as ``step_data`` answers it;
        ``turn``: the next turn of a game of one turn, carrying what the last turn's
        ``next_turn`` said (e.g. Zilch's streak)."""
        spec = self.spec(game)
        rules = self.rules(game, variant)
        rng = np.random.default_rng(seed)
        pos = spec.new_position(rules, rng) if turn is None else spec.new_turn(rules, turn, rng)
        return self._position_data(spec, rules, pos) | {
            "game_over": False,
            "to_move": int(spec.to_move(rules, pos)),
            "events": [],
            "result": None,
            "next_turn": None,
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
        pos = spec.parse(rules, position)
        self.check_legal(spec, rules, pos, action)

        def play() -> dict[str, Any]:
            step = spec.apply(rules, pos, action, rng)
            return self._position_data(spec, rules, step.position) | {
                "game_over": bool(step.game_over),
                "to_move": int(step.to_move),
                "events": [str(e) for e in step.events],
                "result": None if step.result is None else float(step.result),
                "next_turn": None if step.next_turn is None else dict(step.next_turn),
                **self.rules_used(game, variant),
            }

        return self.run(game, variant, play, builds=False)

    def preview(
        self, game: str, variant: str, position: PositionIn, actions: list[str]
    ) -> dict[str, Any]:
        """What each action leads to, dice rolled with a fixed seed (e.g. a sheet's points)."""
        spec = self.spec(game)
        rules = self.rules(game, variant)

        pos = spec.parse(rules, position)
        for action in actions:
            self.check_legal(spec, rules, pos, action)

        def play_each() -> list[dict[str, Any]]:
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
            titles = variant_titles(spec)
            for vid, description in spec.variants.items():
                entry: dict[str, Any] = {
                    "id": vid,
                    "title": titles[vid],
                    "description": str(description),
                }
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
                    "one_turn": bool(spec.one_turn),
                    "table": table_path(game),
                }
            )
        return {"games": out}

    def variant_entry(self, game: str, vid: str) -> dict[str, Any]:
        """What the page needs of a variant (or a pasted rule file's id): its rules'
        parameters, players, units, sheet and an example position (text and JSON)."""
        spec = self.spec(game)
        rules = self.rules(game, vid)
        pos = self.example(spec, rules)
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


def table_path(game: str) -> str | None:
    """Where the table endpoints of ``game`` answer (a game of 2 to 6 players at one
    table: ``{path}/chances`` and ``{path}/advice``), or None: it has none."""
    from diceopt.web.table_routes import table_game, table_path

    return table_path() if game == table_game() else None
