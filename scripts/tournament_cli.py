"""`cardarena tournament`, `cardarena report` and `cardarena sprt`: the harness
(eval/, docs/tournament.md) from the command line."""

from __future__ import annotations

import argparse
import os
import sys
import time
from contextlib import contextmanager
from pathlib import Path

DEFAULT_GAME = "python_page_one(players=4)"
# The default field: the floor, the rule bot, the search bots with budgets that let the
# default tournament finish in a few minutes on two cores, and the shipped neural bot.
DEFAULT_AGENTS = ("random", "rules", "ismcts(iterations=300)", "pimc(worlds=10,iterations=30)", "neural")


def default_agents(game_string: str) -> list[str]:
    """DEFAULT_AGENTS, without `neural` for a game that has no shipped bot in bots/."""
    short_name = game_string.split("(")[0].strip()
    shipped = (Path(__file__).resolve().parents[1] / "bots" / f"{short_name}.safetensors").is_file()
    return [spec for spec in DEFAULT_AGENTS if spec != "neural" or shipped]


def _registrations(args: argparse.Namespace) -> list[tuple[str, str]]:
    out = []
    for item in args.register or []:
        name, sep, target = item.partition("=")
        if not sep or not name.strip():
            raise ValueError(f"--register {item!r}: expected name=module:factory")
        out.append((name.strip(), target.strip()))
    return out


def _config(args: argparse.Namespace, agents: list[str], deals: int):
    from eval.config import TournamentConfig
    return TournamentConfig.create(
        args.game, agents, deals, args.seed, duplicate=not args.no_duplicate, teams=args.teams,
        mixed_partners=args.mixed_partners, match=args.match, time_limit=args.time_limit,
        bot_modules=_registrations(args))


@contextmanager
def _resumable(results: str):
    """Ctrl-C stops a run cleanly: the games already played are stored."""
    try:
        yield
    except KeyboardInterrupt:
        sys.exit(f"\ninterrupted; every finished game is stored in {results}: "
                 f"run the same command again to resume")


def _print_and_write(summary, results: Path, write_files: bool) -> None:
    from eval.report import markdown, write_reports
    print(markdown(summary), end="")
    if write_files:
        paths = write_reports(summary, results.with_suffix(""))
        print(f"\nReports: {', '.join(str(p) for p in paths)}")


def _tournament(args: argparse.Namespace) -> None:
    from eval.tournament import run_tournament
    config = _config(args, args.agent or default_agents(args.game), args.deals)
    print(f"{config.describe()}; agents: {', '.join(f'{n}={s}' if n != s else n for n, s in config.agents)}; "
          f"results in {args.results}", file=sys.stderr)
    start = time.perf_counter()
    with _resumable(args.results):
        summary = run_tournament(config, args.results, workers=args.workers, backend_name=args.backend,
                                 address=args.address, progress=not args.quiet, anchor=args.anchor,
                                 bootstrap=args.bootstrap)
    print(f"done in {time.perf_counter() - start:.1f} s", file=sys.stderr)
    _print_and_write(summary, Path(args.results), not args.no_files)


def _report(args: argparse.Namespace) -> None:
    from eval.tournament import load_summary
    _print_and_write(load_summary(args.results, args.anchor, args.bootstrap), Path(args.results),
                     not args.no_files)


def _sprt(args: argparse.Namespace) -> None:
    from eval.config import split_agent
    from eval.sprt import run_sprt
    config = _config(args, [args.baseline, args.candidate], args.max_deals)
    with _resumable(args.results):
        result = run_sprt(config, args.results, split_agent(args.baseline)[0], split_agent(args.candidate)[0], elo0=args.elo0, elo1=args.elo1,
                          alpha=args.alpha, beta=args.beta, workers=args.workers, backend_name=args.backend,
                          address=args.address, progress=not args.quiet)
    print(result.describe())


def _common(p: argparse.ArgumentParser, results: str) -> None:
    p.add_argument("--game", default=DEFAULT_GAME, help="OpenSpiel game string (default %(default)s)")
    p.add_argument("--seed", type=int, default=0, help="fixes every deal, seating and bot seed")
    p.add_argument("--results", default=results, help="SQLite results file; the same command resumes it "
                                                      "(default %(default)s)")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="processes (default: CPUs)")
    p.add_argument("--backend", choices=("local", "ray"), default="local")
    p.add_argument("--address", help="Ray cluster address (default: start a local Ray instance)")
    p.add_argument("--time-limit", type=float, help="seconds per move; a bot over it forfeits the game")
    p.add_argument("--no-duplicate", action="store_true", help="play each deal once, not once per rotation")
    p.add_argument("--teams", help="partnerships as seat lists, e.g. '0,2 1,3' (default: the game's own)")
    p.add_argument("--mixed-partners", action="store_true",
                   help="seat agents one per seat, so partners may differ (default: an agent fills a side)")
    p.add_argument("--match", nargs="?", const="", metavar="SETTINGS",
                   help="rate matches, not deals: the game's match format (games/<game>/match.py) with "
                        "optional key=value settings, or module:factory(key=value,...)")
    p.add_argument("--register", action="append", metavar="NAME=MODULE:FACTORY",
                   help="make a bot from outside the toolkit available by name (repeatable)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def add_commands(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("tournament", help="rate agents: duplicate deals, Elo with intervals, resumable",
                       description="Plays every agent against the others on duplicate deals, stores each game "
                                   "in --results as it ends, and prints the ratings. See docs/tournament.md.")
    _common(p, "tournament.db")
    p.add_argument("--agent", action="append", metavar="[NAME=]SPEC",
                   help="a bot spec, optionally named: fast=ismcts(iterations=200) (repeat; default: "
                        f"{', '.join(DEFAULT_AGENTS)}; neural where the game has a shipped bot)")
    p.add_argument("--deals", type=int, default=100, help="deals, each played once per seat rotation")
    _report_options(p)
    p.set_defaults(func=_tournament)

    p = sub.add_parser("report", help="print a results file's ratings again and rewrite its reports")
    p.add_argument("results", help="results file written by cardarena tournament or sprt")
    _report_options(p)
    p.set_defaults(func=_report)

    p = sub.add_parser("sprt", help="A/B test: is the candidate stronger than the baseline by elo1?",
                       description="Sequential probability ratio test on paired duplicate deals; stops as soon "
                                   "as it knows. See docs/tournament.md.")
    _common(p, "sprt.db")
    p.add_argument("--baseline", required=True, metavar="[NAME=]SPEC")
    p.add_argument("--candidate", required=True, metavar="[NAME=]SPEC")
    p.add_argument("--elo0", type=float, default=0.0, help="H0: candidate - baseline <= elo0 (default 0)")
    p.add_argument("--elo1", type=float, default=10.0, help="H1: candidate - baseline >= elo1 (default 10)")
    p.add_argument("--alpha", type=float, default=0.05)
    p.add_argument("--beta", type=float, default=0.05)
    p.add_argument("--max-deals", type=int, default=10_000, help="stop undecided after this many deals")
    p.set_defaults(func=_sprt)


def _report_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--anchor", help="the agent rated 0 (default: the random bot, else the first by name)")
    p.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples for the intervals")
    p.add_argument("--no-files", action="store_true", help="do not write the .md/.csv/.json/.png reports")
