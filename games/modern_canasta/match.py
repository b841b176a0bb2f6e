"""A Modern American Canasta match: hands until a side reaches the target score.

Each hand is one `python_modern_canasta` game. A hand's record (what
games.protocol.deal_record keeps) is the two sides' points for that hand; the
running totals set the next hand's initial-meld requirement (game parameters
score0 and score1), and the first player moves one seat to the left each hand.
The match ends after the first hand at which a side has the target or more and
the totals differ (equal totals play another hand); the side with more points
wins. A cap on the number of hands, reached only by play that scores nothing
(random bots can sink for ever), ends the match there, the higher total winning.
"""

from __future__ import annotations

from games.params import GameParameterError

from typing import Any, Sequence

from games.modern_canasta.core import PLAYERS, CanastaState

TARGETS = (2500, 5000, 7500, 8500, 10000)
# The game parameters next_deal sets for each hand: the rest is the same in every hand.
DEAL_PARAMETERS = ("score0", "score1", "first_player")


def match_format(game: Any, target: int = 8500, max_hands: int = 200) -> "ModernCanastaMatch":
    """The harness's match (`--match target=...,max_hands=...`)."""
    return ModernCanastaMatch(target, max_hands)


class ModernCanastaMatch:
    """Satisfies games.protocol.MatchFormat; 8500 points unless told otherwise."""

    def __init__(self, target: int = 8500, max_hands: int = 200):
        if target not in TARGETS:
            raise GameParameterError(f"target={target}: a Modern American Canasta match is played to "
                             f"one of {', '.join(map(str, TARGETS))}", param="target")
        if not isinstance(max_hands, int) or max_hands < 1:
            raise GameParameterError(f"max_hands={max_hands!r}: must be a positive integer", param="max_hands")
        self.target = target
        self.max_hands = max_hands

    def deal_record(self, state) -> list[float]:
        """The two sides' points in a finished hand: [seats 0 and 2, seats 1 and 3]."""
        core: CanastaState = getattr(state, "core", state)
        if core.scores is None:
            raise ValueError("the hand is not over: it has no score yet")
        return [float(core.scores[0].total), float(core.scores[1].total)]

    def totals(self, history: Sequence[Sequence[float]]) -> tuple[int, int]:
        """Each side's running score after the hands in `history`."""
        for i, record in enumerate(history):
            if len(record) != 2:
                raise ValueError(f"hand {i}: a Canasta match keeps each side's points (2 values, from "
                                 f"games.protocol.deal_record), not {len(record)} values")
        return (int(sum(r[0] for r in history)), int(sum(r[1] for r in history)))

    def is_over(self, history: Sequence[Sequence[float]]) -> bool:
        a, b = self.totals(history)
        return len(history) >= self.max_hands or (max(a, b) >= self.target and a != b)

    def next_deal(self, history: Sequence[Sequence[float]]) -> dict[str, Any] | None:
        if self.is_over(history):
            return None
        a, b = self.totals(history)
        return {"score0": a, "score1": b, "first_player": len(history) % PLAYERS}

    def result(self, history: Sequence[Sequence[float]]) -> list[float]:
        """+1 for each seat of the winning side, -1 for the losers, 0 on a tie at the cap."""
        if not self.is_over(history):
            raise ValueError("the match is not over yet")
        a, b = self.totals(history)
        x = 1.0 if a > b else (-1.0 if b > a else 0.0)
        return [x, -x, x, -x]

    @staticmethod
    def game_string(params: dict[str, Any]) -> str:
        """The OpenSpiel game string of a hand with these parameters."""
        return "python_modern_canasta(" + ",".join(f"{k}={v}" for k, v in params.items()) + ")"
