"""The learner benchmark (`cardarena bench --only learner`) times every registered game's
network at each batch size, and says where it found no GPU rather than inventing one."""

import re

import torch

from games import registry
from scripts.bench_learner import BATCHES, section_learner


def test_every_game_and_batch_is_timed_on_each_device(capsys):
    section_learner(0.02, 1)
    out = capsys.readouterr().out.splitlines()
    header, rows = out[0], out[1:]
    assert len(rows) == len(registry.registered()) * len(BATCHES)
    for entry in registry.registered():
        for batch in BATCHES:
            row = next(r for r in rows if r.strip().startswith(entry.example + ":") and f"batch {batch}:" in r)
            assert re.search(r"cpu [\d,]+ steps/s", row)
            assert ("cuda" in row) == torch.cuda.is_available()
    if not torch.cuda.is_available():
        assert "no CUDA device here" in header
