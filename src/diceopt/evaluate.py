"""How far an agent is from optimal play: its expected loss, sampled or exact.

An agent is a callable ``agent(spec, rules, position, legal_actions) -> str``: ``spec``
is the game's GameSpec, ``rules`` its rules object, ``position`` the game's position
object (``spec.format(rules, position)`` is its notation), ``legal_actions`` the legal
action texts as ``spec.advise`` writes them, in alphabetical order (so that their order
gives no hint of their values); it returns one of them (any form the game
accepts, e.g. ``"hold 3 3"`` or ``"k 33"``). An object with a method ``act`` of the same
signature is accepted too.

``evaluate(agent, game, games=N, seed=S)`` plays N seeded games (in two-player games the
agent takes ``seat`` 1 or 2 and the optimal player the other) and reports

- the agent's mean result (game units: points, or wins 1 / draw 0.5 / loss 0);
- the optimal value from the start (``spec.solve(rules).value``, the agent's seat);
- the expected loss against optimal play, estimated as the mean over games of the summed
  regrets of the agent's decisions along its own games: by the performance-difference
  identity this is an unbiased estimate of V*(start) - V(agent) (the other way round for
  lower-is-better games, so a loss is always >= 0), with a 95% interval (normal
  approximation) and far less variance than comparing mean results.

For games small enough to walk whole (those whose GameSpec offers ``exact_evaluation``:
stick or reroll; Shut the Box, Pig and engine plug-ins through their compiled game
graphs) a deterministic agent is also queried once at every decision of the game and its
policy is evaluated exactly, without sampling: ``exact_value`` and ``exact_loss``. The
exact path assumes the agent's choice depends on the decision state only (stick: the
dice shown, queried with the points omitted).
"""

from __future__ import annotations

import importlib
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from diceopt.errors import InputError, SolveError, one_line
from diceopt.games.contract import GameSpec
from diceopt.games.registry import get_game
from diceopt.lazy import numpy as np

Z95 = 1.959963984540054  # two-sided 95% normal quantile
AgentFn = Callable[[GameSpec, Any, Any, Sequence[str]], str]


@dataclass
class Evaluation:
    """What ``evaluate`` found (values in the game's units, see ``units``).

    ``mean_result``/``result_std_error``: the agent's sampled results; ``optimal_value``:
    V*(start) for the agent's seat; ``loss``: the mean summed regret per game,
    ``loss_interval`` its 95% interval; ``exact_value``/``exact_loss``: the agent's
    exact value and loss (None where not computed); ``decisions``: the agent's decisions
    in the sampled games; ``seconds``: wall time.
    """

    game: str
    rules: dict[str, Any]
    units: str
    games: int
    seed: int | None
    seat: int
    mean_result: float
    result_std_error: float | None
    optimal_value: float
    loss: float
    loss_std_error: float | None
    loss_interval: tuple[float, float] | None
    decisions: int
    exact_value: float | None = None
    exact_loss: float | None = None
    exact_decisions: int | None = None
    exact_note: str | None = None
    seconds: float = 0.0
    lines: list[str] = field(default_factory=list, repr=False)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON-ready data (no NaN: missing numbers are null)."""
        data = asdict(self)
        data.pop("lines")
        if self.loss_interval is not None:
            data["loss_interval"] = list(self.loss_interval)
        return data


def as_agent(agent: Any) -> AgentFn:
    """The agent as a callable: itself, or its ``act`` method; InputError otherwise."""
    act = getattr(agent, "act", None)
    if callable(act):
        return act
    if callable(agent):
        return agent
    raise InputError(f"an agent is a callable or has an act method, got {type(agent).__name__}")


def load_agent(ref: str) -> AgentFn:
    """``module:callable`` (e.g. ``mypkg.agents:greedy``): the object, as an agent.

    A class (or factory) named there is called with no arguments when the object itself
    takes no four arguments; InputError (one line) if it cannot be loaded.
    """
    module_name, sep, attr = ref.partition(":")
    if not sep or not module_name or not attr:
        raise InputError(f"--agent must be module:callable, got {ref!r}")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise InputError(f"cannot import agent module {module_name!r}: {exc}") from None
    except Exception as exc:  # the module's own error (a syntax error, a failing import)
        raise InputError(f"cannot import agent module {module_name!r}: {raised(exc)}") from None
    obj: Any = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise InputError(f"module {module_name!r} has no {attr!r}")
        obj = getattr(obj, part)
    if isinstance(obj, type):
        try:
            obj = obj()
        except Exception as exc:
            raise InputError(f"cannot make the agent: {agent_failed(obj, exc)}") from None
    return as_agent(obj)


def agent_name(agent: Any) -> str:
    """The agent as its user wrote it: ``module.function``, ``Class.act`` or its type."""
    owner = getattr(agent, "__self__", None)
    if owner is not None:  # a bound method (an object's act)
        return f"{type(owner).__module__}.{type(owner).__qualname__}.{agent.__name__}"
    name = getattr(agent, "__qualname__", None)
    module = getattr(agent, "__module__", None)
    if name is None:
        return type(agent).__qualname__
    return f"{module}.{name}" if module else name


def raised(exc: BaseException) -> str:
    """An exception in one line: its type and message and where it was raised
    (``ValueError: boom at agents.py:12``)."""
    import traceback

    frames = [f for f in traceback.extract_tb(exc.__traceback__) if not f.filename.startswith("<")]
    where = f" at {frames[-1].filename}:{frames[-1].lineno}" if frames else ""
    message = one_line(exc, 120)
    return f"{type(exc).__name__}{': ' + message if message else ''}{where}"


def agent_failed(agent: Any, exc: BaseException) -> str:
    """One line saying that ``agent`` raised ``exc`` (:func:`agent_name`, :func:`raised`)."""
    return f"the agent {agent_name(agent)} raised {raised(exc)}"


def legal_of(advice: Any) -> list[str]:
    """The legal action texts of an advice in alphabetical order: no hint of their values."""
    return sorted(a.action for a in advice.actions)


def _choose(agent: AgentFn, spec: GameSpec, rules: Any, pos: Any, legal: list[str]) -> str:
    """The agent's action in the canonical text; InputError naming an illegal choice."""
    try:
        text = agent(spec, rules, pos, list(legal))
    except Exception as exc:  # the agent's own bug: one line, not a traceback
        raise InputError(f"{agent_failed(agent, exc)} in '{spec.format(rules, pos)}'") from exc
    if not isinstance(text, str):
        raise InputError(f"the agent must return an action text, got {text!r}")
    try:
        action = spec.canonical_action(rules, pos, text)
    except InputError as exc:
        raise InputError(
            f"the agent chose {text!r} in '{spec.format(rules, pos)}': {exc}"
        ) from None
    if action not in legal:
        raise InputError(
            f"the agent chose {text!r}, not legal in '{spec.format(rules, pos)}' "
            f"(legal: {', '.join(legal[:12])})"
        )
    return action


def play_one(
    agent: AgentFn, spec: GameSpec, rules: Any, rng: np.random.Generator, seat: int = 1
) -> tuple[float, float, int]:
    """One seeded game: (the agent's result, its summed regret, its decision count).

    In a two-player game the agent moves for ``seat`` (1 or 2) and the optimal player
    (``advise``'s best action) for the other; the result is then the agent's wins.
    """
    two = spec.players_of(rules) == 2
    pos = spec.new_position(rules, rng)
    regret, decisions = 0.0, 0
    for _ in range(spec.play_limit):
        advice = spec.advise(rules, pos)
        if not two or spec.to_move(rules, pos) == seat - 1:
            action = _choose(agent, spec, rules, pos, legal_of(advice))
            entry = advice.find(action)
            assert entry is not None  # _choose returns a legal action
            regret += entry.regret
            decisions += 1
        else:
            action = advice.best.action
        step = spec.apply(rules, pos, action, rng)
        if step.game_over:
            result = float(step.result if step.result is not None else 0.0)
            if two and seat == 2:
                result = 1.0 - result
            return result, regret, decisions
        pos = step.position
    raise InputError(f"a game of {spec.title} did not end within {spec.play_limit} decisions")


def evaluate(
    agent: Any,
    game: str | GameSpec,
    games: int = 1000,
    seed: int | None = None,
    variant: str | None = None,
    *,
    seat: int = 1,
    exact: bool | None = None,
    **params: Any,
) -> Evaluation:
    """Evaluate ``agent`` on ``game`` (a registered id or a GameSpec) against optimal play.

    ``games`` seeded games (``seed``; None: fresh) estimate the agent's mean result and
    expected loss (see the module docstring; units: the game's, points or wins).
    ``variant`` and ``params`` are the rules as on the command line. ``seat`` (1 or 2) is
    the agent's seat in two-player games. ``exact``: None evaluates exactly where the game
    allows it, True requires it (InputError if not possible), False skips it.
    """
    t0 = time.perf_counter()
    if not isinstance(games, int) or games < 1:
        raise InputError(f"games must be a positive whole number, got {games!r}")
    if seat not in (1, 2):
        raise InputError(f"seat must be 1 or 2, got {seat}")
    spec = game if isinstance(game, GameSpec) else get_game(game)
    rules = spec.rules(variant, **params)
    fn = as_agent(agent)
    two = spec.players_of(rules) == 2
    if not two and seat != 1:
        raise InputError(f"{spec.title} with these rules has one player: seat must be 1")
    optimal = spec.solve(rules).value
    if two and seat == 2:
        optimal = 1.0 - optimal
    rng = np.random.default_rng(seed)
    results, regrets = np.empty(games), np.empty(games)
    decisions = 0
    for g in range(games):
        results[g], regrets[g], d = play_one(fn, spec, rules, rng, seat)
        decisions += d
    se_r = float(results.std(ddof=1) / math.sqrt(games)) if games > 1 else None
    se_l = float(regrets.std(ddof=1) / math.sqrt(games)) if games > 1 else None
    loss = float(regrets.mean())
    interval = (loss - Z95 * se_l, loss + Z95 * se_l) if se_l is not None else None
    out = Evaluation(
        spec.id,
        spec.describe(rules),
        spec.units_of(rules),
        games,
        seed,
        seat,
        float(results.mean()),
        se_r,
        float(optimal),
        loss,
        se_l,
        interval,
        decisions,
    )
    if exact is not False:
        try:
            value, count = exact_value(fn, spec, rules, seat)
        except NotImplementedError as exc:
            if exact:
                raise InputError(str(exc)) from None
            out.exact_note = str(exc)
        except SolveError as exc:
            out.exact_note = f"exact evaluation failed: {exc}"
        else:
            sign = -1.0 if spec.lower_is_better_of(rules) else 1.0
            out.exact_value, out.exact_decisions = value, count
            loss = sign * (optimal - value)
            out.exact_loss = 0.0 if abs(loss) < 1e-12 else loss  # no "-0.000000000"
    out.seconds = time.perf_counter() - t0
    out.lines = report_lines(out)
    return out


def report_lines(ev: Evaluation) -> list[str]:
    """The evaluation in words (what ``diceopt evaluate`` prints)."""
    who = f", agent in seat {ev.seat}" if ev.units.startswith("probab") or ev.seat != 1 else ""
    lines = [f"{ev.game}: {ev.games:,} games (seed {ev.seed}){who}; values in {ev.units}"]
    spread = "" if ev.result_std_error is None else f" +/- {ev.result_std_error:.6f} (s.e.)"
    lines.append(f"agent mean result   {ev.mean_result:.6f}{spread}")
    lines.append(f"optimal value       {ev.optimal_value:.9f}")
    if ev.loss_interval is not None:
        lo, hi = ev.loss_interval
        lines.append(
            f"expected loss       {ev.loss:.6f} (95% interval {lo:.6f} to {hi:.6f}; "
            f"summed regrets of {ev.decisions:,} decisions)"
        )
    else:
        lines.append(f"expected loss       {ev.loss:.6f} (one game: no interval)")
    if ev.exact_value is not None:
        lines.append(
            f"exact agent value   {ev.exact_value:.9f}, exact loss {ev.exact_loss:.9f} "
            f"({ev.exact_decisions:,} decisions queried)"
        )
    elif ev.exact_note:
        lines.append(f"no exact evaluation: {ev.exact_note}")
    return lines


# --- exact evaluation ------------------------------------------------------------------------


def exact_value(agent: AgentFn, spec: GameSpec, rules: Any, seat: int = 1) -> tuple[float, int]:
    """The agent's exact value from the start (its seat's terms) and the decisions queried,
    through the game's ``exact_evaluation`` hook.

    NotImplementedError where the game has no exact path (e.g. Yatzy: too many states).
    """

    def choose(pos: Any, legal: list[str]) -> str:
        return _choose(agent, spec, rules, pos, legal)

    return spec.exact_evaluation(rules, choose, seat)
