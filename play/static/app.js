// cardarena's table. The page draws the view the server sends and knows no rules: every card
// it may click and every button it shows come from the view's `actions` (docs/play-api.md).
"use strict";

const POLL_MS = 300;
const PILE_SHOWN = 10;     // the newest cards of a long pile drawn fanned
const HAND_FAN = 10;       // a hand of more cards than this overlaps
const FAN_STEP = 34;       // px of each overlapped card left showing (its centre stays clickable)
const SUIT_SYMBOL = { H: "♥", D: "♦", S: "♠", C: "♣" };
const GROUPS = [
  // kind, label of the group of buttons, in display order ("answer" and "suit" go to the prompt)
  ["answer", ""], ["ask", "Partner"], ["suit", ""], ["call", "Call"],
  ["draw", ""], ["pile", ""], ["pass", ""], ["meld", "Meld"], ["card", "Play"], ["other", ""],
];

const app = {
  options: null,        // GET /api/options
  view: null,           // the game's View now
  gameId: null,
  pollTimer: null,
  busy: false,          // an action or a request that changes the game is in flight
  hint: null,           // the Hint for the current turn
  review: null,         // the Review being stepped through
  reviewIndex: 0,
  reviewSteps: [],      // the review's moves, then the final position
  reviewDeals: null,    // how many deals an opened record file holds
  reviewSource: null,   // the id the review came from
  seenLog: 0,           // log entries already shown (new ones flash)
  selecting: false,     // the hand's cards select a meld (Canasta) instead of being played
  selected: [],         // the selected cards' places in the hand
  variant: null,        // POST /api/levels for the form's game and rules
};

// ---------- small helpers ----------

function $(id) { return document.getElementById(id); }

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "testid") node.dataset.testid = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function fmt(x, digits = 2) {
  if (x === null || x === undefined || Number.isNaN(x)) return "–";
  if (typeof x !== "number") return String(x);
  return Number.isInteger(x) ? String(x) : x.toFixed(digits);
}

function signed(x, digits = 2) {
  if (typeof x !== "number") return fmt(x, digits);
  const text = fmt(x, digits);
  return x > 0 ? "+" + text : text;
}

/** One request to the server; a 4xx/5xx answer throws an Error carrying the server's message.
 * Every POST carries a JSON body (`{}` when there is nothing to say): the server takes no other. */
async function api(method, path, body) {
  const init = { method, headers: {} };
  if (method !== "GET") {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body === undefined ? {} : body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (err) {
    throw Object.assign(new Error("The server cannot be reached: is `cardarena play` still running?"), { status: 0 });
  }
  let data = null;
  try { data = await response.json(); } catch (err) { data = null; }
  if (!response.ok) {
    const message = (data && data.error) || `${response.status} ${response.statusText}`;
    throw Object.assign(new Error(message), { status: response.status, field: data && data.field });
  }
  return data;
}

function setStatus(text, kind) {
  const line = $("status-line");
  line.textContent = text || "";
  line.className = "status-line" + (kind ? " " + kind : "");
}

function showError(err) { setStatus(err.message || String(err), "error"); }

function playerName(view, seat) {
  const player = view && view.players && view.players.find((p) => p.seat === seat);
  if (!player) return seat === null || seat === undefined ? "" : `p${seat}`;
  return player.name || `p${seat}`;
}

// ---------- cards ----------

/** A card drawn as a card: rank and suit in the corners, the suit large in the middle. */
function cardNode(card, opts = {}) {
  const suit = card.suit ? SUIT_SYMBOL[card.suit] || card.suit : "";
  const isJoker = card.color === "joker";
  const rank = isJoker ? "★" : (card.rank || card.text || "?");
  const classes = ["card", card.color === "red" ? "red" : isJoker ? "joker" : "black"];
  if (opts.mini) classes.push("mini");
  const clickable = opts.onclick && card.action !== null && card.action !== undefined;
  if (clickable) classes.push("playable");
  const label = card.text || `${rank}${suit}`;
  const attrs = {
    class: classes.join(" "), title: isJoker ? "Joker" : label, "aria-label": isJoker ? "Joker" : label,
    testid: opts.testid || "card", dataset: { card: label },
  };
  if (card.action !== null && card.action !== undefined) attrs.dataset.action = String(card.action);
  const corner = (where) => el("span", { class: where }, rank, suit ? el("span", { class: "s" }, suit) : null);
  const parts = [corner("corner"), el("span", { class: "pip" + (suit || isJoker ? "" : " rank-only") }, suit || rank)];
  if (!opts.mini) parts.push(corner("corner bottom"));
  if (opts.select) {      // melding by selection: every card toggles, none is played
    attrs.class = classes.filter((c) => c !== "playable").concat("selectable", opts.selected ? "selected" : []).join(" ");
    return el("button", { ...attrs, type: "button", "aria-pressed": String(!!opts.selected), onclick: opts.select }, ...parts);
  }
  if (clickable) return el("button", { ...attrs, type: "button", onclick: () => opts.onclick(card.action) }, ...parts);
  if (opts.button) return el("button", { ...attrs, type: "button", disabled: true }, ...parts);
  return el("span", attrs, ...parts);
}

function cardBacks(count) {
  const shown = Math.min(count || 0, 24);     // overlapped: a Canasta hand of 24 fits a seat
  const node = el("div", { class: "backs", "aria-hidden": "true" });
  for (let i = 0; i < shown; i++) node.append(el("span", { class: "back" }));
  return node;
}

// ---------- the table ----------

/** The whole felt for one view; `interactive` makes the legal cards clickable. */
function renderFelt(felt, view, { interactive, hinted, played = null }) {
  felt.replaceChildren();
  const me = view.players.find((p) => p.seat === view.seat);
  const mySide = me ? me.side : null;
  const n = view.players.length;
  // Opponents from the seat after the human's, clockwise, as they sit around the table.
  const others = [];
  for (let k = 1; k < n; k++) {
    const player = view.players.find((p) => p.seat === (view.seat + k) % n);
    if (player) others.push(player);
  }
  const board = scoreboardNode(view, mySide);
  if (board) felt.append(board);
  felt.append(el("div", { class: "opponents", testid: "opponents" }, others.map((p) => seatNode(view, p, mySide, false))));
  // Zones of no side in the middle; each side's zones (Canasta's melds and 3s) in a row of
  // their own, the human's side nearest the human.
  const zones = (view.zones || []).map((zone, i) => [zone, i]);
  const sides = [...new Set(zones.map(([z]) => z.side).filter((s) => s !== null && s !== undefined))];
  sides.sort((a, b) => (a === mySide) - (b === mySide) || a - b);
  const zoneBox = el("div", { class: "zones", testid: "zones" },
    el("div", { class: "center" }, zones.filter(([z]) => z.side === null || z.side === undefined).map(([z, i]) => zoneNode(view, z, i, mySide))));
  for (const side of sides) {
    zoneBox.append(el("div", { class: `side-row side-${side % 2}` + (side === mySide ? " mine" : ""), testid: `side-${side}` },
      zones.filter(([z]) => z.side === side).map(([z, i]) => zoneNode(view, z, i, mySide))));
  }
  felt.append(zoneBox);

  const handCards = view.hand || [];
  const yourTurn = interactive && view.status === "your_turn";
  const selecting = yourTurn && selectingMeld(view);
  const hand = el("div", { class: "hand" + (yourTurn ? " your-turn" : "") + (selecting ? " selecting" : ""), testid: interactive ? "hand" : "review-hand" },
    handCards.map((card, index) => {
      const select = selecting ? () => { toggleSelected(index); } : null;
      const node = cardNode(card, { onclick: yourTurn ? sendAction : null, testid: "hand-card", button: interactive,
        select, selected: selecting && app.selected.includes(index) });
      if (hinted !== null && hinted !== undefined && card.action === hinted) node.classList.add("hinted");
      if (played !== null && card.action === played) node.classList.add("played-wrong");
      return node;
    }));
  if (!handCards.length) hand.append(el("span", { class: "waiting" }, "no cards"));
  felt.append(el("div", { class: "me" }, me ? seatNode(view, me, mySide, true) : null, hand));
  fitHand(hand);
}

/** Each side's running score on the felt: the match standing (Canasta: its points so far, a
 * match of Page One deals: its total), and in a game of melds, what each side's melds count this
 * hand, canasta bonuses included (the view's Meld.points: all on the table, every seat sees it). Only at the table, and only where a match has
 * more than one deal to stand in. */
function scoreboardNode(view, mySide) {
  const match = view.match;
  if (!match || !match.totals || !match.totals.length || !(match.target || (match.deals && match.deals > 1))) return null;
  const columns = sideColumns(view, match.totals.length);
  const zones = view.zones || [];
  const chips = columns.map((column, side) => {
    const melds = zones.filter((z) => z.side === side && Array.isArray(z.melds)).flatMap((z) => z.melds);
    const cards = melds.reduce((n, m) => n + (m.cards || []).length, 0);
    const canastas = melds.filter((m) => m.canasta).length;
    const points = melds.reduce((n, m) => n + (m.points || 0), 0);
    const hand = zones.some((z) => z.side === side && Array.isArray(z.melds))
      ? el("span", { class: "this-hand", testid: `melded-${side}`,
        dataset: { cards: String(cards), canastas: String(canastas), points: String(points) } },
        `this hand ${fmt(points, 0)} on the table` + (canastas ? `, ${canastas} canasta${canastas === 1 ? "" : "s"}` : ""))
      : null;
    const colour = columns.length < (view.players || []).length ? ` side-${side % 2}` : "";
    return el("span", { class: "score-chip" + (column.me ? " mine" : "") + colour, testid: `score-${side}`,
      dataset: { total: String(match.totals[side]) } },
    el("span", { class: "who" }, column.label), " ", el("b", {}, fmt(match.totals[side], 0)), hand ? " · " : null, hand);
  });
  const goal = match.target ? `to ${Number(match.target).toLocaleString("en")}` : `deal ${match.deal} of ${match.deals}`;
  return el("div", { class: "scoreboard", testid: "scoreboard" }, el("span", { class: "goal" }, `Score · ${goal}`), chips);
}

/** The seat that plays after `player` where the view names a direction of play (American Page
 * One's "Direction" zone): the neighbour that way, the seats being numbered clockwise. */
function nextSeat(view) {
  const direction = (view.zones || []).find((z) => /^direction$/i.test(z.name));
  const moving = (view.players || []).find((p) => p.to_move);
  if (!direction || !moving || !/clockwise/i.test(direction.text || "")) return null;
  const step = /anticlockwise|counter-?clockwise/i.test(direction.text) ? -1 : 1;
  const n = view.players.length;
  for (let k = 1; k < n; k++) {       // a player who has gone out ("out 1") is passed over
    const seat = (moving.seat + k * step + n * k) % n;
    const player = view.players.find((p) => p.seat === seat);
    if (player && !(player.notes || []).some((note) => /^out\b/.test(note))) return { seat, arrow: step > 0 ? "↻" : "↺" };
  }
  return null;
}

/** Overlaps a hand's cards like a fan when they do not fit the felt's width in one row. */
function fitHand(hand) {
  const cards = hand.querySelectorAll(".card");
  hand.classList.remove("fan");
  hand.style.removeProperty("--fan-step");
  if (cards.length < 2) return;
  const width = hand.clientWidth;
  const card = cards[0].offsetWidth;
  if (!width || !card) return;
  const natural = cards.length * (card + 6);
  if (natural <= width && cards.length <= HAND_FAN) return;
  const step = Math.max(12, Math.min(FAN_STEP, Math.floor((width - card) / (cards.length - 1))));
  hand.classList.add("fan");
  hand.style.setProperty("--fan-step", `${step}px`);
}

function seatNode(view, player, mySide, isMe) {
  const classes = ["seat"];
  if (player.to_move) classes.push("to-move");
  if (player.side !== null && player.side !== undefined && view.players.some((p) => p.side !== p.seat)) {
    classes.push(`side-${player.side % 2}`);
  }
  const thinking = view.thinking === player.seat;
  const notes = (player.notes || []).map((note) => el("span", { class: "chip" }, note));
  if (!isMe && mySide !== null && player.side === mySide && player.side !== player.seat) {
    notes.unshift(el("span", { class: "chip partner" }, "partner"));
  }
  if (player.to_move) notes.unshift(el("span", { class: "chip turn" }, "to move"));
  const next = nextSeat(view);
  if (next && next.seat === player.seat && !player.to_move) {
    notes.unshift(el("span", { class: "chip next", testid: "next-player", title: "plays next, in the direction of play" }, `next ${next.arrow}`));
  }
  // A bot's last action, on its seat; the newest one on the felt is highlighted.
  const log = view.log || [];
  const lastIndex = log.map((e) => e.seat).lastIndexOf(player.seat);
  if (!isMe && lastIndex >= 0) {
    const newest = log.slice(lastIndex + 1).every((e) => e.seat === null || e.seat === undefined);
    notes.push(el("span", { class: "chip last" + (newest ? " newest" : ""), testid: `last-${player.seat}` },
      log[lastIndex].text.replace(/^p\d+ /, "")));
  }
  const node = el("div", {
    class: classes.join(" "), testid: `player-${player.seat}`,
    dataset: { seat: String(player.seat), cards: String(player.cards), toMove: String(!!player.to_move) },
  },
  el("div", { class: "seat-name" }, isMe ? player.name || "You" : player.name || `p${player.seat}`,
    thinking ? el("span", { class: "thinking", testid: "thinking" }, el("span", { class: "dots" }, el("i"), el("i"), el("i")), "thinking") : null),
  player.agent && player.agent !== "human" ? el("div", { class: "seat-agent" }, player.agent) : null,
  el("div", { class: "seat-count", testid: `player-cards-${player.seat}` }, `${player.cards} card${player.cards === 1 ? "" : "s"}`),
  notes.length ? el("div", { class: "seat-notes" }, notes) : null);
  if (!isMe) {
    if (Array.isArray(player.hand)) {
      node.append(el("div", { class: "zone-cards open-hand", testid: `open-hand-${player.seat}` }, player.hand.map((c) => cardNode(c, { mini: true }))));
    } else {
      node.append(cardBacks(player.cards));
    }
  }
  return node;
}

function zoneNode(view, zone, index, mySide) {
  const hasCards = zone.cards && zone.cards.length;
  const hasMelds = zone.melds !== null && zone.melds !== undefined;
  const classes = ["zone"];
  if (!hasCards && !hasMelds) classes.push("info");
  if (/pending/i.test(zone.name)) classes.push("alert");
  if (hasMelds) classes.push("melds-zone");
  if (zone.side !== null && zone.side !== undefined) classes.push(`side-${zone.side}`);
  let name = yourWords(view, zone.name);
  if (mySide !== null && zone.side !== null && zone.side !== undefined && !/you|us|them|side|\bp\d/i.test(name)) {
    name += zone.side === mySide ? " (your side)" : " (their side)";
  }
  // A frozen pile says so where the eye is, not only in its small text.
  const frozen = /\bfrozen\b/.test(zone.text || "") ? el("span", { class: "badge frozen", testid: "frozen" }, "frozen") : null;
  const node = el("div", { class: classes.join(" "), testid: `zone-${index}`, dataset: { zone: zone.name } },
    el("div", { class: "zone-name" }, name, frozen ? " " : null, frozen));
  if (hasCards) {
    // A long pile shows its newest cards fanned, the top one whole, and how many lie beneath.
    const fanned = zone.cards.length > 6;
    const shown = zone.cards.slice(-PILE_SHOWN);
    const mini = fanned || (zone.side !== null && zone.side !== undefined);
    const row = el("div", { class: "zone-cards" + (fanned ? " fan" : "") });
    if (zone.cards.length > shown.length) row.append(el("span", { class: "more" }, `+${zone.cards.length - shown.length}`));
    node.append(row);
    row.append(...shown.map((c) => {
      const drawn = cardNode(c, { mini });
      // A card on the table that names who played it (Page One's trick) says so under it.
      if (c.seat === null || c.seat === undefined) return drawn;
      return el("div", { class: "played" }, drawn, el("span", { class: "played-by" }, c.seat === view.seat ? "you" : playerName(view, c.seat)));
    }));
  }
  if (hasMelds) {
    const melds = el("div", { class: "melds" });
    for (const meld of zone.melds) melds.append(meldNode(meld));
    if (!zone.melds.length) melds.append(el("span", { class: "waiting" }, "no melds"));
    node.append(melds);
  }
  if (zone.text) node.append(el("div", { class: "zone-text" }, directionArrow(zone.text), yourWords(view, zone.text)));
  return node;
}

/** A zone's words with the person's seat said as "you" ("scores you 12 p1 3"), where a person
 * sits at the seat shown (not in a review of a bot's seat). */
function yourWords(view, text) {
  const me = (view.players || []).find((p) => p.seat === view.seat);
  if (!me || me.name !== "You") return text;
  return text.replace(new RegExp(`\\bp${view.seat}'s\\b`, "g"), "your").replace(new RegExp(`\\bp${view.seat}\\b`, "g"), "you");
}

function directionArrow(text) {
  if (/anticlockwise|counter-?clockwise/i.test(text)) return el("span", { class: "arrow" }, "↺ ");
  if (/clockwise/i.test(text)) return el("span", { class: "arrow" }, "↻ ");
  return null;
}

const CANASTA_NAMES = { natural: "natural canasta", mixed: "mixed canasta", wild: "wild canasta", sevens: "canasta of 7s", aces: "canasta of Aces" };

function meldNode(meld) {
  const node = el("div", { class: "meld" + (meld.canasta ? " canasta" : ""), testid: "meld", dataset: { rank: meld.rank, canasta: meld.canasta || "" } },
    el("div", { class: "meld-cards" }, (meld.cards || []).map((c) => cardNode(c, { mini: true }))));
  const caption = el("div", { class: "meld-caption" },
    el("span", {}, `${meld.rank}: ${meld.naturals} natural${meld.naturals === 1 ? "" : "s"}` + (meld.wilds ? `, ${meld.wilds} wild` : "")));
  if (meld.canasta) caption.append(el("span", { class: `badge ${meld.canasta}`, testid: "canasta" }, CANASTA_NAMES[meld.canasta] || meld.canasta));
  node.append(caption);
  return node;
}

// ---------- the actions ----------

/** Buttons for every legal action the hand's cards do not already offer. */
// ---------- melding by selecting cards ----------

const MELDS_LISTED = 5;      // meld buttons listed without a selection

/** Whether the hand's cards select a meld now: the player turned selection on and a meld is legal. */
function selectingMeld(view) {
  return !!app.selecting && (view.actions || []).some((a) => a.kind === "meld");
}

function toggleSelected(index) {
  const at = app.selected.indexOf(index);
  if (at >= 0) app.selected.splice(at, 1); else app.selected.push(index);
  render();
}

/** The legal melds and lay-offs whose cards are exactly the selected ones (the server decides
 * what is legal: the page only matches the selection against its list). */
function meldsOfSelection(view, melds) {
  const chosen = app.selected.map((i) => (view.hand[i] || {}).text).sort().join(" ");
  return melds.filter((a) => (a.cards || []).map((c) => c.text).sort().join(" ") === chosen);
}

function meldGroup(view, melds, hinted) {
  const selecting = selectingMeld(view);
  const toggle = el("button", {
    type: "button", class: selecting ? "primary" : null, testid: "select-meld",
    onclick: () => { app.selecting = !selecting; app.selected = []; render(); },
  }, selecting ? "done selecting" : "select cards to meld");
  if (!selecting) {
    // A long list (up to 19 combinations) is cut short: the rest are one selection away.
    const shown = melds.slice(0, MELDS_LISTED);
    const more = melds.length - shown.length;
    return [toggle, ...shown.map((action) => actionButton(action, hinted)),
      more > 0 ? el("span", { class: "waiting", testid: "more-melds",
        dataset: { actions: melds.slice(MELDS_LISTED).map((a) => a.action).join(" ") } }, `+${more} more: select their cards`) : null];
  }
  const matching = meldsOfSelection(view, melds);
  const names = app.selected.map((i) => (view.hand[i] || {}).text).join(" ");
  const says = !app.selected.length ? "select the cards, then meld"
    : matching.length ? null : `no legal meld of ${names}`;
  return [toggle, says ? el("span", { class: "waiting", testid: "select-says" }, says) : null,
    ...matching.map((action) => actionButton(action, hinted))];
}

function renderActions(view) {
  const bar = $("action-bar");
  const prompt = $("prompt");
  bar.replaceChildren();
  prompt.replaceChildren();
  prompt.hidden = true;
  if (view.status === "bot_turn") {
    const moving = view.players.find((p) => p.to_move);
    const seat = view.thinking !== null && view.thinking !== undefined ? view.thinking : moving ? moving.seat : null;
    const who = seat !== null ? playerName(view, seat) : "the bots";
    bar.append(el("span", { class: "waiting", testid: "waiting" }, `Waiting for ${who}…`));
    return;
  }
  if (view.status !== "your_turn") return;
  const onCards = new Set((view.hand || []).map((c) => c.action).filter((a) => a !== null && a !== undefined));
  const hinted = bestHintAction();
  const byKind = new Map();
  for (const action of view.actions || []) {
    if (action.kind === "card" && onCards.has(action.action)) continue;
    const kind = GROUPS.some(([k]) => k === action.kind) ? action.kind : "other";
    if (!byKind.has(kind)) byKind.set(kind, []);
    byKind.get(kind).push(action);
  }
  for (const [kind, groupLabel] of GROUPS) {
    const actions = byKind.get(kind);
    if (!actions) continue;
    const buttons = kind === "meld" ? meldGroup(view, actions, hinted) : actions.map((action) => actionButton(action, hinted));
    if (kind === "answer" || kind === "suit") {
      // A question only the human can answer (the partner's ask, the suit an 8 names) goes
      // where it cannot be missed.
      const question = kind === "answer" ? view.message || "Your partner asks:" : "Name a suit:";
      prompt.append(el("span", {}, question), el("div", { class: "prompt-buttons", testid: `group-${kind}` }, ...buttons));
      prompt.hidden = false;
      continue;
    }
    bar.append(el("div", { class: `action-group ${kind}`, testid: `group-${kind}` },
      groupLabel ? el("span", { class: "action-group-label" }, groupLabel) : null, ...buttons));
  }
}

function actionButton(action, hinted) {
  const classes = [];
  let label = action.label;
  const suitMatch = action.kind === "suit" && /([♥♦♠♣])/.exec(label);
  if (suitMatch) {
    classes.push("suit");
    if (suitMatch[1] === "♥" || suitMatch[1] === "♦") classes.push("red");
    label = suitMatch[1];
  }
  if (action.action === hinted) classes.push("hinted");
  if (action.kind === "answer" && /^yes/i.test(label)) classes.push("primary");
  const button = el("button", {
    type: "button", class: classes.join(" ") || null, title: action.label,
    "aria-label": action.label, testid: `action-${action.kind}`,
    dataset: { action: String(action.action), label: action.label },
    onclick: () => {
      // Withdrawing an initial meld puts its cards back in the hand, shown to everyone: the
      // first click says so, the second withdraws.
      if (/^withdraw/.test(action.label) && !button.dataset.confirmed) {
        button.dataset.confirmed = "1";
        button.classList.add("confirm");
        button.textContent = "withdraw: every player will see these cards — click again";
        return;
      }
      sendAction(action.action);
    },
  }, label);
  return button;
}

async function sendAction(action) {
  if (app.busy || !app.view || app.view.status !== "your_turn") return;
  app.busy = true;
  document.body.dataset.status = "sending";
  for (const button of document.querySelectorAll("#action-bar button, #prompt button, .hand button")) button.disabled = true;
  try {
    const view = await api("POST", `/api/games/${app.gameId}/action`, { action, turn: app.view.turn });
    app.busy = false;
    setView(view);
  } catch (err) {
    app.busy = false;
    showError(err);
    if (err.status === 409 || err.status === 400) {
      // Out of step with the server: draw what it has now, keeping the message.
      try { setView(await api("GET", `/api/games/${app.gameId}`), { keepStatus: true }); } catch (e) { /* the message stays */ }
    } else if (app.view) {
      document.body.dataset.status = app.view.status;
      render();
    }
  }
}

// ---------- the game's life ----------

function setView(view, { keepStatus = false } = {}) {
  const previous = app.view;
  if (!previous || previous.id !== view.id || previous.turn !== view.turn) { app.hint = null; app.selected = []; }
  if (!previous || previous.id !== view.id) app.seenLog = 0;
  app.view = view;
  app.gameId = view.id;
  document.body.dataset.status = view.status;     // what the page shows now: tests wait on it
  if (location.hash !== `#game=${view.id}`) history.replaceState(null, "", `#game=${view.id}`);
  render();
  if (!keepStatus) statusFromView(view);
  schedulePoll();
}

function statusFromView(view) {
  const message = view.message || "";
  if (view.save_error && view.status !== "error") {
    setStatus(message ? `${message} · ${view.save_error}` : view.save_error, "error");
    return;
  }
  if (view.status === "error" || view.fault) setStatus(message || "The game stopped on an error.", "error");
  else if (view.status === "your_turn") setStatus(message ? `${message} · Your turn.` : "Your turn.", "your-turn");
  else if (view.status === "bot_turn") {
    const who = view.thinking !== null && view.thinking !== undefined ? `${playerName(view, view.thinking)} is thinking…` : "The bots are playing…";
    setStatus(message ? `${message} · ${who}` : who);
  } else if (view.status === "deal_over") setStatus(message || "The deal is over.");
  else if (view.status === "match_over") setStatus(message || "The match is over.");
  else setStatus(message);
}

function schedulePoll() {
  clearTimeout(app.pollTimer);
  app.pollTimer = null;
  if (!app.view || app.view.status !== "bot_turn") return;
  const id = app.view.id;
  app.pollTimer = setTimeout(async () => {
    if (!app.view || app.view.id !== id || app.busy) return schedulePoll();
    try {
      const view = await api("GET", `/api/games/${id}`);
      if (app.view && app.view.id === id) setView(view);
    } catch (err) {
      showError(err);
      if (err.status !== 404) app.pollTimer = setTimeout(schedulePoll, POLL_MS * 3);
    }
  }, POLL_MS);
}

function render() {
  const view = app.view;
  if (!view) return;
  showScreen("table");
  $("game-title").textContent = view.title + matchTitle(view.match);
  renderFelt($("felt"), view, { interactive: true, hinted: bestHintAction() });
  renderActions(view);
  renderLog(view.said || view.log || [], view.seat);
  renderHint();
  const over = view.status === "deal_over" || view.status === "match_over";
  $("hint-button").disabled = view.status !== "your_turn";
  $("review-button").hidden = !over && !(view.match && view.match.deal > 1);
  renderDealOver(view, over);
}

function matchTitle(match) {
  if (!match) return "";
  let text = ` · deal ${match.deal}`;
  if (match.deals) text += ` of ${match.deals}`;
  if (match.target) text += ` · to ${match.target}`;
  return text;
}

function renderLog(entries, mySeat) {
  const list = $("log");
  const atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 30;
  list.replaceChildren(...entries.map((entry, i) => el("li", {
    class: (entry.seat === mySeat ? "mine" : "") + (i >= app.seenLog && app.seenLog > 0 ? " new" : ""),
  }, entry.text)));
  app.seenLog = entries.length;
  if (atBottom || entries.length) list.scrollTop = list.scrollHeight;
}

function sideColumns(view, width) {
  // A score line has one value per seat, or one per side (Canasta's partnerships).
  const players = view.players || [];
  if (width === players.length) {
    return players.map((p) => ({ label: p.seat === view.seat ? "You" : p.name || `p${p.seat}`, me: p.seat === view.seat }));
  }
  const me = players.find((p) => p.seat === view.seat);
  return Array.from({ length: width }, (_, side) => {
    const seats = players.filter((p) => p.side === side).map((p) => (p.seat === view.seat ? "you" : p.name || `p${p.seat}`));
    const mine = me && me.side === side;
    return { label: (mine ? "Your side" : "Their side") + (seats.length ? ` (${seats.join(", ")})` : ""), me: mine };
  });
}

function scoreTable(view, score) {
  const width = Math.max(...score.lines.map((l) => l.values.length), (score.total || []).length, 0);
  const columns = sideColumns(view, width);
  const head = el("tr", {}, el("th", {}, ""), columns.map((c) => el("th", { class: c.me ? "me" : null }, c.label)));
  const rows = score.lines.map((line) => el("tr", {}, el("td", {}, line.label), line.values.map((v) => el("td", {}, fmt(v)))));
  if (score.total) rows.push(el("tr", { class: "total" }, el("td", {}, "total"), score.total.map((v) => el("td", {}, fmt(v)))));
  const sameAsTotal = score.total && score.returns && score.returns.every((r, i) => Math.abs(r - score.total[i]) < 1e-4);
  if (score.returns && score.returns.length === width && !sameAsTotal) {
    rows.push(el("tr", { class: "returns" }, el("td", {}, "returns"), score.returns.map((v) => el("td", {}, signed(v)))));
  }
  return el("table", { class: "score-table", testid: "score-table" }, el("thead", {}, head), el("tbody", {}, rows));
}

function renderDealOver(view, over) {
  const panel = $("deal-over");
  panel.hidden = !over;
  if (!over) return;
  const match = view.match;
  const matchOver = view.status === "match_over" || (match && match.over);
  const several = match && (match.target || (match.deals && match.deals > 1));
  $("deal-over-title").textContent = matchOver && several ? "Match over" : several ? `Deal ${match.deal} over` : "Deal over";
  if (view.fault) $("deal-over-title").textContent = "Game over: a bot forfeited";
  const fault = view.fault ? el("p", { class: "fault", testid: "fault" }, `${view.fault.error}. As the tournament rules say, its side forfeits: the returns below are the forfeit's.`) : null;
  const score = view.score ? scoreTable(view, view.score) : el("p", {}, view.message || "");
  $("score").replaceChildren(...[fault, score].filter(Boolean));
  const totals = $("match-totals");
  totals.replaceChildren();
  if (match && match.totals && match.totals.length) {
    const columns = sideColumns(view, match.totals.length);
    let goal = "";
    if (match.deals) goal = ` after deal ${match.deal} of ${match.deals}`;
    if (match.target) goal = ` after deal ${match.deal}, playing to ${match.target}`;
    totals.append(el("h3", {}, `Match totals${goal}`),
      el("table", { class: "score-table", testid: "match-table" },
        el("thead", {}, el("tr", {}, el("th", {}, ""), columns.map((c) => el("th", { class: c.me ? "me" : null }, c.label)))),
        el("tbody", {}, el("tr", { class: "total" }, el("td", {}, "match"), match.totals.map((v) => el("td", {}, fmt(v)))))));
  }
  $("next-deal").hidden = !!matchOver || !match;
}

// ---------- hint ----------

function bestHintAction() {
  return app.hint && app.hint.turn === (app.view && app.view.turn) && app.hint.values.length ? app.hint.values[0].action : null;
}

async function askHint() {
  if (!app.view || app.view.status !== "your_turn" || app.busy) return;
  const turn = app.view.turn;
  const button = $("hint-button");
  button.disabled = true;
  $("hint-panel").hidden = false;
  $("hint-body").replaceChildren(el("span", { class: "thinking", testid: "hint-thinking" }, el("span", { class: "dots" }, el("i"), el("i"), el("i")), "analysing your position…"));
  try {
    const hint = await api("POST", `/api/games/${app.gameId}/hint`, {});
    if (app.view && app.view.turn === turn) {
      app.hint = { ...hint, turn };
      render();
    } else {
      $("hint-panel").hidden = true;      // the turn moved on: the hint is for nothing now
    }
  } catch (err) {
    showError(err);
    $("hint-body").replaceChildren(el("span", { class: "field-error" }, err.message));
  } finally {
    button.disabled = !app.view || app.view.status !== "your_turn";
  }
}

function renderHint() {
  const panel = $("hint-panel");
  const hint = app.hint;
  if (!hint || !app.view || hint.turn !== app.view.turn) {
    if (!panel.querySelector("[data-testid=hint-thinking]")) panel.hidden = true;
    return;
  }
  panel.hidden = false;
  const shown = hint.values.slice(0, 5);
  const k = hint.points_per_unit || 1;          // the game's points, where it has them
  const f2 = (x) => Number(x * k).toFixed(hint.points_per_unit ? 0 : 2);
  const rows = shown.map((v, i) => el("tr", { class: i === 0 ? "best" : null, testid: "hint-row", dataset: { action: String(v.action) } },
    el("td", {}, v.label),
    el("td", {}, f2(v.mean)),
    el("td", {}, `[${f2(v.low)}, ${f2(v.high)}]`),
    el("td", { title: i === 0 ? null : `paired difference from the chosen action, 95% [${f2(-v.gap_high)}, ${f2(-v.gap_low)}]` },
      i === 0 ? "chosen" : `${f2(-v.gap)} [${f2(-v.gap_high)}, ${f2(-v.gap_low)}]`),
    el("td", { class: "verdict", testid: "hint-verdict" }, v.verdict)));
  $("hint-body").replaceChildren(
    el("table", { class: "hint-table", testid: "hint-table" },
      el("thead", {}, el("tr", {}, el("th", {}, "action"), el("th", {}, hint.points_per_unit ? "points" : "value"),
        el("th", {}, "95%"), el("th", {}, "vs chosen (95%)"), el("th", {}, "verdict"))),
      el("tbody", {}, rows)),
    el("div", { class: "hint-meta" }, `From your information only: ${hint.evaluator}` +
      (hint.seconds ? ` (${fmt(hint.seconds, 1)} s)` : "") + `. The best action was chosen on ${hint.worlds} worlds consistent with what you have seen; ` +
      `every figure is from ${hint.worlds} fresh ones, so the first row is not flattered by its choice. ` +
      `A value is your expected return${hint.points_per_unit ? " in points" : ""}; the interval is its 95% range; "vs chosen" is the paired difference from the chosen action.`));
}

// ---------- review ----------

/** The review's steps: every move of the deal, then the end of the deal (every hand shown). */
function reviewSteps(review) {
  const steps = review.moves.map((m) => ({ ...m }));
  if (review.final) {
    steps.push({ index: null, seat: null, text: "the end of the deal", open_text: "the end of the deal",
      view: review.final, open: review.final, mistake: null, final: true });
  }
  return steps;
}

function lostText(review, amount) {
  // Returns are points in American Page One (1 a point) and Canasta (1 per 1,000 points).
  const unit = review.points_per_unit;
  return unit ? `${fmt(Math.round(amount * unit), 0)} points` : Number(amount).toFixed(2);
}

async function openReview(id, deal) {
  const query = deal === undefined || deal === null ? "" : `?deal=${deal}`;
  setStatus("Analysing the deal for the review…");
  document.body.dataset.status = "loading_review";
  try {
    const review = await api("GET", `/api/games/${id}/review${query}`);
    app.review = review;
    app.reviewSteps = reviewSteps(review);
    app.reviewSource = id;
    app.reviewIndex = 0;
    clearTimeout(app.pollTimer);
    showScreen("review");
    renderReviewHead();
    renderLuck(review);
    renderReviewMove();
    document.body.dataset.status = "review";
    setStatus(`Review of deal ${review.deal + 1}: ${review.moves.length} moves. Step with ◀ ▶ or the arrow keys; your mistakes are listed on the right.`);
  } catch (err) {
    document.body.dataset.status = app.view ? app.view.status : "error";
    showError(err);
  }
}

function renderReviewHead() {
  const review = app.review;
  const steps = app.reviewSteps;
  $("review-slider").max = String(Math.max(0, steps.length - 1));
  const mistakes = steps.map((m, i) => [m, i]).filter(([m]) => m.mistake);
  const lost = $("review-lost");
  lost.textContent = review.analysed === false ? "not analysed (the deal did not finish)"
    : mistakes.length ? `${mistakes.length} mistake${mistakes.length === 1 ? "" : "s"}: ${lostText(review, review.lost)} lost in all`
      : "no mistake found";
  lost.className = "review-lost" + (mistakes.length ? "" : " clean");
  $("review-title").textContent = `Review · ${review.name ? review.name + " · " : ""}deal ${review.deal + 1}`;
  $("mistakes-panel").hidden = false;
  $("mistakes-panel").querySelector("h3").textContent = review.person === false ? `p${review.seat}'s mistakes` : "Your mistakes";
  const body = $("mistakes-body");
  if (!mistakes.length) {
    body.replaceChildren(el("p", {}, review.analysed === false ? "An unfinished deal is shown without analysis."
      : "The analysis found no decision of yours that lost more than a noticeable amount, by its interval."));
  } else {
    body.replaceChildren(el("ol", { class: "mistake-list" }, mistakes.map(([m, i]) => el("li", {},
      el("button", { type: "button", testid: "mistake-item", dataset: { index: String(i) }, onclick: () => stepReview(i) },
        el("span", { class: "cost" }, `−${lostText(review, m.mistake.cost)}`),
        // the move in the action's words, as the box and the hint say it
        `move ${i + 1}: ${m.mistake.played ? m.mistake.played.label : m.text}`)))),
      el("p", { class: "hint-meta" }, "A mistake: the analysis, from your information only, found a better action by more than its 95% interval. " +
        "Its cost is the expected return it lost" + (review.points_per_unit ? ", in points." : ", in Page One's returns, which score finishing places.")));
  }
  const dealSelect = $("review-deal");
  const view = app.view && app.view.id === app.reviewSource ? app.view : null;
  const deals = app.reviewDeals || review.deals || (view && view.match ? view.match.deal - (view.status === "deal_over" || view.status === "match_over" ? 0 : 1) : 1);
  dealSelect.hidden = deals <= 1;
  dealSelect.replaceChildren(...Array.from({ length: deals }, (_, k) => el("option", { value: String(k), selected: k === review.deal }, `deal ${k + 1}`)));
}

function stepReview(index) {
  if (!app.review) return;
  app.reviewIndex = Math.max(0, Math.min(app.reviewSteps.length - 1, index));
  renderReviewMove();
}

/** Steps to the reviewed seat's next decision, past chance and the others' moves. */
function nextOwnMove() {
  if (!app.review) return;
  const steps = app.reviewSteps;
  for (let i = app.reviewIndex + 1; i < steps.length; i++) {
    if (steps[i].seat === app.review.seat || steps[i].final) return stepReview(i);
  }
}

function renderReviewMove() {
  const steps = app.reviewSteps;
  const move = steps[app.reviewIndex];
  $("review-slider").value = String(app.reviewIndex);
  $("review-position").textContent = steps.length ? `${app.reviewIndex + 1} / ${steps.length}` : "0 / 0";
  const felt = $("review-felt");
  if (!move) {
    felt.replaceChildren(el("p", {}, "This deal has no moves."));
    $("review-move").textContent = "";
    $("review-mistake").hidden = true;
    return;
  }
  const open = $("review-open").checked;
  const view = open && move.open ? move.open : move.view;
  const mistake = move.mistake || {};
  renderFelt(felt, view, { interactive: false, hinted: mistake.best ? mistake.best.action : null,
    played: mistake.played ? mistake.played.action : null });
  const text = open && move.open_text ? move.open_text : move.text;
  const canTakeOver = !move.final && move.index !== null && move.index !== undefined;
  // One numbering: the slider's position, the log's and the mistakes list's "move k" are the same k.
  $("review-move").replaceChildren(el("span", { class: "who" }, move.final ? "Final position:" : `Move ${app.reviewIndex + 1}:`), " ", text,
    canTakeOver ? el("button", { type: "button", class: "small takeover", testid: "review-takeover", onclick: () => takeOver(move.index),
      title: "Play on from this position yourself, the bots at the other seats" }, "Play from here") : null);
  const box = $("review-mistake");
  if (move.mistake) {
    const m = move.mistake;
    const interval = m.interval ? ` (95% interval ${lostText(app.review, m.interval[0])} to ${lostText(app.review, m.interval[1])})` : "";
    // "You" only where a person sat (the server says so): a tournament's reviewed seat is a bot's
    const mover = view.players.find((p) => p.seat === move.seat);
    const who = app.review.person && move.seat === app.review.seat ? "You"
      : `p${move.seat}` + (mover && mover.agent ? ` (${mover.agent})` : "");
    const played = m.played ? `${who} played ${m.played.label}; ` : "";
    box.textContent = `Mistake: ${played}${m.best ? m.best.label : "another action"} was better by ${lostText(app.review, m.cost)}${interval}.`;
    box.hidden = false;
  } else {
    box.hidden = true;
  }
  renderReviewLog(open);
  for (const item of document.querySelectorAll("[data-testid=mistake-item]")) {
    item.classList.toggle("current", Number(item.dataset.index) === app.reviewIndex);
  }
}

/** The review's log: the deal's moves up to this step, each with its number (the slider's), the
 * step's own move marked; a click on one steps there. */
function renderReviewLog(open) {
  const list = $("log");
  const steps = app.reviewSteps.slice(0, app.reviewIndex + 1);
  list.replaceChildren(...steps.map((step, i) => (step.final ? null : el("li", {
    class: (step.seat === app.review.seat ? "mine" : "") + (i === app.reviewIndex ? " current" : ""),
    testid: "review-log-line", dataset: { move: String(i + 1) }, onclick: () => stepReview(i),
  }, el("span", { class: "move-number" }, `${i + 1}.`), " ", open && step.open_text ? step.open_text : step.text))));
  list.scrollTop = list.scrollHeight;
}

function renderLuck(review) {
  // The deal's luck and skill per side (eval/luck.py): only once the deal is over, every card open.
  const box = $("review-luck");
  const lines = review.luck || [];
  box.hidden = !lines.length;
  box.replaceChildren(...(lines.length ? [el("span", { class: "who" }, "Luck and skill:"),
    el("ul", {}, lines.map((line) => el("li", { testid: "luck-line" }, line.text))),
    el("span", { class: "hint-meta" }, "What each side made, what the cards dealt and drawn gave it (measured by the value network " +
      "at every chance event, against the average card), and what its decisions made of them.")] : []));
}

async function takeOver(moveIndex) {
  if (app.busy) return;
  app.busy = true;
  document.body.dataset.status = "sending";
  try {
    const body = { move: moveIndex, seat: app.review.seat };
    if (app.review.deal !== undefined) body.deal = app.review.deal;
    const view = await api("POST", `/api/games/${app.reviewSource}/takeover`, body);
    app.busy = false;
    app.review = null;
    app.view = null;
    setView(view);
  } catch (err) {
    app.busy = false;
    document.body.dataset.status = "review";
    showError(err);
  }
}

function closeReview() {
  app.review = null;
  $("mistakes-panel").hidden = true;
  if (app.view && app.view.id === app.reviewSource) {
    app.seenLog = 0;
    render();
    document.body.dataset.status = app.view.status;
    statusFromView(app.view);
    schedulePoll();
  } else {
    showSetup();
  }
}

// ---------- screens ----------

function showScreen(name) {
  $("setup").hidden = name !== "setup";
  $("table-area").hidden = name !== "table";
  $("review-area").hidden = name !== "review";
  $("sidebar").hidden = name === "setup";
  if (name !== "review") $("mistakes-panel").hidden = true;
  if (name === "review") $("hint-panel").hidden = true;
  $("hint-button").hidden = name !== "table";
}

// ---------- the new-game form ----------

function currentGameOption() {
  const name = $("game-select").value;
  return app.options.games.find((g) => g.name === name);
}

function playerCount(game) {
  const input = document.querySelector("[data-param=players]");
  if (input && input.value !== "") return Number(input.value);
  return game.players[0];
}

function paramField(param) {
  const id = `param-${param.name}`;
  const label = el("span", { class: "field-label" }, param.label || param.name.replace(/_/g, " "));
  const error = el("span", { class: "field-error", testid: `error-params.${param.name}` });
  // The help is "values: the rule page's sentence"; the values go under the field, all of it in the tooltip.
  const values = param.help && param.type !== "bool" ? param.help.split(": ")[0].replace(/`/g, "") : "";
  const help = values ? el("span", { class: "field-help", title: param.help }, values) : null;
  let input;
  if (param.type === "bool") {
    input = el("input", { type: "checkbox", id, testid: id, dataset: { param: param.name, type: "bool" } });
    input.checked = !!param.default;
    return el("label", { class: "field checkbox", title: param.help || null, dataset: { field: `params.${param.name}` } }, input, label, help, error);
  }
  if (param.type === "choice" || (param.choices && param.choices.length)) {
    input = el("select", { id, testid: id, dataset: { param: param.name, type: param.type } },
      (param.choices || []).map((c) => el("option", { value: String(c), selected: String(c) === String(param.default) }, String(c))));
  } else if (param.type === "int" || param.type === "float") {
    input = el("input", {
      type: "number", id, testid: id, step: param.type === "int" ? "1" : "any",
      min: param.min ?? null, max: param.max ?? null, value: String(param.default ?? ""),
      dataset: { param: param.name, type: param.type },
    });
  } else {
    input = el("input", { type: "text", id, testid: id, value: String(param.default ?? ""), dataset: { param: param.name, type: param.type || "str" } });
  }
  return el("label", { class: "field", title: param.help || null, dataset: { field: `params.${param.name}` } }, label, input, help, error);
}

function buildParams() {
  const game = currentGameOption();
  const box = $("param-fields");
  box.replaceChildren(...game.params.map(paramField));
  const players = document.querySelector("[data-param=players]");
  for (const event of ["change", "input"]) {
    if (players) players.addEventListener(event, () => { buildSeats(); selectMatchDefault(game); });
  }
  const match = game.match || { kind: "none" };
  $("match-field").hidden = match.kind === "none" || !match.choices || !match.choices.length;
  $("match-label").textContent = match.kind === "target" ? "Play to (points)" : match.kind === "deals" ? "Deals" : "Match";
  $("match-select").replaceChildren(...(match.choices || []).map((c) => el("option", { value: String(c) }, matchChoiceLabel(match, c))));
  selectMatchDefault(game);
  buildSeats();
}

function selectMatchDefault(game) {
  // The server's default for this player count (classic Canasta: 7,500 with three, else 5,000).
  const match = game.match || {};
  const chosen = (match.defaults || {})[String(playerCount(game))] ?? match.default;
  if (chosen !== undefined && chosen !== null) $("match-select").value = String(chosen);
}

function matchChoiceLabel(match, choice) {
  const text = String(choice);
  const value = text.includes("=") ? text.split("=")[1] : text;
  if (match.kind === "target") return `${Number(value).toLocaleString("en")} points`;
  if (match.kind === "deals") return Number(value) === 1 ? "one deal" : `${value} deals`;
  return text;
}

function buildSeats() {
  const game = currentGameOption();
  const n = playerCount(game);
  if (!Number.isInteger(n) || n < 1 || n > 12) return;
  const seatSelect = $("seat-select");
  const previousSeat = Number(seatSelect.value || 0);
  seatSelect.replaceChildren(...Array.from({ length: n }, (_, s) => el("option", { value: String(s), selected: s === Math.min(previousSeat, n - 1) }, `seat ${s}` + seatHint(game, s))));
  const bots = app.options.bots.filter((b) => !b.games || b.games.includes(game.name));
  const fallback = app.variant && app.variant.game === game.name ? { spec: app.variant.default }
    : bots.find((b) => (b.default_for || []).includes(game.name)) || bots[0];
  $("bot-specs").replaceChildren(...bots.map((b) => el("option", { value: b.spec }, b.title)));
  // A seat's choice carries over only within the same game (another game's bot may not play it),
  // and only where the player typed it; the others follow the variant's default (refreshLevels).
  const previous = {};
  if (app.seatsGame === game.name) {
    for (const input of document.querySelectorAll("[data-bot-seat]")) {
      if (input.dataset.touched) previous[input.dataset.botSeat] = input.value;
    }
  }
  app.seatsGame = game.name;
  const seat = Number(seatSelect.value);
  const fields = [];
  for (let s = 0; s < n; s++) {
    if (s === seat) continue;
    const input = el("input", {
      type: "text", list: "bot-specs", id: `bot-${s}`, testid: `bot-${s}`, autocomplete: "off", spellcheck: "false",
      value: previous[s] !== undefined ? previous[s] : fallback ? fallback.spec : "", dataset: { botSeat: String(s) },
    });
    if (previous[s] !== undefined) input.dataset.touched = "1";
    const note = el("span", { class: "field-help level-note", testid: `level-${s}` });
    input.addEventListener("input", () => { input.dataset.touched = "1"; levelNote(input, note); });
    fields.push(el("label", { class: "field", dataset: { field: `bots.${s}` } },
      el("span", { class: "field-label" }, `Seat ${s}` + seatHint(game, s, seat)), input, note,
      el("span", { class: "field-error", testid: `error-bots.${s}` })));
    levelNote(input, note);
  }
  $("bot-fields").replaceChildren(...fields);
}

function levelNote(input, note) {
  // Beside a seat's bot, its level's measured strength (from the run records, via the server),
  // or why it cannot play the rules chosen above.
  const option = app.options.bots.find((b) => b.spec === input.value.trim() && b.level);
  const refused = app.variant && app.variant.refused ? app.variant.refused[input.value.trim()] : null;
  note.textContent = refused ? `cannot play these rules: ${refused}` : option ? option.title : "";
  note.classList.toggle("refused", !!refused);
}

async function refreshLevels() {
  // The variant's playable levels and default (POST /api/levels): untouched seats follow the
  // default, and a seat holding a level that cannot play the new rules goes back to it.
  const form = readForm();
  const asked = JSON.stringify({ game: form.game, params: form.params });
  app.levelsAsked = asked;
  let variant;
  try {
    variant = await api("POST", "/api/levels", { game: form.game, params: form.params });
  } catch (err) {
    return;      // a bad parameter: the field error comes when the game is dealt
  }
  if (app.levelsAsked !== asked) return;     // a later change has asked again
  app.variant = variant;
  for (const input of document.querySelectorAll("[data-bot-seat]")) {
    const value = input.value.trim();
    if (!input.dataset.touched || (variant.refused || {})[value]) {
      input.value = variant.default;
      delete input.dataset.touched;
    }
    levelNote(input, input.parentElement.querySelector(".level-note"));
  }
  document.body.dataset.levels = asked;
}

function seatHint(game, seat, mySeat) {
  // The partnerships the server names for this player count (Canasta's: seats 0 and 2 against 1 and 3).
  const sides = (game.sides || {})[String(playerCount(game))];
  if (!sides) return "";
  if (mySeat === undefined) {
    const together = sides.map((side, s) => (side === sides[seat] ? s : null)).filter((s) => s !== null);
    return ` (side ${together.join(", ")})`;
  }
  return sides[seat] === sides[mySeat] ? " · your partner" : " · opponent";
}

function readForm() {
  const game = currentGameOption();
  const params = {};
  for (const input of document.querySelectorAll("[data-param]")) {
    const type = input.dataset.type;
    if (type === "bool") params[input.dataset.param] = input.checked;
    else if (type === "int") params[input.dataset.param] = input.value === "" ? null : Number(input.value);
    else if (type === "float") params[input.dataset.param] = input.value === "" ? null : Number(input.value);
    else {
      const param = game.params.find((p) => p.name === input.dataset.param);
      const numeric = param && typeof param.default === "number";
      params[input.dataset.param] = numeric && input.value !== "" && !Number.isNaN(Number(input.value)) ? Number(input.value) : input.value;
    }
  }
  const bots = {};
  for (const input of document.querySelectorAll("[data-bot-seat]")) bots[input.dataset.botSeat] = input.value.trim();
  const match = game.match || { kind: "none" };
  let matchValue = null;
  if (match.kind !== "none" && !$("match-field").hidden) {
    const value = $("match-select").value;
    matchValue = value.includes("=") ? value : `${match.kind}=${value}`;
  }
  const seedText = $("seed-input").value.trim();
  const limitText = $("time-limit").value.trim();
  return {
    game: game.name, params, seat: Number($("seat-select").value), bots, match: matchValue,
    seed: seedText === "" ? null : Number(seedText), time_limit: limitText === "" ? null : Number(limitText),
    auto: $("auto-input").checked,
  };
}

function clearFieldErrors() {
  for (const field of document.querySelectorAll("#new-game-form .field")) field.classList.remove("invalid");
  for (const error of document.querySelectorAll("#new-game-form .field-error")) error.textContent = "";
}

function showFieldError(field, message) {
  const box = field ? document.querySelector(`#new-game-form [data-field="${CSS.escape(field)}"]`) : null;
  if (box) {
    box.classList.add("invalid");
    box.querySelector(".field-error").textContent = message;
    const input = box.querySelector("input, select");
    if (input) input.focus();
  } else {
    $("form-error").textContent = message;
  }
}

async function startGame(event) {
  event.preventDefault();
  if (app.busy) return;
  clearFieldErrors();
  const body = readForm();
  app.busy = true;
  $("start-game").disabled = true;
  setStatus("Dealing…");
  try {
    const view = await api("POST", "/api/games", body);
    app.busy = false;
    app.view = null;
    setView(view);
  } catch (err) {
    app.busy = false;
    showFieldError(err.field, err.message);
    showError(err);
  } finally {
    $("start-game").disabled = false;
  }
}

/** The records folder's newest files: review any, continue an unfinished one. */
async function loadRecords() {
  let listing;
  try {
    listing = await api("GET", "/api/records");
  } catch (err) {
    return;     // the form works without the list
  }
  // Unfinished games first, every one of them (they can be continued only from here), then the
  // newest finished ones up to eight rows in all.
  const all = listing.files || [];
  const unfinished = all.filter((f) => f.unfinished);
  const files = [...unfinished, ...all.filter((f) => !f.unfinished).slice(0, Math.max(0, 8 - unfinished.length))];
  $("records").hidden = !files.length;
  $("record-list").replaceChildren(...files.map((file) => {
    const name = file.path.split(/[\\/]/).pop();
    const about = [file.game, file.deals ? `${file.deals} deal${file.deals === 1 ? "" : "s"}` : null,
      file.modified ? new Date(file.modified).toLocaleString() : null].filter(Boolean).join(" · ");
    return el("li", { testid: "record" },
      el("span", { class: "record-name", title: file.path }, about || name),
      file.unfinished ? el("span", { class: "chip unfinished" }, "unfinished") : null,
      el("button", { type: "button", class: "small", testid: "record-review", onclick: () => openRecord(file.path, false) }, "Review"),
      file.unfinished ? el("button", { type: "button", class: "small primary", testid: "record-continue", onclick: () => openRecord(file.path, true) }, "Continue") : null);
  }));
}

async function openRecord(path, resume) {
  try {
    const opened = await api("POST", "/api/review", { path });
    if (resume) {
      const last = Math.max(0, (opened.deals || []).length - 1);
      app.view = null;
      setView(await api("POST", `/api/games/${opened.id}/takeover`, { deal: last }));
    } else {
      app.reviewDeals = (opened.deals || []).length || null;
      await openReview(opened.id);
    }
  } catch (err) {
    showError(err);
  }
}

function showSetup() {
  clearTimeout(app.pollTimer);
  loadRecords();
  showScreen("setup");
  $("setup-cancel").hidden = !app.view;
  if (!app.view) setStatus("Choose a game, its rules and your opponents, then deal.");
}

async function nextDeal() {
  if (app.busy || !app.view) return;
  app.busy = true;
  document.body.dataset.status = "sending";
  $("next-deal").disabled = true;
  try {
    const view = await api("POST", `/api/games/${app.gameId}/next`);
    app.busy = false;
    setView(view);
  } catch (err) {
    app.busy = false;
    document.body.dataset.status = app.view.status;
    showError(err);
  } finally {
    $("next-deal").disabled = false;
  }
}

// ---------- start ----------

function wire() {
  $("new-game-form").addEventListener("submit", startGame);
  $("game-select").addEventListener("change", () => { buildParams(); refreshLevels(); });
  $("param-fields").addEventListener("change", refreshLevels);
  $("seat-select").addEventListener("change", buildSeats);
  $("seed-roll").addEventListener("click", () => { $("seed-input").value = String(Math.floor(Math.random() * 1e6)); });
  $("new-game-button").addEventListener("click", showSetup);
  $("deal-new-game").addEventListener("click", showSetup);
  $("setup-cancel").addEventListener("click", () => { if (app.view) { render(); statusFromView(app.view); schedulePoll(); } });
  $("next-deal").addEventListener("click", nextDeal);
  $("hint-button").addEventListener("click", askHint);
  $("review-button").addEventListener("click", () => { app.reviewDeals = null; openReview(app.gameId); });
  $("deal-review").addEventListener("click", () => { app.reviewDeals = null; openReview(app.gameId); });
  $("review-close").addEventListener("click", closeReview);
  $("review-first").addEventListener("click", () => stepReview(0));
  $("review-prev").addEventListener("click", () => stepReview(app.reviewIndex - 1));
  $("review-next").addEventListener("click", () => stepReview(app.reviewIndex + 1));
  $("review-last").addEventListener("click", () => stepReview(app.reviewSteps.length - 1));
  $("review-mine").addEventListener("click", nextOwnMove);
  $("review-slider").addEventListener("input", (e) => stepReview(Number(e.target.value)));
  $("review-open").addEventListener("change", renderReviewMove);
  $("review-deal").addEventListener("change", (e) => openReview(app.reviewSource, Number(e.target.value)));
  window.addEventListener("resize", () => { for (const hand of document.querySelectorAll(".hand")) fitHand(hand); });
  document.addEventListener("keydown", (e) => {
    if (!app.review || e.target.closest("input[type=text], input[type=number], select")) return;
    if (e.key === "ArrowLeft") stepReview(app.reviewIndex - 1);
    if (e.key === "ArrowRight") stepReview(app.reviewIndex + 1);
    if (e.key === "Enter" && !e.target.closest("button")) nextOwnMove();
  });
}

async function main() {
  wire();
  try {
    app.options = await api("GET", "/api/options");
  } catch (err) {
    showError(err);
    return;
  }
  $("game-select").replaceChildren(...app.options.games.map((g) => el("option", { value: g.name }, g.title)));
  $("seed-input").value = String(Math.floor(Math.random() * 1e6));
  buildParams();
  refreshLevels();
  const hash = new URLSearchParams(location.hash.slice(1));
  const query = new URLSearchParams(location.search);
  const reviewId = hash.get("review") || query.get("review");
  const gameId = hash.get("game") || query.get("game");
  if (reviewId) {
    app.reviewSource = reviewId;
    await openReview(reviewId);
  } else if (gameId) {
    try {
      setView(await api("GET", `/api/games/${gameId}`));
    } catch (err) {
      showSetup();
      showError(err);
    }
  } else {
    showSetup();
  }
}

main();
