"""An HTTP fuzz corpus against the table's real app, in process (docs/play-api.md, "Security").

Over 300 requests from a table of cases and a seeded walk through games of all four games:
every endpoint, wrong methods and paths, bad JSON, wrong types, huge, NaN and infinite numbers,
deep nesting, unknown fields, wrong content types, bad Host and Origin, unknown ids, stale turns,
illegal actions, other seats' views of an unfinished deal, alongside the legal moves that carry
the games on. Every answer is checked: never a 5xx, every 4xx one line `{"error": ...}`, every
request answered within its bound (a hang fails), and no answer about a game in play shows what
its human cannot see: the answer is the seat's view, and that view is the same in a world
resampled from the seat's information state. At the end the records folder holds only whole
records, and the files that were there before are unchanged.
"""

from __future__ import annotations

import json
import random
import threading
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import games  # noqa: F401
from agents.base import rules_core
from records.record import load_records
from play.server import MAX_BODY, MAX_ERROR, Table, create_app
from games.view import seat_view

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

BASE_URL = "http://127.0.0.1:8765"
BOUND = 60.0                # seconds any one request may take before the corpus calls it a hang
ROUNDS = 60                 # of the seeded walk: a few moves of one game, then three or more wrong requests
GAMES = {"python_page_one": {"params": {"players": 3, "hand_size": 4}, "bots": {"1": "random", "2": "rules"}},
         "python_american_page_one": {"params": {"players": 3}, "bots": {"1": "random", "2": "random"}},
         "python_modern_canasta": {"params": {}, "bots": {"1": "random", "2": "random", "3": "random"}},
         "python_classic_canasta": {"params": {"players": 2}, "bots": {"1": "random"}}}
BIG = "9" * 400
HUGE = "9" * 5000
DEEP = "[" * 30000 + "]" * 30000
# Values of the wrong kind, out of range, not finite, too long, too deep: raw JSON text.
ODD_VALUES = ["null", "true", "false", "-1", "0.5", "1e400", "-1e400", BIG, "-" + BIG, HUGE, "NaN",
              "Infinity", "-Infinity", '""', '"x"', '"' + "x" * 2000 + '"', "[]", "{}", "[1, 2]",
              '{"a": 1}', "[" * 40 + "]" * 40, '"\\u0000"', '"\\ud800"', "1.0", "-0"]


@dataclass
class Probe:
    """One request of the corpus."""

    method: str
    path: str
    content: bytes | None = None
    headers: dict = field(default_factory=dict)
    refused: bool = False           # a request the table must refuse (a 4xx)

    def send(self, client: TestClient):
        headers = dict(self.headers)
        if self.method == "POST" and self.content is not None:
            headers.setdefault("Content-Type", "application/json")
        return client.request(self.method, self.path, content=self.content, headers=headers)


def post(path: str, body: str | bytes | dict | None = None, **headers) -> Probe:
    if isinstance(body, dict):
        body = json.dumps(body)
    return Probe("POST", path, body.encode() if isinstance(body, str) else body, headers)


def refused(probes: list[Probe]) -> list[Probe]:
    for probe in probes:
        probe.refused = True
    return probes


def fixed_cases(done: str, nested: str) -> list[Probe]:
    """The table of cases that need no game in play: every endpoint, wrongly."""
    ok = json.dumps({"game": "python_page_one", **GAMES["python_page_one"]})
    cases = [Probe("GET", p) for p in ("/", "/api/options", "/api/records", "/static/app.js", "/static/style.css")]
    cases += refused([Probe("GET", p) for p in ("/api/nothing", "/api/games", "/api/games/x/y", "/api/review",
                                                "/static/../play/server.py", "/static/%2e%2e/server.py",
                                                "/api/games/%00")])
    cases += refused([Probe(m, p) for m in ("PUT", "DELETE", "PATCH") for p in ("/api/games", "/api/review", "/")])
    for host in ("evil.example:8765", "127.0.0.1:1", "127.0.0.1.evil.example:8765", "", "[::2]:8765",
                 "127.0.0.1:8765@evil.example", "localhost:99999", "a b"):
        cases += refused([Probe("GET", "/api/records", headers={"Host": host}), post("/api/games", ok, Host=host)])
    for origin in ("http://evil.example", "null", "https://127.0.0.1:8765", "http://127.0.0.1:8764",
                   "http://127.0.0.1:8765.evil.example", "file://", ""):
        cases += refused([post("/api/games", ok, Origin=origin), post("/api/review", {"path": done}, Origin=origin)])
    for kind in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=b",
                 "application/jsonx", "text/json", ""):
        cases += refused([post("/api/games", ok, **{"Content-Type": kind})])
    cases.append(post("/api/games", ok, **{"Content-Type": "application/json; charset=utf-8"}))
    cases.append(post("/api/games", b"\xef\xbb\xbf" + ok.encode()))      # a byte order mark: read or refused
    for raw in (b"", b" ", b"{", b"null", b"[]", b'"game"', b"1", b"\xff\xfe\x00", b'{"game": NaN}',
                DEEP.encode(), b'{"a":' * 5000 + b"1" + b"}" * 5000,
                b" " * (MAX_BODY + 1), ok.encode() + b"x", b'{"game": "python_page_one"} {}'):
        for path in ("/api/games", "/api/review", "/api/games/nosuch/action", "/api/games/nosuch/takeover"):
            cases += refused([post(path, raw)])
    for value in ODD_VALUES:
        cases += refused([post("/api/review", f'{{"path": {value}}}')])
        if value != "null":
            cases += refused([post("/api/review", f'{{"path": {json.dumps(done)}, "game": {value}}}')])
    for path in ("/etc/passwd", "/etc", "", ".", "..", "../../../../etc/hostname", "~", "a\x00b", nested,
                 "foreign.json", "x" * 5000, done + "/..", "nosuch.jsonl"):
        cases += refused([post("/api/review", {"path": path})])
    cases += refused([post("/api/review", {"path": done, "extra": 1})])
    for game_id in ("nosuch", "", "%2e%2e", "x" * 300):
        cases += refused([Probe("GET", f"/api/games/{game_id}"), Probe("GET", f"/api/games/{game_id}/review"),
                          post(f"/api/games/{game_id}/action", {"action": 0, "turn": 0}),
                          post(f"/api/games/{game_id}/hint", {}), post(f"/api/games/{game_id}/next", {}),
                          post(f"/api/games/{game_id}/takeover", {})])
    return cases


def new_game_cases(game: str, rng: random.Random) -> list[Probe]:
    """NewGame bodies for `game`: one good, then each field made wrong."""
    base = {"game": game, **GAMES[game], "seed": rng.randrange(10**6), "time_limit": 2.0}
    cases = [post("/api/games", base)]
    wrong = {"game": ["[]", "{}", "null", '"chess"', '"python_page_one(players=3)"', "1"],
             "params": ['"players=3"', "[]", '{"players": 99}', '{"players": ' + BIG + "}", '{"nosuch": 1}',
                        '{"players": NaN}', '{"players": "three"}', '{"players": 1e400}'],
             "seat": ["-1", "7", BIG, HUGE, '"0"', "0.5", "NaN", "true"],
             "bots": ['{"1": "engine(cmd=rm -rf /)"}', '{"1": "os:system"}', '{"1": "neural(path=/etc/passwd)"}',
                      '{"9": "random"}', '{"x": "random"}', '{"0": "random"}', '{"1": ""}', '{"1": 7}', "[]",
                      '{"1": "ismcts(seconds=1e400)"}', '{"1": "pimc(rollout=' * 50 + 'rules' + ')' * 50 + '"}'],
             "match": ['"deals=0"', '"target=1"', '"deals=' + BIG + '"', "7", '"x"'],
             "seed": ["-1", BIG, HUGE, "1.5", "NaN", "Infinity", '"7"'],
             "time_limit": ["0", "-1", "1e400", BIG, "NaN", "Infinity", '"2"', "0.01"],
             "extra": ["1"]}
    for name, values in wrong.items():
        for value in rng.sample(values, min(3, len(values))):
            fields = {k: json.dumps(v) for k, v in base.items() if k != name}
            fields[name] = value
            cases += refused([post("/api/games", "{" + ", ".join(f'"{k}": {v}' for k, v in fields.items()) + "}")])
    return cases


def carry_on(view: dict, rng: random.Random) -> Probe | None:
    """The request that carries a game on: one of its human's legal moves, the next deal, or,
    once the match is over, a takeover of its last deal from a move of it."""
    game_id = view["id"]
    if view["status"] == "your_turn":
        return post(f"/api/games/{game_id}/action", {"action": rng.choice(view["actions"])["action"],
                                                     "turn": view["turn"]})
    if view["status"] == "deal_over":
        return post(f"/api/games/{game_id}/next", {})
    if view["status"] == "match_over" and rng.random() < 0.3:
        return post(f"/api/games/{game_id}/takeover", {"move": rng.randrange(view["turn"] + 1),
                                                       "seat": rng.randrange(len(view["players"]))})
    return None


def wrong_requests(view: dict, rng: random.Random) -> list[Probe]:
    """Requests about a game in play that it must refuse, or answer without changing it."""
    game_id, turn = view["id"], view["turn"]
    legal = [a["action"] for a in view["actions"]] or [0]
    bad = [{"action": rng.randrange(-5, 2000), "turn": turn}, {"action": legal[0], "turn": turn - 1},
           {"action": legal[0], "turn": turn + 1}, {"action": 0}, {"turn": turn}, {},
           {"action": None, "turn": turn}, {"action": "1", "turn": turn}, {"action": True, "turn": turn},
           {"action": 1.5, "turn": turn}, {"action": legal[0], "turn": turn, "extra": 1},
           {"action": legal[0], "turn": BIG}]
    choices = [post(f"/api/games/{game_id}/action", rng.choice(bad)),
               post(f"/api/games/{game_id}/action", f'{{"action": {rng.choice(ODD_VALUES)}, "turn": {turn}}}'),
               post(f"/api/games/{game_id}/hint", rng.choice(
                   [{}, {"worlds": 2}, {"seconds": 0.05}, {"worlds": 0}, {"worlds": 3000}, {"seconds": 31},
                    {"nosuch": 1}])),
               post(f"/api/games/{game_id}/hint", f'{{"worlds": {rng.choice(ODD_VALUES)}}}'),
               post(f"/api/games/{game_id}/hint", f'{{"seconds": {rng.choice(ODD_VALUES)}}}'),
               Probe("GET", f"/api/games/{game_id}"), post(f"/api/games/{game_id}/next", {}),
               post(f"/api/games/{game_id}/next", {"deal": 1}), Probe("GET", f"/api/games/{game_id}/review"),
               Probe("GET", f"/api/games/{game_id}/review?deal={rng.choice(['x', '-1', BIG, '0', '9'])}"),
               post(f"/api/games/{game_id}/takeover", rng.choice(
                   [{}, {"deal": 0}, {"deal": "0"}, {"seat": 1}, {"move": -1}, {"bots": {"7": "rules"}},
                    {"bots": []}, {"deal": 0, "move": 3, "seat": 1}, {"seat": BIG}]))]
    return rng.sample(choices, 3)


def review_cases(review_id: str, finished: bool, rng: random.Random) -> list[Probe]:
    """Requests about an opened record: every seat's review, takeovers of every kind."""
    seats = ["0", "1", "2", "-1", "x", BIG]
    out = [Probe("GET", f"/api/games/{review_id}/review?seat={rng.choice(seats)}"),
           Probe("GET", f"/api/games/{review_id}/review?deal={rng.choice(['0', '1', 'x'])}")]
    takeovers = [{"seat": 1}, {"move": 0}, {"seat": 1, "move": 2}, {"bots": {"1": "random"}}, {"deal": 5},
                 {"seat": 9}, {"move": 10**6}, {"bots": {"7": "rules"}}, {"bots": {"1": "engine(cmd=sh)"}}]
    if finished:
        takeovers.append({"move": 3, "seat": 1, "bots": {"0": "random", "2": "random"}})
    out.append(post(f"/api/games/{review_id}/takeover", rng.choice(takeovers)))
    return out


def hides_every_hand(value) -> bool:
    """No player entry (an object with a seat and an agent) anywhere in the answer has a hand."""
    if isinstance(value, dict):
        return not {"seat", "agent", "hand"} <= set(value) and all(map(hides_every_hand, value.values()))
    if isinstance(value, list):
        return all(map(hides_every_hand, value))
    return True


def check_answer(table: Table, probe: Probe, response, rng: random.Random) -> dict | None:
    """The checks every answer must pass; the answer's JSON when it is an object."""
    where = f"{probe.method} {probe.path[:80]} {(probe.content or b'')[:120]!r} {probe.headers}"
    assert response.status_code < 500, (where, response.text[:500])
    assert not probe.refused or 400 <= response.status_code, (where, "answered, not refused")
    if response.headers.get("content-type", "").startswith("application/json"):
        body = response.json()
    else:
        assert response.status_code < 400, (where, response.text[:200])
        return None
    if response.status_code >= 400:
        assert isinstance(body, dict) and isinstance(body.get("error"), str), (where, body)
        assert "\n" not in body["error"] and 0 < len(body["error"]) <= MAX_ERROR, (where, body)
        assert set(body) <= {"error", "field"}, (where, body)
        return body
    if not isinstance(body, dict):
        return None
    if "moves" in body:                      # a review: an unfinished deal's only from its own seat
        if body.get("analysed") is False:
            assert hides_every_hand(body) and all(m["open"] == m["view"] for m in body["moves"]), where
        return body
    assert hides_every_hand(body), where
    session = table.sessions.get(body.get("id"))
    if session is not None and "hand" in body:
        assert_nothing_hidden(session, body, rng, where)
    return body


def assert_nothing_hidden(session, view: dict, rng: random.Random, where: str) -> None:
    """The view the human got is its seat's view of the true state, and that view is the same in
    a world resampled from the seat's information state: it shows no card the seat cannot see."""
    with session.lock:
        state, seat, game = session.state, session.spec.seat, session.spec.game
        true = seat_view(game, state, seat, session.names, session.agents)
        for key in ("turn", "players", "hand", "zones", "log"):
            assert view[key] == true[key], (where, key)
        core = rules_core(state)
        if core.is_terminal() or core.current_player() < 0:
            return
        world = core.resample_from_infostate(seat, rng.random)
        seen = seat_view(game, world, seat, session.names, session.agents)
    assert json.dumps(seen) == json.dumps(true), where


def records_folder(tmp_path: Path) -> tuple[Path, dict[str, bytes]]:
    """A records folder with a finished game's record, an unfinished game's, a file that is not a
    record and one nested past reason; returns it and the bytes of each file."""
    folder = tmp_path / "records"
    table = Table(folder, pause=0.0, threaded=False)
    client = TestClient(create_app(table), base_url=BASE_URL)
    view = client.post("/api/games", json={"game": "python_page_one", "params": {"players": 2},
                                           "bots": {"1": "rules"}, "seed": 1}).json()
    while view["status"] == "your_turn":
        view = client.post(f"/api/games/{view['id']}/action",
                           json={"action": view["actions"][-1]["action"], "turn": view["turn"]}).json()
    (folder / f"{view['id']}.jsonl").rename(folder / "done.jsonl")
    view = client.post("/api/games", json={"game": "python_classic_canasta", "params": {"players": 2},
                                           "bots": {"1": "rules"}, "seed": 2}).json()
    for _ in range(3):
        view = client.post(f"/api/games/{view['id']}/action",
                           json={"action": view["actions"][0]["action"], "turn": view["turn"]}).json()
    (folder / f"{view['id']}.unfinished.json").rename(folder / "old.unfinished.json")
    (folder / "foreign.json").write_text(json.dumps({"format": "something else", "secret": "the-secret"}))
    (folder / "nested.json").write_text(DEEP)
    return folder, {p.name: p.read_bytes() for p in folder.iterdir()}


def test_the_http_api_survives_a_fuzz_corpus_with_no_5xx_no_hang_and_no_leak(tmp_path):
    folder, before = records_folder(tmp_path)
    table = Table(folder, pause=0.0, threaded=False, analysis_worlds=2)
    client = TestClient(create_app(table), base_url=BASE_URL)
    rng = random.Random(42)
    done, nested = str(folder / "done.jsonl"), "nested.json"
    sent: list[Probe] = []
    answers: dict[int, int] = {}

    def send(probe: Probe) -> dict | None:
        box: list = []
        worker = threading.Thread(target=lambda: box.append(probe.send(client)), daemon=True)
        worker.start()
        worker.join(BOUND)           # a daemon thread: a request that hangs fails the test, not the run
        if not box:
            pytest.fail(f"no answer in {BOUND:g} s: {probe.method} {probe.path[:80]} {(probe.content or b'')[:80]!r}")
        response = box[0]
        sent.append(probe)
        answers[response.status_code] = answers.get(response.status_code, 0) + 1
        return check_answer(table, probe, response, rng)

    for probe in fixed_cases(done, nested):
        send(probe)
    views: dict[str, dict] = {}          # each game in play's latest view, by id
    for game in GAMES:
        for probe in new_game_cases(game, rng):
            body = send(probe)
            if body and "id" in body and "hand" in body:
                views[body["id"]] = body
    assert {v["game"] for v in views.values()} == set(GAMES)
    reviews = {}                         # opened files: id -> finished
    for path in (done, "old.unfinished.json"):
        body = send(post("/api/review", {"path": path}))
        reviews[body["id"]] = body["deals"][0]["finished"]
    for _ in range(ROUNDS):
        game = rng.choice(sorted({v["game"] for v in views.values()}))      # each game as often
        game_id = rng.choice([k for k, v in views.items() if v["game"] == game])     # in the order made
        for _ in range(rng.randint(1, 4)):
            probe = carry_on(views[game_id], rng)
            if probe is not None:
                body = send(probe)
                if body and "hand" in body and body.get("id") in table.sessions:
                    views[body["id"]] = body
        probes = wrong_requests(views[game_id], rng)
        if rng.random() < 0.3:
            review_id = rng.choice(list(reviews))
            probes += review_cases(review_id, reviews[review_id], rng)
        for probe in probes:
            body = send(probe)
            if body and "hand" in body and body.get("id") in table.sessions:
                views[body["id"]] = body
    assert len(sent) >= 300 and not any(code >= 500 for code in answers), answers
    assert {200, 400, 403, 404, 405, 409, 413, 415, 421} <= set(answers), answers
    # The records folder: what was there is unchanged, but for the unfinished game if its own
    # player continued it (a takeover from its seat and its end): then its record moved on to
    # the continued game's; every other file is a whole record.
    original = json.loads(before["old.unfinished.json"])["annotations"]["play"]["id"]
    made = {path.name: load_records(path) for path in folder.iterdir()
            if path.name not in before and not path.name.startswith(".")}
    for name, data in before.items():
        if name == "old.unfinished.json" and not (folder / name).exists():
            assert any(r.source and r.source.get("game") == original for rs in made.values() for r in rs)
            continue
        assert (folder / name).read_bytes() == data, name
    assert all(name.endswith((".jsonl", ".unfinished.json")) and records for name, records in made.items())
