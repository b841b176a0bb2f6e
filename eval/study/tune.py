"""The Canasta rule bot's settings tuned against an opponent: coordinate ascent on the harness.

The lab's questions change one setting at a time from the defaults; the best
strategy is a point in all of them at once. `tune` starts from a strategy and,
setting by setting, plays each value of that setting's grid against the
opponent on the same duplicate deals (one harness tournament per candidate,
a side each, single hands), keeping a value only when its Elo over the opponent
beats the best so far by `min_gain`. Every candidate is one results file under
`out`, named by its spec's digest, so a stopped run resumes where it was.

The deals that choose the settings also rate them, so the last Elo is an
optimistic estimate: rate the result on other deals (`cardarena tournament`
with another seed) before quoting it, as docs/studies/canasta.md does.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any, Callable, Sequence

from agents.rules.modern_canasta import Strategy
from eval.config import TournamentConfig
from eval.study.paired import save_figure
from eval.tournament import run_tournament

GAME = "python_modern_canasta"
FIGURE_MAKER = "study tune"           # what its figure says made it (records.files.FIGURE_KEY)

# The values tried for each setting, in the order the ascent visits them (the
# strategy's own value is always among the candidates). Settings read only
# under another setting's value (out_lead, out_stock under go_out, answer_limit
# under answer=cheap) come after it.
GRID: dict[str, tuple[Any, ...]] = {
    "initial_meld": ("asap", "pile", "canasta"),
    "new_meld_min": (3, 4, 5),
    "start_aces": (3, 4, 5, 6, 8),
    "start_sevens": (3, 4, 5, 6, 8),
    "pile_min": (2, 3, 4, 5, 6, 8),
    "pile_min_special": (0, 4, 6, 8),
    "pile_avoid_special": (0, 2, 3),
    "pile_canasta": (True, False),
    "pile_min_before": (1, 2, 3, 4, 6),
    "initial_pairs": (True, False),
    "initial_aces_wild": (True, False),
    "start_wild": (0, 3, 4, 5),
    "feed_wild": (True, False),
    "go_out": ("asap", "lead", "stock"),
    "out_lead": (-500, 0, 500, 1000),
    "out_stock": (5, 10, 20, 30),
    "ask": ("first", "never"),
    "answer": ("cheap", "yes", "no"),
    "answer_limit": (50, 100, 200, 400),
    "discard_safety": (5.0, 10.0, 20.0, 40.0),
    "discard_known": (True, False),
    "discard_avoid_melded": (0.0, 0.5, 1.0),
    "discard_keep_pairs": (0.0, 2.0, 4.0, 8.0),
    "discard_keep_melded": (0.0, 3.0, 6.0, 12.0),
}


@dataclass(frozen=True)
class Trial:
    """One candidate strategy rated against the opponent on the tuning deals."""
    setting: str            # the setting changed from the best so far ('' for the start)
    value: Any
    spec: str
    elo: float
    kept: bool              # whether it became the best so far


def grid_check(grid: dict[str, Sequence[Any]]) -> None:
    """ValueError naming the first setting or value the rule bot would refuse."""
    known = {f.name for f in fields(Strategy)}
    for name, values in grid.items():
        if name not in known:
            raise ValueError(f"tune grid: unknown setting {name!r}; settings: {', '.join(sorted(known))}")
        for value in values:
            Strategy.from_settings(**{name: value})


def rate(spec: str, opponent: str, deals: int, seed: int, out: Path, workers: int) -> float:
    """`spec`'s Elo over `opponent` in single hands on `deals` duplicate deals of `seed`."""
    config = TournamentConfig.create(GAME, [f"candidate={spec}", f"opponent={opponent}"], deals, seed)
    digest = hashlib.sha256(f"{spec}|{opponent}|{deals}|{seed}".encode()).hexdigest()[:12]
    summary = run_tournament(config, out / f"{digest}.db", workers=workers, progress=False,
                             anchor="opponent", bootstrap=0)
    return next(row.elo for row in summary.rows if row.name == "candidate")


def tune(start: Strategy, opponent: str, deals: int, seed: int, out: Path, *, passes: int = 1,
         min_gain: float = 5.0, workers: int = 1, grid: dict[str, Sequence[Any]] = GRID,
         report: Callable[[Trial], None] = lambda trial: None) -> tuple[Strategy, list[Trial]]:
    """Coordinate ascent from `start` over `grid`; the best strategy and every trial, in order.
    A pass that keeps no new value ends the ascent early. `out` is an existing folder."""
    grid_check(grid)
    best, best_elo = start, rate(start.spec(), opponent, deals, seed, out, workers)
    trials = [Trial("", None, start.spec(), best_elo, True)]
    report(trials[0])
    for _ in range(passes):
        improved = False
        for name, values in grid.items():
            for value in values:
                if getattr(best, name) == value:
                    continue
                candidate = replace(best, **{name: getattr(Strategy.from_settings(**{name: value}), name)})
                elo = rate(candidate.spec(), opponent, deals, seed, out, workers)
                kept = elo > best_elo + min_gain
                trials.append(Trial(name, value, candidate.spec(), elo, kept))
                report(trials[-1])
                if kept:
                    best, best_elo, improved = candidate, elo, True
        if not improved:
            break
    return best, trials


def plot(trials: Sequence[Trial], out: str | Path, title: str) -> Path:
    """Every candidate's Elo in the order tried, the kept ones joined: the ascent at a glance."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(11, 4.5))
    ax.scatter(range(len(trials)), [t.elo for t in trials], s=12, color="#8c8c8c", label="candidate")
    kept = [(i, t) for i, t in enumerate(trials) if t.kept]
    ax.step([i for i, _ in kept] + [len(trials) - 1], [t.elo for _, t in kept] + [kept[-1][1].elo],
            where="post", color="#c44e52", label="best so far")
    for i, t in kept[1:]:
        ax.annotate(f"{t.setting}={t.value}", (i, t.elo), textcoords="offset points", xytext=(4, 6), fontsize=8)
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xlabel("candidate, in the order tried")
    ax.set_ylabel("Elo over the opponent (tuning deals)")
    ax.set_title(title)
    ax.legend(loc="lower right")
    return save_figure(fig, out, FIGURE_MAKER)
