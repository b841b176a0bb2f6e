"""Samples for `--target advantage`: one step of policy improvement over a baseline bot.

Self-play deep Monte-Carlo learns the value of the network's own play from
whole-game returns, where a move worth a few points drowns in a deal worth
±119. This target learns something narrower, with far less noise: how much
better or worse each other legal move is than the rule bot's, with the rule
bot playing every seat before and after.

The rule bots play deals in every seat. At a fraction `probe` of the decisions
that have a choice, every legal move is played out to the end on the true
state by rule bots, all with the same draws (common random numbers), and each
move other than the rule bot's becomes a sample: (the mover's information-state
tensor, the move, its placement less the rule move's placement). Both
placements come from the same cards and the same draws, so their difference
carries only what the move changed.

The true cards make the targets, never the inputs. The regression of a
target on the information-state tensor converges to its expectation over
the hidden cards the mover cannot see, weighted as rule bots' play deals
them: the advantage of the move over the rule bot's move for a player who
knows what the others' play says of their hands (a player facing rule bots).
A search draws its worlds from a belief and loses what the belief misses
(docs/search.md); this learns from worlds as they were dealt.

A network trained this way scores moves by advantage, so the bot plays the
rule bot's move unless another scores above a margin (agents/neural/bot.py,
`margin`). That is one step of policy iteration: the greedy policy over the
rule bot's action values, taken only where the network is sure.

A score that is the gain itself asks the network to know which move the
baseline would make, since every score is measured from that move's value;
with `relative` the learner regresses a score less the baseline's move's score
on the gain, so the scores are the moves' values up to one number a position,
and the bot subtracts the baseline's move's score before it compares.

The rule bot is the default baseline (`--baseline`); any bot spec can be one,
a network of advantages too, whose own baseline then plays inside it: the next
step of policy iteration. With `--opponents` the baseline plays one side of a
deal (the mover and its partners), drawn per deal, and that bot the others;
only the baseline's decisions are probed, so the network learns to improve on
the baseline's play against those opponents, as the harness will rate it.

The baseline's own play makes the probed positions unless `positions` names
another bot for the probed seats: a network of gains over the baseline plays
its own positions, not the baseline's, and learns best what it meets there.
Each gain is still measured from the baseline's move and played out by the
baseline, so the network's scores keep their meaning (one step over the
baseline), now weighted by the positions the mover reaches.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Iterator

import numpy as np
import pyspiel

from agents import make_bot
from agents.base import rules_core
from agents.neural.encoding import InfoStateEncoder
from games.protocol import chance_sampler
from search.mcts import placement
from search.rollout import BotRollout, seat_bots, seated_by_side, sides


def check_bots(game: pyspiel.Game, baseline: str, opponents: str, positions: str = "") -> None:
    """Makes each bot once, so that a bad spec is refused in one line before any
    actor process starts."""
    for setting, spec in (("baseline", baseline), ("opponents", opponents), ("positions", positions)):
        if spec:
            try:
                make_bot(spec, game, 0, 0)
            except ValueError as e:
                raise ValueError(f"{setting}={spec!r}: {e}") from None


@dataclass
class ProbeBots:
    """One actor's bots: the baseline's and the opponents' (None: the baseline
    plays every seat), each once for the deals' play and once for playouts
    (whose bots only `step`, on worlds the deal never reaches), and the bots
    that play the probed seats in the deals if not the baseline's (`positions`:
    the baseline's bots then only name the move each gain is measured from)."""

    baseline: list[pyspiel.Bot]
    baseline_playout: list[pyspiel.Bot]
    opponents: list[pyspiel.Bot] | None
    opponents_playout: list[pyspiel.Bot] | None
    sides: tuple[tuple[int, ...], ...]           # the sides one of which the baseline plays
    positions: list[pyspiel.Bot] | None = None

    @classmethod
    def make(cls, game: pyspiel.Game, baseline: str, opponents: str | None, seed: int,
             positions: str | None = None) -> "ProbeBots":
        n = game.num_players()

        def bots(spec: str, offset: int) -> tuple[list[pyspiel.Bot], list[pyspiel.Bot]]:
            play = [make_bot(spec, game, s, seed + offset + s) for s in range(n)]
            return play, seat_bots(spec, game, seed + offset + n)

        base, base_playout = bots(baseline, 0)
        other, other_playout = bots(opponents, 2 * n) if opponents else (None, None)
        movers = [make_bot(positions, game, s, seed + 4 * n + s) for s in range(n)] if positions else None
        return cls(base, base_playout, other, other_playout, sides(game), movers)

    def seat(self, rng: random.Random) -> tuple[list[pyspiel.Bot], BotRollout, frozenset[int]]:
        """A deal's seating: each seat's bot, the playouts' rollout, the probed seats."""
        movers = self.positions or self.baseline
        if self.opponents is None:
            return movers, BotRollout(self.baseline_playout), frozenset(range(len(self.baseline)))
        probed = frozenset(rng.choice(self.sides))
        return (seated_by_side(probed, movers, self.opponents),
                BotRollout(seated_by_side(probed, self.baseline_playout, self.opponents_playout)), probed)


def probed_decisions(game: pyspiel.Game, bots: ProbeBots, rng: random.Random, probe: float,
                     games: int | None = None) -> Iterator[tuple[Any, int, list[int], int, BotRollout]]:
    """Plays `games` deals (without end if None) seated by `bots`, and yields each
    probed decision (a baseline's seat with a choice, at rate `probe`) as
    (state, mover, legal moves, the baseline's move, the deal's playouts). The
    state is the deal's own: a consumer clones it before playing on."""
    shadows = bots.baseline if bots.positions else []   # the baseline beside the bots that move instead
    played = 0
    while games is None or played < games:
        played += 1
        state = rules_core(game.new_initial_state())
        sample = chance_sampler(state)
        seated, playout, probed = bots.seat(rng)
        for bot in seated + shadows:
            bot.restart_at(state)
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(sample(state, rng.random()))
                continue
            player = state.current_player()
            legal = state.legal_actions()
            move = seated[player].step(state)
            if player in probed and len(legal) > 1 and rng.random() < probe:
                yield state, player, legal, shadows[player].step(state) if shadows else move, playout
            for seat, bot in enumerate(seated):
                if seat != player:
                    bot.inform_action(state, player, move)
            for bot in shadows:        # none made this move: each hears of it, its own seat's too
                bot.inform_action(state, player, move)
            state.apply_action(move)


def play_probe_batch(game: pyspiel.Game, encoder: InfoStateEncoder, bots: ProbeBots, rng: random.Random,
                     games: int, probe: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """Plays `games` deals seated by `bots`; returns (obs, actions, advantages,
    references, games) for the other moves of the probed decisions (the
    baseline's seats): a sample's reference is the baseline's move its gain is
    measured from (what a run with `relative` scores subtracts)."""
    obs_rows: list[np.ndarray] = []
    actions: list[int] = []
    targets: list[float] = []
    references: list[int] = []
    for state, player, legal, reference, playout in probed_decisions(game, bots, rng, probe, games):
        obs = np.zeros(encoder.size, np.float32)
        encoder.encode(state, player, legal, obs)
        for a, gain in move_advantages(state, legal, reference, playout, rng.getrandbits(64)).items():
            obs_rows.append(obs.astype(np.float16))
            actions.append(a)
            targets.append(gain)
            references.append(reference)
    if not obs_rows:
        empty = np.zeros(0, np.int64)
        return np.zeros((0, encoder.size), np.float16), empty, np.zeros(0, np.float32), empty, games
    return (np.stack(obs_rows), np.array(actions, np.int64), np.array(targets, np.float32),
            np.array(references, np.int64), games)


def move_advantages(state, legal: list[int], move: int, playout: BotRollout, seed: int) -> dict[int, float]:
    """Each legal action but `move`: the mover's place ([-1, 1]) after it, less
    its place after `move`, each played out once to the end by `playout` on the
    true state with the draws that `seed` fixes."""
    player = state.current_player()

    def place_after(action: int) -> float:
        world = state.clone()
        world.apply_action(action)
        return placement(playout.evaluate(world, random.Random(seed).random))[player]

    base = place_after(move)
    return {a: place_after(a) - base for a in legal if a != move}
