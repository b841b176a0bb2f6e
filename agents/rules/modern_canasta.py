"""A Modern American Canasta player a club player would find sensible, whose
choices are named settings, so that strategies can be compared (docs/studies/canasta.md).

It reads only its own hand and the public table (melds, the face-up pile, the
cards known to be in each hand). `rules` is the bot with every default below;
`rules(pile_min=5,start_sevens=3)` changes two of them. An unknown setting or a
bad value raises ValueError naming it.

Drawing: take the pile when it can and it is worth it: `pile_min` cards or more
(default 3; `pile_min_special`, when set, replaces it for a pile with an Ace or
a 7 under its top; `pile_avoid_special`, when set, refuses a pile with that
many Aces, or 7s, under its top), or the pair completes a canasta
(`pile_canasta`, default true); a side that has not melded takes it only when the pile has
`pile_min_before` cards or more (default 2) and its hand holds the initial meld
that must go down with it.

Going out: as soon as it can go out this turn it asks its partner (`ask=first`,
once a hand; `ask=never` goes out without asking); after a "yes" it must, after a
"no" it plays on. With its question spent it goes out when it can. `go_out=asap`
(default) goes out whenever it can; `go_out=lead` only when its side leads on
the table by `out_lead` points (default 0) or the stock is down to `out_stock`
cards (default 10); `go_out=stock` only at such a stock. Answering: `answer=cheap`
(default) says "yes" unless its own hand would cost a lot (over `answer_limit`
points, default 100, or three Aces or three 7s held: 1500 each); `answer=yes`
and `answer=no` always say that.

Initial meld: `initial_meld=asap` (default) goes down from the hand as soon as
it can; `initial_meld=pile` only by taking the pile; `initial_meld=canasta` from
the hand only holding a canasta's worth of one rank (seven, wild cards
included). Clean melds of three or more naturals first (the highest ranks
first; three Aces with a wild card, as only the initial meld allows, for an
unfinished natural meld of Aces or 7s costs 2500: `initial_aces_wild`, default
true), then wild cards onto them, then pairs made up with a wild card
(`initial_pairs`, default true), until the requirement is met; nothing goes down
when that cannot be reached, and a started meld that cannot be finished is
withdrawn.

After it: complete canastas (wild cards only to finish a meld of five or more
naturals), add naturals to the side's melds, start melds of `new_meld_min`
naturals or more (default 3; more holds pairs and threes back to take the pile
with), Aces with `start_aces` and 7s with `start_sevens` or more (default 4
each, 8 never; these also hold in the initial meld), start a wild-card meld
holding `start_wild` wild cards (default 0: never), and feed an unfinished
wild-card meld so it stops blocking the others (`feed_wild`, default true).

Discarding: the card least likely to give the next opponent the pile, weighed by
the pile's size (`discard_safety`, default 10; 0 ignores the next opponent): a
closed rank or one the opponents cannot add a pair to is safe; a rank the next
opponent is known to hold two of (taken with the pile: `discard_known`, default
true) is the worst; otherwise the chance that it holds a pair, from the cards
still unseen, raised by `discard_avoid_melded` (default 0) for a rank the
opponents have an unfinished meld of. Pairs (`discard_keep_pairs`, default 4:
singles go first) and ranks its side has melded (`discard_keep_melded`, default
6) are kept; among equals, the costlier card goes.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from functools import lru_cache
from math import comb
from typing import Any

from agents.base import CardBot, rules_core
from games.registry import Param
from games.modern_canasta.actions import (ASK, COMMIT, DISCARD_BASE, DRAW, MELD_BASE, MELD_PARTS, NO,
                                          TAKE, WITHDRAW, YES, meld_action)
from games.canasta_family.cards import (ACE, JOKER, NUM_NATURAL, SEVEN, TWO, VALUES, WILD_SLOT,
                                        value_of)
from games.modern_canasta.core import ANSWER, EV_DEAL, EV_DISCARD, EV_TAKE, MELD, PICKUP, TURN, CanastaState
from games.modern_canasta.going_out import can_go_out, keep_going_out
from games.modern_canasta.scoring import side_score

RANKS_HIGH_FIRST = tuple(range(ACE, -1, -1))
NEVER = 8            # a start_* holding no hand reaches (a meld has at most seven cards)


def _setting(default: Any, help_text: str) -> Any:
    """A strategy setting: its default, and what it decides (its metadata's help, `cardarena list bots`)."""
    return field(default=default, metadata={"help": help_text})


@dataclass(frozen=True)
class Strategy:
    """The rule bot's settings; the defaults are the bot as it always played.
    Each field's metadata: what it decides, and its allowed values."""

    pile_min: int = _setting(3, 'smallest pile taken after the side melded (top card counted)')
    pile_min_special: int = _setting(0, 'the same for a pile with an Ace or a 7 under its top (0: pile_min)')
    pile_avoid_special: int = _setting(0, 'refuse a pile with this many Aces, or 7s, under its top (0: never)')
    pile_canasta: bool = _setting(True, 'take any pile when the pair completes a canasta')
    pile_min_before: int = _setting(2, 'smallest pile taken with the initial meld')
    initial_meld: str = _setting("asap", 'asap | pile | canasta: when to go down from the hand')
    initial_pairs: bool = _setting(True, 'make up pairs with a wild card in the initial meld')
    initial_aces_wild: bool = _setting(True, 'three or more Aces with a wild card in the initial meld')
    start_aces: int = _setting(4, 'naturals held to start a meld of Aces (3..8, 8 never)')
    start_sevens: int = _setting(4, 'naturals held to start a meld of 7s (3..8, 8 never)')
    start_wild: int = _setting(0, 'wild cards held to start a wild-card meld (0 never, 3..7)')
    feed_wild: bool = _setting(True, 'add wild cards to an unfinished wild-card meld')
    new_meld_min: int = _setting(3, "naturals held to start another rank's meld (3..8)")
    go_out: str = _setting("asap", 'asap | lead | stock')
    out_lead: int = _setting(0, 'go_out=lead: the table lead (points) it goes out with')
    out_stock: int = _setting(10, 'go_out=lead or stock: goes out once the stock is this low')
    ask: str = _setting("first", 'first | never: ask the partner before going out')
    answer: str = _setting("cheap", 'cheap | yes | no')
    answer_limit: int = _setting(100, 'answer=cheap: "yes" while its hand costs at most this')
    discard_safety: float = _setting(10.0, 'weight of feeding the next opponent the pile')
    discard_known: bool = _setting(True, 'count the cards the next opponent is known to hold')
    discard_avoid_melded: float = _setting(0.0, 'added danger of a rank the opponents have an open meld of')
    discard_keep_pairs: float = _setting(4.0, 'weight for keeping a pair (singles go first)')
    discard_keep_melded: float = _setting(6.0, 'weight for keeping a rank its side has melded')

    @classmethod
    def from_settings(cls, **settings: Any) -> "Strategy":
        """The strategy with these settings; ValueError naming an unknown setting or a bad value."""
        known = {f.name: f for f in fields(cls)}
        for name, value in settings.items():
            if name not in known:
                raise ValueError(f"unknown setting {name!r} for the Canasta rule bot; settings: "
                                 f"{', '.join(known)}")
            _check(name, value, known[name].type)
        strategy = cls(**{k: (float(v) if known[k].type == "float" else v) for k, v in settings.items()})
        return strategy

    def spec(self) -> str:
        """The bot spec of this strategy: `rules(...)` with the settings that differ from the defaults."""
        changed = [f"{f.name}={_text(getattr(self, f.name))}" for f in fields(self)
                   if getattr(self, f.name) != f.default]
        return f"rules({','.join(changed)})" if changed else "rules"


_CHOICES = {"initial_meld": ("asap", "pile", "canasta"), "go_out": ("asap", "lead", "stock"),
            "ask": ("first", "never"), "answer": ("cheap", "yes", "no")}
_RANGES = {"pile_min": (1, 108), "pile_min_special": (0, 108), "pile_avoid_special": (0, 8),
           "pile_min_before": (1, 108),
           "start_aces": (3, NEVER), "start_sevens": (3, NEVER), "new_meld_min": (3, NEVER),
           "out_lead": (-100_000, 100_000), "out_stock": (0, 108), "answer_limit": (0, 100_000),
           "discard_safety": (0, 1000), "discard_avoid_melded": (0, 1), "discard_keep_pairs": (-1000, 1000),
           "discard_keep_melded": (-1000, 1000)}


def _check(name: str, value: Any, kind: str) -> None:
    if kind == "bool":
        if not isinstance(value, bool):
            raise ValueError(f"setting {name}={_text(value)}: expected true or false")
        return
    if kind == "str":
        choices = _CHOICES[name]
        if value not in choices:
            raise ValueError(f"setting {name}={_text(value)}: expected one of {', '.join(choices)}")
        return
    numeric = isinstance(value, int) if kind == "int" else isinstance(value, (int, float))
    if isinstance(value, bool) or not numeric:
        raise ValueError(f"setting {name}={_text(value)}: expected {'a whole number' if kind == 'int' else 'a number'}")
    if name == "start_wild":
        if value != 0 and not 3 <= value <= 7:
            raise ValueError(f"setting start_wild={value}: expected 0 (never) or 3..7")
        return
    low, high = _RANGES[name]
    if not low <= value <= high:
        raise ValueError(f"setting {name}={value}: expected {low}..{high}")


def _text(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else f"{value:g}" if isinstance(value, float) else str(value)


DEFAULT = Strategy()


def strategy_settings() -> tuple[Param, ...]:
    """The strategy settings, typed, as `rules(...)` takes them at this game (agents.bot_settings)."""
    out = []
    for f in fields(Strategy):
        if f.name in _CHOICES:
            out.append(Param(f.name, "choice", f.default, f.metadata["help"], choices=_CHOICES[f.name]))
        else:
            lo, hi = _RANGES.get(f.name, (None, None))
            out.append(Param(f.name, f.type, f.default, f.metadata["help"], min=lo, max=hi))
    return tuple(out)


class ModernCanastaRulesBot(CardBot):
    declared_settings = strategy_settings()
    def __init__(self, game, player: int, seed: int = 0, **settings: Any):
        super().__init__(player)     # deterministic: the seed is not needed
        self.strategy = Strategy.from_settings(**settings)
        self._plan: list[int] = []   # the rest of the initial meld it is laying
        self._planned_at = None      # the log it chose the last planned meld at
        self._last = -1              # ... and that meld

    def step(self, state) -> int:
        core: CanastaState = rules_core(state)
        s = self.strategy
        if core.must_out:        # after a "yes", in the meld phase: its legal moves are those that keep going out
            return _going_out_move(core, core._play_actions())
        legal = core.legal_actions()
        if len(legal) == 1:
            return legal[0]
        if core.phase == ANSWER:
            return YES if _says_yes(core.hands[core.to_move], s) else NO
        if core.phase == TURN:
            return TAKE if self._wants_pile(core) else DRAW
        wants_out = s.go_out == "asap" or _time_to_go_out(core, s)
        if wants_out and s.ask == "first" and ASK in legal and can_go_out(core):
            return ASK
        if wants_out and not core.forbid_out and (s.ask == "never" or core.asked >> core.actor & 1) \
                and can_go_out(core):
            return _going_out_move(core, legal)
        side = core.actor & 1
        if core.pending or not core.melded >> side & 1:
            return self._initial_meld(core, legal)
        action = _next_meld(core, set(legal), s)
        return action if action is not None else _safest_discard(core, legal, s)

    def discard(self, state) -> int:
        """Its choice among the legal discards alone (eval.study.guided: another bot chose to discard)."""
        core: CanastaState = rules_core(state)
        return _safest_discard(core, core.legal_actions(), self.strategy)

    # -------------------------------------------------------------- drawing
    def _wants_pile(self, core: CanastaState) -> bool:
        s = self.strategy
        side = core.actor & 1
        if not core.melded >> side & 1:
            if len(core.pile) < s.pile_min_before:
                return False
            trial = core.clone()
            trial.apply_action(TAKE)
            return initial_plan(trial, s) is not None
        top = core.pile[-1]
        b = 36 * side + 3 * top
        size = core.melds[b] + core.melds[b + 1] + core.melds[b + 2]
        if s.pile_canasta and size == 4:
            return True
        if s.pile_avoid_special and max(core.pile[:-1].count(ACE), core.pile[:-1].count(SEVEN)) \
                >= s.pile_avoid_special:
            return False
        least = s.pile_min
        if s.pile_min_special and any(k == ACE or k == SEVEN for k in core.pile[:-1]):
            least = s.pile_min_special
        return len(core.pile) >= least

    # -------------------------------------------------------------- initial meld
    def _initial_meld(self, core: CanastaState, legal: list[int]) -> int:
        """Lays the initial meld planned when it started (a plan made afresh after
        each meld could take another road and find none), then takes the pile."""
        s = self.strategy
        if core.pending and not core.short and COMMIT in legal:
            return COMMIT
        if core.phase == MELD and not core.pending and not _opens_from_hand(core, s):
            return _safest_discard(core, legal, s)
        cell = core.log
        followed = cell is not None and cell[0] is self._planned_at and cell[3] == self._last
        plan = self._plan if followed and self._plan else initial_plan(core, s)
        if plan and plan[0] in legal:
            self._last, self._plan = plan[0], plan[1:]
            self._planned_at = core.log
            return self._last
        if WITHDRAW in legal:
            return WITHDRAW
        return _safest_discard(core, legal, s)


def _says_yes(hand: list[int], s: Strategy) -> bool:
    """Whether a partner holding this hand lets the asker go out."""
    if s.answer != "cheap":
        return s.answer == "yes"
    return value_of(hand) <= s.answer_limit and hand[ACE] < 3 and hand[SEVEN] < 3


def _time_to_go_out(core: CanastaState, s: Strategy) -> bool:
    """go_out=lead or stock: whether the stock is low enough, or (lead) the side's
    table lead large enough, to end the hand now."""
    if core.stock_size <= s.out_stock:
        return True
    return s.go_out == "lead" and table_lead(core, core.actor & 1) >= s.out_lead


def table_lead(core: CanastaState, side: int) -> int:
    """What `side` leads by on the table (melds, canastas, 3s, unfinished melds), hands left out."""
    def table(t: int) -> int:
        return side_score(core.open_melds(t), core.canastas[t], (core.threes[2 * t], core.threes[2 * t + 1]),
                          (), False).total
    return table(side) - table(1 - side)


def _opens_from_hand(core: CanastaState, s: Strategy) -> bool:
    """initial_meld: whether to go down from the hand this turn (taking the pile is pile_min_before's)."""
    if s.initial_meld == "asap":
        return True
    if s.initial_meld == "pile":
        return False
    hand = core.hands[core.actor]
    wilds = min(2, hand[TWO] + hand[JOKER])
    return hand[TWO] + hand[JOKER] >= 7 or any(
        hand[k] >= 7 or (k != SEVEN and hand[k] >= 5 and hand[k] + wilds >= 7) for k in range(NUM_NATURAL))


def _meld_size(action: int) -> tuple[int, int]:
    """The order of going-out moves: the biggest meld first (taking the pile beats any), then the action."""
    return (sum(MELD_PARTS[action][1:]) if action >= MELD_BASE else 99, action)


def _going_out_move(core: CanastaState, legal: list[int]) -> int:
    """Among the legal moves that keep going out open: the biggest meld, else the
    last discard. The melds are searched biggest first, stopping at the first that
    keeps it open (the search costs milliseconds a move; most need not be searched)."""
    for action in sorted((a for a in legal if a >= MELD_BASE or a == COMMIT), key=_meld_size, reverse=True):
        if keep_going_out(core, [action]):
            return action
    return keep_going_out(core, [a for a in legal if DISCARD_BASE <= a < MELD_BASE])[0]


def initial_plan(core: CanastaState, strategy: Strategy = DEFAULT) -> list[int] | None:
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
    # Most hands cannot reach the requirement at all (a natural held once, without the side's meld
    # of its rank, is never laid: a new meld takes three, a made-up pair two): say so at once.
    if points + 20 * hand[TWO] + 50 * hand[JOKER] + sum(
            VALUES[k] * hand[k] for k in range(NUM_NATURAL) if hand[k] >= 2 or k in table) < need:
        return None
    least = [3] * NUM_NATURAL
    least[ACE], least[SEVEN] = strategy.start_aces, strategy.start_sevens
    plan: list[int] = []

    def clean() -> bool:
        return any(n >= 3 and not t and not j for n, t, j in table.values()) or WILD_SLOT in table

    def done() -> bool:
        return points >= need and clean()

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
        elif (not m and slot == ACE and n >= 3 and (hand[TWO] or hand[JOKER]) and spare > n
              and strategy.initial_aces_wild):
            # Aces take a wild card only now, and a mixed meld of them risks no 2500.
            n = min(n, 6)
            put(slot, n, int(not hand[JOKER]), int(hand[JOKER] > 0))
        elif not m and n >= least[slot]:
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
        if done() or not strategy.initial_pairs:
            break
        if slot != SEVEN and slot not in table and hand[slot] >= 2 and spare >= 3 and clean():
            wild = JOKER if hand[JOKER] else (TWO if hand[TWO] else -1)
            if wild >= 0:
                put(slot, 2, int(wild == TWO), int(wild == JOKER))
    return plan if done() else None


def _next_meld(core: CanastaState, legal: set[int], strategy: Strategy = DEFAULT) -> int | None:
    """The first of: finishing a canasta, adding naturals to a meld, a new meld of
    enough naturals, starting a wild-card meld, feeding an unfinished one."""
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
        least = strategy.start_aces if slot == ACE else strategy.start_sevens if slot == SEVEN \
            else strategy.new_meld_min
        if slot not in opened and hand[slot] >= least:
            action = meld_action(slot, min(hand[slot], 7), 0, 0)
            if action in legal:
                return action
    if strategy.start_wild and WILD_SLOT not in opened and len(wilds) >= strategy.start_wild:
        jokers = min(hand[JOKER], 4)             # a wild-card meld of its own
        action = meld_action(WILD_SLOT, 0, min(hand[TWO], 7 - jokers), jokers)
        if action in legal:
            return action
    if strategy.feed_wild and WILD_SLOT in opened and wilds:   # an unfinished wild-card meld blocks the others
        _, t, j = opened[WILD_SLOT]
        room = 7 - t - j
        twos = min(hand[TWO], room)
        action = meld_action(WILD_SLOT, 0, twos, min(hand[JOKER], room - twos))
        if action in legal:
            return action
    return None


def _safest_discard(core: CanastaState, legal: list[int], strategy: Strategy = DEFAULT) -> int:
    discards = [a for a in legal if DISCARD_BASE <= a < MELD_BASE]
    if not discards:
        return legal[0]
    actor = core.actor
    hand = core.hands[actor]
    nxt = (actor + 1) % 4
    opp = nxt & 1
    unseen = core.unseen_counts(actor)
    known = core.known[nxt]
    if not strategy.discard_known:               # what it picked up counts as unseen
        unseen = [u + k for u, k in zip(unseen, known)]
        known = [0] * len(known)
    pool = sum(unseen[:13])
    held = core.sizes[nxt] - sum(known)
    recent = _recent_discards(core, nxt)
    weight = 1 + len(core.pile)
    safety, avoid = strategy.discard_safety, strategy.discard_avoid_melded
    keep_pairs, keep_melded = strategy.discard_keep_pairs, strategy.discard_keep_melded

    def cost(action: int) -> tuple[float, int]:
        kind = action - DISCARD_BASE
        if kind >= NUM_NATURAL or core.closed >> kind & 1:
            danger = 0.0
        else:
            b = 36 * opp + 3 * kind
            size = core.melds[b] + core.melds[b + 1] + core.melds[b + 2]
            if size >= 5:
                danger = 0.0                       # the pair cannot join their meld
            elif known[kind] >= 2:
                danger = 1.0
            else:
                danger = _pair_chance(unseen[kind], pool, held, known[kind])
                if kind in recent:
                    danger *= 0.3
                if size and avoid:
                    danger = min(1.0, danger + avoid)
        b = 36 * (actor & 1) + 3 * kind
        keep = 0.0
        if kind < NUM_NATURAL:
            keep += keep_pairs * (hand[kind] >= 2) + keep_melded * (core.melds[b] > 0)
        return (safety * danger * weight + keep - VALUES[kind] / 10.0, action)

    return min(discards, key=cost)


@lru_cache(maxsize=None)
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
        if kind == EV_DEAL:
            break                                # the deal: nothing was discarded before it
        if who == seat:
            if kind == EV_TAKE:
                break
            if kind == EV_DISCARD:
                kinds.add(value & 15)
    return kinds


__all__ = ["DEFAULT", "ModernCanastaRulesBot", "Strategy", "initial_plan", "table_lead"]
