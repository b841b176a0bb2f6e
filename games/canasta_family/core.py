"""What every Canasta rules core of the family shares: the turn machine (its
phases, and which rule answers each), the deal and the replacement of the 3s
laid down, the stock, the hands and the pile as counts per card kind, the meld
table, a withdrawn initial meld, the end of the hand and its returns, the clone,
and the information read from the log.

A game of the family (games.modern_canasta, games.classic_canasta) subclasses
CanastaFamilyState with its rules at each phase (drawing or taking the pile, the
melds, discards and going out of a turn, its own GAME_PHASE, scoring) and says
in a few class attributes how it differs where the shared code meets it: which
kinds are laid down as they come (all 3s, or red 3s only), how many colours of
3s a side counts apart, the kind of each meld slot's naturals, the phase names
and the event texts. The playout's hottest paths (legal melds, discards, taking
the pile) stay in each game, written for its rules.

The state is the one explicit machine both games use: every deal card and draw
is a chance event whose outcome is a kind, weighted by its count in the stock,
and the event log is an immutable cons list shared between clones
(games.eventlog): each cell is (previous cell, kind, seat, value).
"""

from __future__ import annotations

from typing import Callable, ClassVar, Mapping, Protocol, Sequence

from games.canasta_family.cards import (DECK, DECK_SIZE, JOKER, KIND_NAMES, NUM_KINDS, NUM_SLOTS,
                                        RED_THREE, TWO, counts_str, pack)
from games.eventlog import LoggedCore
from games.protocol import CHANCE, TERMINAL, IllegalActionError

# The phases of the turn machine: dealing, replacing the 3s laid down from the
# deal, then turns (draw or take the pile; draw from the stock; meld and
# discard) until the hand is over. A side without its initial meld that takes
# the pile melds in PICKUP first; GAME_PHASE is one phase the game adds (the
# modern partner's answer, the classic card turned up to start the pile).
DEAL, REPLACE, TURN, DRAW_CARD, MELD, GAME_PHASE, PICKUP, OVER = range(8)

# The event kinds every game logs, numbered alike; each game numbers its own from 6.
EV_DEAL = 0      # seat was dealt a card of kind `value` (public when it is laid down)
EV_DRAW = 1      # seat drew a card of kind `value` (public when it is laid down)
EV_STOCK = 2     # seat chose to draw from the stock
EV_TAKE = 3      # seat took the pile (the value says how, in the game's encoding)
EV_MELD = 4      # seat melded: value = the meld action
EV_DISCARD = 5   # seat discarded (the value holds the kind, in the game's encoding)

END_OUT, END_LAST_THREE, END_STOCK = range(3)   # why a hand ended (EV_END's value)

SIDE_STRIDE = 3 * NUM_SLOTS     # melds[SIDE_STRIDE * side + 3 * slot + i]: one side's meld table


class RulesOfAHand(Protocol):
    """What the shared code reads of a game's validated parameters of one hand."""

    players: int
    first_player: int
    hand_size: int
    scores: tuple[int, ...]


class CanastaFamilyState(LoggedCore):
    """The shared part of a Canasta hand's state. Satisfies games.protocol.GameState
    together with the game's subclass, which declares every slot (for speed and
    pickling the slots live in one class): those __init__ sets, canastas, and n
    and sides (a class attribute where the game fixes them). Its clone is built
    from them (_straight_line_clone)."""

    __slots__ = ()
    checks_actions = True          # apply_action raises IllegalActionError (games.protocol)

    # How clone copies a slot: the lists a move changes in place are copied (the
    # per-seat tables row by row); every other slot is shared (numbers, flags,
    # tuples, the rules, the immutable log), and `shared` starts False.
    COPIED_LISTS: ClassVar[frozenset[str]] = frozenset(
        ("sizes", "stock", "pile", "melds", "canastas", "threes", "owed"))
    COPIED_ROWS: ClassVar[frozenset[str]] = frozenset(("hands", "known"))

    PHASE_NAMES: ClassVar[tuple[str, ...]]
    # LAID_DOWN[kind]: a card of the kind goes down for its side as it is dealt or
    # drawn, and its holder is dealt or draws another.
    LAID_DOWN: ClassVar[tuple[bool, ...]]
    # threes[THREE_COLOURS * side + colour] counts the 3s a side laid down, the
    # colour (0 red, 1 black) apart when the game scores them apart.
    THREE_COLOURS: ClassVar[int]
    # SLOT_KINDS[slot]: the kind of the naturals a meld slot holds (a slot that holds
    # no naturals, such as the modern wild-card meld, names any kind: it adds none).
    SLOT_KINDS: ClassVar[tuple[int, ...]]
    # TEXT_MASKS[event kind]: the bits of an event's value its text shows (the rest
    # is bookkeeping the information state does not repeat).
    TEXT_MASKS: ClassVar[tuple[int, ...]]
    EV_WITHDRAW: ClassVar[int]
    EV_END: ClassVar[int]
    # The text of an event, by (kind, seat, masked value, whether the viewer is the
    # seat): a few thousand keys at most, one dictionary a game.
    EVENT_TEXT: ClassVar[dict[tuple[int, int, int, bool], str]]

    def __init__(self, rules: RulesOfAHand):
        """The state before the deal: the whole deck in the stock. The game's
        __init__ sets n and sides first, and its own fields after."""
        n = self.n
        self.rules = rules
        self.phase = DEAL
        self.to_move = CHANCE
        self.actor = rules.first_player
        self.hands = [[0] * NUM_KINDS for _ in range(n)]
        self.sizes = [0] * n
        self.known = [[0] * NUM_KINDS for _ in range(n)]   # cards the others know it holds
        self.stock = list(DECK)
        self.stock_size = DECK_SIZE
        self.pile: list[int] = []
        self.melds = [0] * (self.sides * SIDE_STRIDE)
        self.threes = [0] * (self.THREE_COLOURS * self.sides)
        self.melded = 0          # bit side: the side has made its initial meld
        self.pending = False     # the player to move is building its side's initial meld
        self.short = False       # ... and it does not meet the requirement yet
        self.withdrawn = False   # an initial meld was withdrawn: no more melding this turn
        self.pickup_top = -1     # the pile's top card while an initial meld takes the pile
        self.owed = [0] * n      # 3s dealt and not yet replaced
        self.dealt = 0
        self.log = None
        self.result = None
        self.scores = None       # the game's score of each side once the hand is over
        self.cache = None        # the resampler's per-information-state tables
        self.shared = False      # set by the OpenSpiel wrapper's copy-on-write clone

    def __init_subclass__(cls, **kwargs: object) -> None:
        """Gives each game the clone built from its slots, unless it writes its own."""
        super().__init_subclass__(**kwargs)
        if "clone" not in cls.__dict__:
            cls.clone = _straight_line_clone(cls)

    @staticmethod
    def action_name(action: int) -> str:
        """The game's text for a player action (its actions.action_to_string)."""
        raise NotImplementedError

    @staticmethod
    def event_action(kind: int, value: int) -> int | None:
        """The action (or chance outcome) an event records; None for bookkeeping."""
        raise NotImplementedError

    @staticmethod
    def event_text(kind: int, seat: int, value: int, viewer: int) -> str:
        """The line an event adds to `viewer`'s information state ('' for none)."""
        raise NotImplementedError

    # ------------------------------------------------------------ turn machine
    def legal_actions(self, player: int | None = None) -> list[int]:
        p = self.to_move
        if p < 0 or (player is not None and player != p):
            return []
        phase = self.phase
        if phase == TURN:
            return self._draw_or_take_actions()
        if phase == GAME_PHASE:
            return self._game_phase_actions()
        return self._play_actions()         # MELD or PICKUP

    def apply_action(self, action: int) -> None:
        phase = self.phase
        if phase == MELD or phase == PICKUP:
            self._play(action)
        elif phase == DRAW_CARD or phase == REPLACE:
            self._draw(action)
        elif phase == TURN:
            self._draw_or_take(action)
        elif phase == DEAL:
            self._deal(action)
        elif phase == GAME_PHASE:
            self._game_phase(action)
        else:
            raise ValueError("the hand is over: no action can be applied")

    def action_to_string(self, player: int, action: int) -> str:
        if player == CHANCE:
            if self.phase == DEAL:
                return f"p{(self.rules.first_player + self.dealt) % self.n} dealt {KIND_NAMES[action]}"
            return f"p{self.actor} draws {KIND_NAMES[action]}"
        return self.action_name(action)

    # The game's rules at each phase: what the player to move may do, and doing it.
    def _draw_or_take_actions(self) -> list[int]:
        """TURN: draw from the stock, or the ways to take the pile open now."""
        raise NotImplementedError

    def _draw_or_take(self, action: int) -> None:
        raise NotImplementedError

    def _draw(self, kind: int) -> None:
        """A card of `kind` drawn from the stock (DRAW_CARD, or REPLACE for a 3 dealt)."""
        raise NotImplementedError

    def _play_actions(self) -> list[int]:
        """MELD and PICKUP: melds, discards, and the game's other moves of the turn."""
        raise NotImplementedError

    def _play(self, action: int) -> None:
        raise NotImplementedError

    def _game_phase_actions(self) -> list[int]:
        """GAME_PHASE, where it is a player's to move (the game's)."""
        raise NotImplementedError

    def _game_phase(self, action: int) -> None:
        raise NotImplementedError

    # ----------------------------------------------------------------- chance
    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.to_move != CHANCE:
            return []
        total = self.stock_size
        return [(k, c / total) for k, c in enumerate(self.stock) if c]

    def sample_chance_outcome(self, u: float) -> int:
        """The chance outcome at cumulative probability u (a kind, weighted by its count)."""
        x = int(u * self.stock_size)
        kind = 0
        for c in self.stock:
            if x < c:
                return kind
            x -= c
            kind += 1
        raise ValueError(f"u={u} is not in [0, 1)")

    def _illegal(self, action: int) -> None:
        try:
            name = self.action_name(action)
        except ValueError:
            name = str(action)
        legal = [self.action_name(a) for a in self.legal_actions()] if self.to_move >= 0 else []
        raise IllegalActionError(f"illegal action {name!r} for p{self.actor} in phase "
                                 f"{self.PHASE_NAMES[self.phase]}; legal: {legal}")

    # ------------------------------------------------------------- transitions
    def _take_from_stock(self, kind: int) -> None:
        if not 0 <= kind < NUM_KINDS or not self.stock[kind]:
            raise ValueError(f"chance outcome {kind} is not a kind left in the stock")
        self.stock[kind] -= 1
        self.stock_size -= 1

    def _deal(self, kind: int) -> None:
        seat = (self.rules.first_player + self.dealt) % self.n
        self._take_from_stock(kind)
        self.log = (self.log, EV_DEAL, seat, kind)
        self.dealt += 1
        if self.LAID_DOWN[kind]:
            self._lay_down(seat, kind, 1)
            self.owed[seat] += 1
        else:
            self.hands[seat][kind] += 1
            self.sizes[seat] += 1
        if self.dealt == self.n * self.rules.hand_size:
            self.phase = REPLACE
            self.actor = self.rules.first_player
            self._next_replacement()

    def _lay_down(self, seat: int, kind: int, count: int) -> None:
        """Puts `count` 3s of `kind` down for the seat's side."""
        self.threes[self.THREE_COLOURS * (seat % self.sides) + kind - RED_THREE] += count

    def _next_replacement(self) -> None:
        """Moves to the next seat (in turn order) still owed cards for the 3s it laid
        down from the deal, or on to play (_replacements_done) when none is."""
        first = self.rules.first_player
        n = self.n
        for i in range((self.actor - first) % n, n):
            seat = (first + i) % n
            if self.owed[seat]:
                self.actor = seat
                return
        self._replacements_done()

    def _replacements_done(self) -> None:
        """What follows the deal once every 3 from it is replaced (the game's)."""
        raise NotImplementedError

    def _pile_to_hand(self, seat: int) -> int:
        """The pile into the seat's hand, known to all (a 3 in it goes down for its
        side instead); returns the pile's packed counts (a log value)."""
        counts = [0] * NUM_KINDS
        for kind in self.pile:
            counts[kind] += 1
        hand, known = self.hands[seat], self.known[seat]
        reds = counts[RED_THREE]
        if reds:
            self._lay_down(seat, RED_THREE, reds)
        for kind in range(NUM_KINDS):
            if kind != RED_THREE:
                hand[kind] += counts[kind]
                known[kind] += counts[kind]
        self.sizes[seat] += len(self.pile) - reds
        self.pile = []
        return pack(counts)

    def _remove(self, seat: int, kind: int, count: int) -> None:
        hand = self.hands[seat]
        hand[kind] -= count
        self.sizes[seat] -= count
        known = self.known[seat]
        if known[kind]:
            known[kind] = max(0, known[kind] - count)

    def _clear_open_melds(self, side: int) -> list[int]:
        """Empties the side's meld table; returns the cards it held, counts per kind."""
        melds = self.melds
        kinds = self.SLOT_KINDS
        back = [0] * NUM_KINDS
        base = SIDE_STRIDE * side
        for slot in range(NUM_SLOTS):
            b = base + 3 * slot
            back[kinds[slot]] += melds[b]
            back[TWO] += melds[b + 1]
            back[JOKER] += melds[b + 2]
            melds[b] = melds[b + 1] = melds[b + 2] = 0
        return back

    def _return_initial_meld(self, back: list[int]) -> bool:
        """Puts a withdrawn initial meld's cards (`back`, counts per kind, the side's
        table already cleared) back in the hand of the player to move, shown to all,
        and logs the withdrawal. A meld that took the pile gives the pile's top card
        back to the pile; returns whether it did (the turn then goes on with a draw)."""
        actor = self.actor
        top = self.pickup_top
        if top >= 0:
            back[top] -= 1
        hand, known = self.hands[actor], self.known[actor]
        for kind in range(NUM_KINDS):
            hand[kind] += back[kind]
            known[kind] += back[kind]
        self.sizes[actor] += sum(back)
        self.pending = False
        self.short = False
        self.withdrawn = True
        self.log = (self.log, self.EV_WITHDRAW, actor, pack(back))
        if top < 0:
            return False
        self.pile.append(top)
        self.pickup_top = -1
        return True

    def _finish(self, reason: int) -> None:
        """Ends the hand: logs why, scores each side (the game's _score_sides), and
        gives each seat its side's points less the mean of the other sides', in
        thousands (with two sides, the difference: a zero-sum return)."""
        self.log = (self.log, self.EV_END, -1, reason)
        scores = self._score_sides(reason)
        self.scores = scores
        totals = [s.total for s in scores]
        total = sum(totals)
        sides = self.sides
        per_side = [(t - (total - t) / (sides - 1)) / 1000.0 for t in totals]
        self.result = [per_side[seat % sides] for seat in range(self.n)]
        self.phase = OVER
        self.to_move = TERMINAL

    def _score_sides(self, reason: int) -> tuple:
        """Each side's itemized score for the hand that ends for `reason` (the game's)."""
        raise NotImplementedError

    # ------------------------------------------------------------ information
    def history(self) -> list[int]:
        """Every action applied so far (chance outcomes included), as pyspiel records them."""
        event_action = self.event_action
        return [a for a in (event_action(k, v) for k, _, v in self.events()) if a is not None]

    def open_melds(self, side: int) -> list[tuple[int, int, int]]:
        """(naturals, twos, jokers) of the side's meld of each slot."""
        b = SIDE_STRIDE * side
        return [tuple(self.melds[b + 3 * s: b + 3 * s + 3]) for s in range(NUM_SLOTS)]

    def table_melds(self, side: int) -> list[tuple[int, int, int, int]]:
        """(slot, naturals, twos, jokers) of every meld the side has on the table."""
        return [(slot, *meld) for slot, meld in enumerate(self.open_melds(side))]

    def table_counts(self) -> list[int]:
        """The cards of each kind on the table: melded by any side, or 3s laid down."""
        total = [0] * NUM_KINDS
        kinds = self.SLOT_KINDS
        for side in range(self.sides):
            for slot, n, t, j in self.table_melds(side):
                total[kinds[slot]] += n
                total[TWO] += t
                total[JOKER] += j
        colours = self.THREE_COLOURS
        for i, count in enumerate(self.threes):
            total[RED_THREE + i % colours] += count
        return total

    def unseen_counts(self, player: int) -> list[int]:
        """The cards `player` cannot see, counts per kind: those in the other hands
        beyond the cards known to be there, and the stock's. The belief deals them
        out; a bot weighs what the next player may hold with them."""
        unseen = list(DECK)
        for k, held in enumerate(self.hands[player]):
            unseen[k] -= held
        for seat in range(self.n):
            if seat != player:
                for k, held in enumerate(self.known[seat]):
                    unseen[k] -= held
        for kind in self.pile:
            unseen[kind] -= 1
        for k, placed in enumerate(self.table_counts()):
            unseen[k] -= placed
        return unseen

    def card_counts(self) -> list[int]:
        """The cards of each kind the position holds wherever they lie (hands,
        stock, pile, the table): cards.DECK unless a card was lost or doubled. The
        soaks and the tests check it at every step."""
        total = self.table_counts()
        for k in range(NUM_KINDS):
            total[k] += self.stock[k]
        for hand in self.hands:
            for k in range(NUM_KINDS):
                total[k] += hand[k]
        for k in self.pile:
            total[k] += 1
        return total

    def private_view(self, player: int) -> tuple:
        """What `player` knows beyond the player actions and the number of chance
        events since an earlier state: its hand, and the 3s laid down (one drawn is
        shown, the other draws are not). The search keys nodes with it
        (games.protocol, search.keys)."""
        return tuple(self.hands[player]), tuple(self.threes)

    def information_state_string(self, player: int, private: bool = True) -> str:
        """Everything `player` has seen, in order (perfect recall); with private
        False, only what every player has seen."""
        self._check_seat(player)
        viewer = player if private else -1
        texts = []
        cell = self.log
        known = self.EVENT_TEXT
        masks = self.TEXT_MASKS
        event_text = self.event_text
        while cell is not None:
            cell, kind, seat, value = cell
            key = (kind, seat, value & masks[kind], seat == viewer)
            text = known.get(key)
            if text is None:
                text = known[key] = event_text(kind, seat, key[2], viewer)
            if text:
                texts.append(text)
        texts.append(self._scores_line())
        if private:
            texts.append(f"p{player} hand: {counts_str(self.hands[player])}")
        texts.reverse()
        return "\n".join(texts)

    def _scores_line(self) -> str:
        return "scores before the hand: " + " / ".join(str(s) for s in self.rules.scores)

    def observation_string(self, player: int, private: bool = True) -> str:
        """What `player` sees now: its hand (with private), the table, the pile,
        counts and flags."""
        self._check_seat(player)
        lines = self._private_lines(player) if private else []
        return "\n".join(lines + self._public_lines())

    def _private_lines(self, player: int) -> list[str]:
        return [f"p{player} hand: {counts_str(self.hands[player])}"]

    def _public_lines(self) -> list[str]:
        lines = [f"phase: {self.PHASE_NAMES[self.phase]}  p{self.actor}'s turn",
                 "scores before the hand: " + " / ".join(str(s) for s in self.rules.scores),
                 "hand sizes: " + " ".join(f"p{s}={self.sizes[s]}" for s in range(self.n)),
                 f"stock: {self.stock_size}",
                 "pile: " + (" ".join(KIND_NAMES[k] for k in self.pile) or "-") + self._pile_note()]
        lines += self._side_lines()
        known = [f"p{s}: {counts_str(self.known[s])}" for s in range(self.n) if any(self.known[s])]
        if known:
            lines.append("known in hands: " + "; ".join(known))
        lines += self._turn_lines()
        if self.result is not None:
            lines.append("result: " + " ".join(f"{r:+.3f}" for r in self.result))
        return lines

    def _pile_note(self) -> str:
        """What the pile line adds after the cards (the game's)."""
        return ""

    def _side_lines(self) -> list[str]:
        """One line a side: its melds, canastas and 3s (the game's)."""
        raise NotImplementedError

    def _turn_lines(self) -> list[str]:
        """The turn's public flags (the game's)."""
        raise NotImplementedError

    def hidden_cards(self, player: int) -> list[list[int]]:
        """Where the cards `player` cannot see lie: per card kind, how many in each
        other seat's hand (the seats after it in turn order; cards every seat knows
        a hand holds are seen) and in the stock, one row a place (games.protocol)."""
        n = self.n
        rows = []
        for k in range(1, n):
            seat = (player + k) % n
            rows.append([h - s for h, s in zip(self.hands[seat], self.known[seat])])
        rows.append(list(self.stock))
        return rows

    def _check_seat(self, player: int) -> None:
        if not isinstance(player, int) or not 0 <= player < self.n:
            raise ValueError(f"player {player!r}: a view is for a seat 0..{self.n - 1}")

    def __str__(self) -> str:
        lines = [f"p{s}: {counts_str(self.hands[s])}" for s in range(self.n)]
        lines.append("stock: " + counts_str(self.stock))
        return "\n".join(lines + self._public_lines())


def _straight_line_clone(cls: type[CanastaFamilyState]) -> Callable[[CanastaFamilyState], CanastaFamilyState]:
    """The game's clone, written out slot by slot as dataclasses write __init__.

    A clone is a search's hottest path: a loop over the slots costs several times
    more, and a shared clone that the game's extends costs a call and the rows'
    copy in a loop. Built from the game's __slots__ and the COPIED_* sets, it is as
    fast as the clone each game wrote by hand, and stays in step with its slots.
    Where the game fixes the players (a class attribute n), the rows are unrolled."""
    fixed_players = cls.__dict__.get("n")
    lines = ["def clone(self):", "    c = _new(_cls)"]
    for name in cls.__slots__:
        if name == "shared":
            value = "False"
        elif name in cls.COPIED_ROWS:
            value = (f"[{', '.join(f'self.{name}[{i}][:]' for i in range(fixed_players))}]"
                     if isinstance(fixed_players, int) else f"[row[:] for row in self.{name}]")
        elif name in cls.COPIED_LISTS:
            value = f"self.{name}[:]"
        else:
            value = f"self.{name}"
        lines.append(f"    c.{name} = {value}")
    lines.append("    return c")
    namespace: dict[str, object] = {"_new": cls.__new__, "_cls": cls}
    exec("\n".join(lines), namespace)
    clone = namespace["clone"]
    clone.__qualname__ = f"{cls.__qualname__}.clone"
    clone.__doc__ = "A copy that shares nothing a move changes (the log is immutable)."
    return clone


def deal(state: CanastaFamilyState, hands: Sequence[Sequence[int]], upcards: Sequence[int] = ()) -> None:
    """Applies the deal as chance outcomes: hands[s] lists the kinds seat s gets, in
    the order dealt (3s included: those laid down are replaced afterwards), then
    `upcards` as the next chance outcomes (the replacements of the 3s laid down and,
    in a game that turns up the pile's first card, that card)."""
    n, size = state.n, state.rules.hand_size
    if len(hands) != n or any(len(h) != size for h in hands):
        raise ValueError(f"need {n} hands of {size} cards")
    first = state.rules.first_player
    for i in range(size):
        for k in range(n):
            state.apply_action(hands[(first + k) % n][i])
    for kind in upcards:
        state.apply_action(kind)


def place_cards(state: CanastaFamilyState, hands: Sequence[Sequence[int]], pile: Sequence[int],
                melds: Mapping[tuple[int, int], tuple[int, int, int]] | None,
                threes: Sequence[int], stock: Sequence[int] | None, melded: int | None,
                actor: int, phase: int) -> None:
    """Sets up a position's cards directly, for puzzles and rule tests (each game's
    set_up, which places what only it has first): hands[s] are seat s's counts per
    kind; melds[(side, slot)] = (naturals, twos, jokers); threes as the state counts
    them; the stock holds every other card unless given, and the whole must be the
    deck. `melded` defaults to the sides with any meld on the table. `actor` is to
    move in `phase`, the deal done; the log starts empty."""
    for seat, hand in enumerate(hands):
        state.hands[seat] = list(hand)
        state.sizes[seat] = sum(hand)
    state.pile = list(pile)
    for (side, slot), meld in (melds or {}).items():
        b = SIDE_STRIDE * side + 3 * slot
        state.melds[b:b + 3] = list(meld)
    state.threes = list(threes)
    used = state.table_counts()
    for hand in hands:
        for k in range(NUM_KINDS):
            used[k] += hand[k]
    for kind in pile:
        used[kind] += 1
    if stock is None:
        stock = [DECK[k] - used[k] for k in range(NUM_KINDS)]
    state.stock = list(stock)
    state.stock_size = sum(stock)
    if any(used[k] + state.stock[k] != DECK[k] for k in range(NUM_KINDS)):
        raise ValueError(f"the position does not hold the 108-card deck: placed {used}, stock {list(stock)}")
    if melded is None:
        melded = sum(1 << side for side in range(state.sides)
                     if any(n or t or j for _, n, t, j in state.table_melds(side)))
    state.melded = melded
    state.dealt = state.n * state.rules.hand_size
    state.actor = actor
    state.phase = phase
    state.to_move = actor


__all__ = ["CanastaFamilyState", "DEAL", "REPLACE", "TURN", "DRAW_CARD", "MELD", "GAME_PHASE", "PICKUP", "OVER", "END_OUT", "END_LAST_THREE", "END_STOCK",
           "SIDE_STRIDE", "deal", "place_cards"]
