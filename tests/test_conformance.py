"""One conformance suite for every registered game (built-in and plug-in).

Each check is a function of a GameSpec that raises AssertionError when the game breaks
the contract (``diceopt.games.contract``), on the game's small instance
(``GameSpec.small``): identity, rules and variants, the notation (text and JSON round
trips), malformed positions (one-line InputErrors), advice (best first, regrets), play
(seeded random games end within the game's bound), solving and simulation (simulated
optimal play agrees with the solve's value), the solve against the advice from sampled
starts, extra commands, and the optional hooks: advice options, the score distribution,
play against the computer, stored tables, page metadata, environments (codec, names)
and exact evaluation. ``check_game`` runs them all; the second half of this file feeds
each check a deliberately broken spec to show that it can fail.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import diceopt.games
from diceopt.advice import ActionAdvice, Advice
from diceopt.errors import InputError
from diceopt.games.codec import Codec
from diceopt.games.contract import Command, GameSpec, Parameter, Report, offers
from diceopt.games.registry import games
from diceopt.games.stick.spec import StickSpec
from diceopt.tables import Table

MALFORMED = ["", "   ", "{", "{}", "[1, 2]", "nonsense 1 2 3", "| | |", '{"x": 1}', "dice x y z"]
SIMULATED_GAMES = 4000
STARTS = 4000  # sampled starting positions whose advice must average to the solve's value
Z = 5.0  # standard errors allowed between a sampled mean and an exact value
COMMANDS = {"solve", "advise", "play", "simulate", "analyse"}  # every game's subcommands
ENV_NAME = re.compile(r"[A-Z][A-Za-z0-9]*\Z")


@pytest.fixture(scope="module", autouse=True)
def _cache(web_env):
    """Tables go to the session's cache directory (each full table solved once per run)."""
    return web_env


# --- helpers ---------------------------------------------------------------------------------


def small_rules(spec: GameSpec) -> Any:
    """The rules of the game's small instance."""
    return spec.rules(None, **spec.small)


def random_game(spec: GameSpec, rules: Any, seed: int) -> list:
    """Positions of one game with uniformly random legal actions (seeded)."""
    rng = np.random.default_rng(seed)
    pos = spec.new_position(rules, rng)
    seen = [pos]
    for _ in range(spec.play_limit):
        actions = spec.advise(rules, pos).actions
        choice = actions[int(rng.integers(len(actions)))].action
        step = spec.apply(rules, pos, choice, rng)
        assert 0 <= step.to_move < spec.players_of(rules), (spec.id, step)
        if step.game_over:
            assert step.result is not None and np.isfinite(step.result), (spec.id, step)
            return seen
        pos = step.position
        seen.append(pos)
    raise AssertionError(f"{spec.id}: a random game did not end in {spec.play_limit} moves")


def positions(spec: GameSpec, rules: Any) -> list:
    """The positions of two seeded random games."""
    return [pos for seed in (1, 2) for pos in random_game(spec, rules, seed)]


def one_line_input_error(call: Callable[[], Any], what: str) -> None:
    """AssertionError unless ``call()`` raises an InputError of one non-empty line."""
    try:
        call()
    except InputError as exc:
        assert str(exc) and "\n" not in str(exc), (what, str(exc))
    else:
        raise AssertionError(f"{what}: no InputError")


# --- the checks: one per part of the contract ---------------------------------------------------


def check_identity(spec: GameSpec) -> None:
    """Id, title, summary, rules help and units; players and units under the rules."""
    assert re.fullmatch(r"[a-z][a-z0-9_-]*", spec.id), spec.id
    for name in ("title", "summary", "rules_help", "units", "position_example"):
        text = getattr(spec, name)
        assert isinstance(text, str) and text.strip(), (spec.id, name)
    assert "\n" not in spec.summary, spec.id
    assert spec.players in (1, 2), spec.players
    for rules in (spec.rules(), small_rules(spec)):
        assert spec.players_of(rules) in range(1, spec.players + 1), spec.id
        assert isinstance(spec.units_of(rules), str) and spec.units_of(rules), spec.id
        assert isinstance(spec.lower_is_better_of(rules), bool), spec.id
        json.dumps(spec.describe(rules), allow_nan=False)


def check_rules(spec: GameSpec) -> None:
    """Variants (the first is the default, names matched case-insensitively), parameters,
    and one-line InputErrors for an unknown variant."""
    assert spec.variants, f"{spec.id}: no variants"
    first = next(iter(spec.variants))
    assert spec.variant_id(None) == first, spec.id
    for name in spec.variants:
        assert spec.variant_id(name.upper()) == name, (spec.id, name)
        spec.rules(name)
    # titles (optional) name variants, one line each, no two alike
    titles = dict(spec.variant_titles)
    assert set(titles) <= set(spec.variants), (spec.id, titles)
    assert all(t.strip() and "\n" not in t for t in titles.values()), (spec.id, titles)
    assert len(set(titles.values())) == len(titles), (spec.id, titles)
    names = [p.name for p in spec.parameters]
    assert len(set(names)) == len(names), (spec.id, names)
    for param in (*spec.parameters, *spec.solve_options, *spec.simulate_options):
        assert isinstance(param, Parameter) and param.help, (spec.id, param)
    assert set(spec.small) <= set(names), (spec.id, spec.small)
    one_line_input_error(lambda: spec.rules("no-such-variant"), f"{spec.id}: unknown variant")


def check_notation(spec: GameSpec) -> None:
    """The example position and the positions of random games round-trip through text
    and JSON (an object and its text); ``show`` gives lines."""
    default = spec.rules()  # the example is a position of the default rules
    example = spec.parse(default, spec.position_example)
    assert spec.parse(default, spec.format(default, example)) == example, spec.id
    rules = small_rules(spec)
    for pos in positions(spec, rules):
        text = spec.format(rules, pos)
        assert spec.parse(rules, text) == pos, text
        data = spec.to_json(rules, pos)
        assert spec.parse(rules, json.loads(json.dumps(data))) == pos, data
        assert spec.parse(rules, json.dumps(data)) == pos, data
        lines = spec.show(rules, pos)
        assert lines and all(isinstance(line, str) for line in lines), (spec.id, lines)


def check_malformed(spec: GameSpec) -> None:
    """Malformed positions, and a position that is neither text nor an object, give one
    InputError line each."""
    rules = small_rules(spec)
    for bad in MALFORMED:
        one_line_input_error(lambda bad=bad: spec.parse(rules, bad), f"{spec.id}: {bad!r}")
    one_line_input_error(lambda: spec.parse(rules, 12345), f"{spec.id}: a number")


def check_advice(spec: GameSpec) -> None:
    """Advice lists distinct actions best first, with regret 0 on the best and each
    regret the action's loss against the best; ``evaluate`` and ``canonical_action``
    agree with it; an action that is not legal is refused."""
    rules = small_rules(spec)
    sign = -1.0 if spec.lower_is_better_of(rules) else 1.0
    for pos in positions(spec, rules):
        assert 0 <= spec.to_move(rules, pos) < spec.players_of(rules), spec.id
        advice = spec.advise(rules, pos)
        texts = [a.action for a in advice.actions]
        assert texts and len(set(texts)) == len(texts), (spec.id, texts)
        regrets = [a.regret for a in advice.actions]
        assert abs(regrets[0]) <= 1e-9 and regrets == sorted(regrets), (spec.id, regrets)
        best = advice.best.value
        for a in advice.actions:
            assert math.isclose(a.regret, sign * (best - a.value), abs_tol=1e-9), (spec.id, a)
            assert spec.canonical_action(rules, pos, a.action) == a.action, (spec.id, a)
        entry, _ = spec.evaluate(rules, pos, texts[-1])
        assert entry == advice.actions[-1], (spec.id, entry)
        one_line_input_error(
            lambda pos=pos: spec.evaluate(rules, pos, "no such action"), f"{spec.id}: action"
        )


def check_play(spec: GameSpec) -> None:
    """Seeded random games end within ``play_limit`` with a finite result; the same seed
    plays the same game."""
    rules = small_rules(spec)
    first = random_game(spec, rules, 3)
    again = random_game(spec, rules, 3)
    assert [spec.format(rules, p) for p in first] == [spec.format(rules, p) for p in again]


def check_simulation(spec: GameSpec) -> None:
    """Simulated optimal play agrees with the solve's value (within Z standard errors)
    and reports that value as ``exact``."""
    rules = small_rules(spec)
    report = spec.solve(rules)
    assert isinstance(report, Report) and math.isfinite(report.value), spec.id
    simulated = spec.simulate(rules, SIMULATED_GAMES, np.random.default_rng(7))
    error = simulated.data["std_error"]
    assert abs(simulated.data["mean"] - report.value) <= Z * error + 1e-9, (
        spec.id,
        simulated.data,
        report.value,
    )
    assert math.isclose(simulated.data["exact"], report.value, abs_tol=1e-9), spec.id


def check_solve_matches_advice(spec: GameSpec) -> None:
    """The solve's value from the start is the mean of the best advised value over the
    starting positions (sampled with ``new_position``; exact when the start is fixed):
    the solve and the advice are two paths that must agree."""
    rules = small_rules(spec)
    exact = spec.solve(rules).value
    two = spec.players_of(rules) == 2
    values = np.empty(STARTS)
    known: dict[str, float] = {}  # advice once per distinct start
    rng = np.random.default_rng(11)
    for i in range(STARTS):
        pos = spec.new_position(rules, rng)
        text = spec.format(rules, pos)
        if text not in known:
            value = spec.advise(rules, pos).best.value
            known[text] = 1.0 - value if two and spec.to_move(rules, pos) == 1 else value
        values[i] = known[text]
    error = float(values.std(ddof=1) / math.sqrt(STARTS))
    assert abs(values.mean() - exact) <= Z * error + 1e-9, (spec.id, values.mean(), exact)


def check_commands(spec: GameSpec) -> None:
    """Extra subcommands: distinct names that no built-in subcommand takes, with help, a
    handler and Parameter options."""
    names = [c.name for c in spec.commands()]
    assert len(set(names)) == len(names), (spec.id, names)
    for command in spec.commands():
        assert isinstance(command, Command), (spec.id, command)
        assert command.name not in COMMANDS, (spec.id, command.name)
        assert re.fullmatch(r"[a-z][a-z0-9-]*", command.name), (spec.id, command.name)
        assert command.help and callable(command.run), (spec.id, command.name)
        assert all(isinstance(p, Parameter) for p in command.options), (spec.id, command.name)


def check_advise_options(spec: GameSpec) -> None:
    """Advice options are distinct Parameters that ``advise`` takes by name; at their
    defaults the advice is the plain advice."""
    names = [p.name for p in spec.advise_options]
    assert len(set(names)) == len(names), (spec.id, names)
    if not names:
        return
    rules = small_rules(spec)
    pos = positions(spec, rules)[0]
    defaults = {p.name: p.default for p in spec.advise_options}
    assert spec.advise(rules, pos, **defaults) == spec.advise(rules, pos), spec.id


def check_distribution(spec: GameSpec) -> None:
    """The score distribution, where offered: probabilities summing to 1 whose mean and
    spread are the reported ones, the mean that of the best advised action (games in
    points); None where not offered."""
    rules = small_rules(spec)
    pos = positions(spec, rules)[-1]
    dist = spec.distribution(rules, pos)
    if not offers(spec, "distribution"):
        assert dist is None, spec.id
        return
    if dist is None:
        return  # offered, but not for these rules
    pmf = np.asarray(dist["pmf"], dtype=float)
    assert (pmf >= -1e-12).all() and abs(pmf.sum() - 1.0) <= 1e-6, (spec.id, pmf.sum())
    scores = np.arange(len(pmf))
    mean = float(scores @ pmf)
    std = math.sqrt(max(float(((scores - mean) ** 2) @ pmf), 0.0))
    assert math.isclose(dist["mean"], mean, rel_tol=1e-6, abs_tol=1e-6), (spec.id, mean)
    assert math.isclose(dist["std"], std, rel_tol=1e-4, abs_tol=1e-4), (spec.id, std)
    units = spec.units_of(rules)
    if not units.startswith("probab"):  # points: the mean is the best advised value
        best = spec.advise(rules, pos).best.value
        assert math.isclose(dist["mean"], best, rel_tol=1e-5, abs_tol=1e-6), (spec.id, best)
    json.dumps(dist, allow_nan=False)


def check_versus(spec: GameSpec) -> None:
    """Play against the computer: a game that names strategies for the computer offers
    ``versus_start``, ``versus_play`` (or its game side ``versus_move``) and
    ``versus_estimate`` and says which tables each strategy reads; one that names none
    refuses in one line."""
    strategies = spec.computer_strategies
    assert len(set(strategies)) == len(strategies), (spec.id, strategies)
    if strategies:
        hooks = ("versus_start", "versus_estimate")
        assert all(offers(spec, hook) for hook in hooks), spec.id
        assert offers(spec, "versus_play") or offers(spec, "versus_move"), spec.id
        rules = small_rules(spec)
        for strategy in strategies:  # what a game against it reads (nothing is built)
            tables = spec.tables(rules, "versus", strategy=strategy)
            assert all(isinstance(t, Table) for t in tables), (spec.id, strategy, tables)
        return
    rules = small_rules(spec)
    one_line_input_error(
        lambda: spec.versus_start(rules, "expected", np.random.default_rng(0)),
        f"{spec.id}: versus",
    )


def check_tables(spec: GameSpec) -> None:
    """The stored tables an answer reads are Table objects with distinct names."""
    rules = small_rules(spec)
    for need in ("advice", "distribution", "all"):
        tables = spec.tables(rules, need)
        assert isinstance(tables, tuple), (spec.id, need, tables)
        assert all(isinstance(t, Table) for t in tables), (spec.id, need, tables)
        names = [t.name for t in tables]
        assert len(set(names)) == len(names), (spec.id, need, names)


def check_page_metadata(spec: GameSpec) -> None:
    """``featured`` and ``one_turn`` are flags; ``page_sheet`` is None or JSON data with the
    sheet's keys."""
    assert isinstance(spec.featured, bool) and isinstance(spec.one_turn, bool), spec.id
    for rules in (spec.rules(), small_rules(spec)):
        sheet = spec.page_sheet(rules)
        if sheet is None:
            assert not offers(spec, "page_sheet"), f"{spec.id}: page_sheet offered, gave None"
            continue
        assert isinstance(sheet, dict), (spec.id, sheet)
        assert {"upper", "bonus_threshold", "bonus"} <= set(sheet), (spec.id, sheet)
        json.dumps(sheet, allow_nan=False)


def check_environments(spec: GameSpec) -> None:
    """Environment names are CamelCase; presets are valid one-player rules; the codec,
    where offered, lists every advised action and encodes every position inside its
    space; None where not offered."""
    assert spec.env_name == "" or ENV_NAME.fullmatch(spec.env_name), (spec.id, spec.env_name)
    for name, params in spec.env_presets.items():
        assert ENV_NAME.fullmatch(name), (spec.id, name)
        params = dict(params)
        assert spec.players_of(spec.rules(params.pop("variant", None), **params)) == 1, name
    rules = small_rules(spec)
    codec = spec.env_codec(rules)
    if not offers(spec, "env_codec"):
        assert codec is None, spec.id
        return
    assert isinstance(codec, Codec), (spec.id, codec)
    for pos in positions(spec, rules):
        legal = [a.action for a in spec.advise(rules, pos).actions]
        assert set(legal) <= set(codec.actions), (spec.id, set(legal) - set(codec.actions))
        assert int(codec.mask(legal).sum()) == len(legal), spec.id
        seen = np.asarray(codec.encode(pos, spec.to_move(rules, pos)))
        assert seen.shape == (len(codec.nvec),), (spec.id, seen.shape)
        assert ((seen >= 0) & (seen < np.asarray(codec.nvec))).all(), (spec.id, seen)


def check_exact_evaluation(spec: GameSpec) -> None:
    """Exact evaluation, where offered: optimal play (the best advised action at every
    decision) is worth exactly the solve's value from each seat, and the choices are
    asked among sorted legal actions; NotImplementedError where not offered."""
    rules = small_rules(spec)

    def optimal(pos: Any, legal: list[str]) -> str:
        assert legal == sorted(legal), (spec.id, legal)
        try:
            best = spec.advise(rules, pos).best.action
        except InputError:  # a node no game reaches (Pig's graph has some): any action
            return legal[0]
        assert best in legal, (spec.id, best, legal)
        return best

    if not offers(spec, "exact_evaluation"):
        try:
            spec.exact_evaluation(rules, optimal)
        except NotImplementedError:
            return
        raise AssertionError(f"{spec.id}: exact evaluation not offered, yet it answered")
    exact = spec.solve(rules).value
    seats = (1, 2) if spec.players_of(rules) == 2 else (1,)
    for seat in seats:
        value, decisions = spec.exact_evaluation(rules, optimal, seat)
        wanted = exact if seat == 1 else 1.0 - exact
        assert decisions > 0, spec.id
        assert math.isclose(value, wanted, abs_tol=1e-9), (spec.id, seat, value, wanted)


SECOND_PATH_POSITIONS = 200  # sampled positions at which every action value is checked
SECOND_PATH_TOLERANCE = 1e-9  # game units


def sampled_positions(spec: GameSpec, rules: Any, count: int) -> list:
    """At least ``count`` positions of seeded games, the even seeds played with random
    legal actions, the odd ones with the best (so that the positions of good play are
    reached too); a game that does not end within ``play_limit`` fails."""
    out: list = []
    seed = 0
    while len(out) < count:
        rng = np.random.default_rng(seed)
        pos = spec.new_position(rules, rng)
        for _ in range(spec.play_limit):
            out.append(pos)
            actions = spec.advise(rules, pos).actions
            choice = actions[0] if seed % 2 else actions[int(rng.integers(len(actions)))]
            step = spec.apply(rules, pos, choice.action, rng)
            if step.game_over:
                break
            pos = step.position
        else:
            raise AssertionError(f"{spec.id}: game {seed} did not end in {spec.play_limit} moves")
        seed += 1
    return out


def check_action_values(spec: GameSpec) -> None:
    """At every one of SECOND_PATH_POSITIONS sampled positions of the reduced rules, every
    advised action's value and regret equal those of the game's second path
    (``independent_values``: the engine's action values or exact policy evaluation),
    to SECOND_PATH_TOLERANCE; a failure names the game, the position and the action."""
    rules = spec.reduced_rules()
    sign = -1.0 if spec.lower_is_better_of(rules) else 1.0
    for pos in sampled_positions(spec, rules, SECOND_PATH_POSITIONS):
        advice = spec.advise(rules, pos)
        second = spec.independent_values(rules, pos)
        where = f"{spec.id} at '{spec.format(rules, pos)}'"
        advised = [a.action for a in advice.actions]
        assert sorted(second) == sorted(advised), f"{where}: actions {advised}, second {second}"
        best = max(sign * v for v in second.values())
        for a in advice.actions:
            value, regret = second[a.action], best - sign * second[a.action]
            assert abs(a.value - value) <= SECOND_PATH_TOLERANCE, (
                f"{where}, action '{a.action}': advised value {a.value!r}, second path {value!r}"
            )
            assert abs(a.regret - regret) <= SECOND_PATH_TOLERANCE, (
                f"{where}, action '{a.action}': advised regret {a.regret!r}, second path {regret!r}"
            )


CHECKS: tuple[Callable[[GameSpec], None], ...] = (
    check_action_values,
    check_identity,
    check_rules,
    check_notation,
    check_malformed,
    check_advice,
    check_play,
    check_simulation,
    check_solve_matches_advice,
    check_commands,
    check_advise_options,
    check_distribution,
    check_versus,
    check_tables,
    check_page_metadata,
    check_environments,
    check_exact_evaluation,
)


def check_game(spec: GameSpec) -> None:
    """Every conformance check on ``spec``."""
    for check in CHECKS:
        check(spec)


@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("game_id", sorted(games()))
def test_every_registered_game_conforms(game_id: str, check: Callable[[GameSpec], None]) -> None:
    check(games()[game_id])


# --- the registry ------------------------------------------------------------------------------


def builtin_modules() -> set[str]:
    """Modules and packages directly under diceopt.games whose source defines ``SPEC``,
    read from the files (not through the registry's discovery)."""
    root = Path(diceopt.games.__file__).parent
    found = set()
    for path in root.iterdir():
        source = path / "__init__.py" if path.is_dir() else path
        if source.suffix != ".py" or not source.is_file():
            continue
        if re.search(r"^SPEC\s*=", source.read_text(encoding="utf-8"), re.M):
            found.add(f"diceopt.games.{path.stem if path.is_file() else path.name}")
    return found


def check_registry(registry: dict[str, GameSpec], modules: set[str]) -> None:
    """Every built-in module's SPEC is registered under its id, each id once, and at most
    one game is featured."""
    from importlib import import_module

    assert modules, "no built-in game modules found"
    for name in sorted(modules):
        spec = import_module(name).SPEC
        assert registry.get(spec.id) is spec, f"{name}: SPEC {spec.id!r} is not registered"
    for game_id, spec in registry.items():
        assert spec.id == game_id, (game_id, spec.id)
    featured = [game_id for game_id, spec in registry.items() if spec.featured]
    assert len(featured) <= 1, featured


def test_the_registry_finds_every_builtin_game() -> None:
    check_registry(games(), builtin_modules())


def test_a_registry_that_misses_a_game_fails_the_check() -> None:
    registry = dict(games())
    registry.pop(sorted(registry)[0])
    with pytest.raises(AssertionError, match="is not registered"):
        check_registry(registry, builtin_modules())


def id_literals(source: str, ids: set[str]) -> list[int]:
    """Lines of ``source`` where a string constant is a game id, outside docstrings and
    parameter defaults (a table keyed by ids, a comparison with one, a call naming one)."""
    import ast

    tree = ast.parse(source)
    allowed: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            allowed.add(id(body[0].value))  # a docstring
        if isinstance(node, ast.arguments):
            allowed.update(id(d) for d in (*node.defaults, *node.kw_defaults) if d is not None)
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and node.value.lower() in ids
        and id(node) not in allowed
    ]


def test_no_module_outside_the_games_names_a_game() -> None:
    root = Path(diceopt.games.__file__).parent.parent
    ids = set(games())
    for path in sorted(root.rglob("*.py")):
        if root / "games" in path.parents:
            continue
        lines = id_literals(path.read_text(encoding="utf-8"), ids)
        assert not lines, f"{path.relative_to(root)} names a game id at lines {lines}"


def test_a_table_of_game_ids_is_found() -> None:
    source = '''"""Names stick in its docstring."""
NAMES = {"stick": "Stick"}
def make(game="stick"):
    return game == "pig"
'''
    assert sorted(set(id_literals(source, {"stick", "pig"}))) == [2, 4]


# --- every check can fail: broken specs ------------------------------------------------------


class Small(StickSpec):
    """Stick or reroll with two dice: the base of the broken specs below."""

    small = {"dice": 2}


class NoTitle(Small):
    title = ""


class DefaultIsNotFirst(Small):
    def variant_id(self, variant: str | None) -> str:
        return list(self.variants)[-1] if variant is None else super().variant_id(variant)


class TitleOfNoVariant(Small):
    variant_titles = {"no-such-variant": "A title of nothing"}


class LossyNotation(Small):
    def format(self, rules: Any, pos: Any) -> str:
        return super().format(rules, pos).split("|")[0].strip() + " | points 0"


class AcceptsNonsense(Small):
    def parse_text(self, rules: Any, text: str) -> Any:
        if text.startswith("nonsense"):
            return super().parse_text(rules, "dice 1 2")
        return super().parse_text(rules, text)


class WorstFirst(Small):
    def advise(self, rules: Any, pos: Any, **options: Any) -> Any:
        advice = super().advise(rules, pos)
        return type(advice)(list(reversed(advice.actions)), advice.value_is)


class NeverEnds(Small):
    play_limit = 1

    def apply(self, rules: Any, pos: Any, action: str, rng: np.random.Generator) -> Any:
        step = super().apply(rules, pos, action, rng)
        return type(step)(pos, False, 0, step.events)


class WrongExact(Small):
    def simulate(self, rules: Any, games: int, rng: np.random.Generator, **options: Any) -> Any:
        report = super().simulate(rules, games, rng)
        report.data["exact"] += 0.5
        return report


class SolveOff(Small):
    def solve(self, rules: Any, **options: Any) -> Report:
        report = super().solve(rules)
        return Report(report.value + 1.0, report.data, report.lines)

    def simulate(self, rules: Any, games: int, rng: np.random.Generator, **options: Any) -> Any:
        report = super().simulate(rules, games, rng)
        report.data["exact"] += 1.0
        return report


class TakesSolve(Small):
    def commands(self) -> tuple[Command, ...]:
        return (Command("solve", "solve again", lambda rules, args: 0),)


class IgnoredOption(Small):
    advise_options = (Parameter("bias", "pushes the advice", default=1.0, type=float),)

    def advise(self, rules: Any, pos: Any, **options: Any) -> Any:
        advice = super().advise(rules, pos)
        if not options.get("bias"):
            return advice
        return type(advice)(advice.actions[:1], advice.value_is)


class BadDistribution(Small):
    def distribution(self, rules: Any, pos: Any) -> dict[str, Any]:
        return {"mean": 1.0, "std": 0.0, "pmf": [0.5, 0.4]}


class StrategiesWithoutPlay(Small):
    computer_strategies = ("expected",)


class NotATable(Small):
    def tables(self, rules: Any, need: str = "advice", pos: Any = None, **options: Any) -> tuple:
        return ("the table",)


class SheetWithoutBonus(Small):
    def page_sheet(self, rules: Any) -> dict[str, Any]:
        return {"upper": ["ones"]}


class ShortCodec(Small):
    def env_codec(self, rules: Any) -> Codec:
        codec = super().env_codec(rules)
        return Codec(codec.actions[:1], codec.nvec, codec.fields, codec.encode)


class BadPreset(Small):
    env_presets = {"StickFour": {"variant": "no-such-variant"}}


class ExactAlwaysZero(Small):
    def exact_evaluation(self, rules: Any, choose: Any, seat: int = 1) -> tuple[float, int]:
        return 0.0, 1


def value_as_position(actions: list[ActionAdvice]) -> list[ActionAdvice] | None:
    """The last action valued as the position (the best action's value, regret 0): the
    Farkle defect of rolling on valued as the better of rolling and banking."""
    if len(actions) < 2 or actions[-1].value == actions[0].value:
        return None
    return [*actions[:-1], replace(actions[-1], value=actions[0].value, regret=0.0)]


def value_as_third(actions: list[ActionAdvice]) -> list[ActionAdvice] | None:
    """The second action valued as the third (its regret to match)."""
    if len(actions) < 3 or actions[1].value == actions[2].value:
        return None
    second = replace(actions[1], value=actions[2].value, regret=actions[2].regret)
    return [actions[0], second, *actions[2:]]


def tampered(base: type[GameSpec], tamper: Callable[[list], list | None]) -> type[GameSpec]:
    """``base`` whose advice is changed by ``tamper`` wherever it applies; the instance
    remembers where it changed it first (``changed``: the position's text, the action)."""

    def advise(self: Any, rules: Any, pos: Any, **options: Any) -> Advice:
        advice = base.advise(self, rules, pos, **options)
        actions = tamper(advice.actions)
        if actions is None:
            return advice
        moved = next(a for a, b in zip(actions, advice.actions) if a != b)
        self.changed = getattr(self, "changed", None) or (self.format(rules, pos), moved.action)
        return Advice(actions, advice.value_is)

    return type(f"{base.__name__}{tamper.__name__.title()}", (base,), {"advise": advise})


BROKEN: list[tuple[Callable[[GameSpec], None], type[GameSpec]]] = [
    (check_action_values, tampered(Small, value_as_position)),
    (check_action_values, tampered(Small, value_as_third)),
    (check_identity, NoTitle),
    (check_rules, DefaultIsNotFirst),
    (check_rules, TitleOfNoVariant),
    (check_notation, LossyNotation),
    (check_malformed, AcceptsNonsense),
    (check_advice, WorstFirst),
    (check_play, NeverEnds),
    (check_simulation, WrongExact),
    (check_solve_matches_advice, SolveOff),
    (check_commands, TakesSolve),
    (check_advise_options, IgnoredOption),
    (check_distribution, BadDistribution),
    (check_versus, StrategiesWithoutPlay),
    (check_tables, NotATable),
    (check_page_metadata, SheetWithoutBonus),
    (check_environments, ShortCodec),
    (check_environments, BadPreset),
    (check_exact_evaluation, ExactAlwaysZero),
]


def test_every_check_has_a_broken_spec() -> None:
    assert {check for check, _ in BROKEN} == set(CHECKS)


@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__)
def test_the_small_base_passes_every_check(check: Callable[[GameSpec], None]) -> None:
    check(Small())


@pytest.mark.parametrize(
    ("check", "broken"), BROKEN, ids=[f"{c.__name__}-{b.__name__}" for c, b in BROKEN]
)
def test_each_check_fails_on_a_broken_spec(
    check: Callable[[GameSpec], None], broken: type[GameSpec]
) -> None:
    with pytest.raises((AssertionError, InputError)):
        check(broken())


@pytest.mark.parametrize("tamper", [value_as_position, value_as_third])
@pytest.mark.parametrize("game_id", ["farkle", "stick", "zilch"])
def test_the_second_path_names_the_game_position_and_action(game_id: str, tamper: Any) -> None:
    spec = tampered(type(games()[game_id]), tamper)()
    with pytest.raises(AssertionError) as failure:
        check_action_values(spec)
    position, action = spec.changed  # type: ignore[attr-defined]
    message = str(failure.value)
    assert f"{game_id} at '{position}', action '{action}'" in message, message
