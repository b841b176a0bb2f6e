"""How much of one step's gain over its baseline a network of advantages takes.

    python -m experiments.advantage_headroom bots/python_modern_canasta.safetensors [MORE.safetensors ...] \
        --game python_modern_canasta \
        --baseline "rules(initial_meld=pile,new_meld_min=5,go_out=lead)" --opponents rules

A network of advantages (`--target advantage`, training/advantage.py)
learns, from one playout a move, each move's gain over the baseline's move. This
measures what that leaves on the table. Deals are seated as in training (the
baseline, or the `--positions` bot, on the probed side; `--opponents` on the
other); at `--decisions` probed decisions every legal move is played out
`--playouts` times by the baseline's seating, all moves with the same draws in
each playout. For each move the mean placement gain over the baseline's move
is then known far better than from one playout, and the script prints:

- the noise of one playout's gain and the spread of the mean gains (signal),
  so the signal-to-noise ratio of one training sample;
- a cheating choice from half the playouts (the move whose mean gain on the
  first half is largest, if above zero), rated on the other half: about what a
  step over the baseline takes at a decision where the mover knew the cards;
- each network at each `--margins`: how often it departs from the baseline's
  move, and the mean gain of the move it plays (every network on the same
  decisions, so that two networks compare pair by pair);
- each bot of `--rate SPEC` (any bot: a search, a network at a setting): the
  same, from the move it plays at each decision, with its time a decision and
  its gain less the first rated bot's, pair by pair.

Gains are measured with the baseline playing after the move, so they are one
step's gains: a network that departs often also changes the positions that
follow, which these figures do not see (a tournament does). They rate what a
network of advantages learns, one step; they do not rank searches, which play
the rest of the hand their own way (experiments/logs/search.md, curve S: a search 60 Elo
above the network in play rated level with it here).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from dataclasses import dataclass, field

import numpy as np
import pyspiel

import games  # noqa: F401  (registers our games)


@dataclass
class ProbedDecision:
    """One probed decision: each move other than the baseline's, its placement
    gain over the baseline's move in each playout, and each network's gain."""

    moves: list[int]
    gains: np.ndarray              # (moves, playouts)
    networks: np.ndarray           # (networks, moves): each network's estimated gain of each move
    rated: list[int | None] = field(default_factory=list)    # each rated bot's move (None: the baseline's)
    seconds: list[float] = field(default_factory=list)       # ... and the time it took


def probe_decisions(game: pyspiel.Game, network_paths: list[str], baseline: str, opponents: str | None,
                    positions: str | None, decisions: int, playouts: int, probe: float,
                    seed: int, rated_specs: list[str] = ()) -> list[ProbedDecision]:
    """Plays deals seated as a training run with these settings would until
    `decisions` decisions are probed (each with a choice, at rate `probe`);
    each bot of `rated_specs` chooses its move at every one, from the mover's seat."""
    from tqdm import tqdm

    from agents import make_bot
    from training.advantage import ProbeBots, move_advantages, probed_decisions
    from agents.neural.bot import legal_scores, numpy_layers, suit_symmetry, symmetric_scores
    from agents.neural.botfile import load_bot
    from agents.neural.encoding import GameIdentity, InfoStateEncoder

    bot_files = [load_bot(path, GameIdentity.of(game)) for path in network_paths]
    encoder = InfoStateEncoder(game)
    # Each network scores as its bot plays: relative scores less the baseline move's, and
    # averaged over suit relabellings where the file's play settings say symmetric=true.
    networks = [(numpy_layers(f.net), bool(f.training.get("relative", False)),
                 suit_symmetry(game, encoder) if f.training.get("play", {}).get("symmetric") else None)
                for f in bot_files]
    bots = ProbeBots.make(game, baseline, opponents, seed, positions)     # a bad spec is refused here
    rated = []
    for spec in rated_specs:
        try:
            rated.append([make_bot(spec, game, seat, seed + 1000 + seat) for seat in range(game.num_players())])
        except ValueError as e:
            raise ValueError(f"--rate {spec!r}: {e}") from None
    obs = np.zeros(encoder.size, np.float32)
    rng = random.Random(seed)
    found: list[ProbedDecision] = []
    bar = tqdm(total=decisions, desc="probed decisions", unit="decision", mininterval=2.0)
    for state, player, legal, reference, playout in probed_decisions(game, bots, rng, probe):
        seeds = [rng.getrandbits(64) for _ in range(playouts)]
        by_seed = [move_advantages(state, legal, reference, playout, s) for s in seeds]
        others = [a for a in legal if a != reference]
        encoder.encode(state, player, legal, obs)
        estimates = []
        for layers, relative, symmetry in networks:
            scores = dict(zip(legal, legal_scores(layers, obs, legal) if symmetry is None
                              else symmetric_scores(layers, obs, legal, symmetry)))
            offset = scores[reference] if relative else 0.0
            estimates.append([scores[a] - offset for a in others])
        moves, seconds = [], []
        for seat_bots in rated:
            bot = seat_bots[player]
            bot.restart_at(state)
            start = time.perf_counter()
            move = bot.step(state.clone())
            seconds.append(time.perf_counter() - start)
            moves.append(None if move == reference else move)
        found.append(ProbedDecision(others, np.array([[gains[a] for gains in by_seed] for a in others]),
                                    np.array(estimates).reshape(len(networks), len(others)), moves, seconds))
        bar.update()
        if len(found) == decisions:
            break
    bar.close()
    return found


@dataclass
class Headroom:
    noise: float                   # variance of one playout's gain about its move's mean
    signal: float                  # variance of the moves' mean gains, less what the noise adds
    cheating_choice: float         # gain a decision of the choice from half the playouts, rated on the rest
    networks: list[dict[float, tuple[float, float]]]   # each network's margin -> (departure rate, gain a decision)
    decisions: int
    moves: int
    rated: list["Rating"] = field(default_factory=list)


@dataclass
class Rating:
    """A rated bot's figures over the probed decisions; the intervals are 95%
    normal ones over decisions (each gain the mean of its move's playouts)."""

    departs: float                 # the share of decisions where it left the baseline's move
    gain: float                    # mean placement gain a decision over the baseline's move
    gain_half_width: float
    versus_first: float            # mean of its gain less the first rated bot's, decision by decision
    versus_first_half_width: float
    seconds: float                 # mean time a decision


def half_width(values: np.ndarray) -> float:
    return float(1.96 * values.std(ddof=1) / np.sqrt(len(values))) if len(values) > 1 else float("nan")


def headroom(found: list[ProbedDecision], margins: list[float]) -> Headroom:
    """The figures of the module docstring from the probed decisions (at least
    two playouts each, so that one half can choose and the other rate)."""
    gains = np.concatenate([d.gains for d in found])
    k = gains.shape[1]
    noise = float(gains.var(axis=1, ddof=1).mean())
    signal = float(gains.mean(axis=1).var() - noise / k)
    half = k // 2
    chosen = []
    for d in found:
        first, second = d.gains[:, :half].mean(axis=1), d.gains[:, half:].mean(axis=1)
        best = int(first.argmax())
        chosen.append(second[best] if first[best] > 0 else 0.0)
    networks = []
    for n in range(found[0].networks.shape[0]):
        network = {}
        for margin in margins:
            departures, gain = [], []
            for d in found:
                best = int(d.networks[n].argmax())
                departs = d.networks[n, best] > margin
                departures.append(departs)
                gain.append(d.gains[best].mean() if departs else 0.0)
            network[margin] = (float(np.mean(departures)), float(np.mean(gain)))
        networks.append(network)
    # Each rated bot's gain at each decision: 0 where it kept the baseline's move.
    per_bot = [np.array([0.0 if d.rated[r] is None else d.gains[d.moves.index(d.rated[r])].mean() for d in found])
               for r in range(len(found[0].rated))]
    rated = [Rating(float(np.mean([d.rated[r] is not None for d in found])),
                    float(gains_of.mean()), half_width(gains_of),
                    float((gains_of - per_bot[0]).mean()), half_width(gains_of - per_bot[0]),
                    float(np.mean([d.seconds[r] for d in found])))
             for r, gains_of in enumerate(per_bot)]
    return Headroom(noise, signal, float(np.mean(chosen)), networks, len(found), len(gains), rated)


def main(argv: list[str] | None = None) -> None:
    from scripts.cli_checks import CliParser, game_string, integer, number, one_line, seed
    p = CliParser(prog="python -m experiments.advantage_headroom", description=__doc__.split("\n\n")[1],
                  formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("bot_files", nargs="*", metavar="BOTFILE",
                   help="bot files of advantages over the baseline to rate (none: the headroom alone)")
    p.add_argument("--game", type=game_string, default="python_modern_canasta", help="game string")
    p.add_argument("--baseline", default="rules(initial_meld=pile,new_meld_min=5,go_out=lead)",
                   help="the bot spec the network's gains are over")
    p.add_argument("--opponents", default="rules",
                   help="the other side's bot spec (empty: the baseline plays every seat)")
    p.add_argument("--positions", default="",
                   help="the bot spec that plays the probed side in the deals (empty: the baseline)")
    p.add_argument("--decisions", type=integer(1, 10**6), default=400, help="probed decisions")
    p.add_argument("--playouts", type=integer(2, 1000), default=8, help="playouts of each move")
    p.add_argument("--probe", type=number(0, 1, open_low=True), default=0.1,
                   help="the share of decisions with a choice probed")
    p.add_argument("--margins", type=number(-2, 2), nargs="+", default=[0.0, 0.05, 0.1, 0.2],
                   help="the network's margins to rate")
    p.add_argument("--rate", action="append", default=[], metavar="SPEC",
                   help="a bot spec whose moves to rate at every probed decision (repeatable; the first is "
                        "the one the others are compared with, pair by pair)")
    p.add_argument("--seed", type=seed, default=11, help="random seed")
    args = p.parse_args(argv)
    game = pyspiel.load_game(args.game)
    try:
        found = probe_decisions(game, args.bot_files, args.baseline, args.opponents or None, args.positions or None,
                                args.decisions, args.playouts, args.probe, args.seed, args.rate)
    except (ValueError, OSError) as e:
        print(f"python -m experiments.advantage_headroom: error: {one_line(e)}", file=sys.stderr)
        raise SystemExit(2) from None
    h = headroom(found, args.margins)
    seating = (f"baseline {args.baseline!r}, opponents {args.opponents or 'the baseline'!r}, positions by "
               f"{args.positions or 'the baseline'!r}, {args.game}, seed {args.seed}")
    print(f"{h.decisions} probed decisions, {h.moves} moves other than the baseline's, {args.playouts} playouts "
          f"each ({seating})")
    ratio = f"{h.signal / h.noise:.3f}" if h.noise > 0 else "undefined (no playout differed)"
    print(f"one playout's gain: noise variance {h.noise:.4f}, signal variance {h.signal:.4f}, "
          f"signal/noise {ratio}")
    print(f"cheating choice from {args.playouts // 2} playouts, rated on the rest: "
          f"{h.cheating_choice:+.4f} placement a decision\n")
    print("| network | margin | departs at | gain a decision |\n|---|---:|---:|---:|")
    for path, network in zip(args.bot_files, h.networks):       # no rows without bot files
        for margin, (departs, gain) in network.items():
            print(f"| {path} | {margin} | {departs:.3f} | {gain:+.4f} |")
    if h.rated:
        print(f"\n| rated bot | departs at | gain a decision [95%] | less the first's, pair by pair [95%] "
              f"| ms a decision |\n|---|---:|---:|---:|---:|")
    for spec, r in zip(args.rate, h.rated):
        print(f"| `{spec}` | {r.departs:.3f} | {r.gain:+.4f} [{r.gain - r.gain_half_width:+.4f}, "
              f"{r.gain + r.gain_half_width:+.4f}] | {r.versus_first:+.4f} [{r.versus_first - r.versus_first_half_width:+.4f}, "
              f"{r.versus_first + r.versus_first_half_width:+.4f}] | {1000 * r.seconds:.1f} |")


if __name__ == "__main__":
    main()
