"""An engine that breaks the protocol on purpose (tests/test_engine.py): it says
hello, answers its first turns with a legal action, then misbehaves as MODE says
at turn AT (default 1): garbage, noaction, illegal, hang, exit, traceback; or,
as `deaf`, sleeps right after hello, reading nothing (an engine its harness must kill)."""

import json
import sys
import time

mode = sys.argv[1]
at = int(sys.argv[2]) if len(sys.argv) > 2 else 1
turns = 0
for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "hello":
        print(json.dumps({"type": "hello", "name": f"bad-{mode}", "version": "0"}), flush=True)
        if mode == "deaf":
            time.sleep(3600)
    elif kind == "quit":
        break
    elif kind == "turn":
        turns += 1
        legal = [a["action"] for a in message["legal"]]
        if turns < at:
            print(json.dumps({"action": legal[0]}), flush=True)
            continue
        print(f"bad_engine: misbehaving ({mode}) at turn {turns}", file=sys.stderr, flush=True)
        if mode == "garbage":
            print("I think I will play the seven", flush=True)
        elif mode == "noaction":
            print(json.dumps({"move": legal[0]}), flush=True)
        elif mode == "illegal":
            print(json.dumps({"action": next(a for a in range(10_000) if a not in legal)}), flush=True)
        elif mode == "hang":
            time.sleep(3600)
        elif mode == "exit":
            sys.exit(3)
        elif mode == "traceback":
            sys.stderr = sys.stdout          # a Python engine that prints its error where its moves go
            raise ZeroDivisionError("division by zero")
