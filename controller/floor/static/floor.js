"use strict";
// The floor page: every table, live over a WebSocket (the server LISTENs to PostgreSQL).
const SUITS = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
// the round's states in the pit's words
const STATES = {
  shuffle: "new shoe: shuffle", burn: "burning cards", betting: "taking bets",
  dealing: "dealing", offers: "insurance and surrender", insurance: "insurance",
  surrender: "surrender", peek: "checking the hole card", playing: "players' turns",
  card_due: "players' turns", rescue: "rescue offered", reveal: "turning the hole card",
  dealer: "dealer's turn", settling: "paying and collecting", hold: "HELD",
};
const DEVICES = { shoe: "shoe", peek: "reader", panel: "panel", floor: "floor" };
const tables = new Map();
let alerts = [];
let open = null;  // the table whose rounds are shown
let chosen = null;  // the round shown
let refreshing = null;
let shownAlerts = null;
let shownList = null;  // the round list and the round as last drawn
let shownRound = null;

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
}

function cardText(text) {
  return (text[0] === "T" ? "10" : text[0]) + (SUITS[text[1]] || "?");
}

function cardNode(text, to) {
  const node = el("div", "card");
  node.dataset.card = text;
  node.append(document.createTextNode(cardText(text)));
  if (text[1] === "H" || text[1] === "D") node.classList.add("red");
  if (to) node.append(el("small", "", to));
  return node;
}

function mini(text) {
  const node = el("span", "mini", cardText(text));
  node.dataset.card = text;
  if (text[1] === "H" || text[1] === "D") node.classList.add("red");
  return node;
}

// A prompt as the dealer's screen says it: its parts, text and cards (the server's words).
function promptNode(cls, parts, prefix) {
  const node = el("div", cls, prefix || "");
  for (const p of parts) node.append(p.card ? mini(p.card) : document.createTextNode(p.text));
  return node;
}

function money(c) {
  const s = c < 0 ? "-" : ""; c = Math.abs(c);
  return s + "$" + Math.floor(c / 100).toLocaleString("en") + (c % 100 ? "." + String(c % 100).padStart(2, "0") : "");
}

function signed(c) {
  return (c > 0 ? "+" : "") + money(c);
}

function roundWords(r) {
  if (r.void) return "void";
  if (r.in_play) return "in play";
  return r.net !== null ? "players " + signed(r.net_cents) : "over";
}

// The live round on a table's card: the dealer's cards, then each box's bet, cards and result.
function liveNode(live) {
  const hands = el("div", "hands");
  hands.dataset.round = live.round;
  const places = new Map([["dealer", { who: "dealer", cards: [], cents: null }]]);
  const place = (to) => {
    if (!places.has(to)) places.set(to, { who: to, cards: [], cents: null });
    return places.get(to);
  };
  for (const b of live.bets) place("box " + b.box).who = "box " + b.box + " " + b.player + " " + b.amount;
  for (const c of live.cards) if (c.to && c.to !== "burn") place(c.to).cards.push(c.card);
  for (const e of live.ledger) {
    const p = place("box " + e.box);
    p.cents = (p.cents || 0) + e.amount_cents;
  }
  for (const p of places.values()) {
    if (p.who === "dealer" && !p.cards.length) continue;
    const cards = el("span", "minis");
    for (const c of p.cards) cards.append(mini(c));
    hands.append(el("span", "who", p.who), cards, el("span", "money", p.cents === null ? "" : signed(p.cents)));
  }
  return hands;
}

function tableNode(t) {
  const node = el("article", "table");
  node.dataset.table = t.table_id;
  if (t.alerts.some((a) => !a.acked)) node.classList.add("alert");
  const live = t.live;
  // a table whose shipper went silent: what the card shows is old, and it says so at once
  const silent = t.alerts.find((a) => a.kind === "silent");
  if (silent) node.classList.add("silent");
  const h = el("h3");
  const state = el("span", "state", silent ? "silent" : t.stopped ? "stopped" : STATES[t.state] || t.state || "-");
  state.dataset.state = t.state || "";
  if (t.state === "hold" || silent) state.classList.add("hold");
  const name = el("span", "name", t.table_id + " ");
  name.append(state);
  h.append(name, el("span", "round", "round " + (t.round ?? "-") + (live && live.start_time ? " · " + live.start_time : "")));
  const game = el("div", "game", [(t.game || t.variant).split(" (")[0], t.limits].filter(Boolean).join(" · ") + (live && !live.in_play && live.net !== null ? " · round over" : ""));
  game.title = t.game || t.variant;
  node.append(h, game);
  const line = (a, b, cls) => { const d = el("div", "line " + (cls || "")); d.append(el("span", "", a), el("span", "", b)); return d; };
  if (silent) node.append(el("div", "prompt hold", silent.text[0].toUpperCase() + silent.text.slice(1) + ": what the card shows may be out of date"));
  else if (t.stopped) node.append(el("div", "prompt", "Stopped: the table was closed cleanly and deals nothing until it starts again"));
  else if (t.state === "hold" && t.hold.length) node.append(el("div", "prompt hold", t.hold[t.hold.length - 1]));
  else if (live && live.prompt_parts && live.prompt_parts.length) node.append(promptNode("prompt", live.prompt_parts));
  if (live) node.append(liveNode(live));
  const foot = el("div", "foot");
  foot.append(line("house win " + t.house_win, t.rounds + (t.rounds === 1 ? " round, " : " rounds, ") + t.rounds_per_hour + "/h"));
  const devs = el("div", "devices");
  for (const d of t.devices) {
    const faults = Object.keys(d.faults);
    devs.append(el("span", "dev-" + d.status, (DEVICES[d.role] || d.role) + (faults.length ? " (" + faults.join(", ") + ")" : "")));
  }
  const s = t.shipper;
  if (silent) devs.append(el("span", "dev-lost", "shipping: no word"));
  else if (t.stopped) devs.append(el("span", "dev-connecting", "shipping: stopped with the table"));
  else devs.append(el("span", s ? "dev-" + s.status : "dev-connecting", s ? "shipping " + s.status + (s.backlog_rows ? ", " + s.backlog_rows + (s.backlog_rows === 1 ? " row behind" : " rows behind") : "") : "no word from the shipper"));
  foot.append(devs);
  if (t.signed_in.length) foot.append(el("div", "signed", "signed in: " + t.signed_in.join("; ")));
  // who deals, and the rated players seated (from the table's people rows)
  const people = el("div", "people");
  people.append(el("span", t.dealer ? "dealer" : "dealer none", t.dealer ? "dealer " + t.dealer.name + " (" + t.dealer.staff_id + ")" : "no dealer signed in"));
  if (t.seated && t.seated.length) people.append(el("span", "seated", "rated: " + t.seated.map((p) => "box " + p.box + " " + p.player).join(", ")));
  foot.append(people);
  node.append(foot);
  const recent = el("ul", "recent");
  for (const r of t.recent.filter((r) => !r.in_play)) {
    const li = el("li");
    li.dataset.round = r.round;
    li.append(el("span", "", (r.end_time || r.start_time || "") + " round " + r.round), el("span", "", roundWords(r)));
    recent.append(li);
  }
  node.append(recent);
  return node;
}

const SCALES = [1.8, 1.6, 1.45, 1.3, 1.15, 1];
const MIN_CARD_PX = 200;
const RECENT_LINES = 3;  // room kept for a table's last rounds when the live round is drawn large
let scale = 1;  // the live rounds' size on every card (one size: cards side by side compare)

function overflows(node) {
  return node.scrollHeight > node.clientHeight || node.scrollWidth > node.clientWidth;
}

function fits(node, roomy) {
  if (overflows(node)) return false;
  const list = node.querySelector(".recent");
  const line = parseFloat(getComputedStyle(node).fontSize) * 1.35;
  return !roomy || !list || list.clientHeight >= RECENT_LINES * line;
}

// The largest size at which this card shows its live round whole (and, drawn larger than
// the smallest, keeps room for a few of its last rounds).
function largest(node) {
  node.style.height = "";
  for (const s of SCALES) {
    node.style.setProperty("--s", s);
    if (fits(node, s > 1)) return s;
  }
  return 1;
}

// A card never cuts its live round: one that does not fit at the smallest size grows (the
// page scrolls); its last rounds are shown as many as fit, no line cut in half.
function fit(node) {
  node.style.setProperty("--s", scale);
  node.style.height = "";
  if (node.scrollHeight > node.clientHeight) {
    node.style.height = node.scrollHeight + (node.offsetHeight - node.clientHeight) + "px";
  }
  const list = node.querySelector(".recent");
  while (list && list.lastChild && list.scrollHeight > list.clientHeight) list.lastChild.remove();
}

function fitAll(main) {
  scale = Math.min(...[...main.children].map(largest), SCALES[0]);
  for (const node of main.children) fit(node);
}

// As many columns as fit at 22rem, then as few as the rows need (4 tables: 2 x 2, not 3 + 1).
function layout(main) {
  const n = Math.max(1, main.children.length);
  const rem = parseFloat(getComputedStyle(document.documentElement).fontSize);
  const fits = Math.max(1, Math.floor((main.clientWidth - 16) / (22 * rem)));
  const rows = Math.ceil(n / fits);
  main.style.setProperty("--cols", Math.ceil(n / rows));
  const room = (main.clientHeight - 16 - (rows - 1) * 8) / rows;
  main.style.setProperty("--h", Math.max(MIN_CARD_PX, Math.floor(room)) + "px");
}

function alertNode(a) {
  const li = el("li", a.kind + (a.acked ? " acked" : ""));
  li.dataset.table = a.table_id;
  li.dataset.kind = a.kind;
  li.append(el("span", "text", a.table_id + ": " + a.text), el("span", "since", "since " + a.since_time));
  if (a.acked) {
    li.append(el("span", "ack-by", "acknowledged by " + a.acked.by + " at " + a.acked.time));
  } else {
    const button = el("button", "ack", "acknowledge");
    button.type = "button";
    button.addEventListener("click", () => acknowledge(a, li, button));
    li.append(button);
  }
  return li;
}

async function acknowledge(a, li, button) {
  button.disabled = true;
  const reply = await fetch("/api/alerts/ack", {
    method: "POST", credentials: "same-origin", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ table_id: a.table_id, kind: a.kind, text: a.text, since: a.since }),
  });
  if (!reply.ok) {
    const said = await reply.json().catch(() => ({}));
    li.append(el("span", "ack-by", said.error || "not acknowledged"));
    button.disabled = false;
  }
}

// A press opens the table it went down on, though the card is drawn anew before the button
// goes up (a dealing table's card is replaced several times a second, and a click on the card
// itself was lost when the release came on its successor).
let pressed = null;
function pressedTable(ev) {
  const card = ev.target instanceof Element ? ev.target.closest("article.table") : null;
  return card ? card.dataset.table : null;
}
document.getElementById("tables").addEventListener("pointerdown", (ev) => {
  pressed = ev.button === 0 ? pressedTable(ev) : null;
});
document.getElementById("tables").addEventListener("pointerup", (ev) => {
  const id = pressedTable(ev);
  if (id !== null && id === pressed) openTable(id);
  pressed = null;
});

// Only what changed is drawn again (a button or a card stays under the pointer meanwhile).
function render(changed, full) {
  const main = document.getElementById("tables");
  if (full) main.replaceChildren();
  const count = main.children.length;
  const made = [];
  for (const t of changed) {
    const node = tableNode(t);
    const old = main.querySelector('article.table[data-table="' + CSS.escape(t.table_id) + '"]');
    if (old) old.replaceWith(node);
    else {
      const after = [...main.children].find((n) => n.dataset.table.localeCompare(t.table_id) > 0);
      main.insertBefore(node, after || null);
    }
    made.push(node);
  }
  if (full || main.children.length !== count) {
    layout(main);
    fitAll(main);
  } else {
    for (const node of made) fit(node);
    if (scale > 1 && made.some((node) => node.style.height)) fitAll(main);
  }
  const shown = JSON.stringify(alerts);
  if (shown === shownAlerts) return;
  shownAlerts = shown;
  const list = document.getElementById("alert-list");
  if (!alerts.length) list.replaceChildren(el("li", "none", "none"));
  else list.replaceChildren(...alerts.map(alertNode));
}

// The dealers' figures this shift (controller/floor/dealers.py; docs/floor.md defines each).
const STEP_HEADS = [["betting", "bets"], ["dealing", "deal"], ["play", "play"], ["dealer", "dealer"], ["settlement", "settle"], ["hold", "hold"]];
let shownDealers = null;

function dealersNode(dealers) {
  const table = el("table", "dealers");
  const head = el("tr");
  for (const h of ["dealer", "tables", "rounds", "rounds/h", ...STEP_HEADS.map((s) => s[1] + " s"), "voids", "overrides", "keyed", "holds", "house win"]) head.append(el("th", "", h));
  table.append(head);
  for (const d of dealers) {
    const tr = el("tr");
    tr.dataset.dealer = d.dealer;
    const cells = [d.name ? d.name + " (" + d.dealer + ")" : d.dealer, d.tables.join(", "), d.rounds, d.rounds_per_hour, ...STEP_HEADS.map((s) => d.seconds_per_round[s[0]]), d.voids, d.overrides, d.misreads_keyed, d.holds, money(d.house_win_cents)];
    for (const c of cells) tr.append(el("td", "", String(c)));
    table.append(tr);
  }
  return table;
}

function showDealers(dealers) {
  const shown = JSON.stringify(dealers);
  if (shown === shownDealers) return;
  shownDealers = shown;
  document.getElementById("dealer-count").textContent = dealers.length ? " (" + dealers.length + ")" : " (none yet)";
  const body = document.getElementById("dealer-table");
  body.replaceChildren(dealers.length ? dealersNode(dealers) : el("p", "none", "no round dealt this shift yet"));
}

function apply(msg) {
  if (msg.full) tables.clear();
  for (const t of msg.tables) tables.set(t.table_id, t);
  alerts = msg.alerts;
  const sh = msg.shift || {};
  document.getElementById("shift").textContent = sh.start ? "shift " + sh.start.slice(11, 16) + "-" + sh.end.slice(11, 16) + " " + (sh.zone || "") : "";
  document.getElementById("totals").textContent = sh.tables !== undefined ? sh.tables + " tables, " + sh.rounds + " rounds, house win " + money(sh.house_win_cents) : "";
  showDealers(sh.dealers || []);
  document.getElementById("who").textContent = msg.signed_in && msg.signed_in.length ? "signed in: " + msg.signed_in.join(", ") : "";
  const link = document.getElementById("link");
  link.textContent = msg.healthy ? "live" : (msg.problem || "floor database down");
  link.className = "status " + (msg.healthy ? "live" : "down");
  render(msg.tables, msg.full);
  if (open !== null && msg.tables.some((t) => t.table_id === open)) refreshSoon();
}

async function getJSON(url) {
  const reply = await fetch(url, { credentials: "same-origin" });
  if (!reply.ok) throw new Error((await reply.json()).error || reply.statusText);
  return reply.json();
}

// The open table's rounds follow the table: a round in play is shown settled once it is.
function refreshSoon() {
  if (refreshing !== null) return;
  refreshing = setTimeout(async () => {
    try {
      if (open !== null) await listRounds(open);
      if (open !== null && chosen !== null) await showRound(open, chosen);
    } finally {
      refreshing = null;
    }
  }, 300);
}

async function listRounds(id) {
  const data = await getJSON("/api/tables/" + encodeURIComponent(id) + "/rounds");
  if (open !== id) return;
  const seen = JSON.stringify(data.rounds);
  if (seen === shownList) return;  // drawn again only when a round changed (a click stays)
  shownList = seen;
  const list = document.getElementById("round-list");
  list.replaceChildren(...data.rounds.map((r) => {
    const li = el("li", r.in_play ? "in-play" : "");
    li.dataset.round = r.round;
    if (r.round === chosen) li.classList.add("chosen");
    li.append(el("span", "time", r.start_time || ""), el("span", "", "round " + r.round), el("span", "result", roundWords(r)));
    li.addEventListener("click", () => { chosen = r.round; shownRound = null; showRound(id, r.round); });
    return li;
  }));
}

async function openTable(id) {
  open = id;
  chosen = null;
  shownList = null;
  shownRound = null;
  document.getElementById("detail").hidden = false;
  document.getElementById("detail-title").textContent = "table " + id + ": its rounds, newest first";
  document.getElementById("round-view").replaceChildren();
  await listRounds(id);
}

async function showRound(id, n) {
  for (const li of document.querySelectorAll("#round-list li")) li.classList.toggle("chosen", li.dataset.round === String(n));
  const r = await getJSON("/api/tables/" + encodeURIComponent(id) + "/rounds/" + n);
  if (open !== id || chosen !== n) return;
  const seen = JSON.stringify(r);
  if (seen === shownRound) return;
  shownRound = seen;
  const view = document.getElementById("round-view");
  const times = r.start_time ? " · " + r.start_time + (r.end_time ? "-" + r.end_time : "") : "";
  const head = el("h3", "", "round " + r.round + times + " · " + roundWords(r));
  head.id = "round-head";
  const parts = [head];
  if (r.in_play && r.prompt_parts.length) parts.push(promptNode("prompt", r.prompt_parts, "now: "));
  if (r.bets.length) {
    const bets = el("table", "bets");
    bets.id = "round-bets";
    const tr = el("tr");
    for (const h of ["box", "player", "bet"]) tr.append(el("th", "", h));
    bets.append(tr);
    for (const b of r.bets) {
      const row = el("tr");
      row.append(el("td", "", "box " + b.box), el("td", "", b.player), el("td", "money", b.amount));
      bets.append(row);
    }
    parts.push(bets);
  }
  const cards = el("div", "cards");
  cards.id = "round-cards";
  for (const c of r.cards) cards.append(cardNode(c.card, c.to));
  parts.push(cards);
  if (r.ledger.length) {
    const ledger = el("table", "ledger");
    const tr = el("tr");
    for (const h of ["box", "player", "result", "to the player"]) tr.append(el("th", "", h));
    ledger.append(tr);
    for (const e of r.ledger) {
      const row = el("tr");
      row.append(el("td", "", e.where), el("td", "", e.player), el("td", "", e.reason), el("td", "money", e.amount));
      ledger.append(row);
    }
    parts.push(ledger);
  }
  if (r.overrides.length) {
    const overrides = el("ul");
    for (const o of r.overrides) overrides.append(el("li", "", o.time + " " + o.action + " by " + o.by + (o.detail ? ": " + o.detail : "")));
    parts.push(overrides);
  }
  view.replaceChildren(...parts);
}

document.getElementById("close-detail").addEventListener("click", () => {
  open = null;
  chosen = null;
  document.getElementById("detail").hidden = true;
});

// The rated sessions of the shift, one row each (the server rates them: book theo, skill theo
// and what the decisions cost; docs/floor.md, Ratings and theo).
let ratingsTimer = null;
async function showRatings() {
  const section = document.getElementById("ratings");
  section.hidden = false;
  const note = document.getElementById("ratings-note");
  let data;
  try {
    data = await getJSON("/api/ratings");
  } catch (err) {
    note.textContent = "ratings unavailable: " + err.message;
    return;
  }
  if (section.hidden) return;
  const head = document.querySelector("#rating-table thead tr");
  head.replaceChildren(...data.columns.map((c) => el("th", "", c.words)));
  const body = document.querySelector("#rating-table tbody");
  body.replaceChildren(...data.ratings.map((r) => {
    const tr = el("tr");
    tr.dataset.session = r.session;
    tr.title = r.costliest.length ? "costliest decisions: " + r.costliest.join("; ") : "no costly decision";
    const kind = (key) => key.endsWith("theo") || key === "decision_cost" || key === "average_bet" ? "money" : key === "rules" ? "rules" : "";
    for (const c of data.columns) tr.append(el("td", kind(c.key), r.shown[c.key]));
    return tr;
  }));
  note.textContent = data.ratings.length ? "" : "no rated play this shift";
  clearTimeout(ratingsTimer);
  ratingsTimer = setTimeout(() => { if (!section.hidden) showRatings(); }, 30000);
}

document.getElementById("ratings-link").addEventListener("click", showRatings);
document.getElementById("close-ratings").addEventListener("click", () => {
  document.getElementById("ratings").hidden = true;
  clearTimeout(ratingsTimer);
});

function connect() {
  const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws");
  ws.onmessage = (ev) => {
    const msg = JSON.parse(ev.data);
    if (msg.type === "floor") apply(msg);
  };
  ws.onclose = () => {
    const link = document.getElementById("link");
    link.textContent = "reconnecting";
    link.className = "status down";
    setTimeout(connect, 1000);
  };
}
connect();
window.addEventListener("resize", () => render([...tables.values()], true));
// the live rounds drawn larger again once the rounds that needed the room are over (a floor of
// a few tables: a large one keeps its size)
setInterval(() => {
  const main = document.getElementById("tables");
  if (main.children.length <= 24) fitAll(main);
}, 10000);

// The surveillance page's link, for a user of that role only (the server refuses anyone else).
fetch("/api/me").then((r) => (r.ok ? r.json() : null)).then((me) => {
  if (me && me.surveillance) document.getElementById("surveillance-link").hidden = false;
}).catch(() => {});
