"""`cardarena study canasta` (a paired experiment between two strategies),
`study requirement` (what a higher initial meld costs), `study tune` (the rule bot's
settings by coordinate ascent against an opponent), `study plot`, `study stats`
(what happened in a study's hands) and `study fingerprint` (which games a results
file played, times left out): docs/studies/canasta.md."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from scripts import cli_checks

MAX_DEALS = 100_000
MAX_WORKERS = 1024
RESULTS_DIR = Path("results")          # the default folder of results files, made when a run starts
DEFAULT_TUNE_OUT = RESULTS_DIR / "tune"
_deals = cli_checks.integer(1, MAX_DEALS)
_workers = cli_checks.integer(1, MAX_WORKERS)
_error_rate = cli_checks.number(0, 1, open_low=True, open_high=True)


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Adds `study` and its subcommands to the `cardarena` command line."""
    study = sub.add_parser("study", help="the Canasta strategy lab: paired experiments and hand statistics")
    commands = study.add_subparsers(dest="study_command", required=True)

    p = commands.add_parser("canasta", help="side A against side B on duplicate deals, sides swapped")
    p.add_argument("--a", required=True, metavar="SPEC", help="side A's bot, e.g. 'rules(pile_min=5)'")
    p.add_argument("--b", required=True, metavar="SPEC", help="side B's bot")
    p.add_argument("--a-partner", metavar="SPEC", help="A's partner, when it plays otherwise (seats 2 and 3)")
    p.add_argument("--b-partner", metavar="SPEC", help="B's partner, when it plays otherwise")
    p.add_argument("--deals", type=_deals, default=500, help="paired deals (the most, with --sprt; default 500)")
    p.add_argument("--target", default="8500", help="a deal is a match to this score (2500, 5000, 7500, "
                   "8500, 10000), or 'none': a single hand (default 8500)")
    p.add_argument("--game", default="python_modern_canasta",
                   help="game string, with parameters only for single hands (--target none)")
    p.add_argument("--seed", type=cli_checks.seed, default=0, help="fixes every deal")
    p.add_argument("--sprt", metavar="ELO0,ELO1", help="stop as soon as an SPRT on hands won decides")
    p.add_argument("--alpha", type=_error_rate, default=0.05,
                   help="the SPRT's chance of accepting H1 when H0 holds (default %(default)g)")
    p.add_argument("--beta", type=_error_rate, default=0.05,
                   help="the SPRT's chance of accepting H0 when H1 holds (default %(default)g)")
    p.add_argument("--results", help="results file; the same command resumes it (default: "
                   "results/study-canasta-<the experiment's digest>.db; a folder named must exist)")
    p.add_argument("--workers", type=_workers, default=os.cpu_count() or 1, help="processes (default: CPUs)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--luck", action="store_true",
                   help="also the points per hand with each chance event's luck (and each stated random "
                        "choice's) removed (single hands, "
                        "--target none; ~0.4 s a hand; docs/tournament.md, 'Luck')")
    p.add_argument("--luck-net", metavar="FILE",
                   help="measure that luck with this luck network, trained for the two strategies "
                        "(training/luck_value.py), instead of the shipped value network; implies --luck")
    p.set_defaults(func=_canasta)
    add_stats_command(commands)
    add_decisions_command(commands)

    p = commands.add_parser("requirement", help="what a higher initial-meld requirement costs the side facing it")
    p.add_argument("--spec", default="rules", help="the strategy on both sides (default rules)")
    p.add_argument("--score", type=int, required=True, choices=(3000, 5000),
                   help="seats 0 and 2 start the hand with this score: 3000 needs 155, 5000 needs 180")
    p.add_argument("--deals", type=_deals, default=500, help="single hands, each played at both scores")
    p.add_argument("--seed", type=cli_checks.seed, default=0, help="fixes every deal")
    p.add_argument("--workers", type=_workers, default=os.cpu_count() or 1, help="processes (default: CPUs)")
    p.add_argument("--results-dir", default=str(RESULTS_DIR),
                   help="where the two results files go (default %(default)s, made when missing; another "
                        "folder must exist)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_requirement)

    p = commands.add_parser("tune", help="the rule bot's settings, one at a time, against an opponent")
    p.add_argument("--start", default="rules", metavar="SPEC", help="the rule-bot strategy to start from "
                   "(default rules)")
    p.add_argument("--against", default="rules", metavar="SPEC", help="the opponent side (default rules)")
    p.add_argument("--deals", type=_deals, default=1000, help="duplicate single-hand deals a candidate (default 1000)")
    p.add_argument("--seed", type=cli_checks.seed, default=0, help="fixes the tuning deals")
    p.add_argument("--passes", type=cli_checks.integer(1, 100), default=2,
                   help="passes over the settings at most (default 2)")
    p.add_argument("--min-gain", type=cli_checks.number(0, 1000), default=5.0,
                   help="Elo a value must add to be kept, 0 to 1000 (default 5)")
    p.add_argument("--out", default=str(DEFAULT_TUNE_OUT),
                   help="the folder of the candidates' results files (default %(default)s, made when missing; "
                        "another folder must exist)")
    p.add_argument("--figure", metavar="PNG", help="plot every candidate's Elo and the best so far there")
    p.add_argument("--workers", type=_workers, default=os.cpu_count() or 1, help="processes (default: CPUs)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_tune)

    p = commands.add_parser("fingerprint", help="a sha256 of the games results files played, times left out: "
                            "equal when two runs played the same games move for move")
    p.add_argument("results", nargs="+", help="results files")
    p.set_defaults(func=_fingerprint)

    p = commands.add_parser("plot", help="several studies' differences per hand with their intervals, one PNG")
    p.add_argument("results", nargs="+", help="study results files")
    p.add_argument("--out", required=True, help="the PNG to write (its folder must exist)")
    p.add_argument("--title", default="Canasta strategies against the rule bot")
    p.set_defaults(func=_plot)


def _canasta(args: argparse.Namespace) -> None:
    from eval.study.paired import SprtSettings, default_results, run_study, study_config
    target = None if args.target.lower() == "none" else _target(args.target)
    sprt = SprtSettings.parse(args.sprt, args.alpha, args.beta) if args.sprt else None
    results = _results_file(args.results) if args.results else None
    config = study_config(args.a, args.b, a_partner=args.a_partner, b_partner=args.b_partner,
                          deals=args.deals, seed=args.seed, target=target, game=args.game)
    if results is None:
        RESULTS_DIR.mkdir(exist_ok=True)
        results = default_results(config, RESULTS_DIR)
    print(run_study(config, results, workers=args.workers, sprt=sprt, progress=not args.quiet,
                    luck=args.luck or args.luck_net is not None, luck_net=args.luck_net).markdown())


def _results_file(name: str) -> Path:
    """A study's --results, refused as the tournament's is: a folder, a missing
    folder, a device or pipe, another SQLite file's log (eval.storage)."""
    from eval.storage import check_results_name
    results = Path(name)
    if results.is_dir():
        raise ValueError(f"--results {results}: is a folder; name a results file, e.g. {results / 'r.db'}")
    if not results.parent.is_dir():
        raise ValueError(f"--results {results}: no folder {results.parent}")
    check_results_name(results)
    return results


def _folder(option: str, name: str, default: Path) -> Path:
    """An output folder: the default one is made when missing (with its parents,
    results/ and all), any other must exist, as a tournament's results folder."""
    folder = Path(name)
    if folder == default:
        folder.mkdir(parents=True, exist_ok=True)
    if not folder.is_dir():
        raise ValueError(f"{option} {folder}: " + ("not a folder" if folder.exists() else "no such folder"))
    return folder


def _target(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"--target {text!r}: expected a score (2500, 5000, 7500, 8500, 10000) or none") from None


def add_stats_command(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser("stats", help="a study's hands: points by component, going out, piles, asks")
    p.add_argument("results", help="a results file that keeps game records (cardarena study canasta, tournament)")
    p.add_argument("--figures", metavar="DIR", help="write PNG plots in this folder, which must exist "
                   "(study_<name>_*.png)")
    p.add_argument("--name", help="the plots' name, letters, digits, '_' and '-' (default: the results file's stem)")
    p.add_argument("--csv", metavar="FILE", help="write one line per side and hand (its folder must exist)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_stats)


def _stats(args: argparse.Namespace) -> None:
    import re
    import sys

    from records.files import FIGURE, HANDS_CSV, check_output, regular_input
    from records.record import RecordError
    from eval.study.stats import FIGURE_MAKER, figure_paths, hands_from_results, markdown, plots, write_csv
    from scripts.cli_checks import one_line
    results = regular_input(args.results, "results file")
    if args.name is not None and not re.fullmatch(r"[\w-]{1,100}", args.name, re.ASCII):
        raise ValueError(f"--name {args.name!r}: the plots' name is letters, digits, '_' and '-' "
                         f"(a file name, not a path)")
    name = args.name or results.stem
    if args.csv:
        check_output(args.csv, HANDS_CSV, inputs=[results], option="--csv")
    if args.figures:
        folder = Path(args.figures)
        if not folder.is_dir():
            raise ValueError(f"--figures {folder}: " + ("not a folder" if folder.exists() else "no such folder"))
        for path in figure_paths(folder, name):
            check_output(path, f"{FIGURE}: {FIGURE_MAKER}", inputs=[results], option="--figures")
    damaged: list[str] = []
    try:
        rows = hands_from_results(results, progress=not args.quiet, damaged=damaged)
    except RecordError as e:
        raise ValueError(str(e)) from None
    for problem in damaged:
        print(f"cardarena study stats: warning: {one_line(problem)}", file=sys.stderr)
    if not rows:
        raise ValueError(f"{results}: no finished hand with a game record (results stored before "
                         f"game records were kept have none)")
    print(markdown(rows, name))
    if damaged:
        print(f"\n{len(damaged)} damaged games left out (named on stderr).")
    if args.csv:
        write_csv(rows, args.csv)
        print(f"\nRows: {args.csv}")
    if args.figures:
        for path in plots(rows, args.figures, name):
            print(f"Figure: {path}")


def add_decisions_command(commands: argparse._SubParsersAction) -> None:
    from search.analysis import REVIEW_WORLDS
    p = commands.add_parser("decisions", help="where an agent's decisions lose points, by the review's judgement",
                            description="Judges every decision of one agent's seats in a results file's hands as "
                                        "the table's review does, and reports the points its flagged moves cost "
                                        "by kind of move, with 95%% intervals (eval/study/decisions.py). Slow: "
                                        "seconds a decision.")
    p.add_argument("results", help="a results file that keeps game records (cardarena study canasta, tournament)")
    p.add_argument("--agent", required=True, help="the agent (its name in the results file) whose decisions are judged")
    p.add_argument("--hands", type=cli_checks.integer(1, MAX_DEALS), default=4,
                   help="the first this many finished hands with the agent in them (default %(default)s)")
    p.add_argument("--worlds", type=cli_checks.integer(1, 10_000), default=REVIEW_WORLDS,
                   help="the analysis's worlds a stage (default %(default)s, the table's)")
    p.add_argument("--seed", type=cli_checks.integer(0, 2 ** 63 - 1), default=0, help="the review's seed")
    p.add_argument("--json", metavar="FILE", help="also write every decision and the table as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_decisions)


def _decisions(args: argparse.Namespace) -> None:
    import json

    from eval.study.decisions import judge_decisions, markdown, to_json
    from records.files import DECISIONS_JSON, check_output, regular_input, write_whole
    from records.record import RecordError
    results = regular_input(args.results, "results file")
    if args.json:
        check_output(args.json, DECISIONS_JSON, inputs=[results], option="--json")
    try:
        decisions, points = judge_decisions(results, args.agent, hands=args.hands, worlds=args.worlds, seed=args.seed,
                                    progress=not args.quiet)
    except RecordError as e:
        raise ValueError(str(e)) from None
    if not decisions:
        raise ValueError(f"{results}: no finished hand of agent {args.agent!r} with a decision to judge "
                         f"(the agents are named as the results file's report names them)")
    print(markdown(decisions, points, args.agent))
    if args.json:
        report = to_json(decisions, points)
        write_whole(args.json, lambda tmp: tmp.write_text(json.dumps(report, indent=1)))
        print(f"\nDecisions: {args.json}")


def _requirement(args: argparse.Namespace) -> None:
    from eval.study.paired import requirement_cost
    results_dir = _folder("--results-dir", args.results_dir, RESULTS_DIR)
    need = {3000: 155, 5000: 180}[args.score]
    at_score, at_zero, gap = requirement_cost(args.spec, args.score, deals=args.deals, seed=args.seed,
                                              workers=args.workers, results_dir=results_dir,
                                              progress=not args.quiet)
    print(f"## The initial-meld requirement: {need} against 125, `{args.spec}` on both sides\n\n"
          f"{args.deals} single hands, seed {args.seed}, each played with seats 0 and 2 needing {need} and "
          f"again needing 125 (their opponents need 125 both times). Seats 0 and 2's lead per hand, 95%:\n\n"
          f"| seats 0 and 2 need | their lead per hand |\n|---|:---:|\n"
          f"| {need} | {at_score.text()} |\n| 125 | {at_zero.text()} |\n"
          f"| **difference (paired by deal)** | **{gap.text()}** |")


def _tune(args: argparse.Namespace) -> None:
    from tqdm import tqdm

    from games.spec import parse_spec
    from agents.rules.modern_canasta import Strategy
    from eval.config import check_bot
    from games.load import load_game
    from records.files import FIGURE, check_output
    from eval.study.tune import FIGURE_MAKER, GAME, GRID, Trial, plot, tune
    name, settings = parse_spec(args.start)
    if name != "rules":
        raise ValueError(f"--start {args.start!r}: expected a rule-bot strategy, rules(...)")
    start = Strategy.from_settings(**settings)
    check_bot(args.against, load_game(GAME), 1)          # a bad opponent is refused before any game
    if args.figure:
        check_output(args.figure, f"{FIGURE}: {FIGURE_MAKER}", option="--figure")
    out = _folder("--out", args.out, DEFAULT_TUNE_OUT)
    steps = sum(len(values) - 1 for values in GRID.values()) * args.passes + 1
    bar = tqdm(total=steps, disable=args.quiet, desc="tune", unit="candidate")
    rows = ["| # | setting changed | value | candidate | Elo over the opponent | kept |", "|---:|---|---|---|---:|:---:|"]

    def report(trial: Trial) -> None:
        bar.update()
        rows.append(f"| {len(rows) - 1} | {trial.setting or '(start)'} | {'' if trial.value is None else trial.value} "
                    f"| `{trial.spec}` | {trial.elo:+.0f} | {'yes' if trial.kept else ''} |")

    best, trials = tune(start, args.against, args.deals, args.seed, out, passes=args.passes,
                        min_gain=args.min_gain, workers=args.workers, report=report)
    bar.close()
    print(f"## The rule bot tuned against `{args.against}`: {args.deals} single-hand deals a candidate, seed "
          f"{args.seed}, from `{start.spec()}`\n\n" + "\n".join(rows) +
          f"\n\nBest: `{best.spec()}`, {max(t.elo for t in trials if t.kept):+.0f} Elo on the tuning deals "
          f"(chosen on them: rate it on other deals before quoting it).")
    if args.figure:
        title = f"The Canasta rule bot tuned against {args.against}: {args.deals} deals a candidate, seed {args.seed}"
        print(f"\nFigure: {plot(trials, args.figure, title)}")


def _plot(args: argparse.Namespace) -> None:
    from records.files import FIGURE, check_output
    from eval.study.paired import PLOT_MAKER, forest_plot
    out = check_output(args.out, f"{FIGURE}: {PLOT_MAKER}", inputs=args.results)
    print(f"Figure: {forest_plot(args.results, out, args.title)}")


def _fingerprint(args: argparse.Namespace) -> None:
    from eval.study.paired import play_fingerprint
    for path in args.results:
        print(f"{play_fingerprint(path)}  {path}")
