"""The card games, as fast rules cores and as registered OpenSpiel games.

Importing this package registers every game with pyspiel, so that
`pyspiel.load_game("python_page_one(players=4)")` works afterwards, and with the
registry of games (games.registry), which holds what the floors above need of each.
The order here is the registry's: the first game is the commands' default.

A game from outside the toolkit registers itself the same way in its own module;
naming that module in the environment variable CARDARENA_GAMES (modules separated
by commas) has every process that imports this package import it too: the command
line, the tournament's worker processes, `cardarena engine`.
"""

import importlib as _importlib
import os as _os
import sys as _sys

from games.page_one import game as _page_one  # noqa: F401  (registers python_page_one)
from games.american_page_one import game as _american_page_one  # noqa: F401  (registers python_american_page_one)
from games.modern_canasta import game as _modern_canasta  # noqa: F401  (registers python_modern_canasta)
from games.classic_canasta import game as _classic_canasta  # noqa: F401  (registers python_classic_canasta)

PLUGINS = "CARDARENA_GAMES"


def _import_plugins() -> None:
    """Imports the modules CARDARENA_GAMES names. One that cannot be imported is said in one
    line on stderr and left out: its games are then unknown, and refused as any unknown game is."""
    for name in (n.strip() for n in _os.environ.get(PLUGINS, "").split(",")):
        if name and name not in _sys.modules:
            try:
                _importlib.import_module(name)
            except Exception as e:          # a module from outside: anything may go wrong in it
                print(f"cardarena: {PLUGINS} names {name!r}, which cannot be imported "
                      f"({type(e).__name__}: {' '.join(str(e).split())}); its games are left out",
                      file=_sys.stderr)


_import_plugins()
