"""How much noise the luck adjustment (eval/luck.py) takes out of a comparison.

Plays (or resumes) a duplicate tournament of two agents, then, deal by deal,
the first's mean return less the second's, plain and luck-adjusted. Prints both
means with their standard errors, the factor by which the adjusted standard
error is smaller (with a bootstrap interval over deals), the deals an adjusted
run needs for the plain run's interval (deals / factor^2), and coverage: the
run cut into batches of `--batch` deals, the share of batches whose 95% normal
interval holds the true gap, with a Wilson interval over the batches, and the
same share over 20,000 random subsets of as many deals (a precise reading that
does not hang on how the few slices fall). The true gap is fixed by a long plain
run on other deals (`--truth-deals`, seed `--truth-seed`: plain play costs next
to nothing beside the luck), or, without one, by the whole run's own plain mean.

    python -m experiments.luck_variance --game python_modern_canasta --first rules --second random --deals 400
    python -m experiments.luck_variance --game "python_classic_canasta(players=4)" --first rules \
        --second random --deals 1000 --truth-deals 20000 --truth-seed 1 [--luck-net FILE]
"""

from __future__ import annotations

import math
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from eval.config import split_agent
from eval.luck import luck_judge, stored_adjusted
from eval.storage import ResultsDB, ResultsFileError
from eval.tournament import TournamentConfig, run_tournament
from scripts.cli_checks import CliParser, game_string, integer, seed
from search.analysis import Z95


def per_deal(records, a: int, b: int) -> np.ndarray:
    """Agent a's mean return less b's in each deal (both sat every seat of it)."""
    sums: dict[int, list[float]] = {}
    for rec in records:
        if rec.returns is None:
            continue
        d = sums.setdefault(rec.deal, [0.0, 0.0, 0, 0])
        for seat, agent in enumerate(rec.seats):
            if agent in (a, b):
                k = 0 if agent == a else 1
                d[k] += rec.returns[seat]
                d[2 + k] += 1
    return np.array([d[0] / d[2] - d[1] / d[3] for d in sums.values() if d[2] and d[3]])


def coverage(x: np.ndarray, truth: float, batch: int) -> tuple[int, int]:
    """How many `batch`-deal slices have a mean +- 1.96 SE that holds `truth`, of how many."""
    hits, n = 0, len(x) // batch
    for k in range(n):
        s = x[k * batch:(k + 1) * batch]
        half = Z95 * s.std(ddof=1) / math.sqrt(batch)
        hits += bool(abs(s.mean() - truth) <= half)
    return hits, n


def subset_coverage(x: np.ndarray, truth: float, batch: int, draws: int, rng: np.random.Generator) -> float:
    """Share of `draws` random `batch`-deal subsets (without replacement) whose mean +- 1.96 SE
    holds `truth`: the coverage of a `batch`-deal run drawn from these deals, not hostage to how
    the few disjoint slices happen to fall."""
    hits = 0
    for _ in range(draws):
        s = rng.choice(x, batch, replace=False)
        hits += bool(abs(s.mean() - truth) <= Z95 * s.std(ddof=1) / math.sqrt(batch))
    return hits / draws


def wilson(hits: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a share `hits` / `n`."""
    if n == 0:
        return math.nan, math.nan
    share = hits / n
    centre = (share + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(share * (1 - share) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def play(config: TournamentConfig, results: Path, workers: int) -> list:
    """The games of a tournament with their histories (played, or resumed from `results`);
    ResultsFileError (a ValueError, one line) where `results` holds another tournament."""
    results.parent.mkdir(parents=True, exist_ok=True)
    run_tournament(config, results, workers=workers, progress=True, bootstrap=0)
    with ResultsDB.read(results) as db:
        return list(db.games(history=True))


def main() -> None:
    p = CliParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--game", required=True, type=game_string)
    p.add_argument("--first", required=True, metavar="[NAME=]SPEC")
    p.add_argument("--second", required=True, metavar="[NAME=]SPEC")
    p.add_argument("--deals", type=integer(2, 10**7), default=200)
    p.add_argument("--seed", type=seed, default=0)
    p.add_argument("--workers", type=integer(1, 1024), default=1, help="processes playing, then measuring the luck")
    p.add_argument("--batch", type=integer(2, 10**6), default=20, help="deals per slice of the coverage check")
    p.add_argument("--truth-deals", type=integer(0, 10**7), default=0,
                   help="deals of a plain run on other deals that fixes the true gap for the coverage check")
    p.add_argument("--truth-seed", type=seed, default=None, help="that run's seed (default: --seed + 1)")
    p.add_argument("--luck-net", metavar="FILE", help="measure the luck with this luck network, trained for the two "
                   "agents (training/luck_value.py), instead of the shipped value network")
    p.add_argument("--results", default=None, help="results file (default results/luck-<game>-<seed>.db); "
                                                     "the truth run's is beside it, its name ending -truth.db")
    args = p.parse_args()
    truth_seed = args.seed + 1 if args.truth_seed is None else args.truth_seed
    if args.truth_deals and truth_seed == args.seed:
        p.error("--truth-seed must differ from --seed: the truth is fixed on other deals")
    if args.batch > args.deals:
        p.error(f"--batch {args.batch} is more than the run's {args.deals} deals")
    try:
        config = TournamentConfig.create(args.game, [args.first, args.second], deals=args.deals, seed=args.seed)
        luck_judge(config, args.luck_net)    # refuses a game with no value network before anything is played
    except ValueError as e:
        p.error(str(e))
    results = Path(args.results or f"results/luck-{args.game.split('(')[0]}-{config.game.count(',')}-{args.seed}.db")
    names = config.agent_names
    a, b = names.index(split_agent(args.first)[0]), names.index(split_agent(args.second)[0])
    truth, truth_line = None, "truth: the whole run's plain mean"
    try:
        if args.truth_deals:
            long_run = per_deal(play(replace(config, deals=args.truth_deals, seed=truth_seed),
                                     results.with_name(results.stem + "-truth.db"), args.workers), a, b)
            truth = long_run.mean()
            truth_line = (f"truth: a plain run of {len(long_run)} other deals (seed {truth_seed}), "
                          f"{truth:+.4f} +- {Z95 * long_run.std(ddof=1) / math.sqrt(len(long_run)):.4f}")
        records = play(config, results, args.workers)
        started = time.perf_counter()
        with ResultsDB.open_for(results, config) as db:      # the luck stored by an earlier run is read back
            judge = luck_judge(config, args.luck_net)
            stored = len(db.luck(judge.identity))
            adjusted = stored_adjusted(db, judge, progress=True, luck_net=args.luck_net, workers=args.workers)
    except ResultsFileError as e:
        p.error(str(e))
    measured = len([r for r in records if r.returns is not None]) - stored
    wall = (time.perf_counter() - started) / max(1, measured)
    plain, adj = per_deal(records, a, b), per_deal(adjusted, a, b)
    D = len(plain)
    se_p, se_a = plain.std(ddof=1) / math.sqrt(D), adj.std(ddof=1) / math.sqrt(D)
    rng = np.random.default_rng(args.seed)
    idx = rng.integers(0, D, size=(2000, D))
    factors = plain[idx].std(1, ddof=1) / adj[idx].std(1, ddof=1)
    lo, hi = np.percentile(factors, [2.5, 97.5])
    if truth is None:
        truth = plain.mean()
    (hits_p, n), (hits_a, _) = coverage(plain, truth, args.batch), coverage(adj, truth, args.batch)
    (pl, ph), (al, ah) = wilson(hits_p, n), wilson(hits_a, n)
    sub_p, sub_a = (subset_coverage(x, truth, args.batch, 20000, np.random.default_rng(args.seed)) for x in (plain, adj))
    print(f"game {config.game}; {names[a]} less {names[b]}; {D} deals, seed {args.seed}; luck under "
          f"{args.luck_net or 'the shipped value network'}")
    print(f"plain    mean difference {plain.mean():+.4f} +- {Z95 * se_p:.4f} (SE {se_p:.4f})")
    print(f"adjusted mean difference {adj.mean():+.4f} +- {Z95 * se_a:.4f} (SE {se_a:.4f})")
    print(f"agree: |plain - adjusted| = {abs(plain.mean() - adj.mean()):.4f}, "
          f"1.96 x combined SE {Z95 * math.hypot(se_p, se_a):.4f}")
    print(f"SE factor {se_p / se_a:.2f} [95% bootstrap {lo:.2f}, {hi:.2f}]")
    print(f"deals for the plain run's interval: plain {D}, adjusted {math.ceil(D / (se_p / se_a) ** 2)}")
    print(truth_line)
    print(f"coverage of the {n} slices of {args.batch} deals: plain {hits_p / max(n, 1):.2f} "
          f"[{pl:.2f}, {ph:.2f}], adjusted {hits_a / max(n, 1):.2f} [{al:.2f}, {ah:.2f}] (Wilson 95%)")
    print(f"coverage of 20000 random subsets of {args.batch} deals: plain {sub_p:.3f}, adjusted {sub_a:.3f}")
    print(f"luck: {wall * args.workers:.3f} s a game in one process ({args.workers} measured at once)" if measured
          else f"luck: every game's read from {results}, where an earlier run stored it")


if __name__ == "__main__":
    main()
