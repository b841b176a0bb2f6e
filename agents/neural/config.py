"""Network sizes per game, and the training settings: plain data, no torch.

A network config is written into a bot file's metadata as JSON and checked when
the file is read back; the training config into each checkpoint.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field, fields

from games import registry


# Bounds on a network's declared layers (a bot file's or a checkpoint's are checked
# against them before anything is built): far above any network trained here (two
# layers of 256; an ensemble's sums, 1536), far below what would exhaust memory.
MAX_LAYERS = 16
MAX_WIDTH = 4096


def _shown(value: object, limit: int = 80) -> str:
    """repr(value), cut to `limit` characters: a hostile file's sizes stay one short line."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


@dataclass(frozen=True)
class NetworkConfig:
    """A multilayer perceptron trunk of `hidden` ReLU layers, then two heads:
    one score per distinct action (the policy head) and one value."""

    hidden: tuple[int, ...] = (256, 256)

    def __post_init__(self) -> None:
        if not 1 <= len(self.hidden) <= MAX_LAYERS or any(
                not isinstance(h, int) or isinstance(h, bool) or not 1 <= h <= MAX_WIDTH for h in self.hidden):
            raise ValueError(f"network hidden sizes must be 1 to {MAX_LAYERS} integers of 1-{MAX_WIDTH}; "
                             f"got {_shown(self.hidden)}")

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> "NetworkConfig":
        try:
            data = json.loads(text)
        except RecursionError:          # nested too deep for the parser: not a config
            data = None
        if not isinstance(data, dict):
            raise ValueError(f"network config must be a JSON object; got {_shown(text)}")
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown network config key(s) {_shown(sorted(unknown))}; known: {sorted(known)}")
        if "hidden" in data:
            if not isinstance(data["hidden"], list):
                raise ValueError(f"network config 'hidden' must be a list of sizes; got {_shown(data['hidden'])}")
            data["hidden"] = tuple(data["hidden"])
        return cls(**data)


DEFAULT_CONFIG = NetworkConfig(hidden=(256, 256))


def network_config_for(short_name: str) -> NetworkConfig:
    """The game's network config, as its registry entry declares it (`network`; docs/neural.md
    gives the reasons for each size), or the default for a game that declares none."""
    entry = registry.find(short_name)
    if entry is None or entry.network is None:
        return DEFAULT_CONFIG
    return NetworkConfig(**{k: tuple(v) if isinstance(v, list) else v for k, v in entry.network.items()})


TARGETS = ("return", "placement", "advantage")
# The learner's devices: the CPU, or a CUDA GPU (whether torch here has one is checked as a run starts).
LEARNER_DEVICES = r"cpu|cuda(:[0-9]{1,2})?"


@dataclass
class TrainConfig:
    """Settings of a deep Monte-Carlo training run (training/dmc.py).

    The defaults are the settings the shipped Page One bot was trained with,
    except that its first 40 minutes ran at a constant learning rate (the decay
    came in when it was resumed; docs/neural.md)."""

    game: str = field(default_factory=registry.default_game)   # the first registered game
    out: str = "runs/page_one"
    minutes: float = 30.0            # training wall time, this run and resumed ones together
    actors: int = 2
    games_per_batch: int = 32        # games each actor plays at once (its inference batch)
    buffer_size: int = 200_000       # replay buffer, in samples
    batch_size: int = 512
    lr: float = 5e-4
    lr_final: float = 0.1            # the learning rate falls linearly to lr * lr_final at the end
    replay_ratio: float = 4.0        # trainings per sample received, at most, on average
    epsilon: float = 0.05            # exploration of the actors
    rules_games: float = 0.75        # fraction of games with the rule bot in alternate seats
    guide_minutes: float = 8.0       # the rule bot guides network seats, less and less, this long
    guide_epsilon: float = 0.2       # exploration of the guided moves
    target: str = "return"           # what decisions learn: "return" (points), "placement" or "advantage"
    probe: float = 0.25              # target=advantage: fraction of decisions whose moves are played out
    baseline: str = "rules"          # target=advantage: the bot spec whose moves the network learns to improve on
    opponents: str = ""              # target=advantage: the bot spec of the other sides ("": the baseline everywhere)
    relative: bool = False           # target=advantage: a move's gain is its score less the baseline's move's score
    positions: str = ""              # target=advantage: the bot spec that plays the probed seats ("": the baseline)
    ema: float = 0.0                 # evaluate and export a moving average of the weights (decay a step); 0: off
    symmetry: bool = True            # relabel samples by random suit permutations, where declared
    sync_steps: int = 10             # learner steps between weight publications
    checkpoint_minutes: float = 3.0
    eval_deals: int = 200            # duplicate deals per evaluation (two games each)
    eval_play: str = ""              # play settings the evaluations rate each snapshot at, e.g. "margin=0.1"
    seed: int = 0
    device: str = "cpu"              # the learner's: cpu, cuda or cuda:N (the actors run on the CPU)
    hidden: list[int] = field(default_factory=list)   # empty: the game's documented config
    init: str = ""                   # a bot file whose network the run starts from ("": random weights)

    def __post_init__(self) -> None:
        checks = [("minutes", self.minutes > 0), ("actors", self.actors >= 1),
                  ("games_per_batch", self.games_per_batch >= 1),
                  ("buffer_size", self.buffer_size >= 4 * self.batch_size),
                  ("batch_size", self.batch_size >= 1), ("lr", self.lr > 0),
                  ("lr_final", 0 < self.lr_final <= 1),
                  ("replay_ratio", self.replay_ratio > 0), ("epsilon", 0 <= self.epsilon <= 1),
                  ("rules_games", 0 <= self.rules_games <= 1), ("guide_minutes", self.guide_minutes >= 0),
                  ("guide_epsilon", 0 <= self.guide_epsilon <= 1), ("sync_steps", self.sync_steps >= 1),
                  ("checkpoint_minutes", self.checkpoint_minutes > 0), ("eval_deals", self.eval_deals >= 2)]
        checks += [("target", self.target in TARGETS), ("ema", 0 <= self.ema < 1), ("probe", 0 < self.probe <= 1),
                   ("device", isinstance(self.device, str) and re.fullmatch(LEARNER_DEVICES, self.device) is not None)]
        advantage_only = {"baseline": self.baseline != "rules", "opponents": bool(self.opponents),
                          "relative": self.relative, "positions": bool(self.positions)}
        if self.target != "advantage" and any(advantage_only.values()):
            named = ", ".join(f"{name}={getattr(self, name)!r}" for name, set_ in advantage_only.items() if set_)
            raise ValueError(f"{named}: only a run with target=advantage plays a baseline; "
                             f"this one has target={self.target!r}")
        bad = [name for name, ok in checks if not ok]
        if bad:
            raise ValueError("bad training setting(s): " + ", ".join(f"{b}={getattr(self, b)!r}" for b in bad)
                             + " (buffer_size must hold at least 4 batches; fractions lie in [0, 1];"
                             " target is " + ", ".join(TARGETS) + "; ema lies in [0, 1); probe in (0, 1];"
                             " device is cpu, cuda or cuda:N)")
        if self.hidden:
            NetworkConfig(tuple(self.hidden))

    def guide_at(self, elapsed_s: float) -> float:
        """How often the rule bot makes a network seat's move: 1 at the start,
        falling linearly to 0 at guide_minutes (a warm start: the network first
        learns the action values of the rule bot's play, then of its own)."""
        if self.guide_minutes <= 0:
            return 0.0
        return max(0.0, 1.0 - elapsed_s / (60 * self.guide_minutes))

    def lr_at(self, elapsed_s: float) -> float:
        """Linear decay over the run: late steps average out the noise of
        Monte-Carlo returns instead of chasing it."""
        done = min(1.0, elapsed_s / (60 * self.minutes))
        return self.lr * (1.0 - (1.0 - self.lr_final) * done)

    def network_config(self, short_name: str) -> NetworkConfig:
        return NetworkConfig(tuple(self.hidden)) if self.hidden else network_config_for(short_name)
