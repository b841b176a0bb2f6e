"""A declared tournament's figure is given for the bot it measures, whichever agent the harness anchors."""

from experiments.declare import measured_agent, result_from_output

TABLE = ["| agent | Elo | 95% interval | games | mean return (95%) | win rate (95%) | ms/move |",
         "|---|---:|:---:|---:|:---:|:---:|---:|",
         "| search | +13 | [-2, +29] | 1000 | +0.075 [+0.048, +0.106] | 0.519 [0.497, 0.542] | 34.92 |",
         "| rules | +0 | [+0, +0] | 1000 | -0.075 [-0.106, -0.048] | 0.481 [0.458, 0.503] | 0.01 |"]
COMMAND = ["python", "-m", "scripts.cli", "tournament", "--agent", "search=pimc(worlds=16)", "--agent", "rules"]


def test_the_figure_is_the_first_agents_of_the_command_even_when_the_harness_anchors_the_other():
    assert measured_agent(COMMAND) == "search"
    assert result_from_output(TABLE, measured_agent(COMMAND)) == {
        "agent": "search", "against": "rules", "elo": 13, "low": -2, "high": 29, "games": 1000, "ms_per_move": 34.92}


def test_without_a_measured_agent_the_figure_is_the_anchors_over_the_other():
    assert result_from_output(TABLE) == {
        "agent": "rules", "against": "search", "elo": -13, "low": -29, "high": 2, "games": 1000, "ms_per_move": 0.01}
    assert measured_agent(["python", "-m", "experiments.value_check"]) is None
