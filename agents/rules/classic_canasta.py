"""A classic Canasta player a casual player would find sensible.

It reads only its own hand and the public table (melds, the face-up pile, the
cards known to be in each hand), so its move never depends on a hidden card.

Drawing: take the pile when it can and it is worth it: two cards or more, or a
single card that completes a canasta; a side that has not melded takes it only
when its hand holds the rest of the initial meld (planned on a copy of the
position). Otherwise draw.

Melding: a side that has not melded goes down only when its hand makes the
initial meld (planned greedily on a copy); a started initial meld that falls
short is withdrawn. Once melded, it melds every natural it can (adding to its
melds, starting melds of three), adds wild cards to complete a canasta or to
make up the initial meld with a pair, and, once its side has the canastas to go
out, with any meld (wild cards last), so it goes out whenever it can. In the
last turn, after a red 3 drawn as the stock's last card, it melds all it can.

Discarding: the card least likely to give the next player the pile: a black 3
first (the next player cannot take the pile), then a card the next player is not
known to hold, of a rank its side has no meld of, a single rather than one of a
pair, and not of a rank its own side has melded; a wild card only when nothing
else can go.
"""

from __future__ import annotations

from agents.base import CardBot, rules_core
from games.classic_canasta.actions import (BLACK_BASE, COMMIT, DISCARD_BASE, DRAW, MELD_BASE,
                                           MELD_PARTS, TAKE_PAIR, TAKES, WITHDRAW, discard_kind)
from games.classic_canasta.core import CANASTAS_TO_GO_OUT, MELD, PICKUP, SIDE_STRIDE, TURN, ClassicState
from games.canasta_family.cards import BLACK_THREE, JOKER, TWO, VALUES

_WILD_DISCARD = 50.0


def _meld_score(core: ClassicState, action: int) -> float:
    """How much the bot wants this meld now (0: not at all)."""
    if action >= BLACK_BASE:
        return 200.0                       # the last meld of going out
    slot, n, t, j = MELD_PARTS[action]
    if core.last_turn:
        return 100.0 + n + t + j           # the hand ends after this turn: melded cards count for it
    side = core.actor % core.sides
    b = side * SIDE_STRIDE + 3 * slot
    size = core.melds[b] + core.melds[b + 1] + core.melds[b + 2]
    after = size + n + t + j
    if core.phase == MELD and core.sizes[core.actor] - (n + t + j) <= 1:
        return 150.0                       # legal, so it goes out (or leaves the last discard)
    if not t and not j:
        return 100.0 + n
    if size < 7 <= after:
        return 90.0 - (t + j)              # wild cards to complete a canasta
    if core.short and t + j == 1 and not size:
        return 50.0 + n                    # a pair made up with a wild card for the initial meld
    if core.melded >> side & 1 and core.canastas[side] >= CANASTAS_TO_GO_OUT[core.n]:
        return 30.0 + n - (t + j)          # free to go out: shed cards with wild cards too
    return 0.0


def _best_meld(core: ClassicState) -> int | None:
    best, best_score = None, 0.0
    for action in core.legal_actions():
        if action >= MELD_BASE:
            score = _meld_score(core, action)
            if score > best_score:
                best, best_score = action, score
    return best


def _plan_reaches_initial_meld(core: ClassicState) -> bool:
    """Whether greedy melding from this position (on a copy) meets the initial meld."""
    trial = core.clone()
    for _ in range(40):
        if not trial.short and trial.pending:
            return True
        if trial.is_terminal():
            return True
        action = _best_meld(trial)
        if action is None:
            return False
        trial.apply_action(action)
    return not trial.short


class ClassicCanastaRulesBot(CardBot):
    """The rule-based bot for python_classic_canasta (see the module docstring)."""

    any_seat = True

    def __init__(self, game, player: int, seed: int = 0, **settings):
        if settings:
            raise ValueError(f"the classic Canasta rule bot has no settings; got {sorted(settings)}")
        super().__init__(player)

    def step(self, state) -> int:
        core: ClassicState = rules_core(state)
        legal = core.legal_actions()
        if len(legal) == 1:
            return legal[0]
        if core.phase == TURN:
            return self._draw_or_take(core, legal)
        if core.phase == PICKUP:
            if COMMIT in legal:
                return COMMIT
            meld = _best_meld(core)
            if meld is not None and _plan_reaches_initial_meld(core):
                return meld
            return WITHDRAW
        return self._play(core, legal)

    def _draw_or_take(self, core: ClassicState, legal: list[int]) -> int:
        takes = [a for a in legal if a in TAKES]
        if not takes:
            return DRAW
        side = core.actor % core.sides
        if not core.melded >> side & 1:
            trial = core.clone()
            trial.apply_action(TAKE_PAIR)
            return TAKE_PAIR if _plan_reaches_initial_meld(trial) else DRAW
        top = core.pile[-1]
        b = side * SIDE_STRIDE + 3 * top
        size = core.melds[b] + core.melds[b + 1] + core.melds[b + 2]
        if len(core.pile) >= 2 or size < 7 <= size + 3:
            return TAKE_PAIR if TAKE_PAIR in takes else takes[0]
        return DRAW if core.stock_size else takes[0]

    def _play(self, core: ClassicState, legal: list[int]) -> int:
        side = core.actor % core.sides
        unmelded = not core.melded >> side & 1
        meld = _best_meld(core)
        if meld is not None:
            if not unmelded or core.pending and not core.short:
                return meld
            if _plan_reaches_initial_meld(core):
                return meld
        if core.short:
            return WITHDRAW
        if core.last_turn:
            return DRAW                    # end the hand: no discard after the stock's last red 3
        discards = [a for a in legal if DISCARD_BASE <= a < MELD_BASE]
        return min(discards, key=lambda a: (self._danger(core, discard_kind(a)), a))

    def _danger(self, core: ClassicState, kind: int) -> float:
        """How bad discarding this card is: feeding the next player the pile, or breaking up its own melds."""
        if kind == BLACK_THREE:
            return -1.0
        if kind == TWO or kind == JOKER:
            return _WILD_DISCARD
        me = core.actor
        nxt = (me + 1) % core.n
        hand = core.hands[me]
        danger = VALUES[kind] / 100.0
        danger += 3.0 * core.known[nxt][kind]
        other = nxt % core.sides
        if core.melds[other * SIDE_STRIDE + 3 * kind]:
            danger += 2.0
        if hand[kind] >= 2:
            danger += 2.0
        if core.melds[(me % core.sides) * SIDE_STRIDE + 3 * kind]:
            danger += 3.0
        return danger * (1.0 + len(core.pile) / 10.0)


__all__ = ["ClassicCanastaRulesBot"]
