"""Named presets: a short name for a long bot spec, usable wherever a spec is.

`canasta-strong` says which bot a table row, a command or a record means where the spec it
stands for runs to some 200 characters. Each game declares its presets with the rest of what it
offers (its registry entry's `presets`: every one a bot measured in a declared run, naming only
shipped files of bots/, found from any folder and in an installed package alike); this module
only reads them. `make_bot` expands a preset before it reads the spec, so a preset works in a
tournament's `--agent` (the agent is named by the preset, its stored spec is the whole one), in
`cardarena match`, at the play table, in `cardarena engine` and nested in another bot's settings
(`baseline=canasta-fast`). `cardarena list presets` shows each expanded.
"""

from __future__ import annotations

import games  # noqa: F401  (registers every game, with its presets)
from games import registry


def presets() -> dict[str, str]:
    """Every registered game's presets: name -> spec (names are unique across games)."""
    return {name: spec for entry in registry.registered() for name, spec in entry.presets.items()}


def expand(spec: str) -> str:
    """The bot spec a preset stands for; any other spec as it is. A preset takes no
    settings of its own: ValueError, one line, saying what to write instead."""
    known = presets()
    name = spec.strip()
    if name in known:
        return known[name]
    head, bracket, _ = name.partition("(")
    if bracket and head.strip() in known:
        raise ValueError(f"preset {head.strip()!r} takes no settings; it is {known[head.strip()]}: "
                         f"write that spec with the settings changed")
    return spec


def listing() -> str:
    """The presets, each with its game and spec, as `cardarena list presets` prints them."""
    lines = ["## Presets (a name that stands for a bot spec, wherever a spec is named)", ""]
    lines += [f"{name}: {spec}    ({entry.title})" for entry in registry.registered()
              for name, spec in entry.presets.items()]
    return "\n".join(lines)
