"""docs/protocol/<game>.md: each registered game's part of the engine protocol, generated.

`python -m scripts.protocol_docs` writes one page per registered game from what the game
declares (games.registry: its parameters, player counts, sides, match, the words of its seat
view; its pyspiel game type: utility, returns' bounds, chance outcomes) and from the words it
says in play: every form of its action words and of the events a seat sees (its
information-state lines), collected over seeded deals of every player count, random and
rule-bot play, with cards, ranks, seats and numbers written as placeholders. What each zone's
text says and how each event changes the table are the game's own words, declared beside the
code that makes them (its `ViewShape.zone_texts` and `events`, games/view.py): an event said in
play, or a zone, that the game does not describe stops the generator with its name, so a new
line cannot reach the protocol undocumented. `--check` writes nothing and exits 1 naming the
pages that differ from what the code gives now (a test runs it, so the pages never drift from
the games).
"""

from __future__ import annotations

import argparse
import random
import re
import sys
from pathlib import Path

import pyspiel

import games  # noqa: F401  (registers the games)
from games import registry
from games.cards import SUIT_SYMBOLS
from games.protocol import CHANCE
from games.view import FRENCH_RANKS

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "protocol"
DEALS = 4                   # seeded deals per player count and kind of play
MAX_DECISIONS = 600         # a deal's decisions looked at, at most (a long Canasta hand says nothing new after)

_RANKS = "|".join(sorted(set(FRENCH_RANKS) | {"T", "3r", "3b"}, key=len, reverse=True))
_CARD = re.compile(rf"(?<!\S)(?:{_RANKS})[{''.join(SUIT_SYMBOLS)}](?=[\s,:)]|$)")
_RANK = re.compile(rf"(?<!\S)(?:{_RANKS})(?=[\s,:)]|$)")
_JOKER = re.compile(rf"(?<!\S)Jk\d(?:=[{''.join(SUIT_SYMBOLS)}])?(?=[\s,:)]|$)")
_SEAT = re.compile(r"\bp\d+\b")
_NUMBER = re.compile(r"(?<![\w<])[-+]?\d+(?:\.\d+)?(?![\w♠♥♦♣>])")
PLACEHOLDERS = {"<card>": "a card: its rank (2-10, J, Q, K, A; the action and event words of Page One "
                          "write T for ten, its view's `card.text` 10) and its suit (♠ ♥ ♦ ♣)",
                "<joker>": "a Page One joker, Jk1 or Jk2; as it is played or led, with the suit it "
                           "stands for: Jk1=♠ (the view's `card.suit` is null)",
                "<rank>": "a rank: 4-10, J, Q, K, A, 2, Jk (a joker), 3r / 3b (a red / black three)",
                "<seat>": "a seat: p0, p1, ...", "<n>": "a number",
                "...": "the placeholder before it, once or more, space-separated"}


def shape(text: str) -> str:
    """Words with their cards, ranks, seats and numbers as placeholders (runs of cards as one)."""
    text = re.sub(r"\b\d+ players\b", "<n> players", text)
    text = _JOKER.sub("<joker>", text)
    text = _CARD.sub("<card>", text)
    text = _RANK.sub("<rank>", text)
    text = _SEAT.sub("<seat>", text)
    text = _NUMBER.sub("<n>", text)
    text = re.sub(r"<card>(?: <card>)+", "<card> ...", text)
    return re.sub(r"<rank>(?: <rank>)+", "<rank> ...", text)


def _game_strings(entry: registry.GameEntry) -> list[str]:
    """Every player count, then the example game with each option the game declares turned
    away from its default (each other choice, a flag flipped, a small count at its top), and
    with every flag on at once: an option's own words (American Page One's dobon) are said
    only where it is on."""
    lo, hi = entry.players
    if entry.param("players") is None:
        strings = [entry.example]
    else:
        strings = [f"{entry.name}(players={n})" for n in range(lo, hi + 1)]
    flags = []
    for p in entry.params:
        if p.name == "players":
            continue
        if p.type == "bool":
            values = [not p.default]
            flags.append(p.name)
        elif p.type == "choice":
            values = [c for c in p.choices if c != str(p.default)]
        elif p.type == "int" and p.min is not None and p.max is not None and p.max - p.min <= 4:
            values = [int(p.max)] if p.max != p.default else []
        else:
            values = []
        strings += [_with(entry.example, p.name, v) for v in values]
    if len(flags) > 1:
        text = entry.example
        for name in flags:
            text = _with(text, name, True)
        strings.append(text)
    return [text for text in strings if _loads(text)]


def _loads(game_string: str) -> bool:
    """Whether the game takes these options together (one rank cannot both skip and reverse)."""
    try:
        pyspiel.load_game(game_string)
    except (pyspiel.SpielError, ValueError):
        return False
    return True


def _with(game_string: str, name: str, value: object) -> str:
    """`game_string` with parameter `name` set to `value` (added, or put in place of its own)."""
    word = ("true" if value else "false") if isinstance(value, bool) else str(value)
    base, _, rest = game_string.partition("(")
    params = [p for p in rest.rstrip(")").split(",") if p and p.split("=")[0] != name]
    return f"{base}({','.join(params + [f'{name}={word}'])})"


def collect(entry: registry.GameEntry) -> tuple[set[str], set[str]]:
    """Every form of action words and of event lines said in seeded deals of every player count."""
    from agents import make_bot
    actions: set[str] = set()
    events: set[str] = set()
    for text in _game_strings(entry):
        game = pyspiel.load_game(text)
        n = game.num_players()
        for deal in range(DEALS):
            for ruled in (False, True):
                rng = random.Random(deal)
                bots = [make_bot("rules", game, s, deal) for s in range(n)] if ruled else None
                state = game.new_initial_state()
                decisions = 0
                while not state.is_terminal() and decisions < MAX_DECISIONS:
                    if state.is_chance_node():
                        ids, weights = zip(*state.chance_outcomes())
                        state.apply_action(rng.choices(ids, weights)[0])
                        continue
                    player = state.current_player()
                    legal = state.legal_actions(player)
                    actions.update(shape(state.action_to_string(player, a)) for a in legal)
                    state.apply_action(bots[player].step(state) if ruled else rng.choice(legal))
                    decisions += 1
                for seat in range(n):
                    events.update(shape(line) for line in state.information_state_string(seat).split("\n")[1:])
    return actions, events


def _chance_words(entry: registry.GameEntry) -> list[tuple[int, str]]:
    """Each chance outcome id of a seeded random deal of the example game, with the words it
    has at the chance nodes where it came up (one id means a leader at one node, a card at another)."""
    game = pyspiel.load_game(entry.example)
    state = game.new_initial_state()
    seen: dict[int, set[str]] = {}
    rng = random.Random(0)
    while not state.is_terminal():
        if state.is_chance_node():
            for a, _p in state.chance_outcomes():
                seen.setdefault(a, set()).add(_SEAT.sub("<seat>", state.action_to_string(CHANCE, a)))
            ids, weights = zip(*state.chance_outcomes())
            state.apply_action(rng.choices(ids, weights)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return [(a, " / ".join(sorted(words))) for a, words in sorted(seen.items())]


class Undeclared(ValueError):
    """A zone or an event the game's view shape does not describe (games.view.ViewShape)."""


def _cell(text: str) -> str:
    """Text for a Markdown table cell (a pipe escaped, in a code span too: GitHub's tables split on it)."""
    return text.replace("|", "\\|")


def _zone_texts(entry: registry.GameEntry) -> list[tuple[str, str]]:
    """Each zone pattern the game declares, with what its text and cards say."""
    shape_ = entry.view_shape
    texts = dict(shape_.zone_texts)
    missing = [z for z in shape_.zones if z not in texts]
    if missing:
        raise Undeclared(f"{entry.name}: zones without a description in its ViewShape.zone_texts: "
                         + ", ".join(missing))
    return [(z, texts[z]) for z in shape_.zones]


def _event_effects(entry: registry.GameEntry, seen: set[str]) -> list[tuple[str, str]]:
    """Every event form the game declares, in its order, with how it changes the table; an event
    seen that the game does not describe is an error (a new line said without saying what it does)."""
    declared = dict(entry.view_shape.events if entry.view_shape else ())
    missing = sorted(seen - set(declared))
    if missing:
        raise Undeclared(f"{entry.name}: events without a description in its ViewShape.events: "
                         + "; ".join(missing))
    return list(declared.items())


def page(entry: registry.GameEntry) -> str:
    """The game's page, in Markdown."""
    game = pyspiel.load_game(entry.example)
    kind = game.get_type()
    actions, events = collect(entry)
    lo, hi = entry.players
    out = [f"# {entry.title} in the engine protocol (`{entry.name}`)", "",
           "Generated by `python -m scripts.protocol_docs` from the game's declarations and its play; "
           "do not edit (a test runs `--check`). The protocol itself: [docs/engine_protocol.md]"
           "(../engine_protocol.md); the rules: "
           f"[docs/rules/{entry.name.removeprefix('python_')}.md](../rules/{entry.name.removeprefix('python_')}.md); "
           "the network's tensors: [tensors.md](tensors.md).", "",
           "## Players and sides", "",
           f"{lo} to {hi} players. Each seat's side (partners share one), by the number of players "
           "(the `deal` message's `sides`):", "", "| players | sides by seat |", "|---|---|"]
    out += [f"| {n} | {entry.sides(n)} |" for n in range(lo, hi + 1)]
    out += ["", "## Returns", "",
            f"Utility: {kind.utility.name.lower().replace('_', '-')}; each deal's returns lie in "
            f"[{game.min_utility():g}, {game.max_utility():g}] (the example, `{entry.example}`)."]
    if entry.points_per_unit:
        out.append(f"One unit of the returns is {entry.points_per_unit:g} game points; a side's partners "
                   "get the same return.")
    else:
        out.append("The returns are the game's own scale, not points (the rules page says how a deal is scored).")
    if entry.match is not None:
        sets = ", ".join(f"`{p}`" for p in entry.match.sets) or "none"
        out.append(f"A match is made of deals ({entry.match.kind}); the parameters a match sets at each deal, "
                   f"the standing the engine reads in the `deal` message: {sets}.")
    out += ["", "## Parameters", "", "The `deal` message's `parameters`:", "",
            "| name | type | default | what |", "|---|---|---|---|"]
    for p in entry.params:
        accepted = p.accepts() if hasattr(p, "accepts") else p.type
        out.append(f"| `{p.name}` | {accepted} | `{p.default}` | {p.help} |")
    shape_ = entry.view_shape
    out += ["", "## The seat view", "",
            f"The turn's `view`: its JSON Schema is `cardarena schema {entry.name}` (games/view.py `view_schema`)."]
    if shape_ is not None:
        out += ["Its words:", "", f"- card ranks: {' '.join(shape_.ranks)}",
                f"- action kinds (`legal[].kind`): {', '.join(shape_.kinds)}",
                f"- zones (patterns): {', '.join(f'`{z}`' for z in shape_.zones)}",
                f"- score lines: {', '.join(shape_.score_lines) or 'none'}"]
        if shape_.notes:
            out.append(f"- player notes (patterns): {', '.join(f'`{n}`' for n in shape_.notes)}")
        out += ["", "The zones (`zones[]`, in display order; a zone whose pattern names a side or a seat comes "
                "once for each), and what each one's `text` and `cards` say:", "",
                "| zone (`name`, a pattern) | its `text` and `cards` |", "|---|---|"]
        out += [f"| `{_cell(z)}` | {_cell(text)} |" for z, text in _zone_texts(entry)]
    out += ["", "## Action words", "",
            "A legal action's `text` (the words a version-2 reply may send instead of the id), in every "
            "form the game said over seeded deals of each player count; placeholders:", ""]
    out += [f"- `{k}`: {v}" for k, v in PLACEHOLDERS.items()]
    out += ["", "```"] + sorted(actions) + ["```", "", "## Events", "",
            "An event's `text`: a line of the seat's information state (after its hand), in every form "
            "seen and every form the game declares; `<seat>` at the start is the event's `seat`. Beside "
            "each, how it changes the table: what a seat that keeps its own picture of the table updates.",
            "", "| event | how it changes the table |", "|---|---|"]
    out += [f"| `{_cell(e)}` | {_cell(effect)}{'' if e in events else ' (not said in the seeded deals)'} |"
            for e, effect in _event_effects(entry, events)]
    chance = _chance_words(entry)
    out += ["", "## The world's encoding", "",
            "A `world` (asked at hello) is a list of action ids from the deal's start, chance outcomes "
            "included: a player action's id is its `legal[].action`; a chance outcome's id, with its "
            "words (the card dealt or drawn):", "", "| id | words |", "|---|---|"]
    out += [f"| {a} | {w} |" for a, w in chance]
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a page differs")
    args = parser.parse_args(argv)
    stale = []
    for entry in registry.registered():
        path = OUT / f"{entry.name.removeprefix('python_')}.md"
        try:
            text = page(entry)
        except Undeclared as e:
            print(f"protocol pages: {e}", file=sys.stderr)
            return 1
        if args.check:
            if not path.exists() or path.read_text() != text:
                stale.append(str(path.relative_to(ROOT)))
        else:
            OUT.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    if stale:
        print(f"protocol pages out of date (run python -m scripts.protocol_docs): {', '.join(stale)}",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
