"""How far a bot's moves fall from the best one, valued by rule-bot play after it.

    python -m experiments.search_regret                                  # American Page One, 40 positions
    python -m experiments.search_regret --bot "ismcts(iterations=100,rollout=rules)" --rollouts 300

Positions are drawn from games between rule bots (turns with a choice, in the
play phase). At each, every legal action is valued by `--rollouts` rollouts:
a world resampled from the mover's information state, the action, then the rule
bot in every seat to the end (the mover's return). A move's regret is the best
action's value less its own. The rule bot's regret says how much a search whose
rollouts are the rule bot could gain at most by one step of lookahead; the
searching bot's regret, how much of it its budget finds (experiments/logs/search.md).
"""

from __future__ import annotations

import argparse
import random
import statistics

import pyspiel
from tqdm import tqdm

import games  # noqa: F401  (registers our games)
from agents import make_bot
from agents.base import rules_core
from games.american_page_one.core import PLAY
from search.rollout import BotRollout


def sample_positions(game: pyspiel.Game, count: int, rng: random.Random) -> list:
    """Turns with a choice from games between rule bots, about one in twenty."""
    positions = []
    while len(positions) < count:
        state = game.new_initial_state()
        bots = [make_bot("rules", game, p, p) for p in range(game.num_players())]
        while not state.is_terminal() and len(positions) < count:
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0])
                continue
            core = rules_core(state)
            if len(state.legal_actions()) > 1 and getattr(core, "phase", PLAY) == PLAY \
                    and rng.random() < 0.05:
                positions.append(core.clone())
            state.apply_action(bots[state.current_player()].step(state))
    return positions


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m experiments.search_regret", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="python_american_page_one(players=4)",
                        help="an American Page One variant (positions are taken in its play phase)")
    parser.add_argument("--bot", default="pimc(worlds=20,iterations=10,rollout=rules,chance=fixed,scale=observed)")
    parser.add_argument("--positions", type=int, default=40)
    parser.add_argument("--rollouts", type=int, default=300, help="rollouts valuing each legal action")
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args(argv)
    game = pyspiel.load_game(args.game)
    rng = random.Random(args.seed)
    rollout = BotRollout.from_spec("rules", game, args.seed)
    regrets: dict[str, list[float]] = {"rules": [], args.bot: []}
    agree = 0
    for position in tqdm(sample_positions(game, args.positions, rng), desc="positions"):
        me = position.current_player()
        values = {}
        for action in position.legal_actions():
            total = 0.0
            for _ in range(args.rollouts):
                world = position.resample_from_infostate(me, rng.random)
                world.apply_action(action)
                total += rollout.evaluate(world, rng.random)[me]
            values[action] = total / args.rollouts
        best = max(values.values())
        moves = {"rules": make_bot("rules", game, me, 0).step(position),
                 args.bot: make_bot(args.bot, game, me, 1).step(position.clone())}
        for name, move in moves.items():
            regrets[name].append(best - values[move])
        agree += moves["rules"] == moves[args.bot]
    print(f"{args.game}, {args.positions} positions, {args.rollouts} rollouts an action "
          f"(the values' own noise adds to both regrets)")
    for name, r in regrets.items():
        print(f"  {name:<60} mean regret {statistics.mean(r):6.2f}, zero at {sum(x == 0 for x in r)} positions")
    print(f"  same move as the rule bot at {agree} of {args.positions}")


if __name__ == "__main__":
    main()
