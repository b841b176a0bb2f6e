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
from games.view import notation, seat_view
from play.words import yours
from search.analysis import REVIEW_WORLDS as DEFAULT_ANALYSIS_WORLDS, review_evaluator

def human_seat(record) -> int:
    """The seat a person played in a record (the table's records say), else seat 0."""
    play = (record.annotations or {}).get("play") or {}
    if isinstance(play.get("human"), int):
        return play["human"]
    return next((p.seat for p in record.players if p.agent == "human"), 0)


def is_person(record, seat: int) -> bool:
    """Whether a person played `seat` in the record (the table's records say so): only then is
    the seat "you" in its review; a tournament's seat is a bot's, and keeps its number."""
    play = (record.annotations or {}).get("play") or {}
    if isinstance(play.get("human"), int):
        return play["human"] == seat
    return any(p.seat == seat and p.agent == "human" for p in record.players)


def names_of(record, seat: int) -> tuple[list[str], list[str]]:
    person = is_person(record, seat)
    names = ["You" if p.seat == seat and person else f"p{p.seat}"
             for p in sorted(record.players, key=lambda p: p.seat)]
    agents = [p.spec for p in sorted(record.players, key=lambda p: p.seat)]
    return names, agents


def step_number(record, seat: int, move: int) -> int:
    """The review's number (its slider's, its log's, its mistakes list's) of the record's move
    `move` from `seat`: the review shows every decision and the chance events the seat saw, so
    the record's own index (which counts every chance event) is not the number a player saw."""
    from records.record import transcript
    seen = {i for i, _ in transcript(record, view=seat)}
    return 1 + sum(1 for i, m in enumerate(record.moves[:move]) if m.actor >= 0 or i in seen)


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
    person = is_person(record, seat)

    def said(line: str) -> str:
        """A line in the table's words: its notation, and the person's seat as "you"."""
        line = notation(line)
        if line.startswith("dealt "):        # the seat's own deal, as its log says it
            line = f"p{seat} {line}"
        return yours(line, seat) if person else line

    seen: dict[int, list[str]] = {}
    for index, line in transcript(record, view=seat):
        seen.setdefault(index, []).append(said(line))
    # A deal still being played is never shown open: its hands are someone's secret yet.
    opened = record.finished
    state = game.new_initial_state()
    moves, lost = [], 0.0
    for i, m in enumerate(record.moves):
        if m.actor >= 0 or i in seen:
            view = _worded(seat_view(name, state, seat, names, agents), said)
            text = "; ".join(seen.get(i, [])) or (said(f"p{m.actor} moves") if m.actor >= 0 else "")
            who = "chance" if m.actor < 0 else said(f"p{m.actor}")
            entry = {"index": i, "seat": m.actor if m.actor >= 0 else None, "text": text,
                     "open_text": f"{who}: {said(m.text)}" if opened else text,
                     "view": view, "open": _worded(seat_view(name, state, seat, names, agents, open_hands=True), said)
                     if opened else view, "mistake": None}
            if analyse_moves and m.actor == seat and len(state.legal_actions()) > 1:
                entry["mistake"] = _mistake(state, seat, m.action, view, review_evaluator(game, worlds))
                if entry["mistake"] is not None:
                    lost += entry["mistake"]["cost"]
            moves.append(entry)
        state.apply_action(m.action)
    final = _worded(seat_view(name, state, seat, names, agents, open_hands=opened), said)
    return {"deal": deal, "game": name, "seat": seat, "person": person, "moves": moves, "lost": lost,
            "points_per_unit": registry.lookup(name).points_per_unit, "returns": record.returns, "fault": record.fault,
            "final": final, "analysed": analyse_moves, "luck": deal_luck_lines(record, seat if person else None)}


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


def _worded(view: dict, said) -> dict:
    """A view whose log says the person's seat as the table does ("you")."""
    for entry in view["log"]:
        entry["text"] = said(entry["text"])
    return view


def deal_luck_lines(record, seat: int | None) -> list[dict]:
    """The review's luck-and-skill line of each side (eval.luck.deal_luck: what it made, what
    the cards gave it and what its decisions made of them, against expectation), once the deal
    is over: the luck reads every card, and a finished deal's review shows them all already.
    Nothing for an unfinished deal, nor for a game with no value network to measure luck with.
    `seat` is the person's, said as "you" (None: a review of bots' seats, every side by number).
    Points where the game scores them, else its returns (Page One's places) to two decimals."""
    if not record.finished or record.fault:      # a forfeit's returns are the rules', not the play's
        return []
    from eval.luck import deal_luck
    from records.record import game_of
    sides = deal_luck(record)
    if sides is None:
        return []
    entry = registry.of_game(game_of(record))
    points = entry is not None and entry.points_per_unit is not None

    def amount(x: float) -> str:
        return f"{x:+.0f}" if points else f"{x:+.2f}"

    lines = []
    for side in sides:
        seats = ", ".join("you" if s == seat else f"p{s}" for s in side.seats)
        side_name = "side" if seat is None else "your side" if seat in side.seats else "their side"
        who = seats if len(side.seats) == 1 else f"{side_name} ({seats})"
        lines.append({"seats": list(side.seats), "made": side.made, "luck": side.luck, "skill": side.skill,
                      "text": f"{who}: made {amount(side.made)}, the cards gave {amount(side.luck)}, "
                              f"decisions {amount(side.skill)}" + (" points" if points else "")})
    return lines

