"""A/B testing: is the candidate stronger than the baseline by at least elo1?

A sequential probability ratio test on paired duplicate results, as fishtest
does for chess engines. The unit is a deal: all its replays (seats rotated)
together give the candidate one score in [0, 1], its points per game against
the baseline. Scores of different deals are independent; replays of one deal
are not, and pairing them is what cancels the luck of the cards (a pentanomial
score in two-player games, as fishtest's game pairs).

The test is the generalized SPRT on these scores (fishtest's method): under
each hypothesis the expected score is the logistic Elo expectation
1 / (1 + 10^(-elo / 400)), and the distribution of deal scores is the one of
maximum likelihood with that mean, found over the observed values. The log
likelihood ratio is compared with Wald's bounds log(beta / (1 - alpha)) and
log((1 - beta) / alpha) after every deal, in deal order, so the verdict does
not depend on which worker finished first.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from eval.config import TournamentConfig
from eval.ratings import deal_totals
from eval.schedule import side_of_seat
from eval.storage import ResultsDB
from eval.tournament import backend, planned_games, play

# Pseudo-count at the score range's ends (0 and 1), so that a hypothesis' mean
# is always inside the observed range (as fishtest regularises its counts).
PSEUDO_COUNT = 1e-3
H0, H1, UNDECIDED = "H0", "H1", "undecided"


def expected_score(elo: float) -> float:
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def _max_likelihood_weights(values: np.ndarray, counts: np.ndarray, mean: float) -> np.ndarray:
    """Probabilities over `values` of greatest likelihood for `counts` with the
    given mean: p_i = q_i / (1 + lam (v_i - mean)), lam found by bisection."""
    q = counts / counts.sum()
    d = values - mean
    lo, hi = -1.0 / d.max(), -1.0 / d.min()     # 1 + lam * d > 0 for every value
    for _ in range(200):
        lam = 0.5 * (lo + hi)
        if (q * d / (1.0 + lam * d)).sum() > 0.0:
            lo = lam
        else:
            hi = lam
    return q / (1.0 + 0.5 * (lo + hi) * d)


def log_likelihood_ratio(scores: Sequence[float], elo0: float, elo1: float,
                         pseudo_count: float = PSEUDO_COUNT) -> float:
    """The generalized log likelihood ratio of H1 (elo1) against H0 (elo0)."""
    if not scores:
        return 0.0
    values, counts = np.unique(np.concatenate([np.asarray(scores, float), [0.0, 1.0]]), return_counts=True)
    counts = counts.astype(float)
    counts[0] -= 1.0 - pseudo_count            # the two added ends count as pseudo_count each
    counts[-1] -= 1.0 - pseudo_count
    keep = counts > 0
    values, counts = values[keep], counts[keep]
    p0 = _max_likelihood_weights(values, counts, expected_score(elo0))
    p1 = _max_likelihood_weights(values, counts, expected_score(elo1))
    return float((counts * np.log(p1 / p0)).sum())


def bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's (lower, upper) bounds: below accepts H0, above accepts H1."""
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


@dataclass
class SprtResult:
    baseline: str
    candidate: str
    elo0: float
    elo1: float
    alpha: float
    beta: float
    llr: float
    lower: float
    upper: float
    deals: int
    games: int
    mean_score: float
    verdict: str

    def describe(self) -> str:
        outcome = {H1: f"H1 accepted: {self.candidate} is stronger than {self.baseline} by at least "
                       f"{self.elo1:g} Elo",
                   H0: f"H0 accepted: {self.candidate} is not {self.elo1:g} Elo stronger than "
                       f"{self.baseline}; the data favour a difference of {self.elo0:g} or less",
                   UNDECIDED: "no verdict yet: the deal limit was reached first"}[self.verdict]
        return (f"SPRT elo0={self.elo0:g} elo1={self.elo1:g} alpha={self.alpha:g} beta={self.beta:g}: "
                f"LLR {self.llr:+.2f} in [{self.lower:.2f}, {self.upper:.2f}] after {self.deals} deals "
                f"({self.games} games; {self.candidate} scored {self.mean_score:.3f} per game)\n{outcome}")


class SprtTracker:
    """Follows deals in order as their games arrive; `decide` says when to stop."""

    def __init__(self, config: TournamentConfig, baseline: str, candidate: str, elo0: float, elo1: float,
                 alpha: float, beta: float, adjusted: bool = False, luck_net: str | None = None):
        names = config.agent_names
        from eval.luck import luck_judge
        self.judge = luck_judge(config, luck_net) if adjusted else None     # ValueError where it cannot be
        for name in (baseline, candidate):
            if name not in names:
                raise ValueError(f"{name!r} is not an agent of this test; agents: {', '.join(names)}")
        self.config, self.baseline, self.candidate = config, baseline, candidate
        self.a, self.b = names.index(baseline), names.index(candidate)
        self.elo0, self.elo1, self.alpha, self.beta = elo0, elo1, alpha, beta
        self.lower, self.upper = bounds(alpha, beta)
        self.games_in_deal: dict[int, int] = {}
        for task in planned_games(config):
            self.games_in_deal[task.deal] = self.games_in_deal.get(task.deal, 0) + 1
        self.waiting: dict[int, list] = {}
        self.next_deal = 0
        self.scores: list[float] = []
        self.games = 0
        self._stored_luck: dict | None = None       # the results file's stored luck, read at its first game
        self.result = self._result()

    def add(self, record, db: ResultsDB | None = None) -> None:
        """Takes a game (adjusted first where the test is on adjusted scores: its
        luck read from `db`, the results file it is stored in, where stored there,
        else measured and stored there) and scores every deal now complete, in order."""
        if self.judge is not None:
            record = self._adjusted(record, db)
        self.waiting.setdefault(record.deal, []).append(record)
        while len(self.waiting.get(self.next_deal, ())) == self.games_in_deal.get(self.next_deal, -1):
            if self.result.verdict != UNDECIDED:
                return
            records = self.waiting.pop(self.next_deal)
            sides = side_of_seat(len(records[0].seats), self.config.teams)
            totals = deal_totals(records, len(self.config.agents), sides)
            self.games += len(records)
            if len(totals.deals) and totals.met[0, self.b, self.a] > 0:
                self.scores.append(totals.wins[0, self.b, self.a] / totals.met[0, self.b, self.a])
            self.next_deal += 1
            self.result = self._result()

    def _result(self) -> SprtResult:
        llr = log_likelihood_ratio(self.scores, self.elo0, self.elo1)
        verdict = H1 if llr >= self.upper else H0 if llr <= self.lower else UNDECIDED
        mean = float(np.mean(self.scores)) if self.scores else float("nan")
        return SprtResult(self.baseline, self.candidate, self.elo0, self.elo1, self.alpha, self.beta, llr,
                          self.lower, self.upper, self.next_deal, self.games, mean, verdict)

    def _adjusted(self, record, db: ResultsDB | None):
        from eval.luck import game_luck, with_luck_removed
        if record.returns is None:
            return record
        key = (record.deal, record.rotation)
        if db is not None and self._stored_luck is None:
            self._stored_luck = db.luck(self.judge.identity)
        luck = (self._stored_luck or {}).get(key)
        if luck is None:
            luck = game_luck(self.judge, record)
            if db is not None:
                db.add_luck(self.judge.identity, {key: luck})
        return with_luck_removed(record, luck)


def run_sprt(config: TournamentConfig, results: str | os.PathLike, baseline: str, candidate: str, *,
             elo0: float = 0.0, elo1: float = 10.0, alpha: float = 0.05, beta: float = 0.05,
             workers: int = 1, backend_name: str = "local", address: str | None = None,
             progress: bool = True, adjusted: bool = False, luck_net: str | None = None) -> SprtResult:
    """Plays deals of `config` (two agents; `config.deals` is the most it will
    play) until the SPRT decides; resumes from `results` like a tournament.
    `adjusted`: each deal's score is the finishing order of the luck-adjusted
    returns (eval/luck.py; `luck_net`: a luck network's, else the shipped value
    network's), so the Elo tested is that order's."""
    if len(config.agents) != 2:
        raise ValueError(f"an SPRT compares two agents, got {len(config.agents)}")
    if not (0 < alpha < 1 and 0 < beta < 1) or elo1 <= elo0:
        raise ValueError("need 0 < alpha, beta < 1 and elo0 < elo1")
    tracker = SprtTracker(config, baseline, candidate, elo0, elo1, alpha, beta, adjusted, luck_net)
    with ResultsDB.open_for(results, config) as db:
        stored = list(db.games(history=adjusted))
        for record in stored:
            tracker.add(record, db)
        if tracker.result.verdict == UNDECIDED:
            keys = {r.key for r in stored}
            planned = planned_games(config)
            todo = [t for t in planned if t.key not in keys]
            with backend(config, workers, backend_name, address) as pool:
                for record in play(db, pool, todo, len(planned), progress):
                    tracker.add(record, db)
                    if tracker.result.verdict != UNDECIDED:
                        break
    return tracker.result
