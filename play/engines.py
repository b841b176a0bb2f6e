"""Engines at the table: the programs the operator names with `cardarena play --engine NAME=CMD`.

The page may choose an engine only by the NAME the operator gave it; the server then makes
`engine(cmd=CMD)` (agents/engine.py) with the table's per-move limit as its `time_limit`. A page
can never name a command of its own: a raw `engine(cmd=...)` spec is refused (options.check_bot),
so the programs the server may start are exactly the ones on its command line. Each engine is
said hello to at start for the games the table offers, so a bad command stops the server with one
line, and the page lists the engine only for the games whose hello it accepted.
"""

from __future__ import annotations

import re
import shlex
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import pyspiel

import games as _games  # noqa: F401  (registers the games the hello loads)

_NAME = re.compile(r"[A-Za-z_][\w-]*")


@dataclass(frozen=True)
class Engine:
    """An engine the operator offers: its name at the table, its command, the games it said hello to."""

    name: str
    cmd: str
    games: tuple[str, ...] = ()

    def spec(self, time_limit: float) -> str:
        """The bot spec the engine plays as, for the record (its command and the table's limit)."""
        cmd = f'"{self.cmd}"' if any(c in self.cmd for c in ",()[]") and '"' not in self.cmd else self.cmd
        return f"engine(cmd={cmd},time_limit={time_limit:g})"


def reserved_names() -> set[str]:
    """Names an engine may not take: every built-in bot's, and the human's label."""
    from agents import BOT_FACTORIES
    from play.options import ALLOWED_BOTS
    return set(BOT_FACTORIES) | set(ALLOWED_BOTS) | {"human"}


def parse_engines(items: list[str]) -> dict[str, Engine]:
    """The `--engine NAME=CMD` values; ValueError names a bad one."""
    engines: dict[str, Engine] = {}
    reserved = reserved_names()
    for item in items:
        name, sep, cmd = item.partition("=")
        name, cmd = name.strip(), cmd.strip()
        if not sep or not name or not cmd:
            raise ValueError(f"--engine {item!r}: expected NAME=CMD, e.g. --engine longsuit=./longsuit")
        if not _NAME.fullmatch(name):
            raise ValueError(f"--engine {item!r}: the name {name!r} must be letters, digits, _ or - "
                             f"(starting with a letter or _)")
        if name in reserved:
            raise ValueError(f"--engine {item!r}: {name!r} is a built-in bot's name; give the engine another")
        if name in engines:
            raise ValueError(f"--engine {item!r}: the name {name!r} is given twice")
        try:
            argv = shlex.split(cmd)
        except ValueError as e:
            raise ValueError(f"--engine {item!r}: the command does not split ({e})") from None
        if not argv:
            raise ValueError(f"--engine {item!r}: the command is empty")
        engines[name] = Engine(name, cmd)
    return engines


def _hello(cmd: str, game_name: str, time_limit: float) -> str | None:
    """None when the engine answers hello at `game_name` (its default variant), else why not.
    The process goes back to agents.engine's pool, for the first game to take."""
    from agents.engine import EngineBot
    try:
        bot = EngineBot(pyspiel.load_game(game_name), 0, 0, cmd, time_limit)
    except OSError as e:
        return f"cannot start it ({e.strerror or e})"
    except ValueError as e:
        return str(e)
    del bot
    return None


def probe_engines(engines: dict[str, Engine], games: list[str], time_limit: float) -> dict[str, Engine]:
    """Each engine with the games whose hello it accepted; ValueError for one that accepts none."""
    cases = [(e, g) for e in engines.values() for g in games]
    with ThreadPoolExecutor(max(1, min(8, len(cases)))) as pool:
        answers = list(pool.map(lambda case: _hello(case[0].cmd, case[1], time_limit), cases))
    out = {}
    for engine in engines.values():
        why = {g: a for (e, g), a in zip(cases, answers) if e is engine}
        played = tuple(g for g in games if why[g] is None)
        if not played:
            raise ValueError(f"--engine {engine.name}={engine.cmd}: {why[games[0]]}")
        out[engine.name] = Engine(engine.name, engine.cmd, played)
    return out
