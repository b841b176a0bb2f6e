"""The value of a full state, learnt: what a search's leaf is worth without playing it out.

A value network reads a *world* (a full state: every hand known, as a search's
determinization or the cheating search's true state holds) and gives every
player's expected return when the strongest fast policy plays on from there
(training/value.py learns it by regression on self-play). Its input is every
seat's observation tensor (the game's own observer, non-perfect-recall: the
seat's hand and the public table), the seats taken in turn from the player to
move, so one network serves every seat; its outputs are in the same order.

`value=shipped|FILE` on a search bot puts it at the end of the rollouts:
`horizon=N` moves of the rollout policy, then the network (horizon 0: the leaf
itself), where playouts to the end were (search.rollout).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Sequence

import numpy as np
import pyspiel
from open_spiel.python import observation

from games.protocol import GameState
from search.netfile import NetFile, load, resolve


class FullStateEncoder:
    """Every seat's observation tensor, from one seat round the table: the input
    of a value network (a world holds every hand, so every seat's view of it is
    there to read)."""

    def __init__(self, game: pyspiel.Game):
        self.observer = observation.make_observation(game, pyspiel.IIGObservationType(perfect_recall=False))
        self.players = game.num_players()
        self.seat_size = len(self.observer.tensor)
        self.size = self.players * self.seat_size

    def encode(self, state, player: int, out: np.ndarray | None = None) -> np.ndarray:
        """The encoding of `state` (a rules core or a pyspiel state) from `player`'s seat."""
        if out is None:
            out = np.empty(self.size, np.float32)
        n, width, observer = self.players, self.seat_size, self.observer
        for k in range(n):
            observer.set_from(state, (player + k) % n)
            out[k * width:(k + 1) * width] = observer.tensor
        return out


def perspective(state: GameState) -> int:
    """The seat a position is encoded from: the player to move (seat 0 at a chance node)."""
    player = state.current_player()
    return player if player >= 0 else 0


class ValueNetwork:
    """A value network for one game: `values(world)` is every player's expected return."""

    def __init__(self, net: NetFile, game: pyspiel.Game):
        self.net = net
        self.encoder = FullStateEncoder(game)
        self.players = game.num_players()
        self._input = np.empty(self.encoder.size, np.float32)

    def values(self, world: GameState) -> list[float]:
        """Each seat's expected return at `world` (a decision or chance node)."""
        me = perspective(world)
        out = self.net.mlp(self.encoder.encode(world, me, self._input)) * self.net.scale
        n = self.players
        return [float(out[(seat - me) % n]) for seat in range(n)]

    def batch(self, worlds: Sequence[GameState]) -> np.ndarray:
        """values() of many worlds at once: rows of seat-ordered returns."""
        x = np.empty((len(worlds), self.encoder.size), np.float32)
        mes = [perspective(w) for w in worlds]
        for i, (world, me) in enumerate(zip(worlds, mes)):
            self.encoder.encode(world, me, x[i])
        return seat_ordered(self.net.mlp(x) * self.net.scale, mes)


def seat_ordered(relative_values: np.ndarray, perspectives: Sequence[int]) -> np.ndarray:
    """Rows of values by relative seat (k: the seat k places after the row's
    perspective) put in seat order: seat s reads relative seat (s - perspective) % n."""
    n = relative_values.shape[1]
    relative = (np.arange(n) - np.asarray(perspectives)[:, None]) % n
    return np.take_along_axis(relative_values, relative, axis=1)


@lru_cache(maxsize=16)
def _cached(path: str, mtime: float, game_string: str) -> NetFile:
    game = pyspiel.load_game(game_string)
    return load(path, kind="value", game=game, input_size=FullStateEncoder(game).size)


def value_network(spec: str | None, game: pyspiel.Game) -> ValueNetwork:
    """The value network a `value=` setting names (`shipped` or a file), checked
    against the game; read once per file and game in a process."""
    file: Path = resolve(spec, game, "value")
    if not file.is_file():
        raise ValueError(f"no such file {str(file)!r}")
    return ValueNetwork(_cached(str(file.resolve()), file.stat().st_mtime, str(game)), game)

