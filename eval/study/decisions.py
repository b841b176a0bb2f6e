"""`cardarena study decisions`: where a strategy's decisions lose points, by the review's own
judgement.

A paired study says by how much side A beats side B; it cannot say where. This replays the
hands a results file keeps and judges every decision of one agent's seats (more than one legal
action) as the table's review does (search.analysis.review_decision with review_evaluator):
from the mover's information only, a flag only where a deciding set of worlds puts the loss
above the game's noticeable loss, its cost measured on worlds that decided nothing. The
decisions are grouped by the kind of move played (the game's seat view names it: a discard, a
meld, a take of the pile, an ask...), with the points the flags cost in each and their 95%
interval, so a lab question ("does this rule bot lose its points in its discards or its
melds?") has an answer in points. The costs are unbiased, each flag's measured on fresh worlds,
so their sums add; a decision not flagged counts 0, which makes the totals a lower bound on
what the agent's decisions lost against the analysis's choices.
"""

from __future__ import annotations

import math
import os
from dataclasses import asdict, dataclass

from agents.base import rules_core
from eval.results_records import records_from_results
from games import registry
from records.files import DECISIONS_KEY
from records.record import game_of
from search.analysis import review_decision, review_evaluator

Z95 = 1.959963984540054


@dataclass
class Decision:
    """One judged decision of the agent's: where, what kind of move, and its flag's cost."""
    hand: str                 # the record's game id
    move: int                 # the move's place in the record
    seat: int
    kind: str                 # the kind of the move played, as the game's seat view names it
    played: str
    best: str                 # the analysis's chosen action (the hint's first choice)
    flagged: bool
    cost: float = 0.0         # in the game's returns (0 when not flagged)
    half: float = 0.0         # the half-width of the cost's 95% interval


def judge_decisions(results: str | os.PathLike, agent: str, *, hands: int, worlds: int, seed: int = 0,
                    progress: bool = True) -> tuple[list[Decision], float | None]:
    """Every decision with a choice of `agent`'s seats in the first `hands` finished hands the
    results file keeps with `agent` in them, judged by the review; and the game's points in a
    unit of its returns (None where its returns are not points)."""
    from tqdm import tqdm
    out: list[Decision] = []
    points: float | None = None
    found = 0
    for gid, record in records_from_results(results, agent=agent, fault=False):
        if found >= hands:
            break
        found += 1
        game = game_of(record)
        entry = registry.of_game(game)
        points = entry.points_per_unit if entry is not None else None
        evaluator = review_evaluator(game, worlds)
        seats = {p.seat for p in record.players if p.agent == agent}
        state = game.new_initial_state()
        for i, move in enumerate(tqdm(record.moves, desc=f"hand {gid}", unit="move", leave=False,
                                      disable=not progress)):
            if move.actor in seats and len(state.legal_actions()) > 1:
                analysis, mistake = review_decision(state, move.action, evaluator=evaluator, seed=seed)
                out.append(Decision(
                    gid, i, move.actor, _kind(entry, state, move.actor, move.action),
                    state.action_to_string(move.actor, move.action),
                    state.action_to_string(move.actor, analysis.best.action), mistake is not None,
                    mistake.cost if mistake else 0.0, (mistake.high - mistake.low) / 2 if mistake else 0.0))
            state.apply_action(move.action)
    return out, points


def _kind(entry, state, seat: int, action: int) -> str:
    """The kind of `action` as the game's seat view offers it ("other" for a game without a view)."""
    if entry is None or entry.view is None:
        return "other"
    offered = entry.view(rules_core(state), seat, False)["actions"]
    return next((a["kind"] for a in offered if a["action"] == action), "other")


@dataclass
class KindSummary:
    kind: str
    decisions: int
    flagged: int
    lost: float               # the flags' costs summed, in points (in returns where the game has none)
    lost_half: float          # its 95% half-width (the costs are measured apart: variances add)
    lost_per_hand: float


def summarise(decisions: list[Decision], points_per_unit: float | None) -> list[KindSummary]:
    """Per kind of move, most points lost first, then every kind together ("all")."""
    scale = points_per_unit or 1.0
    hands = max(1, len({d.hand for d in decisions}))
    groups: dict[str, list[Decision]] = {}
    for d in decisions:
        groups.setdefault(d.kind, []).append(d)
    groups["all"] = decisions

    def summary(kind: str, ds: list[Decision]) -> KindSummary:
        lost = sum(d.cost for d in ds) * scale
        half = math.sqrt(sum(d.half ** 2 for d in ds)) * scale
        return KindSummary(kind, len(ds), sum(d.flagged for d in ds), lost, half, lost / hands)

    rows = [summary(k, ds) for k, ds in groups.items() if k != "all"]
    rows.sort(key=lambda r: (-r.lost, r.kind))
    return rows + [summary("all", decisions)]


def markdown(decisions: list[Decision], points_per_unit: float | None, agent: str, worst: int = 10) -> str:
    """The report: the table by kind, then the costliest flags."""
    unit = "points" if points_per_unit else "returns"
    scale = points_per_unit or 1.0
    rows = summarise(decisions, points_per_unit)
    hands = len({d.hand for d in decisions})
    lines = [f"## {agent}'s decisions in {hands} hands, judged by the review", "",
             f"| kind | decisions | flagged | {unit} lost (95%) | a hand |", "|---|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r.kind} | {r.decisions} | {r.flagged} | {r.lost:.0f} ± {r.lost_half:.0f} | "
                     f"{r.lost_per_hand:.1f} |")
    flags = sorted((d for d in decisions if d.flagged), key=lambda d: -d.cost)[:worst]
    if flags:
        lines += ["", f"The costliest {len(flags)}:", "", f"| hand | move | played | better | {unit} |",
                  "|---|---:|---|---|---:|"]
        lines += [f"| {d.hand} | {d.move} | {d.played} | {d.best} | {d.cost * scale:.0f} ± {d.half * scale:.0f} |"
                  for d in flags]
    return "\n".join(lines)


def to_json(decisions: list[Decision], points_per_unit: float | None) -> dict:
    return {DECISIONS_KEY: 1, "points_per_unit": points_per_unit,
            "kinds": [asdict(r) for r in summarise(decisions, points_per_unit)],
            "decisions": [asdict(d) for d in decisions]}
