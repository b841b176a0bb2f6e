"""The Monte Carlo tree search loop shared by ISMCTS, PIMC and the cheating search.

One iteration takes a world (a full state: a determinization drawn from the
player's information state, or the true state), walks down the node table
choosing actions by UCB with availability counts, adds one node, evaluates the
position there (a rollout), and adds each player's own return to the edges that
player chose. The three searches differ only in where worlds come from and in
how a position maps to a node (search.keys).

A node is a dict {action: edge}, an edge a list [visits, return_sum,
availability]: plain lists and dicts are the fastest containers Python has, and
this loop is the hot path.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass
from typing import Callable, Hashable, Protocol, Sequence

from games.protocol import CHANCE, TERMINAL, GameState, chance_sampler

Edge = list          # [visits, return_sum, availability]
SCALES = ("observed", "game")
UTILITIES = ("returns", "placement")
Node = dict          # action -> Edge


def placement(returns: Sequence[float]) -> list[float]:
    """Each player's finishing place among the others, in [-1, 1]: the players it
    finished ahead of less those ahead of it, over n - 1 (returns compared, as
    the harness's ratings compare them, eval.ratings)."""
    n = len(returns)
    return [sum((r > o) - (r < o) for o in returns) / (n - 1) for r in returns]


class NodeKeys(Protocol):
    """How a position maps to a node of the table (see search.keys)."""

    reveal_chance: bool   # whether chance outcomes enter the path, or only that one happened

    def key(self, world: GameState, player: int, path: int) -> Hashable: ...


class Prior(Protocol):
    """A policy the search starts from: probabilities over `legal` for `player`,
    who is to move in `world`, read from that player's information only."""

    def __call__(self, world: GameState, player: int, legal: list[int]) -> Sequence[float]: ...


class Evaluator(Protocol):
    """The value of a leaf for every player. May play on `world` in place."""

    def evaluate(self, world: GameState, rand: Callable[[], float]) -> Sequence[float]: ...


@dataclass(frozen=True)
class Budget:
    """Iterations, wall-clock seconds, or both (whichever runs out first)."""

    iterations: int | None = None
    seconds: float | None = None

    def __post_init__(self):
        if self.iterations is None and self.seconds is None:
            raise ValueError("a search budget needs iterations or seconds")
        if self.iterations is not None and (isinstance(self.iterations, bool)
                                            or not isinstance(self.iterations, int)
                                            or self.iterations < 1):
            raise ValueError(f"iterations={self.iterations!r}: must be a positive integer")
        if self.seconds is not None and (isinstance(self.seconds, bool)
                                         or not isinstance(self.seconds, (int, float))
                                         or not self.seconds > 0):
            raise ValueError(f"seconds={self.seconds!r}: must be a positive number")

    def split(self, parts: int) -> "Budget":
        """The share of one of `parts` searches run one after another."""
        return Budget(self.iterations, None if self.seconds is None else self.seconds / parts)


class Search:
    """Tree search with availability counts (Cowling, Powley and Whitehouse 2012).

    Without a prior, selection is UCB1: every legal action is tried once, in
    random order, then the one maximising mean + c sqrt(ln availability / visits)
    is taken. With a prior, it is PUCT (as AlphaZero, with availability in place
    of the parent's visits): mean + c P(a) sqrt(availability) / (1 + visits),
    an untried action counting the node's mean return so far; the search then
    spends its iterations on the actions the prior likes and leaves the rest
    untried until their turn comes, which is what large action spaces need.

    `c` is the exploration constant in units of a return scale, so one value
    suits games whose returns span 2 (Page One) or thousands of points (American
    Page One). The scale is the game's return range (max_utility - min_utility)
    with `scale="game"`; with `scale="observed"` it is the spread of the returns
    this search has backed up so far (as MuZero normalises its values), which
    matters where the range is far wider than what a position's outcomes span
    (a deal of American Page One is worth ±100 points in a range of ±1656): a
    scale that wide makes UCB explore almost uniformly.

    `utility` is what the search maximises: each player's `returns` (the
    default), or its `placement` among the others (search.mcts.placement; its
    range is 2), which is what a rating by finishing order rewards: in a game
    scored in points, the move that gains most points on average is not always
    the one that most often finishes ahead.
    """

    def __init__(self, keys: NodeKeys, evaluator: Evaluator, c: float, return_range: float,
                 rng: random.Random, prior: Prior | None = None, scale: str = "game",
                 utility: str = "returns"):
        if scale not in SCALES:
            raise ValueError(f"scale={scale!r}: must be one of {', '.join(SCALES)}")
        if utility not in UTILITIES:
            raise ValueError(f"utility={utility!r}: must be one of {', '.join(UTILITIES)}")
        self.by_placement = utility == "placement"
        if self.by_placement:
            return_range = 2.0
        self.keys = keys
        self.evaluator = evaluator
        self.c_units = c
        self.return_range = return_range
        self.observed = scale == "observed"
        self.rng = rng
        self.prior = prior
        self.iterations = 0       # how many the last run made
        self.nodes: dict[Hashable, Node] = {}   # the last run's table, for inspection
        self.root_returns: dict[int, list[float]] = {}   # the last run's returns after each root action
        self.root_rows: list[list[float]] = []           # the last paired run's returns, by round and root action

    def run(self, root: GameState, make_world: Callable[[], GameState], budget: Budget,
            chance_seed: int | None = None, paired: bool = False) -> Node:
        """Searches from `root` (a decision node), each iteration in a fresh world
        from `make_world`; returns the root's edges.

        With `chance_seed`, every iteration draws its chance events (in the tree
        and in the rollout) from the same stream, restarted from that seed: the
        world's future is fixed, as perfect-information Monte Carlo means, and
        the actions are compared on the same draws (common random numbers),
        which takes the luck of the draw out of their differences.

        With `paired`, the iterations go in rounds of one per legal root action:
        a round draws one world and one chance stream, and each of its
        iterations takes the next root action there (in place of UCB at the
        root; below it the search is as ever). `root_rows[r][i]` is then root
        action legal[i]'s return in round r, every action of a round on the same
        cards, for a paired comparison (search.decision.choose_paired). Only
        whole rounds are made, at least one, and only whole rounds are kept."""
        key = self.keys.key
        reveal = self.keys.reveal_chance
        evaluate = self.evaluator.evaluate
        rand = self.rng.random
        stream = random.Random() if chance_seed is not None or paired else None
        chance_rand = stream.random if stream is not None else rand
        c_units, observed, by_placement = self.c_units, self.observed, self.by_placement
        c = c_units * self.return_range
        low, high = math.inf, -math.inf      # the returns backed up so far
        log, sqrt = math.log, math.sqrt
        sample = chance_sampler(root)
        root_node: Node = {}
        me = root.current_player()
        nodes: dict[Hashable, Node] = {key(root, me, 0): root_node}
        self.nodes = nodes
        by_root_edge: dict[int, list[float]] = {}     # id of a root edge -> the returns behind it
        limit = budget.iterations if budget.iterations is not None else math.inf
        deadline = time.perf_counter() + budget.seconds if budget.seconds is not None else None
        in_time = lambda: deadline is None or time.perf_counter() < deadline   # noqa: E731
        root_legal = root.legal_actions()
        width = len(root_legal)
        rows: list[list[float]] = []
        if paired:
            for action in root_legal:
                root_node[action] = [0, 0.0, 0]
        done = 0
        while True:
            chosen: list[tuple[Edge, int]] = []
            path = 0
            if paired:
                slot = done % width
                if slot == 0:
                    if done and not (done + width <= limit and in_time()):
                        break
                    round_world, round_seed = make_world(), self.rng.getrandbits(64)
                    rows.append([])
                elif done > width and not in_time():
                    break
                world = round_world.clone()
                stream.seed(round_seed)
                action = root_legal[slot]
                edge = root_node[action]
                edge[2] += 1
                chosen.append((edge, me))
                path = hash((path, action))
                world.apply_action(action)
            else:
                if done and not (done < limit and (deadline is None or time.perf_counter() < deadline)):
                    break
                world = make_world()
                if stream is not None:
                    stream.seed(chance_seed)
            while True:
                player = world.current_player()
                if player < 0:
                    if player == TERMINAL:
                        returns = world.returns()
                        break
                    action = sample(world, chance_rand())
                    path = hash((path, action if reveal else CHANCE))
                    world.apply_action(action)
                    continue
                k = key(world, player, path)
                node = nodes.get(k)
                if node is None:
                    nodes[k] = {}
                    returns = evaluate(world, chance_rand)
                    break
                if self.prior is not None:
                    action, edge = self._puct(node, world, player, c)
                    chosen.append((edge, player))
                    path = hash((path, action))
                    world.apply_action(action)
                    continue
                # One pass: count each legal action's availability, note the
                # untried ones (tried first, at random), and find the best UCB.
                untried = None
                best = -math.inf
                for a in world.legal_actions():
                    e = node.get(a)
                    if e is None:
                        if untried is None:
                            untried = [a]
                        else:
                            untried.append(a)
                        continue
                    e[2] = available = e[2] + 1
                    if untried is None:
                        n = e[0]
                        u = e[1] / n + c * sqrt(log(available) / n)
                        if u > best:
                            best, action, edge = u, a, e
                if untried is not None:
                    action = untried[int(rand() * len(untried))]
                    edge = node[action] = [0, 0.0, 1]
                chosen.append((edge, player))
                path = hash((path, action))
                world.apply_action(action)
            if by_placement:
                returns = placement(returns)
            # The root is a decision node already in the table, so every
            # iteration's first step chose one of its edges.
            by_root_edge.setdefault(id(chosen[0][0]), []).append(returns[me])
            if paired:
                rows[-1].append(returns[me])
            if observed:
                r_low, r_high = min(returns), max(returns)
                if r_low < low or r_high > high:
                    low, high = min(low, r_low), max(high, r_high)
                    if high > low:
                        c = c_units * (high - low)
            for edge, player in chosen:
                edge[0] += 1
                edge[1] += returns[player]
            done += 1
        self.iterations = done
        self.root_rows = [row for row in rows if len(row) == width]
        self.root_returns = {a: by_root_edge[id(e)] for a, e in root_node.items() if id(e) in by_root_edge}
        return root_node

    def _puct(self, node: Node, world: GameState, player: int, c: float) -> tuple[int, Edge]:
        """PUCT selection; an edge here is [visits, return_sum, availability, prior]."""
        legal = world.legal_actions()
        if any(a not in node for a in legal):
            # Legal actions met for the first time take their prior from this world.
            for a, p in zip(legal, self.prior(world, player, legal)):
                if a not in node:
                    node[a] = [0, 0.0, 0, float(p)]
        visits, value = 0, 0.0
        for a in legal:
            e = node[a]
            e[2] += 1
            visits += e[0]
            value += e[1]
        untried_value = value / visits if visits else 0.0
        sqrt = math.sqrt
        best = -math.inf
        for a in legal:
            e = node[a]
            n = e[0]
            u = (e[1] / n if n else untried_value) + c * e[3] * sqrt(e[2]) / (1 + n)
            if u > best:
                best, action, edge = u, a, e
        return action, edge


def most_visited(edges: dict[int, Edge]) -> int:
    """The final move: most visits, ties broken by the higher mean return, then the lower action."""
    return max(edges, key=lambda a: (edges[a][0], edges[a][1] / max(edges[a][0], 1), -a))
