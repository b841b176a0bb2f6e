"""docs/protocol/<game>.md are what scripts/protocol_docs.py makes of the games now."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_protocol_pages_are_generated_from_the_games_as_they_are():
    run = subprocess.run([sys.executable, "-m", "scripts.protocol_docs", "--check"], cwd=ROOT,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr


def test_a_page_lists_the_words_a_seat_is_told():
    """The shapes are those of real lines: a Canasta meld, a Page One play, with placeholders."""
    from scripts.protocol_docs import shape
    assert shape("p2 meld K: K K 2 Jk") == "<seat> meld <rank>: <rank> ..."
    assert shape("p0 plays 9♥") == "<seat> plays <card>"
    assert shape("4 players; scores before the hand: 120 / -35") == ("<n> players; scores before the hand: "
                                                                      "<n> / <n>")
    page = (ROOT / "docs" / "protocol" / "modern_canasta.md").read_text()
    assert "<seat> takes the pile with a pair of <rank>" in page and "| 4 | [0, 1, 0, 1] |" in page
