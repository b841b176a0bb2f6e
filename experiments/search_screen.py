"""A quick screen of candidate bots before a tournament is spent on one: what each
one's departures from the rule bot's moves are worth on the true cards, at Page
One or American Page One (experiments/search_departures.py does this at American
Page One with a breakdown by kind of move).

    python -m experiments.search_screen --game "python_page_one(players=4)" --deals 40 neural "pimc(...)"

Rule bots play `--deals` deals (seed `--seed`). At each decision of seat 0 with a
choice, every bot named is asked its move; where it differs from the rule bot's,
both are valued on the true state by `--rollouts` rule-bot playouts with the same
draws for both, in seat 0's finishing place ([-1, 1], search.mcts.placement). A
bot's total gain over the deals (with its standard error) is what its own choices
would have added to the rule bot's play, the rest of each deal played by rule bots.
It is a screen, not a rating: its opponents are rule bots, and it values a move by
rule-bot play after it.
"""

from __future__ import annotations

import argparse
import math
import random
import time

import pyspiel
from tqdm import tqdm

import games  # noqa: F401  (registers our games)
from agents import make_bot
from agents.base import rules_core
from experiments.search_departures import rule_playout_places
from search.rollout import BotRollout


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m experiments.search_screen", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("bots", nargs="+", help="bot specs to ask at each decision of seat 0")
    parser.add_argument("--game", default="python_page_one(players=4)")
    parser.add_argument("--deals", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0, help="the deals' seed")
    parser.add_argument("--rollouts", type=int, default=100, help="playouts valuing each of the two moves")
    args = parser.parse_args(argv)
    try:
        game = pyspiel.load_game(args.game)
        rules = [make_bot("rules", game, p, p) for p in range(game.num_players())]
        bots = [make_bot(spec, game, 0, 11) for spec in args.bots]
    except (ValueError, pyspiel.SpielError) as e:
        parser.exit(2, f"search_screen: {e}\n")
    rollout = BotRollout.from_spec("rules", game, 0)
    gains: list[list[float]] = [[] for _ in bots]
    seconds = [0.0 for _ in bots]
    decisions = 0

    for deal in tqdm(range(args.deals), desc="deals"):
        state, chance = rules_core(game.new_initial_state()), random.Random(f"{args.seed}/{deal}")
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(state.sample_chance_outcome(chance.random()))
                continue
            player = state.current_player()
            if player == 0 and len(state.legal_actions()) > 1:
                decisions += 1
                rule_move = rules[0].step(state)
                base = random.Random(f"{args.seed}/{deal}/{decisions}").getrandbits(32)
                seeds = [base + j for j in range(args.rollouts)]
                rule_value = None
                for i, bot in enumerate(bots):
                    start = time.perf_counter()
                    move = bot.step(state)
                    seconds[i] += time.perf_counter() - start
                    if move != rule_move:
                        rule_value = rule_value or rule_playout_places(rollout, state, rule_move, seeds)
                        gains[i].append(sum(x - y for x, y in zip(rule_playout_places(rollout, state, move, seeds), rule_value))
                                        / len(seeds))
            state.apply_action(rules[player].step(state))
    print(f"{args.game}: {args.deals} deals (seed {args.seed}), {decisions} decisions of seat 0 with a choice; "
          f"gains in placement ([-1, 1]) on the true cards, {args.rollouts} playouts a move")
    print("| bot | departures | total gain (standard error) | a deal | ms/move |")
    print("|---|---:|:---:|---:|---:|")
    for spec, g, s in zip(args.bots, gains, seconds):
        mean = sum(g) / len(g) if g else 0.0
        error = math.sqrt(sum((x - mean) ** 2 for x in g) * len(g) / (len(g) - 1)) if len(g) > 1 else 0.0
        print(f"| `{spec}` | {len(g)} | {sum(g):+.2f} ({error:.2f}) | {sum(g) / args.deals:+.3f} | "
              f"{1000 * s / max(decisions, 1):.0f} |")


if __name__ == "__main__":
    main()
