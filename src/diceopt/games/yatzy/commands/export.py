"""Dataset export: situations from seeded Yatzy games with every legal action's value.

``diceopt yatzy export --rows N --from optimal|random|perturbed --seed S --format
parquet|jsonl OUT`` plays games and writes one row per decision (a situation: a roll
with 2, 1 or 0 rerolls left), with the position, every legal action's exact value and
regret (:mod:`diceopt.games.yatzy.commands.batch`), the optimal action and the action the player
took. The player (``--from``):

- ``optimal``: always the best action (the advice's first, the simulation's choice);
- ``random``: an action drawn uniformly among the legal ones;
- ``perturbed``: the best action with probability ``1 - eps``, else (probability
  ``eps``, ``--eps``, default 0.1) one drawn uniformly among all legal actions (which
  may again be the best).

Games are played in lockstep, ``ceil(rows / 30) + 1`` at a time, decision by decision,
until ``rows`` rows are collected; rows are ordered by game, then by decision, and the
last game may be cut short. Random numbers come from ``numpy.random.default_rng(seed)``
in a fixed order (the same numbers whatever the source: ``perturbed`` with eps 0 plays
the ``optimal`` games), so a seed gives the same rows (and the same file bytes for one
pyarrow version). A write is scored by the rules' own scoring (served scores straight
after the first roll, Generala's; the Kniffel bonus). Values are points: the expected
points still to come from the situation (the score so far excluded; add ``score`` for the
expected final score); with ``--theta`` their certainty equivalent (the file's
``values`` metadata says which).

Columns (the README's table): ``game``, ``turn``, ``position``, ``dice``, ``rerolls``,
``filled``, ``mask``, ``upper``, ``yahtzee_bonus``, ``score``, ``actions``, ``codes``,
``values``, ``regrets``, ``best_action``, ``best_code``, ``best_value``,
``taken_action``, ``taken_code``, ``taken_regret``.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from diceopt.errors import InputError
from diceopt.games.contract import CommandOutput
from diceopt.games.yatzy.commands.batch import OptionRows, action_names, option_values, roll_lookup
from diceopt.games.yatzy.kernel.table import YatzyTable
from diceopt.games.yatzy.play.advice import Position, format_position, value_is
from diceopt.games.yatzy.play.engine_game import score_points
from diceopt.output import check_output_path, write_file

SOURCES = ("optimal", "random", "perturbed")
FORMATS = ("parquet", "jsonl")
DEFAULT_EPS = 0.1
RESEARCH_EXTRA = "this needs the research extra: pip install 'diceopt[research]'"
COLUMNS = (
    "game",
    "turn",
    "position",
    "dice",
    "rerolls",
    "filled",
    "mask",
    "upper",
    "yahtzee_bonus",
    "score",
    "actions",
    "codes",
    "values",
    "regrets",
    "best_action",
    "best_code",
    "best_value",
    "taken_action",
    "taken_code",
    "taken_regret",
)


def require_pyarrow() -> Any:
    """The pyarrow module, or InputError naming the research extra (one line)."""
    try:
        import pyarrow
        import pyarrow.parquet  # noqa: F401
    except ImportError:
        raise InputError(RESEARCH_EXTRA) from None
    return pyarrow


@dataclass
class Situations(OptionRows):
    """Rows of played situations as arrays (n rows; ``width`` = most legal actions).

    Their legal actions as :class:`~diceopt.games.yatzy.commands.batch.OptionRows` (``codes``,
    ``values``, ``regret`` (n, width) points, ``count``, ``best``, ``best_value``), and
    ``game``, ``turn`` (1-based), ``mask``, ``flag`` (the Yatzy box holds its points,
    where the state tracks it), ``upper`` (uncapped points), ``score`` (points so far),
    ``roll`` (roll index), ``rerolls``, ``taken`` (the code the player chose).
    """

    game: np.ndarray
    turn: np.ndarray
    mask: np.ndarray
    flag: np.ndarray
    upper: np.ndarray
    score: np.ndarray
    roll: np.ndarray
    rerolls: np.ndarray
    taken: np.ndarray

    def __len__(self) -> int:
        return int(self.game.size)


def play_situations(
    table: YatzyTable, rows: int, source: str, seed: int, eps: float = DEFAULT_EPS
) -> Situations:
    """``rows`` situations from seeded games of the ``source`` player (module docstring)."""
    if source not in SOURCES:
        raise InputError(f"unknown source {source!r} (choose from {', '.join(SOURCES)})")
    if not 0.0 <= eps <= 1.0:
        raise InputError(f"eps is a probability 0..1, got {eps}")
    if rows < 1:
        raise InputError(f"rows must be at least 1, got {rows}")
    rules = table.rules
    rng = np.random.default_rng(seed)
    ncat, nd, sides = rules.num_categories, rules.dice, rules.sides
    full = (1 << ncat) - 1
    lookup = roll_lookup(rules)
    weights = (nd + 1) ** np.arange(sides, dtype=np.int64)
    lat_counts = rules.lattice.counts.astype(np.int64)
    roll_counts = rules.roll_counts.astype(np.int64)
    chunks: list[dict[str, np.ndarray]] = []
    collected = 0
    first_game = 0
    while collected < rows:
        g = -(-(rows - collected) // 30) + 1
        game = np.arange(first_game, first_game + g, dtype=np.int64)
        first_game += g
        mask = np.zeros(g, dtype=np.int64)
        flag = np.zeros(g, dtype=np.int64)
        upper = np.zeros(g, dtype=np.int64)
        score = np.zeros(g)
        turn = np.ones(g, dtype=np.int64)
        rerolls = np.full(g, 2, dtype=np.int64)
        roll = _roll(rng.integers(1, sides + 1, size=(g, nd)), lookup, nd)
        step = 0
        while game.size:
            out = option_values(table, mask, flag, upper, roll, rerolls)
            n = game.size
            # every source draws the same numbers, so eps 0 plays the optimal games
            pick = np.minimum((rng.random(n) * out.count).astype(np.int64), out.count - 1)
            coin = rng.random(n)
            drawn = out.codes[np.arange(n), pick].astype(np.int64)
            if source == "optimal":
                taken = out.best.astype(np.int64)
            elif source == "random":
                taken = drawn
            else:
                taken = np.where(coin < eps, drawn, out.best).astype(np.int64)
            chunks.append(
                {
                    "game": game,
                    "step": np.full(n, step),
                    "turn": turn,
                    "mask": mask,
                    "flag": flag,
                    "upper": upper,
                    "score": score,
                    "roll": roll,
                    "rerolls": rerolls,
                    "codes": out.codes,
                    "values": out.values,
                    "regret": out.regret,
                    "count": out.count,
                    "best": out.best,
                    "best_value": out.best_value,
                    "taken": taken,
                }
            )
            collected += n
            step += 1
            fresh = rng.integers(1, sides + 1, size=(n, nd))
            # keep: reroll the other dice (the first columns of ``fresh``)
            keep = taken >= ncat
            kept = lat_counts[np.where(keep, taken - ncat, 0)]
            n_new = nd - kept.sum(axis=1)
            new_counts = kept.copy()
            for j in range(nd):
                hit = keep & (j < n_new)
                np.add.at(new_counts, (np.flatnonzero(hit), fresh[hit, j] - 1), 1)
            new_roll = np.where(keep, lookup[new_counts @ weights], 0)
            new_rerolls = np.where(keep, rerolls - 1, 2)
            # score: the rules' own scoring (engine_game.score_points; served straight
            # after the first roll), a new first roll
            mask, flag, upper, score = mask.copy(), flag.copy(), upper.copy(), score.copy()
            for i in np.flatnonzero(~keep):
                c = int(taken[i])
                counts = roll_counts[roll[i]]
                served = bool(rerolls[i] == 2)
                pts, nmask, nflag, _ = score_points(
                    rules, int(mask[i]), int(flag[i]), int(upper[i]), counts, c, served
                )
                f = int(rules.upper_face[c])
                upper[i] += int(counts[f]) * (f + 1) if f >= 0 else 0
                mask[i], flag[i] = nmask, nflag
                score[i] += pts
            new_roll[~keep] = _roll(fresh[~keep], lookup, nd)
            turn = turn + (~keep)
            roll, rerolls = new_roll, new_rerolls
            live = mask != full
            game, turn, mask, flag, upper, score, roll, rerolls = (
                a[live] for a in (game, turn, mask, flag, upper, score, roll, rerolls)
            )
    cat = {k: np.concatenate([c[k] for c in chunks]) for k in chunks[0]}
    order = np.lexsort((cat["step"], cat["game"]))[:rows]
    return Situations(*(cat[k][order] for k in Situations.__dataclass_fields__))


def _roll(dice: np.ndarray, lookup: np.ndarray, nd: int) -> np.ndarray:
    """Roll indices of pips (n, dice)."""
    key = np.zeros(dice.shape[0], dtype=np.int64)
    for j in range(dice.shape[1]):
        key += (nd + 1) ** (dice[:, j].astype(np.int64) - 1)
    return lookup[key]


def situation_records(table: YatzyTable, s: Situations) -> dict[str, list[Any]]:
    """The export's columns (:data:`COLUMNS`) as Python lists."""
    rules = table.rules
    names = np.array(action_names(rules), dtype=object)
    cats = rules.categories
    dice_of = [
        tuple(f + 1 for f in range(rules.sides) for _ in range(int(counts[f])))
        for counts in rules.roll_counts
    ]
    ybonus = s.flag.astype(bool)
    filled = [[c for j, c in enumerate(cats) if m >> j & 1] for m in s.mask.tolist()]
    position = [
        format_position(
            Position(dice_of[r], t, tuple(f), u, None, yb), rules
        )  # no score: values are points to come
        for r, t, f, u, yb in zip(
            s.roll.tolist(), s.rerolls.tolist(), filled, s.upper.tolist(), ybonus.tolist()
        )
    ]
    counts = s.count.tolist()
    codes = [row[:n] for row, n in zip(s.codes.tolist(), counts)]
    n = len(s)
    taken_pos = np.argmax(s.codes == s.taken[:, None], axis=1)
    return {
        "game": s.game.tolist(),
        "turn": s.turn.tolist(),
        "position": position,
        "dice": [list(dice_of[r]) for r in s.roll.tolist()],
        "rerolls": s.rerolls.tolist(),
        "filled": filled,
        "mask": s.mask.tolist(),
        "upper": s.upper.tolist(),
        "yahtzee_bonus": ybonus.tolist(),
        "score": s.score.tolist(),
        "actions": [names[c].tolist() for c in codes],
        "codes": codes,
        "values": [row[:k] for row, k in zip(s.values.tolist(), counts)],
        "regrets": [row[:k] for row, k in zip(s.regret.tolist(), counts)],
        "best_action": names[s.best.astype(np.int64)].tolist(),
        "best_code": s.best.tolist(),
        "best_value": s.best_value.tolist(),
        "taken_action": names[s.taken].tolist(),
        "taken_code": s.taken.tolist(),
        "taken_regret": s.regret[np.arange(n), taken_pos].tolist(),
    }


def write_jsonl(records: dict[str, list[Any]], path: Path) -> None:
    """One JSON object per row, keys in :data:`COLUMNS` order."""
    cols = [records[k] for k in COLUMNS]
    with open(path, "w", encoding="utf-8") as fh:
        for row in zip(*cols):
            fh.write(json.dumps(dict(zip(COLUMNS, row)), separators=(",", ":")))
            fh.write("\n")


def write_parquet(records: dict[str, list[Any]], path: Path, metadata: dict[str, str]) -> None:
    """A Parquet file with the schema of the README (zstd, no timestamps)."""
    pa = require_pyarrow()
    import pyarrow.parquet as pq

    types = {
        "game": pa.int64(),
        "turn": pa.int8(),
        "position": pa.string(),
        "dice": pa.list_(pa.int8()),
        "rerolls": pa.int8(),
        "filled": pa.list_(pa.string()),
        "mask": pa.int64(),
        "upper": pa.int16(),
        "yahtzee_bonus": pa.bool_(),
        "score": pa.float64(),
        "actions": pa.list_(pa.string()),
        "codes": pa.list_(pa.int16()),
        "values": pa.list_(pa.float64()),
        "regrets": pa.list_(pa.float64()),
        "best_action": pa.string(),
        "best_code": pa.int16(),
        "best_value": pa.float64(),
        "taken_action": pa.string(),
        "taken_code": pa.int16(),
        "taken_regret": pa.float64(),
    }
    schema = pa.schema([(k, types[k]) for k in COLUMNS], metadata=metadata)
    table = pa.table({k: pa.array(records[k], type=types[k]) for k in COLUMNS}, schema=schema)
    pq.write_table(table, path, compression="zstd")


def check_export(
    path: str, fmt: str | None = None, source: str = "optimal", eps: float | None = None
) -> tuple[str, float]:
    """The format of an export to ``path`` (None: from the name) and the perturbed
    player's eps (None: DEFAULT_EPS); InputError before any work for an unknown source or
    format, eps given to another player, parquet without pyarrow, or a path that cannot
    be written."""
    if source not in SOURCES:
        raise InputError(f"unknown source {source!r} (choose from {', '.join(SOURCES)})")
    if eps is not None and source != "perturbed":
        raise InputError(f"--eps is for --from perturbed; the {source} player takes none")
    if fmt is None:
        fmt = "parquet" if Path(path).suffix.lower() in (".parquet", ".pq") else "jsonl"
    if fmt not in FORMATS:
        raise InputError(f"unknown format {fmt!r} (choose from {', '.join(FORMATS)})")
    if fmt == "parquet":
        require_pyarrow()
    check_output_path(path, "the export")
    return fmt, DEFAULT_EPS if eps is None else eps


def export(
    table: YatzyTable,
    path: str,
    rows: int,
    source: str = "optimal",
    seed: int = 0,
    fmt: str | None = None,
    eps: float | None = None,
    variant: str = "",
) -> dict[str, Any]:
    """Write ``rows`` situations to ``path`` (atomically); returns what was written:
    rows, games, path, format, source, seed, eps and seconds (wall time). ``eps``: the
    perturbed player's (None: DEFAULT_EPS); InputError for the other players."""
    t0 = time.perf_counter()
    target = Path(path)
    fmt, eps = check_export(path, fmt, source, eps)
    situations = play_situations(table, rows, source, seed, eps)
    records = situation_records(table, situations)
    meta = {
        "variant": variant or table.rules.name,
        "theta": repr(float(table.theta)),
        "source": source,
        "seed": str(seed),
        "eps": repr(float(eps)) if source == "perturbed" else "",
        "values": value_is(Position((), 0, score=None), float(table.theta)),
    }
    if fmt == "parquet":
        write_file(path, lambda out: write_parquet(records, Path(out), meta), "the export")
    else:
        write_file(path, lambda out: write_jsonl(records, Path(out)), "the export")
    return {
        "rows": len(situations),
        "games": len(np.unique(situations.game)),
        "path": str(target),
        "format": fmt,
        "source": source,
        "seed": seed,
        "eps": eps if source == "perturbed" else None,
        "seconds": time.perf_counter() - t0,
    }


def run_export(config: Any, args: Any) -> CommandOutput:
    """``diceopt yatzy export``: write the rows; what was written."""
    check_export(args.out, args.format, getattr(args, "from"), args.eps)  # before the table
    info = export(
        config.table(),
        args.out,
        args.rows,
        getattr(args, "from"),
        args.seed,
        args.format,
        args.eps,
        config.variant,
    )
    eps = f", eps {info['eps']:g}" if info["eps"] is not None else ""
    line = (
        f"wrote {info['rows']:,} rows ({info['games']:,} games, source {info['source']}{eps}, "
        f"seed {info['seed']}) to {info['path']} as {info['format']} in {info['seconds']:.1f} s"
    )
    return CommandOutput({"variant": config.variant, **info}, [line])
