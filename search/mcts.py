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
Node = dict          # action -> Edge


class NodeKeys(Protocol):
    """How a position maps to a node of the table (see search.keys)."""

    reveal_chance: bool   # whether chance outcomes enter the path, or only that one happened

    def key(self, world: GameState, player: int, path: int) -> Hashable: ...


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
    """UCB tree search with availability counts (Cowling, Powley and Whitehouse 2012).

    `c` is the exploration constant in units of the game's return range, so one
    value suits games whose returns span 2 (Page One) or 36 (hearts).
    """

    def __init__(self, keys: NodeKeys, evaluator: Evaluator, c: float, return_range: float,
                 rng: random.Random):
        self.keys = keys
        self.evaluator = evaluator
        self.c = c * return_range
        self.rng = rng
        self.iterations = 0       # how many the last run made
        self.nodes: dict[Hashable, Node] = {}   # the last run's table, for inspection

    def run(self, root: GameState, make_world: Callable[[], GameState], budget: Budget) -> Node:
        """Searches from `root` (a decision node), each iteration in a fresh world
        from `make_world`; returns the root's edges."""
        key = self.keys.key
        reveal = self.keys.reveal_chance
        evaluate = self.evaluator.evaluate
        rand = self.rng.random
        c = self.c
        log, sqrt = math.log, math.sqrt
        sample = chance_sampler(root)
        root_node: Node = {}
        nodes: dict[Hashable, Node] = {key(root, root.current_player(), 0): root_node}
        self.nodes = nodes
        limit = budget.iterations if budget.iterations is not None else math.inf
        deadline = time.perf_counter() + budget.seconds if budget.seconds is not None else None
        done = 0
        while done < limit and (deadline is None or time.perf_counter() < deadline or not done):
            world = make_world()
            chosen: list[tuple[Edge, int]] = []
            path = 0
            while True:
                player = world.current_player()
                if player < 0:
                    if player == TERMINAL:
                        returns = world.returns()
                        break
                    action = sample(world, rand())
                    path = hash((path, action if reveal else CHANCE))
                    world.apply_action(action)
                    continue
                k = key(world, player, path)
                node = nodes.get(k)
                if node is None:
                    nodes[k] = {}
                    returns = evaluate(world, rand)
                    break
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
            for edge, player in chosen:
                edge[0] += 1
                edge[1] += returns[player]
            done += 1
        self.iterations = done
        return root_node


def most_visited(edges: dict[int, Edge]) -> int:
    """The final move: most visits, ties broken by the higher mean return, then the lower action."""
    return max(edges, key=lambda a: (edges[a][0], edges[a][1] / max(edges[a][0], 1), -a))
