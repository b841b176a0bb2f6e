"""The learner's step on a GPU against the CPU, measured in the same run.

`cardarena train --device cuda` moves deep Monte-Carlo's learner onto a GPU (the actors
stay on the CPUs); this says what that buys. For every registered game it builds the
network the game declares, and times `training.dmc.train_step` (forward, the score and
value losses, backward, clipping, Adam) on random batches of the game's real tensor size,
at the trainer's batch size and at a large one, alternately on each device. Wall-clock
time, not CPU time: a GPU step is mostly waiting for the device. Where torch sees no CUDA
device the CPU figures are given alone and the section says so.

    python -m scripts.bench --only learner
"""

from __future__ import annotations

import statistics
import time

import pyspiel
import torch

import games  # noqa: F401  (registers our games)
from agents.neural.config import TrainConfig, network_config_for
from agents.neural.encoding import GameIdentity
from agents.neural.network import PolicyValueNet
from games import registry
from training.dmc import train_step

BATCHES = (TrainConfig.batch_size, 4096)


def _steps_per_second(net: PolicyValueNet, batch: int, device: torch.device, seconds: float) -> float:
    """Learner steps a second on `device`, after two untimed steps (allocations, kernels
    chosen). `train_step` reads the loss back, so each step has finished when it returns."""
    generator = torch.Generator().manual_seed(batch)
    obs = torch.rand(batch, net.input_size, generator=generator).to(device)
    actions = torch.randint(0, net.num_actions, (batch,), generator=generator).to(device)
    returns = torch.randn(batch, generator=generator).to(device)
    net.to(device)
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-4)
    for _ in range(2):
        train_step(net, optimizer, obs, actions, returns)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        train_step(net, optimizer, obs, actions, returns)
        steps += 1
    return steps / (time.perf_counter() - start)


def section_learner(seconds: float, repeats: int) -> None:
    cuda = torch.cuda.is_available()
    devices = [torch.device("cpu")] + ([torch.device("cuda")] if cuda else [])
    where = torch.cuda.get_device_name(0) if cuda else "no CUDA device here: the CPU alone"
    print(f"learner step (training.dmc.train_step), {torch.get_num_threads()} CPU threads; {where}")
    for entry in registry.registered():
        identity = GameIdentity.of(pyspiel.load_game(entry.example))
        config = network_config_for(entry.name)
        for batch in BATCHES:
            rates: dict[str, list[float]] = {d.type: [] for d in devices}
            for _ in range(repeats):
                for device in devices:
                    torch.manual_seed(0)
                    net = PolicyValueNet(identity.tensor_size, identity.num_actions, config)
                    rates[device.type].append(_steps_per_second(net, batch, device, seconds))
            cpu = statistics.median(rates["cpu"])
            line = (f"  {entry.example}: layers {list(config.hidden)}, input {identity.tensor_size}, "
                    f"batch {batch}: cpu {cpu:,.0f} steps/s")
            if cuda:
                gpu = statistics.median(rates["cuda"])
                line += f", cuda {gpu:,.0f} steps/s ({gpu / cpu:.1f}x)"
            print(line, flush=True)
