"""`cardarena train`, `export` and `ensemble`: the policy networks' commands.
Argument parsing only; torch is imported when a command runs, not when the CLI starts."""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
import pickle
from pathlib import Path

from agents.neural.config import TrainConfig
from games.spec import parse_spec
from scripts.cli_checks import number

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
              "seats it finished ahead of, less those ahead of it: what the harness rates) or advantage (the "
              "baseline bot plays; each other move's placement less the baseline's move's, by playouts on the "
              "true cards with the same draws: training/advantage.py)",
    "probe": "target advantage: the fraction of decisions whose moves are all played out",
    "baseline": "target advantage: the bot spec whose moves the network learns to improve on; it plays the "
                "probed side before and after each probed move (a network of advantages here makes a second "
                "step of policy iteration)",
    "opponents": "target advantage: the bot spec of the other sides, whose decisions are not probed "
                 "(default: the baseline plays every seat, and every seat is probed)",
    "relative": "target advantage: learn scores whose differences are the gains (a move's gain is its score less "
                "the baseline's move's score), so that the network need not know which move the baseline would "
                "make; false: each score is the move's gain itself",
    "positions": "target advantage: the bot spec that plays the probed seats' moves in the deals, so that the "
                 "probed positions are the ones it reaches (the shipped network's, for a network that will play "
                 "its own positions); the baseline's move is still the one each gain is measured from, and the "
                 "playouts after it are still the baseline's (default: the baseline plays them)",
    "ema": "evaluate and export an exponential moving average of the learner's weights, with this decay per "
           "step (0.999 averages about the last thousand steps); 0: the learner's own weights",
    "symmetry": "relabel training samples by random suit permutations where the game declares them (true/false)",
    "sync_steps": "learner steps between publishing weights to the actors",
    "checkpoint_minutes": "minutes between checkpoints and evaluations",
    "eval_deals": "duplicate deals per evaluation against the rule-based bot (two games each)",
    "eval_play": "play settings the evaluations rate each snapshot at and store in it, e.g. 'margin=0.1' "
                 "(a network of advantages rated at the margin it will play with); empty: the bot's defaults",
    "seed": "random seed",
    "device": "learner device: cpu, cuda or cuda:N (refused where torch here has no such device)",
    "hidden": "hidden layer sizes, e.g. 256 256 (default: the game's documented config)",
    "init": "a bot file of this game whose network the run starts from, e.g. the shipped one: longer training "
            "without its checkpoint; its scores must be what the run learns (returns, or gains over the same "
            "--baseline); its layers replace --hidden",
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
            parser.add_argument(flag, type=number(-math.inf, math.inf) if isinstance(default, float) else type(default), default=None,
                                help=f"{_HELP[f.name]} (default: {default})")
    parser.add_argument("--resume", metavar="CHECKPOINT",
                        help="continue from a checkpoint, in its folder; its settings apply unless given here "
                             "(its bots only where they are rules, random or neural ones)")


def config_from_args(args: argparse.Namespace, base: dict | None = None) -> TrainConfig:
    """The defaults (or a resumed checkpoint's settings), overridden by the flags given."""
    values = dict(base or {})
    for f in dataclasses.fields(TrainConfig):
        given = getattr(args, f.name)
        if given is not None:
            values[f.name] = given
    known = {f.name for f in dataclasses.fields(TrainConfig)}
    return TrainConfig(**{k: v for k, v in values.items() if k in known})


CHECKPOINT_FIELDS = ("config", "model", "stats", "network", "input_size", "num_actions")


def read_checkpoint(path: str | Path) -> dict:
    """A training checkpoint (dmc.py), read without unpickling anything but plain
    data. Raises ValueError with one line for a missing file, a bot file, a file
    torch cannot read, one that holds anything else (not a trusted checkpoint) or
    one that lacks a checkpoint's fields."""
    import torch
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"{path}: {'is a folder, not a' if path.is_dir() else 'no such'} training checkpoint")
    with open(path, "rb") as f:
        head = f.read(9)
    if len(head) == 9 and head[8:9] == b"{":          # safetensors: 8-byte header length, then JSON
        raise ValueError(f"{path} is a bot file (safetensors), not a training checkpoint; bot files are "
                         f"what `cardarena export` makes from checkpoints")
    try:
        ckpt = torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError:
        raise ValueError(f"{path} is not a trusted training checkpoint: it holds Python objects besides "
                         f"tensors and plain data, and loading those could run code; refused") from None
    except Exception as e:      # torch raises several kinds for a file that is not its own
        raise ValueError(f"{path} is not a training checkpoint (torch cannot read it: "
                         f"{str(e).splitlines()[0] if str(e) else type(e).__name__})") from None
    missing = [key for key in CHECKPOINT_FIELDS if not isinstance(ckpt, dict) or key not in ckpt]
    if missing or not isinstance(ckpt["config"], dict) or "game" not in ckpt["config"]:
        raise ValueError(f"{path} is not a cardarena training checkpoint (it lacks "
                         f"{', '.join(missing) or 'config.game'}); `cardarena train` writes them")
    if not isinstance(ckpt["stats"], dict):
        raise ValueError(f"{path} is not a cardarena training checkpoint (its stats are not a dict)")
    from training.dmc import checkpoint_network
    checkpoint_network(ckpt, str(path))        # its declared sizes against its weights, before anything is built
    return ckpt


# A run's settings that name bots: a resumed run takes them from its checkpoint only
# where they are bots a file may name (botfile.parse_file_bot), else from the command line.
CHECKPOINT_BOTS = ("baseline", "opponents", "positions")


def resumed_settings(args: argparse.Namespace) -> dict:
    """The settings of the checkpoint `--resume` names, as a resumed run takes them:
    in the checkpoint's own folder unless --out says otherwise, without the
    `init` that started it (a resumed run continues its own weights), and its
    bots refused unless plain in-process ones (rules, random, neural) or given
    again on the command line: nothing read from a file starts a program."""
    from agents.neural.botfile import parse_file_bot
    settings = dict(read_checkpoint(args.resume)["config"])
    settings.pop("init", None)
    settings["out"] = str(Path(args.resume).parent)
    for name in CHECKPOINT_BOTS:
        if settings.get(name) and getattr(args, name) is None:
            try:
                parse_file_bot(settings[name], f"--resume {args.resume}: its {name}")
            except ValueError as e:
                raise ValueError(f"{e}; give --{name} to run it") from None
    return settings


def run_train(args: argparse.Namespace) -> None:
    """Checks every setting (the game loads, a resumed checkpoint is one, --out is
    a folder or new) before the run folder is made, then trains."""
    from games.load import load_game
    if args.init and args.resume:
        raise ValueError("--init starts a new run from a bot file; --resume continues one: give one of them")
    base = resumed_settings(args) if args.resume else None
    try:
        cfg = config_from_args(args, base)
    except TypeError as e:              # a checkpoint's setting of the wrong type
        raise ValueError(f"--resume {args.resume}: its settings are not a training run's ({e})") from None
    load_game(cfg.game)
    from training import dmc
    dmc.learner_device(cfg.device)      # --device nosuch, or cuda where torch here has none
    if cfg.init:
        dmc.initial_network(cfg)        # refuses a missing file, another game's, or scores of another kind
    if Path(cfg.out).exists() and not Path(cfg.out).is_dir():
        raise ValueError(f"--out {cfg.out}: is a file; a run's folder holds its checkpoints and curves")
    path = dmc.train(cfg, resume=args.resume)
    print(f"checkpoint: {path}\nlearning curve: {path.parent / dmc.CURVE_PNG} ({path.parent / dmc.CURVE_CSV})")


def _export_paths(args: argparse.Namespace) -> list[Path]:
    """The files an export writes, checked: a .safetensors name in a folder that
    exists, and none of them there already unless --force."""
    out = Path(args.out)
    if out.suffix != ".safetensors":
        raise ValueError(f"{out}: a bot file's name ends in .safetensors (its ONNX twin takes .onnx)")
    if not out.parent.is_dir():
        raise ValueError(f"{out}: no folder {out.parent} (make it first)")
    paths = [out] + ([] if args.no_onnx else [out.with_suffix(".onnx")])
    existing = [str(p) for p in paths if p.exists()]
    if existing and not args.force:
        raise ValueError(f"{' and '.join(existing)} already exist{'s' if len(existing) == 1 else ''}; "
                         f"pass --force to replace {'it' if len(existing) == 1 else 'them'}")
    return paths


def _usual_permissions(path: Path) -> None:
    """What any new file gets here (0666 less the umask): the bot file is written
    through a private temporary file (0600), the ONNX model is not."""
    umask = os.umask(0)
    os.umask(umask)
    path.chmod(0o666 & ~umask)


def run_export(args: argparse.Namespace) -> None:
    play = parse_spec(f"neural({args.play})")[1] if args.play else None
    _export_paths(args)
    read_checkpoint(args.checkpoint)
    from training import dmc
    for path in dmc.export(args.checkpoint, args.out, onnx=not args.no_onnx, play=play):
        _usual_permissions(Path(path))
        print(f"wrote {path}")


def run_ensemble(args: argparse.Namespace) -> None:
    play = parse_spec(f"neural({args.play})")[1] if args.play else None
    _export_paths(args)
    from training.ensemble import ensemble
    for path in ensemble(args.members, args.out, play=play, onnx=not args.no_onnx):
        _usual_permissions(Path(path))
        print(f"wrote {path}")
