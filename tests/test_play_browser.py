"""The table end to end in a real headless browser: Debian's chromium driven by Playwright.

The real server (`play.server`'s app under uvicorn on 127.0.0.1, a free port, in a thread) and
the real page; every move is a click on what the page draws. Bots are the cheap ones (`random`,
`rules`) and the server's bot pause is short, so the file stays well under a minute and a half
on 2 cores. The seeds are ones where the click policies below reach what each test needs (an 8
in American Page One, an initial meld of the human's and the partner's ask in Canasta); where a
deal ends without it the tests play the match's next deal, so a change to the bots costs time,
not a false failure. `CARDARENA_SCREENSHOTS=1` writes the screenshots of docs/play.md to
docs/figures/play_*.png.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import threading
import time
from pathlib import Path

import pytest

from games import registry

CHROMIUM = shutil.which("chromium")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="no chromium on this machine (Debian: apt-get install -y chromium; .ci/run does it): "
                             "the browser tests need a real browser")

FIGURES = Path(__file__).resolve().parent.parent / "docs" / "figures"
SCREENSHOTS = os.environ.get("CARDARENA_SCREENSHOTS") == "1"
LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
               "--disable-sync", "--no-first-run"]
SETTLED = ("your_turn", "deal_over", "match_over", "error", "review")
MAX_CLICKS = 400


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The real app under uvicorn, its records in a temporary folder."""
    import uvicorn
    from play.server import Table, create_app
    records = tmp_path_factory.mktemp("records")
    table = Table(records, pause=0.02, analysis_worlds=4)
    port = _free_port()
    uv = uvicorn.Server(uvicorn.Config(create_app(table, port=port), host="127.0.0.1", port=port, log_level="warning",
                                       lifespan="off"))
    thread = threading.Thread(target=uv.run, name="uvicorn", daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not uv.started:
        if time.monotonic() > deadline or not thread.is_alive():
            pytest.fail("uvicorn did not start")
        time.sleep(0.02)
    yield type("Server", (), {"url": f"http://127.0.0.1:{port}/", "table": table, "records": records})
    for session in list(table.sessions.values()):
        session.close()
    uv.should_exit = True
    thread.join(10)


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser, server):
    """A fresh page on the table; fails the test on any script error, and keeps every View the
    page received while playing (not the review's) to check that none shows a hidden hand."""
    context = browser.new_context(viewport={"width": 1366, "height": 768})     # a laptop: the table fits one screen
    page = context.new_page()
    page.set_default_timeout(30_000)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.views = []
    page.on("response", lambda r: page.views.append(r) if "/api/games" in r.url and "/review" not in r.url
            and r.request.method in ("GET", "POST") and r.ok and "/hint" not in r.url else None)
    page.goto(server.url)
    page.wait_for_selector("[data-testid=start-game]")
    yield page
    played = [r.json() for r in page.views]
    started = page.evaluate("app.gameId")
    context.close()
    assert not errors, f"script errors on the page: {errors}"
    assert played or not started, "a game was played but no View was seen"
    for view in played:
        assert all("hand" not in p for p in view["players"]), "a View in play carried another player's hand"


# ------------------------------------------------------------------ helpers
def status(page) -> str:
    """What the page shows once it has settled: the View's status, or 'review'."""
    page.wait_for_function(f"() => {json.dumps(list(SETTLED))}.includes(document.body.dataset.status)")
    return page.evaluate("document.body.dataset.status")


def new_game(page, game: str, seed: int, bots: str, match: int | None = None, seat: int = 0,
             params: dict | None = None) -> str:
    page.select_option("[data-testid=game-select]", game)
    for name, value in (params or {}).items():
        page.fill(f"[data-testid=param-{name}]", str(value))
    page.select_option("[data-testid=seat-select]", str(seat))
    page.fill("[data-testid=seed-input]", str(seed))
    for field in page.locator("[data-bot-seat]").all():
        field.fill(bots)
    if match is not None:
        page.select_option("[data-testid=match-select]", str(match))
    page.click("[data-testid=start-game]")
    # The table, or the form's refusal said on a field (named here, rather than a timeout).
    page.wait_for_selector("[data-testid=hand], .field-error:not(:empty)")
    refused = [e.inner_text() for e in page.locator(".field-error:not(:empty)").all()]
    assert not refused, f"the deal was refused: {refused}"
    page.wait_for_selector("[data-testid=hand]")
    return status(page)


def legal_on_page(page) -> set[int]:
    """Every action the page offers now: playable cards and buttons, and the melds past the
    listed five, one selection of their cards away (data-actions of "+N more")."""
    return {int(a) for a in page.eval_on_selector_all(
        "[data-testid=hand] .card.playable, #action-bar button[data-action], #prompt button[data-action], "
        "[data-testid=more-melds]",
        "nodes => nodes.flatMap(n => (n.dataset.action || n.dataset.actions).split(' '))")}


def click_first(page, *selectors: str) -> str:
    """Clicks the first element of the first selector that has one; returns that selector."""
    for selector in selectors:
        found = page.locator(selector)
        if found.count():
            found.first.click()
            return selector
    raise AssertionError(f"nothing to click among {selectors}; the page shows {page.inner_text('#action-bar')!r}")


def zone(page, root: str, name: str):
    return page.locator(f"{root} [data-zone='{name}']")


def shoot(page, name: str) -> None:
    if SCREENSHOTS:
        FIGURES.mkdir(parents=True, exist_ok=True)
        page.mouse.move(0, 0)
        page.wait_for_timeout(1300)        # the log's newest lines flash for 1.2 s
        page.screenshot(path=str(FIGURES / f"play_{name}.png"), full_page=True)


def session_of(server, page):
    game_id = page.evaluate("app.gameId")
    return server.table.sessions[game_id]


# -------------------------------------------------------------------- tests
def test_new_game_form_shows_the_server_error_beside_its_field(page, server):
    before = len(server.table.sessions)
    page.select_option("[data-testid=game-select]", "python_page_one")
    page.fill("[data-testid=param-hand_size]", "99")
    page.click("[data-testid=start-game]")
    error = page.locator("[data-testid='error-params.hand_size']")
    error.wait_for()
    assert "hand_size" in error.inner_text() and "[4, 7]" in error.inner_text()
    assert "hand_size" in page.inner_text("[data-testid=status-line]")
    page.fill("[data-testid=param-hand_size]", "4")
    page.fill("[data-testid=bot-1]", "os:system")
    page.click("[data-testid=start-game]")
    page.wait_for_function("() => document.querySelector(\"[data-testid='error-bots.1']\").textContent.length > 0")
    assert "module:factory" in page.inner_text("[data-testid='error-bots.1']")
    assert page.inner_text("[data-testid='error-params.hand_size']") == ""
    assert len(server.table.sessions) == before, "a refused form started a game"


def test_the_bot_list_offers_each_games_strongest_search_at_that_game_only(page):
    def offered() -> list[str]:
        return page.eval_on_selector_all("#bot-specs option", "els => els.map(e => e.value)")

    page.select_option("[data-testid=game-select]", "python_modern_canasta")
    canasta = offered()
    page.select_option("[data-testid=game-select]", "python_page_one")
    page_one = offered()
    canasta_entry = registry.lookup("python_modern_canasta")
    strongest_canasta = canasta_entry.presets[canasta_entry.strongest]
    assert strongest_canasta in canasta and strongest_canasta not in page_one
    assert "rules" in canasta and "rules" in page_one
    assert any("prior=shipped" in s for s in page_one) and not any("prior=shipped" in s for s in canasta)


def test_page_one_whole_deal_by_clicking_with_a_hint_and_a_refusal(page, server):
    assert new_game(page, "python_page_one", seed=28, bots="random", match=1) == "your_turn"
    hand = page.locator("[data-testid=hand] [data-testid=hand-card]")
    assert hand.count() == 4
    session = session_of(server, page)
    for seat in (1, 2, 3):      # the others: their true card counts, face down
        other = page.locator(f"[data-testid=player-{seat}]")
        with session.lock:
            held = session.state.core.hands[seat].bit_count()
        assert int(other.get_attribute("data-cards")) == held == other.locator(".back").count()
    assert page.locator("[data-testid^=open-hand]").count() == 0

    # A hint: the chosen action first, then the best few of the rest by value, each with its interval.
    page.click("[data-testid=hint-button]")
    page.wait_for_selector("[data-testid=hint-row]")
    rows = page.locator("[data-testid=hint-row]")
    hinted = [int(a) for a in rows.evaluate_all("rs => rs.map(r => r.dataset.action)")]
    legal = legal_on_page(page)
    assert len(hinted) == min(5, len(legal)) and set(hinted) <= legal
    means = [float(r.inner_text().split("\t")[1]) for r in rows.all()]
    assert means[1:] == sorted(means[1:], reverse=True)
    assert "[" in rows.first.inner_text() and "worlds" in page.inner_text("[data-testid=hint-panel]")
    shoot(page, "page_one")

    # The server refuses what is not legal, and the page says why in the status line.
    page.evaluate("sendAction(100000)")
    page.wait_for_selector(".status-line.error")
    assert "not an action of Page One" in page.inner_text("[data-testid=status-line]")
    assert status(page) == "your_turn"

    clicks = 0
    while status(page) == "your_turn":
        legal = legal_on_page(page)
        assert legal, "the human's turn with nothing to click"
        session = session_of(server, page)
        with session.lock:
            assert legal == set(session.state.legal_actions()), "the page offers other actions than the legal ones"
        click_first(page, "[data-testid=hand] .card.playable", "#action-bar button[data-action]")
        clicks += 1
        assert clicks < MAX_CLICKS
    assert status(page) == "match_over"
    assert clicks >= 1
    score = page.locator("[data-testid=score-table]")
    assert "cards left" in score.inner_text()
    assert page.locator("[data-testid=next-deal]").is_hidden()
    assert page.locator("[data-testid=log] li").count() > clicks
    game_id = page.evaluate("app.gameId")
    saved = server.records / f"{game_id}.jsonl"
    assert saved.is_file() and len(saved.read_text().strip().splitlines()) == 1


def test_thinking_sign_while_a_search_bot_moves(page, server):
    new_game(page, "python_page_one", seed=4, bots="ismcts(seconds=1)", params={"players": 2})
    states = []
    for _ in range(12):
        page.wait_for_function("() => document.body.dataset.status !== 'sending'")
        states.append(page.evaluate("document.body.dataset.status"))
        if states[-1] == "your_turn":
            click_first(page, "[data-testid=hand] .card.playable", "#action-bar button[data-action]")
            continue
        assert states[-1] == "bot_turn", f"the deal ended before the page showed the bot thinking: {states}"
        try:
            page.locator("[data-testid=player-1] [data-testid=thinking]").wait_for(timeout=4_000)
        except Exception:   # the bot moved between two polls: watch its next move
            continue
        # One look at the whole page, so a poll cannot redraw it between two reads.
        shown = page.evaluate("""() => ({
            thinking: !!document.querySelector("[data-testid=player-1] [data-testid=thinking]"),
            status: document.querySelector("[data-testid=status-line]").textContent,
            waiting: (document.querySelector("[data-testid=waiting]") || {}).textContent,
            playable: document.querySelectorAll("[data-testid=hand] .card.playable").length})""")
        if not shown["thinking"]:
            continue
        assert "p1 is thinking" in shown["status"] and shown["waiting"] == "Waiting for p1…"
        assert shown["playable"] == 0
        break
    else:
        pytest.fail(f"the page never showed the bot thinking: {states}")


def test_american_page_one_names_a_suit_after_an_eight(page, server):
    assert new_game(page, "python_american_page_one", seed=1, bots="rules", match=3) == "your_turn"
    assert page.locator("[data-zone=Direction]").inner_text().endswith("clockwise")
    up = zone(page, "#felt", "Up-card")
    clicks = 0
    while True:
        state = status(page)
        if state == "deal_over":
            page.click("[data-testid=next-deal]")
            continue
        assert state == "your_turn", (f"the match ended before the human played an 8 ({state}): "
                                      f"{page.inner_text('[data-testid=status-line]')}")
        suits = page.locator("#prompt [data-testid=action-suit]")
        if suits.count():
            assert sorted(suits.all_inner_texts()) == sorted("♠♥♦♣")
            assert page.locator("[data-testid=hand] .card.playable").count() == 0
            eight = up.locator("[data-testid=card]").get_attribute("data-card").startswith("8")
            if eight:
                shoot(page, "american_page_one")
            heart = page.locator("#prompt [data-testid=action-suit][data-label='name ♥']")
            assert "red" in heart.get_attribute("class")
            heart.click()
            if eight:
                break
        else:
            click_first(page, "[data-testid=hand] .card.playable[data-card^='8']", "[data-testid=hand] .card.playable",
                        "#action-bar [data-testid=action-card]", "#action-bar button[data-action]")
        clicks += 1
        assert clicks < MAX_CLICKS
    status(page)
    log = page.locator("#log li").all_inner_texts()
    assert any(t.startswith("you play 8") for t in log) and "you name ♥" in log


def test_canasta_initial_meld_and_answering_the_partners_ask(page, server):
    assert new_game(page, "python_modern_canasta", seed=262, bots="rules", match=2500) == "your_turn"
    assert page.locator("[data-testid=player-2] .chip.partner").count() == 1
    mine = zone(page, "#felt", "Melds: your side")
    melded = opened = answered = False
    clicks = 0
    while not (opened and answered):
        state = status(page)
        if state == "deal_over":
            page.click("[data-testid=next-deal]")
            melded = False
            continue
        assert state == "your_turn", (f"the match ended before the meld and the ask ({state}): "
                                      f"{page.inner_text('[data-testid=status-line]')}")
        if melded and not opened:
            # The side's initial meld is made, and the human's melds were its first.
            side_melds = [t for t in page.locator("#log li").all_inner_texts() if t.startswith(("you meld", "p2 meld"))]
            opened = "initial meld made" in mine.inner_text() and side_melds[0].startswith("you")
        prompt = page.locator("#prompt")
        if prompt.is_visible():
            assert "asks" in prompt.inner_text()
            assert {b.get_attribute("data-label") for b in prompt.locator("button").all()} == {
                "yes, go out", "no, don't go out"}
            if opened:
                shoot(page, "modern_canasta")
            prompt.locator("[data-testid=action-answer][data-label^='yes']").click()
            answered = opened
            clicks += 1
            continue
        chosen = click_first(page, "#action-bar [data-testid=action-meld]", "#action-bar [data-testid=action-draw]",
                             "[data-testid=hand] .card.playable", "#action-bar [data-testid=action-other]")
        if chosen.endswith("action-meld]"):
            melded = True
            assert status(page) != "your_turn" or mine.locator("[data-testid=meld]").count() >= 1
        clicks += 1
        assert clicks < MAX_CLICKS
    assert status(page) in ("deal_over", "match_over")
    lines = page.inner_text("[data-testid=score-table]")
    for label in ("melded cards", "canastas", "3s", "going out", "total"):
        assert label in lines
    assert "Your side" in lines and "Their side" in lines
    totals = page.text_content("[data-testid=match-totals]")
    assert "Match totals" in totals and "playing to 2500" in totals


def test_review_steps_through_a_deal_from_the_seat_and_open(page, server):
    new_game(page, "python_page_one", seed=3, bots="rules", params={"players": 3})
    while status(page) == "your_turn":
        click_first(page, "[data-testid=hand] .card.playable", "#action-bar button[data-action]")
    page.click("[data-testid=deal-review]")
    assert status(page) == "review"
    game_id = page.evaluate("app.gameId")
    review = page.request.get(f"{server.url}api/games/{game_id}/review").json()
    steps = len(review["moves"]) + 1
    assert page.inner_text("[data-testid=review-position]") == f"1 / {steps}"
    felt = "[data-testid=review-table]"
    # From the seat: the others' hands are backs; open: every hand.
    page.click("[data-testid=review-last]")
    assert page.inner_text("[data-testid=review-position]") == f"{steps} / {steps}"
    page.click("[data-testid=review-first]")
    page.click("[data-testid=review-mine]")
    index = int(page.evaluate("app.reviewIndex"))
    assert review["moves"][index]["seat"] == 0
    assert page.locator(f"{felt} [data-testid^=open-hand]").count() == 0
    page.check("[data-testid=review-open]")
    assert page.locator(f"{felt} [data-testid^=open-hand]").count() == 2
    open_cards = page.locator(f"{felt} [data-testid=open-hand-1] [data-testid=card]").count()
    assert open_cards == int(page.get_attribute(f"{felt} [data-testid=player-1]", "data-cards"))
    page.uncheck("[data-testid=review-open]")
    page.keyboard.press("ArrowRight")
    assert int(page.evaluate("app.reviewIndex")) == index + 1
    # The flagged mistakes: one entry each, the cost shown, the total lost above.
    flagged = [i for i, m in enumerate(review["moves"]) if m["mistake"]]
    items = page.locator("[data-testid=mistake-item]")
    assert items.count() == len(flagged)
    # One numbering: the slider's position, the log's numbers and the mistakes list's "move k".
    position = int(page.inner_text("[data-testid=review-position]").split(" / ")[0])
    numbers = [int(n) for n in page.eval_on_selector_all("[data-testid=review-log-line]", "ls => ls.map(l => l.dataset.move)")]
    assert numbers == list(range(1, position + 1)) and page.inner_text("[data-testid=review-move]").startswith(f"Move {position}:")
    assert page.locator("[data-testid=luck-line]").all_inner_texts() == [line["text"] for line in review["luck"]]
    if flagged:
        items.first.click()
        assert int(page.evaluate("app.reviewIndex")) == flagged[0]
        assert f"move {flagged[0] + 1}:" in items.first.inner_text()
        assert page.inner_text("[data-testid=review-position]").startswith(f"{flagged[0] + 1} / ")
        box = page.inner_text("[data-testid=review-mistake]")
        assert box.startswith("Mistake:") and "better by" in box
        assert f"{len(flagged)} mistake" in page.inner_text("[data-testid=review-lost]")
    else:
        assert page.inner_text("[data-testid=review-lost]") == "no mistake found"
    page.check("[data-testid=review-open]")
    shoot(page, "review")
    page.click("[data-testid=review-close]")
    assert status(page) == "match_over"

    # Take the seat over from the human's first decision: a new game from that position.
    page.click("[data-testid=review-button]")
    assert status(page) == "review"
    page.click("[data-testid=review-mine]")
    index = int(page.evaluate("app.reviewIndex"))
    cards = page.locator(f"{felt} [data-testid=review-hand] [data-testid=hand-card]").all_inner_texts()
    page.click("[data-testid=review-takeover]")
    assert status(page) == "your_turn"
    assert page.evaluate("app.gameId") != game_id
    assert page.locator("[data-testid=hand] [data-testid=hand-card]").all_inner_texts() == cards
    assert f"taken over at move {index + 1} of the review" in page.inner_text("[data-testid=status-line]")


def test_a_bot_over_its_time_forfeits_with_a_clear_message(page, server):
    page.select_option("[data-testid=game-select]", "python_page_one")
    page.fill("[data-testid=param-players]", "2")
    page.fill("[data-testid=time-limit]", "0.05")
    # Seed 0 deals p1 the lead with four cards to choose from: the bot searches at once. (A random
    # deal could give it only forced moves, which it answers without searching, inside the limit.)
    page.fill("[data-testid=seed-input]", "0")
    page.fill("[data-testid=bot-1]", "ismcts(iterations=2000)")
    page.click("[data-testid=start-game]")
    page.wait_for_selector("[data-testid=hand]")
    while status(page) == "your_turn":
        click_first(page, "[data-testid=hand] .card.playable", "#action-bar button[data-action]")
    assert status(page) == "match_over"
    fault = page.inner_text("[data-testid=fault]")
    assert "p1's bot (ismcts(iterations=2000))" in fault and "limit 0.05 s" in fault and "forfeits" in fault
    assert "error" in page.get_attribute("[data-testid=status-line]", "class")
    assert page.inner_text("#deal-over-title") == "Game over: a bot forfeited"
    assert page.locator("[data-testid=next-deal]").is_hidden()
