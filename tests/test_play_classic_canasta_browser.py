"""Classic Canasta in a real headless browser (the fixtures and helpers of tests/test_play_browser.py):
the form's seats for three and four players, then a three-player game started from the page and
played by clicks, each time the page offering exactly the legal actions."""

from __future__ import annotations

import pytest

from tests.test_play_browser import (CHROMIUM, browser, click_first, legal_on_page, new_game, page,  # noqa: F401
                                     server, session_of, shoot, status, zone)

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium on this machine: the browser tests need one")
GAME = "python_classic_canasta"


def test_classic_canasta_from_the_page_for_three_then_the_seats_of_four(page, server):  # noqa: F811
    page.select_option("[data-testid=game-select]", GAME)
    page.fill("[data-testid=param-players]", "4")
    seats = page.locator("[data-testid=seat-select] option").all_inner_texts()
    assert seats == ["seat 0 (side 0, 2)", "seat 1 (side 1, 3)", "seat 2 (side 0, 2)", "seat 3 (side 1, 3)"]
    assert "your partner" in page.inner_text("[data-field='bots.2']")
    assert page.locator("[data-testid=match-select] option").all_inner_texts() == [
        "2,500 points", "5,000 points", "7,500 points", "10,000 points"]
    assert page.input_value("[data-testid=match-select]") == "5000"
    page.fill("[data-testid=param-players]", "3")
    assert page.input_value("[data-testid=match-select]") == "7500"        # the match's default for three

    assert new_game(page, GAME, seed=3, bots="rules", params={"players": 3}) == "your_turn"
    assert page.locator("[data-testid=seat-select] option").count() == 3
    for name in ("Pile", "Stock", "Melds: you", "Melds: p1", "Melds: p2", "Red 3s: p1"):
        assert zone(page, "#felt", name).count() == 1, name
    assert "side-2" in zone(page, "#felt", "Melds: p2").get_attribute("class")
    assert page.locator("#felt .chip.partner").count() == 0          # each for himself
    decisions, kinds = 0, set()
    while status(page) == "your_turn" and decisions < 12:
        legal = legal_on_page(page)
        session = session_of(server, page)
        with session.lock:
            assert legal == set(session.state.legal_actions()), "the page offers other actions than the legal ones"
        kinds |= set(page.eval_on_selector_all("#action-bar button[data-action]",
                                               "nodes => nodes.map(n => n.dataset.label)"))
        click_first(page, "[data-testid=action-meld]", "[data-testid=action-draw]",
                    "[data-testid=hand] .card.playable", "#action-bar button[data-action]")
        decisions += 1
    assert decisions >= 4 and "draw 2 from the stock" in kinds
    assert page.locator("[data-testid=log] li").count() > decisions
    shoot(page, "classic_canasta")
    assert int(page.locator("[data-testid=player-1]").get_attribute("data-cards")) == \
        page.locator("[data-testid=player-1] .back").count()
