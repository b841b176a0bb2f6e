"""Our games through PettingZoo, as multi-agent RL users load them: Shimmy's
OpenSpiel compatibility wrapper over `pyspiel.load_game(...)`, checked by
PettingZoo's own API test and by one whole episode played on the action masks."""

from __future__ import annotations

import warnings

import numpy as np
import pyspiel
import pytest

pytest.importorskip("shimmy")
from pettingzoo.test import api_test  # noqa: E402
from shimmy import OpenSpielCompatibilityV0  # noqa: E402

import games  # noqa: F401,E402  (registers our games)

GAMES = ["python_page_one(players=4)",
         "python_american_page_one(players=4,multi_play=true,dobon=true)",
         "python_modern_canasta"]


@pytest.mark.parametrize("game_string", GAMES)
def test_pettingzoo_api_test_passes(game_string: str) -> None:
    env = OpenSpielCompatibilityV0(env=pyspiel.load_game(game_string))
    with warnings.catch_warnings():
        # Our observation tensors are unbounded floats; the API test warns of that.
        warnings.simplefilter("ignore", UserWarning)
        api_test(env, num_cycles=10, verbose_progress=False)


@pytest.mark.parametrize("game_string", GAMES)
def test_an_episode_on_the_action_masks_is_a_whole_game(game_string: str) -> None:
    """The mask PettingZoo offers is the game's legal actions at every turn, and
    random play on it ends the game with every agent terminated."""
    env = OpenSpielCompatibilityV0(env=pyspiel.load_game(game_string))
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    decisions = 0
    terminated = set()
    for agent in env.agent_iter(max_iter=100_000):
        _, _, termination, truncation, info = env.last()
        if termination or truncation:
            terminated.add(agent)
            env.step(None)
            continue
        legal = np.flatnonzero(info["action_mask"])
        assert legal.tolist() == env.game_state.legal_actions()
        assert env.agent_name_id_mapping[agent] == env.game_state.current_player()
        env.step(int(rng.choice(legal)))
        decisions += 1
    assert decisions > 0
    assert env.game_state.is_terminal()
    assert terminated == set(env.possible_agents)
