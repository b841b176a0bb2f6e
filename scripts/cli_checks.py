"""What every `cardarena` subcommand checks before it starts work: argparse types
for its numbers and a game loader whose errors are one line (pyspiel's own error
for an unknown name lists every game it knows, 130 lines)."""

from __future__ import annotations

import argparse
import math
from typing import Callable

import pyspiel

import games  # noqa: F401  (registers our games)

MAX_SEED = 2**63 - 1


def one_line(text: object) -> str:
    """A message on one line: the lines of a multi-line one joined by '; ', and any
    other character that is not printable (a control character typed into an
    argument, some of which end a line for Python's `splitlines`) written as its
    escape, so that an error about bad input is one line whatever the input."""
    escaped = "".join(c if c.isprintable() or c == "\n" else c.encode("unicode_escape").decode("ascii")
                      for c in str(text))
    return "; ".join(line.strip() for line in escaped.split("\n") if line.strip())


class CliParser(argparse.ArgumentParser):
    """An argument parser that refuses bad arguments with one line and exit code 2
    (the usage is in --help); subparsers are made of the same class."""

    def error(self, message: str) -> None:
        self.exit(2, f"{self.prog}: error: {one_line(message)} (see {self.prog} --help)\n")


def load_game(text: str) -> pyspiel.Game:
    """The game `text` names, as pyspiel loads it. Raises ValueError with one line
    for a malformed string, an unknown game or parameters the game refuses
    (games.load.load_game)."""
    from games.load import load_game as load
    return load(text)


def game_string(text: str) -> str:
    """An argparse type: a game string that loads (kept as the user wrote it)."""
    try:
        load_game(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return text


def integer(low: int, high: int) -> Callable[[str], int]:
    """An argparse type: an integer in [low, high]."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{value} is out of range: must be in [{low}, {high}]")
        return value
    parse.__name__ = "integer"
    return parse


def number(low: float, high: float, *, open_low: bool = False, open_high: bool = False) -> Callable[[str], float]:
    """An argparse type: a finite number in the range (an open end excludes its bound)."""
    shown = f"{'(' if open_low else '['}{low:g}, {high:g}{')' if open_high else ']'}"

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
        if value < low or value > high or (open_low and value == low) or (open_high and value == high):
            raise argparse.ArgumentTypeError(f"{value:g} is out of range: must be in {shown}")
        return value
    parse.__name__ = "number"
    return parse


def seconds_or_none(text: str) -> float | None:
    """An argparse type: a positive, finite number of seconds, or `none` for no limit."""
    if text.strip().lower() == "none":
        return None
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds or none, got {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive, finite number of seconds or none, "
                                         f"got {text!r}")
    return value


seed = integer(0, MAX_SEED)
