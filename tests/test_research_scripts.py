"""The lab's research scripts still run against the product, each as the command it is.

The product's suite imports no module of the lab (the lab's own tests, on set
cases, are experiments/tests/); a change to the product that breaks a research
script shows here, on arguments small enough for a test.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_belief_quality_names_each_way_of_drawing_worlds():
    done = run("experiments.belief_quality", "--game", "python_modern_canasta", "--deals", "1", "--worlds", "2",
               "--likeliest-of", "4")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "uniform" in done.stdout and "likeliest of 4" in done.stdout


def test_value_quality_reports_each_stage_of_the_deal():
    done = run("experiments.value_quality", "bots/python_page_one.safetensors", "--game",
               "python_page_one(players=4)", "--deals", "2", "--every", "2")
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [line for line in done.stdout.splitlines() if line.startswith("| bots/")]
    assert [r.split(" | ")[1] for r in rows] == ["whole deal", "first third", "middle third", "last third"]


@pytest.mark.parametrize("args, expected", [
    (("--decisions", "1", "--playouts", "2"), "1 probed decisions"),
    (("--rate", "rules", "--decisions", "2", "--playouts", "2"), "| `rules` |"),
])
def test_advantage_headroom_prints_its_table(args, expected):
    done = run("experiments.advantage_headroom", *args)
    assert done.returncode == 0, done.stderr[-2000:]
    assert expected in done.stdout


def test_a_research_script_refuses_a_bad_argument_in_one_line():
    done = run("experiments.value_quality", "bots/python_page_one.safetensors", "--deals", "0")
    assert done.returncode == 2 and "--deals" in done.stderr and "Traceback" not in done.stderr
