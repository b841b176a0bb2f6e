"""`cardarena play --text`: the terminal table, driven by input lines as a person would type them."""

from __future__ import annotations

import io
import sys

import pytest

import games  # noqa: F401
from records.record import load_records
from play.options import parse_new_game
from play.text import run_text
from scripts.cli import main


def test_a_whole_game_in_the_terminal_with_a_hint_and_bad_input(tmp_path):
    spec = parse_new_game({"game": "python_page_one", "params": {"players": 3}, "seed": 4,
                           "bots": {"1": "rules", "2": "random"}}, pause=0.0)
    typed = io.StringIO("h\nx\n99\n" + "1\n" * 300)
    out = io.StringIO()
    assert run_text(spec, tmp_path, stdin=typed, stdout=out, session_id="t1") == 0
    text = out.getvalue()
    assert "hint (24 worlds continued by rules" in text and "your expected return (95%):" in text
    first_row = text.split("your expected return (95%):\n", 1)[1].split("\n", 1)[0]
    assert first_row.rstrip().endswith(("  best", "  clearly best"))       # the server's verdict, as on the page
    assert "'x': type a move's number, h or q" in text and "99: moves are 1.." in text
    assert "== Page One · deal 1 of 1 ==" in text and "Your hand:" in text and "    1. " in text
    assert text.rstrip().endswith("match over.")
    (record,) = load_records(tmp_path / "t1.jsonl")
    assert record.returns is not None and [p.agent for p in record.players] == ["human", "rules", "random"]


def test_quitting_keeps_the_deal_as_an_unfinished_record(tmp_path):
    spec = parse_new_game({"game": "python_modern_canasta", "seed": 2, "bots": {"1": "rules", "2": "rules",
                                                                               "3": "rules"}, "auto": False},
                          pause=0.0)      # each of the human's moves typed, the forced draws too
    out = io.StringIO()
    run_text(spec, tmp_path, stdin=io.StringIO("1\n1\nq\n"), stdout=out, session_id="t2")
    assert "bye: the deal so far is kept as an unfinished record" in out.getvalue()
    assert "Melds: your side" in out.getvalue() and "Pile:" in out.getvalue()
    (record,) = load_records(tmp_path / "t2.unfinished.json")
    assert record.returns is None and sum(m.actor == 0 for m in record.moves) == 2


def test_the_command_line_plays_in_the_terminal_and_refuses_bad_options(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 400))
    main(["play", "--text", "--game", "python_american_page_one", "--param", "players=3", "--bot", "rules",
          "--bot", "2=random", "--seed", "5", "--records", str(tmp_path)])
    text = capsys.readouterr().out
    assert "== American Page One · deal 1 of 1 ==" in text and "p2 p2   random" in text
    assert len(list(tmp_path.glob("*.jsonl"))) == 1
    for argv, words in ((["--param", "hand_size=11"], "params.hand_size"), (["--bot", "x:y"], "module:factory"),
                        (["--game", "chess"], "game 'chess'"), (["--match", "deals=0"], "deals must be")):
        with pytest.raises(SystemExit) as stop:
            main(["play", "--text", "--records", str(tmp_path), "--game", "python_american_page_one", *argv]
                 if "--game" not in argv else ["play", "--text", "--records", str(tmp_path), *argv])
        assert stop.value.code == 2
        err = capsys.readouterr().err
        assert words in err and err.count("\n") == 1, err


def test_review_of_a_record_in_the_terminal(tmp_path, capsys):
    spec = parse_new_game({"game": "python_page_one", "params": {"players": 2}, "seed": 8,
                           "bots": {"1": "rules"}}, pause=0.0)
    run_text(spec, tmp_path, stdin=io.StringIO("1\n" * 200), stdout=io.StringIO(), session_id="r1")
    main(["play", "--text", "--records", str(tmp_path), "--review", str(tmp_path / "r1.jsonl"), "0"])
    text = capsys.readouterr().out
    assert text.startswith("== r1:0: python_page_one(") and "you lead" in text and "lost to mistakes:" in text
    with pytest.raises(SystemExit) as stop:
        main(["play", "--text", "--records", str(tmp_path), "--review", str(tmp_path / "r1.jsonl"), "7"])
    assert stop.value.code == 2 and "no record '7'" in capsys.readouterr().err


def test_another_host_warns_and_a_busy_port_is_one_clear_line(tmp_path, capsys):
    import socket
    with socket.socket() as busy:
        busy.bind(("0.0.0.0", 0))
        busy.listen()
        port = busy.getsockname()[1]
        with pytest.raises(SystemExit) as stop:
            main(["play", "--host", "0.0.0.0", "--port", str(port), "--no-browser", "--records", str(tmp_path)])
    err = capsys.readouterr().err
    assert stop.value.code == 2
    assert "warning: listening on 0.0.0.0" in err and f"cannot listen on 0.0.0.0:{port}" in err
