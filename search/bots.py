"""The search bots, as pyspiel.Bots made by agents.make_bot:

    ismcts(iterations=1000)              information-set MCTS, one tree over determinizations
    ismcts(seconds=0.5,rollout=rules)    a wall-clock budget per move; rule-bot rollouts
    ismcts(iterations=500,root=paired)   every root action once per determinization, compared pairwise
    pimc(worlds=20,iterations=100)       determinized search: UCT in each sampled world
    pimc(worlds=20,chance=fixed)         ... each world with its draws fixed too
    pimc(worlds=96,flat=true)            no tree: each action one rollout per world, paired
    pimc(worlds=8,baseline=neural,max_worlds=32)   more worlds while the move is close
    cheat_mcts(iterations=1000)          UCT on the true state: reads hidden cards (an upper bound)

Settings: `iterations` and/or `seconds` per move (whichever runs out first; for
pimc, `iterations` is per world and `seconds` per move), `c` (UCB exploration in
units of a return scale), `scale` (`game`, the default: the game's return range;
`observed`: the spread of the returns seen in this search; search.mcts.Search),
`utility` (`returns`, the default, or `placement`: the finishing place among the
others, what a rating by finishing order rewards), `rollout` (`random` or a bot spec:
search.rollout) and `rollout_opponents` (a bot spec that plays the rollouts' seats outside the
bot's side, its partnership or itself, where `rollout` plays the rest), `viewer` for ismcts
(search.keys), `root` for ismcts (`ucb`, the default, or `paired`: every root action
once per determinization, the move chosen on paired differences; ISMCTSBot), `worlds` and `chance` (`random`
or `fixed`: whether a world fixes its future draws too) for pimc, and `model` (a
bot spec: search the worlds in which the others' moves are most likely under that
bot's play, search.inference) with `candidates` (worlds drawn to choose from);
`baseline` (a bot spec: play its move unless the search shows another better by
`confidence` standard errors, search.decision) with `max_worlds` for pimc (more
batches of `worlds` worlds while the move is close), `assume` for ismcts and pimc (a
bot spec whose moves say what its hand lacked: draw worlds in which the others'
moves show that too), and `flat` for pimc (each legal action valued by one
rollout per world, every action of a world on the same draws; its budget is
`worlds`, cut short by `seconds`); `horizon` (moves a rollout plays before the
position's static value stands in for the rest, search.evaluation: a positive
integer, `none`, or `auto`, the default: the game's own for random rollouts,
American Page One's 10, and none otherwise), `value` (`shipped` or a value
network's file, search.value: the rollouts stop at `horizon` moves, 0 by
default, and the network values the position), `belief` (`shipped` or a belief
network's file, search.belief: each world drawn from `belief_candidates` exact
resamples, 32 by default, in proportion to how likely the network finds where
their hidden cards lie, raised to `belief_power`, 1 by default) and `pool` for ismcts (how many
worlds a move draws, the iterations cycling through them: a positive integer,
`none` for a fresh world every iteration, or `auto`, the default: with random
rollouts American Page One's 16, and none otherwise).

A move with one legal action is played without searching. Each bot seeds its
own random.Random, so a bot with a fixed seed and an iteration budget plays the
same moves every time.
"""

from __future__ import annotations

import random
import time
from typing import Any

import pyspiel

from agents import make_bot
from agents.base import CardBot, rules_core
from games.protocol import GameState
from games.registry import Param
from search.decision import choose_paired, choose_unpaired, unpaired_is_close
from search.evaluation import auto_setting, leaf_value_for
from search.inference import WorldInference
from search.keys import VIEWERS, HistoryKeys, InformationKeys
from search.mcts import SCALES, UTILITIES, Budget, Edge, Search, most_visited, placement
from search.prior import make_prior
from search.rollout import make_evaluator

DEFAULT_C = 0.5
DEFAULT_CONFIDENCE = 1.0


class SearchBot(CardBot):
    """Searches the position at each move; keeps no tree between moves."""

    def __init__(self, game: pyspiel.Game, player: int, seed: int, budget: Budget,
                 c: float, rollout: str, prior: str | None, scale: str, utility: str,
                 baseline: str | None = None, confidence: float = DEFAULT_CONFIDENCE,
                 assume: str | None = None, horizon: int | str | None = "auto",
                 prior_temperature: float | None = None, rollout_opponents: str | None = None,
                 value: str | None = None, belief: str | None = None, belief_candidates: int = 32,
                 belief_power: float = 1.0):
        super().__init__(player)
        if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or confidence < 0:
            raise ValueError(f"confidence={confidence!r}: must be a non-negative number")
        if isinstance(c, bool) or not isinstance(c, (int, float)) or c < 0:
            raise ValueError(f"c={c!r}: must be a non-negative number")
        if scale not in SCALES:
            raise ValueError(f"scale={scale!r}: must be one of {', '.join(SCALES)}")
        if utility not in UTILITIES:
            raise ValueError(f"utility={utility!r}: must be one of {', '.join(UTILITIES)}")
        self.scale = scale
        self.utility = utility
        self.rng = random.Random(seed)
        self.budget = budget
        self.c = float(c)
        self.value_net = _value_network(value, game)
        self.horizon = _horizon(horizon, game, rollout, self.value_net is not None)
        self.evaluator = make_evaluator(rollout, game, seed, self.horizon, player=player,
                                        opponents=rollout_opponents,
                                        leaf=None if self.value_net is None else self.value_net.values)
        self.prior = make_prior(prior, game, seed, prior_temperature)
        self.return_range = game.max_utility() - game.min_utility()
        try:
            self.baseline = None if baseline is None else make_bot(baseline, game, player, seed)
        except ValueError as e:
            raise ValueError(f"baseline={baseline!r}: {e}") from e
        self.confidence = float(confidence)
        self.assume = None if assume is None else _play_model(assume, game, player, seed)
        self.belief = _belief_sampler(belief, game, belief_candidates, belief_power)
        self.iterations = 0           # made for the last move, over every world
        self.root_returns: dict[int, list[float]] = {}   # the last move's, by root action

    def step(self, state) -> int:
        root = rules_core(state)
        legal = root.legal_actions()
        if len(legal) == 1:
            return legal[0]
        if self.belief is not None:
            self.belief.new_decision()
        return self.choose(root, legal)

    def choose(self, root: GameState, legal: list[int]) -> int:
        """The move to play at `root`, where this bot is to move with several `legal`
        actions: the most visited, or with a baseline, its move unless the search
        shows another better (search.decision)."""
        edges = self.search(root)
        if self.baseline is None:
            return most_visited(edges)
        return choose_unpaired(self.root_returns, self.baseline.step(root), self.confidence)

    def paired_move(self, root: GameState, legal: list[int], rows: list[list[float]]) -> int:
        """The move on paired evidence, `rows[w][i]` being legal[i]'s return in world
        (or round) w: the baseline's unless another beats it, or the best mean."""
        baseline = None if self.baseline is None else self.baseline.step(root)
        return choose_paired(legal, rows, baseline, self.confidence)

    def search(self, root: GameState) -> dict[int, Edge]:
        """The root's edges after searching `root`, where this bot is to move."""
        raise NotImplementedError

    def resample(self, root: GameState, me: int, rand) -> GameState:
        """A world drawn from `me`'s information state; with `assume`, one in which
        the others' moves show what the model says they show; with a `belief`,
        one drawn from several such by the belief network's weights (search.belief)."""
        if self.belief is not None:
            return self.belief.draw(root, me, lambda: self._resample(root, me, rand), rand)
        return self._resample(root, me, rand)

    def _resample(self, root: GameState, me: int, rand) -> GameState:
        if self.assume is None:
            return root.resample_from_infostate(me, rand)
        return root.resample_assuming(me, rand, self.assume)

    def _search(self, keys) -> Search:
        return Search(keys, self.evaluator, self.c, self.return_range, self.rng, self.prior, self.scale,
                      self.utility)


ISMCTS_ROOTS = ("ucb", "paired")


class ISMCTSBot(SearchBot):
    """One tree of information states; a new determinization every iteration.

    With `root="paired"` the root's actions are not chosen by UCB: the
    iterations go in rounds, one determinization and one chance stream a round,
    every root action tried once in it (search.mcts.Search.run). The move is
    then chosen on the rounds' paired differences (search.decision.choose_paired):
    with a baseline, its move unless another beats it by `confidence` standard
    errors; without, the best mean. An action's worth is a few points where a
    deal swings by a hundred, and a round's actions meet the same cards, so the
    deal's luck cancels from their differences; UCB's unpaired returns keep it."""

    def __init__(self, game, player, seed, budget, c, rollout, prior, scale, utility, baseline,
                 confidence, assume, viewer: str, root: str, horizon: int | str | None = "auto",
                 pool: int | str | None = "auto", prior_temperature: float | None = None,
                 rollout_opponents: str | None = None, value: str | None = None, **belief):
        super().__init__(game, player, seed, budget, c, rollout, prior, scale, utility, baseline,
                         confidence, assume, horizon, prior_temperature, rollout_opponents, value, **belief)
        if viewer not in VIEWERS:
            raise ValueError(f"viewer={viewer!r}: must be one of {', '.join(VIEWERS)}")
        if root not in ISMCTS_ROOTS:
            raise ValueError(f"root={root!r}: must be one of {', '.join(ISMCTS_ROOTS)}")
        self.viewer = viewer
        self.paired = root == "paired"
        self.pool = _count_or_auto("pool", pool, auto_setting(game, "pool") if rollout == "random" else None)
        self.root_rows: list[list[float]] = []   # paired: the last move's return of each action in each round

    def choose(self, root: GameState, legal: list[int]) -> int:
        if not self.paired:
            return super().choose(root, legal)
        self.search(root)
        return self.paired_move(root, legal, self.root_rows)

    def search(self, root: GameState) -> dict[int, Edge]:
        root = rules_core(root)
        me, rand = root.current_player(), self.rng.random
        search = self._search(InformationKeys(root, me if self.viewer == "observer" else None))
        edges = search.run(root, self._worlds(root, me, rand), self.budget, paired=self.paired)
        self.iterations, self.root_returns = search.iterations, search.root_returns
        self.root_rows = search.root_rows
        return edges

    def _worlds(self, root: GameState, me: int, rand):
        """What each iteration (or paired round) searches: a fresh world drawn from
        `me`'s information state, or with a pool, the next of `pool` such worlds
        (drawn as first needed), cloned."""
        if self.pool is None:
            return lambda: self.resample(root, me, rand)
        drawn: list[GameState] = []
        pool, used = self.pool, 0

        def world() -> GameState:
            nonlocal used
            if len(drawn) < pool:
                drawn.append(self.resample(root, me, rand))
            used += 1
            return drawn[(used - 1) % pool].clone()
        return world


PIMC_CHANCE = ("fixed", "random")


class PIMCBot(SearchBot):
    """Perfect-information UCT in each of `worlds` sampled worlds; the worlds vote
    with their visit counts: an action's visits (and returns) are summed over the
    worlds, and the most visited sum is played.

    A world fixes the hidden hands; with `chance="fixed"` it fixes the future
    draws too (each world's chance events come from its own seeded stream,
    search.mcts.Search.run), so that every action meets the same cards; with
    `chance="random"` (the default) the draws are new in every iteration.

    With a `model` (a bot spec), it draws `candidates` worlds and searches the
    `worlds` most likely ones under that model of the others' play
    (search.inference).

    With `flat=True` there is no tree: each world values every legal action by
    one rollout after it on the same draws, and the worlds' paired differences
    choose the move (search.decision.choose_paired).

    With a `baseline` and `max_worlds` above `worlds`, a close move gets more:
    while the best other action beats the baseline's by fewer than twice
    `confidence` standard errors, or the baseline has fewer than two returns
    (search.decision.unpaired_is_close), another `worlds` worlds are searched,
    up to `max_worlds`; a clear move costs `worlds`."""

    def __init__(self, game, player, seed, budget, c, rollout, prior, scale, utility, baseline,
                 confidence, assume, worlds: int, chance: str, model: str | None,
                 candidates: int | None, flat: bool, horizon: int | str | None = "auto",
                 prior_temperature: float | None = None, rollout_opponents: str | None = None,
                 max_worlds: int | None = None, value: str | None = None, **belief):
        super().__init__(game, player, seed, budget, c, rollout, prior, scale, utility, baseline,
                         confidence, assume, horizon, prior_temperature, rollout_opponents, value, **belief)
        if not isinstance(flat, bool):
            raise ValueError(f"flat={flat!r}: must be true or false")
        self.flat = flat
        self.values: list[list[float]] = []   # flat: the last move's value of each action in each world
        if isinstance(worlds, bool) or not isinstance(worlds, int) or worlds < 1:
            raise ValueError(f"worlds={worlds!r}: must be a positive integer")
        if chance not in PIMC_CHANCE:
            raise ValueError(f"chance={chance!r}: must be one of {', '.join(PIMC_CHANCE)}")
        candidates = 4 * worlds if candidates is None else candidates
        if isinstance(candidates, bool) or not isinstance(candidates, int) or candidates < worlds:
            raise ValueError(f"candidates={candidates!r}: must be an integer of at least worlds={worlds}")
        self.worlds = worlds
        max_worlds = worlds if max_worlds is None else max_worlds
        if isinstance(max_worlds, bool) or not isinstance(max_worlds, int) or max_worlds < worlds:
            raise ValueError(f"max_worlds={max_worlds!r}: must be an integer of at least worlds={worlds}")
        if max_worlds > worlds and (baseline is None or flat):
            raise ValueError(f"max_worlds={max_worlds}: needs a baseline and a tree (flat=false): a move is "
                             f"close when another action's gain over the baseline's is not yet shown")
        self.max_worlds = max_worlds
        self.worlds_searched = 0                # for the last move
        self.fixed_chance = chance == "fixed"
        self.candidates = candidates
        try:
            self.inference = None if model is None else WorldInference(model, game, seed)
        except ValueError as e:
            raise ValueError(f"model={model!r}: {e}") from e

    def sample_worlds(self, root: GameState, me: int) -> list[GameState]:
        """The worlds to search: resampled, and with a model the most likely of the candidates."""
        rand = self.rng.random
        if self.inference is None:
            return [self.resample(root, me, rand) for _ in range(self.worlds)]
        drawn = [self.resample(root, me, rand) for _ in range(self.candidates)]
        score = [self.inference.log_likelihood(world, me) for world in drawn]
        best = sorted(range(len(drawn)), key=lambda i: -score[i])[:self.worlds]   # ties: drawn order
        return [drawn[i] for i in best]

    def choose(self, root: GameState, legal: list[int]) -> int:
        if self.flat:
            self.search(root)
            return self.paired_move(root, legal, self.values)
        if self.max_worlds == self.worlds:
            return super().choose(root, legal)
        baseline = self.baseline.step(root)
        self._tree_search(rules_core(root), baseline)
        return choose_unpaired(self.root_returns, baseline, self.confidence)

    def search(self, root: GameState) -> dict[int, Edge]:
        root = rules_core(root)
        return self._flat_search(root) if self.flat else self._tree_search(root)

    def _flat_search(self, root: GameState) -> dict[int, Edge]:
        """Each legal action valued by one rollout after it in every world, the
        world's draws fixed and the same for every action (common random
        numbers), so that each world compares the actions on the same cards;
        `self.values[w][i]` is action legal[i]'s value in world w."""
        me, legal = root.current_player(), root.legal_actions()
        evaluate, by_placement = self.evaluator.evaluate, self.utility == "placement"
        deadline = None if self.budget.seconds is None else time.perf_counter() + self.budget.seconds
        stream = random.Random()
        values: list[list[float]] = []
        for world in self.sample_worlds(root, me):
            seed = self.rng.getrandbits(64)
            row = []
            for action in legal:
                after = world.clone()
                stream.seed(seed)
                after.apply_action(action)
                returns = evaluate(after, stream.random)
                row.append((placement(returns) if by_placement else returns)[me])
            values.append(row)
            if deadline is not None and time.perf_counter() > deadline:
                break
        self.values = values
        self.iterations = len(values) * len(legal)
        return {a: [len(values), sum(row[i] for row in values)] for i, a in enumerate(legal)}

    def _tree_search(self, root: GameState, baseline: int | None = None) -> dict[int, Edge]:
        """The worlds' trees, their root edges summed; given the baseline's move,
        more batches of worlds while the move is close, up to `max_worlds`."""
        me = root.current_player()
        share = self.budget.split(self.worlds)
        totals: dict[int, Edge] = {}
        self.iterations, self.root_returns, self.worlds_searched = 0, {}, 0
        while True:
            for world in self.sample_worlds(root, me):
                search = self._search(HistoryKeys())
                seed = self.rng.getrandbits(64) if self.fixed_chance else None
                for action, edge in search.run(world, world.clone, share, seed).items():
                    total = totals.setdefault(action, [0, 0.0])
                    total[0] += edge[0]
                    total[1] += edge[1]
                for action, returns in search.root_returns.items():
                    self.root_returns.setdefault(action, []).extend(returns)
                self.iterations += search.iterations
            self.worlds_searched += self.worlds
            if baseline is None or self.worlds_searched + self.worlds > self.max_worlds \
                    or not unpaired_is_close(self.root_returns, baseline, self.confidence):
                return totals


class CheatMCTSBot(SearchBot):
    """UCT on the true state, hidden cards and all: how much hidden information costs."""

    def search(self, root: GameState) -> dict[int, Edge]:
        search = self._search(HistoryKeys())
        edges = search.run(root, root.clone, self.budget)
        self.iterations, self.root_returns = search.iterations, search.root_returns
        return edges


def _play_model(spec: str, game: pyspiel.Game, player: int, seed: int):
    """The bot named by `assume`, checked to say what its moves show of a hand
    (it has `lacked`, as American Page One's rule bot does, and that game's
    states resample under it: `resample_assuming`)."""
    try:
        model = make_bot(spec, game, player, seed)
    except ValueError as e:
        raise ValueError(f"assume={spec!r}: {e}") from e
    if not hasattr(model, "lacked"):
        raise ValueError(f"assume={spec!r}: that bot does not say what its moves show of its hand, "
                         f"so worlds cannot be drawn under it (American Page One's rule bot can)")
    return model


def _count_or_auto(name: str, value, auto: int | None) -> int | None:
    """A positive integer, `none` (None) or `auto` (the game's default, `auto`)."""
    if value == "auto":
        return auto
    if value is None or value == "none":
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name}={value!r}: must be a positive integer, none or auto")
    return value


def _value_network(spec: str | None, game: pyspiel.Game):
    """The value network a `value` setting names (search.value), or None."""
    if spec is None or spec == "none":
        return None
    if not isinstance(spec, str):
        raise ValueError(f"value={spec!r}: must be shipped, none or a value network's file")
    from search.value import value_network
    try:
        return value_network(spec, game)
    except ValueError as e:
        raise ValueError(f"value={spec!r}: {e}") from None


def _belief_sampler(spec: str | None, game: pyspiel.Game, candidates, power):
    """The sampler a `belief` setting asks for (search.belief), or None."""
    if spec is None or spec == "none":
        return None
    if not isinstance(spec, str):
        raise ValueError(f"belief={spec!r}: must be shipped, none or a belief network's file")
    from search.belief import BeliefSampler, belief_network, hidden_layout
    try:
        hidden_layout(rules_core(game.new_initial_state()), 0)
        return BeliefSampler(belief_network(spec, game), candidates, power)
    except ValueError as e:
        raise ValueError(f"belief={spec!r}: {e}") from None


def _horizon(value, game: pyspiel.Game, rollout: str, network: bool = False) -> int | None:
    """The rollouts' horizon: `auto` is the game's own for random rollouts only
    (a bot's rollouts end a deal in reasonable time), and 0 with a value network
    (the leaf valued by it); a horizon needs a value for the positions it stops
    at: the network's, or the game's static one (search.evaluation)."""
    if network:
        if value == "auto":
            return 0
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"horizon={value!r}: with a value network, a number of moves (0 or more) "
                             f"to play before the network values the position")
        return value
    horizon = _count_or_auto("horizon", value, auto_setting(game, "horizon") if rollout == "random" else None)
    if horizon is not None and leaf_value_for(rules_core(game.new_initial_state())) is None:
        raise ValueError(f"horizon={value!r}: {game.get_type().short_name} has no static value to stop "
                         f"a rollout at (search.evaluation); use horizon=none")
    return horizon


def _settings(bot: str, given: dict[str, Any], declared: tuple[Param, ...]) -> dict[str, Any]:
    """The bot's settings: its declared defaults with the spec's `given` ones over them."""
    defaults = {p.name: p.default for p in declared}
    unknown = sorted(set(given) - set(defaults))
    if unknown:
        raise ValueError(f"unknown setting(s) {', '.join(unknown)} for {bot}; "
                         f"known: {', '.join(sorted(defaults))}")
    return {**defaults, **given}


def _belief_settings(s: dict[str, Any]) -> dict[str, Any]:
    return {"belief": s["belief"], "belief_candidates": s["belief_candidates"], "belief_power": s["belief_power"]}


def _budget(s: dict[str, Any], default_iterations: int) -> Budget:
    if s["iterations"] is None and s["seconds"] is None:
        return Budget(default_iterations)
    return Budget(s["iterations"], s["seconds"])


# The settings each search bot declares (agents.bot_settings, `cardarena list bots`): the module
# docstring says what each does.
_COMMON = (
    Param("iterations", "int", None, "iterations a move (pimc: a world); with seconds, whichever ends first", min=1),
    Param("seconds", "float", None, "seconds a move", min=0),
    Param("c", "float", DEFAULT_C, "UCB exploration, in units of the return scale"),
    Param("scale", "choice", "game", "the return scale: the game's range, or the spread observed in this search",
          choices=SCALES),
    Param("utility", "choice", "returns", "what a playout scores: the returns, or the finishing place",
          choices=UTILITIES),
    Param("rollout", "spec", "random", "random, or the bot spec that plays the rollouts"),
    Param("prior", "str", None, "a policy network (shipped or a file) whose policy guides the tree"),
    Param("baseline", "spec", None, "a bot spec whose move is played unless the search shows another better"),
    Param("confidence", "float", DEFAULT_CONFIDENCE, "standard errors by which a move must beat the baseline's"),
    Param("horizon", "str", "auto", "moves a rollout plays before the static value stands in: a number, none "
                                    "or auto (the game's own)"),
    Param("prior_temperature", "float", None, "the prior's temperature"),
    Param("rollout_opponents", "spec", None, "a bot spec for the rollouts' seats outside the bot's side"),
    Param("value", "str", None, "a value network (shipped or a file) that values the rollouts' last positions"),
    Param("belief", "str", None, "a belief network (shipped or a file) that weighs the worlds drawn"),
    Param("belief_candidates", "int", 32, "exact resamples each world is drawn from, with belief", min=1),
    Param("belief_power", "float", 1.0, "the power the belief network's likelihoods are raised to"),
)
_ASSUME = Param("assume", "spec", None, "a bot spec whose moves say what its hand lacked: worlds that agree")
ISMCTS_SETTINGS = _COMMON + (
    _ASSUME,
    Param("viewer", "choice", "acting", "whose information sets the tree's nodes are", choices=VIEWERS),
    Param("root", "choice", "ucb", "ucb, or paired: every root action once per world, compared pairwise",
          choices=ISMCTS_ROOTS),
    Param("pool", "str", "auto", "worlds a move draws, cycled through: a number, none (fresh every iteration) "
                                 "or auto (the game's own)"),
)
PIMC_SETTINGS = _COMMON + (
    _ASSUME,
    Param("worlds", "int", 20, "worlds sampled a move", min=1),
    Param("chance", "choice", "random", "whether a world fixes its future draws too", choices=PIMC_CHANCE),
    Param("model", "spec", None, "a bot spec: search the worlds most likely under its play"),
    Param("candidates", "int", None, "with model: worlds drawn to choose from", min=1),
    Param("flat", "bool", False, "no tree: each action one rollout per world, paired"),
    Param("max_worlds", "int", None, "with baseline: more batches of worlds, up to this, while the move is close",
          min=1),
)


def make_ismcts(game, player: int, seed: int = 0, **settings) -> ISMCTSBot:
    s = _settings("ismcts", settings, ISMCTS_SETTINGS)
    return ISMCTSBot(game, player, seed, _budget(s, 1000), s["c"], s["rollout"], s["prior"], s["scale"],
                     s["utility"], s["baseline"], s["confidence"], s["assume"], s["viewer"], s["root"],
                     s["horizon"], s["pool"], s["prior_temperature"], s["rollout_opponents"], s["value"],
                     **_belief_settings(s))


def make_pimc(game, player: int, seed: int = 0, **settings) -> PIMCBot:
    s = _settings("pimc", settings, PIMC_SETTINGS)
    return PIMCBot(game, player, seed, _budget(s, 100), s["c"], s["rollout"], s["prior"], s["scale"],
                   s["utility"], s["baseline"], s["confidence"], s["assume"], s["worlds"], s["chance"],
                   s["model"], s["candidates"], s["flat"], s["horizon"], s["prior_temperature"],
                   s["rollout_opponents"], s["max_worlds"], s["value"], **_belief_settings(s))


def make_cheat_mcts(game, player: int, seed: int = 0, **settings) -> CheatMCTSBot:
    s = _settings("cheat_mcts", settings, _COMMON)
    return CheatMCTSBot(game, player, seed, _budget(s, 1000), s["c"], s["rollout"], s["prior"], s["scale"],
                        s["utility"], s["baseline"], s["confidence"], horizon=s["horizon"],
                        prior_temperature=s["prior_temperature"], rollout_opponents=s["rollout_opponents"],
                        value=s["value"], **_belief_settings(s))


make_ismcts.declared_settings = ISMCTS_SETTINGS
make_pimc.declared_settings = PIMC_SETTINGS
make_cheat_mcts.declared_settings = _COMMON
