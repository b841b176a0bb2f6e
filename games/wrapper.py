"""The thin OpenSpiel state every game shares: a pyspiel.State over one rules core.

OpenSpiel clones a Python state by building a new one and deep-copying every
attribute, so the pyspiel state holds a single attribute, `core`, and clones
share it copy-on-write (`share_core_on_deepcopy`). A game's Game class provides
`new_core()`; its State class is a named subclass of `CoreState` that adds
nothing, or only what that game needs.

Python callers apply actions without going through C++: pyspiel's
`apply_action` calls back into Python twice (`current_player`, then
`_apply_action`), which cost a third of a random playout in the standard loop.
So for them the core is the whole state, its history included (`history`,
`history_str`, `full_history`, `move_number`, `child` are read from it).
C++ callers (`random_sim_test`, a C++ bot) still go through the trampolined
`_apply_action`, and C++'s own copy of the history then lists only the actions
that C++ applied; serialization keeps the state whole all the same, since the
pickled core is the state.
"""

from __future__ import annotations

import copy
import functools
import operator
from typing import Any, Callable, NamedTuple

import numpy as np
import pyspiel

from games.protocol import CHANCE, TERMINAL


class PlayerAction(NamedTuple):
    """One entry of `full_history()`: pyspiel.PlayerAction's fields (that class
    has no constructor in Python)."""
    player: int
    action: int


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

    def apply_action(self, action: int) -> None:
        if type(action) is not int:      # numpy integers (PettingZoo's, say); as pybind11 would take it
            action = operator.index(action)
        core = self.core
        if core.shared:            # copy-on-write: see share_core_on_deepcopy
            core = self.core = core.clone()
        core.apply_action(action)

    _apply_action = apply_action     # what C++ callers reach through pyspiel's ApplyAction

    def child(self, action: int) -> "CoreState":
        state = self.clone()
        state.apply_action(action)
        return state

    def history(self) -> list[int]:
        return self.core.history()

    def history_str(self) -> str:
        return ", ".join(map(str, self.core.history()))

    def move_number(self) -> int:
        return len(self.core.history())

    def is_initial_state(self) -> bool:
        return not self.core.history()

    def full_history(self) -> list[PlayerAction]:
        """(player, action) of every action so far, the player read by replaying
        the history (rarely asked: OpenSpiel's tools ask `history()`)."""
        replay = self.core.replay_start()
        out = []
        for action in self.core.history():
            out.append(PlayerAction(replay.to_move, action))
            replay.apply_action(action)
        return out

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
