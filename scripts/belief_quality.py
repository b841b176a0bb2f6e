"""How close resampled American Page One worlds come to the true hands.

    python -m scripts.belief_quality                 # 30 rule-bot deals
    python -m scripts.belief_quality --deals 10 --worlds 20

Rule bots play deals. Every fifth decision of seat 0 after the twentieth, it
draws `--worlds` worlds from its information state, uniformly
(`resample_from_infostate`) and assuming the others play like the rule bot
(`resample_assuming`, docs/rules/american_page_one.md), and reports, for each:

* the share of the others' true cards that the world gives them (the copies of
  each kind matched hand by hand);
* how many of the others' earlier moves the rule bot would not have made in the
  world (search.inference; zero for the true state of rule-bot deals);
* milliseconds per world (a view of the information state is built once and
  reused by the worlds drawn from it).
"""

from __future__ import annotations

import argparse
import random
import time

import pyspiel

import games  # noqa: F401  (registers our games)
from agents import make_bot
from agents.base import rules_core
from games.american_page_one.core import hand_kinds
from search.inference import WorldInference


def shared_cards(truth, world, seats: list[int]) -> tuple[int, int]:
    """(cards of the seats' true hands that the world gives them too, cards in those hands)."""
    found = total = 0
    for seat in seats:
        given = hand_kinds(world.lo[seat], world.hi[seat])
        for kind in hand_kinds(truth.lo[seat], truth.hi[seat]):
            if kind in given:
                given.remove(kind)
                found += 1
            total += 1
    return found, total


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m scripts.belief_quality", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="python_american_page_one(players=4)")
    parser.add_argument("--deals", type=int, default=30)
    parser.add_argument("--worlds", type=int, default=10)
    args = parser.parse_args(argv)
    game = pyspiel.load_game(args.game)
    bots = [make_bot("rules", game, p, p) for p in range(game.num_players())]
    inference = WorldInference("rules", game, 0)
    seats = list(range(1, game.num_players()))
    ways = {"uniform": lambda s, r: s.resample_from_infostate(0, r),
            "assume=rules": lambda s, r: s.resample_assuming(0, r, bots[0])}
    found = {w: [0, 0] for w in ways}
    wrong = {w: 0 for w in ways}
    seconds = {w: 0.0 for w in ways}
    worlds = 0
    for deal in range(args.deals):
        state, chance = rules_core(game.new_initial_state()), random.Random(deal)
        step = 0
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(state.sample_chance_outcome(chance.random()))
                continue
            player = state.current_player()
            if player == 0 and step > 20 and step % 5 == 0:
                worlds += args.worlds
                for way, draw in ways.items():
                    rand = random.Random(7).random
                    for _ in range(args.worlds):
                        start = time.perf_counter()
                        world = draw(state, rand)
                        seconds[way] += time.perf_counter() - start
                        f, t = shared_cards(state, world, seats)
                        found[way][0] += f
                        found[way][1] += t
                        wrong[way] += inference.disagreements(world, 0)
            step += 1
            state.apply_action(bots[player].step(state))
    print(f"{args.game}: {args.deals} rule-bot deals, {worlds} worlds each way")
    for way in ways:
        print(f"  {way:<13} shares {found[way][0] / found[way][1]:.1%} of the others' cards, "
              f"disagrees with {wrong[way] / worlds:.1f} of their moves, "
              f"{1000 * seconds[way] / worlds:.2f} ms a world")


if __name__ == "__main__":
    main()
