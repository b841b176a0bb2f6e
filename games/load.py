"""The game a game string names, loaded with one clear line for anything wrong.

Below the harness, the records and the command line, which all load games from
text a user or a file gave: each refuses a bad string with the same words.
"""

from __future__ import annotations

from typing import Any

import pyspiel

from games.spec import parse_spec


def load_game(game: str) -> pyspiel.Game:
    """The game `game` names, as pyspiel loads it. Raises ValueError, one line,
    for a malformed string, an unknown game, a parameter the game does not have
    or of the wrong type (checked here first: OpenSpiel would print a line of
    its own before refusing), parameters the game refuses, or a game whose
    factory raises anything at all."""
    try:
        name, settings = parse_spec(game)
    except ValueError:
        raise ValueError(f"cannot load game {game!r}: malformed game string: expected name or "
                         f"name(key=value,...)") from None
    game_type = next((t for t in pyspiel.registered_games() if t.short_name == name), None)
    if game_type is None:
        raise ValueError(f"cannot load game {game!r}: unknown game {name!r}: `cardarena list games` shows "
                         f"ours, and any OpenSpiel game name works")
    spec = game_type.parameter_specification
    for key, value in settings.items():
        if key not in spec:
            raise ValueError(f"cannot load game {game!r}: {name} has no parameter {key!r} "
                             f"(it has {', '.join(sorted(spec)) or 'none'})")
        if not _parameter_fits(value, spec[key]):
            raise ValueError(f"cannot load game {game!r}: {key}={value!r} is not {_KIND_OF[type(spec[key])]}")
    try:
        return pyspiel.load_game(game)
    except Exception as e:      # pyspiel raises SpielError, our games ValueError, a game's factory anything
        raise ValueError(f"cannot load game {game!r}: {error_line(e)}") from None


_KIND_OF = {bool: "true or false", int: "a whole number", float: "a number", str: "text"}


def _parameter_fits(value: Any, default: Any) -> bool:
    """Whether a parsed game-string value has the type of the parameter's default."""
    if isinstance(default, bool) or isinstance(value, bool):
        return type(value) is type(default)
    if isinstance(default, float):
        return isinstance(value, (int, float))
    return isinstance(value, type(default))


def error_line(error: BaseException) -> str:
    """An error as one line: its words, prefixed by its type where that is not an
    error of bad input (a game's factory or a match format may raise anything)."""
    text = " ".join(str(error).split()) or type(error).__name__
    return text if type(error) in (ValueError, pyspiel.SpielError) or type(error).__name__ == "GameParameterError" \
        else f"{type(error).__name__}: {text}"
