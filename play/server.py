"""The table's web server: the endpoints of docs/play-api.md over Starlette, and the page.

Each game has its own unguessable id (`secrets.token_urlsafe`); every request is validated and a
bad one gets a 4xx with `{"error": one line}` (and `field` for a bad NewGame field) while the
server and every other game go on. Blocking work (a human move, a hint, a review) runs in the
thread pool, so one game's analysis never stalls another's page.

The security model (docs/play-api.md, "Security") is enforced here, before any endpoint runs:
`Guard` answers only requests addressed to this table by one of its own names (so a page that
rebinds its DNS name to this machine cannot read anything), refuses an `Origin` that is not this
table (so no other site's page can send it anything), takes a POST's body only as
`Content-Type: application/json` (which a page elsewhere cannot send without a preflight this
server never grants; a POST with no body needs no type) and reads a body only up to `MAX_BODY`
bytes. The table forgets games and
opened reviews nobody has asked for in `idle_seconds` (a game's deal in progress stays on disk,
to be continued), opens only the records folder's files and the files given on its command line,
and shows an unfinished deal only from its own player's seat.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import os
import re
import secrets
import socket
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from play.review import DEFAULT_ANALYSIS_WORLDS
from play.engines import Engine
from play.options import FieldError, bot_options, game_options, parse_new_game, shown, variant_levels
from play.session import Session, SessionError

STATIC = Path(__file__).resolve().parent / "static"
MAX_BODY = 64 * 1024            # bytes of a request body: the page's largest is well under 1 KiB
MAX_DEPTH = 16                  # nesting of a request's JSON: the page's deepest is 2
MAX_ERROR = 300                 # characters of an error line (a value quoted in it is cut short)
MAX_SESSIONS = 500
MAX_REVIEWS = 32                # opened files kept at once, the least recently used forgotten first
MAX_REVIEW_BYTES = 32 * 1024 * 1024     # a record file larger than this is not opened here
MAX_REVIEW_DEALS = 500          # records read from one file (a results file's games: name one)
IDLE_SECONDS = 4 * 3600.0       # a game or review nobody asked for in this long is forgotten
LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "::1"})
_HOST = re.compile(r"(?:(?P<name>[A-Za-z0-9._-]+)|\[(?P<ip6>[0-9A-Fa-f:.]+)\])(?::(?P<port>\d{1,5}))?")


def is_loopback(host: str) -> bool:
    """Whether `host` names this machine only (localhost, 127.0.0.0/8, ::1)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def served_names(host: str) -> frozenset[str]:
    """The names a request may address the table by when it listens on `host`: every loopback
    name for a loopback address (a browser may say localhost or 127.0.0.1), else the host as
    configured; listening on every address (0.0.0.0, ::) adds the loopback names and this
    machine's own name. Any other name is a page's DNS name rebound to this machine."""
    host = host.lower()
    if is_loopback(host):
        return LOOPBACK_NAMES | {host}
    if host in ("0.0.0.0", "::"):
        return LOOPBACK_NAMES | {host, socket.gethostname().lower()}
    return frozenset({host})


class Guard:
    """The table's front door (the module docstring says why each check is there): a request
    that fails one gets its 4xx here, and no endpoint ever sees it."""

    def __init__(self, app: ASGIApp, names: frozenset[str], port: int):
        self.app = app
        self.names = names
        self.port = port

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        refusal = self._refusal(scope["method"], headers)
        if refusal is None and scope["method"] == "POST":
            body, refusal = await _read_body(receive, headers)
            if refusal is None and body.strip() and "content-type" not in headers:
                refusal = _unsupported(None)
            receive = _replaying(body, receive)
        if refusal is not None:
            await _error(*refusal)(scope, receive, send)
            return
        await self.app(scope, receive, send)

    def _ours(self, address: str) -> bool:
        """Whether `address` ("host[:port]") is this table's."""
        m = _HOST.fullmatch(address)
        if m is None:
            return False
        name = (m.group("name") or m.group("ip6")).lower()
        port = int(m.group("port")) if m.group("port") else 80
        return name in self.names and port == self.port

    def _refusal(self, method: str, headers: Headers) -> tuple[int, str] | None:
        host = headers.get("host")
        if host is None or not self._ours(host):
            return 421, (f"Host {shown(host)} is not this table's address: open the table at the "
                         f"address `cardarena play` printed")
        origin = headers.get("origin")
        if origin is not None and not (origin.startswith("http://") and self._ours(origin[len("http://"):])):
            return 403, f"a request from the page of another site (Origin {shown(origin)}) is refused"
        if method == "POST" and "content-type" in headers:       # none at all: only with no body
            media = headers["content-type"].split(";")[0].strip().lower()
            if media != "application/json":
                return _unsupported(media)
        return None


def _unsupported(media: str | None) -> tuple[int, str]:
    """The refusal of a body that does not say it is JSON."""
    return 415, f"a POST body must be Content-Type: application/json (got {shown(media)})"


async def _read_body(receive: Receive, headers: Headers) -> tuple[bytes, tuple[int, str] | None]:
    """The body, read only up to MAX_BODY bytes (a longer one is refused by its Content-Length
    before a byte is read, or as soon as it passes the limit)."""
    too_long = 413, f"the body is over {MAX_BODY} bytes"
    length = headers.get("content-length")
    if length is not None:
        if not length.strip().isdigit():
            return b"", (400, f"Content-Length {shown(length)}: not a number of bytes")
        if len(length.strip()) > 12 or int(length) > MAX_BODY:
            return b"", too_long
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return b"", (400, "the request ended before its body")
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY:
            return b"", too_long
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks), None


def _replaying(body: bytes, receive: Receive) -> Receive:
    """A receive that hands the app the body already read, then what the server sends next."""
    pending = [{"type": "http.request", "body": body, "more_body": False}]

    async def replay() -> dict:
        return pending.pop() if pending else await receive()
    return replay


@dataclass
class OpenedFile:
    """A record or results file opened in the review: where it lies, its records, each deal's
    review from each seat as it is asked for, and when it was last asked for."""

    path: Path
    records: list[tuple[str, Any]]
    reviews: dict[tuple[int, int], dict] = field(default_factory=dict)
    last_seen: float = field(default_factory=time.monotonic)


class Table:
    """The server's games and opened reviews, by id."""

    def __init__(self, records_dir: Path | None, *, pause: float = 0.6, threaded: bool = True,
                 analysis_worlds: int = DEFAULT_ANALYSIS_WORLDS,
                 allowed_files: tuple[Path, ...] = (), engines: dict[str, Engine] | None = None,
                 idle_seconds: float = IDLE_SECONDS, save_retry_seconds: float = 2.0):
        self.records_dir = Path(records_dir).expanduser().resolve() if records_dir is not None else None
        if self.records_dir is not None:
            self.records_dir.mkdir(parents=True, exist_ok=True)
        self.pause = pause
        self.threaded = threaded
        self.analysis_worlds = analysis_worlds   # the hint's and the review's budget (search.analysis.review_evaluator)
        self.allowed_files = tuple(Path(p).resolve() for p in allowed_files)
        self.engines = dict(engines or {})      # the operator's --engine NAME=CMD, said hello to
        self.idle_seconds = idle_seconds
        self.save_retry_seconds = save_retry_seconds
        self.sessions: dict[str, Session] = {}
        self.reviews: OrderedDict[str, OpenedFile] = OrderedDict()     # least recently used first
        self.lock = threading.Lock()

    def new_id(self) -> str:
        return secrets.token_urlsafe(16)

    def start(self, session: Session) -> dict:
        """Takes a new session in (the table's hint, review and save settings), starts its bots
        and returns its first view."""
        session.analysis_worlds = self.analysis_worlds
        session.save_retry_seconds = self.save_retry_seconds
        try:
            self.add(session)
        except SessionError:
            session.close()
            raise
        session.start()
        return session.view()

    def add(self, session: Session) -> Session:
        """Adds a session, forgetting idle ones first and, at the cap, the oldest finished game
        (503 when every game is still in play)."""
        with self.lock:
            self._forget_idle()
            if len(self.sessions) >= MAX_SESSIONS:
                old = next((k for k, s in self.sessions.items() if s.match_over), None)
                if old is None:
                    raise SessionError(503, f"{MAX_SESSIONS} games are in play: finish one first")
                self.sessions.pop(old).close()
            self.sessions[session.id] = session
        return session

    def _forget_idle(self) -> None:
        """Closes the games and drops the reviews nobody has asked for in idle_seconds (a game's
        deal in progress is on disk already: it can be continued from its record)."""
        now = time.monotonic()
        for key in [k for k, s in self.sessions.items() if now - s.last_seen > self.idle_seconds]:
            self.sessions.pop(key).close()
        for key in [k for k, r in self.reviews.items() if now - r.last_seen > self.idle_seconds]:
            del self.reviews[key]

    def session(self, game_id: str) -> Session:
        with self.lock:
            session = self.sessions.get(game_id)
        if session is None:
            raise SessionError(404, "no game with that id (games are forgotten when the server restarts or "
                                    "nobody plays them for hours; continue one from its record)")
        session.last_seen = time.monotonic()
        return session

    def add_review(self, path: Path, records: list[tuple[str, Any]]) -> str:
        """Keeps an opened file's records under a new id; the least recently used beyond MAX_REVIEWS go."""
        review_id = self.new_id()
        with self.lock:
            self._forget_idle()
            self.reviews[review_id] = OpenedFile(path, records)
            while len(self.reviews) > MAX_REVIEWS:
                self.reviews.popitem(last=False)
        return review_id

    def opened(self, review_id: str) -> OpenedFile | None:
        with self.lock:
            opened = self.reviews.get(review_id)
            if opened is not None:
                opened.last_seen = time.monotonic()
                self.reviews.move_to_end(review_id)
        return opened

    def allowed(self, path: str) -> Path:
        """The file `path` names if the page may open it: under the records folder (a relative
        path is read from there) or given on the command line (--review). Any other path, there
        or not, gets the same 404, so the answer tells nothing of the files elsewhere."""
        refused = SessionError(404, f"{shown(path)}: no such record here (the page opens the files of "
                                    f"the records folder and the file given to --review)")
        try:
            given = Path(path).expanduser()
            if not given.is_absolute() and self.records_dir is not None:
                given = self.records_dir / given
            full = given.resolve()
            inside = self.records_dir is not None and self.records_dir in full.parents
            if not (inside or full in self.allowed_files) or not full.is_file():
                raise refused
            size = full.stat().st_size
        except (OSError, RuntimeError, ValueError):        # ValueError: a NUL in the path
            raise refused from None
        if size > MAX_REVIEW_BYTES:
            raise SessionError(413, f"{shown(path)}: {size} bytes, over the {MAX_REVIEW_BYTES} a review opens")
        return full

    def is_unfinished_file(self, path: Path) -> bool:
        """Whether `path` is a deal in progress the table saved (`<id>.unfinished.json` in its folder)."""
        return self.records_dir is not None and path.parent == self.records_dir \
            and path.name.endswith(".unfinished.json")


# ------------------------------------------------------------------ helpers
def _record_file(path: Path) -> dict | None:
    """What the records list says of a file: its game, its deals, when it was written (None
    when the file went away meanwhile). Only its first line is parsed."""
    try:
        stat = path.stat()
    except OSError:
        return None
    info = {"path": str(path), "unfinished": path.name.endswith(".unfinished.json"), "bytes": stat.st_size,
            "modified": datetime.fromtimestamp(stat.st_mtime, timezone.utc).isoformat(timespec="seconds"),
            "game": None, "deals": None}
    try:
        with path.open("rb") as f:
            first = f.readline()
            deals = 1 + sum(1 for line in f if line.strip())
        game = json.loads(first).get("game", "")
        info["game"] = game.split("(")[0] or None if isinstance(game, str) else None
        info["deals"] = deals if path.suffix == ".jsonl" else 1
    except (OSError, ValueError, AttributeError, RecursionError):
        pass                    # listed all the same: opening it says what is wrong with it
    return info


def _error(status: int, message: Any, field_name: str | None = None) -> JSONResponse:
    line = " ".join(str(message).split()) or "error"
    body = {"error": line if len(line) <= MAX_ERROR else line[:MAX_ERROR - 1] + "…"}
    if field_name is not None:
        body["field"] = field_name[:100]
    return JSONResponse(body, status_code=status)


def _not_json(constant: str) -> Any:
    raise ValueError(f"{constant} is not a JSON number")


def _depth(value: Any) -> int:
    """How deeply `value` nests lists and objects (without recursion)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, depth)
            if depth <= MAX_DEPTH:
                stack.extend((v, depth + 1) for v in (item.values() if isinstance(item, dict) else item))
    return deepest


async def _body(request: Request, allowed: tuple[str, ...], required: bool = True) -> dict:
    """The request's JSON object, its fields among `allowed` (Guard has checked its type and size)."""
    raw = await request.body()
    if not raw.strip():
        if required:
            raise SessionError(400, "malformed JSON: the body is empty")
        return {}
    try:
        body = json.loads(raw, parse_constant=_not_json)
    except RecursionError:
        raise SessionError(400, f"malformed JSON: nested deeper than {MAX_DEPTH}") from None
    except ValueError as e:        # not JSON, not UTF-8, NaN, or a number of over 4,300 digits
        raise SessionError(400, f"malformed JSON: {getattr(e, 'msg', e)}") from None
    if not isinstance(body, dict):
        raise SessionError(400, "malformed request: the body must be a JSON object")
    if _depth(body) > MAX_DEPTH:
        raise SessionError(400, f"malformed request: nested deeper than {MAX_DEPTH}")
    unknown = sorted(set(body) - set(allowed))
    if unknown:
        raise SessionError(400, f"unknown field(s) {shown(unknown)}: this request takes "
                                f"{', '.join(allowed) or 'no fields'}")
    return body


def _int_query(request: Request, name: str) -> int | None:
    value = request.query_params.get(name)
    if value is None or value == "":
        return None
    if not re.fullmatch(r"\d{1,9}", value):
        raise SessionError(400, f"{name}={shown(value)}: must be a whole number")
    return int(value)


def _whole(body: dict, name: str) -> int | None:
    """An optional whole-number field of a body."""
    value = body.get(name)
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
        raise FieldError(name, f"{name}={shown(value)}: must be an integer")
    return value


def create_app(table: Table, static_dir: Path = STATIC, *, host: str = "127.0.0.1", port: int = 8765) -> ASGIApp:
    """The ASGI app over `table`, answering requests addressed to `host`:`port` only (Guard)."""

    async def handle(fn: Callable[..., dict], *args: Any) -> JSONResponse:
        try:
            return JSONResponse(await run_in_threadpool(fn, *args))
        except FieldError as e:
            return _error(400, str(e), e.field)
        except SessionError as e:
            return _error(e.status, str(e))
        except (ValueError, KeyError, TypeError) as e:
            return _error(400, str(e))

    async def post(request: Request, allowed: tuple[str, ...], fn: Callable[[dict], dict],
                   required: bool = True) -> JSONResponse:
        """A POST: its body checked, then `fn(body)` in the thread pool."""
        try:
            body = await _body(request, allowed, required)
        except SessionError as e:
            return _error(e.status, str(e))
        return await handle(fn, body)

    async def page(request: Request):
        index = static_dir / "index.html"
        if not index.is_file():
            return _error(404, f"the page is not installed ({index} is missing)")
        return FileResponse(index)

    async def options(request: Request):
        return await handle(lambda: {"games": game_options(), "bots": bot_options(table.engines)})

    async def variant(request: Request):
        return await post(request, ("game", "params"), variant_levels)

    async def new_game(request: Request):
        def make(body: dict) -> dict:
            spec = parse_new_game(body, pause=table.pause, engines=table.engines)
            session = Session(spec, table.new_id(), table.records_dir, threaded=table.threaded)
            return table.start(session)
        return await post(request, ("game", "params", "seat", "bots", "match", "seed", "time_limit", "auto"), make)

    async def get_game(request: Request):
        return await handle(lambda: table.session(request.path_params["id"]).view())

    async def act(request: Request):
        def run(body: dict) -> dict:
            session = table.session(request.path_params["id"])
            for key in ("action", "turn"):
                if key not in body:
                    raise SessionError(400, f"missing {key!r}: the body is {{\"action\": int, \"turn\": int}}")
            return session.act(body["action"], body["turn"])
        return await post(request, ("action", "turn"), run)

    async def hint(request: Request):
        def run(body: dict) -> dict:
            return table.session(request.path_params["id"]).hint(body.get("worlds"))
        return await post(request, ("worlds",), run, required=False)

    async def next_deal(request: Request):
        return await post(request, (), lambda body: table.session(request.path_params["id"]).next_deal(),
                          required=False)

    async def review(request: Request):
        game_id = request.path_params["id"]

        def run() -> dict:
            deal, seat = _int_query(request, "deal"), _int_query(request, "seat")
            opened = table.opened(game_id)
            if opened is not None:
                return _opened_review(table, opened, deal, seat)
            return table.session(game_id).review(deal)
        return await handle(run)

    async def open_review(request: Request):
        def run(body: dict) -> dict:
            from play.review import human_seat, open_records
            path = body.get("path")
            if not isinstance(path, str) or not path:
                raise FieldError("path", "path: the record or results file to open")
            game = body.get("game")
            if game is not None and not isinstance(game, str):
                raise FieldError("game", "game: a record's number or a results file's game id")
            full = table.allowed(path)
            found = open_records(full, game, most=MAX_REVIEW_DEALS)
            review_id = table.add_review(full, found)
            return {"id": review_id, "deals": [{"deal": k, "name": n, "game": r.game, "finished": r.finished,
                                                "seat": human_seat(r), "moves": len(r.moves)}
                                               for k, (n, r) in enumerate(found)]}
        return await post(request, ("path", "game"), run)

    async def takeover(request: Request):
        return await post(request, ("deal", "move", "seat", "bots"),
                          lambda body: _take_over(table, request.path_params["id"], body), required=False)

    async def records(request: Request):
        def run() -> dict:
            if table.records_dir is None:
                return {"folder": None, "files": []}
            files = []
            for p in table.records_dir.glob("*.json*"):
                if not p.name.startswith(".") and p.suffix in (".json", ".jsonl"):
                    with contextlib.suppress(OSError):
                        files.append((p.stat().st_mtime, p))
            files.sort(key=lambda item: item[0], reverse=True)
            listed = (_record_file(p) for _, p in files[:200])
            return {"folder": str(table.records_dir), "files": [info for info in listed if info is not None]}
        return await handle(run)

    async def not_found(request: Request, exc: HTTPException):
        return _error(exc.status_code, exc.detail or "not found")

    async def server_error(request: Request, exc: Exception):
        return _error(500, f"internal error: {type(exc).__name__}: {exc}")

    routes = [Route("/", page), Route("/api/options", options),
              Route("/api/levels", variant, methods=["POST"]),
              Route("/api/games", new_game, methods=["POST"]),
              Route("/api/games/{id}", get_game),
              Route("/api/games/{id}/action", act, methods=["POST"]),
              Route("/api/games/{id}/hint", hint, methods=["POST"]),
              Route("/api/games/{id}/next", next_deal, methods=["POST"]),
              Route("/api/games/{id}/review", review),
              Route("/api/games/{id}/takeover", takeover, methods=["POST"]),
              Route("/api/review", open_review, methods=["POST"]),
              Route("/api/records", records)]
    if static_dir.is_dir():
        routes.append(Mount("/static", StaticFiles(directory=static_dir), name="static"))
    app = Starlette(routes=routes, exception_handlers={HTTPException: not_found, Exception: server_error},
                    lifespan=_warm_options)
    return Guard(app, served_names(host), port)


@contextlib.asynccontextmanager
async def _warm_options(app: Starlette):
    """Works out the options (which variants the shipped networks play: loading
    them takes seconds) in the background as the server starts, so the first page
    does not wait for it."""
    threading.Thread(target=lambda: (game_options(), bot_options()), name="warm-options", daemon=True).start()
    yield


def _bots_field(bots: Any) -> dict[int, str] | None:
    if bots is None:
        return None
    if not isinstance(bots, dict):
        raise FieldError("bots", "bots must be an object: seat -> bot spec")
    out = {}
    for key, spec in bots.items():
        if not re.fullmatch(r"\d{1,3}", key):
            raise FieldError(f"bots.{shown(key)}", f"bots: {shown(key)} is not a seat number")
        out[int(key)] = spec
    return out


@dataclass
class _Picked:
    """The record a takeover starts from, its player's seat, and the file it came from (None for
    a deal of a game at this table)."""

    record: Any
    seat: int
    path: Path | None


def _pick_record(table: Table, game_id: str, deal: Any) -> _Picked:
    """The record a takeover starts from: a deal of an opened review, or of a game at the table."""
    from play.review import human_seat
    if deal is not None and (isinstance(deal, bool) or not isinstance(deal, int)):
        raise FieldError("deal", f"deal={shown(deal)}: must be an integer")
    opened = table.opened(game_id)
    if opened is not None:
        found = opened.records
        k = 0 if deal is None else deal
        if not 0 <= k < len(found):
            raise FieldError("deal", f"deal={k}: the opened file has deals 0..{len(found) - 1}")
        return _Picked(found[k][1], human_seat(found[k][1]), opened.path)
    session = table.session(game_id)
    with session.lock:
        if not session.records:
            raise SessionError(409, "no deal of this game has finished yet")
        k = len(session.records) - 1 if deal is None else deal
        if not 0 <= k < len(session.records):
            raise FieldError("deal", f"deal={k}: finished deals are 0..{len(session.records) - 1}")
        return _Picked(session.records[k], session.spec.seat, None)


def _take_over(table: Table, source_id: str, body: dict) -> dict:
    """A new game from a record (docs/play-api.md, takeover). A finished deal may be taken over
    at any move and seat; the match's later deals then come from fresh chance, so the new game
    never deals what its source (perhaps still in play) deals next. An unfinished deal is someone's
    game in progress: only its player continues it, where it stopped, with the chance it would
    have had, and only once: the table's `<id>.unfinished.json` is claimed by renaming it to the
    continued game's (atomic, so two requests cannot both continue it), and never while the game
    it came from is still in play here."""
    picked = _pick_record(table, source_id, body.get("deal"))
    seat, move, bots = _whole(body, "seat"), _whole(body, "move"), _bots_field(body.get("bots"))
    seat = picked.seat if seat is None else seat
    common = dict(seat=seat, move=move, bots=bots, threaded=table.threaded, pause=table.pause,
                  engines=table.engines)
    if picked.record.finished:
        return table.start(Session.from_record(picked.record, table.new_id(), table.records_dir, **common))
    session = Session.from_record(picked.record, table.new_id(), table.records_dir, continuing=True, **common)
    path = picked.path
    play = (picked.record.annotations or {}).get("play") or {}
    with table.lock:
        if path is None or not table.is_unfinished_file(path):
            refusal = ("an unfinished deal is continued only from the table's own records folder "
                       "(its <id>.unfinished.json)")
        elif {str(play.get("id")), path.name.removesuffix(".unfinished.json")} & set(table.sessions):
            refusal = "that game is still in play at this table: go on with it there"
        else:
            try:
                os.replace(path, session.unfinished_path())
                refusal = None
            except FileNotFoundError:
                refusal = "that unfinished game was continued already: its record moved on"
            except OSError as e:
                refusal = f"cannot continue it: its record cannot be moved ({e.strerror})"
    if refusal is not None:
        session.close()
        raise SessionError(409, refusal)
    session.save()
    return table.start(session)


def _opened_review(table: Table, opened: OpenedFile, deal: int | None, seat: int | None) -> dict:
    from play.review import human_seat, review_record
    found = opened.records
    k = 0 if deal is None else deal
    if not 0 <= k < len(found):
        raise SessionError(400, f"deal={k}: the opened file has deals 0..{len(found) - 1}")
    record = found[k][1]
    own = human_seat(record)
    seat = own if seat is None else seat
    if not record.finished and seat != own:
        raise SessionError(403, f"the deal is unfinished: it is shown only from its player's seat (p{own})")
    key = (k, seat)
    if key not in opened.reviews:
        review = review_record(record, seat, deal=k, worlds=table.analysis_worlds,
                               analyse_moves=record.finished)
        review["name"] = found[k][0]
        review["deals"] = len(found)      # how many deals the opened file holds
        opened.reviews[key] = review
    return opened.reviews[key]
