"""The play table as players expect it (issue 47), in the real browser: the form's defaults per
game and variant deal (no bot that cannot play), a move with one legal action never waits for a
click, and the hand and the action bar fit a 1366x768 screen without scrolling. The fixtures
and helpers are tests/test_play_browser.py's (the real server under uvicorn, Debian chromium)."""

from __future__ import annotations

import pytest

from tests.test_play_browser import (CHROMIUM, LAUNCH_ARGS, MAX_CLICKS, browser, click_first,  # noqa: F401
                                     legal_on_page, page, server, session_of, shoot, status)

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium on this machine: the browser tests need one")


def choose_game(page, game: str, checks: tuple[str, ...] = ()) -> None:
    """Chooses `game` (and ticks `checks`) on the form, waiting for the variant's levels."""
    page.select_option("[data-testid=game-select]", game)
    for name in checks:
        page.check(f"[data-testid=param-{name}]")
    page.wait_for_function("""([game, checks]) => {
        const asked = document.body.dataset.levels && JSON.parse(document.body.dataset.levels);
        return asked && asked.game === game && checks.every((c) => asked.params[c] === true);
    }""", arg=[game, list(checks)])


@pytest.mark.parametrize("game, checks, level", [
    ("python_classic_canasta", (), "classic-canasta-club"),
    ("python_american_page_one", ("dobon",), "american-page-one-club"),
])
def test_the_form_deals_with_its_defaults_per_game_and_variant(page, server, game, checks, level):
    # The form starts at another game, whose default is its network's search: choosing this game
    # (and Dobon, which the networks refuse) must leave no seat with a bot that cannot play.
    choose_game(page, game, checks)
    for field in page.locator("[data-bot-seat]").all():
        assert field.input_value() == level
    note = page.locator("[data-testid=level-1]").inner_text()
    assert note.startswith("club: the rule bot itself") and "Elo over random [" in note
    page.click("[data-testid=start-game]")
    page.wait_for_selector("[data-testid=hand]")
    assert status(page) in ("your_turn", "deal_over", "match_over")
    assert page.inner_text("[data-testid=status-line]") and not page.locator(".field-error:not(:empty)").count()


def test_no_decision_with_one_legal_action_waits_for_a_click(page, server):
    # Dobon on: most of the human's decisions were the lone "no Dobon" (327 of 516 in the issue).
    choose_game(page, "python_american_page_one", ("dobon",))
    for field in page.locator("[data-bot-seat]").all():
        field.fill("rules")
    page.fill("[data-testid=seed-input]", "3")
    page.click("[data-testid=start-game]")
    page.wait_for_selector("[data-testid=hand]")
    clicks = 0
    while status(page) == "your_turn":
        session = session_of(server, page)
        with session.lock:
            legal = session.state.legal_actions()
            waiting = session.state.current_player() == session.spec.seat
        assert not waiting or len(legal) > 1, "a decision with one legal action waited for a click"
        assert legal_on_page(page) == set(legal)
        click_first(page, "[data-testid=hand] .card.playable", "#action-bar button[data-action]",
                    "#prompt button[data-action]")
        clicks += 1
        assert clicks < MAX_CLICKS
    assert status(page) in ("deal_over", "match_over")
    assert session_of(server, page).auto_played > 0, "no forced move was played for the human"
    said = [t for t in page.locator("#log li").all_inner_texts() if t.startswith("played for you")]
    assert len(said) == 1 and f"({session_of(server, page).auto_played}):" in said[0]     # one line for them all


def test_the_hand_and_the_actions_fit_1366x768_all_through_a_canasta_hand(browser, server):
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    page = context.new_page()
    page.set_default_timeout(30_000)
    page.goto(server.url)
    page.wait_for_selector("[data-testid=start-game]")
    choose_game(page, "python_modern_canasta")
    for field in page.locator("[data-bot-seat]").all():
        field.fill("rules")
    page.fill("[data-testid=seed-input]", "8")
    page.click("[data-testid=start-game]")
    page.wait_for_selector("[data-testid=hand]")
    turns = 0
    while status(page) == "your_turn":
        boxes = page.evaluate("""() => ['[data-testid=hand]', '#action-bar'].map((s) => {
            const r = document.querySelector(s).getBoundingClientRect();
            return {s, top: r.top + window.scrollY, bottom: r.bottom + window.scrollY, width: r.width};
        })""")
        for box in boxes:
            assert box["bottom"] <= 768 and box["top"] >= 0, f"{box['s']} ends at {box['bottom']:.0f} px (turn {turns})"
        if turns == 12:         # late enough in the hand for melds on both sides
            shoot(page, "table_1366")
        # the rule-bot-like click order: meld or take where offered, else the first card
        click_first(page, "#action-bar button[data-action]", "[data-testid=hand] .card.playable",
                    "#prompt button[data-action]")
        turns += 1
        assert turns < MAX_CLICKS
    assert turns > 12
    context.close()


def test_the_hint_gives_points_intervals_and_a_plain_verdict(page, server):
    choose_game(page, "python_american_page_one")
    for field in page.locator("[data-bot-seat]").all():
        field.fill("rules")
    page.fill("[data-testid=seed-input]", "1")
    page.click("[data-testid=start-game]")
    page.wait_for_selector("[data-testid=hand]")
    assert status(page) == "your_turn"
    with page.expect_response(lambda r: r.url.endswith("/hint")) as answer:
        page.click("[data-testid=hint-button]")
    hint = answer.value.json()
    page.wait_for_selector("[data-testid=hint-row]")
    assert hint["points_per_unit"] == 1.0 and hint["noticeable"] == 10.0
    verdicts = page.locator("[data-testid=hint-verdict]").all_inner_texts()
    shown = hint["values"][:len(verdicts)]
    assert verdicts[0] in ("clearly best", "best")
    for value, verdict in zip(shown[1:], verdicts[1:]):
        if value["gap_high"] <= hint["noticeable"]:
            assert verdict == "about equal"
        elif value["gap_low"] > hint["noticeable"]:
            assert verdict == f"mistake, about {round(value['gap'])} points"
        else:
            assert verdict == "perhaps worse"
    assert "points" in page.inner_text("[data-testid=hint-table] thead")


def test_a_whole_canasta_hand_melded_by_selecting_cards(page, server):
    choose_game(page, "python_modern_canasta")
    for field in page.locator("[data-bot-seat]").all():
        field.fill("rules")
    page.fill("[data-testid=seed-input]", "8")
    page.click("[data-testid=start-game]")
    page.wait_for_selector("[data-testid=hand]")
    melded = clicks = 0
    while status(page) == "your_turn":
        view = page.evaluate("app.view")
        melds = [a for a in view["actions"] if a["kind"] == "meld"]
        if page.locator("#prompt button[data-action]").count():
            page.locator("#prompt button[data-action]").first.click()
        elif melds:
            wanted = melds[0]
            if not page.locator(".hand.selecting").count():
                page.click("[data-testid=select-meld]")
            # select the meld's cards in the hand, one card of the hand for each
            free = list(range(len(view["hand"])))
            for card in wanted["cards"]:
                index = next(i for i in free if view["hand"][i]["text"] == card["text"])
                free.remove(index)
                page.locator("[data-testid=hand] [data-testid=hand-card]").nth(index).click()
            offered = page.locator("#action-bar [data-testid=action-meld]")
            labels = offered.evaluate_all("bs => bs.map(b => b.dataset.label)")
            same = sorted(c["text"] for c in wanted["cards"])
            assert wanted["label"] in labels and all(
                sorted(c["text"] for c in a["cards"]) == same for a in melds if a["label"] in labels)
            page.click(f"#action-bar [data-testid=action-meld][data-action='{wanted['action']}']")
            melded += 1
        else:
            if page.locator(".hand.selecting").count():
                page.click("[data-testid=select-meld]")          # done selecting: the cards discard again
            click_first(page, "[data-testid=action-draw]", "[data-testid=action-pile]",
                        "[data-testid=hand] .card.playable", "#action-bar button[data-action]")
        clicks += 1
        assert clicks < MAX_CLICKS
    assert status(page) in ("deal_over", "match_over") and melded >= 3
