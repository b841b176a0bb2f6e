"""`cardarena tournament`, `cardarena report`, `cardarena sprt` and `cardarena
paired`: the harness (eval/, docs/tournament.md) from the command line."""

from __future__ import annotations

import argparse
import os
import sys
import time
from contextlib import contextmanager
from pathlib import Path

from agents import SHIPPED_BOTS
from games import registry
from scripts import cli_checks

DEFAULT_GAME = registry.default_game()
# A tournament's results file and its reports (.md, .csv, .json, .png) go together
# in results/ (ignored by git) unless --results names another place.
RESULTS_DIR = Path("results")
# A safety limit per move, so that one hung bot cannot stall a run forever: far
# above any bot's move here; `--time-limit none` lifts it.
DEFAULT_TIME_LIMIT = 60.0
MAX_DEALS = 100_000
MAX_WORKERS = 1024
# Resamples: none, or enough that the 2.5% and 97.5% percentiles are different ones.
MIN_BOOTSTRAP, MAX_BOOTSTRAP = 40, 100_000
# The default field: the floor, the rule bot, the search bots with budgets that let the
# default tournament finish in a few minutes on two cores, and the shipped neural bot.
DEFAULT_AGENTS = ("random", "rules", "ismcts(iterations=300)", "pimc(worlds=10,iterations=30)", "neural")
# A game whose generic searches are weak for their time declares its own field (its registry
# entry's `default_field`: Modern American Canasta's has its fast and strongest measured searches).


def default_agents(game_string: str) -> list[str]:
    """The game's default field (its registry entry's `field`, else DEFAULT_AGENTS), without
    `neural` for a game that has no shipped bot in bots/."""
    short_name = game_string.split("(")[0].strip()
    shipped = (SHIPPED_BOTS / f"{short_name}.safetensors").is_file()
    entry = registry.find(short_name)
    field = entry.default_field if entry is not None and entry.default_field else DEFAULT_AGENTS
    return [spec for spec in field if spec != "neural" or shipped]


def _registrations(args: argparse.Namespace) -> list[tuple[str, str]]:
    """--register's name=module:factory pairs, each checked: the module imports and
    has that callable (else a bot named by it fails only when first made)."""
    from agents import BOT_FACTORIES, bot_factory
    out = []
    for item in args.register or []:
        name, sep, target = item.partition("=")
        name, target = name.strip(), target.strip()
        module, colon, attr = target.partition(":")
        if not sep or not name.isidentifier() or not colon or not module.strip() or not attr.strip():
            raise ValueError(f"--register {item!r}: expected name=module:factory")
        if name in BOT_FACTORIES and BOT_FACTORIES[name] != target:
            raise ValueError(f"--register {item!r}: bot {name!r} is already {BOT_FACTORIES[name]!r}")
        known = BOT_FACTORIES.get(name)
        BOT_FACTORIES[name] = target
        try:
            bot_factory(name)
        except ValueError as e:
            raise ValueError(f"--register {item!r}: {e}") from None
        finally:
            if known is None:
                del BOT_FACTORIES[name]
        out.append((name, target))
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


def _check_report_paths(results: Path, write_files: bool) -> None:
    """Refuses, before any game, a results file whose reports (res.md, .csv,
    .json, .png) would replace it or a file of another kind (eval.report)."""
    from eval.report import REPORT_SUFFIXES, check_report_paths, report_paths
    if not write_files or not results.parent.is_dir():      # the default results/, made when the run starts
        return
    if results in report_paths(results):
        raise ValueError(f"--results {results}: its report {results.name} would overwrite it; name the "
                         f"results file with another suffix (e.g. {results.with_suffix('.db')}), or pass "
                         f"--no-files ({', '.join(REPORT_SUFFIXES)} are the reports' suffixes)")
    try:
        check_report_paths(results)
    except ValueError as e:
        raise ValueError(f"{e} (or pass --no-files)") from None


def _print_and_write(summary, results: Path, write_files: bool) -> None:
    from eval.report import markdown, write_reports
    print(markdown(summary), end="")
    if write_files:
        paths = write_reports(summary, results)
        print(f"\nReports: {', '.join(str(p) for p in paths)}")


def _results_path(args: argparse.Namespace, write_files: bool) -> Path:
    """--results, checked before any game is played: its folder exists (or is
    results/, the default one, made when the run starts), it is a file (or not
    there yet) and not the log of another SQLite file, and no report would
    replace it or a file of another kind."""
    from eval.storage import check_results_name
    results = Path(args.results)
    if results.is_dir():
        raise ValueError(f"--results {results}: is a folder; name a results file, e.g. {results / 'r.db'}")
    if not results.parent.is_dir() and results.parent != RESULTS_DIR:
        raise ValueError(f"--results {results}: no folder {results.parent}")
    check_results_name(results)
    _check_report_paths(results, write_files)
    if args.address is not None and args.backend != "ray":
        raise ValueError(f"--address {args.address}: a Ray cluster's address, for --backend ray")
    if args.address is not None:
        from eval.ray_backend import check_reachable
        check_reachable(args.address)
    return results


def _nothing_left(config, results: Path) -> bool:
    """Whether the results file already holds every game of the tournament;
    refuses (one line, before the run says what it plays) a file the run could
    not resume (eval.storage.check_resumable)."""
    from eval.storage import check_resumable
    from eval.tournament import planned_games
    stored = check_resumable(results, config)
    return bool(stored) and {task.key for task in planned_games(config)} <= stored


def _tournament(args: argparse.Namespace) -> None:
    from eval.tournament import run_tournament
    results = _results_path(args, not args.no_files)
    config = _config(args, args.agent or default_agents(args.game), args.deals)
    if args.anchor is not None and args.anchor not in config.agent_names:
        raise ValueError(f"--anchor {args.anchor!r} is not an agent; agents: {', '.join(config.agent_names)}")
    if args.luck_net is not None:
        args.luck = True
    if args.luck:
        from eval.luck import luck_judge
        luck_judge(config, args.luck_net)        # refused before anything is played
    nothing_left = _nothing_left(config, results)
    results.parent.mkdir(exist_ok=True)
    print(f"{config.describe()}; agents: {', '.join(f'{n}={s}' if n != s else n for n, s in config.agents)}; "
          f"results in {results}", file=sys.stderr)
    start = time.perf_counter()
    with _resumable(str(results)):
        summary = run_tournament(config, results, workers=args.workers, backend_name=args.backend,
                                 address=args.address, progress=not args.quiet, anchor=args.anchor,
                                 bootstrap=args.bootstrap, luck=args.luck, luck_net=args.luck_net)
    if nothing_left:
        print(f"nothing left to play: all {summary.games} games were already stored in {results}",
              file=sys.stderr)
    else:
        print(f"done in {time.perf_counter() - start:.1f} s", file=sys.stderr)
    if summary.deals > args.deals:
        print(f"{results} holds {summary.deals} deals; all of them are rated", file=sys.stderr)
    _print_and_write(summary, results, not args.no_files)


def _report(args: argparse.Namespace) -> None:
    from eval.tournament import load_summary
    from records.files import regular_input
    results = regular_input(args.results, "results file")
    _check_report_paths(results, not args.no_files)
    luck = args.luck or args.luck_net is not None
    _print_and_write(load_summary(results, args.anchor, args.bootstrap, luck, progress=luck, luck_net=args.luck_net,
                                  workers=args.workers), results, not args.no_files)


def _sprt(args: argparse.Namespace) -> None:
    from eval.config import split_agent
    from eval.sprt import run_sprt
    results = _results_path(args, write_files=False)
    baseline, candidate = split_agent(args.baseline)[0], split_agent(args.candidate)[0]
    if baseline == candidate:
        raise ValueError(f"--baseline and --candidate are both named {baseline!r}; name one, e.g. "
                         f"--candidate new={split_agent(args.candidate)[1]}")
    config = _config(args, [args.baseline, args.candidate], args.max_deals)
    results.parent.mkdir(exist_ok=True)
    with _resumable(str(results)):
        result = run_sprt(config, results, baseline, candidate, elo0=args.elo0, elo1=args.elo1,
                          alpha=args.alpha, beta=args.beta, workers=args.workers, backend_name=args.backend,
                          address=args.address, progress=not args.quiet,
                          adjusted=args.adjusted or args.luck_net is not None, luck_net=args.luck_net)
    print(result.describe())


def _paired(args: argparse.Namespace) -> None:
    from eval.paired import compare
    for path in (args.first_file, args.second_file):
        _refuse_folder(Path(path))
    print(compare(args.first_file, args.first_agent, args.second_file, args.second_agent,
                  args.bootstrap, adjusted=args.adjusted or args.luck_net is not None,
                  luck_net=args.luck_net).describe())


def _refuse_folder(results: Path) -> None:
    """A results file to read named by a folder: one line (SQLite would say only "unable to open")."""
    if results.is_dir():
        raise ValueError(f"{results} is a folder, not a results file")


def _common(p: argparse.ArgumentParser, results: str) -> None:
    p.add_argument("--game", default=DEFAULT_GAME, type=cli_checks.game_string,
                   help="OpenSpiel game string (default %(default)s; `cardarena list games`)")
    p.add_argument("--seed", type=cli_checks.seed, default=0,
                   help="fixes every deal, seating and bot seed (default %(default)s)")
    p.add_argument("--results", default=str(RESULTS_DIR / results),
                   help="SQLite results file; the same command resumes it, and the reports are written "
                        "beside it (default %(default)s)")
    p.add_argument("--workers", type=cli_checks.integer(1, MAX_WORKERS), default=os.cpu_count() or 1,
                   help="processes (default: CPUs)")
    p.add_argument("--backend", choices=("local", "ray"), default="local",
                   help="local processes, or a Ray cluster (default %(default)s)")
    p.add_argument("--address", help="Ray cluster address (default: start a local Ray instance)")
    p.add_argument("--time-limit", type=cli_checks.seconds_or_none, default=DEFAULT_TIME_LIMIT, metavar="SECONDS",
                   help="seconds per move; a bot over it forfeits the game (default %(default)g, a safety "
                        "limit against a hung bot; none: no limit)")
    p.add_argument("--no-duplicate", action="store_true", help="play each deal once, not once per rotation")
    p.add_argument("--teams", help="partnerships as seat lists, e.g. '0,2 1,3' (default: the game's own)")
    p.add_argument("--mixed-partners", action="store_true",
                   help="seat agents one per seat, so partners may differ (default: an agent fills a side)")
    p.add_argument("--match", nargs="?", const="", metavar="SETTINGS",
                   help="rate matches, not deals: the match format the game declares (its registry entry) with "
                        "optional key=value settings, or module:factory(key=value,...)")
    p.add_argument("--register", action="append", metavar="NAME=MODULE:FACTORY",
                   help="make a bot from outside the toolkit available by name (repeatable)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def add_commands(sub: argparse._SubParsersAction) -> None:
    """tournament, report, sprt and paired."""
    p = sub.add_parser("tournament", help="rate agents: duplicate deals, Elo with intervals, resumable",
                       description="Plays every agent against the others on duplicate deals, stores each game "
                                   "in --results as it ends, and prints the ratings. See docs/tournament.md.")
    _common(p, "tournament.db")
    p.add_argument("--agent", action="append", metavar="[NAME=]SPEC",
                   help="a bot spec, optionally named: fast=ismcts(iterations=200) (repeat; default: "
                        f"{', '.join(DEFAULT_AGENTS)}, or the game's own field (at "
                        f"{', '.join(e.name for e in registry.registered() if e.default_field) or 'none'}: "
                        "`cardarena list games`); neural where the game has a shipped bot; "
                        "`cardarena list bots`)")
    p.add_argument("--deals", type=cli_checks.integer(1, MAX_DEALS), default=100,
                   help="deals, each played once per seat rotation (default %(default)s)")
    _report_options(p)
    p.set_defaults(func=_tournament)

    p = sub.add_parser("report", help="print a results file's ratings again and rewrite its reports")
    p.add_argument("results", help="results file written by cardarena tournament or sprt")
    p.add_argument("--workers", type=cli_checks.integer(1, MAX_WORKERS), default=os.cpu_count() or 1,
                   help="processes measuring the luck, with --luck (default: CPUs)")
    _report_options(p)
    p.set_defaults(func=_report)

    p = sub.add_parser("sprt", help="A/B test: is the candidate stronger than the baseline by elo1?",
                       description="Sequential probability ratio test on paired duplicate deals; stops as soon "
                                   "as it knows. See docs/tournament.md.")
    _common(p, "sprt.db")
    p.add_argument("--baseline", required=True, metavar="[NAME=]SPEC",
                   help="the bot to beat, a spec optionally named, e.g. rules")
    p.add_argument("--candidate", required=True, metavar="[NAME=]SPEC",
                   help="the bot tested, e.g. 'ismcts(iterations=200)'; name it when both specs are the "
                        "same bot: new=rules")
    elo = cli_checks.number(-1000, 1000)
    p.add_argument("--elo0", type=elo, default=0.0, help="H0: candidate - baseline <= elo0 (default 0)")
    p.add_argument("--elo1", type=elo, default=10.0, help="H1: candidate - baseline >= elo1 (default 10)")
    error_rate = cli_checks.number(0, 1, open_low=True, open_high=True)
    p.add_argument("--alpha", type=error_rate, default=0.05,
                   help="the chance of accepting H1 when H0 holds (default %(default)g)")
    p.add_argument("--beta", type=error_rate, default=0.05,
                   help="the chance of accepting H0 when H1 holds (default %(default)g)")
    p.add_argument("--max-deals", type=cli_checks.integer(1, MAX_DEALS), default=10_000,
                   help="stop undecided after this many deals (default %(default)s)")
    p.add_argument("--adjusted", action="store_true",
                   help="score each deal by the finishing order of luck-adjusted returns (docs/tournament.md, "
                        "'Luck'); the plain finishing order is the default")
    add_luck_net_option(p, "--adjusted")
    p.set_defaults(func=_sprt)

    p = sub.add_parser("paired", help="two agents from two results files, deal by deal on the deals both played",
                       description="Compares an agent of one results file with an agent of another on the "
                                   "deals both files played (the same --seed plays the same deals) against the "
                                   "same opponents: each deal's luck cancels, so the interval of the difference "
                                   "is far tighter than two ratings' (eval/paired.py, docs/tournament.md).")
    p.add_argument("first_file", metavar="FIRST_RESULTS")
    p.add_argument("first_agent", metavar="FIRST_AGENT", help="the agent's name in the first file")
    p.add_argument("second_file", metavar="SECOND_RESULTS")
    p.add_argument("second_agent", metavar="SECOND_AGENT", help="the agent's name in the second file")
    p.add_argument("--bootstrap", type=_bootstrap_count_positive, default=2000,
                   help=f"bootstrap resamples, {MIN_BOOTSTRAP} to {MAX_BOOTSTRAP} (default %(default)s)")
    p.add_argument("--adjusted", action="store_true",
                   help="compare luck-adjusted returns (docs/tournament.md, 'Luck'); plain by default")
    add_luck_net_option(p, "--adjusted")
    p.set_defaults(func=_paired)


def add_luck_net_option(p: argparse.ArgumentParser, implies: str) -> None:
    """`--luck-net FILE`: the luck measured with a luck network trained for the agents."""
    p.add_argument("--luck-net", metavar="FILE",
                   help=f"measure the luck with this luck network, trained for these agents (training/luck_value.py), "
                        f"instead of the shipped value network; implies {implies}")


def _bootstrap_count(text: str) -> int:
    """An argparse type: 0 (no intervals) or MIN_BOOTSTRAP to MAX_BOOTSTRAP resamples."""
    value = cli_checks.integer(0, MAX_BOOTSTRAP)(text)
    if 0 < value < MIN_BOOTSTRAP:
        raise argparse.ArgumentTypeError(f"{value} resamples cannot give a 95% interval: use 0 (no intervals) "
                                         f"or at least {MIN_BOOTSTRAP}")
    return value


def _bootstrap_count_positive(text: str) -> int:
    value = _bootstrap_count(text)
    if value == 0:
        raise argparse.ArgumentTypeError(f"a paired comparison is its interval: use {MIN_BOOTSTRAP} to "
                                         f"{MAX_BOOTSTRAP} resamples")
    return value


def _report_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--anchor", help="the agent rated 0 (default: the random bot, else the first by name)")
    p.add_argument("--bootstrap", type=_bootstrap_count, default=1000,
                   help=f"bootstrap resamples for the intervals: 0 for none, else {MIN_BOOTSTRAP} to "
                        f"{MAX_BOOTSTRAP} (default %(default)s)")
    p.add_argument("--no-files", action="store_true",
                   help="do not write the .md/.csv/.json/.png reports beside the results file")
    p.add_argument("--luck", action="store_true",
                   help="also show the Elo and mean return with the luck of each chance event and of each stated random "
                        "choice removed (the shipped value network's; 0.3 s a deal at Canasta, ~11 s at American Page One, on one "
                        "core: off by default; docs/tournament.md, 'Luck')")
    add_luck_net_option(p, "--luck")
