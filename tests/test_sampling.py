"""games.sampling against brute force on small random instances of its setting."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter

import pytest

from games.sampling import ConstrainedDeal, HiddenHand, SwapChainDeal, TooLargeToCount, match_slots


def random_instance(rng: random.Random):
    """Hands with slots in epoch blocks, windows shaped as the games make them:
    a held card's window runs from some slot to the end of its epoch's block, a
    played card's window is any range inside one block."""
    epochs = rng.choice([1, 1, 2])
    classes = [(s, e) for e in range(epochs) for s in range(rng.randint(1, 3))]
    hands, windows = [], {k: [] for k in classes}
    for _ in range(rng.randint(1, 3)):
        slot_epochs = sorted(rng.randrange(epochs) for _ in range(rng.randint(0, 4)))
        blocks = {e: [i for i, x in enumerate(slot_epochs) if x == e] for e in range(epochs)}
        played = []
        for _ in range(rng.randint(0, 2)):
            e = rng.randrange(epochs)
            if blocks[e]:
                a = rng.choice(blocks[e])
                b = rng.randint(a + 1, blocks[e][-1] + 1)
                played.append((a, b))
        for k in classes:
            block = blocks[k[1]]
            if not block:
                windows[k].append((0, 0))
            else:
                lo = rng.choice(block + [block[-1] + 1])
                windows[k].append((lo, block[-1] + 1))
        must = frozenset(k for k in classes if rng.random() < 0.15)
        hands.append(HiddenHand(slot_epochs, played, must))
    cards, next_id = {}, 0
    for k in classes:
        n = rng.randint(0, 3)
        cards[k] = list(range(next_id, next_id + n))
        next_id += n
    stock_classes = {k for k in classes if k[1] == epochs - 1}
    return cards, hands, windows, stock_classes


BRUTE_FORCE_LIMIT = 50_000


def brute_force_worlds(cards, hands, windows, stock_classes):
    """Every consistent world, checked by trying every matching of cards to slots."""
    class_of = {c: k for k, cs in cards.items() for c in cs}
    ids = sorted(class_of)
    sizes = [h.size for h in hands]
    if min(sizes, default=0) < 0 or (len(hands) + 1) ** len(ids) > BRUTE_FORCE_LIMIT:
        return []          # impossible, or too many placements to try (minutes of search)
    worlds = []
    for places in itertools.product(range(len(hands) + 1), repeat=len(ids)):
        held = [[c for c, p in zip(ids, places) if p == h] for h in range(len(hands))]
        stock = [c for c, p in zip(ids, places) if p == len(hands)]
        if [len(x) for x in held] != sizes:
            continue
        if any(class_of[c] not in stock_classes for c in stock):
            continue
        ok = True
        for h, hand in enumerate(hands):
            if hand.must_hold and not any(class_of[c] in hand.must_hold for c in held[h]):
                ok = False
                break
            wins = list(hand.played) + [windows[class_of[c]][h] for c in held[h]]
            n = len(hand.slot_epochs)
            if not any(all(lo <= s < hi for (lo, hi), s in zip(wins, perm))
                       for perm in itertools.permutations(range(n), len(wins))):
                ok = False
                break
        if ok:
            worlds.append((tuple(tuple(sorted(x)) for x in held), tuple(sorted(stock))))
    return worlds


@pytest.mark.parametrize("seed", range(40))
def test_sampler_is_exactly_uniform_over_brute_force_worlds(seed):
    rng = random.Random(seed)
    while True:
        inst = random_instance(rng)
        cards, hands = inst[0], inst[1]
        if sum(map(len, cards.values())) > 7 or sum(h.size for h in hands) > 5:
            continue          # keep the brute force small
        worlds = brute_force_worlds(*inst)
        if 2 <= len(worlds) <= 40:
            break
    deal = ConstrainedDeal(*inst)
    samples = 300 * len(worlds)
    counts = Counter()
    for _ in range(samples):
        hands, stock = deal.sample(rng.random)
        counts[(tuple(tuple(sorted(h)) for h in hands), tuple(sorted(stock)))] += 1
    assert set(counts) <= set(worlds), "sampled a world brute force calls inconsistent"
    expected = samples / len(worlds)
    chi2 = sum((counts[w] - expected) ** 2 / expected for w in worlds)
    dof = len(worlds) - 1
    assert chi2 < dof + 6 * math.sqrt(2 * dof), (chi2, dof)


def test_an_impossible_instance_is_reported():
    hand = HiddenHand([0, 0], [], frozenset())
    with pytest.raises(ValueError, match="no deal"):
        ConstrainedDeal({"a": [1, 2]}, [hand], {"a": [(1, 2)]}, set())


def test_a_block_of_slots_that_cannot_be_filled_is_found_before_enumerating_the_others():
    # Twelve slots from the first stock, which twelve classes could fill in
    # thousands of ways, and two from the second that its one class (a window of
    # one slot) cannot fill: impossible, and said at once, within a tiny budget
    # (enumerating the first block's ways only to fail on the second hung a search).
    hand = HiddenHand([0] * 12 + [1, 1])
    cards = {k: [2 * k, 2 * k + 1] for k in range(13)}
    windows = {k: [(k % 6, 12)] for k in range(12)}
    windows[12] = [(13, 14)]
    with pytest.raises(ValueError, match="no deal"):
        ConstrainedDeal(cards, [hand], windows, set(cards), max_work=5)


@pytest.mark.parametrize("seed", range(8))
def test_swap_chain_samples_consistent_worlds_close_to_uniformly(seed):
    rng = random.Random(1000 + seed)
    while True:
        inst = random_instance(rng)
        worlds = brute_force_worlds(*inst)
        if 2 <= len(worlds) <= 20:
            break
    chain = SwapChainDeal(*inst, rng.random, steps=10)
    samples = 200 * len(worlds)
    counts = Counter()
    for _ in range(samples):
        hands, stock = chain.sample(rng.random)
        counts[(tuple(tuple(sorted(h)) for h in hands), tuple(sorted(stock)))] += 1
    assert set(counts) <= set(worlds), "the chain reached a world brute force calls inconsistent"
    # Successive samples are correlated, so the bound is looser than the exact sampler's.
    expected = samples / len(worlds)
    chi2 = sum((counts[w] - expected) ** 2 / expected for w in worlds)
    dof = len(worlds) - 1
    assert chi2 < 2 * dof + 10 * math.sqrt(2 * dof), (chi2, dof)


def test_counting_past_the_work_budget_is_reported():
    hand = HiddenHand([0] * 6)
    cards = {k: [4 * k + i for i in range(4)] for k in range(6)}
    windows = {k: [(k % 3, 6)] for k in cards}
    with pytest.raises(TooLargeToCount):
        ConstrainedDeal(cards, [hand], windows, set(cards), max_work=3)
    assert ConstrainedDeal(cards, [hand], windows, set(cards)).sample(random.Random(0).random)


def test_random_slot_matching_is_uniform_when_every_window_starts_at_the_first_slot():
    """Cards played by slots 2, 3 and 3 (windows from slot 0): 2 x 2 x 1 matchings."""
    windows = [(0, 3), (0, 2), (0, 3)]
    rng = random.Random(5)
    seen = Counter(tuple(match_slots(3, windows, uniform=rng.random)) for _ in range(4000))
    everything = {m for m in itertools.permutations(range(3))
                  if all(lo <= s < hi for s, (lo, hi) in zip(m, windows))}
    assert set(seen) == everything and len(everything) == 4
    assert all(abs(n / 4000 - 1 / 4) < 0.03 for n in seen.values())


def test_random_slot_matching_keeps_each_card_in_its_window_or_says_none():
    rng = random.Random(6)
    windows = [(1, 3), (0, 4), (2, 4), (0, 2)]
    for _ in range(200):
        slots = match_slots(4, windows, uniform=rng.random)
        if slots is not None:
            assert sorted(slots) == [0, 1, 2, 3]
            assert all(lo <= s < hi for s, (lo, hi) in zip(slots, windows))
    assert match_slots(2, [(0, 1), (0, 1)], uniform=rng.random) is None
