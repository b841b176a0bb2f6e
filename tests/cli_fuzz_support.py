"""What the command-line fuzz (tests/test_cli_fuzz.py) and its table of cases
(tests/test_cli_corpus.py) share: `cardarena` run in this process with its output
captured and its time bounded, the check of how it ended, a snapshot of every
file, and the folder of files the commands are given (a results file of each
game, record files, and files damaged in every way the audit of issue 42 found)."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import shutil
import signal
import sqlite3
import sys
from pathlib import Path

from scripts.cli import main

ROOT = Path(__file__).resolve().parent.parent
CASE_SECONDS = 60          # a case still running after this is a hang (cases take well under a second)
GAMES = ("python_page_one", "python_american_page_one", "python_modern_canasta", "python_classic_canasta")
# Each game's results file in the folder, and what made it (tiny: a deal or two).
RESULTS = {"po.db": ("python_page_one(players=4)", ["random", "rules"], 2),
           "apo.db": ("python_american_page_one(players=3)", ["random", "rules"], 1),
           "cc.db": ("python_classic_canasta(players=2)", ["random", "rules"], 1)}
STUDY = "mc.db"            # python_modern_canasta: a study (agents a and b), single hands
DEPTH = 5000               # JSON nested deeper than Python's parser can follow (about 1000)


class Hang(BaseException):
    """A case that did not end in time (a BaseException: no `except Exception` in the code hides it)."""


@contextlib.contextmanager
def bounded(seconds: float = CASE_SECONDS):
    """Raises Hang in this (the main) thread once `seconds` have passed."""
    def alarm(signum, frame):
        raise Hang(f"still running after {seconds} s")
    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def run(argv: list[str], cwd: Path, stdin: str = "") -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of `cardarena argv` run in this process, in
    `cwd`, with `stdin` as its input, bounded in time (`bounded`); the bots it
    registered are forgotten after, as its own process would forget them."""
    from agents import BOT_FACTORIES
    out, err = io.StringIO(), io.StringIO()
    saved_stdin, saved_bots = sys.stdin, dict(BOT_FACTORIES)
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin.encode()))
    try:
        with contextlib.chdir(cwd), contextlib.redirect_stderr(err), contextlib.redirect_stdout(out), bounded():
            try:
                main(argv)
                code = 0
            except SystemExit as e:
                code = e.code if isinstance(e.code, int) else 1
    finally:
        sys.stdin = saved_stdin
        BOT_FACTORIES.clear()           # a command's --register lasts as long as its process
        BOT_FACTORIES.update(saved_bots)
    return code, out.getvalue(), err.getvalue()


def check_ending(argv: list[str], code: int, err: str, *, strict: bool = True) -> None:
    """A command ends with 0, or with 2 and one error line (after any warnings
    naming what it skipped), never a traceback; with `strict`, the error line
    and warnings are all that stderr holds."""
    assert "Traceback" not in err, (argv, err)
    assert code in (0, 2), (argv, code, err)
    if code == 2:
        lines = err.strip().splitlines()
        errors = [line for line in lines if ": error: " in line]
        assert len(errors) == 1 and lines[-1] == errors[0], (argv, err)
        if strict:
            assert all(": error: " in line or ": warning: " in line for line in lines), (argv, err)


def snapshot(*folders: Path) -> dict[str, str]:
    """Every file under the folders, by content (a pipe or device by its kind):
    nothing may appear, change or go that a command was not asked to write."""
    found = {}
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            if path.is_fifo():
                found[str(path)] = "fifo"
            elif path.is_file():
                found[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
            elif path.is_dir():
                found[str(path)] = "folder"
    return found


def signature(*folders: Path) -> dict[str, tuple[int, int, int]]:
    """Every file under the folders by size, modification time and inode: what a
    write or a replacement changes, without reading the shipped networks' 40 MB
    for every example (the fuzz hashes them once, before and after it all)."""
    return {str(p): (p.stat().st_size, p.stat().st_mtime_ns, p.stat().st_ino)
            for folder in folders for p in sorted(folder.rglob("*")) if p.is_file()}


# ------------------------------------------------------------------ the folder
def _edit(src: Path, dst: Path, *statements: str) -> None:
    """A copy of results file `src` with SQL statements applied: a file edited by hand."""
    shutil.copy(src, dst)
    with contextlib.closing(sqlite3.connect(dst)) as conn:
        for statement in statements:
            conn.execute(statement)
        conn.commit()
        conn.execute("PRAGMA journal_mode = DELETE")


def _history_with(src: Path, dst: Path, move: int, action: int) -> None:
    """A copy of `src` whose first game's stored history has `action` at `move`:
    a history that decodes but does not replay."""
    from eval.play import decode_history, encode_history
    shutil.copy(src, dst)
    with contextlib.closing(sqlite3.connect(dst)) as conn:
        (blob,) = conn.execute("SELECT history FROM games ORDER BY deal, rotation LIMIT 1").fetchone()
        history = decode_history(blob)
        history[0].actions[move] = action
        conn.execute("UPDATE games SET history = ? WHERE deal = 0 AND rotation = 0", (encode_history(history),))
        conn.commit()
        conn.execute("PRAGMA journal_mode = DELETE")


def build_place(place: Path) -> None:
    """The files the fuzzed commands are given, in `place`: a results file of each
    game (and a Canasta study), record files, a bot file and a training
    checkpoint's stand-in, and every kind of damage. A named pipe and a folder
    are made by `add_specials` (a pipe cannot be copied)."""
    import torch
    from eval.config import TournamentConfig
    from eval.results_records import records_from_results
    from records.record import write_records
    from eval.study.paired import run_study, study_config
    from eval.tournament import run_tournament
    for name, (game, agents, deals) in RESULTS.items():
        config = TournamentConfig.create(game, agents, deals=deals, seed=1)
        run_tournament(config, place / name, workers=1, progress=False, bootstrap=0)
    run_study(study_config("rules", "random", deals=1, target=None), place / STUDY, progress=False)
    po, mc = place / "po.db", place / STUDY
    (place / "notes.db").write_text("my own notes, not a results file\n")
    (place / "empty.db").write_bytes(b"")
    torch.save({"weights": torch.zeros(2)}, place / "plain.pt")
    shutil.copy(ROOT / "bots" / "python_page_one.safetensors", place / "bot.safetensors")
    _luck_networks(place)
    with contextlib.closing(sqlite3.connect(place / "foreign.db")) as conn:
        conn.execute("CREATE TABLE t (x)")
        conn.commit()
    with contextlib.closing(sqlite3.connect(place / "marked.db")) as conn:    # our mark, no tables
        conn.execute("PRAGMA application_id = 1128354372")
        conn.execute("PRAGMA user_version = 2")
        conn.execute("CREATE TABLE t (x)")
        conn.commit()
    first = "WHERE deal = 0 AND rotation = 0"
    for name, src, edit in [
            ("seat9.db", po, f"UPDATE games SET seats = '[9,0,1,0]' {first}"),
            ("shortret.db", po, f"UPDATE games SET returns = '[1.0]' {first}"),
            ("strret.db", po, f"UPDATE games SET returns = '[\"a\",1,1,1]' {first}"),
            ("nanret.db", mc, f"UPDATE games SET returns = '[NaN,1,-1,0]' {first}"),
            ("shortmoves.db", mc, f"UPDATE games SET move_counts = '[1]' {first}"),
            ("badjson.db", mc, f"UPDATE games SET returns = '[[[[' {first}"),
            ("deepjson.db", po, f"UPDATE games SET deal_records = '{'[' * DEPTH + ']' * DEPTH}' {first}"),
            ("cuthist.db", mc, f"UPDATE games SET history = X'48310100' {first}"),
            ("badgame.db", po, "UPDATE meta SET value = replace(value, 'python_page_one(', "
                               "'python_page_one(nope=1,') WHERE key = 'config'"),
            ("badagents.db", po, "UPDATE meta SET value = replace(value, '\"agents\"', '\"agents\": 3, \"x\"') "
                                 "WHERE key = 'config'"),
            ("modmatch.db", po, "UPDATE meta SET value = replace(value, '\"match\": null', "
                                "'\"match\": \"os:system(command=true)\"') WHERE key = 'config'"),
            ("nogames.db", po, "DROP TABLE games"),
            ("badluck.db", po, f"INSERT INTO luck VALUES (0, 0, '{_luck_identity(po)}', '[1, \"a\", 0, 0]')"),
            ("noluck.db", po, "DROP TABLE luck")]:
        _edit(src, place / name, edit)
    _history_with(po, place / "illegal.db", 30, 200)
    _history_with(mc, place / "cillegal.db", 120, 250)
    records = [r for _, r in records_from_results(po)]
    write_records(place / "po.jsonl", records)
    lines = (place / "po.jsonl").read_text().splitlines(keepends=True)
    (place / "cut.jsonl").write_text("".join(lines[:2]) + lines[2][:len(lines[2]) // 2])
    (place / "hole.jsonl").write_text(lines[0] + "{not json\n" + "".join(lines[1:3]))
    (place / "pretty.json").write_text(json.dumps(records[0].to_json(), indent=1))
    edited = records[0].to_json()
    edited["returns"] = [5.0] * len(edited["returns"])
    (place / "returns.json").write_text(json.dumps(edited))
    short = records[0].to_json()
    short["moves"] = short["moves"][:len(short["moves"]) // 2]
    (place / "short.json").write_text(json.dumps(short))
    (place / "deep.json").write_text("[" * DEPTH + "]" * DEPTH)
    (place / "deep.jsonl").write_text(lines[0] + "{\"a\":" * DEPTH + "1" + "}" * DEPTH + "\n")


def _luck_identity(results: Path) -> str:
    """What the luck of a results file's games is stored under, with the shipped value network."""
    from eval.luck import luck_judge
    from eval.storage import ResultsDB
    with ResultsDB.read(results) as db:
        return luck_judge(db.config()).identity


def _luck_networks(place: Path) -> None:
    """Small luck networks of Page One (random weights: what is tested is what reads
    them): one for po.db's agents, one for others, a file of another kind, and one
    whose lookahead is out of range."""
    import numpy as np
    from eval.luck import LuckNetwork
    from games.load import load_game
    from search.netfile import save
    from search.value import FullStateEncoder
    game = load_game(RESULTS["po.db"][0])
    n, rng = game.num_players(), np.random.default_rng(0)
    for name, kind, agents in (("po.luck.safetensors", "luck", ["random", "rules"]),
                               ("other.luck.safetensors", "luck", ["rules", "ismcts"]),
                               ("po.value.safetensors", "value", ["random", "rules"])):
        size = LuckNetwork.input_size(FullStateEncoder(game).size, n, len(agents))
        save(place / name, [(rng.normal(0, 0.05, (8, size)), np.zeros(8)), (rng.normal(0, 0.1, (n, 8)), np.zeros(n))],
             kind=kind, game=str(game), short_name=game.get_type().short_name, players=n, output_shape=[n],
             training={"agents": agents})
    size = LuckNetwork.input_size(FullStateEncoder(game).size, n, 2)
    save(place / "badlook.luck.safetensors", [(rng.normal(0, 0.05, (8, size)), np.zeros(8)),
                                              (rng.normal(0, 0.1, (n, 8)), np.zeros(n))],
         kind="luck", game=str(game), short_name=game.get_type().short_name, players=n, output_shape=[n],
         training={"agents": ["random", "rules"],
                   "lookahead": {"rollouts": 2, "horizon": 4, "weight": 1.5, "events": "choices"}})


def add_specials(place: Path) -> None:
    """A named pipe and a folder: inputs that must be refused without blocking."""
    os.mkfifo(place / "pipe")
    (place / "folder").mkdir()


def copy_place(source: Path, target: Path) -> Path:
    """A fresh copy of the folder `build_place` made, its pipe and folder made
    again; without the bot file (a megabyte), which only the fuzz's shared
    folder gives to commands."""
    shutil.copytree(source, target, ignore=lambda folder, names: [n for n in names
                                                                  if n in ("pipe", "folder", "bot.safetensors")])
    add_specials(target)
    return target
