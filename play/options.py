"""What a new game may be: the games and their parameters, the bots, and the check of a NewGame.

The games, their parameters (typed, with ranges and help), match formats, partnerships and
game-specific bots are what each game declares in the registry (games.registry); a value is
checked by the game's own rules (its registered `rules`), so a bad value is refused by the
same code that plays it, with its field named. Bot specs from the page may name
only built-in bots, bot files under bots/ (no `module:factory`, no path outside bots/) and the
engines the operator offered by name (`--engine NAME=CMD`, play/engines.py), never a command.
"""

from __future__ import annotations

import math
import re
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agents import SHIPPED_BOTS
from games import registry
from games.spec import parse_spec
from play.levels import cannot_play, default_bot, levels, playable

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

# The bots offered at every game: (spec, title). Each game adds its own (its registry entry's
# `bots`: the tuned and strongest bots measured there, titled with their measured strength).
BOTS = (("random", "Random"), ("rules", "Rule bot"),
        ("neural", "Neural (the shipped network)"),
        ("ismcts(seconds=1)", "ISMCTS search, 1 s a move"),
        ("ismcts(seconds=0.5,rollout=rules)", "ISMCTS search, rule-bot rollouts, 0.5 s a move"),
        ("pimc(worlds=20,seconds=1)", "PIMC search, 20 worlds, 1 s a move"))


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
    auto: bool = True                      # the human's moves with one legal action are played for it
    players: int = field(init=False)

    def __post_init__(self) -> None:
        self.players = num_players(self.game, self.params)

    def to_json(self) -> dict:
        return {"game": self.game, "params": self.params, "seat": self.seat,
                "bots": {str(s): b for s, b in sorted(self.bots.items())}, "match": self.match,
                "seed": self.seed, "time_limit": self.time_limit, "engines": dict(self.engines), "auto": self.auto}


def num_players(game: str, params: dict[str, Any]) -> int:
    """The number of players of `game` with these parameters."""
    return registry.lookup(game).num_players(params)


def param_specs(game: str) -> tuple[dict, ...]:
    """The player-chosen parameters of `game`: name, type, default, min/max or choices, help."""
    return tuple(p.to_json() for p in registry.lookup(game).chosen_params())


def game_options() -> list[dict]:
    """GameOption of every game (docs/play-api.md)."""
    out = []
    for entry in registry.registered():
        seats = list(range(entry.players[0], entry.players[1] + 1))
        partnerships = {str(n): entry.sides(n) for n in seats if entry.sides(n) != list(range(n))}
        out.append({"name": entry.name, "title": entry.title, "players": seats,
                    "params": list(param_specs(entry.name)),
                    "match": entry.match.to_json() if entry.match else None, "sides": partnerships})
    return out


def bot_options(engines: dict[str, Engine] | None = None) -> list[dict]:
    """BotOption of every offered bot: each game's levels first (named presets, titled with their
    measured Elo, `level` set), then the generic bots and the game's own, the operator's engines
    last (each with its command). `default_for` names the games whose default variant starts
    with it (a variant's own default: POST /api/levels)."""
    games = registry.names()
    defaults = {g: default_bot(g, g) for g in games}
    offered = [(level["preset"], level["title"], [entry.name], level)
               for entry in registry.registered() for level in levels(entry.name)]
    offered += [(spec, title, games, None) for spec, title in BOTS]
    offered += [(bot.spec, bot.title, [entry.name], None) for entry in registry.registered() for bot in entry.bots]
    return [{"spec": spec, "title": title, "games": list(only),
             "default_for": [g for g in only if defaults[g] == spec], **({"level": level} if level else {})}
            for spec, title, only, level in offered] + \
        [{"spec": e.name, "title": f"Engine {e.name}: {e.cmd}", "games": list(e.games), "default_for": [],
          "engine": e.cmd} for e in (engines or {}).values()]


def variant_levels(body: Any) -> dict[str, Any]:
    """POST /api/levels: for a game and its parameters (as a NewGame has them), the presets of
    its levels that can play that variant, why each other bot cannot, and the default bot."""
    import pyspiel
    if not isinstance(body, dict):
        raise FieldError("body", "the body must be a JSON object: {game, params}")
    game = body.get("game")
    if not isinstance(game, str) or getattr(registry.find(game), "name", None) != game:
        raise FieldError("game", f"game {shown(game)}: one of {', '.join(registry.names())}")
    params = check_params(game, body.get("params"))
    game_string = str(pyspiel.load_game(game, params))
    entry = registry.lookup(game)
    refused = {level.preset: cannot_play(entry.presets[level.preset], game_string) for level in entry.levels}
    return {"game": game, "playable": playable(game, game_string), "default": default_bot(game, game_string),
            "refused": {name: why for name, why in refused.items() if why is not None}}


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
            raise FieldError(f"params.{name}", f"unknown parameter {shown(name)} for {_title(game)}; known: {known}")
        out[name] = _coerce(specs[name], value)
    try:
        registry.lookup(game).rules(out)
    except ValueError as e:
        param = getattr(e, "param", None)
        raise FieldError(f"params.{param}" if param in specs else "params", str(e)) from None
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
            raise FieldError(field_name, f"engine {engine.name!r} did not accept hello at {_title(game)}; "
                                         f"it plays {', '.join(_title(g) for g in engine.games)}")
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


def _title(game: str) -> str:
    entry = registry.find(game)
    return entry.title if entry is not None else game


def check_match(game: str, match: Any) -> str | None:
    """A match of `game` the page may ask for ("deals=3", "target=2500"), or None: one deal."""
    if match is None or match == "":
        return None
    offer = registry.lookup(game).match
    if offer is None:
        raise FieldError("match", f"match {shown(match)}: {_title(game)} plays one deal at a time; send null")
    kind = offer.kind
    m = re.fullmatch(r"(deals|target)=(\d{1,6})", match.strip()) if isinstance(match, str) else None
    if not m or m.group(1) != kind:
        example = "deals=3" if kind == "deals" else "target=2500"
        raise FieldError("match", f"match {shown(match)}: {_title(game)} takes {kind}=N (e.g. {example}) or null")
    value = int(m.group(2))
    if kind == "deals" and not 1 <= value <= MAX_DEALS:
        raise FieldError("match", f"match {shown(match)}: deals must be in [1, {MAX_DEALS}]")
    if kind == "target" and value not in offer.choices:
        raise FieldError("match", f"match {shown(match)}: the target is one of "
                                  f"{', '.join(map(str, offer.choices))}")
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
    unknown = set(body) - {"game", "params", "seat", "bots", "match", "seed", "time_limit", "auto"}
    if unknown:
        raise FieldError(sorted(unknown)[0], f"unknown field(s) {sorted(unknown)} in NewGame")
    game = body.get("game")
    if not isinstance(game, str) or getattr(registry.find(game), "name", None) != game:
        raise FieldError("game", f"game {shown(game)}: one of {', '.join(registry.names())}")
    params = check_params(game, body.get("params"))
    players = num_players(game, params)
    seat = check_number(body, "seat", 0, 0, players - 1, True)
    time_limit = check_number(body, "time_limit", DEFAULT_TIME_LIMIT, 0.05, MAX_TIME_LIMIT, False)
    seed = check_number(body, "seed", None, 0, 2**63 - 1, True)
    if seed is None:
        seed = secrets.randbelow(2**31)
    match = check_match(game, body.get("match"))
    auto = body.get("auto", True)
    if not isinstance(auto, bool):
        raise FieldError("auto", f"auto={shown(auto)}: must be true or false (play moves with one legal action for you)")
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
    for s, spec in bots.items():
        why = None if engines and spec in engines else cannot_play(spec, game_string)
        if why is not None:
            can = ", ".join(level["level"] for level in levels(game)
                            if level["preset"] in playable(game, game_string))
            raise FieldError(f"bots.{s}", f"bot {shown(spec, 60)} cannot play these rules ({why}); "
                                          f"levels that can: {can or 'none'}")
    for s in range(players):
        if s != seat and s not in bots:
            bots[s] = default_bot(game, game_string)
    used = {b: engines[b].cmd for b in bots.values() if engines and b in engines}
    return GameSpec(game, params, seat, bots, match, seed, time_limit, pause, used, auto)
