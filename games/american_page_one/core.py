"""American Page One (アメリカンページワン) rules core: one explicit state machine, no OpenSpiel.

Two 54-card decks (108 cards, 4 jokers). Play a card of the top card's suit or
rank (8s and jokers are wild and name a suit); or draw one card, then play it if
it fits, or pass. 2, 3 and joker make the next player draw (stackable), J skips,
Q reverses. The first to empty their hand wins the deal and scores the others'
hand points. docs/rules/american_page_one.md gives every rule and parameter
beside the page's sentence.

Cards are *kinds*: 0..51 are games.cards ids (suit * 13 + rank), 52 is a joker.
A hand holds up to two copies of a suited kind and up to four jokers, so it is
two ints: `lo` has bit k when the hand holds a k, `hi` has bit k when it holds
two, and the jokers are a unary count in bits 52..55 of `lo` (three jokers:
bits 52, 53, 54). The pair is canonical (one pair per multiset), legal plays are
`lo & mask` (a copy never matters for what can be played) and the hand size is
two popcounts. The stock is an unordered list of kinds: a draw picks an index,
which is the cheapest uniform choice among physical cards.

Every deal, starter and draw is an explicit chance event; decisions and public
facts go to an immutable cons-list event log shared between clones, from which
the information state, the resampler and the action history are read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from games.eventlog import LoggedCore, values_of
from games.cards import NUM_RANKS, RANK_SYMBOLS, SUIT_CARDS, SUIT_SYMBOLS, parse_card
from games.params import GameParameterError, bool_param, choice_param, int_param
from games.protocol import CHANCE, TERMINAL, IllegalActionError

# ------------------------------------------------------------------ cards
JOKER = 52                 # the kind of a joker
NUM_KINDS = 53
FULL52 = (1 << 52) - 1
JOKER_BITS = 0xF << 52     # the unary joker count of a hand or pile
R2, R3, R7, R8, R9, RJ, RQ, RK, RA = 0, 1, 5, 6, 7, 9, 10, 11, 12
NO_RANK = NUM_RANKS        # the rank to match after a suit was named
SUIT_OF = tuple(k // NUM_RANKS for k in range(52)) + (-1,)
RANK_OF = tuple(k % NUM_RANKS for k in range(52)) + (NO_RANK,)
RANK_COLUMN = tuple(sum(1 << (s * NUM_RANKS + r) for s in range(4)) for r in range(NUM_RANKS))
SUIT_BITS = tuple(0x1FFF << (NUM_RANKS * s) for s in range(4))
# Dobon counts A as 1, 2..10 as printed, J 11, Q 12, K 13, a joker 0.
DOBON_VALUE = tuple((2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 1)[k % NUM_RANKS] for k in range(52)) + (0,)
def _subset_sums(values: tuple[int, ...]) -> tuple[int, ...]:
    """sums[m]: the sum of values[r] over the set bits r of the 13-bit mask m."""
    sums = [0] * (1 << NUM_RANKS)
    for m in range(1, 1 << NUM_RANKS):
        low = m & -m
        sums[m] = sums[m ^ low] + values[low.bit_length() - 1]
    return tuple(sums)


_DOBON13 = _subset_sums(DOBON_VALUE[:NUM_RANKS])
_S0, _S1, _S2, _S3 = SUIT_CARDS

# ---------------------------------------------------------------- actions
DRAW = 53          # draw a card; at a pending draw, take the penalty
PASS = 54          # end the turn without playing (after drawing, or with nothing to draw)
NAME_SUIT = 55     # 55..58: name suit s after an 8 or a joker
DONE = 59          # stop adding cards of the same rank (multi_play)
DOBON = 60         # call Dobon (or Dobon-gaeshi)
NO_DOBON = 61      # do not call
CHALLENGE = 62     # challenge the joker just played
NUM_ACTIONS = 63
CHANCE_OUTCOMES = NUM_KINDS   # a drawn kind, or the dealer's seat (< 7)

# ----------------------------------------------------------------- phases
CHOOSE_DEALER, DEAL, STARTER, PLAY, DRAWING, AFTER_DRAW, MULTI, NAME, ANSWER, OFFER, OVER = range(11)
PHASE_NAMES = ("choose dealer", "deal", "starter", "play", "draw", "after draw", "same rank",
               "name suit", "answer", "dobon", "over")

# What follows a run of draws.
THEN_AFTER_DRAW, THEN_SKIP, THEN_UNTIL, THEN_FINISH, THEN_RESUME, THEN_PENALTY = range(6)

# Card effects.
FX_NONE, FX_DRAW, FX_SKIP, FX_REVERSE, FX_WILD, FX_JOKER = range(6)

# ------------------------------------------------------------------ events
# Each log cell is (previous cell, kind, seat, value). Kinds 0..5 carry the
# value given to apply_action (history() keeps exactly those).
EV_DEALER = 0      # chance chose `seat` as dealer
EV_DEAL = 1        # seat was dealt `value` (seen by seat only)
EV_STARTER = 2     # the starter card `value` was turned (public)
EV_DRAW = 3        # seat drew `value`, a penalty or a pending draw (seen by seat only)
EV_DRAW_ONE = 4    # seat drew `value` by choice, or for want of a playable card: a card it may
                   # play at once (seen by seat only; which of the two kinds a draw is, is public)
EV_ACT = 5         # seat took action `value` (public)
_HISTORY_EVENTS = frozenset(range(EV_ACT + 1))   # the events whose values are pyspiel's history
EV_STARTER_BACK = 6  # the joker starter went back into the stock (starter=redraw_joker)
EV_RESHUFFLE = 7   # the discards under the top card became the stock: value (lo, hi)
EV_SHOW = 8        # seat laid its hand down for all to see (a Dobon call): value (lo, hi)
EV_SHOW_TO = 9     # seat showed its hand to a challenger only: value (challenger, lo, hi)
EV_VERDICT = 10    # the challenge of seat's joker: value (1 if it held a card of `mask`, else 0; mask)
EV_RETURN = 11     # cards `value` (a tuple of kinds) went back to seat's hand (Dobon)
EV_PENALTY = 12    # seat went out on a special card and draws `value` cards (no_special_finish)
EV_STUCK = 13      # seat could neither play nor draw and passed: it lacks kinds `value` (draw_until_playable)
EV_OUT = 14        # seat emptied its hand
EV_TIMEOUT = 15    # the max_turns cap ended the deal
EV_VOID = 16       # public deduction: seat holds no card of the kinds in `value` (a kind set, bit 52
                   # the joker): it draws for want of a playable card, or a challenge of it failed

# Rank names, not digits: OpenSpiel would read skip=7 as an int.
SKIP_RANKS = {"jack": RJ, "ace": RA, "seven": R7, "none": -1}
REVERSE_RANKS = {"queen": RQ, "nine": R9, "jack": RJ, "none": -1}
STARTER_RULES = ("dealer", "redraw_joker")

DEFAULT_PARAMS: dict[str, Any] = {
    "players": 4,
    "hand_size": 0,
    "dealer": -1,
    "draw_two": True,
    "draw_three": True,
    "wild_eight": True,
    "jokers": True,
    "skip": "jack",
    "reverse": "queen",
    "linked_draws": False,
    "unanswerable": False,
    "multi_play": False,
    "no_special_finish": False,
    "play_drawn": True,
    "draw_until_playable": False,
    "penalty": 2,
    "starter": "dealer",
    "until_last": False,
    "dobon": False,
    "dobon_gaeshi": False,
    "challenge": False,
    "max_turns": 1000,
    "scores": "",
    "deals_left": 0,
}


def default_hand_size(players: int) -> int:
    """「人数に応じて5～7枚程度」: 7 cards up to four players, 6 for five, 5 for six or seven."""
    return 7 if players <= 4 else 6 if players == 5 else 5


@dataclass(frozen=True)
class AmericanPageOneRules:
    """The validated parameters of one American Page One variant, and the
    lookup tables the hot paths use (built once per variant)."""

    players: int = 4
    hand_size: int = 7
    dealer: int = -1
    draw_two: bool = True
    draw_three: bool = True
    wild_eight: bool = True
    jokers: bool = True
    skip: str = "jack"
    reverse: str = "queen"
    linked_draws: bool = False
    unanswerable: bool = False
    multi_play: bool = False
    no_special_finish: bool = False
    play_drawn: bool = True
    draw_until_playable: bool = False
    penalty: int = 2
    starter: str = "dealer"
    until_last: bool = False
    dobon: bool = False
    dobon_gaeshi: bool = False
    challenge: bool = False
    max_turns: int = 1000
    scores: tuple[float, ...] = ()
    deals_left: int = 0
    tables: "_Tables" = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        # Tables depend on neither the dealer nor the match standing: variants
        # that differ only there (every deal of a match) share them.
        key = tuple(getattr(self, f) for f in self.__dataclass_fields__
                    if f not in ("dealer", "scores", "deals_left", "tables"))
        tables = _TABLES.get(key)
        if tables is None:
            tables = _TABLES[key] = _Tables(self)
        object.__setattr__(self, "tables", tables)

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> "AmericanPageOneRules":
        unknown = set(params) - set(DEFAULT_PARAMS)
        if unknown:
            raise GameParameterError(f"unknown American Page One parameter(s) {sorted(unknown)}; "
                                     f"known: {sorted(DEFAULT_PARAMS)}")
        p = {**DEFAULT_PARAMS, **params}
        players = int_param(p, "players", 2, 7)
        hand_size = int_param(p, "hand_size", 0, 10) or default_hand_size(players)
        rules = dict(
            players=players, hand_size=hand_size,
            dealer=int_param(p, "dealer", -1, players - 1),
            draw_two=bool_param(p, "draw_two"), draw_three=bool_param(p, "draw_three"),
            wild_eight=bool_param(p, "wild_eight"), jokers=bool_param(p, "jokers"),
            skip=choice_param(p, "skip", tuple(SKIP_RANKS)),
            reverse=choice_param(p, "reverse", tuple(REVERSE_RANKS)),
            linked_draws=bool_param(p, "linked_draws"), unanswerable=bool_param(p, "unanswerable"),
            multi_play=bool_param(p, "multi_play"),
            no_special_finish=bool_param(p, "no_special_finish"),
            play_drawn=bool_param(p, "play_drawn"),
            draw_until_playable=bool_param(p, "draw_until_playable"),
            penalty=int_param(p, "penalty", 0, 10),
            starter=choice_param(p, "starter", STARTER_RULES),
            until_last=bool_param(p, "until_last"), dobon=bool_param(p, "dobon"),
            dobon_gaeshi=bool_param(p, "dobon_gaeshi"), challenge=bool_param(p, "challenge"),
            max_turns=int_param(p, "max_turns", 1, 1_000_000),
            scores=_parse_scores(p["scores"], players),
            deals_left=int_param(p, "deals_left", 0, 1_000_000))
        _check_combination(rules)
        return cls(**rules)

    @property
    def deck_size(self) -> int:
        return 104 + (4 if self.jokers else 0)

    @property
    def max_decisions(self) -> int:
        """A bound on the decisions of one deal: per turn a play or draw, the
        decision after a draw, up to eight cards of a rank and DONE, a suit,
        the Dobon and Dobon-gaeshi offers, and a challenger's resumed turn."""
        return self.max_turns * (14 + 2 * self.players) + 2


def _parse_scores(text: Any, players: int) -> tuple[float, ...]:
    """The running match scores, one per seat, separated by ';' (a ',' would end
    the parameter in an OpenSpiel game string)."""
    if not isinstance(text, str):
        raise GameParameterError(f"scores={text!r}: must be a string of {players} numbers, e.g. '0;-40;40;0'",
                                 param="scores")
    if not text.strip():
        return (0.0,) * players
    try:
        values = tuple(float(x) for x in text.split(";"))
    except ValueError:
        raise GameParameterError(f"scores={text!r}: must be {players} numbers separated by ';'",
                                 param="scores") from None
    if len(values) != players:
        raise GameParameterError(f"scores={text!r}: needs {players} numbers, one per player, got {len(values)}",
                                 param="scores")
    return values


def _check_combination(r: dict) -> None:
    """Rejects combinations of local rules that contradict each other."""
    if r["skip"] != "none" and r["skip"] == r["reverse"]:
        raise GameParameterError(f"skip={r['skip']} and reverse={r['reverse']}: one rank cannot both skip and reverse",
                                 param="skip")
    if r["draw_until_playable"] and not r["play_drawn"]:
        raise GameParameterError("draw_until_playable=true needs play_drawn=true: one draws until a card "
                                 "can be played, then plays it", param="draw_until_playable")
    if r["dobon"] and r["until_last"]:
        raise GameParameterError("dobon=true and until_last=true: a Dobon ends the deal, the page does not "
                                 "say how it mixes with playing on to the last player", param="dobon")
    if r["dobon_gaeshi"] and not r["dobon"]:
        raise GameParameterError("dobon_gaeshi=true needs dobon=true", param="dobon_gaeshi")
    if r["no_special_finish"] and r["penalty"] == 0:
        raise GameParameterError("no_special_finish=true needs penalty >= 1: the penalty draw is what "
                                 "keeps the player in the deal", param="no_special_finish")
    if r["challenge"] and not r["jokers"]:
        raise GameParameterError("challenge=true needs jokers=true: only a joker can be challenged", param="challenge")
    if r["linked_draws"] and r["unanswerable"]:
        raise GameParameterError("linked_draws=true and unanswerable=true: draw cards that cannot be "
                                 "answered cannot be answered by suit either", param="linked_draws")
    if r["players"] * r["hand_size"] + 1 > 104 + (4 if r["jokers"] else 0):
        raise GameParameterError(f"players={r['players']}, hand_size={r['hand_size']}: not enough cards",
                                 param="players")


_TABLES: dict[tuple, "_Tables"] = {}


class _Tables:
    """Per-variant lookup tables: what each kind does, scores and fits."""

    def __init__(self, r: AmericanPageOneRules):
        skip = SKIP_RANKS[r.skip]
        reverse = REVERSE_RANKS[r.reverse]
        jokers = JOKER_BITS if r.jokers else 0
        eights = RANK_COLUMN[R8] if r.wild_eight else 0
        self.jokers = jokers
        # Flags the hot paths read (one attribute lookup each).
        self.dup = r.draw_until_playable
        self.play_drawn = r.play_drawn
        self.max_turns = r.max_turns
        self.track_under = r.challenge or r.dobon          # keep (top, suit) before each play
        self.track_play = r.multi_play or r.dobon          # keep the kinds of each play
        self.track = self.track_under or self.track_play
        # A plain play (no multi-card, Dobon or finishing rule) of a card without
        # effect goes straight to the next player's turn.
        self.plain = not (r.multi_play or r.dobon or r.no_special_finish)
        # Under draw_until_playable every turn goes through _start_turn.
        self.quick_turns = -1 if r.draw_until_playable else r.max_turns
        self.counts = [2] * 52 + [4 if r.jokers else 0]
        self.deck = [k for k in range(NUM_KINDS) for _ in range(self.counts[k])]
        effect = [FX_NONE] * 52
        amount = [0] * NUM_KINDS
        for k in range(52):
            rank = k % NUM_RANKS
            if rank == R2 and r.draw_two:
                effect[k], amount[k] = FX_DRAW, 2
            elif rank == R3 and r.draw_three:
                effect[k], amount[k] = FX_DRAW, 3
            elif rank == R8 and r.wild_eight:
                effect[k] = FX_WILD
            elif rank == skip:
                effect[k] = FX_SKIP
            elif rank == reverse:
                effect[k] = FX_REVERSE
        effect.append(FX_JOKER)
        amount[JOKER] = 4
        self.effect = tuple(effect)
        # plain_card[k]: playing k leads straight to the next player's turn.
        self.plain_card = tuple(self.plain and e == FX_NONE for e in effect)
        self.amount = tuple(amount)
        self.wild = tuple(e in (FX_WILD, FX_JOKER) for e in effect)
        special_ranks = {rank for rank, on in ((R2, r.draw_two), (R3, r.draw_three), (R8, r.wild_eight),
                                              (skip, skip >= 0), (reverse, reverse >= 0)) if on}
        self.special = tuple(k == JOKER or k % NUM_RANKS in special_ranks for k in range(NUM_KINDS))
        self.special_mask = sum(1 << k for k in range(52) if self.special[k]) | jokers
        # Points: 8 and joker 50; other special cards 20; J Q K 10; A 1; others their number.
        pts = []
        for rank in range(NUM_RANKS):
            if rank in special_ranks:
                pts.append(50 if rank == R8 else 20)
            elif rank in (RJ, RQ, RK):
                pts.append(10)
            elif rank == RA:
                pts.append(1)
            else:
                pts.append(rank + 2)
        self.rank_points = tuple(pts)
        self.points13 = _subset_sums(tuple(pts))
        self.deck_points = 2 * 4 * sum(pts) + (200 if r.jokers else 0)
        # match[s][rank]: the kinds that may be played on suit s and rank (NO_RANK: none).
        self.match = tuple(tuple(SUIT_BITS[s] | (RANK_COLUMN[rank] if rank < NUM_RANKS else 0) | eights | jokers
                                 for rank in range(NUM_RANKS + 1)) for s in range(4))
        self.match_after = tuple(self.match[k // NUM_RANKS][k % NUM_RANKS] for k in range(52))
        # answer[kind][s]: the kinds that answer a pending draw whose top card is `kind`, suit s.
        draws = [rank for rank, on in ((R2, r.draw_two), (R3, r.draw_three)) if on]
        answer = []
        for k in range(NUM_KINDS):
            row = []
            for s in range(4):
                if r.unanswerable or self.effect[k] not in (FX_DRAW, FX_JOKER):
                    row.append(0)
                    continue
                m = jokers if k == JOKER else RANK_COLUMN[k % NUM_RANKS]
                if r.linked_draws:
                    m |= jokers
                    for rank in draws:
                        m |= 1 << (s * NUM_RANKS + rank)
                row.append(m)
            answer.append(tuple(row))
        self.answer = tuple(answer)
        # A challenged joker was illegal if its player held a card of the suit
        # before it; 8s (when wild) do not count (「8はセーフ」).
        self.suit_guilt = tuple(SUIT_BITS[s] & ~eights for s in range(4))


# ------------------------------------------------------------ card helpers
def kind_str(kind: int) -> str:
    """'7♠', 'A♦', 'Jk'."""
    if kind == JOKER:
        return "Jk"
    return RANK_SYMBOLS[kind % NUM_RANKS] + SUIT_SYMBOLS[kind // NUM_RANKS]


def parse_kind(text: str) -> int:
    """Inverse of kind_str; also takes suit letters ('7S', 'TD') and 'Jk'."""
    if text.strip().upper() in ("JK", "JOKER"):
        return JOKER
    return parse_card(text)


def hand_kinds(lo: int, hi: int) -> list[int]:
    """The kinds of a hand (lo, hi), ascending, with repeats."""
    out = []
    for s in range(4):
        a = (lo >> (NUM_RANKS * s)) & 0x1FFF
        if a:
            b = (hi >> (NUM_RANKS * s)) & 0x1FFF
            for k in SUIT_CARDS[s][a]:
                out.append(k)
                if b >> (k - NUM_RANKS * s) & 1:
                    out.append(k)
    out.extend([JOKER] * (lo >> 52).bit_count())
    return out


def hand_of(kinds) -> tuple[int, int]:
    """The (lo, hi) pair of a multiset of kinds; raises on too many copies."""
    lo = hi = 0
    for k in kinds:
        lo, hi = add_kind(lo, hi, k)
    return lo, hi


def add_kind(lo: int, hi: int, k: int) -> tuple[int, int]:
    if k == JOKER:
        j = lo >> 52
        if j == 0xF:
            raise ValueError("more than four jokers")
        return lo | ((j << 1 | 1) << 52), hi
    b = 1 << k
    if lo & b:
        if hi & b:
            raise ValueError(f"more than two {kind_str(k)}")
        return lo, hi | b
    return lo | b, hi


def remove_kind(lo: int, hi: int, k: int) -> tuple[int, int]:
    if k == JOKER:
        j = lo >> 52
        if not j:
            raise ValueError("no joker to remove")
        return (lo & FULL52) | ((j >> 1) << 52), hi
    b = 1 << k
    if hi & b:
        return lo, hi ^ b
    if lo & b:
        return lo ^ b, hi
    raise ValueError(f"no {kind_str(k)} to remove")


def count_of(lo: int, hi: int, k: int) -> int:
    if k == JOKER:
        return (lo >> 52).bit_count()
    return (lo >> k & 1) + (hi >> k & 1)


def hand_size(lo: int, hi: int) -> int:
    return lo.bit_count() + hi.bit_count()


def hand_str(lo: int, hi: int) -> str:
    return " ".join(kind_str(k) for k in hand_kinds(lo, hi)) or "-"


def dobon_sum(lo: int, hi: int) -> int:
    """The sum of a hand's ranks for Dobon (A 1, J 11, Q 12, K 13, joker 0)."""
    t = _DOBON13
    return (t[lo & 0x1FFF] + t[lo >> 13 & 0x1FFF] + t[lo >> 26 & 0x1FFF] + t[lo >> 39 & 0x1FFF]
            + t[hi & 0x1FFF] + t[hi >> 13 & 0x1FFF] + t[hi >> 26 & 0x1FFF] + t[hi >> 39 & 0x1FFF])


def kind_set(mask: int) -> int:
    """A play mask (jokers as a unary count in bits 52..55) as a kind set (bit 52: jokers)."""
    return (mask & FULL52) | (1 << JOKER if mask >> 52 else 0)


# _OUTCOME_PAIRS[total][copies][kind] = (kind, copies / total): chance outcomes
# without a tuple made per call (filled in per stock size on first use).
_OUTCOME_PAIRS: dict[int, tuple[tuple[tuple[int, float], ...], ...]] = {}


def _outcome_pairs(total: int) -> tuple[tuple[tuple[int, float], ...], ...]:
    pairs = _OUTCOME_PAIRS[total] = tuple(tuple((k, c / total) for k in range(NUM_KINDS))
                                          for c in range(5))
    return pairs


def kinds_of(mask: int) -> list[int]:
    """The kinds in a play mask, ascending; any joker bit gives one JOKER."""
    acts = [*_S0[mask & 0x1FFF], *_S1[mask >> 13 & 0x1FFF], *_S2[mask >> 26 & 0x1FFF],
            *_S3[mask >> 39 & 0x1FFF]]
    if mask >> 52:
        acts.append(JOKER)
    return acts


def action_to_string(action: int) -> str:
    if action < NUM_KINDS:
        return kind_str(action)
    if NAME_SUIT <= action < NAME_SUIT + 4:
        return f"name {SUIT_SYMBOLS[action - NAME_SUIT]}"
    return {DRAW: "draw", PASS: "pass", DONE: "done", DOBON: "dobon", NO_DOBON: "no dobon",
            CHALLENGE: "challenge"}[action]


# ------------------------------------------------------------------- state
class AmericanPageOneState(LoggedCore):
    """An American Page One deal. Satisfies games.protocol.GameState."""

    checks_actions = True          # apply_action raises IllegalActionError (games.protocol)

    __slots__ = ("rules", "t", "n", "phase", "to_move", "actor", "lo", "hi", "stock", "pile_lo",
                 "pile_hi", "top", "suit", "rank", "match", "dir", "pending", "play", "under",
                 "answered", "chal", "draw_left", "draw_then", "drawn", "offers", "last_play",
                 "out", "turns", "dealer", "to_deal", "log", "result", "cache", "shared", "cut", "seen",
                 "stock_kinds")
    PICKLE_RESET = {"cache": None, "shared": False, "t": None,    # the tables come with the rules
                    "stock_kinds": None}

    def __init__(self, rules: AmericanPageOneRules = AmericanPageOneRules()):
        n = rules.players
        self.rules = rules
        self.t = rules.tables
        self.n = n
        self.lo = [0] * n
        self.hi = [0] * n
        self.stock = rules.tables.deck[:]
        self.pile_lo = self.pile_hi = 0
        self.top = -1
        self.suit = -1
        self.rank = NO_RANK
        self.match = 0
        self.dir = 1
        self.pending = 0          # cards the player to answer must draw unless they answer
        self.play = ()            # the kinds of the play in progress (several with multi_play)
        self.under = None         # (top, suit) before the play in progress
        self.answered = False     # the play in progress answers a pending draw
        self.chal = None          # (joker player, suit before the joker) while it can be challenged
        self.draw_left = 0
        self.draw_then = THEN_AFTER_DRAW
        self.drawn = -1           # the last card drawn
        self.offers = None        # Dobon: (seats still to be asked, callers, gaeshi callers or None)
        self.last_play = (None,) * n   # each seat's last play (for Dobon-gaeshi)
        self.out = ()             # seats that have gone out, in order (until_last)
        self.turns = 0
        self.log = None
        self.result = None
        self.cache = None         # the resampler's per-information-state tables
        self.shared = False       # set by the OpenSpiel wrapper's copy-on-write clone
        self.cut = -1             # stock index of the last sampled draw (saves a search)
        self.seen = None          # per seat, the hands shown to it so far (None: none yet)
        # (len(stock), lo, hi): the stock as a kind multiset, kept up to date once
        # chance_outcomes has made it, along this state's own play only (draws
        # update it, other changes drop it, and a clone starts without it, so
        # that the search's worlds and rollouts never pay for it).
        self.stock_kinds = None
        self.to_deal = n * rules.hand_size
        self.to_move = CHANCE
        if rules.dealer < 0:
            self.phase = CHOOSE_DEALER
            self.dealer = -1
            self.actor = -1
        else:
            self.phase = DEAL
            self.dealer = rules.dealer
            self.actor = (rules.dealer + 1) % n

    # ----------------------------------------------------------------- protocol
    def clone(self) -> "AmericanPageOneState":
        c = AmericanPageOneState.__new__(AmericanPageOneState)
        c.rules = self.rules
        c.t = self.t
        c.n = self.n
        c.phase = self.phase
        c.to_move = self.to_move
        c.actor = self.actor
        c.lo = self.lo[:]
        c.hi = self.hi[:]
        c.stock = self.stock[:]
        c.pile_lo = self.pile_lo
        c.pile_hi = self.pile_hi
        c.top = self.top
        c.suit = self.suit
        c.rank = self.rank
        c.match = self.match
        c.dir = self.dir
        c.pending = self.pending
        c.play = self.play
        c.under = self.under
        c.answered = self.answered
        c.chal = self.chal
        c.draw_left = self.draw_left
        c.draw_then = self.draw_then
        c.drawn = self.drawn
        c.offers = self.offers
        c.last_play = self.last_play
        c.out = self.out
        c.turns = self.turns
        c.dealer = self.dealer
        c.to_deal = self.to_deal
        c.log = self.log
        c.result = self.result
        c.cache = self.cache
        c.shared = False
        c.cut = -1
        c.seen = self.seen
        c.stock_kinds = None
        return c

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        self.t = self.rules.tables

    def legal_actions(self, player: int | None = None) -> list[int]:
        p = self.to_move
        if p < 0 or (player is not None and player != p):
            return []
        phase = self.phase
        if phase == PLAY:
            m = self.lo[p] & self.match
            acts = [*_S0[m & 0x1FFF], *_S1[m >> 13 & 0x1FFF], *_S2[m >> 26 & 0x1FFF],
                    *_S3[m >> 39 & 0x1FFF]]
            if m >> 52:
                acts.append(JOKER)
            if not self.t.dup:
                acts.append(DRAW if self.stock or self._can_reshuffle() else PASS)
            return acts
        if phase == AFTER_DRAW:
            d = self.drawn
            return [d, PASS] if self.match >> d & 1 else [PASS]
        if phase == ANSWER:
            acts = kinds_of(self.lo[p] & self.match)
            acts.append(DRAW)
            if self.chal is not None:
                acts.append(CHALLENGE)
            return acts
        if phase == MULTI:
            acts = kinds_of(self.lo[p] & self._same_rank_mask())
            acts.append(DONE)
            return acts
        if phase == NAME:
            return [NAME_SUIT, NAME_SUIT + 1, NAME_SUIT + 2, NAME_SUIT + 3]
        if phase == OFFER:
            return [DOBON, NO_DOBON] if self._may_call(p) else [NO_DOBON]
        return []

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.to_move != CHANCE:
            return []
        if self.phase == CHOOSE_DEALER:
            p = 1.0 / self.n
            return [(s, p) for s in range(self.n)]
        stock = self.stock
        total = len(stock)
        kinds = self.stock_kinds
        if kinds is None or kinds[0] != total:
            lo = hi = 0
            for k in stock:
                lo, hi = add_kind(lo, hi, k)
            kinds = self.stock_kinds = (total, lo, hi)
        _, lo, hi = kinds
        # The same (kind, copies / total) pairs as counting the stock, in kind order,
        # from tables of pairs made once per stock size (the standard loop's hot path).
        pairs = _OUTCOME_PAIRS.get(total) or _outcome_pairs(total)
        one, two = pairs[1], pairs[2]
        out = [two[k] if hi >> k & 1 else one[k] for k in
               (*_S0[lo & 0x1FFF], *_S1[lo >> 13 & 0x1FFF], *_S2[lo >> 26 & 0x1FFF],
                *_S3[lo >> 39 & 0x1FFF])]
        if lo >> 52:
            out.append(pairs[(lo >> 52).bit_count()][JOKER])
        return out

    def play_out(self, rand: Callable[[], float]) -> list[float]:
        """Uniformly random play to the end, in place; returns the returns. The
        search's rollout fast path (games.protocol): the same moves as the
        protocol's loop would make with the same `rand`, without its per-step
        method lookups, and a draw goes straight to the drawing step."""
        sample = self.sample_chance_outcome
        legal_actions = self.legal_actions
        apply = self.apply_action
        draw = self._draw
        while True:
            p = self.to_move
            if p >= 0:
                legal = legal_actions()
                apply(legal[int(rand() * len(legal))])
            elif p == CHANCE:
                if self.phase == DRAWING:
                    draw(sample(rand()))
                else:
                    apply(sample(rand()))
            else:
                return self.returns()

    def sample_chance_outcome(self, u: float) -> int:
        """The chance outcome at cumulative probability u: a uniformly chosen
        physical card of the stock (or seat, for the dealer)."""
        if self.phase == CHOOSE_DEALER:
            return int(u * self.n)
        stock = self.stock
        i = self.cut = int(u * len(stock))   # where the draw will find it
        return stock[i]

    def apply_action(self, action: int) -> None:
        phase = self.phase
        if phase == PLAY:
            p = self.to_move
            if action < NUM_KINDS:
                if not self.lo[p] & self.match & (1 << action):
                    raise self._illegal(action)
                self.answered = False
                self._play_card(p, action, True)
            elif action == DRAW and self.stock and not self.t.dup:
                self.log = (self.log, EV_ACT, p, DRAW)
                self.draw_left = 1
                self.draw_then = THEN_AFTER_DRAW
                self.phase = DRAWING
                self.to_move = CHANCE
            else:
                self._act_play(action)
        elif phase == DRAWING:
            self._draw(action)
        elif phase == AFTER_DRAW:
            p = self.to_move
            if action == PASS:
                self.log = (self.log, EV_ACT, p, PASS)
                self._turn_to((p + self.dir) % self.n if not self.out else self.next_seat(p))
            elif action == self.drawn and self.match >> action & 1:
                self.answered = False
                self._play_card(p, action, True)
            else:
                raise self._illegal(action)
        elif phase == DEAL:
            self._deal(action)
        elif phase == ANSWER:
            self._act_answer(action)
        elif phase == NAME:
            self._act_name(action)
        elif phase == MULTI:
            self._act_multi(action)
        elif phase == OFFER:
            self._act_offer(action)
        elif phase == STARTER:
            self._starter(action)
        elif phase == CHOOSE_DEALER:
            if not 0 <= action < self.n:
                raise ValueError(f"chance outcome {action} is not a seat")
            self.log = (self.log, EV_DEALER, action, action)
            self.dealer = action
            self.actor = (action + 1) % self.n
            self.phase = DEAL
        else:
            raise ValueError("the deal is over: no action can be applied")

    def action_to_string(self, player: int, action: int) -> str:
        if player == CHANCE:
            if self.phase == CHOOSE_DEALER:
                return f"p{action} deals"
            if self.phase == STARTER:
                return f"starter {kind_str(action)}"
            verb = "dealt" if self.phase == DEAL else "draws"
            return f"p{self.actor} {verb} {kind_str(action)}"
        return action_to_string(action)

    # ------------------------------------------------------------ chance steps
    def _not_in_stock(self, k: int) -> ValueError:
        name = kind_str(k) if isinstance(k, int) and 0 <= k < NUM_KINDS else "?"
        return ValueError(f"chance outcome {k} ({name}) is not in the stock")

    def _take_from_stock(self, k: int) -> None:
        stock = self.stock
        i = self.cut
        if i < 0 or i >= len(stock) or stock[i] != k:
            try:
                i = stock.index(k)
            except ValueError:
                raise self._not_in_stock(k) from None
        self.cut = -1
        last = stock.pop()
        if i < len(stock):
            stock[i] = last
        kinds = self.stock_kinds
        if kinds is not None:
            lo, hi = remove_kind(kinds[1], kinds[2], k)
            self.stock_kinds = (len(stock), lo, hi)

    def _give(self, seat: int, k: int) -> None:
        if k == JOKER:
            lo = self.lo[seat]
            self.lo[seat] = lo | ((lo >> 52 << 1 | 1) << 52)
        else:
            b = 1 << k
            lo = self.lo[seat]
            if lo & b:
                self.hi[seat] |= b
            else:
                self.lo[seat] = lo | b

    def _deal(self, k: int) -> None:
        seat = self.actor
        self._take_from_stock(k)
        self._give(seat, k)
        self.log = (self.log, EV_DEAL, seat, k)
        self.to_deal -= 1
        if self.to_deal:
            self.actor = (seat + 1) % self.n
        else:
            self.phase = STARTER
            self.actor = self.dealer

    def _starter(self, k: int) -> None:
        self._take_from_stock(k)
        self.log = (self.log, EV_STARTER, -1, k)
        rules = self.rules
        if k == JOKER and rules.starter == "redraw_joker":
            self.stock.append(k)             # back into the stock, and another card is turned
            self.stock_kinds = None
            self.log = (self.log, EV_STARTER_BACK, -1, k)
            return
        self._to_pile(k)
        self.under = None
        self.play = (k,)
        dealer = self.dealer
        self.actor = dealer
        if rules.starter == "dealer":
            # The starter counts as played by the dealer: its effect applies, the
            # dealer names the suit of an 8 or a joker, and it is the dealer's last
            # play until the dealer plays again (a Dobon-gaeshi can match it).
            if rules.dobon_gaeshi:
                self.last_play = self.last_play[:dealer] + (self.play,) + self.last_play[dealer + 1:]
            if self.t.wild[k]:
                self.phase = NAME
                self.to_move = dealer
            else:
                self._effects(dealer)
            return
        # redraw_joker: a special starter counts as played by a player sitting
        # between the dealer and the first player; nobody names a suit on an 8.
        first = (dealer + 1) % self.n
        fx = self.t.effect[k]
        if fx == FX_DRAW:
            self.pending = self.t.amount[k]
            self.match = self.t.answer[k][self.suit]
            self._start_turn(first)
            return
        self.match = self.t.match[self.suit][self.rank]
        if fx == FX_SKIP:
            self._start_turn((first + 1) % self.n)
        elif fx == FX_REVERSE:
            self.dir = -1
            self._start_turn(dealer)
        else:
            self._start_turn(first)

    def _to_pile(self, k: int) -> None:
        if k == JOKER:
            pl = self.pile_lo
            self.pile_lo = pl | ((pl >> 52 << 1 | 1) << 52)
            self.rank = NO_RANK
        else:
            b = 1 << k
            if self.pile_lo & b:
                self.pile_hi |= b
            else:
                self.pile_lo |= b
            self.suit = k // NUM_RANKS
            self.rank = k % NUM_RANKS
        self.top = k

    def _can_reshuffle(self) -> bool:
        """Whether the discards hold more than the top card."""
        return (self.pile_lo.bit_count() + self.pile_hi.bit_count()) > 1

    def _reshuffle(self) -> bool:
        """Turns the discards under the top card into the stock; False if there are none."""
        if not self._can_reshuffle():
            return False
        lo, hi = remove_kind(self.pile_lo, self.pile_hi, self.top)
        self.stock = hand_kinds(lo, hi)
        if self.stock_kinds is not None:
            self.stock_kinds = (len(self.stock), lo, hi)
        self.pile_lo, self.pile_hi = add_kind(0, 0, self.top)
        self.log = (self.log, EV_RESHUFFLE, -1, (lo, hi))
        return True

    def _begin_draws(self, seat: int, count: int, then: int) -> None:
        self.actor = seat
        self.draw_left = count
        self.draw_then = then
        if count and (self.stock or self._reshuffle()):
            self.phase = DRAWING
            self.to_move = CHANCE
        else:
            self._after_draws()

    def _draw(self, k: int) -> None:
        self._take_from_stock(k)
        seat = self.actor
        self._give(seat, k)
        then = self.draw_then
        self.log = (self.log, EV_DRAW_ONE if then == THEN_AFTER_DRAW or then == THEN_UNTIL else EV_DRAW, seat, k)
        self.drawn = k
        self.draw_left -= 1
        if self.draw_left and (self.stock or self._reshuffle()):
            return
        if then == THEN_AFTER_DRAW and self.t.play_drawn:
            self.phase = AFTER_DRAW
            self.to_move = seat
            return
        self._after_draws()

    def _after_draws(self) -> None:
        then = self.draw_then
        seat = self.actor
        if then == THEN_AFTER_DRAW:
            if self.rules.play_drawn:
                self.phase = AFTER_DRAW
                self.to_move = seat
            else:
                self._start_turn(self.next_seat(seat))
        elif then == THEN_UNTIL:
            if self.lo[seat] & self.match:
                self.phase = PLAY
                self.to_move = seat
            elif self.stock or self._reshuffle():
                self.log = (self.log, EV_VOID, seat, kind_set(self.match))
                self.draw_left = 1
                self.phase = DRAWING
                self.to_move = CHANCE
            else:
                self.log = (self.log, EV_STUCK, seat, kind_set(self.match))
                self._start_turn(self.next_seat(seat))
        elif then == THEN_SKIP:
            self.pending = 0
            self.match = self.t.match[self.suit][self.rank]
            self._start_turn(self.next_seat(seat))
        elif then == THEN_RESUME:
            # A successful challenge: the joker's player drew; the challenger plays on.
            self.match = self.t.match[self.suit][self.rank]
            self._start_turn(self.next_seat(seat), count=False)
        elif then == THEN_PENALTY:
            if not (self.lo[seat] or self.hi[seat]) and self._goes_out(seat):
                return
            self._effects(seat)
        else:  # THEN_FINISH: the victim of a draw card that ended the deal has drawn
            self._finish((self.next_seat(seat, -1),))

    # ---------------------------------------------------------------- decisions
    def _illegal(self, action: int):
        legal = self.legal_actions()
        return IllegalActionError(f"illegal action {action} ({action_to_string(action) if 0 <= action < NUM_ACTIONS else '?'}) "
                          f"for p{self.to_move} in phase '{PHASE_NAMES[self.phase]}': legal are "
                          f"{[action_to_string(a) for a in legal]}")

    def _act_play(self, a: int) -> None:
        """DRAW or PASS at a regular turn (plays go through apply_action)."""
        p = self.to_move
        if a == DRAW and not self.t.dup and (self.stock or self._can_reshuffle()):
            self.log = (self.log, EV_ACT, p, DRAW)
            self._begin_draws(p, 1, THEN_AFTER_DRAW)
        elif a == PASS and not self.t.dup and not (self.stock or self._can_reshuffle()):
            self.log = (self.log, EV_ACT, p, PASS)
            self._start_turn(self.next_seat(p))
        else:
            raise self._illegal(a)

    def _act_answer(self, a: int) -> None:
        p = self.to_move
        if a < NUM_KINDS:
            if not self.lo[p] & self.match & (1 << a):
                raise self._illegal(a)
            self.answered = True
            self.chal = None
            self._play_card(p, a, True)
        elif a == DRAW:
            self.log = (self.log, EV_ACT, p, DRAW)
            self.chal = None
            self._begin_draws(p, self.pending, THEN_SKIP)
        elif a == CHALLENGE and self.chal is not None:
            self._challenge(p)
        else:
            raise self._illegal(a)

    def _same_rank_mask(self) -> int:
        top = self.play[0]
        return JOKER_BITS if top == JOKER else RANK_COLUMN[top % NUM_RANKS]

    def _act_multi(self, a: int) -> None:
        p = self.to_move
        if a == DONE:
            self.log = (self.log, EV_ACT, p, DONE)
            self._end_play(p)
        elif a < NUM_KINDS and self.lo[p] & self._same_rank_mask() & (1 << a):
            self._play_card(p, a, False)
        else:
            raise self._illegal(a)

    def _act_name(self, a: int) -> None:
        p = self.to_move
        if not NAME_SUIT <= a < NAME_SUIT + 4:
            raise self._illegal(a)
        self.log = (self.log, EV_ACT, p, a)
        self.suit = a - NAME_SUIT
        self.rank = NO_RANK
        if self.turns == 0:       # the starter, named by the dealer
            self._effects(p)
        else:
            self._after_name(p)

    def _play_card(self, p: int, k: int, first: bool) -> None:
        """Moves k from p's hand to the discards; the hottest path of the game,
        so the common case (a card without effect, no multi-card or Dobon rule)
        goes to the next player's turn inline."""
        t = self.t
        if not first:
            self.play += (k,)
        elif t.track:
            if t.track_under:
                self.under = (self.top, self.suit)
            if t.track_play:
                self.play = (k,)
        if k == JOKER:
            lo = self.lo[p]
            lo = self.lo[p] = (lo & FULL52) | ((lo >> 52 >> 1) << 52)
            pl = self.pile_lo
            self.pile_lo = pl | ((pl >> 52 << 1 | 1) << 52)
            self.rank = NO_RANK
        else:
            b = 1 << k
            hi = self.hi[p]
            if hi & b:
                self.hi[p] = hi ^ b
                lo = self.lo[p]
            else:
                lo = self.lo[p] = self.lo[p] ^ b
            if self.pile_lo & b:
                self.pile_hi |= b
            else:
                self.pile_lo |= b
            self.suit = SUIT_OF[k]
            self.rank = RANK_OF[k]
            if lo and t.plain_card[k]:
                self.top = k
                self.log = (self.log, EV_ACT, p, k)
                self.match = t.match_after[k]
                nxt = (p + self.dir) % self.n if not self.out else self.next_seat(p)
                if self.turns >= t.quick_turns:
                    self._start_turn(nxt)
                    return
                self.turns += 1          # _turn_to, inline: nothing is pending here
                self.actor = nxt
                self.phase = PLAY
                self.to_move = nxt
                return
        self.top = k
        self.log = (self.log, EV_ACT, p, k)
        if lo and self.rules.multi_play:
            self.phase = MULTI
            self.to_move = p
            self.actor = p
            return
        self._end_play(p)

    def _end_play(self, p: int) -> None:
        self.actor = p
        if self.rules.dobon_gaeshi:
            self.last_play = self.last_play[:p] + (self.play,) + self.last_play[p + 1:]
        if self.t.wild[self.top] and (self.lo[p] or self.rules.until_last or self._finish_forbidden(p)):
            self.phase = NAME
            self.to_move = p
            return
        self._after_name(p)

    def _finish_forbidden(self, p: int) -> bool:
        """Whether p's hand is empty after a special card under no_special_finish."""
        return (self.rules.no_special_finish and not (self.lo[p] or self.hi[p])
                and self.t.special[self.top])

    def _after_name(self, p: int) -> None:
        if self.rules.dobon:
            order = []
            seat = p
            for _ in range(self.n - 1):
                seat = (seat + self.dir) % self.n
                order.append(seat)
            self.offers = (tuple(order), (), None)
            self._next_offer()
            return
        self._resolve(p)

    def _resolve(self, p: int) -> None:
        """After the play and any Dobon offers: going out, or the card's effect."""
        if not (self.lo[p] or self.hi[p]):
            if self._finish_forbidden(p):
                self.log = (self.log, EV_PENALTY, p, self.rules.penalty)
                self._begin_draws(p, self.rules.penalty, THEN_PENALTY)
                return
            if self._goes_out(p):
                return
        self._effects(p)

    def _effects(self, p: int) -> None:
        t = self.t
        top = self.top
        fx = t.effect[top]
        count = len(self.play) if t.track_play else 1
        if fx == FX_DRAW or fx == FX_JOKER:
            self.pending += count * t.amount[top]
            self.match = t.answer[top][self.suit]
            if (fx == FX_JOKER and self.rules.challenge and not self.answered and self.turns
                    and (self.lo[p] or self.hi[p])):
                self.chal = (p, self.under[1])
            self._start_turn(self.next_seat(p))
            return
        self.match = t.match[self.suit][self.rank]
        if fx == FX_SKIP:
            self._start_turn(self.next_seat(p, 1 + count))
        elif fx == FX_REVERSE:
            if count & 1:
                self.dir = -self.dir
            self._start_turn(self.next_seat(p))
        else:
            self._start_turn(self.next_seat(p))

    def next_seat(self, seat: int, steps: int = 1) -> int:
        """The seat `steps` places on in the direction of play (backwards when
        negative), passing over players who have gone out."""
        d = self.dir
        if not self.out:
            return (seat + d * steps) % self.n
        if steps < 0:
            d, steps = -d, -steps
        n, out = self.n, self.out
        while steps:
            seat = (seat + d) % n
            if seat not in out:
                steps -= 1
        return seat

    def _turn_to(self, seat: int) -> None:
        """_start_turn, with the common case (a regular turn, nothing pending) inline."""
        t = self.t
        if t.dup or self.pending or self.turns >= t.max_turns:
            self._start_turn(seat)
            return
        self.turns += 1
        self.actor = seat
        self.phase = PLAY
        self.to_move = seat

    def _start_turn(self, seat: int, count: bool = True) -> None:
        """Gives `seat` its turn (count=False: a turn already counted goes on).
        Under draw_until_playable a player who can neither play nor draw passes;
        such passes go round in this loop, not by recursion, until the turn cap."""
        rules = self.rules
        while True:
            if count:
                if self.turns >= rules.max_turns:
                    self._timeout()
                    return
                self.turns += 1
            count = True
            self.actor = seat
            if self.pending:
                if rules.unanswerable and self.chal is None:
                    self._begin_draws(seat, self.pending, THEN_SKIP)
                else:
                    self.phase = ANSWER
                    self.to_move = seat
                return
            if not rules.draw_until_playable or self.lo[seat] & self.match:
                self.phase = PLAY
                self.to_move = seat
                return
            if self.stock or self._reshuffle():
                self.log = (self.log, EV_VOID, seat, kind_set(self.match))
                self._begin_draws(seat, 1, THEN_UNTIL)
                return
            self.log = (self.log, EV_STUCK, seat, kind_set(self.match))
            seat = self.next_seat(seat)

    def _show(self, viewers, seat: int, lo: int, hi: int) -> None:
        """Records that `viewers` saw `seat`'s hand (for private_view)."""
        seen = list(self.seen or ((),) * self.n)
        for v in viewers:
            seen[v] += ((seat, lo, hi),)
        self.seen = tuple(seen)

    def _challenge(self, ch: int) -> None:
        j, suit = self.chal
        self.chal = None
        lo, hi = self.lo[j], self.hi[j]
        self.log = (self.log, EV_ACT, ch, CHALLENGE)
        self.log = (self.log, EV_SHOW_TO, j, (ch, lo, hi))
        self._show((ch,), j, lo, hi)
        mask = self.t.suit_guilt[suit]
        guilty = 1 if lo & mask else 0
        self.log = (self.log, EV_VERDICT, j, (guilty, mask))
        if not guilty:
            self.log = (self.log, EV_VOID, j, mask)
        amount = self.pending
        self.pending = 0
        self.match = self.t.match[self.suit][self.rank]
        if guilty:
            # The joker's player draws its 4 (per joker); the named suit stands and
            # the challenger takes its turn.
            self._begin_draws(j, amount, THEN_RESUME)
        else:
            self._begin_draws(ch, self.rules.penalty + amount, THEN_SKIP)

    # -------------------------------------------------------------------- Dobon
    def _may_call(self, seat: int) -> bool:
        s = dobon_sum(self.lo[seat], self.hi[seat])
        offers, callers, gaeshi = self.offers
        if gaeshi is None:
            return s == DOBON_VALUE[self.top]
        return any(self.last_play[c] is not None and s == DOBON_VALUE[self.last_play[c][-1]]
                   for c in callers)

    def _next_offer(self) -> None:
        offers, callers, gaeshi = self.offers
        if offers:
            self.phase = OFFER
            self.to_move = offers[0]
            return
        p = self.actor
        if gaeshi is None:
            if not callers:
                self.offers = None
                self._resolve(p)
                return
            # The Dobon-ed play goes back to its player, whose going out (if any) is void.
            for k in self.play:
                self.pile_lo, self.pile_hi = remove_kind(self.pile_lo, self.pile_hi, k)
                self._give(p, k)
            self.log = (self.log, EV_RETURN, p, self.play)
            if self.under is not None:
                self.top, self.suit = self.under
            if not self.rules.dobon_gaeshi:
                self._finish(callers)
                return
            order = [p]
            seat = p
            for _ in range(self.n - 1):
                seat = (seat + self.dir) % self.n
                if seat not in callers and seat != p:
                    order.append(seat)
            self.offers = (tuple(order), callers, ())
            self._next_offer()
            return
        winners = list(gaeshi)
        for c in callers:
            last = self.last_play[c]
            beaten = last is not None and any(
                dobon_sum(self.lo[g], self.hi[g]) == DOBON_VALUE[last[-1]] for g in gaeshi)
            if not beaten:
                winners.append(c)
                continue
            back = []
            for k in last:     # the caller's last play comes back if still in the discards
                if count_of(self.pile_lo, self.pile_hi, k):
                    self.pile_lo, self.pile_hi = remove_kind(self.pile_lo, self.pile_hi, k)
                    self._give(c, k)
                    back.append(k)
            self.log = (self.log, EV_RETURN, c, tuple(back))
        self._finish(tuple(sorted(winners)))

    def _act_offer(self, a: int) -> None:
        p = self.to_move
        offers, callers, gaeshi = self.offers
        if a == DOBON and self._may_call(p):
            self.log = (self.log, EV_ACT, p, DOBON)
            self.log = (self.log, EV_SHOW, p, (self.lo[p], self.hi[p]))
            self._show(range(self.n), p, self.lo[p], self.hi[p])
            if gaeshi is None:
                callers += (p,)
            else:
                gaeshi += (p,)
        elif a == NO_DOBON:
            self.log = (self.log, EV_ACT, p, NO_DOBON)
        else:
            raise self._illegal(a)
        self.offers = (offers[1:], callers, gaeshi)
        self._next_offer()

    # ------------------------------------------------------------------ the end
    def _goes_out(self, seat: int) -> bool:
        """Records that `seat` emptied its hand; True when that ends the deal."""
        self.log = (self.log, EV_OUT, seat, 0)
        rules = self.rules
        if not rules.until_last:
            fx = self.t.effect[self.top]
            if rules.unanswerable and (fx == FX_DRAW or fx == FX_JOKER):
                # The page: the draw still applies when the deal is won on it.
                self.pending += (len(self.play) if self.t.track_play else 1) * self.t.amount[self.top]
                self._begin_draws(self.next_seat(seat), self.pending, THEN_FINISH)
                return True
            self._finish((seat,))
            return True
        self.out += (seat,)
        if len(self.out) == self.n - 1:
            last = next(s for s in range(self.n) if s not in self.out)
            self._finish_places(self.out + (last,))
            return True
        return False

    def points(self, seat: int) -> int:
        """The points of seat's hand (lost by it when another player wins)."""
        t = self.t.points13
        lo, hi = self.lo[seat], self.hi[seat]
        return (t[lo & 0x1FFF] + t[lo >> 13 & 0x1FFF] + t[lo >> 26 & 0x1FFF] + t[lo >> 39 & 0x1FFF]
                + t[hi & 0x1FFF] + t[hi >> 13 & 0x1FFF] + t[hi >> 26 & 0x1FFF] + t[hi >> 39 & 0x1FFF]
                + 50 * (lo >> 52).bit_count())

    def _finish(self, winners: tuple[int, ...]) -> None:
        """The winners share the points left in the other hands; each other player
        loses its own (zero-sum)."""
        losers = [s for s in range(self.n) if s not in winners]
        pot = sum(self.points(s) for s in losers)
        result = [0.0] * self.n
        for s in losers:
            result[s] = -float(self.points(s))
        for s in winners:
            result[s] = pot / len(winners)
        self._over(result)

    def _finish_places(self, order: tuple[int, ...]) -> None:
        """until_last: place i of n scores n - 1 - 2i; players not placed (turn cap)
        share the places left."""
        n = self.n
        result = [0.0] * n
        for place, seat in enumerate(order):
            result[seat] = float(n - 1 - 2 * place)
        rest = [s for s in range(n) if s not in order]
        if rest:
            share = sum(n - 1 - 2 * place for place in range(len(order), n)) / len(rest)
            for s in rest:
                result[s] = share
        self._over(result)

    def _timeout(self) -> None:
        self.log = (self.log, EV_TIMEOUT, -1, self.turns)
        if self.rules.until_last:
            self._finish_places(self.out)
        else:
            self._over([0.0] * self.n)

    def _over(self, result: list[float]) -> None:
        self.result = result
        self.phase = OVER
        self.to_move = TERMINAL
        self.offers = None
        self.chal = None

    # ------------------------------------------------------------ information
    def history(self) -> list[int]:
        """Every action applied so far (chance outcomes included), as pyspiel records them."""
        return values_of(self.log, _HISTORY_EVENTS)

    def private_view(self, player: int) -> tuple:
        """What `player` knows beyond the player actions and the number of chance
        events since an earlier state: its hand and the hands shown to it (a
        Dobon call, a challenge). Every other card it saw was played in public,
        and every other reveal (a verdict, a penalty, a pass for want of a card)
        follows from the actions and the count of draws around it. The search
        keys nodes with it (games.protocol, search.keys)."""
        if self.seen is None:
            return self.lo[player], self.hi[player]
        return self.lo[player], self.hi[player], self.seen[player]

    def information_state_string(self, player: int, private: bool = True) -> str:
        """Everything `player` has seen, in order (perfect recall). private=False
        leaves out what only `player` saw: what every player saw."""
        viewer = player if private else -1
        parts = [f"p{player} hand: {hand_str(self.lo[player], self.hi[player])}"] if private else []
        if self.rules.deals_left or any(self.rules.scores):
            parts.append(self._match_str())
        for kind, seat, value in self.events():
            text = event_str(kind, seat, value, viewer)
            if text:
                parts.append(text)
        return "\n".join(parts)

    def _match_str(self) -> str:
        return ("match scores: " + " ".join(f"p{s}={v:g}" for s, v in enumerate(self.rules.scores))
                + f"  deals after this one: {self.rules.deals_left}")

    def observation_string(self, player: int, private: bool = True) -> str:
        """What `player` sees now: own hand (unless private=False), the top card,
        the suit to follow, pending draws, direction, counts."""
        lines = [f"p{player} hand: {hand_str(self.lo[player], self.hi[player])}"] if private else []
        lines += [self._table_str(),
                 "cards: " + " ".join(f"p{s}={hand_size(self.lo[s], self.hi[s])}" for s in range(self.n)),
                 f"stock: {len(self.stock)}  discards: {self.pile_lo.bit_count() + self.pile_hi.bit_count()}"]
        if self.out:
            lines.append("out: " + " ".join(f"p{s}" for s in self.out))
        if self.rules.deals_left or any(self.rules.scores):
            lines.append(self._match_str())
        if self.phase == OVER:
            lines.append("result: " + " ".join(f"{r:+g}" for r in self.result))
        return "\n".join(lines)

    def _table_str(self) -> str:
        if self.top < 0:
            return f"dealer p{self.dealer}" if self.dealer >= 0 else "-"
        parts = [f"top {kind_str(self.top)}"]
        if self.suit >= 0 and (self.top == JOKER or self.suit != self.top // NUM_RANKS):
            parts.append(f"suit {SUIT_SYMBOLS[self.suit]}")
        parts.append("clockwise" if self.dir == 1 else "anticlockwise")
        if self.pending:
            parts.append(f"pending draw {self.pending}")
        if self.chal is not None:
            parts.append("joker may be challenged")
        if self.phase < OVER:
            parts.append(f"{PHASE_NAMES[self.phase]}: "
                         + (f"p{self.to_move}" if self.to_move >= 0 else f"chance for p{self.actor}"))
        return "  ".join(parts)

    def resample_from_infostate(self, player: int,
                                probability_sampler: Callable[[], float]) -> "AmericanPageOneState":
        """A state drawn from those `player` cannot tell from this one.

        See games.american_page_one.belief for what "consistent" means and when
        the draw is exactly uniform.
        """
        from games.american_page_one.belief import resample
        return resample(self, player, probability_sampler)

    def hidden_cards(self, player: int) -> list[list[int]]:
        """Where the cards `player` cannot see lie (games.protocol): a row for each
        other seat in turn order after it (its hand less the copies `player` knows
        it holds: laid down, shown to it, given back), then the stock; a column per
        card kind (the 52 cards and the joker), each a count of copies."""
        from games.american_page_one.belief import public_memory
        _, known, _ = public_memory(self, player)
        rows = []
        for k in range(1, self.n):
            seat = (player + k) % self.n
            row = [-c for c in known[seat]]
            for kind in hand_kinds(self.lo[seat], self.hi[seat]):
                row[kind] += 1
            rows.append(row)
        stock = [0] * NUM_KINDS
        for kind in self.stock:
            stock[kind] += 1
        rows.append(stock)
        return rows

    def resample_assuming(self, player: int, probability_sampler: Callable[[], float],
                          model) -> "AmericanPageOneState":
        """As resample_from_infostate, among the states in which the others'
        moves show what `model` (a belief.PlayModel, such as the rule bot) says
        they show: a search that assumes its opponents play like the model."""
        from games.american_page_one.belief import resample
        return resample(self, player, probability_sampler, model)

    def __str__(self) -> str:
        lines = [f"phase {PHASE_NAMES[self.phase]}  to move: {self.to_move}  dealer: p{self.dealer}"]
        lines += [f"p{s}: {hand_str(self.lo[s], self.hi[s])}" for s in range(self.n)]
        lines += [f"stock: {' '.join(kind_str(k) for k in sorted(self.stock)) or '-'}",
                  f"discards: {hand_str(self.pile_lo, self.pile_hi)}", self._table_str()]
        if self.out:
            lines.append("out: " + " ".join(f"p{s}" for s in self.out))
        if self.result is not None:
            lines.append("result: " + " ".join(f"{r:+g}" for r in self.result))
        return "\n".join(lines)


_PLAYS = ("puts the card from its hand onto the discards: it is the up-card, its suit the suit to follow (an 8 or a "
          "Joker: the suit it names next) and its rank the rank to match; hand -1. Its effect, as the deal's "
          "parameters set the special cards (docs/rules/american_page_one.md; by default: 2 and 3 make the next "
          "player answer with its own or draw 2 or 3 more, the count adding up in `Pending draw`; 8 and Joker are "
          "wild and name a suit; J skips the next player; Q reverses the direction), then the next player's turn")
_DRAWN = ("one card from the stock into its hand (hand +1, stock -1): a draw it chose, a card for want of one to "
          "play, a penalty or a pending draw")
# How each event (its words with the protocol's placeholders: docs/protocol/american_page_one.md)
# changes the table a seat keeps: declared here, beside `event_str`, which says them.
EVENTS: tuple[tuple[str, str], ...] = (
    ("<seat> deals", "chance chose the dealer (its note `dealer`): the deal starts on its left and play goes "
                     "clockwise from there"),
    ("dealt <card>", "this seat was dealt the card (hand +1, stock -1). The other seats' deals are not told: "
                     "each seat is dealt hand_size cards"),
    ("dealt <rank>", "the same, a Joker (Jk)"),
    ("starter <card>", "the first card turned from the stock onto the discards: the up-card. With starter=dealer "
                       "it counts as the dealer's play (a special card's effect applies; an 8 or a Joker: the "
                       "dealer names the suit); with starter=redraw_joker a special starter counts as played by "
                       "nobody between the dealer and the first player"),
    ("starter <rank>", "the same, a Joker"),
    ("the joker goes back into the stock", "starter=redraw_joker: the Joker starter goes back into the stock "
                                           "(stock +1, discards -1) and another starter is turned"),
    ("<seat> plays <card>", _PLAYS),
    ("<seat> plays <rank>", "the same with a Joker (Jk): wild; by default the next player draws 4 unless it "
                            "answers, and the player names a suit next"),
    ("<seat> names ♠", "after its 8 or Joker: the suit to follow is ♠ (the up-card's text: \"suit ♠ named\")"),
    ("<seat> names ♥", "the same, ♥"),
    ("<seat> names ♦", "the same, ♦"),
    ("<seat> names ♣", "the same, ♣"),
    ("<seat> plays no more of the rank", "multi_play: it stops laying cards of the rank it played this turn; "
                                         "the last one laid is the up-card"),
    ("<seat> chooses to draw", "it draws instead of playing: one card, or with a pending draw the whole count "
                               "(`Pending draw` then empties); the `draws` lines that follow are the cards"),
    ("<seat> draws a card", _DRAWN + "; the card is not told"),
    ("<seat> draws <card>", "this seat's own draw, the card named: " + _DRAWN),
    ("<seat> draws <rank>", "the same, a Joker"),
    ("<seat> passes", "its turn ends without a play (after drawing, or where no card can be drawn); the next "
                      "player's turn"),
    ("<seat> cannot play or draw: passes", "draw_until_playable with nothing left to draw: its turn ends without a "
                                           "play, and it is known to hold no playable card"),
    ("<seat> may not go out on a special card: draws <rank>", "no_special_finish: it played its last card, a "
                                                              "special one, and draws this many cards (the `draws` "
                                                              "lines that follow)"),
    ("<seat> is out", "its hand is empty: it wins the deal (with until_last: the next place, and play goes on "
                      "without it)"),
    ("<seat> calls dobon", "dobon: its hand's ranks add up to the rank just played; it will show its hand (the "
                           "`shows` line) and wins unless matched by a Dobon-gaeshi"),
    ("<seat> does not call dobon", "dobon: it was asked and did not call; nothing changes"),
    ("<seat> shows <card>", "a Dobon caller lays its hand down: every seat sees these cards, its whole hand"),
    ("<seat> shows <card> ...", "the same, several cards"),
    ("<card> back to <seat>", "dobon: the play that was Dobon-ed goes back from the discards to its player's hand "
                              "(a going out on it is void)"),
    ("<card> ... back to <seat>", "the same, several cards"),
    ("nothing back to <seat>", "dobon: nothing comes back (the play was reshuffled away)"),
    ("<seat> challenges the joker", "challenge: it challenges the Joker just played on it; the Joker's player shows "
                                    "it its hand (the next line)"),
    ("<seat> shows <seat> <card>", "the Joker's player shows its hand to the challenger (named second): the two "
                                   "of them see these cards"),
    ("<seat> shows <seat> <card> ...", "the same, several cards"),
    ("<seat> shows <seat> its hand", "the same as the other seats see it: the cards are not told"),
    ("challenge succeeds", "the Joker's player held a card of the suit to follow: it draws 4 for each Joker "
                           "played, the suit it named stands, and the challenger plays its turn"),
    ("challenge fails", "the challenger draws the penalty and the Joker's 4, and is passed over"),
    ("discards reshuffled into the stock (<n> cards)", "the stock was empty: the discards under the up-card (this "
                                                        "many) become the stock; the up-card stays"),
    ("deal stopped after <n> turns", "max_turns reached: the deal ends and is scored by the hands left"),
)


def event_str(kind: int, seat: int, value: Any, viewer: int) -> str:
    """One event as `viewer` saw it ('' when it saw nothing)."""
    if kind == EV_ACT:
        if value < NUM_KINDS:
            return f"p{seat} plays {kind_str(value)}"
        if NAME_SUIT <= value < NAME_SUIT + 4:
            return f"p{seat} names {SUIT_SYMBOLS[value - NAME_SUIT]}"
        return f"p{seat} " + {DRAW: "chooses to draw", PASS: "passes", DONE: "plays no more of the rank",
                              DOBON: "calls dobon", NO_DOBON: "does not call dobon",
                              CHALLENGE: "challenges the joker"}[value]
    if kind == EV_DRAW or kind == EV_DRAW_ONE:
        return f"p{seat} draws {kind_str(value)}" if seat == viewer else f"p{seat} draws a card"
    if kind == EV_DEAL:
        return f"dealt {kind_str(value)}" if seat == viewer else ""
    if kind == EV_DEALER:
        return f"p{seat} deals"
    if kind == EV_STARTER:
        return f"starter {kind_str(value)}"
    if kind == EV_STARTER_BACK:
        return "the joker goes back into the stock"
    if kind == EV_RESHUFFLE:
        return f"discards reshuffled into the stock ({hand_size(*value)} cards)"
    if kind == EV_SHOW:
        return f"p{seat} shows {hand_str(*value)}"
    if kind == EV_SHOW_TO:
        return f"p{seat} shows p{value[0]} {hand_str(value[1], value[2])}" if viewer in (seat, value[0]) else \
            f"p{seat} shows p{value[0]} its hand"
    if kind == EV_VERDICT:
        return "challenge succeeds" if value[0] else "challenge fails"
    if kind == EV_RETURN:
        return f"{' '.join(kind_str(k) for k in value) or 'nothing'} back to p{seat}"
    if kind == EV_PENALTY:
        return f"p{seat} may not go out on a special card: draws {value}"
    if kind == EV_STUCK:
        return f"p{seat} cannot play or draw: passes"
    if kind == EV_OUT:
        return f"p{seat} is out"
    if kind == EV_VOID:
        return ""      # implied by the events around it
    return f"deal stopped after {value} turns"


# ------------------------------------------------------------- set positions
def dealt_position(rules: AmericanPageOneRules, hands: list[list[int]], starter: int,
                   dealer: int = 0) -> AmericanPageOneState:
    """A position right after the deal and the starter: seat s holds hands[s]
    (kinds), `dealer` dealt. The chance events are applied in order, so the log
    and the history are those of a real deal."""
    if len(hands) != rules.players or any(len(h) != rules.hand_size for h in hands):
        raise ValueError(f"need {rules.players} hands of {rules.hand_size} cards")
    state = AmericanPageOneState(rules)
    if rules.dealer < 0:
        state.apply_action(dealer)
    elif rules.dealer != dealer:
        raise ValueError(f"rules.dealer={rules.dealer} but dealer={dealer}")
    for k in range(rules.hand_size):
        for i in range(rules.players):
            state.apply_action(hands[(dealer + 1 + i) % rules.players][k])
    state.apply_action(starter)
    return state


def set_up(rules: AmericanPageOneRules, hands: list[list[int]], top: int, turn: int,
           suit: int = -1, discard: list[int] = (), direction: int = 1,
           dealer: int = 0, stock: list[int] | None = None) -> AmericanPageOneState:
    """A position set up directly, for puzzles and rule tests: seat s holds
    `hands[s]`, `top` lies on `discard` (the discard pile), `suit` is the suit a
    wild top card named, and `turn` is to play. The stock holds every other card,
    or exactly `stock` when given (the cards then in no place are out of play).
    The log starts empty (no deal is recorded)."""
    state = AmericanPageOneState(rules)
    counts = list(rules.tables.counts)
    for cards in list(hands) + [list(discard) + [top]] + ([list(stock)] if stock is not None else []):
        for k in cards:
            counts[k] -= 1
            if counts[k] < 0:
                raise ValueError(f"too many {kind_str(k)} placed for this deck")
    state.lo, state.hi = [], []
    for h in hands:
        lo, hi = hand_of(h)
        state.lo.append(lo)
        state.hi.append(hi)
    state.stock = list(stock) if stock is not None else [k for k in range(NUM_KINDS) for _ in range(counts[k])]
    lo, hi = hand_of(list(discard))
    state.pile_lo, state.pile_hi = lo, hi
    state._to_pile(top)
    if suit >= 0:
        state.suit = suit
        state.rank = NO_RANK
    elif top == JOKER:
        raise ValueError("a joker top card needs the suit it named")
    state.dealer = dealer
    state.dir = direction
    state.to_deal = 0
    state.match = rules.tables.match[state.suit][state.rank]
    state.play = (top,)
    state._start_turn(turn)
    return state
