"""Position analysis: what each legal action is worth, from the mover's information only.

The player to move sees its information state, not the position. So every action
is valued over worlds resampled from that information state (the game's own
`resample_from_infostate`), each continued to the end by a policy (a bot spec:
`rules`, `neural`, any search bot). Within a world every action meets the same
hidden cards, the same later chance outcomes (eval.chance.DealChance from one
seed) and bots seeded alike, so the differences between actions are paired: the
luck of the deal cancels, and the interval on a difference is much narrower than
the intervals on the two values. The web table's hint and review, `cardarena
analyse` and the strategy lab all call `analyse`.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import asdict, dataclass

import pyspiel

from agents import make_bot
from agents.base import rules_core
from eval.chance import DealChance
from eval.schedule import derive_seed

DEFAULT_WORLDS = 50
Z95 = 1.96
_WORLD, _CHANCE, _BOTS = 21, 22, 23     # seed domains


@dataclass
class ActionValue:
    """One action's mean return to the player over the worlds, with its 95%
    interval, and its gap behind the best action (paired, with its interval)."""
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
    worlds: int
    seconds: float
    values: list[ActionValue]          # best first

    def to_json(self) -> dict:
        """JSON-ready; an interval that one world cannot give is null."""
        def finite(row: dict) -> dict:
            return {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in row.items()}
        return {"player": self.player, "policy": self.policy, "worlds": self.worlds,
                "seconds": round(self.seconds, 3), "values": [finite(asdict(v)) for v in self.values]}

    def table(self) -> str:
        """The analysis as a plain-text table, best action first."""
        lines = [f"p{self.player} to move: {len(self.values)} legal actions, {self.worlds} worlds "
                 f"continued by {self.policy} ({self.seconds:.1f} s)",
                 f"{'':2}{'action':<28} {'value':>8} {'95% interval':>20} {'behind best':>9} {'95% interval':>20}"]
        for v in self.values:
            mark = "* " if v.played else "  "
            lines.append(f"{mark}{v.text[:28]:<28} {v.mean:>+8.3f} [{v.low:>+8.3f}, {v.high:>+8.3f}] "
                         f"{v.gap:>9.3f} [{v.gap_low:>+8.3f}, {v.gap_high:>+8.3f}]")
        if any(v.played for v in self.values):
            lines.append("* the move played")
        return "\n".join(lines)


def analyse(state: pyspiel.State, player: int | None = None, *, policy: str = "rules",
            worlds: int | None = None, seconds: float | None = None, seed: int = 0,
            played: int | None = None, game: pyspiel.Game | None = None) -> Analysis:
    """Values every legal action of the player to move at `state`.

    Budget: `worlds` worlds, or as many as fit in `seconds` (at least two, for an
    interval), or DEFAULT_WORLDS when neither is given. Deterministic for a seed
    with a worlds budget. `state` may be a rules core (a set position) when
    `game` is given. Raises ValueError when nobody is to decide or `player` is
    not the one to move.
    """
    mover = state.current_player()
    if state.is_terminal() or state.is_chance_node():
        raise ValueError("no decision to analyse here: the game is over" if state.is_terminal()
                         else "no decision to analyse here: chance is to move")
    if player is not None and player != mover:
        raise ValueError(f"player {player} is not to move (player {mover} is)")
    if worlds is not None and worlds < 1:
        raise ValueError(f"worlds must be at least 1, got {worlds}")
    if seconds is not None and not seconds > 0:
        raise ValueError(f"seconds must be positive, got {seconds}")
    if worlds is None and seconds is None:
        worlds = DEFAULT_WORLDS
    game = game if game is not None else state.get_game()
    n = game.num_players()
    make_bot(policy, game, 0, 0)            # a bad spec fails here, with the bot's own message
    legal = state.legal_actions()
    # The information state fixes the worlds: the seed is mixed with nothing from the position itself.
    rng = random.Random(derive_seed(_WORLD, seed))
    core = rules_core(state)
    rows: list[list[float]] = []
    start = time.perf_counter()
    while True:
        w = len(rows)
        if worlds is not None and w >= worlds:
            break
        if seconds is not None and w >= 2 and time.perf_counter() - start >= seconds:
            break
        world = core.resample_from_infostate(mover, rng.random)
        chance_seed = derive_seed(_CHANCE, seed, w)
        bot_seed = derive_seed(_BOTS, seed, w)
        row = []
        for action in legal:
            bots = _bots(policy, game, n, bot_seed)
            after = world.clone()
            after.apply_action(action)
            row.append(_play_out(after, bots, DealChance(chance_seed))[mover])
        rows.append(row)
    return Analysis(mover, policy, len(rows), time.perf_counter() - start,
                    _values(state, mover, legal, rows, played))


def _bots(policy: str, game: pyspiel.Game, n: int, seed: int) -> list:
    """The policy's bots, seeded the same for every action of a world; one bot
    for every seat where the bot can play any seat."""
    first = make_bot(policy, game, 0, seed)
    if getattr(first, "any_seat", False):
        return [first] * n
    return [first] + [make_bot(policy, game, s, seed + s) for s in range(1, n)]


def _play_out(state, bots, chance) -> list[float]:
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(chance(state))
        else:
            state.apply_action(bots[state.current_player()].step(state))
    return state.returns()


def _values(state, player: int, legal: list[int], rows: list[list[float]], played: int | None) -> list[ActionValue]:
    k = len(rows)
    columns = list(zip(*rows))
    means = [sum(c) / k for c in columns]
    best = max(range(len(legal)), key=lambda i: means[i])
    out = []
    for i, action in enumerate(legal):
        half = Z95 * _sd(columns[i]) / math.sqrt(k)
        gaps = [b - a for a, b in zip(columns[i], columns[best])]
        gap = sum(gaps) / k
        gap_half = Z95 * _sd(gaps) / math.sqrt(k)
        out.append(ActionValue(action, state.action_to_string(player, action), means[i], means[i] - half,
                               means[i] + half, gap, gap - gap_half, gap + gap_half, action == played))
    out.sort(key=lambda v: (-v.mean, v.action))
    return out


def _sd(xs) -> float:
    n = len(xs)
    if n < 2:
        return math.inf
    m = sum(xs) / n
    return math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1))
