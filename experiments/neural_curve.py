"""A training run's learning curve, rated again on enough deals to resolve a few Elo.

    python -m experiments.neural_curve runs/apo_advantage --deals 3000 --settings "margin=0.02,symmetric=true"

The trainer rates each checkpoint on `--eval-deals` duplicate deals (a few
hundred: about ±16 Elo) and keeps a bot file of it in RUN/snapshots/. Where the
network's edge over the rule bot is a few Elo, those points cannot show it.
This plays every snapshot against the rule bot with the tournament harness on
the same `--deals` duplicate deals (one results file per snapshot, so a
stopped run resumes), and writes RUN/rated_curve.csv and .png in the format of
the trainer's curve (training/dmc.py).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from tqdm import tqdm

import games  # noqa: F401  (registers our games)
from agents.neural.botfile import load_bot
from training.dmc import CSV_FIELDS, SNAPSHOTS, plot_curve
from eval.tournament import TournamentConfig, run_tournament


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m experiments.neural_curve", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run", type=Path, help="a training run's folder (with snapshots/)")
    parser.add_argument("--deals", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=41)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--settings", default="", help="the bots' play settings, e.g. 'margin=0.02,symmetric=true'")
    args = parser.parse_args(argv)
    snapshots = sorted((args.run / SNAPSHOTS).glob("*.safetensors"))
    if not snapshots:
        raise SystemExit(f"no bot files in {args.run / SNAPSHOTS}: is {args.run} a training run's folder?")
    rows = []
    for path in tqdm(snapshots, desc="snapshots"):
        bot = load_bot(path)
        notes = bot.training
        settings = f",{args.settings}" if args.settings else ""
        config = TournamentConfig.create(bot.metadata["game"], [f"network=neural(path={path}{settings})", "rules"],
                                         args.deals, args.seed)
        summary = run_tournament(config, path.with_suffix(".rated.db"), workers=args.workers, progress=False,
                                 anchor="rules")
        r = next(row for row in summary.rows if row.name == "network")
        rows.append({"minutes": "", "cpu_minutes": notes["cpu_minutes"], "games": notes["games"], "samples": "",
                     "steps": "", "loss": "", "eval_games": summary.games, "mean_return": round(r.mean_return, 5),
                     "return_low": round(r.return_low, 5), "return_high": round(r.return_high, 5),
                     "elo": round(r.elo, 1), "elo_low": round(r.elo_low, 1), "elo_high": round(r.elo_high, 1)})
        print(f"{path.name}: {summary.games} games, Elo {r.elo:+.0f} [{r.elo_low:+.0f}, {r.elo_high:+.0f}], "
              f"mean return {r.mean_return:+.2f} [{r.return_low:+.2f}, {r.return_high:+.2f}]")
    csv_path = args.run / "rated_curve.csv"
    with open(csv_path, "w") as f:
        f.write(",".join(CSV_FIELDS) + "\n")
        for row in rows:
            f.write(",".join(str(row[k]) for k in CSV_FIELDS) + "\n")
    plot_curve(csv_path, csv_path.with_suffix(".png"),
               f"{bot.metadata['game_short_name']}, neural({args.settings or 'defaults'})")
    print(f"wrote {csv_path} and {csv_path.with_suffix('.png')}")


if __name__ == "__main__":
    main()
