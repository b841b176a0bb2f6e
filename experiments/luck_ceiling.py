"""How far any value function could narrow a comparison: where a deal's noise lies.

The luck adjustment (eval/luck.py) subtracts from each return what chance gave it,
measured with a value function V. With the *true* value of the bots being compared
(V^pi: the expected return from a state when these very bots play on), a table's
margin splits into parts that are uncorrelated (the increments of a martingale):

    Var(margin) = Var(V^pi at the first decision)        the deal
                + E sum over chance events  Var_o V^pi(after o)   the cards drawn in play
                + E sum over stated choices Var_a V^pi(after a)   bots' random choices

The second part is what an adjustment at chance events can take out, however good
its V; the third is what it cannot, unless the bots' random choices are adjusted
too (a bot's stated policy, agents/base.py `known_policy`: AIVAT's action terms).

Both are estimated here without bias by rollouts of the bots themselves: at each
event, two outcomes drawn from its law (the chance node's probabilities, or the
bot's stated policy), m independent rollouts after each, and
(mean1 - mean2)^2 / 2 - (var1 + var2) / (2 m), whose expectation is the variance of
V^pi over the event's outcomes. The experiment plays duplicate deals (the same
cards, the agents' seats swapped, as the harness does) and reports, for the per-deal
difference D of the first agent's mean return less the second's:

- Var(D), and the parts of it the cards drawn in play and the stated choices make
  (each table's part, weighted as D weights the table);
- the ceiling of the standard-error factor at chance events alone,
  sqrt(Var D / (Var D - cards)), and with the stated choices adjusted too,
  sqrt(Var D / (Var D - cards - choices)), each with a 95% bootstrap over deals.

What is left (Var D less both parts) is the deal's own share that the duplicate
pair does not cancel, any randomness of a bot that states no policy, and the
covariance of the two tables' luck (they share the deck). Only cheap bots are
worth rolling out: the cost is some 2 m rollouts per event.

The same two outcomes measure a value network's error in the luck it reports
(`--value`, the shipped one by default, or a luck network trained for the two
agents, training/luck_value.py): with d = V^pi(o1) - V^pi(o2) and d_net
the network's, ((d_net - (mean1 - mean2))^2 - (var1 + var2) / m) / 2 estimates
E (network's luck - true luck)^2 at the event without bias. Those errors are
increments of a martingale too, so an adjustment by the network leaves about

    Var D - cards + error(cards)            (chance events alone)

and its SE factor is about sqrt(Var D / that): the error a network makes in the
worth of each card, summed over a deal, is what it adds back. The report gives
that prediction beside the ceilings, for the network's measured factor
(experiments/luck_variance.py) to be checked against.

    python -m experiments.luck_ceiling --game "python_classic_canasta(players=4)" \
        --first rules --second random --deals 200 --rollouts 8 --seed 0 [--value FILE]
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from multiprocessing import Pool

import numpy as np
import pyspiel
from tqdm import tqdm

from agents import make_bot
from eval.config import split_agent
from eval.luck import SeatedLuckNetwork, Valuer, law_draws, luck_network, played_on, state_values
from games.chance import DealChance
from games.load import load_game
from games.seeding import derive_seed
from scripts.cli_checks import CliParser, game_string, integer, one_line, seed
from search.analysis import Z95
from search.netfile import NetFileError, load
from search.value import value_network

_TABLE, _BOTS, _ROLLOUTS = 1, 2, 3      # streams of derive_seed


@dataclass(frozen=True)
class Setup:
    """One experiment: the game, the two agents' specs, the seed and the rollouts per outcome."""
    game: str
    first: str
    second: str
    seed: int
    rollouts: int
    value: str | None = None        # the value or luck network whose error is measured (None: none)
    value_is_luck: bool = False     # whether `value` is a luck network (read once, in main)


@dataclass
class DealSplit:
    """One duplicate deal: D, the parts of its variance the cards in play and the
    stated choices make, and a value network's error in the luck of each (unbiased
    estimates, each weighted as D weights its table; any may come out negative)."""
    difference: float
    cards: float
    choices: float
    cards_error: float = 0.0
    choices_error: float = 0.0


def lineup(players: int, rotation: int) -> list[int]:
    """Which agent (0 first, 1 second) sits at each seat: alternate seats, so that at
    four-player Canasta each agent holds a partnership; rotation 1 swaps them."""
    return [(seat + rotation) % 2 for seat in range(players)]


class _Table:
    """The bots of one lineup, and rollouts of them from any state."""

    def __init__(self, game: pyspiel.Game, specs: tuple[str, str], seats: list[int], rng: random.Random,
                 net: Valuer | None = None):
        self.game, self.specs, self.seats, self.rng, self.net = game, specs, seats, rng, net

    def bots(self, seed: int) -> list:
        return [make_bot(self.specs[agent], self.game, s, derive_seed(_BOTS, seed, s))
                for s, agent in enumerate(self.seats)]

    def margin(self, returns) -> float:
        """The first agent's mean return less the second's, at this table."""
        r = np.asarray(returns)
        mask = np.array(self.seats) == 0
        return float(r[mask].mean() - r[~mask].mean())

    def rollout(self, state) -> float:
        """The margin of one game played on from `state` by fresh bots, chance drawn from its law."""
        return self.margin(played_on(state, self.bots(self.rng.getrandbits(62)), law_draws(self.rng)))

    def spread(self, state, law: list[tuple[int, float]], rollouts: int, choice: bool) -> tuple[float, float]:
        """Unbiased estimates of the variance of V^pi over the outcomes of `law` at
        `state`, and of the network's mean squared error in that event's luck (0
        without a network; a luck network read through a lookahead is read so, at
        the events it serves)."""
        actions, probs = zip(*law)
        estimates, children = [], []
        for action in self.rng.choices(actions, probs, k=2):
            child = state.clone()
            child.apply_action(action)
            x = [self.rollout(child) for _ in range(rollouts)]
            estimates.append((float(np.mean(x)), float(np.var(x, ddof=1))))
            children.append(child)
        (m1, v1), (m2, v2) = estimates
        noise = (v1 + v2) / rollouts
        signal = ((m1 - m2) ** 2 - noise) / 2
        if self.net is None:
            return signal, 0.0
        if isinstance(self.net, SeatedLuckNetwork) and self.net.network.lookahead is not None:
            values = self.net.outcome_values(children, choice, self.rng.getrandbits(62))
        else:
            values = state_values(self.net, children)
        n1, n2 = (self.margin(v) for v in values)
        return signal, (((n1 - n2) - (m1 - m2)) ** 2 - noise) / 2


def split_deal(setup: Setup, deal: int) -> DealSplit:
    """Plays deal `deal` at both tables and estimates its parts."""
    game = load_game(setup.game)
    chance_seed = derive_seed(_TABLE, setup.seed, deal)
    margins, parts = [], np.zeros(4)        # cards, choices, and the network's error in each
    rotations = 2
    for rotation in range(rotations):
        rng = random.Random(derive_seed(_ROLLOUTS, setup.seed, deal, rotation))
        seats = lineup(game.num_players(), rotation)
        table = _Table(game, (setup.first, setup.second), seats, rng, valuer(setup, game, seats))
        bots = table.bots(derive_seed(setup.seed, deal, rotation))
        chance, state, playing = DealChance(chance_seed), game.new_initial_state(), False
        while not state.is_terminal():
            if state.is_chance_node():
                if playing:
                    parts[[0, 2]] += table.spread(state, state.chance_outcomes(), setup.rollouts, False)
                state.apply_action(chance(state))
                continue
            playing = True
            bot = bots[state.current_player()]
            law = getattr(bot, "known_policy", lambda s: None)(state)
            if law is not None and len(law) > 1:
                parts[[1, 3]] += table.spread(state, law, setup.rollouts, True)
            state.apply_action(bot.step(state))
        margins.append(table.margin(state.returns()))
    # D is the mean of the tables' margins: each table's parts weigh 1 / rotations^2.
    cards, choices, cards_error, choices_error = (float(x) for x in parts / rotations ** 2)
    return DealSplit(float(np.mean(margins)), cards, choices, cards_error, choices_error)


def valuer(setup: Setup, game: pyspiel.Game, seats: list[int]) -> Valuer | None:
    """The network whose error is measured, at a table seating `seats` (0 first, 1
    second): a value network as it is, a luck network told who sits where."""
    if setup.value is None:
        return None
    if setup.value_is_luck:
        network = luck_network(setup.value, game)
        index = network.for_agents([setup.first, setup.second])
        return network.seated([index[agent] for agent in seats])
    return value_network(setup.value, game)


def is_luck_network(path: str) -> bool:
    """Whether a file is a luck network (else it is read as a value network)."""
    try:
        load(path, kind="luck")
    except (NetFileError, ValueError):
        return False
    return True


def _split(args: tuple[Setup, int]) -> DealSplit:
    return split_deal(*args)


def ceilings(splits: list[DealSplit]) -> dict[str, float]:
    """Var D, the mean parts, and the two ceilings of the SE factor."""
    d = np.array([s.difference for s in splits])
    var = float(d.var(ddof=1))
    cards = float(np.mean([s.cards for s in splits]))
    choices = float(np.mean([s.choices for s in splits]))

    cards_error = float(np.mean([s.cards_error for s in splits]))
    choices_error = float(np.mean([s.choices_error for s in splits]))

    def ceiling(left: float) -> float:
        return math.sqrt(var / left) if left > 0 else math.inf
    return {"var": var, "cards": cards, "choices": choices, "cards_error": cards_error,
            "choices_error": choices_error,
            "chance_only": ceiling(var - cards), "with_choices": ceiling(var - cards - choices),
            "network_chance_only": ceiling(var - cards + cards_error),
            "network_with_choices": ceiling(var - cards - choices + cards_error + choices_error)}


def main() -> None:
    p = CliParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--game", required=True, type=game_string)
    p.add_argument("--first", required=True, metavar="SPEC")
    p.add_argument("--second", required=True, metavar="SPEC")
    p.add_argument("--deals", type=integer(4, 10**6), default=200)
    p.add_argument("--seed", type=seed, default=0)
    p.add_argument("--rollouts", type=integer(2, 10**4), default=8, help="rollouts after each sampled outcome")
    p.add_argument("--value", default="shipped", metavar="FILE",
                   help="the value network whose error in the luck is measured (default: the shipped one; "
                        "a luck network for the two agents, training/luck_value.py; none: no network)")
    p.add_argument("--workers", type=integer(1, 1024), default=1)
    args = p.parse_args()
    game = load_game(args.game)
    value = None if args.value == "none" else args.value
    if game.num_players() % 2:
        p.error(f"{args.game} seats {game.num_players()} players: the two agents alternate seats, "
                f"which needs an even number")
    specs = []
    for spec in (args.first, args.second):
        if split_agent(spec)[0] != spec.strip():
            p.error(f"agent {spec!r}: give a bot spec, not NAME=SPEC")
        try:
            make_bot(spec, game, 0, 0)
        except ValueError as e:
            p.error(one_line(e))
        specs.append(spec.strip())
    setup = Setup(args.game, specs[0], specs[1], args.seed, args.rollouts, value,
                  value is not None and is_luck_network(value))
    if value is not None:
        try:
            valuer(setup, game, lineup(game.num_players(), 0))
        except (ValueError, NetFileError) as e:
            p.error(one_line(e))
    tasks = [(setup, deal) for deal in range(args.deals)]
    with Pool(args.workers) as pool:
        splits = list(tqdm(pool.imap(_split, tasks), total=len(tasks), desc="deals", unit="deal"))
    c = ceilings(splits)
    rng = np.random.default_rng(args.seed)
    boot = [ceilings([splits[i] for i in rng.integers(0, len(splits), len(splits))]) for _ in range(1000)]

    def interval(key: str) -> str:
        low, high = np.percentile([b[key] for b in boot], [2.5, 97.5], method="nearest")
        return f"[{low:.2f}, {high:.2f}]"      # inf where a resample leaves nothing: no ceiling
    d = np.array([s.difference for s in splits])
    print(f"game {game}; {specs[0]} less {specs[1]}; {len(d)} duplicate deals, seed {args.seed}, "
          f"{args.rollouts} rollouts an outcome")
    print(f"D: mean {d.mean():+.4f} +- {Z95 * d.std(ddof=1) / math.sqrt(len(d)):.4f}, variance {c['var']:.4f}")
    for key, words in (("cards", "the cards drawn in play"), ("choices", "the stated random choices")):
        x = [getattr(s, key) for s in splits]
        print(f"part of Var D from {words}: {c[key]:.4f} +- {Z95 * np.std(x, ddof=1) / math.sqrt(len(x)):.4f} "
              f"({c[key] / c['var']:.0%})")
    print(f"left (the deal's uncancelled share, unstated randomness, the tables' shared deck): "
          f"{c['var'] - c['cards'] - c['choices']:.4f}")
    print(f"SE factor ceiling, chance events alone: {c['chance_only']:.2f} {interval('chance_only')}")
    print(f"SE factor ceiling, stated choices adjusted too: {c['with_choices']:.2f} {interval('with_choices')}")
    if value is None:
        return
    for key, words in (("cards_error", "the cards'"), ("choices_error", "the stated choices'")):
        x = [getattr(s, key) for s in splits]
        print(f"the network's error in {words} luck, summed over a deal: {c[key]:.4f} "
              f"+- {Z95 * np.std(x, ddof=1) / math.sqrt(len(x)):.4f}")
    print(f"SE factor the network should reach, chance events alone: {c['network_chance_only']:.2f} "
          f"{interval('network_chance_only')}; stated choices too: {c['network_with_choices']:.2f} "
          f"{interval('network_with_choices')}")


if __name__ == "__main__":
    main()
