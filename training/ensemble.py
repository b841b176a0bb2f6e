"""`cardarena ensemble`: several bot files of one game merged into one network
that scores each action by the mean of their scores.

Networks trained apart err apart; their mean errs less. The merged network is
exact, not an approximation: the members' trunks sit side by side (the first
layers stacked on the shared input, the later ones block-diagonal, so no unit
reads another member's units) and the heads average the members' last layers.
It is an ordinary bot file of the same format (its hidden sizes the members'
sums), so `neural(path=...)`, its ONNX twin and every check of a bot file work
unchanged. Its file stores the zero blocks; `neural` reads the later layers
by their diagonal blocks (agents/neural/bot.py BlockDiagonal, from the members'
sizes in the file's notes), so it costs about the members' time together.

The members must score the same thing: the same game and tensor, the same
number of layers, the same kind of score and, for networks of advantages over
a baseline bot (training/advantage.py), the same baseline and relative flag.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

import torch

from agents.neural.botfile import BotFile, load_bot, save_bot
from agents.neural.config import MAX_WIDTH, NetworkConfig
from agents.neural.network import PolicyValueNet

def merge_networks(nets: Sequence[PolicyValueNet]) -> PolicyValueNet:
    """One network whose scores and value are the means of `nets`' (same input, actions and depth)."""
    first = nets[0]
    depths = {len(n.config.hidden) for n in nets}
    if len(depths) != 1:
        raise ValueError(f"the members' trunks have different numbers of layers ({sorted(depths)}); "
                         f"only networks of one depth merge")
    hidden = tuple(sum(n.config.hidden[i] for n in nets) for i in range(len(first.config.hidden)))
    if max(hidden) > MAX_WIDTH:         # refused before anything of that size is built
        raise ValueError(f"the members' layers add up to {hidden} units; an ensemble's layers hold at most "
                         f"{MAX_WIDTH}: merge fewer or smaller networks")
    merged = PolicyValueNet(first.input_size, first.num_actions, NetworkConfig(hidden=hidden))
    layers = [m for m in merged.trunk if isinstance(m, torch.nn.Linear)]
    member_layers = [[m for m in n.trunk if isinstance(m, torch.nn.Linear)] for n in nets]
    with torch.no_grad():
        for depth, layer in enumerate(layers):
            weights = [ml[depth].weight for ml in member_layers]
            layer.weight.copy_(torch.cat(weights) if depth == 0 else torch.block_diag(*weights))
            layer.bias.copy_(torch.cat([ml[depth].bias for ml in member_layers]))
        for head in ("policy_head", "value_head"):
            heads = [getattr(n, head) for n in nets]
            getattr(merged, head).weight.copy_(torch.cat([h.weight for h in heads], dim=1) / len(nets))
            getattr(merged, head).bias.copy_(torch.stack([h.bias for h in heads]).mean(dim=0))
    merged.eval()
    return merged


def _shared_notes(members: Sequence[tuple[Path, BotFile]]) -> dict[str, Any]:
    """The training notes every member must share (`baseline`, `relative`), refused
    where they differ: a neural baseline is compared by its file's content (each
    member may name its own copy) and written with its absolute path, for save_bot
    to place beside the ensemble."""
    baselines = {None if bot.baseline is None else bot.baseline.key() for _, bot in members}
    relatives = {bool(bot.training.get("relative", False)) for _, bot in members}
    for key, values in (("baseline", baselines), ("relative", relatives)):
        if len(values) > 1:
            shown = "; ".join(f"{path}: {bot.training.get(key)!r}" for path, bot in members)
            raise ValueError(f"the members' scores differ in {key!r} ({shown}); their mean would mix "
                             f"two quantities")
    first = members[0][1]
    notes: dict[str, Any] = {}
    if first.baseline is not None:
        notes["baseline"] = first.baseline.absolute_spec()
    if "relative" in first.training:
        notes["relative"] = first.training["relative"]
    return notes


def ensemble(paths: Sequence[str | Path], out: str | Path, play: dict | None = None,
             onnx: bool = True) -> list[Path]:
    """Writes the merged bot file of `paths` (and its ONNX twin); `play`: its default play
    settings, else the members' own where they agree. Returns the files written."""
    if len(paths) < 2:
        raise ValueError("an ensemble needs at least two bot files")
    members = [(Path(p), load_bot(p)) for p in paths]
    first = members[0][1].identity
    for path, bot in members[1:]:
        if bot.identity != first:
            raise ValueError(f"{path} was made for {bot.identity.game_string}, {members[0][0]} for "
                             f"{first.game_string}: an ensemble's members play one game")
    notes = _shared_notes(members)
    if play is None:
        plays = {json.dumps(bot.training.get("play", {}), sort_keys=True) for _, bot in members}
        if len(plays) > 1:
            raise ValueError(f"the members' play settings differ ({', '.join(sorted(plays))}); "
                             f"give the ensemble's own with --play")
        play = members[0][1].training.get("play")
    from agents.neural.bot import play_settings
    if play:
        play_settings(play, "ensemble --play")
    net = merge_networks([bot.net for _, bot in members])
    training = {"method": f"the mean of {len(members)} networks' scores (training/ensemble.py)",
                "members": [{"path": str(path), "checksum": bot.metadata["checksum"],
                             "network": json.loads(bot.metadata["network"])} for path, bot in members],
                **notes, **({"play": play} if play else {})}
    written = [save_bot(out, net, first, training)]
    if onnx:
        from training.onnx_export import export_onnx
        written.append(export_onnx(written[0], Path(out).with_suffix(".onnx")))
    return written
