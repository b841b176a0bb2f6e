"""The going-out search after a partner's "yes" against its definition.

`games.modern_canasta.going_out` decides "can the asker still go out this turn"
by a search that melds rank by rank in one order and merges positions that
differ only in what no later move reads. Here the same question is answered
the plain way: every sequence of the turn's melds (and, taking the pile, its
commit) in any order, memoised on the whole position, until one card is left
to discard. On positions from seeded rule-bot games, and from rule-bot
playouts of worlds resampled in them (where hands grow large), the two answers
must agree action by action.
"""

from __future__ import annotations

import random

import pyspiel

import games  # noqa: F401  (registers the games)
from agents import make_bot
from games.modern_canasta.actions import COMMIT, DISCARD_BASE, MELD_BASE
from games.modern_canasta.core import MELD, PICKUP, CanastaState
from games.modern_canasta.going_out import keep_going_out


def _reachable(state: CanastaState, memo: dict) -> bool:
    """Whether some order of this turn's melds leaves one card that goes out."""
    if state.phase not in (MELD, PICKUP):
        return False
    side = state.actor & 1
    key = (state.phase, tuple(state.hands[state.actor]), tuple(state.melds), state.canastas[side],
           state.closed, state.pending, state.melded, len(state.pile), state.forbid_out,
           state.withdrawn)
    if key not in memo:
        memo[key] = False
        moves = state._moves_of_the_turn()
        if state.phase == MELD and state.sizes[state.actor] == 1:
            memo[key] = any(DISCARD_BASE <= a < MELD_BASE for a in moves)
        else:
            memo[key] = any(_reachable(_after(state, a), memo) for a in moves if a >= MELD_BASE or a == COMMIT)
    return memo[key]


def _after(state: CanastaState, action: int) -> CanastaState:
    child = state.clone()
    child.must_out = False
    child.out_memo = None
    if action == COMMIT:
        child.apply_action(COMMIT)
    else:
        child.do_meld(action)
    return child


def _obliged_positions(count: int, seed: int) -> list[CanastaState]:
    """Positions where the player to move must go out, from rule-bot games and from
    rule-bot playouts of worlds resampled along them."""
    game = pyspiel.load_game("python_modern_canasta")
    rng = random.Random(seed)
    found: list[CanastaState] = []

    def play(state, sample_worlds: bool) -> None:
        bots = [make_bot("rules", game, seat, seed=seat) for seat in range(4)]
        while not state.is_terminal() and len(found) < count:
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0])
                continue
            core = state.core
            if core.must_out and core.to_move == core.actor:
                found.append(core.clone())
            if sample_worlds and rng.random() < 0.03:
                play(state.resample_from_infostate(state.current_player(), rng.random), False)
            state.apply_action(bots[state.current_player()].step(state))

    while len(found) < count:
        play(game.new_initial_state(), True)
    return found


def test_the_search_keeps_exactly_the_actions_after_which_going_out_is_reachable():
    positions = _obliged_positions(120, seed=3)
    largest = max(position.sizes[position.actor] for position in positions)
    assert largest >= 15, "the positions should include grown hands"
    for position in positions:
        actions = position._moves_of_the_turn()
        searched = position.clone()
        searched.out_memo = None
        memo: dict = {}
        expected = [a for a in actions
                    if (DISCARD_BASE <= a < MELD_BASE and position.sizes[position.actor] == 1)
                    or ((a >= MELD_BASE or a == COMMIT) and _reachable(_after(position, a), memo))]
        assert keep_going_out(searched, actions) == expected
