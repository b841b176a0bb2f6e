"""A tournament's summary as Markdown (also what the terminal shows), CSV, JSON
and a PNG plot of the ratings with their intervals."""

from __future__ import annotations

import csv
import json
import math
from collections import Counter
from dataclasses import asdict
from pathlib import Path
from typing import Any

from records.files import FIGURE, FIGURE_KEY, REPORT_CSV, REPORT_JSON, REPORT_MD, check_output, write_text_whole, \
    write_whole
from eval.ratings import Summary

FAULTS_LISTED = 10
REPORT_SUFFIXES = (".md", ".csv", ".json", ".png")
PLOT_MAKER = "tournament report"         # what a report's plot says made it (records.files.FIGURE_KEY)


NOT_RATED = "–"      # a figure with no evidence behind it (an agent that played no game)


def _signed(x: float) -> str:
    return NOT_RATED if math.isnan(x) else f"{int(round(x)):+d}"     # never "-0"


def _figure(x: float, form: str) -> str:
    return NOT_RATED if math.isnan(x) else format(x, form)


def _with_interval(x: float, low: float, high: float, form: str, intervals: bool) -> str:
    if not intervals or math.isnan(x):
        return _figure(x, form)
    return f"{_figure(x, form)} [{_figure(low, form)}, {_figure(high, form)}]"


def _elo_interval(elo: float, low: float, high: float, shown: bool) -> str:
    return f"[{_signed(low)}, {_signed(high)}]" if shown and not math.isnan(elo) else NOT_RATED


def rating_table(s: Summary) -> str:
    shown = s.has_intervals
    extra = " adjusted Elo | 95% interval | adjusted mean return (95%) |" if s.adjusted else ""
    lines = ["| agent | Elo | 95% interval | games | mean return (95%) | win rate (95%) | ms/move |" + extra,
             "|---|---:|:---:|---:|:---:|:---:|---:|" + ("---:|:---:|:---:|" if s.adjusted else "")]
    for r in s.rows:
        line = (f"| {r.name} | {_signed(r.elo)} | {_elo_interval(r.elo, r.elo_low, r.elo_high, shown)} | {r.games} "
                f"| {_with_interval(r.mean_return, r.return_low, r.return_high, '+.3f', shown)} "
                f"| {_with_interval(r.win_rate, r.win_low, r.win_high, '.3f', shown)} "
                f"| {_figure(1000 * r.seconds_per_move, '.2f')} |")
        if s.adjusted:
            adjusted_return = _with_interval(r.adjusted_return, r.adjusted_return_low, r.adjusted_return_high,
                                             "+.3f", shown)
            line += (f" {_signed(r.adjusted_elo)} "
                     f"| {_elo_interval(r.adjusted_elo, r.adjusted_elo_low, r.adjusted_elo_high, shown)} "
                     f"| {adjusted_return} |")
        lines.append(line)
    return "\n".join(lines)


def _intervals_note(s: Summary) -> str:
    if s.has_intervals:
        return f"intervals are 95% bootstraps over deals ({s.bootstrap} resamples)"
    return "no intervals (" + ("one deal, nothing to resample" if s.bootstrap > 0 else "0 bootstrap resamples") + ")"


def _unrated_note(s: Summary) -> str:
    unrated = [r.name for r in s.rows if r.games == 0]
    return f" Not rated, having played no game: {', '.join(unrated)}." if unrated else ""


def _games_note(s: Summary) -> str:
    """Where agents sat in different numbers of games, how many each and each pair: with fewer
    agents than seats a deal's lineup can leave an agent out (3 agents at 4 seats: `B C C B`),
    which a reader who multiplied deals by seats would take for lost games."""
    rated = s.games - s.void
    short = [r for r in s.rows if 0 < r.games < rated]
    if not short:
        return ""
    idx = {n: i for i, n in enumerate(s.config.agent_names)}
    names = [r.name for r in s.rows]
    pairs = [f"{a}-{b} {s.met[idx[a]][idx[b]]}" for i, a in enumerate(names) for b in names[i + 1:]]
    return (" Each agent is credited the games it sat in (" + ", ".join(f"{r.name} {r.games}" for r in s.rows)
            + f" of {rated}): a deal whose lineup leaves an agent out is played without it (docs/tournament.md, "
            "\"Games per agent\"). Games by pair: " + ", ".join(pairs) + ".")


def matrix_table(s: Summary) -> str:
    names = [r.name for r in s.rows]
    idx = {n: i for i, n in enumerate(s.config.agent_names)}
    lines = ["| row vs column | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]
    for a in names:
        cells = []
        for b in names:
            sc, met = s.score[idx[a]][idx[b]], s.met[idx[a]][idx[b]]
            cells.append("" if a == b else "-" if sc is None else f"{sc:.3f} ({met})")
        lines.append(f"| {a} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def faults_section(s: Summary) -> str:
    if not s.faults:
        return "No faults."
    counts = Counter((f.agent or "(no bot)", f.kind) for f in s.faults)
    lines = [f"{len(s.faults)} faults: " + ", ".join(f"{agent} {kind} x{n}" for (agent, kind), n in
                                                      sorted(counts.items())), ""]
    for f in s.faults[:FAULTS_LISTED]:
        lines.append(f"- deal {f.deal} rotation {f.rotation}: {f.agent or 'no bot'} ({f.kind}): {f.error}")
    if len(s.faults) > FAULTS_LISTED:
        lines.append(f"- ... and {len(s.faults) - FAULTS_LISTED} more (all are in the results file)")
    return "\n".join(lines)


def markdown(s: Summary) -> str:
    """The report; its header describes the games it rates (the deals stored, not
    those a run asked for)."""
    void = f", {s.void} void" if s.void else ""
    return "\n\n".join([
        f"## Tournament: {s.config.with_deals(s.deals).describe()}",
        f"{s.games} games over {s.deals} deals{void}. Elo is Bradley-Terry from pairwise finishing "
        f"order, {s.anchor} = 0; {_intervals_note(s)}.{_unrated_note(s)}{_games_note(s)}"
        + (f" Adjusted: {s.adjusted}; the same games, deals and resamples." if s.adjusted else ""),
        rating_table(s),
        "### Head to head: row's points per game against column (games)",
        matrix_table(s),
        "### Faults",
        faults_section(s),
    ]) + "\n"


def _no_nan(value: Any) -> Any:
    """NaN (a figure with no evidence) as JSON's null, which every reader takes."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _no_nan(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_no_nan(v) for v in value]
    return value


def to_json(s: Summary) -> dict:
    out = asdict(s)
    out["config"] = s.config.__dict__ | {"describe": s.config.with_deals(s.deals).describe()}
    out["agents"] = [r.name for r in s.rows]
    return _no_nan(out)


def write_csv(s: Summary, path: Path) -> None:
    """One line per agent, every figure (written whole: records.files.write_whole)."""
    rows = [asdict(r) for r in s.rows]

    def write(tmp: Path) -> None:
        with open(tmp, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    write_whole(path, write)


def plot(s: Summary, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for r in s.rows[::-1] if not math.isnan(r.elo)]
    fig, ax = plt.subplots(figsize=(7, 0.5 * len(rows) + 1.5))
    y = range(len(rows))
    if s.has_intervals:
        # Drawn from bound to bound, not as arms about the estimate: a percentile
        # interval need not contain it (nor, by rounding, quite reach it).
        ax.hlines(list(y), [r.elo_low for r in rows], [r.elo_high for r in rows], color="C0")
    ax.plot([r.elo for r in rows], list(y), "o", color="C0")
    ax.axvline(0, color="grey", lw=0.8, ls="--")
    ax.set_yticks(list(y), [r.name for r in rows])
    ax.set_xlabel(f"Elo ({s.anchor} = 0), " + ("95% bootstrap interval over deals" if s.has_intervals
                                                 else "no intervals"))
    ax.set_title(f"{s.config.game.split('(')[0]}: {s.games} games, {s.deals} deals", fontsize=10)
    fig.tight_layout()
    try:
        write_whole(path, lambda tmp: fig.savefig(tmp, dpi=110, format="png", metadata={FIGURE_KEY: PLOT_MAKER}))
    finally:
        plt.close(fig)


def report_paths(results: Path) -> list[Path]:
    """The reports of a results file: its name with each of REPORT_SUFFIXES."""
    return [results.with_suffix(ext) for ext in REPORT_SUFFIXES]


def report_kinds(results: Path) -> list[tuple[Path, str]]:
    """Each report of `results` with the kind of file it is (records.files)."""
    kinds = (REPORT_MD, REPORT_CSV, REPORT_JSON, f"{FIGURE}: {PLOT_MAKER}")
    return list(zip(report_paths(results), kinds))


def check_report_paths(results: Path) -> list[Path]:
    """The reports of `results`, refused (ValueError, one line) where one would
    replace the results file itself or a file of another kind (a record file
    exported as r.json, a figure of a study, anything not a report of ours)."""
    results = Path(results)
    paths = report_paths(results)
    if results in paths:
        raise ValueError(f"{results}: a results file named like its own report would be overwritten "
                         f"by it; name it with another suffix, e.g. {results.with_suffix('.db')}")
    for path, kind in report_kinds(results):
        check_output(path, kind, inputs=[results], option="report")
    return paths


def write_reports(s: Summary, results: Path) -> list[Path]:
    """Writes the reports of `results` (results.md, .csv, .json, .png beside it),
    each whole; returns their paths. Refuses, before writing any, what
    `check_report_paths` refuses."""
    paths = check_report_paths(results)
    write_text_whole(paths[0], markdown(s))
    write_csv(s, paths[1])
    write_text_whole(paths[2], json.dumps(to_json(s), indent=1))
    plot(s, paths[3])
    return paths
