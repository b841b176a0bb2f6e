"""The analysis check's summary against reviews whose calibration is known."""

import random

import pytest

from experiments.analysis_check import calibrated_shares, summary

Z = 1.96


def _rows(n: int, *, review_se: float, recheck_se: float, claimed_se: float, seed: int = 1) -> list[dict]:
    """Flagged decisions whose true gap is known: the review's cost is drawn with `review_se`
    but claims `claimed_se` in its interval; the re-check is drawn with `recheck_se`."""
    draw = random.Random(seed)
    rows = []
    for k in range(n):
        truth = draw.uniform(0.05, 1.0)
        cost = draw.gauss(truth, review_se)
        recheck = draw.gauss(truth, recheck_se)
        rows.append({"hand": f"{k}-0", "move": k, "flag0": True, "flag1": True, "hint_first_choice": False,
                     "cost": cost, "interval": [cost - Z * claimed_se, cost + Z * claimed_se],
                     "recheck": [recheck, recheck - Z * recheck_se, recheck + Z * recheck_se]})
    return rows


def test_a_calibrated_review_scores_what_calibrated_shares_expects_and_not_95_percent():
    rows = _rows(6000, review_se=0.05, recheck_se=0.022, claimed_se=0.05)
    report = summary(rows, worlds=24, recheck_worlds=2000, seconds=0.0)
    expected = report["if_calibrated"]
    for name in expected:
        assert report[name] == pytest.approx(expected[name], abs=0.02), name
    # Here the cost lies inside the re-check's interval 57% of the time, however good the review:
    # 2 Phi(1.96 x 0.022 / sqrt(0.05^2 + 0.022^2)) - 1.
    assert expected["flag_inside_recheck_interval"] == pytest.approx(0.570, abs=0.002)
    assert expected["flag_and_recheck_agree"] == pytest.approx(0.95, abs=1e-3)


def test_a_review_whose_intervals_are_too_narrow_falls_below_what_calibration_expects():
    rows = _rows(6000, review_se=0.05, recheck_se=0.022, claimed_se=0.03)
    report = summary(rows, worlds=24, recheck_worlds=2000, seconds=0.0)
    assert report["recheck_inside_flag_interval"] < report["if_calibrated"]["recheck_inside_flag_interval"] - 0.1
    assert report["flag_and_recheck_agree"] < 0.9


def test_only_an_exact_cost_lies_inside_the_rechecks_interval_95_percent_of_the_time():
    noisy = calibrated_shares(_rows(50, review_se=0.001, recheck_se=0.02, claimed_se=0.001))
    exact = calibrated_shares(_rows(50, review_se=0.0, recheck_se=0.02, claimed_se=0.0))
    assert noisy["flag_inside_recheck_interval"] < 0.95
    assert exact["flag_inside_recheck_interval"] == pytest.approx(0.95, abs=1e-3)
    decided = calibrated_shares(_rows(5, review_se=0.0, recheck_se=0.0, claimed_se=0.0))
    assert decided == {"recheck_inside_flag_interval": 1.0, "flag_inside_recheck_interval": 1.0,
                       "flag_and_recheck_agree": 1.0}
