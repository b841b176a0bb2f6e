"""Each game's strongest measured bots, named once for the play table's options
(play/options.py) and the default tournament's field (scripts/tournament_cli.py).

Every spec here was rated against its game's rule bot in a declared harness
tournament; docs/search.md ("Issue 22: where each target stands") has the runs.
A stronger bot replaces one here only after its own declared run.
"""

from __future__ import annotations

# The strongest fair bot of each game (its Elo over `rules`, its time a move on this project's machine).
STRONGEST = {
    # +30 [+19, +39] (1330 games, 450 deals, seed 1), 179 ms a move
    "python_page_one": "pimc(worlds=40,iterations=25,rollout=rules,prior=shipped)",
    # +27 [+17, +37] (1772 games, 600 deals, seed 8), 153 ms a move
    "python_american_page_one": ("ismcts(iterations=480,root=paired,rollout=rules,baseline=neural,assume=rules,"
                                 "utility=placement,confidence=1)"),
    # run R: +193 [+168, +218] (1000 games, 500 deals, seed 170), 134 ms a move
    "python_modern_canasta": ("pimc(worlds=8,iterations=20,rollout=rules,"
                              "prior=bots/earlier/python_modern_canasta_dmc.safetensors,"
                              "baseline=neural(path=bots/earlier/python_modern_canasta_advantage_l.safetensors),"
                              "confidence=1)"),
}

# A fast Canasta search: PIMC with the deep Monte-Carlo network as its prior,
# +115 [+100, +131] over `rules` (2000 games, 1000 deals, seed 60), 26 ms a move.
CANASTA_FAST = "pimc(worlds=4,iterations=5,rollout=rules,prior=bots/earlier/python_modern_canasta_dmc.safetensors)"
