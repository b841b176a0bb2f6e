"""`cardarena`: the toolkit's command line. Each subcommand lives in its own module."""

from __future__ import annotations

import argparse
import sys


def _match(args: argparse.Namespace) -> None:
    from eval.match import format_table, run_match
    rows = run_match(args.game, args.agent, args.games, args.seed)
    print(format_table(rows))


def _train(args: argparse.Namespace) -> None:
    from agents.neural.train_cli import run_train
    run_train(args)


def _export(args: argparse.Namespace) -> None:
    from agents.neural.train_cli import run_export
    run_export(args)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="cardarena", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("match", help="play bots against each other, seats rotated")
    p.add_argument("--game", default="python_page_one(players=4)")
    p.add_argument("--agent", action="append", help="a bot spec; repeat for each agent")
    p.add_argument("--games", type=int, default=400)
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=_match)

    from scripts.tournament_cli import add_commands
    add_commands(sub)
    from play.cli import add_commands as add_play_commands; add_play_commands(sub)
    from eval.study.cli import add_commands as add_study_commands; add_study_commands(sub)

    p = sub.add_parser("bench", help="speed benchmarks against OpenSpiel references")
    p.add_argument("rest", nargs=argparse.REMAINDER)
    p.set_defaults(func=lambda a: __import__("scripts.bench", fromlist=["main"]).main(a.rest))

    p = sub.add_parser("train", help="train a neural bot by deep Monte-Carlo self-play")
    __import__("agents.neural.train_cli", fromlist=["add_train_arguments"]).add_train_arguments(p)
    p.set_defaults(func=_train)

    p = sub.add_parser("export", help="write a safe bot file (and ONNX) from a training checkpoint")
    p.add_argument("checkpoint", help="a training checkpoint (runs/.../checkpoint.pt)")
    p.add_argument("out", help="the bot file to write, e.g. bots/python_page_one.safetensors")
    p.add_argument("--no-onnx", action="store_true", help="skip the ONNX export and its check")
    p.add_argument("--play", metavar="SETTINGS", help="the bot's default play settings, stored in the file, "
                   "e.g. 'margin=0.02,symmetric=true' (a spec's own settings override them)")
    p.set_defaults(func=_export)

    args = parser.parse_args(argv)
    if getattr(args, "agent", None) is None and args.command == "match":
        args.agent = ["random", "rules"]
    try:
        args.func(args)
    except ValueError as e:          # bad input: a clear message, no traceback
        parser.exit(2, f"cardarena {args.command}: error: {e}\n")


if __name__ == "__main__":
    main(sys.argv[1:])
