"""Classic Canasta as an OpenSpiel game:
`pyspiel.load_game("python_classic_canasta(players=2)")`.

A thin wrapper: the pyspiel state holds one attribute, `core` (a ClassicState),
because OpenSpiel clones a Python state by deep-copying every attribute. A seat's
return is its side's points less the mean of the other sides' points, in
thousands of points: [x, -x, x, -x] with four players, [x, -x] with two
(docs/rules/classic_canasta.md).
"""

from __future__ import annotations

import pyspiel

from games import registry
from games.classic_canasta.actions import NUM_ACTIONS
from games.classic_canasta.core import (DEFAULT_PARAMS, EV_DISCARD, EV_TAKE, HAND_SIZES, MELD,
                                        NUM_MELD_SLOTS, PICKUP, TURN, ClassicRules, ClassicState)
from games.classic_canasta.match import DEAL_PARAMETERS, TARGETS, ClassicCanastaMatch, match_format
from games.classic_canasta.scoring import MAX_SWING
from games.canasta_family.cards import NUM_KINDS
from games.canasta_family.game import FamilyObserver, game_info, game_type
from games.classic_canasta.view import SHAPE as VIEW_SHAPE, classic_canasta_view
from games.wrapper import CoreState, share_core_on_deepcopy, tensor_views


def max_decisions(players: int) -> int:
    """A bound on a hand's decisions: at most one turn per card left in the stock
    draws, at most 36 take the pile (each puts three cards on the table for good),
    and a turn holds a draw or take, a withdrawal, a commit, a discard and one meld
    per card held (at most 108)."""
    return (108 - players * HAND_SIZES[players] + 36) * (4 + 108)


_GAME_TYPE = game_type("python_classic_canasta",
                       "Classic Canasta (2 or 3 players each for themselves, 4 in two partnerships)",
                       2, 4, DEFAULT_PARAMS)


class ClassicCanastaGame(pyspiel.Game):
    """One hand; zero-sum returns in thousands of points (see the module docstring)."""


    def __init__(self, params=None):
        params = dict(params or {})
        self.rules = ClassicRules.from_params(params)
        players = self.rules.players
        super().__init__(_GAME_TYPE, game_info(NUM_ACTIONS, players, MAX_SWING, max_decisions(players)), params)

    def new_initial_state(self) -> "ClassicCanastaGameState":
        return ClassicCanastaGameState(self)

    def new_core(self) -> ClassicState:
        return ClassicState(self.rules)

    def make_py_observer(self, iig_obs_type=None, params=None) -> "ClassicObserver":
        return ClassicObserver(
            iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params, self.rules)


class ClassicCanastaGameState(CoreState):
    """pyspiel.State over a ClassicState (games.wrapper)."""


share_core_on_deepcopy(ClassicState)


class ClassicObserver(FamilyObserver):
    """Observation and information-state tensors and strings.

    Seats and sides are relative to the observer (index 0 is the observer); counts
    and sizes are scaled as the family's (games.canasta_family.game). The
    observation holds everything public now (the whole pile, every meld, the known
    cards in each hand) and the observer's hand; the information-state tensor adds
    what each seat has discarded and how often it took the pile; the string keeps
    the whole history.
    """

    GAME_NAME = "classic Canasta"

    # The index map of the information-state tensor (games/tensor_layout.py, docs/protocol/tensors.md):
    # each view's indexing words and what it holds (the table's first pieces are the family's).
    TENSOR_AXES = {**FamilyObserver.TABLE_AXES,
                   "slot": "meld slot: 0-10 the natural ranks 4..A, 11 black 3s",
                   "count": "0: natural cards / 8, 1: 2s / 8, 2: Jokers / 4",
                   "threshold": "the side's score: 0 below 0, 1 from 0, 2 from 1500, 3 from 3000",
                   "phase": "0: turn, 1: meld, 2: pickup",
                   "flag": "0: pending, 1: short, 2: withdrawn, 3: took (the rules core's names)"}
    TENSOR_SEGMENTS = {
        **FamilyObserver.TABLE_SEGMENTS,
        "frozen": ("one", "1 while the pile is frozen (a wild card or red 3 in it)"),
        "melds": ("side x slot x count", "each side's open melds"),
        "canastas": ("side", "each side's canastas / 11"),
        "red_threes": ("side", "each side's red 3s laid down / 4"),
        "initial_meld_done": ("side", "1 for each side that has melded"),
        "threshold": ("side x threshold", "each side's initial-meld bracket, one-hot"),
        "scores": ("side", "each side's score before this hand / 10000"),
        "to_move": ("seat", "the seat to move, one-hot"),
        "turn_of": ("seat", "the seat whose turn it is, one-hot (in turn, meld or pickup phase)"),
        "phase": ("phase", "the turn's phase, one-hot"),
        "turn_flags": ("flag", "the turn's flags"),
        "initial_meld_points": ("one", "points of the initial meld being built / 1000"),
        "discarded": ("seat x kind", "cards of each kind each seat has discarded this hand / 8"),
        "pile_takes": ("seat", "times each seat took the pile x 0.1"),
    }

    def __init__(self, iig_obs_type, params, rules: ClassicRules):
        super().__init__(iig_obs_type, params)
        n, sides = rules.players, rules.sides
        self.n, self.sides = n, sides
        pieces = self.table_pieces(n) + [
                  ("frozen", 1, (1,)),
                  ("melds", sides * NUM_MELD_SLOTS * 3, (sides, NUM_MELD_SLOTS, 3)),
                  ("canastas", sides, (sides,)),
                  ("red_threes", sides, (sides,)),
                  ("initial_meld_done", sides, (sides,)),
                  ("threshold", sides * 4, (sides, 4)),
                  ("scores", sides, (sides,)),
                  ("to_move", n, (n,)),
                  ("turn_of", n, (n,)),
                  ("phase", 3, (3,)),
                  ("turn_flags", 4, (4,)),
                  ("initial_meld_points", 1, (1,))]
        if self.perfect_recall:
            pieces += [("discarded", n * NUM_KINDS, (n, NUM_KINDS)),
                       ("pile_takes", n, (n,))]
        self.tensor, self.dict = tensor_views(pieces)

    def set_from(self, state, player: int) -> None:
        core: ClassicState = getattr(state, "core", state)
        d = self.dict
        n, sides = self.n, self.sides
        self.tensor.fill(0.0)
        self.set_table(core, player)
        d["frozen"][0] = float(core.frozen)
        me = player % sides
        for side in range(sides):
            rel = (side - me) % sides
            for slot, (a, t, j) in enumerate(core.open_melds(side)):
                d["melds"][rel, slot] = (a / 8.0, t / 8.0, j / 4.0)
            d["canastas"][rel] = core.canastas[side] / 11.0
            d["red_threes"][rel] = core.threes[side] / 4.0
            d["initial_meld_done"][rel] = float(core.melded >> side & 1)
            score = core.rules.scores[side]
            d["threshold"][rel, (score >= 0) + (score >= 1500) + (score >= 3000)] = 1.0
            d["scores"][rel] = score / 10000.0
        if core.to_move >= 0:
            d["to_move"][(core.to_move - player) % n] = 1.0
        if core.phase in (TURN, MELD, PICKUP):
            d["turn_of"][(core.actor - player) % n] = 1.0
            d["phase"][(TURN, MELD, PICKUP).index(core.phase)] = 1.0
        d["turn_flags"][:] = (float(core.pending), float(core.short), float(core.withdrawn),
                              float(core.took))
        d["initial_meld_points"][0] = core.turn_points / 1000.0
        if self.perfect_recall:
            cell = core.log
            while cell is not None:
                cell, kind, seat, value = cell
                if kind == EV_DISCARD:
                    d["discarded"][(seat - player) % n, value] += 1.0 / 8.0
                elif kind == EV_TAKE:
                    d["pile_takes"][(seat - player) % n] += 0.1


pyspiel.register_game(_GAME_TYPE, ClassicCanastaGame)
# The table's levels. No search has beaten the rule bot here yet (experiments/runs/
# i43-screen-cc4-*: the flat PIMCs lost 30-deal screens to it), so the rule bot is the strongest.
PRESETS = {"classic-canasta-beginner": "random", "classic-canasta-club": "rules"}
LEVELS = (
    registry.Level("beginner", "classic-canasta-beginner", ("i47-level-classic-canasta-random-rules",)),
    registry.Level("club", "classic-canasta-club", ("i47-level-classic-canasta-rules-random",)),
)

registry.register(registry.GameEntry(
    name="python_classic_canasta", title="Classic Canasta", example="python_classic_canasta",
    params=(
        registry.Param("players", "int", min=2, max=4, default=4,
                       help="2-4: four play as two partnerships, two or three each for themselves"),
        registry.Param("score0", "int", min=-1000000, max=1000000, default=0,
                       help="±1,000,000: points of side 0 before this hand (the match's running score)"),
        registry.Param("score1", "int", min=-1000000, max=1000000, default=0,
                       help="±1,000,000: points of side 1"),
        registry.Param("score2", "int", min=-1000000, max=1000000, default=0,
                       help="±1,000,000: points of side 2 (three players only; anything else refuses it)"),
        registry.Param("first_player", "int", min=0, bound="[0, players - 1]", default=0,
                       help="0..players-1: the seat on the dealer's left, who is dealt to first and plays first"),
        registry.Param("last_red_three", "choice", choices=("meld", "end"), default="meld",
                       help=("`meld`, `end`: a red 3 drawn as the stock's last card: its player may meld but not "
                             "discard, then the hand ends (`meld`, the standard rule); or the hand ends at once (`end`)")),
    ),
    rules=ClassicRules.from_params, view=classic_canasta_view, view_shape=VIEW_SHAPE, players=(2, 4),
    match=registry.MatchOffer("target", TARGETS, 5000, defaults={3: 7500}, sets=DEAL_PARAMETERS,
                              table=lambda players, params, target, seed: ClassicCanastaMatch(players, target),
                              points=True, harness=match_format),
    # four players as two partnerships (0 and 2 against 1 and 3), two or three each alone
    sides=lambda players: [seat & 1 for seat in range(players)] if players == 4 else list(range(players)),
    rule_bot="agents.rules.classic_canasta:ClassicCanastaRulesBot",
    presets=PRESETS, levels=LEVELS,
    points_per_unit=1000.0,    # returns are in thousands of points
    noticeable_loss=0.05,      # 50 points: the least a move must lose for the review to call it a mistake
))

__all__ = ["ClassicCanastaGame", "ClassicCanastaGameState", "ClassicObserver", "max_decisions"]
