"""`cardarena play`: the web table (or the terminal with --text). scripts/cli.py adds it with one line."""

from __future__ import annotations

import argparse
import math
import socket
import sys
import threading
from pathlib import Path

import games  # noqa: F401  (registers our games)
from games import registry

DEFAULT_RECORDS = Path("~/.cardarena/records")
DEFAULT_PORT = 8765
MAX_PAUSE = 10.0             # seconds between bot moves: longer and a game looks frozen


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Adds `play` to the `cardarena` command line."""
    p = sub.add_parser("play", help="play against the bots at a web table (or in the terminal with --text)",
                       description="Starts the table on 127.0.0.1 and opens it in a browser. Every deal is "
                                   "saved as a record under --records as it ends.")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine "
                   "only; anything else warns, and the table answers only requests addressed to it by that "
                   "name: docs/play-api.md, Security)")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")
    p.add_argument("--no-browser", action="store_true", help="print the URL only, open no browser")
    p.add_argument("--text", action="store_true", help="play in this terminal instead of a browser")
    p.add_argument("--review", nargs="+", metavar=("FILE", "GAME"),
                   help="open a record file (.json/.jsonl) or a game of a tournament's results file in the review")
    p.add_argument("--records", default=str(DEFAULT_RECORDS), metavar="DIR",
                   help=f"folder for the records of every deal (default {DEFAULT_RECORDS})")
    p.add_argument("--game", default=registry.names()[0],
                   help=f"--text: the game ({', '.join(registry.names())}; default %(default)s)")
    p.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                   help="--text: a game parameter (repeat), e.g. --param players=3")
    p.add_argument("--seat", type=int, default=0, help="--text: your seat (default 0)")
    p.add_argument("--bot", action="append", default=[], metavar="[SEAT=]SPEC",
                   help="--text: the bot at every other seat, or at SEAT (repeat); default neural where it plays")
    p.add_argument("--match", default=None, help="--text: deals=N or (Canasta) target=2500..10000")
    p.add_argument("--seed", type=int, default=None, help="--text: the deal's seed (the same seed, the same deal)")
    p.add_argument("--time-limit", type=float, default=2.0, help="seconds a bot may take over a move (default 2)")
    p.add_argument("--pause", type=float, default=0.6,
                   help=f"web: seconds between bot moves, 0 to {MAX_PAUSE:g} (default 0.6)")
    p.add_argument("--engine", action="append", default=[], metavar="NAME=CMD",
                   help="offer the engine CMD (docs/engine_protocol.md) as the bot NAME (repeat); the page "
                        "and --bot choose it by NAME, never by its command")
    p.set_defaults(func=run_play)


def _text_spec(args: argparse.Namespace, engines: dict | None = None):
    """The NewGame of --text from the options, checked as the page's is."""
    from play.options import FieldError, check_params, num_players, parse_new_game
    params = {}
    for item in args.param:
        if "=" not in item:
            raise ValueError(f"--param {item!r}: expected NAME=VALUE")
        key, value = item.split("=", 1)
        params[key.strip()] = value.strip()
    body = {"game": args.game, "params": params, "seat": args.seat, "match": args.match, "seed": args.seed,
            "time_limit": args.time_limit}
    try:
        if args.game in registry.names():
            players = num_players(args.game, check_params(args.game, params))
            bots: dict[str, str] = {}
            for item in args.bot:
                seat, sep, spec = item.partition("=")
                if sep and seat.strip().isdigit():
                    bots[seat.strip()] = spec
                else:
                    bots.update({str(s): item for s in range(players) if s != args.seat})
            body["bots"] = bots
        return parse_new_game(body, pause=0.0, engines=engines)
    except FieldError as e:
        raise ValueError(f"{e.field}: {e}") from None


def _check_port(host: str, port: int) -> None:
    if not 0 < port < 65536:
        raise ValueError(f"--port {port}: must be in 1..65535")
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as s:
        try:
            s.bind((host, port))
        except OSError as e:
            raise ValueError(f"cannot listen on {host}:{port} ({e.strerror}); pick another --port") from None


def _check_options(args: argparse.Namespace) -> None:
    """The server's own options: a bad one stops `play` with one line before anything starts."""
    from play.options import MAX_TIME_LIMIT
    if not args.host.strip():
        raise ValueError("--host '': name the address to listen on (127.0.0.1, the default, is this machine only)")
    if not (math.isfinite(args.pause) and 0 <= args.pause <= MAX_PAUSE):
        raise ValueError(f"--pause {args.pause:g}: must be a number of seconds in [0, {MAX_PAUSE:g}]")
    if not 0.05 <= args.time_limit <= MAX_TIME_LIMIT:
        raise ValueError(f"--time-limit {args.time_limit:g}: must be in [0.05, {MAX_TIME_LIMIT:g}]")


def run_play(args: argparse.Namespace) -> None:
    """Runs the table until Ctrl-C (or the terminal game until it ends)."""
    import games  # noqa: F401
    from play.review import human_seat, open_records, review_record
    _check_options(args)
    records = Path(args.records).expanduser()
    try:
        records.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ValueError(f"--records {args.records}: cannot create the folder ({e.strerror})") from None
    engines = _engines(args)
    review = None
    if args.review:
        if len(args.review) > 2:
            raise ValueError("--review takes FILE and at most one GAME")
        review = open_records(args.review[0], args.review[1] if len(args.review) > 1 else None)
    if args.text:
        from play.text import review_text, run_text
        if review is not None:
            for name, record in review:
                print(f"== {name}: {record.game}")
                review_text(review_record(record, human_seat(record)))
            return
        run_text(_text_spec(args, engines), records)
        return
    _serve(args, records, review, engines)


def _engines(args: argparse.Namespace) -> dict:
    """The --engine values, each said hello to at the games it may play here (the web table's
    three, or --text's game): a command that does not start stops `play` with one line."""
    from play.engines import parse_engines, probe_engines
    engines = parse_engines(args.engine)
    if not engines:
        return {}
    games = registry.names() if not args.text else [args.game] if args.game in registry.names() else []
    if not games:
        return engines                 # --text with an unknown game: its own error follows
    return probe_engines(engines, games, args.time_limit)


def _serve(args: argparse.Namespace, records: Path, review, engines: dict) -> None:
    import uvicorn
    import webbrowser
    from play.server import Table, create_app, is_loopback, served_names
    if not is_loopback(args.host):
        names = ", ".join(sorted(served_names(args.host)))
        print(f"warning: listening on {args.host}: anyone who can reach this machine can play here and open "
              f"the record files under {records}; the table answers requests addressed to {names} only",
              file=sys.stderr)
    _check_port(args.host, args.port)
    given = Path(args.review[0]).resolve() if args.review else None
    table = Table(records, pause=args.pause, engines=engines, allowed_files=(given,) if given else ())
    host = f"[{args.host}]" if ":" in args.host else args.host
    url = f"http://{host}:{args.port}/"
    if review is not None:
        url += f"?review={table.add_review(given, review)}"
    server = uvicorn.Server(uvicorn.Config(create_app(table, host=args.host, port=args.port), host=args.host,
                                           port=args.port, log_level="warning"))
    print(f"cardarena play: {url}  (records in {records}; Ctrl-C stops)", flush=True)
    if not args.no_browser:
        def open_when_up() -> None:
            for _ in range(100):
                if server.started:
                    webbrowser.open(url)
                    return
                threading.Event().wait(0.05)
        threading.Thread(target=open_when_up, daemon=True).start()
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        for session in list(table.sessions.values()):
            session.close()
    print("cardarena play: stopped", flush=True)
