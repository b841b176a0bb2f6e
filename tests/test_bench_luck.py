"""The luck benchmark (`cardarena bench --only luck`): a row per game with a value
network, luck and play timed on the same deals; a game without one is said to have none."""

import re

from scripts.bench_luck import section_luck


def test_each_game_with_a_network_has_its_luck_and_play_timed_and_one_without_is_named(capsys):
    section_luck(0.01, 1, ["python_page_one(players=4)", "python_page_one(players=3)"])
    header, timed, skipped = capsys.readouterr().out.splitlines()
    assert header.startswith("== luck")
    row = re.search(r"python_page_one\(players=4\)\s+(\d+) deals, (\d+) luck terms a deal: "
                    r"play ([\d.]+) s, luck ([\d.]+) s a deal \((\d+)x\)", timed)
    assert row and int(row[1]) >= 1 and int(row[2]) > 0 and float(row[4]) > 0
    assert skipped == "  python_page_one(players=3): no shipped value network"
