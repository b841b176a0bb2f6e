"""The engine protocol's benchmark section (`python -m scripts.bench --only engine`).

What the protocol adds to a move (docs/engine_protocol.md): the same games
played twice by the harness's own game loop (eval.play.play_deal, the referee), seat 0 once
through the protocol and once by an in-process bot that makes the same moves,
the other seats by the rule bot. The figures are the differences per seat-0
move in wall time (as the harness times a move) and in CPU time (the harness's
process and the engine's, Linux schedstat), medians over interleaved rounds
(the machine is shared: CPU time is the figure that load changes least):

* the C example engine (examples/engines/longsuit.c, built here with gcc) against
  `LongSuit`, its heuristic written in Python: what a foreign engine pays
  (the message built and parsed, two pipe hops, two process switches);
* `cardarena engine rules` against the rule bot in process, on each game: what
  one of our bots pays as an engine: with `--no-world` its seat's world rebuilt
  from the events in words at every move (games.rebuild, what a harness that sends no
  world costs it), else (protocol version 2 or 1) a world drawn by the harness at
  every move and replayed by the engine.
* the Node.js ONNX engine (examples/node_engine/engine.mjs) against the `neural` bot in
  process, on each game with a shipped .onnx: what a network costs a move run outside
  Python (onnxruntime-node, the tensor sent as JSON; where the network plays over a baseline
  bot, that bot's `cardarena engine` too), as a ratio to the in-process network.

Both sides play identical games (checked: the same histories), so the
difference is the protocol's alone.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyspiel

import games  # noqa: F401  (registers our games)
from agents import make_bot
from agents.base import CardBot
from agents.engine import close_engines
from games.chance import DealChance
from eval.play import play_deal
from eval.referee import Moves

ROOT = Path(__file__).resolve().parents[1]
RANKS = "23456789TJQKA"


class LongSuit(CardBot):
    """examples/engines/longsuit.c in Python: by the words of the legal actions, the
    highest card of the suit with the most legal cards (ties: the lowest id)."""

    def step(self, state) -> int:
        legal = state.legal_actions()
        words = {a: state.action_to_string(self.player, a) for a in legal}

        def suit(text: str) -> str:
            return text.split("=", 1)[1] if "=" in text else text[1:]

        def rank(text: str) -> int:
            return 13 if text.startswith("Jk") else RANKS.find(text[:1]) if text[:1] else -1
        counts: dict[str, int] = {}
        for text in words.values():
            counts[suit(text)] = counts.get(suit(text), 0) + 1
        return max(legal, key=lambda a: (counts[suit(words[a])], rank(words[a]), -a))


def _cpu_of(pid: int | None) -> float:
    """CPU seconds of process `pid`, every thread (Linux schedstat, in ns); 0 for None."""
    if pid is None:
        return 0.0
    tasks = Path(f"/proc/{pid}/task")
    return sum(int((t / "schedstat").read_text().split()[0]) for t in tasks.iterdir()) / 1e9


def _per_move(game: pyspiel.Game, seat0, deals: range, pid: int | None) -> tuple[float, float, int, list]:
    """Wall and CPU seconds per seat-0 move over `deals` (seat 0 from `seat0(seed)`,
    rules elsewhere); the CPU is this process's and engine `pid`'s."""
    n = game.num_players()
    moves = Moves(n)
    histories = []
    cpu = time.process_time() + _cpu_of(pid)
    for d in deals:
        bots = [seat0(d)] + [make_bot("rules", game, s, d * 10 + s) for s in range(1, n)]
        state, _ = play_deal(game, bots, DealChance(d), moves, [0.0] * 4, None)
        histories.append(state.history())
        del bots
    cpu = time.process_time() + _cpu_of(pid) - cpu
    return moves.seconds[0] / moves.counts[0], cpu / moves.counts[0], moves.counts[0], histories


def compare(label: str, game: pyspiel.Game, engine_spec: str, inside, deals: int, repeats: int) -> dict[str, float]:
    """Prints the in-process and protocol µs per move and their difference, in wall
    time (seat 0's moves, as the harness times them) and in CPU time (the whole
    game's, this process and the engine's, over seat 0's moves): medians of rounds.
    Returns the wall medians (µs a move): `engine`, `inside`, `diff`."""
    # One engine bot for the whole run: a tournament keeps the process too (one per seat and worker).
    engine_bot = make_bot(engine_spec, game, 0, 0)
    pid = engine_bot.proc.proc.pid
    wall: dict[str, list[float]] = {"engine": [], "inside": [], "diff": []}
    cpu: list[float] = []
    count = 0
    for r in range(repeats):
        span = range(r * deals, (r + 1) * deals)
        order = [("engine", lambda d: engine_bot, pid), ("inside", inside, None)]
        if r % 2:
            order.reverse()
        got = {name: _per_move(game, make, span, p) for name, make, p in order}
        (a, a_cpu, count, ha), (b, b_cpu, _, hb) = got["engine"], got["inside"]
        if ha != hb:
            raise RuntimeError(f"{label}: the engine and the in-process bot played different games")
        wall["engine"].append(a * 1e6)
        wall["inside"].append(b * 1e6)
        wall["diff"].append((a - b) * 1e6)
        cpu.append((a_cpu - b_cpu) * 1e6)
    del engine_bot
    close_engines()
    med = {k: statistics.median(v) for k, v in wall.items()}
    print(f"  {label}: in process {med['inside']:.1f} us, through the protocol {med['engine']:.1f} us: "
          f"+{med['diff']:.1f} us a move wall (rounds {min(wall['diff']):.1f} to {max(wall['diff']):.1f}), "
          f"+{statistics.median(cpu):.1f} us CPU (rounds {min(cpu):.1f} to {max(cpu):.1f}); "
          f"{count} moves a round")
    return med


def rebuild_cost(game: pyspiel.Game, deals: int) -> tuple[float, float, int]:
    """Seat 0's world rebuilt from its events at each of its turns (games.rebuild, as `cardarena
    engine` does it) against the rule bot's own move there: CPU seconds per turn of each, and the
    worlds drawn again, over `deals` rule-bot deals."""
    import random
    from games.rebuild import SeatWorld, seat_events
    from games.view import seat_view
    rebuild = move = 0.0
    turns = redraws = 0
    for d in range(deals):
        n = game.num_players()
        bots = [make_bot("rules", game, s, d * 10 + s) for s in range(n)]
        world = SeatWorld(game, 0, random.Random(d))
        state, chance = game.new_initial_state(), DealChance(d)
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(chance(state))
                continue
            player = state.current_player()
            if player == 0:
                told = (seat_events(state, 0), [c["text"] for c in seat_view(game, state, 0)["hand"]],
                        [state.action_to_string(0, a) for a in state.legal_actions(0)])
                t = time.process_time()
                world.advance(*told)
                rebuild += time.process_time() - t
                turns += 1
            t = time.process_time()
            action = bots[player].step(state)
            if player == 0:
                move += time.process_time() - t
            state.apply_action(action)
        redraws += world.redraws
    return rebuild / max(1, turns), move / max(1, turns), redraws


def section_engine(seconds: float, repeats: int) -> None:
    print("== Engine protocol: time per move through it against in process (same games, "
          "the harness's game loop) ==")
    print(f"  load average {os.getloadavg()[0]:.2f}")
    page_one = pyspiel.load_game("python_page_one(players=4,jokers=2)")
    deals = max(4, int(40 * seconds))
    gcc = shutil.which("gcc")
    if gcc is None:
        print("  (gcc is not installed: the C engine is left out)")
    else:
        with tempfile.TemporaryDirectory() as tmp:
            binary = Path(tmp) / "longsuit"
            subprocess.run([gcc, "-O2", "-std=c99", "-o", str(binary),
                            str(ROOT / "examples" / "engines" / "longsuit.c")], check=True)
            compare("Page One (4, jokers=2), C longsuit engine", page_one, f"engine(cmd={binary},time_limit=none)",
                    lambda d: LongSuit(0), deals, repeats)
    for game_string, scale in (("python_page_one(players=4,jokers=2)", 1.0),
                               ("python_american_page_one(players=4)", 0.25),
                               ("python_modern_canasta", 0.1)):
        game = pyspiel.load_game(game_string)
        cmd = f"{sys.executable} -m scripts.cli engine rules --game {game_string}"
        name = game_string.split("(")[0].removeprefix("python_")
        for how in ("--no-world", "--protocol 2", "--protocol 1"):
            compare(f"{name}, cardarena engine rules {how}", game,
                    f"engine(cmd={cmd} {how},cwd={ROOT},time_limit=none)",
                    lambda d, g=game: make_bot("rules", g, 0, 0), max(2, int(deals * scale)), repeats)
    print("  the seat's world rebuilt from its events (games.rebuild), CPU per turn, against the rule bot's move:")
    for game_string, scale in (("python_page_one(players=4,jokers=2)", 1.0), ("python_american_page_one(players=4)", 0.25),
                               ("python_modern_canasta", 0.1), ("python_classic_canasta(players=2)", 0.1),
                               ("python_classic_canasta(players=4)", 0.1)):
        built, moved, redraws = rebuild_cost(pyspiel.load_game(game_string), max(2, int(deals * scale)))
        print(f"    {game_string:40s} rebuild {1000 * built:7.2f} ms, move {1000 * moved:7.2f} ms: "
              f"{built / moved if moved else float('nan'):5.2f}x the move; {redraws} worlds drawn again")
    onnx_engine(deals, repeats)


def onnx_engine(deals: int, repeats: int) -> None:
    """The Node.js engine playing each shipped .onnx network against `neural` in process
    (the same moves: the histories are checked), as a ratio of wall time a move."""
    from agents.neural.botfile import load_bot
    from games import registry

    node = shutil.which("node")
    folder = ROOT / "examples" / "node_engine"
    if node is None or not (folder / "node_modules" / "onnxruntime-node").is_dir():
        print("  (node or examples/node_engine/node_modules is missing, `npm ci --prefix examples/node_engine`: "
              "the ONNX engine is left out)")
        return
    for entry in registry.registered():
        bots = ROOT / "bots"
        if not (bots / f"{entry.name}.onnx").is_file():
            continue
        game = pyspiel.load_game(load_bot(bots / f"{entry.name}.safetensors").identity.game_string)
        med = compare(f"{entry.name.removeprefix('python_')}, node ONNX engine against neural",
                      game, f"engine(cmd={node} {folder / 'engine.mjs'},cwd={ROOT},time_limit=none)",
                      lambda d, g=game: make_bot("neural", g, 0, 0), max(2, deals // 10), repeats)
        print(f"    ratio {med['engine'] / med['inside']:.1f}x the in-process network's wall time a move")


if __name__ == "__main__":
    t = time.perf_counter()
    section_engine(float(sys.argv[1]) if len(sys.argv) > 1 else 1.0, int(sys.argv[2]) if len(sys.argv) > 2 else 5)
    print(f"  ({time.perf_counter() - t:.0f} s)")
