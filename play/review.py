"""The review of a finished deal: move by move, from the human's seat or with every hand open,
each of the human's decisions checked by the analysis.

A decision is flagged by `search.analysis.review_decision` (from the seat's information only,
the same worlds and chance for every action): the analysis chooses another action, fresh worlds
do not rule out that the played action loses more than the game's `noticeable_loss` (its
registry entry's), and a third, larger set of worlds, grown until it decides, puts the paired
gap's 95% interval above that loss. The hint asks the same evaluator at the same budget
(`search.analysis.review_evaluator`), so a move the hint offered first is never flagged. A flag's cost is
measured on a fourth set that decided nothing (the flags, picked among a deal's decisions by
their gaps, would overstate it on the worlds that picked them), in the game's returns; the
deal's `lost` is their sum. Records come from the table's own records or from any record or
results file (`open_records`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from games import registry
from games.view import seat_view
from search.analysis import REVIEW_WORLDS as DEFAULT_ANALYSIS_WORLDS, review_evaluator

def human_seat(record) -> int:
    """The seat a person played in a record (the table's records say), else seat 0."""
    play = (record.annotations or {}).get("play") or {}
    if isinstance(play.get("human"), int):
        return play["human"]
    return next((p.seat for p in record.players if p.agent == "human"), 0)


def names_of(record, seat: int) -> tuple[list[str], list[str]]:
    names = ["You" if p.seat == seat else f"p{p.seat}" for p in sorted(record.players, key=lambda p: p.seat)]
    agents = [p.spec for p in sorted(record.players, key=lambda p: p.seat)]
    return names, agents


def review_record(record, seat: int, *, deal: int = 0, names: list[str] | None = None,
                  agents: list[str] | None = None, worlds: int = DEFAULT_ANALYSIS_WORLDS,
                  analyse_moves: bool = True) -> dict[str, Any]:
    """The contract's Review of one record from `seat` (open views only for a finished deal)."""
    from records.record import game_of, transcript
    game = game_of(record)
    name = game.get_type().short_name
    if registry.find(name) is None:
        raise ValueError(f"the record's game {name!r} is not one the table reviews")
    if not 0 <= seat < game.num_players():
        raise ValueError(f"seat {seat}: the record's seats are 0..{game.num_players() - 1}")
    if names is None or agents is None:
        names, agents = names_of(record, seat)
    seen: dict[int, list[str]] = {}
    for index, line in transcript(record, view=seat):
        seen.setdefault(index, []).append(line)
    # A deal still being played is never shown open: its hands are someone's secret yet.
    opened = record.finished
    state = game.new_initial_state()
    moves, lost = [], 0.0
    for i, m in enumerate(record.moves):
        if m.actor >= 0 or i in seen:
            view = seat_view(name, state, seat, names, agents)
            text = "; ".join(seen.get(i, [])) or (f"p{m.actor} moves" if m.actor >= 0 else "")
            entry = {"index": i, "seat": m.actor if m.actor >= 0 else None, "text": text,
                     "open_text": f"{'chance' if m.actor < 0 else f'p{m.actor}'}: {m.text}" if opened else text,
                     "view": view, "open": seat_view(name, state, seat, names, agents, open_hands=True)
                     if opened else view, "mistake": None}
            if analyse_moves and m.actor == seat and len(state.legal_actions()) > 1:
                entry["mistake"] = _mistake(state, seat, m.action, view, review_evaluator(game, worlds))
                if entry["mistake"] is not None:
                    lost += entry["mistake"]["cost"]
            moves.append(entry)
        state.apply_action(m.action)
    final = seat_view(name, state, seat, names, agents, open_hands=opened)
    return {"deal": deal, "game": name, "seat": seat, "moves": moves, "lost": lost,
            "points_per_unit": registry.lookup(name).points_per_unit, "returns": record.returns, "fault": record.fault,
            "final": final, "analysed": analyse_moves}


def _mistake(state, seat: int, played: int, view: dict, evaluator) -> dict | None:
    """A flagged decision (search.analysis.review_decision: chosen on one set of worlds,
    suspected on a second, confirmed and costed on a third and larger one)."""
    from search.analysis import review_decision
    result, mistake = review_decision(state, played, evaluator=evaluator)
    if mistake is None:
        return None
    best = result.best
    mine = next(v for v in result.values if v.action == played)
    labels = {a["action"]: a for a in view["actions"]}
    return {"best": labels.get(best.action, {"action": best.action, "label": best.text, "kind": "other",
                                             "card": None}),
            "played": labels.get(played, {"action": played, "label": mine.text, "kind": "other", "card": None}),
            "cost": mistake.cost, "interval": [mistake.low, mistake.high], "worlds": mistake.worlds,
            "best_value": best.mean, "played_value": mine.mean}


def open_records(path: str | Path, game: str | None = None, most: int | None = None) -> list[tuple[str, Any]]:
    """(name, record) of a record file (.json/.jsonl), or of a results file's games
    (`eval.results_records.records_from_results`; `game` picks one by its id "deal-rotation[-k]"); at
    most `most` records (more is a ValueError: name one). A file that cannot be read as either
    (not ours, damaged, nested past reason, a game that no longer loads) is a ValueError naming it."""
    import sqlite3
    from itertools import islice

    import pyspiel

    from eval.results_records import records_from_results
    from records.record import load_records
    path = Path(path)
    if not path.exists():
        raise ValueError(f"{path}: no such file")
    try:
        if path.suffix in (".json", ".jsonl"):
            found = [(f"{path.stem}:{i}", r) for i, r in enumerate(load_records(path))]
            if game is not None:
                picked = [(n, r) for i, (n, r) in enumerate(found) if game in (str(i), n)]
                if not picked:
                    raise ValueError(f"{path}: no record {game!r} (records 0..{len(found) - 1})")
                found = picked
        else:
            games = records_from_results(path)
            if game is not None:
                games = ((g, r) for g, r in games if g == game)
            found = list(islice(games, None if most is None else most + 1))
            if not found:
                raise ValueError(f"{path}: no game {game!r} in the results file" if game is not None
                                 else f"{path}: no games in the results file")
    except RecursionError:
        raise ValueError(f"{path}: nested too deeply to be a record") from None
    except (pyspiel.SpielError, sqlite3.Error) as e:
        raise ValueError(f"{path}: cannot be read ({type(e).__name__}: {e})") from None
    if most is not None and len(found) > most:
        raise ValueError(f"{path}: more than {most} records; name one (a results file's game id, a record's number)")
    return found
