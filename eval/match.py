"""A match: many games between bots with the seats rotated, and each bot's win
rate and mean return with 95% intervals: the quick look. The tournament harness
(eval.tournament) adds duplicate deals, ratings, storage and parallel play."""

from __future__ import annotations

import math
from dataclasses import dataclass

import pyspiel
from tqdm import tqdm

import games  # noqa: F401  (registers our games)
from agents import make_bot
from agents.presets import expand
from eval.config import bot_files, file_sha256
from eval.play import Trace, play_deal
from eval.referee import PROBE_SIZE, Moves
from games.chance import DealChance
from records.record import PlayerInfo, Record, append_record


def player_info(seat: int, agent: str, spec: str, game: pyspiel.Game) -> PlayerInfo:
    """Who sat at `seat`, with the sha256 of the bot files its spec plays with."""
    files = bot_files(spec, game.get_type().short_name)
    return PlayerInfo(seat, agent, spec, ",".join(file_sha256(p) for p in files) or None)


def play_game(game: pyspiel.Game, bots: list[pyspiel.Bot], seed: int,
              trace: Trace | None = None) -> tuple[list[float], int]:
    """Plays one game, the deal fixed by `seed` (games.chance.DealChance), with the
    harness's game loop. Returns (returns, decisions); a bot's error is raised as
    eval.referee.BotFault naming its seat. A `trace` keeps the game's moves."""
    state, decisions = play_deal(game, bots, DealChance(seed), Moves(game.num_players()), [0.0] * PROBE_SIZE, None,
                                 trace)
    return state.returns(), decisions


@dataclass
class AgentSummary:
    name: str
    games: int
    win_rate: float
    win_rate_ci: float
    mean_return: float
    mean_return_ci: float


def _mean_ci(values: list[float]) -> tuple[float, float]:
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, float("inf")
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, 1.96 * math.sqrt(var / n)


def run_match(game_string: str, specs: list[str], num_games: int, seed: int = 0,
              progress: bool = True, records: str | None = None) -> list[AgentSummary]:
    """Seat g of game k gets agent (g + k) % len(specs), so every agent sits in
    every seat equally often. A game's score for an agent averages its seats.
    With `records`, each game is appended to that JSON Lines file as it ends."""
    game = pyspiel.load_game(game_string)
    n = game.num_players()
    wins: list[list[float]] = [[] for _ in specs]
    rets: list[list[float]] = [[] for _ in specs]
    for k in tqdm(range(num_games), desc=f"{game_string}", disable=not progress, unit="game"):
        seating = [(g + k) % len(specs) for g in range(n)]
        bots = [make_bot(specs[a], game, g, seed * 1_000_003 + k * n + g) for g, a in enumerate(seating)]
        trace = Trace() if records is not None else None
        returns, _ = play_game(game, bots, seed * 7919 + k, trace)
        if trace is not None:
            players = [player_info(g, specs[a], expand(specs[a]), game) for g, a in enumerate(seating)]
            append_record(records, Record.from_state(trace.state, players, seconds=trace.seconds,
                                                     seed=seed * 7919 + k, source={"match_game": k}))
        top = max(returns)
        for a in set(seating):
            seats = [g for g in range(n) if seating[g] == a]
            wins[a].append(sum(returns[g] == top for g in seats) / len(seats))
            rets[a].append(sum(returns[g] for g in seats) / len(seats))
    out = []
    for a, spec in enumerate(specs):
        w, wci = _mean_ci(wins[a])
        r, rci = _mean_ci(rets[a])
        out.append(AgentSummary(spec, len(wins[a]), w, wci, r, rci))
    return out


def format_table(rows: list[AgentSummary]) -> str:
    lines = [f"{'agent':<28} {'games':>6} {'win rate':>17} {'mean return':>19}"]
    for r in rows:
        lines.append(f"{r.name:<28} {r.games:>6} {r.win_rate:>8.3f} ± {r.win_rate_ci:<6.3f} "
                     f"{r.mean_return:>+9.3f} ± {r.mean_return_ci:<6.3f}")
    return "\n".join(lines)
