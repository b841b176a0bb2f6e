"""Leaf evaluators: how the search values a position it has just added to its tree.

The hook is `search.mcts.Evaluator`: `evaluate(world, rand)` returns every
player's value. Two are built in, chosen by the `rollout` setting of a search bot:

* `random`: uniformly random play to the end, in a tight loop on the state, or
  in the state's own `play_out(rand)` where it has one (games.protocol).
* any other bot spec (`rules`, `neural`, ...): play to the end
  with that bot in every seat. The bots' `step` gets the state the search runs
  on: our rules core for our games, so a bot used for rollouts reads the core
  (agents.base.rules_core does that) and should keep per-game work incremental
  (the Page One rule bot updates its public memory event by event).

With a `horizon` (search.evaluation), either stops after that many moves (player
decisions) and values the world it reached by the game's static value instead of
playing to the end, or with a value network (`value`, search.value) by the
network: horizon 0 values the leaf itself, with no playout.
"""

from __future__ import annotations

from typing import Callable, Collection, Sequence

LeafValue = Callable[[object], Sequence[float]]

import pyspiel

from agents import make_bot
from games import registry
from games.protocol import CHANCE, GameState, chance_sampler
from search.evaluation import leaf_value_for


def _leaf_value(world: GameState) -> Sequence[float]:
    value = leaf_value_for(world)
    if value is None:
        raise ValueError(f"horizon: no static value for {type(world).__name__} positions "
                         f"(its registry entry declares no leaf_value); use horizon=none")
    return value(world)


class RandomRollout:
    """Uniformly random play to the end, or for `horizon` moves and then the
    position's value: `leaf` (a value network's), else the static one (search.evaluation)."""

    def __init__(self, horizon: int | None = None, leaf: LeafValue | None = None):
        self.horizon = horizon
        self.leaf = leaf or _leaf_value

    def evaluate(self, world: GameState, rand: Callable[[], float]) -> Sequence[float]:
        play_out = getattr(world, "play_out", None)
        if play_out is not None and self.horizon is None:
            return play_out(rand)
        sample = chance_sampler(world)
        current, legal_actions, apply = world.current_player, world.legal_actions, world.apply_action
        left = -1 if self.horizon is None else self.horizon
        while True:
            player = current()
            if player >= 0:
                if left == 0:
                    return self.leaf(world)
                left -= 1
                legal = legal_actions()
                apply(legal[int(rand() * len(legal))])
            elif player == CHANCE:
                apply(sample(world, rand()))
            else:
                return world.returns()


def seat_bots(spec: str, game: pyspiel.Game, seed: int) -> list[pyspiel.Bot]:
    """One bot per seat from a bot spec, for playouts that only call `step`; a bot
    that can play any seat (agents.base.CardBot.any_seat) plays them all, so its
    incremental state (the rule bot's public memory) is rebuilt once per rollout."""
    first = make_bot(spec, game, 0, seed)
    if getattr(first, "any_seat", False):
        return [first] * game.num_players()
    return [first] + [make_bot(spec, game, seat, seed + seat) for seat in range(1, game.num_players())]


class BotRollout:
    """Play to the end with one bot per seat: given seat by seat (sides that play
    different bots), or made from one bot spec (`from_spec`, by `seat_bots`)."""

    def __init__(self, bots: Sequence[pyspiel.Bot], horizon: int | None = None, leaf: LeafValue | None = None):
        self.bots = list(bots)
        self.horizon = horizon
        self.leaf = leaf or _leaf_value

    @classmethod
    def from_spec(cls, spec: str, game: pyspiel.Game, seed: int, horizon: int | None = None,
                  leaf: LeafValue | None = None) -> "BotRollout":
        return cls(seat_bots(spec, game, seed), horizon, leaf)

    def evaluate(self, world: GameState, rand: Callable[[], float]) -> Sequence[float]:
        sample = chance_sampler(world)
        bots = self.bots
        current, apply = world.current_player, world.apply_action
        left = -1 if self.horizon is None else self.horizon
        while True:
            player = current()
            if player >= 0:
                if left == 0:
                    return self.leaf(world)
                left -= 1
                apply(bots[player].step(world))
            elif player == CHANCE:
                apply(sample(world, rand()))
            else:
                return world.returns()


def sides(game: pyspiel.Game) -> tuple[tuple[int, ...], ...]:
    """The game's sides: its partnerships where its registry entry declares them, else each seat alone."""
    return registry.partnerships(game) or tuple((seat,) for seat in range(game.num_players()))


def side_of(game: pyspiel.Game, player: int) -> set[int]:
    """`player`'s side: its partnership, else itself."""
    return set(next(side for side in sides(game) if player in side))


def seated_by_side(side: Collection[int], own: Sequence[pyspiel.Bot],
                   others: Sequence[pyspiel.Bot]) -> list[pyspiel.Bot]:
    """Seat by seat, `own`'s bot at the seats of `side` and `others`' at the rest."""
    return [own[seat] if seat in side else others[seat] for seat in range(len(own))]


def make_evaluator(rollout: str, game: pyspiel.Game, seed: int, horizon: int | None = None, *,
                   player: int | None = None, opponents: str | None = None, leaf: LeafValue | None = None):
    """The evaluator that the `rollout` setting names, cut at `horizon` moves if given
    and valued there by `leaf` (a value network's values; the static value without);
    with `opponents` (a bot spec), that bot plays the seats outside `player`'s side
    and the rollout's bot (`random` too: a random bot) plays `player`'s."""
    if not isinstance(rollout, str):
        raise ValueError(f"rollout={rollout!r}: must be 'random' or a bot spec such as 'rules'")
    if opponents is not None:
        if player is None:
            raise ValueError("rollout_opponents: needs the player whose side the rollout plays")
        try:
            own, others = seat_bots(rollout, game, seed), seat_bots(opponents, game, seed + 1000)
        except ValueError as e:
            raise ValueError(f"rollout={rollout!r}, rollout_opponents={opponents!r}: {e}") from e
        return BotRollout(seated_by_side(side_of(game, player), own, others), horizon, leaf)
    if rollout == "random":
        return RandomRollout(horizon, leaf)
    try:
        return BotRollout.from_spec(rollout, game, seed, horizon, leaf)
    except ValueError as e:
        raise ValueError(f"rollout={rollout!r}: {e}") from e
