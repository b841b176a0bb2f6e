"""What the command line does to the files it reads and writes (issue 42), where a
case needs more than a folder of files: a results file in a read-only folder, a
log a killed writer left, a reader and a writer at once, a full disk, and every
kind of file we write told apart by its contents."""

from __future__ import annotations

import contextlib
import os
import resource
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from eval.config import TournamentConfig
from records.files import (EMPTY, FIGURE, HANDS_CSV, OTHER, RECORDS, REPORT_CSV, REPORT_JSON, REPORT_MD, RESULTS,
                        kind_of)
from eval.storage import ResultsDB, ResultsFileError
from eval.study.paired import run_study, study_config
from eval.tournament import run_tournament
from tests.cli_fuzz_support import ROOT, check_ending, run, snapshot

PAGE_ONE = "python_page_one(players=4)"
READERS = [["games", "r.db"], ["show", "r.db", "0-0", "--view", "1"], ["report", "r.db", "--no-files"],
           ["paired", "r.db", "random", "r.db", "random"], ["study", "fingerprint", "r.db"],
           ["analyse", "r.db", "0-0", "--move", "30", "--worlds", "2"]]


def _tournament(path: Path, deals: int = 2) -> TournamentConfig:
    config = TournamentConfig.create(PAGE_ONE, ["random", "rules"], deals=deals, seed=3)
    run_tournament(config, path, workers=1, progress=False, bootstrap=0)
    return config


def _games(path: Path) -> int:
    with ResultsDB.read(path) as db:
        return len(list(db.games()))


@contextlib.contextmanager
def tmpfs(folder: Path, size: str, *files: Path, read_only: bool = False):
    """A small filesystem of its own at `folder` holding copies of `files`,
    read-only if asked: where a full disk and a folder nobody can write are
    real. Yields None where no filesystem can be mounted (not root)."""
    folder.mkdir()
    mounted = os.geteuid() == 0 and shutil.which("mount") is not None and subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)], capture_output=True).returncode == 0
    if not mounted:
        yield None
        return
    try:
        for file in files:
            shutil.copy(file, folder / file.name)
        if read_only:
            subprocess.run(["mount", "-o", "remount,ro", str(folder)], check=True, capture_output=True)
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True)


@contextlib.contextmanager
def read_only_folder(folder: Path, *files: Path):
    """A folder no one can write in, holding copies of `files`: a read-only
    filesystem as root (who may write in any folder), a folder without write
    permission otherwise."""
    if os.geteuid() == 0:
        with tmpfs(folder, "4m", *files, read_only=True) as mounted:
            if mounted is None:
                pytest.skip("as root, a folder no one can write in needs a read-only mount")
            yield mounted
        return
    folder.mkdir()
    for file in files:
        shutil.copy(file, folder / file.name)
    folder.chmod(0o555)
    try:
        yield folder
    finally:
        folder.chmod(0o755)


def test_every_reader_reads_a_results_file_in_a_read_only_folder_and_leaves_nothing(tmp_path):
    _tournament(tmp_path / "r.db")
    with read_only_folder(tmp_path / "ro", tmp_path / "r.db") as folder:
        before = snapshot(folder)
        for argv in READERS:
            code, out, err = run(argv, folder)
            assert code == 0, (argv, err)
            check_ending(argv, code, err)
        code, out, err = run(["export-games", "r.db", "--out", str(tmp_path / "out.jsonl")], folder)
        assert code == 0 and "records written" in out, err
        assert snapshot(folder) == before


def test_every_reader_leaves_nothing_beside_a_file_it_reads(tmp_path):
    _tournament(tmp_path / "r.db")
    before = snapshot(tmp_path)
    for argv in READERS:
        code, _, err = run(argv, tmp_path)
        assert code == 0, (argv, err)
    assert snapshot(tmp_path) == before            # no -wal, no -shm, nothing changed


_KILLED_WRITER = """
import os, sys
from eval.storage import ResultsDB
from eval.config import TournamentConfig
source, target = sys.argv[1], sys.argv[2]
config = TournamentConfig.create("python_page_one(players=4)", ["random", "rules"], deals=2, seed=3)
with ResultsDB.read(source) as db:
    stored = list(db.games(history=True))
db = ResultsDB.open_for(target, config)
for game in stored:
    db.add(game)
db.flush()
os._exit(0)          # killed: the log is never written back into the file
"""


def test_a_log_a_killed_writer_left_is_read_whole_and_left_as_it_was_even_in_a_read_only_folder(tmp_path):
    _tournament(tmp_path / "full.db")
    target = tmp_path / "killed" / "r.db"
    target.parent.mkdir()
    subprocess.run([sys.executable, "-c", _KILLED_WRITER, str(tmp_path / "full.db"), str(target)], check=True,
                   cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    log = Path(f"{target}-wal")
    assert log.stat().st_size > 0                  # the games are in the log only
    before = snapshot(target.parent)
    assert _games(target) == _games(tmp_path / "full.db")
    assert snapshot(target.parent) == before
    Path(f"{target}-shm").unlink()                 # the index SQLite would rebuild beside them
    before = snapshot(target.parent)
    code, out, err = run(["games", "r.db"], target.parent)
    assert code == 0 and f"{_games(tmp_path / 'full.db')} games" in out, err
    assert snapshot(target.parent) == before
    with read_only_folder(tmp_path / "ro", target, log) as folder:
        code, out, err = run(["games", "r.db"], folder)
        assert code == 0 and f"{_games(tmp_path / 'full.db')} games" in out, err


def test_a_reader_holds_off_a_writer_and_reads_beside_a_running_one(tmp_path):
    path = tmp_path / "r.db"
    config = _tournament(path)
    with ResultsDB.read(path):
        with pytest.raises(ResultsFileError, match="a cardarena command is reading this results file"):
            ResultsDB.open_for(path, config.with_deals(3))
    with ResultsDB.open_for(path, config.with_deals(3)) as writer:
        with ResultsDB.read(path) as reader:          # beside a live writer: read-only, through its log
            assert len(list(reader.games())) == len(list(writer.games()))
        with pytest.raises(ResultsFileError, match="another tournament is writing"):
            ResultsDB.open_for(path, config.with_deals(3))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.db"]


def _played(db: ResultsDB) -> list:
    """Every stored game as played: who sat where, the cards, the returns and every action (not the times)."""
    return [(g.deal, g.rotation, g.seats, g.chance_seed, g.returns, [h.actions for h in g.deal_histories()])
            for g in db.games(history=True)]


def _limited(limit_bytes: int):
    """A child's file size limit, so that a write past it fails (EFBIG) as a full disk's (ENOSPC) does."""
    def limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit_bytes, limit_bytes))
    return limit


@pytest.mark.parametrize("command", [
    ["tournament", "--agent", "random", "--agent", "rules", "--deals", "150", "--workers", "1", "--quiet",
     "--bootstrap", "0", "--no-files", "--results", "{folder}/r.db"],
    ["study", "canasta", "--a", "rules", "--b", "random", "--target", "none", "--deals", "20", "--workers", "1",
     "--quiet", "--results", "{folder}/s.db"]], ids=["tournament", "study"])
def test_a_full_disk_stops_a_run_with_one_line_and_the_run_resumes_where_it_stopped(tmp_path, command):
    """On a filesystem too small for the run (as root; elsewhere under a file size
    limit, which fails a write the same way): one line, exit 2, and every game
    stored is kept: the same command resumes and ends as a run that had room."""
    roomy = tmp_path / "roomy"
    roomy.mkdir()
    with tmpfs(tmp_path / "small", "80k") as mounted:
        folder = mounted or tmp_path / "small"
        limit = None if mounted else _limited(40_000)
        argv = [a.replace("{folder}", str(folder)) for a in command]
        done = subprocess.run([sys.executable, "-m", "scripts.cli", *argv], cwd=tmp_path, capture_output=True,
                              text=True, timeout=300, preexec_fn=limit, env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
        assert "cannot store games" in done.stderr.strip().splitlines()[-1], done.stderr
        assert [p.name for p in folder.iterdir() if not p.name.endswith((".db", "-wal", "-shm"))] == []
        for path in folder.iterdir():
            shutil.copy(path, roomy / path.name)
    (stored,) = roomy.glob("*.db")
    assert _games(stored) > 0                      # what was stored before the disk filled is kept
    argv = [a.replace("{folder}", str(roomy)) for a in command]
    code, _, err = run(argv, tmp_path)
    assert code == 0, err
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    code, _, err = run([a.replace("{folder}", str(fresh)) for a in command], tmp_path)
    assert code == 0, err
    with ResultsDB.read(stored) as a, ResultsDB.read(fresh / stored.name) as b:
        assert _played(a) == _played(b)


def test_every_file_the_toolkit_writes_is_told_by_its_contents(tmp_path):
    run_study(study_config("rules", "random", deals=1, target=None), tmp_path / "s.db", progress=False)
    (tmp_path / "figures").mkdir()
    for argv in (["report", "s.db", "--bootstrap", "0"], ["export-games", "s.db", "--out", "s.jsonl"],
                 ["study", "stats", "s.db", "--quiet", "--csv", "h.csv", "--figures", "figures"],
                 ["study", "plot", "s.db", "--out", "p.png"]):
        code, _, err = run(argv, tmp_path)
        assert code == 0, (argv, err)
    (tmp_path / "empty").write_bytes(b"")
    (tmp_path / "notes.txt").write_text("## my notes\n")
    kinds = {"s.db": RESULTS, "s.md": REPORT_MD, "s.csv": REPORT_CSV, "s.json": REPORT_JSON,
             "s.png": f"{FIGURE}: tournament report", "s.jsonl": RECORDS, "h.csv": HANDS_CSV,
             "p.png": f"{FIGURE}: study plot", "figures/study_s_points.png": f"{FIGURE}: study stats",
             "empty": EMPTY, "notes.txt": OTHER}
    for name, kind in kinds.items():
        assert kind_of(tmp_path / name) == kind, name
