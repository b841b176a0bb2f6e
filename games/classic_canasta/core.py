"""Classic (standard) Canasta rules core: one explicit state machine, no OpenSpiel.

Two, three or four players: four play as two partnerships (seats 0 and 2 against
1 and 3), two or three each for themselves ("sides" below are the partnerships,
or the players). Eleven cards each with four players (15 with two, 13 with
three) and one card turned up to start the pile. A turn: draw (one card with
four players, two with two or three) or take the whole pile with two hand cards
that meld with its top card; meld; discard one card. Going out needs a canasta
for the side (two in the two-player game). docs/rules/classic_canasta.md gives
every rule beside the page's sentence and every decision taken where it is silent.

The state is a games.canasta_family.core.CanastaFamilyState: cards are the
family's kinds, counted per kind; every deal card, draw and turned-up card is a
chance event; the event log, shared between clones, holds what the information
state, the resampler and the history read. This module holds the classic game's
turn machine: 2 to 4 players, the card turned up, the frozen pile, taking it
with a wild card, black 3s, canastas that stay in their melds, going out
concealed, and the last red 3's turn.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from games.classic_canasta.actions import (BLACK_BASE, BLACK_SLOT, COMMIT, DISCARD_BASE, DRAW,
                                           MELD_BASE, MELD_PARTS, TAKE_JOKER, TAKE_PAIR, TAKE_TWO,
                                           TAKES, WILD_COMBOS, WITHDRAW, action_to_string,
                                           discard_action, discard_kind)
from games.canasta_family.cards import (BLACK_THREE, JOKER, KIND_NAMES, NUM_NATURAL, NUM_SLOTS,
                                        RED_THREE, TWO, VALUES)
from games.canasta_family.core import (DRAW_CARD, END_LAST_THREE, END_OUT, END_STOCK, EV_DEAL,
                                       EV_DISCARD, EV_DRAW, EV_MELD, EV_STOCK, EV_TAKE, GAME_PHASE, MELD,
                                       PICKUP, REPLACE, SIDE_STRIDE, TURN, CanastaFamilyState, deal,
                                       place_cards)
from games.canasta_family.scoring import cards_value
from games.classic_canasta.scoring import SideScore, side_score
from games.params import GameParameterError, choice_param, int_param
from games.protocol import CHANCE

SCORE_LIMIT = 1_000_000
HAND_SIZES = {2: 15, 3: 13, 4: 11}
DRAWS = {2: 2, 3: 2, 4: 1}
CANASTAS_TO_GO_OUT = {2: 2, 3: 1, 4: 1}
NUM_MELD_SLOTS = NUM_SLOTS    # the 11 natural ranks and the black 3s

DEFAULT_PARAMS: dict[str, Any] = {
    "players": 4,       # 2, 3 or 4 (four play in two partnerships)
    "score0": 0,        # points of side 0 before this hand (the match's running score)
    "score1": 0,        # points of side 1
    "score2": 0,        # points of side 2 (three players only)
    "first_player": 0,  # the seat on the dealer's left, who is dealt to and plays first
    # A red 3 drawn as the last card of the stock: "meld" (Hoyle's rule: the player lays it
    # down, may meld, but may not discard, and the hand ends) or "end" (the hand ends at once).
    "last_red_three": "meld",
}
LAST_RED_THREE_CHOICES = ("meld", "end")

# Phases: the family's, with turning up the card that starts the pile as the
# game's own (it follows the replacements, before the first turn).
UPCARD = GAME_PHASE
PHASE_NAMES = ("deal", "replace red 3s", "draw or take", "draw", "meld", "turn up the pile",
               "take: initial meld", "over")

# Event kinds in the log: the family's EV_DEAL .. EV_DISCARD (a deal or draw is
# public when a red 3), with these values where they are the game's:
#   EV_STOCK: DRAW (with the stock empty: to end the hand), or LAST_TURN_OVER when
#             the seat ended its turn after a red 3 as the stock's last card;
#   EV_TAKE: action + 4 * top kind + 64 * packed rest (the rest is 0 for a side
#            without its initial meld: it comes at EV_COMMIT);
#   EV_DISCARD: the kind;
# and the classic game's own:
EV_WITHDRAW = 6  # seat withdrew its initial meld: value = packed counts back to its hand
EV_COMMIT = 7    # seat completed its initial meld and took the pile: value = packed rest
EV_UPCARD = 8    # a card of kind `value` was turned up onto the pile (seat -1)
EV_END = 9       # the hand ended: value = END_OUT, END_LAST_THREE or END_STOCK

LAST_TURN_OVER = 1
CHANCE_EVENTS = (EV_DEAL, EV_DRAW, EV_UPCARD)
_HELD_KINDS = tuple(range(13)) + (BLACK_THREE,)     # what a hand can hold in play


def threshold_for(score: int) -> int:
    """The initial meld a side needs: 15 with a negative score, 50 from 0, 90 from 1,500, 120 from 3,000."""
    if score < 0:
        return 15
    if score < 1500:
        return 50
    if score < 3000:
        return 90
    return 120


def meld_points(slot: int, naturals: int, twos: int, jokers: int) -> int:
    return cards_value(BLACK_THREE if slot == BLACK_SLOT else slot, naturals, twos, jokers)


@dataclass(frozen=True)
class ClassicRules:
    """The validated parameters of one hand."""

    players: int = 4
    score0: int = 0
    score1: int = 0
    score2: int = 0
    first_player: int = 0
    last_red_three: str = "meld"

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> "ClassicRules":
        unknown = set(params) - set(DEFAULT_PARAMS)
        if unknown:
            raise ValueError(f"unknown classic Canasta parameter(s) {sorted(unknown)}; "
                             f"known: {sorted(DEFAULT_PARAMS)}")
        p = {**DEFAULT_PARAMS, **params}
        players = int_param(p, "players", 2, 4)
        rules = cls(players=players,
                    score0=int_param(p, "score0", -SCORE_LIMIT, SCORE_LIMIT),
                    score1=int_param(p, "score1", -SCORE_LIMIT, SCORE_LIMIT),
                    score2=int_param(p, "score2", -SCORE_LIMIT, SCORE_LIMIT),
                    first_player=int_param(p, "first_player", 0, players - 1),
                    last_red_three=choice_param(p, "last_red_three", LAST_RED_THREE_CHOICES))
        if players != 3 and rules.score2:
            raise GameParameterError(f"score2={rules.score2}: only a three-player game has a third side",
                                     param="score2")
        return rules

    @property
    def sides(self) -> int:
        return 2 if self.players == 4 else self.players

    @property
    def hand_size(self) -> int:
        return HAND_SIZES[self.players]

    @property
    def scores(self) -> tuple[int, ...]:
        return (self.score0, self.score1, self.score2)[:self.sides]

    @property
    def thresholds(self) -> tuple[int, ...]:
        return tuple(threshold_for(s) for s in self.scores)


# --------------------------------------------------------------- meld options
# The meld actions open to one natural rank depend only on the side's meld there
# (naturals, wild cards), the naturals held and the wild cards held (three of each
# at most matter); each combination's options are computed once and kept in a flat
# table. An entry is (actions, the most cards one uses, ((action, used, points,
# completes a canasta), ...)).
Options = tuple[tuple[int, ...], int, tuple[tuple[int, int, int, int], ...]]
_TABLE: list[Options | None] = [None] * (NUM_NATURAL * 9 * 4 * 9 * 16)


def _options(slot: int, o_n: int, o_w: int, held: int, twos: int, jokers: int) -> Options:
    """Every meld into natural `slot` whose meld holds o_n naturals and o_w wild cards
    (0, 0: none yet): three cards or more to start one, more naturals than wild
    cards and at most three wild cards, as it stands afterwards."""
    size = o_n + o_w
    out = []
    for n in range(held + 1):
        for w, (t, j) in enumerate(WILD_COMBOS):
            used = n + t + j
            if not used or t > twos or j > jokers:
                continue
            if o_w + t + j > 3 or o_n + n <= o_w + t + j or (not size and used < 3):
                continue
            out.append((MELD_BASE + (slot * 9 + n) * 10 + w, used,
                        VALUES[slot] * n + VALUES[TWO] * t + VALUES[JOKER] * j,
                        int(size < 7 <= size + used)))
    return (tuple(e[0] for e in out), max((e[1] for e in out), default=0), tuple(out))


def meld_options(slot: int, o_n: int, o_w: int, held: int, twos: int, jokers: int) -> Options:
    index = ((((slot * 9 + o_n) * 4 + o_w) * 9 + held) * 4 + twos) * 4 + jokers
    hit = _TABLE[index]
    if hit is None:
        hit = _TABLE[index] = _options(slot, o_n, o_w, held, twos, jokers)
    return hit


def event_action(kind: int, value: int) -> int | None:
    """The action (or chance outcome) an event records; None for bookkeeping."""
    if kind <= EV_DRAW or kind == EV_MELD or kind == EV_UPCARD:
        return value
    if kind == EV_DISCARD:
        return discard_action(value)
    if kind == EV_TAKE:
        return value & 3
    return _FIXED_ACTIONS.get(kind)


_FIXED_ACTIONS = {EV_STOCK: DRAW, EV_WITHDRAW: WITHDRAW, EV_COMMIT: COMMIT}

_HEADER = ("the hand's first line: the number of players and each side's score before this hand, side 0 first "
           "(a side is a partnership with four players, a player with two or three); it sets the side's initial "
           "meld: 15 points below 0, 50 from 0, 90 from 1,500, 120 from 3,000")
_TAKEN = ("the rest of the pile goes into its hand, known to every seat (the view's `Known in pN's hand`; a red 3 "
          "in it goes down in its side's red 3s instead); the pile is then empty and no longer frozen")
_TAKES = ("takes the pile: its top card (the rank named) and the cards named from its hand go onto its side's meld "
          "of that rank (started if it has none); " + _TAKEN + ". A side without its initial meld lays only the "
          "pair and the top card now; the rest of the pile waits for `completes its initial meld and takes the "
          "pile` (or goes back with `withdraws its initial meld`)")
# How each event (its words with the protocol's placeholders: docs/protocol/classic_canasta.md)
# changes the table a seat keeps: declared here, beside `event_text`, which says them.
EVENTS: tuple[tuple[str, str], ...] = (
    ("<n> players; scores before the hand: <n> / <n>", _HEADER),
    ("<n> players; scores before the hand: <n> / <n> / <n>", _HEADER + " (three players: three sides)"),
    ("dealt <rank>", "this seat was dealt the card (hand +1, stock -1). The other seats' deals are not told: "
                     "each seat is dealt 15 cards (two players), 13 (three) or 11 (four)"),
    ("<seat> dealt <rank>", "a red 3 dealt to the seat (anyone's is told): it goes down at once in its side's red "
                            "3s, not into the hand; after the deal, seat by seat in turn order, each draws one "
                            "card for each red 3 it laid down (the `draws` lines that follow)"),
    ("turned up <rank>", "one card from the stock starts the pile (stock -1, pile +1); a red 3 or a wild card "
                         "turned up is covered by the next one turned up, and the pile is frozen"),
    ("<seat> draws from the stock", "its turn starts with a draw: one card with four players, two with two or "
                                    "three (the `draws` lines that follow); with the stock empty, the hand ends "
                                    "instead (the next line)"),
    ("<seat> draws", "one card from the stock into its hand, not told (hand +1, stock -1)"),
    ("<seat> draws <rank>", "a card from the stock, named (stock -1): this seat's own draw, into its hand; or "
                            "anyone's red 3, which goes down at once in its side's red 3s (not into the hand) and "
                            "is replaced by another draw"),
    ("<seat> takes the pile with a pair of <rank>", _TAKES + "; here two naturals of the rank"),
    ("<seat> takes the pile with a <rank> and a <rank>", _TAKES + "; here one natural and a 2 (the second rank; "
                                                                 "a side with its initial meld, the pile not "
                                                                 "frozen)"),
    ("<seat> takes the pile with a <rank> and a Joker", "the same as with a 2, with a Joker"),
    ("<seat> meld <rank>: <rank>", "lays the cards after the colon from its hand onto its side's meld of the rank "
                                   "before it (started if none; 3b: black 3s, only in going out): naturals, 2s, "
                                   "Jokers (Jk). Seven cards or more make a canasta (natural without a wild "
                                   "card, else mixed). The seat's hand loses the cards"),
    ("<seat> meld <rank>: <rank> ...", "the same, several cards"),
    ("<seat> discards <rank>", "one card from its hand onto the pile, which ends its turn (the next seat's "
                               "starts); a 2 or a Joker discarded freezes the pile, and no one takes a pile "
                               "with a black 3, a 2 or a Joker on top. A side's initial meld, laid this turn, is "
                               "made from here"),
    ("<seat> withdraws its initial meld", "the melds it laid this turn toward its side's initial meld (short "
                                          "of it) go back to its hand, known to every seat; where it took the "
                                          "pile, the top card goes back onto the pile and the turn goes on with "
                                          "a draw from the stock; it melds no more this turn"),
    ("<seat> completes its initial meld and takes the pile", "its side's initial meld is made; " + _TAKEN),
    ("<seat> ends the hand", "last_red_three=meld: a red 3 was the stock's last card; the seat ended its turn "
                             "(its melds done, no discard) and the hand ends"),
    ("hand over: went out", "a player emptied its hand (melds, or melds and a last discard): the hand is over and "
                            "scored (the view's `score`; the deal's returns)"),
    ("hand over: a red 3 was the last card", "a red 3 was the stock's last card: the hand is over and scored"),
    ("hand over: the stock is exhausted", "a turn would draw from an empty stock without taking the pile: the "
                                          "hand is over and scored, nobody going out"),
)


def event_text(kind: int, seat: int, value: int, viewer: int) -> str:
    """The line an event adds to `viewer`'s information state ('' for none)."""
    if kind == EV_DEAL:
        if value == RED_THREE:
            return f"p{seat} dealt {KIND_NAMES[value]}"
        return f"dealt {KIND_NAMES[value]}" if seat == viewer else ""
    if kind == EV_DRAW:
        return f"p{seat} draws {KIND_NAMES[value]}" if seat == viewer or value == RED_THREE \
            else f"p{seat} draws"
    if kind == EV_UPCARD:
        return f"turned up {KIND_NAMES[value]}"
    if kind == EV_STOCK:
        return f"p{seat} ends the hand" if value == LAST_TURN_OVER else f"p{seat} draws from the stock"
    if kind == EV_TAKE:
        top = KIND_NAMES[value >> 2]
        with_cards = {TAKE_PAIR: f"a pair of {top}", TAKE_TWO: f"a {top} and a 2",
                      TAKE_JOKER: f"a {top} and a Joker"}[value & 3]
        return f"p{seat} takes the pile with {with_cards}"
    if kind == EV_MELD:
        return f"p{seat} {action_to_string(value)}"
    if kind == EV_DISCARD:
        return f"p{seat} discards {KIND_NAMES[value]}"
    if kind == EV_WITHDRAW:
        return f"p{seat} withdraws its initial meld"
    if kind == EV_COMMIT:
        return f"p{seat} completes its initial meld and takes the pile"
    return ("hand over: went out", "hand over: a red 3 was the last card",
            "hand over: the stock is exhausted")[value]


class ClassicState(CanastaFamilyState):
    """A classic Canasta hand. Satisfies games.protocol.GameState.

    melds is flat: melds[36 * side + 3 * slot + i] counts the naturals (i = 0), 2s
    (1) and Jokers (2) of the side's meld of slot 0..10 (a natural rank) or 11 (black
    3s). A meld of seven cards or more is a canasta; canastas[side] counts them;
    threes[side] the red 3s the side laid down.
    """

    PHASE_NAMES = PHASE_NAMES
    LAID_DOWN = (False,) * RED_THREE + (True, False)    # red 3s only: a black 3 stays in the hand
    THREE_COLOURS = 1
    SLOT_KINDS = tuple(range(NUM_NATURAL)) + (BLACK_THREE,)
    TEXT_MASKS = (-1, -1, -1, 63, -1, -1, 0, 0, -1, -1)
    EV_WITHDRAW = EV_WITHDRAW
    EV_END = EV_END
    EVENT_TEXT: dict[tuple[int, int, int, bool], str] = {}
    action_name = staticmethod(action_to_string)
    event_action = staticmethod(event_action)
    event_text = staticmethod(event_text)

    __slots__ = ("rules", "n", "sides", "phase", "to_move", "actor", "hands", "sizes", "known",
                 "stock", "stock_size", "pile", "frozen", "melds", "canastas", "threes", "melded",
                 "melders", "pending", "short", "turn_points", "withdrawn", "took", "concealed_ok",
                 "pickup_top", "to_draw", "owed", "dealt", "log", "result", "scores", "cache",
                 "shared", "out_side", "concealed", "last_turn")

    def __init__(self, rules: ClassicRules = ClassicRules()):
        self.n = rules.players
        self.sides = rules.sides
        super().__init__(rules)
        self.canastas = [0] * self.sides
        self.frozen = False      # a wild card or a red 3 lies in the pile
        self.melders = 0         # bit seat: the seat has melded this hand (a concealed going out cannot)
        self.turn_points = 0     # points of the initial meld being built (the pile's top included)
        self.took = False        # the player to move took the pile this turn
        self.concealed_ok = False   # going out now would be concealed
        self.to_draw = 0         # cards still to draw this turn
        self.out_side = -1
        self.concealed = False
        self.last_turn = False   # a red 3 was the stock's last card: meld, no discard, then the hand ends

    # ------------------------------------------------------ the rules at each phase
    def side_of(self, seat: int) -> int:
        return seat % self.sides

    def _draw_or_take_actions(self) -> list[int]:
        return [DRAW] + self._takes()

    def _play(self, action: int) -> None:
        if action >= MELD_BASE:
            self._meld(action)
        elif action >= DISCARD_BASE:
            self._discard(action)
        elif action == WITHDRAW:
            self._withdraw()
        elif action == COMMIT:
            self._commit()
        elif action == DRAW and self.last_turn and not self.short:
            self._end_last_turn()
        else:
            self._illegal(action)

    def _draw_or_take(self, action: int) -> None:
        if action == DRAW:
            self.log = (self.log, EV_STOCK, self.actor, DRAW)
            if not self.stock_size:
                self._finish(END_STOCK)
                return
            self.phase = DRAW_CARD
            self.to_draw = DRAWS[self.n]
            self.to_move = CHANCE
        elif action in TAKES and action in self._takes():
            self._take(action)
        else:
            self._illegal(action)

    def action_to_string(self, player: int, action: int) -> str:
        if player == CHANCE:
            if self.phase == UPCARD:
                return f"turned up {KIND_NAMES[action]}"
        elif action == DRAW and self.phase == TURN and not self.stock_size:
            return "end the hand (the stock is empty)"
        elif action == DRAW and self.last_turn:
            return "end the hand (a red 3 was the last card)"
        return super().action_to_string(player, action)

    # ---------------------------------------------------------- legal actions
    def out_allowed(self, canastas: int, points: int) -> bool:
        """Whether the player to move may empty its hand once its side has `canastas`
        and its initial meld this turn `points`: the side's canastas, and an initial
        meld that is made or met (or waived: a concealed going out)."""
        side = self.actor % self.sides
        if canastas < CANASTAS_TO_GO_OUT[self.n]:
            return False
        if self.melded >> side & 1:
            return True
        return points >= self.rules.thresholds[side] or (self.phase == MELD and self.concealed_ok)

    def _takes(self) -> list[int]:
        """The ways the player to move may take the pile: with the top card and two
        hand cards that meld with it (a natural pair while the pile is frozen for it)."""
        pile = self.pile
        if not pile:
            return []
        top = pile[-1]
        if top >= NUM_NATURAL:
            return []            # a black 3 or a wild card on top
        actor = self.actor
        hand = self.hands[actor]
        held = hand[top]
        if not held:
            return []
        side = actor % self.sides
        rest = len(pile) - 1 - pile.count(RED_THREE)
        after = self.sizes[actor] - 2 + rest
        if not self.melded >> side & 1:
            # Frozen for a side without its initial meld: a natural pair, and cards
            # left to build the rest of the initial meld with.
            return [TAKE_PAIR] if held >= 2 and after >= 2 else []
        b = side * SIDE_STRIDE + 3 * top
        o_n = self.melds[b]
        o_w = self.melds[b + 1] + self.melds[b + 2]
        size = o_n + o_w
        out = []
        for action, nat, ok in ((TAKE_PAIR, 2, held >= 2),
                                (TAKE_TWO, 1, hand[TWO] and not self.frozen),
                                (TAKE_JOKER, 1, hand[JOKER] and not self.frozen)):
            if not ok:
                continue
            w = o_w + 2 - nat
            if w > 3 or o_n + nat + 1 <= w:
                continue
            if after >= 2 or self.out_allowed(self.canastas[side] + (size < 7 <= size + 3), 0):
                out.append(action)
        return out

    def _play_actions(self) -> list[int]:
        """Legal actions in the meld phase and while an initial meld takes the pile."""
        acts = []
        if self.short:
            acts.append(WITHDRAW)
        if self.phase == PICKUP:
            if not self.short:
                acts.append(COMMIT)
            effective = self.sizes[self.actor] + len(self.pile) - self.pile.count(RED_THREE)
        elif self.last_turn:
            effective = self.sizes[self.actor]
            if not self.short:
                acts.append(DRAW)        # end the hand: no discard after the last red 3
        else:
            effective = self.sizes[self.actor]
            acts.extend(self._discards())
        if not self.withdrawn:
            acts.extend(self._meld_actions(effective))
        return acts

    def _discards(self) -> list[int]:
        if self.last_turn:
            return []
        actor = self.actor
        hand = self.hands[actor]
        size = self.sizes[actor]
        if size == 1:
            side = actor % self.sides
            if self.out_allowed(self.canastas[side], -1 if self.short else self.turn_points):
                return [discard_action(next(k for k in _HELD_KINDS if hand[k]))]
            return []
        if self.short:
            return []
        return [DISCARD_BASE + i for i, k in enumerate(_HELD_KINDS) if hand[k]]

    def _meld_actions(self, effective: int, only: int = -1) -> list[int]:
        """The legal melds for a hand of `effective` cards (into slot `only` when
        given). A meld must leave two cards (one to discard, one to keep), unless the
        player may go out after it; in the last turn after a red 3 drawn as the stock's
        last card, with no discard to follow, it must leave one unless it goes out."""
        actor = self.actor
        side = actor % self.sides
        hand = self.hands[actor]
        melds = self.melds
        base = side * SIDE_STRIDE
        twos = hand[TWO]
        jokers = hand[JOKER]
        twos3 = twos if twos < 3 else 3
        jokers3 = jokers if jokers < 3 else 3
        kept = 1 if self.last_turn else 2        # cards a meld must leave unless going out
        free = effective - kept
        canastas = self.canastas[side]
        points = self.turn_points
        acts = []
        slots = range(NUM_NATURAL) if only < 0 else ((only,) if only < NUM_NATURAL else ())
        for slot in slots:
            held = hand[slot]
            b = base + 3 * slot
            o_n = melds[b]
            if not held and not (o_n and (twos or jokers)):
                continue
            o_w = melds[b + 1] + melds[b + 2]
            hit = meld_options(slot, o_n, o_w, held, twos3, jokers3)
            if hit[1] <= free:
                acts.extend(hit[0])
            else:
                for action, used, value, completes in hit[2]:
                    if used <= free or self.out_allowed(canastas + completes, points + value):
                        acts.append(action)
        if only < 0 or only == BLACK_SLOT:
            black = hand[BLACK_THREE]
            if black >= 3 and not melds[base + 3 * BLACK_SLOT]:
                # Black 3s meld only as the last meld of going out.
                for count in range(3, black + 1):
                    if effective - count <= kept - 1 and self.out_allowed(canastas, points + 5 * count):
                        acts.append(BLACK_BASE + count - 3)
        return acts

    def initial_meld_short(self) -> bool:
        return self.turn_points < self.rules.thresholds[self.actor % self.sides]

    # ------------------------------------------------------------- transitions
    def _replacements_done(self) -> None:
        self.phase = UPCARD

    def _game_phase(self, kind: int) -> None:
        """The card turned up to start the pile (UPCARD, a chance outcome)."""
        self._take_from_stock(kind)
        self.log = (self.log, EV_UPCARD, -1, kind)
        self.pile.append(kind)
        if kind == RED_THREE or kind == TWO or kind == JOKER:
            self.frozen = True       # covered by another card, and the pile is frozen
            if self.stock_size:
                return
        self._start_turn(self.rules.first_player)

    def _draw(self, kind: int) -> None:
        seat = self.actor
        self._take_from_stock(kind)
        self.log = (self.log, EV_DRAW, seat, kind)
        if kind == RED_THREE:
            self._lay_down(seat, kind, 1)
            if not self.stock_size:
                # The last card of the stock: the hand ends, at once or after the player's melds.
                if self.phase == DRAW_CARD and self.rules.last_red_three == "meld":
                    self.last_turn = True
                    self.to_draw = 0
                    self.phase = MELD
                    self.to_move = seat
                else:
                    self._finish(END_LAST_THREE)
            return                   # laid down; the same player draws again
        self.hands[seat][kind] += 1
        self.sizes[seat] += 1
        if self.phase == REPLACE:
            self.owed[seat] -= 1
            self._next_replacement()
            return
        self.to_draw -= 1
        if self.to_draw and self.stock_size:
            return
        self.to_draw = 0
        self.phase = MELD
        self.to_move = seat

    def _start_turn(self, seat: int) -> None:
        self.actor = seat
        self.phase = TURN
        self.to_move = seat
        self.withdrawn = False
        self.took = False
        self.pending = False
        self.short = False
        self.turn_points = 0
        self.pickup_top = -1
        self.concealed_ok = not self.melders >> seat & 1
        if not self.stock_size and not self._takes():
            self._finish(END_STOCK)      # nothing to draw and no pile to take

    def _take(self, action: int) -> None:
        actor = self.actor
        side = actor % self.sides
        top = self.pile.pop()
        self.took = True
        self.concealed_ok = False
        self.melders |= 1 << actor
        self._remove(actor, top, 2 if action == TAKE_PAIR else 1)
        b = side * SIDE_STRIDE + 3 * top
        melds = self.melds
        if self.melded >> side & 1:
            if action == TAKE_PAIR:
                self._add_to_meld(side, top, 3, 0, 0)
            elif action == TAKE_TWO:
                self._remove(actor, TWO, 1)
                self._add_to_meld(side, top, 2, 1, 0)
            else:
                self._remove(actor, JOKER, 1)
                self._add_to_meld(side, top, 2, 0, 1)
            rest = self._pile_to_hand(actor)
            self.log = (self.log, EV_TAKE, actor, action + 4 * top + 64 * rest)
            self.phase = MELD
            if not self.sizes[actor]:
                self._finish(END_OUT)
        else:
            melds[b] = 3
            self.pending = True
            self.pickup_top = top
            self.turn_points = 3 * VALUES[top]
            self.short = self.initial_meld_short()
            self.log = (self.log, EV_TAKE, actor, action + 4 * top)
            self.phase = PICKUP

    def _add_to_meld(self, side: int, slot: int, n: int, t: int, j: int) -> None:
        melds = self.melds
        b = side * SIDE_STRIDE + 3 * slot
        before = melds[b] + melds[b + 1] + melds[b + 2]
        melds[b] += n
        melds[b + 1] += t
        melds[b + 2] += j
        if before < 7 <= before + n + t + j:
            self.canastas[side] += 1

    def _pile_to_hand(self, seat: int) -> int:
        """The pile into the hand, which unfreezes it (see the family's)."""
        self.frozen = False
        return super()._pile_to_hand(seat)

    def _meld(self, action: int) -> None:
        if action >= len(MELD_PARTS) or self.withdrawn:
            self._illegal(action)
        actor = self.actor
        effective = self.sizes[actor]
        if self.phase == PICKUP:
            effective += len(self.pile) - self.pile.count(RED_THREE)
        if action not in self._meld_actions(effective, MELD_PARTS[action][0]):
            self._illegal(action)
        self.do_meld(action)

    def do_meld(self, action: int) -> None:
        """Applies a meld action known to be legal."""
        actor = self.actor
        side = actor % self.sides
        slot, n, t, j = MELD_PARTS[action]
        self._remove(actor, BLACK_THREE if slot == BLACK_SLOT else slot, n)
        if t:
            self._remove(actor, TWO, t)
        if j:
            self._remove(actor, JOKER, j)
        self._add_to_meld(side, slot, n, t, j)
        self.melders |= 1 << actor
        self.log = (self.log, EV_MELD, actor, action)
        if not self.melded >> side & 1:
            self.pending = True
            self.turn_points += meld_points(slot, n, t, j)
            self.short = self.initial_meld_short()
        if self.phase == MELD and not self.sizes[actor]:
            self._finish(END_OUT)        # every card melded: out without a discard

    def _discard(self, action: int) -> None:
        actor = self.actor
        if self.phase != MELD or action not in self._discards():
            self._illegal(action)
        kind = discard_kind(action)
        size = self.sizes[actor]
        self._remove(actor, kind, 1)
        self.pile.append(kind)
        if kind == TWO or kind == JOKER:
            self.frozen = True
        self.log = (self.log, EV_DISCARD, actor, kind)
        if self.pending:
            self.melded |= 1 << (actor % self.sides)
            self.pending = False
        if size == 1:
            self._finish(END_OUT)
        else:
            self._start_turn((actor + 1) % self.n)

    def _withdraw(self) -> None:
        if not self.short:
            self._illegal(WITHDRAW)
        side = self.actor % self.sides
        back = self._clear_open_melds(side)
        self.canastas[side] = 0
        self.turn_points = 0
        if self._return_initial_meld(back):
            self.took = False
            if not self.stock_size:
                self._finish(END_STOCK)
                return
            self.phase = DRAW_CARD       # the turn goes on with a draw from the stock
            self.to_draw = DRAWS[self.n]
            self.to_move = CHANCE

    def _end_last_turn(self) -> None:
        """Ends the hand after the melds of the turn in which a red 3 was the stock's last card."""
        self.log = (self.log, EV_STOCK, self.actor, LAST_TURN_OVER)
        if self.pending:
            self.melded |= 1 << (self.actor % self.sides)
            self.pending = False
        self._finish(END_LAST_THREE)

    def _commit(self) -> None:
        if self.phase != PICKUP or self.short:
            self._illegal(COMMIT)
        actor = self.actor
        self.melded |= 1 << (actor % self.sides)
        self.pending = False
        self.pickup_top = -1
        rest = self._pile_to_hand(actor)
        self.log = (self.log, EV_COMMIT, actor, rest)
        self.phase = MELD
        if not self.sizes[actor]:
            self._finish(END_OUT)

    def _score_sides(self, reason: int) -> tuple:
        if reason == END_OUT:
            self.out_side = self.actor % self.sides
            self.concealed = self.concealed_ok
        scores = []
        for side in range(self.sides):
            hands = [self.hands[seat] for seat in range(self.n) if seat % self.sides == side]
            scores.append(side_score(self.open_melds(side), self.threes[side], hands,
                                     went_out=side == self.out_side,
                                     concealed=side == self.out_side and self.concealed))
        return tuple(scores)

    # ------------------------------------------------------------ information
    def _scores_line(self) -> str:
        return f"{self.n} players; " + super()._scores_line()

    def _pile_note(self) -> str:
        return "  (frozen)" if self.frozen else ""

    def _side_lines(self) -> list[str]:
        lines = []
        for side in range(self.sides):
            melds = [f"{KIND_NAMES[BLACK_THREE if s == BLACK_SLOT else s]}:{n}+{t}x2+{j}xJk"
                     for s, (n, t, j) in enumerate(self.open_melds(side)) if n]
            flag = "melded" if self.melded >> side & 1 else "not melded"
            lines.append(f"side {side} ({flag}): red 3s {self.threes[side]}; canastas "
                         f"{self.canastas[side]}; melds {' '.join(melds) or '-'}")
        return lines

    def _turn_lines(self) -> list[str]:
        flags = [name for name, on in (("building the initial meld", self.pending),
                                       ("short", self.short), ("withdrawn", self.withdrawn),
                                       ("took the pile", self.took)) if on]
        return ["turn: " + ", ".join(flags) + f"; initial meld {self.turn_points} points"] if flags else []

    def resample_from_infostate(self, player: int,
                                probability_sampler: Callable[[], float]) -> "ClassicState":
        """A state drawn uniformly from those `player` cannot tell from this one
        (games.classic_canasta.belief)."""
        from games.classic_canasta.belief import resample
        return resample(self, player, probability_sampler)


def set_up(hands: Sequence[Sequence[int]], *, actor: int = 0, phase: int = TURN,
           pile: Sequence[int] = (), melds: Mapping[tuple[int, int], tuple[int, int, int]] | None = None,
           melded: int | None = None, threes: Sequence[int] | None = None, frozen: bool = False,
           stock: Sequence[int] | None = None, melders: int = 0,
           rules: ClassicRules | None = None) -> ClassicState:
    """A position set up directly, for rule tests and puzzles: hands[s] are seat s's
    counts per kind (one per seat); melds[(side, slot)] = (naturals, twos, jokers);
    threes are the red 3s of each side; `melded` defaults to the sides with any
    meld; the stock holds every other card unless given. `actor` is to move in
    `phase` (TURN: draw or take; MELD: after drawing). The log starts empty."""
    rules = rules or ClassicRules(players=len(hands))
    s = ClassicState(rules)
    place_cards(s, hands, pile, melds, threes if threes is not None else [0] * s.sides, stock,
                melded, actor, phase)
    s.frozen = frozen or any(k in (TWO, JOKER, RED_THREE) for k in pile)
    for side in range(s.sides):
        s.canastas[side] = sum(n + t + j >= 7 for n, t, j in s.open_melds(side))
    s.melders = melders
    s.concealed_ok = not melders >> actor & 1
    return s


__all__ = ["ClassicRules", "ClassicState", "DEFAULT_PARAMS", "deal", "set_up", "threshold_for",
           "SideScore"]
