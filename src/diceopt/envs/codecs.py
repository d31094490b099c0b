"""Fixed action lists and integer encodings of positions, per game (numpy only).

A :class:`Codec` turns a game's positions and actions into what reinforcement-learning
code expects: a fixed list of action texts (the Discrete action space; an action's index
is its place in the list, and the texts are exactly what ``spec.advise`` writes), and a
vector of whole numbers per position, entry ``i`` in ``0 .. nvec[i] - 1`` (a
MultiDiscrete space). ``fields`` names the entries. ``points`` reads the points so far
from a position where the game keeps a running score (rewards are then paid as the
points change), None where it does not (the whole result is paid at the end).

Codecs of the built-in games are below; any game written to the engine protocol
(``EngineGameSpec``, e.g. plug-ins) gets a generic one (the position's node number in
the compiled graph, the graph's distinct actions). Another game supplies its own by
defining ``env_codec(rules) -> Codec`` on its GameSpec. ``codec_for`` picks.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from diceopt.errors import InputError
from diceopt.games.registry import GameSpec


@dataclass(frozen=True)
class Codec:
    """Actions and observation encoding of one game under fixed rules.

    ``actions``: every action text any position can offer, in a fixed order (the
    Discrete action space). ``nvec``: sizes of the observation entries (entry i takes
    values 0 .. nvec[i] - 1). ``fields``: a name per entry. ``encode(pos, viewer)``: the
    entries of a position seen by player ``viewer`` (0 = first player; one-player games
    pass 0). ``points(pos)``: points so far in the game's units, or None when the
    position does not carry them. ``turn_ended(old, new)``: whether a move from ``old``
    to ``new`` ended the player's turn (used by duels; default: never, the whole game is
    one turn).
    """

    actions: tuple[str, ...]
    nvec: tuple[int, ...]
    fields: tuple[str, ...]
    encode: Callable[[Any, int], np.ndarray]
    points: Callable[[Any], float | None] = field(default=lambda pos: None)
    turn_ended: Callable[[Any, Any], bool] = field(default=lambda old, new: False)

    def __post_init__(self) -> None:
        if len(self.nvec) != len(self.fields):
            raise ValueError("a codec needs one field name per observation entry")
        if len(set(self.actions)) != len(self.actions):
            raise ValueError("a codec's actions must be distinct")

    @property
    def index(self) -> dict[str, int]:
        """Action text -> its index in ``actions``."""
        return {a: i for i, a in enumerate(self.actions)}

    def mask(self, legal: list[str]) -> np.ndarray:
        """int8 vector over ``actions``: 1 where the action is in ``legal``."""
        out = np.zeros(len(self.actions), dtype=np.int8)
        index = self.index
        for a in legal:
            i = index.get(a)
            if i is None:
                raise InputError(f"action {a!r} is not in the game's fixed action list")
            out[i] = 1
        return out


def _vector(values: list[int], nvec: tuple[int, ...]) -> np.ndarray:
    """int64 entries, checked against their bounds (a bug, not bad input, if outside)."""
    out = np.asarray(values, dtype=np.int64)
    if out.shape != (len(nvec),) or (out < 0).any() or (out >= np.asarray(nvec)).any():
        raise AssertionError(f"observation {out.tolist()} outside its space {list(nvec)}")
    return out


# --- stick or reroll ----------------------------------------------------------------------


def stick_codec(rules: Any) -> Codec:
    """Stick or reroll: ``stick``, ``hold -`` and ``hold V ...`` for every multiset of fewer
    than n dice (lattice order); entries: how many dice show each face (0..n)."""
    from diceopt.games.stick import format_value

    lat = rules.lattice
    holds = [
        "hold " + (" ".join(format_value(v) for v in rules.values_of(lat.counts[i])) or "-")
        for i in range(len(lat.counts))
        if lat.size[i] < rules.dice
    ]
    nvec = (rules.dice + 1,) * rules.sides
    fields = tuple(f"dice showing {format_value(v)}" for v in rules.die.values)
    return Codec(
        ("stick", *holds),
        nvec,
        fields,
        lambda pos, viewer=0: _vector(list(pos.counts), nvec),
        points=lambda pos: pos.points,
    )


# --- Yatzy ----------------------------------------------------------------------------------


def yatzy_codec(config: Any) -> Codec:
    """Yatzy/Yahtzee: ``keep ...`` for every multiset of fewer than all the dice (by size,
    then pips), then ``score CATEGORY`` in the variant's order; entries: dice showing each
    face, rerolls left, each category filled (0/1), upper total, score, Yahtzee bonus flag.
    """
    r = config.rules
    keeps = [
        "keep " + (" ".join(map(str, kept)) or "-")
        for k in range(r.dice)
        for kept in itertools.combinations_with_replacement(range(1, r.sides + 1), k)
    ]
    scores = [f"score {c}" for c in r.categories]
    upper_max = r.dice * r.sides * (r.sides + 1) // 2
    nvec = (
        (r.dice + 1,) * r.sides
        + (3,)
        + (2,) * r.num_categories
        + (upper_max + 1, int(r.max_total) + 1, 2)
    )
    fields = (
        tuple(f"dice showing {f}" for f in range(1, r.sides + 1))
        + ("rerolls left",)
        + tuple(f"{c} filled" for c in r.categories)
        + ("upper total", "score", "yahtzee bonus")
    )

    def encode(pos: Any, viewer: int = 0) -> np.ndarray:
        counts = [0] * r.sides
        for d in pos.dice:
            counts[d - 1] += 1
        filled = [int(c in pos.filled) for c in r.categories]
        score = int(round(pos.score or 0))
        return _vector(
            [*counts, pos.rerolls, *filled, pos.upper, score, int(pos.yahtzee_bonus)], nvec
        )

    return Codec(
        (*keeps, *scores),
        nvec,
        fields,
        encode,
        points=lambda pos: None if pos.score is None else float(pos.score),
        turn_ended=lambda old, new: len(new.filled) != len(old.filled),
    )


# --- Shut the Box -----------------------------------------------------------------------------


def shutbox_codec(rules: Any) -> Codec:
    """Shut the Box: ``roll``, ``roll one die``, ``roll two dice``, ``end turn``, then
    ``shut T ...`` for every set of tiles summing to 12 or less (by sum, then the game's
    canonical order); entries: each tile open (0/1), the roll shown (0 = none yet),
    player 2's target (0 = none: player 1's or the only player's position)."""
    from diceopt.games.shutbox import DICE_LABELS, END_TURN, ROLL, action_text, tiles_of

    shut = [
        action_text(tiles_of(m)) for roll in range(1, 13) for m in rules.moves(rules.full, roll)
    ]
    top = rules.total(rules.full)
    nvec = (2,) * rules.tiles + (13, top + 1)
    fields = tuple(f"tile {t} open" for t in range(1, rules.tiles + 1)) + ("roll", "target")

    def encode(pos: Any, viewer: int = 0) -> np.ndarray:
        tiles = [(pos.open >> t) & 1 for t in range(rules.tiles)]
        return _vector([*tiles, pos.roll or 0, pos.target or 0], nvec)

    return Codec((ROLL, DICE_LABELS[1], DICE_LABELS[2], END_TURN, *shut), nvec, fields, encode)


# --- Pig --------------------------------------------------------------------------------------


def pig_codec(rules: Any) -> Codec:
    """Pig: ``hold``, ``roll``; entries seen by ``viewer``: own banked points, the other
    player's, and the turn total at risk (the mover's; environments add who moves)."""
    from diceopt.games.pig import HOLD, ROLL

    nvec = (rules.goal + rules.sides, rules.goal + rules.sides, rules.goal)
    fields = ("my points", "opponent's points", "turn total")

    def encode(pos: Any, viewer: int = 0) -> np.ndarray:
        mine = pos.player == viewer
        me, other = (pos.me, pos.opponent) if mine else (pos.opponent, pos.me)
        return _vector([me, other, pos.turn], nvec)

    return Codec((HOLD, ROLL), nvec, fields, encode)


# --- any engine game (plug-ins) ----------------------------------------------------------------


def engine_codec(spec: Any, rules: Any) -> Codec:
    """A game on the engine (``EngineGameSpec``): the distinct actions of the compiled
    graph (edge order) and one entry, the position's node number."""
    from diceopt.engine.compile import DECISION

    graph, _, _ = spec.solved(rules)
    seen: dict[str, None] = {}
    for s in np.flatnonzero(graph.kind == DECISION):
        for e in range(int(graph.start[s]), int(graph.start[s + 1])):
            seen.setdefault(str(graph.actions[e]), None)
    nvec = (int(graph.num_states),)

    def encode(pos: Any, viewer: int = 0) -> np.ndarray:
        return _vector([spec.node_of(rules, pos)], nvec)

    return Codec(tuple(seen), nvec, ("node",), encode)


BUILTIN: dict[str, Callable[[Any], Codec]] = {
    "stick": stick_codec,
    "yatzy": yatzy_codec,
    "shutbox": shutbox_codec,
    "pig": pig_codec,
}


def codec_for(spec: GameSpec, rules: Any) -> Codec:
    """The codec of a game under ``rules``: the spec's own ``env_codec(rules)`` if it has
    one, else the built-in one, else the engine's generic one; InputError if none fits."""
    from diceopt.games.engine_spec import EngineGameSpec

    own = getattr(spec, "env_codec", None)
    if callable(own):
        return own(rules)
    if spec.id in BUILTIN and type(spec).__module__.startswith("diceopt.games"):
        return BUILTIN[spec.id](rules)
    if isinstance(spec, EngineGameSpec):
        return engine_codec(spec, rules)
    raise InputError(
        f"{spec.title} has no fixed action list for environments: give its GameSpec an "
        "env_codec(rules) method (see diceopt.envs.codecs)"
    )


def has_codec(spec: GameSpec) -> bool:
    """Whether ``codec_for`` can serve ``spec`` (without building anything)."""
    from diceopt.games.engine_spec import EngineGameSpec

    return (
        callable(getattr(spec, "env_codec", None))
        or (spec.id in BUILTIN and type(spec).__module__.startswith("diceopt.games"))
        or isinstance(spec, EngineGameSpec)
    )
