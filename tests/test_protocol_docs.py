"""docs/protocol/<game>.md are what scripts/protocol_docs.py makes of the games now."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

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


def test_each_game_says_what_its_zones_show_and_how_its_events_change_the_table():
    """The newcomer's engine needed, per event, what to update, and per zone, what its text
    means: every game declares both (ViewShape), once each, and its page shows them."""
    from games import registry
    for entry in registry.registered():
        shape = entry.view_shape
        zones, events = dict(shape.zone_texts), dict(shape.events)
        assert len(zones) == len(shape.zone_texts) and len(events) == len(shape.events), entry.name
        assert set(zones) == set(shape.zones), entry.name
        assert all(text.strip() for text in list(zones.values()) + list(events.values())), entry.name
        page = (ROOT / "docs" / "protocol" / f"{entry.name.removeprefix('python_')}.md").read_text()
        for event, effect in events.items():
            assert f"| `{event}` | {effect}" in page, (entry.name, event)
        for zone in shape.zones:
            assert f"| `{zone.replace('|', chr(92) + '|')}` | " in page, (entry.name, zone)
    page = (ROOT / "docs" / "protocol" / "classic_canasta.md").read_text()
    assert "| `<seat> withdraws its initial meld` | the melds it laid this turn" in page


def test_an_event_or_a_zone_the_game_does_not_describe_stops_the_generator():
    """A line said in play without its effect declared must not reach the protocol undocumented."""
    from dataclasses import replace

    from games import registry
    from scripts.protocol_docs import Undeclared, _event_effects, _zone_texts
    entry = registry.lookup("python_page_one")
    said = {event for event, _ in entry.view_shape.events}
    assert [e for e, _ in _event_effects(entry, said)] == [e for e, _ in entry.view_shape.events]
    fewer = replace(entry, view_shape=replace(entry.view_shape, events=entry.view_shape.events[1:]))
    with pytest.raises(Undeclared, match="<seat> leads first"):
        _event_effects(fewer, said)
    fewer = replace(entry, view_shape=replace(entry.view_shape, zone_texts=entry.view_shape.zone_texts[1:]))
    with pytest.raises(Undeclared, match="Trick"):
        _zone_texts(fewer)
