"""What happened in a Canasta study's hands, from the game records its results
file keeps (records.record): per side and hand, the points by component, who
went out and when, the piles taken, the first pile, the asks and answers.

Each hand's components are worked out here from its final table (canastas by
kind, melded cards, 3s, going out, each penalty) with the scoring module's
rules, not read from the game's own score, so that their sum can be held
against the points the game scored: the report counts the side-hands where
they agree, and a test checks every hand.
"""

from __future__ import annotations

import csv
import math
import os
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Iterable, Sequence

from agents.base import rules_core
from records.files import FIGURE_KEY, write_whole
from eval.results_records import records_from_results
from records.record import Record, state_at
from games.modern_canasta.cards import ACE, SEVEN, WILD_SLOT, NUM_SLOTS, unpack, value_of
from games.modern_canasta.core import (END_OUT, EV_ANSWER, EV_ASK, EV_COMMIT, EV_DISCARD, EV_END, EV_STOCK,
                                       EV_TAKE, EV_WITHDRAW, CanastaState)
from games.modern_canasta.scoring import (GOING_OUT, HELD_SET, THREES_BONUS, canasta_bonus, meld_value,
                                          unfinished_penalty)

COMPONENTS = ("melded_cards", "natural_canastas", "mixed_canastas", "special_canastas", "wild_canastas",
              "threes", "going_out", "cards_in_hand", "unfinished_sevens_aces", "unfinished_wild",
              "held_sets")
PILE_BUCKETS = ((1, 4), (5, 8), (9, 12), (13, 20), (21, 108))
FIGURE_MAKER = "study stats"          # what these figures say made them (records.files.FIGURE_KEY)


@dataclass
class SideHand:
    """One side's hand: who played it, its points by component, and its events."""
    hand: str                    # the record's game id ("deal-rotation[-k]")
    side: int
    agent: str                   # the harness agent that played the side ("a" or "b" in a study)
    points: int                  # what the game scored for the side
    opponents: int               # ... and for the other side
    melded_cards: int
    natural_canastas: int
    mixed_canastas: int
    special_canastas: int        # natural 7s or Aces
    wild_canastas: int
    threes: int
    going_out: int
    cards_in_hand: int
    unfinished_sevens_aces: int
    unfinished_wild: int
    held_sets: int
    went_out: bool
    out_turn: int | None         # the hand's turn (1 = the first) it went out on
    out_stock: int | None        # cards left in the stock then
    pile_takes: int
    pile_cards: int              # cards taken with the pile (the top card included)
    first_pile: bool             # it took the hand's first pile
    first_pile_size: int | None  # the hand's first pile, whoever took it
    first_pile_turn: int | None
    asks: int
    yes: int                     # answers its players gave to the partner's question
    no: int

    @property
    def component_sum(self) -> int:
        return sum(getattr(self, c) for c in COMPONENTS)


def side_hands(record: Record, hand: str) -> list[SideHand]:
    """The two sides of one finished hand (a record of python_modern_canasta)."""
    core: CanastaState = rules_core(state_at(record, len(record.moves)))
    if core.scores is None:
        raise ValueError(f"{hand}: the hand is not finished")
    events = _events(core)
    out = []
    for side in (0, 1):
        parts = _components(core, side, events["out_side"] == side)
        first = events["first_pile"]
        out.append(SideHand(
            hand, side, record.players[side].agent,
            core.scores[side].total, core.scores[1 - side].total, **parts,
            went_out=events["out_side"] == side,
            out_turn=events["turns"] if events["out_side"] == side else None,
            out_stock=core.stock_size if events["out_side"] == side else None,
            pile_takes=events["takes"][side], pile_cards=events["taken"][side],
            first_pile=first is not None and first[0] == side,
            first_pile_size=first[1] if first else None, first_pile_turn=first[2] if first else None,
            asks=events["asks"][side], yes=events["yes"][side], no=events["no"][side]))
    return out


def _components(core: CanastaState, side: int, went_out: bool) -> dict[str, int]:
    canastas = core.canastas[side]
    parts = dict.fromkeys(COMPONENTS, 0)
    melded = sum(meld_value(*c) for c in canastas)
    for slot, n, t, j in canastas:
        kind = ("wild_canastas" if slot == WILD_SLOT else "mixed_canastas" if t or j else
                "special_canastas" if slot in (SEVEN, ACE) else "natural_canastas")
        parts[kind] += canasta_bonus(slot, n, t, j)
    b = 36 * side
    for slot in range(NUM_SLOTS):
        n, t, j = core.melds[b + 3 * slot: b + 3 * slot + 3]
        if n or t or j:
            melded += meld_value(slot, n, t, j)
            key = "unfinished_wild" if slot == WILD_SLOT else "unfinished_sevens_aces"
            parts[key] -= unfinished_penalty(slot, n, t, j)
    sign = -1 if not canastas else (0 if len(canastas) == 1 else 1)
    parts["melded_cards"] = melded if canastas else -melded
    parts["threes"] = sign * (THREES_BONUS[core.threes[2 * side]] + THREES_BONUS[core.threes[2 * side + 1]])
    parts["going_out"] = GOING_OUT if went_out else 0
    hands = (core.hands[side], core.hands[side + 2])
    parts["cards_in_hand"] = -sum(value_of(h) for h in hands)
    parts["held_sets"] = -HELD_SET * sum((h[ACE] >= 3) + (h[SEVEN] >= 3) for h in hands)
    return parts


def _events(core: CanastaState) -> dict:
    """The hand's events from its log, in order: turns, pile takes, asks, answers, the end."""
    cells = []
    cell = core.log
    while cell is not None:
        cells.append(cell[1:])
        cell = cell[0]
    cells.reverse()
    takes, taken, asks, yes, no = [0, 0], [0, 0], [0, 0], [0, 0], [0, 0]
    turns, turn_seat, out_side, first = 0, -1, -1, None

    def took(seat: int, size: int) -> None:
        nonlocal first
        takes[seat & 1] += 1
        taken[seat & 1] += size
        if first is None:
            first = (seat & 1, size, turns)

    for i, (kind, seat, value) in enumerate(cells):
        if kind in (EV_STOCK, EV_TAKE) and seat != turn_seat:
            turns += 1
            turn_seat = seat
        if kind == EV_TAKE and value >> 4:
            took(seat, 1 + sum(unpack(value >> 4)))
        elif kind == EV_TAKE and _settles(cells, i) == EV_DISCARD:
            took(seat, 1)                        # a melded side took a pile of one card
        elif kind == EV_COMMIT:
            took(seat, 1 + sum(unpack(value)))   # the pile an initial meld waited for
        elif kind == EV_ASK:
            asks[seat & 1] += 1
        elif kind == EV_ANSWER:
            (yes if value else no)[seat & 1] += 1
        elif kind == EV_END and value == END_OUT:
            out_side = turn_seat & 1
    return {"turns": turns, "takes": takes, "taken": taken, "asks": asks, "yes": yes, "no": no,
            "out_side": out_side, "first_pile": first}


def _settles(cells: Sequence[tuple[int, int, int]], at: int) -> int:
    """What follows a take logged without the rest of the pile, by the same seat:
    EV_COMMIT or EV_WITHDRAW (a side without its initial meld took it, or tried),
    else EV_DISCARD (a melded side took a pile of one card)."""
    seat = cells[at][1]
    for kind, who, _ in cells[at + 1:]:
        if who == seat and kind in (EV_COMMIT, EV_WITHDRAW, EV_DISCARD):
            return kind
        if kind == EV_END:
            break
    return EV_DISCARD


def hands_from_results(path: str | os.PathLike, *, progress: bool = True,
                       damaged: list[str] | None = None) -> list[SideHand]:
    """Both sides of every finished hand a results file keeps a record of. A
    game that does not make a record (eval.results_records.records_from_results) raises
    RecordError naming it and the move, or with a `damaged` list is left out
    and named there."""
    from tqdm import tqdm
    rows: list[SideHand] = []
    for hand, record in tqdm(records_from_results(path, fault=False, damaged=damaged), unit="hand",
                             disable=not progress, desc="replaying"):
        if not record.game.startswith("python_modern_canasta"):
            raise ValueError(f"{path}: game {hand} is {record.game}, not a Canasta hand")
        if record.returns is not None:
            rows.extend(side_hands(record, hand))
    return rows


def mean_interval(values: Sequence[float]) -> tuple[float, float]:
    """The mean and the half-width of its normal 95% interval."""
    n = len(values)
    if n == 0:
        return math.nan, math.nan
    mean = sum(values) / n
    if n < 2:
        return mean, math.inf
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, 1.959963984540054 * math.sqrt(var / n)


def by_agent(rows: Iterable[SideHand]) -> dict[str, list[SideHand]]:
    out: dict[str, list[SideHand]] = {}
    for row in rows:
        out.setdefault(row.agent, []).append(row)
    return dict(sorted(out.items()))


def first_pile_table(rows: Sequence[SideHand]) -> list[tuple[str, int, float, float, float]]:
    """By the size of the hand's first pile: (sizes, hands, share the taker's side
    won, its mean lead in the hand, that mean's 95% half-width)."""
    out = []
    takers = [r for r in rows if r.first_pile]
    for low, high in PILE_BUCKETS:
        got = [r for r in takers if low <= r.first_pile_size <= high]
        if got:
            lead, half = mean_interval([r.points - r.opponents for r in got])
            won = sum(1.0 if r.points > r.opponents else 0.5 if r.points == r.opponents else 0.0 for r in got)
            label = f"{low}-{high}" if high < 108 else f"{low}+"
            out.append((label, len(got), won / len(got), lead, half))
    none = sum(1 for r in rows if r.side == 0 and r.first_pile_size is None)
    if none:
        out.append(("no pile taken", none, math.nan, math.nan, math.nan))
    return out


def markdown(rows: Sequence[SideHand], title: str) -> str:
    """The tables: points by component, going out, piles, the first pile, asks."""
    agents = by_agent(rows)
    names = list(agents)
    hands = len({r.hand for r in rows})
    mismatched = sum(r.component_sum != r.points for r in rows)
    lines = [f"## Hand statistics: {title}", "",
             f"{hands} hands; per side and hand, the mean over the hands each agent's side played. "
             f"The components add up to the game's points in {len(rows) - mismatched} of {len(rows)} "
             f"side-hands.", "",
             "| points per hand | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]
    for c in COMPONENTS:
        lines.append(f"| {c.replace('_', ' ')} | " + " | ".join(
            f"{sum(getattr(r, c) for r in agents[n]) / len(agents[n]):+.0f}" for n in names) + " |")
    lines.append("| **total** | " + " | ".join(
        "**{:+.0f} ± {:.0f}**".format(*mean_interval([r.points for r in agents[n]])) for n in names) + " |")

    def share(n: str, pick) -> str:
        return f"{sum(1 for r in agents[n] if pick(r)) / len(agents[n]):.1%}"

    def mean(values: list[float], fmt: str = ".1f") -> str:
        return f"{sum(values) / len(values):{fmt}}" if values else "-"

    lines += ["", "| going out, piles, asks | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]
    table = [
        ("hands it went out", lambda n: share(n, lambda r: r.went_out)),
        ("turn it went out on (mean)", lambda n: mean([r.out_turn for r in agents[n] if r.went_out])),
        ("stock left then (mean)", lambda n: mean([r.out_stock for r in agents[n] if r.went_out])),
        ("hands won", lambda n: share(n, lambda r: r.points > r.opponents)),
        ("piles taken per hand", lambda n: mean([r.pile_takes for r in agents[n]], ".2f")),
        ("cards per pile taken", lambda n: mean([r.pile_cards / r.pile_takes for r in agents[n] if r.pile_takes])),
        ("took the hand's first pile", lambda n: share(n, lambda r: r.first_pile)),
        ("asks per hand", lambda n: mean([r.asks for r in agents[n]], ".2f")),
        ("answers: yes / no (per hand)", lambda n: f"{mean([r.yes for r in agents[n]], '.2f')} / "
                                                   f"{mean([r.no for r in agents[n]], '.2f')}"),
    ]
    for label, cell in table:
        lines.append(f"| {label} | " + " | ".join(cell(n) for n in names) + " |")
    neither = hands - len({r.hand for r in rows if r.went_out})
    lines += ["", f"Hands that ended with the stock, no one going out: {neither} of {hands}.", "",
              "| first pile of the hand (cards) | hands | taker's side won | taker's lead in the hand (95%) |",
              "|---|---:|---:|:---:|"]
    for label, n, won, lead, half in first_pile_table(rows):
        if math.isnan(won):
            lines.append(f"| {label} | {n} | | |")
        else:
            lines.append(f"| {label} | {n} | {won:.1%} | {lead:+.0f} ± {half:.0f} |")
    return "\n".join(lines)


def write_csv(rows: Sequence[SideHand], path: str | os.PathLike) -> None:
    """One line per side and hand, every field (written whole: records.files.write_whole)."""
    def write(tmp: Path) -> None:
        with open(tmp, "w", newline="") as f:
            writer = csv.DictWriter(f, [x.name for x in fields(SideHand)])
            writer.writeheader()
            for row in rows:
                writer.writerow(asdict(row))
    write_whole(path, write)


def figure_paths(folder: str | os.PathLike, name: str) -> list[Path]:
    """The figures `plots` writes in `folder` (the second only where a pile was taken)."""
    return [Path(folder) / f"study_{name}_points.png", Path(folder) / f"study_{name}_first_pile.png"]


def _save(fig, path: Path) -> None:
    """A figure written whole, saying that the hand statistics made it (records.files.FIGURE_KEY)."""
    write_whole(path, lambda tmp: fig.savefig(tmp, dpi=110, format="png", metadata={FIGURE_KEY: FIGURE_MAKER}))


def plots(rows: Sequence[SideHand], folder: str | os.PathLike, name: str) -> list[Path]:
    """PNG figures in `folder` (which exists): the distribution of a side's points
    per hand for each agent, and the taker's lead by the size of the hand's first pile."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    points_path, pile_path = figure_paths(folder, name)
    written = []
    fig, ax = plt.subplots(figsize=(7, 4))
    for agent, got in by_agent(rows).items():
        ax.hist([r.points for r in got], bins=60, histtype="step", linewidth=1.5,
                label=f"{agent} ({len(got)} hands)")
    ax.set_xlabel("a side's points in a hand")
    ax.set_ylabel("hands")
    ax.set_title("Points per hand")
    ax.legend()
    fig.tight_layout()
    written.append(points_path)
    try:
        _save(fig, points_path)
    finally:
        plt.close(fig)
    table = [t for t in first_pile_table(rows) if not math.isnan(t[2])]
    if table:
        fig, ax = plt.subplots(figsize=(7, 4))
        ax.bar([t[0] for t in table], [t[3] for t in table], yerr=[t[4] for t in table], capsize=4,
               color="#4c72b0")
        for i, t in enumerate(table):
            ax.annotate(f"won {t[2]:.0%}\n{t[1]} hands", (i, t[3] + t[4] if t[3] >= 0 else t[3] - t[4]),
                        textcoords="offset points", xytext=(0, 4 if t[3] >= 0 else -26), ha="center", fontsize=8)
        ax.axhline(0, color="black", linewidth=0.8)
        ax.set_xlabel("cards in the hand's first pile")
        ax.set_ylabel("taker's side minus the other (points)")
        ax.set_title("The first pile taken and the hand (95% intervals)")
        fig.tight_layout()
        written.append(pile_path)
        try:
            _save(fig, pile_path)
        finally:
            plt.close(fig)
    return written
