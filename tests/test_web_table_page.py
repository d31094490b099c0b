"""The page's table mode (a Yatzy game of 2 to 6 players at one table) in headless
Chromium: a whole three-player game on a three-box rule file (dice typed, boxes written
with the dice and by hand), one step undone and redone, a reload, the URL opening the
same table in another page, and the player to move's dice and best move in view at
phone size. The numbers are checked against the table API."""

from __future__ import annotations

import json

import httpx
import pytest
from conftest import new_page

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx`:UserWarning")

TINY_RULES = (
    'name = "tiny"\n[bonus]\nthreshold = 6\npoints = 10\n'
    '[categories.threes]\nkind = "face"\nface = 3\n'
    '[categories.full_house]\nkind = "full_house"\nscore = 25\n'
    '[categories.yatzy]\nkind = "yatzy"\nscore = 50\n'
)
NAMES = ["Anna", "Bo", "Cy"]


TINY_AMERICAN = (
    'name = "tiny-american"\nstyle = "american"\njoker = "free"\nyatzy_bonus = 100\n'
    "[bonus]\nthreshold = 6\npoints = 10\n"
    '[categories.threes]\nkind = "face"\nface = 3\n'
    '[categories.full_house]\nkind = "full_house"\nscore = 25\n'
    '[categories.yahtzee]\nkind = "yatzy"\nscore = 50\n'
)


def start_table(page, base: str, names: list[str] = NAMES, rules: str = TINY_RULES) -> None:
    """Open the page, paste the three-box rule file, start a table of ``names``."""
    page.goto(f"{base}/#yatzy")
    page.wait_for_selector("body[data-ready='true']")
    page.click("#rules-box summary")
    page.fill("#rules-text", rules)
    page.click("#rules-use")
    page.wait_for_function("() => document.querySelector('#variant').value.startsWith('file:')")
    page.click("#rules-box summary")
    page.click("#mode-table")
    page.wait_for_selector("#table-setup")
    seats = page.locator("#table-setup input.seat")
    for i in range(6):
        seats.nth(i).fill(names[i] if i < len(names) else "")
    page.click("#table-start")
    wait_turn_start(page, 0)


def wait_turn_start(page, done: int) -> None:
    """Wait until ``done`` turns are played and the chances of the turn's start are shown."""
    page.wait_for_function(
        "d => { const v = document.querySelector('#table-view');"
        " return v && v.dataset.done === String(d) && v.dataset.busy === 'false' &&"
        " document.querySelector('#table-strip .seat-chip').dataset.chance !== ''; }",
        arg=done,
    )


def table(page) -> dict:
    return page.evaluate("() => TB.t")


def chips(page) -> list[tuple[str, str, float]]:
    return [
        (
            c.locator(".name").inner_text(),
            c.locator(".total").inner_text(),
            float(c.get_attribute("data-chance")),
        )
        for c in page.locator("#table-strip .seat-chip").all()
    ]


def roll_and_write(page, dice: str, done: int) -> None:
    """Type the mover's dice, wait for the advice, write them in the first open box."""
    page.keyboard.type(dice)
    page.wait_for_function(
        "d => document.querySelector('#table-dice').dataset.dice === d", arg=dice
    )
    page.wait_for_selector("#table-best-move")
    page.locator("#table-pad td.mover button.pad-box").first.click()
    wait_turn_start(page, done + 1)


def api_chances(base: str, t: dict, rules: str = TINY_RULES) -> list[float]:
    players = [{"name": n, "sheet": s} for n, s in zip(t["names"], t["sheets"], strict=True)]
    body = {"rules": rules, "players": players, "to_move": t["turn"]}
    response = httpx.post(f"{base}/api/yatzy/table/chances", json=body, timeout=120)
    assert response.status_code == 200, response.text
    return [p["chance"] for p in response.json()["players"]]


def test_a_whole_three_player_table_with_undo_redo_and_a_reload(page, live_server):
    start_table(page, live_server)
    assert [c[0] for c in chips(page)] == NAMES
    assert "ties split" in page.inner_text("#table-model")
    assert sum(c[2] for c in chips(page)) == pytest.approx(1.0, abs=1e-9)
    # Anna: dice typed, the advice of the table API, written in her first open box
    page.keyboard.type("33355")
    page.wait_for_selector("#table-best-move")
    t = table(page)
    body = {
        "rules": TINY_RULES,
        "players": [{"name": n, "sheet": s} for n, s in zip(NAMES, t["sheets"], strict=True)],
        "to_move": 0,
        "position": "dice 3 3 3 5 5 | rerolls 2 | filled - | upper 0 | score 0",
    }
    want = httpx.post(f"{live_server}/api/yatzy/table/advice", json=body, timeout=120).json()
    best = page.locator("#table-best")
    assert best.get_attribute("data-action") == want["table"]["best_to_win"]
    assert best.get_attribute("data-expected") == want["table"]["best_for_expected"]
    assert best.get_attribute("data-differ") == str(want["table"]["differ"]).lower()
    if want["table"]["differ"]:
        assert "differ" in page.inner_text("#table-differ")
    # a hold, then the rerolled dice: 3 3 3 kept, 5 5 typed
    for i in range(3):
        page.click(f"#table-dice .die[data-index='{i}']")
    page.wait_for_function("() => TB.t.hold.length === 3")
    page.keyboard.type("55")
    page.wait_for_function("() => TB.t.rolls === 2")
    page.wait_for_selector("#table-best-move")
    house = page.locator("#table-pad td.mover button.pad-box[data-cat='full_house']")
    assert house.inner_text().startswith("25 ")  # the points the dice score there
    house.click()
    wait_turn_start(page, 1)
    assert table(page)["pts"][0] == {"full_house": 25}
    # Bo writes a box by hand: points the box cannot score are refused in one line
    page.locator("#table-pad td.mover button.pad-box[data-cat='threes']").click()
    page.fill("#table-points", "7")
    page.press("#table-points", "Enter")
    message = page.locator("#table-message")
    message.wait_for(state="visible")
    assert "cannot score 7" in message.inner_text() and "\n" not in message.inner_text()
    page.fill("#table-points", "9")
    page.press("#table-points", "Enter")
    wait_turn_start(page, 2)
    t = table(page)
    assert t["sheets"][1] == {"filled": ["threes"], "upper": 9, "score": 19}
    assert [c[1] for c in chips(page)] == ["25", "19", "0"]
    shown = [c[2] for c in chips(page)]
    assert shown == pytest.approx(api_chances(live_server, t), abs=1e-9)
    # one step undone and redone
    page.click("#table-undo")
    wait_turn_start(page, 1)
    assert table(page)["sheets"][1]["filled"] == []
    page.click("#table-redo")
    wait_turn_start(page, 2)
    assert table(page) == t
    # a reload keeps the table
    page.reload()
    page.wait_for_selector("body[data-ready='true']")
    wait_turn_start(page, 2)
    assert table(page) == t
    assert page.locator("#mode-table").get_attribute("aria-selected") == "true"
    # ... with its undo: the step before the reload is undone, and redone
    page.click("#table-undo")
    wait_turn_start(page, 1)
    page.click("#table-redo")
    wait_turn_start(page, 2)
    assert table(page) == t
    # the rest of the game: dice typed, the first open box written
    for done in range(2, 9):
        roll_and_write(page, "33355" if done % 2 else "66666", done)
    assert table(page)["records"][1] is None
    page.wait_for_selector("#table-view[data-over='true']")
    t = table(page)
    scores = [s["score"] for s in t["sheets"]]
    ranking = page.locator("#table-ranking li").all()
    assert len(ranking) == 3
    first = int(ranking[0].get_attribute("data-player"))
    assert scores[first] == max(scores)
    # each player's luck and skill, as the solo review splits it (Bo wrote a box by hand)
    page.wait_for_selector("#table-ranking .review-line")
    page.wait_for_function("() => TB.t.reviews && TB.t.reviews.length === 3")
    reviews = page.evaluate("() => TB.t.reviews")
    for i in (0, 2):
        r = reviews[i]
        assert r["start"] + r["luck"] - r["cost"] == pytest.approx(r["result"], abs=1e-6)
        assert r["result"] == pytest.approx(scores[i])
    assert "by hand" in reviews[1]["missing"]
    line = page.locator("#table-ranking li[data-player='0'] .review-line").inner_text()
    assert "luck" in line and "cost" in line
    # the chart: one line per player over every turn start and the end
    assert page.locator("#table-chart path.player").count() == 3
    assert int(page.get_attribute("#table-chart", "data-points")) == 10
    # every label of the chart within its drawing (the axis's "100%" was cut at the left)
    labels = "[...document.querySelectorAll('#table-chart svg text')]"
    assert page.evaluate(f"() => {labels}.every(t => t.getBBox().x >= 0)")
    # a new game keeps the players
    page.click("#table-new-game")
    wait_turn_start(page, 0)
    assert table(page)["names"] == NAMES and not table(page)["over"]


def write_by_hand(page, cat: str, text: str) -> None:
    page.locator(f"#table-pad td.mover button.pad-box[data-cat='{cat}']").click()
    page.fill("#table-points", text)
    page.press("#table-points", "Enter")


def test_boxes_written_by_hand_keep_the_american_yahtzee_bonus(page, live_server):
    # the Yahtzee box written with its 50 by hand is remembered (further Yahtzees earn
    # 100, which the advice and the chances count), and "25+100" writes a further Yahtzee
    # into another box with its bonus; a bonus the rules do not give is refused
    start_table(page, live_server, ["Ann", "Ben"], TINY_AMERICAN)
    write_by_hand(page, "yahtzee", "50")
    wait_turn_start(page, 1)
    assert table(page)["sheets"][0] == {
        "filled": ["yahtzee"], "upper": 0, "score": 50, "yahtzee_bonus": True,
    }  # fmt: skip
    write_by_hand(page, "threes", "9+100")  # Ben's Yahtzee box is open: no bonus yet
    message = page.locator("#table-message")
    message.wait_for(state="visible")
    assert "once the Yahtzee box holds 50" in message.inner_text()
    page.fill("#table-points", "9")
    page.press("#table-points", "Enter")
    wait_turn_start(page, 2)
    write_by_hand(page, "full_house", "25+100")
    wait_turn_start(page, 3)
    t = table(page)
    assert t["sheets"][0]["score"] == 50 + 25 + 100 and t["pts"][0]["full_house"] == 25
    assert [c[1] for c in chips(page)] == ["175", "19"]  # Ben's 9 with the bonus of 10
    shown = [c[2] for c in chips(page)]
    assert shown == pytest.approx(api_chances(live_server, t, TINY_AMERICAN), abs=1e-9)


def test_the_url_opens_the_same_table_in_a_new_page(browser, page, live_server):
    start_table(page, live_server, ["Ann", "Ben", "Cat", "Dan"])
    roll_and_write(page, "33355", 0)
    page.keyboard.type("12346")
    page.wait_for_selector("#table-best-move")
    t = table(page)
    url = page.url
    assert "mode=table" in url and "t=" in url
    with new_page(browser) as other:
        other.goto(url)
        other.wait_for_selector("body[data-ready='true']")
        other.wait_for_selector("#table-best-move")
        assert table(other) == t
        assert chips(other) == chips(page)
        assert other.get_attribute("#table-dice", "data-dice") == "12346"
        assert other.inner_text("#table-best") == page.inner_text("#table-best")
    assert json.loads(json.dumps(t))["rules"] == TINY_RULES


IN_VIEW = """s => { const r = document.querySelector(s).getBoundingClientRect();
                     return r.height > 0 && r.top >= -1 && r.bottom <= innerHeight + 1; }"""
BOX = "s => { const r = document.querySelector(s).getBoundingClientRect(); return [r.left, r.right, r.top]; }"  # noqa: E501


@pytest.mark.parametrize("width, height", [(390, 844), (1280, 800)])
def test_the_mover_sees_dice_and_best_move_on_the_first_screen(browser, live_server, width, height):
    """On a phone the turn comes first and the scorepad follows; on a desktop the turn
    stands beside the scorepad, whose first rows are in view too."""
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.set_default_timeout(60_000)
    try:
        start_table(page, live_server)
        page.keyboard.type("33355")
        page.wait_for_selector("#table-best-move")
        page.evaluate("() => window.scrollTo(0, 0)")
        for sel in ("#table-strip", "#table-turn", "#table-dice", "#table-best-move"):
            assert page.evaluate(IN_VIEW, sel), sel
        assert page.evaluate("() => document.documentElement.scrollWidth <= innerWidth + 1")
        best, pad = page.evaluate(BOX, "#table-best"), page.evaluate(BOX, "#table-pad")
        if width < 1100:
            assert pad[2] > best[2]  # below the best move
        else:
            assert pad[0] >= best[1] and pad[2] < best[2] + 100  # beside it
            assert page.evaluate(IN_VIEW, "#table-pad thead, #table-pad tr")
    finally:
        context.close()
