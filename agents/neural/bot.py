"""`make_bot("neural(path=...)")`: a bot that plays a trained network's policy.

Settings:
    path           a bot file (`cardarena export`); left out, the bot shipped in
                   bots/ for this game (bots/<game short name>.safetensors)
    policy         "greedy" (default): the legal action with the highest score,
                   the strongest play, and deterministic; "sample": draw from
                   softmax(scores / temperature), for varied play against people
    temperature    for policy=sample (default 0.1: scores are returns in [-1, 1])
    strict_params  false lets a bot play game parameters other than those it was
                   trained on (same tensor shape only)
    symmetric      true: average each action's score over the 24 suit
                   relabellings of the position (games whose suits are
                   interchangeable: Page One, American Page One), which takes
                   out the part of the network's error that differs from suit
                   to suit; one batch of 24 rows, still well under 1 ms
    margin         for a network trained on advantages over a baseline bot
                   (`--target advantage`, training/advantage.py; the bot
                   file names the baseline: a rule, random or neural bot, as
                   agents/neural/botfile.py checks, never anything else): the
                   bot plays the baseline's move unless another move's score,
                   its estimated gain in placement ([-2, 2]), is above the
                   margin (default 0.05);
                   where the file says its scores are relative (`--relative`),
                   a move's gain is its score less the baseline's move's score

A bot file may carry its own defaults for these settings (`cardarena export
--play "margin=0.02,symmetric=true"`, the settings it was measured with); a
setting in the spec overrides them.

The bot sees only the information-state tensor of its own seat (and so does
a baseline bot, which reads its own hand and the public table).
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pyspiel
import torch
from threadpoolctl import threadpool_limits

from agents import SHIPPED_BOTS, make_bot  # noqa: F401  (SHIPPED_BOTS: where `neural` alone looks)
from agents.base import CardBot, rules_core
from agents.neural.botfile import MAX_BASELINE_DEPTH, BotFile, BotFileError, bot_file_path, load_bot
from agents.neural.encoding import GameIdentity, InfoStateEncoder
from agents.neural.network import PolicyValueNet
from agents.neural.symmetry import SuitSymmetry, symmetry_for
from games.registry import Param

POLICIES = ("greedy", "sample")
DEFAULT_MARGIN = 0.05      # placement gained, for networks of advantages over a baseline bot
# How a bot plays where neither its spec nor its file (`cardarena export --play`) says.
PLAY_DEFAULTS = {"policy": "greedy", "temperature": 0.1, "symmetric": False, "margin": DEFAULT_MARGIN}

# (path, size, mtime, game, strict) -> loaded bot: a match makes new bots for every game.
_cache: dict[tuple, BotFile] = {}
# game string -> its suit relabellings (building the tables takes milliseconds).
_symmetries: dict[str, SuitSymmetry] = {}


def load_cached(path: Path, identity: GameIdentity, strict_params: bool) -> BotFile:
    stat = path.stat()
    key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns, identity.game_string, strict_params)
    if key not in _cache:
        _cache[key] = load_bot(path, identity, strict_params)
    return _cache[key]


def numpy_layers(net: PolicyValueNet, members: list[tuple[int, ...]] | None = None) -> list[tuple]:
    """The network's weights as numpy (transposed, for x @ W): one decision in
    numpy costs a fraction of a torch call, whose fixed overhead dominates at
    batch size 1. The last pair is the policy head. `members`: an ensemble's
    members' hidden sizes (`member_hidden`), whose later trunk layers are then
    kept as their diagonal blocks (BlockDiagonal), the same scores at a fraction
    of the work."""
    linears = [m for m in net.trunk if isinstance(m, torch.nn.Linear)] + [net.policy_head]
    layers = [(m.weight.detach().cpu().numpy().T.copy(), m.bias.detach().cpu().numpy().copy())
              for m in linears]
    if members:
        for depth in range(1, len(layers) - 1):
            w, b = layers[depth]
            layers[depth] = (BlockDiagonal.of(w, [m[depth - 1] for m in members], [m[depth] for m in members]), b)
    return layers


def member_hidden(training: dict) -> list[tuple[int, ...]] | None:
    """The hidden sizes of an ensemble's members (training/ensemble.py), from
    a bot file's training notes; None for a file that is not an ensemble."""
    members = training.get("members")
    if not isinstance(members, list) or len(members) < 2:
        return None
    try:
        return [tuple(int(h) for h in m["network"]["hidden"]) for m in members]
    except (KeyError, TypeError, ValueError):
        return None


class BlockDiagonal:
    """A block-diagonal weight matrix kept as its blocks. An ensemble's later
    layers read each member's units only (training/ensemble.py), so all but
    the diagonal blocks are zeros; `x @ W` by blocks skips them."""

    __array_ufunc__ = None          # numpy hands `x @ BlockDiagonal` to __rmatmul__

    def __init__(self, blocks: list[tuple[slice, np.ndarray]]):
        self.blocks = blocks

    @staticmethod
    def of(w: np.ndarray, rows: list[int], cols: list[int]) -> "BlockDiagonal | np.ndarray":
        """w (rows x cols) by its diagonal blocks of the given sizes; w itself where
        the sizes do not tile it or anything off those blocks is not zero."""
        if sum(rows) != w.shape[0] or sum(cols) != w.shape[1]:
            return w
        blocks, off = [], w.copy()
        r0 = c0 = 0
        for r, c in zip(rows, cols):
            blocks.append((slice(r0, r0 + r), w[r0:r0 + r, c0:c0 + c].copy()))
            off[r0:r0 + r, c0:c0 + c] = 0.0
            r0, c0 = r0 + r, c0 + c
        return BlockDiagonal(blocks) if not off.any() else w

    def __rmatmul__(self, x: np.ndarray) -> np.ndarray:
        return np.concatenate([x[..., rows] @ w for rows, w in self.blocks], axis=-1)


def legal_scores(layers: list[tuple], obs: np.ndarray,
                 legal: list[int]) -> np.ndarray:
    """The policy head's scores of the legal actions, as PolicyValueNet.forward."""
    w, b = layers[-1]
    return trunk(layers, obs) @ w[:, legal] + b[legal]


def trunk(layers: list[tuple], obs: np.ndarray) -> np.ndarray:
    """The hidden layers' output for one row or a batch of rows."""
    h = obs
    for w, b in layers[:-1]:
        h = np.maximum(h @ w + b, 0.0)
    return h


def symmetric_scores(layers: list[tuple], obs: np.ndarray,
                     legal: list[int], symmetry: SuitSymmetry) -> np.ndarray:
    """The legal actions' scores averaged over every suit relabelling: row p of
    the batch is the position relabelled by permutation p, where action a is
    called symmetry.action_index[p, a]."""
    w, b = layers[-1]
    scores = trunk(layers, obs[symmetry.obs_index]) @ w + b
    rows = np.arange(len(scores))[:, None]
    return scores[rows, symmetry.action_index[:, legal]].mean(axis=0)


def play_settings(defaults: dict, where: str) -> dict:
    """PLAY_DEFAULTS overridden by `defaults` (a bot file's, or `export --play`),
    each checked: an unknown or bad setting is named with where it came from."""
    unknown = sorted(set(defaults) - set(PLAY_DEFAULTS))
    if unknown:
        raise ValueError(f"{where}: unknown play setting(s) {', '.join(unknown)} "
                         f"(known: {', '.join(PLAY_DEFAULTS)})")
    settings = {**PLAY_DEFAULTS, **defaults}
    try:
        check_settings(**settings)
    except ValueError as e:
        raise ValueError(f"{where}: {e}") from None
    return settings


def check_settings(policy: str, temperature: float, symmetric: bool = False, margin: float = 0.0) -> None:
    if isinstance(margin, bool) or not isinstance(margin, (int, float)) or not margin >= 0:
        raise ValueError(f"margin={margin!r}: must be a number >= 0")
    if not isinstance(symmetric, bool):
        raise ValueError(f"symmetric={symmetric!r}: must be true or false")
    if policy not in POLICIES:
        raise ValueError(f"policy={policy!r}: must be one of {', '.join(POLICIES)}")
    if isinstance(temperature, bool) or not isinstance(temperature, (int, float)) or not temperature > 0:
        raise ValueError(f"temperature={temperature!r}: must be a number > 0")


class NeuralBot(CardBot):
    def __init__(self, game: pyspiel.Game, player: int, seed: int, net: PolicyValueNet,
                 policy: str = "greedy", temperature: float = 0.1, symmetric: bool = False,
                 baseline: pyspiel.Bot | None = None, margin: float = DEFAULT_MARGIN, relative: bool = False,
                 members: list[tuple[int, ...]] | None = None):
        super().__init__(player)
        check_settings(policy, temperature, symmetric, margin)
        self.baseline = baseline
        self.relative = relative
        self.margin = float(margin)
        self.layers = numpy_layers(net, members)
        self.encoder = InfoStateEncoder(game)
        self.policy = policy
        self.temperature = float(temperature)
        self.rng = random.Random(seed)
        self.obs = np.zeros((1, self.encoder.size), np.float32)
        self.symmetry = suit_symmetry(game, self.encoder) if symmetric else None

    def step(self, state) -> int:
        core = rules_core(state)
        legal = core.legal_actions()
        if len(legal) == 1:
            return legal[0]
        self.encoder.encode(core, core.current_player(), legal, self.obs[0])
        if self.symmetry is None:
            scores = legal_scores(self.layers, self.obs[0], legal)
        else:
            scores = symmetric_scores(self.layers, self.obs[0], legal, self.symmetry)
        if self.baseline is not None:
            return self._over_baseline(state, legal, scores)
        if self.policy == "greedy":
            return legal[int(scores.argmax())]
        return self._draw(legal, scores)

    def _draw(self, legal: list[int], scores: np.ndarray) -> int:
        """A legal action drawn from softmax(scores / temperature)."""
        z = (scores - scores.max()) / self.temperature
        probs = np.exp(z) / np.exp(z).sum()
        return legal[min(int(np.searchsorted(np.cumsum(probs), self.rng.random(), side="right")),
                         len(legal) - 1)]

    def _over_baseline(self, state, legal: list[int], gains: np.ndarray) -> int:
        """The baseline's move unless another gains more than the margin: the
        network never scored the baseline's own move (its gain is 0 by definition).
        Relative scores are gains once the baseline's move's score is subtracted."""
        move = self.baseline.step(state)
        if self.relative:
            gains = gains - gains[legal.index(move)]
        gains[legal.index(move)] = -np.inf
        best = int(gains.argmax())
        if self.policy == "greedy":
            return legal[best] if gains[best] > self.margin else move
        gains[legal.index(move)] = self.margin
        return self._draw(legal, gains)

    def restart_at(self, state) -> None:
        if self.baseline is not None:
            self.baseline.restart_at(state)

    def inform_action(self, state, player_id: int, action: int) -> None:
        if self.baseline is not None:
            self.baseline.inform_action(state, player_id, action)


def suit_symmetry(game: pyspiel.Game, encoder: InfoStateEncoder) -> SuitSymmetry:
    key = str(game)
    if key not in _symmetries:
        symmetry = symmetry_for(game, encoder.observer)
        if symmetry is None:
            raise ValueError(f"symmetric=true: game {game.get_type().short_name!r} has no suit "
                             "symmetry (agents/neural/symmetry.py lists the games that do)")
        _symmetries[key] = symmetry
    return _symmetries[key]


def make_neural_bot(game: pyspiel.Game, player: int, seed: int = 0, path: str | None = None,
                    policy: str | None = None, temperature: float | None = None,
                    strict_params: bool = True, symmetric: bool | None = None,
                    margin: float | None = None) -> NeuralBot:
    """The make_bot factory for `neural(...)`; see the module docstring. A
    setting left out takes the bot file's play default, else the global one."""
    # One intra-op thread, in torch and in numpy's BLAS: the network is small,
    # and threads only contend (torch: ten times slower measured on a loaded
    # 2-core machine; the 24-row batch of symmetric=true through a 2-thread BLAS
    # in each of two workers: 39 ms a move instead of 0.3 ms).
    torch.set_num_threads(1)
    threadpool_limits(1, user_api="blas")
    given = {k: v for k, v in (("policy", policy), ("temperature", temperature), ("symmetric", symmetric),
                               ("margin", margin)) if v is not None}
    check_settings(**{**PLAY_DEFAULTS, **given})     # the spec's mistakes first, before any file is read
    identity = GameIdentity.of(game)
    return _file_bot(game, player, seed, bot_file_path(path, identity.short_name), identity, strict_params,
                     given, ())


def _file_bot(game: pyspiel.Game, player: int, seed: int, file: Path, identity: GameIdentity,
              strict_params: bool, given: dict, chain: tuple[Path, ...]) -> NeuralBot:
    """The bot of a bot file, and of the baseline it names; `chain`: the files
    whose baseline this one is, outermost first (a cycle or a deeper chain than
    MAX_BASELINE_DEPTH is refused)."""
    bot = load_cached(file, identity, strict_params)
    training = bot.training
    settings = {**play_settings(training.get("play", {}), f"bot file {file}"), **given}
    baseline = None if bot.baseline is None else _baseline_bot(bot, game, player, seed, identity, chain + (file,))
    return NeuralBot(game, player, seed, bot.net, baseline=baseline, relative=bool(training.get("relative", False)),
                     members=member_hidden(training), **settings)


def _baseline_bot(bot: BotFile, game: pyspiel.Game, player: int, seed: int, identity: GameIdentity,
                  chain: tuple[Path, ...]) -> pyspiel.Bot:
    """The baseline a loaded bot file names (checked as it was read: one of
    botfile.BASELINE_BOTS with plain settings, a neural one inside the file's folder)."""
    baseline = bot.baseline
    where = f"bot file {bot.path}: its baseline {baseline.spec!r}"
    try:
        if baseline.file is None:                     # the rule bot or the random one, in-process
            return make_bot(baseline.spec, game, player, seed)
        if baseline.file in {f.resolve() for f in chain}:
            raise BotFileError(f"leads back to {baseline.file}: the baselines go round in a cycle")
        if len(chain) > MAX_BASELINE_DEPTH:
            raise BotFileError(f"baselines nest deeper than {MAX_BASELINE_DEPTH}")
        settings = {k: v for k, v in baseline.settings.items() if k not in ("path", "strict_params")}
        check_settings(**{**PLAY_DEFAULTS, **settings})
        return _file_bot(game, player, seed, baseline.file, identity,
                         bool(baseline.settings.get("strict_params", True)), settings, chain)
    except ValueError as e:
        raise BotFileError(f"{where}: {e}") from None


make_neural_bot.declared_settings = (
    Param("path", "str", None, "a bot file; left out, the bot shipped in bots/ for this game"),
    Param("policy", "choice", None, "greedy (the file's default, else greedy) or sample", choices=("greedy", "sample")),
    Param("temperature", "float", None, "for policy=sample (default 0.1)"),
    Param("strict_params", "bool", True, "false: play game parameters other than those it was trained on"),
    Param("symmetric", "bool", None, "average each action's score over the 24 suit relabellings"),
    Param("margin", "float", None, "a network of advantages: the gain another move needs over the baseline's "
                                   "(default 0.05)"),
)
