"""High card, a game small enough to write in a test: the registry's acceptance test
(tests/test_registry_new_game.py) adds it with no edit outside this file.

Each player is dealt one card of six (0 to 5, face down), then each in turn passes or
bets; the highest card among the bettors (among everyone, if nobody bets) wins +1,
the others share -1. A player sees its own card and every bet.

The game is a plain OpenSpiel Python game (no rules core): its state is its own
core. It is registered with pyspiel and with the registry of games at the bottom,
and it reaches processes that import only `games` (the tournament's workers,
`cardarena engine`) through CARDARENA_GAMES=tests.support.tiny_game.
"""

from __future__ import annotations

import random

import numpy as np
import pyspiel

from agents.base import CardBot
from games import registry
from games.params import int_param
from games.view import ViewShape, action, card, zone

CARDS, PASS, BET = 6, 0, 1
NAME = "tiny_high_card"
_TYPE = pyspiel.GameType(
    short_name=NAME, long_name="High card (a test game)", dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM, reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=3, min_num_players=2, provides_information_state_string=True,
    provides_information_state_tensor=True, provides_observation_string=False,
    provides_observation_tensor=False, parameter_specification={"players": 2})


def check(params: dict) -> int:
    """The number of players these parameters give (ValueError naming a bad one)."""
    return int_param({"players": 2, **params}, "players", 2, 3)


class TinyGame(pyspiel.Game):
    def __init__(self, params=None):
        n = check(dict(params or {}))
        super().__init__(_TYPE, pyspiel.GameInfo(num_distinct_actions=CARDS, max_chance_outcomes=CARDS,
                                                 num_players=n, min_utility=-1.0, max_utility=1.0,
                                                 utility_sum=0.0, max_game_length=2 * n), params or {})

    def new_initial_state(self) -> "TinyState":
        return TinyState(self)

    def information_state_tensor_shape(self) -> list[int]:
        return [CARDS + 2 * self.num_players()]


class TinyState(pyspiel.State):
    def __init__(self, game: TinyGame):
        super().__init__(game)
        self.n, self.cards, self.bets = game.num_players(), [], []

    def current_player(self) -> int:
        if len(self.cards) < self.n:
            return pyspiel.PlayerId.CHANCE
        return pyspiel.PlayerId.TERMINAL if len(self.bets) == self.n else len(self.bets)

    def _legal_actions(self, player: int) -> list[int]:
        return [PASS, BET]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        left = [c for c in range(CARDS) if c not in self.cards]
        return [(c, 1.0 / len(left)) for c in left]

    def _apply_action(self, a: int) -> None:
        (self.cards if len(self.cards) < self.n else self.bets).append(a)

    def _action_to_string(self, player: int, a: int) -> str:
        return f"card {a}" if player < 0 else ("bet" if a == BET else "pass")

    def is_terminal(self) -> bool:
        return len(self.bets) == self.n

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * self.n
        seats = [s for s in range(self.n) if self.bets[s] == BET] or list(range(self.n))
        winner = max(seats, key=lambda s: self.cards[s])
        return [1.0 if s == winner else -1.0 / (self.n - 1) for s in range(self.n)]

    def information_state_string(self, player: int | None = None) -> str:
        player = self.current_player() if player is None else player
        mine = self.cards[player] if player < len(self.cards) else None
        lines = [f"p{player} hand: {mine}"] if mine is not None else []
        return "\n".join(lines + [f"p{s} {'bets' if b == BET else 'passes'}" for s, b in enumerate(self.bets)])

    def information_state_tensor(self, player: int | None = None) -> list[float]:
        player = self.current_player() if player is None else player
        row = np.zeros(CARDS + 2 * self.n, np.float32)
        if player < len(self.cards):
            row[self.cards[player]] = 1.0
        for s, b in enumerate(self.bets):
            row[CARDS + 2 * s + b] = 1.0
        return row.tolist()

    def resample_from_infostate(self, player: int, sampler) -> "TinyState":
        """A world the seat cannot tell from this one: the others' cards redealt from the rest."""
        rng = random.Random(int(sampler() * 2**32))
        rest = [c for c in range(CARDS) if c != self.cards[player]]
        rng.shuffle(rest)
        world = self.get_game().new_initial_state()
        for s in range(len(self.cards)):
            world.apply_action(self.cards[s] if s == player else rest.pop())
        for b in self.bets:
            world.apply_action(b)
        return world

    def __str__(self) -> str:
        return f"cards {self.cards} bets {self.bets}"


class TinyRulesBot(CardBot):
    """Bets with a card of 3 or more."""

    def __init__(self, game, player: int, seed: int = 0):
        super().__init__(player)

    def step(self, state) -> int:
        return BET if state.cards[self.player] >= 3 else PASS


def view(state: TinyState, seat: int, open_hands: bool) -> dict:
    """The seat's card, the bets so far and, at the end, every card and the returns."""
    face = lambda c: card(str(c), str(c), None, "black")          # noqa: E731
    acts = [action(a, "bet" if a == BET else "pass", "call" if a == BET else "pass")
            for a in state.legal_actions(seat)] if state.current_player() == seat else []
    over = state.is_terminal()
    return {"hand": [face(state.cards[seat])] if seat < len(state.cards) else [], "actions": acts,
            "zones": [zone("Bets", text=f"{state.bets.count(BET)} of {len(state.bets)} bet")],
            "counts": [1 if s < len(state.cards) else 0 for s in range(state.n)], "notes": [[] for _ in range(state.n)],
            "sides": list(range(state.n)), "hands": [[face(c)] for c in state.cards] if open_hands else None,
            "score": {"lines": [{"label": "card", "values": state.cards}], "total": state.returns(),
                      "returns": state.returns()} if over else None}


pyspiel.register_game(_TYPE, TinyGame)
ENTRY = registry.register(registry.GameEntry(
    name=NAME, title="High card", example=NAME, players=(2, 3), rules=check, view=view,
    view_shape=ViewShape(ranks=tuple(map(str, range(CARDS))), zones=("Bets",), kinds=("call", "pass"),
                         score_lines=("card",)),
    params=(registry.Param("players", "int", 2, "2-3", min=2, max=3),),
    match=registry.MatchOffer("deals", (1, 3), 1), rule_bot=f"{__name__}:TinyRulesBot"))
