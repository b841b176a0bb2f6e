"""The table's bots of stated strength: each game's levels, their Elo read from the run
records, and the form's defaults per variant (issue 47: classic Canasta dealt "neural" at every
seat, and Dobon with the pre-filled network failed with a file path)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from starlette.testclient import TestClient

import games  # noqa: F401
from games import registry
from play.levels import RUNS, levels
from play.server import Table, create_app

from tests.test_play_api import BASE_URL, settle  # noqa: E402  (the address the guard accepts)


@pytest.fixture
def client(tmp_path):
    table = Table(tmp_path / "records", pause=0.0, analysis_worlds=4)
    with TestClient(create_app(table), base_url=BASE_URL) as c:
        yield c


def test_every_game_offers_levels_and_each_figure_is_a_records():
    for entry in registry.registered():
        shown = levels(entry.name)
        assert [lv["level"] for lv in shown][:2] == ["beginner", "club"], entry.name
        for level in shown:
            assert level["spec"] == entry.presets[level["preset"]]
            for opponent in ("rules", "random"):
                figure = level[f"over_{opponent}"]
                if level["spec"] == opponent:
                    assert figure["elo"] == 0 and figure["itself"]
                    continue
                if figure is None:
                    continue
                record = json.loads((RUNS / f"{figure['record']}.json").read_text())
                result = record["result"]
                # the level's own figure, or the opponent's over it negated, interval and all
                own = (result["elo"], result["low"], result["high"])
                negated = (-result["elo"], -result["high"], -result["low"])
                assert (figure["elo"], figure["low"], figure["high"]) in (own, negated)
                assert result["against"] in (opponent, level["spec"], level["preset"])
                assert f"{figure['elo']:+d} Elo over {opponent}" in level["title"]
        # the club level is the rule bot, measured against random at this game
        club = shown[1]
        assert club["spec"] == "rules" and club["over_random"] is not None and club["over_random"]["elo"] > 0
        assert shown[0]["over_rules"]["elo"] < 0        # the beginner (random) loses to the rule bot, in its own run


def test_the_levels_are_offered_with_their_figures(client):
    bots = client.get("/api/options").json()["bots"]
    by_game = {}
    for bot in bots:
        if "level" in bot:
            by_game.setdefault(bot["games"][0], []).append(bot)
    assert set(by_game) == set(registry.names())
    for game, offered in by_game.items():
        assert sum(game in b["default_for"] for b in offered) == 1, game
        assert all(b["title"] == b["level"]["title"] for b in offered)


@pytest.mark.parametrize("game, params, default, refused", [
    ("python_classic_canasta", {}, "classic-canasta-club", set()),
    ("python_american_page_one", {"dobon": True}, "american-page-one-club",
     {"american-page-one-network", "american-page-one-strong"}),
    ("python_american_page_one", {}, "american-page-one-strong", set()),
    ("python_page_one", {"players": 3}, "page-one-club", {"page-one-network", "page-one-strong"}),
])
def test_the_default_is_the_strongest_level_that_plays_the_variant(client, game, params, default, refused):
    r = client.post("/api/levels", json={"game": game, "params": params})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["default"] == default and set(body["refused"]) == refused
    assert all("/work" not in why and "strict_params" not in why and "\n" not in why
               for why in body["refused"].values())


@pytest.mark.parametrize("game, params", [("python_classic_canasta", {}),
                                          ("python_american_page_one", {"dobon": True, "players": 3})])
def test_a_game_dealt_with_the_defaults_plays(client, game, params):
    r = client.post("/api/games", json={"game": game, "params": params, "seed": 5})
    assert r.status_code == 200, r.text
    view = settle(client, r.json()["id"])       # the default bots played up to the human's turn
    assert view["status"] in ("your_turn", "deal_over", "match_over"), view["status"]
    assert view["status"] != "your_turn" or view["actions"]


def test_a_bot_that_cannot_play_the_rules_is_one_line_naming_the_levels_that_can(client):
    r = client.post("/api/games", json={"game": "python_american_page_one", "params": {"dobon": True},
                                        "bots": {"1": "neural"}})
    assert r.status_code == 400
    error = r.json()
    text = json.dumps(error)
    assert "bots.1" in text and "cannot play these rules" in text and "levels that can: beginner, club" in text
    assert str(Path.cwd()) not in text and "strict_params" not in text and "/work" not in text


def test_a_bad_levels_request_is_one_line(client):
    r = client.post("/api/levels", json={"game": "chess", "params": {}})
    assert r.status_code == 400 and "chess" in r.text


def test_every_record_a_level_names_exists_and_measured_it():
    for entry in registry.registered():
        for level in entry.levels:
            shown = next(lv for lv in levels(entry.name) if lv["preset"] == level.preset)
            used = {f["record"] for f in (shown["over_rules"], shown["over_random"]) if f and "record" in f}
            assert used == set(level.records), (entry.name, level.name)
