"""Learning a value for luck: the differences between an event's outcomes, under the agents it judges.

    cardarena train-luck --game GAME --agents rules random --games 8000 --rollouts 16 \\
        --workers 2 --out runs/GAME.rules-random.luck.safetensors

Why: the luck of an event (eval/luck.py) is V(after the outcome) - E_o V(after o),
so only the differences between an event's outcomes count, and only under the
bots that play on. The shipped value network learnt levels, by regression on
self-play results, and its error in those differences, summed over a deal, is
as large as the luck itself (experiments/luck_ceiling.py): it adds back what it
takes out. This recipe learns the differences themselves, for one set of agents.

Read top to bottom (as CleanRL writes an algorithm):
1. Data: games between the agents, seated as a tournament of them seats them
   (eval.schedule.plan_games: a partnership each at four-player Canasta, every
   lineup and its rotations at Page One), the network told who sits where. At every event
   from the first decision on (each chance event, and each random choice of an
   agent that states its policy, agents/base.py `known_policy`), `--outcomes`
   outcomes are drawn from the event's law, and after each, `--rollouts` games
   are played on by the agents themselves with the same seeds after every
   outcome (common random numbers: what differs between two outcomes' results is
   then more the outcome, less the rollouts' own luck). `--coupling stock` deals the
   rollouts after a chance event's outcomes from one shuffled stock that differs in the
   outcome alone (`coupled_stocks`), where the seed's numbers would pick other cards
   from decks that differ. Target: every seat's mean
   return after the outcome. With `--horizon H --bootstrap FILE` a rollout stops after
   H decisions and the bootstrap luck network (one trained before, for the same
   agents) values where it stopped: what is left of the game, whose luck is almost
   all of a full rollout's noise, is read from the network instead of played. The
   targets are then far less noisy (at Modern Canasta a network took 22% of their
   spread, against 1% of full rollouts'), and as right as the bootstrap beyond the
   horizon: temporal-difference targets (Sutton and Barto, ch. 7, n-step returns),
   where a full rollout is the Monte Carlo one. Any value keeps the luck unbiased
   (eval/luck.py), so a bootstrap's error costs narrowing, never the estimate.
   With `--rollouts 0` an event holds one child, the
   outcome the game itself drew, and its target is the game's own result: a
   Monte Carlo fit of the agents' value, a game's events for the price of playing
   it (rollouts cost almost all of the recipe's time), each target as noisy as
   what is left of the game.
2. Input: the positions luck reads an outcome's value from (eval.luck.leaf_rows:
   the outcome's state, or the expectation one draw on), each encoded as
   eval.luck.LuckNetwork reads it (the full state from the player to move, then
   which agent sits at each seat); a position at the end is its true returns.
   Model (`seat_shared`): the first `--seat-layers` layers read each seat's
   observation and agent, the same weights at every seat; the rest reads the
   seats together. Where the game declares a suit symmetry (games.registry
   `symmetry`: no suit differs from another), each training event is read under a random one of the 24
   suit relabellings (eval.luck.suit_relabellings), the same one for all its rows,
   and the network file says its values are read averaged over all 24 (LuckNetwork).
3. Loss: within each event, the network's values centred on their mean less the
   targets centred the same way, squared (what a luck term reads), plus `--level`
   times the plain squared error (the levels, which luck never reads, kept sane);
   with one child an event (`--rollouts 0`), nothing to centre on, the plain error.
   Targets are divided by `scale` (the returns' standard deviation). AdamW,
   minibatches of events; whole games held out, and the best epoch kept.
4. Output: a network file of kind "luck" (search.netfile), its `training` notes
   naming the agents, that `cardarena report --luck --luck-net FILE`,
   `experiments/luck_ceiling.py --value FILE` and `experiments/luck_variance.py
   --luck-net FILE` read; a report and learning curve beside it.

The held-out figure is the centred error beside the centred spread of the targets
(what a value that saw no difference between outcomes would make; with one child an
event, the plain error beside the results' spread about their mean); both hold the
rollouts' own noise, which no network removes, so the ratio understates the
network. experiments/luck_ceiling.py measures it without that noise. Where the
network is read averaged over the suit relabellings, the report gives the
held-out error so read too (`held_out_centred_error_averaged`): the figure the
luck terms will have.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from dataclasses import dataclass
from functools import lru_cache
from multiprocessing import Pool
from pathlib import Path
from typing import Sequence

import numpy as np
import pyspiel

from agents import make_bot
from eval.config import file_sha256
from eval.luck import (LuckNetwork, averaged_over, law_draws, leaf_rows, luck_network, played_to, seat_block,
                       seat_shared_or_plain, state_values, suit_relabellings)
from games.chance import DealChance, copies
from games.load import load_game
from games.seeding import derive_seed
from search.netfile import save
from search.value import FullStateEncoder, perspective

_TABLE, _BOTS, _ROLLOUTS, _STOCK = 11, 12, 13, 14      # streams of derive_seed
_BLOCK = 500                               # games gathered into one array by build_data


@dataclass
class SparseRows:
    """The network's inputs, a row a position, kept as their nonzero entries
    (compressed sparse rows) and read back dense a batch at a time: Page One's
    inputs are 94% zeros, so 128,000 games' events take about 2.4 GB, not 17.6,
    and the number of games a machine can learn from is nine times larger."""
    start: np.ndarray        # (rows + 1,) int64: row r's entries are start[r]:start[r + 1]
    column: np.ndarray       # (entries,) uint16 (int32 past 65,536 columns)
    value: np.ndarray        # (entries,) float16
    width: int

    @classmethod
    def of(cls, dense: np.ndarray) -> SparseRows:
        rows, columns = np.nonzero(dense)
        start = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=len(dense)))]).astype(np.int64)
        width = dense.shape[1]
        return cls(start, columns.astype(np.uint16 if width <= 1 << 16 else np.int32),
                   dense[rows, columns].astype(np.float16), width)

    def __len__(self) -> int:
        return len(self.start) - 1

    def dense(self, rows: np.ndarray) -> np.ndarray:
        """Rows `rows` (indices, any order), float32."""
        first = self.start[rows]
        counts = self.start[rows + 1] - first
        ends = np.cumsum(counts)
        entries = np.arange(ends[-1] if len(ends) else 0) + np.repeat(first - (ends - counts), counts)
        out = np.zeros((len(rows), self.width), np.float32)
        out[np.repeat(np.arange(len(rows)), counts), self.column[entries]] = self.value[entries]
        return out

    @classmethod
    def joined(cls, parts: list[SparseRows]) -> SparseRows:
        """The parts' rows end to end, each part dropped from the list once copied."""
        offsets = np.cumsum([0] + [len(part.value) for part in parts])
        start = _joined([part.start[:-1] + at for part, at in zip(parts, offsets)] + [offsets[-1:]])
        width = parts[0].width
        column, value = [part.column for part in parts], [part.value for part in parts]
        parts.clear()
        return cls(start, _joined(column), _joined(value), width)


@dataclass
class LuckData:
    """Events of `outcomes` children each. A child's value is `const` (its
    positions at the end) plus the weighted network values of its rows."""
    x: SparseRows            # (rows, input): the positions' inputs
    row_child: np.ndarray    # (rows,) the child each row belongs to
    row_weight: np.ndarray   # (rows,)
    row_seat: np.ndarray     # (rows,) the perspective each row is encoded from
    const: np.ndarray        # (children, players) returns of children's positions at the end, weighted
    y: np.ndarray            # (children, players) mean rollout returns, by seat
    event_game: np.ndarray   # (events,) the game each event was met in
    outcomes: int

    def followed_by(self, later: LuckData) -> LuckData:
        """These events, then `later`'s (the games after these), children numbered on."""
        numbered_on = {"row_child": len(self.y)}
        arrays = {key: np.concatenate([getattr(self, key), getattr(later, key) + numbered_on.get(key, 0)])
                  for key in ("row_child", "row_weight", "row_seat", "const", "y", "event_game")}
        return LuckData(SparseRows.joined([self.x, later.x]), **arrays, outcomes=self.outcomes)


@dataclass(frozen=True)
class Recipe:
    game: str
    agents: tuple[str, ...]
    outcomes: int
    rollouts: int
    seed: int
    coupling: str = "numbers"      # how an event's rollouts share chance: "numbers" or "stock" (--coupling)
    horizon: int = 0               # decisions a rollout plays before the bootstrap values it; 0: to the end
    bootstrap: str = ""            # the luck network read at the horizon (--bootstrap)


def seatings(game: pyspiel.Game, agents: int, games: int, seed: int) -> list[tuple[int, ...]]:
    """Which agent sits at each seat in each of `games` games: the lineups and
    rotations a tournament of the agents plays (its partnerships filled by one
    agent each), so that the network learns the seatings it will judge."""
    from itertools import islice

    from eval.schedule import plan_games
    from games import registry
    tasks = plan_games(game.num_players(), agents, games, seed, sides=registry.partnerships(game))
    return [task.seats for task in islice(tasks, games)]


def _bots(game, recipe: Recipe, seats: list[int], seed: int) -> list:
    return [make_bot(recipe.agents[a], game, s, derive_seed(_BOTS, seed, s)) for s, a in enumerate(seats)]


def _rollout(game, recipe: Recipe, seats: list[int], state, seed: int, stock: list[int] | None) -> np.ndarray:
    """Every seat's return of one game played on from `state` by the agents, its
    bots and chance drawn from `seed` (the same seed after each outcome: common random
    numbers); under the stock coupling, from a shuffled stock: `stock` where the event
    gave one (coupled_stocks), else the seed's first shuffle of the first deck met.
    With a horizon, the bootstrap network's values where the rollout stops, if the
    game has not ended by then."""
    if recipe.coupling == "numbers":
        chance = law_draws(random.Random(seed))
    else:
        chance = DealChance(seed) if stock is None else DealChance.from_order(seed, stock)
    stopped = played_to(state, _bots(game, recipe, seats, seed), chance, recipe.horizon or None)
    if stopped.is_terminal():
        return np.asarray(stopped.returns(), np.float64)
    bootstrap = _bootstrap(recipe)
    index = bootstrap.for_agents(recipe.agents)       # the recipe's agents among the bootstrap's
    return state_values(bootstrap.seated([index[a] for a in seats]), [stopped])[0]


@lru_cache(maxsize=4)
def _bootstrap(recipe: Recipe) -> LuckNetwork:
    """The recipe's bootstrap network, read once a process."""
    return luck_network(recipe.bootstrap, load_game(recipe.game))


def bootstrap_digest(recipe: Recipe) -> str:
    """The SHA-256 of the bootstrap network's bytes (empty without one): what names it
    in an events file and a network's notes."""
    return file_sha256(Path(recipe.bootstrap)) if recipe.bootstrap else ""


def coupled_stocks(law: Sequence[tuple[int, float]], drawn: Sequence[int], seed: int) -> list[list[int]] | None:
    """The stocks the rollouts of one seed start from after each drawn outcome of a
    chance event: a uniform shuffle of the event's deck less the first outcome, and for
    each other outcome the same order with one of that outcome's copies, chosen at
    random, put back as the first outcome. Each is a uniform shuffle of what its outcome
    leaves, and any two differ in one card, so every later draw is the same card after
    both outcomes until play takes them apart. (A shuffle of each deck by the same seed
    differs wherever the decks' sorted orders shift: a third of the cards, on average.)
    None where the event's law is not a deck (games.chance.copies finds none)."""
    outcomes, probs = zip(*law)
    counts = copies(probs)
    if counts is None:
        return None
    rng = random.Random(derive_seed(_STOCK, seed))
    first = drawn[0]
    base = [o for o, c in zip(outcomes, counts) for _ in range(c)]
    base.remove(first)
    rng.shuffle(base)
    stocks = []
    for outcome in drawn:
        stock = list(base)
        if outcome != first:
            stock[rng.choice([i for i, c in enumerate(stock) if c == outcome])] = first
        stocks.append(stock)
    return stocks


def play_game(args: tuple[Recipe, int, tuple[int, ...]]) -> dict[str, list]:
    """One game's events (`seats`: each seat's agent): each outcome's rows,
    constant part and rollout target."""
    recipe, index, seats = args
    game = load_game(recipe.game)
    n = game.num_players()
    encoder = FullStateEncoder(game)
    network_shape = LuckNetwork.input_size(encoder.size, n, len(recipe.agents))
    rng = random.Random(derive_seed(_ROLLOUTS, recipe.seed, index))
    out: dict[str, list] = {"x": [], "row_child": [], "row_weight": [], "row_seat": [], "const": [], "y": []}

    def encode(position) -> np.ndarray:
        row = np.zeros(network_shape, np.float32)
        me = perspective(position)
        encoder.encode(position, me, row[:encoder.size])
        one_hot = row[encoder.size:].reshape(n, len(recipe.agents))
        for k in range(n):
            one_hot[k, seats[(me + k) % n]] = 1.0
        return row

    def event(state, law, taken: int) -> None:
        actions, probs = zip(*law)
        seeds = [rng.getrandbits(62) for _ in range(recipe.rollouts)]
        drawn = rng.choices(actions, probs, k=recipe.outcomes) if recipe.rollouts else [taken]
        coupled = recipe.coupling == "stock" and state.is_chance_node()
        unstocked = [None] * len(drawn)         # rollouts that start no stock of their own
        stocks = {s: (coupled_stocks(law, drawn, s) if coupled else None) or unstocked for s in seeds}
        for k, action in enumerate(drawn):
            child_state = state.clone()
            child_state.apply_action(action)
            child = len(out["y"])
            const = np.zeros(n)
            for position, weight in leaf_rows(child_state):
                if position.is_terminal():
                    const += weight * np.asarray(position.returns())
                    continue
                out["x"].append(encode(position).astype(np.float16))
                out["row_child"].append(child)
                out["row_weight"].append(weight)
                out["row_seat"].append(perspective(position))
            out["const"].append(const)
            out["y"].append(np.mean([_rollout(game, recipe, seats, child_state, s, stocks[s][k]) for s in seeds],
                                    axis=0) if seeds else None)       # without rollouts: the game's result, known at its end

    bots = _bots(game, recipe, seats, derive_seed(recipe.seed, index))
    chance, state, playing = DealChance(derive_seed(_TABLE, recipe.seed, index)), game.new_initial_state(), False
    while not state.is_terminal():
        if state.is_chance_node():
            outcome = chance(state)
            if playing and len(state.chance_outcomes()) > 1:
                event(state, state.chance_outcomes(), outcome)
            state.apply_action(outcome)
            continue
        playing = True
        bot = bots[state.current_player()]
        law = getattr(bot, "known_policy", lambda s: None)(state)
        action = bot.step(state)
        if law is not None and len([p for _, p in law if p > 0]) > 1:
            event(state, [(a, p) for a, p in law if p > 0], action)
        state.apply_action(action)
    result = np.asarray(state.returns(), np.float64)
    out["y"] = [result if y is None else y for y in out["y"]]
    return out


def build_data(recipe: Recipe, games: int, workers: int, progress: bool = True, first: int = 0) -> LuckData:
    """The events of games `first`..`games`-1, played in `workers` processes. Each
    game's rows become arrays as the game arrives, every `_BLOCK` games one block
    (its inputs sparse), and the blocks one array at the end, each block freed
    once copied: the events take about their own size in memory, not twice it."""
    from tqdm import tqdm
    game = load_game(recipe.game)
    n = game.num_players()
    width = LuckNetwork.input_size(FullStateEncoder(game).size, n, len(recipe.agents))
    fields = ("x", "row_child", "row_weight", "row_seat", "const", "y", "event_game")
    blocks: dict[str, list] = {key: [] for key in fields}
    pending: dict[str, list[np.ndarray]] = {key: [] for key in fields}
    children = 0
    with Pool(workers) as pool:
        seats = seatings(game, len(recipe.agents), games, recipe.seed)
        tasks = [(recipe, g, seats[g]) for g in range(first, games)]
        for g, got in enumerate(tqdm(pool.imap(play_game, tasks), total=len(tasks), desc="games", unit="game",
                                     disable=not progress), start=first):
            pending["x"].append(np.array(got["x"], np.float16).reshape(-1, width))
            pending["row_child"].append(np.array(got["row_child"], np.int64) + children)
            pending["row_weight"].append(np.array(got["row_weight"], np.float32))
            pending["row_seat"].append(np.array(got["row_seat"], np.int64))
            pending["const"].append(np.array(got["const"], np.float32).reshape(-1, n))
            pending["y"].append(np.array(got["y"], np.float32).reshape(-1, n))
            pending["event_game"].append(np.full(len(got["y"]) // recipe.outcomes, g, np.int64))
            children += len(got["y"])
            if (g + 1 - first) % _BLOCK == 0 or g + 1 == games:
                for key in fields:
                    block = np.concatenate(pending[key])
                    blocks[key].append(SparseRows.of(block) if key == "x" else block)
                    pending[key].clear()
    return LuckData(x=SparseRows.joined(blocks.pop("x")), **{key: _joined(blocks[key]) for key in blocks},
                    outcomes=recipe.outcomes)


def _joined(arrays: list[np.ndarray]) -> np.ndarray:
    """The arrays end to end, each dropped from the list once copied."""
    out = np.empty((sum(len(a) for a in arrays), *arrays[0].shape[1:]), arrays[0].dtype)
    at = 0
    for i, a in enumerate(arrays):
        out[at:at + len(a)] = a
        at += len(a)
        arrays[i] = None
    return out


def save_data(data: LuckData, recipe: Recipe, games: int, path: Path) -> None:
    """The events in an .npz (plain arrays), with the recipe that made them,
    written whole (records.files.write_whole)."""
    from records.files import write_whole
    described = json.dumps(_described(recipe, games), sort_keys=True)
    arrays = {k: v for k, v in vars(data).items() if k not in ("x", "outcomes")}
    rows = {"x_start": data.x.start, "x_column": data.x.column, "x_value": data.x.value, "x_width": data.x.width}

    def write(tmp: Path) -> None:
        with open(tmp, "xb") as f:
            np.savez(f, **arrays, **rows, outcomes=data.outcomes, recipe=np.array(described))
    write_whole(path, write)


def _described(recipe: Recipe, games: int) -> dict:
    return {**vars(recipe), "agents": list(recipe.agents), "games": games, "seating": "tournament lineups",
            "bootstrap": bootstrap_digest(recipe)}


def load_data(path: Path, recipe: Recipe, games: int) -> tuple[LuckData, int]:
    """Events saved by `save_data` for this recipe, of `games` games or fewer,
    and how many games they hold (the first games of the recipe: the rest can be
    played on from there); ValueError, one line, for anything else (reading never unpickles)."""
    fields = [f for f in LuckData.__dataclass_fields__ if f not in ("x", "outcomes")]
    try:
        with np.load(path, allow_pickle=False) as z:
            stored = json.loads(str(z["recipe"]))
            rows = SparseRows(z["x_start"], z["x_column"], z["x_value"], int(z["x_width"]))
            data = LuckData(rows, **{k: z[k] for k in fields}, outcomes=int(z["outcomes"]))
    except (OSError, KeyError, EOFError, ValueError, TypeError) as e:
        raise ValueError(f"{path}: not a file of luck events ({str(e).splitlines()[0][:60]})") from None
    wanted = _described(recipe, games)
    if isinstance(stored, dict):
        stored = {"coupling": "numbers", "horizon": 0, "bootstrap": "", **stored}   # files from before either
    differ = [k for k in wanted if k != "games" and (not isinstance(stored, dict) or stored.get(k) != wanted[k])]
    if differ:
        raise ValueError(f"{path} holds the events of another recipe (its {', '.join(differ)} differ)")
    held = stored.get("games")
    if not isinstance(held, int) or held < 1:
        raise ValueError(f"{path}: not a file of luck events (its count of games is {held!r})")
    if held > games:
        raise ValueError(f"{path} holds the events of {held} games, more than --games {games}")
    return data, held


def seat_shared(players: int, agents: int, seat_inputs: int, hidden: tuple[int, ...], seat_layers: int = 1):
    """The model: each seat's part of the input (its observation, then which agent
    sits there) read by the first `seat_layers` layers of `hidden`, the same
    weights at every seat, then the seats' readings together through the rest of
    `hidden` to every seat's value. Sharing says that a seat's cards mean alike
    at every seat; on the same held-out events one shared layer took more of the
    targets' spread than a plain network, and on 64,000 Page One games two did no
    better than one (docs/networks.md).
    `plain_layers()` writes it as the plain multilayer perceptron a network file
    holds (the first shared layer as a block matrix, each later one block-diagonal),
    so nothing reads it differently."""
    import torch
    if not 1 <= seat_layers < len(hidden):
        raise ValueError(f"seat_layers must leave a layer to read the seats together: 1 to {len(hidden) - 1}")

    class SeatShared(torch.nn.Module):
        def __init__(self):
            super().__init__()
            widths = [seat_inputs + agents, *hidden[:seat_layers]]
            self.seat = torch.nn.ModuleList(torch.nn.Linear(a, b) for a, b in zip(widths, widths[1:]))
            sizes = [players * hidden[seat_layers - 1], *hidden[seat_layers:], players]
            self.head = torch.nn.ModuleList(torch.nn.Linear(a, b) for a, b in zip(sizes, sizes[1:]))

        def forward(self, x):
            observed = x[:, :players * seat_inputs].reshape(-1, players, seat_inputs)
            h = torch.cat([observed, x[:, players * seat_inputs:].reshape(-1, players, agents)], 2)
            for layer in self.seat:
                h = torch.relu(layer(h))
            h = h.flatten(1)
            for i, layer in enumerate(self.head):
                h = layer(h)
                if i < len(self.head) - 1:
                    h = torch.relu(h)
            return h

        def plain_layers(self) -> list[tuple[np.ndarray, np.ndarray]]:
            def numpy(layer):
                return layer.weight.detach().numpy().copy(), layer.bias.detach().numpy().copy()
            w, b = numpy(self.seat[0])
            shared = [(seat_block(w[:, :seat_inputs], w[:, seat_inputs:], players), np.tile(b, players))]
            for layer in self.seat[1:]:
                w, b = numpy(layer)
                shared.append((np.kron(np.eye(players, dtype=np.float32), w), np.tile(b, players)))
            return shared + [numpy(layer) for layer in self.head]

    return SeatShared()


def train(data: LuckData, *, agents: int, hidden: tuple[int, ...], epochs: int, batch: int, lr: float,
          weight_decay: float, level: float, held_out: float, seed: int, seat_layers: int = 1,
          permutations: np.ndarray | None = None, progress: bool = True):
    """The network (layers as numpy arrays), its scale, the learning curve and the
    held-out report. `permutations` (eval.luck.suit_relabellings): the relabellings each
    training event is read under, one drawn at random an event; held-out events
    are read as they are."""
    import torch
    from tqdm import tqdm
    torch.manual_seed(seed)
    m, n = data.outcomes, data.y.shape[1]
    events = len(data.event_game)
    scale = float(data.y.std()) or 1.0
    y = torch.from_numpy(data.y / scale).view(events, m, n)
    const = torch.from_numpy(data.const / scale)
    weight = torch.from_numpy(data.row_weight)
    child = torch.from_numpy(data.row_child)
    # The output column read for seat s of a row encoded from seat me is (s - me) % n.
    column = torch.from_numpy((np.arange(n)[None, :] - data.row_seat[:, None]) % n)
    # Rows are stored in child order: each event's rows are one slice.
    starts = np.searchsorted(data.row_child, np.arange(events + 1) * m)
    last_game = int(data.event_game.max())
    cut = last_game - max(1, int(round(held_out * (last_game + 1)))) + 1
    fit_events = np.flatnonzero(data.event_game < cut)
    test_events = np.flatnonzero(data.event_game >= cut)
    net = seat_shared(n, agents, (data.x.width - n * agents) // n, hidden, seat_layers)
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=weight_decay)
    relabel = None if permutations is None else torch.from_numpy(permutations)
    mean = y[torch.from_numpy(fit_events)].mean((0, 1))     # the spread of results is about the fitted games' mean

    def losses(ev: np.ndarray,
               relabelled: np.ndarray | None = None) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """The centred, plain and spread errors of events `ev`, each read under
        its relabelling in `relabelled` (an index into `permutations`), if given."""
        order = np.argsort(ev)               # children in order, for searchsorted
        ev = ev[order]
        rows = np.concatenate([np.arange(starts[e], starts[e + 1]) for e in ev])
        kids = np.concatenate([np.arange(e * m, (e + 1) * m) for e in ev])
        local = torch.from_numpy(np.searchsorted(kids, data.row_child[rows]))
        rows_t = torch.from_numpy(rows)
        inputs = torch.from_numpy(data.x.dense(rows))
        if relabelled is not None:
            row_event = np.searchsorted(ev, data.row_child[rows] // m)
            inputs = torch.gather(inputs, 1, relabel[torch.from_numpy(relabelled[order][row_event])])
        out = torch.gather(net(inputs), 1, column[rows_t])
        value = const[torch.from_numpy(kids)].clone().index_add_(0, local, out * weight[rows_t, None])
        value = value.view(len(ev), m, n)
        target = y[torch.from_numpy(ev)]
        if m == 1:       # the games' own results: no siblings to centre on, so the levels are the fit
            return ((value - target) ** 2).mean(), ((value - target) ** 2).mean(), ((target - mean) ** 2).mean()
        centred = ((value - value.mean(1, keepdim=True)) - (target - target.mean(1, keepdim=True))) ** 2
        spread = (target - target.mean(1, keepdim=True)) ** 2
        return centred.mean(), ((value - target) ** 2).mean(), spread.mean()

    def held() -> tuple[float, float, float]:
        net.eval()
        with torch.no_grad():
            parts = [losses(test_events[i:i + 4096]) for i in range(0, len(test_events), 4096)]
        net.train()
        w = [min(4096, len(test_events) - i) for i in range(0, len(test_events), 4096)]
        return tuple(float(np.average([float(p[k]) for p in parts], weights=w)) for k in range(3))

    curve, best = [], (float("inf"), None, -1)
    rng = np.random.default_rng(seed)
    for epoch in tqdm(range(epochs), desc="epochs", unit="epoch", disable=not progress):
        order = rng.permutation(fit_events)
        total, count = 0.0, 0
        for i in range(0, len(order), batch):
            chosen = order[i:i + batch]
            relabelled = None if relabel is None else rng.integers(0, len(relabel), len(chosen))
            centred, plain, _ = losses(chosen, relabelled)
            loss = centred + level * plain if m > 1 else plain
            opt.zero_grad()
            loss.backward()
            opt.step()
            total, count = total + centred.item(), count + 1
        test_centred, test_plain, test_spread = held()
        curve.append({"epoch": epoch + 1, "train": total / max(count, 1), "held_out": test_centred,
                      "held_out_spread": test_spread, "held_out_level": test_plain})
        if test_centred < best[0]:
            best = (test_centred, net.plain_layers(), epoch + 1)
    kind = "centred_" if m > 1 else ""
    report = {f"held_out_{kind}error": best[0], f"held_out_{kind}spread": curve[best[2] - 1]["held_out_spread"],
              "best_epoch": best[2], "train_events": int(len(fit_events)), "held_out_events": int(len(test_events))}
    if permutations is not None and len(test_events) and m > 1:
        report["held_out_centred_error_averaged"] = averaged_error(data, best[1], scale, int(test_events[0]),
                                                                   permutations, agents)
    return best[1], scale, curve, report


def averaged_error(data: LuckData, layers: list[tuple[np.ndarray, np.ndarray]], scale: float, first_event: int,
                   permutations: np.ndarray, agents: int) -> float:
    """The centred error (in `scale`d units, as the held-out figure) of the
    events from `first_event` on, the network `layers` read as eval.luck reads a
    file noting `"averaged": "suits"`: each row's values averaged over
    `permutations`, the layers the seats share read once a seat."""
    from search.netfile import Mlp
    m, n = data.outcomes, data.y.shape[1]
    values = seat_shared_or_plain(Mlp(layers), n, agents)
    first_row = int(np.searchsorted(data.row_child, first_event * m))
    out = np.zeros((len(data.x) - first_row, n))
    for i in range(first_row, len(data.x), 1024):
        rows = np.arange(i, min(i + 1024, len(data.x)))
        out[i - first_row:i - first_row + 1024] = averaged_over(values, data.x.dense(rows), permutations)
    # The output column read for seat s of a row encoded from seat me is (s - me) % n.
    seat_columns = (np.arange(n)[None, :] - data.row_seat[first_row:, None]) % n
    value = data.const[first_event * m:].astype(np.float64) / scale
    np.add.at(value, data.row_child[first_row:] - first_event * m,
              np.take_along_axis(out, seat_columns, 1) * data.row_weight[first_row:, None])
    value, target = value.reshape(-1, m, n), (data.y[first_event * m:] / scale).reshape(-1, m, n)
    centred = (value - value.mean(1, keepdims=True)) - (target - target.mean(1, keepdims=True))
    return float((centred ** 2).mean())


def run(args: argparse.Namespace) -> dict:
    """The whole recipe (see the module docstring); returns the report it writes."""
    from training.selfplay import write_curve, write_report
    started = time.time()
    game = load_game(args.game)
    recipe = Recipe(str(game), tuple(a.strip() for a in args.agents), args.outcomes, args.rollouts, args.seed,
                    args.coupling, args.horizon, args.bootstrap or "")
    out = Path(args.out)
    events = Path(args.events) if args.events else None
    data, held = load_data(events, recipe, args.games) if events and events.exists() else (None, 0)
    if held < args.games:                   # the games the file lacks, played on from the last it holds
        more = build_data(recipe, args.games, args.workers, progress=not args.quiet, first=held)
        data = more if data is None else data.followed_by(more)
        if events:
            save_data(data, recipe, args.games, events)
    generated = time.time() - started
    import torch
    torch.set_num_threads(args.threads)
    permutations = suit_relabellings(game, len(recipe.agents))
    layers, scale, curve, report = train(data, agents=len(recipe.agents), hidden=tuple(args.hidden),
                                         epochs=args.epochs, batch=args.batch,
                                         lr=args.lr, weight_decay=args.weight_decay, level=args.level,
                                         held_out=args.held_out, seed=args.seed, seat_layers=args.seat_layers,
                                         permutations=permutations,
                                         progress=not args.quiet)
    method = ("centred differences of an event's outcomes" if recipe.rollouts
              else "the games' own results at the outcomes they drew")
    training = {"method": f"{method} (training/luck_value.py)",
                "relabelled": "suits" if permutations is not None else "none",
                "averaged": "suits" if permutations is not None else "none",
                "agents": list(recipe.agents), "games": args.games, "outcomes": args.outcomes,
                "rollouts": args.rollouts, "coupling": args.coupling, "horizon": args.horizon,
                "bootstrap": bootstrap_digest(recipe), "seed": args.seed, "hidden": list(args.hidden),
                "seat_layers": args.seat_layers, "epochs": args.epochs,
                "level": args.level, "held_out": report}
    save(out, layers, kind="luck", game=str(game), short_name=game.get_type().short_name,
         players=game.num_players(), output_shape=[game.num_players()], scale=scale, training=training)
    write_curve(curve, out, f"luck network, {game.get_type().short_name}", "centred squared error (scaled)")
    report.update(seconds_data=round(generated, 1), seconds=round(time.time() - started, 1))
    write_report(out, report)
    return report
