"""The seat view (games/view.py): one description of what a seat may see, and its schema per game.

Every view built along many seeded deals of every registered game, played at random and by the
rule bots (which meld, take piles, ask and name suits), at every seat, open at the end, validates
against its game's schema (`cardarena schema GAME`), so the words a game's view uses are the
words its registry entry declares. The views' leak tests are tests/test_play_api.py (the table),
tests/test_records.py (`cardarena show --view SEAT --json`) and tests/test_engine.py (the turn
message).
"""

from __future__ import annotations

import copy
import importlib
import json
import random

import pyspiel
import pytest
from jsonschema import Draft202012Validator

import games  # noqa: F401  (registers our games)
from agents import make_bot
from games import registry
from games.view import seat_view, view_schema
from scripts.cli import main

# (game string, deals, policy): every game, its variants whose views differ (a match's standing,
# Dobon, two to four players and their rows), at random and by rule bots.
DEALS = [("python_page_one", 6, "random"),
         ("python_page_one(players=6)", 3, "rules"),
         ("python_american_page_one(players=3,multi_play=true,max_turns=60)", 4, "random"),
         ("python_american_page_one(dobon=true,dobon_gaeshi=true,challenge=true,max_turns=80)", 3, "rules"),
         ("python_american_page_one(players=3,scores=10;-4;0,deals_left=2)", 2, "rules"),
         ("python_modern_canasta", 2, "random"),
         ("python_modern_canasta(score0=1600,score1=3100)", 3, "rules"),
         ("python_classic_canasta(players=2)", 2, "rules"),
         ("python_classic_canasta(players=3,score0=1600,score2=-20)", 2, "rules"),
         ("python_classic_canasta(players=4)", 3, "rules")]


def _validator(game) -> Draft202012Validator:
    schema = view_schema(game)
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def _valid(validator: Draft202012Validator, view: dict, where: object) -> None:
    """`view`, as JSON carries it, against the schema; the first error named."""
    error = next(validator.iter_errors(json.loads(json.dumps(view))), None)
    assert error is None, f"{where}: {'/'.join(map(str, error.absolute_path))}: {error.message[:300]}"


@pytest.mark.parametrize("game_string,deals,policy", DEALS)
def test_every_view_along_seeded_deals_validates_against_its_games_schema(game_string, deals, policy):
    game = pyspiel.load_game(game_string)
    n = game.num_players()
    validator = _validator(game)
    checked = 0
    for seed in range(deals):
        rng = random.Random(seed)
        bots = [make_bot("rules", game, s, seed) for s in range(n)] if policy == "rules" else None
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(outcomes, probs)[0])
                continue
            mover = state.current_player()        # the mover's view (its actions) and one other seat's
            for seat in {mover, rng.randrange(n)}:
                _valid(validator, seat_view(game, state, seat), (seed, len(state.history()), seat))
                checked += 1
            state.apply_action(bots[mover].step(state) if bots else rng.choice(state.legal_actions()))
        for seat in range(n):                      # the end: its score, and every hand open
            _valid(validator, seat_view(game, state, seat, open_hands=True), (seed, "end", seat))
            assert seat_view(game, state, seat)["score"] is not None
    assert checked >= 50


def test_the_test_games_views_validate_against_its_declared_schema(monkeypatch):
    """A game added in one file (tests/support/tiny_game.py) declares its view's words too."""
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    tiny = importlib.import_module("tests.support.tiny_game")
    registry.register(tiny.ENTRY)
    for players in (2, 3):
        game = pyspiel.load_game(tiny.NAME, {"players": players})
        validator = _validator(game)
        for seed in range(10):
            rng = random.Random(seed)
            state = game.new_initial_state()
            while True:
                for seat in range(players):
                    _valid(validator, seat_view(game, state, seat, open_hands=state.is_terminal()), (seed, seat))
                if state.is_terminal():
                    break
                state.apply_action(rng.choice(state.legal_actions()))


def test_a_schema_refuses_a_word_its_game_did_not_declare():
    """The schemas are not vacuous: a zone, an action kind, a rank or a field of another game's is refused."""
    game = pyspiel.load_game("python_modern_canasta")
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    view = json.loads(json.dumps(seat_view(game, state, state.current_player())))
    validator = _validator(game)
    _valid(validator, view, "as built")
    edits = [lambda v: v["zones"][0].update(name="Trick"), lambda v: v["actions"][0].update(kind="suit"),
             lambda v: v["hand"][0].update(rank="3r"), lambda v: v.update(secret=[]),
             lambda v: v.update(game="python_page_one"), lambda v: v["players"].pop()]
    for edit in edits:
        bad = copy.deepcopy(view)
        edit(bad)
        assert not validator.is_valid(bad), bad


@pytest.mark.parametrize("name", registry.names())
def test_the_schema_command_prints_the_games_schema(name, capsys):
    main(["schema", f"{name}()"])
    assert json.loads(capsys.readouterr().out) == view_schema(name)


def test_the_schema_command_refuses_a_game_that_is_not_registered_in_one_line(capsys):
    with pytest.raises(SystemExit) as done:
        main(["schema", "kuhn_poker"])
    err = capsys.readouterr().err
    assert done.value.code == 2 and "no registered game 'kuhn_poker'" in err and "Traceback" not in err
