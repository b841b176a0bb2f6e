"""A classic Canasta match: hands until a side reaches the target score.

Each hand is one `python_classic_canasta` game. A hand's record (what
games.protocol.deal_record keeps) is each side's points for that hand (two
sides with two or four players, three with three); the running totals set the
next hand's initial-meld requirements (game parameters score0, score1, score2),
and the first player moves one seat to the left each hand. The match ends after
the first hand at which a side has the target or more and the highest total is
one side's alone (a tie at the top plays another hand); returns rank the sides
by their totals. A cap on the number of hands, reached only by play that scores
nothing, ends the match there.
"""

from __future__ import annotations

from games.params import GameParameterError

from typing import Any, Sequence

from games.classic_canasta.core import ClassicState

TARGETS = (2500, 5000, 7500, 10000)
# The game parameters next_deal sets for each hand: the rest is the same in every hand.
DEAL_PARAMETERS = ("score0", "score1", "score2", "first_player")


class ClassicCanastaMatch:
    """Satisfies games.protocol.MatchFormat: 5,000 points (7,500 with three players)
    unless told otherwise."""

    def __init__(self, players: int = 4, target: int | None = None, max_hands: int = 200):
        if players not in (2, 3, 4):
            raise GameParameterError(f"players={players!r}: classic Canasta is for 2, 3 or 4 players", param="players")
        target = target if target is not None else (7500 if players == 3 else 5000)
        if target not in TARGETS:
            raise GameParameterError(f"target={target}: a classic Canasta match is played to "
                             f"one of {', '.join(map(str, TARGETS))}", param="target")
        if not isinstance(max_hands, int) or max_hands < 1:
            raise GameParameterError(f"max_hands={max_hands!r}: must be a positive integer", param="max_hands")
        self.players = players
        self.sides = 2 if players == 4 else players
        self.target = target
        self.max_hands = max_hands

    def deal_record(self, state) -> list[float]:
        """Each side's points in a finished hand."""
        core: ClassicState = getattr(state, "core", state)
        if core.scores is None:
            raise ValueError("the hand is not over: it has no score yet")
        return [float(s.total) for s in core.scores]

    def totals(self, history: Sequence[Sequence[float]]) -> tuple[int, ...]:
        """Each side's running score after the hands in `history`."""
        for i, record in enumerate(history):
            if len(record) != self.sides:
                raise ValueError(f"hand {i}: a classic Canasta match of {self.players} keeps each "
                                 f"side's points ({self.sides} values, from games.protocol.deal_record), "
                                 f"not {len(record)} values")
        return tuple(int(sum(r[s] for r in history)) for s in range(self.sides))

    def is_over(self, history: Sequence[Sequence[float]]) -> bool:
        totals = self.totals(history)
        top = max(totals)
        return len(history) >= self.max_hands or (top >= self.target and totals.count(top) == 1)

    def next_deal(self, history: Sequence[Sequence[float]]) -> dict[str, Any] | None:
        if self.is_over(history):
            return None
        totals = self.totals(history) + (0,) * (3 - self.sides)
        return {"players": self.players, "score0": totals[0], "score1": totals[1],
                "score2": totals[2], "first_player": len(history) % self.players}

    def result(self, history: Sequence[Sequence[float]]) -> list[float]:
        """Each seat's side: (sides it finished ahead of - sides ahead of it) / (sides - 1);
        with two sides +1 for the winners and -1 for the losers."""
        if not self.is_over(history):
            raise ValueError("the match is not over yet")
        totals = self.totals(history)
        per_side = [sum((t > u) - (t < u) for u in totals) / (self.sides - 1) for t in totals]
        return [per_side[seat % self.sides] for seat in range(self.players)]

    @staticmethod
    def game_string(params: dict[str, Any]) -> str:
        """The OpenSpiel game string of a hand with these parameters."""
        return "python_classic_canasta(" + ",".join(f"{k}={v}" for k, v in params.items()) + ")"


def match_format(game: Any, target: int | None = None, max_hands: int = 200) -> ClassicCanastaMatch:
    """The harness's factory (eval.config.match_format): a match of the player count
    `game` (a loaded python_classic_canasta) was loaded with."""
    return ClassicCanastaMatch(game.num_players(), target, max_hands)
