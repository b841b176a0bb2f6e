"""A match of American Page One: 「最初に決めたラウンド数戦い、ポイントの高かったプレイヤーの優勝」.

Each deal is an ordinary game, `python_american_page_one` loaded with the
parameters `next_deal` gives: the variant's own, the dealer (passing to the
left each deal), the running scores and how many deals follow, so that bots
can see the standing. The match's result is the cumulative score.
Satisfies games.protocol.MatchFormat; the harness makes one with
`match_format(game, deals=...)` (`--match deals=5`).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from games.american_page_one.core import AmericanPageOneRules
from games.params import GameParameterError

GAME_NAME = "python_american_page_one"
# The game parameters next_deal sets for each deal: the rest is the variant, the same in every deal.
DEAL_PARAMETERS = ("dealer", "scores", "deals_left")


class AmericanPageOneMatch:
    """A fixed number of deals; the dealer rotates clockwise from `first_dealer`."""

    def __init__(self, deals: int, params: Mapping[str, Any] | None = None, first_dealer: int = 0):
        params = dict(params or {})
        clash = sorted(set(params) & set(DEAL_PARAMETERS))
        if clash:
            raise GameParameterError(f"{clash}: set by the match for each deal, not by its parameters", param=clash)
        if isinstance(deals, bool) or not isinstance(deals, int) or deals < 1:
            raise GameParameterError(f"deals={deals!r}: must be a positive integer", param="deals")
        self.rules = AmericanPageOneRules.from_params(params)     # validates the variant once
        if not 0 <= first_dealer < self.rules.players:
            raise GameParameterError(f"first_dealer={first_dealer}: must be a seat in [0, {self.rules.players - 1}]",
                                     param="first_dealer")
        self.deals = deals
        self.params = params
        self.first_dealer = first_dealer

    @property
    def players(self) -> int:
        return self.rules.players

    def scores(self, history: Sequence[Sequence[float]]) -> list[float]:
        """The cumulative score of each seat after the deals in `history`."""
        total = [0.0] * self.players
        for returns in history:
            if len(returns) != self.players:
                raise ValueError(f"a deal's returns have {len(returns)} entries, expected {self.players}")
            for seat, r in enumerate(returns):
                total[seat] += r
        return total

    def next_deal(self, history: Sequence[Sequence[float]]) -> dict[str, Any] | None:
        """Game parameters of the next deal, or None when the match is over."""
        played = len(history)
        if played >= self.deals:
            return None
        return {**self.params,
                "dealer": (self.first_dealer + played) % self.players,
                "scores": ";".join(f"{s:g}" for s in self.scores(history)),
                "deals_left": self.deals - played - 1}

    def result(self, history: Sequence[Sequence[float]]) -> list[float]:
        """The match's returns per seat: the cumulative scores (zero-sum, as each deal is)."""
        if len(history) != self.deals:
            raise ValueError(f"the match has {self.deals} deals, {len(history)} were played")
        return self.scores(history)

    @staticmethod
    def game_string(params: Mapping[str, Any]) -> str:
        """The OpenSpiel game string of one deal (params from next_deal)."""
        def value(v: Any) -> str:
            return ("true" if v else "false") if isinstance(v, bool) else str(v)
        return f"{GAME_NAME}({','.join(f'{k}={value(v)}' for k, v in params.items())})"


def match_format(game: Any, deals: int, first_dealer: int = 0) -> AmericanPageOneMatch:
    """The harness's factory (eval.config.match_format): `deals` deals of the variant
    `game` (a loaded python_american_page_one) was loaded with."""
    params = {k: v for k, v in game.get_parameters().items() if k not in DEAL_PARAMETERS}
    return AmericanPageOneMatch(deals, params, first_dealer)
