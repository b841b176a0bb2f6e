"""The table's words and glances (issue 47): the moves played for the person said in one log
line, "you" for the person's seat (and never for a bot's seat in a tournament's review), the
review's luck-and-skill line and its one move numbering, each side's running score and the
next player on the felt, the unfinished games pinned in the records list, and the table on a
phone. The browser tests use tests/test_play_browser.py's server and chromium."""

from __future__ import annotations

import dataclasses
import os
import random
import shutil
import time

import pytest

import games  # noqa: F401
from games.view import seat_log
from play.options import GameSpec
from play.review import review_record
from play.session import Session
from play.words import table_log, yours
from tests.test_play_browser import CHROMIUM, browser, server, shoot, status  # noqa: F401


def rules_human(session: Session, check=None) -> None:
    """Plays the person's seat by the rule bot to the end of the deal (`check` at each turn)."""
    from agents import make_bot
    me = make_bot("rules", session.game, session.spec.seat, 0)
    session.run_bots()
    while not session.deal_over:
        if check is not None:
            check(session)
        session.act(me.step(session.state), session.view()["turn"])


def test_yours_says_the_persons_seat_in_the_second_person():
    assert yours("p0 plays 10♠", 0) == "you play 10♠"
    assert yours("p0 passes", 0) == "you pass" and yours("p0 is out", 0) == "you are out"
    assert yours("p0 does not call dobon", 0) == "you do not call dobon"
    assert yours("p0 withdraws its initial meld", 0) == "you withdraw your initial meld"
    assert yours("p0 completes its initial meld and takes the pile", 0) == \
        "you complete your initial meld and take the pile"
    assert yours("p2 shows p0 its hand", 0) == "p2 shows you its hand"
    assert yours("7♠ back to p0", 0) == "7♠ back to you" and yours("p0 dealt red 3", 0) == "you were dealt red 3"
    assert yours("p1 plays 10♠", 0) == "p1 plays 10♠" and yours("p10 plays", 1) == "p10 plays"


def test_the_moves_played_for_the_person_are_one_log_line_and_the_log_never_leaks():
    # Dobon on: most of the person's decisions are the lone "no Dobon".
    spec = GameSpec("python_american_page_one", {"dobon": True}, 0, {1: "rules", 2: "rules", 3: "rules"},
                    None, 3, 2.0, 0.0)
    session = Session(spec, "forced", None, threaded=False)
    rng = random.Random(0)
    compared = 0

    def same_in_every_world(s: Session) -> None:
        nonlocal compared
        core = s.state.core
        world = core.resample_from_infostate(0, rng.random)
        assert table_log(world, 0, s.forced_lines) == table_log(core, 0, s.forced_lines)
        compared += 1

    rules_human(session, same_in_every_world)
    view = session.view()
    log = view["said"]
    assert view["log"] == seat_log(session.state.core, 0)      # the seat view's own, as the contract has it
    core = session.state.core
    raw = core.information_state_string(0).split("\n")
    assert session.auto_played > 5 and len(session.forced_lines) == session.auto_played
    assert all(raw[i].startswith("p0 ") for i in session.forced_lines)
    (line,) = [entry for entry in log if entry["text"].startswith("played for you")]
    assert line["seat"] == 0 and set(line) == {"seat", "text"}      # a LogLine of the view schema
    assert f"({session.auto_played}):" in line["text"] and "do not call dobon ×" in line["text"]
    # Every other line is the seat's own log, in its order, the person said as "you".
    others = [e["text"] for e in log if e is not line]
    everything = [yours(e["text"], 0) for e in seat_log(core, 0)]
    assert len(others) < len(everything) and set(others) <= set(everything)
    assert not any(t.startswith("p0 ") for t in others) and any(t.startswith("you play ") for t in others)
    assert compared > 5
    # The table's view (less the session's own fields) is still the game's seat view, by its schema.
    from jsonschema import Draft202012Validator
    from games.view import view_schema
    schema = view_schema(session.game)
    Draft202012Validator(schema).validate({k: v for k, v in view.items() if k in schema["properties"]})
    Draft202012Validator(schema).validate({**{k: v for k, v in view.items() if k in schema["properties"]}, "log": log})


def test_the_review_says_you_only_for_a_person_and_gives_the_deals_luck():
    spec = GameSpec("python_modern_canasta", {}, 0, {1: "rules", 2: "rules", 3: "rules"}, "target=2500", 2, 2.0, 0.0)
    session = Session(spec, "words", None, threaded=False)
    rules_human(session)
    record = session.records[-1]
    mine = review_record(record, 0, analyse_moves=False)
    texts = [m["text"] for m in mine["moves"]] + [e["text"] for e in mine["final"]["log"]]
    assert mine["person"] and any(t.startswith("you ") for t in texts)
    assert not any(t.startswith("p0 ") or " p0 " in t for t in texts)
    assert mine["final"]["players"][0]["name"] == "You"
    luck = mine["luck"]
    assert [line["seats"] for line in luck] == [[0, 2], [1, 3]]
    assert luck[0]["text"].startswith("your side (you, p2): made ")
    assert luck[1]["text"].startswith("their side (p1, p3)")
    for line in luck:        # made = luck + skill, in points, as eval.luck measures them
        assert line["made"] == pytest.approx(line["luck"] + line["skill"])
    assert luck[0]["made"] == pytest.approx(record.returns[0] * 1000, abs=1)
    # The same deal as a tournament's (every seat a bot): seat 0 is "p0", never "you".
    bots = dataclasses.replace(record, annotations=None,
                               players=[dataclasses.replace(p, agent="rules", spec="rules") for p in record.players])
    theirs = review_record(bots, 0, analyse_moves=False)
    texts = [m["text"] for m in theirs["moves"]] + [m["open_text"] for m in theirs["moves"]]
    assert not theirs["person"] and not any("you" in t.split() for t in texts)
    assert any(t.startswith("p0 ") for t in texts) and theirs["final"]["players"][0]["name"] == "p0"
    assert theirs["luck"][0]["text"].startswith("side (p0, p2): made ")
    # An unfinished deal's luck reads hidden cards: none is given.
    assert review_record(dataclasses.replace(record, returns=None), 0, analyse_moves=False)["luck"] == []


# ------------------------------------------------------------------ in the browser
browser_only = pytest.mark.skipif(CHROMIUM is None, reason="no chromium on this machine: the browser tests need one")


def new_page(browser, server, width: int, height: int):
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.set_default_timeout(30_000)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server.url)
    page.wait_for_selector("[data-testid=start-game]")
    return context, page, errors


def deal(page, game: str, seed: int) -> None:
    page.select_option("[data-testid=game-select]", game)
    page.wait_for_function("(game) => document.body.dataset.levels"
                           " && JSON.parse(document.body.dataset.levels).game === game", arg=game)
    for field in page.locator("[data-bot-seat]").all():
        field.fill("rules")
    page.fill("[data-testid=seed-input]", str(seed))
    page.click("[data-testid=start-game]")
    page.wait_for_selector("[data-testid=hand]")


def session_of(server, page) -> Session:
    return server.table.sessions[page.evaluate("app.gameId")]


BOXES = """() => ({width: document.documentElement.scrollWidth, boxes: ['[data-testid=hand]', '#action-bar']
    .map((s) => { const r = document.querySelector(s).getBoundingClientRect();
                  return {s, left: r.left, right: r.right, top: r.top, bottom: r.bottom}; })})"""


@browser_only
@pytest.mark.parametrize("game, seed", [("python_modern_canasta", 8), ("python_american_page_one", 1)])
def test_a_phone_keeps_the_hand_and_the_actions_in_view_and_the_felt_shows_the_score(browser, server, game, seed):
    context, page, errors = new_page(browser, server, 390, 844)
    deal(page, game, seed)
    turns = 0
    while status(page) == "your_turn" and turns < 4:
        seen = page.evaluate(BOXES)
        assert seen["width"] <= 390, f"the page scrolls sideways ({seen['width']} px wide)"
        for box in seen["boxes"]:
            assert box["left"] >= 0 and box["right"] <= 390 and box["top"] >= 0 and box["bottom"] <= 844, box
        # The felt: each side's match standing (as the session counts it) and, with melds, this hand's.
        session = session_of(server, page)
        view = page.evaluate("app.view")
        with session.lock:
            totals, sides = session._totals(), session._sides()
            direction = getattr(session.state.core, "dir", None)
            mover = session.state.current_player()
        chips = page.locator("[data-testid=scoreboard] [data-testid^=score-]")
        assert chips.count() == len(totals) == len(set(sides))
        assert [float(c.get_attribute("data-total")) for c in chips.all()] == totals
        for side in range(len(totals)):
            melds = [m for z in view["zones"] if z["side"] == side and z["melds"] is not None for m in z["melds"]]
            shown = page.locator(f"[data-testid=melded-{side}]")
            if game == "python_modern_canasta":
                assert int(shown.get_attribute("data-cards")) == sum(len(m["cards"]) for m in melds)
                assert int(shown.get_attribute("data-canastas")) == sum(bool(m["canasta"]) for m in melds)
                assert int(shown.get_attribute("data-points")) == sum(m["points"] for m in melds)
            else:
                assert shown.count() == 0
        if direction is not None:       # American Page One: the next player, the rules' way round
            marked = page.locator("[data-testid=next-player]")
            assert marked.count() == 1
            seat = int(marked.locator("xpath=ancestor::*[@data-seat][1]").get_attribute("data-seat"))
            assert seat == (mover + direction) % len(sides)
            assert ("↻" if direction == 1 else "↺") in marked.inner_text()
        if turns == 3 and game == "python_modern_canasta":
            shoot(page, "phone")
        page.locator("#action-bar button[data-action], [data-testid=hand] .card.playable, "
                     "#prompt button[data-action]").first.dispatch_event("click")
        turns += 1
    assert turns >= 2 and not errors
    context.close()


@browser_only
def test_an_unfinished_game_stays_pinned_past_eight_finished_records_and_continues(browser, server):
    folder = server.records
    finished = Session(GameSpec("python_page_one", {"players": 2}, 0, {1: "random"}, None, 4, 2.0, 0.0),
                       "finished-0", folder, threaded=False)
    rules_human(finished)
    unfinished = Session(GameSpec("python_page_one", {"players": 2}, 0, {1: "random"}, None, 5, 2.0, 0.0),
                         "unfinished-0", folder, threaded=False)
    unfinished.run_bots()
    unfinished.act(unfinished.state.legal_actions()[0], unfinished.view()["turn"])
    unfinished.close()
    stale = folder / "unfinished-0.unfinished.json"
    assert stale.is_file()
    past = time.time() - 3600
    os.utime(stale, (past, past))           # older than every finished record
    for k in range(1, 10):
        copy = folder / f"finished-{k}.jsonl"
        shutil.copy(folder / "finished-0.jsonl", copy)
        os.utime(copy, (past + 60 * k, past + 60 * k))
    # The same deal as a tournament's, every seat a bot: its review says "p0", never "you".
    from records.record import load_records, write_records
    (record,) = load_records(folder / "finished-0.jsonl")
    bots = [dataclasses.replace(p, agent="rules", spec="rules") for p in record.players]
    write_records(folder / "bots.jsonl", [dataclasses.replace(record, annotations=None, players=bots)])
    context, page, errors = new_page(browser, server, 1366, 768)
    page.wait_for_selector("[data-testid=record-continue]")
    rows = page.locator("[data-testid=record]")
    assert rows.count() == 8 and page.locator("[data-testid=record-continue]").count() >= 1
    assert rows.first.locator(".chip.unfinished").count() == 1     # pinned at the top
    page.locator("[data-testid=record]:has(.record-name[title$='bots.jsonl']) [data-testid=record-review]").click()
    assert status(page) == "review"
    assert page.inner_text("[data-testid=review-mistakes] h3").lower() == "p0's mistakes"
    page.click("[data-testid=review-last]")
    shown = " ".join((page.inner_text("[data-testid=review]") + " " + page.inner_text("#log")).split())
    assert "You" not in shown and " you " not in f" {shown} " and "p0" in shown
    page.click("[data-testid=review-close]")
    page.wait_for_selector("[data-testid=record-continue]")
    page.locator("[data-testid=record-continue]").last.click()
    page.wait_for_selector("[data-testid=hand]")
    assert status(page) in ("your_turn", "deal_over", "match_over")
    continued = session_of(server, page)
    assert continued.spec.seed == 5 and not stale.exists()      # the stale game's, its file claimed
    assert len(continued.state.history()) > len(unfinished.state.history()) - 1
    assert not errors
    context.close()
