"""experiments/advantage_headroom.py: what a network of advantages leaves of one step's gain."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

import games  # noqa: F401
from training import dmc
from agents.neural.botfile import save_bot
from agents.neural.encoding import GameIdentity
from experiments import advantage_headroom
from experiments.advantage_headroom import ProbedDecision, headroom
from tests.test_neural_advantage import APO, net_with_head


def test_the_figures_from_set_decisions():
    good, bad = np.full(4, 0.5), np.full(4, -1.0)
    found = [
        # The network prefers the bad move: it plays it wherever its score clears the margin.
        ProbedDecision([7, 9], np.array([good, bad]), np.array([[0.3, 0.9], [0.3, -0.1]])),
        # Nothing beats the baseline's move here; the network thinks so too.
        ProbedDecision([7], np.array([[-0.5, -0.5, 0.5, 0.5]]), np.array([[-0.2], [0.4]])),
    ]
    h = headroom(found, [0.1, 1.0])
    assert (h.decisions, h.moves) == (2, 3)
    first, second = h.networks
    assert first[0.1] == (0.5, pytest.approx(-0.5))           # one departure of two, to the bad move
    assert first[1.0] == (0.0, 0.0)                            # never departs: no gain, no loss
    # The second network takes the good move at the first decision and, at the second, departs
    # to a move no better than the baseline's (a mean gain of 0: -0.5 and +0.5 in equal shares).
    assert second[0.1] == (1.0, pytest.approx(0.25))
    # Chosen on the first two playouts, rated on the last two: the good move, and at the
    # second decision the baseline's (the other move's first half is below zero).
    assert h.cheating_choice == pytest.approx(0.25)
    # Only the second decision's move varies from playout to playout.
    assert h.noise == pytest.approx(np.var([-0.5, -0.5, 0.5, 0.5], ddof=1) / 3)


def test_a_network_that_never_clears_the_margin_takes_nothing_and_the_gains_are_placements(tmp_path):
    apo = pyspiel.load_game(APO)
    path = save_bot(tmp_path / "zero.safetensors", net_with_head(apo, {}), GameIdentity.of(apo),
                    dmc.scores_notes("advantage"))
    found = advantage_headroom.probe_decisions(apo, [str(path)], "rules", None, None, decisions=5, playouts=2,
                                               probe=0.5, seed=3)
    assert len(found) == 5
    for d in found:
        assert d.gains.shape == (len(d.moves), 2) and np.all(np.abs(d.gains) <= 2)
        assert np.allclose(d.gains * 3, np.round(d.gains * 3))       # placements of four players
        assert d.networks.shape == (1, len(d.moves)) and np.all(d.networks == 0)
    h = headroom(found, [0.0])
    assert h.networks == [{0.0: (0.0, 0.0)}]


def test_the_command_prints_its_table_and_refuses_a_bad_bot_file_in_one_line(tmp_path, capsys):
    advantage_headroom.main(["bots/python_modern_canasta.safetensors", "bots/python_modern_canasta.safetensors",
                             "--decisions", "2", "--playouts", "2", "--margins", "0.1"])
    out = capsys.readouterr().out
    assert "2 probed decisions" in out
    rows = [line for line in out.splitlines() if line.startswith("| bots/python_modern_canasta.safetensors | 0.1 |")]
    assert len(rows) == 2 and rows[0] == rows[1]               # one network twice: the same decisions, the same row
    advantage_headroom.main(["--decisions", "1", "--playouts", "2"])      # the headroom alone
    out = capsys.readouterr().out
    assert "1 probed decisions" in out and "cheating choice" in out and "| bots/" not in out
    with pytest.raises(SystemExit) as exit_info:
        advantage_headroom.main([str(tmp_path / "missing.safetensors"), "--decisions", "2"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "missing.safetensors" in err and "Traceback" not in err
    with pytest.raises(SystemExit) as exit_info:
        advantage_headroom.main(["--baseline", "nosuch", "--decisions", "2"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.strip().splitlines() == [err.strip()] and "unknown bot 'nosuch'" in err      # before any progress bar


def test_a_network_is_read_as_its_bot_plays_it_averaged_over_suits_where_its_file_says_so(tmp_path):
    apo = pyspiel.load_game(APO)
    net = net_with_head(apo, {action: 1.0 for action in range(52) if action % 4 == 0})   # one suit's cards
    notes = dmc.scores_notes("advantage")
    plain = save_bot(tmp_path / "plain.safetensors", net, GameIdentity.of(apo), notes)
    symmetric = save_bot(tmp_path / "symmetric.safetensors", net, GameIdentity.of(apo),
                         {**notes, "play": {"symmetric": True}})
    found = advantage_headroom.probe_decisions(apo, [str(plain), str(symmetric)], "rules", None, None,
                                               decisions=6, playouts=2, probe=1.0, seed=5)
    raw = np.concatenate([d.networks[0] for d in found])
    averaged = np.concatenate([d.networks[1] for d in found])
    assert set(np.round(raw, 6)) == {0.0, 1.0}               # one suit scores 1, the rest 0
    assert np.all(np.isclose(averaged, 0) | np.isclose(averaged, 0.25))   # a card: a quarter, whatever its suit
    assert np.any((raw == 0) & (averaged > 0))               # cards of the other suits get their share too


def test_rated_bots_figures_from_set_decisions():
    good, bad = np.full(4, 0.5), np.full(4, -1.0)
    found = [
        ProbedDecision([7, 9], np.array([good, bad]), np.zeros((0, 2)), [7, 9, None], [0.1, 0.2, 0.0]),
        ProbedDecision([7], np.array([[-0.5, -0.5, 0.5, 0.5]]), np.zeros((0, 1)), [None, None, 7], [0.3, 0.4, 0.0]),
    ]
    first, second, third = headroom(found, [0.1]).rated
    assert (first.departs, first.gain, first.seconds) == (0.5, pytest.approx(0.25), pytest.approx(0.2))
    assert (second.departs, second.gain) == (0.5, pytest.approx(-0.5))       # the bad move, then the baseline's
    assert second.versus_first == pytest.approx(-0.75)                        # -1.5 then 0, pair by pair
    assert second.versus_first_half_width == pytest.approx(1.96 * np.std([-1.5, 0.0], ddof=1) / np.sqrt(2))
    assert (third.departs, third.gain, third.versus_first) == (0.5, 0.0, pytest.approx(-0.25))
    assert first.versus_first == 0.0 and first.versus_first_half_width == 0.0


def test_a_network_rated_as_a_bot_spec_matches_its_file_read_at_the_same_margin(tmp_path):
    apo = pyspiel.load_game(APO)
    net = net_with_head(apo, {action: 0.1 * (action % 7) for action in range(52)})
    path = save_bot(tmp_path / "sevens.safetensors", net, GameIdentity.of(apo), dmc.scores_notes("advantage"))
    found = advantage_headroom.probe_decisions(
        apo, [str(path)], "rules", None, None, decisions=12, playouts=2, probe=1.0, seed=4,
        rated_specs=[f"neural(path={path},margin=0.25)", "rules", f"neural(path={path},margin=5)"])
    h = headroom(found, [0.25])
    as_file, as_spec, baseline, never = h.networks[0][0.25], *h.rated
    assert 0 < as_file[0] < 1                                  # it departs at some decisions, not all
    assert (as_spec.departs, as_spec.gain) == (as_file[0], pytest.approx(as_file[1]))
    assert (baseline.departs, baseline.gain) == (0.0, 0.0)     # the baseline plays the moves gains start from
    assert (never.departs, never.gain) == (0.0, 0.0)           # no score clears a margin of 5
    assert never.versus_first == pytest.approx(-as_spec.gain)


def test_the_command_prints_a_row_per_rated_bot_and_refuses_a_bad_spec_in_one_line(capsys):
    advantage_headroom.main(["--rate", "rules(initial_meld=pile,new_meld_min=5,go_out=lead)", "--rate", "rules",
                             "--decisions", "3", "--playouts", "2"])
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| `rules")]
    assert len(rows) == 2
    assert rows[0].startswith("| `rules(initial_meld=pile,new_meld_min=5,go_out=lead)` | 0.000 | +0.0000 [+0.0000, "
                              "+0.0000] | +0.0000 [+0.0000, +0.0000] |")       # the baseline itself: never departs
    with pytest.raises(SystemExit) as exit_info:
        advantage_headroom.main(["--rate", "pimc(worlds=0)", "--decisions", "2"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.splitlines() == [err] and "--rate 'pimc(worlds=0)'" in err and "Traceback" not in err
