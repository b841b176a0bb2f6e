"""Named presets (agents/presets.py): a short name works wherever a spec does (make_bot, a
tournament's --agent, `cardarena match`, the table, nested in a setting), is stored as the spec it
stands for, names only shipped files, and `cardarena list presets` shows it expanded."""

from __future__ import annotations

import hashlib

import pyspiel
import pytest

import games  # noqa: F401
from agents import SHIPPED_BOTS, make_bot
from agents.presets import expand, presets
from games import registry
from eval.config import bot_files, parse_agents
from play.options import FieldError, check_bot
from scripts.cli import main

PRESETS = presets()
GAMES = {"page-one-strong": "python_page_one(players=4)", "american-page-one-strong": "python_american_page_one",
         "canasta-strong": "python_modern_canasta", "canasta-strong-ismcts": "python_modern_canasta",
         "canasta-fast": "python_modern_canasta"}
# The table's levels name the plain bots too (page-one-club is `rules`): each at its game's example.
GAMES.update({name: entry.example for entry in registry.registered() for name in entry.presets if name not in GAMES})
PLAIN = ("random", "rules")      # presets that load no file
# The shipped copies of the networks earlier runs name in bots/earlier/.
SHIPPED_AS = {"bots/earlier/python_modern_canasta_dmc.safetensors": "bots/python_modern_canasta.dmc.safetensors",
              "bots/earlier/python_modern_canasta_advantage_l.safetensors":
                  "bots/python_modern_canasta.advantage.safetensors"}


def test_a_preset_stands_for_its_spec_and_any_other_spec_is_left_as_it_is():
    assert expand("canasta-fast") == expand(" canasta-fast ") == PRESETS["canasta-fast"]
    assert expand("pimc(worlds=4)") == "pimc(worlds=4)"
    with pytest.raises(ValueError, match=r"^preset 'canasta-fast' takes no settings; it is pimc\(") as info:
        expand("canasta-fast(worlds=8)")
    assert "\n" not in str(info.value)


def test_each_games_strongest_and_field_are_its_presets_and_name_shipped_files_only(tmp_path, monkeypatch):
    for entry in registry.registered():
        assert entry.strongest is None or entry.strongest in entry.presets, entry.name
        assert all(agent in PRESETS or "(" not in agent for agent in entry.default_field or ()), entry.name
    monkeypatch.chdir(tmp_path)          # found from any folder, as an installed package finds them
    for name, spec in PRESETS.items():
        short_name = GAMES[name].split("(")[0]
        files = bot_files(spec, short_name)
        assert (files or spec in PLAIN) and all(f.is_file() and f.parent == SHIPPED_BOTS.resolve() for f in files), \
            (name, files)
    for earlier, shipped in SHIPPED_AS.items():          # the same networks the documented runs played
        assert (hashlib.sha256((SHIPPED_BOTS.parent / earlier).read_bytes()).hexdigest()
                == hashlib.sha256((SHIPPED_BOTS.parent / shipped).read_bytes()).hexdigest())


@pytest.mark.parametrize("name", ["canasta-fast", "page-one-strong"])
def test_make_bot_plays_a_preset_as_its_spec(name):
    game = pyspiel.load_game(GAMES[name])
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    by_name, by_spec = make_bot(name, game, state.current_player(), 3), make_bot(PRESETS[name], game,
                                                                               state.current_player(), 3)
    assert type(by_name) is type(by_spec)
    assert by_name.step(state.clone()) == by_spec.step(state.clone())


def test_a_tournament_agent_is_named_by_its_preset_and_stored_as_its_spec():
    agents = dict(parse_agents(["canasta-fast", "other=canasta-strong", "rules"]))
    assert agents == {"canasta-fast": PRESETS["canasta-fast"], "other": PRESETS["canasta-strong"], "rules": "rules"}


def test_the_table_takes_a_preset_and_nested_presets_as_their_specs():
    assert check_bot("canasta-fast", "python_modern_canasta", 60.0, "bots") == PRESETS["canasta-fast"]
    nested = check_bot("pimc(worlds=2,iterations=2,rollout=canasta-fast)", "python_modern_canasta", 60.0, "bots")
    assert nested == "pimc(worlds=2,iterations=2,rollout=canasta-fast)"
    with pytest.raises(FieldError, match="takes no settings"):
        check_bot("canasta-fast(worlds=2)", "python_modern_canasta", 60.0, "bots")


def test_list_presets_shows_each_expanded(capsys):
    main(["list", "presets"])
    out = capsys.readouterr().out
    for name, spec in PRESETS.items():
        assert f"{name}: {spec}" in out


def test_a_game_cannot_take_another_games_preset_name():
    import dataclasses
    page_one = registry.lookup("python_page_one")
    with pytest.raises(ValueError, match="preset 'canasta-fast' is already game 'python_modern_canasta''s"):
        registry.register(dataclasses.replace(page_one, name="python_page_one_copy",
                                              presets={"canasta-fast": "rules"}))
    assert registry.find("python_page_one_copy") is None
