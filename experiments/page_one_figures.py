"""The Page One page's own figures, reproduced with our bots.

The page reports, from its computer players over 5000 games each, how often the
stock ran out (15% with 2 players, 37% with 4, 47% with 5), that with `pass`
every game ends (40 tricks at most), that with `reshuffle` two-player games
sometimes do not end (4%) and 3-player games pass 300 tricks 1 time in 100, and
that with `take` about 1 game in 10 does not end for 2-4 players (2 players: 9%).
A game "does not end" when it runs past 3000 tricks.

    python -m experiments.page_one_figures --games 5000          # the page's sample size
    python -m experiments.page_one_figures --games 500 --policy rules --players 4
"""

from __future__ import annotations

import argparse
import random
from dataclasses import dataclass, field

import pyspiel
from tqdm import tqdm

import games  # noqa: F401
from agents import make_bot
from games.page_one.core import EV_RESHUFFLE, EV_TIMEOUT, PageOneRules, PageOneState

RULES = ("pass", "reshuffle", "take")
CAP = 3000


@dataclass
class Tally:
    games: int = 0
    stock_ran_out: int = 0
    not_ended: int = 0
    tricks: list[int] = field(default_factory=list)   # of the games that ended

    def row(self) -> dict[str, float]:
        t = sorted(self.tricks)
        pct = lambda q: t[min(len(t) - 1, int(q * len(t)))] if t else float("nan")  # noqa: E731
        return {"stock_ran_out": self.stock_ran_out / self.games,
                "not_ended": self.not_ended / self.games,
                "median": pct(0.5), "p90": pct(0.9), "p99": pct(0.99),
                "max": t[-1] if t else float("nan"),
                "over_300": sum(x >= 300 for x in t) / self.games}


def play(rules: PageOneRules, policy: str, seed: int) -> tuple[bool, bool, int]:
    """One game between `policy` bots: (stock ran out, did not end, tricks)."""
    game = pyspiel.load_game("python_page_one", {
        "players": rules.players, "empty_stock": rules.empty_stock, "max_tricks": rules.max_tricks})
    bots = [make_bot(policy, game, p, seed * 10 + p) for p in range(rules.players)]
    state = PageOneState(rules)
    rng = random.Random(seed)
    ran_out = False
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(state.sample_chance_outcome(rng.random()))
        else:
            state.apply_action(bots[state.current_player()].step(state))
        # A reshuffle refills the stock within the step that emptied it: look at the log too.
        ran_out = ran_out or (state.to_deal == 0 and not state.stock) or state.log[1] == EV_RESHUFFLE
    stopped = state.log[1] == EV_TIMEOUT
    return ran_out, stopped, state.tricks


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--policy", action="append", choices=("random", "rules"))
    parser.add_argument("--players", type=int, action="append", choices=range(2, 7))
    parser.add_argument("--rule", action="append", choices=RULES)
    parser.add_argument("--plot", default="docs/figures/page_one_figures.png")
    args = parser.parse_args(argv)
    policies = args.policy or ["random", "rules"]
    players = args.players or [2, 3, 4, 5, 6]
    rule_names = args.rule or list(RULES)
    results: dict[tuple[str, str, int], Tally] = {}
    jobs = [(p, r, n) for p in policies for r in rule_names for n in players]
    with tqdm(total=len(jobs) * args.games, unit="game") as bar:
        for policy, rule, n in jobs:
            bar.set_description(f"{policy} {rule} {n}p")
            rules = PageOneRules(players=n, empty_stock=rule, max_tricks=CAP)
            tally = results[(policy, rule, n)] = Tally()
            for seed in range(args.games):
                ran_out, stopped, tricks = play(rules, policy, seed)
                tally.games += 1
                tally.stock_ran_out += ran_out
                tally.not_ended += stopped
                if not stopped:
                    tally.tricks.append(tricks)
                bar.update()
    print(f"\n{args.games} games per row; tricks counted over the games that ended.\n")
    print("| policy | empty_stock | players | stock ran out | not ended (>3000 tricks) "
          "| tricks median | p90 | p99 | max | ≥300 tricks |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for (policy, rule, n), tally in results.items():
        r = tally.row()
        print(f"| {policy} | {rule} | {n} | {r['stock_ran_out']:.1%} | {r['not_ended']:.1%} "
              f"| {r['median']} | {r['p90']} | {r['p99']} | {r['max']} | {r['over_300']:.1%} |")
    if args.plot:
        plot(results, policies, rule_names, players, args.plot)
        print(f"\nplot: {args.plot}")


def plot(results, policies, rule_names, players, path: str) -> None:
    import os

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    page_ran_out = {2: 0.15, 4: 0.37, 5: 0.47}
    for policy in policies:
        # Until the stock first runs out the three rules play the same game: one line.
        rule = rule_names[0]
        xs = [n for n in players if (policy, rule, n) in results]
        axes[0].plot(xs, [results[(policy, rule, n)].row()["stock_ran_out"] for n in xs],
                     marker="o", label=f"{policy} bots")
        for rule in rule_names:
            xs = [n for n in players if (policy, rule, n) in results]
            axes[1].plot(xs, [results[(policy, rule, n)].row()["not_ended"] for n in xs],
                         marker="o", linestyle="-" if policy == "rules" else "--",
                         label=f"{policy} bots, {rule}")
    axes[0].scatter(list(page_ran_out), list(page_ran_out.values()), marker="*", s=200, c="k",
                    label="the page", zorder=5)
    axes[1].scatter([2, 2, 3, 4], [0.04, 0.09, 0.1, 0.1], marker="*", s=200, c="k",
                    label="the page (reshuffle 2p 4%; take 2p 9%, 2-4p ≈10%)", zorder=5)
    axes[0].set(title="stock ran out", xlabel="players", ylabel="fraction of games")
    axes[1].set(title=f"did not end within {CAP} tricks", xlabel="players")
    for ax in axes:
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    fig.savefig(path, dpi=120)


if __name__ == "__main__":
    main()
