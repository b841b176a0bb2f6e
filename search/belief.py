"""Where the hidden cards lie, learnt: worlds weighed by a belief network.

A belief network reads one seat's information-state tensor (what the seat has
seen, all of it: agents.neural.encoding) and gives, for each card kind, the
probability that a hidden copy of it lies in each place the seat cannot see:
each other seat's hand (in turn order after the seat) and the stock, the rows
of the game's `hidden_cards` (games.protocol). Places that hold no hidden card,
and kinds with no hidden copy, are masked: how many hidden cards each place
holds and how many copies of each kind are hidden are both known to the seat
(hand sizes, the cards it has seen), so the mask reads nothing hidden.

The search never draws a world the seat's information rules out: its worlds
come from the game's exact resampler, as without a belief. `BeliefSampler`
draws `candidates` of them, weighs each by how much likelier the network finds
its layout than the candidates do on average (sampling importance resampling:
the product over hidden cards of q_network(place | kind) / q_candidates(place |
kind), the cards taken as independent, raised to `power`), and hands the search
worlds drawn from the candidates in proportion to those weights.
"""

from __future__ import annotations

import bisect
import math
from functools import lru_cache
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
import pyspiel

from agents.neural.encoding import InfoStateEncoder
from games.protocol import GameState
from search.netfile import NetFile, load, resolve


LOG_FLOOR = math.log(1e-6)


def hidden_layout(state: GameState, player: int) -> np.ndarray:
    """The game's `hidden_cards(player)` as an array (places, kinds)."""
    cards = getattr(state, "hidden_cards", None)
    if cards is None:
        raise ValueError(f"{type(state).__name__} does not say where hidden cards lie (hidden_cards)")
    return np.asarray(cards(player), np.float32)


def known_margins(layout: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """What the seat knows of a layout: each place's count and each kind's count."""
    return layout.sum(axis=1), layout.sum(axis=0)


def mask_of(layout: np.ndarray) -> np.ndarray:
    """The cells a hidden card may lie in, from the known margins only."""
    places, kinds = known_margins(layout)
    return (places[:, None] > 0) & (kinds[None, :] > 0)


def masked_log_softmax(logits: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Log-probabilities over places (axis 0) for each kind; -inf off the mask."""
    z = np.where(mask, logits, -np.inf)
    top = np.max(z, axis=0, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    e = np.exp(z - top)
    total = e.sum(axis=0, keepdims=True)
    with np.errstate(divide="ignore"):
        return z - top - np.log(np.where(total > 0, total, 1.0))


class BeliefNetwork:
    """A belief network for one game: `log_probabilities(state, player)`."""

    def __init__(self, net: NetFile, game: pyspiel.Game):
        self.net = net
        self.encoder = InfoStateEncoder(game)
        self.shape = net.output_shape
        self._input = np.zeros(self.encoder.size, np.float32)

    def log_probabilities(self, state: GameState, player: int) -> np.ndarray:
        """log q(place | kind) for `player` at `state`, (places, kinds); -inf where
        no hidden card can be. Depends only on `player`'s information."""
        layout = hidden_layout(state, player)
        if layout.shape != self.shape:
            raise ValueError(f"the belief network gives {list(self.shape)} places x kinds, this position "
                             f"has {list(layout.shape)}")
        self.encoder.observer.set_from(state, player)
        self._input[:] = self.encoder.observer.tensor
        logits = self.net.mlp(self._input).reshape(self.shape)
        return masked_log_softmax(logits, mask_of(layout))


@lru_cache(maxsize=16)
def _cached(path: str, mtime: float, game_string: str) -> NetFile:
    game = pyspiel.load_game(game_string)
    return load(path, kind="belief", game=game, input_size=InfoStateEncoder(game).size)


def belief_network(spec: str | None, game: pyspiel.Game) -> BeliefNetwork:
    """The belief network a `belief=` setting names (`shipped` or a file)."""
    file: Path = resolve(spec, game, "belief")
    if not file.is_file():
        raise ValueError(f"no such file {str(file)!r}")
    return BeliefNetwork(_cached(str(file.resolve()), file.stat().st_mtime, str(game)), game)


def importance_weights(layouts: Sequence[np.ndarray], log_q: np.ndarray, power: float = 1.0) -> np.ndarray:
    """Normalised weights of candidate worlds (their hidden layouts) under the
    belief `log_q` relative to the candidates' own marginals (see the module
    docstring). Every candidate has a positive weight."""
    stack = np.stack(layouts)                           # (worlds, places, kinds)
    kinds = stack[0].sum(axis=0)
    marginal = stack.mean(axis=0) / np.where(kinds > 0, kinds, 1.0)
    with np.errstate(divide="ignore"):
        log_m = np.log(marginal)
    floor = np.maximum(log_q, LOG_FLOOR)                # a cell the network all but rules out still counts
    ratio = np.where(stack > 0, floor[None] - log_m[None], 0.0)
    score = power * (stack * ratio).sum(axis=(1, 2))
    score -= score.max()
    w = np.exp(score)
    return w / w.sum()


def effective_size(weights: np.ndarray) -> float:
    """Kish's effective sample size of normalised weights: how many equal worlds they are worth."""
    return float(1.0 / np.square(weights).sum())


class BeliefSampler:
    """Worlds for one decision, drawn from `candidates` exact resamples in
    proportion to their belief weights."""

    def __init__(self, network: BeliefNetwork, candidates: int, power: float = 1.0):
        if isinstance(candidates, bool) or not isinstance(candidates, int) or candidates < 2:
            raise ValueError(f"belief_candidates={candidates!r}: must be an integer of at least 2")
        if isinstance(power, bool) or not isinstance(power, (int, float)) or not 0 <= power <= 10 \
                or not math.isfinite(power):
            raise ValueError(f"belief_power={power!r}: must be a number in [0, 10]")
        self.network = network
        self.candidates = candidates
        self.power = float(power)
        self._root: GameState | None = None
        self._worlds: list[GameState] = []
        self._cumulative: list[float] = []
        self.last_effective_size = 0.0

    def new_decision(self) -> None:
        """Forget the last decision's candidates. A referee plays its moves on one
        state object, so the root of the next decision may be the same object as
        the last one's: only the bot knows a new decision has begun."""
        self._root = None

    def draw(self, root: GameState, player: int, resample: Callable[[], GameState], rand) -> GameState:
        """A world for `player` at `root`: the first call of a decision draws and
        weighs the candidates; each call returns a copy of one, chosen by weight."""
        if self._root is not root:
            self._root = root
            self._worlds = [resample() for _ in range(self.candidates)]
            log_q = self.network.log_probabilities(root, player)
            weights = importance_weights([hidden_layout(w, player) for w in self._worlds], log_q, self.power)
            self.last_effective_size = effective_size(weights)
            self._cumulative = list(np.cumsum(weights))
        i = bisect.bisect_right(self._cumulative, rand() * self._cumulative[-1])
        return self._worlds[min(i, len(self._worlds) - 1)].clone()
