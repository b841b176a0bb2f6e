"""A Modern American Canasta player a club player would find sensible.

It reads only its own hand and the public table (melds, the face-up pile, the
cards known to be in each hand).

Drawing: take the pile when it can and it is worth it: three cards or more, or
the pair completes a canasta; a side that has not melded takes it only when its
hand holds the initial meld that must go down with it.

Going out: as soon as it can go out this turn it asks its partner (once a hand);
after a "yes" it must, after a "no" it plays on. With its question spent it goes
out when it can. Answering: "yes" unless its own hand would cost a lot (over 100
points, or three Aces or three 7s held: 1500 each).

Initial meld: clean melds of three or more naturals first (the highest ranks
first; three Aces with a wild card, as only the initial meld allows, for an
unfinished natural meld of Aces or 7s costs 2500: those go down naturally only
four at a time or more), then wild cards onto them, then pairs made up with a
wild card,
until the requirement is met; nothing goes down when that cannot be reached,
and a started meld that cannot be finished is withdrawn.

After it: complete canastas (wild cards only to finish a meld of five or more
naturals), add naturals to the side's melds, start melds of three or more
naturals (Aces and 7s with four or more), and feed an unfinished wild-card meld
so it stops blocking the others.

Discarding: the card least likely to give the next opponent the pile, weighed by
the pile's size: a closed rank or one the opponents cannot add a pair to is safe;
a rank the next opponent is known to hold two of is the worst; otherwise the
chance that it holds a pair, from the cards still unseen. Pairs and ranks its
side has melded are kept; among equals, the costlier card goes.
"""

from __future__ import annotations

from math import comb

from agents.base import CardBot, rules_core
from games.modern_canasta.actions import (ASK, COMMIT, DISCARD_BASE, DRAW, MELD_BASE, MELD_PARTS, NO,
                                          TAKE, WITHDRAW, YES, meld_action)
from games.modern_canasta.cards import (ACE, DECK, JOKER, NUM_NATURAL, SEVEN, TWO, VALUES, WILD_SLOT,
                                        value_of)
from games.modern_canasta.core import ANSWER, EV_DISCARD, EV_TAKE, PICKUP, TURN, CanastaState
from games.modern_canasta.going_out import can_go_out, keep_going_out

RANKS_HIGH_FIRST = tuple(range(ACE, -1, -1))


class ModernCanastaRulesBot(CardBot):
    def __init__(self, game, player: int, seed: int = 0):
        super().__init__(player)     # deterministic: the seed is not needed
        self._plan: list[int] = []   # the rest of the initial meld it is laying
        self._planned_at = None      # the log it chose the last planned meld at
        self._last = -1              # ... and that meld

    def step(self, state) -> int:
        core: CanastaState = rules_core(state)
        legal = core.legal_actions()
        if len(legal) == 1:
            return legal[0]
        if core.phase == ANSWER:
            return YES if _cheap_hand(core.hands[core.to_move]) else NO
        if core.phase == TURN:
            return TAKE if self._wants_pile(core) else DRAW
        if core.must_out:
            return _toward_going_out(legal)
        if ASK in legal and can_go_out(core):
            return ASK
        if not core.forbid_out and core.asked >> core.actor & 1 and can_go_out(core):
            return _toward_going_out(keep_going_out(core, legal))
        side = core.actor & 1
        if core.pending or not core.melded >> side & 1:
            return self._initial_meld(core, legal)
        action = _next_meld(core, set(legal))
        return action if action is not None else _safest_discard(core, legal)

    # -------------------------------------------------------------- drawing
    def _wants_pile(self, core: CanastaState) -> bool:
        side = core.actor & 1
        if not core.melded >> side & 1:
            trial = core.clone()
            trial.apply_action(TAKE)
            return len(core.pile) >= 2 and initial_plan(trial) is not None
        top = core.pile[-1]
        b = 36 * side + 3 * top
        size = core.melds[b] + core.melds[b + 1] + core.melds[b + 2]
        return len(core.pile) >= 3 or size == 4

    # -------------------------------------------------------------- initial meld
    def _initial_meld(self, core: CanastaState, legal: list[int]) -> int:
        """Lays the initial meld planned when it started (a plan made afresh after
        each meld could take another road and find none), then takes the pile."""
        if core.pending and not core.short and COMMIT in legal:
            return COMMIT
        cell = core.log
        followed = cell is not None and cell[0] is self._planned_at and cell[3] == self._last
        plan = self._plan if followed and self._plan else initial_plan(core)
        if plan and plan[0] in legal:
            self._last, self._plan = plan[0], plan[1:]
            self._planned_at = core.log
            return self._last
        if WITHDRAW in legal:
            return WITHDRAW
        return _safest_discard(core, legal)


def _cheap_hand(hand: list[int]) -> bool:
    """Whether a partner holding this hand lets the asker go out."""
    return value_of(hand) <= 100 and hand[ACE] < 3 and hand[SEVEN] < 3


def _toward_going_out(actions: list[int]) -> int:
    """Among moves that keep going out open: the biggest meld, else the last discard."""
    melds = [a for a in actions if a >= MELD_BASE or a == COMMIT]
    if melds:
        return max(melds, key=lambda a: (sum(MELD_PARTS[a][1:]) if a >= MELD_BASE else 99, a))
    return actions[0]


def initial_plan(core: CanastaState) -> list[int] | None:
    """Meld actions, in order, that complete the initial meld of the player to
    move from its hand (with what it has laid already), or None if none is found.
    It leaves at least two cards to play on with (pile cards count, taking it)."""
    actor = core.actor
    side = actor & 1
    hand = core.hands[actor][:]
    b0 = 36 * side
    table = {slot: core.melds[b0 + 3 * slot: b0 + 3 * slot + 3] for slot in range(NUM_NATURAL + 1)}
    table = {slot: list(m) for slot, m in table.items() if any(m)}
    top = core.pickup_top
    points = -VALUES[top] if top >= 0 else 0
    for slot, (n, t, j) in table.items():
        points += (VALUES[slot] * n if slot != WILD_SLOT else 0) + 20 * t + 50 * j
    spare = sum(hand) - 2 + (len(core.pile) if core.phase == PICKUP else 0)
    need = core.rules.thresholds[side]
    plan: list[int] = []

    def clean() -> bool:
        return any(n >= 3 and not t and not j for n, t, j in table.values()) or WILD_SLOT in table

    def done() -> bool:
        return clean() and points >= need

    def put(slot: int, n: int, t: int, j: int) -> None:
        nonlocal points, spare
        plan.append(meld_action(slot, n, t, j))
        m = table.setdefault(slot, [0, 0, 0])
        m[0] += n
        m[1] += t
        m[2] += j
        hand[slot] -= n
        hand[TWO] -= t
        hand[JOKER] -= j
        spare -= n + t + j
        points += VALUES[slot] * n + 20 * t + 50 * j

    # Naturals onto the melds already laid, then clean melds of three or more.
    for slot in RANKS_HIGH_FIRST:
        if done():
            return plan
        m = table.get(slot)
        room = 7 - sum(m) if m else 7
        n = min(hand[slot], room, spare)
        if m and n > 0:
            put(slot, n, 0, 0)
        elif not m and slot == ACE and n >= 3 and (hand[TWO] or hand[JOKER]) and spare > n:
            # Aces take a wild card only now, and a mixed meld of them risks no 2500.
            n = min(n, 6)
            put(slot, n, int(not hand[JOKER]), int(hand[JOKER] > 0))
        elif not m and n >= (4 if slot in (ACE, SEVEN) else 3):
            put(slot, n, 0, 0)
    # Wild cards onto the melds (Jokers first), keeping one clean meld clean.
    for slot in sorted((s for s in table if s not in (SEVEN, WILD_SLOT)), key=lambda s: -VALUES[s]):
        for wild in (JOKER, TWO):
            while not done() and spare > 0 and hand[wild]:
                n, t, j = table[slot]
                clean_others = any(m[0] >= 3 and not m[1] and not m[2]
                                   for s, m in table.items() if s != slot) or WILD_SLOT in table
                if t + j >= 2 or n + t + j >= 7 or not clean_others:
                    break
                put(slot, 0, int(wild == TWO), int(wild == JOKER))
    # Pairs made up with a wild card.
    for slot in RANKS_HIGH_FIRST:
        if done():
            return plan
        if slot != SEVEN and slot not in table and hand[slot] >= 2 and spare >= 3 and clean():
            wild = JOKER if hand[JOKER] else (TWO if hand[TWO] else -1)
            if wild >= 0:
                put(slot, 2, int(wild == TWO), int(wild == JOKER))
    return plan if done() else None


def _next_meld(core: CanastaState, legal: set[int]) -> int | None:
    """The first of: finishing a canasta, adding naturals to a meld, a new meld of
    three or more naturals, feeding an unfinished wild-card meld."""
    actor = core.actor
    side = actor & 1
    hand = core.hands[actor]
    b0 = 36 * side
    opened = {}
    for slot in range(NUM_NATURAL + 1):
        m = core.melds[b0 + 3 * slot: b0 + 3 * slot + 3]
        if any(m):
            opened[slot] = m
    wilds = [(1, 0)] * hand[TWO] + [(0, 1)] * hand[JOKER]
    for slot, (n, t, j) in opened.items():       # finish canastas
        if slot == WILD_SLOT:
            continue
        need = 7 - n - t - j
        if hand[slot] >= need:
            action = meld_action(slot, need, 0, 0)
        elif need - hand[slot] <= min(2 - t - j, len(wilds)):
            extra = wilds[:need - hand[slot]]
            action = meld_action(slot, hand[slot], sum(w[0] for w in extra), sum(w[1] for w in extra))
        else:
            continue
        if action in legal:
            return action
    for slot in opened:                          # add naturals
        if slot != WILD_SLOT and hand[slot]:
            n, t, j = opened[slot]
            action = meld_action(slot, min(hand[slot], 7 - n - t - j), 0, 0)
            if action in legal:
                return action
    for slot in RANKS_HIGH_FIRST:                # new melds
        if slot not in opened and hand[slot] >= (4 if slot in (ACE, SEVEN) else 3):
            action = meld_action(slot, min(hand[slot], 7), 0, 0)
            if action in legal:
                return action
    if WILD_SLOT in opened and wilds:            # an unfinished wild-card meld blocks the others
        _, t, j = opened[WILD_SLOT]
        room = 7 - t - j
        twos = min(hand[TWO], room)
        action = meld_action(WILD_SLOT, 0, twos, min(hand[JOKER], room - twos))
        if action in legal:
            return action
    return None


def _safest_discard(core: CanastaState, legal: list[int]) -> int:
    discards = [a for a in legal if DISCARD_BASE <= a < MELD_BASE]
    if not discards:
        return legal[0]
    actor = core.actor
    hand = core.hands[actor]
    nxt = (actor + 1) % 4
    opp = nxt & 1
    unseen = _unseen(core, actor)
    pool = sum(unseen[:13])
    held = core.sizes[nxt] - sum(core.known[nxt])
    recent = _recent_discards(core, nxt)
    weight = 1 + len(core.pile)

    def cost(action: int) -> tuple[float, int]:
        kind = action - DISCARD_BASE
        if kind >= NUM_NATURAL or core.closed >> kind & 1:
            danger = 0.0
        else:
            b = 36 * opp + 3 * kind
            size = core.melds[b] + core.melds[b + 1] + core.melds[b + 2]
            if size >= 5:
                danger = 0.0                       # the pair cannot join their meld
            elif core.known[nxt][kind] >= 2:
                danger = 1.0
            else:
                danger = _pair_chance(unseen[kind], pool, held, core.known[nxt][kind])
                if kind in recent:
                    danger *= 0.3
        b = 36 * (actor & 1) + 3 * kind
        keep = 0.0
        if kind < NUM_NATURAL:
            keep += 4.0 * (hand[kind] >= 2) + 6.0 * (core.melds[b] > 0)
        return (10.0 * danger * weight + keep - VALUES[kind] / 10.0, action)

    return min(discards, key=cost)


def _unseen(core: CanastaState, viewer: int) -> list[int]:
    """Counts per kind of the cards `viewer` cannot see (in hidden hands or the stock)."""
    unseen = list(DECK)
    for k in range(len(unseen)):
        unseen[k] -= core.hands[viewer][k]
        for seat in range(4):
            if seat != viewer:
                unseen[k] -= core.known[seat][k]
    for k in core.pile:
        unseen[k] -= 1
    for side in (0, 1):
        for slot, (n, t, j) in enumerate(core.open_melds(side)):
            if slot != WILD_SLOT:
                unseen[slot] -= n
            unseen[TWO] -= t
            unseen[JOKER] -= j
        for slot, n, t, j in core.canastas[side]:
            if slot != WILD_SLOT:
                unseen[slot] -= n
            unseen[TWO] -= t
            unseen[JOKER] -= j
    return unseen


def _pair_chance(copies: int, pool: int, held: int, known: int) -> float:
    """The chance that a hand holding `known` of a kind and `held` unknown cards,
    drawn from `pool` unseen cards of which `copies` are of the kind, has two."""
    need = 2 - known
    if need <= 0:
        return 1.0
    if held <= 0 or pool <= 0 or copies <= 0 or held > pool:
        return 0.0
    total = comb(pool, held)
    miss = sum(comb(copies, i) * comb(pool - copies, held - i) for i in range(min(need, copies + 1)))
    return 1.0 - miss / total


def _recent_discards(core: CanastaState, seat: int) -> set[int]:
    """Kinds `seat` has discarded since it last took the pile: unlikely pairs."""
    kinds: set[int] = set()
    cell = core.log
    while cell is not None:
        cell, kind, who, value = cell
        if who == seat:
            if kind == EV_TAKE:
                break
            if kind == EV_DISCARD:
                kinds.add(value & 15)
    return kinds


__all__ = ["ModernCanastaRulesBot", "initial_plan"]
