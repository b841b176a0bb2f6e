"""`cardarena list`: what a spec can name, without reading the source: our games
with every parameter, its default and range; the bots with their settings; the
shipped bot files (bots/) with what they were trained on."""

from __future__ import annotations

import argparse
import inspect
import json
import re
from pathlib import Path
from typing import Any

import pyspiel

from agents import SHIPPED_BOTS

OUR_GAMES = ("python_page_one", "python_american_page_one", "python_modern_canasta", "python_classic_canasta")
SECTIONS = ("games", "bots", "files", "presets")

# A value no parameter accepts, so that a game's own check says what it does accept.
_OUT_OF_RANGE = {int: -10**9, str: "\x00"}
_RANGE = re.compile(r"must be (?:an integer )?in (\[[^\]]*\])|must be one of (.*)$")
_PROBE_SETTING = "cardarena_list_probe"


def parameter_range(short_name: str, name: str, default: Any) -> str:
    """What `name` accepts, as the game's own validation states it (games/params.py)
    when given a value outside every range; `any` where the game checks nothing."""
    if isinstance(default, bool):
        return "true, false"
    probe = _OUT_OF_RANGE.get(type(default))
    if probe is None:
        return "any"
    try:
        pyspiel.load_game(short_name, {name: probe})
    except (pyspiel.SpielError, ValueError) as e:
        found = _RANGE.search(str(e))
        if found:
            return found.group(1) or found.group(2).strip()
    return "any"


def games_section() -> str:
    """Each of our games: its players and every parameter with default and range."""
    lines = ["## Games (any OpenSpiel game string works too; ours are these)", ""]
    for game_type in pyspiel.registered_games():
        if game_type.short_name not in OUR_GAMES:
            continue
        lines.append(f"{game_type.short_name}: {game_type.long_name}, {game_type.min_num_players} to "
                     f"{game_type.max_num_players} players; e.g. {game_type.short_name}(key=value,...)")
        for name, default in sorted(game_type.parameter_specification.items()):
            shown = str(default).lower() if isinstance(default, bool) else repr(default) \
                if isinstance(default, str) else default
            lines.append(f"    {name:<20} default {shown!s:<10} {parameter_range(game_type.short_name, name, default)}")
        lines.append("")
    lines.append("Every parameter and rules decision: docs/rules/<game>.md.")
    return "\n".join(lines)


def _description(name: str, factory) -> list[str]:
    """What a bot is: its example specs with the text beside them in its module's
    docstring (`ismcts(iterations=1000)   information-set MCTS, ...`), else the
    docstring's first line."""
    module_doc = inspect.getdoc(inspect.getmodule(factory)) or ""
    examples = []
    for line in module_doc.splitlines():
        example, _, what = line.strip().partition("  ")
        if example.startswith(f"{name}(") and what.strip():
            examples.append(f"{example:<36} {what.strip()}")
    return examples or [module_doc.split("\n")[0]]


def bot_settings(name: str, factory, game: pyspiel.Game) -> str:
    """A bot's settings for `game`: the factory's keyword parameters with their
    defaults, or, for a factory taking **settings, the names it lists when it
    refuses one it does not know."""
    parameters = list(inspect.signature(factory).parameters.values())[3:]
    if not any(p.kind is p.VAR_KEYWORD for p in parameters):
        named = [f"{p.name}={p.default}" for p in parameters if p.default is not p.empty]
        return ", ".join(named) or "none"
    from agents import make_bot
    try:
        make_bot(f"{name}({_PROBE_SETTING}=1)", game, 0, 0)
    except ValueError as e:
        if "unexpected keyword argument" in str(e):
            return "none"
        found = re.search(r"(?:known|settings): (.*)$", str(e))
        if found:
            return found.group(1).strip()
        return f"none for {game.get_type().short_name} ({e})"
    except Exception as e:          # a registered factory may raise anything: the listing goes on
        return f"not known: its factory fails ({type(e).__name__}: {' '.join(str(e).split())})"
    return "any"


def bots_section(game_string: str) -> str:
    """Every registered bot: what it is and its settings at `game_string`."""
    from agents import available_bots, bot_factory
    from scripts.cli_checks import load_game
    game = load_game(game_string)
    lines = [f"## Bots: specs name or name(key=value,...); settings shown for {game}", ""]
    for name in available_bots():
        factory = bot_factory(name)
        lines.append(f"{name}")
        lines += [f"    {line}" for line in _description(name, factory)]
        lines.append(f"    settings: {bot_settings(name, factory, game)}")
    lines += ["", "Search settings: search/bots.py's docstring and docs/search.md; neural: docs/neural.md."]
    return "\n".join(lines)


def bot_file_notes(path: Path) -> dict[str, Any]:
    """A bot file's game and training notes, read from its safetensors header
    (nothing is loaded or run)."""
    from safetensors import safe_open
    with safe_open(str(path), framework="numpy") as f:
        metadata = f.metadata() or {}
    return {"game": metadata.get("game", "?"), "training": json.loads(metadata.get("training", "{}"))}


def files_section(bots_dir: Path = SHIPPED_BOTS) -> str:
    """The shipped bot files, with what they were trained on and how."""
    lines = [f"## Bot files in {bots_dir} (play one with neural(path=FILE); `neural` alone plays "
             f"bots/<game>.safetensors; <game>.<n>p.value and .belief are the value and belief "
             f"networks, docs/networks.md)", ""]
    for path in sorted(bots_dir.rglob("*.safetensors")):
        notes = bot_file_notes(path)
        training = dict(notes["training"])
        config = training.pop("config", {})
        lines.append(f"{path.relative_to(bots_dir.parent)}: {notes['game']}")
        described = [f"{key} {training.pop(key)}" for key in ("method", "games", "minutes") if key in training]
        lines.append(f"    trained: {', '.join(described) or 'no notes'}")
        if config:
            lines.append(f"    settings: {', '.join(f'{k}={v}' for k, v in sorted(config.items()))}")
        if training:
            lines.append(f"    notes: {json.dumps(training, sort_keys=True)}")
    return "\n".join(lines)


def _list(args: argparse.Namespace) -> None:
    from agents.presets import listing
    parts = {"games": games_section, "bots": lambda: bots_section(args.game), "files": files_section,
             "presets": listing}
    unknown = [name for name in args.what if name not in parts]
    if unknown:
        raise ValueError(f"no section {unknown[0]!r}; choose from {', '.join(SECTIONS)}")
    print("\n\n".join(parts[name]() for name in (args.what or SECTIONS)))


def add_commands(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("list", help="the games and their parameters, the bots and their settings, the bot files",
                       description="What a game string or bot spec can name: our games with every parameter, "
                                   "its default and range; the bots with their settings; the shipped bot "
                                   "files with their training notes; the presets and the specs they stand for.")
    p.add_argument("what", nargs="*", metavar="{games,bots,files,presets}", help="the sections to show (default: all)")
    p.add_argument("--game", default="python_page_one(players=4)",
                   help="the game whose bot settings are shown (default %(default)s)")
    p.set_defaults(func=_list)
