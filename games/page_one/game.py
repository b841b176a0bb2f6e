"""Page One as an OpenSpiel game: `pyspiel.load_game("python_page_one(players=4)")`.

A thin wrapper: the pyspiel state holds one attribute, `core` (a PageOneState),
because OpenSpiel clones a Python state by deep-copying every attribute.
"""

from __future__ import annotations

import numpy as np
import pyspiel

from games import registry
from games.cards import DECK_SIZE, NUM_RANKS, suit_permuted
from games.page_one.leaf import page_one_value
from games.page_one.view import SHAPE as VIEW_SHAPE, page_one_view
from games.page_one.core import (DEFAULT_PARAMS, EV_FOLLOW, EV_LEAD, EV_PASS, NUM_ACTIONS,
                                 PageOneRules, PageOneState, PublicMemory, played_card)
from games.wrapper import CoreState, share_core_on_deepcopy, tensor_views

CARD_SLOTS = DECK_SIZE + 2   # 52 cards and two jokers

_GAME_TYPE = pyspiel.GameType(
    short_name="python_page_one",
    long_name="Page One (ページワン)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=6,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=DEFAULT_PARAMS,
)


class PageOneGame(pyspiel.Game):
    """Rank-based, zero-sum returns in [-1, 1]: see docs/rules/page_one.md."""


    def __init__(self, params=None):
        params = dict(params or {})
        self.rules = PageOneRules.from_params(params)
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=CARD_SLOTS,
            num_players=self.rules.players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=self.rules.max_decisions)
        super().__init__(_GAME_TYPE, info, params)

    def new_initial_state(self) -> "PageOneGameState":
        return PageOneGameState(self)

    def new_core(self) -> PageOneState:
        return PageOneState(self.rules)

    def make_py_observer(self, iig_obs_type=None, params=None) -> "PageOneObserver":
        return PageOneObserver(
            iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), self.rules, params)


class PageOneGameState(CoreState):
    """pyspiel.State over a PageOneState (games.wrapper)."""


share_core_on_deepcopy(PageOneState)


class PageOneObserver:
    """Observation and information-state tensors and strings.

    Seats are relative to the observer (index 0 is the observer). The
    information-state tensor is a fixed-size summary of the perfect-recall
    information state (cards each seat has played, cards known in each hand,
    suits each seat is known to lack); the string keeps the whole history.
    """

    # The index map of the information-state tensor (games/tensor_layout.py, docs/protocol/tensors.md):
    # each view's indexing words and what it holds.
    TENSOR_AXES = {"card": "0-51: suit * 13 + rank (suits ♠ ♥ ♦ ♣, ranks 2..A); 52, 53: the jokers",
                   "seat": "seat counted from the observer: 0 itself, k the seat k numbers above it (mod players)",
                   "suit": "0-3: ♠ ♥ ♦ ♣", "suit+joker": "0-3: ♠ ♥ ♦ ♣; 4: jokers",
                   "one": "a single number"}
    TENSOR_SEGMENTS = {
        "hand": ("card", "own hand: 1 for each card held"),
        "trick": ("seat x card", "the card each seat has put on the current trick"),
        "led_suit": ("suit", "the current trick's suit, one-hot"),
        "passed": ("seat", "1 for each seat that passed on the current trick"),
        "leader": ("seat", "the seat that led the current trick, one-hot"),
        "to_move": ("seat", "the seat to move, one-hot"),
        "hand_sizes": ("seat", "each hand's number of cards / deck size"),
        "stock_size": ("one", "cards in the stock / deck size"),
        "discard_size": ("one", "cards in the discard pile / deck size"),
        "out": ("seat", "1 for each seat that has gone out"),
        "tricks": ("one", "tricks played / the max_tricks parameter"),
        "played": ("seat x card", "every card each seat has played this deal"),
        "known": ("seat x card", "cards known to be in each other seat's hand (drawn in sight, taken up)"),
        "void": ("seat x suit+joker", "suits (and jokers) each seat is known to lack now"),
    }

    def __init__(self, iig_obs_type, rules: PageOneRules, params=None):
        if params:
            raise ValueError(f"observation parameters not supported; passed {params}")
        if iig_obs_type.private_info == pyspiel.PrivateInfoType.ALL_PLAYERS:
            raise ValueError("Page One has no all-players observer: hands are private")
        self.perfect_recall = iig_obs_type.perfect_recall
        self._memory: PublicMemory | None = None
        self.private = iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        self.rules = rules
        n = rules.players
        pieces = [("hand", CARD_SLOTS if self.private else 0, (CARD_SLOTS,) if self.private else (0,)),
                  ("trick", n * CARD_SLOTS, (n, CARD_SLOTS)),
                  ("led_suit", 4, (4,)),
                  ("passed", n, (n,)),
                  ("leader", n, (n,)),
                  ("to_move", n, (n,)),
                  ("hand_sizes", n, (n,)),
                  ("stock_size", 1, (1,)),
                  ("discard_size", 1, (1,)),
                  ("out", n, (n,)),
                  ("tricks", 1, (1,))]
        if self.perfect_recall:
            pieces += [("played", n * CARD_SLOTS, (n, CARD_SLOTS)),
                       ("known", n * CARD_SLOTS, (n, CARD_SLOTS)),
                       ("void", n * 5, (n, 5))]
        self.tensor, self.dict = tensor_views(pieces)

    def set_from(self, state, player: int) -> None:
        core: PageOneState = getattr(state, "core", state)
        n = core.n
        d = self.dict
        self.tensor.fill(0.0)
        scale = 1.0 / self.rules.deck_size
        if self.private:
            _set_cards(d["hand"], core.hands[player])
        for seat in range(n):
            rel = (seat - player) % n
            d["hand_sizes"][rel] = core.hands[seat].bit_count() * scale
            if seat in core.out:
                d["out"][rel] = 1.0
        if core.leader >= 0:
            d["leader"][(core.leader - player) % n] = 1.0
        if core.to_move >= 0:
            d["to_move"][(core.to_move - player) % n] = 1.0
        d["stock_size"][0] = core.stock.bit_count() * scale
        d["discard_size"][0] = core.discard.bit_count() * scale
        d["tricks"][0] = core.tricks / self.rules.max_tricks
        if core.led >= 0:
            d["led_suit"][core.led] = 1.0
            cell = core.log
            while cell is not None:
                cell, kind, seat, value = cell
                rel = (seat - player) % n
                if kind == EV_FOLLOW or kind == EV_LEAD:
                    d["trick"][rel, played_card(value)] = 1.0
                    if kind == EV_LEAD:
                        break
                elif kind == EV_PASS:
                    d["passed"][rel] = 1.0
        if self.perfect_recall:
            self._set_memory(core, player)

    def _set_memory(self, core: PageOneState, player: int) -> None:
        n = core.n
        played, known, void = self.dict["played"], self.dict["known"], self.dict["void"]
        if self._memory is None or len(self._memory.played) != n:
            self._memory = PublicMemory(n)
        memory = self._memory.update(core)    # incremental along one game
        cards_played, held, lacks = memory.played, memory.held, memory.lacks
        for seat in range(n):
            rel = (seat - player) % n
            _set_cards(played[rel], cards_played[seat])
            if seat != player:
                _set_cards(known[rel], held[seat])
                for s in range(5):
                    if lacks[seat] >> s & 1:
                        void[rel, s] = 1.0

    def string_from(self, state, player: int) -> str:
        core: PageOneState = getattr(state, "core", state)
        if self.perfect_recall:
            text = core.information_state_string(player)
        else:
            text = core.observation_string(player)
        if not self.private:
            text = "\n".join(line for line in text.split("\n") if " hand: " not in line)
        return text


def _set_cards(row: np.ndarray, mask: int) -> None:
    """Sets row[c] = 1 for each card c in the bitmask."""
    if mask:
        row[:] = np.unpackbits(np.frombuffer(mask.to_bytes(7, "little"), np.uint8),
                               bitorder="little")[:CARD_SLOTS]


def suit_permuted_action(action: int, perm: tuple[int, ...]) -> int:
    """An action under a suit permutation: a card played (0-51), or a joker (52 + 4 * joker + suit) named as a suit."""
    if action < 52:
        return suit_permuted(action, perm)
    joker, suit = divmod(action - 52, 4)
    return 52 + 4 * joker + perm[suit]


pyspiel.register_game(_GAME_TYPE, PageOneGame)

# Short names for the measured bots (agents.presets), usable wherever a spec is.
PRESETS = {
    # The strongest fair bot: +30 [+19, +39] over `rules` (1330 games, 450 deals, seed 1), 179 ms a move
    # (experiments/runs/search-page-one-strong.json).
    "page-one-strong": "pimc(worlds=40,iterations=25,rollout=rules,prior=shipped)",
}
STRONGEST = "page-one-strong"
# The table's levels: the plain bots and the shipped network, named, beside the strongest.
PRESETS.update({"page-one-beginner": "random", "page-one-club": "rules", "page-one-network": "neural"})
LEVELS = (
    registry.Level("beginner", "page-one-beginner", ("i47-level-page-one-random-rules",)),
    registry.Level("club", "page-one-club", ("i47-level-page-one-rules-random",)),
    registry.Level("strong", "page-one-network", ("neural-page-one", "i47-level-page-one-neural-random")),
    registry.Level("strongest", STRONGEST, ("search-page-one-strong", "i47-level-page-one-strong-random")),
)

registry.register(registry.GameEntry(
    name="python_page_one", title="Page One", example="python_page_one(players=4)",
    params=(
        registry.Param("players", "int", min=2, max=6, default=4,
                       help="2-6: 「人数：2〜6人くらい。4人くらいがおすすめです」"),
        registry.Param("hand_size", "int", min=4, max=7, default=4,
                       help="4-7: 「全員に4枚ずつ配ります」 / 「人数に合わせて5〜7枚配る遊び方もあります」"),
        registry.Param("jokers", "int", min=0, max=2, default=0,
                       help="0-2: 「ジョーカー：1〜2枚入れて、いちばん強く、どのマークの代わりにも出せるカードにする遊び方があります」"),
        registry.Param("empty_stock", "choice", choices=("pass", "reshuffle", "take"), default="pass",
                       help="`pass`, `reshuffle`, `take`: 「作り直す」「引き取る」「パス」: 「このサイトでは、3つ目の「パス」にしています」"),
        registry.Param("first_leader", "choice", choices=("random", "high_card"), default="random",
                       help="`random`, `high_card`: 「じゃんけんなどで決めます」 / 「全員が山札から1枚ずつ引いて、いちばん強いカードの人を親にする決め方もあります」"),
        registry.Param("until_last", "bool", default=False,
                       help="bool: 「芋掘り：「ページワン」などは言わずに、最下位が決まるまで続ける遊び方です」"),
        registry.Param("max_tricks", "int", min=1, max=1000000, default=3000,
                       help="1-1,000,000: 「3000回出し合っても終わらないゲームを「終わらなかった」としました」"),
    ),
    rules=PageOneRules.from_params, view=page_one_view, view_shape=VIEW_SHAPE, players=(2, 6),
    match=registry.MatchOffer("deals", (1, 2, 3, 5, 10), 1),
    core=PageOneState, leaf_value=page_one_value,
    rule_bot="agents.rules.page_one:PageOneRulesBot",
    presets=PRESETS, strongest=STRONGEST, levels=LEVELS,
    bots=(registry.BotOffer(PRESETS[STRONGEST],
                            "Strongest: PIMC guided by the network (+30 Elo over the rule bot), about 0.2 s a move"),),
    points_per_unit=None,      # returns are places, not points
    noticeable_loss=0.05,      # a twentieth of a place: the least a move must lose for the review to call it a mistake
    symmetry=registry.SuitLayout(card_views=("hand", "trick", "played", "known"), suit_views=("led_suit", "void"),
                                 action=suit_permuted_action),
    # 749 inputs (4 players), 60 actions, about 13 real decisions a game: two layers of 256
    # learn it in minutes and decide in well under 1 ms (docs/neural.md).
    network={"hidden": (256, 256)},
))

__all__ = ["PageOneGame", "PageOneGameState", "PageOneObserver", "NUM_RANKS"]
