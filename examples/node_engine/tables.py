"""Writes symmetry.json for the Node.js engine: the suit relabellings of the shipped networks' games.

A bot file that plays `symmetric=true` (American Page One's) averages each action's score
over the 24 suit relabellings of the position (agents/neural/symmetry.py). The relabelling is
an index table over the tensor and one over the actions, which the game declares in Python
(its registry entry's SuitLayout); the engine reads the same tables from this file instead of
deriving them again in JavaScript. `--check` exits 1, with one line, where the file differs
from what the games give (tests/test_node_engine.py).

    python examples/node_engine/tables.py [--check]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))        # run as a script from a checkout

import games  # noqa: E402,F401  (registers every game)
from agents import SHIPPED_BOTS  # noqa: E402
from agents.neural.encoding import InfoStateEncoder  # noqa: E402
from agents.neural.symmetry import symmetry_for  # noqa: E402
from games import registry  # noqa: E402
from games.load import load_game  # noqa: E402

OUT = HERE / "symmetry.json"


def tables() -> dict:
    """Game short name -> the index tables of its shipped network's game, for every registered
    game that declares a suit symmetry and ships a network (bots/<name>.onnx)."""
    from agents.neural.botfile import load_bot

    out = {}
    for entry in registry.registered():
        onnx = SHIPPED_BOTS / f"{entry.name}.onnx"
        if entry.symmetry is None or not onnx.is_file():
            continue
        game = load_game(load_bot(SHIPPED_BOTS / f"{entry.name}.safetensors").identity.game_string)
        symmetry = symmetry_for(game, InfoStateEncoder(game).observer)
        out[entry.name] = {"game": str(game), "tensor_size": int(symmetry.obs_index.shape[1]),
                           "num_actions": int(symmetry.action_index.shape[1]),
                           "obs_index": symmetry.obs_index.tolist(),
                           "action_index": symmetry.action_index.tolist()}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 where symmetry.json is out of date")
    args = parser.parse_args(argv)
    text = json.dumps(tables(), separators=(",", ":")) + "\n"
    if args.check:
        if not OUT.is_file() or OUT.read_text(encoding="utf-8") != text:
            print(f"{OUT.name} is out of date: run python examples/node_engine/tables.py", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
