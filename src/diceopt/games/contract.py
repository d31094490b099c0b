"""The game contract: every game is one ``GameSpec``, and answers with the data types here.

Games are discovered, not named (:mod:`diceopt.games.registry`). Games return data
(dataclasses, arrays, :class:`Report`, :class:`CommandOutput`) and never print: the front
ends show it, and long work reports through :mod:`diceopt.progress`.

What a game provides (subclass GameSpec):

1. identity: ``id``, ``title``, ``summary`` (one line), ``rules_help`` (how it is played),
   ``units`` (what a value means), ``players`` (1 or 2), ``lower_is_better``; a game
   whose rules change these (e.g. an objective parameter) overrides ``units_of(rules)``,
   ``players_of(rules)`` and ``lower_is_better_of(rules)``;
2. rules: ``parameters`` (each with a default and help), ``variants`` (named presets,
   the first is the default), ``rules(variant, **params)`` -> a hashable rules object,
   validated (InputError, one line);
3. positions: ``parse_text`` / ``parse_json`` and ``format`` / ``to_json`` that round-trip,
   ``new_position(rules, rng)``;
4. play: ``advise(rules, pos)`` -> Advice (every legal action, best first),
   ``apply(rules, pos, action, rng)`` -> Step (next position, game over, who moves);
   for replaying records, ``replay_draws(rules, pos, action, after, events)``: the dice
   that may have led to the position recorded next (default: every draw, in turn);
5. solving: ``solve(rules, **options)`` -> Report (the value from the start), optionally a
   fast ``simulate``; optional ``commands()`` for extra subcommands.

Optional, for the web page and API (the defaults say "not offered"):

6. ``advise_options``: keyword arguments of ``advise`` (e.g. a target score or an
   opponent's sheet), offered by ``POST /api/advice`` under the same names;
7. ``distribution(rules, pos)`` -> the distribution of the final score from a position as
   JSON data (``mean``, ``std``, ``median``, ``percentiles``, ``p_at_least``, ``pmf``, ...),
   or None for a game without one (``POST /api/distribution``);
8. play against the computer: ``computer_strategies`` (how the computer may play; empty:
   not offered), ``versus_start(rules, strategy, rng)`` and ``versus_play(rules, you,
   computer, strategy, action, rng)`` -> :class:`Versus` (both sides, the computer's
   moves, the result, the human's chance of winning for a model it names; ``POST
   /api/duel/...``; ``estimate=False``: without that chance, asked apart with
   ``versus_estimate(rules, you, computer, strategy)``, ``POST /api/duel/estimate``); a
   game implements ``versus_play`` as ``versus_move(rules, pos, computer, action, play)``
   (``pos`` parsed, ``play`` a :class:`VersusPlay`), or overrides it whole.
9. ``tables(rules, need, **options)``: the stored tables an answer reads
   (:class:`diceopt.tables.Table`), so that the server builds each once, shares it between
   processes and answers "being built" instead of solving within a request.
10. page metadata: ``featured`` (True: the page opens on this game the first time),
    ``variable_dice`` (True: a roll may show fewer dice than the rules' number, those
    set aside before it; the page then takes 1 to that many) and
    ``page_sheet(rules)`` -> the score sheet's layout (``upper`` boxes,
    ``bonus_threshold``, ``bonus``) as JSON data, or None: no sheet.
11. rule files from a request: ``rules_text(text, **params)`` -> the rules of a rule
    file's text (pasted or uploaded on the page, ``rules`` of the API; it reads no file
    but the shipped ones and refuses rules too large to solve on request: InputError, one
    line), whose ``describe`` holds ``name`` and ``key`` (what its tables are filed
    under); ``forget(rules)`` drops their tables from the process when a server lets a
    pasted rule file go. On the command line a game takes a rule file through a rules
    parameter of its own (Yatzy: ``--rules FILE``).
    ``memory_need(rules, need, pos, **options)``: the bytes an answer would take (its work
    and the tables it would build), estimated up front, so that a server refuses work over
    its memory bound before starting it (default None: small or unknown).

Optional, for the research front ends (defaults: not offered):

12. environments: ``env_codec(rules)`` -> a :class:`diceopt.games.codec.Codec` (the fixed
    action list and observation encoding; None: no environments), ``env_name`` (the
    environments' name, e.g. ``ShutTheBox``; empty: the title in CamelCase) and
    ``env_presets`` (further one-player environments: name -> rules keyword arguments,
    e.g. ``{"Yahtzee": {"variant": "american"}}``);
13. ``exact_evaluation(rules, choose, seat)`` -> (the exact value from the start of a
    policy, in seat ``seat``'s terms; the decisions queried), where ``choose(pos, legal)``
    returns the policy's action among the sorted legal action texts: a deterministic
    agent's policy evaluated without sampling (``diceopt.evaluate``). NotImplementedError
    (the default) where the game has no exact path (e.g. too many states).

Required of every game, for trust (the conformance suite calls it on the small instance):

14. ``independent_values(rules, pos)`` -> every legal action's value at ``pos`` (a dict
    keyed by the advice's action texts, in the advice's units), computed by a path that
    shares nothing with ``advise``'s values: the generic engine's action values on the
    game's own engine graph, or the exact value of the optimal policy (policy evaluation)
    after the action. Only the rules of ``reduced_rules()`` (default: the small
    instance's) need answer; NotImplementedError (the default) fails the conformance
    check.

Whatever a front end needs from a game comes through these hooks: no front end names a
game's id or keeps a table keyed by game ids. :func:`offers` says whether a spec overrides
an optional hook.

Values are always in the mover's terms: the expected final score (points), or the
probability that the player to move wins (a draw counts 1/2); ``regret`` is how much an
action loses against the best, in the same units (>= 0).
"""

from __future__ import annotations

import argparse
import difflib
import json
import math
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field, is_dataclass
from pathlib import Path
from typing import Any

from diceopt.advice import ActionAdvice, Advice
from diceopt.errors import InputError
from diceopt.lazy import numpy as np
from diceopt.notation import load_json, parse_int

# a value of a built-in type, in words
TYPE_WORDS: dict[Callable[[str], Any], str] = {int: "a whole number", float: "a number"}


@dataclass(frozen=True)
class Parameter:
    """One option of a game or command: ``--name`` on the command line.

    ``type`` parses the command-line text (raise ValueError/InputError for bad text);
    ``choices`` limits the values; ``flag`` makes it a switch; ``many`` takes one or more
    words, each parsed by ``type`` into a list, joined into one list (``--bias 0.1 0.9``
    and ``--bias 0.1,0.9`` are the same). A rules parameter with default None means "as
    the variant says". ``positional``: an argument without ``--`` (``NAME``), optional
    unless ``required`` (e.g. ``export OUT``, ``distribution [POSITION]``). ``const``: the
    option's value may be left out, giving ``const`` (``--ray`` alone, ``--ray HOST:PORT``).
    ``repeat``: the option may be given several times, its values (each parsed by
    ``type``) in a list in the order given (``--opponent A --opponent B``); None when it
    is not given.
    """

    name: str
    help: str
    default: Any = None
    type: Callable[[str], Any] = str
    choices: tuple[Any, ...] | None = None
    flag: bool = False
    many: bool = False
    metavar: str | None = None
    positional: bool = False
    required: bool = False
    const: Any = None  # not None: the value may be left out (``--ray`` alone gives const)
    aliases: tuple[str, ...] = ()  # older spellings of the option, accepted, not in --help
    low: int | None = None  # an int option's least value (checked as it is parsed)
    high: int | None = None  # an int option's largest value (every count, seed, depth)
    repeat: bool = False  # given several times: a list of the values

    @property
    def option(self) -> str:
        """The command-line flag, e.g. ``--dice-rule``."""
        return "--" + self.name.replace("_", "-")

    def parse(self, text: str) -> Any:
        """The value of the option's text (``type``); InputError saying what the value
        must be (never Python's "invalid literal for int()")."""
        if self.type is int:
            value = parse_int(text)
            low = -math.inf if self.low is None else self.low
            high = math.inf if self.high is None else self.high
            if not low <= value <= high:
                raise InputError(f"must be {_range_words(self.low, self.high)}, got {value}")
            return value
        try:
            return self.type(text)
        except InputError:
            raise
        except (TypeError, ValueError) as exc:
            word = TYPE_WORDS.get(self.type)
            raise InputError(f"not {word}: {text!r}" if word else f"{exc}: {text!r}") from None


def _range_words(low: int | None, high: int | None) -> str:
    """An int option's range in words: ``0 to 10,000,000``, ``at least 1``, ``at most 9``."""
    if low is not None and high is not None:
        return f"a whole number from {low:,} to {high:,}"
    return f"at least {low:,}" if low is not None else f"at most {high:,}"


@dataclass(frozen=True)
class Step:
    """What playing one action led to.

    ``position``: the next position (as the game's position object); ``game_over``;
    ``to_move``: the player to move next (0 = first player); ``events``: what happened
    on the way, in words (e.g. "rolled 3 5"); ``result``: when the game is over, its
    outcome in the start's terms (final score in points, or the first player's wins:
    1, 1/2 or 0); ``next_turn``: in a game of one turn that is over, what the next turn
    carries over (e.g. ``{"streak": 1}`` after a zilch: :meth:`GameSpec.new_turn`),
    None where it starts as any game does.
    """

    position: Any
    game_over: bool
    to_move: int = 0
    events: tuple[str, ...] = ()
    result: float | None = None
    next_turn: Mapping[str, int] | None = None


@dataclass(frozen=True)
class Versus:
    """A game against the computer after one call of ``versus_start`` / ``versus_play``.

    ``you``: the human's position (the game's position object; their turn, unless the game
    is over); ``computer``, ``computer_json``: the computer's side between its turns, as
    text and JSON that ``versus_play`` reads back; ``moves``: the computer's actions in
    this call, each with its position after it; ``events``: what happened, in words;
    ``result``: when over, the human's outcome (1 win, 1/2 draw, 0 loss);
    ``win_probability``: the human's chance of winning (a draw counting 1/2) at the
    start of their turn, None in mid-turn; ``win_probability_is`` says what it is (the
    model of both players' play it is exact for); ``record_events``: the human's move in
    the words of the game's ``apply`` (what a record of the human's own game says, for a
    one-player game whose computer plays a game of its own; None: ``events``).
    """

    you: Any
    computer: str
    computer_json: dict[str, Any]
    moves: tuple[tuple[str, Any], ...] = ()
    events: tuple[str, ...] = ()
    game_over: bool = False
    result: float | None = None
    win_probability: float | None = None
    win_probability_is: str = ""
    record_events: tuple[str, ...] | None = None


@dataclass(frozen=True)
class VersusPlay:
    """How a game against the computer goes on (``versus_play``'s options): ``strategy``
    (one of ``computer_strategies``, as given), ``rng`` (the dice), ``estimate`` (False:
    the answer leaves out the human's chance of winning, see ``versus_estimate``)."""

    strategy: str
    rng: np.random.Generator
    estimate: bool = True


@dataclass
class Report:
    """The answer of ``solve`` or ``simulate``: the headline value, JSON data, text lines."""

    value: float
    data: dict[str, Any] = field(default_factory=dict)
    lines: list[str] = field(default_factory=list)


@dataclass
class CommandOutput:
    """What a game's own command found: ``data`` (``--json`` prints it as one object) and
    ``lines`` (the text shown otherwise). The command returns it and never prints."""

    data: dict[str, Any]
    lines: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Command:
    """An extra subcommand of a game (e.g. ``pig boundary``).

    ``options`` are added to the subcommand's parser beside the game's rules parameters;
    ``run(rules, args)`` (args carries the parsed options) returns a
    :class:`CommandOutput`; bad input raises InputError (one line).
    """

    name: str
    help: str
    run: Callable[[Any, argparse.Namespace], CommandOutput]
    options: tuple[Parameter, ...] = ()
    json: bool = True


def check_variant_params(
    variant: str | None, named: Mapping[str, Any], params: Mapping[str, Any]
) -> None:
    """InputError (one line) when a parameter given contradicts what a variant given by
    name sets (``named``: the parameters the variant's name fixes, e.g. the dice of
    ``2d3``); a parameter the name leaves open, or one that agrees, is fine."""
    if variant is None:
        return
    for name, value in named.items():
        given = params.get(name)
        if given is not None and given != value:
            option = name.replace("_", "-")
            raise InputError(
                f"--variant {variant} sets {option} {value}, but --{option} {given} was "
                "given: drop one"
            )


def plain(rules: Any) -> dict[str, Any]:
    """A rules object as JSON-ready data (``describe()`` if it has one, else its fields)."""
    if hasattr(rules, "describe"):
        return rules.describe()
    if is_dataclass(rules) and not isinstance(rules, type):
        return asdict(rules)
    return {"rules": str(rules)}


@dataclass(frozen=True)
class WarmJob:
    """Commands (argv lists, game first) run in order in one process; ``weight``: the
    job's rough cold-compile cost (seconds on one core), for scheduling only."""

    name: str
    commands: list[list[str]]
    weight: float = 1.0


class GameSpec:
    """The contract of one game; see the module docstring. Subclass and fill in."""

    id: str = ""
    title: str = ""
    summary: str = ""
    rules_help: str = ""
    units: str = "expected final score (points)"
    players: int = 1
    lower_is_better: bool = False
    parameters: tuple[Parameter, ...] = ()
    variants: Mapping[str, str] = {}
    variant_titles: Mapping[str, str] = {}  # a variant's name for people (the page's list)
    position_example: str = ""
    solve_options: tuple[Parameter, ...] = ()
    simulate_options: tuple[Parameter, ...] = ()
    advise_options: tuple[Parameter, ...] = ()  # passed to ``advise`` as keyword arguments
    computer_strategies: tuple[str, ...] = ()  # play against the computer: how it may play
    play_limit: int = 10_000  # decisions after which a played game is declared runaway
    small: Mapping[str, Any] = {}  # parameters of a small instance, for quick checks
    # a position of the small instance whose advice ``diceopt warm`` asks for (empty: none;
    # for games whose advice runs kernels that solve and simulate do not)
    small_position: str = ""
    featured: bool = False  # the page opens on this game the first time
    variable_dice: bool = False  # a roll may show fewer dice than the rules' number
    one_turn: bool = False  # a game is one turn of a longer game (its result: the turn's worth)
    env_name: str = ""  # the environments' name (empty: the title in CamelCase)
    env_presets: Mapping[str, Mapping[str, Any]] = {}  # further environments: name -> rules
    # the ``make run`` section's rough first-run cost (seconds on one core, compile included),
    # for scheduling only: the longest start first
    main_job_weight: float = 1.0

    # --- rules -----------------------------------------------------------------------
    def rules(self, variant: str | None = None, **params: Any) -> Any:
        """The validated rules of a variant with parameters overriding it (InputError)."""
        raise NotImplementedError

    def variant_id(self, variant: str | None) -> str:
        """A variant name matched case-insensitively (None: the default, the first)."""
        if variant is None:
            return next(iter(self.variants))
        wanted = variant.strip().lower()
        for name in self.variants:
            if name.lower() == wanted:
                return name
        near = difflib.get_close_matches(wanted, list(self.variants), n=1)
        hint = f"; did you mean {near[0]!r}?" if near else ""
        raise InputError(
            f"unknown {self.id} variant {variant!r}{hint} (variants: {', '.join(self.variants)})"
        )

    def describe(self, rules: Any) -> dict[str, Any]:
        """The rules' parameters as plain data."""
        return plain(rules)

    # --- positions ---------------------------------------------------------------------
    def parse_text(self, rules: Any, text: str) -> Any:
        """A position from its text notation (InputError, one line, if malformed)."""
        raise NotImplementedError

    def parse_json(self, rules: Any, data: Mapping[str, Any]) -> Any:
        """A position from its JSON form (InputError if malformed)."""
        raise NotImplementedError

    def format(self, rules: Any, pos: Any) -> str:
        """The text notation of a position (parses back to the same position; default:
        the position's own ``text()``)."""
        return str(pos.text())

    def to_json(self, rules: Any, pos: Any) -> dict[str, Any]:
        """The JSON form of a position (parses back to the same position; default: the
        position's own ``to_json()``)."""
        return dict(pos.to_json())

    def parse(self, rules: Any, position: str | Mapping[str, Any]) -> Any:
        """A position from text or JSON (an object, or text that starts with ``{``)."""
        if isinstance(position, Mapping):
            return self.parse_json(rules, position)
        if not isinstance(position, str):
            raise InputError(f"a position is text or a JSON object, got {type(position).__name__}")
        text = position.strip()
        if text.startswith("{"):
            try:
                data = load_json(text)
            except json.JSONDecodeError as exc:
                raise InputError(f"position is not valid JSON: {exc.msg} at {exc.pos}") from None
            if not isinstance(data, dict):
                raise InputError("a JSON position must be an object")
            return self.parse_json(rules, data)
        return self.parse_text(rules, text)

    def new_position(self, rules: Any, rng: np.random.Generator) -> Any:
        """The position a game starts in (dice rolled with ``rng`` where the rules roll)."""
        raise NotImplementedError

    def new_turn(self, rules: Any, carried: Mapping[str, Any], rng: np.random.Generator) -> Any:
        """The first position of a turn that carries ``carried`` over from the last (a
        ``Step.next_turn`` of a game of one turn); InputError (one line) where the game
        carries nothing between turns or ``carried`` is not what it carries."""
        raise InputError(f"{self.title} carries nothing from one turn to the next")

    def carried(self, rules: Any, pos: Any) -> Mapping[str, int] | None:
        """What a turn that opens at ``pos`` carried over (as :meth:`new_turn` takes it),
        or None (a turn or game that opens as ``new_position`` opens it): a record may
        start a turn there."""
        return None

    def show(self, rules: Any, pos: Any) -> list[str]:
        """Lines describing a position for a player (default: its notation)."""
        return [self.format(rules, pos)]

    # --- play ----------------------------------------------------------------------------
    def advise(self, rules: Any, pos: Any, **options: Any) -> Advice:
        """Every legal action with its value and regret, best first (``options``: the
        values of ``advise_options``, when the game has any)."""
        raise NotImplementedError

    def canonical_action(self, rules: Any, pos: Any, text: str) -> str:
        """The action text as ``advise`` writes it (default: words lower-cased, one space)."""
        return " ".join(text.lower().split())

    def legal_actions(self, rules: Any, pos: Any) -> list[str] | None:
        """Every legal action of a position as ``canonical_action`` writes it, found
        without solving (so that an illegal action is refused at once); None (the
        default): not known without the advice."""
        return None

    def evaluate(self, rules: Any, pos: Any, action: str) -> tuple[ActionAdvice, Advice]:
        """One action's advice entry (value, regret) and the full advice of the position."""
        advice = self.advise(rules, pos)
        entry = advice.find(self.canonical_action(rules, pos, action))
        if entry is None:
            legal = "; ".join(a.action for a in advice.actions[:12])
            raise InputError(f"{action.strip()!r} is not a legal action here; legal: {legal}")
        return entry, advice

    def apply(self, rules: Any, pos: Any, action: str, rng: np.random.Generator) -> Step:
        """Play ``action`` (dice rolled with ``rng``): the next position and game state."""
        raise NotImplementedError

    def replay_draws(
        self, rules: Any, pos: Any, action: str | None, after: Any, events: str = ""
    ) -> list[list[Any]] | None:
        """For replaying a record (:mod:`diceopt.replay`): the dice that may have led
        from ``pos`` by ``action`` (canonical) to ``after``, the position recorded next
        (None: the record ends there), with ``events`` the record's words for what
        followed (its ``~>`` line), as candidates, each the values that ``apply``'s
        calls of the generator (``integers``, ``random``, ``choice``) return, in order;
        ``pos`` None: those of ``new_position`` for the first position ``after``. Only
        candidates: the replay checks that one gives what the record says. None (the
        default): every draw of ``integers`` and ``choice`` is tried, in turn."""
        return None

    def to_move(self, rules: Any, pos: Any) -> int:
        """The player to move in a position (0 = first player)."""
        return 0

    # --- optional: the score distribution, play against the computer -------------------
    def distribution(self, rules: Any, pos: Any) -> dict[str, Any] | None:
        """The distribution of the final score from ``pos`` under optimal play, as JSON
        data (``mean``, ``std``, ``median``, ``percentiles``, ``p_at_least``, ``pmf``:
        the probability of each score 0, 1, ...), or None: the game has none."""
        return None

    def versus_start(
        self, rules: Any, strategy: str, rng: np.random.Generator, estimate: bool = True
    ) -> Versus:
        """A new game against the computer playing ``strategy`` (one of
        ``computer_strategies``): the human's first position (dice rolled with ``rng``);
        ``estimate`` False: without the human's chance of winning (``versus_estimate``)."""
        raise InputError(f"{self.title or self.id} has no play against the computer")

    def versus_estimate(
        self, rules: Any, you: Any, computer: Any, strategy: str
    ) -> tuple[float, str]:
        """The human's chance of winning (0-1, a draw counting 1/2) at the start
        of their turn (``you``: their position, text or JSON; ``computer``: its side as
        ``Versus.computer`` wrote it) against the computer playing ``strategy``, and what
        that number is, in words. InputError (one line) for bad input."""
        raise InputError(f"{self.title or self.id} has no play against the computer")

    def versus_play(
        self,
        rules: Any,
        you: Any,
        computer: Any,
        strategy: str,
        action: str,
        rng: np.random.Generator,
        estimate: bool = True,
    ) -> Versus:
        """The human plays ``action`` in ``you`` (a position, text or JSON); when that ends
        their turn the computer (``computer``: its side as ``Versus.computer`` wrote it)
        plays a whole turn with ``strategy`` (``estimate`` False: the answer leaves out the
        human's chance of winning, see ``versus_estimate``). InputError (one line) for bad
        input. A game implements :meth:`versus_move`, which this calls."""
        pos = self.parse(rules, you) if isinstance(you, str | Mapping) else you
        return self.versus_move(rules, pos, computer, action, VersusPlay(strategy, rng, estimate))

    def versus_move(
        self, rules: Any, pos: Any, computer: Any, action: str, play: VersusPlay
    ) -> Versus:
        """The game's side of :meth:`versus_play`, ``pos`` the human's position object."""
        raise InputError(f"{self.title or self.id} has no play against the computer")

    def tables(
        self, rules: Any, need: str = "advice", pos: Any = None, **options: Any
    ) -> tuple[Any, ...]:
        """The stored tables an answer reads (:class:`diceopt.tables.Table` objects), for a
        server to load or build once and share between requests and processes: ``need``
        "advice" (with the advice ``options``), "distribution", "versus" (``strategy``,
        ``computer``) or "all" (everything the page offers under ``rules``). ``pos``: the
        position asked about, if any: a game may raise InputError (one line) for a request
        that would fail anyway, before anything is built. Default: none (the game loads or
        builds what it reads on first use)."""
        return ()

    def memory_need(self, rules: Any, need: str, pos: Any = None, **options: Any) -> int | None:
        """An estimate, made without doing the work (constant time), of the memory in bytes
        that an answer takes beyond what the process holds already: its own work and the
        tables it would load or build. ``need``: ``advice`` (``options``: advice options),
        ``distribution`` (from ``pos``) or ``versus``. None (the default): small, or not
        known. A server refuses a request whose need is over its bound before it starts."""
        return None

    def rules_text(self, text: str, **params: Any) -> Any:
        """The validated rules of a rule file's ``text`` from a request (pasted or
        uploaded: no file is read but the shipped ones), with the rules parameters
        ``params``; InputError (one line) for a bad file or one too large to solve on
        request. Default: the game takes no rule files (InputError)."""
        raise InputError(f"{self.title or self.id} takes no rule files")

    def forget(self, rules: Any) -> None:
        """Drop the tables of ``rules`` (from :meth:`rules_text`) from this process; the
        stored files stay. Default: nothing is kept."""

    # --- optional: page metadata, environments, exact evaluation -------------------------
    def page_sheet(self, rules: Any) -> dict[str, Any] | None:
        """The score sheet's layout for the page (``upper`` boxes, ``bonus_threshold``,
        ``bonus``) as JSON data, or None: the game has no score sheet (the default)."""
        return None

    def env_codec(self, rules: Any) -> Any:
        """The :class:`diceopt.games.codec.Codec` of the rules for environments (fixed
        action list, observation encoding), or None: no environments (the default)."""
        return None

    def exact_evaluation(
        self, rules: Any, choose: Callable[[Any, list[str]], str], seat: int = 1
    ) -> tuple[float, int]:
        """The exact value from the start (seat ``seat``'s terms, 1 or 2) when the seat's
        decisions follow ``choose(pos, legal)`` (legal: the action texts, sorted; returns
        one of them) and any other seat plays optimally; with the decisions queried.
        NotImplementedError (the default): the game has no exact path."""
        raise NotImplementedError(f"{self.title} is too large to evaluate exactly; sampled only")

    def reduced_rules(self) -> Any:
        """Rules small enough for every check's second path (``independent_values``):
        by default the small instance's (``small``)."""
        return self.rules(None, **self.small)

    def independent_values(self, rules: Any, pos: Any) -> dict[str, float]:
        """Every legal action's value at ``pos`` (keys: the advice's action texts; the
        advice's units) by a path independent of ``advise``: the second path that the
        conformance suite checks every advised value against. NotImplementedError (the
        default): no second path, which the suite refuses."""
        raise NotImplementedError(f"{self.title or self.id} offers no second path")

    # --- what the rules make of the game (defaults: the class attributes) --------------
    def players_of(self, rules: Any) -> int:
        """Players under these rules (1 or 2); ``players`` is the most any rules have."""
        return self.players

    def units_of(self, rules: Any) -> str:
        """What a value means under these rules (e.g. when the objective is a parameter)."""
        return self.units

    def lower_is_better_of(self, rules: Any) -> bool:
        """True when lower values are better under these rules."""
        return self.lower_is_better

    # --- solving -------------------------------------------------------------------------
    def solve(self, rules: Any, **options: Any) -> Report:
        """Solve (or load) the rules: the optimal value from the start, with details."""
        raise NotImplementedError

    def simulate(self, rules: Any, games: int, rng: np.random.Generator, **options: Any) -> Report:
        """Play ``games`` seeded games with the optimal policy through ``advise``/``apply``.

        The generic (slow, Python) path; games with a fast simulator override it.
        Outcomes are in the start's terms (``Step.result``).
        """
        outcomes = np.empty(games)
        for g in range(games):
            outcomes[g] = self.play_out(rules, rng)
        exact = self.solve(rules).value
        return self.simulation_report(outcomes, exact)

    def simulation_report(
        self, outcomes: np.ndarray, exact: float, policy: str = "optimal"
    ) -> Report:
        """Mean, standard error, range and the exact value (optimal play) of simulated
        outcomes of games played with ``policy`` (named in the text): a helper for
        ``simulate``, not a hook."""
        n = len(outcomes)
        mean = float(outcomes.mean())
        std_error = float(outcomes.std(ddof=1) / np.sqrt(n)) if n > 1 else float("nan")
        data = {
            "mean": mean,
            "std_error": std_error if n > 1 else None,
            "games": n,
            "min": float(outcomes.min()),
            "max": float(outcomes.max()),
            "exact": exact,
        }
        lines = [
            f"{n:,} games of {policy} play: mean {mean:.6f}"
            + (f" +/- {std_error:.6f} (standard error)" if n > 1 else ""),
            f"{'exact value' if policy == 'optimal' else 'exact value of optimal play'} "
            f"{exact:.9f} ({self.units}); range {data['min']:g} to {data['max']:g}",
        ]
        return Report(mean, data, lines)

    def play_out(self, rules: Any, rng: np.random.Generator) -> float:
        """One game of optimal play from the start; its ``Step.result``."""
        from diceopt.record import play_games

        return float(play_games(self, rules, 1, rng)[0][0])

    def commands(self) -> tuple[Command, ...]:
        """Extra subcommands beyond solve, advise, play and simulate."""
        return ()

    def warm_jobs(self, folder: Path) -> list[WarmJob]:
        """What ``diceopt warm`` runs to compile the game's kernels ahead: jobs of
        commands (argv lists, the game's id first) that between them run every numba
        kernel its documented commands use, on rules small enough that the time is the
        compile (``folder``: a scratch directory for rule files). Default: solve and
        simulate the small instance (:attr:`small`), and advise at :attr:`small_position`."""
        small = [w for k, v in self.small.items() for w in (f"--{k.replace('_', '-')}", str(v))]
        commands = [[self.id, "solve", *small]]
        if self.small_position:  # before the games, which may leave their tables to it
            commands.append([self.id, "advise", self.small_position, *small])
        commands.append([self.id, "simulate", "--games", "50", *small])
        return [WarmJob(self.id, commands)]

    def main_job(self, out: Callable[[str], None]) -> None:
        """The game's section of ``make run``, written line by line through ``out`` (the front
        end's writer; default: solve the default rules)."""
        report = self.solve(self.rules())
        out(f"== {self.title} ==")
        out(f"optimal value from the start: {report.value:.9f} ({self.units})")


def offers(spec: GameSpec, hook: str) -> bool:
    """Whether ``spec`` overrides the optional method ``hook`` of GameSpec (e.g.
    ``"env_codec"``), i.e. offers what it stands for; nothing is built or called."""
    return getattr(type(spec), hook, None) is not getattr(GameSpec, hook)


simulation_report = GameSpec.simulation_report  # the function of earlier releases
