"""Bot files load safely (issue 42): a corpus of hostile and corrupt bot files,
made here from a real shipped one, is refused by every loader with one line
naming the file, and nothing it names is ever started, built or read from
outside its folder.

Each hostile file that names a program names `touch MARKER`; every test that
loads one checks that the marker never appears.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import pickle
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Callable

import numpy as np
import pyspiel
import pytest
import torch
from safetensors import safe_open
from safetensors.numpy import save_file

import games  # noqa: F401  (registers our games)
from agents import SHIPPED_BOTS, make_bot
from training import dmc
from agents.neural.bot import NeuralBot
from agents.neural.botfile import BASELINES_FOLDER, MAX_BASELINE_DEPTH, load_bot, save_bot
from search.netfile import checksum as _checksum
from agents.neural.config import NetworkConfig, TrainConfig
from agents.neural.encoding import GameIdentity
from training.ensemble import ensemble
from agents.neural.network import PolicyValueNet, parameter_shapes
from training.onnx_export import export_onnx
from training.policy_cli import add_train_arguments, config_from_args, resumed_settings
from scripts.cli import main

ROOT = Path(__file__).resolve().parent.parent
PAGE_ONE = SHIPPED_BOTS / "python_page_one.safetensors"
AMERICAN = SHIPPED_BOTS / "python_american_page_one.safetensors"
RECORD = ROOT / "tests" / "data" / "american_page_one_finish.json"      # an American Page One game


# ----------------------------------------------------------------------------- making files
def parts(source: Path = PAGE_ONE) -> tuple[dict[str, str], dict[str, np.ndarray]]:
    """A real bot file's metadata and tensors, to change into a hostile file."""
    with safe_open(str(source), framework="numpy") as f:
        return dict(f.metadata()), {name: f.get_tensor(name) for name in f.keys()}


def write(path: Path, metadata: dict[str, str], tensors: dict[str, np.ndarray], checksum: bool = True) -> Path:
    """A bot file as anyone can write one: with a correct checksum (it is no signature)."""
    metadata = dict(metadata)
    if checksum:
        metadata["checksum"] = _checksum(metadata, tensors)
    save_file(tensors, str(path), metadata=metadata)
    return path


def with_metadata(**changes: str | None) -> Callable[[Path, str], Path]:
    """A maker of the source file with metadata fields changed (None: removed)."""
    def make(path: Path, marker: str) -> Path:
        metadata, tensors = parts()
        for key, value in changes.items():
            if value is None:
                metadata.pop(key)
            else:
                metadata[key] = value.replace("MARKER", marker)
        return write(path, metadata, tensors)
    return make


def with_notes(**notes: object) -> Callable[[Path, str], Path]:
    """A maker of the source file whose training notes are `notes` (MARKER: the marker's path)."""
    return with_metadata(training=json.dumps(notes))


def with_tensors(change: Callable[[dict[str, np.ndarray]], None], checksum: bool = True) -> Callable[[Path, str], Path]:
    def make(path: Path, marker: str) -> Path:
        metadata, tensors = parts()
        change(tensors)
        return write(path, metadata, tensors, checksum)
    return make


def with_bytes(change: Callable[[bytes], bytes]) -> Callable[[Path, str], Path]:
    def make(path: Path, marker: str) -> Path:
        path.write_bytes(change(PAGE_ONE.read_bytes()))
        return path
    return make


def header_replaced(data: bytes, header: bytes) -> bytes:
    """The file with its JSON header replaced (its declared length made to fit)."""
    length = int.from_bytes(data[:8], "little")
    return len(header).to_bytes(8, "little") + header + data[8 + length:]


def link_out(path: Path, marker: str) -> Path:
    """A file whose baseline is a link, in its folder, to a bot file outside it."""
    (path.parent / "link.safetensors").symlink_to(AMERICAN)
    return with_notes(baseline="neural(path=link.safetensors)")(path, marker)


def a_folder(path: Path, marker: str) -> Path:
    path.mkdir()
    return path


def setter(name: str, value: np.ndarray) -> Callable[[dict[str, np.ndarray]], None]:
    return lambda tensors: tensors.__setitem__(name, value)


W0 = "trunk.0.weight"
ENGINE = "engine(cmd=touch MARKER)"
DEEP = "[" * 100_000 + "]" * 100_000

# id -> (maker, a fragment of the refusal). Made from the shipped Page One bot.
CORPUS: dict[str, tuple[Callable[[Path, str], Path], str]] = {
    # the bytes
    "empty": (with_bytes(lambda d: b""), "truncated or empty"),
    "seven bytes": (with_bytes(lambda d: d[:7]), "truncated or empty"),
    "truncated": (with_bytes(lambda d: d[:len(d) // 2]), "not a readable safetensors"),
    "header length past the end": (with_bytes(lambda d: (10**12).to_bytes(8, "little") + d[8:]),
                                   "not a readable safetensors"),
    "header not JSON": (with_bytes(lambda d: header_replaced(d, b"{" + b" " * 300)), "not a readable safetensors"),
    "header nested deep": (with_bytes(lambda d: header_replaced(d, DEEP[:20_000].encode())),
                           "not a readable safetensors"),
    "a pickle": (with_bytes(lambda d: pickle.dumps({"w": [1.0]})), "a Python pickle"),
    "a zip": (lambda path, marker: _zip(path), "torch.save zip archive"),
    "a folder": (a_folder, "no bot file"),
    # the metadata
    "another format": (with_metadata(format="other"), "not a cardarena bot"),
    "format version 2": (with_metadata(format_version="2"), "format version '2'"),
    "no network field": (with_metadata(network=None), "lacks the metadata field 'network'"),
    "tensor_shape 1e9": (with_metadata(tensor_shape="[1e9]"), "'tensor_shape' declares a size"),
    "tensor_shape 10**9": (with_metadata(tensor_shape="[1000000000]"), "'tensor_shape' declares a size"),
    "tensor_shape NaN": (with_metadata(tensor_shape="[NaN]"), "'tensor_shape' declares a size"),
    "tensor_shape negative": (with_metadata(tensor_shape="[-749]"), "'tensor_shape' declares a size"),
    "tensor_shape true": (with_metadata(tensor_shape="[true]"), "'tensor_shape' declares a size"),
    "tensor_shape two": (with_metadata(tensor_shape="[749, 2]"), "'tensor_shape' must be a list of one size"),
    "tensor_shape not JSON": (with_metadata(tensor_shape="seven"), "'tensor_shape' is not JSON"),
    "tensor_shape nested deep": (with_metadata(tensor_shape=DEEP), "'tensor_shape' is not JSON"),
    "tensor_shape off by one": (with_metadata(tensor_shape="[748]"), "748"),     # another game's, or not its tensors
    "num_actions 1e9": (with_metadata(num_actions="1e9"), "'num_actions' declares a size"),
    "num_actions huge": (with_metadata(num_actions="99999999999"), "'num_actions' declares a size"),
    "num_actions NaN": (with_metadata(num_actions="NaN"), "'num_actions' declares a size"),
    "layer of 10**9": (with_metadata(network='{"hidden": [1000000000, 256]}'), "'network' is not a network config"),
    "seventeen layers": (with_metadata(network=json.dumps({"hidden": [256] * 17})), "'network' is not a network"),
    "sixteen layers of 4096": (with_metadata(network=json.dumps({"hidden": [4096] * 16})), "do not match"),
    "one layer": (with_metadata(network='{"hidden": [256]}'), "do not match"),
    "layers as text": (with_metadata(network='{"hidden": "256"}'), "'network' is not a network config"),
    "network with code": (with_metadata(network='{"hidden": [256, 256], "module": "os"}'), "unknown network config"),
    "game parameters a list": (with_metadata(game_parameters="[]"), "'game_parameters' must be a JSON object"),
    # the tensors
    "changed after writing": (with_tensors(setter(W0, np.zeros((256, 749), np.float32)), checksum=False),
                              "fails its checksum"),
    "NaN weights": (with_tensors(setter(W0, np.full((256, 749), np.nan, np.float32))), "not all finite"),
    "float64 weights": (with_tensors(setter(W0, np.zeros((256, 749)))), "not all float32"),
    "a tensor missing": (with_tensors(lambda t: t.pop("value_head.bias")), "do not match"),
    "a tensor more": (with_tensors(setter("evil", np.zeros(3, np.float32))), "do not match"),
    "a tensor cut": (with_tensors(setter(W0, np.zeros((128, 749), np.float32))), "do not match"),
    # the training notes
    "notes not JSON": (with_metadata(training="{baseline"), "'training' is not JSON"),
    "notes a list": (with_metadata(training="[1]"), "'training' must be a JSON object"),
    "notes nested deep": (with_metadata(training=DEEP), "'training' is not JSON"),
    "baseline an engine": (with_notes(baseline=ENGINE), "not 'engine'"),
    "baseline a search naming an engine": (with_notes(baseline=f"ismcts(iterations=9,rollout={ENGINE})"),
                                           "not 'ismcts'"),
    "baseline a reference search": (with_notes(baseline="openspiel_cpp_ismcts"), "not 'openspiel_cpp_ismcts'"),
    "baseline a module": (with_notes(baseline="agents.engine:make_engine_bot"), "is refused"),
    "baseline rules naming an engine": (with_notes(baseline=f"rules(go_out={ENGINE})"), "not go_out="),
    "baseline rules naming a program": (with_notes(baseline="rules(go_out=/bin/sh)"), "not go_out='/bin/sh'"),
    "baseline an absolute path": (with_notes(baseline=f"neural(path={AMERICAN})"), "must be a relative path"),
    "baseline up a folder": (with_notes(baseline="neural(path=../x.safetensors)"), "must be a relative path"),
    "baseline down and up": (with_notes(baseline="neural(path=a/../../x.safetensors)"), "must be a relative path"),
    "baseline a link out": (link_out, "leads out of the bot file's folder"),
    "baseline the shipped bot": (with_notes(baseline="neural"), "must be a relative path"),
    "baseline a hidden file": (with_notes(baseline="neural(path=.x.safetensors)"), "must be a relative path"),
    "baseline not a bot file": (with_notes(baseline="neural(path=notes.txt)"), "must be a relative path"),
    "baseline neural with a model": (with_notes(baseline="neural(path=x.safetensors,model=os)"), "a neural bot's"),
    "baseline random with a seed": (with_notes(baseline="random(seed=1)"), "random has none"),
    "baseline a number": (with_notes(baseline=42), "a bot spec of at most"),
    "baseline a long text": (with_notes(baseline="rules" + "(" * 600), "a bot spec of at most"),
    "relative a word": (with_notes(relative="yes"), "'relative' must be true or false"),
    "play a list": (with_notes(play=[]), "'play' must be an object"),
    "play a long text": (with_notes(play={"policy": "x" * 100}), "'play' must be an object"),
    "members a word": (with_notes(members="all"), "'members' is not a list"),
    "members of 10**9": (with_notes(members=[{"network": {"hidden": [10**9]}}] * 2), "'members' is not a list"),
}


def _zip(path: Path) -> Path:
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("archive/data.pkl", pickle.dumps({"w": 1}))
    return path


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> tuple[dict[str, Path], Path]:
    """Every file of CORPUS, each in a folder of its own, and the marker path it names."""
    root = tmp_path_factory.mktemp("corpus")
    marker = root / "MARKER"
    files = {}
    for i, (name, (make, _)) in enumerate(CORPUS.items()):
        folder = root / f"case{i}"
        folder.mkdir()
        files[name] = make(folder / "bot.safetensors", str(marker))
    return files, marker


def one_line(error: Exception | str) -> str:
    text = str(error)
    assert "\n" not in text and "Traceback" not in text, text
    return text


# ----------------------------------------------------------------------------- every loader
@pytest.mark.parametrize("name", list(CORPUS))
def test_every_loader_refuses_every_hostile_file_with_one_line(name, corpus, tmp_path):
    files, marker = corpus
    path, fragment = files[name], CORPUS[name][1]
    game = pyspiel.load_game("python_page_one")
    loaders = {
        "load_bot": lambda: load_bot(path),
        "neural": lambda: make_bot(f"neural(path={path})", game, 0),
        "ismcts prior": lambda: make_bot(f"ismcts(iterations=5,prior={path})", game, 0),
        "pimc prior": lambda: make_bot(f"pimc(iterations=5,prior={path})", game, 0),
        "ensemble": lambda: ensemble([PAGE_ONE, path], tmp_path / "mean.safetensors"),
        "onnx export": lambda: export_onnx(path, tmp_path / "bot.onnx"),
        "train --init": lambda: dmc.initial_network(TrainConfig(init=str(path))),
    }
    for loader, load in loaders.items():
        with pytest.raises(ValueError) as refused:
            load()
        text = one_line(refused.value)
        assert fragment in text and str(path) in text, (loader, text)
    assert sorted(p.name for p in tmp_path.iterdir()) == []          # nothing written
    assert not marker.exists()


def test_the_commands_refuse_a_file_that_names_an_engine_and_start_nothing(tmp_path, capsys):
    """cardarena match, ensemble, train --init and analyse --policy, in this process."""
    marker = tmp_path / "marker"
    evil = with_notes(baseline=ENGINE)(tmp_path / "evil.safetensors", str(marker))
    metadata, tensors = parts(AMERICAN)
    metadata["training"] = json.dumps({"baseline": ENGINE.replace("MARKER", str(marker))})
    evil_american = write(tmp_path / "evil_apo.safetensors", metadata, tensors)
    commands = [
        ["match", "--agent", f"neural(path={evil})", "--agent", "rules", "--games", "1", "--quiet"],
        ["ensemble", str(tmp_path / "mean.safetensors"), str(PAGE_ONE), str(evil)],
        ["train", "--game", "python_page_one", "--init", str(evil), "--out", str(tmp_path / "run"),
         "--minutes", "0.01"],
        ["analyse", str(RECORD), "--move", "152", "--worlds", "2", "--policy", f"neural(path={evil_american})"],
    ]
    for argv in commands:
        with pytest.raises(SystemExit) as ended:
            main(argv)
        err = capsys.readouterr().err
        assert ended.value.code == 2, (argv, err)
        assert len(err.strip().splitlines()) == 1 and "not 'engine'" in err, (argv, err)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["evil.safetensors", "evil_apo.safetensors"]
    assert not marker.exists()


def test_a_tournament_and_an_engine_refuse_it_in_their_own_processes(tmp_path):
    marker = tmp_path / "marker"
    evil = with_notes(baseline=ENGINE)(tmp_path / "evil.safetensors", str(marker))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    commands = [
        ["tournament", "--agent", f"neural(path={evil})", "--agent", "rules", "--deals", "1", "--workers", "1",
         "--quiet", "--no-files", "--results", str(tmp_path / "results.db")],
        ["engine", f"neural(path={evil})", "--game", "python_page_one"],
    ]
    for argv in commands:
        done = subprocess.run([sys.executable, "-m", "scripts.cli", *argv], cwd=tmp_path, env=env, input="",
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 2, (argv, done.stderr)
        assert len(done.stderr.strip().splitlines()) == 1 and "not 'engine'" in done.stderr, done.stderr
    assert not marker.exists()


def test_files_declaring_huge_networks_are_refused_before_anything_is_built(tmp_path):
    """In a process that may not map more than 768 MiB beyond what it holds: the
    audit's 1.1 MB file declaring sixteen layers of 4096 (1 GiB to build) and
    tensors of 10**9 inputs (1 TB) are refused in one line each, loaded alone
    and merged, not built and then found wrong."""
    marker = str(tmp_path / "marker")
    wide = with_metadata(network=json.dumps({"hidden": [4096] * 16}))(tmp_path / "wide.safetensors", marker)
    vast = with_metadata(tensor_shape="[1000000000]")(tmp_path / "vast.safetensors", marker)
    script = f"""
import resource, sys
from agents.neural.botfile import load_bot
from training.ensemble import ensemble
held = int(open("/proc/self/statm").read().split()[0]) * resource.getpagesize()
resource.setrlimit(resource.RLIMIT_AS, (held + (3 << 28), resource.RLIM_INFINITY))
for load in (lambda: load_bot({str(wide)!r}), lambda: ensemble([{str(vast)!r}, {str(wide)!r}], "m.safetensors")):
    try:
        load()
    except ValueError as e:
        print(e)
    else:
        sys.exit("loaded")
"""
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)},
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 2 and "do not match" in lines[0] and "'tensor_shape' declares a size" in lines[1], lines
    assert not (tmp_path / "m.safetensors").exists()


def test_the_declared_shapes_are_the_networks_own():
    for inputs, actions, hidden in ((749, 60, (256, 256)), (3, 2, (5,)), (10, 7, (4, 8, 16))):
        net = PolicyValueNet(inputs, actions, NetworkConfig(hidden=hidden))
        assert parameter_shapes(inputs, actions, net.config) == {k: tuple(v.shape) for k, v in net.state_dict().items()}


# ----------------------------------------------------------------------------- neural baselines
def trained_like(path: Path, baseline: str | None = None, seed: int = 0, **notes: object) -> Path:
    """A small Page One bot file whose training notes name `baseline`, written by save_bot."""
    game = pyspiel.load_game("python_page_one")
    identity = GameIdentity.of(game)
    torch.manual_seed(seed)
    net = PolicyValueNet(identity.tensor_size, identity.num_actions, NetworkConfig(hidden=(8,)))
    return save_bot(path, net, identity, {**({"baseline": baseline} if baseline else {}), **notes})


def test_a_neural_baseline_in_the_files_folder_plays_inside_it(tmp_path):
    game = pyspiel.load_game("python_page_one")
    base = trained_like(tmp_path / "sub" / "base.safetensors", "rules")
    top = trained_like(tmp_path / "top.safetensors", f"neural(path={base},margin=0.2)")   # absolute, inside
    assert load_bot(top).training["baseline"] == "neural(path=sub/base.safetensors,margin=0.2)"
    bot = make_bot(f"neural(path={top})", game, 1)
    assert isinstance(bot.baseline, NeuralBot) and bot.baseline.margin == 0.2
    assert bot.baseline.baseline is not None and not isinstance(bot.baseline.baseline, NeuralBot)   # the rule bot
    assert not (tmp_path / BASELINES_FOLDER).exists()


def test_a_neural_baseline_elsewhere_is_copied_beside_the_new_file(tmp_path):
    """save_bot writes a baseline outside the new file's folder as a copy beside it,
    with the baselines beneath it at the same places; a second file reuses the copy."""
    game = pyspiel.load_game("python_page_one")
    inner = trained_like(tmp_path / "first" / "deeper" / "inner.safetensors", "rules")
    outer = trained_like(tmp_path / "first" / "outer.safetensors", f"neural(path={inner})", seed=1)
    new = trained_like(tmp_path / "second" / "new.safetensors", f"neural(path={outer})", seed=2)
    again = trained_like(tmp_path / "second" / "again.safetensors", f"neural(path={outer})", seed=3)
    recorded = load_bot(new).training["baseline"]
    assert recorded == load_bot(again).training["baseline"]
    copied = tmp_path / "second" / recorded.removeprefix("neural(path=").removesuffix(")")
    assert copied.parent.parent == tmp_path / "second" / BASELINES_FOLDER
    assert copied.read_bytes() == outer.read_bytes()
    assert (copied.parent / "deeper" / "inner.safetensors").read_bytes() == inner.read_bytes()
    bot = make_bot(f"neural(path={new})", game, 0)
    assert isinstance(bot.baseline, NeuralBot) and isinstance(bot.baseline.baseline, NeuralBot)
    # The copies are one baseline with the original: an ensemble of the two files keeps it ...
    mean = ensemble([new, again], tmp_path / "mean" / "mean.safetensors", onnx=False)[0]
    assert isinstance(make_bot(f"neural(path={mean})", game, 0).baseline, NeuralBot)
    # ... and a run over the original may start from either.
    run = TrainConfig(game="python_page_one", target="advantage", baseline=f"neural(path={outer})", init=str(new))
    assert dmc.initial_network(run).config.hidden == (8,)
    other = trained_like(tmp_path / "first" / "other.safetensors", "rules", seed=4)
    with pytest.raises(ValueError, match="this run learns gains over"):
        dmc.initial_network(dataclasses.replace(run, baseline=f"neural(path={other})"))


def cycle(folder: Path, names: list[str]) -> list[Path]:
    """Bot files each naming the next as its baseline, the last naming the first."""
    metadata, tensors = parts()
    paths = []
    for name, following in zip(names, names[1:] + names[:1]):
        metadata["training"] = json.dumps({"baseline": f"neural(path={following}.safetensors)"})
        paths.append(write(folder / f"{name}.safetensors", metadata, tensors))
    return paths


@pytest.mark.parametrize("names", [["self"], ["a", "b"], ["a", "b", "c"]])
def test_baselines_in_a_cycle_are_refused_by_whatever_follows_them(tmp_path, names):
    game = pyspiel.load_game("python_page_one")
    first = cycle(tmp_path, names)[0]
    for follow in (lambda: make_bot(f"neural(path={first})", game, 0),
                   lambda: ensemble([first, first], tmp_path / "mean.safetensors", onnx=False),
                   lambda: trained_like(tmp_path / "over.safetensors", f"neural(path={first})")):
        with pytest.raises(ValueError, match="go round in a cycle"):
            follow()
    assert not (tmp_path / "mean.safetensors").exists() and not (tmp_path / "over.safetensors").exists()


def test_baselines_nest_at_most_four_deep(tmp_path):
    game = pyspiel.load_game("python_page_one")
    files = [trained_like(tmp_path / "level0.safetensors", "rules")]
    for level in range(1, MAX_BASELINE_DEPTH + 2):
        if level == MAX_BASELINE_DEPTH + 1:
            with pytest.raises(ValueError, match=f"nest deeper than {MAX_BASELINE_DEPTH}"):
                trained_like(tmp_path / f"level{level}.safetensors", f"neural(path={files[-1]})")
            break
        files.append(trained_like(tmp_path / f"level{level}.safetensors", f"neural(path={files[-1]})", seed=level))
    assert isinstance(make_bot(f"neural(path={files[-1]})", game, 0), NeuralBot)    # four beneath it: plays
    metadata, tensors = parts()                                                        # a fifth, written by hand
    metadata["training"] = json.dumps({"baseline": f"neural(path={files[-1].name})"})
    too_deep = write(tmp_path / "level5.safetensors", metadata, tensors)
    with pytest.raises(ValueError, match=f"nest deeper than {MAX_BASELINE_DEPTH}"):
        make_bot(f"neural(path={too_deep})", game, 0)


def test_a_run_refuses_a_baseline_its_files_could_not_name_before_it_starts(tmp_path):
    """--baseline ismcts(...) or engine(...): the run's snapshots would have to name it."""
    marker = tmp_path / "marker"
    for spec, named in ((f"ismcts(iterations=5,rollout={ENGINE})", "not 'ismcts'"), (ENGINE, "not 'engine'")):
        cfg = TrainConfig(game="python_page_one", target="advantage", baseline=spec.replace("MARKER", str(marker)),
                          out=str(tmp_path / "run"), minutes=0.01)
        with pytest.raises(ValueError, match=named):
            dmc.train(cfg, progress=False)
    assert not (tmp_path / "run").exists() and not marker.exists()


# ----------------------------------------------------------------------------- checkpoints
def checkpoint(path: Path, **changes: object) -> Path:
    """A training checkpoint of a small Page One network, with `changes` to its fields or (config.X) settings."""
    game = pyspiel.load_game("python_page_one")
    identity = GameIdentity.of(game)
    net = PolicyValueNet(identity.tensor_size, identity.num_actions, NetworkConfig(hidden=(8,)))
    config = dataclasses.asdict(TrainConfig(game="python_page_one", out=str(path.parent), hidden=[8]))
    ckpt = {"model": net.state_dict(), "optimizer": {}, "config": config, "network": net.config.to_json(),
            "input_size": identity.tensor_size, "num_actions": identity.num_actions,
            "stats": {"games": 1, "elapsed_s": 1.0}}
    for key, value in changes.items():
        if key.startswith("config_"):
            config[key.removeprefix("config_")] = value
        else:
            ckpt[key] = value
    torch.save(ckpt, path)
    return path


def test_export_refuses_a_checkpoint_that_names_an_engine_or_declares_huge_sizes(tmp_path, capsys):
    marker = tmp_path / "marker"
    cases = {
        "engine.pt": ({"config_target": "advantage", "config_baseline": ENGINE.replace("MARKER", str(marker))},
                      "not 'engine'"),
        "vast.pt": ({"input_size": 10**9}, "input_size and num_actions must be integers"),
        "wide.pt": ({"network": json.dumps({"hidden": [4096] * 16})}, "model weights do not match"),
        "fake game.pt": ({"config_game": "python_page_one(players=3)"}, "its network takes 749 inputs"),
    }
    for name, (changes, fragment) in cases.items():
        ckpt = checkpoint(tmp_path / name, **changes)
        with pytest.raises(SystemExit) as ended:
            main(["export", str(ckpt), str(tmp_path / "out.safetensors")])
        err = capsys.readouterr().err
        assert ended.value.code == 2 and len(err.strip().splitlines()) == 1 and fragment in err, (name, err)
        assert not list(tmp_path.glob("out*")) and not marker.exists()


def test_a_resumed_run_takes_from_its_checkpoint_only_bots_a_file_may_name(tmp_path):
    """Its own folder (not the checkpoint's `out`), not the `init` it started from, and
    its bots only where they are rule, random or neural ones, unless given again."""
    parser = argparse.ArgumentParser()
    add_train_arguments(parser)
    plain = checkpoint(tmp_path / "plain.pt", config_out="/somewhere/else", config_init=str(PAGE_ONE),
                       config_target="advantage", config_opponents="random")
    settings = resumed_settings(parser.parse_args(["--resume", str(plain)]))
    assert settings["out"] == str(tmp_path) and "init" not in settings and settings["opponents"] == "random"
    engine = checkpoint(tmp_path / "engine.pt", config_target="advantage", config_baseline=ENGINE)
    with pytest.raises(ValueError, match="its baseline.*not 'engine'.*give --baseline to run it"):
        resumed_settings(parser.parse_args(["--resume", str(engine)]))
    args = parser.parse_args(["--resume", str(engine), "--baseline", "rules"])
    assert config_from_args(args, resumed_settings(args)).baseline == "rules"


# ----------------------------------------------------------------------------- the learner's device
def test_train_refuses_a_device_it_cannot_use_in_one_line(tmp_path, capsys):
    cases = [("nosuch", "device is cpu, cuda or cuda:N"), ("cuda:99", "cuda:99")]
    if not torch.cuda.is_available():
        cases.append(("cuda", "torch here has no CUDA device"))
    for device, fragment in cases:
        with pytest.raises(SystemExit) as ended:
            main(["train", "--game", "python_page_one", "--device", device, "--out", str(tmp_path / "run"),
                  "--minutes", "0.01"])
        err = capsys.readouterr().err
        assert ended.value.code == 2 and len(err.strip().splitlines()) == 1 and fragment in err, (device, err)
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("low_byte", [0x80, 0x50])
def test_a_bot_file_whose_header_length_looks_like_a_pickle_still_loads(tmp_path, low_byte):
    # A safetensors file opens with its header's length; a length ending in the byte 0x80 (a
    # pickle's first byte) once got a valid ensemble refused as "a Python pickle", depending on
    # how long its metadata's paths were. The header is padded with spaces (as the format allows)
    # to such a length.
    data = PAGE_ONE.read_bytes()
    length = int.from_bytes(data[:8], "little")
    header = data[8:8 + length]
    pad = (low_byte - len(header)) % 256
    path = tmp_path / "padded.safetensors"
    path.write_bytes(header_replaced(data, header + b" " * pad))
    assert path.read_bytes()[0] == low_byte
    assert load_bot(path).net.config == load_bot(PAGE_ONE).net.config
