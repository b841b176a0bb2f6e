"""Whether the player to move can still go out this turn, by its legal moves.

A partner's "yes" obliges the asker to go out when it can (docs/rules/
modern_canasta.md): from then on only moves that keep going out within reach
are legal. Reachability is decided by a depth-first search over the rules core's
own legal moves (melds, the pile taken with an initial meld, the last discard),
so it can never disagree with the rules.

The search melds rank by rank in one fixed order, which loses nothing: going out
melds every card but one, and the order of melds into different ranks changes
nothing but two things the order takes care of. A side's unfinished wild-card
meld must be finished before wild cards go elsewhere, and a new one, while
unfinished, keeps wild cards from the others: so the wild slot comes both first
and last. Cards taken with the pile come only after the initial meld that takes
it: the order restarts there. In that order a rank left behind keeps its cards
for good, so a search holding two such cards stops at once; positions are
memoised.
"""

from __future__ import annotations

from games.modern_canasta.actions import COMMIT, DISCARD_BASE, MELD_BASE, MELD_PARTS
from games.canasta_family.cards import JOKER, NUM_KINDS, NUM_NATURAL, SEVEN, TWO, WILD_SLOT
from games.modern_canasta.core import MELD, PICKUP, CanastaState

ORDER = (WILD_SLOT,) + tuple(range(NUM_NATURAL)) + (WILD_SLOT,)
# For each place `at` in ORDER, what melds from there on can still change or read: the
# side's meld-table entries, the hand's kinds and the closed ranks, less the naturals
# ORDER[1:at] that the order has passed.
_OPEN_INDICES = tuple(tuple(3 * slot + i for slot in range(WILD_SLOT + 1) if slot not in ORDER[1:at]
                            for i in range(3))
                      for at in range(len(ORDER)))
_OPEN_KINDS = tuple(tuple(k for k in range(NUM_KINDS) if k not in ORDER[1:at]) for at in range(len(ORDER)))
_OPEN_MASK = tuple(sum(1 << slot for slot in range(WILD_SLOT + 1) if slot not in ORDER[1:at])
                   for at in range(len(ORDER)))

def can_go_out(state: CanastaState) -> bool:
    """Whether the player to move (in the meld phase) can go out this turn."""
    return _search(state, 0, turn_memo(state))


def turn_memo(state: CanastaState) -> dict:
    """The search's answers during this turn, shared by the state's clones (a
    player asks again after each meld, and the legality check after a "yes"
    asks what the player asked): the key holds everything a turn can change."""
    if state.out_memo is None:
        state.out_memo = {}
    return state.out_memo


def keep_going_out(state: CanastaState, actions: list[int]) -> list[int]:
    """The actions after which going out this turn is still possible."""
    memo = turn_memo(state)
    kept = []
    for action in actions:
        if DISCARD_BASE <= action < MELD_BASE:
            if state.sizes[state.actor] == 1:
                kept.append(action)
        elif action >= MELD_BASE or action == COMMIT:
            if _search(_child(state, action), 0, memo):
                kept.append(action)
    return kept


def _child(state: CanastaState, action: int) -> CanastaState:
    child = state.clone()
    child.must_out = False
    if action == COMMIT:
        child.apply_action(COMMIT)
    else:
        child.do_meld(action)
    return child


def _search(state: CanastaState, at: int, memo: dict) -> bool:
    """Whether going out is reachable melding only into ORDER[at:], in that order."""
    if state.phase != MELD and state.phase != PICKUP:
        return False
    actor = state.actor
    side = actor & 1
    hand = state.hands[actor]
    melds = state.melds
    if state.phase == MELD and state.melded >> side & 1:
        # Once the side has melded, the ranks the order has passed can take no more cards
        # this turn and nothing that follows reads their melds, the card a passed rank
        # left in hand (at most one: the discard) nor which wild cards made a canasta,
        # only how many canastas there are. Keying them out merges the positions that
        # differ only in how the wild cards were spread over the passed ranks, which
        # otherwise multiply with every rank passed.
        kept = _OPEN_INDICES[at]
        key = (at, tuple(hand[k] for k in _OPEN_KINDS[at]), sum(hand[k] for k in ORDER[1:at]),
               tuple(melds[36 * side + i] for i in kept), len(state.canastas[side]),
               state.closed & _OPEN_MASK[at], state.pending, len(state.pile), state.forbid_out,
               state.withdrawn)
    else:
        key = (state.phase, at, tuple(hand), tuple(melds[36 * side:36 * side + 36]),
               state.canastas[side], state.closed, state.pending, state.melded, len(state.pile),
               state.forbid_out, state.withdrawn)
    hit = memo.get(key)
    if hit is not None:
        return hit
    result = False
    if not _hopeless(state):
        acts = state._play_actions()
        if state.phase == MELD and state.sizes[actor] == 1:
            result = any(DISCARD_BASE <= a < MELD_BASE for a in acts)   # the last card goes out
        else:
            result = _try_melds(state, acts, at, memo)
    memo[key] = result
    return result


def _try_melds(state: CanastaState, acts: list[int], at: int, memo: dict) -> bool:
    hand = state.hands[state.actor]
    by_slot: dict[int, list[tuple[int, int]]] = {}
    for action in acts:
        if action >= MELD_BASE:
            slot, n, t, j = MELD_PARTS[action]
            by_slot.setdefault(slot, []).append((n + t + j, action))
        elif action == COMMIT and _search(_child(state, action), 0, memo):
            return True
    settled = state.phase == MELD
    # Naturals of ranks the order has passed stay for good, and wild cards once it
    # has passed the last slot: only one card may stay (the discard).
    left_behind = sum(hand[slot] for slot in ORDER[1:at]) if settled else 0
    for i in range(at, len(ORDER)):
        slot = ORDER[i]
        for _, action in sorted(by_slot.get(slot, ()), reverse=True):
            if _search(_child(state, action), i, memo):
                return True
        if settled and 0 < i < len(ORDER) - 1:
            left_behind += hand[slot]
            if left_behind >= 2:
                return False
    return False


def _hopeless(state: CanastaState) -> bool:
    """Two necessary conditions for going out this turn, checked cheaply: the side
    can still reach two canastas, and (once its initial meld is made) at most one
    card in hand can never be melded this turn."""
    actor = state.actor
    side = actor & 1
    cards = state.hands[actor]
    if state.phase == PICKUP:
        cards = cards[:]
        for kind in state.pile:
            cards[kind] += 1
    melds = state.melds
    base = 36 * side
    wilds = cards[TWO] + cards[JOKER]
    closed = state.closed
    reachable = len(state.canastas[side])
    stuck = 0
    settled = state.melded >> side & 1 and state.phase == MELD
    for slot, held, n, t, j in zip(range(NUM_NATURAL), cards, melds[base:base + 33:3],
                                   melds[base + 1:base + 33:3], melds[base + 2:base + 33:3]):
        if closed >> slot & 1:
            stuck += held
        else:
            size = n + t + j
            if size or held:
                room = 0 if slot == SEVEN or t + j >= 2 else 2 - t - j
                if size + held + (wilds if wilds < room else room) >= 7:
                    reachable += 1
                if settled and not size and held < 3:
                    stuck += held      # a new meld needs three naturals: wild cards need five
        if stuck >= 2:
            return True
    if wilds and melds[base + 34] + melds[base + 35] + wilds >= 7:
        reachable += 1
    return reachable < 2
