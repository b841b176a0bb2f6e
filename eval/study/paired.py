"""Paired experiments between two Canasta strategies, on the tournament harness.

Side A and side B play each deal twice with the same cards, A in seats 0 and 2
and then in seats 1 and 3, so the luck of the cards cancels within the deal. A
deal is a whole match to the target score (8,500 by default: every hand of it
counts, and the match too) or, with `target=None`, a single hand. It is one
harness tournament (eval.tournament) with the two agents `a` and `b`, teams
fixed (an agent per side), duplicate deals and the results file it keeps, so
a study resumes and refuses another experiment's file as a tournament does.

Everything is measured per deal, the unit the cards are paired on, and its 95%
interval is the normal one over deals (the delta method for a ratio such as
points per hand: hands per deal vary in matches).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

from eval.config import TournamentConfig, check_bot, register_bots
from games.load import load_game
from records.files import FIGURE_KEY, write_whole
from eval.play import GameRecord
from eval.sprt import bounds, log_likelihood_ratio
from eval.storage import ResultsDB
from eval.tournament import backend, planned_games, play

GAME = "python_modern_canasta"
PLOT_MAKER = "study plot"             # what its figure says made it (records.files.FIGURE_KEY)
DEFAULT_TARGET = 8500
PARTNERSHIP = ("partnership", "eval.study.partnership:make_partnership")
GUIDED = ("guided", "eval.study.guided:make_guided")
Z95 = 1.959963984540054


def side_spec(spec: str, partner: str | None) -> str:
    """The agent of a side: one spec for both players, or `partnership(...)` when they differ."""
    if partner is None or partner == spec:
        return spec
    return f"partnership(first={spec},second={partner})"


def study_config(a: str, b: str, *, a_partner: str | None = None, b_partner: str | None = None,
                 deals: int = 500, seed: int = 0, target: int | None = DEFAULT_TARGET,
                 game: str = GAME, time_limit: float | None = 60.0) -> TournamentConfig:
    """The tournament behind a study of `a` (and its partner) against `b`. Raises
    ValueError naming a bad spec, game or target."""
    loaded = load_game(game)
    if loaded.get_type().short_name != GAME:
        raise ValueError(f"a Canasta study plays {GAME}, not {loaded.get_type().short_name}")
    if target is not None and game != GAME:
        raise ValueError(f"--game {game!r}: a match sets each hand's parameters itself; "
                         f"give game parameters only with --target none (single hands)")
    specs = [side_spec(a, a_partner), side_spec(b, b_partner)]
    modules = ([PARTNERSHIP] if any(s.startswith("partnership(") for s in specs) else []) + \
        ([GUIDED] if any("guided(" in s for s in specs) else [])
    register_bots(modules)
    for spec in (a, b, a_partner, b_partner):
        if spec is not None:
            for seat in range(loaded.num_players()):
                check_bot(spec, loaded, seat)
    return TournamentConfig.create(game, [f"a={specs[0]}", f"b={specs[1]}"], deals, seed,
                                   match=None if target is None else f"target={target}",
                                   time_limit=time_limit, bot_modules=modules)


def default_results(config: TournamentConfig, folder: str | os.PathLike = "results") -> Path:
    """A results file named by the experiment, so that two experiments never share one."""
    digest = hashlib.sha256(json.dumps(config.identity(), sort_keys=True, default=list).encode()).hexdigest()
    return Path(folder) / f"study-canasta-{digest[:12]}.db"


@dataclass
class PairedDeal:
    """One deal's two replays, from side A's point of view."""
    deal: int
    hands: int                    # hands over both replays
    points: float                 # A's points minus B's over those hands
    a_points: float               # A's points and B's (known in matches; in single hands, the difference only)
    b_points: float
    hands_won: float              # hands A's side scored more (a tie half)
    matches_won: float | None     # of the two matches, A's wins (a tie half); None for single hands
    side0: float                  # seats 0,2 minus seats 1,3 over the hands


def replays_per_deal(config: TournamentConfig) -> dict[int, int]:
    """How many games each deal of the study is played in (two: the sides swapped)."""
    replays: dict[int, int] = {}
    for task in planned_games(config):
        replays[task.deal] = replays.get(task.deal, 0) + 1
    return replays


def paired_deals(config: TournamentConfig, games: Iterable[GameRecord],
                 replays: dict[int, int] | None = None) -> tuple[list[PairedDeal], int]:
    """The deals whose replays are all stored and unfaulted, in deal order, and
    the number of deals left out for a fault."""
    by_deal: dict[int, list[GameRecord]] = {}
    for record in games:
        by_deal.setdefault(record.deal, []).append(record)
    expected = replays if replays is not None else \
        replays_per_deal(config.with_deals(max(by_deal, default=0) + 1))
    out, faulted = [], 0
    for deal in sorted(by_deal):
        records = by_deal[deal]
        if len(records) != expected.get(deal):
            continue
        if any(r.fault_kind or r.returns is None for r in records):
            faulted += 1
            continue
        out.append(_paired(deal, records, config.match is not None))
    return out, faulted


def _paired(deal: int, records: Sequence[GameRecord], match: bool) -> PairedDeal:
    hands = 0
    a_pts = b_pts = won = side0 = 0.0
    matches = 0.0
    for r in records:
        a_side = 0 if r.seats[0] == 0 else 1            # agent 0 is `a` (agents sorted by name)
        if match:
            per_hand = [(h[a_side], h[1 - a_side]) for h in r.deal_records]
            side0 += sum(h[0] - h[1] for h in r.deal_records)
            result = r.returns[0] if a_side == 0 else r.returns[1]
            matches += 1.0 if result > 0 else 0.5 if result == 0 else 0.0
        else:
            swing = 1000.0 * r.returns[a_side]          # returns are the hand's swing in thousands
            per_hand = [(swing, 0.0)]
            side0 += 1000.0 * r.returns[0]
        for mine, theirs in per_hand:
            hands += 1
            a_pts += mine
            b_pts += theirs
            won += 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
    return PairedDeal(deal, hands, a_pts - b_pts, a_pts, b_pts, won,
                      matches / len(records) if match else None, side0)


@dataclass
class Estimate:
    value: float
    low: float
    high: float

    def text(self, fmt: str = "+.0f") -> str:
        return f"{self.value:{fmt}} [{self.low:{fmt}}, {self.high:{fmt}}]"


def ratio_estimate(numerators: Sequence[float], denominators: Sequence[float]) -> Estimate:
    """sum(num) / sum(den) over deals, with a 95% interval by the delta method
    (the normal interval of a mean when every denominator is 1)."""
    num, den = np.asarray(numerators, float), np.asarray(denominators, float)
    if len(num) == 0 or den.sum() == 0:
        return Estimate(math.nan, math.nan, math.nan)
    ratio = num.sum() / den.sum()
    if len(num) < 2:
        return Estimate(ratio, -math.inf, math.inf)
    resid = num - ratio * den
    se = math.sqrt((resid ** 2).sum() / (len(num) * (len(num) - 1))) / den.mean()
    return Estimate(ratio, ratio - Z95 * se, ratio + Z95 * se)


@dataclass
class SprtSettings:
    """The sequential test on hands won: is A stronger by elo1 (H1) or not by elo0 (H0)?"""
    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    @classmethod
    def parse(cls, text: str, alpha: float = 0.05, beta: float = 0.05) -> "SprtSettings":
        """ELO0,ELO1 from the command line: finite, -1000 to 1000, elo0 < elo1."""
        try:
            elo0, elo1 = (float(x) for x in text.split(","))
        except ValueError:
            raise ValueError(f"--sprt {text!r}: expected ELO0,ELO1, e.g. 0,20") from None
        if not all(math.isfinite(x) and -1000 <= x <= 1000 for x in (elo0, elo1)):
            raise ValueError(f"--sprt {text!r}: each Elo must be a finite number from -1000 to 1000")
        if elo1 <= elo0 or not (0 < alpha < 1 and 0 < beta < 1):
            raise ValueError(f"--sprt {text!r}: need elo0 < elo1 and 0 < alpha, beta < 1")
        return cls(elo0, elo1, alpha, beta)


@dataclass
class SprtState:
    settings: SprtSettings
    llr: float
    lower: float
    upper: float
    deals: int
    verdict: str          # "H0", "H1" or "undecided"

    def describe(self) -> str:
        s = self.settings
        what = {"H1": f"H1: A wins hands by at least {s.elo1:g} Elo",
                "H0": f"H0: A does not win hands by {s.elo1:g} Elo (the data favour {s.elo0:g} or less)",
                "undecided": "undecided: the deal limit came first"}[self.verdict]
        return (f"SPRT on hands won, elo0={s.elo0:g} elo1={s.elo1:g} alpha={s.alpha:g} beta={s.beta:g}: "
                f"LLR {self.llr:+.2f} in [{self.lower:.2f}, {self.upper:.2f}] after {self.deals} deals; {what}")


class SprtFollower:
    """Feeds deals to the SPRT in deal order as their replays arrive (so the
    verdict does not depend on which worker finished first)."""

    def __init__(self, config: TournamentConfig, settings: SprtSettings):
        self.config, self.settings = config, settings
        self.lower, self.upper = bounds(settings.alpha, settings.beta)
        self.replays = replays_per_deal(config)
        self.waiting: dict[int, list[GameRecord]] = {}
        self.next_deal = 0
        self.scores: list[float] = []
        self.state = SprtState(settings, 0.0, self.lower, self.upper, 0, "undecided")

    def add(self, record: GameRecord) -> None:
        self.waiting.setdefault(record.deal, []).append(record)
        while self.state.verdict == "undecided" and \
                len(self.waiting.get(self.next_deal, ())) == self.replays.get(self.next_deal, -1):
            deals, _ = paired_deals(self.config, self.waiting.pop(self.next_deal), self.replays)
            self.scores.extend(d.hands_won / d.hands for d in deals if d.hands)
            self.next_deal += 1
            s = self.settings
            llr = log_likelihood_ratio(self.scores, s.elo0, s.elo1)
            verdict = "H1" if llr >= self.upper else "H0" if llr <= self.lower else "undecided"
            self.state = SprtState(s, llr, self.lower, self.upper, self.next_deal, verdict)

    @property
    def decided(self) -> bool:
        return self.state.verdict != "undecided"


@dataclass
class StudyResult:
    config: TournamentConfig
    results: Path
    deals: list[PairedDeal]
    faulted: int
    sprt: SprtState | None
    seconds: float            # wall time of this run's play
    played: int               # games this run played
    adjusted: list[PairedDeal] | None = None    # the same deals on luck-adjusted returns (eval/luck.py)
    luck_net: str | None = None                 # the luck network they were measured with (None: the shipped value)

    @property
    def hands(self) -> int:
        return sum(d.hands for d in self.deals)

    def points(self) -> Estimate:
        return ratio_estimate([d.points for d in self.deals], [d.hands for d in self.deals])

    def side_points(self, side: str) -> Estimate:
        return ratio_estimate([getattr(d, f"{side}_points") for d in self.deals], [d.hands for d in self.deals])

    def hands_won(self) -> Estimate:
        return ratio_estimate([d.hands_won for d in self.deals], [d.hands for d in self.deals])

    def matches_won(self) -> Estimate | None:
        if self.config.match is None:
            return None
        return ratio_estimate([d.matches_won for d in self.deals], [1.0] * len(self.deals))

    def seat_advantage(self) -> Estimate:
        return ratio_estimate([d.side0 for d in self.deals], [d.hands for d in self.deals])

    def markdown(self) -> str:
        """The report: the difference per hand, hands won and matches won, each with its interval."""
        c = self.config
        a, b = (spec for _, spec in c.agents)
        unit = f"matches to {c.match.split('=')[1]}" if c.match else "single hands"
        lines = [f"## Canasta study: A = `{a}` against B = `{b}`", "",
                 f"{c.game}, {unit}, {len(self.deals)} paired deals ({self.hands} hands), seed {c.seed}; "
                 f"each deal played twice with the same cards, sides swapped. 95% intervals over deals.", "",
                 "| measure | A | B | A − B (95%) |", "|---|---:|---:|:---:|"]
        points = self.points()
        if c.match:
            lines.append(f"| points per hand | {self.side_points('a').value:+.0f} | "
                         f"{self.side_points('b').value:+.0f} | {points.text()} |")
        else:
            lines.append(f"| points per hand | | | {points.text()} |")
        if self.adjusted is not None:
            adjusted = ratio_estimate([d.points for d in self.adjusted], [d.hands for d in self.adjusted])
            lines.append(f"| points per hand, luck removed | | | {adjusted.text()} |")
        won = self.hands_won()
        lines.append(f"| hands won | {won.value:.1%} | {1 - won.value:.1%} | "
                     f"{Estimate(2 * won.value - 1, 2 * won.low - 1, 2 * won.high - 1).text('+.1%')} |")
        matches = self.matches_won()
        if matches is not None:
            lines.append(f"| matches won | {matches.value:.1%} | {1 - matches.value:.1%} | "
                         f"{Estimate(2 * matches.value - 1, 2 * matches.low - 1, 2 * matches.high - 1).text('+.1%')} |")
        if not c.match:                  # in a match the first player moves from hand to hand
            lines += ["", f"Seats 0 and 2 against 1 and 3, whoever plays them: {self.seat_advantage().text()} "
                          f"points per hand."]
        else:
            lines.append("")
        if self.faulted:
            lines.append(f"{self.faulted} deals left out: a bot faulted in them.")
        if self.sprt is not None:
            lines.append(self.sprt.describe())
        if self.adjusted is not None:
            value = "the shipped value network" if self.luck_net is None else f"the luck network {self.luck_net}"
            lines.append(f"Luck removed: each chance event's luck (and each stated random choice's) under {value} "
                         "subtracted from each side's points (unbiased; docs/tournament.md, 'Luck').")
        lines.append(f"Results: {self.results} ({self.played} games played now, {self.seconds:.1f} s).")
        return "\n".join(lines)


def run_study(config: TournamentConfig, results: str | os.PathLike, *, workers: int = 1,
              sprt: SprtSettings | None = None, progress: bool = True, luck: bool = False,
              luck_net: str | None = None) -> StudyResult:
    """Plays the deals of `config` missing from `results` (all of them, or until
    the SPRT decides), then measures every complete deal stored, with the
    luck-adjusted points beside where `luck` (under `luck_net`, a luck network,
    else the shipped value network; single hands only: ValueError, one line,
    before anything is played, for a match). The results file's folder exists
    (as a tournament's)."""
    import time
    results = Path(results)
    if luck:
        from eval.luck import luck_judge
        luck_judge(config, luck_net)
    follower = SprtFollower(config, sprt) if sprt is not None else None
    started, played = time.perf_counter(), 0
    with ResultsDB.open_for(results, config) as db:
        stored = list(db.games())
        if follower is not None:
            for record in stored:
                follower.add(record)
        keys = {r.key for r in stored}
        planned = planned_games(config)
        todo = [t for t in planned if t.key not in keys]
        if todo and not (follower is not None and follower.decided):
            with backend(config, workers) as pool:
                for record in play(db, pool, todo, len(planned), progress):
                    played += 1
                    if follower is not None:
                        follower.add(record)
                        if follower.decided:
                            break
        db.flush()
        games = list(db.games())
        adjusted = _adjusted(db, progress, luck_net) if luck else None
    deals, faulted = paired_deals(config, games)
    return StudyResult(config, results, deals, faulted, follower.state if follower else None,
                       time.perf_counter() - started, played, adjusted, luck_net if luck else None)


def _adjusted(db: ResultsDB, progress: bool, luck_net: str | None) -> list[PairedDeal]:
    """The study's deals measured on luck-adjusted returns (the same deals as the
    plain ones), the luck read where the file stores it and stored where measured."""
    from eval.luck import luck_judge, stored_adjusted
    config = db.config()
    return paired_deals(config, stored_adjusted(db, luck_judge(config, luck_net), progress, luck_net))[0]


def load_study(results: str | os.PathLike) -> StudyResult:
    """The measures of whatever a study's results file holds; ValueError for a
    results file that is not a study's (another game, agents or seating)."""
    with ResultsDB.read(results) as db:
        config = db.config()
        problem = _not_a_study(config)
        if problem:
            raise ValueError(f"{results}: not a Canasta study's results file ({problem}); "
                             f"`cardarena report` reads any tournament")
        games = list(db.games())
    deals, faulted = paired_deals(config, games)
    return StudyResult(config, Path(results), deals, faulted, None, 0.0, 0)


def _not_a_study(config: TournamentConfig) -> str | None:
    """Why a tournament is not one `study_config` makes, or None: a study plays
    python_modern_canasta, agents a and b, each filling a side, on duplicate deals."""
    if config.game.partition("(")[0] != GAME:
        return f"it plays {config.game.partition('(')[0]}"
    if [name for name, _ in config.agents] != ["a", "b"]:
        return f"its agents are {', '.join(n for n, _ in config.agents)}, not a and b"
    if not config.duplicate or config.mixed_partners or config.teams not in (None, ((0, 2), (1, 3))):
        return "its seating is not the study's: each side one agent, duplicate deals"
    return None


def requirement_cost(spec: str, score: int, *, deals: int, seed: int = 0, workers: int = 1,
                     results_dir: str | os.PathLike = "results", progress: bool = True) -> tuple[Estimate, Estimate, Estimate]:
    """What facing a higher initial-meld requirement costs a side: single hands of
    `spec` on both sides, once with seats 0 and 2 at `score` (so they need 155 or
    180) and once at 0 (125, as their opponents), on the same deals. Returns
    side 0's lead per hand at `score`, at 0, and their difference paired by deal."""
    leads = []
    for s in (score, 0):
        config = study_config(spec, spec, deals=deals, seed=seed, target=None,
                              game=f"{GAME}(score0={s})" if s else GAME)
        result = run_study(config, default_results(config, results_dir), workers=workers, progress=progress)
        leads.append({d.deal: d.side0 / d.hands for d in result.deals})
    common = sorted(set(leads[0]) & set(leads[1]))
    gap = ratio_estimate([leads[0][d] - leads[1][d] for d in common], [1.0] * len(common))
    each = [ratio_estimate([lead[d] for d in common], [1.0] * len(common)) for lead in leads]
    return each[0], each[1], gap


def play_fingerprint(results: str | os.PathLike) -> str:
    """A sha256 of everything a results file says was played (every game's seats,
    chance seed, returns, length, moves per seat, hand scores, fault, and each
    hand's actions), leaving out only times: two runs of one experiment agree
    on it exactly when they played the same games move for move, which is how a
    speed-up is shown to change no move."""
    digest = hashlib.sha256()
    with ResultsDB.read(results) as db:
        for g in db.games(history=True):
            try:
                actions = None if g.history is None else [h.actions for h in g.deal_histories()]
            except ValueError as e:
                raise ValueError(f"{results}: game {g.deal}-{g.rotation}: its stored history is not readable "
                                 f"({e})") from None
            digest.update(json.dumps([g.deal, g.rotation, list(g.seats), g.chance_seed, g.returns, g.length,
                                      g.move_counts, g.deal_records, g.fault_seat, g.fault_kind, g.error,
                                      actions]).encode())
    return digest.hexdigest()


def _label(a: str, b: str) -> str:
    """A study's row label: A's spec, as B's plus the settings it adds where it extends B's,
    a partnership as `first & second`, and B where it is not plain `rules`."""
    def short(spec: str) -> str:
        m = re.fullmatch(r"partnership\(first=(.*),second=(.*)\)", spec)
        return f"{m.group(1)} & {m.group(2)}" if m else spec

    def settings(spec: str) -> list[str]:
        m = re.fullmatch(r"rules\((.*)\)", spec)
        return m.group(1).split(",") if m else []

    mine, theirs = settings(a), settings(b)
    if theirs and set(theirs) < set(mine):
        return f"B + {','.join(s for s in mine if s not in theirs)}  (B = {b})"
    return short(a) + ("" if b == "rules" else f"  vs {short(b)}")


def forest_plot(results: Sequence[str | os.PathLike], out: str | os.PathLike, title: str) -> Path:
    """One row per study: A's points per hand over B's with its 95% interval, labelled by A's spec
    (and B's where it is not plain `rules`), so that a set of questions reads at a glance."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    studies = [load_study(r) for r in results]
    fig, ax = plt.subplots(figsize=(11, 0.42 * len(studies) + 1.2))
    labels = []
    for i, s in enumerate(studies):
        a, b = (spec for _, spec in s.config.agents)
        params = [p for p in s.config.game.partition("(")[2].rstrip(")").split(",")
                  if p and p not in ("first_player=0", "score0=0", "score1=0")]
        unit = "" if s.config.match else ", single hands" + "".join(f", {p}" for p in params)
        labels.append(_label(a, b) + f"  ({len(s.deals)} deals{unit})")
        est = s.points()
        clear = est.low > 0 or est.high < 0          # the interval excludes 0
        ax.errorbar([est.value], [i], xerr=[[est.value - est.low], [est.high - est.value]], fmt="o",
                    color="#c44e52" if clear else "#4c72b0", capsize=3)
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_yticks(range(len(studies)), labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("A's points per hand minus B's, 95% interval (B = rules unless named)")
    ax.set_title(title)
    return save_figure(fig, out, PLOT_MAKER)


def save_figure(fig, out: str | os.PathLike, maker: str) -> Path:
    """Writes a study's figure to `out` whole (its folder exists), saying that
    `maker` made it (records.files.FIGURE_KEY), and frees it."""
    import matplotlib.pyplot as plt
    fig.tight_layout()
    out = Path(out)
    try:
        write_whole(out, lambda tmp: fig.savefig(tmp, dpi=110, format="png", metadata={FIGURE_KEY: maker}))
    finally:
        plt.close(fig)
    return out


__all__ = ["study_config", "run_study", "requirement_cost", "forest_plot", "load_study", "paired_deals",
           "ratio_estimate", "play_fingerprint", "SprtSettings", "StudyResult", "PairedDeal", "default_results",
           "side_spec"]
