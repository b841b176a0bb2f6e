"""The seat view moved to the games (games/view.py `seat_view`, `seat_log`): the table, the record
tools and the engine protocol build one view with one function. Nothing here is the table's own;
these names stay only because play/session.py, owned by another change, still imports them from
here. Once it imports games.view, delete this module.
"""

from __future__ import annotations

from games.view import seat_log, seat_view as table_view

__all__ = ["seat_log", "table_view"]
