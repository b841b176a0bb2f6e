"""A Page One game with its suits relabelled, for the tests of suit symmetry
(the neural bots' and the luck networks' relabelled inputs)."""

from __future__ import annotations

from games.cards import suit_permuted
from games.page_one.core import EV_DEAL, EV_DRAW, EV_FOLLOW, EV_LEAD, EV_LEADER, PageOneState
from games.page_one.game import suit_permuted_action


def page_one_suits_relabelled(core: PageOneState, perm: tuple[int, ...]) -> PageOneState:
    """The same game with the suits relabelled by `perm`, replayed from its event log."""
    state = PageOneState(core.rules)
    for kind, _, value in core.events():
        if kind == EV_LEADER:
            state.apply_action(value)
        elif kind in (EV_DEAL, EV_DRAW):
            state.apply_action(suit_permuted(value, perm))
        elif kind in (EV_LEAD, EV_FOLLOW):
            state.apply_action(suit_permuted_action(value, perm))
    return state
