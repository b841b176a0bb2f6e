"""A Canasta player that makes one kind of decision by a rule-bot strategy and
every other decision by another bot: `guided(strategy=rules(pile_min=5),decides=draw)`.

A study of a setting between two rule bots says what the setting is worth for
the rule bot. Whether the answer holds for a stronger player is asked by letting
that player (`other`, the shipped network `neural` by default) make every
decision but the one the setting is about, which the strategy makes:

    draw      the turn's first choice, to take the pile or draw (the pile_* settings)
    initial   every decision of a player whose side has not made its initial meld
              (taking the pile to meld, what goes down, what it discards meanwhile:
              initial_*, pile_min_before, start_* in the initial meld)
    discard   which card to throw, whenever the other bot throws one (discard_*);
              the other bot decides when to stop melding and discard
    answer    the answer to the partner's "may I go out?" (answer, answer_limit)

The strategy is the rule bot with its settings, and like the other bot it reads
only what its seat sees, so the player stays fair.
"""

from __future__ import annotations

import pyspiel

from agents import make_bot
from agents.base import CardBot, rules_core
from games.modern_canasta.actions import DISCARD_BASE, MELD_BASE
from games.modern_canasta.core import ANSWER, TURN

DECISIONS = ("draw", "initial", "discard", "answer")


class GuidedBot(CardBot):
    """The strategy's move in its decision class, the other bot's elsewhere."""

    def __init__(self, player: int, strategy: pyspiel.Bot, other: pyspiel.Bot, decides: str):
        super().__init__(player)
        self.strategy, self.other, self.decides = strategy, other, decides

    def step(self, state) -> int:
        core = rules_core(state)
        decides = self.decides
        if decides == "draw":
            mine = core.phase == TURN
        elif decides == "answer":
            mine = core.phase == ANSWER
        elif decides == "initial":
            mine = core.phase != ANSWER and not core.melded >> (core.actor & 1) & 1
        else:
            action = self.other.step(state)
            if DISCARD_BASE <= action < MELD_BASE:
                return self.strategy.discard(state)
            return action
        return self.strategy.step(state) if mine else self.other.step(state)

    def restart_at(self, state) -> None:
        self.strategy.restart_at(state)
        self.other.restart_at(state)

    def inform_action(self, state, player_id: int, action: int) -> None:
        self.strategy.inform_action(state, player_id, action)
        self.other.inform_action(state, player_id, action)


def make_guided(game: pyspiel.Game, player: int, seed: int = 0, *, strategy: str, decides: str,
                other: str = "neural") -> pyspiel.Bot:
    """The make_bot factory of `guided(strategy=rules(...),decides=CLASS,other=SPEC)`."""
    if game.get_type().short_name != "python_modern_canasta":
        raise ValueError(f"guided: plays python_modern_canasta, not {game.get_type().short_name}")
    if decides not in DECISIONS:
        raise ValueError(f"guided: decides={decides}: expected one of {', '.join(DECISIONS)}")
    rules = make_bot(str(strategy), game, player, seed)
    if not hasattr(rules, "discard"):
        raise ValueError(f"guided: strategy={strategy}: expected the Canasta rule bot, rules(...)")
    return GuidedBot(player, rules, make_bot(str(other), game, player, seed), decides)
