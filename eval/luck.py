"""Luck taken out of the score: AIVAT's control variates at every chance event and
every random choice of a bot that states its policy.

A duplicate pair of tables cancels the cards dealt, but once the two tables play
differently every later draw is luck again. AIVAT (Burch et al., AAAI 2018)
subtracts, at each chance event, what the event was worth to each player:

    luck = V(state after the outcome drawn) - sum_o p(o) V(state after outcome o)

For ANY value function V this has mean zero given the state before the event
(the expectation is taken over the same distribution the outcome was drawn
from), so `return - sum of luck` is an unbiased estimate of the return's
expectation; the better V predicts the return, the more noise it removes.

Here V is the game's shipped value network (search/value.py: every seat's
expected return at a full state, in the returns' own scale), read once per
process. The expectation is exact: every outcome `chance_outcomes()` allows (at
most 53 in our games) is applied to a clone and the lot goes through the network
in one batch, so there is no sampling to keep unbiased. A state after an outcome
that ends the game is valued by its true returns.

A bot's random choices are luck too, when it says how it chooses (agents/base.py
`known_policy`; the random bot: uniform): at its decisions, the same term over
its policy, `V(after the move) - sum_a pi(a) V(after a)`, AIVAT's action terms,
mean zero given the state as long as the bot played by the policy it states.
On rules against random those choices are a third to a half of the noise
(experiments/luck_ceiling.py), so no V could do without them there.

A side's luck is the mean of its seats' luck (partners share one return), and a
seat's adjusted return is its return less its side's luck. A game or player
count with no value network gets no adjustment at all: `luck_model` says so with
None, and the callers show no adjusted figure rather than a plain one relabelled.

Hidden information: the luck of an event is computed from the full state, so it
depends on cards some seat could not see. `deal_luck` is for a finished deal's
review, where every card is shown; `seat_luck_lines` refuses an unfinished one.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Sequence

import numpy as np
import pyspiel
from threadpoolctl import threadpool_limits

from games import registry
from records.record import Record, game_of
from search.netfile import NetFileError, shipped_path
from search.value import ValueNetwork, value_network


@dataclass
class LuckEvent:
    """One event luck is measured at: the move's index in the game, each seat's
    luck, and whether it was a bot's random choice (its stated policy) rather than chance."""
    move: int
    luck: list[float]
    choice: bool = False


# A bot's stated policy (agents.stated_policy): the state -> (action, probability).
Policy = Callable[[pyspiel.State], Sequence[tuple[int, float]]]


@dataclass
class SideLuck:
    """One side's deal in points: what it made, what the cards gave it (its luck)
    and what its decisions gained or cost (made less luck, against expectation)."""
    seats: tuple[int, ...]
    made: float
    luck: float
    skill: float


@lru_cache(maxsize=16)
def _network(game_string: str) -> ValueNetwork | None:
    # One BLAS thread, as the neural bot does (agents/neural/bot.py): an event's
    # batch is a few dozen rows, and on a loaded 2-core machine a 2-thread BLAS
    # made the luck of a Canasta game several times slower.
    threadpool_limits(1, user_api="blas")
    game = pyspiel.load_game(game_string)
    if not shipped_path(game, "value").is_file():
        return None
    try:
        return value_network("shipped", game)
    except (NetFileError, ValueError):
        return None


def luck_model(game: pyspiel.Game) -> ValueNetwork | None:
    """The value network luck is measured with (cached per process), or None
    where the game and player count have none shipped: then there is no adjustment."""
    return _network(str(game))


def sides_of(game: pyspiel.Game) -> list[tuple[int, ...]]:
    """The game's sides (registry partnerships), each seat alone where it has none."""
    return list(registry.partnerships(game) or tuple((s,) for s in range(game.num_players())))


def state_values(net: ValueNetwork, states: Sequence[pyspiel.State]) -> np.ndarray:
    """Each state's per-seat value as luck reads it: true returns at the end, the network at a
    decision. A chance node in the middle of a draw (Canasta draws two cards,
    each its own event) is off the positions the network learnt, and valued
    there its luck was noise (correlation 0.02 with the result, docs/tournament.md):
    where its outcomes all lead to decisions or the end, its value is their exact
    expectation instead, one step on; deeper chance (the deal) keeps the network's.
    Any value function keeps the luck's mean zero, so this only changes the noise."""
    out = np.empty((len(states), net.players))
    rows: list[pyspiel.State] = []          # every state the network values, in one batch
    plan: list[tuple[int, list[float] | None, int, int]] = []   # (state, probs or None, first row, rows)
    for i, s in enumerate(states):
        if s.is_terminal():
            out[i] = s.returns()
            continue
        if s.is_chance_node():
            children = []
            for o, _ in s.chance_outcomes():
                child = s.clone()
                child.apply_action(o)
                children.append(child)
            if not any(c.is_chance_node() for c in children):
                plan.append((i, [p for _, p in s.chance_outcomes()], len(rows), len(children)))
                rows += children
                continue
        plan.append((i, None, len(rows), 1))
        rows.append(s)
    live = [k for k, r in enumerate(rows) if not r.is_terminal()]
    values = np.empty((len(rows), net.players))
    for k, r in enumerate(rows):
        if r.is_terminal():
            values[k] = r.returns()
    if live:
        values[live] = net.batch([rows[k] for k in live])
    for i, probs, first, count in plan:
        if probs is None:
            out[i] = values[first]
        else:
            p = np.array(probs)
            out[i] = p @ values[first:first + count] / p.sum()
    return out


def _luck(net: ValueNetwork, state: pyspiel.State, law: Sequence[tuple[int, float]], taken: int) -> list[float]:
    """Each seat's value after `taken` less its expectation over `law` at `state`."""
    children = []
    for action, _ in law:
        child = state.clone()
        child.apply_action(action)
        children.append(child)
    values = state_values(net, children)
    probs = np.array([p for _, p in law])
    k = next(k for k, (action, _) in enumerate(law) if action == taken)
    return list(values[k] - probs @ values / probs.sum())


def luck_events(game: pyspiel.Game, actions: Sequence[int], net: ValueNetwork | None = None,
                policies: Sequence[Policy | None] = ()) -> list[LuckEvent]:
    """The luck of every chance event among `actions` (one deal's history, from
    the initial state), each seat's, exact over the event's outcomes; and, where
    `policies` gives a seat's stated policy, the luck of each of that seat's random
    choices the same way (AIVAT's action terms: mean zero given the state as the
    chance terms are, provided the bot played by the policy it states). ValueError,
    one line naming the move, for a history that does not replay (an outcome the
    event does not offer, an illegal move) or an action its seat's stated policy
    does not allow."""
    net = net or luck_model(game)
    if net is None:
        raise ValueError(f"no value network is shipped for {game}; luck cannot be measured there")
    state = game.new_initial_state()
    out = []
    for i, action in enumerate(actions):
        if state.is_terminal():
            raise ValueError(f"move {i}: the deal was already over")
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            if action not in {o for o, _ in outcomes}:
                raise ValueError(f"move {i}: {action} is not an outcome of the chance event there")
            out.append(LuckEvent(i, _luck(net, state, outcomes, action)))
        else:
            if action not in state.legal_actions():
                raise ValueError(f"move {i}: {action} is not a legal move there")
            seat = state.current_player()
            policy = policies[seat] if seat < len(policies) else None
            if policy is not None:
                law = [(a, p) for a, p in policy(state) if p > 0]
                if action not in {a for a, _ in law}:
                    raise ValueError(f"move {i}: seat {seat} played {action}, which its stated policy does not allow")
                if len(law) > 1:
                    out.append(LuckEvent(i, _luck(net, state, law, action), choice=True))
        state.apply_action(action)
    return out


def side_luck(game: pyspiel.Game, events: Sequence[LuckEvent]) -> list[float]:
    """Each seat's share of its side's summed luck: the mean of the side's seats' luck."""
    total = np.sum([e.luck for e in events], axis=0) if events else np.zeros(game.num_players())
    out = [0.0] * game.num_players()
    for side in sides_of(game):
        mean = float(np.mean([total[s] for s in side]))
        for s in side:
            out[s] = mean
    return out


def adjusted_returns(game: pyspiel.Game, actions: Sequence[int], returns: Sequence[float],
                     policies: Sequence[Policy | None] = ()) -> list[float] | None:
    """Each seat's return less its side's luck over the deal (the cards', and the
    random choices of the seats whose `policies` are stated); None where no value
    network is shipped for the game."""
    net = luck_model(game)
    if net is None:
        return None
    luck = side_luck(game, luck_events(game, actions, net, policies))
    return [float(r - x) for r, x in zip(returns, luck)]


def deal_luck(record: Record) -> list[SideLuck] | None:
    """Per side of a finished record's deal, in game points (the registry's
    points_per_unit, else the returns' own units): made, luck and skill. None
    where the game has no value network. ValueError for an unfinished record:
    its luck reads cards that are still hidden."""
    if not record.finished:
        raise ValueError("the luck of a deal is shown once it is finished (it reads every hidden card)")
    game = game_of(record)
    net = luck_model(game)
    if net is None:
        return None
    entry = registry.of_game(game)
    unit = (entry.points_per_unit if entry is not None and entry.points_per_unit else 1.0)
    luck = side_luck(game, luck_events(game, [m.action for m in record.moves], net))
    out = []
    for side in sides_of(game):
        made = float(np.mean([record.returns[s] for s in side])) * unit
        got = luck[side[0]] * unit
        out.append(SideLuck(side, made, got, made - got))
    return out


def seat_luck_lines(record: Record, seat: int | None) -> list[str]:
    """The review's luck lines as `seat` is shown them (None: the open view):
    nothing for an unfinished deal (the luck reads hidden cards), every side's
    made/luck/skill once it is over and every card is on the table."""
    if not record.finished:
        return []
    sides = deal_luck(record)
    if sides is None:
        return []
    lines = []
    for side in sides:
        who = "your side" if seat in side.seats else "seats " + ",".join(map(str, side.seats))
        lines.append(f"{who}: made {side.made:+.0f}, the cards gave {side.luck:+.0f}, "
                     f"decisions {side.skill:+.0f} (points against expectation)")
    return lines


def stated_policies(config, game: pyspiel.Game) -> list[Policy | None]:
    """Each agent's stated policy (agents.stated_policy), in the config's agent order."""
    from agents import stated_policy
    return [stated_policy(spec, game) for _, spec in config.agents]


def adjusted_record(game: pyspiel.Game, rec, stated: Sequence[Policy | None] = ()):
    """A stored game (eval.play.GameRecord, with its history) with each seat's
    return replaced by its adjusted return, `stated` giving each agent's stated
    policy (`stated_policies`); a void game as it is. ValueError, one line naming
    the game, for one stored without its history or whose history does not replay."""
    from dataclasses import replace
    if rec.returns is None:
        return rec
    histories = rec.deal_histories()
    if not histories:
        raise ValueError(f"game {rec.deal}-{rec.rotation} was stored without its history: "
                         f"its luck cannot be measured")
    policies = [stated[agent] if agent < len(stated) else None for agent in rec.seats]
    try:
        return replace(rec, returns=adjusted_returns(game, histories[0].actions, rec.returns, policies))
    except ValueError as e:
        raise ValueError(f"game {rec.deal}-{rec.rotation}: {e}") from None


def luck_game(config) -> pyspiel.Game:
    """The game of a tournament whose scores are to be adjusted; ValueError, one
    line, for a match (its result is not the sum of its deals' returns, which
    the value network predicts) or a game with no value network shipped."""
    from games.load import load_game
    if config.match is not None:
        raise ValueError("adjusted scores are measured per deal: a match's result is not its deals' returns")
    game = load_game(config.game)
    if luck_model(game) is None:
        raise ValueError(f"no value network is shipped for {config.game}: no luck-adjusted scores")
    return game


def adjusted_records(config, records: Sequence, progress: bool = False) -> list:
    """The tournament's games with adjusted returns (`adjusted_record`); the
    ValueErrors of `luck_game` and `adjusted_record`."""
    from tqdm import tqdm
    game = luck_game(config)
    stated = stated_policies(config, game)
    return [adjusted_record(game, rec, stated)
            for rec in tqdm(records, desc="luck", unit="game", disable=not progress)]
