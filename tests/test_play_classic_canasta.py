"""Classic Canasta at the table: `cardarena list`, the options, a whole hand for 2, 3 and 4
players through the HTTP API against rule bots, the sides (partnerships with four, each for
himself with two or three), the match, a forfeit, the review and the terminal mode. The
view-leak check is in tests/test_play_api.py (VARIANTS)."""

from __future__ import annotations

import io

import pytest

import games  # noqa: F401
from agents import BOT_FACTORIES
from agents.presets import expand
from records.record import load_records
from play.options import GameSpec, parse_new_game
from play.session import Session
from play.text import run_text
from tests.test_play_api import client, settle  # noqa: F401  (the API's fixture and helper)

GAME = "python_classic_canasta"


def test_list_shows_classic_canasta_with_its_parameters(capsys):
    from scripts.cli import main
    main(["list", "games"])
    out = capsys.readouterr().out
    block = out.split(f"\n{GAME}: ")[1].split("\n\n")[0]
    assert block.startswith("Classic Canasta") and "2 to 4 players" in block
    rows = {line.split()[0]: line for line in block.splitlines()[1:] if " default " in line}
    assert set(rows) == {"players", "score0", "score1", "score2", "first_player", "last_red_three"}
    assert rows["players"].split()[1:] == ["default", "4", "[2,", "4]"]
    assert rows["first_player"].split()[1:] == ["default", "0", "[0,", "players", "-", "1]"]
    assert "    sides: 4 players [0, 1, 0, 1]" in block and "set for each deal: score0, score1, score2" in block


def test_options_offer_classic_canasta_for_two_three_and_four(client):  # noqa: F811
    by_name = {g["name"]: g for g in client.get("/api/options").json()["games"]}
    classic = by_name[GAME]
    assert classic["title"] == "Classic Canasta" and classic["players"] == [2, 3, 4]
    assert [p["name"] for p in classic["params"]] == ["players", "last_red_three"]  # the scores are the match's
    assert classic["match"] == {"kind": "target", "choices": [2500, 5000, 7500, 10000], "default": 5000,
                                "defaults": {"3": 7500}}
    from games.classic_canasta.match import ClassicCanastaMatch
    assert [ClassicCanastaMatch(n).target for n in (2, 3, 4)] == [5000, 7500, 5000]
    assert classic["sides"] == {"4": [0, 1, 0, 1]} and by_name["python_page_one"]["sides"] == {}
    bad = client.post("/api/games", json={"game": GAME, "params": {"score0": 100}}).json()
    assert bad["field"] == "params.score0" and "unknown parameter" in bad["error"]
    bad = client.post("/api/games", json={"game": GAME, "match": "target=8500"}).json()
    assert bad["field"] == "match" and "2500, 5000, 7500, 10000" in bad["error"]
    assert client.post("/api/games", json={"game": GAME, "params": {"players": 5}}).json()["field"] == "params.players"


def melds_first(view: dict) -> int:
    """A human who melds whatever it can, else plays the first legal action (draw, withdraw, discard)."""
    melds = [a for a in view["actions"] if a["kind"] == "meld"]
    return (melds[0] if melds else view["actions"][0])["action"]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_whole_classic_hand_through_the_api_against_rule_bots(client, tmp_path, players):  # noqa: F811
    sides = 2 if players == 4 else players
    r = client.post("/api/games", json={"game": GAME, "params": {"players": players}, "seed": 3,
                                        "match": "target=5000", "bots": {str(s): "rules" for s in range(1, players)},
                                        "auto": False})    # the lone draws too are the human's: their labels are checked
    assert r.status_code == 200, r.json()
    game_id = r.json()["id"]
    view = settle(client, game_id)
    assert [p["side"] for p in view["players"]] == [s % sides for s in range(players)]
    names = [z["name"] for z in view["zones"]]
    assert names[:2] == ["Pile", "Stock"]
    if players == 4:
        assert {"Melds: your side", "Melds: their side", "Red 3s: your side"} <= set(names)
    else:
        assert {"Melds: you", "Red 3s: you"} | {f"Melds: p{s}" for s in range(1, players)} <= set(names)
    if players == 2:      # a hint values the legal actions, each with its label
        hint = client.post(f"/api/games/{game_id}/hint", json={"worlds": 4}).json()
        labels = {a["action"]: a["label"] for a in view["actions"]}
        assert {v["action"] for v in hint["values"]} == set(labels)
        assert all(v["label"] == labels[v["action"]] for v in hint["values"])
    draws: set[str] = set()
    for _ in range(2000):
        if view["status"] in ("deal_over", "match_over"):
            break
        assert view["status"] == "your_turn"
        hand_actions = {c["action"] for c in view["hand"] if c["action"] is not None}
        assert hand_actions <= {a["action"] for a in view["actions"] if a["kind"] == "card"}
        for a in view["actions"]:
            if a["kind"] == "draw":
                draws.add(a["label"])
            if a["kind"] == "meld":
                assert a["label"].startswith(("meld ", "add ")) and a["cards"]
        r = client.post(f"/api/games/{game_id}/action", json={"action": melds_first(view), "turn": view["turn"]})
        assert r.status_code == 200, r.json()
        view = settle(client, game_id)
    assert draws and draws <= {"draw from the stock" if players == 4 else "draw 2 from the stock",
                               "end the hand (the stock is empty)"}
    score = view["score"]
    assert len(score["total"]) == sides and len(score["returns"]) == players
    assert [sum(line["values"][s] for line in score["lines"]) for s in range(sides)] == score["total"]
    labels = [line["label"] for line in score["lines"]]
    assert labels[0] == "melded cards" and labels[-3:] == ["red 3s", "going out", "cards in hand"]
    assert set(labels[1:-3]) <= {"natural canastas", "mixed canastas"}
    assert view["match"]["totals"] == score["total"] and view["match"]["target"] == 5000
    (record,) = load_records(tmp_path / "records" / f"{game_id}.jsonl")
    assert record.returns == pytest.approx(score["returns"]) and record.match["format"] == "target=5000"
    assert [p.agent for p in record.players] == ["human"] + ["rules"] * (players - 1)
    assert view["status"] == "deal_over"       # no side has 5,000 after one hand of these deals
    # The next hand starts from the running scores.
    session = client.table.sessions[game_id]
    params = session.match.next_params()
    assert [params[f"score{s}"] for s in range(sides)] == score["total"] and params["first_player"] == 1
    client.post(f"/api/games/{game_id}/next", json={})
    second = settle(client, game_id)
    assert second["match"]["deal"] == 2 and second["match"]["totals"] == score["total"]
    shown = [z["text"] for z in second["zones"] if z["name"].startswith("Melds: ")]
    assert [t.split(";")[0] for t in shown] == [f"score {v}" for v in score["total"]]


def test_the_review_of_a_classic_hand_counts_points_per_side(tmp_path):
    spec = GameSpec(GAME, {"players": 2}, 0, {1: "rules"}, None, 4, 2.0, 0.0)
    session = Session(spec, "review", tmp_path, threaded=False, analysis_worlds=2)
    session.run_bots()
    while not session.deal_over:
        view = session.view()
        session.act(melds_first(view), view["turn"])
    review = session.review()
    (record,) = load_records(tmp_path / "review.jsonl")
    assert review["game"] == GAME and review["points_per_unit"] == 1000.0
    assert len([m for m in review["moves"] if m["seat"] is not None]) == sum(m.actor >= 0 for m in record.moves)
    assert all(len(p["hand"]) == p["cards"] for p in review["final"]["players"])
    assert all("hand" not in p for m in review["moves"] for p in m["view"]["players"])
    assert review["lost"] == pytest.approx(sum(m["mistake"]["cost"] for m in review["moves"] if m["mistake"]))
    assert session.view()["message"].startswith("hand over: you ")
    # A person takes p1's seat from move 40: the same bots elsewhere, the game goes on from there.
    taken = Session.from_record(record, "taken", None, seat=1, move=40, threaded=False)
    taken.run_bots()
    view = taken.view()
    # the seat the person left gets the variant's default level: here the rule bot
    assert view["seat"] == 1 and view["turn"] >= 40 and [expand(p["agent"]) for p in view["players"]] == ["rules", "human"]


@pytest.fixture
def raising_bot(monkeypatch):
    monkeypatch.setitem(BOT_FACTORIES, "play_test_raiser", "tests.test_play_api:RaisingBot")


@pytest.mark.parametrize("players,returns", [(3, [4.83, -9.66, 4.83]), (4, [9.66, -9.66, 9.66, -9.66])])
def test_a_forfeit_costs_the_faulty_side_only(tmp_path, raising_bot, players, returns):
    """Each for himself with three, so the others share; with four p1's partner p3 loses too."""
    bots = {s: "rules" for s in range(1, players)}
    bots[1] = "play_test_raiser"
    session = Session(GameSpec(GAME, {"players": players}, 0, bots, None, 1, 2.0, 0.0), "f", tmp_path, threaded=False)
    session.run_bots()
    while session.view()["status"] == "your_turn":
        view = session.view()
        session.act(view["actions"][0]["action"], view["turn"])
    view = session.view()
    assert view["fault"]["seat"] == 1 and view["score"]["returns"] == pytest.approx(returns)


def test_classic_canasta_in_the_terminal(tmp_path):
    spec = parse_new_game({"game": GAME, "params": {"players": 3}, "seed": 6,
                           "bots": {"1": "rules", "2": "rules"}}, pause=0.0)
    out = io.StringIO()
    assert run_text(spec, tmp_path, stdin=io.StringIO("1\n" * 400), stdout=out, session_id="t3") == 0
    text = out.getvalue()
    assert "== Classic Canasta · deal 1 of 1 ==" in text and "  Pile: " in text
    assert "  Melds: you: " in text and "  Melds: p2: " in text and "  Red 3s: p1: " in text
    assert "    1. draw 2 from the stock" in text and text.rstrip().endswith("match over.")
    assert "  red 3s: " in text and "  cards in hand: " in text
    assert "  Red 3s: you: 3r" in text          # a 3's colour in words, as the page shows it in colour
    (record,) = load_records(tmp_path / "t3.jsonl")
    assert record.returns is not None and len(record.returns) == 3
