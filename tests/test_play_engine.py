"""Engines at the play table (`cardarena play --engine NAME=CMD`, play/engines.py): a game
through the HTTP API with an engine seat that moves as the in-process bot does, the listing, the
page's refusal of a command of its own, engines that fault, bad --engine values, the terminal."""

from __future__ import annotations

import io
import shutil
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest

import games  # noqa: F401
from agents import BOT_FACTORIES
from agents.engine import close_engines
from records.record import load_records
from play.engines import parse_engines, probe_engines
from play.server import Table, create_app
from scripts.cli import main
from tests.test_play_api import settle

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

ROOT = Path(__file__).resolve().parents[1]
RULES_ENGINE = f"{sys.executable} -m scripts.cli engine rules --game python_page_one"
BAD = f"{sys.executable} {ROOT / 'tests' / 'data' / 'bad_engine.py'}"


@pytest.fixture(scope="module")
def offered():
    """Our rule bot as an engine, said hello to at Page One only, as `--engine proto=...` does."""
    engines = probe_engines(parse_engines([f"proto={RULES_ENGINE}"]), ["python_page_one"], 2.0)
    yield engines
    close_engines()


def _client(tmp_path: Path, engines: dict) -> TestClient:
    table = Table(tmp_path / "records", pause=0.0, analysis_worlds=4, engines=engines)
    client = TestClient(create_app(table), base_url="http://127.0.0.1:8765")
    client.table = table
    return client


def _play_first_legal(client: TestClient, body: dict) -> tuple[dict, str]:
    """A new game; the human always plays its first legal action until the deal ends."""
    r = client.post("/api/games", json=body)
    assert r.status_code == 200, r.json()
    game_id = r.json()["id"]
    view = settle(client, game_id, timeout=60.0)
    while view["status"] == "your_turn":
        r = client.post(f"/api/games/{game_id}/action",
                        json={"action": view["actions"][0]["action"], "turn": view["turn"]})
        assert r.status_code == 200, r.json()
        view = settle(client, game_id, timeout=60.0)
    return view, game_id


def test_an_engine_seat_moves_as_the_bot_in_process_and_is_recorded(tmp_path, offered):
    """The same seed, the human playing the same way: seat 1 through `cardarena engine rules`
    makes the in-process rule bot's moves, because the table seeds the engine's bot as its own."""
    with _client(tmp_path, offered) as client:
        histories = {}
        for bot in ("proto", "rules"):
            view, game_id = _play_first_legal(client, {"game": "python_page_one", "seed": 21, "time_limit": 2.0,
                                                       "bots": {"1": bot, "2": "rules", "3": "random"}})
            assert view["status"] == "match_over" and view["fault"] is None, view["message"]
            assert view["players"][1]["agent"] == bot
            (record,) = client.table.sessions[game_id].records
            histories[bot] = [m.action for m in record.moves]
            if bot == "proto":
                engine_game = game_id
                spec = record.players[1].spec
                assert record.players[1].agent == "proto" and spec == f"engine(cmd={RULES_ENGINE},time_limit=2)"
                assert record.annotations["play"]["engines"] == {"proto": RULES_ENGINE}
                (saved,) = load_records(tmp_path / "records" / f"{game_id}.jsonl")
                assert saved.players[1].spec == spec
        assert len(histories["proto"]) > 20 and histories["proto"] == histories["rules"]
        # Playing on from the record keeps the engine at its seat (the table still offers its name).
        r = client.post(f"/api/games/{engine_game}/takeover", json={"move": 10})
        assert r.status_code == 200, r.json()
        assert [p["agent"] for p in r.json()["players"]] == ["human", "proto", "rules", "random"]


def test_the_options_list_an_offered_engine_with_its_command(tmp_path, offered):
    with _client(tmp_path, offered) as client:
        bots = {b["spec"]: b for b in client.get("/api/options").json()["bots"]}
    assert bots["proto"] == {"spec": "proto", "title": f"Engine proto: {RULES_ENGINE}", "games": ["python_page_one"],
                             "default_for": [], "engine": RULES_ENGINE}
    assert "engine" not in bots["rules"]
    with _client(tmp_path, {}) as client:
        assert not any("engine" in b for b in client.get("/api/options").json()["bots"])


@pytest.mark.parametrize("spec, words", [
    ("engine(cmd=/bin/sh -c 'touch /tmp/pwned')", "the table starts only the engines its operator named"),
    (f"engine(cmd={RULES_ENGINE})", "--engine NAME=CMD"),
    (" engine ", "chosen by name; offered: proto"),
    ("proto(time_limit=60)", "takes no settings"),
    ("longsuit", "the table offers random, rules, neural, ismcts, pimc, proto"),
])
def test_the_page_cannot_name_a_command(tmp_path, offered, spec, words):
    with _client(tmp_path, offered) as client:
        r = client.post("/api/games", json={"game": "python_page_one", "bots": {"1": spec}})
        assert r.status_code == 400 and r.json()["field"] == "bots.1" and words in r.json()["error"], r.json()
        assert client.table.sessions == {}
        # The takeover's bots are checked the same way.
        _, game_id = _play_first_legal(client, {"game": "python_page_one", "seed": 3,
                                                "bots": {"1": "random", "2": "random", "3": "random"}})
        r = client.post(f"/api/games/{game_id}/takeover", json={"bots": {"2": spec}})
        assert r.status_code == 400 and words in r.json()["error"], r.json()
    assert not Path("/tmp/pwned").exists()


def test_an_engine_is_offered_only_at_the_games_whose_hello_it_accepted(tmp_path, offered):
    with _client(tmp_path, offered) as client:
        r = client.post("/api/games", json={"game": "python_modern_canasta", "bots": {"1": "proto"}})
    assert r.status_code == 400 and r.json()["field"] == "bots.1"
    assert r.json()["error"] == "engine 'proto' did not accept hello at Modern American Canasta; it plays Page One"


@pytest.mark.parametrize("mode, kind, reason", [
    ("illegal", "illegal", "engine answered illegal action"),
    ("exit", "crashed", "exit code 3"),
    ("hang", "timeout", "silent past the time limit"),
    ("garbage", "raised", "malformed line"),
])
def test_a_faulty_engine_forfeits_as_a_raising_bot_does(tmp_path, mode, kind, reason):
    """A fault at the table, as for a Python bot that raises: the side forfeits, the match ends
    with the reason (the engine's kind and its stderr), the deal is recorded with the fault."""
    engines = probe_engines(parse_engines([f"bad={BAD} {mode} 2"]), ["python_page_one"], 0.5)
    with _client(tmp_path, engines) as client:
        view, game_id = _play_first_legal(client, {"game": "python_page_one", "seed": 4, "time_limit": 0.5,
                                                   "bots": {"1": "bad", "2": "random", "3": "random"}})
        session = client.table.sessions[game_id]
    assert view["status"] == "match_over" and view["actions"] == []
    fault = view["fault"]
    assert fault["seat"] == 1 and fault["kind"] == kind and reason in fault["error"], fault
    assert fault["error"].startswith(f"p1's bot (bad) faulted ({kind}): ")
    assert "misbehaving" in fault["error"], "the engine's stderr is in the reason"
    assert view["message"] == f"{fault['error']}: p1's side forfeits the game"
    (record,) = load_records(tmp_path / "records" / f"{game_id}.jsonl")
    assert record.fault["kind"] == kind and record.returns == view["score"]["returns"]
    assert session.bots == [None] * 4, "the finished deal let its bots go"
    close_engines()


@pytest.mark.parametrize("value, words", [
    ("noequals", "expected NAME=CMD"),
    ("=./x", "expected NAME=CMD"),
    ("x=", "expected NAME=CMD"),
    ("two words=./x", "must be letters, digits, _ or -"),
    ("rules=./x", "'rules' is a built-in bot's name"),
    ("engine=./x", "'engine' is a built-in bot's name"),
    ("human=./x", "'human' is a built-in bot's name"),
    ("x=./x 'unclosed", "the command does not split"),
    ("x=/no/such/engine", "--engine x=/no/such/engine: cannot start it (No such file or directory)"),
    (f"x={sys.executable} -c pass", "failed at hello"),
])
def test_bad_engine_values_are_one_line_and_a_non_zero_exit(tmp_path, capsys, value, words):
    with pytest.raises(SystemExit) as stop:
        main(["play", "--text", "--records", str(tmp_path), "--engine", value])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and words in err and err.count("\n") == 1, err


def test_an_engine_name_given_twice_is_refused():
    with pytest.raises(ValueError, match="the name 'a' is given twice"):
        parse_engines(["a=./x", "a=./y"])
    for name in BOT_FACTORIES:                 # every built-in bot's name is reserved
        with pytest.raises(ValueError, match="built-in bot's name"):
            parse_engines([f"{name}=./x"])


@pytest.fixture(scope="module")
def longsuit(tmp_path_factory) -> Path:
    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("gcc is not installed: the C example engine cannot be built")
    binary = tmp_path_factory.mktemp("engine") / "longsuit"
    subprocess.run([gcc, "-O2", "-std=c99", "-Wall", "-Werror", "-o", str(binary),
                    str(ROOT / "examples" / "engines" / "longsuit.c")], check=True)
    return binary


def test_the_terminal_plays_an_engine_by_name_and_refuses_a_raw_command(tmp_path, monkeypatch, capsys, longsuit):
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 300))
    main(["play", "--text", "--engine", f"longsuit={longsuit}", "--bot", "longsuit", "--bot", "2=rules",
          "--param", "players=3", "--seed", "6", "--time-limit", "1", "--records", str(tmp_path)])
    text = capsys.readouterr().out
    assert "p1 p1   longsuit" in text and "p2 p2   rules" in text and text.rstrip().endswith("match over.")
    (record,) = load_records(next(tmp_path.glob("*.jsonl")))
    assert record.fault is None and record.players[1].spec == f"engine(cmd={longsuit},time_limit=1)"
    assert sum(m.actor == 1 for m in record.moves) > 3
    with pytest.raises(SystemExit) as stop:
        main(["play", "--text", "--records", str(tmp_path), "--bot", f"1=engine(cmd={longsuit})"])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and "bots.1" in err and "--engine NAME=CMD" in err and err.count("\n") == 1
    close_engines()


@pytest.mark.skipif(shutil.which("chromium") is None, reason="no chromium on this machine: the browser test "
                    "needs a real browser (Debian: apt-get install -y chromium)")
def test_the_page_offers_the_engines_by_name_and_plays_one(tmp_path, offered, longsuit):
    """In a real browser (as tests/test_play_browser.py): the list of bots names each engine for the
    games it plays, choosing `longsuit` plays a deal against it, a typed engine(cmd=...) is refused."""
    import threading

    import uvicorn
    from playwright.sync_api import sync_playwright

    from tests.test_play_browser import CHROMIUM, LAUNCH_ARGS, _free_port, click_first, new_game, status
    engines = {**offered, **probe_engines(parse_engines([f"longsuit={longsuit}"]), ["python_page_one",
                                                                                   "python_modern_canasta"], 2.0)}
    table = Table(tmp_path / "records", pause=0.02, analysis_worlds=4, engines=engines)
    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(table, port=port), host="127.0.0.1", port=port, log_level="warning",
                                           lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        while not server.started:
            assert thread.is_alive(), "uvicorn did not start"
            time.sleep(0.02)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.set_default_timeout(30_000)
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(f"http://127.0.0.1:{port}/")
            page.wait_for_selector("[data-testid=start-game]")

            def offered_bots() -> dict[str, str]:
                return dict(page.eval_on_selector_all("#bot-specs option", "os => os.map(o => [o.value, o.text])"))

            page.select_option("[data-testid=game-select]", "python_modern_canasta")
            assert offered_bots()["longsuit"] == f"Engine longsuit: {longsuit}" and "proto" not in offered_bots()
            page.select_option("[data-testid=game-select]", "python_page_one")
            assert offered_bots()["proto"] == f"Engine proto: {RULES_ENGINE}"

            page.fill("[data-testid=bot-1]", f"engine(cmd={longsuit})")
            page.click("[data-testid=start-game]")
            page.wait_for_function("() => document.querySelector(\"[data-testid='error-bots.1']\")"
                                   ".textContent.length > 0")
            assert "--engine NAME=CMD" in page.inner_text("[data-testid='error-bots.1']")
            assert table.sessions == {}

            new_game(page, "python_page_one", seed=28, bots="longsuit")
            assert "longsuit" in page.inner_text("[data-testid=player-1]")
            clicks = 0
            while status(page) == "your_turn" and clicks < 400:
                click_first(page, "[data-testid=hand] .card.playable", "#action-bar button[data-action]")
                clicks += 1
            assert status(page) == "match_over" and clicks >= 1
            (session,) = table.sessions.values()
            assert session.fault is None and session.records[0].players[1].spec.startswith(f"engine(cmd={longsuit}")
            assert sum(m.actor == 1 for m in session.records[0].moves) >= 1
            browser.close()
        assert not errors, f"script errors on the page: {errors}"
    finally:
        for session in list(table.sessions.values()):
            session.close()
        server.should_exit = True
        thread.join(10)
        close_engines()
