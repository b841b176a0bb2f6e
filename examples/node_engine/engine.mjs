#!/usr/bin/env node
// A cardarena engine in Node.js (docs/engine_protocol.md, version 1) that plays the shipped
// network of the game it is told at hello, from its ONNX file (bots/<game>.onnx), as the
// Python `neural` bot plays it (agents/neural/bot.py):
//   - it asks for the seat's information-state tensor at hello (docs/protocol/tensors.md
//     says what each index holds), and gives the network that tensor and the legal-action
//     mask (inputs `obs` and `mask`, float32 [batch, size]); the output `scores` holds each
//     action's estimated return (illegal actions at -1e9);
//   - a single legal action is played without asking the network;
//   - the play settings are the bot file's own (its `training` notes, copied into the ONNX
//     model's metadata_props by `cardarena export`): greedy (argmax, first of equals) unless
//     the file says `policy=sample`; `symmetric=true` averages each legal action's score
//     over the 24 suit relabellings (index tables from symmetry.json, written from the games'
//     declarations by tables.py); a network of advantages over a baseline bot (`baseline`,
//     `margin`, `relative`) plays the baseline's move unless another gains more than the
//     margin, the baseline's move coming from `cardarena engine BASELINE` (a rule bot, in
//     Python: the one part that is not JavaScript) spoken to over the same protocol.
// Logs go to stderr; stdout carries protocol lines only.
//
//   node examples/node_engine/engine.mjs [--bots DIR] [--policy greedy|sample] [--temperature T]
//                                        [--symmetric true|false] [--margin M]
// (a setting given overrides the bot file's, as a setting of `neural(...)` does).

import { spawn } from "node:child_process";
import { readFileSync, existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import ort from "onnxruntime-node";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, "..", "..");
const NAME = "onnx-node";
const VERSION = "1.0";
const PLAY_DEFAULTS = { policy: "greedy", temperature: 0.1, symmetric: false, margin: 0.05 };
// Baselines the engine will start (as `cardarena engine SPEC`): the rule bot or the random one,
// as agents/neural/botfile.py allows a bot file to name; a neural baseline is refused.
const BASELINE_SPEC = /^(rules|random)(\([A-Za-z0-9_=.,-]*\))?$/;

function log(text) {
  process.stderr.write(`${NAME}: ${text}\n`);
}

function send(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

function refuse(message) {
  send({ type: "error", message });
  log(message);
  process.exit(1);
}

// --- the ONNX model's metadata_props, read from the protobuf without a protobuf library ---

function varint(buf, pos) {
  let value = 0n;
  let shift = 0n;
  for (;;) {
    const byte = buf[pos++];
    value |= BigInt(byte & 0x7f) << shift;
    if (!(byte & 0x80)) return [value, pos];
    shift += 7n;
  }
}

// Fields of one protobuf message: [field number, wire type, value or [start, end]].
function* fields(buf, start, end) {
  let pos = start;
  while (pos < end) {
    let key;
    [key, pos] = varint(buf, pos);
    const field = Number(key >> 3n);
    const wire = Number(key & 7n);
    if (wire === 0) {
      let v;
      [v, pos] = varint(buf, pos);
      yield [field, wire, v];
    } else if (wire === 1) {
      pos += 8;
    } else if (wire === 2) {
      let len;
      [len, pos] = varint(buf, pos);
      yield [field, wire, [pos, pos + Number(len)]];
      pos += Number(len);
    } else if (wire === 5) {
      pos += 4;
    } else {
      throw new Error(`unsupported protobuf wire type ${wire}`);
    }
  }
}

// ModelProto.metadata_props (field 14): StringStringEntryProto {key = 1, value = 2}.
function onnxMetadata(buf) {
  const out = {};
  for (const [field, wire, span] of fields(buf, 0, buf.length)) {
    if (field !== 14 || wire !== 2) continue;
    let key = "";
    let value = "";
    for (const [f, w, s] of fields(buf, span[0], span[1])) {
      if (w !== 2) continue;
      const text = buf.toString("utf8", s[0], s[1]);
      if (f === 1) key = text;
      else if (f === 2) value = text;
    }
    out[key] = value;
  }
  return out;
}

// --- Python's random.Random(seed).random(), so that policy=sample draws what `neural` draws ---

class PythonRandom {
  constructor(seed) {
    this.mt = new Uint32Array(624);
    this.index = 624;
    let n = BigInt(Math.abs(seed));
    const key = [];
    do {
      key.push(Number(n & 0xffffffffn));
      n >>= 32n;
    } while (n > 0n);
    this.initByArray(key);
  }

  initGenrand(s) {
    const mt = this.mt;
    mt[0] = s >>> 0;
    for (let i = 1; i < 624; i++) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = (Math.imul(1812433253, prev) + i) >>> 0;
    }
  }

  initByArray(key) {
    const mt = this.mt;
    this.initGenrand(19650218);
    let i = 1;
    let j = 0;
    for (let k = Math.max(624, key.length); k; k--) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = ((mt[i] ^ Math.imul(prev, 1664525)) + key[j] + j) >>> 0;
      i++;
      j++;
      if (i >= 624) { mt[0] = mt[623]; i = 1; }
      if (j >= key.length) j = 0;
    }
    for (let k = 623; k; k--) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = ((mt[i] ^ Math.imul(prev, 1566083941)) - i) >>> 0;
      i++;
      if (i >= 624) { mt[0] = mt[623]; i = 1; }
    }
    mt[0] = 0x80000000;
    this.index = 624;
  }

  next32() {
    const mt = this.mt;
    if (this.index >= 624) {
      for (let k = 0; k < 624; k++) {
        const y = (mt[k] & 0x80000000) | (mt[(k + 1) % 624] & 0x7fffffff);
        mt[k] = mt[(k + 397) % 624] ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      this.index = 0;
    }
    let y = mt[this.index++];
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  random() {
    const a = this.next32() >>> 5;
    const b = this.next32() >>> 6;
    return (a * 67108864 + b) / 9007199254740992;
  }
}

// --- the baseline bot, a `cardarena engine` child spoken to over the same protocol ---

class Baseline {
  constructor(spec, hello) {
    const python = process.env.CARDARENA_PYTHON || "python3";
    // It is told this engine's own turns (version 1, a world with each), so it speaks version 1.
    this.proc = spawn(python, ["-m", "scripts.cli", "engine", spec, "--game", hello.game, "--protocol", "1"],
                      { cwd: ROOT, stdio: ["pipe", "pipe", "inherit"] });
    this.lines = [];
    this.waiting = [];
    this.proc.on("exit", (code) => {
      this.exited = code;
      for (const w of this.waiting.splice(0)) w(null);
    });
    createInterface({ input: this.proc.stdout }).on("line", (line) => {
      const w = this.waiting.shift();
      if (w) w(line);
      else this.lines.push(line);
    });
    this.spec = spec;
  }

  send(message) {
    this.proc.stdin.write(JSON.stringify(message) + "\n");
  }

  async ask(message) {
    this.send(message);
    const line = this.lines.length ? this.lines.shift()
      : await new Promise((r) => (this.exited !== undefined ? r(null) : this.waiting.push(r)));
    if (line === null) throw new Error(`baseline ${this.spec} exited (code ${this.exited})`);
    return JSON.parse(line);
  }

  quit() {
    try { this.send({ type: "quit" }); } catch { /* already gone */ }
  }
}

// --- the network ---

class Player {
  static async load(hello, botsDir, overrides) {
    const short = hello.game.split("(")[0].trim();
    const path = join(botsDir, `${short}.onnx`);
    if (!existsSync(path)) refuse(`no shipped network for game ${short} (${path} does not exist)`);
    const bytes = readFileSync(path);
    const meta = onnxMetadata(bytes);
    if (meta.format !== "cardarena-bot") refuse(`${path} is not a cardarena bot's ONNX export (no metadata)`);
    const params = JSON.parse(meta.game_parameters || "{}");
    if ("players" in params && params.players !== hello.players) {
      refuse(`the network ${path} is made for ${params.players} players, not ${hello.players}`);
    }
    const training = JSON.parse(meta.training || "{}");
    const play = { ...PLAY_DEFAULTS, ...(training.play || {}), ...overrides };
    const session = await ort.InferenceSession.create(bytes, {
      intraOpNumThreads: 1, interOpNumThreads: 1, executionProviders: ["cpu"],
    });
    const p = new Player();
    p.path = path;
    p.session = session;
    p.size = JSON.parse(meta.tensor_shape).reduce((a, b) => a * b, 1);
    p.numActions = Number(meta.num_actions);
    p.play = play;
    p.relative = training.relative === true;
    p.symmetry = null;
    if (play.symmetric) {
      const tables = JSON.parse(readFileSync(join(HERE, "symmetry.json"), "utf8"))[short];
      if (!tables || tables.tensor_size !== p.size) refuse(`symmetric=true: symmetry.json has no tables for ${short}`);
      p.symmetry = tables;
    }
    p.baselineSpec = null;
    if (training.baseline != null) {
      if (!BASELINE_SPEC.test(training.baseline)) refuse(`baseline ${training.baseline} of ${path}: only a rule or random bot is started`);
      p.baselineSpec = training.baseline;
    }
    log(`${path}: tensor ${p.size}, ${p.numActions} actions, play ${JSON.stringify(play)}` +
        (p.baselineSpec ? `, baseline ${p.baselineSpec}` : ""));
    return p;
  }

  // The legal actions' scores, as agents/neural/bot.py's legal_scores / symmetric_scores.
  async scores(tensor, legal) {
    const n = this.size;
    const a = this.numActions;
    if (this.symmetry === null) {
      const obs = Float32Array.from(tensor);
      const mask = new Float32Array(a);
      for (const l of legal) mask[l] = 1;
      const out = await this.session.run({
        obs: new ort.Tensor("float32", obs, [1, n]), mask: new ort.Tensor("float32", mask, [1, a]),
      });
      const s = out.scores.data;
      return legal.map((l) => s[l]);
    }
    const { obs_index: oi, action_index: ai } = this.symmetry;
    const rows = oi.length;
    const obs = new Float32Array(rows * n);
    const mask = new Float32Array(rows * a);
    for (let p = 0; p < rows; p++) {
      const idx = oi[p];
      for (let i = 0; i < n; i++) obs[p * n + i] = tensor[idx[i]];
      for (const l of legal) mask[p * a + ai[p][l]] = 1;
    }
    const out = await this.session.run({
      obs: new ort.Tensor("float32", obs, [rows, n]), mask: new ort.Tensor("float32", mask, [rows, a]),
    });
    const s = out.scores.data;
    return legal.map((l) => {
      let sum = Math.fround(0);
      for (let p = 0; p < rows; p++) sum = Math.fround(sum + s[p * a + ai[p][l]]);
      return Math.fround(sum / rows);
    });
  }
}

function argmax(values) {
  let best = 0;
  for (let i = 1; i < values.length; i++) if (values[i] > values[best]) best = i;
  return best;
}

// A legal action drawn from softmax(scores / temperature), as NeuralBot._draw.
function draw(legal, scores, temperature, rng) {
  const top = Math.max(...scores);
  const weights = scores.map((s) => Math.exp((s - top) / temperature));
  const total = weights.reduce((x, y) => x + y, 0);
  const u = rng.random();
  let cumulative = 0;
  let i = 0;
  for (; i < legal.length; i++) {
    cumulative += weights[i] / total;
    if (cumulative > u) break;
  }
  return legal[Math.min(i, legal.length - 1)];
}

// --- the protocol loop ---

async function main() {
  const args = process.argv.slice(2);
  let botsDir = join(ROOT, "bots");
  const overrides = {};
  const usage = (why) => {
    process.stderr.write(`usage: node engine.mjs [--bots DIR] [--policy greedy|sample] [--temperature T] ` +
                         `[--symmetric true|false] [--margin M]: ${why}\n`);
    process.exit(2);
  };
  for (let i = 0; i < args.length; i++) {
    const [flag, value] = [args[i], args[i + 1]];
    if (value === undefined) usage(`${flag} needs a value`);
    i++;
    if (flag === "--bots") botsDir = resolve(value);
    else if (flag === "--policy" && (value === "greedy" || value === "sample")) overrides.policy = value;
    else if (flag === "--symmetric" && (value === "true" || value === "false")) overrides.symmetric = value === "true";
    else if ((flag === "--temperature" && Number(value) > 0) || (flag === "--margin" && Number(value) >= 0)) {
      overrides[flag.slice(2)] = Number(value);
    } else usage(`bad argument ${flag} ${value}`);
  }
  let player = null;
  let baseline = null;
  let rng = null;
  let world = null;         // the world the harness holds us to have (docs/engine_protocol.md, `world`)
  let skipped = false;      // a turn since the baseline's last that it was not asked about
  const input = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of input) {
    if (!line.trim()) continue;
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      log(`not a JSON line: ${line.slice(0, 80)}`);
      continue;
    }
    if (message.type === "hello") {
      player = await Player.load(message, botsDir, overrides);
      if (player.baselineSpec !== null) {
        baseline = new Baseline(player.baselineSpec, message);
        const reply = await baseline.ask(message);
        if (reply.type !== "hello") refuse(`baseline ${player.baselineSpec}: ${reply.message || JSON.stringify(reply)}`);
      }
      send({ type: "hello", name: NAME, version: VERSION, tensor: true, world: baseline !== null });
    } else if (message.type === "deal") {
      rng = new PythonRandom(message.seed);
      world = null;
      skipped = false;
      if (baseline) baseline.send(message);
    } else if (message.type === "turn") {
      if (baseline) {
        world = message.world != null ? message.world : world.concat(message.moves.map((m) => m.action));
      }
      const legal = message.legal.map((l) => l.action);
      if (legal.length === 1) {       // as neural: the network and the baseline are not asked
        send({ action: legal[0] });
        skipped = true;
        continue;
      }
      if (!Array.isArray(message.tensor) || message.tensor.length !== player.size) {
        log(`the turn's tensor has ${message.tensor ? message.tensor.length : "no"} numbers, the network reads ${player.size}`);
        process.exit(3);
      }
      let scores = await player.scores(message.tensor, legal);
      if (baseline === null) {
        send({ action: player.play.policy === "greedy" ? legal[argmax(scores)]
                                                       : draw(legal, scores, player.play.temperature, rng) });
        continue;
      }
      // NeuralBot._over_baseline: the baseline's move unless another gains more than the margin.
      // The baseline engine extends its last world when the turn's world is null, as a rule bot
      // that remembers its plan along the game needs (its memory is of the state it played); a
      // turn it was not asked (one legal move) leaves that world behind: then it gets the whole one.
      const reply = await baseline.ask(skipped ? { ...message, world } : message);
      skipped = false;
      const move = reply.action;
      const at = legal.indexOf(move);
      if (at < 0) throw new Error(`baseline answered ${JSON.stringify(reply)}`);
      if (player.relative) scores = scores.map((s) => s - scores[at]);
      scores[at] = -Infinity;
      const best = argmax(scores);
      if (player.play.policy === "greedy") {
        send({ action: scores[best] > player.play.margin ? legal[best] : move });
      } else {
        scores[at] = player.play.margin;
        send({ action: draw(legal, scores, player.play.temperature, rng) });
      }
    } else if (message.type === "deal_end") {
      if (baseline) baseline.send(message);
    } else if (message.type === "quit") {
      break;
    }
  }
  if (baseline) baseline.quit();
  process.exit(0);
}

main().catch((e) => {
  log(`stopped: ${e.message}`);
  process.exit(4);
});
