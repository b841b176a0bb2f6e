"""The card games, as fast rules cores and as registered OpenSpiel games.

Importing this package registers every game with pyspiel, so that
`pyspiel.load_game("python_page_one(players=4)")` works afterwards, and with the
registry of games (games.registry), which holds what the floors above need of each.
The order here is the registry's: the first game is the commands' default.
"""

from games.page_one import game as _page_one  # noqa: F401  (registers python_page_one)
from games.american_page_one import game as _american_page_one  # noqa: F401  (registers python_american_page_one)
from games.modern_canasta import game as _modern_canasta  # noqa: F401  (registers python_modern_canasta)
from games.classic_canasta import game as _classic_canasta  # noqa: F401  (registers python_classic_canasta)
