"""Two agents from two results files, compared deal by deal on the deals both played.

Tournaments with the same seed play the same deals (a deal's cards derive from
the seed and the deal's number, eval/schedule.py). When one file rates agent A
against some opponents and another rates B against the same opponents, each
shared deal's luck is in both, so the difference of A's and B's results deal by
deal carries little but what differs between A and B: an interval far tighter
than two ratings bootstrapped apart, and no new games (`cardarena paired`).

Deals are matched by their chance seed, so files of different lengths compare
on the deals they share. The cards are the same; the bots' own random draws are
too only where both files list their agents in the same order (a tournament
sorts them by name), so the same bot under a name that sorts elsewhere differs
a little, deal by deal, from itself. The opponents (every other agent, name and
spec), the game, the sides and duplicate play must be the same in both files:
otherwise the deals differ in more than the two agents, and the comparison is
refused.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from eval.ratings import deal_totals
from eval.schedule import side_of_seat
from eval.storage import ResultsDB


@dataclass
class AgentOnDeals:
    """One agent's figures over the shared deals."""

    agent: str
    path: str
    returns: np.ndarray            # (deals,): the sum of its returns over its seats in each deal
    seats: np.ndarray              # (deals,): its seats in each deal
    firsts: np.ndarray             # (deals,): its seats' share of first places, summed

    @property
    def mean_return(self) -> float:
        return float(self.returns.sum() / self.seats.sum())

    @property
    def win_rate(self) -> float:
        return float(self.firsts.sum() / self.seats.sum())


@dataclass
class PairedComparison:
    game: str
    opponents: list[tuple[str, str]]
    first: AgentOnDeals
    second: AgentOnDeals
    return_difference: tuple[float, float, float]    # first's mean return less second's, and its 95% interval
    win_difference: tuple[float, float, float]       # the same for the win rate
    bootstrap: int
    adjusted: bool = False                           # on luck-adjusted returns (eval/luck.py)

    @property
    def deals(self) -> int:
        return len(self.first.seats)

    def describe(self) -> str:
        def signed(x: tuple[float, float, float], digits: int) -> str:
            return f"{x[0]:+.{digits}f} [{x[1]:+.{digits}f}, {x[2]:+.{digits}f}]"
        opponents = ", ".join(f"{n}={s}" if n != s else n for n, s in self.opponents)
        lines = [f"{self.deals} deals both files played ({self.game}; opponents: {opponents})", "",
                 "| agent | results file | mean return | win rate |", "|---|---|---:|---:|"]
        for a in (self.first, self.second):
            lines.append(f"| {a.agent} | {a.path} | {a.mean_return:+.3f} | {a.win_rate:.3f} |")
        lines += ["", f"{self.first.agent} ({self.first.path}) less {self.second.agent} ({self.second.path}), "
                      f"deal by deal, 95% bootstrap over the deals ({self.bootstrap} resamples)"
                      + (", luck-adjusted returns (the luck of chance and of stated random choices removed):" if self.adjusted else ":"),
                  f"mean return {signed(self.return_difference, 3)}, win rate {signed(self.win_difference, 3)}"]
        return "\n".join(lines)


def _agent_by_deal(db: ResultsDB, agent: str, adjusted: bool = False,
                   luck_net: str | None = None) -> tuple[dict[int, tuple[float, float, float]], list]:
    """The agent's (returns, seats, firsts) in each deal it played, keyed by the
    deal's chance seed, and the file's other agents; on luck-adjusted returns
    (eval/luck.py) where `adjusted`."""
    config = db.config()
    names = config.agent_names
    if agent not in names:
        raise ValueError(f"{db.path}: no agent {agent!r} (agents: {', '.join(names)})")
    if adjusted:
        from eval.luck import luck_judge, stored_adjusted
        records = stored_adjusted(db, luck_judge(config, luck_net), luck_net=luck_net)
    else:
        records = list(db.games())
    records = [r for r in records if r.returns is not None]
    if not records:
        raise ValueError(f"{db.path}: no finished game")
    totals = deal_totals(records, len(names), side_of_seat(len(records[0].seats), config.teams))
    chance_seed = {r.deal: r.chance_seed for r in records}
    a = names.index(agent)
    by_seed = {chance_seed[int(d)]: (totals.returns[i, a], totals.seats[i, a], totals.firsts[i, a])
               for i, d in enumerate(totals.deals) if totals.seats[i, a] > 0}
    return by_seed, sorted((n, s) for n, s in config.agents if n != agent)


def compare(first_path: str | os.PathLike, first_agent: str, second_path: str | os.PathLike,
            second_agent: str, bootstrap: int = 2000, seed: int = 0, adjusted: bool = False,
            luck_net: str | None = None) -> PairedComparison:
    """`first_agent` of the first file against `second_agent` of the second, on
    the deals both played; refused (ValueError) where the files differ in more.
    `adjusted`: on each game's luck-adjusted returns (eval/luck.py; `luck_net`:
    a luck network's, else the shipped value network's)."""
    with ResultsDB.read(first_path) as a, ResultsDB.read(second_path) as b:
        ca, cb = a.config(), b.config()
        for setting in ("game", "teams", "duplicate", "mixed_partners", "match"):
            if getattr(ca, setting) != getattr(cb, setting):
                raise ValueError(f"the files differ in {setting}: {getattr(ca, setting)!r} ({a.path}) and "
                                 f"{getattr(cb, setting)!r} ({b.path})")
        first, first_opponents = _agent_by_deal(a, first_agent, adjusted, luck_net)
        second, second_opponents = _agent_by_deal(b, second_agent, adjusted, luck_net)
    if first_opponents != second_opponents:
        def show(opponents: list) -> str:
            return ", ".join(f"{n}={s}" for n, s in opponents) or "none"
        raise ValueError(f"the opponents differ: {show(first_opponents)} ({first_path}) and "
                         f"{show(second_opponents)} ({second_path})")
    shared = sorted(set(first) & set(second))
    if len(shared) < 2:
        raise ValueError(f"{first_path} and {second_path} share {len(shared)} deal(s) with both agents "
                         "playing; a paired comparison needs two or more (the same --seed plays the same deals)")
    sides = [AgentOnDeals(agent, str(path), *(np.array([by_seed[k][i] for k in shared]) for i in range(3)))
             for agent, path, by_seed in ((first_agent, first_path, first), (second_agent, second_path, second))]
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(len(shared), np.full(len(shared), 1.0 / len(shared)), size=bootstrap).astype(float)

    def difference(values: str) -> tuple[float, float, float]:
        x, y = (getattr(s, values) for s in sides)
        point = x.sum() / sides[0].seats.sum() - y.sum() / sides[1].seats.sum()
        resampled = counts @ x / (counts @ sides[0].seats) - counts @ y / (counts @ sides[1].seats)
        low, high = np.percentile(resampled, [2.5, 97.5])
        return float(point), float(low), float(high)

    return PairedComparison(ca.game, first_opponents, sides[0], sides[1], difference("returns"),
                            difference("firsts"), bootstrap, adjusted)
