"""A results file's stored games as records, and one game of either kind of file.

The harness keeps each game's history beside its result (eval/storage.py);
`records_from_results` rebuilds the record of every deal from it, replaying the
actions, so a results file reads as a record file does (`cardarena games`,
`show`, `export-games`, `analyse`, self-play data, the table's review). It is
the harness's: a record itself needs the games only (records/record.py).
"""

from __future__ import annotations

import os
from typing import Iterator

import pyspiel

from eval.config import match_format
from eval.referee import seat_seed
from eval.storage import ResultsDB, ResultsFileError
from records.files import SQLITE_HEADER, open_regular
from records.record import (PlayerInfo, Record, RecordError, build, game_id, load_game_string,
                            read_record_file)


def records_from_results(path: str | os.PathLike, *, deal: int | None = None, agent: str | None = None,
                         fault: bool | None = None, damaged: list[str] | None = None) -> Iterator[tuple[str, Record]]:
    """(game id, record) for each stored game with a history in a results file:
    one record per deal of a match. Filters: the deal, an agent that played, and
    whether the game has a fault. Games stored before histories are skipped.

    A stored game that does not make a record (its row or history damaged, an
    action that is not legal where it was stored, a finished game whose moves
    do not give its stored returns) raises RecordError naming the game and the
    move; with a `damaged` list, the game is skipped and that description
    appended to it instead, so the rest still come."""
    try:
        db = ResultsDB.read(path)
    except ResultsFileError as e:
        raise RecordError(str(e)) from None
    with db:
        config = db.config()
        try:
            files = db.bot_files()
        except ResultsFileError as e:
            raise RecordError(str(e)) from None
        game = load_game_string(config.game)
        match = None
        if config.match is not None:
            if ":" in config.match.partition("(")[0]:
                raise RecordError(f"{path}: its match format {config.match!r} names a module, and reading a "
                                  f"file runs no code it names")
            try:
                match = match_format(game, config.match)
            except ValueError as e:
                raise RecordError(f"{path}: its match format {config.match!r} does not load here ({e})") from None
        where, params = ("deal = ?", (deal,)) if deal is not None else ("", ())
        rows = db.games(history=True, where=where, params=params, damaged=damaged)
        while True:
            try:
                stored = next(rows)
            except StopIteration:
                return
            except ResultsFileError as e:
                raise RecordError(str(e)) from None
            names = [config.agents[a][0] for a in stored.seats]
            if agent is not None and agent not in names:
                continue
            if fault is not None and (stored.fault_kind is not None) != fault:
                continue
            gid = game_id(stored.deal, stored.rotation)
            try:
                made = list(_stored_records(path, config, files, game, match, stored))
            except RecordError as e:
                if damaged is None:
                    raise RecordError(f"{path}: game {gid}: {e}") from None
                damaged.append(f"{path}: game {gid}: {e}")
                continue
            yield from made


def _stored_records(path: str | os.PathLike, config, files: dict, game: pyspiel.Game, match,
                    stored) -> Iterator[tuple[str, Record]]:
    """The records of one stored game (one per deal of a match), each rebuilt by
    replaying its actions; RecordError naming the move that does not replay."""
    try:
        histories = stored.deal_histories()
    except ValueError as e:
        raise RecordError(f"its stored history is not readable ({e})") from None
    if histories is None:
        return
    players = [PlayerInfo(s, config.agents[a][0], config.agents[a][1],
                          ",".join(files.get(config.agents[a][0], {}).values()) or None)
               for s, a in enumerate(stored.seats)]
    fault_info = None if stored.fault_kind is None else \
        {"seat": stored.fault_seat, "kind": stored.fault_kind, "error": stored.error}
    if match is not None and len(histories) > len(stored.deal_records or []) + 1:
        raise RecordError(f"its history has {len(histories)} deals but the match kept "
                          f"{len(stored.deal_records or [])}")
    for k, deal_history in enumerate(histories):
        last = k == len(histories) - 1
        source = {"results": str(path), "deal": stored.deal, "rotation": stored.rotation}
        if match is None:
            deal_game, context = game, None
        else:
            before = (stored.deal_records or [])[:k]
            try:
                params = match.next_deal(before)
                deal_game = pyspiel.load_game(game.get_type().short_name, {**game.get_parameters(), **params})
            except Exception as e:      # deal records a format cannot read
                raise RecordError(f"deal {k} of its match cannot be set up from the stored scores "
                                  f"({' '.join(str(e).split())})") from None
            scores = [sum(col) for col in zip(*before)] if before else None
            context = {"format": config.match, "deal": k, "scores": scores}
            source["match_deal"] = k
        record = build(str(deal_game), deal_game, deal_history.actions, players,
                       seconds=deal_history.seconds, seed=seat_seed(stored.chance_seed, k),
                       match=context, fault=fault_info if last else None, source=source,
                       returns=stored.returns if match is None and fault_info is not None else None)
        if match is None and fault_info is None and stored.returns is not None:
            if record.returns is None:
                raise RecordError(f"its {len(record.moves)} stored moves do not end the game, but returns "
                                  f"were stored")
            if any(abs(a - b) > 1e-9 for a, b in zip(record.returns, stored.returns)):
                raise RecordError(f"its stored returns {stored.returns} are not what its moves give "
                                  f"{record.returns}")
        yield game_id(stored.deal, stored.rotation, None if match is None else k), record




def is_results_file(path: str | os.PathLike) -> bool:
    """Whether `path` is an SQLite file (a results file) rather than records; a
    pipe, device or folder is neither (and is not opened)."""
    try:
        with open_regular(path, "file") as f:
            return f.read(16) == SQLITE_HEADER
    except ValueError:
        return False


def open_game(path: str | os.PathLike, game: str | None = None,
              damaged: list[str] | None = None) -> list[tuple[str, Record]]:
    """(id, record) for one game of a results file or a record file: a results
    file's game by id ("deal-rotation" gives every deal of a match,
    "deal-rotation-k" one), a record file's by its place in the file (0 by
    default; a damaged line keeps its place). Raises RecordError naming what is
    not there, or why the game asked for cannot be read; what is damaged
    elsewhere in the file goes to `damaged` (see `load_records`)."""
    if is_results_file(path):
        if game is None:
            raise RecordError(f"{path} is a results file: name a game (cardarena games {path} lists them)")
        parts = game.split("-")
        if not 2 <= len(parts) <= 3 or not all(_whole_number(p) for p in parts):
            raise RecordError(f"game {game!r}: a results file's game is named deal-rotation, e.g. 12-1 "
                              f"(and deal-rotation-k for deal k of a match)")
        found, skipped = [], []
        for gid, record in records_from_results(path, deal=int(parts[0]), damaged=skipped):
            if gid == game or gid.startswith(game + "-"):
                found.append((gid, record))
        if not found:
            for problem in skipped:
                if f": game {int(parts[0])}-{int(parts[1])}:" in problem:
                    raise RecordError(problem)
            raise RecordError(f"{path}: no game {game} with a history (cardarena games {path} lists them)")
        return found
    places = read_record_file(path)
    for place in places:
        if isinstance(place, RecordError) and damaged is not None:
            damaged.append(f"{place}; skipped")
    index = 0 if game is None else int(game) if _whole_number(game) else None
    if index is None or index >= len(places):
        raise RecordError(f"{path}: no record {game!r}; the file has {len(places)} (0..{len(places) - 1})")
    chosen = places[index]
    if isinstance(chosen, RecordError):
        raise RecordError(f"record {index} cannot be read: {chosen}")
    return [(str(index), chosen)]


def _whole_number(text: str) -> bool:
    """Whether `text` names a game's deal, rotation or place: ASCII digits, at most 18."""
    return text.isascii() and text.isdigit() and len(text) <= 18
