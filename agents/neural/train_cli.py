"""`cardarena train` and `cardarena export`: argument parsing only; torch is
imported when a command runs, not when the CLI starts."""

from __future__ import annotations

import argparse
import dataclasses

from agents.neural.config import TrainConfig
from agents.spec import parse_spec

_HELP = {
    "game": "game string to train on",
    "out": "run folder: checkpoint.pt, curve.csv, curve.png",
    "minutes": "training wall time in minutes (a resumed run counts the time before)",
    "actors": "self-play actor processes",
    "games_per_batch": "games each actor plays at once (its inference batch)",
    "buffer_size": "replay buffer size, in samples",
    "batch_size": "learner batch size",
    "lr": "Adam learning rate at the start",
    "lr_final": "the learning rate falls linearly to lr * lr_final at the end of the run",
    "replay_ratio": "at most this many trainings per sample received, on average",
    "epsilon": "actors' exploration: a random legal action with this probability",
    "rules_games": "fraction of self-play games with the rule-based bot in alternate seats",
    "guide_minutes": "the rule bot makes the network seats' moves at first, less and less over this many minutes",
    "guide_epsilon": "exploration of the moves the rule bot makes for network seats",
    "target": "what a decision learns: return (the seat's points, scaled) or placement (the share of "
              "seats it finished ahead of, less those ahead of it: what the harness rates) or advantage (rule bots "
              "play; each other move's placement less the rule bot's move's, by playouts on the true cards "
              "with the same draws: agents/neural/advantage.py)",
    "probe": "target advantage: the fraction of decisions whose moves are all played out",
    "ema": "evaluate and export an exponential moving average of the learner's weights, with this decay per "
           "step (0.999 averages about the last thousand steps); 0: the learner's own weights",
    "symmetry": "relabel training samples by random suit permutations where the game declares them (true/false)",
    "sync_steps": "learner steps between publishing weights to the actors",
    "checkpoint_minutes": "minutes between checkpoints and evaluations",
    "eval_deals": "duplicate deals per evaluation against the rule-based bot (two games each)",
    "seed": "random seed",
    "device": "learner device: cpu or cuda",
    "hidden": "hidden layer sizes, e.g. 256 256 (default: the game's documented config)",
}


def _boolean(text: str) -> bool:
    if text.lower() not in ("true", "false"):
        raise argparse.ArgumentTypeError(f"expected true or false, got {text!r}")
    return text.lower() == "true"


def add_train_arguments(parser: argparse.ArgumentParser) -> None:
    defaults = TrainConfig()
    for f in dataclasses.fields(TrainConfig):
        flag = "--" + f.name.replace("_", "-")
        default = getattr(defaults, f.name)
        if f.name == "hidden":
            parser.add_argument(flag, type=int, nargs="+", default=None, help=_HELP[f.name])
        elif isinstance(default, bool):
            parser.add_argument(flag, type=_boolean, default=None, help=f"{_HELP[f.name]} (default: {default})")
        else:
            parser.add_argument(flag, type=type(default), default=None,
                                help=f"{_HELP[f.name]} (default: {default})")
    parser.add_argument("--resume", metavar="CHECKPOINT",
                        help="continue from a checkpoint; its settings apply unless given here")


def config_from_args(args: argparse.Namespace, base: dict | None = None) -> TrainConfig:
    """The defaults (or a resumed checkpoint's settings), overridden by the flags given."""
    values = dict(base or {})
    for f in dataclasses.fields(TrainConfig):
        given = getattr(args, f.name)
        if given is not None:
            values[f.name] = given
    known = {f.name for f in dataclasses.fields(TrainConfig)}
    return TrainConfig(**{k: v for k, v in values.items() if k in known})


def run_train(args: argparse.Namespace) -> None:
    from agents.neural import dmc
    base = dmc.load_checkpoint(args.resume)["config"] if args.resume else None
    cfg = config_from_args(args, base)
    path = dmc.train(cfg, resume=args.resume)
    print(f"checkpoint: {path}\nlearning curve: {path.parent / dmc.CURVE_PNG} ({path.parent / dmc.CURVE_CSV})")


def run_export(args: argparse.Namespace) -> None:
    from agents.neural import dmc
    play = parse_spec(f"neural({args.play})")[1] if args.play else None
    for path in dmc.export(args.checkpoint, args.out, onnx=not args.no_onnx, play=play):
        print(f"wrote {path}")
