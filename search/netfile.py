"""The network files the search reads: a value network (what a full state is worth)
and a belief network (where the cards a seat cannot see lie), as plain multilayer
perceptrons evaluated in numpy, one position at a time, with no torch at play time.

A file is safetensors (a JSON header and raw tensor bytes; reading it never
unpickles) with string metadata:

    format            "cardarena-net"
    format_version    "1"
    kind              "value", "belief" or "luck" (a value for luck, eval/luck.py)
    game              the full game string it was trained on
    game_short_name   the game's short name (its registry name)
    players           the game's number of players
    input_size        the length of its input vector (checked against the game's encoder)
    output_shape      JSON list, the shape its output is read as
    scale             JSON number: a value network's outputs are multiplied by it
    training          JSON notes on how it was trained (shown, never acted on)
    checksum          "sha256:..." over the other metadata and every tensor

and tensors `layer.K.weight` (out, in) and `layer.K.bias` (out), K = 0, 1, ...;
a ReLU follows every layer but the last. Nothing in a file is trusted: the
header is read and every tensor's shape checked (each layer's input is the last
one's output, the first takes `input_size`, the last gives `output_shape`)
before a tensor is read, so a file can make us allocate no more than it stores,
and it names no program, module or other file.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

FORMAT = "cardarena-net"
FORMAT_VERSION = "1"
KINDS = ("value", "belief", "luck")
MAX_FILE_BYTES = 1 << 30
MAX_LAYERS = 16
MAX_WIDTH = 1 << 14
_LAYER_KEY = re.compile(r"layer\.(\d+)\.(weight|bias)")
PROJECT_ROOT = Path(__file__).resolve().parents[1]
SHIPPED = PROJECT_ROOT / "bots"


class NetFileError(ValueError):
    """A network file is malformed, tampered with, or made for another game."""


@dataclass
class Mlp:
    """Layers (weight (out, in), bias (out)) evaluated with a ReLU between them."""

    layers: list[tuple[np.ndarray, np.ndarray]]

    @property
    def input_size(self) -> int:
        return self.layers[0][0].shape[1]

    def __call__(self, x: np.ndarray) -> np.ndarray:
        """The outputs for one input vector (or a batch of rows)."""
        last = len(self.layers) - 1
        for i, (w, b) in enumerate(self.layers):
            x = x @ w.T + b
            if i < last:
                np.maximum(x, 0.0, out=x)
        return x


@dataclass
class NetFile:
    """A loaded network with what its file says of it."""

    mlp: Mlp
    kind: str
    game: str
    players: int
    output_shape: tuple[int, ...]
    scale: float
    metadata: dict[str, str]
    path: Path | None = None

    @property
    def training(self) -> dict[str, Any]:
        return json.loads(self.metadata.get("training", "{}"))


def shipped_path(game, kind: str) -> Path:
    """Where the network of `kind` shipped for a game (a pyspiel game) and its player
    count lies: bots/<game>.<players>p.<kind>.safetensors."""
    return SHIPPED / f"{game.get_type().short_name}.{game.num_players()}p.{kind}.safetensors"


def resolve(path: str | None, game, kind: str) -> Path:
    """The file a setting names: `shipped` (the game's network in bots/), else a
    path, relative ones from the working directory, then from the project."""
    if path in (None, "", "shipped"):
        file = shipped_path(game, kind)
        if not file.is_file():
            raise NetFileError(f"no {kind} network shipped for {game.get_type().short_name} with "
                               f"{game.num_players()} players ({file.name} is not in bots/); give {kind}=FILE")
        return file
    file = Path(str(path))
    if not file.is_absolute() and not file.exists() and (PROJECT_ROOT / file).exists():
        return PROJECT_ROOT / file
    return file


def checksum(metadata: dict[str, str], tensors: dict[str, np.ndarray]) -> str:
    """sha256 over every metadata field but the checksum and every tensor (name, dtype,
    shape, bytes): what a bot file (agents/neural/botfile.py) and a network file carry."""
    h = hashlib.sha256()
    for key in sorted(metadata):
        if key != "checksum":
            h.update(f"{key}={metadata[key]}\n".encode())
    for name in sorted(tensors):
        t = np.ascontiguousarray(tensors[name])
        h.update(f"{name}:{t.dtype.str}:{list(t.shape)}\n".encode())
        h.update(t.tobytes())
    return "sha256:" + h.hexdigest()


def save(path: str | os.PathLike, layers: Sequence[tuple[np.ndarray, np.ndarray]], *, kind: str,
         game: str, short_name: str, players: int, output_shape: Sequence[int], scale: float = 1.0,
         training: dict[str, Any] | None = None) -> Path:
    """Writes a network file (see the module docstring); returns its path."""
    from safetensors.numpy import save_file
    if kind not in KINDS:
        raise ValueError(f"kind={kind!r}: must be one of {', '.join(KINDS)}")
    tensors = {}
    for i, (w, b) in enumerate(layers):
        tensors[f"layer.{i}.weight"] = np.ascontiguousarray(w, np.float32)
        tensors[f"layer.{i}.bias"] = np.ascontiguousarray(b, np.float32)
    metadata = {"format": FORMAT, "format_version": FORMAT_VERSION, "kind": kind, "game": game,
                "game_short_name": short_name, "players": str(players),
                "input_size": str(int(layers[0][0].shape[1])),
                "output_shape": json.dumps([int(d) for d in output_shape]),
                "scale": json.dumps(float(scale)), "training": json.dumps(training or {}, sort_keys=True)}
    metadata["checksum"] = checksum(metadata, tensors)
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    try:
        save_file(tensors, str(tmp), metadata=metadata)
        os.replace(tmp, path)          # whole or not at all
    finally:
        if tmp.exists():
            tmp.unlink()
    return path


def _header(path: Path) -> tuple[dict[str, Any], int]:
    """The safetensors header (JSON) and where the tensor bytes start."""
    if not path.is_file():
        raise NetFileError(f"{path}: no such file")
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise NetFileError(f"{path}: {size} bytes is too large for a network file")
    with open(path, "rb") as f:
        head = f.read(8)
        if len(head) < 8:
            raise NetFileError(f"{path}: not a network file (too short)")
        length = int.from_bytes(head, "little")
        if not 2 <= length <= min(size - 8, 1 << 24):
            raise NetFileError(f"{path}: not a network file (bad header length)")
        try:
            header = json.loads(f.read(length), parse_constant=lambda c: None)
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
            raise NetFileError(f"{path}: not a network file (its header is not JSON)") from None
    if not isinstance(header, dict):
        raise NetFileError(f"{path}: not a network file (its header is not an object)")
    return header, 8 + length


def _meta(metadata: dict[str, str], key: str, path: Path) -> str:
    value = metadata.get(key)
    if not isinstance(value, str):
        raise NetFileError(f"{path}: its metadata has no {key!r}")
    return value


def load(path: str | os.PathLike, *, kind: str, game: Any | None = None, input_size: int | None = None) -> NetFile:
    """Reads and checks a network file of `kind`; with `game` (a pyspiel game),
    refuses a file made for another game or player count, and with `input_size`
    one whose input does not match. Raises NetFileError with one line."""
    path = Path(path)
    header, start = _header(path)
    metadata = header.pop("__metadata__", None)
    if not isinstance(metadata, dict) or metadata.get("format") != FORMAT:
        raise NetFileError(f"{path}: not a cardarena network file")
    if metadata.get("format_version") != FORMAT_VERSION:
        raise NetFileError(f"{path}: format version {metadata.get('format_version')!r}, this toolkit reads "
                           f"{FORMAT_VERSION}")
    if metadata.get("kind") != kind:
        raise NetFileError(f"{path}: a {metadata.get('kind')!r} network, not a {kind} network")
    try:
        players = int(_meta(metadata, "players", path))
        declared_input = int(_meta(metadata, "input_size", path))
        output_shape = tuple(int(d) for d in json.loads(_meta(metadata, "output_shape", path)))
        scale = float(json.loads(_meta(metadata, "scale", path)))
        json.loads(_meta(metadata, "training", path))
    except (ValueError, TypeError, RecursionError):
        raise NetFileError(f"{path}: malformed metadata") from None
    if not math.isfinite(scale) or scale <= 0 or not 1 <= players <= 64 or not output_shape \
            or any(d < 1 for d in output_shape) or math.prod(output_shape) > MAX_WIDTH:
        raise NetFileError(f"{path}: malformed metadata (players, output shape or scale)")
    if game is not None:
        short = game.get_type().short_name
        if metadata.get("game_short_name") != short or players != game.num_players():
            raise NetFileError(f"{path}: made for {metadata.get('game')!r}, not {str(game)!r}")
    if input_size is not None and declared_input != input_size:
        raise NetFileError(f"{path}: its input is {declared_input} numbers, this game's encoding gives {input_size}")
    # Shapes first, from the header: a chain of layers from input_size to the output.
    layers: dict[int, dict[str, tuple[list[int], list[int]]]] = {}
    for name, info in header.items():
        m = _LAYER_KEY.fullmatch(name)
        if m is None or not isinstance(info, dict):
            raise NetFileError(f"{path}: unexpected tensor {name[:40]!r}")
        shape, offsets = info.get("shape"), info.get("data_offsets")
        if info.get("dtype") != "F32" or not isinstance(shape, list) or not isinstance(offsets, list):
            raise NetFileError(f"{path}: tensor {name} is not float32")
        layers.setdefault(int(m.group(1)), {})[m.group(2)] = (shape, offsets)
    if not 1 <= len(layers) <= MAX_LAYERS or sorted(layers) != list(range(len(layers))):
        raise NetFileError(f"{path}: its layers are not numbered 0..K")
    width = declared_input
    for i in range(len(layers)):
        parts = layers[i]
        if set(parts) != {"weight", "bias"}:
            raise NetFileError(f"{path}: layer {i} needs a weight and a bias")
        w_shape, b_shape = parts["weight"][0], parts["bias"][0]
        if (len(w_shape) != 2 or w_shape[1] != width or not 1 <= w_shape[0] <= MAX_WIDTH
                or b_shape != [w_shape[0]]):
            raise NetFileError(f"{path}: layer {i} has shape {w_shape} after a width of {width}")
        width = w_shape[0]
    if width != math.prod(output_shape):
        raise NetFileError(f"{path}: its last layer gives {width} numbers, its output shape {list(output_shape)}")
    from safetensors import SafetensorError
    from safetensors.numpy import load_file
    try:
        tensors = load_file(str(path))
    except (SafetensorError, OSError, ValueError) as e:
        raise NetFileError(f"{path}: unreadable tensors ({str(e).splitlines()[0][:80]})") from None
    if metadata.get("checksum") != checksum(metadata, tensors):
        raise NetFileError(f"{path}: checksum mismatch (the file was changed after it was written)")
    mlp = Mlp([(tensors[f"layer.{i}.weight"], tensors[f"layer.{i}.bias"]) for i in range(len(layers))])
    if not all(np.isfinite(w).all() and np.isfinite(b).all() for w, b in mlp.layers):
        raise NetFileError(f"{path}: a weight is not finite")
    return NetFile(mlp, kind, metadata.get("game", ""), players, output_shape, scale, metadata, path)
