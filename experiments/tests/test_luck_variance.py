"""The luck-variance experiment: its coverage arithmetic, a small run with a long
plain run fixing the truth, and its refusals."""

import subprocess
import sys

import numpy as np
import pytest

from experiments.luck_variance import coverage, subset_coverage, wilson

GAME = "python_page_one(players=4)"


def test_wilson_interval_matches_the_formula_at_known_points():
    low, high = wilson(45, 50)
    assert (round(low, 4), round(high, 4)) == (0.7864, 0.9565)
    low, high = wilson(50, 50)          # a perfect record still leaves room below
    assert high == pytest.approx(1.0) and low == pytest.approx(0.92865, abs=1e-4)


def test_coverage_counts_the_slices_whose_interval_holds_the_truth():
    x = np.array([0.0, 2.0] * 10 + [10.0, 12.0] * 10)      # two slices of 20: means 1 and 11
    assert coverage(x, 1.0, 20) == (1, 2)
    assert coverage(x, 6.0, 20) == (0, 2)
    assert coverage(x[:39], 1.0, 20) == (1, 1)                # a part slice is left out


def test_subset_coverage_of_the_whole_set_is_that_one_slice_and_a_far_truth_is_never_held():
    rng = np.random.default_rng(0)
    x = np.random.default_rng(1).normal(1.0, 1.0, 40)
    for truth in (0.5, 1.0, 1.5):
        assert subset_coverage(x, truth, 40, 50, rng) == coverage(x, truth, 40)[0]
    assert subset_coverage(x, 5.0, 20, 500, rng) == 0.0
    assert 0.85 < subset_coverage(x, x.mean(), 20, 2000, rng) <= 1.0


def test_a_small_run_reports_the_truth_from_other_deals_and_the_coverage(tmp_path):
    done = subprocess.run([sys.executable, "-m", "experiments.luck_variance", "--game", GAME, "--first", "rules",
                           "--second", "random", "--deals", "8", "--batch", "4", "--truth-deals", "30",
                           "--seed", "3", "--results", str(tmp_path / "r.db")],
                          check=True, capture_output=True, text=True)
    assert "truth: a plain run of 30 other deals (seed 4)" in done.stdout
    assert "coverage of the 2 slices of 4 deals" in done.stdout
    assert "coverage of 20000 random subsets of 4 deals" in done.stdout
    assert (tmp_path / "r.db").is_file() and (tmp_path / "r-truth.db").is_file()


def test_a_second_run_reads_the_luck_the_first_stored_and_prints_the_same_figures(tmp_path):
    args = [sys.executable, "-m", "experiments.luck_variance", "--game", GAME, "--first", "rules", "--second",
            "random", "--deals", "6", "--batch", "3", "--seed", "2", "--results", str(tmp_path / "r.db")]
    first = subprocess.run(args, check=True, capture_output=True, text=True).stdout.splitlines()
    second = subprocess.run(args, check=True, capture_output=True, text=True).stdout.splitlines()
    assert "s a game in one process" in first[-1] and "read from" in second[-1]
    assert first[:-1] == second[:-1]


def test_nonsense_gets_one_line_exit_2_and_plays_nothing(tmp_path):
    results = ["--results", str(tmp_path / "r.db")]
    cases = [["--game", "nonsense", "--first", "rules", "--second", "random"],
             ["--game", GAME, "--first", "rules(x=1)", "--second", "random"],
             ["--game", "python_page_one(players=2)", "--first", "rules", "--second", "random"],
             ["--game", GAME, "--first", "rules", "--second", "random", "--truth-deals", "5", "--truth-seed", "0"],
             ["--game", GAME, "--first", "rules", "--second", "random", "--deals", "-3"],
             ["--game", GAME, "--first", "rules", "--second", "random", "--deals", "10", "--batch", "20"]]
    for args in cases:
        done = subprocess.run([sys.executable, "-m", "experiments.luck_variance", *args, *results],
                              capture_output=True, text=True)
        assert done.returncode == 2 and done.stdout == "", args
        assert len(done.stderr.splitlines()) == 1 and "Traceback" not in done.stderr, (args, done.stderr)
    assert not list(tmp_path.iterdir())


def test_a_results_file_of_another_tournament_is_refused_in_one_line_and_kept(tmp_path):
    args = [sys.executable, "-m", "experiments.luck_variance", "--game", GAME, "--first", "rules", "--second",
            "random", "--deals", "4", "--batch", "2", "--truth-deals", "6", "--results", str(tmp_path / "r.db")]
    subprocess.run(args, check=True, capture_output=True)
    truth = tmp_path / "r-truth.db"
    before = truth.read_bytes()
    done = subprocess.run([*args, "--truth-seed", "5"], capture_output=True, text=True)
    assert done.returncode == 2 and "holds a different tournament" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    assert truth.read_bytes() == before
