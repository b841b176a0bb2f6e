"""Modern American Canasta as an OpenSpiel game:
`pyspiel.load_game("python_modern_canasta(score0=3200,score1=150,first_player=1)")`.

A thin wrapper: the pyspiel state holds one attribute, `core` (a CanastaState),
because OpenSpiel clones a Python state by deep-copying every attribute.
Returns are [x, -x, x, -x]: x is the hand's points of seats 0 and 2 minus those of
seats 1 and 3, in thousands of points (docs/rules/modern_canasta.md).
"""

from __future__ import annotations

import pyspiel

from games import registry
from games.modern_canasta.actions import NUM_ACTIONS
from games.canasta_family.cards import NUM_KINDS, NUM_NATURAL, NUM_SLOTS, WILD_SLOT
from games.modern_canasta.core import (ANSWER, DEFAULT_PARAMS, EV_ANSWER, EV_DISCARD, EV_TAKE,
                                       HAND_SIZE, MELD, PICKUP, PLAYERS, TURN, CanastaRules,
                                       CanastaState)
from games.modern_canasta.match import DEAL_PARAMETERS, TARGETS, ModernCanastaMatch, match_format
from games.modern_canasta.scoring import MAX_SWING
from games.canasta_family.game import FamilyObserver, game_info, game_type
from games.modern_canasta.view import SHAPE as VIEW_SHAPE, modern_canasta_view
from games.wrapper import CoreState, share_core_on_deepcopy, tensor_views

# A hand's decisions are bounded: at most 56 turns draw from the stock and at most
# 34 take the pile (each puts three cards on the table for good), and a turn holds
# at most a draw or take, an ask and its answer, a withdrawal, a commit, a discard
# and one meld per card held (at most 108).
MAX_DECISIONS = (108 - PLAYERS * HAND_SIZE + 34) * (6 + 108)

_GAME_TYPE = game_type("python_modern_canasta", "Modern American Canasta (four players, two partnerships)",
                       PLAYERS, PLAYERS, DEFAULT_PARAMS)


class ModernCanastaGame(pyspiel.Game):
    """One hand; zero-sum returns in thousands of points (see the module docstring)."""



    def __init__(self, params=None):
        params = dict(params or {})
        self.rules = CanastaRules.from_params(params)
        super().__init__(_GAME_TYPE, game_info(NUM_ACTIONS, PLAYERS, MAX_SWING, MAX_DECISIONS), params)

    def new_initial_state(self) -> "ModernCanastaGameState":
        return ModernCanastaGameState(self)

    def new_core(self) -> CanastaState:
        return CanastaState(self.rules)

    def make_py_observer(self, iig_obs_type=None, params=None) -> "CanastaObserver":
        return CanastaObserver(
            iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)


class ModernCanastaGameState(CoreState):
    """pyspiel.State over a CanastaState (games.wrapper)."""


share_core_on_deepcopy(CanastaState)


class CanastaObserver(FamilyObserver):
    """Observation and information-state tensors and strings.

    Seats are relative to the observer (index 0 is the observer, 2 its partner);
    sides too (0 is the observer's side); counts and sizes are scaled as the
    family's (games.canasta_family.game). The observation holds everything public
    now (the whole pile, every meld, the known cards in each hand) and the
    observer's hand; the information-state tensor adds what each seat has
    discarded and taken, and the asking history; the information-state string
    keeps the whole history.
    """

    GAME_NAME = "Modern American Canasta"

    # The index map of the information-state tensor (games/tensor_layout.py, docs/protocol/tensors.md):
    # each view's indexing words and what it holds (the table's first pieces are the family's).
    TENSOR_AXES = {**FamilyObserver.TABLE_AXES,
                   "slot": "meld slot: 0-10 the natural ranks 4..A, 11 the wild-card meld",
                   "count": "0: natural cards, 1: 2s, 2: Jokers",
                   "canasta": "0: mixed (with wild cards), 1: natural",
                   "wild canasta": "0: seven 2s, 1: four Jokers and three 2s, 2: other wild-card canastas",
                   "threshold": "the side's score: 0 below 3000, 1 from 3000, 2 from 5000",
                   "threes": "0: red 3s laid down, 1: black 3s (each / 4)",
                   "phase": "0: turn, 1: meld, 2: answer, 3: pickup",
                   "flag": "0: fresh (just drew: may ask), 1: forbid_out (partner said no), 2: withdrawn, 3: pending",
                   "answer": "0: the partner said yes, 1: no"}
    TENSOR_SEGMENTS = {
        **FamilyObserver.TABLE_SEGMENTS,
        "must_go_out": ("one", "1 when the partner said yes and the observer, to move, must go out"),
        "melds": ("side x slot x count", "each side's open melds: naturals / 8, 2s / 8, Jokers / 4"),
        "canastas": ("side x slot x canasta", "each side's closed canastas by rank and kind"),
        "wild_canastas": ("side x wild canasta", "each side's wild-card canastas by kind"),
        "closed": ("kind", "1 for each natural rank (kinds 0-10) whose canasta exists"),
        "threes": ("side x threes", "each side's 3s laid down / 4"),
        "initial_meld_done": ("side", "1 for each side that has made its initial meld"),
        "threshold": ("side x threshold", "each side's initial-meld bracket, one-hot"),
        "scores": ("side", "each side's score before this hand / 10000"),
        "to_move": ("seat", "the seat to move, one-hot"),
        "turn_of": ("seat", "the seat whose turn it is, one-hot (in turn, meld, answer or pickup phase)"),
        "phase": ("phase", "the turn's phase, one-hot"),
        "turn_flags": ("flag", "the turn's flags (the rules core's names)"),
        "asked": ("seat", "1 for each seat that has asked its partner this hand"),
        "discarded": ("seat x kind", "cards of each kind each seat has discarded this hand / 8"),
        "pile_takes": ("seat", "times each seat took the pile x 0.1"),
        "answers": ("seat x answer", "the answers each asking seat got from its partner"),
    }

    def __init__(self, iig_obs_type, params=None):
        super().__init__(iig_obs_type, params)
        table = self.table_pieces(PLAYERS)
        pieces = table[:1] + [("must_go_out", 1 if self.private else 0, (1,))] + table[1:] + [
                  ("melds", 2 * NUM_SLOTS * 3, (2, NUM_SLOTS, 3)),
                  ("canastas", 2 * NUM_SLOTS * 2, (2, NUM_SLOTS, 2)),
                  ("wild_canastas", 2 * 3, (2, 3)),
                  ("closed", NUM_NATURAL, (NUM_NATURAL,)),
                  ("threes", 4, (2, 2)),
                  ("initial_meld_done", 2, (2,)),
                  ("threshold", 2 * 3, (2, 3)),
                  ("scores", 2, (2,)),
                  ("to_move", PLAYERS, (PLAYERS,)),
                  ("turn_of", PLAYERS, (PLAYERS,)),
                  ("phase", 4, (4,)),
                  ("turn_flags", 4, (4,)),
                  ("asked", PLAYERS, (PLAYERS,))]
        if self.perfect_recall:
            pieces += [("discarded", PLAYERS * NUM_KINDS, (PLAYERS, NUM_KINDS)),
                       ("pile_takes", PLAYERS, (PLAYERS,)),
                       ("answers", PLAYERS * 2, (PLAYERS, 2))]
        self.tensor, self.dict = tensor_views(pieces)

    def set_from(self, state, player: int) -> None:
        core: CanastaState = getattr(state, "core", state)
        d = self.dict
        self.tensor.fill(0.0)
        self.set_table(core, player)
        if self.private:
            d["must_go_out"][0] = float(core.must_out and core.actor == player)
        for seat in range(PLAYERS):
            d["asked"][(seat - player) % PLAYERS] = float(core.asked >> seat & 1)
        for side in (0, 1):
            rel = (side - player) % 2
            for slot, (n, t, j) in enumerate(core.open_melds(side)):
                d["melds"][rel, slot] = (n / 8.0, t / 8.0, j / 4.0)
            for slot, n, t, j in core.canastas[side]:
                if slot == WILD_SLOT:
                    d["wild_canastas"][rel, 0 if t == 7 else (1 if j == 4 and t == 3 else 2)] += 1.0
                else:
                    d["canastas"][rel, slot, 0 if (t or j) else 1] += 1.0
            d["threes"][rel] = (core.threes[2 * side] / 4.0, core.threes[2 * side + 1] / 4.0)
            d["initial_meld_done"][rel] = float(core.melded >> side & 1)
            score = core.rules.score0 if side == 0 else core.rules.score1
            d["threshold"][rel, (score >= 3000) + (score >= 5000)] = 1.0
            d["scores"][rel] = score / 10000.0
        for slot in range(NUM_NATURAL):
            d["closed"][slot] = float(core.closed >> slot & 1)
        if core.to_move >= 0:
            d["to_move"][(core.to_move - player) % PLAYERS] = 1.0
        if core.phase in (TURN, MELD, ANSWER, PICKUP):
            d["turn_of"][(core.actor - player) % PLAYERS] = 1.0
            d["phase"][(TURN, MELD, ANSWER, PICKUP).index(core.phase)] = 1.0
        d["turn_flags"][:] = (float(core.fresh), float(core.forbid_out), float(core.withdrawn),
                              float(core.pending))
        if self.perfect_recall:
            self._set_memory(core, player)

    def _set_memory(self, core: CanastaState, player: int) -> None:
        d = self.dict
        cell = core.log
        while cell is not None:
            cell, kind, seat, value = cell
            if kind == EV_DISCARD:
                d["discarded"][(seat - player) % PLAYERS, value & 15] += 1.0 / 8.0
            elif kind == EV_TAKE:
                d["pile_takes"][(seat - player) % PLAYERS] += 0.1
            elif kind == EV_ANSWER:
                asker = (seat + 2) % PLAYERS
                d["answers"][(asker - player) % PLAYERS, 0 if value else 1] = 1.0


pyspiel.register_game(_GAME_TYPE, ModernCanastaGame)

# The searches' two networks, shipped (copies of bots/earlier/'s python_modern_canasta_dmc and
# python_modern_canasta_advantage_l, which the runs below name).
_PRIOR = "bots/python_modern_canasta.dmc.safetensors"
_BASELINE = "neural(path=bots/python_modern_canasta.advantage.safetensors)"
# Short names for the measured bots (agents.presets), usable wherever a spec is.
PRESETS = {
    # The strongest fair bot: run R, +193 [+168, +218] over `rules` (1000 games, 500 deals, seed
    # 170), 134 ms a move (experiments/runs/search-canasta-strong.json).
    "canasta-strong": f"pimc(worlds=8,iterations=20,rollout=rules,prior={_PRIOR},baseline={_BASELINE},confidence=1)",
    # The same networks under ISMCTS (run Y): +219 [+193, +244] over `rules` (1000 games, 500
    # deals, seed 170), 151 ms a move (experiments/runs/search-canasta-strong-ismcts.json).
    "canasta-strong-ismcts": f"ismcts(iterations=160,rollout=rules,prior={_PRIOR},baseline={_BASELINE},confidence=1)",
    # A fast search, PIMC with the deep Monte-Carlo network as its prior: +115 [+100, +131] over
    # `rules` (2000 games, 1000 deals, seed 60), 26 ms a move (experiments/runs/search-canasta-fast.json).
    "canasta-fast": f"pimc(worlds=4,iterations=5,rollout=rules,prior={_PRIOR})",
}
STRONGEST, FAST = "canasta-strong", "canasta-fast"
# The table's levels: the plain bots named, the fast search and the strongest.
PRESETS.update({"canasta-beginner": "random", "canasta-club": "rules"})
LEVELS = (
    registry.Level("beginner", "canasta-beginner", ("i47-level-canasta-random-rules",)),
    registry.Level("club", "canasta-club", ("i47-level-canasta-rules-random",)),
    registry.Level("strong", FAST, ("search-canasta-fast", "i47-level-canasta-fast-random")),
    # against random on 12 deals only: at 134 ms a move, 40 would take two hours on 2 cores
    registry.Level("strongest", STRONGEST, ("search-canasta-strong", "i47-level-canasta-strong-random-12")),
)

registry.register(registry.GameEntry(
    name="python_modern_canasta", title="Modern American Canasta", example="python_modern_canasta",
    params=(
        registry.Param("score0", "int", min=-1000000, max=1000000, default=0,
                       help="±1,000,000: points of seats 0 and 2 before this hand (the match's running score)"),
        registry.Param("score1", "int", min=-1000000, max=1000000, default=0,
                       help="±1,000,000: points of seats 1 and 3 before this hand"),
        registry.Param("first_player", "int", min=0, max=3, default=0,
                       help="0-3: the seat on the dealer's left, who is dealt to and plays first"),
    ),
    rules=CanastaRules.from_params, view=modern_canasta_view, view_shape=VIEW_SHAPE, players=(PLAYERS, PLAYERS),
    match=registry.MatchOffer("target", TARGETS, 2500, sets=DEAL_PARAMETERS,
                              table=lambda players, params, target, seed: ModernCanastaMatch(target), points=True,
                              harness=match_format),
    sides=lambda players: [seat & 1 for seat in range(players)],     # 0 and 2 against 1 and 3
    rule_bot="agents.rules.modern_canasta:ModernCanastaRulesBot",
    presets=PRESETS, strongest=STRONGEST, levels=LEVELS,
    # The tuned rule bot is the strategy lab's (docs/studies/canasta.md, round 7).
    bots=(registry.BotOffer("rules(initial_meld=pile,new_meld_min=5,go_out=lead)",
                            "Rule bot, tuned: waits for piles (+33 Elo over the rule bot)"),
          registry.BotOffer(PRESETS[STRONGEST], "Strongest: PIMC leaving the network's move on evidence (+193 Elo over the "
                                       "rule bot), about 0.15 s a move")),
    # The generic searches are weak for their time here (100-170 ms a move with random rollouts) and
    # the strongest fair bot, at 134 ms, gains 1.6 thousand points a hand over the generic PIMC deal by
    # deal (experiments/logs/search.md, runs V and V2): the default tournament has it and the fast search instead.
    default_field=("random", "rules", FAST, STRONGEST, "neural"),
    points_per_unit=1000.0,    # returns are in thousands of points
    noticeable_loss=0.05,      # 50 points: the least a move must lose for the review to call it a mistake
    # 355 inputs, 577 actions (draw, take the pile, each meld, lay-off and discard), about 65 real
    # decisions a hand: the same trunk as Page One's; the policy head is most of its 304k parameters.
    network={"hidden": (256, 256)},
))

__all__ = ["ModernCanastaGame", "ModernCanastaGameState", "CanastaObserver"]
