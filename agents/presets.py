"""Named presets: a short name for a long bot spec, usable wherever a spec is.

`canasta-strong` says which bot a table row, a command or a record means where the spec it
stands for runs to some 200 characters. `make_bot` expands a preset before it reads the spec, so
a preset works in a tournament's `--agent` (the agent is named by the preset, its stored spec is
the whole one), in `cardarena match`, at the play table, in `cardarena engine` and nested in
another bot's settings (`baseline=canasta-fast`). `cardarena list presets` shows each expanded.

Each spec here is a bot measured in a declared run (docs/search.md and docs/neural.md give the
figures); the networks it names are shipped files of bots/, found from any folder and in an
installed package alike.
"""

from __future__ import annotations

# Canasta's two networks, shipped for the searches (copies of bots/earlier/'s
# python_modern_canasta_dmc and python_modern_canasta_advantage_l, which earlier runs name).
_CANASTA_PRIOR = "bots/python_modern_canasta.dmc.safetensors"
_CANASTA_BASELINE = "neural(path=bots/python_modern_canasta.advantage.safetensors)"

PRESETS: dict[str, str] = {
    # Page One's strongest fair bot: +30 [+19, +39] over `rules` (1330 games, 450 deals, seed 1), 179 ms a move.
    "page-one-strong": "pimc(worlds=40,iterations=25,rollout=rules,prior=shipped)",
    # American Page One's: +27 [+17, +37] over `rules` (1772 games, 600 deals, seed 8), 153 ms a move.
    "american-page-one-strong": ("ismcts(iterations=480,root=paired,rollout=rules,baseline=neural,assume=rules,"
                                 "utility=placement,confidence=1)"),
    # Modern Canasta's (run R): +193 [+168, +218] over `rules` (1000 games, 500 deals, seed 170), 134 ms a move.
    "canasta-strong": (f"pimc(worlds=8,iterations=20,rollout=rules,prior={_CANASTA_PRIOR},"
                       f"baseline={_CANASTA_BASELINE},confidence=1)"),
    # The same networks under ISMCTS (run Y): +219 [+193, +244] over `rules` (1000 games, 500 deals, seed 170),
    # 151 ms a move.
    "canasta-strong-ismcts": (f"ismcts(iterations=160,rollout=rules,prior={_CANASTA_PRIOR},"
                              f"baseline={_CANASTA_BASELINE},confidence=1)"),
    # A fast Canasta search: +115 [+100, +131] over `rules` (2000 games, 1000 deals, seed 60), 26 ms a move.
    "canasta-fast": f"pimc(worlds=4,iterations=5,rollout=rules,prior={_CANASTA_PRIOR})",
}


def expand(spec: str) -> str:
    """The bot spec a preset stands for; any other spec as it is. A preset takes no
    settings of its own: ValueError, one line, saying what to write instead."""
    name = spec.strip()
    if name in PRESETS:
        return PRESETS[name]
    head, bracket, _ = name.partition("(")
    if bracket and head.strip() in PRESETS:
        raise ValueError(f"preset {head.strip()!r} takes no settings; it is {PRESETS[head.strip()]}: "
                         f"write that spec with the settings changed")
    return spec


def listing() -> str:
    """The presets, each with its spec, as `cardarena list presets` prints them."""
    lines = ["## Presets (a name that stands for a bot spec, wherever a spec is named)", ""]
    lines += [f"{name}: {spec}" for name, spec in PRESETS.items()]
    return "\n".join(lines)
