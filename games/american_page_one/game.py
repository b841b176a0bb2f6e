"""American Page One as an OpenSpiel game:
`pyspiel.load_game("python_american_page_one(players=4)")`.

A thin wrapper: the pyspiel state holds one attribute, `core` (an
AmericanPageOneState), because OpenSpiel clones a Python state by deep-copying
every attribute.
"""

from __future__ import annotations

import numpy as np
import pyspiel

from games import registry
from games.cards import suit_permuted
from games.american_page_one.core import (CHANCE_OUTCOMES, DEFAULT_PARAMS, NUM_ACTIONS, NUM_KINDS,
                                          NAME_SUIT, NUM_RANKS, PHASE_NAMES, AmericanPageOneRules,
                                          AmericanPageOneState, FULL52, JOKER, hand_size)
from games.american_page_one.belief import public_memory
from games.american_page_one.leaf import american_page_one_value
from games.american_page_one.match import DEAL_PARAMETERS, AmericanPageOneMatch, match_format
from games.american_page_one.view import SHAPE as VIEW_SHAPE, american_page_one_view
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

    # The index map of the information-state tensor (games/tensor_layout.py, docs/protocol/tensors.md):
    # each view's indexing words and what it holds.
    TENSOR_AXES = {"kind": "0-51: suit * 13 + rank (suits ♠ ♥ ♦ ♣, ranks 2..A); 52: the joker",
                   "seat": "seat counted from the observer: 0 itself, k the seat k numbers above it (mod players)",
                   "suit": "0-3: ♠ ♥ ♦ ♣", "rank": "0-12: 2..A; 13: no rank (a named suit or a joker on top)",
                   "phase": "0-10: choose dealer, deal, starter, play, draw, after draw, same rank, "
                            "name suit, answer, dobon, over",
                   "one": "a single number"}
    TENSOR_SEGMENTS = {
        "hand": ("kind", "own hand: copies of each kind held / copies in the deck"),
        "top": ("kind", "the discard pile's top card, one-hot"),
        "suit": ("suit", "the suit to follow (named or the top card's), one-hot"),
        "rank": ("rank", "the rank to match, one-hot"),
        "clockwise": ("one", "1 while play goes clockwise"),
        "pending": ("one", "cards a run of draw-cards has piled up for the next seat / 64"),
        "challenge": ("one", "1 while a challenge is open"),
        "phase": ("phase", "the deal's phase, one-hot"),
        "to_move": ("seat", "the seat to move, one-hot"),
        "dealer": ("seat", "the dealer, one-hot"),
        "hand_sizes": ("seat", "each hand's number of cards / deck size"),
        "stock_size": ("one", "cards in the stock / deck size"),
        "discard_size": ("one", "cards in the discard pile / deck size"),
        "out": ("seat", "1 for each seat that has gone out"),
        "scores": ("seat", "each seat's running match score / the deck's points"),
        "last_deal": ("one", "1 in a match's last deal"),
        "played": ("seat x kind", "copies of each kind each seat has played / (2 x copies in the deck)"),
        "known": ("seat x kind", "copies of each kind known to be in each other seat's hand / copies"),
        "lacks": ("seat x kind", "kinds each other seat is known to lack now"),
    }

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
    """row[k] = the copies of kind k held, over the copies a deck has: a kind's two
    bits (lo and hi) unpacked at once, the jokers counted apart. A loop over the 53
    kinds was most of a value network's time at this game."""
    counts = _bits52(lo & FULL52) + _bits52(hi & FULL52)
    counts[JOKER] = (lo >> 52).bit_count()
    np.divide(counts, copies, out=row)


def _bits52(mask: int) -> np.ndarray:
    """The 52 low bits of `mask` as 0/1 bytes, then a zero for the joker's slot."""
    return np.unpackbits(np.frombuffer(mask.to_bytes(7, "little"), np.uint8), bitorder="little")[:53]


def suit_permuted_action(action: int, perm: tuple[int, ...]) -> int:
    """An action under a suit permutation: plays name a kind (0-51 suit-major, 52 the joker),
    actions NAME_SUIT to NAME_SUIT + 3 name a suit; the rest name no suit."""
    if action < 52:
        return suit_permuted(action, perm)
    if NAME_SUIT <= action < NAME_SUIT + 4:
        return NAME_SUIT + perm[action - NAME_SUIT]
    return action


pyspiel.register_game(_GAME_TYPE, AmericanPageOneGame)

# Short names for the measured bots (agents.presets), usable wherever a spec is.
PRESETS = {
    # The strongest fair bot: +27 [+17, +37] over `rules` (1772 games, 600 deals, seed 8), 153 ms a move
    # (experiments/runs/search-american-page-one-strong.json).
    "american-page-one-strong": ("ismcts(iterations=480,root=paired,rollout=rules,baseline=neural,assume=rules,"
                                 "utility=placement,confidence=1)"),
}
STRONGEST = "american-page-one-strong"
# The table's levels: the plain bots and the shipped network, named, beside the strongest.
PRESETS.update({"american-page-one-beginner": "random", "american-page-one-club": "rules",
                "american-page-one-network": "neural"})
LEVELS = (
    registry.Level("beginner", "american-page-one-beginner", ("i47-level-american-page-one-random-rules",)),
    registry.Level("club", "american-page-one-club", ("i47-level-american-page-one-rules-random",)),
    registry.Level("strong", "american-page-one-network",
                   ("neural-american-page-one", "i47-level-american-page-one-neural-random")),
    registry.Level("strongest", STRONGEST, ("search-american-page-one-strong",
                                            "i47-level-american-page-one-strong-random")),
)

registry.register(registry.GameEntry(
    name="python_american_page_one", title="American Page One", example="python_american_page_one(players=4)",
    params=(
        registry.Param("players", "int", min=2, max=7, default=4,
                       help="2-7: 「参加者は3～7人程度が適当。」 **Decision:** 2 is allowed too."),
        registry.Param("hand_size", "int", min=0, max=10, default=0,
                       help="0-10: 「親は手札を人数に応じて5～7枚程度配る。」"),
        registry.Param("dealer", "int", min=-1, bound="[-1, players - 1]", default=-1,
                       help="-1, 0..players-1: 「まず、じゃんけんなど任意の方法で親を決める。」"),
        registry.Param("draw_two", "bool", default=True,
                       help="bool: 「2（Two（ツー））」; false: 「一部またはすべての特殊カードを採用しないルール」"),
        registry.Param("draw_three", "bool", default=True,
                       help="bool: 「3（Three（スリー））」; 「特に3は…採用されない場合が多い。」"),
        registry.Param("wild_eight", "bool", default=True,
                       help="bool: 「8（Eight（エイト））」"),
        registry.Param("jokers", "bool", default=True,
                       help="bool: 「Joker（Joker（ジョーカー））」"),
        registry.Param("skip", "choice", choices=("jack", "ace", "seven", "none"), default="jack",
                       help="`jack`, `ace`, `seven`, `none`: 「J（Jump（ジャンプ））…次のプレイヤーは順番が飛ばされる。Aや7の場合もある。」"),
        registry.Param("reverse", "choice", choices=("queen", "nine", "jack", "none"), default="queen",
                       help="`queen`, `nine`, `jack`, `none`: 「Q（Quick Turn（クイック・ターン））…ゲーム進行の順番が逆になる。9やJの場合もある。」"),
        registry.Param("linked_draws", "bool", default=False,
                       help="bool: 「2・3・Jokerがリンクするルール」"),
        registry.Param("unanswerable", "bool", default=False,
                       help="bool: 「2・3・Jokerを回避できないルール」"),
        registry.Param("multi_play", "bool", default=False,
                       help="bool: 「複数の同位札（同じランクのカード）を同時に出せるルール」"),
        registry.Param("no_special_finish", "bool", default=False,
                       help="bool: 「特殊カードでのアガリを禁止するルール」"),
        registry.Param("play_drawn", "bool", default=True,
                       help="bool: false: 「山札からカードを引いても、その場では出せないルール」"),
        registry.Param("draw_until_playable", "bool", default=False,
                       help="bool: 「出せるカードが出るまで、山札から何枚でもカードを引くルール」"),
        registry.Param("penalty", "int", min=0, max=10, default=2,
                       help="0-10: 「ペナルティに関するルール」: 「これが1枚や5枚などだったり、そもそもペナルティが存在しない場合もある。」"),
        registry.Param("starter", "choice", choices=("dealer", "redraw_joker"), default="dealer",
                       help="`dealer`, `redraw_joker`: 「この台札は親が場に出したものとみなして進行する。」 / 「最初の台札で特殊カードが出た場合の処理に関してのルール」"),
        registry.Param("until_last", "bool", default=False,
                       help="bool: 「最後の1人になるまでゲームを続行するルール」"),
        registry.Param("dobon", "bool", default=False,
                       help="bool: 「ドボンルール」"),
        registry.Param("dobon_gaeshi", "bool", default=False,
                       help="bool: 「これを「ドボン返し」という。」"),
        registry.Param("challenge", "bool", default=False,
                       help="bool: 「チャレンジルール」"),
        registry.Param("max_turns", "int", min=1, max=1000000, default=1000,
                       help='1-1,000,000: none: our cap, see "The cap"'),
        registry.Param("scores", "str", default="",
                       help="n numbers separated by `;`: 「最初に決めたラウンド数戦い」: the running match score, set by the match"),
        registry.Param("deals_left", "int", min=0, max=1000000, default=0,
                       help="≥ 0: the deals of the match after this one, set by the match"),
    ),
    rules=AmericanPageOneRules.from_params, view=american_page_one_view, view_shape=VIEW_SHAPE, players=(2, 7),
    match=registry.MatchOffer(
        "deals", (1, 3, 5, 10), 3, sets=DEAL_PARAMETERS,
        table=lambda players, params, deals, seed: AmericanPageOneMatch(deals, params, first_dealer=seed % players),
        harness=match_format),
    core=AmericanPageOneState, leaf_value=american_page_one_value,
    # What search's `auto` stands for with random rollouts (a bot's rollouts end a deal, and the
    # specs measured with them keep their meaning): with 10 moves and 16 worlds,
    # ismcts(iterations=300) takes 18 ms of CPU a move and pimc(worlds=10,iterations=30) 15 ms
    # (20 moves and 32 worlds: 28 and 21 ms; 60 and 52 ms of wall time in a two-worker
    # tournament on the loaded 2-core machine), where playing to the end with a fresh world
    # every iteration took 840 and 760 ms (experiments/logs/search.md, Speed).
    search_defaults={"horizon": 10, "pool": 16},
    rule_bot="agents.rules.american_page_one:AmericanPageOneRulesBot",
    presets=PRESETS, strongest=STRONGEST, levels=LEVELS,
    bots=(registry.BotOffer(PRESETS[STRONGEST],
                            "Strongest: ISMCTS leaving the network's move on evidence (+27 Elo over the rule bot), "
                            "about 0.15 s a move"),),
    points_per_unit=1.0,       # returns are the deal's points
    noticeable_loss=10.0,      # 10 points: the least a move must lose for the review to call it a mistake
    symmetry=registry.SuitLayout(card_views=("hand", "top", "played", "known", "lacks"), suit_views=("suit",),
                                 action=suit_permuted_action),
))

__all__ = ["AmericanPageOneGame", "AmericanPageOneGameState", "AmericanPageOneObserver"]
