"""A package that installs anywhere: the wheel built from this tree, installed in a fresh virtual
environment, plays the default tournament with the shipped bots from a folder outside the tree.

The wheel must carry bots/ (the shipped networks, found beside the installed packages, not in a
checkout) and every module the command line reaches. The environment sees the system's packages
(torch, OpenSpiel: nothing is downloaded), never this tree: no PYTHONPATH, and the command runs
elsewhere. It is skipped where this Python cannot build one (no setuptools or venv)."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# What a build never needs: the repository, earlier builds (stale modules would slip into the
# wheel), results and the lab's runs; and the test runs' caches, which tests running beside this
# one (pytest -n 2) write and prune while it copies (a file gone mid-copy failed the copy).
LEFT_OUT = shutil.ignore_patterns(".git", "build", "dist", "*.egg-info", "__pycache__", "results", "runs",
                                  ".pytest_cache", ".hypothesis", ".venv*")

pytestmark = pytest.mark.skipif(importlib.util.find_spec("setuptools") is None
                                or importlib.util.find_spec("venv") is None,
                                reason="building and installing a wheel needs setuptools and venv")


def _run(argv: list[str], cwd: Path, env: dict[str, str], timeout: float = 240) -> str:
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{' '.join(argv)}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def test_the_wheel_in_a_fresh_environment_plays_the_default_tournament(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=LEFT_OUT)
    wheels = tmp_path / "wheels"
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q",
          "-w", str(wheels), "."], source, env)
    wheel, = wheels.glob("cardarena-*.whl")

    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(venv)], tmp_path, env)
    python = venv / "bin" / "python"
    # The system's pip installs into the new environment; --force-reinstall: a cardarena of the
    # same version installed outside it (an editable checkout) must not stand in for the wheel.
    _run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index",
          "--force-reinstall", "-q", str(wheel)], tmp_path, env)

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    site = Path(_run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                     elsewhere, env).strip())
    where = _run([str(python), "-c", "import agents, search.netfile, scripts.cli; "
                  "print(agents.SHIPPED_BOTS); print(search.netfile.SHIPPED); print(scripts.cli.__file__)"],
                 elsewhere, env).split()
    assert [Path(p) for p in where] == [site / "bots", site / "bots", site / "scripts" / "cli.py"]
    shipped = {p.name for p in (site / "bots").iterdir()}
    assert {"python_page_one.safetensors", "python_page_one.onnx", "python_page_one.4p.value.safetensors",
            "python_modern_canasta.dmc.safetensors", "python_modern_canasta.advantage.safetensors"} <= shipped
    assert not (site / "bots" / "earlier").exists()

    out = _run([str(venv / "bin" / "cardarena"), "tournament", "--deals", "4"], elsewhere, env, timeout=300)
    assert "| neural |" in out and "No faults." in out, out
    assert (elsewhere / "results" / "tournament.md").is_file()
