"""Deep Monte-Carlo self-play training (DouZero: Zha et al., ICML 2021), in one file.

Read it top to bottom:

1. Actors, in their own processes, each play `games_per_batch` games at once
   with a copy of the network, one batched forward pass for every decision
   that is pending across those games. A decision with one legal action, and
   every chance event, is played without the network. The network acts
   epsilon-greedily on its action scores. In a fraction `rules_games` of the
   games the rule-based bot sits in alternate seats as a sparring partner; the
   rest are pure self-play. For the first `guide_minutes` the rule bot makes
   the network seats' moves too, less and less (a warm start).
2. When a game ends, each network decision in it becomes a sample:
   (information-state tensor, action taken, that seat's final return, divided
   by the game's largest return so that scores lie in [-1, 1]). These
   are plain Monte-Carlo returns: no bootstrapping, no discount (the games
   reward only at the end).
3. The learner keeps samples in a replay buffer and regresses the score of the
   action taken, and the value, on the return (mean squared error, Adam, the
   learning rate decaying linearly over the run). A
   replay ratio caps how often, on average, a sample is trained on, so a slow
   actor cannot make the learner overfit stale data. Where the game declares a
   suit symmetry (agents/neural/symmetry.py), each sample is relabelled by a
   random suit permutation as it is drawn.
4. The learner publishes its weights to shared memory every `sync_steps`
   steps; actors pick them up before each batch of games.
5. Every `checkpoint_minutes`: a resumable checkpoint, an evaluation of the
   greedy policy against the rule-based bot with the tournament harness on
   duplicate deals, a CSV row, and the PNG learning curve. With `ema`, the
   policy evaluated (and exported) has an exponential moving average of the
   learner's weights, which averages out the noise of the last steps.

With `target="advantage"` the actors play no network being trained: the
baseline bot (the rule bot unless `baseline` names another) plays, and probed
decisions yield each other move's gain over the baseline's move
(training/advantage.py); the learner, checkpoints and curve are the same.
With `relative` as well, the learner regresses the move's score less the
baseline's move's score on that gain (train_step's `references`).

Actors always run on the CPU; `device` places the learner (e.g. "cuda").
`cardarena train` is the command line; docs/neural.md the figures.
"""

from __future__ import annotations

import copy
import csv
import dataclasses
import math
import os
import queue as queue_module
import random
import re
import textwrap
import time
from pathlib import Path

import numpy as np
import pyspiel
import torch
import torch.multiprocessing as mp
from tqdm import tqdm

import games  # noqa: F401  (registers our games)
from agents import make_bot
from agents.base import rules_core
from agents.neural.bot import DEFAULT_MARGIN, play_settings
from agents.neural.botfile import MAX_TENSOR_SIZE, load_bot, save_bot, writer_baseline
from agents.neural.config import LEARNER_DEVICES, NetworkConfig, TrainConfig
from agents.neural.encoding import GameIdentity, InfoStateEncoder
from agents.neural.network import PolicyValueNet, parameter_shapes
from agents.neural.symmetry import symmetry_for
from games.spec import parse_spec
from games.load import load_game
from games.protocol import chance_sampler
from training import advantage
from training.evaluate import harness_match

CHECKPOINT_NAME = "checkpoint.pt"
CURVE_CSV = "curve.csv"
CURVE_PNG = "curve.png"
SNAPSHOTS = "snapshots"
NO_REFERENCE = -1        # a sample's reference move where its target is no gain over another move
CSV_FIELDS = ["minutes", "cpu_minutes", "games", "samples", "steps", "loss", "eval_games", "mean_return",
              "return_low", "return_high", "elo", "elo_low", "elo_high"]


# ----------------------------------------------------------------------------- 1. actors
def play_batch(game: pyspiel.Game, net: PolicyValueNet, encoder: InfoStateEncoder,
               rules_bots: list[list[pyspiel.Bot]], rng: random.Random, epsilon: float,
               rules_games: float, guide: float = 0.0, guide_epsilon: float = 0.0,
               target: str = "return") -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Plays len(rules_bots) games at once; returns (obs, actions, targets, games)
    for every network-seat decision that had a choice. With probability `guide`
    such a decision is the rule bot's instead (explored with `guide_epsilon`).
    `target` says what a decision learns: see training_targets."""
    n = game.num_players()
    slots = []
    for bots in rules_bots:
        state = rules_core(game.new_initial_state())
        if rng.random() < rules_games:
            offset = rng.randrange(2)
            network_seat = [(s + offset) % 2 == 0 for s in range(n)]
        else:
            network_seat = [True] * n
        for bot in bots:
            bot.restart_at(state)
        slots.append({"state": state, "network": network_seat, "bots": bots, "obs": [],
                      "actions": [], "seats": []})
    sample = chance_sampler(slots[0]["state"])
    done_obs, done_actions, done_returns = [], [], []
    active = slots
    while active:
        pending = []
        for slot in active:
            state = slot["state"]
            while not state.is_terminal():
                if state.is_chance_node():
                    state.apply_action(sample(state, rng.random()))
                    continue
                player = state.current_player()
                legal = state.legal_actions()
                if not slot["network"][player]:
                    action = slot["bots"][player].step(state)
                elif len(legal) == 1:
                    action = legal[0]
                elif rng.random() < guide:
                    action = slot["bots"][player].step(state)
                    if rng.random() < guide_epsilon:
                        action = legal[rng.randrange(len(legal))]
                    obs = np.zeros(encoder.size, np.float32)
                    encoder.encode(state, player, legal, obs)
                    _record(slot, obs, action, player)
                else:
                    pending.append((slot, player, legal))
                    break
                _inform(slot, player, action)
                state.apply_action(action)
        if pending:
            obs = np.zeros((len(pending), encoder.size), np.float32)
            mask = np.zeros((len(pending), encoder.num_actions), np.float32)
            for i, (slot, player, legal) in enumerate(pending):
                encoder.encode(slot["state"], player, legal, obs[i], mask[i])
            with torch.inference_mode():
                best = net(torch.from_numpy(obs), torch.from_numpy(mask))[0].argmax(dim=1).tolist()
            for i, (slot, player, legal) in enumerate(pending):
                action = legal[rng.randrange(len(legal))] if rng.random() < epsilon else best[i]
                _record(slot, obs[i], action, player)
                _inform(slot, player, action)
                slot["state"].apply_action(action)
        still = []
        for slot in active:
            if slot["state"].is_terminal():
                targets = training_targets(game, slot["state"].returns(), target)
                done_obs += slot["obs"]
                done_actions += slot["actions"]
                done_returns += [targets[s] for s in slot["seats"]]
            else:
                still.append(slot)
        active = still
    if not done_obs:
        return (np.zeros((0, encoder.size), np.float16), np.zeros(0, np.int64),
                np.zeros(0, np.float32), len(slots))
    return (np.stack(done_obs), np.array(done_actions, np.int64),
            np.array(done_returns, np.float32), len(slots))


def training_targets(game: pyspiel.Game, returns: list[float], target: str) -> list[float]:
    """What each seat's decisions learn from a finished game, in [-1, 1].

    "return": the seat's return over the game's largest (its score, in points).
    "placement": the share of the other seats it finished ahead of, less the
    share that finished ahead of it: the pairwise outcome the tournament
    harness rates (docs/tournament.md). Where a deal's points vary widely
    (American Page One: the winner takes the pot of every other hand), this
    target has far less noise than the points, for the same ordering."""
    if target == "return":
        scale = return_scale(game)
        return [r / scale for r in returns]
    n = len(returns)
    return [sum((r > o) - (r < o) for o in returns) / (n - 1) for r in returns]


def return_scale(game: pyspiel.Game) -> float:
    """Returns are divided by this for training, so that scores lie in [-1, 1]
    whatever the game's units (Canasta's hands are worth up to 32 points)."""
    return max(abs(game.min_utility()), abs(game.max_utility()), 1e-9)


def _record(slot: dict, obs: np.ndarray, action: int, player: int) -> None:
    slot["obs"].append(obs.astype(np.float16))
    slot["actions"].append(action)
    slot["seats"].append(player)


def _inform(slot: dict, player: int, action: int) -> None:
    """Tells the rule bots of this game about a move, as pyspiel bots expect."""
    for seat, bot in enumerate(slot["bots"]):
        if seat != player:
            bot.inform_action(slot["state"], player, action)


def actor_main(actor_id: int, cfg: TrainConfig, games_before: int, shared: PolicyValueNet,
               version, lock, guide, out_queue, stop, learner: int) -> None:
    """An actor process: fetch weights, play a batch of games, send the samples.
    Its seed mixes in the games played before, so a resumed run plays new deals.
    It stops when `stop` is set or its parent is no longer `learner` (the
    learner's pid, passed in: a learner killed while this process was still
    importing would otherwise be mistaken for init, its new parent)."""
    torch.set_num_threads(1)
    game = pyspiel.load_game(cfg.game)
    encoder = InfoStateEncoder(game)
    net = PolicyValueNet(shared.input_size, shared.num_actions, shared.config)
    net.eval()
    rng = random.Random(f"{cfg.seed}/{actor_id}/{games_before}")
    rules_bots = [[make_bot("rules", game, s, rng.randrange(1 << 30)) for s in range(game.num_players())]
                  for _ in range(cfg.games_per_batch)]
    probe_bots = (advantage.ProbeBots.make(game, cfg.baseline, cfg.opponents or None, rng.randrange(1 << 30),
                                           cfg.positions or None)
                  if cfg.target == "advantage" else None)
    seen = -1
    parent = learner
    # A learner that was killed reads no more samples: exiting must not wait to
    # flush the queue into its pipe (which would hang the actor for good).
    out_queue.cancel_join_thread()
    while not stop.is_set() and os.getppid() == parent:     # ends with a killed learner too
        if probe_bots is not None:      # the baseline plays: the network being trained is not needed here
            batch = advantage.play_probe_batch(game, encoder, probe_bots, rng, cfg.games_per_batch, cfg.probe)
        else:
            if version.value != seen:
                if not lock.acquire(timeout=1.0):      # the learner holds it (or was killed holding it)
                    continue
                try:
                    seen = version.value
                    net.load_state_dict(shared.state_dict())
                finally:
                    lock.release()
            obs, actions, targets, played = play_batch(game, net, encoder, rules_bots, rng, cfg.epsilon,
                                                       cfg.rules_games, guide.value, cfg.guide_epsilon, cfg.target)
            batch = (obs, actions, targets, np.full(len(actions), NO_REFERENCE, np.int64), played)
        while not stop.is_set() and os.getppid() == parent:
            try:
                out_queue.put(batch, timeout=1.0)
                break
            except queue_module.Full:
                continue


# ----------------------------------------------------------------------------- 2-3. learner
class ReplayBuffer:
    """A ring of the latest samples (information state, action, target, and the
    move a gain is measured from); uniform sampling."""

    def __init__(self, capacity: int, obs_size: int):
        self.obs = np.zeros((capacity, obs_size), np.float16)
        self.actions = np.zeros(capacity, np.int64)
        self.returns = np.zeros(capacity, np.float32)
        self.references = np.full(capacity, NO_REFERENCE, np.int64)
        self.capacity = capacity
        self.size = 0
        self.next = 0

    def add(self, obs: np.ndarray, actions: np.ndarray, returns: np.ndarray, references: np.ndarray) -> None:
        for start in range(0, len(actions), self.capacity):
            o, a, r, b = (x[start:start + self.capacity] for x in (obs, actions, returns, references))
            idx = (self.next + np.arange(len(a))) % self.capacity
            self.obs[idx], self.actions[idx], self.returns[idx], self.references[idx] = o, a, r, b
            self.next = int((self.next + len(a)) % self.capacity)
            self.size = min(self.capacity, self.size + len(a))

    def sample(self, batch: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        idx = rng.integers(0, self.size, batch)
        return self.obs[idx].astype(np.float32), self.actions[idx], self.returns[idx], self.references[idx]


def train_step(net: PolicyValueNet, optimizer: torch.optim.Optimizer, obs: torch.Tensor,
               actions: torch.Tensor, returns: torch.Tensor, value_too: bool = True,
               references: torch.Tensor | None = None) -> float:
    """One regression step of the taken action's score, and of the value where
    the targets are returns (an advantage is not the position's value), on the
    target. With `references` (relative scores), the regressed quantity is the
    taken action's score less the reference move's: a gain over that move."""
    scores, value = net.action_values(obs)
    taken = scores.gather(1, actions.unsqueeze(1)).squeeze(1)
    if references is not None:
        taken = taken - scores.gather(1, references.unsqueeze(1)).squeeze(1)
    loss = torch.nn.functional.mse_loss(taken, returns)
    if value_too:
        loss = loss + torch.nn.functional.mse_loss(value, returns)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(net.parameters(), 10.0)
    optimizer.step()
    return loss.item()


# ----------------------------------------------------------------------------- 5. checkpoints
def save_checkpoint(path: Path, net: PolicyValueNet, optimizer: torch.optim.Optimizer,
                    cfg: TrainConfig, stats: dict, averaged: PolicyValueNet | None = None) -> None:
    """Everything to resume: weights (and their moving average), optimizer,
    config and counters; plain data only, so it reads back with
    torch.load(weights_only=True)."""
    tmp = path.with_suffix(".tmp")
    extra = {} if averaged is None else {"ema": {k: v.cpu() for k, v in averaged.state_dict().items()}}
    torch.save({**extra, "model": {k: v.cpu() for k, v in net.state_dict().items()},
                "optimizer": optimizer.state_dict(),
                "config": dataclasses.asdict(cfg),
                "network": net.config.to_json(),
                "input_size": net.input_size,
                "num_actions": net.num_actions,
                "stats": stats}, tmp)
    tmp.replace(path)     # never leave a half-written checkpoint


def load_checkpoint(path: str | Path) -> dict:
    """A training checkpoint, read without unpickling anything but plain data,
    its declared network checked against the weights it holds."""
    try:
        ckpt = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # torch raises several kinds for a bad or unsafe file
        raise ValueError(f"cannot read training checkpoint {path}: {e}") from e
    checkpoint_network(ckpt, f"checkpoint {path}")
    return ckpt


def checkpoint_network(ckpt: object, where: str) -> NetworkConfig:
    """A checkpoint's network config, its declared sizes (input, actions, layers)
    checked against the weights it stores, and their moving average's, by
    arithmetic: nothing is built for a size the checkpoint only declares."""
    if not isinstance(ckpt, dict):
        raise ValueError(f"{where}: not a training checkpoint (no dict of fields)")
    sizes = ckpt.get("input_size"), ckpt.get("num_actions")
    if not all(isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= MAX_TENSOR_SIZE for n in sizes):
        raise ValueError(f"{where}: its input_size and num_actions must be integers from 1 to {MAX_TENSOR_SIZE}")
    try:
        config = NetworkConfig.from_json(ckpt.get("network"))
    except (ValueError, TypeError) as e:
        raise ValueError(f"{where}: its network is not a network config: {e}") from None
    expected = parameter_shapes(*sizes, config)
    for key in ("model", "ema"):
        state = ckpt.get(key)
        if state is None and key == "ema":       # a run without a moving average
            continue
        found = ({name: tuple(t.shape) if isinstance(t, torch.Tensor) else None for name, t in state.items()}
                 if isinstance(state, dict) else None)
        if found != expected:
            raise ValueError(f"{where}: its {key} weights do not match its declared network "
                             f"({sizes[0]} inputs, {sizes[1]} actions, layers {config.hidden})")
    return config


def network_from_checkpoint(ckpt: dict, averaged: bool = False) -> PolicyValueNet:
    """The learner's network, or with `averaged` the weights' moving average
    where the run kept one (the policy that is evaluated and exported)."""
    net = PolicyValueNet(ckpt["input_size"], ckpt["num_actions"], checkpoint_network(ckpt, "checkpoint"))
    net.load_state_dict(ckpt["ema"] if averaged and "ema" in ckpt else ckpt["model"])
    return net


def learner_device(name: object) -> torch.device:
    """The learner's device (`--device`), refused with one line where it is not
    one, or torch here cannot use it (no CUDA build, no GPU, no such GPU)."""
    if not isinstance(name, str) or re.fullmatch(LEARNER_DEVICES, name) is None:
        raise ValueError(f"device={name!r}: the learner runs on cpu, cuda or cuda:N")
    device = torch.device(name)
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device={name!r}: torch here has no CUDA device (a CPU build, or no GPU); "
                         f"use --device cpu")
    if device.type == "cuda" and (device.index or 0) >= torch.cuda.device_count():
        raise ValueError(f"device={name!r}: torch here sees {torch.cuda.device_count()} CUDA device(s), "
                         f"numbered from 0")
    return device


def update_average(averaged: PolicyValueNet, net: PolicyValueNet, decay: float) -> None:
    """averaged <- decay * averaged + (1 - decay) * net, weight by weight."""
    with torch.no_grad():
        for a, p in zip(averaged.parameters(), net.parameters()):
            a.lerp_(p, 1.0 - decay)


def append_curve(out: Path, row: dict, fields: list[str] = CSV_FIELDS) -> None:
    """A row of the run's curve.csv (`fields`: its columns; expert iteration has its own)."""
    path = out / CURVE_CSV
    new = not path.exists()
    with open(path, "a", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=fields)
        if new:
            writer.writeheader()
        writer.writerow(row)


def plot_curve(csv_path: Path, png_path: Path, title: str, rated: str = "network (greedy)") -> None:
    """Mean return and Elo against the rule-based bot, with 95% intervals, over
    training time on 2 cores (CPU minutes of learner and actors / 2): on a
    shared machine wall time says more about the neighbours than the training.
    `rated` names the bot rated (a network of advantages plays over its baseline)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    with open(csv_path) as f:
        rows = list(csv.DictReader(f))
    if not rows:
        return
    x = np.array([float(r["cpu_minutes"]) / 2 for r in rows])
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    for ax, key, low, high, label in ((axes[0], "mean_return", "return_low", "return_high",
                                       "mean return per seat"),
                                      (axes[1], "elo", "elo_low", "elo_high", "Elo over the rule bot")):
        y, lo, hi = (np.array([float(r[k]) for r in rows]) for k in (key, low, high))
        ax.plot(x, y, marker="o", ms=3, label=textwrap.fill(rated, 40))
        ax.fill_between(x, lo, hi, alpha=0.25, label="95% interval")
        ax.axhline(0.0, color="grey", ls="--", lw=1, label="even with the rule bot")
        ax.set_xlabel("training minutes on 2 cores (CPU minutes / 2)")
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.suptitle(f"{title}: vs the rule-based bot, tournament harness on duplicate deals "
                 f"({rows[-1]['eval_games']} games per point); {int(float(rows[-1]['games'])):,} "
                 f"training deals", fontsize=9)
    fig.tight_layout()
    fig.savefig(png_path, dpi=110)
    plt.close(fig)


class CpuClock:
    """CPU seconds used by the learner and the actors, and by earlier runs
    resumed from: on a shared machine, the honest measure of training cost."""

    def __init__(self, actor_pids: list[int], before: float):
        self.pids = actor_pids
        self.before = before - time.process_time()
        self.actor_s = dict.fromkeys(actor_pids, 0.0)

    def seconds(self) -> float:
        for pid in self.pids:
            try:
                with open(f"/proc/{pid}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                self.actor_s[pid] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
            except (OSError, IndexError, ValueError):
                pass          # no /proc (not Linux) or the actor has exited: keep the last reading
        return self.before + time.process_time() + sum(self.actor_s.values())


# ----------------------------------------------------------------------------- the loop
def initial_network(cfg: TrainConfig) -> PolicyValueNet:
    """A new run's network: random weights in the game's layers, or those of the
    bot file `cfg.init` (a network trained before, trained longer). The file's
    scores must mean what the run learns: returns for deep Monte-Carlo, the gain
    over the same baseline's move for `target=advantage` (a run continued past its
    lost checkpoint, at a lower learning rate, on fresh playouts). A network of
    gains may start a `relative` run (a gain is a relative score whose
    baseline's move scores 0); relative scores never start a run of gains."""
    game = pyspiel.load_game(cfg.game)
    identity = GameIdentity.of(game)
    if not cfg.init:
        return PolicyValueNet(identity.tensor_size, identity.num_actions, cfg.network_config(identity.short_name))
    bot = load_bot(cfg.init, identity, strict_params=True)
    baseline = None if bot.baseline is None else bot.baseline.spec
    relative = bool(bot.training.get("relative", False))
    wanted = cfg.baseline if cfg.target == "advantage" else None
    # The same baseline bot: its name and settings, and a neural one's file by content (the
    # bot file names its own copy of it, beside it).
    same = (bot.baseline is None if wanted is None else
            bot.baseline is not None and bot.baseline.key() == writer_baseline(wanted, identity).key())
    if not same or (relative and not cfg.relative):
        kind = "relative scores whose differences are the gains" if relative else "their gain"
        scores = "their returns" if baseline is None else f"{kind} over the {baseline!r} bot's move"
        learns = ("returns" if wanted is None else
                  f"{'relative scores' if cfg.relative else 'gains'} over the {wanted!r} bot's move")
        raise ValueError(f"--init {cfg.init}: its network scores moves by {scores}, and this run learns {learns}")
    return copy.deepcopy(bot.net)


def train(cfg: TrainConfig, resume: str | Path | None = None, progress: bool = True) -> Path:
    """Trains until cfg.minutes of training time; returns the checkpoint path."""
    device = learner_device(cfg.device)
    if cfg.target == "advantage":
        check_recordable(cfg.baseline, GameIdentity.of(pyspiel.load_game(cfg.game)))
        advantage.check_bots(pyspiel.load_game(cfg.game), cfg.baseline, cfg.opponents, cfg.positions)
    eval_play(cfg)
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(cfg.seed)
    game = pyspiel.load_game(cfg.game)
    identity = GameIdentity.of(game)
    stats = {"elapsed_s": 0.0, "cpu_s": 0.0, "games": 0, "samples": 0, "steps": 0}
    ckpt = None
    if resume is not None:
        ckpt = load_checkpoint(resume)
        if str(pyspiel.load_game(ckpt["config"]["game"])) != str(game):
            raise ValueError(f"checkpoint {resume} is for {ckpt['config']['game']}, not {cfg.game}")
        stats.update(ckpt["stats"])
        net = network_from_checkpoint(ckpt)
    else:
        net = initial_network(cfg)
    if device.type == "cpu":
        torch.set_num_threads(1)     # the actors have the other cores
    net.to(device)
    averaged = None
    if cfg.ema:
        averaged = network_from_checkpoint(ckpt, averaged=True) if ckpt is not None else copy.deepcopy(net)
        averaged.to(device)
    optimizer = torch.optim.Adam(net.parameters(), lr=cfg.lr)
    if ckpt is not None:
        optimizer.load_state_dict(ckpt["optimizer"])

    ctx = mp.get_context("spawn")
    shared = PolicyValueNet(net.input_size, net.num_actions, net.config)
    shared.load_state_dict({k: v.cpu() for k, v in net.state_dict().items()})
    shared.share_memory()
    # Plain shared numbers (no lock of their own) and one lock that the actors
    # take with a timeout: a learner killed while holding a lock must not leave
    # its actors waiting for it for ever.
    version, lock, stop = ctx.RawValue("l", 0), ctx.Lock(), ctx.Event()
    guide = ctx.RawValue("d", cfg.guide_at(stats["elapsed_s"]))
    samples_queue = ctx.Queue(maxsize=4 * max(1, cfg.actors))
    actors = [ctx.Process(target=actor_main, args=(i, cfg, stats["games"], shared, version, lock,
                                                   guide, samples_queue, stop, os.getpid()),
                          daemon=True) for i in range(cfg.actors)]
    for p in actors:
        p.start()

    buffer = ReplayBuffer(cfg.buffer_size, identity.tensor_size)
    symmetry = symmetry_for(game, InfoStateEncoder(game).observer) if cfg.symmetry else None
    np_rng = np.random.default_rng([cfg.seed, stats["steps"]])
    received = trained = 0   # samples received and trained on in this run: the replay ratio
    losses: list[float] = []

    def take_samples(wait: bool) -> bool:
        nonlocal received
        try:
            obs, actions, rets, references, n_games = (samples_queue.get(timeout=0.05) if wait
                                                       else samples_queue.get_nowait())
        except queue_module.Empty:
            return False
        buffer.add(obs, actions, rets, references)
        received += len(actions)
        stats["samples"] += len(actions)
        stats["games"] += n_games
        return True

    while not take_samples(wait=True):     # the clock starts once the actors are up
        _check_actors(actors)
    start = time.perf_counter() - stats["elapsed_s"]
    cpu_clock = CpuClock([p.pid for p in actors], stats["cpu_s"])
    next_checkpoint = stats["elapsed_s"] + cfg.checkpoint_minutes * 60
    total = round(cfg.minutes * 60)
    bar = tqdm(total=total, initial=min(round(stats["elapsed_s"]), total), unit="s",
               desc="training", mininterval=2.0, disable=not progress)
    last_eval = ""
    try:
        while (elapsed := time.perf_counter() - start) < cfg.minutes * 60:
            bar.update(min(round(elapsed), total) - bar.n)
            guide.value = cfg.guide_at(elapsed)
            while take_samples(wait=False):
                pass
            if buffer.size < 4 * cfg.batch_size or trained + cfg.batch_size > received * cfg.replay_ratio:
                if not take_samples(wait=True):      # starved: wait for the actors
                    _check_actors(actors)
                continue
            for group in optimizer.param_groups:
                group["lr"] = cfg.lr_at(elapsed)
            o, a, r, b = buffer.sample(cfg.batch_size, np_rng)
            if symmetry is not None:
                o, a, b = symmetry.augment(o, a, np_rng, b)
            losses.append(train_step(net, optimizer, torch.from_numpy(o).to(device),
                                     torch.from_numpy(a).to(device), torch.from_numpy(r).to(device),
                                     value_too=cfg.target != "advantage",
                                     references=torch.from_numpy(b).to(device) if cfg.relative else None))
            if averaged is not None:
                update_average(averaged, net, cfg.ema)
            trained += cfg.batch_size
            stats["steps"] += 1
            if stats["steps"] % cfg.sync_steps == 0:
                with lock:
                    shared.load_state_dict({k: v.cpu() for k, v in net.state_dict().items()})
                    version.value += 1
            if elapsed >= next_checkpoint:
                last_eval = _checkpoint_and_evaluate(out, net, optimizer, cfg, stats, start, cpu_clock, losses,
                                                     game, averaged)
                losses = []
                next_checkpoint = stats["elapsed_s"] + cfg.checkpoint_minutes * 60
            if stats["steps"] % 20 == 0:
                bar.set_postfix_str(f"games {stats['games']:,} loss "
                                    f"{np.mean(losses[-50:]) if losses else math.nan:.3f} {last_eval}")
    finally:
        cpu_clock.seconds()      # the actors' last reading, before they exit
        stop.set()
        for p in actors:
            p.join(timeout=10)
            if p.is_alive():
                p.terminate()
        bar.close()
    _checkpoint_and_evaluate(out, net, optimizer, cfg, stats, start, cpu_clock, losses, game, averaged)
    return out / CHECKPOINT_NAME


def _check_actors(actors: list) -> None:
    dead = [p.exitcode for p in actors if p.exitcode not in (None, 0)]
    if dead:
        raise RuntimeError(f"an actor process died (exit code {dead[0]}); see its traceback above")


def _checkpoint_and_evaluate(out: Path, net: PolicyValueNet, optimizer: torch.optim.Optimizer,
                             cfg: TrainConfig, stats: dict, start: float, cpu_clock: "CpuClock",
                             losses: list[float], game: pyspiel.Game,
                             averaged: PolicyValueNet | None = None) -> str:
    stats["elapsed_s"] = time.perf_counter() - start
    stats["cpu_s"] = cpu_clock.seconds()
    save_checkpoint(out / CHECKPOINT_NAME, net, optimizer, cfg, stats, averaged)
    cpu_net = PolicyValueNet(net.input_size, net.num_actions, net.config)
    cpu_net.load_state_dict({k: v.cpu() for k, v in (averaged or net).state_dict().items()})
    cpu_net.eval()
    # A bot file of every point: the harness plays it here, and experiments/neural_curve.py can rate
    # it again on many more deals.
    snapshot = save_bot(out / SNAPSHOTS / f"{stats['cpu_s'] / 120:06.1f}min_{stats['games']}games.safetensors",
                        cpu_net, GameIdentity.of(game),
                        {**scores_notes(cfg.target, cfg.baseline, cfg.relative), "games": stats["games"],
                         "cpu_minutes": round(stats["cpu_s"] / 60, 3),
                         **({"play": eval_play(cfg)} if cfg.eval_play else {})})
    # The same deals at every point: differences between points are then the network's.
    r = harness_match(game, snapshot, "rules", cfg.eval_deals, cfg.seed * 1_000 + 1, out)
    append_curve(out, {"minutes": round(stats["elapsed_s"] / 60, 3),
                       "cpu_minutes": round(stats["cpu_s"] / 60, 3), "games": stats["games"],
                       "samples": stats["samples"], "steps": stats["steps"],
                       "loss": round(float(np.mean(losses)), 5) if losses else math.nan,
                       "eval_games": r.games, "mean_return": round(r.mean_return, 5),
                       "return_low": round(r.return_low, 5), "return_high": round(r.return_high, 5),
                       "elo": round(r.elo, 1), "elo_low": round(r.elo_low, 1), "elo_high": round(r.elo_high, 1)})
    plot_curve(out / CURVE_CSV, out / CURVE_PNG, cfg.game, curve_label(cfg))
    return f"vs rules {r.mean_return:+.3f} [{r.return_low:+.3f}, {r.return_high:+.3f}]"


def curve_label(cfg: TrainConfig) -> str:
    """What the curve rates: the greedy network, or its moves over its baseline's."""
    if cfg.target != "advantage":
        return "network (greedy)"
    path = parse_spec(cfg.baseline)[1].get("path")
    baseline = f"{Path(path).parent.name}/{Path(path).stem}" if path else cfg.baseline
    return f"network, margin {eval_play(cfg).get('margin', DEFAULT_MARGIN)} over {baseline}"


def eval_play(cfg: TrainConfig) -> dict:
    """The play settings the evaluations rate each snapshot at (`eval_play`),
    checked as a bot file's would be: a bad one is refused before the run starts."""
    if not cfg.eval_play:
        return {}
    try:
        settings = parse_spec(f"neural({cfg.eval_play})")[1]
    except ValueError as e:
        raise ValueError(f"eval_play={cfg.eval_play!r}: {e}") from None
    play_settings(settings, f"eval_play={cfg.eval_play!r}")
    return settings


def check_recordable(baseline: str, identity: GameIdentity) -> None:
    """Refuses, before a run starts, a baseline its bot files could not name
    (botfile.BASELINE_BOTS with plain settings: what a file names is never a
    program or a search whose settings name other bots and files)."""
    try:
        writer_baseline(baseline, identity)
    except ValueError as e:
        raise ValueError(f"baseline={baseline!r}: {e}") from None


def scores_notes(target: str, baseline: str = "rules", relative: bool = False) -> dict:
    """What a bot file must say for its scores to be read right: a network trained
    on advantages scores moves against a baseline bot's, each score the gain
    itself or, `relative`, the gain plus one number a position (agents/neural/bot.py)."""
    if target != "advantage":
        return {}
    return {"baseline": baseline, **({"relative": True} if relative else {})}


def export(checkpoint: str | Path, out: str | Path, onnx: bool = True, play: dict | None = None) -> list[Path]:
    """Writes the bot file (and its ONNX twin) of a training checkpoint; `play`:
    the bot's default settings (agents/neural/bot.py), e.g. the margin it was measured with."""
    if play:
        play_settings(play, "export --play")
    ckpt = load_checkpoint(checkpoint)
    game = load_game(ckpt["config"]["game"])
    identity = GameIdentity.of(game)
    if (ckpt["input_size"], ckpt["num_actions"]) != (identity.tensor_size, identity.num_actions):
        raise ValueError(f"checkpoint {checkpoint}: its network takes {ckpt['input_size']} inputs and "
                         f"{ckpt['num_actions']} actions; its game {game} has {identity.tensor_size} and "
                         f"{identity.num_actions}")
    net = network_from_checkpoint(ckpt, averaged=True)
    net.eval()
    target = ckpt["config"].get("target", "return")
    baseline = ckpt["config"].get("baseline", "rules")
    relative = ckpt["config"].get("relative", False)
    if target == "advantage":            # the checkpoint's baseline goes into the bot file: checked first
        try:
            check_recordable(baseline, identity)
        except ValueError as e:
            raise ValueError(f"checkpoint {checkpoint}: {e}") from None
    method = (f"one step of policy improvement over {baseline} (training/advantage.py)"
              if target == "advantage" else "deep Monte-Carlo self-play")
    training = {"method": method, "games": ckpt["stats"].get("games"),
                "minutes": round(float(ckpt["stats"].get("elapsed_s", 0)) / 60, 1),
                "config": {k: v for k, v in ckpt["config"].items() if k not in ("out",)},
                **scores_notes(target, baseline, relative), **({"play": play} if play else {})}
    written = [save_bot(out, net, identity, training)]
    if onnx:
        from training.onnx_export import export_onnx
        written.append(export_onnx(written[0], Path(out).with_suffix(".onnx")))
    return written

