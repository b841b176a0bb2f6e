"""The bot file: a trained network's weights in safetensors, with metadata that
says what it was made for, and nothing that can run code when it is read.

safetensors is a JSON header plus raw tensor bytes; reading it never unpickles.
We still look at the first bytes first, so that a pickle or a `torch.save` zip
is refused by name before any parser touches it. The metadata (all strings,
in the header's `__metadata__`):

    format            "cardarena-bot"
    format_version    "1"
    game              the full game string, parameters and all
    game_short_name   the game's short name (its registry name)
    game_parameters   JSON object of the game's parameters
    tensor_shape      JSON list, the information-state tensor's shape
    num_actions       the game's number of distinct actions
    network           JSON of agents.neural.config.NetworkConfig
    toolkit_version   the cardarena version that wrote it
    training          JSON notes on how it was trained (free form)
    checksum          "sha256:..." over the other metadata and every tensor

The checksum finds a file changed by accident; it is no signature, since anyone
can write a file with a correct one. So nothing in a file is trusted: every
declared size is checked against the tensors the file stores (and bounds)
before anything is allocated, and of the training notes only four are acted
on, each checked as the file is read:

    baseline   the bot a network of advantages plays over (agents/neural/
               advantage.py), one of BASELINE_BOTS with plain settings:
               `rules(...)`, `random`, or `neural(path=...)` whose path is
               relative and resolves inside the file's own folder (a bot file
               read under these same rules, at most MAX_BASELINE_DEPTH deep)
    relative   true or false
    play       the bot's default play settings, plain values
    members    an ensemble's members' networks (their sizes only)

The other notes (method, games, the run's settings, the members' paths) are
shown, never opened or run. A file that names anything else (an engine, a
module, an absolute path, a path out of its folder) is refused with one line
naming the file.
"""

from __future__ import annotations

import filecmp
import importlib.metadata
import json
import math
import os
import re
import shutil
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np
import torch
from safetensors import SafetensorError, safe_open
from safetensors.numpy import save_file

from agents import SHIPPED_BOTS, bot_file_location
from agents.neural.config import NetworkConfig
from agents.neural.encoding import GameIdentity
from agents.neural.network import PolicyValueNet, parameter_shapes
from games.spec import parse_spec
from search.netfile import checksum

FORMAT = "cardarena-bot"
FORMAT_VERSION = "1"
PROJECT_ROOT = SHIPPED_BOTS.parent

# First bytes of files that must never be parsed as a bot: pickles (protocol 2+
# starts with 0x80) and torch.save's zip archive, whose loading can run code.
_PICKLE_MAGIC = b"\x80"
_ZIP_MAGIC = b"PK\x03\x04"

# Bounds on what a bot file may declare, checked before anything is read or built:
# the largest network NetworkConfig allows (16 layers of 4096) is about 1 GB of
# weights; our games' tensors and action counts are under a thousand.
MAX_FILE_BYTES = 2 << 30
MAX_TENSOR_SIZE = 1 << 20
MAX_ACTIONS = 1 << 20

# The bots a bot file may name as its baseline: in-process bots whose settings
# are plain values. A search bot is not one (its settings name other bots and
# files), nor an engine (a program) nor any other registered name.
BASELINE_BOTS = ("rules", "random", "neural")
NEURAL_BASELINE_SETTINGS = ("path", "policy", "temperature", "symmetric", "margin", "strict_params")
MAX_BASELINE_DEPTH = 4          # a baseline's baseline's ...: deeper is refused (and so is a cycle)
MAX_SPEC_LENGTH = 500
# A recorded baseline's path: relative, its parts plain names (no '..', no hidden
# files, nothing a spec would split on); a rule bot's text settings: plain words.
_PATH_PART = re.compile(r"[A-Za-z0-9_+-][A-Za-z0-9_.+-]*")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Where save_bot puts a copy of a neural baseline that lies outside the new file's folder.
BASELINES_FOLDER = "baselines"


class BotFileError(ValueError):
    """A bot file is malformed, untrusted, tampered with, or made for another game."""


@dataclass(frozen=True)
class Baseline:
    """The bot a network of advantages plays over, as its bot file names it: `spec`
    as written in the file; `file`, a neural baseline's bot file, resolved."""

    spec: str
    name: str
    settings: dict[str, Any]
    file: Path | None = None

    def key(self) -> tuple:
        """What makes two baselines the same bot: its name and settings, and for a
        neural one its file's checksum (two copies of one file are one baseline)."""
        settings = tuple(sorted((k, v) for k, v in self.settings.items() if k != "path"))
        if self.file is None:
            return self.name, settings
        return self.name, load_bot(self.file).metadata["checksum"], settings

    def absolute_spec(self) -> str:
        """The spec with a neural baseline's path made absolute: how a writer names it
        (save_bot turns it back into a path relative to the new file's folder)."""
        if self.file is None:
            return self.spec
        return _spec(self.name, {**self.settings, "path": str(self.file)})


@dataclass(frozen=True)
class BotFile:
    """A loaded bot: its network (in eval mode), its metadata, where it was read
    from and its checked baseline (None: its scores are values, not gains)."""

    net: PolicyValueNet
    identity: GameIdentity
    metadata: dict[str, str]
    path: Path | None = None
    baseline: Baseline | None = None

    @property
    def training(self) -> dict[str, Any]:
        """How it was trained (JSON notes): its baseline and play settings, where it has them."""
        return json.loads(self.metadata.get("training", "{}"))


def shipped_bot_path(short_name: str) -> Path:
    """The bot shipped in bots/ for a game (what `neural` plays without a path)."""
    path = SHIPPED_BOTS / f"{short_name}.safetensors"
    if not path.is_file():
        have = sorted(p.stem for p in SHIPPED_BOTS.glob("*.safetensors") if "." not in p.stem)
        raise ValueError(f"no shipped neural bot for game {short_name!r} (shipped: "
                         f"{', '.join(have) or 'none'}); pass path=... to a bot file")
    return path


def bot_file_path(path: str | None, short_name: str) -> Path:
    """The bot file a spec's `path` names: the game's shipped one for none (or
    `shipped`); a relative path from the working directory, else from the
    project's folder, so that a spec naming `bots/earlier/...` (the play table's
    options, docs/search.md's commands) works from any directory."""
    if path in (None, "", "shipped"):
        return shipped_bot_path(short_name)
    return bot_file_location(str(path))


def toolkit_version() -> str:

    try:
        return importlib.metadata.version("cardarena")
    except importlib.metadata.PackageNotFoundError:   # running from a checkout
        with open(PROJECT_ROOT / "pyproject.toml", "rb") as f:
            return tomllib.load(f)["project"]["version"]


def save_bot(path: str | Path, net: PolicyValueNet, identity: GameIdentity,
             training: dict[str, Any] | None = None) -> Path:
    """Writes `net` for the game `identity` describes; returns the path.

    A `baseline` in `training` is a spec from the writer (a command line, a
    run's settings), checked as a file's would be: a neural baseline's path,
    from the working directory, is written relative to the new file's folder,
    its file (and its own baselines') copied into `baselines/<checksum>/` there
    when it lies outside, so that the file names nothing out of its folder."""
    path = Path(path)
    notes = dict(training or {})
    if notes.get("baseline") is not None:
        notes["baseline"] = _record_baseline(notes["baseline"], path, identity)
    tensors = {name: t.detach().cpu().contiguous().numpy() for name, t in net.state_dict().items()}
    metadata = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "game": identity.game_string,
        "game_short_name": identity.short_name,
        "game_parameters": json.dumps(identity.parameters, sort_keys=True),
        "tensor_shape": json.dumps([identity.tensor_size]),
        "num_actions": str(identity.num_actions),
        "network": net.config.to_json(),
        "toolkit_version": toolkit_version(),
        "training": json.dumps(notes, sort_keys=True),
    }
    metadata["checksum"] = checksum(metadata, tensors)
    path.parent.mkdir(parents=True, exist_ok=True)
    save_file(tensors, str(path), metadata=metadata)
    return path


# ----------------------------------------------------------------------------- baselines
def _shown(text: object, limit: int = 120) -> str:
    """repr(text), cut to `limit` characters: whatever a file says, an error stays one short line."""
    shown = repr(text)
    return shown if len(shown) <= limit else shown[:limit] + "..."


def _spec(name: str, settings: dict[str, Any]) -> str:
    """The spec text of a bot and its plain settings (read back by games.spec.parse_spec)."""
    if not settings:
        return name
    text = {k: ("true" if v else "false") if isinstance(v, bool) else str(v) for k, v in settings.items()}
    return f"{name}({','.join(f'{k}={v}' for k, v in text.items())})"


def parse_file_bot(spec: object, where: str) -> tuple[str, dict[str, Any]]:
    """The name and settings of a bot spec read from a file (a bot file's
    baseline, a checkpoint's bots), refused unless it is one of BASELINE_BOTS
    with plain settings: numbers, true/false, words, and a neural bot's path
    (checked by the caller, who knows where it is read from)."""
    if not isinstance(spec, str) or len(spec) > MAX_SPEC_LENGTH:
        raise BotFileError(f"{where}: a bot spec of at most {MAX_SPEC_LENGTH} characters was expected; "
                           f"got {_shown(spec)}")
    refusal = (f"{where} {_shown(spec)} is refused: a bot named in a file may be only "
               f"{', '.join(BASELINE_BOTS)}, with plain settings")
    try:
        name, settings = parse_spec(spec)
    except ValueError:
        raise BotFileError(refusal) from None
    if name not in BASELINE_BOTS:
        raise BotFileError(f"{refusal} (not {name!r}: nothing read from a file may start a program or load code)")
    if name == "random" and settings:
        raise BotFileError(f"{refusal} (random has none)")
    if name == "neural" and set(settings) - set(NEURAL_BASELINE_SETTINGS):
        raise BotFileError(f"{refusal} (a neural bot's: {', '.join(NEURAL_BASELINE_SETTINGS)})")
    for key, value in settings.items():
        plain = (isinstance(value, (bool, int)) or (isinstance(value, float) and math.isfinite(value))
                 or (name, key) == ("neural", "path") or (isinstance(value, str) and _WORD.fullmatch(value)))
        if not plain:
            raise BotFileError(f"{refusal} (not {key}={_shown(value)})")
    return name, settings


def read_baseline(spec: object, bot_path: Path) -> Baseline:
    """The baseline a bot file at `bot_path` names, checked: BASELINE_BOTS with
    plain settings, a neural one's path relative and inside the file's folder."""
    where = f"bot file {bot_path}: its baseline"
    name, settings = parse_file_bot(spec, where)
    if name != "neural":
        return Baseline(spec=spec, name=name, settings=settings)
    text = settings.get("path")
    parts = text.split("/") if isinstance(text, str) else []
    if not parts or not all(_PATH_PART.fullmatch(part) for part in parts) or not text.endswith(".safetensors"):
        raise BotFileError(f"{where} {_shown(spec)} is refused: a neural baseline's path must be a "
                           f"relative path to a .safetensors file in the bot file's own folder, without '..'")
    folder = bot_path.resolve().parent
    file = (folder / text).resolve()
    if not file.is_relative_to(folder):        # a link out of the folder
        raise BotFileError(f"{where} {_shown(spec)} is refused: its path leads out of the bot "
                           f"file's folder {folder}")
    return Baseline(spec=spec, name=name, settings=settings, file=file)


def writer_baseline(spec: object, identity: GameIdentity) -> Baseline:
    """A baseline named by whoever writes a bot file (a command line, a run's
    settings): BASELINE_BOTS with plain settings, a neural one's path from the
    working directory (or the project's folder; none: the game's shipped bot),
    its file and its own baselines' read and checked for `identity`'s game."""
    name, settings = parse_file_bot(spec, "a bot file's baseline")
    if name != "neural":
        return Baseline(spec=spec, name=name, settings=settings)
    file = bot_file_path(settings.get("path"), identity.short_name).resolve()
    baseline_chain(file, identity, bool(settings.get("strict_params", True)))
    return Baseline(spec=spec, name=name, settings={**settings, "path": str(file)}, file=file)


def baseline_chain(file: Path, identity: GameIdentity, strict_params: bool = True) -> list[Path]:
    """A new bot file's neural baseline `file` and the baselines beneath it, each
    read and checked for `identity`'s game; a cycle, or more than
    MAX_BASELINE_DEPTH in all, is refused. Each lies inside the folder of the one above."""
    chain = [file.resolve()]
    while True:
        bot = load_bot(chain[-1], identity, strict_params)
        if bot.baseline is None or bot.baseline.file is None:
            return chain
        if bot.baseline.file in chain:
            raise BotFileError(f"bot file {chain[-1]}: its baseline {bot.baseline.spec!r} leads back to "
                               f"{bot.baseline.file}: the baselines go round in a cycle")
        if len(chain) >= MAX_BASELINE_DEPTH:
            raise BotFileError(f"bot file {file}: the baselines beneath it nest deeper than {MAX_BASELINE_DEPTH}")
        chain.append(bot.baseline.file)
        strict_params = bool(bot.baseline.settings.get("strict_params", True))


def _record_baseline(spec: object, out: Path, identity: GameIdentity) -> str:
    """The baseline spec to write into the bot file `out`: as given for a rule or
    random bot; for a neural one, its path relative to out's folder, the file
    (with the baselines beneath it, at the same places relative to it) copied
    into `baselines/<its checksum>/` in out's folder first where it lies outside."""
    baseline = writer_baseline(spec, identity)
    if baseline.file is None:
        return baseline.spec
    folder = out.resolve().parent
    file = baseline.file
    if not file.is_relative_to(folder):
        checksum = load_bot(file).metadata["checksum"].removeprefix("sha256:")
        into = folder / BASELINES_FOLDER / checksum[:16]
        for source in baseline_chain(file, identity, bool(baseline.settings.get("strict_params", True))):
            _copy(source, into / source.relative_to(file.parent))
        file = into / file.name
    recorded = _spec("neural", {**baseline.settings, "path": file.relative_to(folder).as_posix()})
    read_baseline(recorded, out)            # what is written must read back
    return recorded


def _copy(source: Path, copy: Path) -> None:
    """`source` copied to `copy`, whole or not at all; the same file already there
    is kept, another one is refused (never overwritten)."""
    if copy.exists():
        if not filecmp.cmp(source, copy, shallow=False):
            raise BotFileError(f"cannot copy the baseline {source} to {copy}: another file is there")
        return
    copy.parent.mkdir(parents=True, exist_ok=True)
    part = copy.with_name(f".{copy.name}.part")
    shutil.copyfile(source, part)
    os.replace(part, copy)


# ----------------------------------------------------------------------------- reading
def _refuse_code_formats(path: Path) -> None:
    with open(path, "rb") as f:
        head = f.read(9)
    # A safetensors file opens with its header's length (8 bytes, little-endian) and then the
    # header's "{"; a length whose low byte is 0x80 looks like a pickle's first byte, so the
    # safetensors shape is told apart first (safe_open, which reads it, runs no code either way).
    if head[8:9] == b"{":
        return
    if head.startswith(_ZIP_MAGIC) or head.startswith(_PICKLE_MAGIC):
        kind = "a torch.save zip archive" if head.startswith(_ZIP_MAGIC) else "a Python pickle"
        raise BotFileError(f"{path} is {kind}, not a cardarena bot file: loading it could run "
                           f"code, so it is refused; make a bot file with `cardarena export`")
    if len(head) < 8:
        raise BotFileError(f"{path} is truncated or empty ({len(head)} bytes): not a cardarena bot file")


def _safetensors(path: Path, read: Callable[[Any], Any]) -> Any:
    """`read(the open file)`, a safetensors parser's refusal made one line naming the file."""
    try:
        with safe_open(str(path), framework="numpy") as f:
            return read(f)
    except (SafetensorError, OSError, ValueError, TypeError) as e:
        raise BotFileError(f"{path} is not a readable safetensors bot file (truncated or corrupt?): "
                           f"{_shown(str(e))}") from e


def _header(f: Any) -> tuple[dict[str, str], dict[str, tuple[tuple[int, ...], str]]]:
    """The metadata, and each stored tensor's shape and dtype, from the header alone."""
    stored = {}
    for name in f.keys():
        part = f.get_slice(name)
        stored[name] = (tuple(part.get_shape()), part.get_dtype())
    return f.metadata() or {}, stored


def _field(metadata: dict[str, str], key: str, path: Path) -> str:
    if key not in metadata:
        raise BotFileError(f"{path} lacks the metadata field {key!r}: not a complete cardarena bot file")
    return metadata[key]


def _json(metadata: dict[str, str], key: str, path: Path) -> Any:
    try:
        return json.loads(_field(metadata, key, path))
    except (ValueError, RecursionError):
        raise BotFileError(f"{path}: its metadata field {key!r} is not JSON: "
                           f"{_shown(metadata[key], 60)}") from None


def _size(value: Any, key: str, bound: int, path: Path) -> int:
    """A declared size: an integer from 1 to `bound` (not 1e9, not true, not NaN)."""
    if isinstance(value, str) and re.fullmatch(r"[0-9]{1,12}", value):
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= bound:
        raise BotFileError(f"{path}: its metadata field {key!r} declares a size of {_shown(value, 40)}; "
                           f"a size is an integer from 1 to {bound}")
    return value


def _identity(metadata: dict[str, str], path: Path) -> GameIdentity:
    shape = _json(metadata, "tensor_shape", path)
    if not isinstance(shape, list) or len(shape) != 1:
        raise BotFileError(f"{path}: its metadata field 'tensor_shape' must be a list of one size; "
                           f"got {_shown(shape, 40)}")
    parameters = _json(metadata, "game_parameters", path)
    if not isinstance(parameters, dict):
        raise BotFileError(f"{path}: its metadata field 'game_parameters' must be a JSON object")
    return GameIdentity(short_name=_field(metadata, "game_short_name", path),
                        game_string=_field(metadata, "game", path), parameters=parameters,
                        tensor_size=_size(shape[0], "tensor_shape", MAX_TENSOR_SIZE, path),
                        num_actions=_size(_field(metadata, "num_actions", path), "num_actions", MAX_ACTIONS, path))


def _check_notes(training: Any, path: Path) -> Baseline | None:
    """The training notes a loader acts on, checked (see the module docstring);
    returns the baseline they name."""
    if not isinstance(training, dict):
        raise BotFileError(f"{path}: its metadata field 'training' must be a JSON object")
    if not isinstance(training.get("relative", False), bool):
        raise BotFileError(f"{path}: its training note 'relative' must be true or false")
    play = training.get("play", {})
    if not isinstance(play, dict) or not all(isinstance(v, (bool, int, float)) or isinstance(v, str) and len(v) <= 40
                                             for v in play.values()):
        raise BotFileError(f"{path}: its training note 'play' must be an object of plain settings")
    members = training.get("members", [])
    try:
        if not isinstance(members, list):
            raise ValueError("not a list")
        for member in members:
            NetworkConfig.from_json(json.dumps(member["network"]))
    except (ValueError, TypeError, KeyError, RecursionError) as e:
        raise BotFileError(f"{path}: its training note 'members' is not a list of members' networks "
                           f"({_shown(str(e), 80)})") from None
    baseline = training.get("baseline")
    return None if baseline is None else read_baseline(baseline, path)


def check_game(identity: GameIdentity, game: GameIdentity, path: Path | str,
               strict_params: bool = True) -> None:
    """Raises BotFileError unless a bot made for `identity` can play `game`.
    Parameters a match changes between deals (GameIdentity.deal_parameters) may differ."""
    if identity.short_name != game.short_name:
        raise BotFileError(f"{path} was made for game {_shown(identity.short_name, 60)}, not {game.short_name!r}")
    if (identity.tensor_size, identity.num_actions) != (game.tensor_size, game.num_actions):
        raise BotFileError(
            f"{path} was made for {_shown(identity.game_string, 200)} (information-state tensor of "
            f"{identity.tensor_size}, {identity.num_actions} actions); {game.game_string} has "
            f"{game.tensor_size} and {game.num_actions}")
    diff = sorted(k for k in set(identity.parameters) | set(game.parameters)
                  if identity.parameters.get(k) != game.parameters.get(k) and k not in game.deal_parameters)
    if strict_params and diff:
        shown = ", ".join(f"{k}: {identity.parameters.get(k)!r} vs {game.parameters.get(k)!r}" for k in diff)
        raise BotFileError(f"{path} was trained on other game parameters ({_shown(shown, 300)}); pass "
                           f"strict_params=false to play it anyway")


def load_bot(path: str | Path, game: GameIdentity | None = None, strict_params: bool = True) -> BotFile:
    """Reads and checks a bot file. With `game`, also checks that it was made for it.

    Raises BotFileError (a ValueError) naming the file and the problem; nothing
    in the file is ever executed, and nothing is allocated for a size the file
    declares before the tensors it stores are seen to have it.
    """
    path = Path(path)
    if not path.is_file():
        raise BotFileError(f"no bot file at {path}")
    if path.stat().st_size > MAX_FILE_BYTES:
        raise BotFileError(f"{path} is {path.stat().st_size} bytes; a bot file is at most {MAX_FILE_BYTES}")
    _refuse_code_formats(path)
    metadata, stored = _safetensors(path, _header)
    if metadata.get("format") != FORMAT:
        raise BotFileError(f"{path} is a safetensors file but not a cardarena bot (format "
                           f"{_shown(metadata.get('format'), 40)}, expected {FORMAT!r})")
    if _field(metadata, "format_version", path) != FORMAT_VERSION:
        raise BotFileError(f"{path} has bot format version {_shown(metadata['format_version'], 40)}; "
                           f"this toolkit reads version {FORMAT_VERSION}")
    identity = _identity(metadata, path)
    if game is not None:
        check_game(identity, game, path, strict_params)
    try:
        config = NetworkConfig.from_json(_field(metadata, "network", path))
    except ValueError as e:
        raise BotFileError(f"{path}: its metadata field 'network' is not a network config: {e}") from e
    # The declared sizes against the header's shapes, by arithmetic, before a tensor is read or a network built.
    expected = parameter_shapes(identity.tensor_size, identity.num_actions, config)
    found = {name: shape for name, (shape, _) in stored.items()}
    if expected != found:
        wrong = sorted(n for n in set(expected) | set(found) if expected.get(n) != found.get(n))
        raise BotFileError(f"{path}: its tensors do not match its metadata fields 'tensor_shape', "
                           f"'num_actions' and 'network' ({_shown(config.hidden, 60)}): {_shown(wrong, 100)} "
                           f"stored as {_shown([found.get(n) for n in wrong], 100)}, declared "
                           f"{_shown([expected.get(n) for n in wrong], 100)}")
    if any(dtype != "F32" for _, dtype in stored.values()):
        raise BotFileError(f"{path}: its tensors are not all float32")
    tensors = _safetensors(path, lambda f: {name: f.get_tensor(name) for name in f.keys()})
    if checksum(metadata, tensors) != _field(metadata, "checksum", path):
        raise BotFileError(f"{path} fails its checksum: the file was changed after it was written")
    if not all(np.isfinite(t).all() for t in tensors.values()):
        raise BotFileError(f"{path}: its weights are not all finite numbers (NaN or infinity)")
    baseline = _check_notes(_json(metadata, "training", path) if "training" in metadata else {}, path)
    net = PolicyValueNet(identity.tensor_size, identity.num_actions, config)
    net.load_state_dict({name: torch.from_numpy(t.copy()) for name, t in tensors.items()})
    net.eval()
    return BotFile(net=net, identity=identity, metadata=metadata, path=path, baseline=baseline)
