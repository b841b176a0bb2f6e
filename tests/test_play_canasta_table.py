"""Modern Canasta at the table (issue 47): the initial meld's running count beside the player
building it, counted as the rules count it, and "take the pile" explained before the side's
initial meld (it binds the player to complete the meld, or withdraw and show the cards)."""

from __future__ import annotations

import random

import pyspiel

import games  # noqa: F401
from games.view import seat_view

GAME = "python_modern_canasta"


def test_the_initial_meld_count_agrees_with_the_rules_on_random_play():
    game = pyspiel.load_game(GAME)
    seen = valid_seen = take_seen = 0
    for seed in range(12):
        rng = random.Random(seed)
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice(state.chance_outcomes())[0])
                continue
            core, seat = state.core, state.current_player()
            view = seat_view(GAME, state, seat)
            notes = [n for n in view["players"][seat]["notes"] if n.startswith("initial meld ")]
            needed = core.rules.thresholds[seat & 1]
            if core.pending:
                (note,) = notes
                points = int(note.split()[2])
                assert note.split()[4] == str(needed)
                if core.initial_meld_valid():
                    valid_seen += 1
                    from_hand = any(slot != core.pickup_top for slot, *_ in core.canastas[seat & 1])
                    assert points >= needed or from_hand, note
                else:
                    assert points < needed or note.endswith("(needs a clean meld)"), note
                seen += 1
            else:
                assert not notes
            for a in view["actions"]:
                if a["kind"] == "pile" and a["label"].startswith("take the pile (then meld"):
                    assert not core.melded >> (seat & 1) & 1 and f"meld {needed} points" in a["label"]
                    take_seen += 1
            state.apply_action(rng.choice(state.legal_actions()))
    assert seen > 50 and valid_seen > 0 and take_seen > 0


def test_the_log_writes_cards_as_the_table_shows_them():
    from games.view import notation, seat_log
    assert notation("p0 plays T♠") == "p0 plays 10♠" and notation("p2 dealt 3r") == "p2 dealt red 3"
    assert notation("p1 dealt 3b, draws T") == "p1 dealt black 3, draws T"     # a T without a suit is a word
    for name in ("python_page_one(players=4)", "python_modern_canasta"):
        game = pyspiel.load_game(name)
        for seed in range(6):
            rng, state = random.Random(seed), game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    state.apply_action(rng.choice(state.chance_outcomes())[0])
                else:
                    state.apply_action(rng.choice(state.legal_actions()))
            text = " ".join(line["text"] for line in seat_log(state.core, 0))
            assert "T♠" not in text and "T♥" not in text and " 3r" not in text and " 3b" not in text
