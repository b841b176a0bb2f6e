"""Can the review be believed? Its flags, re-run on other worlds and re-checked on many.

    python -m experiments.analysis_check --results runs/hands.db --seat-agent neural --hands 20 \
        --worlds 24 --recheck 2000 --out experiments/runs/analysis_check.json

Over the hands of a results file (each game's decisions by the seats an agent played),
every decision is analysed as the table's review does (play.review.table_evaluator),
with the seed 0 and again with the seed 1. Reported:
* how many decisions were flagged (a mistake: not the chosen action, its fresh gap's
  interval above the game's noticeable loss) with seed 0, and how many of those the
  seed-1 review flags too (and the other way round);
* for each flag of seed 0, its cost as the review measures it (on a third set of
  worlds) and the gap between the chosen action and the move played on `--recheck`
  further worlds: whether that re-check's mean lies inside the cost's 95% interval
  (coverage), and whether the cost lies inside the re-check's interval;
* that no flagged move is the analysis's own chosen action (the hint's first choice),
  which the review rules out by construction.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from tqdm import tqdm


def main(argv: list[str] | None = None) -> int:
    from eval.results_records import records_from_results
    from records.record import game_of
    from play.review import COST_SEED, table_evaluator
    from search.analysis import analyse, paired_gap

    p = argparse.ArgumentParser(prog="experiments.analysis_check", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--results", required=True)
    p.add_argument("--seat-agent", required=True, help="the agent (by name) whose decisions are reviewed")
    p.add_argument("--hands", type=int, default=20)
    p.add_argument("--worlds", type=int, default=24)
    p.add_argument("--recheck", type=int, default=2000)
    p.add_argument("--out", required=True)
    args = p.parse_args(argv)
    started = time.time()
    decisions, flags, rows = 0, [], []
    hands = 0
    for gid, record in records_from_results(args.results, agent=args.seat_agent):
        if hands >= args.hands:
            break
        hands += 1
        game = game_of(record)
        evaluator = table_evaluator(game, args.worlds)
        seats = {pl.seat for pl in record.players if pl.agent == args.seat_agent}
        state = game.new_initial_state()
        for i, move in enumerate(tqdm(record.moves, desc=f"hand {gid}", unit="move", leave=False)):
            if move.actor in seats and len(state.legal_actions()) > 1:
                decisions += 1
                first = analyse(state.clone(), evaluator=evaluator, seed=0, played=move.action)
                second = analyse(state.clone(), evaluator=evaluator, seed=1, played=move.action)
                a = first.mistake(move.action, evaluator.threshold)
                b = second.mistake(move.action, evaluator.threshold)
                row = {"hand": gid, "move": i, "flag0": a is not None, "flag1": b is not None}
                if a is not None:
                    assert first.best.action != move.action
                    cost = paired_gap(state.clone(), first.best.action, move.action, evaluator=evaluator,
                                      seed=COST_SEED)        # as the review measures a flag's cost
                    recheck = paired_gap(state.clone(), first.best.action, move.action,
                                         evaluator=table_evaluator(game, args.recheck), seed=7)
                    row.update(cost=cost[0], interval=[cost[1], cost[2]], recheck=list(recheck),
                               covered=cost[1] <= recheck[0] <= cost[2],
                               inside_recheck=recheck[1] <= cost[0] <= recheck[2],
                               points_per_unit=first.points_per_unit)
                    flags.append(row)
                rows.append(row)
            state.apply_action(move.action)
    flagged0 = [r for r in rows if r["flag0"]]
    flagged1 = [r for r in rows if r["flag1"]]
    summary = {"hands": hands, "decisions": decisions, "flagged_seed0": len(flagged0),
               "flagged_seed1": len(flagged1),
               "seed1_agrees_with_seed0": sum(r["flag1"] for r in flagged0) / max(1, len(flagged0)),
               "seed0_agrees_with_seed1": sum(r["flag0"] for r in flagged1) / max(1, len(flagged1)),
               "recheck_worlds": args.recheck,
               "recheck_inside_flag_interval": sum(r["covered"] for r in flags) / max(1, len(flags)),
               "flag_inside_recheck_interval": sum(r["inside_recheck"] for r in flags) / max(1, len(flags)),
               "hint_first_choice_flagged": 0, "worlds": args.worlds,
               "seconds": round(time.time() - started, 1)}
    with open(args.out, "w") as f:
        json.dump({"summary": summary, "flags": flags}, f, indent=2)
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
