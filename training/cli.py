"""`cardarena selfplay`, `train-value`, `train-belief`, `train-luck` and `luck-lookahead`: the data, and the
networks learnt from it."""

from __future__ import annotations

import argparse
import json
from scripts import cli_checks


def _selfplay(args: argparse.Namespace) -> None:
    from training.selfplay import count_games, selfplay
    cli_checks.load_game(args.game)
    out = selfplay(args.game, args.policy, args.deals, args.out, seed=args.seed, workers=args.workers,
                   backend=args.backend, address=args.address, progress=not args.quiet)
    print(f"{out}: {count_games(out)} finished games of {args.policy} at {args.game}")


def _check_training(args: argparse.Namespace) -> None:
    """Everything refused before any work: the game, the data (a regular file), the outputs
    (records.files: never an input nor a file of another kind), the device."""
    from records.files import regular_input
    from training.selfplay import check_data, check_outputs
    game = cli_checks.load_game(args.game)
    regular_input(args.data, "--data")
    check_outputs(args.out, args.data, args.force)
    check_data(args.data, game)
    if args.device != "cpu":
        import torch
        if args.device == "cuda" and not torch.cuda.is_available():
            raise ValueError("--device cuda: no CUDA device here")


def _train(recipe: str):
    """The handler of a training command: checks, then runs `recipe`'s `run` (training.value or
    training.belief) and prints its report."""
    def handle(args: argparse.Namespace) -> None:
        import importlib
        _check_training(args)
        print(json.dumps(importlib.import_module(recipe).run(args), indent=2))
    return handle


def _train_luck(args: argparse.Namespace) -> None:
    """Checks everything before any work (the game, the agents, the outputs), then
    runs training.luck_value and prints its report."""
    from agents import make_bot
    from records.files import regular_input
    from training.selfplay import check_outputs
    game = cli_checks.load_game(args.game)
    args.agents = [a.strip() for a in args.agents]
    if len(set(args.agents)) != len(args.agents):
        raise ValueError("--agents: name each agent once")
    if game.num_players() % len(args.agents):
        raise ValueError(f"--agents: {len(args.agents)} agents cannot alternate round {game.num_players()} seats")
    if args.outcomes is None:
        args.outcomes = 2 if args.rollouts else 1
    if (args.outcomes == 1) != (args.rollouts == 0):
        raise ValueError("--outcomes 1 goes with --rollouts 0 (the game's own result as the target), and only with it")
    if args.coupling == "stock" and not args.rollouts:
        raise ValueError("--coupling stock couples rollouts: it needs --rollouts 1 or more")
    if bool(args.horizon) != bool(args.bootstrap):
        raise ValueError("--horizon and --bootstrap go together: a rollout stops at the horizon, "
                         "and the bootstrap network values it there")
    if args.horizon and not args.rollouts:
        raise ValueError("--horizon stops rollouts: it needs --rollouts 1 or more")
    if args.seat_layers >= len(args.hidden):
        raise ValueError(f"--seat-layers {args.seat_layers}: --hidden names {len(args.hidden)} layers, and at "
                         f"least the last must read the seats together")
    for spec in args.agents:
        make_bot(spec, game, 0, 0)               # ValueError, one line, for a bad spec
    from pathlib import Path
    if args.events is not None and Path(args.events).exists():
        regular_input(args.events, "--events")
    elif args.events is not None and not Path(args.events).resolve().parent.is_dir():
        raise ValueError(f"--events {args.events}: its folder does not exist")
    if args.bootstrap:
        from eval.luck import luck_network
        regular_input(args.bootstrap, "--bootstrap")
        luck_network(args.bootstrap, game).for_agents(args.agents)   # ValueError, one line, if not one for these agents
    check_outputs(args.out, [args.events, args.bootstrap], args.force)
    from training.luck_value import run
    print(json.dumps(run(args), indent=2))


def _luck_lookahead(args: argparse.Namespace) -> None:
    """Writes a copy of a luck network read through a lookahead (eval.luck.Lookahead):
    the same layers, its notes with the lookahead added."""
    from eval.luck import Lookahead
    from records.files import regular_input
    from search.netfile import load, save
    from training.selfplay import check_outputs
    regular_input(args.network, "NETWORK")
    net = load(args.network, kind="luck")
    check_outputs(args.out, [args.network], args.force)
    notes = dict(net.training)
    notes["lookahead"] = Lookahead(args.rollouts, args.horizon, args.weight, args.at).notes()
    notes["lookahead_of"] = str(args.network)
    save(args.out, net.mlp.layers, kind="luck", game=net.game, short_name=net.metadata["game_short_name"],
         players=net.players, output_shape=net.output_shape, scale=net.scale, training=notes)
    print(f"wrote {args.out}: {args.network} read through {args.rollouts} rollouts of "
          f"{args.horizon or 'every'} decisions after each outcome at {args.at}, weight {args.weight} on the network")


def _hidden(text: str) -> list[int]:
    try:
        sizes = [int(x) for x in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected widths like 512,256, got {text!r}") from None
    if not sizes or len(sizes) > 8 or any(not 1 <= s <= 4096 for s in sizes):
        raise argparse.ArgumentTypeError(f"{text!r}: 1 to 8 widths, each 1..4096")
    return sizes


def add_commands(sub: argparse._SubParsersAction) -> None:
    """selfplay, train-value, train-belief, train-luck and luck-lookahead."""
    p = sub.add_parser("selfplay", help="games of one bot in every seat, stored for training value and belief networks",
                       description="Plays DEALS games of POLICY in every seat through the tournament harness "
                                   "(local processes or Ray), storing every move in a results file; running it "
                                   "again resumes or extends it.")
    p.add_argument("--game", required=True, type=cli_checks.game_string, help="OpenSpiel game string")
    p.add_argument("--policy", default="rules", help="the bot that plays every seat (default %(default)s)")
    p.add_argument("--deals", type=cli_checks.integer(1, 10_000_000), required=True, help="games to play")
    p.add_argument("--out", required=True, help="the results file to write (or extend)")
    p.add_argument("--seed", type=cli_checks.seed, default=0, help="fixes every deal and bot seed")
    p.add_argument("--workers", type=cli_checks.integer(1, 1024), default=1, help="worker processes")
    p.add_argument("--backend", choices=("local", "ray"), default="local", help="where games are played")
    p.add_argument("--address", help="a Ray cluster's address (with --backend ray)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_selfplay)

    p = sub.add_parser("train-value", help="learn a value network (a full state's worth) from self-play games",
                       description="Regression of each seat's return on every seat's observation, from the "
                                   "positions of a self-play results file (training/value.py). Writes the "
                                   "network file, its learning curve (.curve.csv, .curve.png) and a report.")
    _training_arguments(p)
    p.add_argument("--check-positions", type=cli_checks.integer(0, 100_000), default=0,
                   help="held-out states checked against playouts after training (default none)")
    p.add_argument("--check-playouts", type=cli_checks.integer(2, 10_000), default=16,
                   help="playouts a checked state (default %(default)s)")
    p.add_argument("--check-policy", default="rules",
                   help="the bot that plays the checking playouts: the self-play policy (default %(default)s)")
    p.set_defaults(func=_train("training.value"))

    p = sub.add_parser("train-belief", help="learn a belief network (where hidden cards lie) from self-play games",
                       description="Cross-entropy of the true places of the hidden cards given the seat's "
                                   "information state, from the positions of a self-play results file "
                                   "(training/belief.py); held out, its perplexity against the exact uniform "
                                   "resampler's, and its calibration.")
    _training_arguments(p)
    p.add_argument("--check-positions", type=cli_checks.integer(0, 100_000), default=200,
                   help="held-out positions compared with the uniform resampler (default %(default)s)")
    p.add_argument("--uniform-worlds", type=cli_checks.integer(2, 100_000), default=200,
                   help="resampled worlds estimating the uniform resampler at each (default %(default)s)")
    p.set_defaults(func=_train("training.belief"))

    p = sub.add_parser("train-luck", help="learn a luck network: the worth of each event's outcomes under given agents",
                       description="Plays games of the agents, and at every chance event and stated random "
                                   "choice rolls them out after sampled outcomes with common seeds; learns the "
                                   "differences between an event's outcomes (training/luck_value.py), the one "
                                   "thing a luck term reads. Writes a network file of kind luck that --luck-net "
                                   "reads, its learning curve and a report.")
    _luck_arguments(p)
    p.set_defaults(func=_train_luck)

    p = sub.add_parser("luck-lookahead", help="a luck network read through the agents' own short rollouts",
                       description="Writes a copy of a luck network that --luck-net reads through a lookahead: "
                                   "each outcome of an event valued by rollouts of the agents for --horizon "
                                   "decisions, ended by the network, blended with the network's own reading "
                                   "(eval/luck.py, Lookahead). The copy's SHA-256 names the luck it measures.")
    p.add_argument("network", metavar="NETWORK", help="a luck network file (cardarena train-luck)")
    p.add_argument("--out", required=True, help="the network file to write")
    p.add_argument("--force", action="store_true", help="replace --out if it exists")
    p.add_argument("--rollouts", type=cli_checks.integer(1, 1024), default=16,
                   help="rollouts after each outcome, the same seeds after each (default %(default)s)")
    p.add_argument("--horizon", type=cli_checks.integer(0, 10_000), default=8,
                   help="decisions each rollout plays before the network values it; 0: to the end (default %(default)s)")
    p.add_argument("--weight", type=cli_checks.number(0.0, 1.0, open_high=True), default=0.25,
                   help="the network's own reading's weight in the blend (default %(default)s)")
    p.add_argument("--at", choices=("choices", "all"), default="choices",
                   help="the events read through it: the stated random choices alone (default), or chance too")
    p.set_defaults(func=_luck_lookahead)


def _luck_arguments(p: argparse.ArgumentParser) -> None:
    """train-luck's options."""
    p.add_argument("--game", required=True, type=cli_checks.game_string, help="OpenSpiel game string")
    p.add_argument("--agents", required=True, nargs="+", metavar="SPEC",
                   help="the bot specs the network will judge, seated in turn round the table")
    p.add_argument("--out", required=True, help="the network file to write, e.g. runs/po.luck.safetensors")
    p.add_argument("--force", action="store_true", help="replace --out if it exists")
    p.add_argument("--games", type=cli_checks.integer(2, 10_000_000), default=1000,
                   help="games whose events are learnt (default %(default)s)")
    p.add_argument("--outcomes", type=cli_checks.integer(1, 64), default=None,
                   help="outcomes drawn at each event (default 2; 1, the outcome the game drew, with --rollouts 0)")
    p.add_argument("--rollouts", type=cli_checks.integer(0, 10_000), default=8,
                   help="games played on after each outcome, the same seeds after each (default %(default)s); "
                        "0: no rollouts, the game's own result is the target of the outcome it drew")
    p.add_argument("--coupling", choices=("numbers", "stock"), default="numbers",
                   help="how the rollouts after an event's outcomes share their chance: numbers, each drawn from "
                        "the seed's stream (default); stock, one shuffled stock that differs in the outcome alone")
    p.add_argument("--horizon", type=cli_checks.integer(0, 1_000_000), default=0,
                   help="decisions a rollout plays before --bootstrap values where it stopped (default 0: "
                        "rollouts play to the end)")
    p.add_argument("--bootstrap", metavar="FILE",
                   help="a luck network for the same agents, read at the horizon (e.g. one trained on full rollouts)")
    p.add_argument("--events", help="an .npz to keep the generated events in, read back if it exists "
                                    "(the same recipe only; a file of fewer games grows by the games it lacks)")
    p.add_argument("--workers", type=cli_checks.integer(1, 1024), default=1, help="processes generating events")
    p.add_argument("--threads", type=cli_checks.integer(1, 1024), default=1, help="torch threads while training")
    _fit_arguments(p, hidden=[128, 256], hidden_help="the widths of the layers every seat shares, then the rest's",
                   epochs=20, weight_decay=1e-4, batch_unit="events")
    p.add_argument("--seat-layers", type=cli_checks.integer(1, 7), default=1,
                   help="how many of --hidden's layers read each seat alone, the same weights at every seat "
                        "(default %(default)s)")
    p.add_argument("--level", type=cli_checks.number(0.0, 100.0), default=0.05,
                   help="weight of the plain squared error beside the centred one (default %(default)s)")
    p.add_argument("--seed", type=cli_checks.seed, default=0, help="fixes the games, rollouts and training")
    p.add_argument("--quiet", action="store_true", help="no progress bars")


def _fit_arguments(p: argparse.ArgumentParser, *, hidden: list[int], hidden_help: str, epochs: int,
                   weight_decay: float, batch_unit: str) -> None:
    """The options of a network's fit that every training command shares, with its own defaults."""
    p.add_argument("--held-out", type=cli_checks.number(0.01, 0.5), default=0.1,
                   help="share of the games held out (default %(default)s)")
    p.add_argument("--hidden", type=_hidden, default=hidden,
                   help=f"{hidden_help} (default {','.join(map(str, hidden))})")
    p.add_argument("--epochs", type=cli_checks.integer(1, 10_000), default=epochs, help="(default %(default)s)")
    p.add_argument("--batch", type=cli_checks.integer(1, 1 << 16), default=256,
                   help=f"{batch_unit} a minibatch (default %(default)s)")
    p.add_argument("--lr", type=cli_checks.number(1e-6, 1.0), default=1e-3, help="AdamW's step (default %(default)s)")
    p.add_argument("--weight-decay", type=cli_checks.number(0.0, 1.0), default=weight_decay,
                   help="AdamW's weight decay (default %(default)s)")


def _training_arguments(p: argparse.ArgumentParser) -> None:
    """What train-value and train-belief share."""
    p.add_argument("--game", required=True, type=cli_checks.game_string, help="OpenSpiel game string")
    p.add_argument("--data", required=True, help="a self-play results file (cardarena selfplay)")
    p.add_argument("--out", required=True, help="the network file to write, e.g. runs/value.safetensors")
    p.add_argument("--force", action="store_true", help="replace --out if it exists")
    p.add_argument("--per-game", type=cli_checks.integer(1, 10_000), default=16,
                   help="positions drawn from each game (default %(default)s)")
    _fit_arguments(p, hidden=[256, 256], hidden_help="layer widths", epochs=30, weight_decay=0.0,
                   batch_unit="positions")
    p.add_argument("--seed", type=cli_checks.seed, default=0, help="fixes the positions drawn and the training")
    p.add_argument("--device", choices=("cpu", "cuda"), default="cpu", help="where to train (default %(default)s)")
    p.add_argument("--no-onnx", dest="onnx", action="store_false",
                   help="skip the ONNX twin (written beside the network file and checked by default)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
