"""Suit symmetry, to multiply the training data: in Page One and American Page
One no suit differs from another, so relabelling the suits maps a position to one just as likely, whose
action values are those of the relabelled actions. The learner relabels each
sample by a random one of the 24 suit permutations: a play learnt with one suit
is learnt for all four.

A game opts in by declaring, in its registry entry (games.registry: `symmetry`),
which parts of its information-state tensor (the observer's `dict` views) are
indexed by card or by suit, and where its actions go under a suit permutation.
Games that declare none get no augmentation.
"""

from __future__ import annotations

import itertools

import numpy as np

from games import registry
from games.cards import suit_permuted
from games.registry import SuitLayout


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
                            new = suit_permuted(old, perm)
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
    """The suit symmetry of `game`'s tensor and actions, where its registry entry declares one."""
    entry = registry.of_game(game)
    layout = entry.symmetry if entry is not None else None
    return None if layout is None else SuitSymmetry(observer, game.num_distinct_actions(), layout)
