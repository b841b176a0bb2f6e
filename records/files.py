"""The files the toolkit reads and writes, kept apart: what every command checks
before it opens an input or writes an output, so that nothing stored is lost,
mixed or blocked on.

Inputs are regular files. A named pipe, a device or a folder given where a file
is read is refused before it is opened (opening a pipe for reading waits for a
writer forever); `open_regular` opens without blocking and checks the file it
got, so a name that changes meanwhile cannot slip one through.

Outputs never name an input, nor a file of ours of another kind: a results file,
the -wal, -shm or -journal file SQLite keeps beside one (even before it exists:
SQLite would take a file of that name for the results file's own log), a record
file where a report or a table is written, a report where records go. Nor a
device, pipe or folder. A file is told by its contents (`kind_of`), not its
name. An existing output is replaced only by one of its own kind: with --force
where the command has one, and otherwise (a report, a table, a figure: things
made again from the results) always; an empty file counts as any kind. Every
output is written whole through a temporary file beside it and renamed over the
old one, so a full disk or a crash leaves the old file, never half a new one.
"""

from __future__ import annotations

import json
import os
import stat
import struct
from pathlib import Path
from typing import BinaryIO, Callable, Iterable

RESULTS = "a results file"
RECORDS = "a record file"
REPORT_MD, REPORT_CSV, REPORT_JSON = "a tournament report (.md)", "a tournament report (.csv)", \
    "a tournament report (.json)"
HANDS_CSV = "a hand statistics table (.csv)"
FIGURE = "a PNG figure"
NETWORK = "a network file (value or belief)"
CURVE_CSV = "a learning curve (.csv)"
TRAINING_JSON = "a training report (.json)"
DECISIONS_JSON = "a decisions report (.json)"
ONNX_TWIN = "an ONNX twin of a network file"
CURVE_CSV_HEADER = "epoch,"              # training.selfplay.write_curve
TRAINING_REPORT_KEY = "cardarena_report"  # what a training report (training/) says it is
DECISIONS_KEY = "cardarena_decisions"     # what a decisions report (eval.study.decisions) says it is
EMPTY = "an empty file"
OTHER = "a file cardarena did not write"

SQLITE_HEADER = b"SQLite format 3\x00"
SQLITE_SIDECARS = ("-wal", "-shm", "-journal")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# The tEXt key our figures carry (matplotlib's savefig metadata), naming what made
# them, so that a report's plot never replaces a study's figure or the other way.
FIGURE_KEY = "cardarena"
REPORT_CSV_HEADER = "name,spec,elo,elo_low,elo_high,games,"
HANDS_CSV_HEADER = "hand,side,agent,points,opponents,"
_SNIFF = 1 << 16
_REPORT_JSON_MAX = 64 << 20          # larger than any tournament's report


def _describe_mode(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def regular_input(path: str | os.PathLike, what: str) -> Path:
    """`path`, checked to be an existing regular file (links followed) without
    opening it; ValueError, one line, naming what it is otherwise (`what`: the
    file's role, "results file")."""
    path = Path(path)
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise ValueError(f"{path}: no such {what}") from None
    except OSError as e:
        raise ValueError(f"{path}: cannot read {what} ({e.strerror})") from None
    if not stat.S_ISREG(mode):
        raise ValueError(f"{path} is {_describe_mode(mode)}, not a {what}")
    return path


def open_regular(path: str | os.PathLike, what: str) -> BinaryIO:
    """`path` opened for reading in binary, refused (ValueError) unless it is a
    regular file: opened without blocking (a pipe would wait for a writer),
    then checked by the descriptor itself."""
    path = regular_input(path, what)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        raise ValueError(f"{path}: cannot read {what} ({e.strerror})") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise ValueError(f"{path} is {_describe_mode(mode)}, not a {what}")
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


def sidecars(path: str | os.PathLike) -> list[Path]:
    """The files SQLite may keep beside a database: its write-ahead log, its
    shared-memory index and its rollback journal."""
    return [Path(f"{path}{suffix}") for suffix in SQLITE_SIDECARS]


def sidecar_of(path: str | os.PathLike) -> Path | None:
    """The SQLite database whose -wal, -shm or -journal file `path` names, where
    that database exists; else None."""
    text = str(path)
    for suffix in SQLITE_SIDECARS:
        if text.endswith(suffix) and len(text) > len(suffix):
            base = Path(text[:-len(suffix)])
            try:
                with open_regular(base, "file") as f:
                    if f.read(16) == SQLITE_HEADER:
                        return base
            except ValueError:
                pass
    return None


def png_text(head: bytes) -> dict[str, str]:
    """The tEXt entries of a PNG's chunks before its image data."""
    out, at = {}, len(PNG_SIGNATURE)
    while at + 8 <= len(head):
        length, kind = struct.unpack(">I4s", head[at:at + 8])
        if kind in (b"IDAT", b"IEND") or at + 8 + length > len(head):
            break
        if kind == b"tEXt":
            key, _, value = head[at + 8:at + 8 + length].partition(b"\0")
            out[key.decode("latin-1")] = value.decode("latin-1")
        at += 12 + length
    return out


def kind_of(path: str | os.PathLike) -> str:
    """What an existing regular file holds, told by its contents: one of RESULTS,
    RECORDS, the REPORT_* kinds, HANDS_CSV, FIGURE (`FIGURE: what made it` for a
    figure of ours that says), EMPTY or OTHER."""
    with open_regular(path, "file") as f:
        head = f.read(_SNIFF)
    if not head:
        return EMPTY
    if head.startswith(SQLITE_HEADER):
        return RESULTS
    if head[8:9] == b"{" and b'"cardarena-net"' in head:
        return NETWORK
    if head[:1] == b"\x08" and b"cardarena" in head[:64]:     # ONNX: ir_version, then its producer's name
        return ONNX_TWIN
    if head.startswith(PNG_SIGNATURE):
        maker = png_text(head).get(FIGURE_KEY)
        return f"{FIGURE}: {maker}" if maker else FIGURE
    text = head.decode("utf-8", errors="replace")
    first = text.lstrip("\ufeff \t\r\n")
    if first.startswith("## Tournament: "):
        return REPORT_MD
    if first.startswith(REPORT_CSV_HEADER):
        return REPORT_CSV
    if first.startswith(HANDS_CSV_HEADER):
        return HANDS_CSV
    if first.startswith(CURVE_CSV_HEADER):
        return CURVE_CSV
    if first.startswith(("{", "[")):
        if '"format":"cardarena-record"' in "".join(first[:4096].split()):
            return RECORDS
        if first.startswith("{") and _is_report_json(path):
            return REPORT_JSON
        if first.startswith("{") and f'"{TRAINING_REPORT_KEY}":' in first[:4096]:
            return TRAINING_JSON
        if first.startswith("{") and f'"{DECISIONS_KEY}":' in first[:4096]:
            return DECISIONS_JSON
    return OTHER


def _is_report_json(path: str | os.PathLike) -> bool:
    """Whether a JSON file is a tournament report (eval.report.to_json): an object
    with the summary's config, rows and anchor. Read whole: a report is small."""
    if os.stat(path).st_size > _REPORT_JSON_MAX:
        return False
    with open_regular(path, "file") as f:
        try:
            report = json.loads(f.read())
        except (ValueError, RecursionError):
            return False
    return isinstance(report, dict) and {"config", "rows", "anchor"} <= set(report)


def _shown(kind: str) -> str:
    """A kind in words: "a PNG figure: study plot" as "a PNG figure made by study plot"."""
    figure, _, maker = kind.partition(": ")
    return f"{figure} made by {maker}" if kind.startswith(FIGURE) and maker else kind


def _same_kind(found: str, kind: str) -> bool:
    """Whether a file of kind `found` may be replaced by an output of `kind`: the
    same kind, an empty file, or a PNG that names no maker (written before
    figures said what made them)."""
    return found in (kind, EMPTY) or (found == FIGURE and kind.startswith(FIGURE))


def check_output(path: str | os.PathLike, kind: str, *, inputs: Iterable[str | os.PathLike] = (),
                 force: bool | None = None, option: str = "--out") -> Path:
    """`path`, checked as an output of `kind` before anything is written: its
    folder exists; it is not an input of the command (nor an input's -wal, -shm
    or -journal), not the sidecar of an SQLite file, not a folder, device or
    pipe; and an existing file there is of the same kind (or empty). `force`
    False (a command whose --force was not given) refuses any existing file;
    None (a command without --force) replaces one of the same kind.
    ValueError, one line, otherwise."""
    path = Path(path)
    name = f"{option} {path}"
    if not path.name or path.name in (".", ".."):
        raise ValueError(f"{name}: name a file, not a folder")
    folder = path.parent
    if not folder.is_dir():
        raise ValueError(f"{name}: no folder {folder}")
    resolved = path.resolve()
    for source in inputs:
        source = Path(source)
        if resolved == source.resolve() or (path.exists() and source.exists() and path.samefile(source)):
            raise ValueError(f"{name} is an input of this command; name another file")
        if any(resolved == side.resolve() for side in sidecars(source)):
            raise ValueError(f"{name} is where SQLite keeps {source}'s log or index; name another file")
    base = sidecar_of(path)
    if base is not None:
        raise ValueError(f"{name} is where SQLite keeps {base}'s log or index; name another file")
    if not os.path.lexists(path):
        return path
    try:
        mode = os.stat(path).st_mode
    except OSError as e:
        raise ValueError(f"{name}: cannot write there ({e.strerror})") from None
    if not stat.S_ISREG(mode):
        raise ValueError(f"{name} is {_describe_mode(mode)}, not a file to write {kind} to")
    found = kind_of(path)
    if not _same_kind(found, kind):
        raise ValueError(f"{name} holds {_shown(found)}, not {_shown(kind)}; it is left as it is: "
                         f"name another file")
    if force is False and found != EMPTY:
        raise ValueError(f"{name} exists; pass --force to replace it")
    return path


def write_whole(path: str | os.PathLike, write: Callable[[Path], None]) -> None:
    """Calls `write(tmp)` to write a temporary file beside `path`, then renames it
    over `path`: the old file stays whole until the new one is, and a failed
    write (a full disk) leaves no temporary file behind."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    try:
        write(tmp)
        with open(tmp, "rb") as f:
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as e:
        if tmp.exists():
            tmp.unlink()
        if isinstance(e, OSError) and e.errno is not None:     # named by the file asked for, not the temporary one
            raise OSError(e.errno, e.strerror, str(path)) from None
        raise


def write_text_whole(path: str | os.PathLike, text: str) -> None:
    """`text` written to `path` whole (`write_whole`)."""
    write_whole(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))


def read_text(path: str | os.PathLike, what: str) -> str:
    """A regular file's text (UTF-8); ValueError naming the problem otherwise."""
    with open_regular(path, what) as f:
        data = f.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"{path}: {what} is not UTF-8 text ({e.reason} at byte {e.start})") from None


def loads(text: str) -> object:
    """json.loads, with a nesting too deep for the parser's stack as a ValueError."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("nested too deeply") from None


__all__ = ["RESULTS", "RECORDS", "REPORT_MD", "REPORT_CSV", "REPORT_JSON", "HANDS_CSV", "FIGURE", "EMPTY",
           "OTHER", "regular_input", "open_regular", "sidecars", "sidecar_of", "kind_of", "check_output",
           "write_whole", "write_text_whole", "read_text", "loads"]
