"""Leaving a baseline's move only on evidence: the final move of a search bot
with a `baseline` (search.bots).

A search's own final move (most visits) follows its noisy estimates wherever
they lead; in a game whose deals swing far more than one move is worth
(American Page One: ±119 points a deal, a move worth a few), that throws away a
good policy's strength. With a baseline bot (the rule bot), the search plays the
baseline's move unless another action's mean return beats it by `confidence`
standard errors of the difference; of the actions that do, the one that beats
it by most. This is rollout policy improvement (Tesauro and Galperin 1996) with
a significance test in front of every change.

Two kinds of evidence:
* paired (`choose_paired`): every action valued in the same worlds with the
  same draws (flat PIMC), so the differences are taken world by world and the
  luck of the deal cancels;
* unpaired (`choose_unpaired`): each action's returns from the iterations that
  took it (ISMCTS, PIMC with trees), compared by Welch's standard error.
"""

from __future__ import annotations

import math
from typing import Sequence


def _mean_and_variance(xs: Sequence[float]) -> tuple[float, float]:
    n = len(xs)
    mean = sum(xs) / n
    return mean, (sum((x - mean) ** 2 for x in xs) / (n - 1) if n > 1 else math.inf)


def choose_paired(legal: list[int], values: list[list[float]], baseline: int | None,
                  confidence: float) -> int:
    """The move given `values[w][i]`, action legal[i]'s value in world w.

    Without a baseline, the best mean (ties to the earlier action)."""
    if baseline is None:
        sums = [sum(row[i] for row in values) for i in range(len(legal))]
        return legal[max(range(len(legal)), key=lambda i: (sums[i], -i))]
    b = legal.index(baseline)
    best, best_gain = baseline, 0.0
    for i, action in enumerate(legal):
        if i == b:
            continue
        gain, variance = _mean_and_variance([row[i] - row[b] for row in values])
        if gain > best_gain and gain > confidence * math.sqrt(variance / len(values)):
            best, best_gain = action, gain
    return best


def _unpaired_gains(samples: dict[int, list[float]], baseline: int):
    """(action, its mean's gain over the baseline's, the gain's Welch standard error)
    for each action other than the baseline with two samples or more."""
    base_mean, base_variance = _mean_and_variance(samples[baseline])
    base_error = base_variance / len(samples[baseline])
    for action, xs in samples.items():
        if action == baseline or len(xs) < 2:
            continue
        mean, variance = _mean_and_variance(xs)
        yield action, mean - base_mean, math.sqrt(variance / len(xs) + base_error)


def choose_unpaired(samples: dict[int, list[float]], baseline: int, confidence: float) -> int:
    """The move given `samples[a]`, the returns of the iterations that took action a.

    An action needs two samples to be compared; the baseline with fewer than two
    is kept (nothing is known against it)."""
    if len(samples.get(baseline, ())) < 2:
        return baseline
    best, best_gain = baseline, 0.0
    for action, gain, error in _unpaired_gains(samples, baseline):
        if gain > best_gain and gain > confidence * error:
            best, best_gain = action, gain
    return best


def unpaired_is_close(samples: dict[int, list[float]], baseline: int, confidence: float) -> bool:
    """Whether more evidence could well change the move: the action that beats the
    baseline by the most standard errors does so by fewer than twice `confidence`
    of them (a search with `max_worlds` spends more worlds on such a
    move, search.bots.PIMCBot). Too few samples of the baseline to compare: close."""
    if len(samples.get(baseline, ())) < 2:
        return True
    scores = [gain / error if error > 0 else math.copysign(math.inf, gain)
              for _, gain, error in _unpaired_gains(samples, baseline) if gain]
    return bool(scores) and 0 < max(scores) < 2 * confidence
