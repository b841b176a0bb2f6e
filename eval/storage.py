"""Tournament results in one SQLite file: every game as it ends, so a run that is
killed loses only the games in flight, and running it again plays just those.

Each game is one row keyed by (deal, rotation), so no game can be stored twice.
Rows are committed in small batches (every 0.2 s) in write-ahead-log mode, which
SQLite keeps consistent through a crash or SIGKILL of the writer. A file that is
not ours (not SQLite, another application's database, a different tournament)
is refused before anything is written to it. Schema: docs/tournament.md.

A game's row holds its whole history (every deal's actions, chance outcomes
included, and each decision's seconds) in one compact blob (eval.play's
encode_history), written in the same transaction as its result; records.record turns it into a game record. Files of
schema version 1 (before histories) still open: resuming one adds the column
(its old games have no history), reading one changes nothing.

A game's luck (eval/luck.py) is stored beside it once measured, keyed by the game
and by what measured it (`LuckJudge.identity`: the method's version and the value
network's bytes), so a report reads it back instead of measuring it again and luck
measured one way is never read as another's. Files before schema 3 have no luck
table: resuming one adds it, reading one finds no luck stored.
"""

from __future__ import annotations

import fcntl
import json
import math
import os
import shutil
import sqlite3
import stat
import tempfile
import time
from json.encoder import c_make_encoder, encode_basestring_ascii
from pathlib import Path
from typing import Any, Iterator

from eval.config import TournamentConfig
from records.files import SQLITE_HEADER, open_regular, sidecar_of, sidecars
from eval.play import GameRecord
from eval.schedule import check_sides

APPLICATION_ID = 0x43415244      # "CARD", in the SQLite header at offset 68
SCHEMA_VERSION = 3
READABLE_VERSIONS = (1, 2, 3)    # 1: before game histories; 2: before stored luck
COMMIT_SECONDS = 0.2

# Each game's luck under one judge (eval/luck.py): each seat's amount taken off its return.
_LUCK_TABLE = """
CREATE TABLE luck (
    deal INTEGER NOT NULL,
    rotation INTEGER NOT NULL,
    judge TEXT NOT NULL,
    luck TEXT NOT NULL,
    PRIMARY KEY (deal, rotation, judge)
) WITHOUT ROWID;
"""
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
""" + _LUCK_TABLE

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

    def __init__(self, path: Path, conn: sqlite3.Connection, lock_fd: int | None, *, writer: bool,
                 config: TournamentConfig, num_seats: int, private: tempfile.TemporaryDirectory | None = None):
        self.path, self.conn, self._lock_fd, self._writer = path, conn, lock_fd, writer
        self._config, self._num_seats = config, num_seats
        self._private = private         # a reader's copy of a file and the log a killed writer left
        self._pending: list[tuple] = []
        self._last_commit = time.monotonic()

    # ---------------------------------------------------------------- opening
    @classmethod
    def open_for(cls, path: str | os.PathLike, config: TournamentConfig) -> "ResultsDB":
        """Opens `path` for `config`'s tournament: creates it when it does not
        exist or is empty, resumes it when it holds the same tournament (it may
        then ask for more deals), and refuses anything else: a device, pipe or
        folder, the -wal/-shm/-journal name of another SQLite file, a file that
        is not ours or holds another tournament."""
        path = Path(path)
        check_results_name(path)
        num_seats = _num_seats(path, config.game)
        existed = path.exists()
        fresh = not existed or path.stat().st_size == 0
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
        except sqlite3.Error as e:
            _abandon(path, conn, lock_fd, remove=not existed)
            raise ResultsFileError(f"{path}: cannot {'create' if fresh else 'resume'} the results file "
                                   f"({e}); {'nothing was kept' if not existed else 'it was left as it was'}") \
                from None
        except BaseException:
            _abandon(path, conn, lock_fd, remove=not existed)
            raise
        return cls(path, conn, lock_fd, writer=True, config=config, num_seats=num_seats)

    @classmethod
    def read(cls, path: str | os.PathLike) -> "ResultsDB":
        """Opens an existing results file for reading, changing nothing and
        leaving nothing beside it.

        A reader holds a shared flock for its life, so no tournament starts
        writing the file meanwhile (a writer's exclusive one is refused). With
        no writer, SQLite reads the file as immutable: the one file, no locks of
        its own, no -wal or -shm made, so a file in a read-only folder reads
        too. A write-ahead log that a killed writer left holds games not yet in
        the file: the file and its log are read from a private copy (SQLite
        would rebuild the log's index beside them), removed at close. While a
        writer runs, SQLite reads the file read-only through the writer's log
        and index."""
        path = Path(path)
        try:
            handle = open_regular(path, "results file")
        except ValueError as e:
            raise ResultsFileError(str(e)) from None
        with handle:
            header = handle.read(16)
            if header and header != SQLITE_HEADER:
                raise ResultsFileError(f"{path}: not a cardarena results file (not an SQLite database); "
                                       f"left unchanged")
            if not header:
                raise ResultsFileError(f"{path}: an empty file, not a results file")
            lock_fd = os.dup(handle.fileno())
        try:
            fcntl.flock(lock_fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            writer = False
        except BlockingIOError:
            os.close(lock_fd)
            lock_fd, writer = None, True
        log = sidecars(path)[0]
        private, conn = None, None
        try:
            if writer:              # beside a live writer: read-only, through the writer's log and index
                uri = f"{path.resolve().as_uri()}?mode=ro"
            elif log.exists() and log.stat().st_size > 0:      # a killed writer's log: from a private copy
                private = tempfile.TemporaryDirectory(prefix="cardarena-read-")
                copy = Path(private.name) / "results.db"
                shutil.copyfile(path, copy)
                shutil.copyfile(log, sidecars(copy)[0])
                uri = f"{copy.as_uri()}?mode=ro"
            else:
                uri = f"{path.resolve().as_uri()}?mode=ro&immutable=1"
            conn = sqlite3.connect(uri, uri=True, isolation_level="DEFERRED")
            _check_ours(path, conn)
            config = _stored_config(path, conn)
            return cls(path, conn, lock_fd, writer=False, config=config, num_seats=_num_seats(path, config.game),
                       private=private)
        except BaseException as e:
            if conn is not None:
                conn.close()
            if private is not None:
                private.cleanup()
            if lock_fd is not None:
                os.close(lock_fd)
            if isinstance(e, sqlite3.Error):
                raise ResultsFileError(f"{path}: cannot read the results file ({e})") from None
            raise

    def close(self) -> None:
        """Stores what is queued (a writer), closes the file and lets it go."""
        try:
            if self._writer:
                self.flush()
        finally:
            self.conn.close()
            if self._private is not None:
                self._private.cleanup()
                self._private = None
            if self._lock_fd is not None:      # after the connection: closing any fd of the file drops
                os.close(self._lock_fd)        # the process's POSIX locks, SQLite's included
                self._lock_fd = None

    def __enter__(self) -> "ResultsDB":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ------------------------------------------------------------- contents
    def config(self) -> TournamentConfig:
        """The tournament the file holds, as checked when it was opened."""
        return self._config

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
        """Commits the queued games. A write that fails (a full disk) raises
        ResultsFileError: the file keeps every game committed before, and the
        queued ones are dropped, to be played again when the run resumes."""
        if self._pending:
            try:
                with self.conn:
                    self.conn.executemany(f"INSERT INTO games ({', '.join(_COLUMNS)}) VALUES "
                                          f"({', '.join('?' * len(_COLUMNS))})", self._pending)
            except sqlite3.Error as e:
                lost = len(self._pending)
                self._pending.clear()
                raise ResultsFileError(f"{self.path}: cannot store games ({e}); every game stored before is "
                                       f"kept and the last {lost} will be played again: make room, then run "
                                       f"the same command to resume") from None
            self._pending.clear()
        self._last_commit = time.monotonic()

    def games(self, *, history: bool = False, where: str = "", params: tuple = (),
              damaged: list[str] | None = None) -> Iterator[GameRecord]:
        """Every stored game (those matching the SQL condition `where`), in (deal,
        rotation) order; with their histories when asked (a rating needs none).

        Each row is checked against what the harness writes (a seat per player,
        each an agent of the file, a finite return and move count per seat, ...).
        A row that fails (a file edited by hand, or damaged) raises
        ResultsFileError naming the game and the field; with a `damaged` list,
        the row is skipped and that description appended to it instead."""
        columns = [c for c in _COLUMNS[:-1] if c != "history" or (history and self.has_history_column())]
        rows = self.conn.execute(f"SELECT {', '.join(columns)} FROM games "
                                 f"{'WHERE ' + where if where else ''} ORDER BY deal, rotation", params)
        for row in rows:
            try:
                yield self._game(dict(zip(columns, row)))
            except ResultsFileError as e:
                if damaged is None:
                    raise
                damaged.append(str(e))

    def game(self, deal: int, rotation: int) -> GameRecord | None:
        """One stored game, with its history, or None."""
        return next(self.games(history=True, where="deal = ? AND rotation = ?", params=(deal, rotation)), None)

    def luck(self, judge: str) -> dict[tuple[int, int], list[float]]:
        """Each game's luck stored under `judge` (eval.luck's `LuckJudge.identity`):
        (deal, rotation) -> each seat's amount taken off its return. Nothing from a
        file before stored luck. A row that is not what the harness writes (a finite
        number a seat, for a stored game) raises ResultsFileError naming the game."""
        if not self._has_table("luck"):
            return {}
        out = {}
        for deal, rotation, text in self.conn.execute(
                "SELECT deal, rotation, luck FROM luck WHERE judge = ? ORDER BY deal, rotation", (judge,)):
            try:
                luck = json.loads(text) if isinstance(text, str) else None
            except (ValueError, RecursionError):
                luck = None
            if not (_is_int(deal) and _is_int(rotation) and isinstance(luck, list)
                    and len(luck) == self._num_seats and all(_is_finite(x) for x in luck)):
                raise ResultsFileError(f"{self.path}: game {deal!r:.20}-{rotation!r:.20}: its stored luck is not "
                                       f"a finite number a seat (the file was edited or damaged)")
            out[deal, rotation] = [float(x) for x in luck]
        return out

    def add_luck(self, judge: str, luck: dict[tuple[int, int], list[float]]) -> None:
        """Stores games' luck under `judge`, committed at once (a writer's file
        only). A game's luck depends on its moves and the judge alone, so a row is
        written once and never replaced. ResultsFileError where the write fails: the
        rows stored before are kept, and these are measured again next time."""
        if not self._writer:
            raise ValueError("luck is stored by the tournament writing the file, not by a reader")
        self.flush()                # the games first: no luck is ever stored without its game
        try:
            with self.conn:
                self.conn.executemany("INSERT OR IGNORE INTO luck VALUES (?, ?, ?, ?)",
                                      [(d, r, judge, _to_json(v)) for (d, r), v in luck.items()])
        except sqlite3.Error as e:
            raise ResultsFileError(f"{self.path}: cannot store the games' luck ({e}); what was stored before is "
                                   f"kept, and the rest is measured again next time") from None

    @property
    def writer(self) -> bool:
        """Whether this is the tournament's own handle, which may store luck."""
        return self._writer

    def _has_table(self, table: str) -> bool:
        return self.conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                                 (table,)).fetchone() is not None

    def has_history_column(self) -> bool:
        return any(r[1] == "history" for r in self.conn.execute("PRAGMA table_info(games)"))

    def bot_files(self) -> dict[str, dict[str, str]]:
        """Each agent's bot files and their sha256, as stored when the run began."""
        row = self.conn.execute("SELECT value FROM meta WHERE key = 'bot_files'").fetchone()
        try:
            files = json.loads(row[0]) if row else {}
        except (ValueError, RecursionError, TypeError):
            files = None
        if not isinstance(files, dict) or not all(
                isinstance(v, dict) and all(isinstance(x, str) for x in v.values()) for v in files.values()):
            raise ResultsFileError(f"{self.path}: its bot files' hashes are not readable (the file was edited?)")
        return files

    def _game(self, stored: dict[str, Any]) -> GameRecord:
        """A stored row as a GameRecord, checked (see `games`)."""
        deal, rotation = stored["deal"], stored["rotation"]
        name = f"{self.path}: game {deal}-{rotation}" if _is_int(deal) and _is_int(rotation) else \
            f"{self.path}: a game stored as deal {deal!r:.20}, rotation {rotation!r:.20}"
        values = {}
        for column, value in stored.items():
            if column in _JSON and value is not None:
                try:
                    value = json.loads(value)
                except (ValueError, TypeError, RecursionError):
                    raise ResultsFileError(f"{name}: its {column} are not readable JSON "
                                           f"(the file was edited or damaged)") from None
            values[column] = value
        problem = _row_problem(values, self._num_seats, len(self._config.agents))
        if problem:
            raise ResultsFileError(f"{name}: {problem} (the file was edited or damaged)")
        values["seats"] = tuple(values["seats"])
        return GameRecord(**values)


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _is_finite(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _row_problem(row: dict[str, Any], seats: int, agents: int) -> str | None:
    """What is wrong with a stored game's values, or None: each is what the
    harness writes, with one entry per seat where it keeps one per seat."""
    if not (_is_int(row["deal"]) and row["deal"] >= 0 and _is_int(row["rotation"]) and row["rotation"] >= 0):
        return "its deal and rotation are not whole numbers from 0"
    per_seat = {"seats": "agent indices", "returns": "returns", "move_counts": "move counts",
                "move_seconds": "seconds", "move_max": "longest moves"}
    for column, what in per_seat.items():
        value = row[column]
        if column == "returns" and value is None:
            continue
        if not isinstance(value, list) or len(value) != seats:
            return f"its {what} {str(value)[:40]} do not give one per seat ({seats} seats)"
        check = _is_int if column in ("seats", "move_counts") else _is_finite
        if not all(check(v) and (column == "returns" or v >= 0) for v in value):
            return f"its {what} {str(value)[:40]} are not all {'whole' if check is _is_int else 'finite'} " \
                   f"numbers{'' if column == 'returns' else ' from 0'}"
    if any(a >= agents for a in row["seats"]):
        return f"its seats {row['seats']} name an agent the file does not have ({agents} agents)"
    deal_records = row["deal_records"]
    if deal_records is not None and not (isinstance(deal_records, list) and all(
            isinstance(d, list) and all(_is_finite(v) for v in d) for d in deal_records)):
        return "its deal records are not lists of finite numbers"
    if not (_is_int(row["chance_seed"]) and _is_int(row["length"]) and row["length"] >= 0
            and _is_finite(row["wall_seconds"])):
        return "its chance seed, length or time is not a number"
    fault_seat, fault_kind, error = row["fault_seat"], row["fault_kind"], row["error"]
    if fault_seat is not None and not (_is_int(fault_seat) and 0 <= fault_seat < seats):
        return f"its fault names seat {fault_seat!r:.20}, not a seat (0..{seats - 1})"
    if any(v is not None and not isinstance(v, str) for v in (fault_kind, error)):
        return "its fault is not text"
    if row.get("history") is not None and not isinstance(row["history"], bytes):
        return "its history is not the harness's encoding"
    return None


def check_resumable(path: str | os.PathLike, config: TournamentConfig) -> set[tuple[int, int]]:
    """The games of `config` already stored in `path`, the file checked as
    `ResultsDB.open_for` checks it before a run, but only read: ResultsFileError
    where open_for would refuse it, an empty set where it is not there yet."""
    path = Path(path)
    check_results_name(path)
    if not path.exists() or path.stat().st_size == 0:
        return set()
    with ResultsDB.read(path) as db:
        stored = db.config()
        if _jsonable(stored.identity()) != _jsonable(config.identity()):
            raise ResultsFileError(_difference(path, stored, config))
        _check_bot_files(path, db.bot_files(), config.bot_files())
        return db.stored_keys()


def check_results_name(path: Path) -> None:
    """Refuses (ResultsFileError) a results file to write that is a folder, a
    device or a pipe, or the name SQLite gives another database's log, index or
    journal."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as e:
        raise ResultsFileError(f"{path}: cannot use it as a results file ({e.strerror})") from None
    if mode is not None and not stat.S_ISREG(mode):
        what = "a folder" if stat.S_ISDIR(mode) else "a device or a pipe"
        raise ResultsFileError(f"{path} is {what}, not a results file; name a file, e.g. r.db")
    base = sidecar_of(path)
    if base is not None:
        raise ResultsFileError(f"{path} is where SQLite keeps {base}'s log or index; name another file")


def _abandon(path: Path, conn: sqlite3.Connection | None, lock_fd: int, *, remove: bool) -> None:
    """Lets go of a file open_for could not use; one it had just made is removed."""
    if conn is not None:            # closed before the lock's fd: closing any fd of the file
        conn.close()                # drops the process's POSIX locks, SQLite's included
    if remove:
        for made in (path, *sidecars(path)):
            made.unlink(missing_ok=True)
    os.close(lock_fd)


def _num_seats(path: Path, game: str) -> int:
    """The number of seats of the file's game, which must still load."""
    from games.load import load_game
    try:
        return load_game(game).num_players()
    except ValueError as e:
        raise ResultsFileError(f"{path}: its game does not load in this cardarena ({e})") from None


def _lock(path: Path) -> int:
    """An exclusive lock on the results file for the life of the run, so two runs
    never write the same file, nor one while a reader reads it (a reader holds
    a shared one; SQLite's own locks are separate fcntl locks)."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NONBLOCK, 0o644)
    except OSError as e:
        raise ResultsFileError(f"{path}: cannot open results file: {e.strerror}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise ResultsFileError(f"{path} is not a regular file; name a results file, e.g. r.db")
    os.set_blocking(fd, True)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        try:                        # a shared lock is had while only readers hold the file
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            who = "a cardarena command is reading this results file"
        except BlockingIOError:
            who = "another tournament is writing this results file"
        os.close(fd)
        raise ResultsFileError(f"{path}: {who}; run this again when it has finished") from None
    return fd


def _connect(path: Path) -> sqlite3.Connection:
    """A writer's connection to `path`, refused unless it is an SQLite file (or empty)."""
    with open_regular(path, "results file") as f:
        header = f.read(16)
    if header and header != SQLITE_HEADER:
        raise ResultsFileError(f"{path}: not a cardarena results file (not an SQLite database); "
                               f"left unchanged")
    return sqlite3.connect(path, isolation_level="DEFERRED")


_LUCK_COLUMNS = ("deal", "rotation", "judge", "luck")
# The tables and columns every results file has (history: from schema 2; luck, _LUCK_COLUMNS: from 3).
_TABLES = {"meta": ("key", "value"), "agents": ("idx", "name", "spec"),
           "games": tuple(c for c in _COLUMNS if c != "history")}


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
    required = {**_TABLES, "luck": _LUCK_COLUMNS} if version >= 3 else _TABLES
    try:
        problems = [r[0] for r in conn.execute("PRAGMA quick_check")]
        tables = {table: {r[1] for r in conn.execute(f"PRAGMA table_info({table})")} for table in required}
    except sqlite3.DatabaseError as e:
        problems, tables = [str(e)], {}
    if problems != ["ok"]:
        raise ResultsFileError(f"{path}: results file is corrupt ({'; '.join(problems[:3])}); "
                               f"left unchanged")
    for table, columns in required.items():
        missing = [c for c in columns if c not in tables[table]]
        if missing:
            raise ResultsFileError(f"{path}: has the results file's mark but " +
                                   (f"no {table!r} table" if len(missing) == len(columns) else
                                    f"its {table!r} table lacks {', '.join(missing)}") +
                                   "; not a file cardarena wrote, left unchanged")


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
    transaction: columns and tables are added, nothing is rewritten or dropped."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version == 1:
        conn.execute("ALTER TABLE games ADD COLUMN history BLOB")
    if version < 3:
        conn.execute(_LUCK_TABLE)
    if version < SCHEMA_VERSION:
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
    """The tournament stored in the file, each setting checked for its type and
    the seat lists for the game; ResultsFileError where one is not."""
    def tuples(x):
        return tuple(tuples(v) for v in x) if isinstance(x, list) else x
    try:
        (text,) = conn.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()
        config = TournamentConfig(**{k: tuples(v) for k, v in json.loads(text).items()})
    except (sqlite3.DatabaseError, TypeError, ValueError, AttributeError, RecursionError) as e:
        raise ResultsFileError(f"{path}: results file has no readable tournament settings ({e})") from None
    problem = _config_problem(config)
    if problem:
        raise ResultsFileError(f"{path}: its tournament settings are not readable: {problem} "
                               f"(the file was edited or damaged)")
    if config.teams is not None:
        try:
            check_sides(_num_seats(path, config.game), config.teams)
        except ValueError as e:
            raise ResultsFileError(f"{path}: its tournament settings are not readable: {e}") from None
    return config


def _config_problem(c: TournamentConfig) -> str | None:
    """What is wrong with a stored config's types, or None."""
    def pairs(x: Any) -> bool:
        return isinstance(x, tuple) and all(isinstance(p, tuple) and len(p) == 2 and
                                            all(isinstance(v, str) for v in p) for p in x)
    if not isinstance(c.game, str):
        return "the game is not a game string"
    if not pairs(c.agents) or not c.agents or len({n for n, _ in c.agents}) != len(c.agents):
        return "the agents are not distinct (name, spec) pairs"
    if not (_is_int(c.deals) and c.deals >= 1 and _is_int(c.seed) and c.seed >= 0):
        return "the deals or the seed are not whole numbers"
    if not all(isinstance(x, bool) for x in (c.duplicate, c.mixed_partners, c.keep_history)):
        return "a yes/no setting is not true or false"
    if c.teams is not None and not (isinstance(c.teams, tuple) and
                                    all(isinstance(t, tuple) and all(_is_int(s) for s in t) for t in c.teams)):
        return "the teams are not lists of seats"
    if c.match is not None and not isinstance(c.match, str):
        return "the match format is not text"
    if c.time_limit is not None and not (_is_finite(c.time_limit) and c.time_limit > 0):
        return "the time limit is not a positive number"
    if not pairs(c.bot_modules):
        return "the registered bots are not (name, module:factory) pairs"
    return None


def _difference(path: Path, stored: TournamentConfig, wanted: TournamentConfig) -> str:
    a, b = _jsonable(stored.identity()), _jsonable(wanted.identity())
    diffs = [f"{k}: stored {a[k]!r}, asked {b[k]!r}" for k in a if a[k] != b.get(k)]
    return (f"{path} holds a different tournament ({'; '.join(diffs)}). Use another results "
            f"file, or the same settings to resume it.")
