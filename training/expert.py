"""Expert iteration (Anthony, Tian and Barber 2017; AlphaZero's loop): a network
that learns from the search it guides, in one file.

Read it top to bottom:

0. Start from a bot file (default: the game's shipped network) and rate it
   (step 4): the curve's first point.
1. **Search games.** `--games` games in which every seat is the search bot
   `--search` with the current network as its prior (`prior=<bot file>`,
   agents/neural/prior.py), or with `--teacher`'s bot file at every iteration
   (distillation from a fixed teacher: the search does not weaken as the
   network it learns into sharpens), each deal drawn by games.chance.DealChance from a
   seed derived from (`--seed`, iteration, game), the bots seeded likewise, in
   `--workers` processes. At each decision with a choice the search's root
   statistics (SearchBot.search: each root action's visits and return sum)
   become a sample: the mover's information-state tensor (InfoStateEncoder:
   the mover's information only), the legal actions, each legal action's share
   of the root visits and mean return (divided by the game's return scale, the
   scale of the network's scores, dmc.return_scale), the root's mean return,
   the action the search played (its most visited) and, once the game ends,
   the mover's return.
2. **Training**, from the current weights, on the samples of the last
   `--replay` iterations: each visited root action's score regressed on the
   search's mean return for it, weighted by its share of the visits, and the
   value on the root's mean return (mean squared errors, Adam). With
   `--outcome-mix M` the played action's target and the value's are
   (1 - M) * the search's value + M * the game's return (AlphaZero's z against
   its q). With `--policy-weight`, also the cross-entropy of the visit shares
   against the softmax of the scores (the prior the search reads: its move
   choices, AlphaZero's policy target). Each sample is relabelled by a random suit permutation as it is
   drawn where the game has the symmetry (agents/neural/symmetry.py).
3. **The bot file** `OUT/iter_K.safetensors` (botfile.save_bot; the samples in
   `OUT/samples_K.npz`), its metadata
   naming the training: expert iteration, the search spec, the iteration, the
   games and samples.
4. **Rating**: the bot file against the rule bot in the tournament harness
   (training/evaluate.harness_match) on the same `--eval-deals` duplicate
   deals at every iteration (tournament seed `--seed`), a row of
   `OUT/curve.csv` and the plot `OUT/curve.png`. The curve's time is CPU minutes
   of search games and training (the ratings not counted).

`python -m training.expert --help` is the command; docs/neural.md has the
runs and figures.
"""

from __future__ import annotations

import argparse
import csv
import math
import multiprocessing
import resource
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

CURVE_CSV = "curve.csv"
CURVE_PNG = "curve.png"
CSV_FIELDS = ["iteration", "cpu_minutes", "games", "samples", "loss_before", "loss_after", "eval_games",
              "elo", "elo_low", "elo_high", "mean_return", "return_low", "return_high"]
SEARCHES = ("ismcts", "pimc")
# Settings under which the searcher's move is not its most visited root action, so that its
# root statistics would not say what it played.
NOT_MOST_VISITED = {"baseline": "a baseline's move", "flat": "paired values of a flat search",
                    "root": "paired root rounds"}


# ----------------------------------------------------------------------------- 1. search games
@dataclass
class Samples:
    """One row per decision with a choice (see the module docstring, step 1)."""

    obs: np.ndarray          # [n, tensor] float16: the mover's information-state tensor
    legal: np.ndarray        # [n, actions] bool
    share: np.ndarray        # [n, actions] float32: each action's share of the root visits
    value: np.ndarray        # [n, actions] float32: each visited action's mean return, scaled
    root: np.ndarray         # [n] float32: the root's mean return, scaled
    played: np.ndarray       # [n] int64: the search's move
    outcome: np.ndarray      # [n] float32: the mover's return at the end of the game, scaled

    @staticmethod
    def concat(parts: list["Samples"]) -> "Samples":
        return Samples(*(np.concatenate([getattr(p, f) for p in parts]) for f in Samples.__dataclass_fields__))

    def __len__(self) -> int:
        return len(self.played)


def search_spec(search: str, prior: Path) -> str:
    """`search` with the current network as its prior: ismcts(iterations=200) -> ismcts(iterations=200,prior=P)."""
    from games.spec import parse_spec
    name, settings = parse_spec(search)
    inner = search[search.index("(") + 1:search.rindex(")")].strip() if "(" in search else ""
    if name not in SEARCHES:
        raise ValueError(f"--search {search!r}: must be one of {', '.join(SEARCHES)} (a fair search; the "
                         f"network learns what it chose)")
    if "prior" in settings:
        raise ValueError(f"--search {search!r}: leave prior out; the search's prior is the current network")
    for key, why in NOT_MOST_VISITED.items():
        if key in settings and not (key == "flat" and settings[key] is False) and not (
                key == "root" and settings[key] == "ucb"):
            raise ValueError(f"--search {search!r}: {key}= makes the move {why}, not the most visited "
                             f"root action the samples describe; leave it out")
    return f"{name}({inner + ',' if inner else ''}prior={prior})"


def decision_sample(bot, state, encoder, scale: float) -> tuple[int, tuple]:
    """The search's move at `state` (its player to move, with several legal actions)
    and the sample its root statistics make, without the outcome."""
    from search.mcts import most_visited
    player, legal = state.current_player(), state.legal_actions()
    edges = bot.search(state)
    obs = np.zeros(encoder.size, np.float32)
    mask = np.zeros(encoder.num_actions, np.float32)
    encoder.encode(state, player, legal, obs, mask)
    share = np.zeros(encoder.num_actions, np.float32)
    value = np.zeros(encoder.num_actions, np.float32)
    visits = sum(e[0] for e in edges.values())
    for a, e in edges.items():
        if e[0]:
            share[a] = e[0] / visits
            value[a] = e[1] / e[0] / scale
    root = sum(e[1] for e in edges.values()) / visits / scale
    return most_visited(edges), (obs.astype(np.float16), mask > 0, share, value, np.float32(root))


def play_search_game(game, spec: str, deal_seed: int, bot_seed: int, mover: str = "") -> tuple[list, list[float]]:
    """One game of `spec` in every seat on the deal `deal_seed`; returns the samples
    (without outcomes) with their movers, and the game's returns. With `mover` (a bot
    spec) that bot makes every move and the search only labels each decision (DAgger:
    the samples come from the positions the network being trained reaches)."""
    from agents import make_bot
    from agents.base import rules_core
    from agents.neural.encoding import InfoStateEncoder
    from games.chance import DealChance
    from training.dmc import return_scale
    encoder = InfoStateEncoder(game)
    scale = return_scale(game)
    bots = [make_bot(spec, game, seat, bot_seed + seat) for seat in range(game.num_players())]
    movers = [make_bot(mover, game, seat, bot_seed + seat) for seat in range(game.num_players())] if mover else []
    state = rules_core(game.new_initial_state())
    chance = DealChance(deal_seed)
    rows = []
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(chance(state))
            continue
        player, legal = state.current_player(), state.legal_actions()
        if len(legal) == 1:
            action = legal[0]
        else:
            action, row = decision_sample(bots[player], state, encoder, scale)
            rows.append((player, row, action))
            if movers:
                action = movers[player].step(state)
        state.apply_action(action)
    return rows, [r / scale for r in state.returns()]


def _play_games(job: tuple[str, str, list[tuple[int, int]], str]) -> Samples:
    """A worker's share of an iteration's games: (game string, spec, [(deal seed, bot seed)], mover)."""
    import pyspiel

    import games  # noqa: F401  (registers our games)
    game_string, spec, seeds, mover = job
    game = pyspiel.load_game(game_string)
    parts = [_game_samples(*play_search_game(game, spec, d, b, mover)) for d, b in seeds]
    return Samples.concat(parts)


def _game_samples(rows: list, returns: list[float]) -> Samples:
    obs, legal, share, value, root = (np.stack([r[1][i] for r in rows]) for i in range(5))
    return Samples(obs, legal, share, value, root.astype(np.float32), np.array([r[2] for r in rows], np.int64),
                   np.array([returns[r[0]] for r in rows], np.float32))


def search_games(game, spec: str, games: int, seed: int, iteration: int, workers: int,
                 progress: bool = True, mover: str = "") -> Samples:
    """Step 1: `games` games of `spec` in every seat, in `workers` processes; the
    same samples whatever the number of workers (every game is seeded by its index)."""
    from tqdm import tqdm

    from games.seeding import derive_seed
    seeds = [(derive_seed(seed, iteration, i, 0), derive_seed(seed, iteration, i, 1) % (1 << 30))
             for i in range(games)]
    jobs = [(str(game), spec, [s], mover) for s in seeds]
    bar = tqdm(total=games, desc=f"iteration {iteration}: search games", unit="game", disable=not progress,
               mininterval=2.0)
    parts = []
    if workers == 1:
        for job in jobs:
            parts.append(_play_games(job))
            bar.update()
    else:
        with multiprocessing.get_context("spawn").Pool(workers) as pool:
            for part in pool.imap(_play_games, jobs, chunksize=4):
                parts.append(part)
                bar.update()
    bar.close()
    return Samples.concat(parts)


# ----------------------------------------------------------------------------- 2. training
def targets(samples: Samples, outcome_mix: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(per-action targets, their weights, value targets): the search's values, the
    played action's and the root's mixed with the game's return by `outcome_mix`."""
    value = samples.value.copy()
    rows = np.arange(len(samples))
    value[rows, samples.played] = ((1 - outcome_mix) * value[rows, samples.played]
                                   + outcome_mix * samples.outcome)
    root = (1 - outcome_mix) * samples.root + outcome_mix * samples.outcome
    return value, samples.share, root.astype(np.float32)


def expert_loss(net, obs, value, weight, root, legal, policy_weight: float = 0.0, temperature: float = 0.1):
    """Visit-weighted squared error of the scores against the search's values, the
    value head's squared error against the root's value, and with `policy_weight`
    the cross-entropy of the search's visit shares against the softmax of the
    scores / `temperature` over the legal actions (the search's prior,
    agents/neural/prior.py): the search's move choices, AlphaZero's policy loss."""
    import torch
    scores, v = net.action_values(obs)
    loss = (weight * (scores - value) ** 2).sum(1).mean() + torch.mean((v - root) ** 2)
    if policy_weight:
        logits = torch.where(legal > 0, scores / temperature, torch.full_like(scores, -1e9))
        loss = loss - policy_weight * (weight * torch.log_softmax(logits, dim=1)).sum(1).mean()
    return loss


def relabel(symmetry, obs: np.ndarray, per_action: list[np.ndarray], rng: np.random.Generator):
    """Each row relabelled by a random suit permutation: the tensor positions, and
    the action axis of every per-action array."""
    p = rng.integers(0, len(symmetry.perms), len(obs))
    obs = np.take_along_axis(obs, symmetry.obs_index[p], axis=1)
    rows = np.arange(len(obs))[:, None]
    moved = []
    for array in per_action:
        out = np.zeros_like(array)
        out[rows, symmetry.action_index[p]] = array
        moved.append(out)
    return obs, moved


def evaluate_loss(net, samples: Samples, outcome_mix: float, policy_weight: float = 0.0) -> float:
    """The training loss on `samples`, unrelabelled, with no gradient."""
    import torch
    value, weight, root = targets(samples, outcome_mix)
    with torch.no_grad():
        return float(expert_loss(net, torch.from_numpy(samples.obs.astype(np.float32)), torch.from_numpy(value),
                                 torch.from_numpy(weight), torch.from_numpy(root),
                                 torch.from_numpy(samples.legal.astype(np.float32)), policy_weight))


def train(net, optimizer, samples: Samples, epochs: float, batch: int, outcome_mix: float, symmetry,
          rng: np.random.Generator, progress: bool = True, policy_weight: float = 0.0) -> list[float]:
    """Step 2: `epochs` passes' worth of random minibatches over `samples`; the losses."""
    import torch
    from tqdm import tqdm
    value, weight, root = targets(samples, outcome_mix)
    steps = max(1, math.ceil(epochs * len(samples) / batch))
    net.train()
    losses = []
    for _ in tqdm(range(steps), desc="training", unit="step", disable=not progress, mininterval=2.0):
        idx = rng.integers(0, len(samples), batch)
        obs, v, w = samples.obs[idx].astype(np.float32), value[idx], weight[idx]
        legal = samples.legal[idx].astype(np.float32)
        if symmetry is not None:
            obs, (v, w, legal) = relabel(symmetry, obs, [v, w, legal], rng)
        loss = expert_loss(net, torch.from_numpy(obs), torch.from_numpy(v), torch.from_numpy(w),
                           torch.from_numpy(root[idx]), torch.from_numpy(legal), policy_weight)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(net.parameters(), 10.0)
        optimizer.step()
        losses.append(loss.item())
    net.eval()
    return losses


# ----------------------------------------------------------------------------- 4. the curve
def plot_curve(csv_path: Path, png_path: Path, title: str) -> None:
    """Elo and mean return over the rule bot, with 95% intervals, against CPU
    minutes of search games and training (one core), each point labelled by its iteration."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    with open(csv_path) as f:
        rows = list(csv.DictReader(f))
    if not rows:
        return
    x = np.array([float(r["cpu_minutes"]) for r in rows])
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    for ax, key, label in ((axes[0], "elo", "Elo over the rule bot"),
                           (axes[1], "mean_return", "mean return per seat")):
        low, high = ("elo_low", "elo_high") if key == "elo" else ("return_low", "return_high")
        y, lo, hi = (np.array([float(r[k]) for r in rows]) for k in (key, low, high))
        ax.errorbar(x, y, yerr=[y - lo, hi - y], marker="o", ms=4, capsize=3, label="network (greedy)")
        for xi, yi, r in zip(x, y, rows):
            ax.annotate(r["iteration"], (xi, yi), textcoords="offset points", xytext=(4, 4), fontsize=7)
        ax.axhline(0.0, color="grey", ls="--", lw=1, label="even with the rule bot")
        ax.set_xlabel("CPU minutes of search games and training (one core)")
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.suptitle(f"{title}\nexpert iteration: each point the iteration's network against the rule bot, "
                 f"the same {rows[-1]['eval_games']} harness games", fontsize=9)
    fig.tight_layout()
    fig.savefig(png_path, dpi=110)
    plt.close(fig)


def curve_title(cfg: "ExpertConfig") -> str:
    """The plot's title: the game, the search, and the variant where it is not plain expert iteration."""
    variant = (f", prior fixed: {cfg.teacher}" if cfg.teacher else "") + (
        ", the network moving (DAgger)" if cfg.play == "network" else "")
    return f"{cfg.game}, search {cfg.search}{variant}"


def _cpu_seconds() -> float:
    """CPU seconds of this process and of its finished worker processes."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


# ----------------------------------------------------------------------------- the loop
@dataclass(frozen=True)
class ExpertConfig:
    game: str
    start: str
    search: str
    iterations: int
    games: int
    workers: int
    eval_deals: int
    seed: int
    out: str
    replay: int = 3
    epochs: float = 4.0
    batch: int = 256
    lr: float = 3e-5
    outcome_mix: float = 0.0
    symmetry: bool = True
    policy_weight: float = 0.0
    teacher: str = ""          # a bot file: the search's prior at every iteration; "": the current network
    play: str = "search"       # who moves in the search games: "search", or "network" (DAgger)


def run(cfg: ExpertConfig, progress: bool = True) -> Path:
    """Runs cfg.iterations iterations; returns the last bot file."""
    import pyspiel
    import torch

    import games  # noqa: F401  (registers our games)
    from agents import make_bot
    from agents.neural.botfile import load_bot, save_bot, shipped_bot_path
    from agents.neural.encoding import GameIdentity, InfoStateEncoder
    from agents.neural.symmetry import symmetry_for
    from training.dmc import append_curve
    from training.evaluate import harness_match

    torch.set_num_threads(1)
    torch.manual_seed(cfg.seed)
    game = pyspiel.load_game(cfg.game)
    identity = GameIdentity.of(game)
    start = shipped_bot_path(identity.short_name) if cfg.start in ("", "shipped") else Path(cfg.start)
    teacher = Path(cfg.teacher) if cfg.teacher else None
    bot = load_bot(start, identity)
    priors = [("--start", start, bot)] + ([("--teacher", teacher, load_bot(teacher, identity))] if teacher else [])
    for flag, path, file in priors:
        if file.baseline is not None:
            raise ValueError(f"{flag} {path}: its network scores gains over the {file.baseline.spec!r} bot's moves, "
                             f"not values, so it cannot be a search's prior")
    make_bot(search_spec(cfg.search, teacher or start), game, 0, 0)   # a bad setting is refused before any game
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    net = bot.net
    optimizer = torch.optim.Adam(net.parameters(), lr=cfg.lr)
    symmetry = symmetry_for(game, InfoStateEncoder(game).observer) if cfg.symmetry else None
    rng = np.random.default_rng(cfg.seed)
    current = out / "iter_0.safetensors"
    save_bot(current, net, identity, {"method": "expert iteration: the start", "start": str(start)})
    history: list[Samples] = []
    cpu = 0.0
    games_played = samples_seen = 0

    def rate(iteration: int, path: Path, before: float, after: float) -> None:
        r = harness_match(game, path, "rules", cfg.eval_deals, cfg.seed, out)
        append_curve(out, {"iteration": iteration, "cpu_minutes": round(cpu / 60, 3), "games": games_played,
                         "samples": samples_seen, "loss_before": round(before, 5), "loss_after": round(after, 5),
                         "eval_games": r.games, "elo": round(r.elo, 1), "elo_low": round(r.elo_low, 1),
                         "elo_high": round(r.elo_high, 1), "mean_return": round(r.mean_return, 5),
                         "return_low": round(r.return_low, 5), "return_high": round(r.return_high, 5)},
                     CSV_FIELDS)
        plot_curve(out / CURVE_CSV, out / CURVE_PNG, curve_title(cfg))
        if progress:
            print(f"iteration {iteration}: {r.games} games against the rule bot, Elo {r.elo:+.0f} "
                  f"[{r.elo_low:+.0f}, {r.elo_high:+.0f}], mean return {r.mean_return:+.4f} "
                  f"[{r.return_low:+.4f}, {r.return_high:+.4f}]", flush=True)

    rate(0, current, math.nan, math.nan)
    for iteration in range(1, cfg.iterations + 1):
        spec = search_spec(cfg.search, teacher or current)
        t0 = _cpu_seconds()
        mover = f"neural(path={current})" if cfg.play == "network" else ""
        fresh = search_games(game, spec, cfg.games, cfg.seed, iteration, cfg.workers, progress, mover)
        np.savez_compressed(out / f"samples_{iteration}.npz", **fresh.__dict__)
        history = (history + [fresh])[-cfg.replay:]
        replay = Samples.concat(history)
        before = evaluate_loss(net, fresh, cfg.outcome_mix, cfg.policy_weight)
        train(net, optimizer, replay, cfg.epochs, cfg.batch, cfg.outcome_mix, symmetry, rng, progress,
              cfg.policy_weight)
        after = evaluate_loss(net, fresh, cfg.outcome_mix, cfg.policy_weight)
        cpu += _cpu_seconds() - t0
        games_played += cfg.games
        samples_seen += len(fresh)
        current = out / f"iter_{iteration}.safetensors"
        save_bot(current, net, identity, {
            "method": "expert iteration (training/expert.py): the network regressed on the search's "
                      f"root values{' and its visit shares' if cfg.policy_weight else ''}, the search using "
                      + (f"the fixed teacher {teacher} as prior" if teacher else
                         "the previous iteration's network as prior")
                      + (", in games the previous iteration's network played (DAgger)" if cfg.play == "network"
                         else ""),
            "search": cfg.search, "start": str(start), "iteration": iteration, "games": games_played,
            "samples": samples_seen, "replay_samples": len(replay), "cpu_minutes": round(cpu / 60, 2),
            "settings": {k: v for k, v in cfg.__dict__.items() if k != "out"}})
        rate(iteration, current, before, after)
    return current


# ----------------------------------------------------------------------------- the command
def _parser() -> argparse.ArgumentParser:
    from games import registry
    from scripts.cli_checks import CliParser, game_string, integer, number, seed

    p = CliParser(prog="python -m training.expert", formatter_class=argparse.ArgumentDefaultsHelpFormatter,
               description="Expert iteration: search games with the current network as prior, the network "
                           "trained on the search's root values, rated against the rule bot each iteration.")
    p.add_argument("--game", type=game_string, default=registry.default_game(), help="game string")
    p.add_argument("--start", default="shipped",
                   help="bot file to start from; shipped: the game's bot in bots/")
    p.add_argument("--search", default="ismcts(iterations=200,rollout=rules)",
                   help="the search spec, without prior (the current network is added as prior=PATH); "
                        "ismcts or pimc")
    p.add_argument("--teacher", default="",
                   help="bot file kept as the search's prior at every iteration (distillation from a fixed "
                        "teacher); default: the current network (expert iteration)")
    p.add_argument("--play", choices=("search", "network"), default="search",
                   help="who moves in the search games: the search, or the current network with the search "
                        "labelling each of its decisions (DAgger)")
    p.add_argument("--iterations", type=integer(1, 1000), default=5, help="iterations of search games + training")
    p.add_argument("--games", type=integer(1, 10**7), default=300, help="search games per iteration")
    p.add_argument("--workers", type=integer(1, 256), default=1, help="processes playing the search games")
    p.add_argument("--eval-deals", type=integer(1, 10**7), default=500,
                   help="duplicate deals of each rating against the rule bot (the same at every iteration)")
    p.add_argument("--seed", type=seed, default=0, help="seed of the search games' deals and of the ratings")
    p.add_argument("--out", required=True, help="run folder (new): iter_K.safetensors, samples_K.npz, curve.csv, curve.png")
    p.add_argument("--replay", type=integer(1, 1000), default=3, help="train on the samples of the last N iterations")
    p.add_argument("--epochs", type=number(0, 1000, open_low=True), default=4.0,
                   help="passes' worth of minibatches over the replay per iteration")
    p.add_argument("--batch", type=integer(1, 1 << 20), default=256, help="minibatch size")
    p.add_argument("--lr", type=number(0, 1, open_low=True), default=3e-5, help="Adam learning rate")
    p.add_argument("--outcome-mix", type=number(0, 1), default=0.0,
                   help="weight of the game's return in the played action's and the value's targets "
                        "(0: the search's values only)")
    p.add_argument("--policy-weight", type=number(0, 1000), default=0.0,
                   help="weight of the cross-entropy of the search's visit shares against the network's "
                        "prior (softmax of scores / 0.1); 0: values only")
    p.add_argument("--symmetry", choices=("true", "false"), default="true",
                   help="relabel samples by random suit permutations where the game has them")
    return p


def main(argv: list[str] | None = None) -> None:
    args = _parser().parse_args(argv)
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise SystemExit(_fail(f"--out {out}: is a file; a run's folder holds its bot files and curve"))
    if (out / CURVE_CSV).exists():
        raise SystemExit(_fail(f"--out {out}: already holds a run ({CURVE_CSV}); choose a new folder"))
    cfg = ExpertConfig(args.game, args.start, args.search, args.iterations, args.games, args.workers,
                       args.eval_deals, args.seed, str(out), args.replay, args.epochs, args.batch, args.lr,
                       args.outcome_mix, args.symmetry == "true", args.policy_weight, args.teacher,
                       args.play)
    try:
        last = run(cfg)
    except (ValueError, OSError) as e:
        from scripts.cli_checks import one_line
        raise SystemExit(_fail(one_line(e))) from None
    print(f"last network: {last}\nlearning curve: {out / CURVE_PNG} ({out / CURVE_CSV})")


def _fail(message: str) -> int:
    import sys
    print(f"python -m training.expert: error: {message}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    main()
