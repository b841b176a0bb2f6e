"""Uniform sampling of hidden cards under "what could have been acquired when" constraints.

The setting, shared by the shedding games: an observer knows its own cards and
every public card; the unseen cards lie in the opponents' hidden hands or in the
stock. Each opponent acquired its hidden cards at known moments ("slots": the
deal, each unseen draw), each from the stock of some epoch (a reshuffle starts a
new epoch), and the public play constrains which card could come from which
slot: a card of suit S held (or played) at time t came from a slot after the
opponent last showed it had no S, in the epoch whose stock held that card. So
every card admits a window (a range of that opponent's slots), and a world is
consistent exactly when each opponent's played and held cards can be matched to
distinct slots inside their windows.

Three facts make exact uniform sampling cheap:

1. Windows never cross an epoch, and a held card's window runs to the end of
   its epoch's block of slots. Matching the played cards first, each to the
   earliest free slot in deadline order, leaves the free slots as late as
   possible, so held cards fit if and only if they fit those free slots
   (`tests/test_sampling.py` checks this against brute force). What remains is a
   chain of suffix constraints on how many held cards of each class a hand has.
2. Cards of one class (same windows everywhere) are interchangeable, so
   consistency depends only on the count of each class in each hand; the number
   of worlds for given counts is a product of multinomials.
3. Opponents with no constraint at all behave like the stock, so they are dealt
   together with it in closed form; dynamic programming over class counts is
   needed only for the constrained ones.

`ConstrainedDeal.sample` returns a world drawn exactly uniformly: every
assignment of the unseen card ids to the hidden hands and the stock that is
consistent has the same probability.

The dynamic programme grows with the number of classes a constrained hand can
hold: a game whose public play splits the cards into many classes (American
Page One's "could not play on this card" voids) can make it explode. Given a
`max_work` budget, `ConstrainedDeal` raises `TooLargeToCount` instead, and
`SwapChainDeal` samples the same worlds approximately: a Markov chain whose
stationary distribution is uniform over the consistent worlds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import factorial
from typing import Any, Callable, Hashable, Iterator, Sequence

Interval = tuple[int, int]   # [lo, hi) over one opponent's slot indices


@dataclass
class HiddenHand:
    """One opponent's hidden part.

    slot_epochs: the stock epoch of each acquisition slot, in time order.
    played: the windows of the cards it has played from its hidden hand.
    must_hold: class keys of which it is known to hold at least one card.
    """

    slot_epochs: list[int]
    played: list[Interval] = field(default_factory=list)
    must_hold: frozenset = frozenset()

    @property
    def size(self) -> int:
        return len(self.slot_epochs) - len(self.played)


def acquisition_window(times: Sequence[int], epochs: Sequence[int], last_void: int, epoch: int,
                       until: int) -> Interval:
    """The slots a card could have come from: one opponent's slots acquired at
    (doubled) times 2 * times[i], after `last_void` (the last moment it showed it had
    no card of the class) and before `until`, from the stock of `epoch`."""
    lo = 0
    n = len(times)
    while lo < n and (2 * times[lo] <= last_void or epochs[lo] < epoch):
        lo += 1
    hi = lo
    while hi < n and 2 * times[hi] < until and epochs[hi] == epoch:
        hi += 1
    return lo, hi


def match_slots(num_slots: int, windows: Sequence[Interval], used: list[bool] | None = None,
                uniform: Callable[[], float] | None = None) -> list[int] | None:
    """Matches each window to a distinct slot inside it: earliest deadline first,
    each to its earliest free slot, or with `uniform` to a free slot of its window
    drawn uniformly (then every matching is equally likely where every window starts
    at slot 0, and close to it where a void starts one later). Returns the slot of
    each window, or None (with `uniform`: where a choice left a later window no slot)."""
    if used is None and uniform is None and windows:
        lo, hi = windows[0]
        if hi - lo >= len(windows) and windows.count(windows[0]) == len(windows):
            return list(range(lo, lo + len(windows)))      # one window for all: in order
    order = sorted(range(len(windows)), key=lambda i: (windows[i][1], windows[i][0]))
    used = used if used is not None else [False] * num_slots
    slot_of = [0] * len(windows)
    for i in order:
        lo, hi = windows[i]
        if uniform is None:
            s = lo
            while s < hi and used[s]:
                s += 1
            if s >= hi:
                return None
        else:
            free = [s for s in range(lo, hi) if not used[s]]
            if not free:
                return None
            s = free[int(uniform() * len(free))]
        used[s] = True
        slot_of[i] = s
    return slot_of


class _Chain:
    """The held-card constraints of one constrained hand, over lumped classes.

    For each epoch block: the classes held from it, sorted by window start
    (latest first), the number of free slots from each start to the block's end,
    and the number of free slots in the block (which its held cards must fill)."""

    def __init__(self, hand: HiddenHand, windows: Sequence[Interval], must_hold: list[int]):
        used = [False] * len(hand.slot_epochs)
        if match_slots(len(used), hand.played, used) is None:
            raise ValueError("the played cards cannot be matched to the slots")
        free = [s for s, u in enumerate(used) if not u]
        epoch_of_class = {}
        for c, (lo, hi) in enumerate(windows):
            if hi > lo:
                epoch_of_class[c] = hand.slot_epochs[lo]
        self.blocks = []
        for epoch in sorted(set(hand.slot_epochs[s] for s in free)):
            block_free = [s for s in free if hand.slot_epochs[s] == epoch]
            classes = sorted((c for c, e in epoch_of_class.items() if e == epoch),
                             key=lambda c: -windows[c][0])
            caps = [sum(1 for s in block_free if s >= windows[c][0]) for c in classes]
            self.blocks.append((classes, caps, len(block_free)))
        self.num_classes = len(windows)
        self.must_hold = must_hold

    def vectors(self, remaining: Sequence[int], tick: Callable[[], None] | None = None) -> Iterator[tuple[int, ...]]:
        """Every count vector this hand may hold, drawing from `remaining`;
        `tick` is called at every step of the enumeration (a work budget)."""
        for classes, caps, total in self.blocks:
            # A block that cannot be filled leaves no vector; found here, not after
            # enumerating every way to fill the blocks before it.
            if total and (not classes or caps[-1] < total or sum(remaining[c] for c in classes) < total):
                return

        def blocks(i: int, counts: list[int]):
            if i == len(self.blocks):
                if not self.must_hold or any(counts[c] for c in self.must_hold):
                    yield tuple(counts)
                return
            classes, caps, total = self.blocks[i]
            for _ in fill(classes, caps, total, 0, 0, counts):
                yield from blocks(i + 1, counts)

        def fill(classes, caps, total, j, placed, counts):
            if tick is not None:
                tick()
            if j == len(classes):
                if placed == total:
                    yield
                return
            room = sum(remaining[c] for c in classes[j + 1:])
            c = classes[j]
            low = max(0, total - placed - room)
            high = min(remaining[c], caps[j] - placed, total - placed)
            for k in range(low, high + 1):
                counts[c] = k
                yield from fill(classes, caps, total, j + 1, placed + k, counts)
            counts[c] = 0

        yield from blocks(0, [0] * self.num_classes)


STEPS_PER_WORK = 100


class TooLargeToCount(RuntimeError):
    """Counting the consistent worlds would take more than the work budget."""


class ConstrainedDeal:
    """Samples, uniformly, a deal of the unseen cards consistent with the constraints.

    cards_by_class: the unseen card ids, grouped by class key.
    hands: the opponents' hidden hands.
    class_windows: for each class key, the window a held card of that class has
        in each hand (same order as `hands`).
    stock_classes: the class keys whose cards may also lie in the stock.
    max_work: if given, raise TooLargeToCount once the count has looked at more
        count vectors than this.
    """

    def __init__(self, cards_by_class: dict[Hashable, list[int]], hands: Sequence[HiddenHand],
                 class_windows: dict[Hashable, Sequence[Interval]],
                 stock_classes: set[Hashable], max_work: int | None = None):
        self.hands = list(hands)
        self._work_left = max_work
        # Steps of the enumeration that may yield no vector (dead ends), bounded too.
        self._steps_left = None if max_work is None else STEPS_PER_WORK * max_work
        keys = [k for k, cards in cards_by_class.items() if cards]
        # A hand is free when every card it holds could have come from any of its
        # slots, as if it were part of the stock.
        self.free = [h for h, hand in enumerate(self.hands)
                     if not hand.must_hold and len(set(hand.slot_epochs)) <= 1
                     and all(class_windows[k][h] == (0, len(hand.slot_epochs)) if k in stock_classes
                             else class_windows[k][h][0] == class_windows[k][h][1] for k in keys)]
        self.constrained = [h for h in range(len(self.hands)) if h not in self.free]
        groups: dict[tuple, list[int]] = {}
        for key in keys:
            sig = (key in stock_classes,
                   tuple(class_windows[key][h] for h in self.constrained),
                   tuple(key in self.hands[h].must_hold for h in self.constrained))
            groups.setdefault(sig, []).extend(cards_by_class[key])
        self.signatures = list(groups)
        self.cards = [sorted(groups[s]) for s in self.signatures]
        self.in_stock = [sig[0] for sig in self.signatures]
        self.chains = [
            _Chain(self.hands[h], [sig[1][i] for sig in self.signatures],
                   [c for c, sig in enumerate(self.signatures) if sig[2][i]])
            for i, h in enumerate(self.constrained)]
        self.free_sizes = [self.hands[h].size for h in self.free]
        self._memo: dict[tuple[int, tuple[int, ...]], tuple[float, list]] = {}
        if self._weight(0, tuple(len(c) for c in self.cards))[0] <= 0.0:
            raise ValueError("no deal of the unseen cards is consistent with the constraints")

    def _tick(self) -> None:
        self._steps_left -= 1
        if self._steps_left < 0:
            raise TooLargeToCount("counting the consistent deals exceeds the work budget")

    def _sink(self, remaining: tuple[int, ...]) -> float:
        """Deals of what is left to the free hands and the stock, over the product
        of the factorials of the class counts left."""
        if any(r and not s for r, s in zip(remaining, self.in_stock)):
            return 0.0
        n = sum(remaining)
        stock = n - sum(self.free_sizes)
        if stock < 0:
            return 0.0
        w = factorial(n) / factorial(stock)
        for k in self.free_sizes:
            w /= factorial(k)
        for r in remaining:
            w /= factorial(r)
        return w

    def _weight(self, i: int, remaining: tuple[int, ...]) -> tuple[float, list]:
        """(consistent deals of `remaining` to constrained hands i.. and the sink,
        over the product of factorials of the class counts; cumulative options)."""
        key = (i, remaining)
        hit = self._memo.get(key)
        if hit is not None:
            return hit
        if i == len(self.chains):
            result = (self._sink(remaining), [])
        else:
            options = []
            total = 0.0
            for counts in self.chains[i].vectors(remaining, self._tick if self._steps_left is not None else None):
                if self._work_left is not None:
                    self._work_left -= 1
                    if self._work_left < 0:
                        raise TooLargeToCount("counting the consistent deals exceeds the work budget")
                rest = tuple(r - k for r, k in zip(remaining, counts))
                w = self._weight(i + 1, rest)[0]
                if w > 0.0:
                    for k in counts:
                        w /= factorial(k)
                    total += w
                    options.append((total, counts))
            result = (total, options)
        self._memo[key] = result
        return result

    def sample(self, uniform: Callable[[], float]) -> tuple[list[list[int]], list[int]]:
        """Returns (hidden cards of each hand in random order, stock cards in no
        particular order)."""
        remaining = tuple(len(c) for c in self.cards)
        chosen = []
        for i in range(len(self.chains)):
            total, options = self._weight(i, remaining)
            x = uniform() * total
            counts = options[-1][1]
            for cum, cand in options:
                if x < cum:
                    counts = cand
                    break
            chosen.append(counts)
            remaining = tuple(r - k for r, k in zip(remaining, counts))
        hands: list[list[int]] = [[] for _ in self.hands]
        rest: list[int] = []
        dealt_by_class = [sum(column) for column in zip(*chosen)] if chosen else [0] * len(self.cards)
        constrained = self.constrained
        for c, cards in enumerate(self.cards):
            dealt = dealt_by_class[c]
            if not dealt:          # nothing of this class goes to a constrained hand
                rest.extend(cards)
                continue
            pile = cards[:]
            shuffle_prefix(pile, dealt, uniform)
            start = 0
            for i, h in enumerate(constrained):
                k = chosen[i][c]
                if k:
                    hands[h].extend(pile[start:start + k])
                    start += k
            rest.extend(pile[start:])
        shuffle_prefix(rest, sum(self.free_sizes), uniform)
        start = 0
        for h, k in zip(self.free, self.free_sizes):
            hands[h] = rest[start:start + k]
            start += k
        return hands, rest[start:]


class SwapChainDeal:
    """Samples deals of the unseen cards consistent with the constraints,
    approximately: the same setting and arguments as ConstrainedDeal, for
    instances too large to count.

    A Markov chain over consistent deals: a step picks two unseen cards at
    random and swaps their places (hands or the stock) when both places stay
    consistent. The proposal is symmetric, so the chain's stationary
    distribution is uniform over the consistent deals it can reach. The first
    deal is built from the constraints alone (never from a real deal), then
    `burn_in` steps are run; each sample runs `steps` more from the last one,
    so successive samples are correlated and only approximately uniform.
    """

    def __init__(self, cards_by_class: dict[Hashable, list[int]], hands: Sequence[HiddenHand],
                 class_windows: dict[Hashable, Sequence[Interval]], stock_classes: set[Hashable],
                 uniform: Callable[[], float], steps: int | None = None, burn_in: int | None = None):
        self.hands = list(hands)
        self.class_of = {c: key for key, cards in cards_by_class.items() for c in cards}
        self.cards = sorted(self.class_of)
        self.windows = [{key: class_windows[key][h] for key in cards_by_class} for h in range(len(self.hands))]
        self.stock_classes = stock_classes
        self.steps = steps if steps is not None else len(self.cards)
        self._start(uniform)
        for _ in range(burn_in if burn_in is not None else 10 * len(self.cards)):
            self._step(uniform)

    def _consistent(self, h: int, held: list[int]) -> bool:
        hand = self.hands[h]
        if hand.must_hold and not any(self.class_of[c] in hand.must_hold for c in held):
            return False
        windows = list(hand.played) + [self.windows[h][self.class_of[c]] for c in held]
        return match_slots(len(hand.slot_epochs), windows) is not None

    def _start(self, uniform: Callable[[], float], attempts: int = 20) -> None:
        """A first consistent deal, from the constraints alone: a card a hand must
        hold takes its last free slot, then a maximum matching (augmenting paths,
        cards and their options in random order) puts every other card in a free
        slot its window holds, or in the stock."""
        free_slots = []
        for hand in self.hands:
            used = [False] * len(hand.slot_epochs)
            if match_slots(len(used), hand.played, used) is None:
                raise ValueError("the played cards cannot be matched to the slots")
            free_slots.append([s for s, u in enumerate(used) if not u])
        stock_size = len(self.cards) - sum(hand.size for hand in self.hands)
        # The matching finds a deal whenever one exists; only the choice of the
        # cards that must be held is worth retrying.
        if not any(hand.must_hold for hand in self.hands):
            attempts = 1
        for _ in range(attempts):
            pool = self.cards[:]
            shuffle_prefix(pool, len(pool), uniform)
            held: list[list[int]] = [[] for _ in self.hands]
            positions = []
            for h, hand in enumerate(self.hands):
                slots = free_slots[h]
                if hand.must_hold and slots:
                    last = slots[-1]
                    i = next((i for i, c in enumerate(pool) if self.class_of[c] in hand.must_hold
                              and self._fits(h, c, last)), None)
                    if i is None:
                        break
                    held[h].append(pool.pop(i))
                    slots = slots[:-1]
                positions += [(h, slot) for slot in slots]
            else:
                placed = self._match(pool, positions, stock_size, uniform)
                if placed is not None:
                    stock = []
                    for c, pos in placed.items():
                        if pos < len(positions):
                            held[positions[pos][0]].append(c)
                        else:
                            stock.append(c)
                    self.held = held
                    self.stock = stock
                    self.place = {c: h for h, cards in enumerate(held) for c in cards}
                    self.place.update({c: -1 for c in stock})
                    return
        raise ValueError("no deal of the unseen cards consistent with the constraints was found")

    def _fits(self, h: int, card: int, slot: int) -> bool:
        lo, hi = self.windows[h][self.class_of[card]]
        return lo <= slot < hi

    def _match(self, cards: list[int], positions: list[tuple[int, int]], stock_size: int,
               uniform: Callable[[], float]) -> dict[int, int] | None:
        """Each card to a distinct position it fits (index len(positions) is the
        stock, which takes stock_size cards), or None if no such matching exists."""
        stock = len(positions)
        options = {}
        for c in cards:
            opts = [i for i, (h, slot) in enumerate(positions) if self._fits(h, c, slot)]
            if self.class_of[c] in self.stock_classes and stock_size:
                opts.append(stock)
            shuffle_prefix(opts, len(opts), uniform)
            options[c] = opts
        holder: dict[int, list[int]] = {}
        place: dict[int, int] = {}

        def augment(c: int, seen: set) -> bool:
            for pos in options[c]:
                if pos in seen:
                    continue
                seen.add(pos)
                taken = holder.setdefault(pos, [])
                if len(taken) < (stock_size if pos == stock else 1):
                    taken.append(c)
                    place[c] = pos
                    return True
                for other in taken:
                    if augment(other, seen):
                        taken.remove(other)
                        taken.append(c)
                        place[c] = pos
                        return True
            return False

        for c in cards:
            if not augment(c, set()):
                return None
        return place

    def _step(self, uniform: Callable[[], float]) -> None:
        n = len(self.cards)
        if n < 2:
            return
        a = self.cards[int(uniform() * n)]
        b = self.cards[int(uniform() * n)]
        pa, pb = self.place[a], self.place[b]
        if pa == pb:
            return
        same = self.class_of[a] == self.class_of[b]
        la = self.held[pa] if pa >= 0 else self.stock
        lb = self.held[pb] if pb >= 0 else self.stock
        new_a = [b if c == a else c for c in la]
        new_b = [a if c == b else c for c in lb]
        if not same:
            for place, cards, incoming in ((pa, new_a, b), (pb, new_b, a)):
                if place < 0:
                    if self.class_of[incoming] not in self.stock_classes:
                        return
                elif not self._consistent(place, cards):
                    return
        for place, cards in ((pa, new_a), (pb, new_b)):
            if place >= 0:
                self.held[place] = cards
            else:
                self.stock = cards
        self.place[a], self.place[b] = pb, pa

    def sample(self, uniform: Callable[[], float]) -> tuple[list[list[int]], list[int]]:
        """Returns (hidden cards of each hand, stock cards) after `steps` more steps."""
        for _ in range(self.steps):
            self._step(uniform)
        return [h[:] for h in self.held], self.stock[:]


def cached_view(state: Any, player: int, make_view: Callable[[Any, int], Any]) -> Any:
    """`player`'s belief view at `state`, kept in the state's `cache` slot for as
    long as its log is the same: a search resamples one position many times,
    and the view (what the player knows, counted once) costs more than a draw."""
    cache = state.cache
    if cache is None or cache[0] != player or cache[1] is not state.log:
        cache = state.cache = (player, state.log, make_view(state, player))
    return cache[2]


def shuffle_prefix(items: list, count: int, uniform: Callable[[], float]) -> None:
    """Fisher-Yates on the first `count` places only, with an external source of
    uniform floats in [0, 1): they become a uniformly random ordered sample of
    `items`, and the rest are left in no particular order. Hands need their
    cards in random order (it decides which deal slot got which card); the
    stock is a set, so shuffling it would waste the search's time."""
    n = len(items)
    for i in range(min(count, n - 1)):
        j = i + int(uniform() * (n - i))
        items[i], items[j] = items[j], items[i]
