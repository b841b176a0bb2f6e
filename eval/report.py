"""A tournament's summary as Markdown (also what the terminal shows), CSV, JSON
and a PNG plot of the ratings with their intervals."""

from __future__ import annotations

import csv
import json
from collections import Counter
from dataclasses import asdict
from pathlib import Path

from eval.ratings import Summary

FAULTS_LISTED = 10


def _signed(x: float) -> str:
    return f"{x:+.0f}"


def rating_table(s: Summary) -> str:
    lines = ["| agent | Elo | 95% interval | games | mean return (95%) | win rate (95%) | ms/move |",
             "|---|---:|:---:|---:|:---:|:---:|---:|"]
    for r in s.rows:
        lines.append(f"| {r.name} | {_signed(r.elo)} | [{_signed(r.elo_low)}, {_signed(r.elo_high)}] "
                     f"| {r.games} | {r.mean_return:+.3f} [{r.return_low:+.3f}, {r.return_high:+.3f}] "
                     f"| {r.win_rate:.3f} [{r.win_low:.3f}, {r.win_high:.3f}] | {1000 * r.seconds_per_move:.2f} |")
    return "\n".join(lines)


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
    void = f", {s.void} void" if s.void else ""
    return "\n\n".join([
        f"## Tournament: {s.config.describe()}",
        f"{s.games} games over {s.deals} deals{void}. Elo is Bradley-Terry from pairwise finishing "
        f"order, {s.anchor} = 0; intervals are 95% bootstraps over deals ({s.bootstrap} resamples).",
        rating_table(s),
        "### Head to head: row's points per game against column (games)",
        matrix_table(s),
        "### Faults",
        faults_section(s),
    ]) + "\n"


def to_json(s: Summary) -> dict:
    out = asdict(s)
    out["config"] = s.config.__dict__ | {"describe": s.config.describe()}
    out["agents"] = [r.name for r in s.rows]
    return out


def write_csv(s: Summary, path: Path) -> None:
    rows = [asdict(r) for r in s.rows]
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def plot(s: Summary, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = s.rows[::-1]
    fig, ax = plt.subplots(figsize=(7, 0.5 * len(rows) + 1.5))
    y = range(len(rows))
    ax.errorbar([r.elo for r in rows], y,
                xerr=[[r.elo - r.elo_low for r in rows], [r.elo_high - r.elo for r in rows]],
                fmt="o", capsize=4)
    ax.axvline(0, color="grey", lw=0.8, ls="--")
    ax.set_yticks(list(y), [r.name for r in rows])
    ax.set_xlabel(f"Elo ({s.anchor} = 0), 95% bootstrap interval over deals")
    ax.set_title(f"{s.config.game.split('(')[0]}: {s.games} games, {s.deals} deals", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_reports(s: Summary, stem: Path) -> list[Path]:
    """Writes stem.md, stem.csv, stem.json and stem.png; returns their paths."""
    paths = [stem.with_suffix(ext) for ext in (".md", ".csv", ".json", ".png")]
    paths[0].write_text(markdown(s))
    write_csv(s, paths[1])
    paths[2].write_text(json.dumps(to_json(s), indent=1))
    plot(s, paths[3])
    return paths
