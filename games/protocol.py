"""The one small protocol that search, agents and the harness use to drive a game.

It is the method names of a pyspiel state, so any pyspiel state satisfies it, and
our rules cores satisfy it without knowing OpenSpiel. Cores may also provide
`sample_chance_outcome(u)`, the chance outcome at cumulative probability `u`
without building the `(action, probability)` list: about 70% of the steps of a
card game are chance steps (deals and draws), so the drivers below use it when
it is there and fall back to `chance_outcomes()` otherwise.

A second optional fast path, `private_view(player)`, lets search key nodes by
information state without building strings: a cheap hashable of what `player`
knows beyond the player actions and the number of chance events since an
earlier state (in Page One: its hand and the trick count). Games without it are
keyed by `information_state_string` (search.keys).

A third, `play_out(rand)`, plays uniformly random moves to the end in place and
returns the returns: the same moves as `random_playout`'s loop with the same
`rand`, without a method dispatch per step (the search's random rollouts).

A fourth, `resample_assuming(player, sampler, model)` (American Page One), draws
as `resample_from_infostate` does among the worlds in which the others' moves also
show what `model` says they show of their hands (the search bots' `assume`).

A fifth, `hidden_cards(player)`, says where the cards `player` cannot see lie:
a row a place (the other seats' hands in turn order after `player`, then the
stock), a column a card kind, each a count. It is the label a belief network
learns (training/belief.py) and the summary by which search weighs its worlds
(search/belief.py); its shape is fixed for a game and player count.

A core whose class sets `checks_actions = True` promises that `apply_action`
raises `IllegalActionError` for every player action in
`range(num_distinct_actions)` that is not legal, so a caller that must reject
illegal moves need not compute the legal actions a second time (the tournament
harness relies on it; tests/conformance.py checks it for every game).
"""

from __future__ import annotations

import random
from typing import Any, Callable, Protocol, Sequence, runtime_checkable

# The same values as pyspiel.PlayerId.CHANCE and pyspiel.PlayerId.TERMINAL.
CHANCE = -1
TERMINAL = -4


class IllegalActionError(ValueError):
    """An action that is not legal for the player to move; the message names it
    and the legal ones. The state it was applied to is not to be used again."""


@runtime_checkable
class GameState(Protocol):
    def current_player(self) -> int: ...
    def is_terminal(self) -> bool: ...
    def is_chance_node(self) -> bool: ...
    def legal_actions(self) -> list[int]: ...
    def chance_outcomes(self) -> list[tuple[int, float]]: ...
    def apply_action(self, action: int) -> None: ...
    def clone(self) -> "GameState": ...
    def returns(self) -> list[float]: ...
    def num_players(self) -> int: ...
    def action_to_string(self, player: int, action: int) -> str: ...
    def information_state_string(self, player: int) -> str: ...
    def observation_string(self, player: int) -> str: ...
    def resample_from_infostate(self, player: int,
                                probability_sampler: Callable[[], float]) -> "GameState": ...


def outcome_at(outcomes: Sequence[tuple[int, float]], u: float) -> int:
    """The outcome at cumulative probability u in [0, 1) (inverse CDF)."""
    for action, p in outcomes:
        u -= p
        if u < 0.0:
            return action
    return outcomes[-1][0]


def chance_sampler(state: GameState) -> Callable[[GameState, float], int]:
    """The fastest `(state, u) -> outcome` this kind of state supports."""
    fast = getattr(type(state), "sample_chance_outcome", None)
    if fast is not None:
        return fast
    return lambda s, u: outcome_at(s.chance_outcomes(), u)


def random_playout(state: GameState, rng: random.Random) -> int:
    """Plays uniformly random legal actions to the end, in place; returns the step count.

    This is the driver loop that the benchmark times for every game, ours and
    OpenSpiel's C++ ones alike.
    """
    sample = chance_sampler(state)
    rand = rng.random
    steps = 0
    while True:
        player = state.current_player()
        if player == CHANCE:
            state.apply_action(sample(state, rand()))
        elif player == TERMINAL:
            return steps
        else:
            legal = state.legal_actions()
            state.apply_action(legal[int(rand() * len(legal))])
        steps += 1


class MatchFormat(Protocol):
    """A match made of several deals of one game (American Page One's agreed number
    of rounds, Canasta's hands to a target score). Each deal is an ordinary game,
    loaded with the parameters `next_deal` gives from the records of the deals so
    far (a running score, the dealer's seat), so the harness plays, stores and
    replays deals one by one. A game whose match is a single deal needs none.

    A deal's record is `deal_record(match, final_state)`: its returns, unless the
    format keeps more (Canasta keeps each side's points, which zero-sum returns
    cannot carry, because the running scores set the next hand's requirements)."""

    def next_deal(self, history: Sequence[Sequence[float]]) -> dict[str, Any] | None:
        """Game parameters of the next deal, or None when the match is over."""
        ...

    def result(self, history: Sequence[Sequence[float]]) -> list[float]:
        """The match's returns per seat, from the records of every deal."""
        ...


def deal_record(match: MatchFormat, state: GameState) -> list[float]:
    """What a match keeps of a finished deal: the format's own `deal_record(state)`
    when it has one, else the deal's returns."""
    own = getattr(match, "deal_record", None)
    return list(own(state)) if own is not None else list(state.returns())
