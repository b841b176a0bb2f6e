"""Checks every game must pass; each game's tests call them with its own hooks.

* `check_random_sim`: OpenSpiel's own conformance test, with serialization.
* `check_invariant`: a game invariant (card conservation) at every step of random games.
* `check_hidden_information`: a player's information state and observation (strings
  and tensors) do not change when only cards it cannot see change.
* `check_resample`: every resampled world looks the same to the player (same strings,
  tensors, legal actions), obeys the invariant, is produced by replaying its own
  history from the start, and plays on to the end.
* `check_bot_ignores_hidden_cards`: a bot's move does not change when only cards
  its player cannot see change.
* `check_private_view`: the search's node key (`private_view` with the path of
  actions and chance events) tells two worlds apart exactly when the player's
  information state does, up to the order of the player's own draws.
* `check_rejects_illegal_actions`: a core that declares `checks_actions` raises
  IllegalActionError for every action that is not legal (the harness relies on it).
* `check_history`: a state played from Python (games.wrapper applies actions
  there, without C++) reports its whole history, and serializes, clones and
  makes children whole, also after C++ applied some of its actions.
"""

from __future__ import annotations

import random
import re
from typing import Callable, Iterator

import numpy as np
import pyspiel

from games.protocol import IllegalActionError, chance_sampler, outcome_at, random_playout

Core = object


def check_random_sim(game_string: str, sims: int) -> None:
    pyspiel.random_sim_test(pyspiel.load_game(game_string), sims, serialize=True, verbose=False)


def random_states(game: pyspiel.Game, count: int, seed: int, decision_only: bool = True,
                  accept: Callable[[Core], bool] | None = None,
                  max_steps: int = 400) -> Iterator[pyspiel.State]:
    """States from random points (up to max_steps in) of uniformly random games
    (only those whose core `accept` takes, when given)."""
    rng = random.Random(seed)
    produced = 0
    while produced < count:
        state = game.new_initial_state()
        sample = chance_sampler(state)
        stop = rng.randrange(1, max_steps)
        steps = 0
        while not state.is_terminal() and steps < stop:
            if state.is_chance_node():
                state.apply_action(sample(state, rng.random()))
            else:
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])
            steps += 1
        if decision_only and (state.is_chance_node() or state.is_terminal()):
            continue
        if accept is not None and not accept(state.core):
            continue
        produced += 1
        yield state


def check_history(game: pyspiel.Game, games: int, seed: int) -> None:
    """history, history_str, move_number, full_history, is_initial_state, child,
    clone and serialization of states played from Python, and of states that
    C++ played on from there (pyspiel.State.child is C++'s clone and apply)."""
    rng = random.Random(seed)
    for _ in range(games):
        state = game.new_initial_state()
        assert state.is_initial_state() and state.history() == [] and state.move_number() == 0
        applied, players = [], []
        while not state.is_terminal():
            if state.is_chance_node():
                action = outcome_at(state.chance_outcomes(), rng.random())
            else:
                action = rng.choice(state.legal_actions())
            if rng.random() < 0.2:           # this step through C++: ApplyAction and its trampolines
                child = pyspiel.State.child(state, action)
                assert str(child) == str(state.child(action))
                players.append(state.current_player())
                state = child
            else:
                players.append(state.current_player())
                state.apply_action(action)
            applied.append(action)
            assert state.history() == applied and state.move_number() == len(applied)
        assert not state.is_initial_state()
        assert state.history_str() == ", ".join(map(str, applied))
        assert [(h.player, h.action) for h in state.full_history()] == list(zip(players, applied))
        copy = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))[1]
        clone = state.clone()
        for other in (copy, clone):
            assert str(other) == str(state) and other.history() == applied
            assert other.returns() == state.returns()


def check_play_out(game: pyspiel.Game, count: int, seed: int) -> None:
    """The rollout fast path (a core's play_out): with the same random numbers,
    the same moves as the protocol's random_playout loop."""
    for i, state in enumerate(random_states(game, count, seed)):
        fast, slow = state.core.clone(), state.core.clone()
        returns = fast.play_out(random.Random(i).random)
        steps = random_playout(slow, random.Random(i))
        assert steps > 0 and fast.is_terminal()
        assert returns == slow.returns()
        assert fast.events() == slow.events()


def check_invariant(game: pyspiel.Game, games: int, seed: int,
                    invariant: Callable[[Core], None]) -> None:
    """Calls invariant(core) after every step of `games` random games."""
    rng = random.Random(seed)
    for _ in range(games):
        state = game.new_initial_state()
        core = state.core
        sample = chance_sampler(core)
        invariant(core)
        while not core.is_terminal():
            if core.is_chance_node():
                core.apply_action(sample(core, rng.random()))
            else:
                legal = core.legal_actions()
                core.apply_action(legal[rng.randrange(len(legal))])
            invariant(core)


def _views(game: pyspiel.Game):
    info = game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=True))
    obs = game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=False))

    def view(core: Core, player: int):
        out = []
        for observer in (info, obs):
            observer.set_from(core, player)
            out.append(observer.string_from(core, player))
            out.append(observer.tensor.copy())
        return out
    return view


def _assert_same_view(a, b, what: str) -> None:
    for x, y in zip(a, b):
        if isinstance(x, np.ndarray):
            assert np.array_equal(x, y), f"{what}: a tensor changed"
        else:
            assert x == y, f"{what}: a string changed:\n{x}\n---\n{y}"


def check_hidden_information(game: pyspiel.Game, count: int, seed: int,
                             perturb: Callable[[Core, int, random.Random], Core | None]) -> int:
    """perturb(core, player, rng) returns a copy whose cards hidden from `player`
    were changed (or None when nothing is hidden). Returns how many were checked."""
    view = _views(game)
    rng = random.Random(seed)
    checked = 0
    for state in random_states(game, count, seed):
        core = state.core
        for player in range(game.num_players()):
            other = perturb(core, player, rng)
            if other is None:
                continue
            _assert_same_view(view(core, player), view(other, player),
                              f"player {player} saw hidden cards change")
            checked += 1
    return checked


def check_bot_ignores_hidden_cards(game: pyspiel.Game, make: Callable[[int], object], count: int, seed: int,
                                   perturb: Callable[[Core, int, random.Random], Core | None],
                                   accept: Callable[[Core], bool] | None = None) -> int:
    """make(player) returns a fresh bot for that seat; its move on a random state's
    core and on the perturbed copy (perturb as for check_hidden_information) must
    be the same. Returns how many states were checked."""
    rng = random.Random(seed)
    checked = 0
    for state in random_states(game, count, seed, accept=accept):
        core = state.core
        me = core.current_player()
        other = perturb(core, me, rng)
        if other is None:
            continue
        assert make(me).step(core) == make(me).step(other), f"p{me}'s bot read a hidden card"
        checked += 1
    return checked


def check_resample(game: pyspiel.Game, count: int, seed: int, samples: int,
                   invariant: Callable[[Core], None],
                   accept: Callable[[Core], bool] | None = None, max_steps: int = 400) -> None:
    view = _views(game)
    rng = random.Random(seed)
    for state in random_states(game, count, seed, accept=accept, max_steps=max_steps):
        core = state.core
        for player in range(game.num_players()):
            before = view(core, player)
            legal = core.legal_actions(player)
            for _ in range(samples):
                world = core.resample_from_infostate(player, rng.random)
                invariant(world)
                _assert_same_view(before, view(world, player), f"resampled world for p{player}")
                assert world.legal_actions(player) == legal
                replayed = game.new_initial_state()
                for action in world.history():
                    replayed.apply_action(action)
                assert str(replayed) == str(world), "the rewritten history does not produce the world"
                world = world.clone()
                sample = chance_sampler(world)
                while not world.is_terminal():
                    if world.is_chance_node():
                        world.apply_action(sample(world, rng.random()))
                    else:
                        acts = world.legal_actions()
                        world.apply_action(acts[rng.randrange(len(acts))])


def _without_own_draws(text: str, player: int) -> str:
    """An information state with the player's own draws reduced to their fact:
    private_view keys a hand, not the order its cards came in."""
    return re.sub(rf"^(p{player} draws)\b.*$", r"\1", text, flags=re.M)


def check_private_view(game: pyspiel.Game, count: int, seed: int, steps: int = 30,
                       accept: Callable[[Core], bool] | None = None) -> int:
    """From a random state, a player's resampled world and the true state play on
    with the same player actions and independent chance (while both let the
    same player act): at every decision, equal information states give equal
    private views, and equal private views give information states that differ
    at most in the order of the player's draws. Returns how many were compared."""
    rng = random.Random(seed)
    compared = 0
    for state in random_states(game, count, seed, accept=accept):
        player = rng.randrange(game.num_players())
        a = state.core.clone()
        b = a.resample_from_infostate(player, rng.random)
        sample_a, sample_b = chance_sampler(a), chance_sampler(b)
        for _ in range(steps):
            if a.is_terminal() or b.is_terminal() or a.is_chance_node() != b.is_chance_node():
                break
            if a.is_chance_node():
                a.apply_action(sample_a(a, rng.random()))
                b.apply_action(sample_b(b, rng.random()))
                continue
            if a.current_player() != b.current_player():
                break      # the search's keys name the acting player: they differ here
            info_a = a.information_state_string(player)
            info_b = b.information_state_string(player)
            same_view = a.private_view(player) == b.private_view(player)
            if info_a == info_b:
                assert same_view, f"p{player}: one information state, two private views:\n{info_a}"
            if same_view:
                assert _without_own_draws(info_a, player) == _without_own_draws(info_b, player), \
                    f"p{player}: one private view, two information states:\n{info_a}\n---\n{info_b}"
            compared += 1
            common = sorted(set(a.legal_actions()) & set(b.legal_actions()))
            if not common:
                break
            action = common[rng.randrange(len(common))]
            a.apply_action(action)
            b.apply_action(action)
    return compared


def check_rejects_illegal_actions(game: pyspiel.Game, count: int, seed: int,
                                  accept: Callable[[Core], bool] | None = None) -> int:
    """At random decisions, every action id that is not legal, applied to a
    clone of the core, raises IllegalActionError naming it, as the core's
    `checks_actions` promises (games.protocol); legal ones apply. Returns how
    many illegal actions were tried."""
    tried = 0
    for state in random_states(game, count, seed, accept=accept):
        core = state.core
        assert core.checks_actions, f"{type(core).__name__} does not declare checks_actions"
        legal = set(core.legal_actions())
        for action in range(game.num_distinct_actions()):
            attempt = core.clone()
            if action in legal:
                attempt.apply_action(action)
                continue
            try:
                attempt.apply_action(action)
            except IllegalActionError as e:
                assert "illegal action" in str(e), e
            else:
                raise AssertionError(f"illegal action {action} was applied at:\n{state}")
            tried += 1
    return tried
