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
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np
import pyspiel

from agents import make_bot
from agents.base import rules_core
from agents.neural.encoding import InfoStateEncoder
from games.protocol import chance_sampler
from search.mcts import placement
from search.rollout import BotRollout, seat_bots, seated_by_side, sides


def check_bots(game: pyspiel.Game, baseline: str, opponents: str) -> None:
    """Makes each bot once, so that a bad spec is refused in one line before any
    actor process starts."""
    for setting, spec in (("baseline", baseline), ("opponents", opponents)):
        if spec:
            try:
                make_bot(spec, game, 0, 0)
            except ValueError as e:
                raise ValueError(f"{setting}={spec!r}: {e}") from None


@dataclass
class ProbeBots:
    """One actor's bots: the baseline's and the opponents' (None: the baseline
    plays every seat), each once for the deals' play and once for playouts
    (whose bots only `step`, on worlds the deal never reaches)."""

    baseline: list[pyspiel.Bot]
    baseline_playout: list[pyspiel.Bot]
    opponents: list[pyspiel.Bot] | None
    opponents_playout: list[pyspiel.Bot] | None
    sides: tuple[tuple[int, ...], ...]           # the sides one of which the baseline plays

    @classmethod
    def make(cls, game: pyspiel.Game, baseline: str, opponents: str | None, seed: int) -> "ProbeBots":
        n = game.num_players()

        def bots(spec: str, offset: int) -> tuple[list[pyspiel.Bot], list[pyspiel.Bot]]:
            play = [make_bot(spec, game, s, seed + offset + s) for s in range(n)]
            return play, seat_bots(spec, game, seed + offset + n)

        base, base_playout = bots(baseline, 0)
        other, other_playout = bots(opponents, 2 * n) if opponents else (None, None)
        return cls(base, base_playout, other, other_playout, sides(game))

    def seat(self, rng: random.Random) -> tuple[list[pyspiel.Bot], BotRollout, frozenset[int]]:
        """A deal's seating: each seat's bot, the playouts' rollout, the probed seats."""
        if self.opponents is None:
            return self.baseline, BotRollout(self.baseline_playout), frozenset(range(len(self.baseline)))
        probed = frozenset(rng.choice(self.sides))
        return (seated_by_side(probed, self.baseline, self.opponents),
                BotRollout(seated_by_side(probed, self.baseline_playout, self.opponents_playout)), probed)


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
    for _ in range(games):
        state = rules_core(game.new_initial_state())
        sample = chance_sampler(state)
        seated, playout, probed = bots.seat(rng)
        for bot in seated:
            bot.restart_at(state)
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(sample(state, rng.random()))
                continue
            player = state.current_player()
            legal = state.legal_actions()
            move = seated[player].step(state)
            if player in probed and len(legal) > 1 and rng.random() < probe:
                obs = np.zeros(encoder.size, np.float32)
                encoder.encode(state, player, legal, obs)
                for a, gain in move_advantages(state, legal, move, playout, rng.getrandbits(64)).items():
                    obs_rows.append(obs.astype(np.float16))
                    actions.append(a)
                    targets.append(gain)
                    references.append(move)
            for seat, bot in enumerate(seated):
                if seat != player:
                    bot.inform_action(state, player, move)
            state.apply_action(move)
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
