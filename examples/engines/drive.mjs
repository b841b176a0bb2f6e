// drive.mjs: a harness side of the engine protocol in JavaScript (node 20), no Python.
//
//   node drive.mjs MESSAGES.jsonl REPLIES.jsonl -- ENGINE [ARGS...]
//
// Starts the engine, writes it the prepared messages one line at a time (hello, deal, turn,
// deal_end, ...) and, after each hello and turn, reads its one-line reply; the replies go to
// REPLIES.jsonl, one a line. Ends with quit. It shows that an engine is driven by the documented
// fields alone (docs/engine_protocol.md): tests/test_engine_node.py prepares the messages from a
// game record with the version-2 fields only (no world, no information-state text, no ids)
// and checks the replies are the moves played in process.
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";

const [messagesPath, repliesPath, dashes, command, ...args] = process.argv.slice(2);
if (dashes !== "--" || !command) {
  console.error("usage: node drive.mjs MESSAGES.jsonl REPLIES.jsonl -- ENGINE [ARGS...]");
  process.exit(2);
}
const messages = readFileSync(messagesPath, "utf8").split("\n").filter((l) => l.trim());
const engine = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"] });
const lines = createInterface({ input: engine.stdout })[Symbol.asyncIterator]();
const replies = [];
let failed = null;
for (const line of messages) {
  const message = JSON.parse(line);
  engine.stdin.write(JSON.stringify(message) + "\n");
  if (message.type !== "hello" && message.type !== "turn") continue;
  const next = await lines.next();
  if (next.done) { failed = `the engine ended before answering a ${message.type}`; break; }
  const reply = JSON.parse(next.value);
  if (message.type === "turn" && reply.id !== message.id) {
    failed = `the engine answered turn ${reply.id} at turn ${message.id}`;
    break;
  }
  replies.push(reply);
  if (reply.type === "error") { failed = `the engine refused: ${reply.message}`; break; }
}
engine.stdin.end(JSON.stringify({ type: "quit" }) + "\n");
const code = await new Promise((resolve) => engine.on("close", resolve));
writeFileSync(repliesPath, replies.map((r) => JSON.stringify(r)).join("\n") + "\n");
if (failed) { console.error(`drive.mjs: ${failed}`); process.exit(1); }
if (code !== 0) { console.error(`drive.mjs: the engine exited with code ${code}`); process.exit(1); }
