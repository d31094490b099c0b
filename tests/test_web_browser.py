"""The advisor page in headless Chromium (Playwright, Debian's /usr/bin/chromium).

The real app runs on uvicorn on 127.0.0.1 (fixture ``live_server``: the registered games
and the two-player plug-in ``web_games.RACE``); the page is driven by clicks at phone
width and its numbers are checked against the JSON API. Six dice: a reduced Maxi variant
(fixture ``maxi_server``), and the full Maxi sheet with its advice stubbed (the table is
too big for the suite).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest
from web_games import AHEAD_OF_ME, BEHIND, BIG_TABLES, MAXI_MINI, MAXI_MINI_ID

from diceopt.errors import InputError
from diceopt.games.registry import games as registered_games
from diceopt.games.registry import get_game

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx`:UserWarning")


def api(base: str, path: str, body: dict) -> dict:
    """POST to the live server's API; the JSON answer."""
    response = httpx.post(f"{base}{path}", json=body, timeout=120)
    assert response.status_code == 200, response.text
    return response.json()


def open_game(page, base: str, game: str) -> None:
    """Load the page with ``game`` selected, its first advice shown."""
    page.goto(f"{base}/#{game}")
    page.wait_for_selector("body[data-ready='true']")
    page.wait_for_selector(f"#games button.on[data-game='{game}']")


def wait_position(page, text: str) -> None:
    """Wait until the text field shows ``text`` (the advice answer's canonical position)."""
    page.wait_for_function(
        "t => document.querySelector('#position').value === t", arg=text, timeout=60_000
    )


def best_row(page) -> dict:
    """The first (best) row of the advice table, once the table shows the current position."""
    page.wait_for_function(
        "() => document.querySelector('#advice').dataset.position === "
        "document.querySelector('#position').value && "
        "!document.querySelector('#advice').hasAttribute('aria-busy')"
    )
    row = page.locator("#advice tbody tr").first
    return {
        "action": row.get_attribute("data-action"),
        "value": float(row.get_attribute("data-value")),
        "regret": float(row.get_attribute("data-regret")),
        "class": row.get_attribute("class"),
        "shown": row.locator("td.value").inner_text(),
    }


def no_horizontal_scroll(page) -> bool:
    """The page fits the (phone) viewport's width."""
    return page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth + 1")


def in_viewport(page, selector: str) -> bool:
    """The element is visible inside the viewport (the user sees it without scrolling)."""
    return page.evaluate(
        """s => { const r = document.querySelector(s).getBoundingClientRect();
                  return r.height > 0 && r.top >= -1 && r.bottom <= window.innerHeight + 1; }""",
        selector,
    )


def below(page, first: str, second: str, gap: float = 40) -> bool:
    """``second`` starts right under ``first`` (within ``gap`` pixels)."""
    return page.evaluate(
        """([a, b, gap]) => { const x = document.querySelector(a).getBoundingClientRect();
                              const y = document.querySelector(b).getBoundingClientRect();
                              return y.top >= x.bottom - 1 && y.top - x.bottom <= gap; }""",
        [first, second, gap],
    )


# --- playing through the page ----------------------------------------------------------------


def page_actions(page) -> tuple[set[str], list[float], bool]:
    """Action buttons shown, the dice shown (play board) and whether dice can be held."""
    buttons = page.locator("#play-options button.option, #play-sheet button.option").evaluate_all(
        "bs => bs.map(b => b.dataset.action)"
    )
    dice = page.locator("#play-dice button.die")
    values = [float(v) for v in dice.evaluate_all("ds => ds.map(d => d.dataset.value)")]
    holdable = page.locator("#reroll").count() == 1
    return set(buttons), values, holdable


def is_hold_of(action: str, dice: list[float]) -> bool:
    """``verb v v ...`` / ``verb -``: holding some of ``dice``."""
    words = action.split()[1:]
    if words == ["-"]:
        return True
    try:
        held = sorted(float(w) for w in words)
    except ValueError:
        return False
    rest = list(dice)
    for v in held:
        if v not in rest:
            return False
        rest.remove(v)
    return bool(held)


def play(page, action: str) -> None:
    """Play ``action``: its button, or tap the dice it holds and reroll."""
    button = page.locator(f"button.option[data-action='{action}']")
    if button.count():
        button.first.click()
        return
    for word in action.split()[1:]:
        if word == "-":
            break
        die = page.locator(
            f"#play-dice button.die[aria-pressed='false'][data-value='{word}']"
        ).first
        die.click()
    page.wait_for_selector(f"#reroll[data-action='{action}']:not([disabled])")
    page.click("#reroll")


def play_to_the_end(page, base: str, game: str, seed: int, choose, max_decisions: int) -> dict:
    """Play a whole game in play mode, ``choose(options, turn)`` picking each action.

    ``options``: the API's advice for the position on screen; each is checked to be on the
    page (a button, or a hold of the dice). Returns the decisions made (position, action,
    regret) and the summary's text.
    """
    page.click("#mode-play")
    page.check("#hints")
    page.fill("#seed", str(seed))
    page.click("#new-game")
    decisions = []
    for turn in range(max_decisions):
        try:
            page.wait_for_function(
                f"() => document.querySelector('#play-options').dataset.turn === '{turn}' && "
                "document.querySelectorAll('#play-options button, #play-sheet button.option')"
                ".length > 0"
            )
        except Exception:  # what the page shows instead, in the failure
            shown = page.evaluate("() => document.querySelector('#play-view').innerText")
            pytest.fail(f"turn {turn} not offered; the page shows: {shown[:1500]}")
        position = page.locator("#play-position").get_attribute("data-position")
        variant = page.locator("#variant").input_value()
        options = api(
            base, "/api/advice", {"game": game, "variant": variant, "position": position}
        )["actions"]
        buttons, dice, holdable = page_actions(page)
        for o in options:
            assert o["action"] in buttons or (holdable and is_hold_of(o["action"], dice)), o
        assert buttons <= {o["action"] for o in options}
        action = choose(options, turn)
        regret = next(o["regret"] for o in options if o["action"] == action)
        decisions.append({"position": position, "action": action, "regret": regret})
        play(page, action)
        page.wait_for_function(
            f"() => document.querySelectorAll('#play-log tbody tr.mine').length === {turn + 1}"
        )
        page.wait_for_function(
            f"() => !document.querySelector('#play-summary').hidden || "
            f"document.querySelector('#play-options').dataset.turn === '{turn + 1}'"
        )
        if page.locator("#play-summary").is_visible():
            break
    else:
        pytest.fail(f"the {game} game did not end in {max_decisions} decisions")
    summary = page.locator("#play-summary")
    summary.wait_for(state="visible")
    return {"decisions": decisions, "summary": summary.inner_text()}


def check_log(page, decisions: list[dict]) -> None:
    """The page's decision log and total cost agree with the API's regrets."""
    rows = page.locator("#play-log tbody tr.mine")
    assert rows.count() == len(decisions)
    for i, d in enumerate(decisions):
        cells = rows.nth(i).locator("td")
        assert cells.nth(1).inner_text().startswith(d["action"])
        assert float(cells.nth(3).inner_text()) == pytest.approx(d["regret"], abs=1e-4)
        assert cells.nth(4).text_content() == d["position"]
    total = sum(d["regret"] for d in decisions)
    assert float(page.locator("#total-cost").inner_text()) == pytest.approx(total, abs=1e-4)
    cost = page.locator("#summary-cost")
    assert float(cost.get_attribute("data-value")) == pytest.approx(total, abs=1e-4)


# --- the page is generic -------------------------------------------------------------------


def test_games_and_variants_come_from_the_api(page, live_server):
    games = httpx.get(f"{live_server}/api/games", timeout=60).json()["games"]
    page.set_viewport_size({"width": 320, "height": 800})  # a small phone
    open_game(page, live_server, games[0]["id"])
    shown = page.locator("#games button").evaluate_all(
        "bs => bs.map(b => [b.dataset.game, b.textContent])"
    )
    assert shown == [[g["id"], g["title"]] for g in games]
    assert "race" in [g["id"] for g in games]  # the plug-in is offered like the others
    for g in games:
        page.click(f"#games button[data-game='{g['id']}']")
        variants = page.locator("#variant option").evaluate_all("os => os.map(o => o.value)")
        assert variants == [v["id"] for v in g["variants"]]
        variant = next(v for v in g["variants"] if (g["id"], v["id"]) not in BIG_TABLES)
        if variant["id"] != variants[0]:  # (a smaller variant of a game with a big table)
            page.select_option("#variant", variant["id"])
        body = {"game": g["id"], "variant": variant["id"], "position": variant["position_example"]}
        wait_position(page, api(live_server, "/api/advice", body)["position"])
        units = page.locator("#units").inner_text()
        assert units.startswith("value: ")
        # the variant selector stays inside its column, on a small phone and a desktop
        for width in (320, 1200):
            page.set_viewport_size({"width": width, "height": 800})
            fits = page.evaluate(
                """() => { const s = document.querySelector('#variant').getBoundingClientRect();
                           const bar = document.querySelector('main .bar').getBoundingClientRect();
                           return s.right <= bar.right + 1 && s.right <= window.innerWidth; }"""
            )
            assert fits, (g["id"], width)
            assert no_horizontal_scroll(page), (g["id"], width)
        page.set_viewport_size({"width": 320, "height": 800})


# --- stick or reroll -----------------------------------------------------------------------


def test_a_chart_of_probabilities_keeps_its_axis_within_0_and_100_percent(page, live_server):
    # a flat line (e.g. a two-player game's first decisions) once gave an axis of
    # -0.63 .. 1.7 for a probability; points keep their own range
    open_game(page, live_server, "pig")
    chart = """([steps, probability]) => {
        const t = document.createElement("template");
        t.innerHTML = DiceoptDraw.gameChart(steps, null, { probability, label: "x" });
        const svg = t.content.querySelector("svg");
        return [Number(svg.dataset.lo), Number(svg.dataset.hi),
                [...svg.querySelectorAll("text.tick")].map((e) => e.textContent)];
    }"""
    flat = [{"v": 0.5, "q": 0.5, "regret": 0, "action": "roll"}] * 3
    lo, hi, ticks = page.evaluate(chart, [flat, True])
    assert 0 <= lo < 0.5 < hi <= 1 and ticks == ["62%", "38%"]
    sure = [{"v": 0.5, "q": 0.995, "regret": 0, "action": "roll"}]  # the margin above 1
    lo, hi, ticks = page.evaluate(chart, [sure, True])
    assert 0.4 < lo < 0.5 and hi == 1 and ticks[0] == "100%"
    lo, hi, ticks = page.evaluate(chart, [flat, False])  # points: the old range
    assert lo < -0.5 and hi > 1.5


def test_stick_position_by_clicking_matches_api(page, live_server, artifacts_dir):
    open_game(page, live_server, "stick")
    page.click("#clear-dice")
    for face in (3, 1, 3):
        page.click(f"#faces button[data-face='{face}']")
    wait_position(page, "dice 1 3 3")
    row = best_row(page)
    want = api(live_server, "/api/advice", {"game": "stick", "position": "dice 1 3 3"})
    best = want["actions"][0]
    assert row["action"] == best["action"] == "hold 1"
    assert row["value"] == best["value"] and row["regret"] == 0.0
    assert "best" in row["class"] and row["shown"] == f"{best['value']:.4f}"
    assert page.locator("#advice tbody tr").count() == len(want["actions"])
    assert page.locator("#units").inner_text() == f"value: {want['value_is']}"
    # Remove a die by clicking it, add another: the advice follows.
    page.click("#dice button[data-index='0']")
    page.click("#faces button[data-face='6']")
    wait_position(page, "dice 3 3 6")
    row = best_row(page)
    want = api(live_server, "/api/advice", {"game": "stick", "position": "dice 3 3 6"})
    assert (row["action"], row["value"]) == (
        want["actions"][0]["action"],
        want["actions"][0]["value"],
    )
    assert no_horizontal_scroll(page)
    page.screenshot(path=str(artifacts_dir / "web-stick-advice.png"), full_page=True)


def test_stick_variant_typed_position_and_error_beside_the_field(page, live_server):
    open_game(page, live_server, "stick")
    page.select_option("#variant", "2d3")
    page.click("#clear-dice")
    page.click("#faces button[data-face='2']")
    page.click("#faces button[data-face='1']")
    wait_position(page, "dice 1 2 | points 0")
    row = best_row(page)
    want = api(
        live_server, "/api/advice", {"game": "stick", "variant": "2d3", "position": "dice 1 2"}
    )
    assert row["action"] == want["actions"][0]["action"]
    # a typed position redraws the dice
    page.fill("#position", "dice 3 3")
    page.press("#position", "Enter")
    # the field shows the typed text at once: wait for the answer (the advice table's
    # position, set in the same step as the dice are redrawn)
    page.wait_for_function(
        "() => document.querySelector('#advice').dataset.position === 'dice 3 3'"
    )
    assert page.locator("#dice button.die").all_inner_texts() == ["3", "3"]
    page.fill("#position", "dice 9 9")
    page.click("#advise-btn")
    message = page.locator("#advise-message")
    message.wait_for(state="visible")
    assert "not a face" in message.inner_text()
    assert page.locator("#message").is_hidden()
    assert below(page, "#position-form", "#advise-message")
    assert in_viewport(page, "#advise-message")
    assert page.locator("#advice tbody tr").count() == 0


def test_stick_play_whole_game(page, live_server, artifacts_dir):
    open_game(page, live_server, "stick")

    def choose(options, turn):
        # Two costly rerolls first, then the best action: the game must end with stick.
        if turn < 2:
            return "hold -"
        if turn == 2 and any(o["action"].count(" ") == 2 for o in options):
            return next(o["action"] for o in options if o["action"].count(" ") == 2)
        return options[0]["action"]

    result = play_to_the_end(page, live_server, "stick", seed=5, choose=choose, max_decisions=60)
    decisions = result["decisions"]
    assert decisions[-1]["action"] == "stick" and len(decisions) >= 3
    check_log(page, decisions)
    # Final score: the stick value of the last position, whose points count the rerolls.
    last = decisions[-1]["position"]
    assert f"points {-(len(decisions) - 1)}" in last
    stick_value = next(
        o["value"]
        for o in api(live_server, "/api/advice", {"game": "stick", "position": last})["actions"]
        if o["action"] == "stick"
    )
    final = float(page.locator("#final-result").inner_text().split(":")[1].strip(" ."))
    assert final == pytest.approx(stick_value, abs=1e-4)
    assert page.locator("#play-events li").first.inner_text().startswith("stick with")
    assert no_horizontal_scroll(page)
    page.screenshot(path=str(artifacts_dir / "web-stick-play.png"), full_page=True)


def test_stick_play_shows_the_dice_rolled(page, live_server):
    open_game(page, live_server, "stick")
    page.click("#mode-play")
    page.fill("#seed", "3")
    page.click("#new-game")
    page.wait_for_selector("#reroll")
    page.click("#play-dice button.die[data-index='0']")  # hold the first die
    assert (
        page.locator("#play-dice button.die[data-index='0']").get_attribute("aria-pressed")
        == "true"
    )
    held = page.locator("#play-dice button.die[data-index='0']").get_attribute("data-value")
    assert page.locator("#reroll").get_attribute("data-action") == f"hold {held}"
    page.click("#reroll")
    page.wait_for_selector("#play-events li")
    event = page.locator("#play-events li").first.inner_text()
    shown = " ".join(page.locator("#play-dice button.die").all_inner_texts())
    assert event == f"rolled {shown}"


# --- Yatzy ------------------------------------------------------------------------------------


def test_yatzy_position_by_clicking_matches_api(page, live_server, artifacts_dir):
    open_game(page, live_server, "yatzy")
    page.click("#clear-dice")
    for face in (5, 3, 1, 6, 3):
        page.click(f"#faces button[data-face='{face}']")
    for cat in ("ones", "twos", "chance"):
        page.check(f"input.filled[data-cat='{cat}']")
    page.fill("#field-rerolls", "1")
    page.fill("#field-upper", "5")
    page.fill("#field-score", "27")
    want_position = "dice 1 3 3 5 6 | rerolls 1 | filled ones twos chance | upper 5 | score 27"
    wait_position(page, want_position)
    row = best_row(page)
    want = api(live_server, "/api/advice", {"game": "yatzy", "position": want_position})
    best = want["actions"][0]
    assert (row["action"], row["value"], row["regret"]) == (best["action"], best["value"], 0.0)
    assert "best" in row["class"] and row["shown"] == f"{best['value']:.4f}"
    listed = page.locator("#advice tbody tr").evaluate_all(
        "rows => rows.map(r => [r.dataset.action, +r.dataset.value, +r.dataset.regret])"
    )
    assert listed == [[a["action"], a["value"], a["regret"]] for a in want["actions"]]
    # the sheet shows what the dice score in each open box: 1 3 3 5 6
    page.wait_for_function(
        "() => document.querySelector(\"#editor-sheet td.points[data-cat='threes']\")"
        ".textContent === '6'"
    )
    points = dict(
        page.locator("#editor-sheet td.points").evaluate_all(
            "cs => cs.map(c => [c.dataset.cat, c.textContent])"
        )
    )
    assert points["sixes"] == "6" and points["one_pair"] == "6" and points["yatzy"] == "0"
    assert points["small_straight"] == "0" and points["ones"] == "✓"
    # the # column does not wrap at phone width (rows 10 and over), even a small phone's
    page.set_viewport_size({"width": 320, "height": 800})
    one_line = page.evaluate(
        """() => [...document.querySelectorAll('#advice tbody td.rank')].every(td => {
             const r = document.createRange(); r.selectNodeContents(td);
             return r.getClientRects().length === 1; })"""
    )
    assert one_line and page.locator("#advice tbody tr").count() >= 10
    assert no_horizontal_scroll(page)
    page.screenshot(path=str(artifacts_dir / "web-yatzy-advice.png"), full_page=True)


def test_yatzy_typed_position_updates_dice_and_sheet(page, live_server):
    open_game(page, live_server, "yatzy")
    typed = "dice 6 2 5 2 4 | rerolls 0 | filled chance ones | upper 2 | score 20"
    page.fill("#position", typed)
    page.press("#position", "Enter")
    canonical = "dice 2 2 4 5 6 | rerolls 0 | filled ones chance | upper 2 | score 20"
    wait_position(page, canonical)
    assert page.locator("#dice button.die").all_inner_texts() == ["2", "2", "4", "5", "6"]
    checked = page.locator("input.filled").evaluate_all(
        "bs => bs.filter(b => b.checked).map(b => b.dataset.cat)"
    )
    assert checked == ["ones", "chance"]
    assert page.input_value("#field-rerolls") == "0"
    assert page.input_value("#field-upper") == "2"
    assert page.input_value("#field-score") == "20"
    # an error in a tall editor shows beside the field, where the user is looking
    page.fill("#position", "dice 2 2 4 5 7 | rerolls 0 | filled - | upper 0 | score 0")
    page.press("#position", "Enter")
    page.locator("#advise-message").wait_for(state="visible")
    assert in_viewport(page, "#advise-message") and below(page, "#position-form", "#advise-message")
    assert not in_viewport(page, "header")  # the top of the page is scrolled away


def test_yatzy_play_whole_game(page, live_server, artifacts_dir):
    open_game(page, live_server, "yatzy")
    sheets_checked = []

    def choose(options, turn):
        # The sheet shows, for every open box, what the dice on screen would score there.
        if turn < 6:
            sheets_checked.append(check_play_sheet(page, live_server))
        # Mostly the best action; every seventh decision the worst, so costs show.
        return options[-1 if turn % 7 == 3 else 0]["action"]

    result = play_to_the_end(page, live_server, "yatzy", seed=2024, choose=choose, max_decisions=50)
    decisions = result["decisions"]
    scored = [d["action"] for d in decisions if d["action"].startswith("score ")]
    assert len(scored) == 15 and len(set(scored)) == 15  # 15 rounds, each category once
    assert sum(d["regret"] for d in decisions) > 0
    assert any(sheets_checked)
    check_log(page, decisions)
    last = decisions[-1]
    options = api(live_server, "/api/advice", {"game": "yatzy", "position": last["position"]})
    last_value = next(o["value"] for o in options["actions"] if o["action"] == last["action"])
    final = float(page.locator("#final-result").inner_text().split(":")[1].strip(" ."))
    assert final == pytest.approx(last_value, abs=1e-3)
    assert no_horizontal_scroll(page)
    page.screenshot(path=str(artifacts_dir / "web-yatzy-play.png"), full_page=True)


def check_play_sheet(page, base: str) -> bool:
    """The play sheet's points are what each open box's action writes there: the change
    of the score, for an upper box the change of the upper total (without the bonus)."""
    position = page.locator("#play-position").get_attribute("data-position")
    advice = api(base, "/api/advice", {"game": "yatzy", "position": position})
    writes = [a["action"] for a in advice["actions"] if a["action"].startswith("score ")]
    if not writes:
        return False
    outcomes = api(
        base, "/api/preview", {"game": "yatzy", "position": position, "actions": writes}
    )["outcomes"]
    before = advice["position_json"]
    upper = set(page.evaluate("() => variant().sheet.upper"))

    def points(cat: str, after: dict) -> str:
        key = "upper" if cat in upper else "score"
        return str(after[key] - before[key])

    want = {
        o["action"].split()[1]: points(o["action"].split()[1], o["position_json"]) for o in outcomes
    }
    page.wait_for_function(
        "w => Object.entries(w).every(([c, p]) => { const td = document.querySelector("
        "`#play-sheet td.points[data-cat='${c}']`); return td && td.textContent === p; })",
        arg=want,
    )
    return True


# --- a two-player plug-in game: generic board, the optimal opponent, events ----------------


def test_plug_in_two_player_game_against_the_optimal_player(page, live_server, artifacts_dir):
    open_game(page, live_server, "race")
    # the generic editor: an input per field of the position's JSON form
    page.fill("#field-me", "3")
    position = "me 3 | opponent 1 | player 0"
    wait_position(page, position)
    row = best_row(page)
    want = api(live_server, "/api/advice", {"game": "race", "position": position})
    assert (row["action"], row["value"]) == (
        want["actions"][0]["action"],
        want["actions"][0]["value"],
    )
    assert "probability" in page.locator("#units").inner_text()

    def choose(options, turn):
        return options[-1 if turn == 1 else 0]["action"]  # one mistake

    result = play_to_the_end(page, live_server, "race", seed=7, choose=choose, max_decisions=40)
    check_log(page, result["decisions"])
    assert "win" in result["summary"]
    # the opponent's moves are played by the page (to_move from the API) and logged
    assert page.locator("#play-log tbody tr.opp").count() >= 1
    events = page.locator("#play-events li").all_inner_texts()
    assert events and any("reached" in e for e in events)
    assert no_horizontal_scroll(page)
    page.screenshot(path=str(artifacts_dir / "web-race-play.png"), full_page=True)


def test_play_events_say_which_roll_ended_the_turn(page, live_server):
    open_game(page, live_server, "race")
    page.click("#mode-play")
    for seed in range(40):
        page.fill("#seed", str(seed))
        page.click("#new-game")
        page.wait_for_selector("#play-options button.option[data-action='dash']")
        page.click("#play-options button.option[data-action='dash']")
        page.wait_for_function("() => document.querySelectorAll('#play-events li').length > 0")
        events = page.locator("#play-events li").all_inner_texts()
        if events[0].startswith("rolled a 1"):
            assert events[0] == "rolled a 1: no points, the turn ends"
            page.wait_for_function("() => document.querySelectorAll('#play-events li').length > 1")
            assert page.locator("#play-events li").nth(1).inner_text().startswith("opponent: ")
            return
    pytest.fail("no seed rolled a 1")


def test_play_error_shows_beside_the_action(page, live_server):
    open_game(page, live_server, "race")
    page.click("#mode-play")
    page.wait_for_selector("#play-options button.option")
    page.fill("#play-action", "jump")
    page.press("#play-action", "Enter")
    message = page.locator("#play-message")
    message.wait_for(state="visible")
    assert "jump" in message.inner_text()
    assert below(page, "#play-form", "#play-message") and in_viewport(page, "#play-message")
    # a typed legal action is played and graded
    page.fill("#play-action", "step")
    page.press("#play-action", "Enter")
    page.wait_for_function("() => document.querySelectorAll('#play-log tr.mine').length === 1")
    assert page.locator("#play-message").is_hidden()


# --- Maxi Yatzy: six dice, up to 20 categories ------------------------------------------------


def sheet_points(page, where: str = "#editor-sheet") -> dict[str, str]:
    """Category -> the points cell of the sheet."""
    return dict(
        page.locator(f"{where} td.points").evaluate_all(
            "cs => cs.map(c => [c.dataset.cat, c.textContent])"
        )
    )


def test_maxi_six_dice_by_clicking_matches_api(maxi_page, maxi_server, artifacts_dir):
    page, base = maxi_page, maxi_server
    open_game(page, base, "yatzy")
    page.select_option("#variant", MAXI_MINI_ID)
    page.wait_for_function("() => document.querySelectorAll('#dice button.die').length === 6")
    page.click("#clear-dice")
    for face in (3, 1, 6, 3, 6, 1):
        page.click(f"#faces button[data-face='{face}']")
    page.check("input.filled[data-cat='ones']")
    page.fill("#field-upper", "2")
    page.fill("#field-score", "2")
    want_position = "dice 1 1 3 3 6 6 | rerolls 2 | filled ones | upper 2 | score 2"
    wait_position(page, want_position)
    row = best_row(page)
    body = {"game": "yatzy", "variant": MAXI_MINI_ID, "position": want_position}
    want = api(base, "/api/advice", body)
    best = want["actions"][0]
    assert (row["action"], row["value"], row["regret"]) == (best["action"], best["value"], 0.0)
    listed = page.locator("#advice tbody tr").evaluate_all(
        "rows => rows.map(r => [r.dataset.action, +r.dataset.value, +r.dataset.regret])"
    )
    assert listed == [[a["action"], a["value"], a["regret"]] for a in want["actions"]]
    # one sheet row per category of the variant; open rows show what these six dice score
    cats = page.locator("#editor-sheet tr[data-cat]").evaluate_all(
        "rs => rs.map(r => r.dataset.cat)"
    )
    assert cats == list(MAXI_MINI.categories)
    page.wait_for_function(
        "() => document.querySelector(\"#editor-sheet td.points[data-cat='three_pairs']\")"
        ".textContent === '20'"
    )
    assert sheet_points(page) == {
        "ones": "✓",
        "sixes": "12",  # the box's own points; its 50 bonus shows in the bonus row only
        "three_pairs": "20",
        "full_straight": "0",
        "castle": "0",
        "maxi_yatzy": "0",
    }
    for width in (420, 320):
        page.set_viewport_size({"width": width, "height": 900})
        assert no_horizontal_scroll(page), width
    page.set_viewport_size({"width": 420, "height": 900})
    page.screenshot(path=str(artifacts_dir / "web-maxi-advice.png"), full_page=True)


def test_maxi_play_whole_game(maxi_page, maxi_server, artifacts_dir):
    page, base = maxi_page, maxi_server
    open_game(page, base, "yatzy")
    page.select_option("#variant", MAXI_MINI_ID)
    shown = []

    def choose(options, turn):
        shown.append(len(page_actions(page)[1]))  # the dice on the board
        return options[-1 if turn % 5 == 2 else 0]["action"]  # now and then the worst

    result = play_to_the_end(page, base, "yatzy", seed=11, choose=choose, max_decisions=40)
    decisions = result["decisions"]
    assert set(shown) == {6}
    scored = [d["action"].split()[1] for d in decisions if d["action"].startswith("score ")]
    assert sorted(scored) == sorted(MAXI_MINI.categories)  # one round per category
    assert any(d["action"].startswith("keep ") for d in decisions)  # dice held and rerolled
    check_log(page, decisions)
    last = decisions[-1]
    body = {"game": "yatzy", "variant": MAXI_MINI_ID, "position": last["position"]}
    options = api(base, "/api/advice", body)["actions"]
    last_value = next(o["value"] for o in options if o["action"] == last["action"])
    final = float(page.locator("#final-result").inner_text().split(":")[1].strip(" ."))
    assert final == pytest.approx(last_value, abs=1e-3)
    page.set_viewport_size({"width": 320, "height": 900})
    assert no_horizontal_scroll(page)
    page.set_viewport_size({"width": 420, "height": 900})
    page.screenshot(path=str(artifacts_dir / "web-maxi-play.png"), full_page=True)


def stub_full_maxi_advice(page) -> None:
    """Answer /api/advice for the full Maxi variant in the test (every open box written, made
    up values) and refuse its /api/distribution: its table is too big to solve here (an
    unstubbed request starts a solve on the server). The other requests go to the server."""
    spec = get_game("yatzy")
    rules = spec.rules("maxi")

    def answer(route, request):
        body = request.post_data_json
        if body.get("variant") != "maxi":
            route.continue_()
            return
        try:
            pos = spec.parse(rules, body["position"])
        except InputError as exc:
            route.fulfill(status=400, json={"error": str(exc)})
            return
        open_boxes = [c for c in rules.rules.categories if c not in pos.filled]
        actions = [
            {"action": f"score {c}", "value": 300.0 - i, "regret": float(i)}
            for i, c in enumerate(open_boxes)
        ]
        route.fulfill(
            json={
                "actions": actions,
                "value_is": "made up by the test",
                "position": spec.format(rules, pos),
                "position_json": spec.to_json(rules, pos),
            }
        )

    def refuse(route, request):
        if request.post_data_json.get("variant") != "maxi":
            route.continue_()
            return
        route.fulfill(status=409, json={"error": "not solved in the test"})

    page.route("**/api/advice", answer)
    page.route("**/api/distribution", refuse)


def test_full_maxi_six_dice_and_twenty_boxes_fit_a_phone(maxi_page, maxi_server):
    page = maxi_page
    stub_full_maxi_advice(page)
    open_game(page, maxi_server, "yatzy")
    page.select_option("#variant", "maxi")
    page.wait_for_function("() => document.querySelectorAll('#dice button.die').length === 6")
    page.click("#clear-dice")
    for face in (6, 5, 4, 3, 2, 1):
        page.click(f"#faces button[data-face='{face}']")
    wait_position(page, "dice 1 2 3 4 5 6 | rerolls 2 | filled - | upper 0 | score 0")
    rows = page.locator("#editor-sheet tr[data-cat]").evaluate_all(
        "rs => rs.map(r => r.dataset.cat)"
    )
    assert rows == list(get_game("yatzy").rules("maxi").rules.categories) and len(rows) == 20
    # the points come from the server's /api/preview (no table needed): 1 2 3 4 5 6
    page.wait_for_function(
        "() => document.querySelector(\"#editor-sheet td.points[data-cat='full_straight']\")"
        ".textContent === '21'"
    )
    points = sheet_points(page)
    assert (points["small_straight"], points["large_straight"], points["chance"]) == (
        "15",
        "20",
        "21",
    )
    assert page.locator("#advice tbody tr").count() == 20
    fields = page.locator("#editor .fields input").evaluate_all("es => es.map(e => e.id)")
    assert fields == ["field-rerolls", "field-upper", "field-score"]  # no Yahtzee bonus
    for width in (420, 320):
        page.set_viewport_size({"width": width, "height": 900})
        assert no_horizontal_scroll(page), width
    # play mode: six dice to hold and a sheet of 20 boxes to write in
    page.click("#mode-play")
    page.fill("#seed", "1")
    page.click("#new-game")
    page.wait_for_function(
        "() => document.querySelectorAll('#play-sheet button.option').length === 20"
    )
    assert page.locator("#play-dice button.die").count() == 6
    assert page.locator("#play-sheet tr[data-cat]").count() == 20
    assert no_horizontal_scroll(page)
    # nothing asked the server for the full Maxi table (no solve started)
    assert "yatzy/maxi" not in httpx.get(f"{maxi_server}/api/health").json()["tables"]


# --- Yatzy played to win: the distribution chart, a target, an opponent, the computer --------
# The forced-order variant: its target tables and distributions are small.

FORCED = {"game": "yatzy", "variant": "scandinavian-forced"}
MID = "dice 1 3 3 5 6 | rerolls 2 | filled ones twos threes | upper 9 | score 9"


def advice_rows(page) -> list[list]:
    """The advice table's rows: action, value, regret, expected."""
    return page.locator("#advice tbody tr").evaluate_all(
        "rows => rows.map(r => [r.dataset.action, +r.dataset.value, +r.dataset.regret, "
        "r.dataset.expected === undefined ? null : +r.dataset.expected])"
    )


def wait_options(page, options: dict) -> None:
    """Wait until the advice table shows the answer for these advice options."""
    page.wait_for_function(
        "o => document.querySelector('#advice').dataset.options === o && "
        "!document.querySelector('#advice').hasAttribute('aria-busy')",
        arg=json.dumps(options, separators=(",", ":")),
    )


def test_yatzy_distribution_target_and_opponent(page, live_server, artifacts_dir):
    page.set_viewport_size({"width": 390, "height": 900})
    open_game(page, live_server, "yatzy")
    page.select_option("#variant", "scandinavian-forced")
    page.fill("#position", MID)
    page.press("#position", "Enter")
    wait_position(page, MID)
    best_row(page)
    # the chart of the final score from this position: the API's distribution
    page.wait_for_function(
        "p => document.querySelector('#distribution-chart').dataset.position === p", arg=MID
    )
    dist = api(live_server, "/api/distribution", {**FORCED, "position": MID})
    chart = page.locator("#distribution-chart")
    assert float(chart.get_attribute("data-mean")) == pytest.approx(dist["mean"], abs=1e-9)
    assert page.locator("#distribution-chart svg path.bars").count() == 1
    summary = page.locator("#distribution-summary").inner_text()
    assert f"median {dist['median']}" in summary and f"mean {dist['mean']:.2f}" in summary
    # a target: P(final score >= 150) per action, the expected score beside
    page.fill("#option-target", "150")
    wait_options(page, {"target": 150})
    want = api(live_server, "/api/advice", {**FORCED, "position": MID, "target": 150})
    rows = advice_rows(page)
    assert rows == [[a["action"], a["value"], a["regret"], a["expected"]] for a in want["actions"]]
    assert all(0 <= r[1] <= 1 for r in rows)
    assert page.locator("#advice th.expected").is_visible()
    assert "at least 150" in page.locator("#units").inner_text()
    page.wait_for_function("() => document.querySelector('#distribution-chart').dataset.target")
    reach = float(chart.get_attribute("data-reach"))
    assert reach == pytest.approx(sum(dist["pmf"][150:]), abs=1e-9)
    assert page.locator("#distribution-chart svg path.bars.hit").count() == 1
    assert no_horizontal_scroll(page)
    page.screenshot(path=str(artifacts_dir / "web-yatzy-target.png"), full_page=True)
    # a target out of range: the error beside the target field
    page.fill("#option-target", "-1")
    message = page.locator("#option-target-message")
    message.wait_for(state="visible")
    assert "between 0 and 374" in message.inner_text()
    assert in_viewport(page, "#option-target-message")
    assert page.locator("#advise-message").is_hidden()
    page.fill("#option-target", "")
    wait_options(page, {})
    # an opponent: their sheet and score give P(win) per action
    page.click("#opponent-panel summary")
    for cat in ("ones", "twos", "threes"):
        page.check(f"input.opp-filled[data-cat='{cat}']")
    page.fill("#opponent-upper", "7")
    page.fill("#opponent-score", "7")
    page.select_option("#option-opponent_plays", "win")
    page.check("#opponent-on")
    opponent = {"filled": ["ones", "twos", "threes"], "upper": 7, "score": 7}
    options = {"opponent_plays": "win", "opponent": opponent}
    wait_options(page, options)
    want = api(live_server, "/api/advice", {**FORCED, "position": MID, **options})
    assert advice_rows(page) == [
        [a["action"], a["value"], a["regret"], a["expected"]] for a in want["actions"]
    ]
    assert "winning" in page.locator("#units").inner_text()
    assert no_horizontal_scroll(page)
    page.screenshot(path=str(artifacts_dir / "web-yatzy-opponent.png"), full_page=True)
    # a score that cannot fit their sheet: the error in the opponent panel
    page.fill("#opponent-score", "2")
    message = page.locator("#option-opponent-message")
    message.wait_for(state="visible")
    assert "score 2" in message.inner_text() and in_viewport(page, "#option-opponent-message")
    assert page.locator("#advice tbody tr").count() == 0


def test_yatzy_play_against_the_computer(page, live_server, artifacts_dir):
    page.set_viewport_size({"width": 390, "height": 900})
    open_game(page, live_server, "yatzy")
    page.select_option("#variant", "scandinavian-forced")
    page.click("#mode-play")
    page.select_option("#versus", "win")
    page.fill("#seed", "4")
    page.click("#new-game")
    # the page's game is the API's with the same seeds: 4 for the first roll, then 5, 6, ...
    data = api(live_server, "/api/duel/new", {**FORCED, "strategy": "win", "seed": 4})
    estimate = page.locator("#win-estimate")
    last = data["win_probability"]  # the estimate of the start of the current turn
    for turn in range(16):
        page.wait_for_function(
            f"() => document.querySelector('#play-options').dataset.turn === '{turn}' && "
            "document.querySelectorAll('#play-sheet button.option').length > 0"
        )
        shown = page.locator("#play-dice button.die").evaluate_all(
            "ds => ds.map(d => +d.dataset.value)"
        )
        assert shown == data["you"]["dice"]
        assert page.locator("#play-position").get_attribute("data-position") == data["state"]["you"]
        turns = len(data["you"]["filled"]) + 1
        page.wait_for_selector(f"#win-estimate[data-turns='{turns}']")
        # the second hint: the best move to beat the computer, under the best move
        page.wait_for_selector("#best-move #win-hint[data-same]")
        last = last if data["win_probability"] is None else data["win_probability"]
        assert float(estimate.get_attribute("data-value")) == pytest.approx(last, abs=1e-12)
        if turn == 0:  # a reroll of every die first, then write the dice (forced order)
            action = "keep -"
            page.click("#reroll")
        else:
            action = page.locator("#play-sheet button.option").first.get_attribute("data-action")
            page.click("#play-sheet button.option")
        body = {**FORCED, "state": data["state"], "action": action, "seed": 5 + turn}
        data = api(live_server, "/api/duel/apply", body)
        if turn == 3:  # mid-game: both sheets, the computer's moves, the estimate
            page.wait_for_selector("#win-estimate[data-turns='4']")
            assert page.locator("#computer-sheet tr.filled").count() == 3
            moves = page.locator("#computer-moves li").all_inner_texts()
            assert moves == [m["action"] for m in data["computer_moves"]]
            assert page.locator("#play-log tbody tr.opp").count() == 3
            assert "%" in estimate.inner_text()
            assert "exact for this model" in estimate.text_content()  # (the small print)
            assert no_horizontal_scroll(page)
            page.screenshot(path=str(artifacts_dir / "web-yatzy-duel.png"), full_page=True)
            # a typed action that is not legal: the error beside the action field
            page.fill("#play-action", "score chance")
            page.press("#play-action", "Enter")
            page.locator("#play-message").wait_for(state="visible")
            assert "chance" in page.locator("#play-message").inner_text()
        if data["game_over"]:
            break
    assert data["game_over"]
    summary = page.locator("#play-summary")
    summary.wait_for(state="visible")
    mine, theirs = data["you"]["score"], data["computer"]["score"]
    words = {1.0: "You win", 0.5: "A draw", 0.0: "The computer wins"}[data["result"]]
    assert page.locator("#final-result").inner_text().startswith(words)
    assert str(mine) in summary.inner_text() and str(theirs) in summary.inner_text()
    assert page.locator("#computer-sheet tr.filled").count() == 15
    assert page.locator("#play-log tbody tr.opp").count() == 15
    assert no_horizontal_scroll(page)
    page.screenshot(path=str(artifacts_dir / "web-yatzy-duel-end.png"), full_page=True)


def test_against_the_computer_both_hints_where_they_differ_on_a_phone(
    page, live_server, artifacts_dir
):
    page.set_viewport_size({"width": 390, "height": 844})
    query = urlencode(
        {**FORCED, "mode": "play", "pos": BEHIND, "vs": "expected", "computer": AHEAD_OF_ME}
    )
    page.goto(f"{live_server}/#{query}")
    page.wait_for_selector("body[data-ready='true']")
    hint = page.locator("#win-hint")
    page.wait_for_selector("#best-move #win-hint[data-same='false']")
    plain = api(live_server, "/api/advice", {**FORCED, "position": BEHIND})["actions"]
    to_win = api(
        live_server,
        "/api/advice",
        {**FORCED, "position": BEHIND, "opponent": AHEAD_OF_ME, "opponent_plays": "expected"},
    )["actions"]
    assert page.locator("#play-best").get_attribute("data-action") == plain[0]["action"]
    assert hint.get_attribute("data-action") == to_win[0]["action"] == "keep 5 5 6"
    same = next(a for a in to_win if a["action"] == plain[0]["action"])
    gain = to_win[0]["value"] - same["value"]
    cost = plain[0]["value"] - to_win[0]["expected"]
    assert float(hint.get_attribute("data-gain")) == pytest.approx(gain, abs=1e-12)
    assert float(hint.get_attribute("data-cost")) == pytest.approx(cost, abs=1e-9)
    text = hint.inner_text()
    assert "keep 5 5 6" in text and f"{100 * to_win[0]['value']:.1f}%" in text, text
    assert f"+{100 * gain:.1f}%" in text and f"−{cost:.2f} pts" in text, text
    # the first screen still holds the dice, the best move, the hint and the sheet's box
    page.evaluate("() => window.scrollTo(0, 0)")
    for sel in ("#play-dice", "#play-best", "#win-hint", "#play-sheet tr[data-cat]"):
        assert in_viewport(page, sel), sel
    assert no_horizontal_scroll(page)
    page.screenshot(path=str(artifacts_dir / "web-yatzy-two-hints.png"))
    # the move for the score played: the next decision gets its own second hint
    page.click("#play-best")
    page.wait_for_function(
        """before => document.querySelector('#play-position').dataset.position !== before
                     && document.querySelector('#best-move #win-hint[data-same]')""",
        arg=BEHIND,
    )
    assert in_viewport(page, "#win-hint")


# Records, from the page's first script on, every message box (class "message": errors)
# shown with text and every time the build panel comes into view.
WATCH_THE_WAIT = """
window.__messages = []; window.__panelShown = 0; let panelSeen = false;
new MutationObserver(() => {
  for (const m of document.querySelectorAll('.message')) {
    if (!m.hidden && m.textContent.trim()) window.__messages.push(m.id + ': ' + m.textContent);
  }
  const panel = document.querySelector('#build-panel');
  const seen = !!panel && !panel.hidden;
  if (seen && !panelSeen) window.__panelShown += 1;
  panelSeen = seen;
}).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
"""


@contextmanager
def watched_page(browser) -> Iterator[tuple[Any, dict[str, list]]]:
    """A fresh page (phone width) whose console messages, page errors and HTTP answers are
    kept (``seen``: "console", "responses"), with WATCH_THE_WAIT installed."""
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.set_default_timeout(60_000)
    seen: dict[str, list] = {"console": [], "responses": []}
    page.on("console", lambda m: seen["console"].append(f"{m.type}: {m.text}"))
    page.on("pageerror", lambda exc: seen["console"].append(f"pageerror: {exc}"))
    page.on("response", lambda r: seen["responses"].append((r.status, r.url)))
    page.add_init_script(WATCH_THE_WAIT)
    try:
        yield page, seen
    finally:
        context.close()


def assert_a_calm_wait(page, seen: dict[str, list]) -> None:
    """No error box was shown, nothing was logged as an error, no answer was an error (no
    503), the page waited with 202 answers and polled the build's status."""
    assert page.evaluate("window.__messages") == []
    assert not [c for c in seen["console"] if c.startswith(("error", "pageerror"))], seen
    statuses = [status for status, _ in seen["responses"]]
    assert not [r for r in seen["responses"] if r[0] >= 400], seen["responses"]
    assert 202 in statuses
    assert any(s == 200 and "/api/tables/status/" in url for s, url in seen["responses"])


def test_the_page_waits_for_a_table_in_one_calm_panel(browser, tmp_path, artifacts_dir):
    from conftest import serve
    from web_games import GatedSpec

    from diceopt.tables import TableStore
    from diceopt.web.routes import create_app

    spec = GatedSpec(tmp_path, sliced=True)  # the build moves one slice as the test says
    store = TableStore()
    # the server would wait ten minutes: the page asks for an answer within 2 s
    app = create_app(warm=False, games=[spec, "stick"], table_wait=600, store=store)
    with serve(app) as base, watched_page(browser) as (page, seen):
        page.goto(f"{base}/#gated")
        panel = page.locator("#build-panel")
        panel.wait_for(state="visible")
        assert panel.locator(".build-title").inner_text() == "Building the gated table"
        page.wait_for_function("() => document.querySelector('#build-panel').dataset.fraction")
        assert float(panel.get_attribute("data-fraction")) == 0.0  # the first step begins
        # one slice of the first of four steps: the panel's percentage moves
        spec.slices.release()
        page.wait_for_function(
            "() => Number(document.querySelector('#build-panel').dataset.fraction) > 0"
        )
        fraction = float(panel.get_attribute("data-fraction"))
        assert 0 < fraction < 0.25
        numbers = panel.locator(".build-numbers").inner_text()
        assert f"{100 * fraction:.1f}%" in numbers and "left" in numbers, numbers
        assert panel.get_attribute("data-stage") == "building"
        assert page.locator("p.message:visible").count() == 0
        page.screenshot(path=str(artifacts_dir / "web-build-panel.png"))
        # advice that needs no table goes on meanwhile
        page.click("#games button[data-game='stick']")
        page.wait_for_selector("#advice tbody tr[data-action]")
        assert panel.is_visible()
        page.click("#games button[data-game='gated']")  # asked again: the same build
        page.wait_for_function(
            "() => document.querySelector('#build-panel').dataset.stage === 'building'"
        )
        spec.slices.release(4 * 8)  # the rest of the build: the advice comes by itself
        page.wait_for_selector("#advice tbody tr[data-action='a']")
        assert page.locator("#advice tbody tr").first.get_attribute("data-value") == "3.5"
        panel.wait_for(state="hidden")
        assert page.evaluate("window.__panelShown") == 1  # shown once for the whole wait
        assert_a_calm_wait(page, seen)
    assert spec.builds == 1


def test_playing_the_computer_under_a_new_rule_file_waits_for_its_tables(
    browser, tmp_path, monkeypatch
):
    from conftest import serve

    from diceopt.tables import TableStore
    from diceopt.web.routes import create_app

    # a rule file whose tables no process has (a cache of its own): the first move against
    # the computer needs its expected-score table, its target rows and its first turns'
    # distributions, each built on request; the server answers 202 at once
    monkeypatch.setenv("DICEOPT_CACHE", str(tmp_path))
    rules = TINY_RULES.replace('name = "tiny"', 'name = "tiny-wait"').replace("25", "27")
    app = create_app(warm=False, games=["yatzy"], table_wait=0, store=TableStore())
    with serve(app) as base, watched_page(browser) as (page, seen):
        page.set_default_timeout(300_000)  # on a cold numba cache the kernels compile first
        open_game(page, base, "yatzy")
        page.click("#rules-box summary")
        page.fill("#rules-text", rules)
        page.click("#rules-use")
        page.wait_for_function("() => document.querySelector('#variant').value.startsWith('file:')")
        page.click("#mode-play")
        page.select_option("#versus", "win")
        page.fill("#seed", "3")
        page.click("#new-game")
        wait_turn(page, 0)  # the game goes on once its tables are ready
        page.wait_for_selector("#play-best")
        page.locator("#build-panel").wait_for(state="hidden")
        assert page.evaluate("window.__panelShown") >= 1
        page.click("#play-best")
        wait_turn(page, 1)
        assert_a_calm_wait(page, seen)


# --- a companion at the table: dice entered, undo and redo, reload, URL, phone ----------------


def play_state(page) -> dict:
    """The position on the board, the decisions made and whether the game is over."""
    return page.evaluate(
        """() => ({ position: document.querySelector('#play-position').dataset.position,
                    turn: document.querySelector('#play-options').dataset.turn,
                    over: !document.querySelector('#play-summary').hidden })"""
    )


def wait_turn(page, turn: int) -> None:
    """Wait until ``turn`` decisions are made and the next one is offered (or it is over)."""
    page.wait_for_function(
        f"() => document.querySelector('#play-options').dataset.turn === '{turn}' && "
        "(document.querySelector('#play-best') || "
        "!document.querySelector('#play-summary').hidden)"
    )


def test_yatzy_against_the_computer_at_the_table(browser, maxi_server, artifacts_dir):
    base = maxi_server
    from conftest import new_page

    with new_page(browser) as page:
        page.set_viewport_size({"width": 390, "height": 844})
        open_game(page, base, "yatzy")
        page.select_option("#variant", MAXI_MINI_ID)
        page.click("#mode-play")
        page.select_option("#versus", "win")
        page.fill("#seed", "3")
        page.click("#new-game")
        wait_turn(page, 0)
        # at phone size the dice, the best move and the sheet's best box are on the first screen
        for sel in ("#play-dice", "#play-best", "#play-sheet button.option"):
            assert in_viewport(page, sel), sel
        # the best hold is marked on the dice
        best = page.locator("#best-move").get_attribute("data-action")
        if best.startswith("keep "):
            marked = page.locator("#play-dice button.die.best").evaluate_all(
                "ds => ds.map(d => +d.dataset.value)"
            )
            kept = [] if best == "keep -" else [float(w) for w in best.split()[1:]]
            assert sorted(marked) == sorted(kept)
        # the real dice, typed: 112233 (six dice)
        page.locator("body").click(position={"x": 5, "y": 300})
        page.keyboard.type("1125")
        page.keyboard.press("Backspace")  # a typo corrected
        page.keyboard.type("233")
        page.wait_for_function(
            "() => document.querySelector('#play-position').dataset.position"
            ".startsWith('dice 1 1 2 2 3 3 ')"
        )
        entered = play_state(page)["position"]
        want = api(
            base, "/api/advice", {"game": "yatzy", "variant": MAXI_MINI_ID, "position": entered}
        )
        page.wait_for_selector(f"#best-move[data-action='{want['actions'][0]['action']}']")
        # a step, undone and redone
        page.click("#play-best")
        wait_turn(page, 1)
        after = play_state(page)["position"]
        assert after != entered
        page.click("#undo")
        wait_turn(page, 0)
        assert play_state(page)["position"] == entered
        page.click("#redo")
        wait_turn(page, 1)
        assert play_state(page)["position"] == after
        # advise and play share one position: switching keeps the game
        page.click("#mode-advise")
        wait_position(page, after)
        page.wait_for_selector("#advise-best[data-action]:not([data-action=''])")
        page.click("#mode-play")
        wait_turn(page, 1)
        assert play_state(page)["position"] == after
        # a reload keeps the game
        page.reload()
        page.wait_for_selector("body[data-ready='true']")
        wait_turn(page, 1)
        assert play_state(page)["position"] == after
        assert page.locator("#play-log tbody tr.mine").count() == 1
        # the URL opens the same position on another device (once the computer has played)
        turn = 1
        while page.locator("#computer-sheet tr.filled").count() == 0:
            page.click("#play-best")
            turn += 1
            wait_turn(page, turn)
        after = play_state(page)["position"]
        url = page.evaluate("() => location.href")
        assert "pos=" in url
        with new_page(browser) as other:
            other.goto(url)
            other.wait_for_selector("body[data-ready='true']")
            wait_turn(other, 0)
            assert play_state(other)["position"] == after
            assert other.locator("#computer-box").is_visible()
            # the computer's sheet from the URL: its filled boxes
            theirs = page.locator("#computer-sheet tr.filled").count()
            assert theirs > 0
            assert other.locator("#computer-sheet tr.filled").count() == theirs
        page.screenshot(path=str(artifacts_dir / "web-table-phone.png"))
        # the rest of the game: the best move each time, until the end
        for n in range(turn, 40):
            wait_turn(page, n)
            if play_state(page)["over"]:
                break
            page.click("#play-best")
        else:
            pytest.fail("the game did not end")
        assert page.locator("#final-result").inner_text()
        # the review: expected start + luck - cost = result, exactly
        review = page.locator("#review")
        page.wait_for_function("() => document.querySelector('#review').dataset.result")
        parts = {
            k: float(review.get_attribute(f"data-{k}"))
            for k in ("expected-start", "luck", "cost", "result")
        }
        assert parts["expected-start"] + parts["luck"] - parts["cost"] == pytest.approx(
            parts["result"], abs=1e-6
        )
        assert parts["cost"] == pytest.approx(0, abs=1e-6)  # every move was the best
        assert "luck" in review.inner_text()
        # the chart: a point per decision, the win estimate beside
        chart = page.locator("#game-chart")
        decisions = page.locator("#play-log tbody tr.mine").count()
        assert int(chart.get_attribute("data-points")) == decisions
        assert page.locator("#game-chart svg path.win").count() == 1
        assert no_horizontal_scroll(page)
        page.set_viewport_size({"width": 1280, "height": 800})
        page.screenshot(path=str(artifacts_dir / "web-table-end.png"), full_page=True)


def registered_games_only(page) -> None:
    """The page lists the registered games only: the test plug-in left out of /api/games
    (at phone width its tab would take a third line of tabs that no real page has)."""

    def only_registered(route) -> None:
        response = route.fetch()
        data = response.json()
        data["games"] = [g for g in data["games"] if g["id"] in registered_games()]
        route.fulfill(response=response, json=data)

    page.route("**/api/games", only_registered)


def test_yatzy_phone_first_screen_holds_the_dice_the_best_move_and_the_sheet(page, live_server):
    # the full Scandinavian sheet (15 boxes) at 390x844: every decision of the first
    # rounds shows the dice, the best move and, when writing is best, its box unscrolled,
    # under the tabs of every registered game (two lines of them at this width)
    page.set_viewport_size({"width": 390, "height": 844})
    registered_games_only(page)
    open_game(page, live_server, "yatzy")
    assert page.locator("#games button").count() == len(registered_games())
    # the chosen game's tab is in view (the tabs wrap at this width)
    assert page.evaluate(
        """() => { const nav = document.querySelector('#games');
                   const a = nav.getBoundingClientRect();
                   const b = nav.querySelector('button.on').getBoundingClientRect();
                   return b.left >= a.left - 1 && b.right <= a.right + 1; }"""
    )
    page.click("#mode-play")
    page.fill("#seed", "21")
    page.click("#new-game")
    written = 0
    wait_turn(page, 0)
    # from the keyboard: a die held and released with Enter keeps the focus
    page.focus("#play-dice button.die[data-index='0']")
    for pressed in ("true", "false"):
        page.keyboard.press("Enter")
        focused = page.evaluate(
            "() => [document.activeElement.dataset.index, document.activeElement.ariaPressed]"
        )
        assert focused == ["0", pressed]
    for turn in range(12):
        wait_turn(page, turn)
        page.evaluate("() => window.scrollTo(0, 0)")
        for sel in ("#play-dice", "#play-best", "#play-sheet tr[data-cat]"):
            assert in_viewport(page, sel), (turn, sel)
        best = page.locator("#best-move").get_attribute("data-action")
        if best.startswith("score "):
            cat = best.split()[1]
            assert in_viewport(page, f"#play-sheet button.best[data-action='{best}']"), cat
            written += 1
        # the controls are 44 px or more (touch)
        small = page.evaluate(
            """() => [...document.querySelectorAll('#play-view button')]
                 .filter(b => b.offsetParent && b.getBoundingClientRect().height < 43.5)
                 .map(b => b.id || b.textContent)"""
        )
        assert not small, small
        page.click("#play-best")
    assert written >= 3
    assert no_horizontal_scroll(page)


def test_page_opens_on_the_featured_game_then_on_the_last_used(page, live_server):
    games = httpx.get(f"{live_server}/api/games", timeout=60).json()["games"]
    featured = next(g["id"] for g in games if g["featured"])
    page.goto(f"{live_server}/")
    page.wait_for_selector("body[data-ready='true']")
    page.wait_for_selector(f"#games button.on[data-game='{featured}']")
    other = next(g for g in games if not g["featured"] and len(g["variants"]) > 1)
    page.click(f"#games button[data-game='{other['id']}']")
    page.select_option("#variant", other["variants"][1]["id"])
    page.goto(f"{live_server}/")  # no fragment: the game and variant last used
    page.wait_for_selector("body[data-ready='true']")
    page.wait_for_selector(f"#games button.on[data-game='{other['id']}']")
    assert page.locator("#variant").input_value() == other["variants"][1]["id"]
    # one-player labels: no opponent offered where there is none
    assert "nobody" not in page.locator("#play-view").inner_text().lower()


# --- Zombie Dice ------------------------------------------------------------------------------


def test_zombie_play_draws_the_dice_colours_and_ends(page, live_server, artifacts_dir):
    page.goto(f"{live_server}/#game=zombie&variant=goal-3")
    page.wait_for_selector("body[data-ready='true']")
    page.wait_for_selector("#games button.on[data-game='zombie']")
    # advice on a typed position: roll and bank with each one's win chance
    position = "me 1 | opponent 2 | player 2 | brains 1 | shotguns rr | feet y | aside g"
    page.fill("#position", position)
    page.press("#position", "Enter")
    wait_position(page, position)
    row = best_row(page)
    want = api(
        live_server,
        "/api/advice",
        {"game": "zombie", "variant": "goal-3", "position": position},
    )
    assert (row["action"], row["value"]) == (
        want["actions"][0]["action"],
        want["actions"][0]["value"],
    )
    assert page.locator("#advice tbody tr").count() == 2
    drawn = page.locator("#editor-colour-dice svg.zdie").evaluate_all(
        "ds => ds.map(d => d.getAttribute('aria-label'))"
    )
    assert drawn == ["red shotgun", "red shotgun", "green brain", "yellow footprints"]
    assert no_horizontal_scroll(page)
    page.screenshot(path=str(artifacts_dir / "web-zombie-advice.png"), full_page=True)
    page.click("#mode-play")
    page.fill("#seed", "2")
    page.click("#new-game")
    page.wait_for_selector("#play-options button.option[data-action='roll']")
    page.click("#play-options button.option[data-action='roll']")
    page.wait_for_function(
        "() => (document.querySelector('#play-position').dataset.position || '').includes('rolled')"
    )
    position = page.locator("#play-position").get_attribute("data-position")
    words = position.split("rolled ")[1].split(" | ")[0].split()
    colours = {"g": "green", "y": "yellow", "r": "red"}
    faces = {"b": "brain", "s": "shotgun", "f": "footprints"}
    shown = page.locator("#play-colour-dice .zdice-row svg.zdie").evaluate_all(
        "ds => ds.map(d => d.getAttribute('aria-label'))"
    )
    assert shown == [f"{colours[w[0]]} {faces[w[1]]}" for w in words]
    assert {"roll", "bank"} <= set(
        page.locator("#play-options button.option").evaluate_all(
            "bs => bs.map(b => b.dataset.action)"
        )
    )
    assert no_horizontal_scroll(page)
    page.screenshot(path=str(artifacts_dir / "web-zombie-roll.png"), full_page=True)
    result = play_to_the_end(
        page, live_server, "zombie", seed=5, choose=lambda o, t: o[0]["action"], max_decisions=300
    )
    assert "win" in result["summary"] or "lose" in result["summary"]
    check_log(page, result["decisions"])
    assert no_horizontal_scroll(page)


TINY_RULES = (
    'name = "tiny"\n[bonus]\nthreshold = 6\npoints = 10\n'
    '[categories.threes]\nkind = "face"\nface = 3\n'
    '[categories.full_house]\nkind = "full_house"\nscore = 25\n'
    '[categories.yatzy]\nkind = "yatzy"\nscore = 50\n'
)


def test_yatzy_pasted_rule_file_gives_advice_on_its_sheet(page, live_server):
    open_game(page, live_server, "yatzy")
    page.click("#rules-box summary")
    # a bad file: one line beside the box, the variant unchanged
    page.fill("#rules-text", 'extends = "yacht"\ncolour = "red"\n')
    page.click("#rules-use")
    message = page.locator("#rules-message")
    message.wait_for(state="visible")
    assert "unknown key 'colour'" in message.inner_text()
    assert page.input_value("#variant") == "scandinavian"
    # a reduced three-box game: its sheet and its advice
    page.fill("#rules-text", TINY_RULES)
    page.click("#rules-use")
    page.wait_for_function("() => document.querySelector('#variant').value.startsWith('file:')")
    assert message.is_hidden()
    cats = page.locator("input.filled").evaluate_all("bs => bs.map(b => b.dataset.cat)")
    assert cats == ["threes", "full_house", "yatzy"]
    position = "dice 3 3 3 5 5 | rerolls 0 | score 0"
    page.fill("#position", position)
    page.press("#position", "Enter")
    wait_position(page, "dice 3 3 3 5 5 | rerolls 0 | filled - | upper 0 | score 0")
    best = best_row(page)
    want = api(
        live_server, "/api/advice", {"game": "yatzy", "rules": TINY_RULES, "position": position}
    )
    assert best["action"] == want["actions"][0]["action"]
    assert best["value"] == pytest.approx(want["actions"][0]["value"], abs=1e-9)
    assert want["rules"]["name"] == "tiny"
    # kept across a reload (localStorage), and the variants are one click away
    page.reload()
    page.wait_for_selector("body[data-ready='true']")
    assert page.input_value("#variant").startswith("file:")
    assert page.input_value("#rules-text") == TINY_RULES
    page.click("#rules-box summary")
    page.click("#rules-clear")
    page.wait_for_function("() => document.querySelector('#variant').value === 'scandinavian'")


# --- the numbers on the page: a box's own points, percentages, the expected start -----------

# Sixes to write, 50 in the upper boxes: 30 points in the box reach 80, past the bonus at 63.
SIXES = "dice 6 6 6 6 6 | rerolls 0 | filled ones twos threes fours fives | upper 50 | score 50"
ALL_BUT_TWO = (
    "ones twos threes fours fives sixes one_pair two_pairs three_of_a_kind four_of_a_kind "
    "small_straight large_straight full_house"
)
# Two rounds from the end (chance, then yatzy), 240 points against the computer's 0: a
# certain win.
FAR_AHEAD = f"dice 6 6 6 6 6 | rerolls 0 | filled {ALL_BUT_TWO} | upper 63 | score 240"
FAR_BEHIND = f"filled {ALL_BUT_TWO} | upper 0 | score 0"
# a number written with an exponent, NaN, undefined, Infinity or five decimals or more
ODD_NUMBER = re.compile(r"\d[eE][+-]?\d|NaN|undefined|Infinity|\d\.\d{5,}")


def odd_numbers(page) -> list[str]:
    """Numbers of the play view (its text, the titles of its chart) that read oddly."""
    text = page.evaluate(
        """() => document.querySelector('#play-view').innerText + ' ' +
                 [...document.querySelectorAll('#play-view [title], #play-view title')]
                   .map(e => e.getAttribute('title') || e.textContent).join(' ')"""
    )
    return ODD_NUMBER.findall(text)


def test_yatzy_sheet_shows_the_upper_bonus_once(page, live_server):
    # the box that reaches 63 holds its own points; the bonus shows in the bonus row only
    # and the sum row is the upper sum without it
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{live_server}/#{urlencode({**FORCED, 'mode': 'play', 'pos': SIXES})}")
    page.wait_for_selector("body[data-ready='true']")
    sixes = page.locator("#play-sheet td.points[data-cat='sixes']")
    page.wait_for_function(
        """() => document.querySelector("#play-sheet td.points[data-cat='sixes']")
                 ?.textContent !== '' """
    )
    assert sixes.inner_text() == "30"  # what the dice would write there, before the write
    assert page.locator("#play-sheet-upper").inner_text() == "50/63"
    assert page.locator("#play-sheet-bonus").inner_text() == "needs 13"
    page.click("#play-sheet button.option[data-action='score sixes']")
    wait_turn(page, 1)
    assert page.locator("#play-sheet tr.filled[data-cat='sixes']").count() == 1
    assert sixes.inner_text() == "30"
    assert page.locator("#play-sheet-upper").inner_text() == "80/63"
    assert page.locator("#play-sheet-bonus").inner_text() == "+50"
    assert page.locator("#play-sheet td.total").inner_text() == "130"
    assert page.locator("#play-sheet tr.extra").count() == 0
    assert not odd_numbers(page)


def test_percentages_read_plainly_at_the_end_of_a_big_win(page, live_server, artifacts_dir):
    # one format for every probability: no exponent, 100% for a certain win
    page.set_viewport_size({"width": 390, "height": 844})
    query = urlencode(
        {**FORCED, "mode": "play", "pos": FAR_AHEAD, "vs": "expected", "computer": FAR_BEHIND}
    )
    page.goto(f"{live_server}/#{query}")
    page.wait_for_selector("body[data-ready='true']")
    shown = page.evaluate(
        "() => [1, 1 - 1e-12, 0.99999, 0.9995, 0.999, 0.5, 0.001, 0.0004, 1e-5, 0, -0.02, NaN]"
        ".map(pct)"
    )
    assert shown == [
        "100%", "100%", ">99.9%", ">99.9%", "99.9%", "50.0%", "0.1%", "<0.1%", "<0.1%", "0%",
        "−2.0%", "–",
    ]  # fmt: skip
    page.click("#play-sheet button.option[data-action='score chance']")
    estimate = page.locator("#win-estimate")
    # (the computer's first turn may load or build its table)
    page.wait_for_selector("#win-estimate[data-turns='1']", timeout=240_000)
    assert float(estimate.get_attribute("data-value")) == pytest.approx(1, abs=1e-9)
    assert "your chance of winning: 100%" in estimate.inner_text(), estimate.inner_text()
    page.wait_for_selector("#best-move #win-hint[data-same]")
    assert "100% to win" in page.locator("#win-hint").inner_text()
    assert not odd_numbers(page), odd_numbers(page)
    for n in range(1, 5):
        wait_turn(page, n)
        if play_state(page)["over"]:
            break
        page.click("#play-best")
    else:
        pytest.fail("the game did not end")
    assert page.locator("#final-result").inner_text().startswith("You win")
    page.wait_for_function("() => !document.querySelector('#review').hasAttribute('aria-busy')")
    assert "100%" in estimate.inner_text()
    assert not odd_numbers(page), odd_numbers(page)
    assert no_horizontal_scroll(page)
    page.screenshot(path=str(artifacts_dir / "web-yatzy-big-win.png"), full_page=True)


def test_typed_first_roll_summary_and_review_expect_the_same_start(browser, maxi_server):
    # after dice typed over the first roll, the summary's expected start is the review's:
    # the value from the start of the game, before the first roll, in the same digits
    from conftest import new_page

    with new_page(browser) as page:
        page.set_viewport_size({"width": 390, "height": 844})
        open_game(page, maxi_server, "yatzy")
        page.select_option("#variant", MAXI_MINI_ID)
        page.click("#mode-play")
        page.select_option("#versus", "")
        page.fill("#seed", "5")
        page.click("#new-game")
        wait_turn(page, 0)
        page.fill("#roll-input", "112233")
        page.click("#roll-set")
        page.wait_for_function(
            "() => document.querySelector('#play-position').dataset.position"
            ".startsWith('dice 1 1 2 2 3 3 ')"
        )
        for n in range(0, 40):
            wait_turn(page, n)
            if play_state(page)["over"]:
                break
            # now and then the second best, so that the cost is not 0
            alt = page.locator("#best-move button.alt")
            (alt.first if n % 4 == 1 and alt.count() else page.locator("#play-best")).click()
        else:
            pytest.fail("the game did not end")
        review = page.locator("#review")
        page.wait_for_function("() => document.querySelector('#review').dataset.result")
        parts = {
            k: float(review.get_attribute(f"data-{k}"))
            for k in ("expected-start", "luck", "cost", "result")
        }
        assert parts["expected-start"] + parts["luck"] - parts["cost"] == pytest.approx(
            parts["result"], abs=1e-6
        )
        summary = page.locator("#play-summary")
        page.wait_for_function("() => document.querySelector('#play-summary').dataset.start")
        start = float(summary.get_attribute("data-start"))
        assert start == pytest.approx(parts["expected-start"], abs=1e-12)
        shown = f"{parts['expected-start']:.2f}"
        assert page.locator("#summary-start").inner_text() == shown
        assert page.locator("#review-start").inner_text() == shown
        assert "before the first roll" in summary.inner_text()
        assert "before the first roll" in review.inner_text()
        cost = page.locator("#summary-cost")
        assert float(cost.get_attribute("data-value")) == pytest.approx(parts["cost"], abs=1e-6)
        assert cost.inner_text() == f"{parts['cost']:.2f}"
        assert not odd_numbers(page), odd_numbers(page)
