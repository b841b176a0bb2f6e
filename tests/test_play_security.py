"""The table's security model (docs/play-api.md, "Security"), through its real HTTP app in
process: an unfinished deal is shown and continued only from its player's seat and only once,
a continued match deals what the uninterrupted one would, a taken-over deal never shares
chance with the game still in play, requests from other sites or to other names are refused,
bodies are JSON and bounded, idle games and reviews are forgotten, the review opens only the
table's files, a failed save (a full disk) loses nothing, and inputs that once answered 500."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sqlite3
import subprocess
import warnings
from pathlib import Path

import pytest

import games  # noqa: F401
from records.record import load_records
from games.seeding import derive_seed
from play import server
from play.server import MAX_BODY, MAX_REVIEWS, Table, create_app
from scripts.cli import main

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

BASE_URL = "http://127.0.0.1:8765"       # the address create_app serves by default
JSON = {"Content-Type": "application/json"}
PAGE_ONE = {"game": "python_page_one", "params": {"players": 3}, "bots": {"1": "rules", "2": "rules"},
            "auto": False}       # the human's every move its own: the helpers below play them one by one


def make_table(folder: Path | None, **settings) -> Table:
    """A synchronous table (the bots move within each request), cheap reviews and hints."""
    return Table(folder, pause=0.0, threaded=False, analysis_worlds=2,
                 **settings)


def client_of(table: Table, **settings) -> TestClient:
    return TestClient(create_app(table, **settings), base_url=BASE_URL)


def first_legal(client: TestClient, view: dict) -> dict:
    """The human plays its first legal action."""
    r = client.post(f"/api/games/{view['id']}/action", json={"action": view["actions"][0]["action"],
                                                             "turn": view["turn"]})
    assert r.status_code == 200, r.json()
    return r.json()


def play_deal(client: TestClient, view: dict) -> dict:
    while view["status"] == "your_turn":
        view = first_legal(client, view)
    return view


def hidden_cards(session, seat: int) -> list[str]:
    """The texts of the cards in every other seat's hand (Page One's cards are all different)."""
    from games.view import seat_view
    open_view = seat_view(session.spec.game, session.state, seat, session.names, session.agents, open_hands=True)
    return [c["text"] for p in open_view["players"] if p["seat"] != seat for c in p["hand"]]


def no_hand_anywhere(value) -> bool:
    """Whether no player entry (an object with a seat and an agent) anywhere in an answer has a hand."""
    if isinstance(value, dict):
        if {"seat", "agent", "hand"} <= set(value):
            return False
        return all(no_hand_anywhere(v) for v in value.values())
    if isinstance(value, list):
        return all(no_hand_anywhere(v) for v in value)
    return True


# ------------------------------------------------------------ unfinished deals
def test_an_unfinished_deal_is_shown_and_continued_only_from_its_players_seat_and_once(tmp_path):
    table = make_table(tmp_path / "records")
    client = client_of(table)
    view = client.post("/api/games", json={**PAGE_ONE, "seed": 5}).json()
    view = first_legal(client, view)
    game_id, secret = view["id"], hidden_cards(table.sessions[view["id"]], 0)
    listed = client.get("/api/records").json()["files"]
    (unfinished,) = [f["path"] for f in listed if f["unfinished"]]
    opened = client.post("/api/review", json={"path": unfinished}).json()
    review_id = opened["id"]
    assert opened["deals"][0]["seat"] == 0 and not opened["deals"][0]["finished"]

    # p1's seat, an open view, another seat's takeover, an earlier move: each refused.
    refused = client.get(f"/api/games/{review_id}/review?seat=1")
    assert refused.status_code == 403 and "only from its player's seat" in refused.json()["error"]
    own = client.get(f"/api/games/{review_id}/review?seat=0")
    assert own.status_code == 200 and no_hand_anywhere(own.json())
    assert not any(card in own.text for card in secret)
    for body in ({"seat": 1}, {"move": 0}, {"seat": 1, "move": 0}):
        r = client.post(f"/api/games/{review_id}/takeover", json=body)
        assert r.status_code == 403 and "unfinished" in r.json()["error"], body
        assert not any(card in r.text for card in secret)
    # Its own player may continue it, but not while the game it came from is still in play here.
    live = client.post(f"/api/games/{review_id}/takeover", json={})
    assert live.status_code == 409 and "still in play" in live.json()["error"]
    assert len(table.sessions) == 1

    # The game is forgotten (nobody asked for it in the idle time), then continued: once.
    table.sessions[game_id].last_seen -= table.idle_seconds + 1
    again = client.post("/api/review", json={"path": unfinished}).json()          # forgets idle games first
    assert client.get(f"/api/games/{game_id}").status_code == 404
    resumed = client.post(f"/api/games/{again['id']}/takeover", json={})
    assert resumed.status_code == 200, resumed.json()
    resumed = resumed.json()
    assert resumed["seat"] == 0 and resumed["turn"] >= view["turn"] and resumed["id"] != game_id
    assert not Path(unfinished).exists()
    (moved,) = load_records(table.records_dir / f"{resumed['id']}.unfinished.json")
    assert moved.annotations["play"]["id"] == resumed["id"] and moved.source["game"] == game_id
    for source in (review_id, again["id"]):          # both openings of the consumed file
        twice = client.post(f"/api/games/{source}/takeover", json={})
        assert twice.status_code == 409 and "continued already" in twice.json()["error"]
    assert client.post("/api/review", json={"path": unfinished}).status_code == 404
    # The continued game's own unfinished file is its: not continued while it is in play.
    listed = [f["path"] for f in client.get("/api/records").json()["files"] if f["unfinished"]]
    reopened = client.post("/api/review", json={"path": listed[0]}).json()
    assert client.post(f"/api/games/{reopened['id']}/takeover", json={}).status_code == 409


def test_a_taken_over_deal_never_deals_what_the_game_in_play_deals_next(tmp_path):
    """A finished deal of a match in play, taken over at its end: the new game's next deal comes
    from fresh chance, not the cards the match is about to deal its player."""
    table = make_table(tmp_path / "records")
    client = client_of(table)
    body = {"game": "python_page_one", "params": {"players": 2}, "bots": {"1": "rules"}, "match": "deals=2",
            "seed": 3}
    view = play_deal(client, client.post("/api/games", json=body).json())
    assert view["status"] == "deal_over"
    taken = client.post(f"/api/games/{view['id']}/takeover", json={"deal": 0}).json()
    assert taken["status"] == "deal_over"
    live = client.post(f"/api/games/{view['id']}/next", json={}).json()
    fork = client.post(f"/api/games/{taken['id']}/next", json={}).json()
    a, b = table.sessions[live["id"]], table.sessions[fork["id"]]
    assert a.seed == derive_seed(3, 1)                  # the match in play deals as it always would
    assert b.seed != a.seed and b.state.history()[:8] != a.state.history()[:8]


def test_a_continued_match_deals_what_the_uninterrupted_one_deals(tmp_path):
    """A three-deal match played through, and the same match stopped in its second deal, the
    table restarted and the game continued: every later card and move is the same."""
    body = {**PAGE_ONE, "match": "deals=3", "seed": 7}

    def finish(client: TestClient, view: dict) -> dict:
        while True:
            view = play_deal(client, view)
            if view["status"] == "match_over":
                return view
            view = client.post(f"/api/games/{view['id']}/next", json={}).json()

    straight = make_table(tmp_path / "straight")
    client = client_of(straight)
    whole = finish(client, client.post("/api/games", json=body).json())
    expected = load_records(straight.records_dir / f"{whole['id']}.jsonl")
    assert len(expected) == 3

    stopped = make_table(tmp_path / "stopped")
    client = client_of(stopped)
    view = play_deal(client, client.post("/api/games", json=body).json())
    view = client.post(f"/api/games/{view['id']}/next", json={}).json()
    view = first_legal(client, first_legal(client, view))
    first_id = view["id"]

    restarted = make_table(tmp_path / "stopped")      # a new server over the same records folder
    client = client_of(restarted)
    path = restarted.records_dir / f"{first_id}.unfinished.json"
    opened = client.post("/api/review", json={"path": str(path)}).json()
    resumed = client.post(f"/api/games/{opened['id']}/takeover", json={}).json()
    assert resumed["match"]["deal"] == 2 and resumed["match"]["totals"] == view["match"]["totals"]
    done = finish(client, resumed)
    continued = load_records(restarted.records_dir / f"{done['id']}.jsonl")
    assert [r.seed for r in continued] == [r.seed for r in expected[1:]]
    assert [[m.action for m in r.moves] for r in continued] == [[m.action for m in r.moves] for r in expected[1:]]
    assert done["match"]["totals"] == whole["match"]["totals"]
    assert not path.exists()


# ------------------------------------------------------------------ requests
@pytest.mark.parametrize("method,path,headers,body,status", [
    ("GET", "/api/records", {"Host": "evil.example:8765"}, None, 421),           # DNS rebinding
    ("GET", "/api/records", {"Host": "127.0.0.1:9999"}, None, 421),
    ("GET", "/", {"Host": "127.0.0.1.evil.example:8765"}, None, 421),
    ("GET", "/api/records", {"Host": "localhost:8765"}, None, 200),
    ("GET", "/api/records", {"Host": "[::1]:8765"}, None, 200),
    ("POST", "/api/games", {"Origin": "http://evil.example"}, {}, 403),
    ("POST", "/api/games", {"Origin": "null"}, {}, 403),
    ("POST", "/api/games", {"Origin": "https://127.0.0.1:8765"}, {}, 403),
    ("POST", "/api/games", {"Origin": "http://127.0.0.1:8766"}, {}, 403),
    ("POST", "/api/games", {"Origin": "http://localhost:8765"}, {}, 200),
    ("POST", "/api/games", {"Content-Type": "text/plain"}, {}, 415),              # a form or a beacon
    ("POST", "/api/games", {"Content-Type": "application/x-www-form-urlencoded"}, {}, 415),
    ("POST", "/api/games", {"Content-Type": "multipart/form-data; boundary=x"}, {}, 415),
    ("POST", "/api/games", {"Content-Type": ""}, {}, 415),
    ("POST", "/api/games", {"Content-Type": "application/json; charset=utf-8"}, {}, 200),
])
def test_only_this_tables_own_page_is_answered(tmp_path, method, path, headers, body, status):
    table = make_table(tmp_path / "records")
    client = client_of(table)
    content = None if body is None else json.dumps({**PAGE_ONE, **body}).encode()
    r = client.request(method, path, content=content, headers={**({} if body is None else JSON), **headers})
    assert r.status_code == status, r.text
    if status >= 400:
        error = r.json()["error"]
        assert "\n" not in error and str(table.records_dir) not in r.text
        assert len(table.sessions) == 0                 # nothing was made
    elif path == "/api/games":
        assert len(table.sessions) == 1


def test_a_body_without_a_type_is_refused_and_no_body_needs_none(tmp_path):
    table = make_table(tmp_path / "records")
    client = client_of(table)
    untyped = client.post("/api/games", content=json.dumps(PAGE_ONE).encode())
    assert untyped.status_code == 415 and not table.sessions
    view = play_deal(client, client.post("/api/games", json={**PAGE_ONE, "match": "deals=2"}).json())
    assert client.post(f"/api/games/{view['id']}/next").status_code == 200        # no body, no type
    assert client.post(f"/api/games/{view['id']}/hint", content=b"{}").status_code == 415


def test_a_table_on_the_network_answers_its_configured_name_only(tmp_path):
    table = make_table(tmp_path / "records")
    client = TestClient(create_app(table, host="10.1.2.3", port=8000), base_url="http://10.1.2.3:8000")
    assert client.get("/api/records").status_code == 200
    assert client.get("/api/records", headers={"Host": "127.0.0.1:8000"}).status_code == 421
    assert client.post("/api/games", json=PAGE_ONE, headers={"Origin": "http://10.1.2.3:8000"}).status_code == 200
    assert server.served_names("0.0.0.0") >= {"127.0.0.1", "localhost", "0.0.0.0"}


def _asgi(app, headers: list[tuple[bytes, bytes]]) -> tuple[int, int]:
    """A POST with an endless body sent to the ASGI app: (the status answered, how many 1 KiB
    chunks the app read)."""
    pulled = 0
    sent: list[dict] = []

    async def receive() -> dict:
        nonlocal pulled
        pulled += 1
        return {"type": "http.request", "body": b" " * 1024, "more_body": True}

    async def send(message: dict) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "POST", "path": "/api/games", "raw_path": b"/api/games", "query_string": b"",
             "headers": [(b"host", b"127.0.0.1:8765"), (b"content-type", b"application/json"), *headers],
             "http_version": "1.1", "scheme": "http", "server": ("127.0.0.1", 8765), "client": ("127.0.0.1", 1),
             "root_path": ""}
    asyncio.run(app(scope, receive, send))
    return sent[0]["status"], pulled


def test_a_body_is_read_only_up_to_its_limit():
    app = create_app(make_table(None))
    status, pulled = _asgi(app, [(b"content-length", str(512 * 2**20).encode())])
    assert (status, pulled) == (413, 0)                 # refused by its length, before a byte is read
    status, pulled = _asgi(app, [])                     # no length: read until past the limit, then refused
    assert status == 413 and pulled == MAX_BODY // 1024 + 1
    status, pulled = _asgi(app, [(b"content-length", b"12x")])
    assert (status, pulled) == (400, 0)


def test_idle_games_are_forgotten_and_free_the_cap(tmp_path, monkeypatch):
    monkeypatch.setattr(server, "MAX_SESSIONS", 3)
    table = make_table(tmp_path / "records")
    client = client_of(table)
    views = [first_legal(client, client.post("/api/games", json={**PAGE_ONE, "seed": s}).json()) for s in range(3)]
    full = client.post("/api/games", json=PAGE_ONE)
    assert full.status_code == 503 and "finish one first" in full.json()["error"]
    table.sessions[views[0]["id"]].last_seen -= table.idle_seconds + 1
    assert client.post("/api/games", json=PAGE_ONE).status_code == 200
    assert client.get(f"/api/games/{views[0]['id']}").status_code == 404
    assert len(table.sessions) == 3
    # The forgotten game's deal in progress is on disk: its player continues it.
    opened = client.post("/api/review", json={"path": f"{views[0]['id']}.unfinished.json"}).json()
    table.sessions[views[1]["id"]].last_seen -= table.idle_seconds + 1      # room for it
    resumed = client.post(f"/api/games/{opened['id']}/takeover", json={})
    assert resumed.status_code == 200 and resumed.json()["turn"] >= views[0]["turn"]


def test_opened_reviews_are_bounded_and_expire(tmp_path):
    table = make_table(tmp_path / "records")
    client = client_of(table)
    view = play_deal(client, client.post("/api/games", json={**PAGE_ONE, "seed": 1}).json())
    path = f"{view['id']}.jsonl"
    ids = [client.post("/api/review", json={"path": path}).json()["id"] for _ in range(MAX_REVIEWS + 3)]
    assert len(table.reviews) == MAX_REVIEWS
    assert client.get(f"/api/games/{ids[0]}/review").status_code == 404
    assert client.get(f"/api/games/{ids[-1]}/review").status_code == 200
    for opened in table.reviews.values():
        opened.last_seen -= table.idle_seconds + 1
    client.post("/api/review", json={"path": path})
    assert len(table.reviews) == 1


def test_the_review_opens_the_tables_files_only_and_tells_nothing_of_others(tmp_path, monkeypatch):
    table = make_table(tmp_path / "records")
    client = client_of(table)
    view = play_deal(client, client.post("/api/games", json={**PAGE_ONE, "seed": 2}).json())
    outside = tmp_path / "work"
    outside.mkdir()
    (outside / "secret.json").write_text(json.dumps({"format": "the-secret-value"}))
    (outside / "done.jsonl").write_bytes((table.records_dir / f"{view['id']}.jsonl").read_bytes())
    (table.records_dir / "link.jsonl").symlink_to(outside / "done.jsonl")
    monkeypatch.chdir(outside)             # the working folder opens nothing any more

    def error(path: str) -> tuple[int, str]:
        r = client.post("/api/review", json={"path": path})
        return r.status_code, r.json()["error"].split(": ", 1)[-1]

    refusal = error(str(outside / "no-such-file.json"))
    assert refusal[0] == 404
    for path in ("secret.json", str(outside / "secret.json"), "done.jsonl", "../work/done.jsonl",
                 "/etc/passwd", "/etc", "link.jsonl", "~/.bashrc", "a\x00b", str(table.records_dir)):
        assert error(path) == refusal, path
    assert "the-secret-value" not in client.post("/api/review", json={"path": "secret.json"}).text
    assert client.post("/api/review", json={"path": f"{view['id']}.jsonl"}).status_code == 200     # its own
    assert client.post("/api/review", json={"path": str(table.records_dir / f"{view['id']}.jsonl")}).status_code == 200


# ------------------------------------------------------------ once a 500
def _results_file_of_a_game_that_no_longer_loads(folder: Path) -> Path:
    from eval.config import TournamentConfig
    from eval.tournament import run_tournament
    path = folder / "old.db"
    run_tournament(TournamentConfig.create("python_page_one(players=2)", ["random", "rules"], deals=1), path,
                   workers=1, progress=False, bootstrap=0)
    with sqlite3.connect(path) as db:
        (text,) = db.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()
        config = json.loads(text)
        config["game"] = "python_page_one_retired(players=2)"
        db.execute("UPDATE meta SET value = ? WHERE key = 'config'", (json.dumps(config),))
    return path


def test_inputs_that_once_answered_500_answer_one_4xx_line(tmp_path):
    old = _results_file_of_a_game_that_no_longer_loads(tmp_path)
    table = make_table(tmp_path / "records", allowed_files=(old,))
    client = client_of(table)
    view = play_deal(client, client.post("/api/games", json={**PAGE_ONE, "seed": 4}).json())
    finished = client.post("/api/review", json={"path": f"{view['id']}.jsonl"}).json()["id"]
    (table.records_dir / "nested.json").write_text("[" * 30000 + "]" * 30000)
    (table.records_dir / "deep.json").write_text('{"format": ' + "[" * 900 + "]" * 900 + "}")
    digits400, digits5000 = "9" * 400, "9" * 5000
    cases = [("/api/games", f'{{"game": "python_page_one", "{name}": {digits}}}'.encode())
             for name in ("seed", "seat", "time_limit") for digits in (digits400, digits5000, "-" + digits400)]
    cases += [("/api/games", ("[" * 30000 + "]" * 30000).encode()),
              ("/api/games", ('{"game": ' + "[" * 900 + "]" * 900 + "}").encode()),
              ("/api/games", b'{"game": []}'), ("/api/games", b'{"game": {}}'),
              ("/api/games", b'{"game": "python_page_one", "seed": NaN}'),
              ("/api/games", b'{"game": "python_page_one", "time_limit": Infinity}'),
              ("/api/games", b'{"game": "python_page_one", "time_limit": 1e400}'),
              ("/api/games", ('{"game": "python_page_one", "bots": {"1": "' + "pimc(rollout=" * 2000 + "rules"
                              + ")" * 2000 + '"}}').encode()),
              ("/api/review", b'{"path": "nested.json"}'), ("/api/review", b'{"path": "deep.json"}'),
              ("/api/review", json.dumps({"path": str(old)}).encode()),
              ("/api/review", json.dumps({"path": str(old), "game": "0-0"}).encode()),
              (f"/api/games/{finished}/takeover", b'{"bots": {"7": "rules"}}'),
              (f"/api/games/{finished}/takeover", b'{"bots": {"0": "rules"}}'),
              (f"/api/games/{finished}/takeover", f'{{"seat": {digits400}}}'.encode()),
              (f"/api/games/{finished}/takeover", f'{{"move": {digits400}}}'.encode()),
              (f"/api/games/{finished}/takeover", f'{{"deal": {digits400}}}'.encode()),
              (f"/api/games/{view['id']}/action", f'{{"action": {digits400}, "turn": {digits400}}}'.encode()),
              (f"/api/games/{view['id']}/hint", f'{{"worlds": {digits400}}}'.encode()),
              (f"/api/games/{view['id']}/hint", b'{"seconds": NaN}')]
    for path, content in cases:
        r = client.post(path, content=content, headers=JSON)
        assert 400 <= r.status_code < 500, (path, content[:80], r.text[:300])
        error = r.json()["error"]
        assert "\n" not in error and len(error) <= server.MAX_ERROR, error
    for query in (f"deal={digits400}", f"seat={digits400}", "seat=-1", "deal=1e3"):
        r = client.get(f"/api/games/{finished}/review?{query}")
        assert r.status_code == 400, (query, r.text[:200])


# ------------------------------------------------------------ a full disk
def _fill(folder: Path) -> Path:
    """Fills the filesystem of `folder` to the last byte; returns the filler file."""
    filler = folder / "filler"
    with contextlib.suppress(OSError), open(filler, "wb") as f:
        while True:
            f.write(b"\0" * 4096)
            f.flush()
    return filler


def _check_saved_whole(table: Table, session, game_id: str) -> None:
    """The game's records on disk are whole and are what the table played, and no other record
    is there (a writer's hidden temporary file is not one: records.record removes its own)."""
    (saved,) = load_records(table.records_dir / f"{game_id}.jsonl")
    assert [m.action for m in saved.moves] == [m.action for m in session.records[0].moves]
    assert saved.returns == session.records[0].returns
    assert sorted(p.name for p in table.records_dir.iterdir() if not p.name.startswith(".")) == [f"{game_id}.jsonl"]


def _play_through_a_failing_disk(table: Table, break_disk, mend_disk) -> None:
    """Plays a deal whose saves fail from its second move: every move is answered 200 with the
    save's error in the view, the bots go on, the deal ends; the disk mended, the next view saves."""
    client = client_of(table)
    view = client.post("/api/games", json={"game": "python_page_one", "params": {"players": 2},
                                           "bots": {"1": "rules"}, "seed": 9}).json()
    view = first_legal(client, view)
    assert view["save_error"] is None
    game_id = view["id"]
    (before,) = load_records(table.records_dir / f"{game_id}.unfinished.json")
    break_disk()
    after = first_legal(client, view)
    assert after["turn"] > view["turn"] and after["status"] in ("your_turn", "deal_over", "match_over")
    assert after["save_error"] and "not saved" in after["save_error"]
    view = play_deal(client, after)
    assert view["status"] == "match_over" and "finished deal" in view["save_error"]
    session = table.sessions[game_id]
    mend_disk()
    (kept,) = load_records(table.records_dir / f"{game_id}.unfinished.json")     # the last whole save
    assert [m.action for m in kept.moves] == [m.action for m in before.moves]
    view = client.get(f"/api/games/{game_id}").json()
    assert view["save_error"] is None and view["status"] == "match_over"
    _check_saved_whole(table, session, game_id)


def test_a_full_disk_loses_no_move_and_freezes_no_bot(tmp_path):
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(disk)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"no tmpfs to fill here ({mounted.stderr.decode().strip() or 'mount failed'}): "
                    f"the test with an unwritable folder below covers the same path")
    try:
        table = make_table(disk / "records", save_retry_seconds=0.0)
        filler: list[Path] = []
        _play_through_a_failing_disk(table, lambda: filler.append(_fill(disk)), lambda: filler[0].unlink())
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


def test_an_unwritable_records_folder_loses_no_move_and_freezes_no_bot(tmp_path):
    """The records folder replaced by a file mid-game: every write there fails (as root too)."""
    table = make_table(tmp_path / "records", save_retry_seconds=0.0)
    aside = tmp_path / "aside"

    def break_disk() -> None:
        table.records_dir.rename(aside)
        table.records_dir.write_text("not a folder")

    def mend_disk() -> None:
        table.records_dir.unlink()
        aside.rename(table.records_dir)

    _play_through_a_failing_disk(table, break_disk, mend_disk)


# ---------------------------------------------------------------- the command
@pytest.mark.parametrize("args,words", [
    (["--pause", "inf"], "--pause inf"), (["--pause", "nan"], "--pause nan"), (["--pause", "-1"], "--pause -1"),
    (["--pause", "1e9"], "--pause 1e+09"), (["--host", ""], "--host ''"), (["--host", "  "], "--host ''"),
    (["--time-limit", "nan"], "--time-limit nan"),
])
def test_play_refuses_a_frozen_pause_and_an_empty_host_in_one_line(tmp_path, capsys, args, words):
    with pytest.raises(SystemExit) as stop:
        main(["play", "--no-browser", "--records", str(tmp_path), *args])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and words in err and len(err.strip().splitlines()) == 1, err
    assert not os.listdir(tmp_path)


@pytest.mark.parametrize("bot, message", [
    ("ismcts(value=README.md)", "only files under bots/"),
    ("pimc(belief=pyproject.toml)", "only files under bots/"),
    ("ismcts(value=../x.safetensors)", "only files under bots/"),
    ("ismcts(belief=shipped,belief_candidates=1000000000)", "out of range"),
])
def test_a_page_names_no_network_file_outside_bots_and_no_huge_candidate_count(bot, message):
    from play.options import FieldError, parse_new_game
    with pytest.raises(FieldError, match=message):
        parse_new_game({"game": "python_modern_canasta", "seat": 0, "bots": {"1": bot}}, pause=0.0)
