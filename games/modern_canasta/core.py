"""Modern American Canasta rules core: one explicit state machine, no OpenSpiel.

Four players, seats 0 and 2 against 1 and 3. Thirteen cards each, an empty
discard pile; 3s go down at once and are replaced. A turn: draw one card from the
stock, or take the whole pile with a natural pair of its top card's rank; meld;
discard one card. Going out needs two canastas for the side and ends with a
discard. docs/rules/modern_canasta.md gives every rule with the page's sentence
and every decision taken where the page is silent.

The state is a games.canasta_family.core.CanastaFamilyState: cards are the
family's kinds, counted per kind; every deal card and every draw is a chance
event; the event log, shared between clones, holds what the information state,
the resampler and the action history read. This module holds the modern game's
turn machine: the ask and its answer, taking the pile with a pair, the closed
ranks, canastas kept apart as they complete, going out with two canastas.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Mapping, Sequence

from games.modern_canasta.actions import (ASK, COMMIT, DISCARD_BASE, DRAW, MELD_BASE, MELD_PARTS,
                                          NATURAL_WILDS, NO, TAKE, WILD_BASE, WILD_COMBOS,
                                          WITHDRAW, YES, action_to_string)
from games.canasta_family.cards import (ACE, JOKER, KIND_NAMES, NUM_KINDS,
                                        NUM_NATURAL, NUM_SLOTS, PLAYABLE, RED_THREE, SEVEN, TWO,
                                        VALUES, WILD_SLOT)
from games.canasta_family.core import (DRAW_CARD, END_LAST_THREE, END_OUT, END_STOCK, EV_DEAL,
                                       EV_DISCARD, EV_DRAW, EV_MELD, EV_STOCK, EV_TAKE, GAME_PHASE, MELD,
                                       PICKUP, REPLACE, TURN, CanastaFamilyState, deal, place_cards)
from games.modern_canasta.scoring import side_score
from games.eventlog import log_length
from games.params import int_param
from games.protocol import CHANCE

HAND_SIZE = 13
PLAYERS = 4
SCORE_LIMIT = 1_000_000

DEFAULT_PARAMS: dict[str, Any] = {
    "score0": 0,        # points of seats 0 and 2 before this hand (the match's running score)
    "score1": 0,        # points of seats 1 and 3 before this hand
    "first_player": 0,  # the seat on the dealer's left, who plays first
}

# Phases: the family's, with the partner's answer to "may I go out?" as the game's own.
ANSWER = GAME_PHASE
PHASE_NAMES = ("deal", "replace 3s", "draw or take", "draw", "meld", "answer", "take: initial meld",
               "over")

# Event kinds in the log: the family's EV_DEAL .. EV_DISCARD (a deal or draw is
# public when a 3), with these values where they are the game's:
#   EV_TAKE: top kind + 16 * packed counts of the rest (the rest is 0 for a side
#            without its initial meld: it comes at EV_COMMIT);
#   EV_DISCARD: kind + 16 * (mask of kinds it was thereby shown not to hold: the
#            discard rules allowed that card only without them);
# and the modern game's own:
EV_ASK = 6       # seat asked its partner whether to go out
EV_ANSWER = 7    # seat (the partner) answered: value 1 yes, 0 no
EV_WITHDRAW = 8  # seat withdrew its initial meld: value = packed counts back to its hand
EV_COMMIT = 9    # seat completed its initial meld and took the pile: value = packed rest
EV_END = 10      # the hand ended: value = END_OUT, END_LAST_THREE or END_STOCK

CHANCE_EVENTS = (EV_DEAL, EV_DRAW)

_ALL_NATURALS = (1 << NUM_NATURAL) - 1
_PLAIN_NATURALS = _ALL_NATURALS & ~(1 << ACE) & ~(1 << SEVEN)   # naturals other than A and 7
_ACES_AND_SEVENS = (1 << ACE) | (1 << SEVEN)
_ALL_SLOTS = tuple(range(NUM_SLOTS))


def threshold_for(score: int) -> int:
    """The initial meld a side needs: 125 under 3000 (negative too), 155 from 3000, 180 from 5000."""
    if score >= 5000:
        return 180
    if score >= 3000:
        return 155
    return 125


@dataclass(frozen=True)
class CanastaRules:
    """The validated parameters of one hand."""

    score0: int = 0
    score1: int = 0
    first_player: int = 0
    players: ClassVar[int] = PLAYERS
    hand_size: ClassVar[int] = HAND_SIZE

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> "CanastaRules":
        unknown = set(params) - set(DEFAULT_PARAMS)
        if unknown:
            raise ValueError(f"unknown Modern American Canasta parameter(s) {sorted(unknown)}; "
                             f"known: {sorted(DEFAULT_PARAMS)}")
        p = {**DEFAULT_PARAMS, **params}
        return cls(score0=int_param(p, "score0", -SCORE_LIMIT, SCORE_LIMIT),
                   score1=int_param(p, "score1", -SCORE_LIMIT, SCORE_LIMIT),
                   first_player=int_param(p, "first_player", 0, PLAYERS - 1))

    @property
    def scores(self) -> tuple[int, int]:
        return self.score0, self.score1

    @property
    def thresholds(self) -> tuple[int, int]:
        return threshold_for(self.score0), threshold_for(self.score1)


# --------------------------------------------------------------- meld options
# The meld actions open to one slot depend only on the side's meld there, the
# cards held of that rank and of the wild cards (two of each at most matter),
# and two flags; they are computed once per combination and kept in flat tables
# indexed by small integers (the hottest path of a playout). An entry is
# (actions, the most cards one uses, ((action, used, completes a canasta), ...)).
SlotOptions = tuple[tuple[int, ...], int, tuple[tuple[int, int, int], ...]]
_NATURAL_TABLE_SIZE = NUM_NATURAL * 8 * 3 * 9     # slot, naturals, wild cards in the meld, held
_NATURAL_TABLES: list[list[SlotOptions | None]] = [[None] * _NATURAL_TABLE_SIZE for _ in range(36)]
_WILD_TABLE: list[SlotOptions | None] = [None] * (7 * 9 * 5)   # meld size, 2s held, Jokers held


def _natural_options(slot: int, o_n: int, o_w: int, held: int, twos: int, jokers: int,
                     relaxed: bool, blocked: bool) -> list[tuple[int, int, int]]:
    """(action, cards used, completes a canasta) for every meld into natural `slot`:
    the side's unfinished meld there has o_n naturals and o_w wild cards (0, 0: none).
    relaxed: this is the side's initial meld; blocked: its wild-card meld is unfinished."""
    size = o_n + o_w
    out = []
    wilds_ok = not blocked and slot != SEVEN and (relaxed or slot != ACE)
    for n in range(min(held, 7 - size) + 1):
        for w, (t, j) in enumerate(NATURAL_WILDS):
            used = n + t + j
            if not used or t > twos or j > jokers or size + used > 7 or o_w + t + j > 2:
                continue
            if not size and (n < 1 or used < 3):
                continue
            if t + j and not (wilds_ok and (relaxed or o_n + n >= 5)):
                continue
            out.append((MELD_BASE + (slot * 8 + n) * 6 + w, used, size + used == 7))
    return out


def _wild_options(size: int, twos: int, jokers: int) -> list[tuple[int, int, int]]:
    out = []
    for i, (t, j) in enumerate(WILD_COMBOS):
        used = t + j
        if t <= twos and j <= jokers and size + used <= 7 and (size or used >= 3):
            out.append((WILD_BASE + i, used, size + used == 7))
    return out


def _pack_options(options: list[tuple[int, int, int]]) -> SlotOptions:
    return (tuple(a for a, _, _ in options), max((u for _, u, _ in options), default=0),
            tuple(options))


def natural_entry(table: list, index: int, twos: int, jokers: int, relaxed: bool,
                  blocked: bool) -> SlotOptions:
    """Fills (once) and returns one entry of the table of the natural slots for one
    combination of the wild cards held (capped at 2 each) and the two flags; the
    entry's index is ((slot * 8 + naturals) * 3 + wild cards in the meld) * 9 + held."""
    rest, held = divmod(index, 9)
    rest, o_w = divmod(rest, 3)
    slot, o_n = divmod(rest, 8)
    table[index] = _pack_options(_natural_options(slot, o_n, o_w, held, twos, jokers, relaxed, blocked))
    return table[index]


def wild_entry(size: int, twos: int, jokers: int) -> SlotOptions:
    index = (size * 9 + twos) * 5 + jokers
    hit = _WILD_TABLE[index]
    if hit is None:
        hit = _WILD_TABLE[index] = _pack_options(_wild_options(size, twos, jokers))
    return hit


def event_action(kind: int, value: int) -> int | None:
    """The action (or chance outcome) an event records; None for bookkeeping."""
    if kind <= EV_DRAW or kind == EV_MELD:
        return value
    if kind == EV_DISCARD:
        return DISCARD_BASE + (value & 15)
    if kind == EV_ANSWER:
        return YES if value else NO
    return _FIXED_ACTIONS.get(kind)


_FIXED_ACTIONS = {EV_STOCK: DRAW, EV_TAKE: TAKE, EV_ASK: ASK, EV_WITHDRAW: WITHDRAW, EV_COMMIT: COMMIT}


_TAKEN = ("the rest of the pile goes into its hand, known to every seat (the view's `Known in pN's hand`); the pile "
          "is then empty")
# How each event (its words with the protocol's placeholders: docs/protocol/modern_canasta.md)
# changes the table a seat keeps: declared here, beside `event_text`, which says them.
EVENTS: tuple[tuple[str, str], ...] = (
    ("scores before the hand: <n> / <n>", "the hand's first line: the score before this hand of side 0 (seats 0 "
                                          "and 2), then side 1 (seats 1 and 3); it sets the side's initial meld: "
                                          "125 points below 3,000 (negative too), 155 from 3,000, 180 from 5,000"),
    ("dealt <rank>", "this seat was dealt the card (hand +1, stock -1). The other seats' deals are not told: each "
                     "seat is dealt 13 cards, and the pile starts empty"),
    ("<seat> dealt <rank>", "a 3 dealt to the seat (anyone's is told; red or black, the view's colour): it goes "
                            "down at once in its side's 3s, not into the hand; after the deal, seat by seat in "
                            "turn order, each draws one card for each 3 it laid down (the `draws` lines after)"),
    ("<seat> draws from the stock", "its turn starts with a draw of one card (the `draws` line that follows)"),
    ("<seat> draws", "one card from the stock into its hand, not told (hand +1, stock -1)"),
    ("<seat> draws <rank>", "a card from the stock, named (stock -1): this seat's own draw, into its hand; or "
                            "anyone's 3, which goes down at once in its side's 3s (not into the hand) and is "
                            "replaced by another draw; a 3 drawn as the stock's last card stays in the hand and ends "
                            "the hand"),
    ("<seat> takes the pile with a pair of <rank>", "takes the pile: its top card (the rank named) and a natural "
                                                    "pair of that rank from its hand go onto its side's unfinished "
                                                    "meld of the rank (when it has 3 or 4 cards) or start one; "
                                                    + _TAKEN + ". A side without its initial meld lays the pair "
                                                    "and the top card now; the rest of the pile waits for "
                                                    "`completes its initial meld and takes the pile` (or goes back "
                                                    "with `withdraws its initial meld`)"),
    ("<seat> meld <rank>: <rank>", "lays the cards after the colon from its hand onto its side's unfinished meld of "
                                   "the rank before it (started if none): naturals, 2s, Jokers (Jk). At seven cards "
                                   "it is a canasta (the view lists it among the side's melds with its kind); a "
                                   "natural canasta closes the rank to both sides. The seat's hand loses the cards"),
    ("<seat> meld <rank>: <rank> ...", "the same, several cards"),
    ("<seat> meld wild: <rank>", "the same onto its side's meld of wild cards (2s and Jokers only)"),
    ("<seat> meld wild: <rank> ...", "the same, several cards"),
    ("<seat> asks to go out", "asks its partner whether it may go out this turn (once a hand, right after its "
                              "draw); the partner's answer is the next line"),
    ("<seat> answers yes", "the partner's answer: the asker must go out this turn if it can (its note `must go out "
                           "this turn`)"),
    ("<seat> answers no", "the partner's answer: the asker may not go out this turn (its note `may not go out this "
                          "turn`)"),
    ("<seat> discards <rank>", "one card from its hand onto the pile, which ends its turn (the next seat's starts); "
                               "a wild card on top blocks taking the pile. A side's initial meld, laid this turn, "
                               "is made from here; a hand it empties goes out"),
    ("<seat> withdraws its initial meld", "the melds it laid this turn toward its side's initial meld (short of "
                                          "it) go back to its hand, known to every seat; where it took the pile, "
                                          "the top card goes back onto the pile and it draws from the stock "
                                          "instead; it melds no more this turn"),
    ("<seat> completes its initial meld and takes the pile", "its side's initial meld is made; " + _TAKEN),
    ("hand over: went out", "a player emptied its hand: the hand is over and scored (the view's `score`; the "
                            "deal's returns)"),
    ("hand over: a 3 was the last card", "a 3 was the stock's last card: it stays in its player's hand (5 points "
                                         "against) and the hand is over and scored"),
    ("hand over: the stock is exhausted", "a turn would start with an empty stock: the hand is over and scored, "
                                          "nobody going out"),
)


def event_text(kind: int, seat: int, value: int, viewer: int) -> str:
    """The line an event adds to `viewer`'s information state ('' for none)."""
    if kind == EV_DEAL:
        if value >= RED_THREE:
            return f"p{seat} dealt {KIND_NAMES[value]}"
        return f"dealt {KIND_NAMES[value]}" if seat == viewer else ""
    if kind == EV_DRAW:
        return f"p{seat} draws {KIND_NAMES[value]}" if seat == viewer or value >= RED_THREE \
            else f"p{seat} draws"
    if kind == EV_STOCK:
        return f"p{seat} draws from the stock"
    if kind == EV_TAKE:
        return f"p{seat} takes the pile with a pair of {KIND_NAMES[value]}"
    if kind == EV_MELD:
        return f"p{seat} {action_to_string(value)}"
    if kind == EV_DISCARD:
        return f"p{seat} discards {KIND_NAMES[value]}"
    if kind == EV_ASK:
        return f"p{seat} asks to go out"
    if kind == EV_ANSWER:
        return f"p{seat} answers {'yes' if value else 'no'}"
    if kind == EV_WITHDRAW:
        return f"p{seat} withdraws its initial meld"
    if kind == EV_COMMIT:
        return f"p{seat} completes its initial meld and takes the pile"
    return ("hand over: went out", "hand over: a 3 was the last card",
            "hand over: the stock is exhausted")[value]


class CanastaState(CanastaFamilyState):
    """A Modern American Canasta hand. Satisfies games.protocol.GameState.

    melds is a flat list: melds[36 * side + 3 * slot + i] is the count of naturals
    (i = 0), 2s (1) and Jokers (2) in the side's unfinished meld of that slot;
    threes[2 * side + colour] the 3s the side laid down (0 red, 1 black).
    canastas[side] is a tuple of (slot, naturals, twos, jokers), one per canasta:
    a canasta leaves the meld table as it completes.
    """

    n = PLAYERS
    sides = 2
    PHASE_NAMES = PHASE_NAMES
    LAID_DOWN = (False,) * PLAYABLE + (True, True)     # every 3, red or black
    THREE_COLOURS = 2
    SLOT_KINDS = tuple(range(NUM_NATURAL)) + (TWO,)      # the wild-card meld holds no naturals
    TEXT_MASKS = (-1, -1, -1, 15, -1, 15, -1, -1, 0, 0, -1)
    EV_WITHDRAW = EV_WITHDRAW
    EV_END = EV_END
    EVENT_TEXT: dict[tuple[int, int, int, bool], str] = {}
    action_name = staticmethod(action_to_string)
    event_action = staticmethod(event_action)
    event_text = staticmethod(event_text)
    PICKLE_RESET = {"cache": None, "out_memo": None, "shared": False}
    __slots__ = ("rules", "phase", "to_move", "actor", "hands", "sizes", "known", "stock",
                 "stock_size", "pile", "melds", "canastas", "closed", "threes", "melded",
                 "pending", "short", "asked", "fresh", "forbid_out", "must_out", "withdrawn",
                 "pickup_top", "owed", "dealt", "log", "result", "scores", "cache",
                 "out_memo", "waived_yes", "shared")

    def __init__(self, rules: CanastaRules = CanastaRules()):
        super().__init__(rules)
        self.canastas: list[tuple] = [(), ()]
        self.closed = 0          # bit r: a natural canasta of rank r exists
        self.asked = 0           # bit seat: the seat has asked its partner this hand
        self.fresh = False       # right after drawing: asking is possible
        self.forbid_out = False  # the partner said no: no going out this turn
        self.must_out = False    # the partner said yes and going out is possible: it must
        self.out_memo = None     # "can still go out" answers during a turn (going_out.turn_memo)
        # None, or (events, askers): a resampled world in which the "yes" answers
        # among its first `events` events oblige none of the seats in mask `askers`
        # (games.modern_canasta.belief's fallback); later answers oblige as usual.
        self.waived_yes = None

    # ------------------------------------------------------ the rules at each phase
    def replay_start(self) -> "CanastaState":
        """The fresh state this one's history replays from: a resampled world that
        waives past "yes" answers replays under the same waiver."""
        start = CanastaState(self.rules)
        start.waived_yes = self.waived_yes
        return start

    def _draw_or_take_actions(self) -> list[int]:
        return [DRAW, TAKE] if self._take_legal() else [DRAW]

    def _game_phase_actions(self) -> list[int]:
        return [YES, NO]

    def _play(self, action: int) -> None:
        if self.must_out and not self._keeps_going_out(action):
            self._illegal(action)
        if action >= MELD_BASE:
            self._meld(action)
        elif action >= DISCARD_BASE:
            self._discard(action - DISCARD_BASE)
        elif action == WITHDRAW:
            self._withdraw()
        elif action == COMMIT:
            self._commit()
        elif action == ASK:
            self._ask()
        else:
            self._illegal(action)

    def _draw_or_take(self, action: int) -> None:
        if action == DRAW:
            self.log = (self.log, EV_STOCK, self.actor, DRAW)
            self.phase = DRAW_CARD
            self.to_move = CHANCE
        elif action == TAKE and self._take_legal():
            self._take()
        else:
            self._illegal(action)

    # ---------------------------------------------------------- legal actions
    def _take_legal(self) -> bool:
        pile = self.pile
        if not pile:
            return False
        top = pile[-1]
        actor = self.actor
        if top >= NUM_NATURAL or self.closed >> top & 1 or self.hands[actor][top] < 2:
            return False
        side = actor & 1
        base = 36 * side + 3 * top
        size = self.melds[base] + self.melds[base + 1] + self.melds[base + 2]
        after = self.sizes[actor] - 3 + len(pile)
        if not self.melded >> side & 1:
            return after >= 2    # the initial meld still has to come from the hand
        if size >= 5:
            return False         # the pair joins the side's meld only while it has 3 or 4 cards
        return after >= 2 or (after == 1 and len(self.canastas[side]) + (size == 4) >= 2)

    def _keeps_going_out(self, action: int) -> bool:
        """Whether `action` is legal after a "yes": legal_actions() holds it, asked of
        this one action (the player's own legal_actions() has searched it already)."""
        from games.modern_canasta.going_out import keep_going_out
        return action in self._moves_of_the_turn() and bool(keep_going_out(self, [action]))

    def can_go_out_now(self) -> bool:
        """Whether emptying the hand is allowed now (two canastas, no "no" this turn)."""
        return not self.forbid_out and len(self.canastas[self.actor & 1]) >= 2

    def _play_actions(self) -> list[int]:
        acts = self._moves_of_the_turn()
        if self.must_out:
            from games.modern_canasta.going_out import keep_going_out
            acts = keep_going_out(self, acts)
        return acts

    def _moves_of_the_turn(self) -> list[int]:
        """The moves the rules allow in the meld phase and while an initial meld
        takes the pile, before a "yes" obliges the player to go out."""
        actor = self.actor
        acts = []
        valid = not self.short
        if self.fresh and not self.asked >> actor & 1 and self.sizes[actor] >= 2:
            acts.append(ASK)     # (with one card, its only move is going out: nothing to ask)
        if self.short:
            acts.append(WITHDRAW)
        if self.phase == PICKUP:
            if valid:
                acts.append(COMMIT)
            effective = self.sizes[actor] + len(self.pile)
        else:
            effective = self.sizes[actor]
            if valid:
                acts.extend(self._discards(self.hands[actor], effective))
        if not self.withdrawn:
            acts.extend(self._meld_actions(_ALL_SLOTS, effective))
        return acts

    def _meld_actions(self, slots: Sequence[int], effective: int) -> list[int]:
        """The legal melds into `slots` for a hand of `effective` cards. A meld must
        leave a card to discard, and leave one card only when that card can be
        discarded to go out."""
        actor = self.actor
        side = actor & 1
        hand = self.hands[actor]
        out_ok = -100 if self.forbid_out else len(self.canastas[side])
        free = effective - 2          # a meld using at most this many cards is always fine
        relaxed = not self.melded >> side & 1
        melds = self.melds
        base = 36 * side
        wild_size = melds[base + 34] + melds[base + 35]
        blocked = wild_size > 0
        twos = hand[TWO]
        jokers = hand[JOKER]
        twos2 = twos if twos < 2 else 2
        jokers2 = jokers if jokers < 2 else 2
        closed = self.closed
        table = _NATURAL_TABLES[((twos2 * 3 + jokers2) * 2 + relaxed) * 2 + blocked]
        acts = []
        for slot in slots:
            if slot == WILD_SLOT:
                if not twos and not jokers:
                    continue
                hit = wild_entry(wild_size, twos, jokers)
            else:
                held = hand[slot]
                b = base + 3 * slot
                o_n = melds[b]
                if not held and (not o_n or not twos2 and not jokers2) or closed >> slot & 1:
                    continue
                index = ((slot * 8 + o_n) * 3 + melds[b + 1] + melds[b + 2]) * 9 + held
                hit = table[index] or natural_entry(table, index, twos2, jokers2, relaxed, blocked)
            if hit[1] <= free:
                acts.extend(hit[0])
            else:
                for action, used, completes in hit[2]:
                    if used <= free or (used == free + 1 and out_ok + completes >= 2):
                        acts.append(action)
        return acts

    def _discards(self, hand: list[int], size: int) -> list[int]:
        """The discard actions open to a hand of `size` cards (no 3s)."""
        if size == 1:
            if not self.can_go_out_now():
                return []
            return [DISCARD_BASE + next(k for k in range(NUM_KINDS) if hand[k])]
        acts = [DISCARD_BASE + k for k in range(NUM_NATURAL) if hand[k]]
        wilds = hand[TWO] + hand[JOKER]
        if wilds == size:      # a hand of wild cards only may discard one
            return [DISCARD_BASE + k for k in (TWO, JOKER) if hand[k]]
        if self.pile:
            return acts
        # An empty pile: an Ace or a 7 only with no other natural card (other than
        # Aces and 7s); a card of a closed rank only when nothing else can go.
        closed = self.closed
        plain = [a for a in acts if (_PLAIN_NATURALS & ~closed) >> (a - DISCARD_BASE) & 1]
        if plain:
            return plain
        if any(hand[k] for k in range(NUM_NATURAL) if _PLAIN_NATURALS >> k & 1):
            return [a for a in acts if closed >> (a - DISCARD_BASE) & 1
                    and _PLAIN_NATURALS >> (a - DISCARD_BASE) & 1]
        # Only Aces and 7s (and wild cards) remain: a closed one of them only when
        # the other is closed too or not held.
        open_ones = [a for a in acts if not closed >> (a - DISCARD_BASE) & 1]
        return open_ones or acts

    def initial_meld_valid(self) -> bool:
        """Whether the melds the player to move has laid as its side's initial meld
        meet the requirement: its threshold in points of cards from the hand (or a
        canasta melded straight from the hand), and a clean meld of three or more
        naturals or a wild-card meld among them."""
        side = self.actor & 1
        melds = self.melds
        base = 36 * side
        top = self.pickup_top
        points = -VALUES[top] if top >= 0 else 0
        clean = False
        for slot in range(NUM_SLOTS):
            b = base + 3 * slot
            n, t, j = melds[b], melds[b + 1], melds[b + 2]
            if n or t or j:
                points += (VALUES[slot] * n if slot != WILD_SLOT else 0) + 20 * t + 50 * j
                clean = clean or slot == WILD_SLOT or (n >= 3 and not t and not j)
        from_hand = False
        for slot, n, t, j in self.canastas[side]:
            points += (VALUES[slot] * n if slot != WILD_SLOT else 0) + 20 * t + 50 * j
            clean = clean or slot == WILD_SLOT or not (t or j)
            from_hand = from_hand or slot != top
        return clean and (from_hand or points >= self.rules.thresholds[side])

    # ------------------------------------------------------------- transitions
    def _replacements_done(self) -> None:
        self._start_turn(self.rules.first_player)

    def _draw(self, kind: int) -> None:
        seat = self.actor
        self._take_from_stock(kind)
        self.log = (self.log, EV_DRAW, seat, kind)
        if kind >= RED_THREE:
            if not self.stock_size:
                # A 3 drawn as the last card of the stock stays in the hand and ends it.
                self.hands[seat][kind] += 1
                self.sizes[seat] += 1
                self._finish(END_LAST_THREE)
                return
            self._lay_down(seat, kind, 1)
            return                 # laid down; the same player draws again
        self.hands[seat][kind] += 1
        self.sizes[seat] += 1
        if self.phase == REPLACE:
            self.owed[seat] -= 1
            self._next_replacement()
            return
        self.phase = MELD
        self.to_move = seat
        self.fresh = True

    def _start_turn(self, seat: int) -> None:
        self.actor = seat
        if not self.stock_size:
            self._finish(END_STOCK)   # no play from the pile once the stock is gone
            return
        self.phase = TURN
        self.to_move = seat
        self.fresh = False
        self.forbid_out = False
        self.must_out = False
        self.withdrawn = False
        self.pickup_top = -1
        self.out_memo = None

    def _take(self) -> None:
        actor = self.actor
        side = actor & 1
        pile = self.pile
        top = pile.pop()
        self._remove(actor, top, 2)
        b = 36 * side + 3 * top
        if self.melded >> side & 1:
            self.melds[b] += 3
            self._maybe_canasta(side, top)
            rest = self._pile_to_hand(actor)
            self.log = (self.log, EV_TAKE, actor, top + 16 * rest)
            self.phase = MELD
            self.fresh = True
        else:
            self.melds[b] = 3
            self.pending = True
            self.pickup_top = top
            self.short = not self.initial_meld_valid()
            self.log = (self.log, EV_TAKE, actor, top)
            self.phase = PICKUP

    def _maybe_canasta(self, side: int, slot: int) -> None:
        melds = self.melds
        b = 36 * side + 3 * slot
        n, t, j = melds[b], melds[b + 1], melds[b + 2]
        if n + t + j == 7:
            self.canastas[side] += ((slot, n, t, j),)
            melds[b] = melds[b + 1] = melds[b + 2] = 0
            if slot != WILD_SLOT and not t and not j:
                self.closed |= 1 << slot

    def _meld(self, action: int) -> None:
        effective = self.sizes[self.actor] + (len(self.pile) if self.phase == PICKUP else 0)
        if self.withdrawn or action not in self._meld_actions((MELD_PARTS[action][0],), effective):
            self._illegal(action)
        self.do_meld(action)

    def do_meld(self, action: int) -> None:
        """Applies a meld action known to be legal (the going-out search's fast path)."""
        actor = self.actor
        side = actor & 1
        slot, n, t, j = MELD_PARTS[action]
        if n:
            self._remove(actor, slot, n)
        if t:
            self._remove(actor, TWO, t)
        if j:
            self._remove(actor, JOKER, j)
        b = 36 * side + 3 * slot
        self.melds[b] += n
        self.melds[b + 1] += t
        self.melds[b + 2] += j
        self._maybe_canasta(side, slot)
        if not self.melded >> side & 1:
            self.pending = True
            self.short = not self.initial_meld_valid()
        self.fresh = False
        self.log = (self.log, EV_MELD, actor, action)

    def _discard(self, kind: int) -> None:
        actor = self.actor
        hand = self.hands[actor]
        size = self.sizes[actor]
        if self.short or self.phase != MELD \
                or DISCARD_BASE + kind not in self._discards(hand, size):
            self._illegal(DISCARD_BASE + kind)
        shown = 0
        if size > 1:
            if kind == TWO or kind == JOKER:
                shown = _ALL_NATURALS
            elif not self.pile:
                if kind == ACE or kind == SEVEN:
                    shown = _PLAIN_NATURALS
                    if self.closed >> kind & 1:     # nor an Ace or 7 of a rank not closed
                        shown |= _ACES_AND_SEVENS & ~self.closed
                elif self.closed >> kind & 1:
                    shown = _PLAIN_NATURALS & ~self.closed
        self._remove(actor, kind, 1)
        self.pile.append(kind)
        self.log = (self.log, EV_DISCARD, actor, kind + 16 * shown)
        if self.pending:
            self.melded |= 1 << (actor & 1)
            self.pending = False
        if size == 1:
            self._finish(END_OUT)
        else:
            self._start_turn((actor + 1) % PLAYERS)

    def _ask(self) -> None:
        actor = self.actor
        if not self.fresh or self.asked >> actor & 1 or self.sizes[actor] < 2:
            self._illegal(ASK)
        self.asked |= 1 << actor
        self.fresh = False
        self.log = (self.log, EV_ASK, actor, 0)
        self.phase = ANSWER
        self.to_move = (actor + 2) % PLAYERS

    def _game_phase(self, action: int) -> None:
        """The partner's answer (ANSWER)."""
        if action != YES and action != NO:
            self._illegal(action)
        self.log = (self.log, EV_ANSWER, self.to_move, int(action == YES))
        self.phase = MELD
        self.to_move = self.actor
        if action == NO:
            self.forbid_out = True
        elif self.waived_yes is not None and self.waived_yes[1] >> self.actor & 1 \
                and log_length(self.log) <= self.waived_yes[0]:
            self.must_out = False
        else:
            from games.modern_canasta.going_out import can_go_out
            self.must_out = can_go_out(self)

    def _withdraw(self) -> None:
        if not self.short:
            self._illegal(WITHDRAW)
        side = self.actor & 1
        back = self._clear_open_melds(side)
        for slot, n, t, j in self.canastas[side]:
            back[self.SLOT_KINDS[slot]] += n
            back[TWO] += t
            back[JOKER] += j
        self.canastas[side] = ()
        self.closed = 0
        for s in (0, 1):
            for slot, n, t, j in self.canastas[s]:
                if slot != WILD_SLOT and not t and not j:
                    self.closed |= 1 << slot
        if self._return_initial_meld(back):
            self.phase = DRAW_CARD    # the turn goes on with a draw from the stock
            self.to_move = CHANCE

    def _commit(self) -> None:
        if self.phase != PICKUP or self.short:
            self._illegal(COMMIT)
        actor = self.actor
        self.melded |= 1 << (actor & 1)
        self.pending = False
        self.pickup_top = -1
        rest = self._pile_to_hand(actor)
        self.log = (self.log, EV_COMMIT, actor, rest)
        self.phase = MELD
        self.fresh = True

    def _score_sides(self, reason: int) -> tuple:
        out_side = self.actor & 1 if reason == END_OUT else -1
        scores = []
        for side in (0, 1):
            scores.append(side_score(self.open_melds(side), self.canastas[side],
                                     (self.threes[2 * side], self.threes[2 * side + 1]),
                                     (self.hands[side], self.hands[side + 2]), side == out_side))
        return tuple(scores)

    # ------------------------------------------------------------ information
    def table_melds(self, side: int) -> list[tuple[int, int, int, int]]:
        """(slot, naturals, twos, jokers) of every meld the side has on the table:
        the unfinished ones, then the canastas."""
        return super().table_melds(side) + list(self.canastas[side])

    def _private_lines(self, player: int) -> list[str]:
        lines = super()._private_lines(player)
        if self.must_out and player == self.actor:
            lines.append("must go out this turn")
        return lines

    def _side_lines(self) -> list[str]:
        lines = []
        for side in (0, 1):
            melds = [f"{KIND_NAMES[s] if s != WILD_SLOT else 'wild'}:{n}+{t}x2+{j}xJk"
                     for s, (n, t, j) in enumerate(self.open_melds(side)) if n or t or j]
            canastas = [f"{KIND_NAMES[s] if s != WILD_SLOT else 'wild'}:{n}+{t}x2+{j}xJk"
                        for s, n, t, j in self.canastas[side]]
            flag = "melded" if self.melded >> side & 1 else "not melded"
            lines.append(f"side {side} ({flag}): 3s red {self.threes[2 * side]} black "
                         f"{self.threes[2 * side + 1]}; canastas {' '.join(canastas) or '-'}; "
                         f"melds {' '.join(melds) or '-'}")
        return lines

    def _turn_lines(self) -> list[str]:
        # Whether a player told "yes" must go out depends on its hand: only it sees that.
        may_ask = self.fresh and not self.asked >> self.actor & 1 and self.sizes[self.actor] >= 2
        flags = [name for name, on in (("may ask", may_ask),
                                       ("no going out", self.forbid_out),
                                       ("withdrawn", self.withdrawn)) if on]
        return ["asked: " + (" ".join(f"p{s}" for s in range(PLAYERS) if self.asked >> s & 1) or "-")
                + ("  " + ", ".join(flags) if flags else "")]

    def resample_from_infostate(self, player: int,
                                probability_sampler: Callable[[], float]) -> "CanastaState":
        """A state drawn uniformly from those `player` cannot tell from this one.

        See games.modern_canasta.belief for what "consistent" and "uniform" mean here.
        """
        from games.modern_canasta.belief import resample
        return resample(self, player, probability_sampler)



def set_up(hands: Sequence[Sequence[int]], *, actor: int = 0, phase: int = TURN,
           pile: Sequence[int] = (), melds: Mapping[tuple[int, int], tuple[int, int, int]] | None = None,
           canastas: Sequence[Sequence[tuple[int, int, int, int]]] = ((), ()),
           melded: int | None = None, threes: Sequence[int] = (0, 0, 0, 0),
           stock: Sequence[int] | None = None, rules: CanastaRules = CanastaRules()) -> CanastaState:
    """A position set up directly, for puzzles and rule tests: hands[s] are seat
    s's counts per kind; melds[(side, slot)] = (naturals, twos, jokers) of an
    unfinished meld; canastas[side] lists complete ones; threes are (red, black)
    of side 0, then of side 1; `melded` defaults to the sides with any meld; the
    stock holds every other card unless given. `actor` is to move in `phase`
    (TURN: draw or take; MELD: right after drawing). The log starts empty."""
    s = CanastaState(rules)
    for side in (0, 1):
        s.canastas[side] = tuple(tuple(c) for c in canastas[side])
        for slot, n, t, j in s.canastas[side]:
            if slot != WILD_SLOT and not t and not j:
                s.closed |= 1 << slot
    place_cards(s, hands, pile, melds, threes, stock, melded, actor, phase)
    s.fresh = phase == MELD
    return s


__all__ = ["CanastaRules", "CanastaState", "DEFAULT_PARAMS", "deal", "set_up", "threshold_for"]
