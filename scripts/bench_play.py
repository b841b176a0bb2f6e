"""The table's benchmark (issue 20): a bot's reply time, and 20 concurrent games over HTTP.

1. Reply time: whole games of every game at its default bots (the shipped network where it plays
   the variant), the human's seat played at random through a synchronous session; every bot
   move's wall time, as the session measures it for the per-move limit. Target: within 1 s.
2. Concurrency: a real `cardarena play` server (uvicorn, 127.0.0.1, a free port, its own records
   folder) and 20 scripted clients (httpx, one thread each) that each start a game and play it to
   its end, moving at random, in bounded loops that stop by themselves. Then every game must have
   its record file with every deal finished and no unfinished record left.

    python -m scripts.bench_play                  # both parts
    python -m scripts.bench_play --games 3 --clients 20
"""

from __future__ import annotations

import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from tqdm import tqdm

GAMES = ("python_page_one", "python_american_page_one", "python_modern_canasta")
CLIENT_GAMES = ({"game": "python_page_one", "match": "deals=2"},
                {"game": "python_american_page_one", "match": "deals=2"},
                {"game": "python_modern_canasta", "match": None})


def _quantile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


def reply_times(games_per: int, seed: int) -> list[dict]:
    """Each game's bot move times over `games_per` whole deals at its default bots."""
    import games  # noqa: F401
    from play.options import parse_new_game
    from play.session import Session
    rows = []
    for name in GAMES:
        times: list[float] = []
        for k in tqdm(range(games_per), desc=f"reply time {name}", leave=False):
            spec = parse_new_game({"game": name, "seed": seed + k}, pause=0.0)
            session = Session(spec, f"bench-{k}", None, threaded=False)
            rng = random.Random(seed + k)
            session.run_bots()
            while not session.deal_over:
                view = session.view()
                session.act(rng.choice(view["actions"])["action"], view["turn"])
            history = session.state.history()
            state = session.game.new_initial_state()
            decisions = iter(session.times)
            for action in history:
                if not state.is_chance_node():
                    seconds = next(decisions)
                    if state.current_player() != spec.seat:
                        times.append(seconds)
                state.apply_action(action)
        rows.append({"game": name, "bots": parse_new_game({"game": name}, pause=0.0).bots[1], "moves": len(times),
                     "median_ms": 1000 * statistics.median(times), "p99_ms": 1000 * _quantile(times, 0.99),
                     "max_ms": 1000 * max(times), "within_1s": sum(t <= 1.0 for t in times) / len(times)})
    return rows


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _client(base: str, body: dict, seed: int, out: dict, max_requests: int = 20000) -> None:
    """One scripted player: starts a game and plays it to the end, moving at random."""
    import httpx
    rng = random.Random(seed)
    latencies: list[float] = []
    with httpx.Client(base_url=base, timeout=60.0) as http:
        def call(method: str, path: str, **kw) -> dict:
            start = time.perf_counter()
            r = http.request(method, path, **kw)
            latencies.append(time.perf_counter() - start)
            if r.status_code != 200:
                raise RuntimeError(f"{method} {path}: {r.status_code} {r.text[:200]}")
            return r.json()
        view = call("POST", "/api/games", json={**body, "seed": seed})
        game_id, deals = view["id"], 1
        for _ in range(max_requests):
            if view["status"] == "match_over":
                break
            if view["status"] == "your_turn":
                view = call("POST", f"/api/games/{game_id}/action",
                            json={"action": rng.choice(view["actions"])["action"], "turn": view["turn"]})
            elif view["status"] == "deal_over":
                view = call("POST", f"/api/games/{game_id}/next")
                deals += 1
            else:
                time.sleep(0.01)
                view = call("GET", f"/api/games/{game_id}")
        else:
            raise RuntimeError(f"game {game_id} did not end in {max_requests} requests")
    out.update(id=game_id, deals=deals, latencies=latencies, status=view["status"], fault=view.get("fault"))


def concurrent_games(clients: int, seed: int) -> dict:
    """`clients` games at once against a real server; then checks every record on disk."""
    import httpx
    port = _free_port()
    folder = Path(tempfile.mkdtemp(prefix="bench_play_"))
    server = subprocess.Popen([sys.executable, "-m", "scripts.cli", "play", "--no-browser", "--port", str(port),
                               "--records", str(folder), "--pause", "0"],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                httpx.get(base + "/api/options", timeout=5.0)
                break
            except httpx.TransportError:
                time.sleep(0.1)
        results = [dict() for _ in range(clients)]
        errors: list[str] = []

        def run(i: int) -> None:
            try:
                _client(base, CLIENT_GAMES[i % len(CLIENT_GAMES)], seed + i, results[i])
            except Exception as e:          # reported below: a lost game is the benchmark's failure
                errors.append(f"client {i}: {type(e).__name__}: {e}")

        start = time.perf_counter()
        threads = [threading.Thread(target=run, args=(i,)) for i in range(clients)]
        for t in threads:
            t.start()
        for t in tqdm(threads, desc="concurrent games", leave=False):
            t.join()
        wall = time.perf_counter() - start
    finally:
        server.terminate()
        server.wait(timeout=30)
    from records.record import load_records
    recorded, lost = 0, []
    for r in results:
        if not r:
            continue
        path = folder / f"{r['id']}.jsonl"
        records = load_records(path) if path.exists() else []
        if len(records) != r["deals"] or any(rec.returns is None for rec in records):
            lost.append(f"{r['id']}: {len(records)} records for {r['deals']} deals")
        recorded += len(records)
        if (folder / f"{r['id']}.unfinished.json").exists():
            lost.append(f"{r['id']}: an unfinished record is left")
    latencies = [x for r in results if r for x in r["latencies"]]
    return {"clients": clients, "finished": sum(1 for r in results if r.get("status") == "match_over"),
            "faults": sum(1 for r in results if r.get("fault")), "deals_recorded": recorded,
            "errors": errors, "lost": lost, "wall_s": wall, "requests": len(latencies),
            "request_p50_ms": 1000 * _quantile(latencies, 0.5), "request_p95_ms": 1000 * _quantile(latencies, 0.95),
            "request_max_ms": 1000 * max(latencies) if latencies else float("nan"), "records": str(folder)}


def main(argv: list[str] | None = None) -> int:
    from scripts.cli_checks import CliParser, integer, seed
    parser = CliParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=integer(1, 1000), default=3, help="whole deals per game for the reply times")
    parser.add_argument("--clients", type=integer(1, 1000), default=20, help="concurrent scripted games")
    parser.add_argument("--seed", type=seed, default=0)
    parser.add_argument("--only", choices=("reply", "concurrent"))
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = parser.parse_args(argv)
    figures: dict = {"cpus": os.cpu_count(), "load": os.getloadavg()[0]}
    if args.only != "concurrent":
        figures["reply"] = reply_times(args.games, args.seed)
        print("| game | bots | bot moves | median | p99 | max | within 1 s |\n|---|---|---:|---:|---:|---:|---:|")
        for r in figures["reply"]:
            print(f"| {r['game']} | {r['bots']} | {r['moves']} | {r['median_ms']:.2f} ms | {r['p99_ms']:.2f} ms "
                  f"| {r['max_ms']:.1f} ms | {100 * r['within_1s']:.1f}% |")
    if args.only != "reply":
        c = figures["concurrent"] = concurrent_games(args.clients, args.seed)
        print(f"\n{c['clients']} concurrent games: {c['finished']} finished ({c['faults']} bot faults), "
              f"{c['deals_recorded']} deals recorded, lost: {len(c['lost'])}, client errors: {len(c['errors'])}; "
              f"{c['wall_s']:.1f} s wall, {c['requests']} requests, p50 {c['request_p50_ms']:.1f} ms, "
              f"p95 {c['request_p95_ms']:.1f} ms, max {c['request_max_ms']:.0f} ms")
        for line in c["lost"] + c["errors"]:
            print("  " + line)
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2))
    ok = args.only == "reply" or (not figures["concurrent"]["lost"] and not figures["concurrent"]["errors"]
                                  and figures["concurrent"]["finished"] == args.clients)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
