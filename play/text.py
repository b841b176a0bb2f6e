"""`cardarena play --text`: the same games in a terminal, for people on a remote machine.

The table is printed in text from the same View the page gets (so it shows exactly what the
seat may see), the legal moves numbered; type a number to play it, `h` for the hint (the same
analysis), `q` to quit (the deal so far is kept as an unfinished record). It reads lines from
any stream, so tests feed it input.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import IO

from play.options import GameSpec
from play.review import DEFAULT_ANALYSIS_WORLDS
from play.session import Session, SessionError


def _card(c: dict) -> str:
    """A card in text; a Canasta 3 (no suit) says its colour, which the page shows in red or black."""
    if c["rank"] == "3" and c["suit"] is None:
        return "3r" if c["color"] == "red" else "3b"
    return c["text"]


def _cards(cards: list[dict]) -> str:
    return " ".join(_card(c) for c in cards) or "-"


def table_text(view: dict) -> str:
    """The table of a View as lines of text."""
    lines = [f"== {view['title']} · deal {view['match']['deal']}"
             + (f" of {view['match']['deals']}" if view["match"]["deals"] else "")
             + (f" · to {view['match']['target']}" if view["match"]["target"] else "") + " =="]
    for p in view["players"]:
        mark = ">" if p["to_move"] else " "
        notes = f" ({', '.join(p['notes'])})" if p["notes"] else ""
        lines.append(f"{mark} p{p['seat']} {p['name']:<4} {p['agent']:<24} {p['cards']:>3} cards{notes}")
    for zone in view["zones"]:
        text = zone["text"] or ""
        body = _cards(zone["cards"]) if zone["cards"] else ""
        if zone["melds"] is not None:
            body = "  ".join(f"[{_cards(m['cards'])}{' ' + m['canasta'] + ' canasta' if m['canasta'] else ''}]"
                             for m in zone["melds"]) or "no melds"
        lines.append(f"  {zone['name']}: {body}{'  ' if body and text else ''}{text}")
    lines.append(f"  Your hand: {_cards(view['hand'])}")
    return "\n".join(lines)


def score_text(view: dict) -> str:
    score = view["score"] or {}
    lines = [f"  {line['label']}: " + "  ".join(f"{v:g}" for v in line["values"]) for line in score.get("lines", [])]
    if score.get("total") is not None:
        lines.append("  total: " + "  ".join(f"{v:g}" for v in score["total"]))
    lines.append("  match: " + "  ".join(f"{v:g}" for v in view["match"]["totals"]))
    return "\n".join(lines)


def _amount(value: float, hint: dict) -> str:
    """A hint's figure as the page shows it: points where the game has them, else its returns."""
    k = hint["points_per_unit"]
    return f"{value * k:+.0f}" if k else f"{value:+.3f}"


def run_text(spec: GameSpec, records_dir: Path | None, *, stdin: IO[str] | None = None,
             stdout: IO[str] | None = None, session_id: str | None = None, analysis_worlds: int = DEFAULT_ANALYSIS_WORLDS,
             session: Session | None = None) -> int:
    """Plays one game in the terminal until it ends or the player quits; returns 0."""
    import secrets
    stdin = stdin or sys.stdin
    out = stdout or sys.stdout

    def say(text: str = "") -> None:
        out.write(text + "\n")
        out.flush()

    if session is None:
        session = Session(spec, session_id or secrets.token_urlsafe(16), records_dir, threaded=False,
                          analysis_worlds=analysis_worlds)
    shown = 0
    unsaved = None                       # the save error last said, so it is said once
    if records_dir is not None:
        say(f"records: {Path(records_dir) / (session.id + '.jsonl')}")
    while True:
        session.run_bots()
        view = session.view()
        log = view["log"]
        for line in log[shown:] if shown <= len(log) else log:
            say(f"  · {line['text']}")
        shown = len(log)
        if view["save_error"] != unsaved:
            unsaved = view["save_error"]
            say(f"warning: {unsaved}" if unsaved else "saved.")
        if view["status"] in ("deal_over", "match_over"):
            say(view["message"])
            say(score_text(view))
            if view["status"] == "match_over":
                say("match over.")
                return 0
            say("Enter: next deal, q: quit")
            if stdin.readline().strip().lower().startswith("q"):
                return 0
            session.next_deal()
            shown = 0
            continue
        say(table_text(view))
        for i, a in enumerate(view["actions"], 1):
            say(f"  {i:>3}. {a['label']}")
        out.write("move (number, h: hint, q: quit)> ")
        out.flush()
        line = stdin.readline()
        if not line:                      # end of input: as q
            say("")
            return 0
        answer = line.strip().lower()
        if answer in ("q", "quit", "exit"):
            say("bye: the deal so far is kept as an unfinished record" if records_dir else "bye")
            return 0
        if answer in ("h", "hint"):
            try:
                hint = session.hint()
            except (SessionError, ValueError) as e:
                say(f"no hint: {e}")
                continue
            say(f"hint ({hint['evaluator']}), your expected "
                + ("points" if hint["points_per_unit"] else "return") + " (95%):")
            for v in hint["values"][:5]:
                say(f"  {v['label']:<32} {_amount(v['mean'], hint)}  "
                    f"[{_amount(v['low'], hint)}, {_amount(v['high'], hint)}]  {v['verdict']}")
            shown = min(shown, len(view["log"]))
            continue
        try:
            choice = int(answer)
        except ValueError:
            say(f"'{line.strip()}': type a move's number, h or q")
            continue
        if not 1 <= choice <= len(view["actions"]):
            say(f"{choice}: moves are 1..{len(view['actions'])}")
            continue
        try:
            session.act(view["actions"][choice - 1]["action"], view["turn"])
        except SessionError as e:
            say(str(e))


def review_text(review: dict, stdout: IO[str] | None = None) -> None:
    """A review in the terminal: each move from the seat's view, mistakes flagged."""
    out = stdout or sys.stdout
    for m in review["moves"]:
        flag = ""
        if m["mistake"]:
            mk = m["mistake"]
            flag = (f"   <- better: {mk['best']['label']} (cost {mk['cost']:.3f}, "
                    f"[{mk['interval'][0]:.3f}, {mk['interval'][1]:.3f}])")
        out.write(f"{m['index']:>4} {m['text']}{flag}\n")
    out.write(f"lost to mistakes: {review['lost']:.3f}\n")
