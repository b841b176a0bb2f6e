"""`cardarena games`, `show`, `export-games` and `analyse`: the stored games of a
results file (or a record file) listed, read (as text, or one seat's views as JSON
Lines), written out as records, and a
position valued from the mover's information (records/record.py, search/analysis.py,
docs/records.md)."""

from __future__ import annotations

import argparse
import sys

from scripts.cli_checks import integer, number, one_line

_MOVE = integer(0, 10**9)          # a move, deal or seat number


def _warn(command: str, problems: list[str]) -> None:
    """Names on stderr each damaged game or line a command skipped."""
    for problem in problems:
        print(f"cardarena {command}: warning: {one_line(problem)}", file=sys.stderr)


def _games(args: argparse.Namespace) -> None:
    from records.record import RecordError
    from eval.storage import ResultsDB, ResultsFileError
    damaged: list[str] = []
    try:
        with ResultsDB.read(args.results) as db:
            config = db.config()
            names = config.agent_names
            where, params = [], []
            if args.deal is not None:
                where.append("deal = ?")
                params.append(args.deal)
            if args.faults is not None:
                where.append("fault_kind IS NOT NULL" if args.faults else "fault_kind IS NULL")
            rows = list(db.games(history=True, where=" AND ".join(where), params=tuple(params), damaged=damaged))
    except ResultsFileError as e:
        raise RecordError(str(e)) from None
    if args.agent is not None:
        if args.agent not in names:
            raise RecordError(f"no agent {args.agent!r} in {args.results} (agents: {', '.join(names)})")
        rows = [g for g in rows if names.index(args.agent) in g.seats]
    _warn("games", damaged)
    print(f"{config.describe()}; {len(rows)} games")
    print(f"{'game':<10} {'seats':<48} {'returns':<36} {'moves':>6}  fault")
    unreadable = False
    for g in rows:
        gid = f"{g.deal}-{g.rotation}"
        seats = " ".join(f"p{s}={names[a]}" for s, a in enumerate(g.seats))
        returns = " ".join(f"{r:+.3g}" for r in g.returns) if g.returns is not None else "void"
        try:
            histories = g.deal_histories()
            moves = sum(len(h.actions) for h in histories) if histories is not None else "-"
        except ValueError:
            histories, moves, unreadable = None, "?", True
        fault = f"{g.fault_kind} (seat {g.fault_seat})" if g.fault_kind else ""
        deals = f" [{len(histories)} deals]" if histories is not None and len(histories) > 1 else ""
        print(f"{gid:<10} {seats[:48]:<48} {returns[:36]:<36} {moves:>6}  {one_line(fault)}{deals}")
    if any(g.history is None for g in rows):
        print("(moves '-': stored before game histories were kept; such a game has no record)")
    if unreadable:
        print("(moves '?': the stored history is damaged; cardarena show names the problem)")


def _show(args: argparse.Namespace) -> None:
    from eval.results_records import open_game
    from records.record import check, transcript
    view = None if args.open else args.view
    if args.json and view is None:
        raise ValueError("--json prints one seat's views: give --view SEAT, not --open")
    damaged: list[str] = []
    found = open_game(args.source, args.game, damaged)
    for _, record in found:
        check(record)                   # a record whose moves or returns do not hold is refused, as analyse does
    _warn("show", damaged)
    if args.json:
        _show_views(found, view)
        return
    for gid, record in found:
        print(_header(gid, record, view))
        for i, line in transcript(record, view):
            move = record.moves[i]
            took = f"  ({move.seconds:.3f} s)" if move.seconds is not None and view is None else ""
            print(f"{i:>5}  {line}{took}")
        if record.fault:
            print(one_line(f"fault: {record.fault.get('kind')} by seat {record.fault.get('seat')}: "
                           f"{record.fault.get('error')}"))
        print("returns: " + (" ".join(f"p{s}={r:+.4g}" for s, r in enumerate(record.returns))
                             if record.returns is not None else "none (unfinished)"))
        if args.luck:
            _show_luck(record, view)
        print()


def _show_luck(record, view: int | None) -> None:
    """Each side's points made, what the cards gave it and what its decisions did
    (eval/luck.py); a seat is shown it once the deal is finished, never before."""
    from eval.luck import luck_model, seat_luck_lines
    from records.record import game_of
    if luck_model(game_of(record)) is None:
        print("luck: no value network is shipped for this game, so none is measured")
    elif not record.finished:
        print("luck: shown once the deal is finished (it reads every hidden card)")
    for line in seat_luck_lines(record, view):
        print("luck: " + line)


def _show_views(found: list, seat: int) -> None:
    """JSON Lines: {"game": id, "move": i, "view": the seat's view after move i} for every move of
    every deal found, so a program reads what the seat saw in the format the table and the engine
    protocol use (`cardarena schema GAME`), with no card the seat could not see."""
    import json

    from records.record import seat_views
    for gid, record in found:
        for i, seat_view in seat_views(record, seat):
            print(json.dumps({"game": gid, "move": i, "view": seat_view}, ensure_ascii=False, separators=(",", ":")))


def _header(gid: str, record, view: int | None) -> str:
    lines = [f"game {gid}: {record.game}"]
    if record.match:
        lines.append(f"match {record.match.get('format') or 'default'}, deal {record.match.get('deal')}, "
                     f"scores before it: {record.match.get('scores')}")
    lines.append("seats: " + ", ".join(f"p{p.seat}={p.agent}" + (f" ({p.spec})" if p.spec != p.agent else "")
                                       for p in record.players))
    if record.seed is not None:
        lines.append(f"deal seed: {record.seed}")
    lines.append(f"shown from seat {view}'s view: its own cards and what was public" if view is not None
                 else "every card open")
    return "\n".join(lines)


def _export(args: argparse.Namespace) -> None:
    from records.files import RECORDS, check_output
    from eval.results_records import records_from_results
    from records.record import write_records
    out = check_output(args.out, RECORDS, inputs=[args.results], force=args.force)
    damaged: list[str] = []
    records = (r for _, r in records_from_results(args.results, deal=args.deal, agent=args.agent,
                                                    fault=args.faults, damaged=damaged))
    count = write_records(out, records)
    _warn("export-games", damaged)
    skipped = f"; {len(damaged)} damaged games skipped (named above)" if damaged else ""
    print(f"{count} records written to {out}{skipped}")


def _analyse(args: argparse.Namespace) -> None:
    from eval.results_records import open_game
    from records.record import RecordError, check, game_of, state_at
    from search.analysis import Evaluator, analyse, load_networks
    evaluator = Evaluator(policy=args.policy, worlds=args.worlds, value=args.value, horizon=args.horizon,
                          belief=args.belief)
    damaged: list[str] = []
    found = open_game(args.source, args.game, damaged)
    _warn("analyse", damaged)
    if len(found) > 1:
        raise RecordError(f"game {args.game} is a match of {len(found)} deals: name one, e.g. "
                          f"{found[0][0]}")
    gid, record = found[0]
    check(record)                       # a record with a bad move anywhere is refused whole
    load_networks(evaluator, game_of(record))     # the networks checked before the move is
    state = state_at(record, args.move)
    if state.is_terminal():
        raise RecordError(f"move {args.move}: the game is over there")
    if state.is_chance_node():
        decisions = [i for i, m in enumerate(record.moves) if m.actor >= 0]
        near = [i for i in decisions if abs(i - args.move) <= 8][:6]
        raise RecordError(f"move {args.move} is a chance outcome, not a decision; decisions near it: "
                          f"{', '.join(map(str, near)) or 'none'}")
    played = record.moves[args.move].action if args.move < len(record.moves) else None
    result = analyse(state, evaluator=evaluator, seed=args.seed, played=played, confirm=not args.one_stage)
    print(f"game {gid}: {record.game}, before move {args.move}")
    print(result.table())


def _filters(p: argparse.ArgumentParser) -> None:
    p.add_argument("--agent", help="only games in which this agent (by name) played")
    p.add_argument("--deal", type=_MOVE, help="only this deal's games")
    faults = p.add_mutually_exclusive_group()
    faults.add_argument("--faults", dest="faults", action="store_true", default=None,
                        help="only games with a fault")
    faults.add_argument("--no-faults", dest="faults", action="store_false", help="only games without one")


def add_commands(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("games", help="list the games stored in a results file",
                       description="Lists a results file's games: their ids (deal-rotation), who sat where, "
                                   "the returns, the number of moves kept and any fault.")
    p.add_argument("results", help="a results file (cardarena tournament, sprt or study)")
    _filters(p)
    p.set_defaults(func=_games)

    p = sub.add_parser("show", help="print a stored game move by move, from one seat's view or open",
                       description="Prints a game's transcript: each move's actor and what it did in words.")
    p.add_argument("source", help="a results file or a record file (.json, .jsonl)")
    p.add_argument("game", nargs="?", help="the game: deal-rotation[-k] in a results file, the record's "
                                           "place (0, 1, ...) in a record file (default 0)")
    how = p.add_mutually_exclusive_group(required=True)
    how.add_argument("--view", type=_MOVE, metavar="SEAT",
                     help="what this seat saw: its own cards, the public moves, no other hidden card")
    how.add_argument("--open", action="store_true", help="every card open")
    p.add_argument("--json", action="store_true",
                   help="with --view: the seat's whole view after every move, one JSON object a line "
                        '({"game", "move", "view"}; the view\'s schema: cardarena schema GAME)')
    p.add_argument("--luck", action="store_true",
                   help="after a finished deal, each side's points made, what the cards gave it and what its "
                        "decisions gained or cost (docs/tournament.md, 'Luck')")
    p.set_defaults(func=_show)

    p = sub.add_parser("export-games", help="write a results file's games as records (JSON Lines)",
                       description="Writes one record per game (one per deal of a match) in the format of "
                                   "docs/records.md.")
    p.add_argument("results", help="a results file")
    p.add_argument("--out", required=True, help="the .jsonl file to write")
    p.add_argument("--force", action="store_true", help="replace --out if it exists")
    _filters(p)
    p.set_defaults(func=_export)

    p = sub.add_parser("analyse", help="value every legal action at a move, from the mover's information only",
                       description="Values each legal action of the player to move before --move N over "
                                   "worlds resampled from its information state, each continued by --policy "
                                   "(to the end, or for --horizon moves and then valued by --value); every "
                                   "action meets the same worlds and draws, so differences are paired. The "
                                   "best action is chosen on --worlds worlds and every figure measured on as "
                                   "many fresh ones (search/analysis.py).")
    p.add_argument("source", help="a results file or a record file (.json, .jsonl)")
    p.add_argument("game", nargs="?", help="the game, as for cardarena show")
    p.add_argument("--move", required=True, type=_MOVE,
                   help="the move number (as cardarena show prints it): the position before it")
    p.add_argument("--policy", default="rules", help="the bot spec that plays every world on (default rules)")
    p.add_argument("--worlds", type=integer(1, 100_000), default=50,
                   help="worlds a stage: the choice's, then the measurement's (default %(default)s)")
    p.add_argument("--value", metavar="NET", help="a value network (shipped or a file) that values the position "
                   "--horizon moves after each action, in place of playing to the end")
    p.add_argument("--horizon", type=integer(0, 10_000), help="moves played before --value values (default 0)")
    p.add_argument("--belief", metavar="NET", help="a belief network (shipped or a file) that draws the worlds")
    p.add_argument("--one-stage", action="store_true",
                   help="choose and measure on the same worlds (half the time; the best value is flattered)")
    p.add_argument("--seed", type=int, default=0, help="fixes the worlds and the draws (default 0)")
    p.set_defaults(func=_analyse)
