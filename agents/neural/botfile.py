"""The bot file: a trained network's weights in safetensors, with metadata that
says what it was made for, and nothing that can run code when it is read.

safetensors is a JSON header plus raw tensor bytes; reading it never unpickles.
We still look at the first bytes first, so that a pickle or a `torch.save` zip
is refused by name before any parser touches it. The metadata (all strings,
in the header's `__metadata__`):

    format            "cardarena-bot"
    format_version    "1"
    game              the full game string, e.g. python_page_one(...,players=4,...)
    game_short_name   e.g. python_page_one
    game_parameters   JSON object of the game's parameters
    tensor_shape      JSON list, the information-state tensor's shape
    num_actions       the game's number of distinct actions
    network           JSON of agents.neural.config.NetworkConfig
    toolkit_version   the cardarena version that wrote it
    training          JSON notes on how it was trained (free form)
    checksum          "sha256:..." over the other metadata and every tensor
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from safetensors import SafetensorError, safe_open
from safetensors.numpy import save_file

from agents.neural.config import NetworkConfig
from agents.neural.encoding import GameIdentity
from agents.neural.network import PolicyValueNet

FORMAT = "cardarena-bot"
FORMAT_VERSION = "1"
_REPO_ROOT = Path(__file__).resolve().parents[2]

# First bytes of files that must never be parsed as a bot: pickles (protocol 2+
# starts with 0x80) and torch.save's zip archive, whose loading can run code.
_PICKLE_MAGIC = b"\x80"
_ZIP_MAGIC = b"PK\x03\x04"


class BotFileError(ValueError):
    """A bot file is malformed, untrusted, tampered with, or made for another game."""


@dataclass(frozen=True)
class BotFile:
    """A loaded bot: its network (in eval mode) and its metadata."""

    net: PolicyValueNet
    identity: GameIdentity
    metadata: dict[str, str]

    @property
    def training(self) -> dict[str, Any]:
        """How it was trained (JSON notes): its baseline and play settings, where it has them."""
        return json.loads(self.metadata.get("training", "{}"))


def toolkit_version() -> str:
    try:
        return importlib.metadata.version("cardarena")
    except importlib.metadata.PackageNotFoundError:   # running from a checkout
        with open(_REPO_ROOT / "pyproject.toml", "rb") as f:
            return tomllib.load(f)["project"]["version"]


def _checksum(metadata: dict[str, str], tensors: dict[str, np.ndarray]) -> str:
    h = hashlib.sha256()
    for key in sorted(metadata):
        if key != "checksum":
            h.update(f"{key}={metadata[key]}\n".encode())
    for name in sorted(tensors):
        t = np.ascontiguousarray(tensors[name])
        h.update(f"{name}:{t.dtype.str}:{list(t.shape)}\n".encode())
        h.update(t.tobytes())
    return "sha256:" + h.hexdigest()


def save_bot(path: str | Path, net: PolicyValueNet, identity: GameIdentity,
             training: dict[str, Any] | None = None) -> Path:
    """Writes `net` for the game `identity` describes; returns the path."""
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
        "training": json.dumps(training or {}, sort_keys=True),
    }
    metadata["checksum"] = _checksum(metadata, tensors)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    save_file(tensors, str(path), metadata=metadata)
    return path


def _refuse_code_formats(path: Path) -> None:
    with open(path, "rb") as f:
        head = f.read(8)
    if head.startswith(_ZIP_MAGIC) or head.startswith(_PICKLE_MAGIC):
        kind = "a torch.save zip archive" if head.startswith(_ZIP_MAGIC) else "a Python pickle"
        raise BotFileError(f"{path} is {kind}, not a cardarena bot file: loading it could run "
                           f"code, so it is refused; make a bot file with `cardarena export`")
    if len(head) < 8:
        raise BotFileError(f"{path} is truncated or empty ({len(head)} bytes): not a cardarena bot file")


def _read(path: Path) -> tuple[dict[str, str], dict[str, np.ndarray]]:
    try:
        with safe_open(str(path), framework="numpy") as f:
            metadata = f.metadata() or {}
            tensors = {name: f.get_tensor(name) for name in f.keys()}
    except (SafetensorError, OSError, ValueError) as e:
        raise BotFileError(f"{path} is not a readable safetensors bot file (truncated or corrupt?): {e}") from e
    return metadata, tensors


def _field(metadata: dict[str, str], key: str, path: Path) -> str:
    if key not in metadata:
        raise BotFileError(f"{path} lacks the metadata field {key!r}: not a complete cardarena bot file")
    return metadata[key]


def _identity(metadata: dict[str, str], path: Path) -> GameIdentity:
    try:
        shape = json.loads(_field(metadata, "tensor_shape", path))
        return GameIdentity(short_name=_field(metadata, "game_short_name", path),
                            game_string=_field(metadata, "game", path),
                            parameters=json.loads(_field(metadata, "game_parameters", path)),
                            tensor_size=int(shape[0]),
                            num_actions=int(_field(metadata, "num_actions", path)))
    except (ValueError, TypeError, IndexError, KeyError) as e:
        raise BotFileError(f"{path} has malformed game metadata: {e}") from e


def check_game(identity: GameIdentity, game: GameIdentity, path: Path | str,
               strict_params: bool = True) -> None:
    """Raises BotFileError unless a bot made for `identity` can play `game`.
    Parameters a match changes between deals (GameIdentity.deal_parameters) may differ."""
    if identity.short_name != game.short_name:
        raise BotFileError(f"{path} was made for game {identity.short_name!r}, not {game.short_name!r}")
    if (identity.tensor_size, identity.num_actions) != (game.tensor_size, game.num_actions):
        raise BotFileError(
            f"{path} was made for {identity.game_string} (information-state tensor of "
            f"{identity.tensor_size}, {identity.num_actions} actions); {game.game_string} has "
            f"{game.tensor_size} and {game.num_actions}")
    diff = sorted(k for k in set(identity.parameters) | set(game.parameters)
                  if identity.parameters.get(k) != game.parameters.get(k) and k not in game.deal_parameters)
    if strict_params and diff:
        shown = ", ".join(f"{k}: {identity.parameters.get(k)!r} vs {game.parameters.get(k)!r}" for k in diff)
        raise BotFileError(f"{path} was trained on other game parameters ({shown}); pass "
                           f"strict_params=false to play it anyway")


def load_bot(path: str | Path, game: GameIdentity | None = None, strict_params: bool = True) -> BotFile:
    """Reads and checks a bot file. With `game`, also checks that it was made for it.

    Raises BotFileError (a ValueError) naming the problem; nothing in the file
    is ever executed.
    """
    path = Path(path)
    if not path.is_file():
        raise BotFileError(f"no bot file at {path}")
    _refuse_code_formats(path)
    metadata, tensors = _read(path)
    if metadata.get("format") != FORMAT:
        raise BotFileError(f"{path} is a safetensors file but not a cardarena bot (format "
                           f"{metadata.get('format')!r}, expected {FORMAT!r})")
    if _field(metadata, "format_version", path) != FORMAT_VERSION:
        raise BotFileError(f"{path} has bot format version {metadata['format_version']!r}; "
                           f"this toolkit reads version {FORMAT_VERSION}")
    if _checksum(metadata, tensors) != _field(metadata, "checksum", path):
        raise BotFileError(f"{path} fails its checksum: the file was changed after it was written")
    identity = _identity(metadata, path)
    if game is not None:
        check_game(identity, game, path, strict_params)
    try:
        config = NetworkConfig.from_json(_field(metadata, "network", path))
    except ValueError as e:
        raise BotFileError(f"{path} has a malformed network config: {e}") from e
    net = PolicyValueNet(identity.tensor_size, identity.num_actions, config)
    expected = {name: tuple(t.shape) for name, t in net.state_dict().items()}
    found = {name: tuple(t.shape) for name, t in tensors.items()}
    if expected != found:
        raise BotFileError(f"{path}: its tensors {found} do not match its network config "
                           f"{config} (expected {expected})")
    net.load_state_dict({name: torch.from_numpy(t.copy()) for name, t in tensors.items()})
    net.eval()
    return BotFile(net=net, identity=identity, metadata=metadata)
