"""How much noise the luck adjustment (eval/luck.py) takes out of a comparison.

Plays (or resumes) a duplicate tournament of two agents, then, deal by deal,
the first's mean return less the second's, plain and luck-adjusted. Prints both
means with their standard errors, the factor by which the adjusted standard
error is smaller (with a bootstrap interval over deals), the deals an adjusted
run needs for the plain run's interval (deals / factor^2), and coverage: the
run cut into batches of `--batch` deals, the share of batches whose 95% normal
interval holds the whole run's plain mean (the "true" gap a long plain run fixes).

    python -m experiments.luck_variance --game python_modern_canasta --first rules --second random --deals 400
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import numpy as np

from eval.luck import adjusted_records
from eval.storage import ResultsDB
from eval.tournament import TournamentConfig, run_tournament


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


def coverage(x: np.ndarray, truth: float, batch: int) -> tuple[float, int]:
    """Share of `batch`-deal slices whose mean +- 1.96 SE holds `truth`, and how many slices."""
    hits, n = 0, len(x) // batch
    for k in range(n):
        s = x[k * batch:(k + 1) * batch]
        half = 1.96 * s.std(ddof=1) / math.sqrt(batch)
        hits += abs(s.mean() - truth) <= half
    return (hits / n if n else math.nan), n


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--game", required=True)
    p.add_argument("--first", required=True, metavar="[NAME=]SPEC")
    p.add_argument("--second", required=True, metavar="[NAME=]SPEC")
    p.add_argument("--deals", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--batch", type=int, default=20, help="deals per slice of the coverage check")
    p.add_argument("--results", default=None, help="results file (default results/luck-<game>-<seed>.db)")
    args = p.parse_args()
    config = TournamentConfig.create(args.game, [args.first, args.second], deals=args.deals, seed=args.seed)
    results = Path(args.results or f"results/luck-{args.game.split('(')[0]}-{config.game.count(',')}-{args.seed}.db")
    results.parent.mkdir(exist_ok=True)
    run_tournament(config, results, workers=args.workers, progress=True, bootstrap=0)
    with ResultsDB.read(results) as db:
        records = list(db.games(history=True))
    names = config.agent_names
    from eval.config import split_agent
    a, b = names.index(split_agent(args.first)[0]), names.index(split_agent(args.second)[0])
    started = time.process_time()
    adjusted = adjusted_records(config, records, progress=True)
    cpu = (time.process_time() - started) / max(1, len(records))
    if adjusted is None:
        raise SystemExit(f"no value network is shipped for {config.game}")
    plain, adj = per_deal(records, a, b), per_deal(adjusted, a, b)
    D = len(plain)
    se_p, se_a = plain.std(ddof=1) / math.sqrt(D), adj.std(ddof=1) / math.sqrt(D)
    rng = np.random.default_rng(args.seed)
    idx = rng.integers(0, D, size=(2000, D))
    factors = plain[idx].std(1, ddof=1) / adj[idx].std(1, ddof=1)
    lo, hi = np.percentile(factors, [2.5, 97.5])
    truth = plain.mean()
    cov_p, n = coverage(plain, truth, args.batch)
    cov_a, _ = coverage(adj, truth, args.batch)
    print(f"game {config.game}; {names[a]} less {names[b]}; {D} deals, seed {args.seed}")
    print(f"plain    mean difference {plain.mean():+.4f} +- {1.96 * se_p:.4f} (SE {se_p:.4f})")
    print(f"adjusted mean difference {adj.mean():+.4f} +- {1.96 * se_a:.4f} (SE {se_a:.4f})")
    print(f"agree: |plain - adjusted| = {abs(plain.mean() - adj.mean()):.4f}, "
          f"1.96 x combined SE {1.96 * math.hypot(se_p, se_a):.4f}")
    print(f"SE factor {se_p / se_a:.2f} [95% bootstrap {lo:.2f}, {hi:.2f}]")
    print(f"deals for the plain run's interval: plain {D}, adjusted {math.ceil(D / (se_p / se_a) ** 2)}")
    print(f"coverage of the {n} slices of {args.batch} deals (truth: the whole run's plain mean): "
          f"plain {cov_p:.2f}, adjusted {cov_a:.2f}")
    print(f"luck: {cpu:.3f} s of CPU a game")


if __name__ == "__main__":
    main()
