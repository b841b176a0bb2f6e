"""Ratings from a tournament's games: Bradley-Terry (Elo) with bootstrap intervals.

Every game gives pairwise outcomes: for two agents on different sides, the share
of their seat pairs in which the first finished ahead (returns compared; a tie
is half). Each pair of agents that met counts once per game, whatever the
number of seats they filled. The Bradley-Terry model, P(a ahead of b) =
1 / (1 + 10^((elo_b - elo_a) / 400)), is fitted to these by maximum likelihood,
with `prior` pseudo-points between every ordered pair (as OpenSpiel's
smoothing_factor) so that a perfect record stays finite, and the anchor agent
held at 0.

Intervals are percentile bootstraps over deals: a resample draws whole deals,
every replay of a deal together, because the replays of one deal share their
cards and so are not independent. Mean return and win rate get the same
bootstrap. docs/tournament.md gives the details.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

from agents import parse_spec
from eval.config import TournamentConfig
from eval.play import GameRecord
from eval.schedule import side_of_seat

ELO_PER_NAT = 400.0 / math.log(10.0)
DEFAULT_PRIOR = 0.1
BOOTSTRAP_SAMPLES = 1000


@dataclass
class DealTotals:
    """What each deal adds up to, per agent (k agents, D deals):

    wins[d, a, b]   points of a against b (1 per game a finished ahead of b, 0.5 a tie)
    met[d, a, b]    games in which a and b sat on different sides
    returns[d, a]   sum of a's returns over its seats; seats[d, a] the number of seats
    firsts[d, a]    a's seats' share of first places
    games[d, a]     games a played in
    """
    deals: np.ndarray
    wins: np.ndarray
    met: np.ndarray
    returns: np.ndarray
    seats: np.ndarray
    firsts: np.ndarray
    games: np.ndarray


def game_points(returns: Sequence[float], seats: Sequence[int], sides: Sequence[int],
                k: int) -> tuple[np.ndarray, np.ndarray]:
    """(points, met) of one game as k x k matrices: the pairwise outcomes above."""
    points = np.zeros((k, k))
    pairs = np.zeros((k, k))
    n = len(seats)
    for i in range(n):
        for j in range(i + 1, n):
            a, b = seats[i], seats[j]
            if a == b or sides[i] == sides[j]:
                continue
            s = 1.0 if returns[i] > returns[j] else 0.5 if returns[i] == returns[j] else 0.0
            points[a, b] += s
            points[b, a] += 1.0 - s
            pairs[a, b] += 1
            pairs[b, a] += 1
    met = (pairs > 0).astype(float)
    return np.divide(points, pairs, out=np.zeros_like(points), where=pairs > 0), met


def deal_totals(records: Iterable[GameRecord], k: int, sides_of_seat: Sequence[int]) -> DealTotals:
    """Sums the rated games (all but void ones) of each deal."""
    index: dict[int, int] = {}
    rows: list[list[np.ndarray]] = []
    for rec in records:
        if rec.returns is None:
            continue
        if rec.deal not in index:
            index[rec.deal] = len(rows)
            rows.append([np.zeros((k, k)), np.zeros((k, k)), np.zeros(k), np.zeros(k), np.zeros(k), np.zeros(k)])
        w, m, r, c, f, g = rows[index[rec.deal]]
        points, met = game_points(rec.returns, rec.seats, sides_of_seat, k)
        w += points
        m += met
        top = max(rec.returns)
        top_sides = len({sides_of_seat[s] for s, x in enumerate(rec.returns) if x == top})
        for s, a in enumerate(rec.seats):
            r[a] += rec.returns[s]
            c[a] += 1
            f[a] += (rec.returns[s] == top) / top_sides
        for a in set(rec.seats):
            g[a] += 1
    parts = [np.array([row[i] for row in rows]).reshape((len(rows),) + ((k, k) if i < 2 else (k,)))
             for i in range(6)]
    return DealTotals(np.array(list(index), dtype=np.int64), *parts)


def fit_elo(wins: np.ndarray, anchor: int, prior: float = DEFAULT_PRIOR) -> np.ndarray:
    """Bradley-Terry maximum likelihood by Newton's method, batched over leading axes.

    wins[..., a, b] are a's points against b. Returns Elo (..., k), anchor = 0.
    """
    k = wins.shape[-1]
    w = wins + prior * (1.0 - np.eye(k))
    n = w + np.swapaxes(w, -1, -2)
    free = np.array([a for a in range(k) if a != anchor])
    theta = np.zeros(wins.shape[:-1])
    for _ in range(200):
        p = 1.0 / (1.0 + np.exp(theta[..., None, :] - theta[..., :, None]))
        grad = (w - n * p).sum(-1)
        h = n * p * (1.0 - p)
        hess = h - np.eye(k) * h.sum(-1)[..., None, :]
        step = np.linalg.solve(hess[..., free[:, None], free[None, :]], grad[..., free, None])[..., 0]
        step = np.clip(step, -2.0, 2.0)
        theta[..., free] -= step
        if np.abs(step).max() < 1e-10:
            break
    return theta * ELO_PER_NAT


@dataclass
class AgentRow:
    name: str
    spec: str
    elo: float
    elo_low: float
    elo_high: float
    games: int
    mean_return: float
    return_low: float
    return_high: float
    win_rate: float
    win_low: float
    win_high: float
    seconds_per_move: float
    adjusted_elo: float = math.nan          # the same figures on luck-adjusted returns (eval/luck.py)
    adjusted_elo_low: float = math.nan
    adjusted_elo_high: float = math.nan
    adjusted_return: float = math.nan
    adjusted_return_low: float = math.nan
    adjusted_return_high: float = math.nan


@dataclass
class Fault:
    deal: int
    rotation: int
    seat: int | None
    agent: str | None
    kind: str
    error: str


@dataclass
class Summary:
    """A tournament's ratings, head-to-head matrix and faults."""
    config: TournamentConfig
    anchor: str
    rows: list[AgentRow]                 # best first
    score: list[list[float | None]]      # score[a][b]: a's points per game against b, None if never met
    met: list[list[int]]                 # games in which a and b met
    faults: list[Fault]
    games: int
    deals: int
    void: int
    bootstrap: int
    adjusted: str | None = None          # None: no adjusted figures; else how they were measured

    @property
    def has_intervals(self) -> bool:
        """Whether the intervals were bootstrapped (at least one resample and two deals)."""
        return self.bootstrap > 0 and self.deals > 1


def default_anchor(config: TournamentConfig, played: Sequence[str] | None = None) -> str:
    """The first agent whose bot is `random` (the floor), else the first by name;
    among the agents that `played`, where given and not empty."""
    agents = [(name, spec) for name, spec in config.agents if played is None or name in played] or config.agents
    for name, spec in agents:
        if parse_spec(spec)[0] == "random":
            return name
    return agents[0][0]


def _interval(samples: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """2.5% and 97.5% percentiles; NaN where a resample has none (an agent never played)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)     # all-NaN columns: not rated
        return np.nanpercentile(samples, 2.5, axis=0), np.nanpercentile(samples, 97.5, axis=0)


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    return np.divide(num, den, out=np.full(np.broadcast(num, den).shape, np.nan), where=den > 0)


def summarize(config: TournamentConfig, records: Sequence[GameRecord], anchor: str | None = None,
              bootstrap: int = BOOTSTRAP_SAMPLES, prior: float = DEFAULT_PRIOR) -> Summary:
    """Ratings with 95% bootstrap intervals (seeded by the tournament's seed).

    Only agents that played a rated game are rated; the others' figures are NaN
    (no evidence, so no number: the prior alone would give them one)."""
    names = config.agent_names
    k = len(names)
    num_seats = len(records[0].seats) if records else 0
    sides = side_of_seat(num_seats, config.teams)
    totals = deal_totals(records, k, sides)
    D = len(totals.deals)
    games_by_agent = totals.games.sum(0)
    rated = [a for a in range(k) if games_by_agent[a] > 0]
    if anchor is not None and anchor not in names:
        raise ValueError(f"anchor {anchor!r} is not an agent; agents: {', '.join(names)}")
    if anchor is not None and rated and names.index(anchor) not in rated:
        raise ValueError(f"anchor {anchor!r} played no rated game; agents that did: "
                         f"{', '.join(names[a] for a in rated)}")
    anchor = anchor or default_anchor(config, [names[a] for a in rated])
    sub = np.ix_(rated, rated)

    def fit(wins: np.ndarray) -> np.ndarray:
        """Elo of every agent (..., k), fitted over the rated ones; NaN for the rest."""
        out = np.full(wins.shape[:-2] + (k,), np.nan)
        if rated:
            out[..., rated] = fit_elo(wins[(...,) + sub], rated.index(names.index(anchor)), prior)
        return out

    elo = fit(totals.wins.sum(0))
    sums = [x.sum(0) for x in (totals.returns, totals.seats, totals.firsts)]
    mean_return, win_rate = _ratio(sums[0], sums[1]), _ratio(sums[2], sums[1])
    elo_lo = elo_hi = elo
    ret_lo = ret_hi = mean_return
    win_lo = win_hi = win_rate
    if D > 1 and bootstrap > 0:
        rng = np.random.default_rng(config.seed)
        elos, rets, wins = [], [], []
        chunk = max(1, min(bootstrap, 4_000_000 // D))
        for start in range(0, bootstrap, chunk):
            counts = rng.multinomial(D, np.full(D, 1.0 / D), size=min(chunk, bootstrap - start)).astype(float)
            w = np.einsum("bd,dij->bij", counts, totals.wins)
            resampled = fit(w)
            resampled[(counts @ totals.games) == 0] = np.nan    # absent from this resample
            elos.append(resampled)
            r, c, f = (counts @ x for x in (totals.returns, totals.seats, totals.firsts))
            rets.append(_ratio(r, c))
            wins.append(_ratio(f, c))
        elo_lo, elo_hi = _interval(np.concatenate(elos))
        ret_lo, ret_hi = _interval(np.concatenate(rets))
        win_lo, win_hi = _interval(np.concatenate(wins))

    moves, seconds = np.zeros(k), np.zeros(k)
    for r in records:
        for s, a in enumerate(r.seats):
            moves[a] += r.move_counts[s]
            seconds[a] += r.move_seconds[s]
    per_move = _ratio(seconds, moves)
    rows = [AgentRow(names[a], config.agents[a][1], float(elo[a]), float(elo_lo[a]), float(elo_hi[a]),
                     int(games_by_agent[a]), float(mean_return[a]), float(ret_lo[a]), float(ret_hi[a]),
                     float(win_rate[a]), float(win_lo[a]), float(win_hi[a]), float(per_move[a]))
             for a in range(k)]
    rows.sort(key=lambda r: math.inf if math.isnan(r.elo) else -r.elo)      # the unrated last
    met = totals.met.sum(0)
    score = _ratio(totals.wins.sum(0), met)
    faults = [Fault(r.deal, r.rotation, r.fault_seat,
                    names[r.seats[r.fault_seat]] if r.fault_seat is not None else None,
                    r.fault_kind, r.error or "") for r in records if r.fault_kind]
    return Summary(config, anchor, rows,
                   [[None if met[a, b] == 0 else float(score[a, b]) for b in range(k)] for a in range(k)],
                   [[int(met[a, b]) for b in range(k)] for a in range(k)],
                   faults, len(records), D, sum(r.returns is None for r in records), bootstrap)


def with_adjusted(plain: Summary, adjusted: Summary, how: str) -> Summary:
    """`plain` with the Elo and mean return of `adjusted` (the same games'
    summary on luck-adjusted returns, eval/luck.py) beside its own."""
    by_name = {r.name: r for r in adjusted.rows}
    for r in plain.rows:
        a = by_name[r.name]
        r.adjusted_elo, r.adjusted_elo_low, r.adjusted_elo_high = a.elo, a.elo_low, a.elo_high
        r.adjusted_return, r.adjusted_return_low, r.adjusted_return_high = \
            a.mean_return, a.return_low, a.return_high
    plain.adjusted = how
    return plain
