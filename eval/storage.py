"""Tournament results in one SQLite file: every game as it ends, so a run that is
killed loses only the games in flight, and running it again plays just those.

Each game is one row keyed by (deal, rotation), so no game can be stored twice.
Rows are committed in small batches (every 0.2 s) in write-ahead-log mode, which
SQLite keeps consistent through a crash or SIGKILL of the writer. A file that is
not ours (not SQLite, another application's database, a different tournament)
is refused before anything is written to it. Schema: docs/tournament.md.

A game's row holds its whole history (every deal's actions, chance outcomes
included, and each decision's seconds) in one compact blob (eval.play's
encode_history), written in the same transaction as its result; eval.records turns it into a game record. Files of
schema version 1 (before histories) still open: resuming one adds the column
(its old games have no history), reading one changes nothing.
"""

from __future__ import annotations

import fcntl
import json
import os
import sqlite3
import time
from json.encoder import c_make_encoder, encode_basestring_ascii
from pathlib import Path
from typing import Any, Iterator

from eval.config import TournamentConfig
from eval.play import GameRecord

APPLICATION_ID = 0x43415244      # "CARD", in the SQLite header at offset 68
SCHEMA_VERSION = 2
READABLE_VERSIONS = (1, 2)       # 1: before game histories
COMMIT_SECONDS = 0.2

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE agents (idx INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, spec TEXT NOT NULL);
CREATE TABLE games (
    deal INTEGER NOT NULL,
    rotation INTEGER NOT NULL,
    seats TEXT NOT NULL,
    chance_seed INTEGER NOT NULL,
    returns TEXT,
    length INTEGER NOT NULL,
    move_counts TEXT NOT NULL,
    move_seconds TEXT NOT NULL,
    move_max TEXT NOT NULL,
    deal_records TEXT,
    fault_seat INTEGER,
    fault_kind TEXT,
    error TEXT,
    wall_seconds REAL NOT NULL,
    finished_at REAL NOT NULL,
    history BLOB,
    PRIMARY KEY (deal, rotation)
) WITHOUT ROWID;
"""

_COLUMNS = ("deal", "rotation", "seats", "chance_seed", "returns", "length", "move_counts",
            "move_seconds", "move_max", "deal_records", "fault_seat", "fault_kind", "error",
            "wall_seconds", "history", "finished_at")
_JSON = {"seats", "returns", "move_counts", "move_seconds", "move_max", "deal_records"}
assert _COLUMNS[-1] == "finished_at"
# json.dumps's text, from an encoder made once: dumps builds one for every call,
# which was most of the parent's cost of storing a cheap game.
_ENCODER = c_make_encoder(None, json.JSONEncoder().default, encode_basestring_ascii, None, ": ", ", ",
                          False, False, True) if c_make_encoder is not None else None


def _to_json(value: Any) -> str:
    return "".join(_ENCODER(value, 0)) if _ENCODER is not None else json.dumps(value)


class ResultsFileError(ValueError):
    """The results file cannot be used; it was left as it was."""


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value))


class ResultsDB:
    """An open results file. Use `ResultsDB.open_for(path, config)` to run a
    tournament (creating or resuming) and `ResultsDB.read(path)` to report."""

    def __init__(self, path: Path, conn: sqlite3.Connection, lock_fd: int | None):
        self.path, self.conn, self._lock_fd = path, conn, lock_fd
        self._pending: list[tuple] = []
        self._last_commit = time.monotonic()

    # ---------------------------------------------------------------- opening
    @classmethod
    def open_for(cls, path: str | os.PathLike, config: TournamentConfig) -> "ResultsDB":
        """Opens `path` for `config`'s tournament: creates it when it does not
        exist or is empty, resumes it when it holds the same tournament (it may
        then ask for more deals), and refuses anything else."""
        path = Path(path)
        fresh = not path.exists() or path.stat().st_size == 0
        lock_fd = _lock(path)
        conn = None
        try:
            conn = _connect(path)
            files = config.bot_files()
            if fresh:
                _create(conn, config, files)
            else:
                _check_ours(path, conn)
                stored = _stored_config(path, conn)
                if _jsonable(stored.identity()) != _jsonable(config.identity()):
                    raise ResultsFileError(_difference(path, stored, config))
                row = conn.execute("SELECT value FROM meta WHERE key = 'bot_files'").fetchone()
                if row is not None:
                    _check_bot_files(path, json.loads(row[0]), files)
                with conn:
                    _migrate(conn)
                    conn.execute("UPDATE meta SET value = ? WHERE key = 'config'",
                                 (json.dumps(_jsonable(config.__dict__)),))
                    conn.execute("INSERT OR IGNORE INTO meta VALUES ('bot_files', ?)", (json.dumps(files),))
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
        except BaseException:
            if conn is not None:        # closed before the lock's fd: closing any fd of the file
                conn.close()            # drops the process's POSIX locks, SQLite's included
            os.close(lock_fd)
            raise
        return cls(path, conn, lock_fd)

    @classmethod
    def read(cls, path: str | os.PathLike) -> "ResultsDB":
        """Opens an existing results file for reading."""
        path = Path(path)
        if not path.exists():
            raise ResultsFileError(f"{path}: no such results file")
        conn = _connect(path, read_only=True)
        try:
            _check_ours(path, conn)
        except BaseException:
            conn.close()
            raise
        return cls(path, conn, None)

    def close(self) -> None:
        self.flush()
        self.conn.close()
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    def __enter__(self) -> "ResultsDB":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ------------------------------------------------------------- contents
    def config(self) -> TournamentConfig:
        return _stored_config(self.path, self.conn)

    def stored_keys(self) -> set[tuple[int, int]]:
        return set(self.conn.execute("SELECT deal, rotation FROM games"))

    def add(self, record: GameRecord) -> None:
        """Queues a game; it is committed within COMMIT_SECONDS (or at flush)."""
        values = record.__dict__
        row = [_to_json(values[c]) if c in _JSON else values[c] for c in _COLUMNS[:-1]]
        row.append(time.time())     # finished_at
        self._pending.append(row)
        if time.monotonic() - self._last_commit >= COMMIT_SECONDS:
            self.flush()

    def flush(self) -> None:
        if self._pending:
            with self.conn:
                self.conn.executemany(f"INSERT INTO games ({', '.join(_COLUMNS)}) VALUES "
                                      f"({', '.join('?' * len(_COLUMNS))})", self._pending)
            self._pending.clear()
        self._last_commit = time.monotonic()

    def games(self, *, history: bool = False, where: str = "", params: tuple = ()) -> Iterator[GameRecord]:
        """Every stored game (those matching the SQL condition `where`), in (deal,
        rotation) order; with their histories when asked (a rating needs none)."""
        columns = [c for c in _COLUMNS[:-1] if c != "history" or (history and self.has_history_column())]
        rows = self.conn.execute(f"SELECT {', '.join(columns)} FROM games "
                                 f"{'WHERE ' + where if where else ''} ORDER BY deal, rotation", params)
        for row in rows:
            values = {c: (json.loads(v) if c in _JSON and v is not None else v)
                      for c, v in zip(columns, row)}
            values["seats"] = tuple(values["seats"])
            yield GameRecord(**values)

    def game(self, deal: int, rotation: int) -> GameRecord | None:
        """One stored game, with its history, or None."""
        return next(self.games(history=True, where="deal = ? AND rotation = ?", params=(deal, rotation)), None)

    def has_history_column(self) -> bool:
        return any(r[1] == "history" for r in self.conn.execute("PRAGMA table_info(games)"))

    def bot_files(self) -> dict[str, dict[str, str]]:
        """Each agent's bot files and their sha256, as stored when the run began."""
        row = self.conn.execute("SELECT value FROM meta WHERE key = 'bot_files'").fetchone()
        return json.loads(row[0]) if row else {}


def _lock(path: Path) -> int:
    """An exclusive lock on the results file for the life of the run, so two runs
    never write the same file (SQLite's own locks are separate fcntl locks)."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as e:
        raise ResultsFileError(f"{path}: cannot open results file: {e.strerror}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise ResultsFileError(f"{path}: another tournament is writing this results file") from None
    return fd


def _connect(path: Path, read_only: bool = False) -> sqlite3.Connection:
    """A connection to `path`, refused unless it is an SQLite file (or empty). A
    reader's connection is read-only, so that reading never checkpoints or
    rewrites a file that a tournament may be writing (or left mid-write)."""
    with open(path, "rb") as f:
        header = f.read(16)
    if header and header != b"SQLite format 3\x00":
        raise ResultsFileError(f"{path}: not a cardarena results file (not an SQLite database); "
                               f"left unchanged")
    if read_only:
        return sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, isolation_level="DEFERRED")
    return sqlite3.connect(path, isolation_level="DEFERRED")


def _check_ours(path: Path, conn: sqlite3.Connection) -> None:
    try:
        app = conn.execute("PRAGMA application_id").fetchone()[0]
        version = conn.execute("PRAGMA user_version").fetchone()[0]
    except sqlite3.DatabaseError as e:
        raise ResultsFileError(f"{path}: not a readable results file ({e}); left unchanged") from None
    if app != APPLICATION_ID:
        raise ResultsFileError(f"{path}: an SQLite database of another application, not cardarena "
                               f"results; left unchanged")
    if version not in READABLE_VERSIONS:
        raise ResultsFileError(f"{path}: results schema version {version}; this cardarena reads "
                               f"versions {', '.join(map(str, READABLE_VERSIONS))}")
    try:
        problems = [r[0] for r in conn.execute("PRAGMA quick_check")]
    except sqlite3.DatabaseError as e:
        problems = [str(e)]
    if problems != ["ok"]:
        raise ResultsFileError(f"{path}: results file is corrupt ({'; '.join(problems[:3])}); "
                               f"left unchanged")


def _create(conn: sqlite3.Connection, config: TournamentConfig, files: dict) -> None:
    with conn:
        conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        conn.executescript(_SCHEMA)
        conn.execute("INSERT INTO meta VALUES ('config', ?)", (json.dumps(_jsonable(config.__dict__)),))
        conn.execute("INSERT INTO meta VALUES ('bot_files', ?)", (json.dumps(files),))
        conn.execute("INSERT INTO meta VALUES ('created_at', ?)", (repr(time.time()),))
        conn.executemany("INSERT INTO agents VALUES (?, ?, ?)",
                         [(i, name, spec) for i, (name, spec) in enumerate(config.agents)])


def _migrate(conn: sqlite3.Connection) -> None:
    """Brings a file of an older schema to this one, inside the caller's
    transaction: columns are added, nothing is rewritten or dropped."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version == 1:
        conn.execute("ALTER TABLE games ADD COLUMN history BLOB")
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def _check_bot_files(path: Path, stored: dict[str, dict[str, str]], now: dict[str, dict[str, str]]) -> None:
    for agent, files in now.items():
        before = stored.get(agent, {})
        for file, sha in files.items():
            if file in before and before[file] != sha:
                raise ResultsFileError(
                    f"{path}: agent {agent!r} plays with {file}, which has changed since this tournament "
                    f"began (sha256 then {before[file][:16]}..., now {sha[:16]}...); restore the file, "
                    f"or rate the new one under another agent name in another results file")


def _stored_config(path: Path, conn: sqlite3.Connection) -> TournamentConfig:
    def tuples(x):
        return tuple(tuples(v) for v in x) if isinstance(x, list) else x
    try:
        (text,) = conn.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()
        return TournamentConfig(**{k: tuples(v) for k, v in json.loads(text).items()})
    except (sqlite3.DatabaseError, TypeError, ValueError) as e:
        raise ResultsFileError(f"{path}: results file has no readable tournament settings ({e})") from None


def _difference(path: Path, stored: TournamentConfig, wanted: TournamentConfig) -> str:
    a, b = _jsonable(stored.identity()), _jsonable(wanted.identity())
    diffs = [f"{k}: stored {a[k]!r}, asked {b[k]!r}" for k in a if a[k] != b.get(k)]
    return (f"{path} holds a different tournament ({'; '.join(diffs)}). Use another results "
            f"file, or the same settings to resume it.")
