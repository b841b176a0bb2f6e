"""An engine for tests/test_engine_faults.py that plays the first legal action and
does one odd thing, as MODE says (python referee_engine.py MODE [ARG]):

- `ends_after_deal [SECONDS]`: exits 0 on deal_end (after SECONDS, 0 by default):
  an engine that plays one deal a process;
- `answers_twice`: writes every answer twice, on two lines at once;
- `tells_limit`: answers its first turn with what it was told of the time limit,
  `{"told": [hello's time_limit, the turn's time_left]}` (not an action: the
  harness forfeits it and quotes the reply);
- `forks FILE`: at hello starts three child processes that sleep, and writes
  their pids to FILE, one a line; it plays on;
- `logs_quit FILE`: appends "hello <pid>" to FILE at hello and "quit <pid>"
  when told to quit;
- `logs_views FILE`: appends each turn's `view` to FILE, one JSON line a turn
  (for tests/test_engine.py: the seat view it is sent is the table's).
"""

import json
import os
import subprocess
import sys
import time

mode = sys.argv[1]
arg = sys.argv[2] if len(sys.argv) > 2 else None
told_limit = None
for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "hello":
        told_limit = message["time_limit"]
        if mode == "logs_quit":
            with open(arg, "a") as f:
                f.write(f"hello {os.getpid()}\n")
        if mode == "forks":
            children = [subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
                        for _ in range(3)]
            with open(arg, "w") as f:
                f.write("".join(f"{child.pid}\n" for child in children))
        print(json.dumps({"type": "hello", "name": f"referee-{mode}", "version": "0"}), flush=True)
    elif kind == "quit":
        if mode == "logs_quit":
            with open(arg, "a") as f:
                f.write(f"quit {os.getpid()}\n")
        break
    elif kind == "deal_end" and mode == "ends_after_deal":
        time.sleep(float(arg or 0))
        sys.exit(0)
    elif kind == "turn":
        if mode == "logs_views":
            with open(arg, "a") as f:
                f.write(json.dumps(message["view"]) + "\n")
        answer = json.dumps({"action": message["legal"][0]["action"]})
        if mode == "tells_limit":
            answer = json.dumps({"told": [told_limit, message["time_left"]]})
        sys.stdout.write(answer + "\n" + (answer + "\n" if mode == "answers_twice" else ""))
        sys.stdout.flush()
