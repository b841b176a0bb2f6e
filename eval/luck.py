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
process, or a luck network trained for the agents being compared (`LuckNetwork`,
training/luck_value.py: the differences between an event's outcomes under those
agents' own play, which is all a luck term reads). The expectation is exact: every outcome `chance_outcomes()` allows (at
most 53 in our games) is applied to a clone and the lot goes through the network
in one batch, so there is no sampling to keep unbiased. A state after an outcome
that ends the game is valued by its true returns. A luck network may be read
through a lookahead (`Lookahead`): each outcome's value is then partly the mean of
a few rollouts of the agents from it, whose seeds are fixed before the outcome is
drawn, so the value is a function of the state alone, as the method asks.

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

import random
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable, Protocol, Sequence

import numpy as np
import pyspiel
from threadpoolctl import threadpool_limits

from games import registry
from games.seeding import derive_seed
from records.record import Record, game_of
from search.netfile import Mlp, NetFile, NetFileError, load, shipped_path
from search.value import FullStateEncoder, ValueNetwork, perspective, seat_ordered, value_network


@dataclass
class LuckEvent:
    """One event luck is measured at: the move's index in the game, each seat's
    luck, and whether it was a bot's random choice (its stated policy) rather than chance."""
    move: int
    luck: list[float]
    choice: bool = False


# A bot's stated policy (agents.stated_policy): the state -> (action, probability).
Policy = Callable[[pyspiel.State], Sequence[tuple[int, float]]]


class Valuer(Protocol):
    """What luck reads a value from: every seat's value at many positions at once
    (search.value.ValueNetwork, or a LuckNetwork seated at one table)."""
    players: int

    def batch(self, worlds: Sequence[pyspiel.State]) -> np.ndarray: ...


class LuckNetwork:
    """A value network made for luck: trained on the differences between an
    event's outcomes under the very agents it will judge (training/luck_value.py),
    where the shipped value network learnt the levels of self-play. The value of a
    position depends on who plays on from it, so its input is the full-state
    encoding (search.value.FullStateEncoder, from the player to move) followed, for
    each seat round the table in the same order, by a one-hot of which of its
    `agents` (bot specs, in the file's `training` notes) sits there. Its outputs
    are every seat's value in that order, as a value network's are.

    A file whose training notes say `"averaged": "suits"` is read averaged over
    the game's 24 suit relabellings (`suit_relabellings`): the true value is the
    same under any of them, so the average is a value exactly symmetric in the
    suits, and its expected error is never above a single reading's (on Page
    One's held-out events it took 8% of the error above the rollouts' noise,
    docs/networks.md). It doubles the luck's time at Page One (0.54 s a game
    against 0.26, measured side by side on a loaded machine).

    A file whose notes carry a `"lookahead"` is read through it (`Lookahead`):
    the agents' own short rollouts beside the network's reading. How a file is
    read is part of the file, so the luck a results file stores under the file's
    SHA-256 is the luck that file measures."""

    def __init__(self, net: NetFile, game: pyspiel.Game):
        agents = net.training.get("agents")
        if (not isinstance(agents, list) or not 1 <= len(agents) <= 16
                or not all(isinstance(a, str) and a for a in agents)):
            raise NetFileError(f"{net.path}: a luck network must name the agents it was trained for")
        self.net, self.agents = net, tuple(agents)
        self.encoder = FullStateEncoder(game)
        self.players = game.num_players()
        expected = self.input_size(self.encoder.size, self.players, len(agents))
        if net.mlp.input_size != expected:
            raise NetFileError(f"{net.path}: its input is {net.mlp.input_size} numbers, this game's encoding "
                               f"with {len(agents)} agents gives {expected}")
        averaged = net.training.get("averaged", "none")
        if averaged not in ("none", "suits"):
            raise NetFileError(f"{net.path}: its values are averaged over {averaged!r}: only 'suits' or 'none' is read")
        self.relabellings = suit_relabellings(game, len(agents)) if averaged == "suits" else None
        if averaged == "suits" and self.relabellings is None:
            raise NetFileError(f"{net.path}: it is read averaged over suit relabellings, "
                               f"but {game} declares no suit symmetry")
        self.values = seat_shared_or_plain(net.mlp, self.players, len(agents))
        self.lookahead = Lookahead.from_notes(net.training.get("lookahead"), net.path)

    @staticmethod
    def input_size(encoding: int, players: int, agents: int) -> int:
        return encoding + players * agents

    def encode(self, state: pyspiel.State, seating: Sequence[int], out: np.ndarray) -> None:
        """`state`'s input row, `seating` giving each seat's agent (an index into `agents`)."""
        me, n, width = perspective(state), self.players, self.encoder.size
        self.encoder.encode(state, me, out[:width])
        seats = out[width:].reshape(n, len(self.agents))
        seats[:] = 0.0
        for k in range(n):
            seats[k, seating[(me + k) % n]] = 1.0

    def seated(self, seating: Sequence[int]) -> "SeatedLuckNetwork":
        """The network at a table where seat s holds agent `seating[s]`."""
        return SeatedLuckNetwork(self, tuple(seating))

    def for_agents(self, specs: Sequence[str]) -> list[int]:
        """Each of a tournament's agent specs as an index into `agents`; ValueError,
        one line, where one is not among them (the values it learnt are those agents')."""
        index = []
        for spec in specs:
            if spec.strip() not in self.agents:
                raise ValueError(f"the luck network {self.net.path} was trained for {', '.join(self.agents)}, "
                                 f"not {spec.strip()!r}")
            index.append(self.agents.index(spec.strip()))
        return index


@dataclass(frozen=True)
class SeatedLuckNetwork:
    """A LuckNetwork at one table: a Valuer."""
    network: LuckNetwork
    seating: tuple[int, ...]

    def outcome_values(self, children: Sequence[pyspiel.State], choice: bool, seed: int) -> np.ndarray:
        """Each seat's value after each outcome of one event: the network's reading,
        through the file's lookahead where it has one for this kind of event (`seed`:
        the event's rollouts', fixed before its outcome)."""
        values = state_values(self, children)
        ahead = self.network.lookahead
        if ahead is None or not (choice or ahead.events == "all"):
            return values
        specs = [self.network.agents[a] for a in self.seating]
        return ahead.weight * values + (1 - ahead.weight) * ahead.values(self, specs, children, seed)

    @property
    def players(self) -> int:
        return self.network.players

    def batch(self, worlds: Sequence[pyspiel.State]) -> np.ndarray:
        net = self.network
        x = np.empty((len(worlds), net.net.mlp.input_size), np.float32)
        for i, world in enumerate(worlds):
            net.encode(world, self.seating, x[i])
        if net.relabellings is None:
            out = net.values(x) * net.net.scale
        else:
            out = averaged_over(net.values, x, net.relabellings) * net.net.scale
        return seat_ordered(out, [perspective(w) for w in worlds])


_LOOKAHEAD = 11          # stream of derive_seed: the lookahead's rollouts


@dataclass(frozen=True)
class Lookahead:
    """Each outcome of an event valued beyond the network's one reading of it: the
    mean of `rollouts` games played on by the agents themselves (fresh bots, as
    the luck network's targets were) for `horizon` decisions (0: to the end) and
    valued where they stop by the network, blended with the network's own reading
    (`weight` of that, the rest the rollouts'). At "choices" it serves the stated
    random choices alone, at "all" the chance events too.

    Why: a network trained on the agents' differences still errs by about half the
    luck it measures (experiments/logs/luck.md), while a few decisions played by
    the agents themselves carry exactly what they would do next. The rollouts'
    noise is the price, small where an event has few outcomes (a random bot's
    choice among a handful of moves) and the rest of the game is short. Any value
    keeps the luck's mean zero, this one too: each rollout's seed is fixed before
    the outcome is drawn (by the history so far), the same after every outcome of
    the event (common random numbers: bots and chance draw alike), and so
    independent of which outcome the game took."""
    rollouts: int
    horizon: int
    weight: float
    events: str

    @classmethod
    def from_notes(cls, notes, path) -> "Lookahead | None":
        """The lookahead a file's notes give (None where they give none);
        NetFileError, one line, for one that is malformed."""
        if notes is None:
            return None
        if not isinstance(notes, dict) or set(notes) != {"rollouts", "horizon", "weight", "events"}:
            raise NetFileError(f"{path}: its lookahead must give rollouts, horizon, weight and events")
        rollouts, horizon, weight, events = (notes[k] for k in ("rollouts", "horizon", "weight", "events"))
        if (type(rollouts) is not int or not 1 <= rollouts <= 1024 or type(horizon) is not int
                or not 0 <= horizon <= 10**4 or type(weight) not in (int, float) or not 0 <= weight < 1
                or events not in ("choices", "all")):
            raise NetFileError(f"{path}: its lookahead is out of range (rollouts 1-1024, horizon 0-10000, "
                               f"weight in [0, 1), events 'choices' or 'all')")
        return cls(rollouts, horizon, float(weight), events)

    def notes(self) -> dict:
        """What a file's notes keep of it (`from_notes` reads it back)."""
        return asdict(self)

    def values(self, net: Valuer, specs: Sequence[str], children: Sequence[pyspiel.State], seed: int) -> np.ndarray:
        """Each seat's mean value after each child over the rollouts (one batch of
        the network for every stopping position)."""
        from agents import make_bot
        game = children[0].get_game()
        leaves = []
        for child in children:
            for k in range(self.rollouts):
                one = derive_seed(seed, k)
                bots = [make_bot(spec, game, s, derive_seed(one, s)) for s, spec in enumerate(specs)]
                leaves.append(played_to(child, bots, law_draws(random.Random(one)), self.horizon or None))
        values = state_values(net, leaves)
        return values.reshape(len(children), self.rollouts, -1).mean(axis=1)


def averaged_over(values: Callable[[np.ndarray], np.ndarray], x: np.ndarray, relabellings: np.ndarray) -> np.ndarray:
    """`values` of each row of `x` averaged over the column relabellings: every row
    under every relabelling in one batch (a relabelling moves inputs, never the
    seats' outputs)."""
    many = x[:, relabellings].reshape(-1, x.shape[1])
    return values(many).reshape(len(x), len(relabellings), -1).mean(1)


def seat_shared_or_plain(mlp: Mlp, players: int, agents: int) -> Callable[[np.ndarray], np.ndarray]:
    """The network's function, computed with its layers shared by the seats read
    once a seat (training/luck_value.py `seat_shared` writes the first as a block
    matrix, each seat's block the same, and any later one as a block-diagonal
    matrix of one block): a quarter of those layers' arithmetic at four seats, the
    same outputs. Any other network is read as it is."""
    (w, b), last = mlp.layers[0], len(mlp.layers) - 1
    width, seat_inputs = w.shape[0] // players, (w.shape[1] - players * agents) // players
    if w.shape[0] % players or players * (seat_inputs + agents) != w.shape[1] or not last:
        return mlp
    observed, seated = w[:width, :seat_inputs], w[:width, players * seat_inputs:players * seat_inputs + agents]
    if not (np.array_equal(seat_block(observed, seated, players), w)
            and np.array_equal(np.tile(b[:width], players), b)):
        return mlp
    shared = [(np.ascontiguousarray(observed.T), np.ascontiguousarray(seated.T), b[:width])]
    depth = 1
    while depth < last:                      # a later layer each seat reads alone: block-diagonal
        w, b = mlp.layers[depth]
        out = w.shape[0] // players
        if w.shape != (players * out, players * width) or not (
                np.array_equal(np.kron(np.eye(players, dtype=w.dtype), w[:out, :width]), w)
                and np.array_equal(np.tile(b[:out], players), b)):
            break
        shared.append((np.ascontiguousarray(w[:out, :width].T), b[:out]))
        width, depth = out, depth + 1
    return _SeatShared(players, seat_inputs, agents, shared, Mlp(mlp.layers[depth:]))


def seat_block(observed: np.ndarray, seated: np.ndarray, players: int) -> np.ndarray:
    """A layer every seat reads alike, written as the block matrix a plain
    perceptron holds: `observed` (out, seat_inputs) reads each seat's observation,
    `seated` (out, agents) its agent, in the luck network's input (every seat's
    observation, then every seat's agent)."""
    width, seat_inputs = observed.shape
    agents = seated.shape[1]
    block = np.zeros((players * width, players * (seat_inputs + agents)), observed.dtype)
    for k in range(players):
        rows = slice(k * width, (k + 1) * width)
        block[rows, k * seat_inputs:(k + 1) * seat_inputs] = observed
        block[rows, players * seat_inputs + k * agents:players * seat_inputs + (k + 1) * agents] = seated
    return block


class _SeatShared:
    """A network whose first `seat_layers` layers each seat reads alone, read so:
    each of those layers once a seat, then the rest on the seats' readings together."""

    def __init__(self, players: int, seat_inputs: int, agents: int, shared: list[tuple], rest: Mlp):
        self.players, self.seat_inputs, self.agents = players, seat_inputs, agents
        (self.observed_t, self.seated_t, self.bias), self.later = shared[0], shared[1:]
        self.rest, self.seat_layers = rest, len(shared)

    def __call__(self, x: np.ndarray) -> np.ndarray:
        rows, n, cards = len(x), self.players, self.players * self.seat_inputs
        hidden = (x[:, :cards].reshape(rows * n, self.seat_inputs) @ self.observed_t
                  + x[:, cards:].reshape(rows * n, self.agents) @ self.seated_t + self.bias)
        np.maximum(hidden, 0.0, out=hidden)
        for weight_t, bias in self.later:
            hidden = hidden @ weight_t + bias
            np.maximum(hidden, 0.0, out=hidden)
        return self.rest(hidden.reshape(rows, -1))


def suit_relabellings(game: pyspiel.Game, agents: int) -> np.ndarray | None:
    """The 24 suit relabellings of a luck network's input, one row of column
    indices each (relabelled input = input[row]), where the game declares its
    suits alike (agents/neural/symmetry.py); None where it does not. Each seat's
    observation block is permuted alike; which agent sits where is left alone.

    Why: relabelling the suits maps a position to one worth the same to every
    seat. Training reads each event under a random one (the network learns a
    play of one suit for all four instead of fitting the rollouts' noise suit by
    suit: on Page One's held-out events the error stopped falling after 3 epochs
    without it, and fell until about the 26th with it), and a network so trained
    is read averaged over all of them (LuckNetwork)."""
    from agents.neural.symmetry import symmetry_for
    encoder = FullStateEncoder(game)
    symmetry = symmetry_for(game, encoder.observer)
    if symmetry is None:
        return None
    n, width = encoder.players, encoder.seat_size
    seated = np.arange(encoder.size, LuckNetwork.input_size(encoder.size, n, agents))
    return np.stack([np.concatenate([k * width + symmetry.obs_index[p] for k in range(n)] + [seated])
                     for p in range(len(symmetry.perms))])


def luck_network(path: str, game: pyspiel.Game) -> LuckNetwork:
    """The luck network in `path`, checked against the game; ValueError (a
    NetFileError), one line, for a file that is not one or was made for another game."""
    if not Path(path).is_file():
        raise NetFileError(f"{path!r} is not a file")
    threadpool_limits(1, user_api="blas")        # as the shipped network is read (`_network`): one BLAS thread
    return LuckNetwork(load(path, kind="luck", game=game), game)


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


def leaf_rows(state: pyspiel.State) -> list[tuple[pyspiel.State, float]]:
    """The positions a state's value is read from, with their weights: the state
    itself, except a chance node in the middle of a draw (Canasta draws two cards,
    each its own event), which is off the positions a network learns and, valued
    there, made its luck noise (correlation 0.02 with the result, experiments/logs/luck.md):
    where its outcomes all lead to decisions or the end, it is their expectation,
    one step on; deeper chance (the deal) is read where it stands. Any value
    function keeps the luck's mean zero, so this only changes the noise; a luck
    network (`LuckNetwork`) is trained on the very rows this gives."""
    if state.is_chance_node():
        outcomes = state.chance_outcomes()
        children = []
        for o, _ in outcomes:
            child = state.clone()
            child.apply_action(o)
            if child.is_chance_node():      # deeper chance: stop at the first such outcome
                return [(state, 1.0)]
            children.append(child)
        total = sum(p for _, p in outcomes)
        return [(c, p / total) for c, (_, p) in zip(children, outcomes)]
    return [(state, 1.0)]


def law_draws(rng: random.Random) -> Callable[[pyspiel.State], int]:
    """Chance drawn from each node's own law with `rng`, one number a node."""
    def draw(state: pyspiel.State) -> int:
        outcomes, probs = zip(*state.chance_outcomes())
        return rng.choices(outcomes, probs)[0]
    return draw


def played_to(state: pyspiel.State, bots: Sequence, chance: Callable[[pyspiel.State], int],
              decisions: int | None = None) -> pyspiel.State:
    """The game played on from `state` (left as it was) by `bots`, one a seat, each
    chance outcome chosen by `chance` (`law_draws`, or a games.chance.DealChance: a
    shuffled stock), until it ends or, given `decisions`, until that many decisions
    are made and the next is due: the rollout the luck network's targets
    (training/luck_value.py) and the luck ceiling (experiments/luck_ceiling.py) are
    measured by."""
    s, made = state.clone(), 0
    while not s.is_terminal():
        if s.is_chance_node():
            s.apply_action(chance(s))
        elif made == decisions:
            break
        else:
            s.apply_action(bots[s.current_player()].step(s))
            made += 1
    return s


def played_on(state: pyspiel.State, bots: Sequence, chance: Callable[[pyspiel.State], int]) -> np.ndarray:
    """Every seat's return of one game played on to its end (`played_to`)."""
    return np.asarray(played_to(state, bots, chance).returns(), np.float64)


def state_values(net: Valuer, states: Sequence[pyspiel.State]) -> np.ndarray:
    """Each state's per-seat value as luck reads it: the weighted values of its
    `leaf_rows`, true returns at the end and the network at the rest."""
    rows: list[pyspiel.State] = []          # every position valued, in one batch
    plan: list[tuple[int, int, np.ndarray]] = []      # (first row, rows, weights) a state
    for s in states:
        leaves = leaf_rows(s)
        plan.append((len(rows), len(leaves), np.array([w for _, w in leaves])))
        rows += [leaf for leaf, _ in leaves]
    values = np.empty((len(rows), net.players))
    live = [k for k, r in enumerate(rows) if not r.is_terminal()]
    for k, r in enumerate(rows):
        if r.is_terminal():
            values[k] = r.returns()
    if live:
        values[live] = net.batch([rows[k] for k in live])
    return np.array([w @ values[first:first + count] for first, count, w in plan])


def event_luck(net: Valuer, state: pyspiel.State, law: Sequence[tuple[int, float]], taken: int,
               choice: bool = False, seed: int = 0) -> list[float]:
    """Each seat's value after `taken` less its expectation over `law` at `state`
    (a luck network's values through its lookahead, if it has one)."""
    children = []
    for action, _ in law:
        child = state.clone()
        child.apply_action(action)
        children.append(child)
    if isinstance(net, SeatedLuckNetwork):
        values = net.outcome_values(children, choice, seed)
    else:
        values = state_values(net, children)
    probs = np.array([p for _, p in law])
    k = next(k for k, (action, _) in enumerate(law) if action == taken)
    return list(values[k] - probs @ values / probs.sum())


def luck_events(game: pyspiel.Game, actions: Sequence[int], net: Valuer | None = None,
                policies: Sequence[Policy | None] = ()) -> list[LuckEvent]:
    """The luck of every chance event among `actions` (one deal's history, from
    the initial state), each seat's, exact over the event's outcomes; and, where
    `policies` gives a seat's stated policy, the luck of each of that seat's random
    choices the same way (AIVAT's action terms: mean zero given the state as the
    chance terms are, provided the bot played by the policy it states). ValueError,
    one line naming the move, for a history that does not replay (an outcome the
    event does not offer, an illegal move) or an action its seat's stated policy
    does not allow.

    A luck network (`SeatedLuckNetwork`) measures no chance event before the
    first decision: it learnt positions of play, not half-dealt hands, and
    leaving any event out keeps the estimate unbiased (each term has mean zero
    on its own). The deal is the duplicate pair's to cancel."""
    net = net or luck_model(game)
    if net is None:
        raise ValueError(f"no value network is shipped for {game}; luck cannot be measured there")
    deal = not isinstance(net, SeatedLuckNetwork)
    state = game.new_initial_state()
    out = []
    history = derive_seed(_LOOKAHEAD)       # the moves so far, mixed: a lookahead's seed at each event
    for i, action in enumerate(actions):
        if state.is_terminal():
            raise ValueError(f"move {i}: the deal was already over")
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            if action not in {o for o, _ in outcomes}:
                raise ValueError(f"move {i}: {action} is not an outcome of the chance event there")
            if deal:
                out.append(LuckEvent(i, event_luck(net, state, outcomes, action, seed=history)))
        else:
            deal = True
            if action not in state.legal_actions():
                raise ValueError(f"move {i}: {action} is not a legal move there")
            seat = state.current_player()
            policy = policies[seat] if seat < len(policies) else None
            if policy is not None:
                law = [(a, p) for a, p in policy(state) if p > 0]
                if action not in {a for a, _ in law}:
                    raise ValueError(f"move {i}: seat {seat} played {action}, which its stated policy does not allow")
                if len(law) > 1:
                    out.append(LuckEvent(i, event_luck(net, state, law, action, True, history), choice=True))
        state.apply_action(action)
        history = derive_seed(history, action)
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
                     policies: Sequence[Policy | None] = (), net: Valuer | None = None) -> list[float] | None:
    """Each seat's return less its side's luck over the deal (the cards', and the
    random choices of the seats whose `policies` are stated), measured with `net`
    (default: the shipped value network); None where there is none."""
    net = net or luck_model(game)
    if net is None:
        return None
    return less_luck(returns, side_luck(game, luck_events(game, actions, net, policies)))


def less_luck(returns: Sequence[float], luck: Sequence[float]) -> list[float]:
    """Each seat's return less its luck: the one subtraction, whether the luck was
    measured now or read back from a results file."""
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


# The version of how a judge turns a game into luck. A results file keeps each game's
# luck under its judge's identity, which holds this number: bump it whenever the
# same game and value file would give other numbers, and luck stored before is
# measured again rather than read.
LUCK_METHOD = 1


@dataclass(frozen=True)
class LuckJudge:
    """What a tournament's luck is measured with: its game, each agent's stated
    policy, and the value: the shipped value network, or a luck network
    (`LuckNetwork`) seated by which of its agents sits where. `identity` names
    all of that for the luck a results file stores: the method's version and the
    value file's SHA-256 (the game and the agents' policies are the file's own)."""
    game: pyspiel.Game
    stated: tuple[Policy | None, ...]
    network: LuckNetwork | None = None
    agent_index: tuple[int, ...] = ()       # each tournament agent's index in the luck network's agents
    identity: str = ""

    def valuer(self, seats: Sequence[int]) -> Valuer:
        """The value at a table where seat s holds the tournament's agent seats[s]."""
        if self.network is None:
            return luck_model(self.game)
        return self.network.seated([self.agent_index[a] for a in seats])

    @property
    def words(self) -> str:
        """How the reports name the measure."""
        value = "the shipped value network" if self.network is None else f"the luck network {self.network.net.path}"
        return f"the luck of chance events and of stated random choices under {value}, removed (eval/luck.py)"


def luck_judge(config, luck_net: str | None = None) -> LuckJudge:
    """The judge of a tournament's luck (`luck_net`: a luck network file, else the
    shipped value network); ValueError, one line, for a match (its result is not
    the sum of its deals' returns, which a value predicts), a game with no value
    network shipped and no luck network given, or a luck network that is not one,
    was made for another game or not for these agents."""
    from eval.config import file_sha256
    from games.load import load_game
    if config.match is not None:
        raise ValueError("adjusted scores are measured per deal: a match's result is not its deals' returns")
    game = load_game(config.game)
    stated = tuple(stated_policies(config, game))
    if luck_net is not None:
        network = luck_network(luck_net, game)
        return LuckJudge(game, stated, network, tuple(network.for_agents([spec for _, spec in config.agents])),
                         f"method {LUCK_METHOD}, luck network sha256 {file_sha256(Path(luck_net))}")
    if luck_model(game) is None:
        raise ValueError(f"no value network is shipped for {config.game}: no luck-adjusted scores "
                         f"(a luck network trained for its agents can be given)")
    return LuckJudge(game, stated,
                     identity=f"method {LUCK_METHOD}, value network sha256 {file_sha256(shipped_path(game, 'value'))}")


def game_luck(judge: LuckJudge, rec) -> list[float] | None:
    """A stored game's luck under `judge` (eval.play.GameRecord, with its
    history): each seat's side's summed luck, what its adjusted return leaves
    out; None for a void game. ValueError, one line naming the game, for one
    stored without its history or whose history does not replay."""
    if rec.returns is None:
        return None
    try:
        histories = rec.deal_histories()
    except ValueError as e:
        raise ValueError(f"game {rec.deal}-{rec.rotation}: {e}") from None
    if not histories:
        raise ValueError(f"game {rec.deal}-{rec.rotation} was stored without its history: "
                         f"its luck cannot be measured")
    policies = [judge.stated[agent] if agent < len(judge.stated) else None for agent in rec.seats]
    try:
        return side_luck(judge.game, luck_events(judge.game, histories[0].actions, judge.valuer(rec.seats), policies))
    except ValueError as e:
        raise ValueError(f"game {rec.deal}-{rec.rotation}: {e}") from None


def with_luck_removed(rec, luck: Sequence[float] | None):
    """The game with each seat's return less its `luck` (a void game as it is)."""
    from dataclasses import replace
    return rec if luck is None or rec.returns is None else replace(rec, returns=less_luck(rec.returns, luck))


def adjusted_records(config, records: Sequence, progress: bool = False, luck_net: str | None = None,
                     judge: LuckJudge | None = None, workers: int = 1) -> list:
    """The tournament's games with adjusted returns (`game_luck` removed, under
    `judge`, by default `luck_judge(config, luck_net)`), in their order; the
    ValueErrors of both. `workers` > 1 measures in as many processes, each with
    its own judge made from `config` and `luck_net` (a deal's luck is a function
    of its actions and the judge: the same numbers in any process)."""
    judge = judge or luck_judge(config, luck_net)
    lucks = measured_luck(config, records, judge, progress, luck_net, workers)
    return [with_luck_removed(rec, luck) for rec, luck in zip(records, lucks)]


def measured_luck(config, records: Sequence, judge: LuckJudge, progress: bool = False, luck_net: str | None = None,
                  workers: int = 1) -> list:
    """Each game's `game_luck` under `judge`, in the records' order, measured in
    `workers` processes where more than one (each making its own judge from
    `config` and `luck_net`, the one `judge` was made from)."""
    from tqdm import tqdm
    bar = tqdm(desc="luck", unit="game", total=len(records), disable=not progress)
    if workers <= 1 or len(records) < 2:
        return _counted((game_luck(judge, rec) for rec in records), bar)
    import multiprocessing as mp
    with mp.get_context("forkserver").Pool(workers, _start_judge, (config, luck_net)) as pool:
        return _counted(pool.imap(_luck_in_worker, records, chunksize=4), bar)


def stored_adjusted(db, judge: LuckJudge, progress: bool = False, luck_net: str | None = None,
                    workers: int = 1) -> list:
    """Every game of a results file (eval.storage.ResultsDB) with its luck under
    `judge` removed: read where the file stores it, measured for the rest (their
    histories read for them alone). A tournament's own handle stores what it
    measured, so the file's next report reads it; a reader changes nothing."""
    config = db.config()
    records = list(db.games())
    stored = db.luck(judge.identity)
    wanted = {(rec.deal, rec.rotation) for rec in records if rec.returns is not None} - stored.keys()
    if wanted:
        with_history = [rec for rec in db.games(history=True) if (rec.deal, rec.rotation) in wanted]
        lucks = measured_luck(config, with_history, judge, progress, luck_net, workers)
        measured = {(rec.deal, rec.rotation): luck for rec, luck in zip(with_history, lucks)}
        if db.writer:
            db.add_luck(judge.identity, measured)
        stored = {**stored, **measured}
    return [with_luck_removed(rec, stored.get((rec.deal, rec.rotation))) for rec in records]


def _counted(results, bar) -> list:
    """The results, counted on the bar, which is closed only once all came: a
    failure leaves it as it stands, for the error line to follow it (as a loop
    over the bar itself would not, whose ending writes a line of its own)."""
    out = []
    for result in results:
        out.append(result)
        bar.update()
    bar.close()
    return out


_worker_judge: LuckJudge | None = None


def _start_judge(config, luck_net: str | None) -> None:
    global _worker_judge
    _worker_judge = luck_judge(config, luck_net)


def _luck_in_worker(rec):
    return game_luck(_worker_judge, rec)
