"""Suit symmetry, to multiply the training data: in Page One and American Page
One no suit differs from another, so relabelling the suits maps a position to one just as likely, whose
action values are those of the relabelled actions. The learner relabels each
sample by a random one of the 24 suit permutations: a play learnt with one suit
is learnt for all four.

A game opts in by naming which parts of its information-state tensor (the
observer's `dict` views) are indexed by card or by suit, and how its actions
name cards and suits. Games without an entry get no augmentation.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Callable

import numpy as np

from games.american_page_one.core import NAME_SUIT
from games.cards import NUM_RANKS


def _card(card: int, perm: tuple[int, ...]) -> int:
    """A card id (0-51 suit-major, jokers above) under a suit permutation."""
    return perm[card // NUM_RANKS] * NUM_RANKS + card % NUM_RANKS if card < 52 else card


def _page_one_action(action: int, perm: tuple[int, ...]) -> int:
    if action < 52:
        return _card(action, perm)
    joker, suit = divmod(action - 52, 4)
    return 52 + 4 * joker + perm[suit]


def _american_page_one_action(action: int, perm: tuple[int, ...]) -> int:
    """Plays name a kind (0-51 suit-major, 52 the joker); actions 55-58 name a suit."""
    if action < 52:
        return _card(action, perm)
    if NAME_SUIT <= action < NAME_SUIT + 4:
        return NAME_SUIT + perm[action - NAME_SUIT]
    return action


@dataclass(frozen=True)
class SuitLayout:
    card_views: tuple[str, ...]        # views whose last axis is a card slot
    suit_views: tuple[str, ...]        # views whose last axis starts with the 4 suits
    action: Callable[[int, tuple[int, ...]], int]


LAYOUTS: dict[str, SuitLayout] = {
    "python_page_one": SuitLayout(card_views=("hand", "trick", "played", "known"),
                                  suit_views=("led_suit", "void"), action=_page_one_action),
    "python_american_page_one": SuitLayout(card_views=("hand", "top", "played", "known", "lacks"),
                                           suit_views=("suit",), action=_american_page_one_action),
}


class SuitSymmetry:
    """Index tables for the 24 suit permutations of one game's tensor and actions."""

    def __init__(self, observer, num_actions: int, layout: SuitLayout):
        tensor = observer.tensor
        base = tensor.__array_interface__["data"][0]
        self.perms = list(itertools.permutations(range(4)))
        self.obs_index = np.tile(np.arange(len(tensor)), (len(self.perms), 1))
        self.action_index = np.tile(np.arange(num_actions), (len(self.perms), 1))
        for name in layout.card_views + layout.suit_views:
            if name not in observer.dict:
                continue
            view = observer.dict[name]
            start = (view.__array_interface__["data"][0] - base) // tensor.itemsize
            positions = np.arange(view.size).reshape(view.shape) + start
            rows = positions.reshape(-1, view.shape[-1])
            for p, perm in enumerate(self.perms):
                for row in rows:
                    for old in range(len(row)):
                        if name in layout.card_views:
                            new = _card(old, perm)
                        else:
                            new = perm[old] if old < 4 else old
                        # The relabelled tensor holds at `new` what the original held at `old`.
                        self.obs_index[p, row[new]] = row[old]
        for p, perm in enumerate(self.perms):
            for a in range(num_actions):
                self.action_index[p, a] = layout.action(a, perm)

    def augment(self, obs: np.ndarray, actions: np.ndarray, rng: np.random.Generator,
                *more_actions: np.ndarray) -> tuple[np.ndarray, ...]:
        """Each sample relabelled by a random suit permutation: its information
        state, its action and each of `more_actions` (a sample's other moves,
        such as the one its gain is measured from; -1, none, stays -1)."""
        p = rng.integers(0, len(self.perms), len(actions))
        relabelled = [np.where(m >= 0, self.action_index[p, np.maximum(m, 0)], m) for m in more_actions]
        return (np.take_along_axis(obs, self.obs_index[p], axis=1), self.action_index[p, actions], *relabelled)


def symmetry_for(game, observer) -> SuitSymmetry | None:
    layout = LAYOUTS.get(game.get_type().short_name)
    return None if layout is None else SuitSymmetry(observer, game.num_distinct_actions(), layout)
