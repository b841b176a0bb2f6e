"""An American Page One player a casual player would find reasonable.

It reads only its own hand and the public table (top card, suit, pending
draws, hand sizes).

Answering a draw card (a 2, 3 or joker is pending):
1. Challenge a joker (challenge rule) when its player holds 4 cards or more:
   with that many it likely held the suit.
2. Answer with a draw card if it can, a 2 or 3 before a joker; else take the draw.

Its turn:
1. Under no_special_finish it never plays a special card as its last card.
2. When the next player is near out (2 cards or fewer), attack it: a draw
   card, else a skip.
3. When anyone is near out, dump points: the playable card worth most.
4. Otherwise play a plain card (no effect), from the suit it holds most, the
   one worth most; then a skip or reverse; then a 2 or 3 if it holds another
   answer card (or has 3 cards or fewer); then an 8; a joker last. Draw cards
   and jokers are kept to answer draw cards with; wilds to change the suit.
5. With nothing it wants to play, draw (or pass when nothing can be drawn);
   a drawn card that can be played is played, by the same rules.

Several cards of one rank (multi_play): it plays them all. A suit to name:
the suit it holds most (the 8s and jokers aside), ties to the suit worth most.
Dobon and Dobon-gaeshi: it calls whenever it may.
"""

from __future__ import annotations

import random

from agents.base import CardBot, rules_core
from games.american_page_one.core import (AFTER_DRAW, ANSWER, CHALLENGE, DOBON, DONE, DRAW, FX_DRAW,
                                          FX_JOKER, FX_NONE, FX_REVERSE, FX_SKIP, FX_WILD, JOKER, MULTI,
                                          NAME, NAME_SUIT, NUM_KINDS, NUM_RANKS, OFFER, PASS, PLAY,
                                          AmericanPageOneState, hand_kinds, hand_size, kind_set)

NEAR_OUT = 2
CHALLENGE_HAND = 4


class AmericanPageOneRulesBot(CardBot):
    def __init__(self, game, player: int, seed: int = 0):
        super().__init__(player)
        self.rng = random.Random(seed)

    def step(self, state) -> int:
        core: AmericanPageOneState = rules_core(state)
        legal = core.legal_actions()
        if len(legal) == 1:
            return legal[0]
        phase = core.phase
        me = core.current_player()
        if phase == OFFER:
            return DOBON if DOBON in legal else legal[0]
        if phase == NAME:
            return NAME_SUIT + self._best_suit(core, me)
        if phase == MULTI:
            cards = [a for a in legal if a < NUM_KINDS]
            return cards[0] if cards else DONE
        if phase == ANSWER:
            return self._answer(core, legal)
        if phase == AFTER_DRAW:
            cards = [a for a in legal if a < NUM_KINDS]
            if cards and self._may_play(core, me, cards[0]):
                return cards[0]
            return PASS
        return self._turn(core, me, legal)

    # ------------------------------------------------------------------ turns
    def _answer(self, core: AmericanPageOneState, legal: list[int]) -> int:
        if CHALLENGE in legal:
            joker_player = core.chal[0]
            if hand_size(core.lo[joker_player], core.hi[joker_player]) >= CHALLENGE_HAND:
                return CHALLENGE
        cards = [a for a in legal if a < NUM_KINDS]
        if cards:
            return min(cards, key=lambda k: (k == JOKER, core.t.rank_points[k % NUM_RANKS] if k < 52 else 50))
        return DRAW

    def _turn(self, core: AmericanPageOneState, me: int, legal: list[int]) -> int:
        t = core.t
        cards = [a for a in legal if a < NUM_KINDS and self._may_play(core, me, a)]
        fallback = DRAW if DRAW in legal else PASS if PASS in legal else legal[0]
        if not cards:
            return fallback
        nxt = core.next_seat(me)
        sizes = [hand_size(core.lo[s], core.hi[s]) for s in range(core.n)]
        if sizes[nxt] <= NEAR_OUT and nxt not in core.out:
            attack = [k for k in cards if t.effect[k] in (FX_DRAW, FX_JOKER)] or \
                     [k for k in cards if t.effect[k] == FX_SKIP]
            if attack:
                return max(attack, key=lambda k: (t.amount[k], -k))
        if any(sizes[s] <= NEAR_OUT for s in range(core.n) if s != me and s not in core.out):
            return max(cards, key=lambda k: (self._points(core, k), -k))
        held = self._suit_counts(core, me)
        plain = [k for k in cards if t.effect[k] == FX_NONE]
        if plain:
            return max(plain, key=lambda k: (held[k // NUM_RANKS], self._points(core, k), -k))
        turn = [k for k in cards if t.effect[k] in (FX_SKIP, FX_REVERSE)]
        if turn:
            return max(turn, key=lambda k: (held[k // NUM_RANKS], -k))
        draws = [k for k in cards if t.effect[k] == FX_DRAW]
        answers = sum(1 for k in hand_kinds(core.lo[me], core.hi[me]) if t.effect[k] in (FX_DRAW, FX_JOKER))
        if draws and (answers >= 2 or sizes[me] <= 3):
            return max(draws, key=lambda k: (held[k // NUM_RANKS], -k))
        wild = [k for k in cards if t.effect[k] == FX_WILD]
        if wild:
            return wild[0]
        if JOKER in cards and (sizes[me] <= 3 or fallback == PASS):
            return JOKER
        if draws and fallback == PASS:
            return draws[0]
        return fallback

    # ------------------------------------------- what its play says of its hand
    def lacked(self, core: AmericanPageOneState, action: int) -> int:
        """The kinds (a kind set) that a rule bot taking `action` where it is to
        move in `core` held none of: it would have played any of them instead
        (the order of _answer and _turn; where that order reads its own hand,
        the suit it holds most, only what holds whatever the hand is counts).
        Reads only the public position (the play mask, the phase, the hand
        sizes), so a resampler may assume it of any seat
        (games.american_page_one.belief, the search bots' `assume` setting)."""
        phase = core.phase
        if phase == ANSWER:
            answers = kind_set(core.match)
            if action == DRAW:
                return answers
            if action >= NUM_KINDS:
                return 0
            rank = self._answer_rank(core)
            return _kinds(answers, lambda k: rank(k) < rank(action))
        if core.t.dup:
            return 0                    # draw_until_playable: the drawing is forced
        me = core.to_move
        size = hand_size(core.lo[me], core.hi[me])
        if phase == AFTER_DRAW:         # passing: neither the hand it drew to nor the card drawn fits
            return self._would_play(core, me, size - 1) if action == PASS else 0
        if phase != PLAY:
            return 0
        if action == DRAW:
            return self._would_play(core, me, size)
        if action >= NUM_KINDS:
            return 0
        return self._preferred(core, me, size, action)

    def _answer_rank(self, core: AmericanPageOneState):
        return lambda k: (k == JOKER, self._points(core, k), k)

    def _playable(self, core: AmericanPageOneState, size: int) -> int:
        kinds = kind_set(core.match)
        if core.rules.no_special_finish and size == 1:
            kinds &= ~_kinds((1 << NUM_KINDS) - 1, lambda k: core.t.special[k])
        return kinds

    def _would_play(self, core: AmericanPageOneState, me: int, size: int) -> int:
        """The playable kinds that a rule bot holding `size` cards would play rather than draw."""
        kinds = self._playable(core, size)
        if self._near_out(core, me):
            return kinds                # it dumps any playable card
        if size > 3:                    # it keeps draw cards and jokers to answer with
            kinds &= ~_kinds(kinds, lambda k: core.t.effect[k] in (FX_DRAW, FX_JOKER))
        return kinds

    def _preferred(self, core: AmericanPageOneState, me: int, size: int, played: int) -> int:
        """The playable kinds a rule bot would have played before `played`."""
        t = core.t
        effect = t.effect
        kinds = self._playable(core, size)
        of = lambda *effects: _kinds(kinds, lambda k: effect[k] in effects)   # noqa: E731
        points = lambda k: (self._points(core, k), -k)                       # noqa: E731
        nxt = core.next_seat(me)
        if hand_size(core.lo[nxt], core.hi[nxt]) <= NEAR_OUT and nxt not in core.out:
            attack = of(FX_DRAW, FX_JOKER)
            if effect[played] in (FX_DRAW, FX_JOKER):
                return _kinds(attack, lambda k: (t.amount[k], -k) > (t.amount[played], -played))
            skips = of(FX_SKIP)
            if effect[played] == FX_SKIP:
                return attack | _kinds(skips, lambda k: k < played)
            return attack | skips | _kinds(kinds, lambda k: points(k) > points(played))
        if self._near_out(core, me):
            return _kinds(kinds, lambda k: points(k) > points(played))
        suit = played // NUM_RANKS
        same_suit = lambda group, better: _kinds(group, lambda k: k // NUM_RANKS == suit and better(k))  # noqa: E731
        plain, turn = of(FX_NONE), of(FX_SKIP, FX_REVERSE)
        draws = of(FX_DRAW) if size <= 3 else 0
        if effect[played] == FX_NONE:
            return same_suit(plain, lambda k: points(k) > points(played))
        if effect[played] in (FX_SKIP, FX_REVERSE):
            return plain | same_suit(turn, lambda k: k < played)
        if effect[played] == FX_DRAW:
            return plain | turn
        if effect[played] == FX_WILD:
            return plain | turn | draws | _kinds(of(FX_WILD), lambda k: k < played)
        return plain | turn | draws | of(FX_WILD)      # a joker

    @staticmethod
    def _near_out(core: AmericanPageOneState, me: int) -> bool:
        return any(hand_size(core.lo[s], core.hi[s]) <= NEAR_OUT for s in range(core.n)
                   if s != me and s not in core.out)

    @staticmethod
    def _may_play(core: AmericanPageOneState, me: int, kind: int) -> bool:
        """False for a special card that would be its last under no_special_finish."""
        return not (core.rules.no_special_finish and hand_size(core.lo[me], core.hi[me]) == 1
                    and core.t.special[kind])

    @staticmethod
    def _points(core: AmericanPageOneState, kind: int) -> int:
        return 50 if kind == JOKER else core.t.rank_points[kind % NUM_RANKS]

    @staticmethod
    def _suit_counts(core: AmericanPageOneState, me: int) -> list[int]:
        counts = [0] * 4
        for k in hand_kinds(core.lo[me], core.hi[me]):
            if k != JOKER and core.t.effect[k] != FX_WILD:
                counts[k // NUM_RANKS] += 1
        return counts

    def _best_suit(self, core: AmericanPageOneState, me: int) -> int:
        counts = self._suit_counts(core, me)
        points = [0] * 4
        for k in hand_kinds(core.lo[me], core.hi[me]):
            if k != JOKER and core.t.effect[k] != FX_WILD:
                points[k // NUM_RANKS] += self._points(core, k)
        return max(range(4), key=lambda s: (counts[s], points[s], -s))


def _kinds(kinds: int, keep) -> int:
    """The kinds of the kind set `kinds` for which keep(kind) holds."""
    return sum(1 << k for k in range(NUM_KINDS) if kinds >> k & 1 and keep(k))
