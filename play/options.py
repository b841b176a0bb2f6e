"""What a new game may be: the games and their parameters, the bots, and the check of a NewGame.

The parameters and their ranges are read from the cores' own validation (games/params.py
messages name the range or the choices), so the page offers exactly what the rules accept and
a bad value is refused by the same code, with its field named. Bot specs from the page may name
only built-in bots, bot files under bots/ (no `module:factory`, no path outside bots/) and the
engines the operator offered by name (`--engine NAME=CMD`, play/engines.py), never a command.
"""

from __future__ import annotations

import math
import re
import secrets
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agents import SHIPPED_BOTS
from games.spec import parse_spec
from agents.strongest import STRONGEST
from play.views import TITLES

if TYPE_CHECKING:
    from play.engines import Engine

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_TIME_LIMIT = 2.0
MAX_TIME_LIMIT = 60.0
MAX_DEALS = 100
ALLOWED_BOTS = ("random", "rules", "neural", "ismcts", "pimc")
BUDGET_SETTINGS = {"seconds": 30.0, "iterations": 100_000, "worlds": 1000, "belief_candidates": 1000}
# Search settings whose value is itself a bot spec: checked by the same rules as the bot.
NESTED_BOT_SETTINGS = ("baseline", "rollout", "rollout_opponents", "model", "assume")
MAX_NESTING = 3

# Parameters a match sets for each deal: not the player's to choose.
MATCH_SET = {"python_page_one": (), "python_american_page_one": ("dealer", "scores", "deals_left"),
             "python_modern_canasta": ("score0", "score1", "first_player"),
             "python_classic_canasta": ("score0", "score1", "score2", "first_player")}
MATCHES = {"python_page_one": {"kind": "deals", "choices": [1, 2, 3, 5, 10], "default": 1},
           "python_american_page_one": {"kind": "deals", "choices": [1, 3, 5, 10], "default": 3},
           "python_modern_canasta": {"kind": "target", "choices": [2500, 5000, 7500, 8500, 10000],
                                     "default": 2500},
           "python_classic_canasta": {"kind": "target", "choices": [2500, 5000, 7500, 10000], "default": 5000,
                                      "defaults": {"3": 7500}}}     # ClassicCanastaMatch's, by player count
# The partnerships where they are not the seats: {players: each seat's side} (the form's seat hints).
PARTNERSHIPS = {"python_modern_canasta": {4: [0, 1, 0, 1]}, "python_classic_canasta": {4: [0, 1, 0, 1]}}
# (spec, title, the games it is offered at; () for every game). The titles beginning "Strongest" are
# each game's strongest fair bot as measured against the rule bot (agents/strongest.py); the
# tuned rule bot is the strategy lab's (docs/studies/canasta.md, round 7).
BOTS = (("random", "Random", ()), ("rules", "Rule bot", ()),
        ("neural", "Neural (the shipped network)", ()),
        ("ismcts(seconds=1)", "ISMCTS search, 1 s a move", ()),
        ("ismcts(seconds=0.5,rollout=rules)", "ISMCTS search, rule-bot rollouts, 0.5 s a move", ()),
        ("pimc(worlds=20,seconds=1)", "PIMC search, 20 worlds, 1 s a move", ()),
        (STRONGEST["python_page_one"],
         "Strongest: PIMC guided by the network (+30 Elo over the rule bot), about 0.2 s a move",
         ("python_page_one",)),
        (STRONGEST["python_american_page_one"],
         "Strongest: ISMCTS leaving the network's move on evidence (+27 Elo over the rule bot), about 0.15 s a move",
         ("python_american_page_one",)),
        ("rules(initial_meld=pile,new_meld_min=5,go_out=lead)",
         "Rule bot, tuned: waits for piles (+33 Elo over the rule bot)",
         ("python_modern_canasta",)),
        (STRONGEST["python_modern_canasta"],
         "Strongest: PIMC leaving the network's move on evidence (+193 Elo over the rule bot), about 0.15 s a move",
         ("python_modern_canasta",)))


class FieldError(ValueError):
    """A bad field of a request: `field` names it ("params.hand_size", "bots.2")."""

    def __init__(self, field_name: str, message: str):
        super().__init__(message)
        self.field = field_name


@dataclass
class GameSpec:
    """A validated NewGame."""

    game: str
    params: dict[str, Any]                 # the variant, without what a match sets
    seat: int
    bots: dict[int, str]                   # every other seat's bot spec
    match: str | None                      # "deals=3", "target=2500" or None (one deal)
    seed: int
    time_limit: float = DEFAULT_TIME_LIMIT
    pause: float = 0.6                     # seconds between bot moves, so a person can follow
    engines: dict[str, str] = field(default_factory=dict)    # the offered engines at its seats: name -> cmd
    players: int = field(init=False)

    def __post_init__(self) -> None:
        self.players = num_players(self.game, self.params)

    def to_json(self) -> dict:
        return {"game": self.game, "params": self.params, "seat": self.seat,
                "bots": {str(s): b for s, b in sorted(self.bots.items())}, "match": self.match,
                "seed": self.seed, "time_limit": self.time_limit, "engines": dict(self.engines)}


def _rules_class(game: str):
    if game == "python_page_one":
        from games.page_one.core import DEFAULT_PARAMS, PageOneRules
        return PageOneRules, DEFAULT_PARAMS
    if game == "python_american_page_one":
        from games.american_page_one.core import DEFAULT_PARAMS, AmericanPageOneRules
        return AmericanPageOneRules, DEFAULT_PARAMS
    if game == "python_classic_canasta":
        from games.classic_canasta.core import DEFAULT_PARAMS, ClassicRules
        return ClassicRules, DEFAULT_PARAMS
    from games.modern_canasta.core import DEFAULT_PARAMS, CanastaRules
    return CanastaRules, DEFAULT_PARAMS


def num_players(game: str, params: dict[str, Any]) -> int:
    if game == "python_modern_canasta":
        return 4
    return int(params.get("players", _rules_class(game)[1]["players"]))


def _probe(game: str, name: str, bad: Any) -> str:
    """The message the core's validation gives for a bad value of `name`."""
    cls, _ = _rules_class(game)
    try:
        cls.from_params({name: bad})
    except ValueError as e:
        return str(e)
    return ""


def _help_texts(game: str) -> dict[str, str]:
    """Each parameter's line in docs/rules/<game>.md: its range and the sentence it resolves."""
    path = ROOT / "docs" / "rules" / f"{game.removeprefix('python_')}.md"
    texts = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            m = re.match(r"^\|\s*`(\w+)`\s*\|([^|]*)\|([^|]*)\|(.*)\|\s*$", line)
            if m:
                texts.setdefault(m.group(1), f"{m.group(3).strip()}: {m.group(4).strip()}")
    return texts


@lru_cache(maxsize=None)
def param_specs(game: str) -> tuple[dict, ...]:
    """The player-chosen parameters of `game`: name, type, default, min/max or choices, help."""
    _, defaults = _rules_class(game)
    helps = _help_texts(game)
    out = []
    for name, default in defaults.items():
        if name in MATCH_SET[game]:
            continue
        spec: dict[str, Any] = {"name": name, "default": default, "help": helps.get(name, "")}
        if isinstance(default, bool):
            spec["type"] = "bool"
        elif isinstance(default, int):
            m = re.search(r"must be in \[(-?\d+), (-?\d+)\]", _probe(game, name, -10**12))
            spec.update(type="int", min=int(m.group(1)) if m else None, max=int(m.group(2)) if m else None)
        else:
            m = re.search(r"must be one of (.*)$", _probe(game, name, "\x00"))
            if m:
                spec.update(type="choice", choices=[c.strip() for c in m.group(1).split(",")])
            else:
                spec["type"] = "str"
        out.append(spec)
    return tuple(out)


def game_options() -> list[dict]:
    """GameOption of every game (docs/play-api.md)."""
    out = []
    for game, title in TITLES.items():
        specs = param_specs(game)
        players = next((s for s in specs if s["name"] == "players"), None)
        seats = list(range(players["min"], players["max"] + 1)) if players else [4]
        out.append({"name": game, "title": title, "players": seats, "params": list(specs),
                    "match": MATCHES[game],
                    "sides": {str(k): v for k, v in PARTNERSHIPS.get(game, {}).items()}})
    return out


@lru_cache(maxsize=None)
def neural_plays(game: str, game_string: str) -> bool:
    """Whether the shipped network can play this variant (it refuses other parameters)."""
    import pyspiel
    from agents import make_bot
    try:
        make_bot("neural", pyspiel.load_game(game_string), 0, 0)
        return True
    except (ValueError, OSError):
        return False


def bot_options(engines: dict[str, Engine] | None = None) -> list[dict]:
    """BotOption of every offered bot, the operator's engines last (each with its command)."""
    games = list(TITLES)
    return [{"spec": spec, "title": title, "games": list(only or games),
             "default_for": [g for g in games if spec == "neural" and neural_plays(g, g)]}
            for spec, title, only in BOTS] + \
        [{"spec": e.name, "title": f"Engine {e.name}: {e.cmd}", "games": list(e.games), "default_for": [],
          "engine": e.cmd} for e in (engines or {}).values()]


def default_bot(game: str, game_string: str) -> str:
    return "neural" if neural_plays(game, game_string) else "rules"


# ----------------------------------------------------------------- checks
def _coerce(spec: dict, value: Any) -> Any:
    """A parameter value from JSON (the page may send "4" or "true") as the core expects it."""
    kind, name = spec["type"], spec["name"]
    if kind == "bool":
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("true", "false"):
            return value.lower() == "true"
        raise FieldError(f"params.{name}", f"{name}={shown(value)}: must be true or false")
    if kind == "int":
        if isinstance(value, bool):
            raise FieldError(f"params.{name}", f"{name}={shown(value)}: must be an integer")
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, str):
            try:
                return int(value.strip())
            except ValueError:
                pass
        if not isinstance(value, int):
            raise FieldError(f"params.{name}", f"{name}={shown(value)}: must be an integer")
        return value
    if not isinstance(value, str):
        raise FieldError(f"params.{name}", f"{name}={shown(value)}: must be text")
    return value


def check_params(game: str, params: Any) -> dict[str, Any]:
    """The variant parameters, validated by the game's own rules; FieldError names the field."""
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise FieldError("params", "params must be an object of parameter values")
    specs = {s["name"]: s for s in param_specs(game)}
    out = {}
    for name, value in params.items():
        if name not in specs:
            known = ", ".join(specs) or "none"
            raise FieldError(f"params.{name}", f"unknown parameter {shown(name)} for {TITLES[game]}; known: {known}")
        out[name] = _coerce(specs[name], value)
    cls, _ = _rules_class(game)
    try:
        cls.from_params(out)
    except ValueError as e:
        message = str(e)
        m = re.match(r"^(\w+)=", message)
        raise FieldError(f"params.{m.group(1)}" if m and m.group(1) in specs else "params", message) from None
    return out


def check_bot(spec: Any, game: str, time_limit: float, field_name: str,
              engines: dict[str, Engine] | None = None, nesting: int = 0) -> str:
    """A bot spec the page may use: a built-in bot, its files under bots/, budgets within the
    limit, or an engine the operator offered, by its name. A setting that is itself a bot
    (`rollout=rules`) is checked the same way, at most MAX_NESTING deep."""
    if not isinstance(spec, str) or not spec.strip():
        raise FieldError(field_name, "a bot spec must be a non-empty string, e.g. 'rules'")
    if nesting > MAX_NESTING:
        raise FieldError(field_name, f"bot spec {shown(spec, 80)}: bots nested in settings more than "
                                     f"{MAX_NESTING} deep")
    engines = engines or {}
    if spec.strip() in engines:
        engine = engines[spec.strip()]
        if game not in engine.games:
            raise FieldError(field_name, f"engine {engine.name!r} did not accept hello at {TITLES[game]}; "
                                         f"it plays {', '.join(TITLES[g] for g in engine.games)}")
        return engine.name
    from agents.presets import expand
    try:
        spec = expand(spec)         # a preset: checked as the spec it stands for
    except ValueError as e:
        raise FieldError(field_name, str(e)) from None
    if ":" in spec.split("(")[0]:
        raise FieldError(field_name, f"bot spec {shown(spec, 80)}: module:factory bots cannot be named from the table")
    if spec.split("(")[0].strip() == "engine":
        offered = f"; offered: {', '.join(engines)}" if engines else ""
        raise FieldError(field_name, f"bot spec {shown(spec, 80)}: the table starts only the engines its operator "
                                     f"named (cardarena play --engine NAME=CMD), chosen by name{offered}")
    try:
        name, settings = parse_spec(spec)
    except ValueError as e:
        raise FieldError(field_name, str(e)) from None
    if name in engines:
        raise FieldError(field_name, f"bot spec {shown(spec, 80)}: the engine {name!r} takes no settings here (its "
                                     f"time limit is the table's)")
    if name not in ALLOWED_BOTS:
        offered = ", ".join((*ALLOWED_BOTS, *engines))
        raise FieldError(field_name, f"bot {shown(name)}: the table offers {offered}")
    for key, value in settings.items():
        if key in BUDGET_SETTINGS and isinstance(value, (int, float)) and not isinstance(value, bool):
            if not 0 < value <= BUDGET_SETTINGS[key] or (isinstance(value, float) and not math.isfinite(value)):
                raise FieldError(field_name, f"bot spec {shown(spec, 80)}: {key}={shown(value)} out of range "
                                             f"(0, {BUDGET_SETTINGS[key]:g}]")
            if key == "seconds" and value > time_limit:
                raise FieldError(field_name, f"bot spec {shown(spec, 80)}: seconds={value:g} is over the per-move "
                                             f"limit of {time_limit:g} s")
        if isinstance(value, str) and key in NESTED_BOT_SETTINGS:
            check_bot(value, game, time_limit, field_name, nesting=nesting + 1)
        elif isinstance(value, str) and key in ("path", "prior", "value", "belief") \
                and value not in ("shipped", "rules", "none"):
            bot_file(value, field_name)
        elif isinstance(value, str) and ("/" in value or "\\" in value or value.startswith(".")):
            raise FieldError(field_name, f"bot spec {shown(spec, 80)}: {key}={shown(value)} looks like a path; only "
                                         f"path=, prior=, value= and belief= may name a file, under bots/")
    return spec.strip()


def bot_file(value: str, field_name: str) -> Path:
    """A bot file named from the table: it must be a file under bots/."""
    path = Path(value)
    full = (ROOT / path if not path.is_absolute() else path).resolve()
    if SHIPPED_BOTS.resolve() not in full.parents:
        raise FieldError(field_name, f"bot file {shown(value)}: only files under bots/ may be named")
    if not full.is_file():
        raise FieldError(field_name, f"bot file {shown(value)}: no such file under bots/")
    return full


def check_match(game: str, match: Any) -> str | None:
    if match is None or match == "":
        return None
    kind = MATCHES[game]["kind"]
    m = re.fullmatch(r"(deals|target)=(\d{1,6})", match.strip()) if isinstance(match, str) else None
    if not m or m.group(1) != kind:
        example = "deals=3" if kind == "deals" else "target=2500"
        raise FieldError("match", f"match {shown(match)}: {TITLES[game]} takes {kind}=N (e.g. {example}) or null")
    value = int(m.group(2))
    if kind == "deals" and not 1 <= value <= MAX_DEALS:
        raise FieldError("match", f"match {shown(match)}: deals must be in [1, {MAX_DEALS}]")
    if kind == "target" and value not in MATCHES[game]["choices"]:
        raise FieldError("match", f"match {shown(match)}: the target is one of "
                                  f"{', '.join(map(str, MATCHES[game]['choices']))}")
    return f"{kind}={value}"


def shown(value: Any, most: int = 40) -> str:
    """`value` quoted for an error line, cut short: a request's value may be 60 KB of text or a
    4,000-digit number."""
    try:
        text = repr(value)
    except ValueError:                  # an int past Python's digit limit for str()
        text = "a number of over 4,300 digits"
    return text if len(text) <= most else text[:most - 1] + "…"


def check_number(body: dict, name: str, default: Any, lo: float, hi: float, integer: bool) -> Any:
    """`body[name]`, a number in [lo, hi] (a whole one if `integer`), or `default` when absent or
    null. Compared exactly, so a 400-digit integer is out of range, never an overflow."""
    value = body.get(name, default)
    if value is None:
        return default
    ok = not isinstance(value, bool) and isinstance(value, (int, float))
    if ok and isinstance(value, float):
        ok = math.isfinite(value) and (value.is_integer() or not integer)
    if not ok or not lo <= value <= hi:
        kind = "an integer" if integer else "a number"
        raise FieldError(name, f"{name}={shown(value)}: must be {kind} in [{lo:g}, {hi:g}]")
    return int(value) if integer else float(value)


def parse_new_game(body: Any, *, pause: float = 0.6, engines: dict[str, Engine] | None = None) -> GameSpec:
    """A NewGame body, validated field by field; `engines` are the operator's, chosen by name."""
    import pyspiel
    if not isinstance(body, dict):
        raise FieldError("body", "the body must be a JSON object (a NewGame)")
    unknown = set(body) - {"game", "params", "seat", "bots", "match", "seed", "time_limit"}
    if unknown:
        raise FieldError(sorted(unknown)[0], f"unknown field(s) {sorted(unknown)} in NewGame")
    game = body.get("game")
    if not isinstance(game, str) or game not in TITLES:
        raise FieldError("game", f"game {shown(game)}: one of {', '.join(TITLES)}")
    params = check_params(game, body.get("params"))
    players = num_players(game, params)
    seat = check_number(body, "seat", 0, 0, players - 1, True)
    time_limit = check_number(body, "time_limit", DEFAULT_TIME_LIMIT, 0.05, MAX_TIME_LIMIT, False)
    seed = check_number(body, "seed", None, 0, 2**63 - 1, True)
    if seed is None:
        seed = secrets.randbelow(2**31)
    match = check_match(game, body.get("match"))
    bots_in = body.get("bots")
    bots_in = {} if bots_in is None else bots_in
    if not isinstance(bots_in, dict):
        raise FieldError("bots", "bots must be an object: seat -> bot spec")
    bots: dict[int, str] = {}
    for key, spec in bots_in.items():
        try:
            s = int(key)
        except (TypeError, ValueError):
            raise FieldError(f"bots.{key}", f"bots: {shown(key)} is not a seat") from None
        if not 0 <= s < players or s == seat:
            raise FieldError(f"bots.{key}", f"bots: seat {s} is not a bot's seat (seats 0..{players - 1}, "
                                           f"the human at {seat})")
        bots[s] = check_bot(spec, game, time_limit, f"bots.{key}", engines)
    game_string = pyspiel.load_game(game, params).__str__()
    for s in range(players):
        if s != seat and s not in bots:
            bots[s] = default_bot(game, game_string)
    used = {b: engines[b].cmd for b in bots.values() if engines and b in engines}
    return GameSpec(game, params, seat, bots, match, seed, time_limit, pause, used)
