"""The `cardarena` command line: bad input gets one line and exit code 2, reports
agree with what they rate and never replace the results file, exports refuse to
overwrite, `list` says what a spec can name, and `bench` takes its own options."""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from eval.config import TournamentConfig
from agents.faults import RAISED
from eval.play import GamePlayer
from eval.referee import PROBE_SIZE
from eval.ratings import summarize
from eval.report import markdown, plot, to_json
from eval.tournament import planned_games
from scripts.cli import build_parser, main
from tests.harness_bots import TEST_BOTS

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "bots" / "python_page_one.safetensors"


def run_cli(argv: list[str], capsys) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of `cardarena argv`, run in this process."""
    try:
        main(argv)
        code = 0
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err


def assert_refused(argv: list[str], capsys, *fragments: str) -> str:
    """The command ends with exit code 2 and one line naming the problem."""
    code, out, err = run_cli(argv, capsys)
    assert code == 2, (argv, out, err)
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    for fragment in fragments:
        assert fragment in err, (fragment, err)
    return err


# ------------------------------------------------------------- tracebacks that were
@pytest.mark.parametrize("argv,fragments", [
    (["tournament", "--agent", "random", "--agent", "neural(path=/nonexistent.safetensors)"],
     ["No such file or directory: /nonexistent.safetensors"]),
    (["match", "--agent", "random", "--agent", "ismcts(prior=/nonexistent.safetensors)"],
     ["/nonexistent.safetensors"]),
    (["tournament", "--agent", "random", "--agent", "foo", "--register", "foo=nosuchmodule:f"],
     ["module 'nosuchmodule' cannot be imported"]),
    (["tournament", "--agent", "random", "--agent", "rules", "--register", "foo=agents:nosuch"],
     ["agents has no callable 'nosuch'"]),
    (["tournament", "--register", "foo"], ["expected name=module:factory"]),
    (["match", "--games", "0"], ["--games", "must be in [1,"]),
    (["match", "--game", "nosuch"], ["unknown game 'nosuch'"]),
    (["tournament", "--game", "nosuch"], ["unknown game 'nosuch'"]),
    (["sprt", "--game", "python_page_one(players=9)", "--baseline", "rules", "--candidate", "random"],
     ["players=9: out of range"]),
    (["tournament", "--game", "python_page_one(players=4)x"], ["malformed game string"]),
    (["tournament", "--time-limit", "nan"], ["--time-limit", "'nan'"]),
    (["tournament", "--time-limit", "inf"], ["--time-limit", "'inf'"]),
    (["tournament", "--time-limit", "0"], ["--time-limit"]),
    (["tournament", "--bootstrap", "-1"], ["--bootstrap"]),
    (["tournament", "--bootstrap", "5"], ["cannot give a 95% interval"]),
    (["tournament", "--anchor", "nobody", "--agent", "random", "--agent", "rules"], ["'nobody' is not an agent"]),
    (["sprt", "--baseline", "rules", "--candidate", "rules"], ["--candidate new=rules"]),
    (["sprt", "--baseline", "rules", "--candidate", "random", "--alpha", "1"], ["--alpha"]),
    (["sprt", "--baseline", "rules", "--candidate", "random", "--elo1", "nan"], ["--elo1"]),
    (["tournament", "--deals", "5", "--bogus"], ["unrecognized arguments: --bogus"]),
    # A control character typed into an argument is written as its escape: some (\x1e, \x0b)
    # end a line for Python's splitlines, and a message must stay one line whatever it quotes.
    (["list", "-\x1e"], ["unrecognized arguments: -\\x1e"]),
    (["tournament", "--agent", "random", "--agent", "no\x0bsuch\x1c"], ["malformed bot spec 'no\\x0bsuch'"]),
    (["match", "--games", "x\u2028"], ["--games", "\\u2028"]),
])
def test_bad_input_gets_one_line_and_exit_code_2(argv, fragments, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    err = assert_refused(argv, capsys, *fragments)
    assert "Available games" not in err
    assert list(tmp_path.iterdir()) == []           # nothing made: not even results/


def test_report_of_a_folder_or_a_missing_file_is_refused(tmp_path, capsys):
    assert_refused(["report", str(tmp_path)], capsys, "is a folder")
    assert_refused(["report", str(tmp_path / "missing.db")], capsys, "no such results file")
    assert list(tmp_path.iterdir()) == []


def test_train_refuses_an_unknown_game_before_making_its_folder(tmp_path, capsys):
    out = tmp_path / "runs" / "x"
    assert_refused(["train", "--game", "nosuch", "--out", str(out)], capsys, "unknown game 'nosuch'")
    assert_refused(["train", "--lr", "nan", "--out", str(out)], capsys, "--lr")
    canasta = str(ROOT / "bots" / "python_modern_canasta.safetensors")     # gains over the tuned rule bot's move
    assert_refused(["train", "--game", "python_modern_canasta", "--init", canasta, "--target", "advantage",
                    "--out", str(out)], capsys, "--init", "this run learns gains over the 'rules' bot's move")
    assert_refused(["train", "--relative", "true", "--out", str(out)], capsys,
                   "relative=True: only a run with target=advantage plays a baseline")
    assert_refused(["train", "--relative", "yes", "--out", str(out)], capsys, "--relative", "expected true or false")
    assert_refused(["train", "--target", "advantage", "--eval-play", "depth=2", "--out", str(out)], capsys,
                   "eval_play='depth=2': unknown play setting(s) depth")
    assert_refused(["train", "--target", "advantage", "--positions", "nosuch_bot", "--out", str(out)], capsys,
                   "positions='nosuch_bot'")
    assert not (tmp_path / "runs").exists()


def test_every_option_of_every_command_says_what_it_does():
    parser, sub = build_parser()
    for name in ("match", "tournament", "report", "sprt", "list", "train", "export", "ensemble"):
        for action in sub.choices[name]._actions:
            if not isinstance(action, argparse._HelpAction):
                assert action.help, f"cardarena {name} {action.option_strings or action.dest}: no help"


# ----------------------------------------------------------------------- the bench
def test_bench_takes_its_own_options_and_shows_its_own_help(capsys, monkeypatch):
    import scripts.bench as bench
    calls = []
    monkeypatch.setitem(bench.SECTIONS, "page_one", lambda seconds, repeats: calls.append((seconds, repeats)))
    code, _, err = run_cli(["bench", "--only", "page_one", "--seconds", "0.25"], capsys)
    assert code == 0, err
    assert calls == [(0.25, 5)]
    code, out, _ = run_cli(["bench", "--help"], capsys)
    assert code == 0 and "--only" in out and "--seconds" in out and "--repeats" in out


# ----------------------------------------------------------------------- bot factories
def test_a_factory_that_returns_no_bot_faults_that_agent_not_the_game():
    config = TournamentConfig.create("python_page_one(players=2)", ["random", "t_not_a_bot"], deals=2,
                                     bot_modules=[("t_not_a_bot", TEST_BOTS["t_not_a_bot"])])
    player = GamePlayer(config)
    names = config.agent_names
    records = [player.play(task, [0.0] * PROBE_SIZE) for task in planned_games(config)]
    faulted = [r for r in records if r.fault_kind]
    assert faulted
    for r in faulted:
        assert r.fault_kind == RAISED and names[r.seats[r.fault_seat]] == "t_not_a_bot"
        assert "not a pyspiel.Bot" in r.error and r.returns is not None      # rated, not void


# ------------------------------------------------------------------------- reports
def _played(config: TournamentConfig) -> list:
    player = GamePlayer(config)
    return [player.play(task, [0.0] * PROBE_SIZE) for task in planned_games(config)]


def test_an_agent_that_played_no_game_is_not_rated_and_the_plot_takes_any_interval(tmp_path):
    config = TournamentConfig.create("python_page_one(players=2)", ["random", "rules", "spare=random"], deals=1)
    records = _played(config)
    assert {a for r in records for a in r.seats} == {0, 1} or len({a for r in records for a in r.seats}) == 2
    summary = summarize(config, records, bootstrap=100)
    unplayed = next(r for r in summary.rows if r.games == 0)
    assert math.isnan(unplayed.elo) and math.isnan(unplayed.mean_return) and summary.rows[-1] is unplayed
    text = markdown(summary)
    assert f"| {unplayed.name} | – | – | 0 | – | – | – |" in text and "nan" not in text
    assert "no intervals (one deal" in text and "played no game" in text
    assert json.loads(json.dumps(to_json(summary), allow_nan=False))["rows"][-1]["elo"] is None

    more = TournamentConfig.create("python_page_one(players=2)", ["random", "rules"], deals=12)
    rated = summarize(more, _played(more), bootstrap=100)
    best = rated.rows[0]
    # a percentile interval that leaves out its estimate (or rounds just past it)
    rated.rows[0] = replace(best, elo_low=best.elo + 1e-9, elo_high=best.elo + 50)
    plot(rated, tmp_path / "r.png")
    assert (tmp_path / "r.png").stat().st_size > 1000


def test_the_header_describes_the_deals_rated_not_those_asked_for():
    config = TournamentConfig.create("python_page_one(players=2)", ["random", "rules"], deals=10_000)
    records = [r for r in _played(config.with_deals(3))]
    text = markdown(summarize(config, records, bootstrap=0))
    assert ", 3 deals," in text.splitlines()[0] and "10000" not in text
    assert f"{len(records)} games over 3 deals" in text and "no intervals (0 bootstrap resamples)" in text


def test_the_default_tournament_keeps_its_files_together_and_says_when_nothing_was_left(tmp_path, monkeypatch,
                                                                                      capsys):
    monkeypatch.chdir(tmp_path)
    argv = ["tournament", "--agent", "random", "--agent", "rules", "--deals", "3", "--workers", "1", "--quiet",
            "--bootstrap", "0"]
    code, out, err = run_cli(argv, capsys)
    assert code == 0, err
    assert "60 s per move" in err and "done in" in err
    assert sorted(p.name for p in (tmp_path / "results").iterdir()) == [
        "tournament.csv", "tournament.db", "tournament.json", "tournament.md", "tournament.png"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results"]
    games = len(planned_games(TournamentConfig.create("python_page_one(players=4)", ["random", "rules"], deals=3)))
    code, again, err = run_cli(argv, capsys)
    assert code == 0 and f"nothing left to play: all {games} games were already stored" in err
    assert "done in" not in err
    assert again == out
    code, _, err = run_cli(argv[:5] + ["--deals", "2"] + argv[7:], capsys)
    assert code == 0 and "holds 3 deals; all of them are rated" in err
    assert "gitignore" not in err
    ignored = (ROOT / ".gitignore").read_text().splitlines()
    assert "/results/" in ignored


def test_a_report_never_overwrites_the_results_file(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    for name in ("res.md", "res.csv", "res.json", "res.png"):
        assert_refused(["tournament", "--agent", "random", "--agent", "rules", "--deals", "5", "--results", name],
                       capsys, "would overwrite it")
    assert list(tmp_path.iterdir()) == []
    code, _, err = run_cli(["tournament", "--agent", "random", "--agent", "rules", "--deals", "2", "--workers",
                            "1", "--quiet", "--bootstrap", "0", "--results", "res.db", "--no-files"], capsys)
    assert code == 0, err
    shutil.copy("res.db", "res.json")
    before = Path("res.json").read_bytes()
    assert_refused(["report", "res.json"], capsys, "would overwrite it")
    assert Path("res.json").read_bytes() == before
    code, out, _ = run_cli(["report", "res.json", "--no-files", "--bootstrap", "0"], capsys)
    assert code == 0 and "| rules |" in out
    games = len(planned_games(TournamentConfig.create("python_page_one(players=4)", ["random", "rules"], deals=2)))
    assert f"{games} games over 2 deals" in out


# ---------------------------------------------------------------------------- export
def _checkpoint(path: Path) -> Path:
    """A real training checkpoint of a small untrained network, as dmc writes it."""
    import pyspiel
    import torch
    from training import dmc
    from agents.neural.config import NetworkConfig, TrainConfig
    from agents.neural.encoding import GameIdentity
    from agents.neural.network import PolicyValueNet
    cfg = TrainConfig(game="python_page_one(players=3)", hidden=[8])
    identity = GameIdentity.of(pyspiel.load_game(cfg.game))
    net = PolicyValueNet(identity.tensor_size, identity.num_actions, NetworkConfig((8,)))
    stats = {"elapsed_s": 0.0, "cpu_s": 0.0, "games": 0, "samples": 0, "steps": 0}
    dmc.save_checkpoint(path, net, torch.optim.Adam(net.parameters()), cfg, stats)
    return path


def test_export_refuses_what_it_cannot_read_or_would_overwrite(tmp_path, capsys):
    import torch
    torch.save({"weights": torch.zeros(2)}, tmp_path / "plain.pt")
    assert_refused(["export", str(tmp_path / "plain.pt"), str(tmp_path / "a.safetensors")], capsys,
                   "not a cardarena training checkpoint")
    assert_refused(["export", str(SHIPPED), str(tmp_path / "a.safetensors")], capsys,
                   "is a bot file (safetensors), not a training checkpoint")
    torch.save({"config": {"game": "x"}, "code": argparse.Namespace()}, tmp_path / "unsafe.pt")
    err = assert_refused(["export", str(tmp_path / "unsafe.pt"), str(tmp_path / "a.safetensors")], capsys,
                         "not a trusted training checkpoint")
    assert "weights_only" not in err
    ckpt = _checkpoint(tmp_path / "checkpoint.pt")
    assert_refused(["export", str(ckpt), str(tmp_path / "new" / "a.safetensors")], capsys, "no folder")
    assert not (tmp_path / "new").exists()
    shipped = SHIPPED.read_bytes()
    assert_refused(["export", str(ckpt), str(SHIPPED)], capsys, "already exist", "--force")
    assert SHIPPED.read_bytes() == shipped
    assert sorted(p.name for p in tmp_path.iterdir()) == ["checkpoint.pt", "plain.pt", "unsafe.pt"]


def test_export_writes_both_files_with_the_same_permissions_and_replaces_only_with_force(tmp_path, capsys):
    ckpt = _checkpoint(tmp_path / "checkpoint.pt")
    out = tmp_path / "mine.safetensors"
    code, printed, err = run_cli(["export", str(ckpt), str(out)], capsys)
    assert code == 0, err
    onnx = out.with_suffix(".onnx")
    umask = os.umask(0)
    os.umask(umask)
    assert (out.stat().st_mode & 0o777) == (onnx.stat().st_mode & 0o777) == 0o666 & ~umask
    out.write_bytes(b"changed")
    assert_refused(["export", str(ckpt), str(out), "--no-onnx"], capsys, "already exists")
    assert out.read_bytes() == b"changed"
    code, _, err = run_cli(["export", str(ckpt), str(out), "--no-onnx", "--force"], capsys)
    assert code == 0, err
    from agents.neural.botfile import load_bot
    assert load_bot(out).identity.short_name == "python_page_one"


# ------------------------------------------------------------------------------ list
def test_list_names_every_game_parameter_bot_setting_and_shipped_file(capsys):
    import pyspiel
    code, out, err = run_cli(["list"], capsys)
    assert code == 0, err
    games_part, bots_part, files_part, presets_part = out.split("\n\n## ")
    assert "canasta-strong: pimc(" in presets_part and "(Modern American Canasta)" in presets_part
    for short_name in ("python_page_one", "python_american_page_one", "python_modern_canasta"):
        spec = pyspiel.load_game(short_name).get_type().parameter_specification
        block = games_part.split(f"\n{short_name}: ")[1].split("\n\n")[0]
        assert sorted(line.split()[0] for line in block.splitlines()[1:] if " default " in line) == sorted(spec)
        assert "\n    match: " in block            # what the game declares beside its parameters
    assert "    players              default 4          [2, 6]" in games_part
    assert "    dealer               default -1         [-1, players - 1]" in games_part
    assert "    sides: 4 players [0, 1, 0, 1]" in games_part
    assert "strongest measured bot: page-one-strong = pimc(worlds=40,iterations=25,rollout=rules,prior=shipped)" in games_part
    assert "empty_stock          default 'pass'     pass, reshuffle, take" in games_part
    ismcts = bots_part.split("\nismcts\n")[1].split("\n" + "pimc")[0]
    assert "settings:" in ismcts and "iterations" in ismcts and "rollout" in ismcts
    assert "strict_params        bool   default true" in bots_part and "\nrules\n" in bots_part
    assert "\nrandom\n" in bots_part and "settings: none" in bots_part.split("\nrandom\n")[1]
    assert "bots/python_page_one.safetensors: python_page_one(" in files_part
    assert "deep Monte-Carlo self-play" in files_part and "one step of policy improvement" in files_part
    assert_refused(["list", "nosuch"], capsys, "no section 'nosuch'")


def test_list_shows_the_bot_settings_of_the_game_asked_for(capsys):
    code, out, _ = run_cli(["list", "bots", "--game", "python_modern_canasta"], capsys)
    assert code == 0
    rules = out.split("\nrules\n")[1]
    assert "pile_min" in rules and "go_out" in rules


# ------------------------------------------------------------------- the safety limit
def test_the_default_time_limit_is_a_minute_and_none_lifts_it():
    parser, _ = build_parser()
    assert parser.parse_args(["tournament"]).time_limit == 60.0
    assert parser.parse_args(["sprt", "--baseline", "a", "--candidate", "b"]).time_limit == 60.0
    assert parser.parse_args(["tournament", "--time-limit", "none"]).time_limit is None
    assert parser.parse_args(["tournament", "--time-limit", "2.5"]).time_limit == 2.5
    assert np.isclose(parser.parse_args(["match", "--games", "3"]).games, 3)
