"""What every rules core shares: the event log and the protocol basics.

A core records what happened in `log`, a linked list of immutable cells
`(previous cell, kind, seat, value)`: an event costs one tuple, and a clone
shares the whole past for free. Information-state strings, resampling and
pyspiel's history are all read from it.

`LoggedCore` is the mixin the cores subclass (with `__slots__` of their own:
`to_move`, `n`, `result`, `log`, `cache`, `shared` at least, and a `clone()`).
"""

from __future__ import annotations

from typing import Any

from games.protocol import CHANCE, TERMINAL

Event = tuple[int, int, Any]


def events_of(log: tuple | None) -> list[Event]:
    """The log as a list of (kind, seat, value), oldest first."""
    out = []
    cell = log
    while cell is not None:
        cell, kind, seat, value = cell
        out.append((kind, seat, value))
    out.reverse()
    return out


def values_of(log: tuple | None, kinds: frozenset[int]) -> list[Any]:
    """The values of the log's events of `kinds`, oldest first: a core's pyspiel
    history, read in one walk of the log (the harness keeps it for every game)."""
    out = []
    cell = log
    while cell is not None:
        cell, kind, _, value = cell
        if kind in kinds:
            out.append(value)
    out.reverse()
    return out


def log_length(log: tuple | None) -> int:
    """The number of events in the log."""
    n = 0
    while log is not None:
        log = log[0]
        n += 1
    return n


def log_of(events: list[Event]) -> tuple | None:
    """The linked log holding `events`, oldest first."""
    log = None
    for kind, seat, value in events:
        log = (log, kind, seat, value)
    return log


class LoggedCore:
    """Protocol basics, copying and pickling for a rules core with an event log."""

    __slots__ = ()
    # Slots a pickled copy resets: the resampler's caches are rebuilt on demand,
    # and a copy is nobody's shared core.
    PICKLE_RESET: dict[str, Any] = {"cache": None, "shared": False}

    def current_player(self) -> int:
        return self.to_move

    def is_terminal(self) -> bool:
        return self.to_move == TERMINAL

    def is_chance_node(self) -> bool:
        return self.to_move == CHANCE

    def num_players(self) -> int:
        return self.n

    def returns(self) -> list[float]:
        return self.result[:] if self.result is not None else [0.0] * self.n

    def __copy__(self):
        return self.clone()

    def __deepcopy__(self, memo):
        return self.clone()

    def replay_start(self) -> "LoggedCore":
        """The fresh state this one's history replays from (the OpenSpiel wrapper
        rebuilds a resampled world so): the initial state of the same rules."""
        return type(self)(self.rules)

    def events(self) -> list[Event]:
        """The log as a list of (kind, seat, value), oldest first."""
        return events_of(self.log)

    def __getstate__(self) -> dict:
        """Pickles with the log flattened: a long game's nested log would overflow
        pickle's recursion limit."""
        state = {name: getattr(self, name) for name in self.__slots__}
        state.update(self.PICKLE_RESET)
        state["log"] = self.events()
        return state

    def __setstate__(self, state: dict) -> None:
        for name, value in state.items():
            setattr(self, name, value)
        self.log = log_of(state["log"])
