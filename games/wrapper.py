"""The thin OpenSpiel state every game shares: a pyspiel.State over one rules core.

OpenSpiel clones a Python state by building a new one and deep-copying every
attribute, so the pyspiel state holds a single attribute, `core`, and clones
share it copy-on-write (`share_core_on_deepcopy`). A game's Game class provides
`new_core()`; its State class is a named subclass of `CoreState` that adds
nothing, or only what that game needs.
"""

from __future__ import annotations

import copy
import functools
from typing import Any, Callable

import numpy as np
import pyspiel

from games.protocol import CHANCE, TERMINAL


class CoreState(pyspiel.State):
    """pyspiel.State over a rules core. Python callers skip the C++ round trip for
    the methods overridden here; C++ callers use the trampolined ones."""

    @functools.cached_property
    def core(self) -> Any:
        """Made on first use, so the throwaway state that OpenSpiel's clone starts
        from costs nothing."""
        return self.get_game().new_core()

    def current_player(self) -> int:
        return self.core.to_move

    # The player ids are compared as ints (games.protocol's CHANCE and TERMINAL):
    # comparing with the pyspiel.PlayerId enum costs more than the rest of the call.
    def is_terminal(self) -> bool:
        return self.core.to_move == TERMINAL

    def is_chance_node(self) -> bool:
        return self.core.to_move == CHANCE

    def legal_actions(self, player=None) -> list[int]:
        core = self.core
        if core.to_move == CHANCE and (player is None or player == CHANCE):
            return [a for a, _ in core.chance_outcomes()]
        return core.legal_actions(player)

    def _legal_actions(self, player: int) -> list[int]:
        return self.core.legal_actions(player)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self.core.chance_outcomes()

    def sample_chance_outcome(self, u: float) -> int:
        return self.core.sample_chance_outcome(u)

    def _apply_action(self, action: int) -> None:
        core = self.core
        if core.shared:            # copy-on-write: see share_core_on_deepcopy
            core = self.core = core.clone()
        core.apply_action(action)

    def _action_to_string(self, player: int, action: int) -> str:
        return self.core.action_to_string(player, action)

    def returns(self) -> list[float]:
        return self.core.returns()

    def information_state_string(self, player: int | None = None) -> str:
        return self.core.information_state_string(self.core.to_move if player is None else player)

    def observation_string(self, player: int | None = None) -> str:
        return self.core.observation_string(self.core.to_move if player is None else player)

    def resample_from_infostate(self, player: int,
                                probability_sampler: Callable[[], float]) -> "CoreState":
        """OpenSpiel's signature. The world is rebuilt by replaying its history, so
        that C++ and Python see the same pyspiel state, from the start the world
        names (the same rules, and any rule its past waives)."""
        world = self.core.resample_from_infostate(player, probability_sampler)
        state = self.get_game().new_initial_state()
        state.core = world.replay_start()
        for action in world.history():
            state.apply_action(action)
        return state

    def __str__(self) -> str:
        return str(self.core)


def _share(core: Any, memo: dict) -> Any:
    core.shared = True
    return core


def share_core_on_deepcopy(core_class: type) -> None:
    """Makes deep copies of `core_class` share the core instead: both states hold
    it, marked shared, and the first of them to apply an action copies it then
    (copy-on-write). A clone costs the C++ part only, and a clone that is never
    played on never pays for the copy."""
    copy._deepcopy_dispatch[core_class] = _share


def tensor_views(pieces: list[tuple[str, int, tuple[int, ...]]]) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """An observer's flat tensor and its named views, from (name, size, shape)
    pieces in order; empty pieces are left out (OpenSpiel's observers do the same)."""
    pieces = [p for p in pieces if p[1]]
    tensor = np.zeros(sum(size for _, size, _ in pieces), np.float32)
    views = {}
    start = 0
    for name, size, shape in pieces:
        views[name] = tensor[start:start + size].reshape(shape)
        start += size
    return tensor, views
