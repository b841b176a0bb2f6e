"""The tensors' index map (games/tensor_layout.py, docs/protocol/tensors.md) is the observers' own."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from games import tensor_layout
from games.load import load_game
from games.protocol import chance_sampler

ROOT = Path(__file__).resolve().parents[1]
GAMES = tensor_layout.documented_games()


def test_the_page_is_what_the_code_builds():
    done = subprocess.run([sys.executable, "-m", "games.tensor_layout", "--check"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_every_game_and_player_count_is_documented():
    names = {g.split("(")[0] for g in GAMES}
    assert {"python_page_one", "python_american_page_one", "python_modern_canasta",
            "python_classic_canasta"} <= names
    assert {f"python_classic_canasta(players={n})" for n in (2, 3, 4)} <= set(GAMES)


@pytest.mark.parametrize("game_string", GAMES)
def test_the_segments_tile_the_tensor_exactly(game_string):
    game = load_game(game_string)
    segments = tensor_layout.layout(game)
    assert segments[0].start == 0
    for before, after in zip(segments, segments[1:]):
        assert after.start == before.stop, (before.name, after.name)
    assert segments[-1].stop == game.information_state_tensor_size()


def _own(segments, name):
    return next(s for s in segments if s.name == name)


@pytest.mark.parametrize("game_string", ["python_page_one(players=4)", "python_american_page_one(players=4)",
                                         "python_modern_canasta", "python_classic_canasta(players=3)"])
def test_own_hand_changes_exactly_when_the_seats_hand_does(game_string):
    """Real play: the segment named `hand` of a seat's tensor changes at a step if and only if
    the seat's own hand size (`hand_sizes` at index 0) does, and drawing a card grows it."""
    game = load_game(game_string)
    segments = tensor_layout.layout(game)
    hand, sizes = _own(segments, "hand"), _own(segments, "hand_sizes")
    rng = random.Random(3)
    grown = 0
    for _ in range(3):
        state = game.new_initial_state()
        sample = chance_sampler(state)
        before = None
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(sample(state, rng.random()))
            else:
                state.apply_action(rng.choice(state.legal_actions()))
            if state.is_terminal() or state.is_chance_node() and before is None:
                continue
            now = np.asarray(state.information_state_tensor(0))
            if before is not None:
                hand_moved = not np.array_equal(now[hand.start:hand.stop], before[hand.start:hand.stop])
                size_moved = now[sizes.start] != before[sizes.start]
                assert hand_moved == size_moved, state.history()[-3:]
                if now[sizes.start] > before[sizes.start]:
                    assert now[hand.start:hand.stop].sum() > before[hand.start:hand.stop].sum()
                    grown += 1
            before = now
    assert grown > 0


def test_a_view_without_a_declared_meaning_is_refused(monkeypatch):
    game = load_game("python_page_one(players=4)")
    kind = type(tensor_layout.observer_of(game))
    declared = {k: v for k, v in kind.TENSOR_SEGMENTS.items() if k != "void"}
    monkeypatch.setattr(kind, "TENSOR_SEGMENTS", declared)
    with pytest.raises(ValueError, match="'void' has no entry"):
        tensor_layout.layout(game)
    monkeypatch.setattr(kind, "TENSOR_SEGMENTS", {**kind.TENSOR_SEGMENTS, "void": ("seat", "wrong shape")})
    with pytest.raises(ValueError, match="2 dimension"):
        tensor_layout.layout(game)
