"""The table's web server: the endpoints of docs/play-api.md over Starlette, and the page.

Each game has its own unguessable id (`secrets.token_urlsafe`); every request is validated and a
bad one gets a 4xx with `{"error": one line}` (and `field` for a bad NewGame field) while the
server and every other game go on. Blocking work (a human move, a hint, a review) runs in the
thread pool, so one game's analysis never stalls another's page.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import threading
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from play.engines import Engine
from play.options import FieldError, bot_options, game_options, parse_new_game
from play.session import Session, SessionError

STATIC = Path(__file__).resolve().parent / "static"
MAX_BODY = 64 * 1024
MAX_SESSIONS = 500


class Table:
    """The server's games and opened reviews, by id."""

    def __init__(self, records_dir: Path | None, *, pause: float = 0.6, threaded: bool = True,
                 review_seconds: float = 0.3, review_worlds: int = 24, hint_seconds: float = 1.0,
                 allowed_files: tuple[Path, ...] = (), engines: dict[str, Engine] | None = None):
        self.records_dir = Path(records_dir).expanduser() if records_dir is not None else None
        if self.records_dir is not None:
            self.records_dir.mkdir(parents=True, exist_ok=True)
        self.pause = pause
        self.threaded = threaded
        self.review_seconds = review_seconds
        self.review_worlds = review_worlds
        self.hint_seconds = hint_seconds
        self.allowed_files = tuple(Path(p).resolve() for p in allowed_files)
        self.engines = dict(engines or {})      # the operator's --engine NAME=CMD, said hello to
        self.sessions: dict[str, Session] = {}
        self.reviews: dict[str, dict] = {}      # id -> {"records": [(name, Record)], "seat": int, "cache": {}}
        self.lock = threading.Lock()

    def new_id(self) -> str:
        return secrets.token_urlsafe(16)

    def start(self, session: Session) -> dict:
        """Takes a new session in (the table's hint and review budgets), starts its
        bots and returns its first view."""
        session.review_seconds, session.review_worlds = self.review_seconds, self.review_worlds
        session.hint_seconds = self.hint_seconds
        self.add(session)
        if not self.threaded:
            session.run_bots()
        return session.view()

    def add(self, session: Session) -> Session:
        with self.lock:
            if len(self.sessions) >= MAX_SESSIONS:      # forget the oldest finished game
                old = next((k for k, s in self.sessions.items() if s.match_over), None)
                if old is None:
                    raise SessionError(503, f"{MAX_SESSIONS} games are in play: finish one first")
                self.sessions.pop(old).close()
            self.sessions[session.id] = session
        return session

    def session(self, game_id: str) -> Session:
        session = self.sessions.get(game_id)
        if session is None:
            raise SessionError(404, "no game with that id (games are forgotten when the server restarts; "
                                    "continue one from its record)")
        return session

    def allowed(self, path: str) -> Path:
        """A record or results file the page may open: under the records folder or the current
        directory, or named on the command line (--review)."""
        full = Path(path).expanduser().resolve()
        roots = [Path.cwd().resolve()] + ([self.records_dir.resolve()] if self.records_dir else [])
        if full in self.allowed_files or any(r == full or r in full.parents for r in roots):
            if not full.is_file():
                raise SessionError(404, f"{path}: no such file")
            return full
        raise SessionError(403, f"{path}: only files under the records folder or the current directory open here")


# ------------------------------------------------------------------ helpers
def _record_file(path: Path) -> dict:
    """What the records list says of a file: its game, its deals, when it was written."""
    stat = path.stat()
    info = {"path": str(path), "unfinished": path.name.endswith(".unfinished.json"), "bytes": stat.st_size,
            "modified": datetime.fromtimestamp(stat.st_mtime, timezone.utc).isoformat(timespec="seconds"),
            "game": None, "deals": None}
    try:
        lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        first = json.loads(lines[0])
        info["game"] = str(first.get("game", "")).split("(")[0] or None
        info["deals"] = len(lines) if path.suffix == ".jsonl" else 1
    except (OSError, UnicodeDecodeError, ValueError, IndexError, AttributeError):
        pass                    # listed all the same: opening it says what is wrong with it
    return info


def _error(status: int, message: str, field: str | None = None) -> JSONResponse:
    body = {"error": " ".join(str(message).split()) or "error"}
    if field is not None:
        body["field"] = field
    return JSONResponse(body, status_code=status)


async def _body(request: Request, required: bool = True) -> dict:
    raw = await request.body()
    if len(raw) > MAX_BODY:
        raise SessionError(413, f"the body is over {MAX_BODY} bytes")
    if not raw.strip():
        if required:
            raise SessionError(400, "malformed JSON: the body is empty")
        return {}
    try:
        body = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise SessionError(400, f"malformed JSON: {getattr(e, 'msg', e)}") from None
    if not isinstance(body, dict):
        raise SessionError(400, "malformed request: the body must be a JSON object")
    return body


def _int_query(request: Request, name: str) -> int | None:
    value = request.query_params.get(name)
    if value is None or value == "":
        return None
    try:
        return int(value)
    except ValueError:
        raise SessionError(400, f"{name}={value!r}: must be an integer") from None


def create_app(table: Table, static_dir: Path = STATIC) -> Starlette:
    """The ASGI app over `table`."""

    async def handle(fn, *args) -> JSONResponse:
        try:
            return JSONResponse(await run_in_threadpool(fn, *args))
        except FieldError as e:
            return _error(400, str(e), e.field)
        except SessionError as e:
            return _error(e.status, str(e))
        except (ValueError, KeyError, TypeError) as e:
            return _error(400, str(e))

    async def page(request: Request):
        index = static_dir / "index.html"
        if not index.is_file():
            return _error(404, f"the page is not installed ({index} is missing)")
        return FileResponse(index)

    async def options(request: Request):
        return await handle(lambda: {"games": game_options(), "bots": bot_options(table.engines)})

    async def new_game(request: Request):
        try:
            body = await _body(request)
        except SessionError as e:
            return _error(e.status, str(e))

        def make() -> dict:
            spec = parse_new_game(body, pause=table.pause, engines=table.engines)
            session = Session(spec, table.new_id(), table.records_dir, threaded=table.threaded)
            return table.start(session)
        return await handle(make)

    async def get_game(request: Request):
        return await handle(lambda: table.session(request.path_params["id"]).view())

    async def act(request: Request):
        try:
            session = table.session(request.path_params["id"])
            body = await _body(request)
        except SessionError as e:
            return _error(e.status, str(e))
        for key in ("action", "turn"):
            if key not in body:
                return _error(400, f"missing {key!r}: the body is {{\"action\": int, \"turn\": int}}")
        return await handle(session.act, body["action"], body["turn"])

    async def hint(request: Request):
        try:
            session = table.session(request.path_params["id"])
            body = await _body(request, required=False)
        except SessionError as e:
            return _error(e.status, str(e))
        return await handle(session.hint, body.get("worlds"), body.get("seconds"))

    async def next_deal(request: Request):
        return await handle(lambda: table.session(request.path_params["id"]).next_deal())

    async def review(request: Request):
        game_id = request.path_params["id"]

        def run() -> dict:
            deal = _int_query(request, "deal")
            if game_id in table.reviews:
                return _opened_review(table, game_id, deal, _int_query(request, "seat"))
            return table.session(game_id).review(deal)
        return await handle(run)

    async def open_review(request: Request):
        try:
            body = await _body(request)
        except SessionError as e:
            return _error(e.status, str(e))

        def run() -> dict:
            from play.review import human_seat, open_records
            path = body.get("path")
            if not isinstance(path, str) or not path:
                raise FieldError("path", "path: the record or results file to open")
            game = body.get("game")
            if game is not None and not isinstance(game, str):
                raise FieldError("game", "game: a record's number or a results file's game id")
            found = open_records(table.allowed(path), game)
            review_id = table.new_id()
            table.reviews[review_id] = {"records": found, "cache": {}}
            return {"id": review_id, "deals": [{"deal": k, "name": n, "game": r.game, "finished": r.finished,
                                                "seat": human_seat(r), "moves": len(r.moves)}
                                               for k, (n, r) in enumerate(found)]}
        return await handle(run)

    async def takeover(request: Request):
        game_id = request.path_params["id"]
        try:
            body = await _body(request, required=False)
        except SessionError as e:
            return _error(e.status, str(e))

        def run() -> dict:
            record, seat = _pick_record(table, game_id, body.get("deal"))
            seat = body.get("seat", seat)
            session = Session.from_record(record, table.new_id(), table.records_dir, seat=seat,
                                          move=body.get("move"), bots=_bots_field(body.get("bots")),
                                          threaded=table.threaded, pause=table.pause, engines=table.engines)
            return table.start(session)
        return await handle(run)

    async def records(request: Request):
        def run() -> dict:
            if table.records_dir is None:
                return {"folder": None, "files": []}
            files = sorted((p for p in table.records_dir.glob("*.json*") if not p.name.startswith(".")
                            and p.suffix in (".json", ".jsonl")), key=lambda p: p.stat().st_mtime, reverse=True)
            return {"folder": str(table.records_dir), "files": [_record_file(p) for p in files[:200]]}
        return await handle(run)

    async def not_found(request: Request, exc: HTTPException):
        return _error(exc.status_code, exc.detail or "not found")

    async def server_error(request: Request, exc: Exception):
        return _error(500, f"internal error: {type(exc).__name__}: {exc}")

    routes = [Route("/", page), Route("/api/options", options),
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
    return Starlette(routes=routes, exception_handlers={HTTPException: not_found, Exception: server_error},
                     lifespan=_warm_options)


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
    try:
        return {int(k): v for k, v in bots.items()}
    except (TypeError, ValueError):
        raise FieldError("bots", "bots: every key must be a seat number") from None


def _pick_record(table: Table, game_id: str, deal: Any):
    """The record a takeover starts from: a deal of an opened review, or of a game at the table."""
    from play.review import human_seat
    if deal is not None and (isinstance(deal, bool) or not isinstance(deal, int)):
        raise FieldError("deal", f"deal={deal!r}: must be an integer")
    if game_id in table.reviews:
        found = table.reviews[game_id]["records"]
        k = 0 if deal is None else deal
        if not 0 <= k < len(found):
            raise FieldError("deal", f"deal={k}: the opened file has deals 0..{len(found) - 1}")
        return found[k][1], human_seat(found[k][1])
    session = table.session(game_id)
    with session.lock:
        if not session.records:
            raise SessionError(409, "no deal of this game has finished yet")
        k = len(session.records) - 1 if deal is None else deal
        if not 0 <= k < len(session.records):
            raise FieldError("deal", f"deal={k}: finished deals are 0..{len(session.records) - 1}")
        return session.records[k], session.spec.seat


def _opened_review(table: Table, review_id: str, deal: int | None, seat: int | None) -> dict:
    from play.review import human_seat, review_record
    opened = table.reviews[review_id]
    found = opened["records"]
    k = 0 if deal is None else deal
    if not 0 <= k < len(found):
        raise SessionError(400, f"deal={k}: the opened file has deals 0..{len(found) - 1}")
    record = found[k][1]
    seat = human_seat(record) if seat is None else seat
    key = (k, seat)
    if key not in opened["cache"]:
        opened["cache"][key] = review_record(record, seat, deal=k, seconds=table.review_seconds,
                                             worlds=table.review_worlds, analyse_moves=record.finished)
        opened["cache"][key]["name"] = found[k][0]
        opened["cache"][key]["deals"] = len(found)      # how many deals the opened file holds
    return opened["cache"][key]
