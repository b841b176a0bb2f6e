"""What a tournament is: the game, the agents and every setting that changes its
results. Stored with the results, so that running the same command again
resumes it and a different one is refused rather than mixed in."""

from __future__ import annotations

import hashlib
import importlib
import re
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Sequence

import pyspiel

import games  # noqa: F401  (registers our games)
from agents import BOT_FACTORIES, SHIPPED_BOTS, bot_file_location, make_bot, parse_spec
from agents.presets import expand
from eval.schedule import Sides, check_sides, format_sides
from games import registry
from games.load import error_line, load_game
from games.protocol import MatchFormat



_NAMED = re.compile(r"^\s*([A-Za-z_][\w.-]*)\s*=(.*)$", re.S)


def split_agent(arg: str) -> tuple[str, str]:
    """"fast=ismcts(iterations=200)" -> ("fast", "ismcts(iterations=200)"); an agent
    without a name is named by its spec. A preset is named by its name and stored as
    the spec it stands for (agents/presets.py), so the results hold what was played.
    Raises ValueError for a malformed spec."""
    m = _NAMED.match(arg)
    name, spec = (m.group(1), m.group(2).strip()) if m else (arg.strip(), arg.strip())
    spec = expand(spec)
    parse_spec(spec)
    return name, spec


def parse_agents(args: Sequence[str]) -> tuple[tuple[str, str], ...]:
    """The agents as (name, spec), sorted by name. Raises ValueError for a
    malformed spec, a name given twice or fewer than two agents."""
    agents: dict[str, str] = {}
    for arg in args:
        name, spec = split_agent(arg)
        if name in agents:
            raise ValueError(f"agent name {name!r} given twice; name each agent, e.g. "
                             f"--agent a={spec} --agent b={spec}")
        agents[name] = spec
    if len(agents) < 2:
        raise ValueError(f"a tournament needs at least two agents, got {len(agents)}")
    return tuple(sorted(agents.items()))


def parse_teams(text: str) -> Sides:
    """"0,2 1,3" -> ((0, 2), (1, 3))."""
    try:
        return tuple(tuple(int(s) for s in side.split(",")) for side in text.split())
    except ValueError:
        raise ValueError(f"bad teams {text!r}: expected seat lists like '0,2 1,3'") from None


def register_bots(bot_modules: Sequence[tuple[str, str]]) -> None:
    """Adds `name -> "module:factory"` entries to agents.BOT_FACTORIES (bots that
    live outside this package), refusing to redefine an existing name."""
    for name, target in bot_modules:
        if BOT_FACTORIES.get(name, target) != target:
            raise ValueError(f"bot {name!r} is already {BOT_FACTORIES[name]!r}; cannot register {target!r}")
        if ":" not in target:
            raise ValueError(f"bot {name!r}: {target!r} should be module:factory")
        BOT_FACTORIES[name] = target


@dataclass(frozen=True)
class TournamentConfig:
    """A tournament's settings; everything but `deals` is its identity.

    Build one with `TournamentConfig.create`, which checks every field and puts
    it in canonical form (the game's full parameter string, agents sorted by
    name), so that the same tournament always compares equal.
    """
    game: str
    agents: tuple[tuple[str, str], ...]
    deals: int
    seed: int = 0
    duplicate: bool = True
    teams: Sides | None = None
    mixed_partners: bool = False
    match: str | None = None
    time_limit: float | None = None
    bot_modules: tuple[tuple[str, str], ...] = ()
    keep_history: bool = True      # store every game's actions (not part of the identity)

    @classmethod
    def create(cls, game: str, agents: Sequence[str], deals: int, seed: int = 0, *,
               duplicate: bool = True, teams: Sides | str | None = None,
               mixed_partners: bool = False, match: str | None = None,
               time_limit: float | None = None,
               bot_modules: Sequence[tuple[str, str]] = (), keep_history: bool = True) -> "TournamentConfig":
        """Checks the settings; raises ValueError naming the first problem."""
        if deals < 1:
            raise ValueError(f"deals must be at least 1, got {deals}")
        if time_limit is not None and time_limit <= 0:
            raise ValueError(f"time limit must be positive, got {time_limit}")
        bot_modules = tuple(sorted(bot_modules))
        register_bots(bot_modules)
        loaded = load_game(game)
        if loaded.get_type().dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
            raise ValueError(f"{game}: only sequential games can be played by the harness")
        if isinstance(teams, str):
            teams = parse_teams(teams)
        if teams is None:
            teams = registry.partnerships(loaded)     # a partnership game declares its sides
        if teams is not None:
            teams = tuple(tuple(side) for side in teams)
            check_sides(loaded.num_players(), teams)
        elif mixed_partners:
            raise ValueError("mixed partnerships need teams (--teams '0,2 1,3')")
        config = cls(str(loaded), parse_agents(agents), deals, seed, duplicate, teams,
                     mixed_partners, match, time_limit, bot_modules, keep_history)
        for _, spec in config.agents:
            check_bot(spec, loaded)
        if match is not None:
            match_format(loaded, match)
        return config

    def identity(self) -> dict[str, Any]:
        out = asdict(self)
        del out["deals"], out["keep_history"]
        return out

    def bot_files(self) -> dict[str, dict[str, str]]:
        """Each agent's bot files, path -> sha256: part of who the agent is, so a
        results file refuses to resume once a file has changed."""
        short_name = self.game.split("(")[0]
        return {name: {str(p): file_sha256(p) for p in bot_files(spec, short_name)}
                for name, spec in self.agents}

    def with_deals(self, deals: int) -> "TournamentConfig":
        return replace(self, deals=deals)

    @property
    def agent_names(self) -> list[str]:
        return [name for name, _ in self.agents]

    def describe(self) -> str:
        parts = [self.game, f"{self.deals} deals", f"seed {self.seed}",
                 "duplicate" if self.duplicate else "no duplicates"]
        if self.teams:
            parts.append(f"teams {format_sides(self.teams)}"
                         + (" (mixed partnerships)" if self.mixed_partners else " (an agent per side)"))
        if self.match is not None:
            parts.append(f"match {self.match or 'default'}")
        if self.time_limit:
            parts.append(f"{self.time_limit:g} s per move")
        return ", ".join(parts)


# Settings of the search bots whose value is itself a bot spec, or a network's file.
_NESTED_SPECS = ("rollout", "baseline", "model", "assume", "prior")


def bot_files(spec: str, short_name: str) -> list[Path]:
    """The bot files (networks) that `spec` plays with for game `short_name`: a
    neural bot's file (the shipped one by default) and those of any bot named
    in its settings (a prior, a baseline, ...)."""
    name, settings = parse_spec(expand(spec))
    found: list[Path] = []
    if name == "neural":
        path = settings.get("path")
        found.append(bot_file_location(path) if path is not None else SHIPPED_BOTS / f"{short_name}.safetensors")
    for key in _NESTED_SPECS:
        value = settings.get(key)
        if not isinstance(value, str):
            continue
        if key == "prior" and value == "shipped":
            found.append(SHIPPED_BOTS / f"{short_name}.safetensors")
            continue
        try:
            nested = parse_spec(value)[0] in BOT_FACTORIES
        except ValueError:
            nested = False
        if nested:
            found.extend(bot_files(value, short_name))
        elif key == "prior":
            found.append(bot_file_location(value))
    return list(dict.fromkeys(p.resolve() for p in found))


def file_sha256(path: Path) -> str:
    """The file's sha256 in hex, or 'missing' when it is not there (making the bot says why)."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return "missing"


def check_bot(spec: str, game: pyspiel.Game, seat: int = 0) -> None:
    """Makes the bot `spec` for `seat` once, so that a bad one is refused before any
    game: ValueError naming it, whatever its factory raised (a registered bot's
    factory may raise anything)."""
    try:
        make_bot(spec, game, seat, 0)
    except ValueError:
        raise
    except (Exception, SystemExit) as e:          # a factory's sys.exit must not end the command quietly
        raise ValueError(f"bot {spec!r} cannot be made for {game.get_type().short_name}: "
                         f"{type(e).__name__}: {' '.join(str(e).split())}") from None


def match_format(game: pyspiel.Game, spec: str) -> MatchFormat:
    """The MatchFormat (games.protocol) that `spec` names for `game`.

    `spec` is `key=value,...` settings for the format the game declares (its registry entry's
    `match.harness`, called as harness(game, **settings)), or `module:factory(key=value,...)`,
    called as factory(game, **settings).
    """
    head, _, rest = spec.partition("(")
    try:
        if ":" in head:
            module, attr = head.strip().split(":", 1)
            _, settings = parse_spec(f"{attr}({rest}" if rest else attr)
            return _import(module, attr, game)(game, **settings)
        entry = registry.of_game(game)
        declared = entry.match.harness if entry is not None and entry.match is not None else None
        if declared is None:
            raise ValueError(f"{game.get_type().short_name} declares no match format of its own: name one "
                             f"as module:factory(...)")
        _, settings = parse_spec(f"match({spec})")
        return declared(game, **settings)
    except ValueError:
        raise
    except Exception as e:     # a format's factory may raise anything: a bad setting, at the command line
        raise ValueError(f"bad match format settings {spec!r}: {error_line(e)}") from None


def _import(module: str, attr: str, game: pyspiel.Game):
    try:
        return getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError):
        raise ValueError(f"no match format {module}:{attr} for {game.get_type().short_name}") from None
