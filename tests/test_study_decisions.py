"""`cardarena study decisions`: a strategy's decisions judged by the review, by kind of move."""

from __future__ import annotations

import json

import pytest

from eval.results_records import records_from_results
from eval.study.decisions import judge_decisions, summarise
from records.record import game_of
from scripts.cli import main


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    path = tmp_path_factory.mktemp("decisions") / "apo.db"
    main(["tournament", "--game", "python_american_page_one(players=2)", "--agent", "rules",
                 "--agent", "random", "--deals", "2", "--seed", "5", "--results", str(path), "--quiet",
                 "--workers", "1", "--no-files"])
    return path


def test_every_decision_with_a_choice_of_the_agents_seats_is_judged_and_grouped_by_kind(results):
    decisions, points = judge_decisions(results, "random", hands=1, worlds=2, progress=False)
    expected = 0
    for _, record in list(records_from_results(results, agent="random"))[:1]:
        seats = {p.seat for p in record.players if p.agent == "random"}
        state = game_of(record).new_initial_state()
        for move in record.moves:
            expected += move.actor in seats and len(state.legal_actions()) > 1
            state.apply_action(move.action)
    assert len(decisions) == expected > 0 and points == 1.0
    assert "card" in {d.kind for d in decisions}          # the view's kind of a card played
    rows = summarise(decisions, points)
    total = rows[-1]
    assert total.kind == "all" and total.decisions == expected
    assert sum(r.decisions for r in rows[:-1]) == expected
    assert sum(r.lost for r in rows[:-1]) == pytest.approx(total.lost)
    for d in decisions:
        assert d.flagged == (d.cost != 0.0 or d.half != 0.0) and (not d.flagged or d.played != d.best)
    # random's moves against the rule bot's judgement: some of them must cost points
    assert total.flagged > 0 and total.lost > 0


def test_the_command_prints_the_table_and_writes_json_and_refuses_an_agent_that_did_not_play(results, tmp_path,
                                                                                              capsys):
    out = tmp_path / "d.json"
    main(["study", "decisions", str(results), "--agent", "rules", "--hands", "1", "--worlds", "1",
          "--json", str(out), "--quiet"])
    printed = capsys.readouterr().out
    assert "| all |" in printed and "rules's decisions in 1 hands" in printed
    report = json.loads(out.read_text())
    assert report["kinds"][-1]["kind"] == "all" and report["kinds"][-1]["decisions"] == len(report["decisions"])
    with pytest.raises(SystemExit) as refused:
        main(["study", "decisions", str(results), "--agent", "nobody", "--quiet"])
    assert refused.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no finished hand of agent 'nobody'" in err[0]
