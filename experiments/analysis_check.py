"""Can the review be believed? Its flags, re-run on other worlds and re-checked on many.

    python -m experiments.analysis_check --results runs/hands.db --seat-agent neural --hands 20 \
        --worlds 24 --recheck 2000 --out experiments/runs/analysis_check.json

Over the hands of a results file (each game's decisions by the seats an agent played),
every decision is analysed as the table's review does (play.review.table_evaluator),
with the seed 0 and again with the seed 1. Reported:
* how many decisions were flagged (search.analysis.review_decision: not the chosen
  action, its gap above the game's noticeable loss on fresh worlds, confirmed by the
  interval of a third, larger set) with seed 0, and how many of those the
  seed-1 review flags too (and the other way round);
* for each flag of seed 0, its cost as the review measures it (the confirming third
  set of worlds) and the gap between the chosen action and the move
  played on `--recheck` further worlds: whether that re-check's mean lies inside the cost's 95% interval
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
    from play.review import table_evaluator
    from records.record import game_of
    from search.analysis import paired_gap, review_decision

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
                first, a = review_decision(state, move.action, evaluator=evaluator, seed=0)
                _, b = review_decision(state, move.action, evaluator=evaluator, seed=1)
                row = {"hand": gid, "move": i, "flag0": a is not None, "flag1": b is not None}
                if a is not None:
                    assert first.best.action == a.best != move.action       # the hint's first choice is never flagged
                    recheck = paired_gap(state.clone(), a.best, move.action,
                                         evaluator=table_evaluator(game, args.recheck), seed=7)
                    row.update(cost=a.cost, interval=[a.low, a.high], confirm_worlds=a.worlds, recheck=list(recheck),
                               covered=_within(recheck[0], a.low, a.high),
                               inside_recheck=_within(a.cost, recheck[1], recheck[2]),
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


def _within(x: float, low: float, high: float) -> bool:
    """low <= x <= high, up to float rounding: a position the cards decide gives an interval
    of width 0 whose ends differ from the re-check's mean only in the last bits."""
    slack = 1e-9 * max(1.0, abs(x))
    return low - slack <= x <= high + slack


if __name__ == "__main__":
    sys.exit(main())
