"""What `--luck` costs (eval/luck.py): the CPU time to measure one deal's luck, against
playing that deal, in the same run.

The deals are rules against random (rules at the even seats), chance drawn by the
harness's DealChance, seeded so every run reads the same deals. The luck is measured
as a tournament's `--luck` measures it: the shipped value network, at every chance
event and at each of the random bot's choices (its stated policy). The reference is
the play of the same deals by the same bots, timed in the same rounds.
"""

from __future__ import annotations

import time
from typing import Callable

import pyspiel

from agents import make_bot, stated_policy
from eval.luck import luck_events, luck_model
from games import registry
from games.chance import DealChance
from games.load import load_game
from scripts.bench import rounds

CLOCK = time.process_time
AGENTS = ("rules", "random")           # seat s plays AGENTS[s % 2]


def played_deal(game: pyspiel.Game, seed: int) -> list[int]:
    """One deal of AGENTS round the table, its history."""
    bots = [make_bot(AGENTS[s % 2], game, s, seed) for s in range(game.num_players())]
    chance, state = DealChance(seed), game.new_initial_state()
    while not state.is_terminal():
        state.apply_action(chance(state) if state.is_chance_node() else bots[state.current_player()].step(state))
    return state.history()


def timed(work: Callable[[], object]) -> float:
    start = CLOCK()
    work()
    return CLOCK() - start


def section_luck(seconds: float, repeats: int, game_strings: list[str] | None = None) -> None:
    """Per game with a shipped value network: CPU seconds a deal to measure its luck
    and to play it, and their ratio. `seconds` bounds the deals taken (as many as one
    round of luck fits, one at least)."""
    print("== luck (--luck): CPU a deal to measure its luck against playing it, rules against random ==")
    for game_string in game_strings or [entry.example for entry in registry.registered()]:
        game = load_game(game_string)
        if luck_model(game) is None:
            print(f"  {game_string}: no shipped value network")
            continue
        policies = [stated_policy(AGENTS[s % 2], game) for s in range(game.num_players())]
        luck_events(game, played_deal(game, 0)[:1], policies=policies)   # the network read once, not timed
        histories, terms, spent = [], 0, 0.0
        while not histories or spent < seconds:
            histories.append(played_deal(game, len(histories)))
            start = CLOCK()
            terms += len(luck_events(game, histories[-1], policies=policies))
            spent += CLOCK() - start
        seeds = range(len(histories))
        medians = rounds({"play": lambda: timed(lambda: [played_deal(game, s) for s in seeds]) / len(seeds),
                          "luck": lambda: timed(lambda: [luck_events(game, h, policies=policies)
                                                         for h in histories]) / len(seeds)}, repeats)
        p, k = medians["play"], medians["luck"]
        print(f"  {game_string:<38} {len(seeds)} deals, {terms / len(seeds):.0f} luck terms a deal: "
              f"play {p:.4f} s, luck {k:.3f} s a deal ({k / p:.0f}x)")
