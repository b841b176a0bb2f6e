"""How close resampled worlds come to the true hands (American Page One, Canasta).

    python -m experiments.belief_quality                 # American Page One, 30 rule-bot deals
    python -m experiments.belief_quality --deals 10 --worlds 20
    python -m experiments.belief_quality --game python_modern_canasta --likeliest-of 32
    python -m experiments.belief_quality --game python_modern_canasta --likeliest-of 32 \
        --side neural --partner-model neural

Rule bots play deals (with `--side SPEC`, that bot plays seat 0's side, its
partner included, and the rule bot the opponents). Every fifth decision of seat 0 after the twentieth, it
draws `--worlds` worlds from its information state in each of these ways:

* uniformly (`resample_from_infostate`);
* assuming the others play like the rule bot (`resample_assuming`,
  docs/rules/american_page_one.md), where the game has it;
* with `--likeliest-of N`, the likeliest `--worlds` of N uniform draws under
  the rule bot's play (search.inference: what `pimc(model=rules,candidates=N)`
  searches);
* with `--partner-model SPEC` too, the likeliest with seat 0's partner
  modelled by SPEC and the opponents by the rule bot (what
  `pimc(model=rules,partner_model=SPEC)` searches);

and reports, for each:

* the share of the others' hidden cards that the world gives them, partner and
  opponents apart where the game has partnerships (the copies
  of each kind matched hand by hand; at Canasta the cards others know a hand
  holds, taken with the pile, are left out, since every world has them right);
* how many of the others' earlier moves the rule bot would not have made in the
  world (zero for the true state of rule-bot deals; with `--partner-model`, the
  partner's judged by that model);
* milliseconds per world (a view of the information state is built once and
  reused by the worlds drawn from it; for the likeliest, all N draws and their
  likelihoods, per world kept).
"""

from __future__ import annotations

import argparse
import random
import time

import pyspiel

import games  # noqa: F401  (registers our games)
from agents import make_bot
from agents.base import rules_core
from search.inference import WorldInference
from search.rollout import side_of


def hidden_cards(state, seat: int) -> list[int]:
    """The kinds of the cards in `seat`'s hand that the others cannot know, one entry a copy."""
    if hasattr(state, "known"):                     # Canasta: counts per kind, and the known ones
        return [k for k, (held, known) in enumerate(zip(state.hands[seat], state.known[seat]))
                for _ in range(held - known)]
    from games.american_page_one.core import hand_kinds
    return hand_kinds(state.lo[seat], state.hi[seat])


def shared_cards(truth, world, seats: list[int]) -> tuple[int, int]:
    """(cards of the seats' true hidden hands that the world gives them too, cards in those hands)."""
    found = total = 0
    for seat in seats:
        given = hidden_cards(world, seat)
        for kind in hidden_cards(truth, seat):
            if kind in given:
                given.remove(kind)
                found += 1
            total += 1
    return found, total


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m experiments.belief_quality", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="python_american_page_one(players=4)")
    parser.add_argument("--deals", type=int, default=30)
    parser.add_argument("--worlds", type=int, default=10)
    parser.add_argument("--likeliest-of", type=int, default=0, metavar="N",
                        help="also the likeliest --worlds of N uniform draws under the rule bot's play")
    parser.add_argument("--side", default="rules", metavar="SPEC",
                        help="the bot that plays seat 0's side (its partner too); the opponents play rules")
    parser.add_argument("--partner-model", metavar="SPEC",
                        help="with --likeliest-of: also the likeliest with seat 0's partner modelled by SPEC")
    args = parser.parse_args(argv)
    game = pyspiel.load_game(args.game)
    own = side_of(game, 0)
    partners = tuple(sorted(own - {0}))
    if args.partner_model and not partners:
        parser.error(f"--partner-model: {args.game} has no partnerships")
    bots = [make_bot(args.side if p in own else "rules", game, p, p) for p in range(game.num_players())]
    inference = WorldInference("rules", game, 0)
    judge = inference if not args.partner_model else \
        WorldInference("rules", game, 0, partners=partners, partner_spec=args.partner_model)
    groups = {"partner": list(partners), "opponents": [s for s in range(1, game.num_players()) if s not in own]} \
        if partners else {"others": list(range(1, game.num_players()))}

    def likeliest_under(model: WorldInference):
        def draw(state, rand):
            drawn = [state.resample_from_infostate(0, rand) for _ in range(args.likeliest_of)]
            drawn.sort(key=lambda w: -model.log_likelihood(w, 0))
            return drawn[:args.worlds]
        return draw

    ways = {"uniform": lambda s, r: [s.resample_from_infostate(0, r) for _ in range(args.worlds)]}
    if hasattr(rules_core(game.new_initial_state()), "resample_assuming"):
        ways["assume=rules"] = lambda s, r: [s.resample_assuming(0, r, bots[0]) for _ in range(args.worlds)]
    if args.likeliest_of:
        if args.likeliest_of < args.worlds:
            parser.error(f"--likeliest-of {args.likeliest_of}: must be at least --worlds {args.worlds}")
        ways[f"likeliest of {args.likeliest_of}"] = likeliest_under(inference)
        if args.partner_model:
            ways[f"+ partner model"] = likeliest_under(judge)
    found = {w: {g: [0, 0] for g in groups} for w in ways}
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
                    start = time.perf_counter()
                    drawn = draw(state, rand)
                    seconds[way] += time.perf_counter() - start
                    for world in drawn:
                        for group, seats in groups.items():
                            f, t = shared_cards(state, world, seats)
                            found[way][group][0] += f
                            found[way][group][1] += t
                        wrong[way] += judge.disagreements(world, 0)
            step += 1
            state.apply_action(bots[player].step(state))
    print(f"{args.game}: {args.deals} deals, seat 0's side {args.side}, {worlds} worlds each way")
    for way in ways:
        shares = ", ".join(f"{found[way][g][0] / max(1, found[way][g][1]):.1%} of the {g}'" for g in groups)
        print(f"  {way:<16} shares {shares} hidden cards, "
              f"disagrees with {wrong[way] / max(1, worlds):.1f} of their moves, "
              f"{1000 * seconds[way] / max(1, worlds):.2f} ms a world")


if __name__ == "__main__":
    main()
