"""ONNX export of a bot file, so a game engine outside Python can run the bot.

The graph takes `obs` (float32, [batch, tensor size]) and `mask` (float32,
[batch, actions], 1 for legal) and returns `scores` (illegal actions at -1e9)
and `value`, exactly as PolicyValueNet.forward. The bot file's metadata is
copied into the model's metadata_props. The export is checked against
onnxruntime on information states from random games before it is kept.
"""

from __future__ import annotations

import random
import warnings
from pathlib import Path

import numpy as np
import pyspiel
import torch

from agents.neural.botfile import check_game, load_bot
from agents.neural.encoding import GameIdentity, InfoStateEncoder
from games.load import load_game
from games.protocol import chance_sampler

OPSET = 17


def sample_states(game: pyspiel.Game, count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(obs, mask) of `count` decision points from uniformly random games."""
    encoder = InfoStateEncoder(game)
    rng = random.Random(seed)
    states, legal = [], []
    while len(states) < count:
        state = game.new_initial_state()
        sample = chance_sampler(state)
        while not state.is_terminal() and len(states) < count:
            if state.is_chance_node():
                state.apply_action(sample(state, rng.random()))
                continue
            actions = state.legal_actions()
            states.append(state.clone())
            legal.append(actions)
            state.apply_action(actions[rng.randrange(len(actions))])
    return encoder.batch(states, legal)


def export_onnx(bot_path: str | Path, onnx_path: str | Path, check_states: int = 256,
                tolerance: float = 1e-4) -> Path:
    """Writes the ONNX model of a bot file and checks it; returns its path.

    Raises RuntimeError if onnxruntime's outputs differ from torch's by more
    than `tolerance` on `check_states` sample information states.
    """
    import onnx
    import onnxruntime

    bot = load_bot(bot_path)
    game = load_game(bot.identity.game_string)      # the file's game, checked before anything is written
    check_game(bot.identity, GameIdentity.of(game), bot_path)
    onnx_path = Path(onnx_path)
    obs = torch.zeros(2, bot.identity.tensor_size)
    mask = torch.ones(2, bot.identity.num_actions)
    with warnings.catch_warnings():
        # The TorchScript exporter is deprecated but needs no extra package (the
        # dynamo one needs onnxscript); the onnxruntime check below guards it.
        warnings.simplefilter("ignore", DeprecationWarning)
        torch.onnx.export(bot.net, (obs, mask), str(onnx_path), dynamo=False, opset_version=OPSET,
                          input_names=["obs", "mask"], output_names=["scores", "value"],
                          dynamic_axes={"obs": {0: "batch"}, "mask": {0: "batch"},
                                        "scores": {0: "batch"}, "value": {0: "batch"}})
    model = onnx.load(str(onnx_path))
    for key, value in bot.metadata.items():
        model.metadata_props.add(key=key, value=value)
    onnx.save(model, str(onnx_path))

    obs_np, mask_np = sample_states(game, check_states, seed=0)
    session = onnxruntime.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    scores, value = session.run(None, {"obs": obs_np, "mask": mask_np})
    with torch.inference_mode():
        ref_scores, ref_value = bot.net(torch.from_numpy(obs_np), torch.from_numpy(mask_np))
    legal = mask_np > 0
    err = max(float(np.abs(scores[legal] - ref_scores.numpy()[legal]).max()),
              float(np.abs(value - ref_value.numpy()).max()))
    if err > tolerance or not np.all(scores[~legal] <= -1e8):
        onnx_path.unlink()
        raise RuntimeError(f"ONNX export of {bot_path} disagrees with torch (max error {err:.2e})")
    return onnx_path
