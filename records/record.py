"""Game records: every game kept move by move, in a plain format that replays exactly.

A record is one game of pyspiel (one deal, where a match has several) as one JSON
object: the deal's full game string, who sat where, every action with its actor,
its words and its time, chance outcomes included, the returns and any fault.
Many records are JSON Lines, one object a line. docs/records.md gives the format
field by field.

The reader refuses bad input precisely, as python-chess's PGN reader does: a
record that is not ours, of an unknown version, with a field of the wrong type,
whose game string does not load or whose moves are not legal in turn raises
`RecordError` naming the move and why. `state_at(record, n)` rebuilds the exact
pyspiel state before move n by replaying the actions, so any tool (the review,
the analysis, the strategy lab) walks a game the same way.

Hidden information: `transcript(record, view=seat)` says only what a seat saw,
built from its information state (the lines each move adds to it), so it names
no card that seat cannot see; `seat_views(record, seat)` gives the seat's whole
view after each move, the table's and the engine's (games.view.seat_view).

A record needs the games only: the harness writes records and turns a results
file's stored games into records (eval/results_records.py), the table saves and
reviews them, and none of them is needed to read, replay or write one.
"""

from __future__ import annotations

import json
import os
import stat
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

import pyspiel

import games  # noqa: F401  (registers our games)
from games import registry
from games.load import load_game
from games.view import seat_view
from records.files import EMPTY, RECORDS, SQLITE_HEADER, kind_of, loads, read_text, write_whole

FORMAT = "cardarena-record"
VERSION = 1


class RecordError(ValueError):
    """A record that cannot be used; the message says which record, move or field, and why."""


@dataclass
class PlayerInfo:
    """Who sat at a seat: the agent's name, its spec, and the sha256 of each bot
    file it plays with (None for a bot without one)."""
    seat: int
    agent: str
    spec: str
    sha256: str | None = None


@dataclass
class Move:
    """One action of the game. `actor` is the seat, or -1 for chance; `seconds`
    the time its bot took (None for chance, or where it was not measured)."""
    actor: int
    action: int
    text: str
    seconds: float | None = None
    annotations: dict[str, Any] = field(default_factory=dict)


@dataclass
class Record:
    """One game, move by move. `returns` is None while a game is unfinished (or
    void); a game a bot forfeited has the forfeit returns and its `fault`."""
    game: str
    players: list[PlayerInfo]
    moves: list[Move]
    returns: list[float] | None
    seed: int | None = None
    match: dict[str, Any] | None = None
    fault: dict[str, Any] | None = None
    source: dict[str, Any] | None = None
    annotations: dict[str, Any] = field(default_factory=dict)

    @property
    def finished(self) -> bool:
        return self.returns is not None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"format": FORMAT, "version": VERSION, "game": self.game}
        for key in ("match", "source", "seed"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        out["players"] = [{"seat": p.seat, "agent": p.agent, "spec": p.spec, "sha256": p.sha256}
                          for p in self.players]
        out["moves"] = [_move_json(m) for m in self.moves]
        out["returns"] = self.returns
        if self.fault is not None:
            out["fault"] = self.fault
        if self.annotations:
            out["annotations"] = self.annotations
        return out

    @classmethod
    def from_json(cls, obj: Any, where: str = "record") -> "Record":
        """Checks every field's presence and type; raises RecordError naming the first bad one."""
        if not isinstance(obj, dict):
            raise RecordError(f"{where}: not a JSON object")
        if obj.get("format") != FORMAT:
            shown = repr(obj.get("format"))
            shown = shown if len(shown) <= 60 else shown[:57] + "..."      # a hostile value stays one short line
            raise RecordError(f"{where}: not a cardarena record (format {shown}, expected {FORMAT!r})")
        version = obj.get("version")
        if version != VERSION:
            raise RecordError(f"{where}: record version {version!r}; this cardarena reads version {VERSION}")
        game = _field(obj, "game", str, where)
        players = [_player(p, f"{where}: players[{i}]")
                   for i, p in enumerate(_field(obj, "players", list, where))]
        moves = [_move(m, f"{where}: move {i}") for i, m in enumerate(_field(obj, "moves", list, where))]
        returns = obj.get("returns")
        if returns is not None and not (isinstance(returns, list) and all(_is_number(r) for r in returns)):
            raise RecordError(f"{where}: 'returns' must be a list of numbers or null")
        seed = obj.get("seed")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
            raise RecordError(f"{where}: 'seed' must be an integer")
        optional = {}
        for key in ("match", "fault", "source", "annotations"):
            value = obj.get(key)
            if value is not None and not isinstance(value, dict):
                raise RecordError(f"{where}: {key!r} must be an object")
            optional[key] = value
        return cls(game, players, moves, returns, seed, optional["match"], optional["fault"],
                   optional["source"], optional["annotations"] or {})

    @classmethod
    def from_state(cls, state: pyspiel.State, players: Sequence[PlayerInfo], *,
                   seconds: Sequence[float] | None = None, seed: int | None = None,
                   match: dict[str, Any] | None = None, fault: dict[str, Any] | None = None,
                   source: dict[str, Any] | None = None, returns: Sequence[float] | None = None) -> "Record":
        """The record of a played state: its history replayed for the actors and
        words. `seconds` are the decisions' times in order (chance moves have
        none); `returns` default to the state's own when it is terminal."""
        game = state.get_game()
        return build(str(game), game, state.history(), players, seconds=seconds, seed=seed, match=match,
                     fault=fault, source=source,
                     returns=list(returns) if returns is not None else
                     (list(state.returns()) if state.is_terminal() else None))


def build(game_string: str, game: pyspiel.Game, actions: Sequence[int], players: Sequence[PlayerInfo], *,
          seconds: Sequence[float] | None = None, seed: int | None = None, match: dict | None = None,
          fault: dict | None = None, source: dict | None = None,
          returns: Sequence[float] | None = None) -> Record:
    """A record from a game's actions, replayed for their actors and words;
    RecordError naming the first move that cannot be played."""
    state = game.new_initial_state()
    moves = []
    times = iter(seconds or ())
    for i, action in enumerate(actions):
        if state.is_terminal():
            raise RecordError(f"move {i}: action {action} comes after the end of the game")
        actor = state.current_player()
        try:
            text = state.action_to_string(actor, action)
            state.apply_action(action)
        except Exception as e:      # a core raises IllegalActionError, OpenSpiel's SpielError
            raise RecordError(f"move {i}: action {action} cannot be played there "
                              f"({' '.join(str(e).split()) or type(e).__name__})") from None
        moves.append(Move(actor, int(action), text, None if actor < 0 else next(times, None)))
    if returns is None and fault is None and state.is_terminal():
        returns = state.returns()
    return Record(game_string, list(players), moves, list(returns) if returns is not None else None,
                  seed, match, fault, source)


def game_id(deal: int, rotation: int, match_deal: int | None = None) -> str:
    """A stored game's name: "deal-rotation", and "-k" for deal k of a match."""
    return f"{deal}-{rotation}" if match_deal is None else f"{deal}-{rotation}-{match_deal}"


# ------------------------------------------------------------------ replay
def load_game_string(game: str) -> pyspiel.Game:
    """The game a record or a results file names; RecordError, one line, where it does not load."""
    try:
        return load_game(game)
    except ValueError as e:
        reason = str(e).removeprefix(f"cannot load game {game!r}: ")
        raise RecordError(f"game string {game!r} does not load: {reason}") from None


def game_of(record: Record) -> pyspiel.Game:
    """The record's game (`load_game_string`)."""
    return load_game_string(record.game)


def replay(record: Record, upto: int | None = None) -> Iterator[tuple[int, pyspiel.State, Move]]:
    """(index, the state before it, move) for each move up to `upto` (all by
    default), checking that the actor is the player to move and the action is
    legal there; raises RecordError at the first move that is not."""
    state = game_of(record).new_initial_state()
    moves = record.moves if upto is None else record.moves[:upto]
    for i, move in enumerate(moves):
        _check_move(state, i, move)
        yield i, state, move
        state.apply_action(move.action)


def state_at(record: Record, move: int) -> pyspiel.State:
    """The exact state before `record.moves[move]`; `move == len(moves)` gives the
    state after the last move."""
    if not isinstance(move, int) or isinstance(move, bool) or move < 0:
        raise RecordError(f"move {move!r}: a move number is a whole number from 0")
    if move > len(record.moves):
        raise RecordError(f"move {move} is past the end: the record has {len(record.moves)} moves "
                          f"(0..{len(record.moves)})")
    state = game_of(record).new_initial_state()
    for i, m in enumerate(record.moves[:move]):
        _check_move(state, i, m)
        state.apply_action(m.action)
    return state


def check(record: Record) -> pyspiel.State:
    """Replays the whole record; a finished game without a fault must end in a
    terminal state with the recorded returns. Returns the final state."""
    state = state_at(record, len(record.moves))
    if record.returns is not None and record.fault is None:
        if not state.is_terminal():
            raise RecordError(f"the record has returns but its {len(record.moves)} moves do not end the game")
        got = state.returns()
        if len(got) != len(record.returns) or any(abs(a - b) > 1e-9 for a, b in zip(got, record.returns)):
            raise RecordError(f"recorded returns {record.returns} but the moves give {list(got)}")
    return state


def _check_move(state: pyspiel.State, i: int, move: Move) -> None:
    if state.is_terminal():
        raise RecordError(f"move {i} ({move.text!r}): the game is already over")
    player = state.current_player()
    if move.actor != player:
        who = "chance" if player == pyspiel.PlayerId.CHANCE else f"player {player}"
        raise RecordError(f"move {i} ({move.text!r}): recorded for actor {move.actor}, but {who} is to move")
    legal = [a for a, _ in state.chance_outcomes()] if state.is_chance_node() else state.legal_actions()
    if move.action not in legal:
        raise RecordError(f"move {i} ({move.text!r}): action {move.action} is not legal here "
                          f"({len(legal)} legal actions)")
    text = state.action_to_string(player, move.action)
    if text != move.text:
        raise RecordError(f"move {i}: recorded as {move.text!r}, but action {move.action} is {text!r} here")


# ------------------------------------------------------------------ words
def transcript(record: Record, view: int | None = None) -> list[tuple[int, str]]:
    """(move index, line) for the whole game: every move's own words with its
    actor (`view=None`, every card open), or only what seat `view` saw: the
    lines each move added to that seat's information state (whose first line,
    the seat's own hand, is rewritten; the rest only grows)."""
    game = game_of(record)
    if view is not None and not 0 <= view < game.num_players():
        raise RecordError(f"seat {view} is not a seat of {record.game} (0..{game.num_players() - 1})")
    lines: list[tuple[int, str]] = []
    if view is None:
        for i, _, move in replay(record):
            who = "chance" if move.actor < 0 else f"p{move.actor}"
            lines.append((i, f"{who}: {move.text}"))
        return lines
    state = game.new_initial_state()
    old = state.information_state_string(view).split("\n")
    for i, m in enumerate(record.moves):
        _check_move(state, i, m)
        state.apply_action(m.action)
        new = state.information_state_string(view).split("\n")
        lines.extend((i, text) for text in new[len(old):])
        old = new
    return lines


def seat_views(record: Record, seat: int) -> Iterator[tuple[int, dict[str, Any]]]:
    """(move index, what seat `seat` saw after that move) for every move: the seat view a table
    or an engine at that seat would have been given (games.view.seat_view; its game's schema is
    `cardarena schema`), built from what the seat may see only. The players are named p0, p1,
    ... with the record's agents (null for a seat the record names none for). RecordError for a
    seat the game has not, a game with no seat view (one of OpenSpiel's own) or a move that
    does not replay."""
    game = game_of(record)
    name = game.get_type().short_name
    if registry.find(name) is None:
        raise RecordError(f"game {name!r} is not registered here: it has no seat view (show it as text)")
    if not isinstance(seat, int) or not 0 <= seat < game.num_players():
        raise RecordError(f"seat {seat} is not a seat of {record.game} (0..{game.num_players() - 1})")
    by_seat = {p.seat: p.agent for p in record.players}
    agents = [by_seat.get(s) for s in range(game.num_players())]
    state = game.new_initial_state()
    for i, m in enumerate(record.moves):
        _check_move(state, i, m)
        state.apply_action(m.action)
        yield i, seat_view(game, state, seat, agents=agents)


# ------------------------------------------------------------------ files
def read_record_file(path: str | os.PathLike) -> list[Record | RecordError]:
    """Each place of a record file, in order: its record, or the RecordError that
    says why it cannot be read (a line cut short, not JSON, nested too deeply,
    not a record). A .json file is one record or a list; a .jsonl file is one a
    line (a file of another name that is not one JSON document is read so too).
    RecordError for a file that cannot be read at all or holds no record."""
    path = Path(path)
    try:
        text = read_text(path, "record file")
    except ValueError as e:
        raise RecordError(str(e)) from None
    places: list[Record | RecordError] = []
    if path.suffix != ".jsonl":
        try:
            obj = loads(text)
        except ValueError as e:
            if len([line for line in text.splitlines() if line.strip()]) < 2:
                where = f", line {e.lineno}" if isinstance(e, json.JSONDecodeError) else ""
                raise RecordError(f"{path}: not valid JSON ({getattr(e, 'msg', e)}{where})") from None
        else:
            items = obj if isinstance(obj, list) else [obj]
            for i, item in enumerate(items):
                try:
                    places.append(Record.from_json(item, f"{path}: record {i}"))
                except RecordError as e:
                    places.append(e)
            if not places:
                raise RecordError(f"{path}: no records in the file")
            return places
    places = _lines(path, text)
    if not places:
        raise RecordError(f"{path}: no records in the file")
    return places


def _lines(path: Path, text: str) -> list[Record | RecordError]:
    """Each non-blank line of JSON Lines text as a record, or why it is not one."""
    places: list[Record | RecordError] = []
    lines = text.split("\n")
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{path}: line {n}"
        try:
            obj = loads(line)
        except ValueError as e:
            cut = n == len(lines)          # the last line, with no end of line after it
            places.append(RecordError(f"{where} is " + ("cut short (no end of line)" if cut else
                                                        f"not valid JSON ({getattr(e, 'msg', e)})")))
            continue
        try:
            places.append(Record.from_json(obj, where))
        except RecordError as e:
            places.append(e)
    return places


class DamagedRecordWarning(UserWarning):
    """A record file's line or item that cannot be read, skipped by `load_records`."""


def load_records(path: str | os.PathLike, damaged: list[str] | None = None) -> list[Record]:
    """The readable records of a record file (`read_record_file`). A damaged
    place is skipped, and named: in `damaged` where given, else as a
    DamagedRecordWarning. RecordError where no record can be read."""
    records = []
    for place in read_record_file(path):
        if isinstance(place, Record):
            records.append(place)
        elif damaged is not None:
            damaged.append(f"{place}; skipped")
        else:
            warnings.warn(f"{place}; skipped", DamagedRecordWarning, stacklevel=2)
    if not records:
        raise RecordError(f"{path}: no readable record in the file")
    return records


def write_records(path: str | os.PathLike, records: Iterable[Record]) -> int:
    """Writes records as JSON Lines through a temporary file, so a file already
    there is replaced whole or not at all (records.files.write_whole). Returns how
    many were written."""
    count = 0

    def write(tmp: Path) -> None:
        nonlocal count
        with open(tmp, "w", encoding="utf-8") as f:
            for record in records:
                f.write(json.dumps(record.to_json(), separators=(",", ":")) + "\n")
                count += 1
    write_whole(path, write)
    return count


def check_appendable(path: str | os.PathLike) -> None:
    """Refuses (RecordError) a file that records must not be appended to: one
    that is not a regular file, not a record file (a results file, a report,
    anything else), or not one whole record a line (a line damaged anywhere,
    a record written over several lines): records go only after a whole line
    of a file whose every line is a record. A file that does not exist is fine."""
    path = Path(path)
    if not os.path.lexists(path):
        return
    try:
        kind = kind_of(path)
    except ValueError as e:
        raise RecordError(str(e)) from None
    if kind == EMPTY:
        return
    if kind != RECORDS:
        raise RecordError(f"{path} holds {kind}, not records: nothing is appended to it; name another file")
    try:
        text = read_text(path, "record file")
    except ValueError as e:
        raise RecordError(str(e)) from None
    bad = [place for place in _lines(path, text) if isinstance(place, RecordError)]
    if bad:
        raise RecordError(f"{bad[0]}: records are appended only to a file of one whole record a line; "
                          f"repair or remove that line, or name another file")


def append_record(path: str | os.PathLike, record: Record) -> None:
    """Adds one record to a JSON Lines file, on disk before it returns. Refused
    (RecordError) where the file is not a regular file, is an SQLite file, or
    does not end with a whole line: a record is never joined to a damaged one."""
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0), 0o644)
    with os.fdopen(fd, "r+b") as f:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise RecordError(f"{path} is not a regular file; records are appended only to a file")
        os.set_blocking(fd, True)
        if info.st_size:
            if f.read(16) == SQLITE_HEADER:
                raise RecordError(f"{path} is a results file (SQLite); records are never appended to one")
            f.seek(info.st_size - 1)
            if f.read(1) != b"\n":
                raise RecordError(f"{path}: its last line is cut short; nothing is appended to a damaged "
                                  f"record file")
        f.write((json.dumps(record.to_json(), separators=(",", ":")) + "\n").encode("utf-8"))
        f.flush()
        os.fsync(fd)


# ------------------------------------------------------------------ checks
def _field(obj: dict, key: str, kind: type, where: str) -> Any:
    if key not in obj:
        raise RecordError(f"{where}: missing {key!r}")
    value = obj[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise RecordError(f"{where}: {key!r} must be {_KIND[kind]}, got {type(value).__name__}")
    return value


_KIND = {str: "a string", list: "a list", int: "an integer", dict: "an object"}


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _player(obj: Any, where: str) -> PlayerInfo:
    if not isinstance(obj, dict):
        raise RecordError(f"{where}: not an object")
    sha = obj.get("sha256")
    if sha is not None and not isinstance(sha, str):
        raise RecordError(f"{where}: 'sha256' must be a string or null")
    return PlayerInfo(_field(obj, "seat", int, where), _field(obj, "agent", str, where),
                      _field(obj, "spec", str, where), sha)


def _move(obj: Any, where: str) -> Move:
    if not isinstance(obj, dict):
        raise RecordError(f"{where}: not an object")
    seconds = obj.get("seconds")
    if seconds is not None and not _is_number(seconds):
        raise RecordError(f"{where}: 'seconds' must be a number or null")
    notes = obj.get("annotations") or {}
    if not isinstance(notes, dict):
        raise RecordError(f"{where}: 'annotations' must be an object")
    return Move(_field(obj, "actor", int, where), _field(obj, "action", int, where),
                _field(obj, "text", str, where), seconds, notes)


def _move_json(m: Move) -> dict[str, Any]:
    out: dict[str, Any] = {"actor": m.actor, "action": m.action, "text": m.text}
    if m.seconds is not None:
        out["seconds"] = m.seconds
    if m.annotations:
        out["annotations"] = m.annotations
    return out
