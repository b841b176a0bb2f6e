"""The strength figures of experiments/logs/search.md: one harness tournament per line below,
on duplicate deals with 95% bootstrap intervals (docs/tournament.md).

    python -m experiments.search_strength                  # list the tournaments
    python -m experiments.search_strength page_one hearts  # run (or resume) some, print their tables

Results go to results/search_<name>.db (resumable: run the same line again to
finish or extend it) with the harness's .md/.csv/.json/.png reports beside them.
Budgets are chosen so that each tournament finishes in well under an hour on
two shared cores; the `ms/move` column of each table gives the time they took.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

RESULTS = Path("results")
HEARTS_PASS = ("hearts_fixed_pass", "search.references:make_hearts_fixed_pass")
# The Canasta network shipped until expert iteration replaced it (experiments/logs/neural.md): the prior of the
# Canasta lines below, which named it `prior=shipped` when they ran.
CANASTA_DMC = "bots/earlier/python_modern_canasta_dmc.safetensors"
# The strategy lab's tuned rule bot (docs/studies/canasta.md, round 7: `cardarena study tune`).
CANASTA_TUNED = "rules(initial_meld=pile,new_meld_min=5,go_out=lead)"
# Run J's network (experiments/logs/neural.md), shipped when the searches over it were measured; run L's since.
CANASTA_RUN_J = "neural(path=bots/earlier/python_modern_canasta_advantage_tuned.safetensors)"
# Run L's network, shipped from 2026-12-02 until run AB's mean of five networks (2026-12-03).
CANASTA_RUN_L = "neural(path=bots/earlier/python_modern_canasta_advantage_l.safetensors)"


@dataclass(frozen=True)
class Tournament:
    game: str
    agents: tuple[str, ...]
    deals: int
    why: str
    register: tuple[tuple[str, str], ...] = ()
    seed: int = 0


TOURNAMENTS: dict[str, Tournament] = {
    # Four agents, one per seat: every game is a game of each pair (400 per pairing).
    "page_one": Tournament(
        "python_page_one(players=4)",
        ("random", "rules", "ismcts=ismcts(iterations=1000,rollout=rules)",
         "pimc=pimc(worlds=40,iterations=25,rollout=rules)"), 100,
        "ISMCTS and PIMC against the rule bot and random"),
    # Two agents, two seats each: four cross-table comparisons a game, for the closer pairings.
    "page_one_ismcts_rules": Tournament(
        "python_page_one(players=4)", ("ismcts=ismcts(iterations=1000,rollout=rules)", "rules"), 150,
        "ISMCTS against the rule bot, two seats each"),
    "page_one_pimc_rules": Tournament(
        "python_page_one(players=4)", ("pimc=pimc(worlds=40,iterations=25,rollout=rules)", "rules"), 150,
        "PIMC against the rule bot, two seats each"),
    "page_one_pimc_fixed_rules": Tournament(
        "python_page_one(players=4)", ("pimc=pimc(worlds=40,iterations=25,rollout=rules,chance=fixed)", "rules"),
        150, "PIMC whose worlds fix their draws against the rule bot, two seats each"),
    # The shipped network as prior (PUCT) in every world: the search starts from the
    # network's play and leaves it where the world's rollouts show a better move.
    "page_one_pimc_prior_shipped": Tournament(
        "python_page_one(players=4)",
        ("pimc=pimc(worlds=40,iterations=25,rollout=rules,prior=shipped)", "rules"), 150,
        "PIMC with the shipped network as prior against the rule bot, two seats each"),
    # The same pairing again on 450 new deals: the line above was close (+15 [-2, +31]).
    "page_one_pimc_prior_shipped_again": Tournament(
        "python_page_one(players=4)",
        ("pimc=pimc(worlds=40,iterations=25,rollout=rules,prior=shipped)", "rules"), 450,
        "the same on 450 other deals", seed=1),
    # Issue 22: the shipped network as prior and as the rollouts' policy (experiments/logs/search.md).
    "page_one_pimc_neural_rollouts": Tournament(
        "python_page_one(players=4)",
        ("pnr=pimc(worlds=16,iterations=12,rollout=neural,prior=shipped)", "rules"), 150,
        "PIMC with the shipped network as prior and rollout policy against the rule bot, two seats each",
        seed=2),
    # The upper bound on the same deals: UCT on the true state, every hand known.
    "page_one_cheat": Tournament(
        "python_page_one(players=4)", ("cheat=cheat_mcts(iterations=1000,rollout=rules)", "rules"), 150,
        "UCT on the true state (hidden cards known), against the rule bot, two seats each", seed=2),
    "page_one_equal_time": Tournament(
        "python_page_one(players=4)",
        ("ours=ismcts(seconds=0.1,rollout=rules)", "openspiel=openspiel_ismcts(seconds=0.1)"), 300,
        "our ISMCTS against OpenSpiel's Python ISMCTS at 0.1 s a move each"),
    "page_one_equal_time_fast": Tournament(
        "python_page_one(players=4)",
        ("ours=ismcts(seconds=0.02,rollout=rules)", "openspiel=openspiel_ismcts(seconds=0.02)"), 600,
        "our ISMCTS against OpenSpiel's Python ISMCTS at 0.02 s a move each"),
    "american_page_one": Tournament(
        "python_american_page_one(players=4)",
        ("random", "rules", "ismcts=ismcts(iterations=100,rollout=rules)",
         "pimc=pimc(worlds=10,iterations=10,rollout=rules)"), 100,
        "ISMCTS and PIMC against the rule bot and random"),
    "american_page_one_equal_time": Tournament(
        "python_american_page_one(players=4)",
        ("ours=ismcts(seconds=0.05,rollout=rules)", "openspiel=openspiel_ismcts(seconds=0.05)"), 150,
        "our ISMCTS against OpenSpiel's Python ISMCTS at 0.05 s a move each"),
    # The rule bot's move as prior (PUCT): where ISMCTS alone loses to the rule bot.
    "american_page_one_prior_rules": Tournament(
        "python_american_page_one(players=4)",
        ("ismcts=ismcts(iterations=100,rollout=rules,prior=rules)", "rules"), 100,
        "ISMCTS with the rule bot as prior against the rule bot"),
    # Two ways to make the search's estimates less noisy, each still losing (experiments/logs/search.md).
    "american_page_one_observed": Tournament(
        "python_american_page_one(players=4)",
        ("obs=ismcts(iterations=100,rollout=rules,scale=observed)", "rules"), 40,
        "ISMCTS exploring on the scale of the returns it sees, against the rule bot"),
    "american_page_one_pimc_fixed": Tournament(
        "python_american_page_one(players=4)",
        ("pf=pimc(worlds=20,iterations=10,rollout=rules,chance=fixed,scale=observed)", "rules"), 40,
        "PIMC whose worlds fix their draws (common random numbers), against the rule bot"),
    "american_page_one_pimc_prior_shipped": Tournament(
        "python_american_page_one(players=4)",
        ("pp=pimc(worlds=20,iterations=10,rollout=rules,chance=fixed,scale=observed,"
         "prior=bots/earlier/python_american_page_one_dmc.safetensors)", "rules"), 40,
        "PIMC with the deep Monte-Carlo network (shipped until the advantage network) as prior, "
        "against the rule bot"),
    # What a rating by finishing order rewards, as the search's utility: alone, and from the
    # rule bot's move as prior (which the returns' scale kept it from ever leaving).
    "american_page_one_placement": Tournament(
        "python_american_page_one(players=4)",
        ("isp=ismcts(iterations=100,rollout=rules,utility=placement)", "rules"), 20,
        "ISMCTS maximising its placement, against the rule bot", seed=5),
    "american_page_one_prior_rules_placement": Tournament(
        "python_american_page_one(players=4)",
        ("ipr=ismcts(iterations=100,rollout=rules,prior=rules,utility=placement)", "rules"), 150,
        "ISMCTS maximising its placement from the rule bot's move, against the rule bot", seed=5),
    "american_page_one_pimc_prior_rules_placement": Tournament(
        "python_american_page_one(players=4)",
        ("ppr=pimc(worlds=20,iterations=10,rollout=rules,chance=fixed,prior=rules,utility=placement)", "rules"),
        150, "PIMC maximising its placement from the rule bot's move, against the rule bot", seed=5),
    # Worlds drawn assuming the others play like the rule bot (what its moves show
    # of its hand), and the rule bot's move kept unless the search shows another
    # better by a standard error.
    "american_page_one_ismcts_assume": Tournament(
        "python_american_page_one(players=4)",
        ("ia=ismcts(iterations=300,rollout=rules,baseline=rules,assume=rules,utility=placement,confidence=1)",
         "rules"), 40, "ISMCTS assuming rule-bot opponents, leaving the rule bot's move on evidence", seed=5),
    "american_page_one_pimc_flat_assume": Tournament(
        "python_american_page_one(players=4)",
        ("pa=pimc(worlds=96,flat=true,rollout=rules,baseline=rules,assume=rules,utility=placement,confidence=1)",
         "rules"), 600, "Flat PIMC assuming rule-bot opponents, leaving the rule bot's move on evidence", seed=5),
    # The same two searches leaving the shipped network's move instead (it plays the rule
    # bot's move unless its learnt gain over it clears a margin, experiments/logs/neural.md).
    "american_page_one_pimc_over_neural": Tournament(
        "python_american_page_one(players=4)",
        ("pn=pimc(worlds=96,flat=true,rollout=rules,baseline=neural,assume=rules,utility=placement,confidence=1)",
         "rules"), 600, "Flat PIMC leaving the shipped network's move on evidence, against the rule bot", seed=7),
    "american_page_one_ismcts_over_neural": Tournament(
        "python_american_page_one(players=4)",
        ("in=ismcts(iterations=300,rollout=rules,baseline=neural,assume=rules,utility=placement,confidence=1)",
         "rules"), 600, "ISMCTS leaving the shipped network's move on evidence, against the rule bot", seed=7),
    # ISMCTS whose rounds try every root action on one determinization, chosen on the
    # paired differences (root=paired): on deals not used before.
    "american_page_one_ismcts_paired_over_neural": Tournament(
        "python_american_page_one(players=4)",
        ("ip=ismcts(iterations=480,root=paired,rollout=rules,baseline=neural,assume=rules,utility=placement,"
         "confidence=1)", "rules"), 600,
        "Paired-root ISMCTS leaving the shipped network's move on evidence, against the rule bot", seed=8),
    # The same search on the true state: what the hidden cards cost it.
    "american_page_one_cheat": Tournament(
        "python_american_page_one(players=4)", ("cheat=cheat_mcts(iterations=100,rollout=rules)", "rules"), 100,
        "UCT on the true state (hidden cards known), against the rule bot", seed=5),
    # The bound at 4 times that budget, the same deals: can any search reach issue 22's +60 here?
    "american_page_one_cheat_4x": Tournament(
        "python_american_page_one(players=4)", ("cheat=cheat_mcts(iterations=400,rollout=rules)", "rules"), 100,
        "UCT on the true state at 400 iterations, against the rule bot, the same deals", seed=5),
    # One world of 100 iterations: drawn uniformly, or the likeliest of 80 under the rule
    # bot's play (search/inference.py); against the true world above, what the worlds cost.
    "american_page_one_one_world": Tournament(
        "python_american_page_one(players=4)", ("p1=pimc(worlds=1,iterations=100,rollout=rules)", "rules"), 20,
        "PIMC on one uniformly drawn world, against the rule bot", seed=5),
    "american_page_one_one_world_model": Tournament(
        "python_american_page_one(players=4)",
        ("p1m=pimc(worlds=1,iterations=100,rollout=rules,model=rules,candidates=80)", "rules"), 20,
        "PIMC on the likeliest of 80 worlds under the rule bot's play, against the rule bot", seed=5),
    "american_page_one_one_world_model_400": Tournament(
        "python_american_page_one(players=4)",
        ("p1m400=pimc(worlds=1,iterations=100,rollout=rules,model=rules,candidates=400)", "rules"), 20,
        "PIMC on the likeliest of 400 worlds under the rule bot's play, against the rule bot", seed=5),
    "american_page_one_pimc_model": Tournament(
        "python_american_page_one(players=4)",
        ("pm=pimc(worlds=20,iterations=10,rollout=rules,chance=fixed,scale=observed,model=rules)", "rules"), 20,
        "PIMC on the likeliest 20 of 80 worlds under the rule bot's play, against the rule bot", seed=5),
    # Partnerships: an agent fills a side, so a game is one pairing (2 games per deal).
    "canasta_ismcts_rules": Tournament(
        "python_modern_canasta", ("ismcts=ismcts(iterations=20,rollout=rules)", "rules"), 200,
        "ISMCTS against the rule bot"),
    # Against random a small budget is enough, and a quarter of the cost.
    "canasta_ismcts_random": Tournament(
        "python_modern_canasta", ("ismcts=ismcts(iterations=5,rollout=rules)", "random"), 200,
        "ISMCTS (5 iterations) against random"),
    "canasta_pimc_rules": Tournament(
        "python_modern_canasta", ("pimc=pimc(worlds=4,iterations=5,rollout=rules)", "rules"), 200,
        "PIMC against the rule bot"),
    "canasta_pimc_prior_rules": Tournament(
        "python_modern_canasta", ("pimc=pimc(worlds=4,iterations=5,rollout=rules,prior=rules)", "rules"), 200,
        "PIMC with the rule bot as prior against the rule bot"),
    "canasta_pimc_prior_shipped": Tournament(
        "python_modern_canasta", (f"pimc=pimc(worlds=4,iterations=5,rollout=rules,prior={CANASTA_DMC})", "rules"),
        200, "PIMC with the shipped network as prior against the rule bot"),
    # The upper bound at the budget of the line above: the same 20 iterations and prior, every hand known.
    "canasta_cheat": Tournament(
        "python_modern_canasta", (f"cheat=cheat_mcts(iterations=20,rollout=rules,prior={CANASTA_DMC})", "rules"), 100,
        "UCT on the true state (every hand known) at PIMC's budget above, against the rule bot"),
    "canasta_pimc_shipped_cheat_deals": Tournament(
        "python_modern_canasta", (f"pimc=pimc(worlds=4,iterations=5,rollout=rules,prior={CANASTA_DMC})", "rules"), 100,
        "PIMC with the shipped prior again, on the cheating search's 100 deals: the share of its gap closed"),
    "canasta_pimc_shipped_4x": Tournament(
        "python_modern_canasta", (f"pimc=pimc(worlds=8,iterations=10,rollout=rules,prior={CANASTA_DMC})", "rules"), 100,
        "PIMC with the shipped prior at 4 times the budget (8 worlds of 10 iterations), the same 100 deals"),
    "canasta_cheat_4x": Tournament(
        "python_modern_canasta", (f"cheat=cheat_mcts(iterations=80,rollout=rules,prior={CANASTA_DMC})", "rules"), 100,
        "UCT on the true state at the budget of canasta_pimc_shipped_4x (80 iterations), the same 100 deals"),
    # ISMCTS with the network's prior: one tree over the worlds rather than PIMC's one tree each.
    "canasta_ismcts_shipped": Tournament(
        "python_modern_canasta", (f"ismcts=ismcts(iterations=20,rollout=rules,prior={CANASTA_DMC})", "rules"), 100,
        "ISMCTS with the shipped prior at PIMC's budget (20 iterations), the cheating search's 100 deals"),
    # Worlds under a model of the others' play: the likeliest 4 of 32 drawn, by the rule bot's moves.
    "canasta_pimc_shipped_model": Tournament(
        "python_modern_canasta",
        (f"pimc=pimc(worlds=4,iterations=5,rollout=rules,prior={CANASTA_DMC},model=rules,candidates=32)", "rules"), 100,
        "PIMC with the shipped prior on the likeliest 4 of 32 worlds under the rule bot's play, the same 100 deals"),
    # Expert iteration's network (experiments/logs/neural.md) as PIMC's prior, on the same 100 deals.
    "canasta_pimc_expert": Tournament(
        "python_modern_canasta",
        ("pimc=pimc(worlds=4,iterations=5,rollout=rules,prior=bots/earlier/python_modern_canasta_expert.safetensors)", "rules"),
        100, "PIMC with expert iteration's Canasta network as prior, the cheating search's 100 deals"),
    # The same prior spread out (prior_temperature 0.3: its mean largest probability 0.20, the earlier
    # network's at 0.1 is 0.17, on rule-bot decisions with 3 or more actions).
    "canasta_pimc_expert_hot": Tournament(
        "python_modern_canasta",
        ("pimc=pimc(worlds=4,iterations=5,rollout=rules,prior=bots/earlier/python_modern_canasta_expert.safetensors,"
         "prior_temperature=0.3)", "rules"),
        100, "PIMC with expert iteration's network as a flatter prior, the cheating search's 100 deals"),
    # The strategy lab's tuned rule bot (docs/studies/canasta.md, round 7) in the rollouts: every seat,
    # then the search's side only (rollout_opponents), fair and cheating, the same 100 deals.
    "canasta_pimc_tuned_rollouts": Tournament(
        "python_modern_canasta", (f"pimc=pimc(worlds=4,iterations=5,rollout={CANASTA_TUNED},prior={CANASTA_DMC})",
                                  "rules"), 100, "PIMC with the tuned rule bot's rollouts, the cheating search's 100 deals"),
    "canasta_cheat_tuned_rollouts": Tournament(
        "python_modern_canasta", (f"cheat=cheat_mcts(iterations=20,rollout={CANASTA_TUNED},prior={CANASTA_DMC})",
                                  "rules"), 100, "the cheating search with the tuned rule bot's rollouts, the same deals"),
    "canasta_pimc_per_side_rollouts": Tournament(
        "python_modern_canasta",
        (f"pimc=pimc(worlds=4,iterations=5,rollout={CANASTA_TUNED},rollout_opponents=rules,prior={CANASTA_DMC})",
         "rules"), 100, "PIMC with the tuned rule bot for its side and rules for the others, the same deals"),
    "canasta_cheat_per_side_rollouts": Tournament(
        "python_modern_canasta",
        (f"cheat=cheat_mcts(iterations=20,rollout={CANASTA_TUNED},rollout_opponents=rules,prior={CANASTA_DMC})",
         "rules"), 100, "the cheating search with those per-side rollouts, the same deals"),
    # PIMC leaving run J's network's move (shipped then, experiments/logs/neural.md) only on evidence.
    "canasta_pimc_over_neural": Tournament(
        "python_modern_canasta",
        (f"pimc=pimc(worlds=4,iterations=5,rollout=rules,prior={CANASTA_DMC},"
         f"baseline={CANASTA_RUN_J},confidence=1)", "rules"),
        100, "PIMC leaving run J's network's move on evidence, the cheating search's 100 deals"),
    "canasta_pimc_over_neural_1000": Tournament(
        "python_modern_canasta",
        (f"pimc=pimc(worlds=4,iterations=5,rollout=rules,prior={CANASTA_DMC},"
         f"baseline={CANASTA_RUN_J},confidence=1)", "rules"),
        1000, "the same over the 1,000 deals issue 22 asks for", seed=62),
    "canasta_cheat_over_neural": Tournament(
        "python_modern_canasta",
        (f"cheat=cheat_mcts(iterations=20,rollout=rules,prior={CANASTA_DMC},"
         f"baseline={CANASTA_RUN_J},confidence=1)", "rules"),
        100, "its bound: the same search leaving the network's move, every hand known, the same 100 deals"),
    # Run R (2026-12-03): PIMC leaving run L's network's move (shipped), 8 worlds of 20 iterations.
    "canasta_pimc_over_run_l": Tournament(
        "python_modern_canasta",
        (f"s=pimc(worlds=8,iterations=20,rollout=rules,prior={CANASTA_DMC},"
         f"baseline={CANASTA_RUN_L},confidence=1)", "rules"),
        500, "PIMC leaving run L's network's move on evidence, 8 worlds of 20 iterations (run R)", seed=170),
    "canasta_run_l_network": Tournament(
        "python_modern_canasta", (f"n={CANASTA_RUN_L}", "rules"), 500,
        "run L's network alone, run R's deals", seed=170),
    "canasta_cheat_over_run_l": Tournament(
        "python_modern_canasta",
        (f"cheat=cheat_mcts(iterations=160,rollout=rules,prior={CANASTA_DMC},"
         f"baseline={CANASTA_RUN_L},confidence=1)", "rules"),
        250, "run R's search with every hand known, at its budget (160 iterations), run R's first 250 deals "
             "(run U)", seed=170),
    "canasta_pimc_over_run_l_16_worlds": Tournament(
        "python_modern_canasta",
        (f"s=pimc(worlds=16,iterations=20,rollout=rules,prior={CANASTA_DMC},"
         f"baseline={CANASTA_RUN_L},confidence=1)", "rules"),
        250, "run R's search with twice the worlds, run R's first 250 deals (run W)", seed=170),
    "canasta_ismcts_over_run_l": Tournament(
        "python_modern_canasta",
        (f"s=ismcts(iterations=160,rollout=rules,prior={CANASTA_DMC},"
         f"baseline={CANASTA_RUN_L},confidence=1)", "rules"),
        500, "one tree of information states at run R's budget, run R's 500 deals (screen Y: the first 150; "
             "run Y)", seed=170),
    "canasta_ismcts_480_over_run_l": Tournament(
        "python_modern_canasta",
        (f"s=ismcts(iterations=480,rollout=rules,prior={CANASTA_DMC},"
         f"baseline={CANASTA_RUN_L},confidence=1)", "rules"),
        100, "the same tree at three times the iterations, run R's first 100 deals (screen Z)", seed=170),
    "canasta_ismcts_placement_over_run_l": Tournament(
        "python_modern_canasta",
        (f"s=ismcts(iterations=160,rollout=rules,prior={CANASTA_DMC},"
         f"baseline={CANASTA_RUN_L},confidence=1,utility=placement)", "rules"),
        150, "the same tree at 160 iterations backing up the hand's placement, not its points, run R's "
             "first 150 deals (screen AA)", seed=170),
    "canasta_ismcts_confidence_2_over_run_l": Tournament(
        "python_modern_canasta",
        (f"s=ismcts(iterations=160,rollout=rules,prior={CANASTA_DMC},"
         f"baseline={CANASTA_RUN_L},confidence=2)", "rules"),
        150, "the same tree leaving the network's move only at 2 standard errors, run R's first 150 deals "
             "(screen AC)", seed=170),
    "canasta_ismcts_confidence_half_over_run_l": Tournament(
        "python_modern_canasta",
        (f"s=ismcts(iterations=160,rollout=rules,prior={CANASTA_DMC},"
         f"baseline={CANASTA_RUN_L},confidence=0.5)", "rules"),
        150, "the same tree leaving the network's move at half a standard error, run R's first 150 deals "
             "(screen AE)", seed=170),
    "canasta_ismcts_c_0.1_over_run_l": Tournament(
        "python_modern_canasta",
        (f"s=ismcts(iterations=160,rollout=rules,prior={CANASTA_DMC},"
         f"baseline={CANASTA_RUN_L},confidence=1,c=0.1)", "rules"),
        150, "the same tree with a fifth of the exploration, run R's first 150 deals (screen AF)", seed=170),
    "canasta_ismcts_over_shipped": Tournament(
        "python_modern_canasta",
        (f"s=ismcts(iterations=160,rollout=rules,prior={CANASTA_DMC},"
         f"baseline=neural(path=bots/python_modern_canasta.safetensors),confidence=1)", "rules"),
        150, "the same tree over run AB's mean of five networks (shipped 2026-12-03), run R's first 150 "
             "deals (screen AD)", seed=170),
    "canasta_pimc_random": Tournament(
        "python_modern_canasta", ("pimc=pimc(worlds=2,iterations=3,rollout=rules)", "random"), 200,
        "PIMC (2 worlds of 3 iterations) against random"),
    # The same algorithm at the same iterations and exploration (c = 0.5 of hearts' return
    # range 36 = OpenSpiel's uct_c 18); both pass by the fixed rule (search/references.py).
    "hearts": Tournament(
        "hearts",
        ("ours=hearts_fixed_pass(bot=ismcts(iterations=300))",
         "openspiel_cpp=hearts_fixed_pass(bot=openspiel_cpp_ismcts(iterations=300,c=18))"), 150,
        "our ISMCTS against OpenSpiel's C++ ISMCTS, 300 iterations each", (HEARTS_PASS,)),
}


def run(name: str, workers: int) -> None:
    from eval.config import TournamentConfig
    from eval.report import markdown, write_reports
    from eval.tournament import run_tournament
    t = TOURNAMENTS[name]
    config = TournamentConfig.create(t.game, list(t.agents), t.deals, t.seed, bot_modules=t.register)
    results = RESULTS / f"search_{name}.db"
    RESULTS.mkdir(exist_ok=True)
    start = time.perf_counter()
    summary = run_tournament(config, results, workers=workers, progress=True)
    print(f"### {name}: {t.why} ({time.perf_counter() - start:.0f} s)\n")
    print(markdown(summary))
    write_reports(summary, results.with_suffix(""))
    sys.stdout.flush()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m experiments.search_strength", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*", help="tournaments to run (none: list them)")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    unknown = [n for n in args.names if n not in TOURNAMENTS]
    if unknown:
        parser.error(f"unknown tournament(s) {', '.join(unknown)}; known: {', '.join(TOURNAMENTS)}")
    if not args.names:
        for name, t in TOURNAMENTS.items():
            print(f"{name:<30} {t.game}: {', '.join(t.agents)}; {t.deals} deals")
    for name in args.names:
        run(name, args.workers)


if __name__ == "__main__":
    main()
