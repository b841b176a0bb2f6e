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
no card that seat cannot see.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

import pyspiel

import games  # noqa: F401  (registers our games)

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


def player_info(seat: int, agent: str, spec: str, game: pyspiel.Game) -> PlayerInfo:
    """Who sat at `seat`, with the sha256 of the bot files its spec plays with."""
    from eval.config import bot_files, file_sha256
    files = bot_files(spec, game.get_type().short_name)
    return PlayerInfo(seat, agent, spec, ",".join(file_sha256(p) for p in files) or None)


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
            raise RecordError(f"{where}: not a cardarena record (format {obj.get('format')!r}, "
                              f"expected {FORMAT!r})")
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
    """A record from a game's actions, replayed for their actors and words."""
    state = game.new_initial_state()
    moves = []
    times = iter(seconds or ())
    for action in actions:
        actor = state.current_player()
        moves.append(Move(actor, int(action), state.action_to_string(actor, action),
                          None if actor < 0 else next(times, None)))
        state.apply_action(action)
    if returns is None and fault is None and state.is_terminal():
        returns = state.returns()
    return Record(game_string, list(players), moves, list(returns) if returns is not None else None,
                  seed, match, fault, source)


def game_id(deal: int, rotation: int, match_deal: int | None = None) -> str:
    """A stored game's name: "deal-rotation", and "-k" for deal k of a match."""
    return f"{deal}-{rotation}" if match_deal is None else f"{deal}-{rotation}-{match_deal}"


def records_from_results(path: str | os.PathLike, *, deal: int | None = None, agent: str | None = None,
                         fault: bool | None = None) -> Iterator[tuple[str, Record]]:
    """(game id, record) for each stored game with a history in a results file:
    one record per deal of a match. Filters: the deal, an agent that played, and
    whether the game has a fault. Games stored before histories are skipped."""
    from eval.config import match_format
    from eval.play import seat_seed
    from eval.storage import ResultsDB, ResultsFileError
    try:
        db = ResultsDB.read(path)
    except ResultsFileError as e:
        raise RecordError(str(e)) from None
    with db:
        config = db.config()
        files = db.bot_files()
        game = pyspiel.load_game(config.game)
        match = match_format(game, config.match) if config.match is not None else None
        where, params = ("deal = ?", (deal,)) if deal is not None else ("", ())
        for stored in db.games(history=True, where=where, params=params):
            names = [config.agents[a][0] for a in stored.seats]
            if agent is not None and agent not in names:
                continue
            if fault is not None and (stored.fault_kind is not None) != fault:
                continue
            try:
                histories = stored.deal_histories()
            except ValueError as e:
                raise RecordError(f"{path}: game {game_id(stored.deal, stored.rotation)}: {e}") from None
            if histories is None:
                continue
            players = [PlayerInfo(s, config.agents[a][0], config.agents[a][1],
                                  ",".join(files.get(config.agents[a][0], {}).values()) or None)
                       for s, a in enumerate(stored.seats)]
            fault_info = None if stored.fault_kind is None else \
                {"seat": stored.fault_seat, "kind": stored.fault_kind, "error": stored.error}
            for k, deal_history in enumerate(histories):
                last = k == len(histories) - 1
                source = {"results": str(path), "deal": stored.deal, "rotation": stored.rotation}
                if match is None:
                    deal_game, context = game, None
                else:
                    before = (stored.deal_records or [])[:k]
                    params = match.next_deal(before)
                    deal_game = pyspiel.load_game(game.get_type().short_name, {**game.get_parameters(), **params})
                    scores = [sum(col) for col in zip(*before)] if before else None
                    context = {"format": config.match, "deal": k, "scores": scores}
                    source["match_deal"] = k
                record = build(str(deal_game), deal_game, deal_history.actions, players,
                               seconds=deal_history.seconds, seed=seat_seed(stored.chance_seed, k),
                               match=context, fault=fault_info if last else None, source=source,
                               returns=stored.returns if match is None and fault_info is not None else None)
                yield game_id(stored.deal, stored.rotation, None if match is None else k), record


# ------------------------------------------------------------------ replay
def load_game(record: Record) -> pyspiel.Game:
    try:
        return pyspiel.load_game(record.game)
    except Exception as e:      # pyspiel raises SpielError, our games ValueError
        raise RecordError(f"game string {record.game!r} does not load: {e}") from None


def replay(record: Record, upto: int | None = None) -> Iterator[tuple[int, pyspiel.State, Move]]:
    """(index, the state before it, move) for each move up to `upto` (all by
    default), checking that the actor is the player to move and the action is
    legal there; raises RecordError at the first move that is not."""
    state = load_game(record).new_initial_state()
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
    state = load_game(record).new_initial_state()
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
    game = load_game(record)
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


# ------------------------------------------------------------------ files
def is_results_file(path: str | os.PathLike) -> bool:
    """Whether `path` is an SQLite file (a results file) rather than records."""
    try:
        with open(path, "rb") as f:
            return f.read(16) == b"SQLite format 3\x00"
    except OSError:
        return False


def open_game(path: str | os.PathLike, game: str | None = None) -> list[tuple[str, Record]]:
    """(id, record) for one game of a results file or a record file: a results
    file's game by id ("deal-rotation" gives every deal of a match,
    "deal-rotation-k" one), a record file's by its place in the file (0 by
    default). Raises RecordError naming what is not there."""
    if is_results_file(path):
        if game is None:
            raise RecordError(f"{path} is a results file: name a game (cardarena games {path} lists them)")
        parts = game.split("-")
        if not 2 <= len(parts) <= 3 or not all(p.isdigit() for p in parts):
            raise RecordError(f"game {game!r}: a results file's game is named deal-rotation, e.g. 12-1 "
                              f"(and deal-rotation-k for deal k of a match)")
        found = [(gid, r) for gid, r in records_from_results(path, deal=int(parts[0]))
                 if gid == game or gid.startswith(game + "-")]
        if not found:
            raise RecordError(f"{path}: no game {game} with a history (cardarena games {path} lists them)")
        return found
    records = load_records(path)
    if game is None:
        return [("0", records[0])]
    if not game.isdigit() or int(game) >= len(records):
        raise RecordError(f"{path}: no record {game!r}; the file has {len(records)} (0..{len(records) - 1})")
    return [(game, records[int(game)])]


def load_records(path: str | os.PathLike) -> list[Record]:
    """The records of a .json file (one record, or a list) or a .jsonl file (one a
    line; a file of another name that is not one JSON document is read so too)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RecordError(f"{path}: no such record file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise RecordError(f"{path}: cannot read record file ({e})") from None
    if path.suffix != ".jsonl":
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as e:
            if len([line for line in text.splitlines() if line.strip()]) < 2:
                raise RecordError(f"{path}: not valid JSON ({e.msg}, line {e.lineno})") from None
        else:
            items = obj if isinstance(obj, list) else [obj]
            if not items:
                raise RecordError(f"{path}: no records in the file")
            return [Record.from_json(o, f"{path}: record {i}") for i, o in enumerate(items)]
    records = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            raise RecordError(f"{path}: line {n} is not valid JSON ({e.msg})") from None
        records.append(Record.from_json(obj, f"{path}: line {n}"))
    if not records:
        raise RecordError(f"{path}: no records in the file")
    return records


def write_records(path: str | os.PathLike, records: Iterable[Record]) -> int:
    """Writes records as JSON Lines through a temporary file, so a file already
    there is replaced whole or not at all. Returns how many were written."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp")
    count = 0
    with open(tmp, "w", encoding="utf-8") as f:
        for record in records:
            f.write(json.dumps(record.to_json(), separators=(",", ":")) + "\n")
            count += 1
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    return count


def append_record(path: str | os.PathLike, record: Record) -> None:
    """Adds one record to a JSON Lines file, on disk before it returns."""
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(record.to_json(), separators=(",", ":")) + "\n")
        f.flush()
        os.fsync(f.fileno())


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
