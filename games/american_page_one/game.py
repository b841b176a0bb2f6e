"""American Page One as an OpenSpiel game:
`pyspiel.load_game("python_american_page_one(players=4)")`.

A thin wrapper: the pyspiel state holds one attribute, `core` (an
AmericanPageOneState), because OpenSpiel clones a Python state by deep-copying
every attribute.
"""

from __future__ import annotations

import numpy as np
import pyspiel

from games.american_page_one.core import (CHANCE_OUTCOMES, DEFAULT_PARAMS, NUM_ACTIONS, NUM_KINDS,
                                          NUM_RANKS, PHASE_NAMES, AmericanPageOneRules,
                                          AmericanPageOneState, count_of, hand_size)
from games.american_page_one.belief import public_memory
from games.wrapper import CoreState, share_core_on_deepcopy, tensor_views

_GAME_TYPE = pyspiel.GameType(
    short_name="python_american_page_one",
    long_name="American Page One (アメリカンページワン)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=7,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=DEFAULT_PARAMS,
)


class AmericanPageOneGame(pyspiel.Game):
    """Returns are the deal's points (zero-sum): see docs/rules/american_page_one.md."""

    points_per_unit = 1.0   # one unit of the returns in the game's points (returns are the deal's points)
    noticeable_loss = 10.0   # the least a move must lose, in returns, for the review to call it a mistake (10 points)

    def __init__(self, params=None):
        params = dict(params or {})
        self.rules = AmericanPageOneRules.from_params(params)
        bound = float(max(self.rules.tables.deck_points, self.rules.players - 1))
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=CHANCE_OUTCOMES,
            num_players=self.rules.players,
            min_utility=-bound,
            max_utility=bound,
            utility_sum=0.0,
            max_game_length=self.rules.max_decisions)
        super().__init__(_GAME_TYPE, info, params)

    def new_initial_state(self) -> "AmericanPageOneGameState":
        return AmericanPageOneGameState(self)

    def new_core(self) -> AmericanPageOneState:
        return AmericanPageOneState(self.rules)

    def make_py_observer(self, iig_obs_type=None, params=None) -> "AmericanPageOneObserver":
        return AmericanPageOneObserver(
            iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), self.rules, params)


class AmericanPageOneGameState(CoreState):
    """pyspiel.State over an AmericanPageOneState (games.wrapper)."""


share_core_on_deepcopy(AmericanPageOneState)


class AmericanPageOneObserver:
    """Observation and information-state tensors and strings.

    Seats are relative to the observer (index 0 is the observer). Card counts
    are per kind (53: the 52 cards and the joker), scaled to [0, 1] by the
    copies in the deck. The information-state tensor adds a fixed-size summary
    of the perfect-recall information state: per seat, the cards it has played,
    the cards known to be in its hand, and the cards it is known to lack now;
    the string keeps the whole history.
    """

    def __init__(self, iig_obs_type, rules: AmericanPageOneRules, params=None):
        if params:
            raise ValueError(f"observation parameters not supported; passed {params}")
        if iig_obs_type.private_info == pyspiel.PrivateInfoType.ALL_PLAYERS:
            raise ValueError("American Page One has no all-players observer: hands are private")
        self.perfect_recall = iig_obs_type.perfect_recall
        self.private = iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        self.rules = rules
        n = rules.players
        pieces = [("hand", NUM_KINDS if self.private else 0, (NUM_KINDS,) if self.private else (0,)),
                  ("top", NUM_KINDS, (NUM_KINDS,)),
                  ("suit", 4, (4,)),
                  ("rank", NUM_RANKS + 1, (NUM_RANKS + 1,)),
                  ("clockwise", 1, (1,)),
                  ("pending", 1, (1,)),
                  ("challenge", 1, (1,)),
                  ("phase", len(PHASE_NAMES), (len(PHASE_NAMES),)),
                  ("to_move", n, (n,)),
                  ("dealer", n, (n,)),
                  ("hand_sizes", n, (n,)),
                  ("stock_size", 1, (1,)),
                  ("discard_size", 1, (1,)),
                  ("out", n, (n,)),
                  ("scores", n, (n,)),
                  ("last_deal", 1, (1,))]
        if self.perfect_recall:
            pieces += [("played", n * NUM_KINDS, (n, NUM_KINDS)),
                       ("known", n * NUM_KINDS, (n, NUM_KINDS)),
                       ("lacks", n * NUM_KINDS, (n, NUM_KINDS))]
        self.tensor, self.dict = tensor_views(pieces)
        self.copies = np.array(rules.tables.counts, np.float32).clip(min=1.0)

    def set_from(self, state, player: int) -> None:
        core: AmericanPageOneState = getattr(state, "core", state)
        rules = self.rules
        n = core.n
        d = self.dict
        self.tensor.fill(0.0)
        scale = 1.0 / rules.deck_size
        if self.private:
            _set_counts(d["hand"], core.lo[player], core.hi[player], self.copies)
        if core.top >= 0:
            d["top"][core.top] = 1.0
            d["rank"][core.rank] = 1.0
        if core.suit >= 0:
            d["suit"][core.suit] = 1.0
        d["clockwise"][0] = 1.0 if core.dir == 1 else 0.0
        d["pending"][0] = core.pending / 64.0
        d["challenge"][0] = 1.0 if core.chal is not None else 0.0
        d["phase"][core.phase] = 1.0
        if core.to_move >= 0:
            d["to_move"][(core.to_move - player) % n] = 1.0
        if core.dealer >= 0:
            d["dealer"][(core.dealer - player) % n] = 1.0
        points = float(rules.tables.deck_points)
        for seat in range(n):
            rel = (seat - player) % n
            d["hand_sizes"][rel] = hand_size(core.lo[seat], core.hi[seat]) * scale
            d["scores"][rel] = rules.scores[seat] / points
            if seat in core.out:
                d["out"][rel] = 1.0
        d["stock_size"][0] = len(core.stock) * scale
        d["discard_size"][0] = hand_size(core.pile_lo, core.pile_hi) * scale
        d["last_deal"][0] = 1.0 if rules.deals_left == 0 else 0.0
        if self.perfect_recall:
            played, known, lacks = public_memory(core, player if self.private else -1)
            for seat in range(n):
                rel = (seat - player) % n
                d["played"][rel] = np.asarray(played[seat], np.float32) / (2.0 * self.copies)
                if seat != player:
                    d["known"][rel] = np.asarray(known[seat], np.float32) / self.copies
                    for k in range(NUM_KINDS):
                        if lacks[seat] >> k & 1:
                            d["lacks"][rel, k] = 1.0

    def string_from(self, state, player: int) -> str:
        core: AmericanPageOneState = getattr(state, "core", state)
        if self.perfect_recall:
            return core.information_state_string(player, self.private)
        return core.observation_string(player, self.private)


def _set_counts(row: np.ndarray, lo: int, hi: int, copies: np.ndarray) -> None:
    for k in range(NUM_KINDS):
        c = count_of(lo, hi, k)
        if c:
            row[k] = c / copies[k]


pyspiel.register_game(_GAME_TYPE, AmericanPageOneGame)

__all__ = ["AmericanPageOneGame", "AmericanPageOneGameState", "AmericanPageOneObserver"]
