"""Whether the Node.js engine (examples/node_engine/) plays the shipped networks move for move
as the Python `neural` bot does, on every decision of many deals.

Each deal: one seat is played by a twin, the others by the rule bot. At each of the twin's
decisions, both the in-process `neural` bot and the engine (`engine(cmd=node ...)`, through
the harness's own engine bot: the same turn messages a tournament sends) are asked; the game
goes on with `neural`'s move, and every decision where the two differ is listed. The twin's
seat turns round the table from deal to deal. Exit 1 when any move differs.

    python -m experiments.onnx_engine_check --deals 100 --seed 1 [--game GAME ...]
        [--neural SPEC --engine CMD]     (other settings on both sides: policy=sample, say)
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pyspiel
from tqdm import tqdm

import games  # noqa: F401  (registers every game)
from agents import SHIPPED_BOTS, make_bot
from agents.base import CardBot
from agents.engine import close_engines
from agents.neural.botfile import load_bot
from eval.play import play_deal
from eval.referee import Moves
from games import registry
from games.chance import DealChance
from games.load import load_game

ROOT = Path(__file__).resolve().parents[1]
ENGINE = f"node {ROOT / 'examples' / 'node_engine' / 'engine.mjs'}"


class Twin(CardBot):
    """Asks both bots at each decision, plays the first's move, keeps where they differ."""

    def __init__(self, player: int, reference: pyspiel.Bot, other: pyspiel.Bot):
        super().__init__(player)
        self.reference, self.other = reference, other
        self.decisions = 0
        self.differ: list[tuple[int, int, int]] = []      # (move index, reference's, other's)
        self.seconds = [0.0, 0.0]

    def restart_at(self, state) -> None:
        self.reference.restart_at(state)
        self.other.restart_at(state)

    def step(self, state) -> int:
        t0 = time.perf_counter()
        a = self.reference.step(state)
        t1 = time.perf_counter()
        b = self.other.step(state)
        t2 = time.perf_counter()
        self.seconds[0] += t1 - t0
        self.seconds[1] += t2 - t1
        self.decisions += 1
        if a != b:
            self.differ.append((len(state.history()), a, b))
        return a


def shipped_games() -> list[str]:
    """The game string of every registered game's shipped network that has an ONNX file."""
    return [load_bot(SHIPPED_BOTS / f"{e.name}.safetensors").identity.game_string
            for e in registry.registered() if (SHIPPED_BOTS / f"{e.name}.onnx").is_file()]


def check(game_string: str, deals: int, seed: int, engine: str,
          neural: str = "neural") -> tuple[int, int, list, list[float]]:
    """(deals, decisions, differences, [neural seconds, engine seconds]) over `deals` deals."""
    game = load_game(game_string)
    n = game.num_players()
    decisions, differ, seconds = 0, [], [0.0, 0.0]
    for i in tqdm(range(deals), desc=game.get_type().short_name, file=sys.stderr):
        deal_seed = seed + i
        seat = i % n
        twin = Twin(seat, make_bot(neural, game, seat, deal_seed),
                    make_bot(f"engine(cmd={engine},cwd={ROOT},time_limit=60)", game, seat, deal_seed))
        bots = [twin if s == seat else make_bot("rules", game, s, deal_seed + s) for s in range(n)]
        play_deal(game, bots, DealChance(deal_seed), Moves(n), [0.0] * n, 120.0)
        decisions += twin.decisions
        differ += [(deal_seed, seat, *d) for d in twin.differ]
        seconds = [x + y for x, y in zip(seconds, twin.seconds)]
    return deals, decisions, differ, seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m experiments.onnx_engine_check",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--game", action="append", help="a game string (default: every game with a shipped .onnx)")
    parser.add_argument("--engine", default=ENGINE, help="the engine's command line")
    parser.add_argument("--neural", default="neural", help="the in-process bot's spec")
    args = parser.parse_args(argv)
    if args.deals < 1:
        parser.error("--deals must be at least 1")
    failed = False
    try:
        for game_string in args.game or shipped_games():
            try:
                deals, decisions, differ, seconds = check(game_string, args.deals, args.seed, args.engine,
                                                          args.neural)
            except ValueError as e:            # a bad game string or spec, an engine that refused the game
                print(f"onnx_engine_check: {e}", file=sys.stderr)
                return 2
            same = decisions - len(differ)
            print(f"{game_string.split('(')[0]}: {deals} deals, {decisions} decisions of the network's seat, "
                  f"{same} the same ({100.0 * same / max(decisions, 1):.2f}%); ms a decision: neural "
                  f"{1000 * seconds[0] / max(decisions, 1):.2f}, "
                  f"node engine {1000 * seconds[1] / max(decisions, 1):.2f}")
            for deal, seat, move, a, b in differ[:10]:
                print(f"  differs: deal seed {deal}, seat {seat}, move {move}: neural {a}, engine {b}")
            failed |= bool(differ) or decisions == 0
    finally:
        close_engines()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
