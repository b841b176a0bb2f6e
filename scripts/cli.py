"""`cardarena`: the toolkit's command line. Each subcommand lives in its own module."""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from games import registry
from scripts.cli_checks import CliParser, one_line

# The modules that add subcommands: each has `add_commands(sub)`, which adds its
# subparsers to `sub` (the subparsers action of the `cardarena` parser).
# This module adds match, bench, train, export and ensemble itself.
COMMAND_MODULES = (
    "scripts.tournament_cli",      # tournament, report, sprt
    "scripts.list_cli",            # list
    "scripts.records_cli",         # games, show, export-games, analyse
    "eval.study.cli",              # study canasta, requirement, plot, stats, fingerprint
    "play.cli",                    # play (the table: web, or --text)
    "scripts.engine_cli",          # engine (a bot speaking docs/engine_protocol.md)
    "training.cli",                # selfplay, train-value, train-belief
)


def _match(args: argparse.Namespace) -> None:
    from eval.config import check_bot
    from eval.match import format_table, run_match
    from records.record import check_appendable
    from scripts.cli_checks import load_game
    game = load_game(args.game)
    specs = args.agent or ["random", "rules"]
    for spec in specs:                  # refused before the first game, not in the middle of the bar
        check_bot(spec, game)
    if args.records is not None:
        from records.files import RECORDS, check_output
        check_output(args.records, RECORDS, option="--records")
        check_appendable(args.records)
    rows = run_match(args.game, specs, args.games, args.seed, progress=not args.quiet, records=args.records)
    print(format_table(rows))


def _bench(args: argparse.Namespace) -> None:
    from scripts.bench import main as bench_main
    bench_main(args.rest)


def _train(args: argparse.Namespace) -> None:
    from training.policy_cli import run_train
    run_train(args)


def _export(args: argparse.Namespace) -> None:
    from training.policy_cli import run_export
    run_export(args)


def _ensemble(args: argparse.Namespace) -> None:
    from training.policy_cli import run_ensemble
    run_ensemble(args)


def add_commands(sub: argparse._SubParsersAction) -> None:
    """match, bench, train, export and ensemble."""
    from scripts import cli_checks
    p = sub.add_parser("match", help="play bots against each other, seats rotated: the quick look",
                       description="Plays --games games, the seats rotated between the agents, and prints "
                                   "each one's win rate and mean return with 95% intervals. For ratings, "
                                   "duplicate deals and stored results use `cardarena tournament`.")
    p.add_argument("--game", default=registry.default_game(), type=cli_checks.game_string,
                   help="OpenSpiel game string (default %(default)s; `cardarena list games`)")
    p.add_argument("--agent", action="append", metavar="SPEC",
                   help="a bot spec, e.g. rules or 'ismcts(iterations=200)'; repeat for each agent "
                        "(default: random and rules; `cardarena list bots`)")
    p.add_argument("--games", type=cli_checks.integer(1, 10_000_000), default=400,
                   help="games to play (default %(default)s)")
    p.add_argument("--seed", type=cli_checks.seed, default=0,
                   help="fixes every deal and bot seed (default %(default)s)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--records", metavar="FILE.jsonl",
                   help="append every game to this file as a record (docs/records.md) as it ends")
    p.set_defaults(func=_match)

    # The bench's options are its own (scripts/bench.py): everything after `bench`
    # goes to it, --help included.
    p = sub.add_parser("bench", help="speed benchmarks against OpenSpiel references (see bench --help)",
                       add_help=False)
    p.set_defaults(func=_bench, pass_through=True)

    p = sub.add_parser("train", help="train a neural bot by deep Monte-Carlo self-play")
    importlib.import_module("training.policy_cli").add_train_arguments(p)
    p.set_defaults(func=_train)

    p = sub.add_parser("export", help="write a safe bot file (and ONNX) from a training checkpoint")
    p.add_argument("checkpoint", help="a training checkpoint (runs/.../checkpoint.pt)")
    p.add_argument("out", help="the bot file to write, e.g. bots/mine.safetensors (its folder must exist)")
    p.add_argument("--force", action="store_true", help="replace the bot file (and its .onnx) if they exist")
    p.add_argument("--no-onnx", action="store_true", help="skip the ONNX export and its check")
    p.add_argument("--play", metavar="SETTINGS", help="the bot's default play settings, stored in the file, "
                   "e.g. 'margin=0.02,symmetric=true' (a spec's own settings override them)")
    p.set_defaults(func=_export)

    p = sub.add_parser("ensemble", help="merge bot files of one game into one network that scores by their mean",
                       description="Writes one bot file (and its ONNX twin) whose network scores each action "
                                   "by the mean of the members' scores, exactly (training/ensemble.py).")
    p.add_argument("out", help="the bot file to write, e.g. bots/mine.safetensors (its folder must exist)")
    p.add_argument("members", nargs="+", metavar="MEMBER", help="two or more bot files of one game and kind of score")
    p.add_argument("--force", action="store_true", help="replace the bot file (and its .onnx) if they exist")
    p.add_argument("--no-onnx", action="store_true", help="skip the ONNX export and its check")
    p.add_argument("--play", metavar="SETTINGS", help="the bot's default play settings, e.g. 'margin=0.1' "
                   "(left out: the members' own, where they agree)")
    p.set_defaults(func=_ensemble)


def build_parser() -> tuple[CliParser, argparse._SubParsersAction]:
    """The `cardarena` parser and its subparsers action, every module's commands added."""
    parser = CliParser(prog="cardarena", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    add_commands(sub)
    for module in COMMAND_MODULES:
        importlib.import_module(module).add_commands(sub)
    return parser, sub


def main(argv: list[str] | None = None) -> None:
    """Runs one subcommand. Bad input ends it with one line naming the problem and
    exit code 2, never a traceback."""
    parser, sub = build_parser()
    args, rest = parser.parse_known_args(argv)
    command = sub.choices[args.command]
    if getattr(args, "pass_through", False):
        args.rest = rest
    elif rest:
        command.error(f"unrecognized arguments: {' '.join(rest)}")
    try:
        args.func(args)
        sys.stdout.flush()
    except BrokenPipeError:                     # `cardarena games r.db | head`: a reader that had enough
        _quiet_stdout()
    except KeyboardInterrupt:
        command.exit(130, f"\n{command.prog}: interrupted\n")
    except (ValueError, OSError) as e:          # bad input, or a file that cannot be read or written
        detail = (f"{e.strerror}: {e.filename}" if isinstance(e, OSError) and e.strerror and e.filename else e)
        command.exit(2, f"{command.prog}: error: {one_line(detail)}\n")


def _quiet_stdout() -> None:
    """Points standard output at /dev/null once its reader has gone, so that
    nothing more is written to the closed pipe, not even at exit: a closed
    output is a quiet end, with nothing on stderr."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):     # not a real file (a test's capture)
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


if __name__ == "__main__":
    main(sys.argv[1:])
