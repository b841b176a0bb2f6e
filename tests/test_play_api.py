"""The table's HTTP API (docs/play-api.md), in-process through Starlette's TestClient: whole
games of each game played through it, the Canasta partnership's asks, every bad input, bot
faults, records saved and reopened, and the check that a seat's view leaks nothing."""

from __future__ import annotations

import json
import random
import time
import warnings

import pyspiel
import pytest

import games  # noqa: F401
from agents import BOT_FACTORIES
from agents.random_bot import RandomBot
from records.record import load_records
from play.options import GameSpec
from play.server import Table, create_app
from play.session import Session
from games.view import seat_view

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

BASE_URL = "http://127.0.0.1:8765"      # the address create_app serves by default
JSON = {"Content-Type": "application/json"}


class AskingBot(RandomBot):
    """Asks its partner whenever it may; otherwise plays at random (Canasta)."""

    def step(self, state) -> int:
        legal = state.legal_actions()
        return 2 if 2 in legal else super().step(state)


class RaisingBot(RandomBot):
    def step(self, state) -> int:
        raise RuntimeError("this bot always fails")


class SlowBot(RandomBot):
    def step(self, state) -> int:
        time.sleep(0.3)
        return super().step(state)


@pytest.fixture
def test_bots(monkeypatch):
    """The bots above, by name, for this test only."""
    for name, cls in (("play_test_asker", "AskingBot"), ("play_test_raiser", "RaisingBot"),
                      ("play_test_slow", "SlowBot")):
        monkeypatch.setitem(BOT_FACTORIES, name, f"tests.test_play_api:{cls}")


@pytest.fixture
def client(tmp_path):
    table = Table(tmp_path / "records", pause=0.0, analysis_worlds=4)
    with TestClient(create_app(table), base_url=BASE_URL) as c:
        c.table = table
        yield c


def settle(client, game_id: str, timeout: float = 30.0) -> dict:
    """The view once the bots have stopped: the human's turn, or the deal's end."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        view = client.get(f"/api/games/{game_id}").json()
        if view["status"] != "bot_turn":
            return view
        time.sleep(0.005)
    raise AssertionError("the bots did not stop")


def play(client, game_id: str, choose, max_moves: int = 5000) -> dict:
    """Plays the human's moves with `choose(view) -> action` until the deal ends."""
    view = settle(client, game_id)
    for _ in range(max_moves):
        if view["status"] in ("deal_over", "match_over"):
            return view
        assert view["status"] == "your_turn", view["status"]
        r = client.post(f"/api/games/{game_id}/action", json={"action": choose(view), "turn": view["turn"]})
        assert r.status_code == 200, r.json()
        view = settle(client, game_id)
    raise AssertionError("the deal did not end")


# ------------------------------------------------------------------ options
def test_options_offer_every_game_parameter_and_bot(client):
    options = client.get("/api/options").json()
    by_name = {g["name"]: g for g in options["games"]}
    assert set(by_name) == {"python_page_one", "python_american_page_one", "python_modern_canasta",
                            "python_classic_canasta"}
    page_one = {p["name"]: p for p in by_name["python_page_one"]["params"]}
    assert page_one["hand_size"] == {**page_one["hand_size"], "type": "int", "min": 4, "max": 7, "default": 4}
    assert page_one["empty_stock"]["choices"] == ["pass", "reshuffle", "take"]
    apo = {p["name"] for p in by_name["python_american_page_one"]["params"]}
    assert {"dobon", "challenge", "skip", "multi_play"} <= apo and "scores" not in apo   # set by the match
    assert by_name["python_modern_canasta"]["players"] == [4]
    assert by_name["python_modern_canasta"]["match"]["kind"] == "target"
    specs = [b["spec"] for b in options["bots"]]
    assert "rules" in specs and "neural" in specs and any(s.startswith("ismcts") for s in specs)


def test_every_offered_bot_is_accepted_and_built_at_each_game_it_is_offered_at(tmp_path, monkeypatch):
    """From a directory that is not the project's, as a person may start the table."""
    import pyspiel
    from agents import make_bot
    from agents.presets import expand
    from play.levels import cannot_play
    from play.options import DEFAULT_TIME_LIMIT, bot_options, check_bot
    monkeypatch.chdir(tmp_path)
    strongest = {}
    for option in bot_options():
        for name in option["games"]:
            assert check_bot(option["spec"], name, DEFAULT_TIME_LIMIT, "bots.1") == expand(option["spec"])
            if option["spec"] != "neural" or cannot_play("neural", name) is None:    # no network for some games
                make_bot(option["spec"], pyspiel.load_game(name), 1, 0)
        if option["title"].startswith("Strongest"):
            strongest[option["spec"]] = option["games"]
    # each game's strongest measured search is offered at that game only
    assert sorted(g for games in strongest.values() for g in games) == [
        "python_american_page_one", "python_modern_canasta", "python_page_one"]
    assert all(len(games) == 1 for games in strongest.values())


# ------------------------------------------------------------- whole games
def test_a_whole_page_one_game_through_the_api_is_recorded_and_reviewed(client, tmp_path):
    r = client.post("/api/games", json={"game": "python_page_one", "params": {"players": 3},
                                        "bots": {"1": "random", "2": "rules"}, "seed": 11})
    assert r.status_code == 200, r.json()
    view = r.json()
    game_id = view["id"]
    assert len(game_id) >= 20 and view["seat"] == 0 and view["game"] == "python_page_one"
    rng = random.Random(0)

    def choose(v):
        hand_actions = [c["action"] for c in v["hand"] if c["action"] is not None]
        assert set(hand_actions) <= {a["action"] for a in v["actions"]}
        return rng.choice(v["actions"])["action"]

    final = play(client, game_id, choose)
    assert final["status"] == "match_over" and final["score"]["returns"]
    assert final["match"]["over"] and final["actions"] == []
    assert any(line["text"].startswith("you were dealt") for line in final["log"])
    files = list((tmp_path / "records").glob("*.jsonl"))
    assert [f.name for f in files] == [f"{game_id}.jsonl"]
    (record,) = load_records(files[0])
    assert record.returns == pytest.approx(final["score"]["returns"]) and record.seed == 11
    assert [p.agent for p in record.players] == ["human", "random", "rules"]
    assert not (tmp_path / "records" / f"{game_id}.unfinished.json").exists()

    review = client.get(f"/api/games/{game_id}/review").json()
    decisions = [m for m in review["moves"] if m["seat"] is not None]
    assert len(decisions) == sum(1 for m in record.moves if m.actor >= 0)
    assert all("hand" in p for p in review["moves"][0]["open"]["players"])
    assert all("hand" not in p for p in review["moves"][0]["view"]["players"])
    assert review["lost"] >= 0 and review["lost"] == pytest.approx(
        sum(m["mistake"]["cost"] for m in review["moves"] if m["mistake"]))

    opened = client.post("/api/review", json={"path": str(files[0])}).json()
    assert opened["deals"][0]["seat"] == 0 and opened["deals"][0]["finished"]
    again = client.get(f"/api/games/{opened['id']}/review").json()
    assert [m["text"] for m in again["moves"]] == [m["text"] for m in review["moves"]]
    # A person takes over seat 1 from the record's 10th move: the game goes on from there.
    taken = client.post(f"/api/games/{opened['id']}/takeover", json={"move": 10, "seat": 1}).json()
    assert taken["seat"] == 1 and taken["turn"] >= 10 and taken["id"] != game_id
    assert settle(client, taken["id"])["status"] in ("your_turn", "deal_over", "match_over")


def test_canasta_the_human_asks_its_partner_and_answers_its_ask(client, test_bots):
    r = client.post("/api/games", json={"game": "python_modern_canasta", "seed": 5,
                                        "bots": {"1": "rules", "2": "rules", "3": "rules"}})
    game_id = r.json()["id"]
    view = settle(client, game_id)
    for _ in range(20):     # draw, then ask as soon as the ask is offered
        kinds = {a["kind"]: a for a in view["actions"]}
        if "ask" in kinds:
            break
        move = kinds.get("draw") or view["actions"][0]
        view = client.post(f"/api/games/{game_id}/action", json={"action": move["action"], "turn": view["turn"]}).json()
        view = settle(client, game_id)
    ask = next(a for a in view["actions"] if a["kind"] == "ask")
    client.post(f"/api/games/{game_id}/action", json={"action": ask["action"], "turn": view["turn"]})
    view = settle(client, game_id)
    lines = [line["text"] for line in view["log"]]
    assert lines[-2:] in (["p0 asks to go out", "p2 answers yes"], ["p0 asks to go out", "p2 answers no"])
    assert view["status"] == "your_turn" and all(a["kind"] != "ask" for a in view["actions"])

    # A partner that asks: the human is offered yes and no, and its answer is logged.
    spec = GameSpec("python_modern_canasta", {}, 0, {1: "random", 2: "play_test_asker", 3: "random"}, None, 3,
                    2.0, 0.0)
    session = Session(spec, "asks", None, threaded=False)
    session.run_bots()
    for _ in range(400):
        view = session.view()
        answers = [a for a in view["actions"] if a["kind"] == "answer"]
        if answers:
            break
        session.act(view["actions"][0]["action"], view["turn"])
    assert [a["label"] for a in answers] == ["yes, go out", "no, don't go out"]
    assert view["log"][-1]["text"] == "p2 asks to go out"
    view = session.act(answers[1]["action"], view["turn"])
    assert any(line["text"] == "p0 answers no" for line in view["log"])
    assert any(z["name"] == "Melds: your side" and z["melds"] is not None for z in view["zones"])


def test_american_page_one_names_a_suit_after_an_eight(client):
    for seed in range(20):
        r = client.post("/api/games", json={"game": "python_american_page_one", "seed": seed, "match": None,
                                            "bots": {"1": "rules", "2": "rules", "3": "rules"}})
        game_id = r.json()["id"]
        view = settle(client, game_id)
        for _ in range(60):
            if view["status"] != "your_turn":
                break
            eights = [a for a in view["actions"] if a["kind"] == "card" and a["card"]["rank"] == "8"]
            if eights and view["players"][0]["cards"] > 1:
                view = client.post(f"/api/games/{game_id}/action",
                                   json={"action": eights[0]["action"], "turn": view["turn"]}).json()
                suits = [a for a in view["actions"] if a["kind"] == "suit"]
                assert [a["label"] for a in suits] == ["name ♠", "name ♥", "name ♦", "name ♣"]
                heart = next(a for a in suits if a["suit"] == "H")
                view = client.post(f"/api/games/{game_id}/action",
                                   json={"action": heart["action"], "turn": view["turn"]}).json()
                up = next(z for z in view["zones"] if z["name"] == "Up-card")
                assert up["cards"][0]["rank"] == "8" and up["text"] == "suit ♥ named"
                assert any(line["text"] == "p0 names ♥" for line in view["log"])
                assert {z["name"] for z in view["zones"]} >= {"Stock", "Discards", "Direction"}
                return
            move = next((a for a in view["actions"] if a["kind"] == "card" and a["card"]["rank"] != "8"),
                        view["actions"][0])
            client.post(f"/api/games/{game_id}/action", json={"action": move["action"], "turn": view["turn"]})
            view = settle(client, game_id)
    raise AssertionError("no deal let the human play an 8")


# --------------------------------------------------------------- bad input
def test_every_bad_input_gets_a_4xx_with_one_line_and_the_others_go_on(client):
    ok = client.post("/api/games", json={"game": "python_page_one", "bots": {"1": "rules", "2": "rules",
                                                                            "3": "rules"}, "seed": 2,
                                         "auto": False}).json()       # the human's every move its own
    game_id = ok["id"]
    view = settle(client, game_id)

    def error(response, status, *words):
        assert response.status_code == status, response.json()
        body = response.json()
        assert "\n" not in body["error"] and all(w in body["error"] for w in words), body
        return body

    error(client.get("/api/games/nosuchgame"), 404, "no game")
    error(client.post("/api/games/nosuchgame/action", json={"action": 0, "turn": 0}), 404)
    error(client.post("/api/games", content=b"{not json", headers=JSON), 400, "malformed JSON")
    error(client.post("/api/games", content=b"[1, 2]", headers=JSON), 400, "JSON object")
    error(client.post(f"/api/games/{game_id}/action", content=b"{\"action\": ", headers=JSON), 400,
          "malformed JSON")
    error(client.post(f"/api/games/{game_id}/action", json={"action": 1}), 400, "turn")
    illegal = next(a for a in range(52) if a not in {x["action"] for x in view["actions"]})
    error(client.post(f"/api/games/{game_id}/action", json={"action": illegal, "turn": view["turn"]}),
          400, f"action {illegal}", "not legal")
    error(client.post(f"/api/games/{game_id}/action", json={"action": 999, "turn": view["turn"]}), 400, "ids 0..59")
    error(client.post(f"/api/games/{game_id}/action", json={"action": "x", "turn": view["turn"]}), 400, "integer")
    error(client.post(f"/api/games/{game_id}/action",
                      json={"action": view["actions"][0]["action"], "turn": view["turn"] - 1}), 409, "stale")
    field = lambda body: error(client.post("/api/games", json=body), 400)["field"]
    assert field({"game": "python_page_one", "params": {"hand_size": 9}}) == "params.hand_size"
    assert field({"game": "python_page_one", "params": {"players": "many"}}) == "params.players"
    assert field({"game": "python_american_page_one", "params": {"skip": "queen"}}) == "params.skip"
    assert field({"game": "python_american_page_one", "params": {"dobon_gaeshi": True}}) == "params.dobon_gaeshi"
    assert field({"game": "python_page_one", "params": {"colour": 1}}) == "params.colour"
    assert field({"game": "chess"}) == "game"
    assert field({"game": "python_page_one", "seat": 4}) == "seat"
    assert field({"game": "python_page_one", "match": "target=2500"}) == "match"
    assert field({"game": "python_modern_canasta", "match": "target=3000"}) == "match"
    assert field({"game": "python_page_one", "bots": {"1": "eval.play:GamePlayer"}}) == "bots.1"
    assert field({"game": "python_page_one", "bots": {"1": "neural(path=/etc/passwd)"}}) == "bots.1"
    assert field({"game": "python_page_one", "bots": {"1": "neural(path=bots/../pyproject.toml)"}}) == "bots.1"
    assert field({"game": "python_page_one", "bots": {"1": "pimc(baseline=neural(path=/etc/passwd))"}}) == "bots.1"
    assert field({"game": "python_page_one", "bots": {"1": "pimc(rollout=ismcts(iterations=999999))"}}) == "bots.1"
    assert field({"game": "python_page_one", "bots": {"1": "pimc(model=cheat_mcts)"}}) == "bots.1"
    assert field({"game": "python_page_one", "bots": {"1": "cheat_mcts(iterations=10)"}}) == "bots.1"
    assert field({"game": "python_page_one", "bots": {"1": "ismcts(seconds=5)"}}) == "bots.1"
    assert field({"game": "python_page_one", "bots": {"1": "ismcts(iterations=10"}}) == "bots.1"
    assert field({"game": "python_page_one", "bots": {"0": "rules"}}) == "bots.0"     # the human's seat
    error(client.post("/api/review", json={"path": "/etc/passwd"}), 404, "no such record here")
    error(client.post(f"/api/games/{game_id}/review", json={}), 405)
    error(client.get(f"/api/games/{game_id}/review"), 409, "no deal has finished")
    error(client.post(f"/api/games/{game_id}/hint", json={"worlds": -1}), 400, "worlds")
    error(client.post(f"/api/games/{game_id}/next", json={}), 409, "still being played")
    # The game that saw every error goes on, and so does a new one.
    after = client.get(f"/api/games/{game_id}").json()
    assert after["turn"] == view["turn"] and after["status"] == "your_turn"
    assert client.post("/api/games", json={"game": "python_modern_canasta"}).status_code == 200


def test_a_bot_that_raises_or_overruns_forfeits_with_a_clear_message(client, test_bots):
    table = client.table
    for bot, kind, limit in (("play_test_raiser", "raised", 2.0), ("play_test_slow", "timeout", 0.1)):
        spec = GameSpec("python_page_one", {"players": 2}, 0, {1: bot}, None, 1, limit, 0.0)
        session = Session(spec, f"fault-{kind}", table.records_dir, threaded=False)
        session.run_bots()
        view = session.view()
        while view["status"] == "your_turn":
            view = session.act(view["actions"][0]["action"], view["turn"])
        assert view["status"] == "match_over" and view["fault"]["kind"] == kind and view["fault"]["seat"] == 1
        assert "p1's bot" in view["message"] and "forfeits" in view["message"]
        assert view["score"]["returns"] == [1.0, -1.0]
        (record,) = load_records(table.records_dir / f"fault-{kind}.jsonl")
        assert record.fault["kind"] == kind and record.returns == [1.0, -1.0]


# -------------------------------------------------------------- records
def test_a_restart_loses_no_deal_and_an_unfinished_game_continues(client, tmp_path):
    r = client.post("/api/games", json={"game": "python_american_page_one", "match": "deals=2", "seed": 4,
                                        "params": {"players": 3}, "bots": {"1": "rules", "2": "random"}})
    game_id = r.json()["id"]
    final = play(client, game_id, lambda v: v["actions"][0]["action"])
    assert final["status"] == "deal_over" and final["match"]["deals"] == 2
    view = client.post(f"/api/games/{game_id}/next", json={}).json()
    view = settle(client, game_id)
    assert view["match"]["deal"] == 2 and view["match"]["totals"] == final["match"]["totals"]
    for _ in range(3):        # a few moves of the second deal, then the server "restarts"
        if view["status"] != "your_turn":
            break
        client.post(f"/api/games/{game_id}/action", json={"action": view["actions"][0]["action"], "turn": view["turn"]})
        view = settle(client, game_id)
    folder = tmp_path / "records"
    assert len(load_records(folder / f"{game_id}.jsonl")) == 1
    unfinished = folder / f"{game_id}.unfinished.json"
    (saved,) = load_records(unfinished)
    assert saved.returns is None and saved.annotations["play"]["unfinished"]

    table = Table(folder, pause=0.0, analysis_worlds=4)
    with TestClient(create_app(table), base_url=BASE_URL) as fresh:
        listed = fresh.get("/api/records").json()["files"]
        assert {f["path"] for f in listed} >= {str(unfinished), str(folder / f"{game_id}.jsonl")}
        finished = next(f for f in listed if f["path"] == str(folder / f"{game_id}.jsonl"))
        assert finished["deals"] == 1 and finished["game"] and finished["modified"].endswith("+00:00")
        opened = fresh.post("/api/review", json={"path": str(unfinished)}).json()
        assert not opened["deals"][0]["finished"]
        shown = fresh.get(f"/api/games/{opened['id']}/review").json()      # a deal in play is never open
        assert shown["deals"] == 1
        assert not shown["analysed"] and all(m["open"] == m["view"] for m in shown["moves"])
        assert all("hand" not in p for m in shown["moves"] for p in m["open"]["players"])
        assert all("hand" not in p for p in shown["final"]["players"])
        resumed = fresh.post(f"/api/games/{opened['id']}/takeover", json={}).json()
        assert resumed["turn"] >= len(saved.moves) and resumed["match"]["deal"] == 2
        assert resumed["match"]["totals"] == final["match"]["totals"]
        done = play(fresh, resumed["id"], lambda v: v["actions"][0]["action"])
        assert done["status"] == "match_over"
    assert len(list(folder.glob("*.jsonl"))) == 2      # the first game's file and the continued game's


def test_a_hint_values_the_humans_actions_from_its_information(client):
    r = client.post("/api/games", json={"game": "python_page_one", "bots": {"1": "rules", "2": "rules",
                                                                           "3": "rules"}, "seed": 9})
    view = settle(client, r.json()["id"])
    hint = client.post(f"/api/games/{view['id']}/hint", json={"worlds": 8}).json()
    legal = {a["action"]: a["label"] for a in view["actions"]}
    assert hint["player"] == 0 and {v["action"] for v in hint["values"]} == set(legal)
    assert all(v["label"] == legal[v["action"]] and v["low"] <= v["mean"] <= v["high"] for v in hint["values"])
    means = [v["mean"] for v in hint["values"]]
    assert means == sorted(means, reverse=True)


# ------------------------------------------------------------- no leaks
VARIANTS = [("python_page_one(jokers=2,empty_stock=take)", 2, 6, "random"),
            ("python_page_one(players=3,empty_stock=reshuffle)", 2, 6, "random"),
            ("python_american_page_one(dobon=true,challenge=true,max_turns=60)", 8, 4, "random"),
            ("python_american_page_one(players=3,multi_play=true,max_turns=60)", 8, 4, "random"),
            ("python_american_page_one(dobon=true,dobon_gaeshi=true,challenge=true)", 6, 2, "rules"),
            ("python_modern_canasta", 12, 3, "random"),
            ("python_modern_canasta", 8, 2, "rules"),      # rule bots meld, take piles and ask
            ("python_classic_canasta(players=2)", 6, 4, "random"),
            ("python_classic_canasta(players=4)", 6, 4, "random"),
            ("python_classic_canasta(players=2)", 4, 6, "rules"),
            ("python_classic_canasta(players=3)", 4, 6, "rules"),
            ("python_classic_canasta(players=4)", 4, 6, "rules")]


@pytest.mark.parametrize("game_string,every,deals,policy", VARIANTS)
def test_a_seat_view_is_the_same_in_every_world_it_cannot_tell_apart(game_string, every, deals, policy):
    """The JSON the page gets from the true state equals the JSON from a world resampled from
    the seat's information state, at many points of games played at random or by rule bots."""
    from agents import make_bot
    game = pyspiel.load_game(game_string)
    name, n = game.get_type().short_name, game.num_players()
    names, agents = [f"p{s}" for s in range(n)], ["bot"] * n
    compared = 0
    for seed in range(deals):
        rng = random.Random(seed)
        bots = [make_bot("rules", game, s, seed) for s in range(n)] if policy == "rules" else None
        state = game.new_initial_state()
        k = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(outcomes, probs)[0])
                continue
            k += 1
            if k % every == 0:
                seat = rng.randrange(n)
                world = state.core.resample_from_infostate(seat, rng.random)
                assert world.information_state_string(seat) == state.core.information_state_string(seat)
                true_view = json.dumps(seat_view(name, state, seat, names, agents))
                assert true_view == json.dumps(seat_view(name, world, seat, names, agents)), (seed, k, seat)
                compared += 1
            seat = state.current_player()
            state.apply_action(bots[seat].step(state) if bots else rng.choice(state.legal_actions()))
    assert compared >= 15


def test_a_game_of_a_results_file_opens_in_the_review_and_a_person_takes_a_seat(tmp_path, monkeypatch):
    from eval.config import TournamentConfig
    from eval.tournament import run_tournament
    config = TournamentConfig.create("python_page_one(players=2)", ["random", "rules"], deals=1)
    run_tournament(config, tmp_path / "r.db", workers=1, progress=False, bootstrap=0)
    monkeypatch.chdir(tmp_path)
    table = Table(tmp_path / "records", pause=0.0, analysis_worlds=4,
                  allowed_files=(tmp_path / "r.db",))       # as `cardarena play --review r.db` gives it
    with TestClient(create_app(table), base_url=BASE_URL) as client:
        r = client.post("/api/review", json={"path": str(tmp_path / "r.db"), "game": "0-1"})
        assert r.status_code == 200, r.json()
        opened = r.json()
        assert [d["name"] for d in opened["deals"]] == ["0-1"] and opened["deals"][0]["finished"]
        review = client.get(f"/api/games/{opened['id']}/review?seat=1").json()
        assert review["seat"] == 1 and review["moves"][0]["view"]["seat"] == 1
        assert client.get(f"/api/games/{opened['id']}/review?seat=x").status_code == 400
        assert client.post("/api/review", json={"path": str(tmp_path / "r.db"), "game": "9-9"}).status_code == 400
        taken = client.post(f"/api/games/{opened['id']}/takeover", json={"move": 0, "seat": 1}).json()
        assert taken["seat"] == 1 and [p["agent"] for p in taken["players"]] == ["rules", "human"]
        assert settle(client, taken["id"])["status"] in ("your_turn", "match_over")
        # The same file not given on the command line: refused, as a file that is not there is.
        missing = client.post("/api/review", json={"path": str(tmp_path / "nothing.db")}).json()
        (tmp_path / "copy.db").write_bytes((tmp_path / "r.db").read_bytes())
        refused = client.post("/api/review", json={"path": "../copy.db"})
        assert refused.status_code == 404 and refused.json()["error"].endswith(missing["error"].split(":", 1)[1])


def test_a_canasta_hand_ends_with_its_score_item_by_item(tmp_path):
    from agents import make_bot
    spec = GameSpec("python_modern_canasta", {}, 0, {1: "rules", 2: "rules", 3: "rules"}, "target=2500", 1, 2.0, 0.0)
    session = Session(spec, "hand", tmp_path, threaded=False)
    session.run_bots()
    me = make_bot("rules", session.game, 0, 0)
    while not session.deal_over:
        session.act(me.step(session.state), session.view()["turn"])
    view = session.view()
    score = view["score"]
    assert view["status"] == "deal_over" and not view["match"]["over"]       # 2,500 is not reached in a hand
    assert [sum(line["values"][side] for line in score["lines"]) for side in (0, 1)] == score["total"]
    labels = [line["label"] for line in score["lines"]]
    assert labels[0] == "melded cards" and labels[-3:] == ["cards in hand", "unfinished melds",
                                                           "three Aces or 7s held"]
    assert any(label.endswith(" canastas") for label in labels) or all(
        not session.state.core.canastas[s] for s in (0, 1))
    assert view["match"]["totals"] == score["total"]
    (record,) = load_records(tmp_path / "hand.jsonl")
    assert record.match["format"] == "target=2500" and record.match["deal"] == 0


def test_the_review_flags_the_moves_the_analysis_finds_worse_with_what_they_cost():
    """A player who always takes the hint's worst move: the review flags such moves."""
    spec = GameSpec("python_page_one", {"players": 3, "hand_size": 6}, 0, {1: "rules", 2: "rules"}, None, 1, 2.0, 0.0)
    session = Session(spec, "blunders", None, threaded=False, analysis_worlds=16)
    session.run_bots()
    while not session.deal_over:
        view = session.view()
        worst = session.hint(worlds=16)["values"][-1]["action"] if len(view["actions"]) > 1 \
            else view["actions"][0]["action"]
        session.act(worst, view["turn"])
    review = session.review()
    flagged = [m for m in review["moves"] if m["mistake"]]
    assert flagged and all(m["seat"] == 0 for m in flagged)
    for m in flagged:
        mistake = m["mistake"]
        assert mistake["best"]["action"] != mistake["played"]["action"]
        # The cost is measured on worlds other than those that chose and flagged the move.
        assert mistake["interval"][0] <= mistake["cost"] <= mistake["interval"][1]
        assert mistake["best_value"] - mistake["played_value"] > 0.05      # Page One's noticeable loss
    assert review["lost"] == pytest.approx(sum(m["mistake"]["cost"] for m in flagged))
    assert session.review() is review          # analysed once, then kept
