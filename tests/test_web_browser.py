"""The advisor page in headless Chromium (Playwright, Debian's /usr/bin/chromium).

The real app runs on uvicorn on 127.0.0.1 (fixture ``live_server``); the page is driven
by clicks and its numbers are checked against the JSON API.
"""

from __future__ import annotations

import httpx
import pytest

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx`:UserWarning")


def api(base: str, path: str, body: dict) -> dict:
    """POST to the live server's API; the JSON answer."""
    response = httpx.post(f"{base}{path}", json=body, timeout=120)
    assert response.status_code == 200, response.text
    return response.json()


def open_game(page, base: str, game: str) -> None:
    """Load the page with ``game`` selected."""
    page.goto(f"{base}/#{game}")
    page.wait_for_selector("body[data-ready='true']")
    page.wait_for_selector(f"#games button.on[data-game='{game}']")


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


def play_to_the_end(page, base: str, game: str, seed: int, choose, max_decisions: int) -> dict:
    """Play a whole game in play mode, ``choose(options, turn)`` picking each action.

    ``options``: the API's advice for the position on screen. Returns the decisions made
    (position, action, regret) and the summary's text.
    """
    page.click("#mode-play")
    page.check("#hints")
    page.fill("#seed", str(seed))
    page.click("#new-game")
    decisions = []
    for turn in range(max_decisions):
        page.wait_for_function(
            f"() => document.querySelector('#play-options').dataset.turn === '{turn}' && "
            "document.querySelectorAll('#play-options button.option').length > 0"
        )
        position = page.locator("#play-position").get_attribute("data-position")
        variant = page.locator("#variant").input_value()
        options = api(
            base, "/api/advice", {"game": game, "variant": variant, "position": position}
        )["actions"]
        shown = sorted(
            page.locator("#play-options button.option").evaluate_all(
                "bs => bs.map(b => b.dataset.action)"
            )
        )
        assert shown == sorted(o["action"] for o in options)
        action = choose(options, turn)
        regret = next(o["regret"] for o in options if o["action"] == action)
        decisions.append({"position": position, "action": action, "regret": regret})
        page.click(f"#play-options button.option[data-action='{action}']")
        page.wait_for_function(
            f"() => document.querySelectorAll('#play-log tbody tr:not(.opp)').length === {turn + 1}"
        )
        if page.locator("#play-summary").is_visible():
            break
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
    rows = page.locator("#play-log tbody tr:not(.opp)")
    assert rows.count() == len(decisions)
    for i, d in enumerate(decisions):
        cells = rows.nth(i).locator("td")
        assert cells.nth(1).inner_text().startswith(d["action"])
        assert float(cells.nth(3).inner_text()) == pytest.approx(d["regret"], abs=1e-4)
        assert cells.nth(4).text_content() == d["position"]
    total = sum(d["regret"] for d in decisions)
    assert float(page.locator("#total-cost").inner_text()) == pytest.approx(total, abs=1e-4)
    assert float(page.locator("#summary-cost").inner_text()) == pytest.approx(total, abs=1e-4)


# --- stick or reroll (always available) ---------------------------------------------------


def test_stick_position_by_clicking_matches_api(page, live_server, artifacts_dir):
    open_game(page, live_server, "stick")
    page.click("#clear-dice")
    for face in (3, 1, 3):
        page.click(f"#faces button[data-face='{face}']")
    assert page.input_value("#position") == "dice 1 3 3"
    row = best_row(page)
    want = api(live_server, "/api/advice", {"game": "stick", "position": "dice 1 3 3"})
    best = want["actions"][0]
    assert row["action"] == best["action"] == "hold 1"
    assert row["value"] == best["value"] and row["regret"] == 0.0
    assert "best" in row["class"] and row["shown"] == f"{best['value']:.4f}"
    assert page.locator("#advice tbody tr").count() == len(want["actions"])
    # Remove a die by clicking it, add another: the advice follows.
    page.click("#dice button[data-index='0']")
    page.click("#faces button[data-face='6']")
    assert page.input_value("#position") == "dice 3 3 6"
    row = best_row(page)
    want = api(live_server, "/api/advice", {"game": "stick", "position": "dice 3 3 6"})
    assert (row["action"], row["value"]) == (
        want["actions"][0]["action"],
        want["actions"][0]["value"],
    )
    assert no_horizontal_scroll(page)
    page.screenshot(path=str(artifacts_dir / "web-stick-advice.png"), full_page=True)


def test_stick_variant_and_bad_position_message(page, live_server):
    open_game(page, live_server, "stick")
    page.select_option("#variant", "2d3")
    page.click("#faces button[data-face='2']")
    page.click("#faces button[data-face='1']")
    assert page.input_value("#position") == "dice 1 2"
    row = best_row(page)
    want = api(
        live_server, "/api/advice", {"game": "stick", "variant": "2d3", "position": "dice 1 2"}
    )
    assert row["value"] == want["actions"][0]["value"]
    page.fill("#position", "dice 9 9")
    page.click("#advise-btn")
    message = page.locator("#message")
    message.wait_for(state="visible")
    assert "not a face" in message.inner_text()
    assert page.locator("#advice tbody tr").count() == 0


def test_stick_play_whole_game(page, live_server, artifacts_dir):
    open_game(page, live_server, "stick")

    def choose(options, turn):
        # Two costly rerolls first, then the best action: the game must end with stick.
        if turn < 2:
            return "hold -"
        return options[0]["action"]

    result = play_to_the_end(page, live_server, "stick", seed=5, choose=choose, max_decisions=60)
    decisions = result["decisions"]
    assert decisions[-1]["action"] == "stick" and len(decisions) >= 3
    check_log(page, decisions)
    # Final score: the stick value less one point per reroll.
    stick_value = next(
        o["value"]
        for o in api(
            live_server, "/api/advice", {"game": "stick", "position": decisions[-1]["position"]}
        )["actions"]
        if o["action"] == "stick"
    )
    final = float(page.locator("#final-result").inner_text().split(":")[1].strip(" ."))
    assert final == pytest.approx(stick_value - (len(decisions) - 1), abs=1e-4)
    assert no_horizontal_scroll(page)
    page.screenshot(path=str(artifacts_dir / "web-stick-play.png"), full_page=True)


# --- Yatzy ------------------------------------------------------------------------------------


def test_yatzy_position_by_clicking_matches_api(page, live_server, artifacts_dir):
    open_game(page, live_server, "yatzy")
    page.click("#clear-dice")
    for face in (5, 3, 1, 6, 3):
        page.click(f"#faces button[data-face='{face}']")
    page.click("#rerolls button[data-value='1']")
    for cat, score in (("ones", 1), ("twos", 4), ("chance", 22)):
        page.check(f"input.filled[data-cat='{cat}']")
        page.fill(f"input.cat-score[data-cat='{cat}']", str(score))
    want_position = "dice 1 3 3 5 6 | rerolls 1 | filled ones twos chance | upper 5 | score 27"
    assert page.input_value("#position") == want_position
    row = best_row(page)
    want = api(live_server, "/api/advice", {"game": "yatzy", "position": want_position})
    best = want["actions"][0]
    assert (row["action"], row["value"], row["regret"]) == (best["action"], best["value"], 0.0)
    assert "best" in row["class"] and row["shown"] == f"{best['value']:.4f}"
    assert page.locator("#advice tbody tr").count() == len(want["actions"])
    # every action listed, in the API's order, with the same numbers
    listed = page.locator("#advice tbody tr").evaluate_all(
        "rows => rows.map(r => [r.dataset.action, +r.dataset.value, +r.dataset.regret])"
    )
    assert listed == [[a["action"], a["value"], a["regret"]] for a in want["actions"]]
    assert no_horizontal_scroll(page)
    page.screenshot(path=str(artifacts_dir / "web-yatzy-advice.png"), full_page=True)


def test_yatzy_play_whole_game(page, live_server, artifacts_dir):
    open_game(page, live_server, "yatzy")

    def choose(options, turn):
        # Mostly the best action; every seventh decision the worst, so costs show.
        return options[-1 if turn % 7 == 3 else 0]["action"]

    result = play_to_the_end(page, live_server, "yatzy", seed=2024, choose=choose, max_decisions=50)
    decisions = result["decisions"]
    scored = [d["action"] for d in decisions if d["action"].startswith("score ")]
    assert len(scored) == 15 and len(set(scored)) == 15  # 15 rounds, each category once
    assert sum(d["regret"] for d in decisions) > 0
    check_log(page, decisions)
    # The last decision's value is the final score (nothing random is left).
    last = decisions[-1]
    options = api(live_server, "/api/advice", {"game": "yatzy", "position": last["position"]})
    last_value = next(o["value"] for o in options["actions"] if o["action"] == last["action"])
    final = float(page.locator("#final-result").inner_text().split(":")[1].strip(" ."))
    assert final == pytest.approx(last_value, abs=1e-3)
    assert no_horizontal_scroll(page)
    page.screenshot(path=str(artifacts_dir / "web-yatzy-play.png"), full_page=True)


# --- Pig and Shut the Box ----------------------------------------------------------------------


def test_pig_position_and_game_against_the_optimal_player(page, live_server, artifacts_dir):
    open_game(page, live_server, "pig")
    page.select_option("#variant", "goal-20")
    page.fill("#pig-me", "12")
    page.fill("#pig-opponent", "15")
    page.fill("#pig-turn", "6")
    position = "me 12 | opponent 15 | turn 6"
    assert page.input_value("#position") == position
    row = best_row(page)
    want = api(
        live_server, "/api/advice", {"game": "pig", "variant": "goal-20", "position": position}
    )
    assert (row["action"], row["value"]) == (
        want["actions"][0]["action"],
        want["actions"][0]["value"],
    )
    assert "probability" in page.locator("#units").inner_text()

    def choose(options, turn):
        return options[-1 if turn == 1 else 0]["action"]  # one mistake (if it has a choice)

    result = play_to_the_end(page, live_server, "pig", seed=7, choose=choose, max_decisions=300)
    check_log(page, result["decisions"])
    assert "win" in result["summary"]
    assert no_horizontal_scroll(page)
    page.screenshot(path=str(artifacts_dir / "web-pig-play.png"), full_page=True)


def test_shutbox_position_and_two_player_game(page, live_server, artifacts_dir):
    open_game(page, live_server, "shutbox")
    for tile in (2, 5, 6, 8, 9):
        page.click(f"#tiles button[data-tile='{tile}']")
    page.fill("#sb-roll", "8")
    position = "open 1 3 4 7 | roll 8"
    assert page.input_value("#position") == position
    row = best_row(page)
    variant = page.locator("#variant").input_value()
    want = api(
        live_server, "/api/advice", {"game": "shutbox", "variant": variant, "position": position}
    )
    assert (row["action"], row["value"]) == (
        want["actions"][0]["action"],
        want["actions"][0]["value"],
    )
    assert "lower is better" in page.locator("#units").inner_text()
    win = next(
        v
        for v in page.locator("#variant option").evaluate_all("os => os.map(o => o.value)")
        if v.endswith("/win")
    )
    page.select_option("#variant", win)
    result = play_to_the_end(
        page, live_server, "shutbox", seed=3, choose=lambda o, t: o[0]["action"], max_decisions=40
    )
    check_log(page, result["decisions"])
    assert "win" in result["summary"] or "draw" in result["summary"]
    assert no_horizontal_scroll(page)
    page.screenshot(path=str(artifacts_dir / "web-shutbox-play.png"), full_page=True)
