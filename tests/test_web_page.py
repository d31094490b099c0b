"""The advisor page as a player finds it, in headless Chromium (Playwright, as
``test_web_browser``): every game's tab in sight on a phone, touch targets of 44 px, the
keyboard's place kept from move to move, the words of the page (variant titles, "you"
and "your opponent", a bust, a reroll of all dice), the best set-aside marked on the dice,
a game opened from its URL with the points of its boxes and the review of a move that
followed the "to win" hint.

Small variants only (Farkle to 2,000, Pig to 20, Zombie Dice to 3): the suite stays quick.
"""

from __future__ import annotations

from urllib.parse import urlencode

import httpx
import pytest
from web_games import AHEAD_OF_ME, BEHIND

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx`:UserWarning")

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


def open_page(page, base: str, fragment: str) -> None:
    """Load the page at ``#fragment`` (a game, or game=...&variant=...&mode=...)."""
    page.goto(f"{base}/#{fragment}")
    page.wait_for_selector("body[data-ready='true']")


def open_play(page, base: str, game: str, variant: str, seed: int | None = None) -> None:
    """Play mode of ``game``/``variant`` (a new game, dice seeded with ``seed``), its first
    decision on screen."""
    open_page(page, base, f"game={game}&variant={variant}&mode=play")
    if seed is not None:
        page.fill("#seed", str(seed))
        page.click("#new-game")
    wait_turn(page, 0)


def wait_turn(page, turn: int) -> None:
    """Wait until decision ``turn`` (0-based) is offered, or the game is over."""
    page.wait_for_function(
        "t => (document.querySelector('#play-options').dataset.turn === String(t) && "
        "document.querySelector('#play-best')) || !document.querySelector('#play-summary').hidden",
        arg=turn,
    )


def small_targets(page) -> list:
    """Visible controls under 44 x 44 CSS px: buttons, selects, inputs, summaries (a
    checkbox counts with its label, the target a tap hits)."""
    return page.evaluate(
        """() => [...document.querySelectorAll('button, select, input, textarea, summary')]
             .filter(e => e.getClientRects().length && getComputedStyle(e).visibility !== 'hidden')
             .map(e => {
               const box = e.type === 'checkbox'
                 ? (e.closest('label') || document.querySelector(`label[for='${e.id}']`) || e) : e;
               const r = box.getBoundingClientRect();
               return [e.id || e.className || e.tagName, e.textContent.trim().slice(0, 20),
                       Math.round(r.width * 10) / 10, Math.round(r.height * 10) / 10];
             })
             .filter(([, , w, h]) => w < 44 || h < 44)"""
    )


# --- phone: the tabs and the touch targets ----------------------------------------------------


def test_every_game_tab_is_in_sight_on_a_phone(page, live_server):
    page.set_viewport_size(PHONE)
    open_page(page, live_server, "yatzy")
    tabs = page.locator("#games button")
    assert tabs.count() >= 7
    boxes = tabs.evaluate_all(
        "bs => bs.map(b => { const r = b.getBoundingClientRect(); "
        "return [b.dataset.game, r.left, r.right, r.top, r.bottom]; })"
    )
    for game, left, right, top, bottom in boxes:
        # wholly inside the viewport: no tab is cut off or hidden sideways
        assert left >= 0 and right <= PHONE["width"] and top >= 0, (game, left, right)
        assert bottom <= 200, (game, bottom)  # the header, not half the screen
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
    last = boxes[-1][0]
    page.click(f"#games button[data-game='{last}']")
    page.wait_for_selector(f"#games button.on[data-game='{last}']")
    # on a desktop they stay on one line beside the title
    page.set_viewport_size(DESKTOP)
    tops = {round(t) for t in tabs.evaluate_all("bs => bs.map(b => b.getBoundingClientRect().top)")}
    assert len(tops) == 1


def test_touch_targets_are_44_px_on_a_phone(page, live_server):
    page.set_viewport_size(PHONE)
    open_page(page, live_server, "yatzy")
    page.wait_for_selector("#editor-sheet label.cat-name")
    page.click("#rules-box summary")  # the rule file's box, open: its upload input
    page.wait_for_selector("#rules-file")
    assert small_targets(page) == []
    page.click("#mode-play")
    wait_turn(page, 0)
    assert page.locator("#undo").is_visible() and page.locator("#hints").is_visible()
    assert small_targets(page) == []
    page.goto("about:blank")
    open_page(page, live_server, "game=farkle&variant=quick&mode=play")
    wait_turn(page, 0)
    assert small_targets(page) == []


# --- the keyboard ------------------------------------------------------------------------------


def test_the_keyboard_stays_on_the_best_move_after_each_move(page, live_server):
    open_play(page, live_server, "yatzy", "scandinavian", seed=5)
    page.focus("#play-best")
    for turn in range(1, 4):
        page.keyboard.press("Enter")
        wait_turn(page, turn)
        focused = page.evaluate("() => document.activeElement.id")
        assert focused == "play-best", turn
    # a box written from the keyboard: the focus goes on to the next best move too
    page.focus("#play-sheet button.option")
    page.keyboard.press("Enter")
    wait_turn(page, 4)
    assert page.evaluate("() => document.activeElement.id") == "play-best"


# --- words ---------------------------------------------------------------------------------------


def test_variants_are_listed_by_title(page, live_server):
    games = httpx.get(f"{live_server}/api/games", timeout=60).json()["games"]
    open_page(page, live_server, "yatzy")
    for game in games:
        page.click(f"#games button[data-game='{game['id']}']")
        shown = page.locator("#variant option").evaluate_all(
            "os => os.map(o => [o.value, o.textContent])"
        )
        assert shown == [[v["id"], v["title"]] for v in game["variants"]]
    assert "Scandinavian Yatzy" in [v["title"] for g in games for v in g["variants"]]


def play_best_to_the_end(page, most: int = 80) -> int:
    """Play the best move (advice on) until the game is over; the decisions made."""
    start = int(page.locator("#play-options").get_attribute("data-turn"))
    for turn in range(start, start + most):
        wait_turn(page, turn)
        if page.locator("#play-summary").is_visible():
            return turn
        page.click("#play-best")
    pytest.fail(f"the game did not end in {most} decisions")


def test_two_player_games_say_you_and_your_opponent(page, live_server):
    open_play(page, live_server, "pig", "goal-20", seed=3)
    page.click("#play-best")
    wait_turn(page, 1)
    assert page.locator("#play-events li").first.inner_text().startswith("you rolled")
    play_best_to_the_end(page)
    page.wait_for_selector("#review-split")
    shown = " ".join(
        page.locator(s).inner_text() for s in ("#play-events", "#play-summary", "#review")
    )
    assert "player 1" not in shown and "player 2" not in shown, shown
    assert "probability that you win" in shown
    assert "your opponent" in shown or "you win" in shown or "you reach" in shown


def test_zilch_is_one_turn_and_a_bank_is_no_unlucky_roll(page, live_server):
    # seed 4: every roll of the turn is lucky and the turn ends with a bank, which no dice
    # follow (the analysis gives it luck 0; it is named as no roll)
    open_play(page, live_server, "zilch", "zilch", seed=4)
    assert page.locator("#new-game").inner_text() == "New turn"
    play_best_to_the_end(page)
    summary = page.locator("#play-summary").inner_text()
    assert summary.startswith("Turn over.") and "This turn is worth" in summary
    page.wait_for_selector("#review-split")
    assert "banked" in page.locator("#play-events").inner_text()
    assert "unluckiest roll" not in page.locator("#review").inner_text()
    lucky = page.locator("#review li.luckiest")
    assert lucky.count() == 1 and "(luck +" in lucky.inner_text()
    assert "bank" not in lucky.inner_text()


def test_a_bust_is_the_only_move_not_the_best(page, live_server):
    # a roll with nothing to set aside: one action, the bust, said as what it does
    position = "me 0 | opponent 0 | turn 300 | dice 2 2 3 4 6 6"
    open_page(page, live_server, f"game=farkle&variant=quick&mode=play&pos={position}")
    page.wait_for_selector("#play-best[data-action='bust']")
    line = page.locator("#best-move .best-line")
    assert line.locator(".tag").inner_text().lower() == "only move"
    assert page.locator("#play-best").inner_text() == "Bust: nothing scores, the turn total is lost"


def test_a_reroll_of_every_die_says_so(page, live_server):
    open_play(page, live_server, "yatzy", "scandinavian", seed=7)
    assert page.locator("#play-dice button.die[aria-pressed='true']").count() == 0
    assert page.locator("#reroll span").inner_text() == "Reroll all"
    page.click("#play-dice button.die[data-index='0']")
    page.wait_for_selector("#play-dice button.die[data-index='0'][aria-pressed='true']")
    assert page.locator("#reroll span").inner_text() in ("Reroll", "Hold fewer")


def test_zombie_dice_says_how_the_opponents_differ_and_labels_the_empty_cup(page, live_server):
    open_play(page, live_server, "zombie", "goal-3")
    # before the first roll: no dice, said in words (not an empty box)
    cup = page.locator("#play-colour-dice")
    assert cup.inner_text() == "No dice rolled yet this turn"
    optimal = page.locator("#opponent-note").inner_text()
    assert optimal.startswith("The optimal player")
    page.select_option("#versus", "win")
    page.wait_for_function(
        "t => document.querySelector('#opponent-note').textContent !== t", arg=optimal
    )
    assert page.locator("#opponent-note").inner_text().startswith("The computer plays")


def test_the_small_print_speaks_of_styles_of_play_not_theta(page, live_server):
    open_page(page, live_server, "yatzy")
    page.wait_for_selector("#options-inputs")
    shown = page.evaluate(
        "() => document.querySelector('main').innerText + ' ' + "
        "[...document.querySelectorAll('main [title]')].map(e => e.title).join(' ')"
    )
    # the model of a game against the computer is in a player's words at its source; the
    # options' help (the command line's words) as the page words it
    from diceopt.games.yatzy.winning.versus import win_text

    model = win_text("win")
    assert "theta" not in model and "risk table" not in model and "style of play" in model
    games = httpx.get(f"{live_server}/api/games", timeout=60).json()["games"]
    helps = [o["help"] for g in games if g["id"] == "yatzy" for o in g["advise_options"]]
    assert any("theta" in h for h in helps)
    plain = page.evaluate("texts => texts.map(plainWords)", helps)
    for text in [shown, *plain]:
        assert "theta" not in text and "risk table" not in text, text


# --- the board -------------------------------------------------------------------------------


def aside_in(action: str) -> list[str]:
    """The dice a set-aside action names first ("set aside 1 5, roll 4": 1 5)."""
    return [w for w in action.split(",")[0].split() if w.isdigit()]


@pytest.mark.parametrize(
    ("game", "variant", "position"),
    [
        ("farkle", "quick", "me 0 | opponent 0 | turn 0 | dice 1 2 3 4 6 6"),
        ("zilch", "zilch", "streak 0 | turn 0 | dice 1 2 3 3 3 6"),
    ],
)
def test_the_best_set_aside_is_ringed_on_the_dice(page, live_server, game, variant, position):
    open_page(page, live_server, f"game={game}&variant={variant}&mode=play&pos={position}")
    page.wait_for_selector("#play-best")
    best = page.locator("#best-move").get_attribute("data-action")
    assert best.startswith("set aside ") and aside_in(best)
    ringed = page.locator("#play-dice button.die.best")
    assert sorted(ringed.evaluate_all("ds => ds.map(d => d.dataset.value)")) == aside_in(best)
    assert "best to set aside" in ringed.first.get_attribute("aria-label")
    # advise mode rings them on the editor's dice
    page.click("#mode-advise")
    page.wait_for_selector("#advise-best[data-action^='set aside']")
    got = page.locator("#dice button.die.best").evaluate_all("ds => ds.map(d => d.dataset.value)")
    assert sorted(got) == aside_in(page.locator("#advise-best").get_attribute("data-action"))


# --- a game opened from its URL ------------------------------------------------------------------


def filled_points(page) -> dict[str, str]:
    """The filled boxes of the play sheet and what each shows."""
    return dict(
        page.locator("#play-sheet tr.filled td.points").evaluate_all(
            "ts => ts.map(t => [t.dataset.cat, t.textContent])"
        )
    )


def test_a_game_opened_from_its_url_shows_the_points_of_its_boxes(page, browser, live_server):
    open_play(page, live_server, "yatzy", "scandinavian", seed=11)
    turn = 0
    while len(filled_points(page)) < 3:
        page.click("#play-best")
        turn += 1
        wait_turn(page, turn)
    mine = filled_points(page)
    assert all(v.isdigit() for v in mine.values()), mine
    position = page.locator("#play-position").get_attribute("data-position")
    url = page.url
    assert "pts=" in url
    # elsewhere (no saved game): the same position, the same points in the boxes
    context = browser.new_context(viewport=PHONE)
    try:
        other = context.new_page()
        other.goto(url)
        other.wait_for_selector("body[data-ready='true']")
        other.wait_for_selector("#play-best")
        assert other.locator("#play-position").get_attribute("data-position") == position
        assert filled_points(other) == mine
        assert "✓" not in other.locator("#play-sheet").inner_text()
    finally:
        context.close()


def test_a_turn_after_a_zilch_starts_with_the_streak(page, live_server):
    # the second zilch in a row: the next turn starts with a streak of 2, and its record
    # (from "~> new game" at that streak) gets the whole review, luck included
    position = "streak 1 | turn 300 | dice 2 3"
    open_page(page, live_server, f"game=zilch&variant=zilch&mode=play&pos={position}")
    wait_turn(page, 0)
    play_best_to_the_end(page)
    summary = page.locator("#play-summary").inner_text()
    assert "The next turn starts with streak 2." in summary, summary
    page.click("#new-game")
    page.wait_for_function(
        "() => (document.querySelector('#play-position') || {}).dataset?.position"
        "?.startsWith('streak 2 | turn 0 |')"
    )
    play_best_to_the_end(page)
    page.wait_for_function("() => !document.querySelector('#review').hasAttribute('aria-busy')")
    text = page.locator("#review").inner_text()
    assert "no review" not in text and "luck" in text, text
    assert "opened at a position" not in text, text


def test_a_game_opened_at_a_position_gets_its_review(page, live_server):
    position = "streak 0 | turn 0 | dice 1 2 3 3 3 6"
    open_page(page, live_server, f"game=zilch&variant=zilch&mode=play&pos={position}")
    wait_turn(page, 0)
    play_best_to_the_end(page)
    review = page.locator("#review")
    page.wait_for_function("() => !document.querySelector('#review').hasAttribute('aria-busy')")
    text = review.inner_text()
    assert "your decisions cost" in text and "no review" not in text, text
    assert "~>" not in text  # the record's notation is not the player's


# --- against the computer: the "to win" hint ----------------------------------------------------


def test_a_move_that_followed_the_to_win_hint_is_noted_in_the_review(page, live_server):
    # late in a forced-order game, behind: keeping 5 5 6 is the best to beat the computer,
    # not the best for the expected score (test_web_browser's two hints)
    query = urlencode(
        {
            "game": "yatzy",
            "variant": "scandinavian-forced",
            "mode": "play",
            "pos": BEHIND,
            "vs": "expected",
            "computer": AHEAD_OF_ME,
        }
    )
    open_page(page, live_server, query)
    page.wait_for_selector("#best-move #win-hint[data-same='false']")
    move = page.locator("#win-hint").get_attribute("data-action")
    assert move == "keep 5 5 6"
    for value in move.split()[1:]:
        page.locator(
            f"#play-dice button.die[aria-pressed='false'][data-value='{value}']"
        ).first.click()
    page.wait_for_selector(f"#reroll[data-action='{move}']:not([disabled])")
    page.click("#reroll")
    wait_turn(page, 1)
    row = page.locator("#play-log tbody tr.mine").first
    assert "to-win" in row.get_attribute("class") and "to win" in row.inner_text()
    play_best_to_the_end(page, 20)
    note = page.locator("#review-to-win")
    note.wait_for()
    assert note.get_attribute("data-moves") == "1"
    text = note.inner_text()
    assert "keep 5 5 6" in text and "the best for your chance of beating the computer" in text
