"""The denoised-target experiment on a few classic Canasta hands."""

import subprocess
import sys

import numpy as np

from search.netfile import load

GAME = "python_classic_canasta(players=2)"


def _selfplay(tmp_path):
    data = tmp_path / "sp.db"
    subprocess.run([sys.executable, "-m", "scripts.cli", "selfplay", "--quiet", "--workers", "1", "--game", GAME,
                    "--deals", "12", "--seed", "5", "--out", str(data)], check=True, capture_output=True)
    return data


def _run(tmp_path, data, outcomes: int):
    out = tmp_path / f"k{outcomes}"
    done = subprocess.run([sys.executable, "-m", "experiments.value_targets", "--game", GAME, "--data", str(data),
                           "--per-game", "3", "--outcomes", str(outcomes), "--out", str(out)],
                          check=True, capture_output=True, text=True)
    return out, done.stdout


def test_one_outcome_is_the_return_itself_and_more_outcomes_change_the_target(tmp_path):
    data = _selfplay(tmp_path)
    one, text = _run(tmp_path, data, 1)
    assert "36 positions from 12 games" in text
    a, b = (load(f"{one}.{name}.safetensors", kind="value").mlp.layers for name in ("return", "mean"))
    assert all(np.array_equal(wa, wb) for (wa, _), (wb, _) in zip(a, b))
    four, text = _run(tmp_path, data, 4)
    c = load(f"{four}.mean.safetensors", kind="value").mlp.layers
    assert not all(np.array_equal(wa, wc) for (wa, _), (wc, _) in zip(a, c))


def test_nonsense_gets_one_line_and_exit_2_from_both_value_scripts(tmp_path):
    cases = [("value_targets", ["--game", "nonsense", "--data", "x", "--out", str(tmp_path / "o")]),
             ("value_targets", ["--game", GAME, "--data", str(tmp_path / "none.db"), "--out", str(tmp_path / "o")]),
             ("value_targets", ["--game", GAME, "--data", "x", "--outcomes", "0", "--out", str(tmp_path / "o")]),
             ("value_check", ["--game", GAME, "--data", "x", "/etc/passwd"]),
             ("value_check", ["--game", GAME, "--data", str(tmp_path / "none.db"),
                              "bots/python_classic_canasta.2p.value.safetensors"])]
    for script, args in cases:
        done = subprocess.run([sys.executable, "-m", f"experiments.{script}", *args], capture_output=True, text=True)
        assert done.returncode == 2 and done.stdout == "", (script, args)
        assert len(done.stderr.splitlines()) == 1 and "Traceback" not in done.stderr, (script, args, done.stderr)
    assert not list(tmp_path.iterdir())
