"""What an American Page One player can infer about the cards it has not seen, and resampling.

A world is an assignment of every card the player has not seen to the
opponents' hidden hands and the stock. It is consistent when some history of
deals and draws produces it and shows the player exactly what it saw. The two
copies of a card are counted apart (a world is an assignment of physical
cards), so a world with both 7♠ in one hand weighs half one that splits them,
as the shuffle makes it.

What the public play (and, for some players, a shown hand) says:

* a card played right after its player drew is the card drawn;
* a card played from a hand came from one of that player's earlier hidden
  acquisitions (the deal, draws), after the last time it showed it lacked that
  card, from the stock of its time (a reshuffle starts a new stock whose cards
  are the known discards);
* under draw_until_playable, a player who draws held no playable card then, and
  each card it drew and kept was not playable either; one whose turn it is to
  play now holds a playable card;
* a failed challenge shows that the joker's player held no card of the suit
  before it (8s aside); a successful one that it held one (a card it held at
  that moment: it may have played it since);
* a hand laid down for a Dobon, or shown to the player as a challenger, is
  known card by card, and cards given back after a Dobon are known.

`resample` draws among consistent worlds with games.sampling (cards of one
kind and stock form one class, copies counted apart): exactly, with
ConstrainedDeal, when counting the worlds fits a work budget; otherwise with
SwapChainDeal, a Markov chain whose stationary distribution is uniform. A
"held one of these then" constraint (a successful challenge seen by a third
player) is enforced by rejection, which keeps a draw uniform. The world is
built by replaying the game's actions with the opponents' hidden deals and
draws rewritten, so its history produces it and never holds the real hidden
cards.

After a reshuffle, a card an opponent plays may be a copy it held from before
or one it drew from the new stock; each such card is given one of the stocks it
could come from, at random in proportion to the unseen copies each had left,
once per information state (BeliefView), and the draw is uniform given that
choice. The choice is a depth-first search with a step budget, first keeping the
stocks that the player's previous view chose for the cards it already knew of
(so a search moving through a deal pays for the new cards only; what was seen
since can rule that choice out, and then the search starts afresh); where the
search runs out (long deals with several reshuffles), an integer program finds
one (`_solve_epochs`, scipy's HiGHS). `BeliefView.exact` says whether the draws of a
view are exactly uniform.
docs/rules/american_page_one.md sums this up.
"""

from __future__ import annotations

import itertools
from typing import Callable, Protocol

from games.american_page_one.core import (EV_ACT, EV_DEAL, EV_DRAW, EV_DRAW_ONE, EV_RESHUFFLE,
                                          EV_RETURN, EV_SHOW, EV_SHOW_TO, EV_STARTER, EV_STARTER_BACK,
                                          EV_STUCK, EV_VERDICT, EV_VOID, JOKER, NUM_KINDS, PLAY,
                                          AmericanPageOneState, hand_kinds, kind_set)
from games.sampling import (ConstrainedDeal, HiddenHand, Interval, SwapChainDeal, TooLargeToCount,
                            match_slots)

MAX_ATTEMPTS = 200
# Counting consistent worlds exactly costs about this many count vectors at most
# (some tens of milliseconds); a larger instance is sampled by the swap chain.
EXACT_WORK = 1_000


class _Opponent:
    """One opponent's hidden acquisitions and what the public play says of them."""

    def __init__(self) -> None:
        self.slot_events: list[int] = []     # log index of each hidden deal / kept draw
        self.slot_epochs: list[int] = []
        self.voids: list[tuple[int, int]] = []        # (time, kind set) it showed it lacked
        self.records: list[tuple[int, int]] = []      # (time, kind) left hiding: played or shown
        self.known: list[int] = [0] * NUM_KINDS       # copies known to be in its hand now
        self.witnesses: list[tuple[int, int]] = []    # (time, kind set): it held one of these then

    def window(self, kind: int, epoch: int, until: int) -> Interval:
        """The slots a card of `kind` from stock `epoch`, gone from hiding at
        `until` (or held now), could have come from."""
        bit = 1 << kind
        last_void = max((t for t, mask in self.voids if t < until and mask & bit), default=-1)
        times, epochs = self.slot_events, self.slot_epochs
        lo = 0
        while lo < len(times) and (2 * times[lo] <= last_void or epochs[lo] < epoch):
            lo += 1
        hi = lo
        while hi < len(times) and 2 * times[hi] < until and epochs[hi] == epoch:
            hi += 1
        return lo, hi

    def slots_before(self, time: int) -> int:
        return sum(1 for i in self.slot_events if 2 * i < time)


class PlayModel(Protocol):
    """A model of the others' play that says what a move shows of a hand: the
    kinds (a kind set) that the player to move in `core` held none of, if it
    plays like the model and took `action` there. It may read only the public
    position. The rule bot is one (agents.rules.american_page_one)."""

    def lacked(self, core: AmericanPageOneState, action: int) -> int: ...


class BeliefView:
    """The constraints that one player's information puts on the unseen cards;
    with a `model`, also what the others' moves show if they play like it."""

    def __init__(self, state: AmericanPageOneState, player: int, model: PlayModel | None = None):
        rules = state.rules
        events = state.events()
        self.events = events
        self.player = player
        self.opponents = [s for s in range(state.n) if s != player]
        opp = {s: _Opponent() for s in self.opponents}
        if model is not None:
            for s, void in _model_voids(state, events, opp, model):
                opp[s].voids.append(void)
        pool: dict[tuple[int, int], int] = {(k, 0): c for k, c in enumerate(rules.tables.counts) if c}
        epoch = 0
        skip_play = -1
        for i, (kind, seat, value) in enumerate(events):
            o = opp.get(seat)
            if kind == EV_DEAL:
                if o is None:
                    pool[(value, 0)] -= 1
                else:
                    o.slot_events.append(i)
                    o.slot_epochs.append(0)
            elif kind == EV_DRAW or kind == EV_DRAW_ONE:
                if o is None:
                    pool[(value, epoch)] -= 1
                elif kind == EV_DRAW_ONE and played_at_once(events, i):
                    pool[(events[i + 1][2], epoch)] -= 1       # seen as it was played
                    skip_play = i + 1
                else:
                    o.slot_events.append(i)
                    o.slot_epochs.append(epoch)
            elif kind == EV_ACT:
                if o is None or value >= NUM_KINDS or i == skip_play:
                    continue
                if o.known[value]:
                    o.known[value] -= 1
                else:
                    o.records.append((2 * i, value))
            elif kind == EV_STARTER:
                pool[(value, 0)] -= 1
            elif kind == EV_STARTER_BACK:
                pool[(JOKER, 0)] += 1
            elif kind == EV_RESHUFFLE:
                epoch += 1
                for k in hand_kinds(*value):
                    pool[(k, epoch)] = pool.get((k, epoch), 0) + 1
            elif kind == EV_SHOW or (kind == EV_SHOW_TO and value[0] == player):
                if o is None:
                    continue
                shown = hand_kinds(*value) if kind == EV_SHOW else hand_kinds(value[1], value[2])
                counts = [0] * NUM_KINDS
                for k in shown:
                    counts[k] += 1
                for k in range(NUM_KINDS):
                    for _ in range(counts[k] - o.known[k]):
                        o.records.append((2 * i, k))    # now seen, still in the hand
                o.known = counts
            elif kind == EV_RETURN:
                if o is not None:
                    for k in value:
                        o.known[k] += 1
            elif kind == EV_VOID or kind == EV_STUCK:
                if o is not None:
                    o.voids.append((2 * i, value))
            elif kind == EV_VERDICT:
                if o is not None and value[0] and not self._saw_hand(events, i, player):
                    o.witnesses.append((2 * i, value[1]))
        self.epoch = epoch
        self.opp = opp
        self.pool = pool
        # Whose turn it is is public: under draw_until_playable a player about to
        # play holds a playable card (else it would be drawing).
        self.must_hold: dict[int, int] = {}
        if (rules.draw_until_playable and state.phase == PLAY and state.to_move in opp
                and not state.pending):
            need = kind_set(state.match)
            o = opp[state.to_move]
            if not any(o.known[k] for k in range(NUM_KINDS) if need >> k & 1):
                self.must_hold[state.to_move] = need
        self.now = 2 * len(events) + 1
        # Which stocks each card that left hiding could come from.
        # (seat, record index, kind, {stock: slots}), the stocks in increasing order
        self.choices: list[tuple[int, int, int, dict[int, Interval]]] = []
        for s in self.opponents:
            o = opp[s]
            for r, (t, k) in enumerate(o.records):
                windows = {}
                for e in range(epoch + 1):
                    if pool.get((k, e), 0) > 0:
                        lo, hi = o.window(k, e, t)
                        if hi > lo:
                            windows[e] = (lo, hi)
                if not windows:
                    raise ValueError(f"p{s}'s {k} has no hidden acquisition it could come from")
                self.choices.append((s, r, k, windows))
        self.fixed = all(len(c[3]) == 1 for c in self.choices)
        self.exact = self.fixed           # until a sampler is built
        self._deal = None
        self._solved = False              # whether the integer program was tried
        self.chosen: dict[tuple[int, int], int] | None = None   # the stocks chosen, once sampled
        self.earlier: dict[tuple[int, int], int] | None = None  # an earlier view's, to start from

    @staticmethod
    def _saw_hand(events, i: int, player: int) -> bool:
        """Whether `player` was shown the hand whose challenge verdict is event i."""
        prev = events[i - 1]
        return prev[0] == EV_SHOW_TO and player in (prev[1], prev[2][0])

    def _deal_for(self, epochs_chosen: tuple[int, ...], uniform: Callable[[], float]):
        """The sampler and windows for one choice of stock per card that left hiding,
        or None when that choice leaves no consistent deal."""
        pool = dict(self.pool)
        record_epochs: dict[tuple[int, int], int] = {}
        for (s, r, k, _), e in zip(self.choices, epochs_chosen):
            pool[(k, e)] -= 1
            if pool[(k, e)] < 0:
                return None
            record_epochs[(s, r)] = e
        cards_by_class: dict[tuple[int, int], list[int]] = {}
        kind_of: list[int] = []
        for key, count in sorted(pool.items()):
            if count:
                cards_by_class[key] = list(range(len(kind_of), len(kind_of) + count))
                kind_of.extend([key[0]] * count)
        hands, played_windows = [], []
        for s in self.opponents:
            o = self.opp[s]
            windows = [o.window(k, record_epochs[(s, r)], t) for r, (t, k) in enumerate(o.records)]
            played_windows.append(windows)
            need = self.must_hold.get(s, 0)
            must = frozenset(key for key in cards_by_class if need >> key[0] & 1)
            hands.append(HiddenHand(o.slot_epochs, windows, must))
        class_windows = {key: [self.opp[s].window(key[0], key[1], self.now) for s in self.opponents]
                         for key in cards_by_class}
        stock_classes = {key for key in cards_by_class if key[1] == self.epoch}
        try:
            try:
                deal = ConstrainedDeal(cards_by_class, hands, class_windows, stock_classes, EXACT_WORK)
                self.exact = self.fixed
            except TooLargeToCount:
                deal = SwapChainDeal(cards_by_class, hands, class_windows, stock_classes, uniform)
                self.exact = False
        except ValueError:
            return None
        class_of = {c: key for key, ids in cards_by_class.items() for c in ids}
        return deal, kind_of, class_of, class_windows, played_windows

    def sample(self, state: AmericanPageOneState, uniform: Callable[[], float]) -> AmericanPageOneState:
        for _ in range(MAX_ATTEMPTS):
            if self._deal is None:
                # One choice of stocks for the cards that left hiding serves every
                # sample of this information state (see the module docstring).
                chosen = None
                if self.earlier:
                    chosen = self._choose_epochs(uniform, keep=self.earlier)
                    self.earlier = None            # tried once: it may not fit a deal
                if chosen is None:
                    chosen = self._choose_epochs(uniform)
                if chosen is None and not self._solved:
                    self._solved = True            # at most once a view: it takes a second
                    chosen = self._solve_epochs(uniform)
                self._deal = None if chosen is None else self._deal_for(chosen, uniform)
                if self._deal is None:
                    continue
                self.chosen = {c[:2]: e for c, e in zip(self.choices, chosen)}
            deal, kind_of, class_of, class_windows, played_windows = self._deal
            hidden, _ = deal.sample(uniform)
            values = self._slot_values(hidden, kind_of, class_of, class_windows, played_windows)
            if values is not None:
                return replay(state, self.events, values)
        raise RuntimeError("no consistent world found: the belief constraints contradict each other")

    def _choose_epochs(self, uniform: Callable[[], float], budget: int = 5_000,
                       keep: dict[tuple[int, int], int] | None = None) -> tuple[int, ...] | None:
        """One stock per card that left hiding, such that no stock gives more
        copies of a card than it had and each player's cards still match its
        slots: a depth-first search over the cards in the order they were
        played. Each card takes the earliest free slot of a stock that still has
        a copy (earliest-deadline matching); the stocks are tried in a random
        order weighted by the unseen copies each had left, and a choice is
        dropped at once when it leaves one of the next cards of that player with
        no option. `keep` ({(seat, record index): stock}) fixes the cards an
        earlier view of this player chose for, so that only the cards played
        since are searched. None if `budget` steps find none."""
        out = [next(iter(c[3])) for c in self.choices]
        if self.fixed:
            return tuple(out)
        left = dict(self.pool)
        used = {s: [False] * len(self.opp[s].slot_events) for s in self.opponents}
        order = sorted(range(len(self.choices)),
                       key=lambda i: self.opp[self.choices[i][0]].records[self.choices[i][1]][0])
        later: dict[int, list[int]] = {}          # position in order -> later positions, same player
        by_player: dict[int, list[int]] = {}
        for j in reversed(range(len(order))):
            s = self.choices[order[j]][0]
            later[j] = by_player.setdefault(s, [])[:]
            by_player[s].insert(0, j)
        steps = [0]

        def options(j: int) -> list[tuple[int, int]]:
            i = order[j]
            s, r, k, windows = self.choices[i]
            free = used[s]
            found = []
            epochs = windows
            if keep and (s, r) in keep:
                epochs = [keep[(s, r)]] if keep[(s, r)] in windows else []
            for e in epochs:
                if left[(k, e)] > 0:
                    lo, hi = windows[e]
                    for slot in range(lo, hi):
                        if not free[slot]:
                            found.append((slot, e))
                            break
            return found

        def weighted_order(j: int, found: list[tuple[int, int]]) -> list[tuple[int, int]]:
            """The options in a random order, each next one drawn in proportion
            to the unseen copies its stock had left."""
            k = self.choices[order[j]][2]
            rest, ordered = list(found), []
            while rest:
                x = uniform() * sum(left[(k, e)] for _, e in rest)
                pick = rest[-1]
                for option in rest:
                    if x < left[(k, option[1])]:
                        pick = option
                        break
                    x -= left[(k, option[1])]
                rest.remove(pick)
                ordered.append(pick)
            return ordered

        def search(j: int) -> bool:
            if j == len(order):
                return True
            steps[0] += 1
            if steps[0] > budget:
                return False
            i = order[j]
            s, _, k, _ = self.choices[i]
            for slot, e in weighted_order(j, options(j)):
                used[s][slot] = True
                left[(k, e)] -= 1
                out[i] = e
                if all(options(x) for x in later[j][:8]) and search(j + 1):
                    return True
                left[(k, e)] += 1
                used[s][slot] = False
                if steps[0] > budget:
                    return False
            return False

        return tuple(out) if search(0) else None

    def _solve_epochs(self, uniform: Callable[[], float], seconds: float = 10.0) -> tuple[int, ...] | None:
        """The same choice as _choose_epochs, found exactly where its depth-first
        search runs out of budget (long deals with several reshuffles: hundreds of
        cards whose choices constrain each other): an integer program, one 0/1
        variable per (card, stock, slot) a card could take, each card exactly once,
        each slot at most once, each stock at most the copies it had; random costs
        pick one of the solutions. scipy's HiGHS (scipy.optimize.milp) solves it
        in well under a second. Its linear relaxation, four times faster, is tried
        first: where its optimum is whole (every time on tests/data's long deal) it
        is the integer program's optimum too, so the choice is the same. None if
        there is none, or none in `seconds`."""
        import numpy as np
        from scipy.optimize import Bounds, LinearConstraint, milp
        from scipy.sparse import coo_array
        columns: list[tuple[int, int]] = []          # (choice, stock) of each variable
        row_of: dict[tuple, int] = {}
        entries_row: list[int] = []
        for i, (s, _, k, windows) in enumerate(self.choices):
            for e, (lo, hi) in windows.items():
                for slot in range(lo, hi):
                    columns.append((i, e))
                    for key in (("card", i), ("slot", s, slot), ("stock", k, e)):
                        entries_row.append(row_of.setdefault(key, len(row_of)))
        if any(("card", i) not in row_of for i in range(len(self.choices))):
            return None                                 # a card with no slot it could take
        upper = np.array([1.0 if key[0] != "stock" else float(self.pool.get((key[1], key[2]), 0))
                          for key in row_of])
        lower = np.array([1.0 if key[0] == "card" else 0.0 for key in row_of])
        matrix = coo_array((np.ones(len(entries_row)), (entries_row, np.repeat(np.arange(len(columns)), 3))),
                           shape=(len(row_of), len(columns))).tocsr()
        costs = np.array([uniform() for _ in columns])
        constraints, bounds = LinearConstraint(matrix, lower, upper), Bounds(0, 1)
        result = milp(costs, constraints=constraints, integrality=np.zeros(len(columns)), bounds=bounds,
                      options={"time_limit": seconds})
        x = result.x
        if x is not None and np.abs(x - np.round(x)).max() > 1e-6:
            x = milp(costs, constraints=constraints, integrality=np.ones(len(columns)), bounds=bounds,
                     options={"time_limit": seconds}).x
        if x is None:                  # no solution (the relaxation has none: neither has the program)
            return None
        out = [next(iter(c[3])) for c in self.choices]
        for (i, e), value in zip(columns, x):
            if value > 0.5:
                out[i] = e
        return tuple(out)

    def _slot_values(self, hidden, kind_of, class_of, class_windows, played_windows):
        """The card each opponent's hidden slot gets, {log index: kind}, or None
        when a "held one of these then" constraint fails."""
        values: dict[int, int] = {}
        for h, s in enumerate(self.opponents):
            o = self.opp[s]
            ids = hidden[h]
            windows = played_windows[h] + [class_windows[class_of[c]][h] for c in ids]
            identities = [k for _, k in o.records] + [kind_of[c] for c in ids]
            if o.witnesses:
                windows = self._with_witnesses(o, windows, identities)
                if windows is None:
                    return None
            slots = match_slots(len(o.slot_events), windows)
            if slots is None:
                raise RuntimeError(f"sampled cards of p{s} do not fit its acquisitions")
            for kind, slot in zip(identities, slots):
                values[o.slot_events[slot]] = kind
        return values

    @staticmethod
    def _with_witnesses(o: _Opponent, windows: list[Interval], identities: list[int]):
        """Windows narrowed so that, for each (time, kinds) witness, some card of
        those kinds sat in the hand at that time; None if no choice fits."""
        n_records = len(o.records)
        options = []
        for time, mask in o.witnesses:
            before = o.slots_before(time)
            cands = [i for i, k in enumerate(identities)
                     if mask >> k & 1 and windows[i][0] < before
                     and (i >= n_records or o.records[i][0] > time)]
            if not cands:
                return None
            options.append([(i, before) for i in cands])
        for pick in itertools.product(*options):
            trial = list(windows)
            for i, before in pick:
                trial[i] = (trial[i][0], min(trial[i][1], before))
            if match_slots(len(o.slot_events), trial) is not None:
                return trial
        return None


def _model_voids(state: AmericanPageOneState, events, opp, model: PlayModel) -> list[tuple[int, tuple[int, int]]]:
    """(seat, (time, kind set)) for each move of an opponent that shows, under
    `model`, kinds its hand lacked: the actions replayed, the model asked
    before each opponent's move (it reads only the public position)."""
    found = []
    world = AmericanPageOneState(state.rules)
    for i, (kind, seat, value) in enumerate(events):
        if kind > EV_ACT:
            continue
        if kind == EV_ACT and seat in opp:
            lacked = model.lacked(world, value)
            if lacked:
                found.append((seat, (2 * i, lacked)))
        world.apply_action(value)
    return found


def played_at_once(events, i: int) -> bool:
    """Whether the draw at log index i (an EV_DRAW_ONE) was played right away: the
    next event is its player playing a card, which can then only be the one drawn."""
    if i + 1 >= len(events):
        return False
    kind, seat, value = events[i + 1]
    return kind == EV_ACT and seat == events[i][1] and value < NUM_KINDS


def public_memory(state: AmericanPageOneState, viewer: int) -> tuple[list[list[int]], list[list[int]], list[int]]:
    """What `viewer` knows of every seat from the play (viewer -1: what everyone
    knows): per seat, how many of each kind it has played, how many of each kind
    are known to be in its hand (laid down, shown to the viewer, given back), and
    the kind set it is known to lack now."""
    n = state.n
    played = [[0] * NUM_KINDS for _ in range(n)]
    known = [[0] * NUM_KINDS for _ in range(n)]
    lacks = [0] * n
    events = state.events()
    for i, (kind, seat, value) in enumerate(events):
        if kind == EV_ACT:
            if value < NUM_KINDS:
                played[seat][value] += 1
                if known[seat][value]:
                    known[seat][value] -= 1
        elif kind == EV_DEAL or kind == EV_DRAW or kind == EV_DRAW_ONE:
            if not (kind == EV_DRAW_ONE and played_at_once(events, i)):
                lacks[seat] = 0          # a card it keeps, unseen by the others, may be anything
        elif kind == EV_VOID or kind == EV_STUCK:
            lacks[seat] |= value
        elif kind == EV_SHOW or (kind == EV_SHOW_TO and viewer >= 0 and value[0] == viewer):
            shown = hand_kinds(*value) if kind == EV_SHOW else hand_kinds(value[1], value[2])
            known[seat] = [0] * NUM_KINDS
            for k in shown:
                known[seat][k] += 1
        elif kind == EV_RETURN:
            for k in value:
                known[seat][k] += 1
    return played, known, lacks


def replay(state: AmericanPageOneState, events, values: dict[int, int]) -> AmericanPageOneState:
    """The game's actions replayed from the start, with the chance outcomes at
    the log indices in `values` replaced."""
    world = AmericanPageOneState(state.rules)
    for i, (kind, _, value) in enumerate(events):
        if kind <= EV_ACT:
            world.apply_action(values.get(i, value))
    return world


def resample(state: AmericanPageOneState, player: int, probability_sampler: Callable[[], float],
             model: PlayModel | None = None) -> AmericanPageOneState:
    """A world drawn from those `player` cannot tell from `state`; with a `model`,
    from those in which the others' moves also show what the model says they
    show. Where the others did not play like the model, its deductions can
    contradict what was seen: that view then draws as without a model."""
    if state.to_deal and not any(k == EV_DEAL for k, _, _ in state.events()):
        return state.clone()          # nobody holds a card yet
    views = state.cache or {}
    key = player if model is None else (player, type(model))
    log, view = views.get(key, (None, None))
    if log is not state.log:
        earlier = view.chosen if view is not None and _is_earlier(log, state.log) else None
        try:
            view = BeliefView(state, player, model)
        except ValueError:
            view = BeliefView(state, player)
        view.earlier = earlier
        state.cache = {**views, key: (state.log, view)}    # a copy: clones share the cache
    try:
        return view.sample(state, probability_sampler)
    except RuntimeError:
        if model is None:
            raise
        view = BeliefView(state, player)
        state.cache = {**views, key: (state.log, view)}
        return view.sample(state, probability_sampler)


def _is_earlier(log, now, steps: int = 400) -> bool:
    """Whether the game log `log` is the log `now` had at most `steps` events ago."""
    for _ in range(steps):
        if now is None:
            return False
        now = now[0]
        if now is log:
            return True
    return False
