"""The policy-value network over an information-state tensor and a legal-action mask."""

from __future__ import annotations

import torch
from torch import nn

from agents.neural.config import NetworkConfig

# Illegal actions' scores: finite (ONNX runtimes and softmax handle it), far below any return.
ILLEGAL_SCORE = -1e9


def parameter_shapes(input_size: int, num_actions: int, config: NetworkConfig) -> dict[str, tuple[int, ...]]:
    """The shape of every tensor of PolicyValueNet(input_size, num_actions, config),
    by arithmetic: a file's declared sizes are checked against the tensors it
    stores before any network is built, so a few bytes of metadata can never
    make us allocate gigabytes."""
    shapes: dict[str, tuple[int, ...]] = {}
    width = input_size
    for i, h in enumerate(config.hidden):
        shapes[f"trunk.{2 * i}.weight"] = (h, width)
        shapes[f"trunk.{2 * i}.bias"] = (h,)
        width = h
    shapes.update({"policy_head.weight": (num_actions, width), "policy_head.bias": (num_actions,),
                   "value_head.weight": (1, width), "value_head.bias": (1,)})
    return shapes


class PolicyValueNet(nn.Module):
    """`forward(obs, mask) -> (scores, value)`.

    `scores[a]` is the network's estimate of the return of taking action `a` and
    playing on (Deep Monte-Carlo's action value); illegal actions score
    ILLEGAL_SCORE. The policy is the argmax of the scores (greedy) or a softmax
    of scores / temperature (sampled, and the prior inside search). `value` is
    the estimated return of the player to move.
    """

    def __init__(self, input_size: int, num_actions: int, config: NetworkConfig):
        super().__init__()
        self.input_size = input_size
        self.num_actions = num_actions
        self.config = config
        layers: list[nn.Module] = []
        width = input_size
        for h in config.hidden:
            layers += [nn.Linear(width, h), nn.ReLU()]
            width = h
        self.trunk = nn.Sequential(*layers)
        self.policy_head = nn.Linear(width, num_actions)
        self.value_head = nn.Linear(width, 1)

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.trunk(obs)
        scores = self.policy_head(h)
        scores = torch.where(mask > 0, scores, torch.full_like(scores, ILLEGAL_SCORE))
        return scores, self.value_head(h).squeeze(-1)

    def action_values(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Unmasked scores and values, for training on the actions taken."""
        h = self.trunk(obs)
        return self.policy_head(h), self.value_head(h).squeeze(-1)

