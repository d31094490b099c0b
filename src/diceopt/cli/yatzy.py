"""``diceopt yatzy``: solve Yatzy/Yahtzee exactly, advise, simulate, sweep theta, play."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from typing import Any

from diceopt.cli.common import (
    add_json_flag,
    check_plot_path,
    games_count,
    print_json,
    prompt,
    resolve_seed,
    seed_value,
    write_plot,
)
from diceopt.errors import InputError
from diceopt.games.yatzy.rules import check_theta


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``yatzy`` with its ``solve``, ``advise``, ``simulate``, ``sweep``, ``play``."""
    from diceopt.games.yatzy.rules import DEFAULT_VARIANT, VARIANTS

    variants = ", ".join(VARIANTS)
    parser = subparsers.add_parser(
        "yatzy",
        help="Yatzy / Yahtzee: exact solver and advice",
        description=f"Yatzy and Yahtzee (variants: {variants}).",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--variant", default=DEFAULT_VARIANT, help=f"rules variant (default {DEFAULT_VARIANT})"
        )
        p.add_argument(
            "--cache-dir",
            default=None,
            help="table directory (default $DICEOPT_CACHE or user cache)",
        )
        add_json_flag(p)

    solve = sub.add_parser("solve", help="solve a variant (or load its cached table)")
    common(solve)
    solve.add_argument("--theta", type=float, default=0.0, help="exponential utility (0: mean)")
    solve.add_argument("--dtype", choices=("float32", "float64"), default="float32")
    solve.add_argument("--force", action="store_true", help="solve even if a table is cached")
    solve.set_defaults(handler=cmd_solve)

    advise = sub.add_parser("advise", help="value of every legal action in a position")
    advise.add_argument(
        "position", help="e.g. 'dice 1 3 3 5 6 | rerolls 2 | filled ones twos | upper 3 | score 5'"
    )
    common(advise)
    advise.set_defaults(handler=cmd_advise)

    simulate = sub.add_parser("simulate", help="simulate optimal play: score distribution")
    common(simulate)
    simulate.add_argument("--theta", type=float, default=0.0, help="exponential utility (0: mean)")
    simulate.add_argument("--dtype", choices=("float32", "float64"), default="float32")
    simulate.add_argument(
        "--games", type=games_count, default=100_000, help="games (default 100000)"
    )
    simulate.add_argument(
        "--seed", type=seed_value, default=None, help="random seed (default: fresh)"
    )
    simulate.add_argument("--plot", metavar="FILE", default=None, help="write a PNG histogram")
    simulate.set_defaults(handler=cmd_simulate)

    sweep = sub.add_parser(
        "sweep", help="risk-sensitive play: score distribution for several theta"
    )
    common(sweep)
    sweep.add_argument(
        "--thetas",
        default="-0.1,-0.05,0,0.05,0.1",
        help="exponential-utility parameters, comma separated (default -0.1,-0.05,0,0.05,0.1)",
    )
    sweep.add_argument("--dtype", choices=("float32", "float64"), default="float32")
    sweep.add_argument("--games", type=games_count, default=100_000, help="games per theta")
    sweep.add_argument("--seed", type=seed_value, default=None, help="random seed (default: fresh)")
    sweep.add_argument("--plot", metavar="FILE", default=None, help="write a mean/std PNG")
    sweep.set_defaults(handler=cmd_sweep)
    # let `--thetas -0.1,0,0.1` read as a value, not as an option (argparse only
    # recognises a single negative number by default)
    sweep._negative_number_matcher = re.compile(r"^-\d+$|^-\d*\.\d+$|^-[0-9.eE+\-, ]+$")

    play = sub.add_parser("play", help="interactive game; every decision graded")
    play.add_argument(
        "--variant", default=DEFAULT_VARIANT, help=f"rules variant (default {DEFAULT_VARIANT})"
    )
    play.add_argument(
        "--cache-dir", default=None, help="table directory (default $DICEOPT_CACHE or user cache)"
    )
    play.add_argument("--seed", type=seed_value, default=None, help="random seed (default: fresh)")
    play.set_defaults(handler=cmd_play)


def _check_variant(variant: str) -> None:
    from diceopt.games.yatzy.rules import get_rules

    get_rules(variant)


def cmd_solve(args: argparse.Namespace) -> int:
    """Solve (or load) a table; print its value and timings.

    JSON: ``seconds`` is the solve alone (numba compile excluded, reported as
    ``compile_seconds``); when the table was loaded from the cache instead, ``loaded`` is
    true, ``seconds`` is the load time and ``solve_seconds`` the original solve's time.
    """
    from diceopt.games.yatzy import progress_bar
    from diceopt.games.yatzy.kernel import warm_up
    from diceopt.games.yatzy.storage import get_table, load_table, table_path

    _check_variant(args.variant)
    check_theta(args.theta)
    path = table_path(args.variant, args.theta, args.dtype, args.cache_dir)
    loaded = (
        None if args.force else load_table(args.variant, args.theta, args.dtype, args.cache_dir)
    )
    compile_seconds = 0.0
    if loaded is not None:
        table, seconds = loaded
    else:
        compile_seconds = warm_up(args.dtype)
        bar = progress_bar(f"solving {args.variant}")
        table, info = get_table(
            args.variant, args.theta, args.dtype, args.cache_dir, force=True, progress=bar
        )
        seconds = info.seconds
    if args.json:
        print_json(
            {
                "variant": args.variant,
                "theta": args.theta,
                "dtype": args.dtype,
                "value": table.value,
                "seconds": seconds,
                "compile_seconds": compile_seconds,
                "solve_seconds": table.seconds,
                "states": table.states,
                "loaded": loaded is not None,
                "path": str(path),
            }
        )
        return 0
    what = "expected final score" if args.theta == 0 else "certainty equivalent"
    print(f"{args.variant}: optimal {what} {table.value:.6f} points")
    if loaded is not None:
        print(f"loaded {path} in {seconds * 1000:.1f} ms (solved in {table.seconds:.2f} s)")
    else:
        saved = f"; saved to {path}" if info.saved else ""  # else warned once already
        print(
            f"solved {table.states:,} states in {seconds:.2f} s "
            f"(numba compile {compile_seconds:.2f} s){saved}"
        )
    return 0


def cmd_advise(args: argparse.Namespace) -> int:
    """Print every legal action of a position with its value and regret, best first."""
    from diceopt.games.yatzy.advice import advise_position, format_position, parse_position
    from diceopt.games.yatzy.rules import get_rules
    from diceopt.games.yatzy.storage import get_table

    rules = get_rules(args.variant)
    pos = parse_position(args.position, rules)  # bad input fails before any solve
    if pos.over(rules):
        raise InputError("the game is over: every category is filled")
    progress = None if args.json else _maybe_progress(args.variant)
    table, _ = get_table(args.variant, 0.0, "float32", args.cache_dir, progress=progress)
    actions = advise_position(pos, rules, table)
    if args.json:
        print_json(
            {
                "position": format_position(pos, rules),
                "variant": args.variant,
                "actions": [a.to_json() for a in actions],
            }
        )
        return 0
    print(format_position(pos, rules))
    print(f"{'action':<24} {'expected final score':>20} {'regret':>9}")
    for a in actions:
        print(f"{a.action:<24} {a.value:20.4f} {a.regret:9.4f}")
    return 0


def _maybe_progress(variant: str) -> Callable[[int, int], None] | None:
    from diceopt.games.yatzy import progress_bar

    return progress_bar(f"solving {variant} (first use)") if sys.stderr.isatty() else None


# --- simulate and sweep ------------------------------------------------------------------


def cmd_simulate(args: argparse.Namespace) -> int:
    """Simulate optimal games: mean, std, percentiles, bonus and Yatzy rates, histogram.

    JSON: the summary (points; rates are shares of games), ``exact`` the table's value of
    the game, ``seconds`` the simulation alone (compile excluded: ``compile_seconds``).
    """
    import numpy as np

    from diceopt.games.yatzy.simulation import (
        histogram_lines,
        histogram_png,
        simulate,
        warm_up,
    )
    from diceopt.games.yatzy.storage import get_table

    _check_variant(args.variant)
    check_theta(args.theta)
    seed = resolve_seed(args.seed)
    check_plot_path(args.plot)
    progress = None if args.json else _maybe_progress(args.variant)
    table, info = get_table(args.variant, args.theta, args.dtype, args.cache_dir, progress=progress)
    compile_seconds = warm_up(args.dtype)
    result = simulate(table, args.games, np.random.default_rng(seed))
    summary = result.summary()
    if args.plot:
        title = f"{args.variant}: {args.games:,} optimal games" + (
            f" (theta {args.theta:g})" if args.theta else ""
        )
        write_plot(
            lambda: histogram_png(result.scores, args.plot, title, summary["mean"]), args.plot
        )
    if args.json:
        print_json(
            summary
            | {
                "variant": args.variant,
                "dtype": args.dtype,
                "seed": seed,
                "compile_seconds": compile_seconds,
                "table_loaded": info.loaded,
                "table_seconds": info.seconds,
                "distinct_states": int(result.distinct_states.sum()),
                "plot": args.plot,
            }
        )
        return 0
    what = (
        "expected final score"
        if args.theta == 0
        else f"certainty equivalent (theta {args.theta:g})"
    )
    print(f"{args.variant}: {args.games:,} games of optimal play, seed {seed}")
    print(f"  table {what}: {table.value:.4f} points")
    print(
        f"  mean {summary['mean']:.4f} points, std error {summary['std_error']:.4f}, "
        f"std {summary['std']:.4f}"
    )
    pct = "  ".join(f"p{p} {v:g}" for p, v in summary["percentiles"].items())
    print(f"  percentiles: {pct}")
    print(f"  min {summary['min']}, max {summary['max']}")
    print(
        f"  upper bonus in {100 * summary['bonus_rate']:.2f}% of games, "
        f"Yatzy (50) in {100 * summary['yatzy_rate']:.2f}%"
    )
    print(
        f"  simulated in {result.seconds:.2f} s "
        f"({args.games / max(result.seconds, 1e-9):,.0f} games/s; compile {compile_seconds:.2f} s)"
    )
    print("final score distribution:")
    for line in histogram_lines(result.scores):
        print("  " + line)
    if args.plot:
        print(f"histogram written to {args.plot}")
    return 0


def cmd_sweep(args: argparse.Namespace) -> int:
    """For each theta, simulate its optimal policy; a table (or JSON) and a frontier PNG."""
    import time

    from diceopt.games.yatzy.simulation import warm_up
    from diceopt.games.yatzy.sweep import frontier_png, parse_thetas, sweep

    _check_variant(args.variant)
    thetas = parse_thetas(args.thetas)
    seed = resolve_seed(args.seed)
    check_plot_path(args.plot)
    t0 = time.perf_counter()
    compile_seconds = warm_up(args.dtype)

    def note(message: str) -> None:
        if not args.json:
            print(message, file=sys.stderr, flush=True)

    rows = sweep(args.variant, thetas, args.games, seed, args.dtype, args.cache_dir, note)
    if args.plot:
        title = f"{args.variant}: mean and spread by theta ({args.games:,} games each)"
        write_plot(lambda: frontier_png(rows, args.plot, title), args.plot)
    seconds = time.perf_counter() - t0
    if args.json:
        print_json(
            {
                "variant": args.variant,
                "games": args.games,
                "seed": seed,
                "dtype": args.dtype,
                "rows": [r.to_json() for r in rows],
                "seconds": seconds,
                "compile_seconds": compile_seconds,
                "plot": args.plot,
            }
        )
        return 0
    print(f"{args.variant}: {args.games:,} games per theta, seed {seed} (same dice for all)")
    head = f"{'theta':>7} {'cert.eq':>8} {'mean':>8} {'std':>7}"
    head += "".join(f" {'p' + str(p):>5}" for p in (1, 5, 10, 25, 50, 75, 90, 95, 99))
    head += f" {'bonus':>6} {'yatzy':>6}"
    print(head)
    for r in rows:
        s = r.result.summary()
        line = f"{r.theta:>7g} {r.value:8.2f} {s['mean']:8.2f} {s['std']:7.2f}"
        line += "".join(f" {v:5.0f}" for v in s["percentiles"].values())
        line += f" {100 * s['bonus_rate']:5.1f}% {100 * s['yatzy_rate']:5.1f}%"
        print(line)
    print(f"total {seconds:.1f} s (compile {compile_seconds:.1f} s)")
    if args.plot:
        print(f"frontier written to {args.plot}")
    return 0


# --- play --------------------------------------------------------------------------------

PLAY_HELP = (
    "moves: 'keep 3 3' (k 33), 'keep -' or 'reroll' (r) to reroll all, 'score chance' "
    "(s ch, or just the category); '?' best moves, 'sheet', 'quit'"
)


def _category(word: str, rules: Any) -> str:
    """A category id from its name or a unique prefix; InputError otherwise."""
    word = word.lower()
    if word in rules.categories:
        return word
    hits = [c for c in rules.categories if c.startswith(word)]
    if len(hits) == 1:
        return hits[0]
    if hits:
        raise InputError(f"'{word}' is ambiguous: {' '.join(hits)}")
    raise InputError(f"unknown category '{word}'; categories are {' '.join(rules.categories)}")


def parse_move(line: str, rules: Any) -> str:
    """A typed move in the canonical action notation (``keep 3 3``, ``score chance``)."""
    words = line.lower().replace(",", " ").split()
    if not words:
        raise InputError("type a move, e.g. 'keep 3 3' or 'score chance' ('help' for more)")
    head, rest = words[0], words[1:]
    if head in ("r", "reroll", "roll"):
        if rest:
            raise InputError(f"'{head}' rerolls all dice and takes nothing after it")
        return "keep -"
    if head in ("k", "keep"):
        if not rest:
            raise InputError("keep which dice? e.g. 'keep 3 3', or 'keep -' to reroll all")
        if rest == ["-"]:
            return "keep -"
        if len(rest) == 1 and len(rest[0]) > 1 and rest[0].isdigit():
            rest = list(rest[0])  # 'k 335' keeps 3 3 5
        pips: list[int] = []
        for w in rest:
            if not w.isdigit():
                raise InputError(f"dice are numbers 1 to {rules.sides}, got '{w}'")
            pips.append(int(w))
        return "keep " + " ".join(map(str, sorted(pips)))
    if head in ("s", "score"):
        if len(rest) != 1:
            raise InputError("score which category? e.g. 'score chance'")
        return f"score {_category(rest[0], rules)}"
    if len(words) == 1:
        try:
            return f"score {_category(head, rules)}"
        except InputError:
            pass
    raise InputError(f"unknown move '{line.strip()}' (type 'help' for the moves)")


def _sheet_lines(rules: Any, written: dict[str, int], pos: Any, bonus_got: bool) -> list[str]:
    lines = []
    for c in rules.categories:
        mark = f"{written[c]:>4}" if c in written else "   -"
        lines.append(f"  {c:<16}{mark}")
    upper_open = any(
        rules.upper_face[i] >= 0 and c not in written for i, c in enumerate(rules.categories)
    )
    if bonus_got:
        state = f"+{rules.bonus}"
    elif upper_open:
        state = "not yet"
    else:
        state = "missed"
    lines.append(
        f"  upper total {pos.upper} of {rules.bonus_threshold} (bonus {state}); "
        f"score {_fmt(pos.score)}"
    )
    return lines


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def cmd_play(args: argparse.Namespace) -> int:
    """A whole game: you decide, each decision is graded against the optimal one."""
    import numpy as np

    from diceopt.games.yatzy.advice import (
        Position,
        advise_position,
        apply_action,
        format_position,
    )
    from diceopt.games.yatzy.rules import get_rules
    from diceopt.games.yatzy.storage import get_table

    rules = get_rules(args.variant)
    seed = resolve_seed(args.seed)
    table, _ = get_table(
        args.variant, 0.0, "float32", args.cache_dir, progress=_maybe_progress(args.variant)
    )
    rng = np.random.default_rng(seed)
    first = tuple(sorted(int(d) for d in rng.integers(1, rules.sides + 1, size=rules.dice)))
    pos = Position(first, 2)
    written: dict[str, int] = {}
    bonus_got = False
    total_regret = 0.0
    decisions = 0
    new_turn = True
    print(f"{args.variant}: {rules.num_categories} turns, seed {seed}")
    print(f"optimal play expects {table.value:.2f} points from the start")
    print(PLAY_HELP)
    try:
        while True:
            if new_turn:
                turn = len(pos.filled) + 1
                print(f"\n--- turn {turn} of {rules.num_categories} ---")
                print("\n".join(_sheet_lines(rules, written, pos, bonus_got)))
                new_turn = False
            print(f"dice {' '.join(map(str, pos.dice))}   rerolls left {pos.rerolls}")
            print(f"position: {format_position(pos, rules)}")
            line = prompt("> ")
            command = line.lower()
            if command in ("q", "quit", "exit"):
                print("game abandoned")
                break
            if command in ("h", "help"):
                print(PLAY_HELP)
                continue
            if command == "sheet":
                print("\n".join(_sheet_lines(rules, written, pos, bonus_got)))
                continue
            actions = advise_position(pos, rules, table)
            if command in ("?", "hint"):
                for a in actions[:3]:
                    print(f"  {a.action:<22} expected final score {a.value:8.2f}")
                continue
            try:
                action = parse_move(line, rules)
                chosen = next((a for a in actions if a.action == action), None)
                if chosen is None:  # illegal: let the rules say why
                    apply_action(pos, action, rules, np.random.default_rng(0))
                    raise InputError(f"'{action}' is not a legal move here")
            except InputError as exc:
                print(f"  {exc}")
                continue
            best = actions[0]
            decisions += 1
            total_regret += chosen.regret
            if chosen.regret <= 1e-9 * max(1.0, abs(best.value)):
                print(f"  {action}: best move (expected final score {chosen.value:.2f})")
            else:
                print(
                    f"  {action}: costs {chosen.regret:.2f} points; best was {best.action} "
                    f"(expected {best.value:.2f}, yours {chosen.value:.2f})"
                )
            before = pos
            pos, over = apply_action(pos, action, rules, rng)
            if action.startswith("score "):
                cat = action.split()[1]
                gained = pos.score - before.score
                note = ""
                if pos.upper >= rules.bonus_threshold > before.upper:
                    bonus_got = True
                    gained -= rules.bonus
                    note += f" (+{rules.bonus} upper bonus)"
                if (
                    rules.tracks_yahtzee
                    and before.yahtzee_bonus
                    and max(before.dice.count(d) for d in before.dice) == rules.dice
                ):
                    gained -= rules.yahtzee_bonus
                    note += f" (+{rules.yahtzee_bonus} Yahtzee bonus)"
                written[cat] = int(gained)
                print(f"  wrote {_fmt(gained)} in {cat}{note}")
                new_turn = True
            if over:
                print("\n--- game over ---")
                print("\n".join(_sheet_lines(rules, written, pos, bonus_got)))
                print(f"final score {_fmt(pos.score)} points")
                break
    except EOFError:
        print()
        print("game abandoned (end of input)")
    print(
        f"total regret {total_regret:.2f} points over {decisions} decisions "
        f"(expected final score lost to your choices)"
    )
    return 0
