"""Can the review be believed? Its flags, re-run on other worlds and re-checked on many.

    python -m experiments.analysis_check --results runs/hands.db --seat-agent neural --hands 20 \
        --worlds 24 --recheck 2000 --out experiments/runs/analysis_check.json
    # or in shards, one process a core, then the summary of all:
    python -m experiments.analysis_check ... --shard 0/2 --out a.json
    python -m experiments.analysis_check ... --shard 1/2 --out b.json
    python -m experiments.analysis_check --combine a.json b.json --out all.json

Over the hands of a results file (each game's decisions by the seats an agent played),
every decision is analysed as the table's review does (search.analysis.review_evaluator),
with the seed 0 and again with the seed 1. Reported:
* how many decisions were flagged (search.analysis.review_decision) with seed 0, and how
  many of those the seed-1 review flags too (and the other way round);
* for each flag of seed 0, its cost as the review measures it (on worlds that decided
  nothing) and the gap between the chosen action and the move played on `--recheck`
  further worlds: whether the re-check's mean lies inside the cost's 95% interval, whether
  the cost lies inside the re-check's interval, and whether the two agree within their
  combined interval (|cost - recheck| <= 1.96 sqrt(se_cost^2 + se_recheck^2): 95% of the
  time when both are unbiased; the first two fall short of 95% even then, by how much
  their sizes say, since neither figure is exact: `if_calibrated` gives the three shares a
  perfectly calibrated review would have at these interval widths, calibrated_shares);
* how many seed-0 flags were the seed-0 analysis's own chosen action (the hint's first
  choice at the same budget and seed), which the review rules out by construction.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from statistics import NormalDist

from tqdm import tqdm

from search.analysis import Z95


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="experiments.analysis_check", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--results", help="the results file whose hands are reviewed")
    p.add_argument("--seat-agent", help="the agent (by name) whose decisions are reviewed")
    p.add_argument("--hands", type=int, default=20, help="the first this many hands of the agent's")
    p.add_argument("--shard", default="0/1", help="K/N: only the hands whose place among them is K modulo N")
    p.add_argument("--every", type=int, default=1, help="only every this many-th decision of a hand (the first, ...)")
    p.add_argument("--worlds", type=int, default=24)
    p.add_argument("--recheck", type=int, default=2000)
    p.add_argument("--combine", nargs="+", metavar="JSON", help="summarise these shards' outputs instead")
    p.add_argument("--out", required=True)
    args = p.parse_args(argv)
    if args.combine:
        parts = [json.load(open(path)) for path in args.combine]
        rows = [r for part in parts for r in part["rows"]]
        seconds = sum(part["summary"]["seconds"] for part in parts)
        settings = parts[0]["summary"]
        out = {"summary": summary(rows, settings["worlds"], settings["recheck_worlds"], seconds), "rows": rows}
    else:
        if not (args.results and args.seat_agent):
            p.error("--results and --seat-agent are needed (or --combine)")
        shard, shards = (int(x) for x in args.shard.split("/"))
        started = time.time()
        rows = review_hands(args.results, args.seat_agent, args.hands, shard, shards, args.every, args.worlds,
                            args.recheck)
        out = {"summary": summary(rows, args.worlds, args.recheck, round(time.time() - started, 1)), "rows": rows}
    with open(args.out, "w") as f:
        json.dump(out, f, indent=2)
    print(json.dumps(out["summary"], indent=2))
    return 0


def review_hands(results: str, agent: str, hands: int, shard: int, shards: int, every: int, worlds: int,
                 recheck_worlds: int) -> list[dict]:
    """One row per decision of `agent`'s seats (more than one legal action; every `every`-th of a
    hand) in the first `hands` hands it played, those of this shard: both reviews' verdicts, and
    for a seed-0 flag its cost, interval and the re-check."""
    from eval.results_records import records_from_results
    from records.record import game_of
    from search.analysis import paired_gap, review_decision, review_evaluator

    rows = []
    for place, (gid, record) in enumerate(records_from_results(results, agent=agent)):
        if place >= hands:
            break
        if place % shards != shard:
            continue
        game = game_of(record)
        evaluator = review_evaluator(game, worlds)
        seats = {pl.seat for pl in record.players if pl.agent == agent}
        state = game.new_initial_state()
        decisions = 0
        for i, move in enumerate(tqdm(record.moves, desc=f"hand {gid}", unit="move", leave=False)):
            decides = move.actor in seats and len(state.legal_actions()) > 1
            if decides and decisions % every == 0:
                first, a = review_decision(state, move.action, evaluator=evaluator, seed=0)
                _, b = review_decision(state, move.action, evaluator=evaluator, seed=1)
                row = {"hand": gid, "move": i, "flag0": a is not None, "flag1": b is not None,
                       "hint_first_choice": move.action == first.best.action}
                if a is not None:
                    recheck = paired_gap(state.clone(), a.best, move.action,
                                         evaluator=review_evaluator(game, recheck_worlds), seed=7)
                    row.update(cost=a.cost, interval=[a.low, a.high], confirm_worlds=a.worlds, recheck=list(recheck),
                               points_per_unit=first.points_per_unit)
                rows.append(row)
            decisions += decides
            state.apply_action(move.action)
    return rows


def summary(rows: list[dict], worlds: int, recheck_worlds: int, seconds: float) -> dict:
    """The check's figures over every decision row."""
    flagged0 = [r for r in rows if r["flag0"]]
    flagged1 = [r for r in rows if r["flag1"]]

    def share(test) -> float:
        return sum(1 for r in flagged0 if test(r)) / max(1, len(flagged0))

    def half(interval: list[float]) -> float:
        return (interval[1] - interval[0]) / 2

    return {"hands": len({r["hand"] for r in rows}), "decisions": len(rows),
            "flagged_seed0": len(flagged0), "flagged_seed1": len(flagged1),
            "seed1_agrees_with_seed0": share(lambda r: r["flag1"]),
            "seed0_agrees_with_seed1": sum(r["flag0"] for r in flagged1) / max(1, len(flagged1)),
            "recheck_worlds": recheck_worlds,
            "recheck_inside_flag_interval": share(lambda r: _within(r["recheck"][0], *r["interval"])),
            "flag_inside_recheck_interval": share(lambda r: _within(r["cost"], *r["recheck"][1:])),
            "flag_and_recheck_agree": share(lambda r: abs(r["cost"] - r["recheck"][0]) <= math.hypot(
                half(r["interval"]), half(r["recheck"][1:])) + 1e-9),
            "mean_cost": sum(r["cost"] for r in flagged0) / max(1, len(flagged0)),
            "mean_recheck": sum(r["recheck"][0] for r in flagged0) / max(1, len(flagged0)),
            "hint_first_choice_flagged": sum(1 for r in flagged0 if r["hint_first_choice"]),
            "if_calibrated": calibrated_shares(flagged0),
            "worlds": worlds, "seconds": seconds}


def calibrated_shares(flagged: list[dict]) -> dict[str, float]:
    """The three shares above as a perfectly calibrated review would score them: each cost
    and each re-check unbiased and normal with the standard errors their intervals say.

    With a the cost (standard error sa) and r the re-check (sr), a - r has the standard
    error c = sqrt(sa^2 + sr^2); r lies inside a's interval with the probability that
    |a - r| < 1.96 sa, which is P(|Z| < 1.96 sa / c), a inside r's with P(|Z| < 1.96 sr / c),
    and they agree with P(|Z| < 1.96) = 0.95. So a cost with any noise of its own lies
    inside the re-check's interval less than 95% of the time, however many worlds the
    re-check has: that share reaches 95% only for a cost measured without error. The
    observed shares are judged against these, not against 0.95. A decision the cards
    decide (both intervals of width 0) counts as inside every time."""
    unit = NormalDist()
    shares = {"recheck_inside_flag_interval": 0.0, "flag_inside_recheck_interval": 0.0,
              "flag_and_recheck_agree": 0.0}
    for r in flagged:
        sa = (r["interval"][1] - r["interval"][0]) / (2 * Z95)
        sr = (r["recheck"][2] - r["recheck"][1]) / (2 * Z95)
        c = math.hypot(sa, sr)
        for name, k in (("recheck_inside_flag_interval", sa / c if c else math.inf),
                        ("flag_inside_recheck_interval", sr / c if c else math.inf),
                        ("flag_and_recheck_agree", 1.0 if c else math.inf)):
            shares[name] += 2 * unit.cdf(Z95 * k) - 1 if k < math.inf else 1.0
    return {name: total / max(1, len(flagged)) for name, total in shares.items()}


def _within(x: float, low: float, high: float) -> bool:
    """low <= x <= high, up to float rounding: a position the cards decide gives an interval
    of width 0 whose ends differ from the re-check's mean only in the last bits."""
    slack = 1e-9 * max(1.0, abs(x))
    return low - slack <= x <= high + slack


if __name__ == "__main__":
    sys.exit(main())
