"""Position analysis: what each legal action is worth, from the mover's information only.

The player to move sees its information state, not the position. So every action
is valued over worlds resampled from that information state (the game's own
`resample_from_infostate`; with a belief network, each weighed by how likely
the network finds where its hidden cards lie, search.belief), each continued by
a policy (a bot spec: `rules`,
`neural`, any search bot) to the end, or for `horizon` moves and then valued by a
value network (search.value), which removes most of a playout's noise and time.
Within a world every action meets the same hidden cards, the same later chance
outcomes and bots seeded alike, so the differences between actions are paired.

What makes it trustworthy:
* **A fixed budget seeded from the position.** `worlds` worlds, drawn from a seed
  mixed with the mover's information state (and the caller's seed), never a time
  cap: the same question asked twice, by the hint or by the review, gets the same
  answer, on any machine.
* **Selection, then confirmation.** The best of many actions looks better than
  it is on the worlds that chose it (the winner's curse): so the best action is
  chosen on the first `worlds` worlds (the best few raced on more worlds until
  the leader is within the noticeable loss of each, so that the choice holds under
  another seed), and every action is then valued again on
  as many fresh worlds. The values, the gaps behind the chosen action and their
  95% intervals are the fresh worlds' (unbiased for the chosen action); a move
  is a mistake only when it is not the chosen action and its fresh gap's interval
  lies above zero. The hint offers the chosen action first, and the review uses
  the same evaluator with the same budget, so following the hint is never
  flagged.
* **Points.** Values are in the game's returns; `points_per_unit` (declared in
  the game's registry entry, games.registry) turns them into points for people.

* **Mistakes decided apart and measured apart.** A review (`review_decision`)
  flags a move only when a third, larger set of worlds (grown until it decides)
  puts its gap above the game's noticeable loss, and measures its cost on a fourth
  set that decided nothing.

The web table's hint and review, `cardarena analyse` and the strategy lab's
`study decisions` all call `analyse`; the review and the lab judge a decision
with `review_decision`.
"""

from __future__ import annotations

import hashlib
import math
import random
import time
from dataclasses import asdict, dataclass, field, replace
from typing import Callable, Sequence

import pyspiel

from agents import make_bot
from agents.base import rules_core
from games.chance import DealChance
from games.seeding import derive_seed
from games import registry

DEFAULT_WORLDS = 50
MAX_WORLDS = 100_000
Z95 = 1.96
_WORLD, _CONFIRM, _CHANCE, _BOTS, _REVIEW, _COST, _RACE = 21, 24, 22, 23, 25, 26, 27     # seed domains
# The first set's best few actions are raced on RACE_FACTOR times its worlds more, doubled up to
# MAX_RACE_FACTOR times while undecided, before one is chosen (_race).
FINALISTS, RACE_FACTOR, MAX_RACE_FACTOR = 4, 4, 32
# A review decides a suspected mistake on CONFIRM_FACTOR times the evaluator's worlds (two
# actions only, so it costs about what the analysis that raised the suspicion cost), doubled
# while undecided up to MAX_CONFIRM_FACTOR times (review_decision).
CONFIRM_FACTOR = 16
MAX_CONFIRM_FACTOR = 128


@dataclass(frozen=True)
class Evaluator:
    """How the analysis values a position: the policy that plays on, the worlds a
    stage, and the networks (a `value` network after `horizon` moves, 0 by default
    with one; a `belief` network weighing the worlds). None: playouts to the end,
    uniform worlds."""

    policy: str = "rules"
    worlds: int = DEFAULT_WORLDS
    value: str | None = None
    horizon: int | None = None
    belief: str | None = None
    threshold: float = 0.0         # a mistake loses more than this (in returns), by its interval

    def __post_init__(self):
        if isinstance(self.worlds, bool) or not isinstance(self.worlds, int) or not 1 <= self.worlds <= MAX_WORLDS:
            raise ValueError(f"worlds must be a whole number in [1, {MAX_WORLDS}], got {self.worlds!r}")
        if self.horizon is not None and (isinstance(self.horizon, bool) or not isinstance(self.horizon, int)
                                         or self.horizon < 0):
            raise ValueError(f"horizon must be a whole number of moves (0 or more), got {self.horizon!r}")
        if self.horizon is not None and self.value is None:
            raise ValueError("a horizon needs a value network to value the position it stops at (value=...)")
        if not (isinstance(self.threshold, (int, float)) and math.isfinite(self.threshold) and self.threshold >= 0):
            raise ValueError(f"threshold must be a finite number of 0 or more, got {self.threshold!r}")

    def describe(self) -> str:
        text = f"{self.worlds} worlds continued by {self.policy}"
        if self.value is not None:
            text += f" for {self.horizon or 0} moves, then valued by {self.value}"
        if self.belief is not None:
            text += f", weighed by the belief {self.belief}"
        return text


@dataclass
class ActionValue:
    """One action's mean return to the player over the confirming worlds, with
    its 95% interval, and its gap behind the chosen action (paired, with its interval)."""
    action: int
    text: str
    mean: float
    low: float
    high: float
    gap: float
    gap_low: float
    gap_high: float
    played: bool = False


@dataclass
class Analysis:
    player: int
    policy: str
    worlds: int                        # a stage's worlds (the selection's; the confirmation has as many)
    seconds: float
    values: list[ActionValue]          # the chosen action first, then by value
    evaluator: str = ""
    points_per_unit: float | None = None
    stages: int = 2
    selection: list[float] = field(default_factory=list)   # the first set's means, in `values` order

    @property
    def best(self) -> ActionValue:
        """The chosen action: the hint's first choice."""
        return self.values[0]

    def mistake(self, played: int, threshold: float = 0.0) -> ActionValue | None:
        """The played action's row when playing it was a mistake: not the chosen action,
        and behind it on the confirming worlds by more than `threshold` (in returns)
        with 95% confidence. The row's gap is the one that decided the flag, so flags
        picked among many decisions overstate what they cost: measure a flag's cost on
        fresh worlds (`paired_gap`), as the review does (`review_decision`)."""
        row = next((v for v in self.values if v.action == played), None)
        if row is None or row.action == self.best.action or not row.gap_low > threshold:
            return None
        return row

    def to_json(self) -> dict:
        """JSON-ready; an interval that one world cannot give is null."""
        def finite(row: dict) -> dict:
            return {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in row.items()}
        return {"player": self.player, "policy": self.policy, "worlds": self.worlds,
                "seconds": round(self.seconds, 3), "evaluator": self.evaluator,
                "points_per_unit": self.points_per_unit, "values": [finite(asdict(v)) for v in self.values]}

    def table(self) -> str:
        """The analysis as a plain-text table, the chosen action first; in points where the game has them."""
        k = self.points_per_unit or 1.0
        unit = "points" if self.points_per_unit else "returns"
        lines = [f"p{self.player} to move: {len(self.values)} legal actions; {self.evaluator} "
                 f"({self.seconds:.1f} s), values in {unit}",
                 f"{'':2}{'action':<28} {'value':>9} {'95% interval':>22} {'behind':>9} {'95% interval':>22}"]
        for v in self.values:
            mark = "* " if v.played else "  "
            lines.append(f"{mark}{v.text[:28]:<28} {v.mean * k:>+9.3f} [{v.low * k:>+9.3f}, {v.high * k:>+9.3f}] "
                         f"{v.gap * k:>9.3f} [{v.gap_low * k:>+9.3f}, {v.gap_high * k:>+9.3f}]")
        lines.append(f"the first action was chosen on {self.worlds} worlds; every figure is from "
                     f"{self.worlds} fresh ones" if self.stages == 2 else
                     f"one stage of {self.worlds} worlds: the first action's figures are biased upwards")
        if any(v.played for v in self.values):
            lines.append("* the move played")
        return "\n".join(lines)


@dataclass(frozen=True)
class Mistake:
    """A reviewed decision found a mistake: `played` loses `cost` (in returns) against `best`,
    the analysis's chosen action, with the 95% interval [low, high] of a paired measurement on
    `worlds` worlds that neither chose `best`, nor raised the suspicion, nor decided the flag."""
    best: int
    played: int
    cost: float
    low: float
    high: float
    worlds: int


def review_decision(state, played: int, *, evaluator: Evaluator, seed: int = 0,
                    game: pyspiel.Game | None = None) -> tuple[Analysis, Mistake | None]:
    """The review's verdict on one decision: the analysis of the position (as the hint sees
    it), and the mistake if playing `played` was one.

    Four sets of worlds, each fresh. The analysis chooses the best action on the first. On
    the second a move is suspect unless it is the chosen action or its gap's interval rules
    out a loss above the evaluator's threshold: a loose screen, because a move the screen
    drops can never be flagged, and a strict one made two reviews with different seeds
    disagree on half their flags (experiments/runs/i43-analysis-check-screen.json). A suspect
    is decided on a third set, CONFIRM_FACTOR times the evaluator's worlds, doubled while the
    paired gap's 95% interval still straddles the threshold, up to MAX_CONFIRM_FACTOR times:
    a mistake when the interval lies above it. Only moves whose loss sits within a few
    standard errors of the threshold stay undecided, so a review with another seed flags the
    same moves. The verdict picked its flags among many decisions, which flatters the gaps
    that decided them; the cost is measured on a fourth set, as large as the third, that
    decided nothing, so it is unbiased. Following the hint (the chosen action) is never a
    mistake."""
    result = analyse(state.clone(), evaluator=evaluator, seed=seed, played=played, game=game)
    row = next((v for v in result.values if v.action == played), None)
    if row is None or row.action == result.best.action or not row.gap_high > evaluator.threshold:
        return result, None
    factor = CONFIRM_FACTOR
    while True:
        confirm = replace(evaluator, worlds=min(MAX_WORLDS, evaluator.worlds * factor))
        _, low, high = paired_gap(state.clone(), result.best.action, played, evaluator=confirm,
                                  seed=derive_seed(_REVIEW, seed), game=game)
        if low > evaluator.threshold:
            break
        if high <= evaluator.threshold or factor >= MAX_CONFIRM_FACTOR or confirm.worlds == MAX_WORLDS:
            return result, None
        factor *= 2
    cost, low, high = paired_gap(state.clone(), result.best.action, played, evaluator=confirm,
                                 seed=derive_seed(_COST, seed), game=game)
    return result, Mistake(result.best.action, played, cost, low, high, confirm.worlds)


REVIEW_WORLDS = 24        # the hint's and the review's worlds a stage at the table
# Moves of rule-bot play after each action before the value network values the position: at
# Canasta, actions valued by the network at once were too alike to tell apart (a flat search so
# was no better than the rule bot), and after 12 to 24 moves of play it told them apart
# (experiments/runs/i43-screen-*).
VALUE_HORIZON = 24


def review_evaluator(game: pyspiel.Game, worlds: int = REVIEW_WORLDS) -> Evaluator:
    """The evaluator of the hint, the review and the lab at `game`: rule-bot play
    on `worlds` uniform worlds a stage, for VALUE_HORIZON moves and then valued by the game's
    shipped value network where one was learnt at these parameters (to the end where not).

    Not weighed by the shipped belief networks: they know 1% to 6.5% more than the uniform
    resampler (docs/networks.md), and their importance weights left a few worlds carrying most
    of the weight, so that intervals came out too narrow (a screen's re-check fell inside a
    flag's interval 64% of the time, experiments/runs/i43-analysis-check-screen.json)."""
    from search.netfile import shipped_path
    from search.value import value_network
    value = "shipped" if shipped_path(game, "value").is_file() and \
        _same_variant(value_network("shipped", game).net.game, game) else None
    return Evaluator(policy="rules", worlds=worlds, value=value, horizon=VALUE_HORIZON if value else None,
                     threshold=registry.lookup(game.get_type().short_name).noticeable_loss)


def _same_variant(trained: str, game: pyspiel.Game) -> bool:
    """Whether a network learnt at the game string `trained` plays `game`: the same parameters
    but those a match sets for each deal (scores, first player, dealer)."""
    from agents.neural.encoding import deal_parameters
    skip = deal_parameters(game)
    def rules(params: dict) -> dict:
        return {k: v for k, v in params.items() if k not in skip}
    return rules(pyspiel.load_game(trained).get_parameters()) == rules(game.get_parameters())


def position_seed(state, player: int, seed: int) -> int:
    """A seed from the caller's and the mover's information state: the same
    question gets the same worlds whoever asks it, and nothing hidden enters."""
    digest = hashlib.sha256(state.information_state_string(player).encode()).digest()
    return derive_seed(seed, int.from_bytes(digest[:8], "little"))


def analyse(state, player: int | None = None, *, evaluator: Evaluator | None = None, seed: int = 0,
            played: int | None = None, game: pyspiel.Game | None = None, confirm: bool = True,
            policy: str | None = None, worlds: int | None = None) -> Analysis:
    """Values every legal action of the player to move at `state`.

    `evaluator` says how (policy, worlds, networks); `policy` and `worlds` are
    shorthands for the plain evaluator's. With `confirm` (the default) the chosen
    action is chosen on one set of worlds and every figure measured on another
    (the module docstring); without, one set does both (half the time; the best
    action's value is then biased upwards). Deterministic for a seed, and the
    same on any world of the mover's information. `state` may be a rules core
    (a set position) when `game` is given. Raises ValueError when nobody is to
    decide or `player` is not the one to move.
    """
    if evaluator is None:
        evaluator = Evaluator(policy=policy or "rules", worlds=DEFAULT_WORLDS if worlds is None else worlds)
    elif policy is not None or worlds is not None:
        raise ValueError("give an evaluator or policy and worlds, not both")
    mover = state.current_player()
    if state.is_terminal() or state.is_chance_node():
        raise ValueError("no decision to analyse here: the game is over" if state.is_terminal()
                         else "no decision to analyse here: chance is to move")
    if player is not None and player != mover:
        raise ValueError(f"player {player} is not to move (player {mover} is)")
    game = game if game is not None else state.get_game()
    make_bot(evaluator.policy, game, 0, 0)            # a bad spec fails here, with the bot's own message
    value, belief = load_networks(evaluator, game)
    core = rules_core(state)
    legal = core.legal_actions()
    start = time.perf_counter()
    base = position_seed(core, mover, seed)
    first = _stage(core, mover, legal, game, evaluator, value, belief, derive_seed(_WORLD, base))
    second = _stage(core, mover, legal, game, evaluator, value, belief, derive_seed(_CONFIRM, base)) \
        if confirm else first
    means = [_mean(column, first[1]) for column in zip(*first[0])]
    chosen = _race(core, mover, legal, means, game, evaluator, value, belief, derive_seed(_RACE, base))
    values = _values(core, mover, legal, second, chosen, played)
    order = sorted(range(len(legal)), key=lambda i: (i != chosen, -values[i].mean, legal[i]))
    return Analysis(mover, evaluator.policy, evaluator.worlds, time.perf_counter() - start,
                    [values[i] for i in order], evaluator.describe(), _points_per_unit(game),
                    2 if confirm else 1, [means[i] for i in order])


def _race(core, mover: int, legal: list[int], means: list[float], game: pyspiel.Game, evaluator: Evaluator,
          value, belief, seed: int) -> int:
    """The chosen action's place in `legal`: of the first set's FINALISTS best, the best on
    further worlds, RACE_FACTOR times the evaluator's, doubled (up to MAX_RACE_FACTOR times)
    until the leader is, by every paired 95% interval, no more than the evaluator's threshold
    behind any other finalist. The hint's first choice is never flagged, so the choice must be
    as steady as the flags: chosen on the 24 worlds of the first set, two reviews with different
    seeds chose differently often enough to disagree on a fifth of their flags, and with the four
    best raced once on four times the worlds, on one flag in eight, where the two best were 100
    points apart or the only two actions were (experiments/runs/i43-analysis-check-screen3.json,
    i43-analysis-check.json)."""
    if len(legal) == 1:
        return 0
    finalists = sorted(range(len(legal)), key=lambda i: (-means[i], legal[i]))[:FINALISTS]
    factor = RACE_FACTOR
    while True:
        race = replace(evaluator, worlds=min(MAX_WORLDS, evaluator.worlds * factor))
        rows, weights = _stage(core, mover, [legal[i] for i in finalists], game, race, value, belief, seed)
        columns = list(zip(*rows))
        raced = [_mean(column, weights) for column in columns]
        leader = max(range(len(finalists)), key=lambda j: (raced[j], -legal[finalists[j]]))
        def within(other: int) -> bool:
            diffs = [a - b for a, b in zip(columns[leader], columns[other])]
            return _mean(diffs, weights) - Z95 * _se(diffs, weights) > -evaluator.threshold
        if all(within(j) for j in range(len(finalists)) if j != leader) or factor >= MAX_RACE_FACTOR \
                or race.worlds == MAX_WORLDS:
            return finalists[leader]
        factor *= 2


def _points_per_unit(game: pyspiel.Game) -> float | None:
    """The game's points in one unit of its returns, as its registry entry declares; None for a game
    not registered here or whose returns are not points."""
    entry = registry.of_game(game)
    return entry.points_per_unit if entry is not None else None


def paired_gap(state, better: int, worse: int, *, evaluator: Evaluator, seed: int,
               game: pyspiel.Game | None = None) -> tuple[float, float, float]:
    """How much `better` gains over `worse` for the player to move at `state`, on the
    evaluator's worlds for `seed` (one stage): (mean, 95% low, 95% high), paired. A
    re-check of a flagged mistake on many worlds."""
    game = game if game is not None else state.get_game()
    core = rules_core(state)
    mover = core.current_player()
    value, belief = load_networks(evaluator, game)
    rows, weights = _stage(core, mover, [better, worse], game, evaluator, value, belief,
                           derive_seed(_CONFIRM, position_seed(core, mover, seed)))
    diffs = [a - b for a, b in rows]
    mean = _mean(diffs, weights)
    half = Z95 * _se(diffs, weights)
    return mean, mean - half, mean + half


def load_networks(evaluator: Evaluator, game: pyspiel.Game):
    """The evaluator's value network and belief network for `game` (None where it has none);
    ValueError naming the setting for a file that is missing, malformed or of another game."""
    value = belief = None
    if evaluator.value is not None:
        from search.value import value_network
        try:
            value = value_network(evaluator.value, game)
        except ValueError as e:
            raise ValueError(f"value={evaluator.value!r}: {e}") from None
    if evaluator.belief is not None:
        from search.belief import belief_network, hidden_layout
        try:
            hidden_layout(rules_core(game.new_initial_state()), 0)
            belief = belief_network(evaluator.belief, game)
        except ValueError as e:
            raise ValueError(f"belief={evaluator.belief!r}: {e}") from None
    return value, belief


def _stage(core, mover: int, legal: list[int], game: pyspiel.Game, evaluator: Evaluator, value, belief,
           seed: int) -> tuple[list[list[float]], list[float]]:
    """(rows, weights): rows[w][i] is legal[i]'s return to the mover in world w of this
    stage, drawn uniformly by the game's resampler; weights[w] the world's weight
    (equal without a belief; with one, its importance weight, search.belief)."""
    rng = random.Random(seed)
    n = game.num_players()
    horizon = None if value is None else (evaluator.horizon or 0)
    leaf = None if value is None else value.values
    rows, worlds = [], []
    for w in range(evaluator.worlds):
        world = core.resample_from_infostate(mover, rng.random)
        worlds.append(world)
        chance_seed = derive_seed(_CHANCE, seed, w)
        bot_seed = derive_seed(_BOTS, seed, w)
        row = []
        for action in legal:
            after = world.clone()
            after.apply_action(action)
            row.append(_play_on(after, _bots(evaluator.policy, game, n, bot_seed), DealChance(chance_seed),
                                horizon, leaf)[mover])
        rows.append(row)
    if belief is None:
        return rows, [1.0 / len(rows)] * len(rows)
    from search.belief import hidden_layout, importance_weights
    log_q = belief.log_probabilities(core, mover)
    return rows, [float(w) for w in importance_weights([hidden_layout(w, mover) for w in worlds], log_q)]


def _bots(policy: str, game: pyspiel.Game, n: int, seed: int) -> list:
    """The policy's bots, seeded the same for every action of a world; one bot
    for every seat where the bot can play any seat."""
    first = make_bot(policy, game, 0, seed)
    if getattr(first, "any_seat", False):
        return [first] * n
    return [first] + [make_bot(policy, game, s, seed + s) for s in range(1, n)]


def _play_on(state, bots, chance, horizon: int | None, leaf: Callable | None) -> Sequence[float]:
    """Plays on to the end, or for `horizon` moves and then `leaf`'s values."""
    left = -1 if horizon is None else horizon
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(chance(state))
            continue
        if left == 0:
            return leaf(state)
        left -= 1
        state.apply_action(bots[state.current_player()].step(state))
    return state.returns()


def _values(state, player: int, legal: list[int], stage: tuple[list[list[float]], list[float]], chosen: int,
            played: int | None) -> list[ActionValue]:
    """Each action's value and gap behind the chosen action over a stage's (the
    confirming) worlds, weighted by their weights."""
    rows, weights = stage
    columns = list(zip(*rows))
    out = []
    for i, action in enumerate(legal):
        mean = _mean(columns[i], weights)
        half = Z95 * _se(columns[i], weights)
        gaps = [b - a for a, b in zip(columns[i], columns[chosen])]
        gap = _mean(gaps, weights)
        gap_half = 0.0 if i == chosen else Z95 * _se(gaps, weights)
        out.append(ActionValue(action, state.action_to_string(player, action), mean, mean - half, mean + half,
                               gap, gap - gap_half, gap + gap_half, action == played))
    return out


def _mean(xs, weights) -> float:
    return sum(w * x for w, x in zip(weights, xs))


def _se(xs, weights) -> float:
    """The standard error of a weighted mean (weights summing to 1): with equal
    weights the usual s / sqrt(n); with importance weights the self-normalised
    estimator's, sqrt(sum w^2 (x - mean)^2) times the small-sample factor n / (n - 1)."""
    n = len(xs)
    if n < 2:
        return math.inf
    m = _mean(xs, weights)
    return math.sqrt(sum(w * w * (x - m) ** 2 for w, x in zip(weights, xs)) * n / (n - 1))
