"""An engine that breaks the protocol on purpose (tests/test_engine.py): it says
hello, answers its first turns with a legal action, then misbehaves as MODE says
at turn AT (default 1): garbage, noaction, illegal, hang, exit, traceback; or,
as `deaf`, sleeps right after hello, reading nothing (an engine its harness must kill).
A MODE starting `v2-` speaks protocol version 2 (each answer names its turn's id): v2-stale
answers turn AT with the id of the turn before, v2-double answers turn AT twice, v2-noid
leaves the id out, v2-badtext answers with words no legal action has; v2-words (innocent)
answers every turn by the words of its first legal action, never by an id; v2-slow takes
0.3 s over each move."""

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
        reply = {"type": "hello", "name": f"bad-{mode}", "version": "0"}
        if mode.startswith("v2-"):
            reply["protocol"] = 2
        print(json.dumps(reply), flush=True)
        if mode == "deaf":
            time.sleep(3600)
    elif kind == "quit":
        break
    elif kind == "turn":
        turns += 1
        legal = [a["action"] for a in message["legal"]]
        if mode.startswith("v2-"):
            turn, answer = message["id"], {"id": message["id"], "action": legal[0]}
            if mode == "v2-slow":              # 0.3 s a move: innocent per move, not within a short clock
                time.sleep(0.3)
                print(json.dumps(answer), flush=True)
            elif mode == "v2-words":
                print(json.dumps({"id": turn, "text": message["legal"][0]["text"]}, ensure_ascii=False), flush=True)
            elif turns < at:
                print(json.dumps(answer), flush=True)
            elif mode == "v2-stale":
                print(json.dumps({**answer, "id": turn - 1}), flush=True)
            elif mode == "v2-double":
                print(json.dumps(answer) + "\n" + json.dumps(answer), flush=True)
            elif mode == "v2-noid":
                print(json.dumps({"action": legal[0]}), flush=True)
            elif mode == "v2-badtext":
                print(json.dumps({"id": turn, "text": "the seven, please"}), flush=True)
            continue
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
