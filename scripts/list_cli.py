"""`cardarena list`: what a spec can name, without reading the source: the registered
games with every parameter, its default and range (games.registry); the bots with the
settings each declares (agents.bot_settings); the shipped bot files (bots/) with what
they were trained on. `cardarena schema GAME`: the JSON Schema of what one seat of a
game may see (games.view.view_schema), the format a page, a transcript and an engine read."""

from __future__ import annotations

import argparse
import inspect
import json
from pathlib import Path
from typing import Any

import pyspiel

from agents import SHIPPED_BOTS, bot_settings
from games import registry
from scripts.cli_checks import one_line

SECTIONS = ("games", "bots", "files", "presets")


def _shown(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else repr(value) if isinstance(value, str) else str(value)


def games_section() -> str:
    """Each registered game: its players, every parameter with default and range (as the game
    declares them, games.registry), its match, partnerships, strongest bot and tournament field."""
    lines = ["## Games (any OpenSpiel game string works too; ours are these)", ""]
    for entry in sorted(registry.registered(), key=lambda e: e.name):
        game_type = pyspiel.load_game(entry.example).get_type()
        lines.append(f"{entry.name}: {game_type.long_name}, {entry.players[0]} to {entry.players[1]} players; "
                     f"e.g. {entry.name}(key=value,...)")
        for param in sorted(entry.params, key=lambda p: p.name):
            lines.append(f"    {param.name:<20} default {_shown(param.default):<10} {param.accepts()}")
        if entry.match is not None:
            kind = "N deals" if entry.match.kind == "deals" else "a target of N points"
            lines.append(f"    match: {kind} (the table offers {', '.join(map(str, entry.match.choices))}; "
                         f"set for each deal: {', '.join(entry.match.sets) or 'nothing'})")
        partnerships = [f"{n} players {entry.sides(n)}" for n in range(entry.players[0], entry.players[1] + 1)
                        if entry.sides(n) != list(range(n))]
        if partnerships:
            lines.append(f"    sides: {'; '.join(partnerships)}")
        if entry.strongest:
            lines.append(f"    strongest measured bot: {entry.strongest} = {entry.presets.get(entry.strongest, '?')}")
        if entry.default_field:
            lines.append(f"    tournament field: {', '.join(entry.default_field)}")
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


def settings_lines(name: str, factory, game: pyspiel.Game) -> list[str]:
    """A bot's settings at `game`, as it declares them (agents.bot_settings): each with its
    type, default and help; for a factory from outside the toolkit that declares none, its
    keyword parameters with their defaults."""
    try:
        declared = bot_settings(name, game)
    except ValueError as e:             # a rule bot at a game that has none
        return [f"settings: none for {game.get_type().short_name} ({one_line(e)})"]
    if declared is None:
        parameters = list(inspect.signature(factory).parameters.values())[3:]
        named = [f"{p.name}={p.default}" for p in parameters if p.default is not p.empty]
        return [f"settings: {', '.join(named) or 'not declared'}"]
    if not declared:
        return ["settings: none"]
    return ["settings:"] + [f"    {p.name:<20} {p.type:<6} default {_shown(p.default):<10} {p.help}".rstrip()
                            for p in declared]


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
        lines += [f"    {line}" for line in settings_lines(name, factory, game)]
    lines += ["", "More on the search settings: search/bots.py's docstring and docs/search.md; neural: docs/neural.md."]
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


def registered_game(text: str) -> str:
    """An argparse type: a registered game's name (a game string's parameters are ignored)."""
    try:
        return registry.lookup(text).name
    except KeyError as e:
        raise argparse.ArgumentTypeError(e.args[0]) from None


def _schema(args: argparse.Namespace) -> None:
    from games.view import view_schema
    print(json.dumps(view_schema(args.game), indent=2, ensure_ascii=False))


def add_commands(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("list", help="the games and their parameters, the bots and their settings, the bot files",
                       description="What a game string or bot spec can name: our games with every parameter, "
                                   "its default and range; the bots with their settings; the shipped bot "
                                   "files with their training notes; the presets and the specs they stand for.")
    p.add_argument("what", nargs="*", metavar="{games,bots,files,presets}", help="the sections to show (default: all)")
    p.add_argument("--game", default=registry.default_game(),
                   help="the game whose bot settings are shown (default %(default)s)")
    p.set_defaults(func=_list)

    p = sub.add_parser("schema", help="the JSON Schema of what one seat of a game may see",
                       description="Prints the JSON Schema (draft 2020-12) of a game's seat view: the table's "
                                   "view less its session's fields, the engine protocol's turn `view`, each "
                                   "line's `view` of `cardarena show --view SEAT --json` (docs/play-api.md).")
    p.add_argument("game", type=registered_game, help="a registered game (`cardarena list games`)")
    p.set_defaults(func=_schema)
