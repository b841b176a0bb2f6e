"""The table's words for the person at it: its own seat is "you" in the log, the review and the
status line (never "p0" beside "you"), and the moves the table played for it (its only legal
action) are said once, in one log line, instead of one line each.

The rules cores write every line in the third person about a numbered seat ("p0 plays 10♠",
"p2 shows p0 its hand"); `yours` turns the person's own lines into the second person. Only the
person's seat is rewritten: a review of a tournament's game (every seat a bot) keeps "p0".
"""

from __future__ import annotations

import re
from typing import Any

from games.view import notation, seat_log

_IRREGULAR = {"is": "are", "has": "have", "does": "do", "goes": "go", "dealt": "were dealt"}
_SIBILANT = re.compile(r"(?:ss|sh|ch|x|z)es$")
FORCED_MARK = "\x00forced"          # stands in the raw log for the moves played for the person


def _second_person(verb: str) -> str:
    """A core's third-person verb ("plays", "passes", "is") as "you" say it ("play", "pass", "are")."""
    if verb in _IRREGULAR:
        return _IRREGULAR[verb]
    if _SIBILANT.search(verb):
        return verb[:-2]
    if verb.endswith("s") and not verb.endswith("ss"):
        return verb[:-1]
    return verb


def yours(text: str, seat: int) -> str:
    """`text` with seat `seat` said as "you": "p0 plays 10♠" -> "you play 10♠", "p0 withdraws
    its initial meld" -> "you withdraw your initial meld", "p2 shows p0 its hand" -> "p2 shows
    you its hand", "Known in p0's hand" -> "Known in your hand"."""
    me = f"p{seat}"
    m = re.match(rf"{me} (\S+)(.*)$", text, re.S)
    if m:
        rest = re.sub(r"\bits\b", "your", m.group(2))
        rest = re.sub(r"\band (\w+s)\b", lambda v: "and " + _second_person(v.group(1)), rest)
        text = f"you {_second_person(m.group(1))}{rest}"
    text = re.sub(rf"\b{me}'s\b", "your", text)
    return re.sub(rf"\b{me}\b", "you", text)


def forced_words(lines: list[str], seat: int) -> str:
    """The one log line for the moves the table played for the person: how many, and each kind
    once with its count ("played for you, your only move each time (4): do not call dobon ×3,
    draw from the stock")."""
    counts: dict[str, int] = {}
    for line in lines:
        said = yours(notation(line), seat)
        said = said[len("you "):] if said.startswith("you ") else said
        counts[said] = counts.get(said, 0) + 1
    kinds = ", ".join(k if n == 1 else f"{k} ×{n}" for k, n in counts.items())
    return f"played for you, your only move each time ({len(lines)}): {kinds}"


class _Lines:
    """A rules core's information state for one seat with some of its lines replaced: what
    `seat_log` reads (only `information_state_string`)."""

    def __init__(self, text: str):
        self.text = text

    def information_state_string(self, seat: int) -> str:
        return self.text


def table_log(core: Any, seat: int, forced: list[int]) -> list[dict]:
    """The seat's log as the table shows it (games.view.seat_log's, from the seat's own
    information state only): the lines of the moves played for the person (`forced`: their
    places among the information state's lines) gathered into one line, at the place of the
    latest of them, and the person's seat said as "you"."""
    lines = core.information_state_string(seat).split("\n")
    gone = sorted(i for i in set(forced) if 0 <= i < len(lines))
    said = [lines[i] for i in gone]
    if gone:
        skip, last = set(gone), gone[-1]
        lines = [FORCED_MARK if i == last else line for i, line in enumerate(lines) if i not in skip or i == last]
    log = seat_log(_Lines("\n".join(lines)), seat)
    for entry in log:
        if entry["text"] == notation(FORCED_MARK):
            entry.update(seat=seat, text=forced_words(said, seat))
        else:
            entry["text"] = yours(entry["text"], seat)
    return log
