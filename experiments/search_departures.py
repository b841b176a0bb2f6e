"""What a bot's departures from the rule bot's moves are worth on the true cards.

    python -m experiments.search_departures "ismcts(iterations=300,rollout=rules,baseline=rules,assume=rules,utility=placement)"
    python -m experiments.search_departures --deals 30 BOT [BOT ...]

Rule bots play American Page One deals. At each decision of seat 0 with a
choice, every bot named is asked its move; where it differs from the rule
bot's, both moves are valued on the true state (the hidden cards as they are)
by `--rollouts` rule-bot playouts to the end with the same draws for both
(common random numbers), in the seat's finishing place among the others
(search.mcts.placement, in [-1, 1]). A departure's gain is the difference; their
sum over the deals is what the bot's own choices would have added to the rule
bot's play, move by move, with the rest of the deal played by rule bots.

A tournament answers the same question with far more noise (a deal's return
spreads over ±119 points, a move is worth a few); this says where a search's
choices gain or lose, by kind of departure, before a tournament is spent on it.
The cheating reference (a search reading the true hands) gains here by far:
what decides is what the worlds a search draws say about the hidden hands.
Any bot spec can be asked: the margin of American Page One's network of
advantages (experiments/logs/neural.md) was chosen with it.
"""

from __future__ import annotations

import argparse
import math
import random

import pyspiel
from tqdm import tqdm

import games  # noqa: F401  (registers our games)
from agents import make_bot
from agents.base import rules_core
from games.american_page_one.core import NUM_KINDS, PHASE_NAMES
from search.mcts import placement
from search.rollout import BotRollout


def rule_playout_places(rollout: BotRollout, state, action: int, seeds: list[int]) -> list[float]:
    """Seat 0's place after `action`, in one rule-bot playout on the true cards per seed
    (the same seeds for every move compared, so their draws are the same)."""
    out = []
    for seed in seeds:
        world = state.clone()
        world.apply_action(action)
        out.append(placement(rollout.evaluate(world, random.Random(seed).random))[0])
    return out


def departure_kind(state, rule_move: int, move: int) -> str:
    """'play: card -> draw', 'name suit: name ♠ -> name ♦', ..."""
    name = lambda a: "card" if a < NUM_KINDS else state.action_to_string(0, a)  # noqa: E731
    return f"{PHASE_NAMES[state.phase]}: {name(rule_move)} -> {name(move)}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m experiments.search_departures", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("bots", nargs="+", help="bot specs to ask at each decision of seat 0")
    parser.add_argument("--game", default="python_american_page_one(players=4)")
    parser.add_argument("--deals", type=int, default=30)
    parser.add_argument("--rollouts", type=int, default=100, help="playouts valuing each of the two moves")
    args = parser.parse_args(argv)
    game = pyspiel.load_game(args.game)
    rules = [make_bot("rules", game, p, p) for p in range(game.num_players())]
    searchers = [make_bot(spec, game, 0, 11) for spec in args.bots]
    rollout = BotRollout.from_spec("rules", game, 0)
    gains: list[list[float]] = [[] for _ in args.bots]
    by_kind: list[dict[str, list[float]]] = [{} for _ in args.bots]
    decisions = 0

    for deal in tqdm(range(args.deals), desc="deals"):
        state, chance = rules_core(game.new_initial_state()), random.Random(100 + deal)
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(state.sample_chance_outcome(chance.random()))
                continue
            player = state.current_player()
            if player == 0 and len(state.legal_actions()) > 1:
                decisions += 1
                rule_move = rules[0].step(state)
                base = random.Random(deal * 1000 + decisions).getrandbits(32)
                seeds = [base + j for j in range(args.rollouts)]
                for i, searcher in enumerate(searchers):
                    move = searcher.step(state)
                    if move != rule_move:
                        gain = sum(x - y for x, y in zip(rule_playout_places(rollout, state, move, seeds),
                                                          rule_playout_places(rollout, state, rule_move, seeds))) / len(seeds)
                        gains[i].append(gain)
                        by_kind[i].setdefault(departure_kind(state, rule_move, move), []).append(gain)
            state.apply_action(rules[player].step(state))
    print(f"{args.game}: {args.deals} deals, {decisions} decisions of seat 0 with a choice; "
          f"gains in placement ([-1, 1]) on the true cards, {args.rollouts} playouts a move")
    for spec, g, kinds in zip(args.bots, gains, by_kind):
        spread = math.sqrt(sum((x - sum(g) / len(g)) ** 2 for x in g) * len(g) / (len(g) - 1)) if len(g) > 1 else 0
        print(f"\n{spec}\n  departures {len(g)}, total gain {sum(g):+.2f} (standard error {spread:.2f}), "
              f"{sum(g) / args.deals:+.3f} a deal")
        for kind, k in sorted(kinds.items(), key=lambda item: -len(item[1])):
            print(f"    {kind:<40} {len(k):4d}  {sum(k) / len(k):+.3f} each")


if __name__ == "__main__":
    main()
