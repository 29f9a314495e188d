"use strict";
// The floor page: every table, live over a WebSocket (the server LISTENs to PostgreSQL).
const SUITS = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
const tables = new Map();
let alerts = [];
let open = null;

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}

function cardNode(text, to) {
  const node = el("div", "card");
  node.dataset.card = text;
  node.append(document.createTextNode((text[0] === "T" ? "10" : text[0]) + (SUITS[text[1]] || "?")));
  if (text[1] === "H" || text[1] === "D") node.classList.add("red");
  if (to) node.append(el("small", "", to));
  return node;
}

function tableNode(t) {
  const node = el("article", "table");
  node.dataset.table = t.table_id;
  if (t.alerts.length) node.classList.add("alert");
  const h = el("h3");
  h.append(el("span", "", t.table_id), el("span", "game", t.variant || ""));
  node.append(h);
  const line = (a, b) => { const d = el("div", "line"); d.append(el("span", "", a), el("span", "", b)); return d; };
  node.append(line("limits " + (t.limits || "-"), "round " + (t.round ?? "-")));
  const state = el("div", "state", t.state || "-");
  state.dataset.state = t.state || "";
  node.append(state);
  if (t.hold.length) node.append(el("div", "hold", t.hold[t.hold.length - 1]));
  node.append(line("house win " + t.house_win, t.rounds + " rounds, " + t.rounds_per_hour + "/h"));
  const devs = el("div", "devices");
  for (const d of t.devices) {
    const faults = Object.keys(d.faults);
    devs.append(el("span", "dev-" + d.status, d.role + (faults.length ? " (" + faults.join(", ") + ")" : "")));
  }
  node.append(devs);
  if (t.signed_in.length) node.append(el("div", "signed", t.signed_in.join("; ")));
  const s = t.shipper;
  node.append(el("div", "ship", s ? ("shipping " + s.status + (s.backlog_rows ? ", " + s.backlog_rows + " rows behind" : "")) : "no word from the shipper"));
  node.addEventListener("click", () => openTable(t.table_id));
  return node;
}

function render() {
  const main = document.getElementById("tables");
  main.replaceChildren(...[...tables.values()].sort((a, b) => a.table_id.localeCompare(b.table_id)).map(tableNode));
  const list = document.getElementById("alert-list");
  if (!alerts.length) list.replaceChildren(el("li", "none", "none"));
  else list.replaceChildren(...alerts.map((a) => {
    const li = el("li", a.kind, a.table_id + ": " + a.text);
    li.dataset.table = a.table_id;
    li.dataset.kind = a.kind;
    return li;
  }));
}

function money(c) {
  const s = c < 0 ? "-" : ""; c = Math.abs(c);
  return s + "$" + Math.floor(c / 100).toLocaleString("en") + (c % 100 ? "." + String(c % 100).padStart(2, "0") : "");
}

function apply(msg) {
  if (msg.full) tables.clear();
  for (const t of msg.tables) tables.set(t.table_id, t);
  alerts = msg.alerts;
  const sh = msg.shift || {};
  document.getElementById("shift").textContent = sh.start ? "shift " + sh.start.slice(11, 16) + "-" + sh.end.slice(11, 16) : "";
  document.getElementById("totals").textContent = sh.tables !== undefined ? sh.tables + " tables, " + sh.rounds + " rounds, house win " + money(sh.house_win_cents) : "";
  document.getElementById("who").textContent = msg.signed_in && msg.signed_in.length ? "signed in: " + msg.signed_in.join(", ") : "";
  const link = document.getElementById("link");
  link.textContent = msg.healthy ? "live" : (msg.problem || "floor database down");
  link.className = "status " + (msg.healthy ? "live" : "down");
  render();
}

async function getJSON(url) {
  const reply = await fetch(url, { credentials: "same-origin" });
  if (!reply.ok) throw new Error((await reply.json()).error || reply.statusText);
  return reply.json();
}

async function openTable(id) {
  open = id;
  document.getElementById("detail").hidden = false;
  document.getElementById("detail-title").textContent = "table " + id + ": last rounds";
  document.getElementById("round-view").replaceChildren();
  const data = await getJSON("/api/tables/" + encodeURIComponent(id) + "/rounds");
  const list = document.getElementById("round-list");
  list.replaceChildren(...data.rounds.map((r) => {
    const li = el("li", "", "round " + r.round + (r.net !== null ? ": players " + r.net : " (in play)") + (r.void ? " VOID" : ""));
    li.dataset.round = r.round;
    li.addEventListener("click", () => showRound(id, r.round, li));
    return li;
  }));
}

async function showRound(id, n, li) {
  for (const other of document.querySelectorAll("#round-list li")) other.classList.remove("chosen");
  li.classList.add("chosen");
  const r = await getJSON("/api/tables/" + encodeURIComponent(id) + "/rounds/" + n);
  const view = document.getElementById("round-view");
  const cards = el("div", "cards");
  cards.id = "round-cards";
  for (const c of r.cards) cards.append(cardNode(c.card, c.to));
  const head = el("h3", "", "round " + r.round + (r.net !== null ? ", players " + r.net : "") + (r.void ? " (void)" : ""));
  const ledger = el("table", "ledger");
  for (const e of r.ledger) {
    const tr = el("tr");
    for (const v of [e.where, e.player, e.kind, e.amount, e.odds || "", e.reason]) tr.append(el("td", "", v));
    ledger.append(tr);
  }
  const overrides = el("ul");
  for (const o of r.overrides) overrides.append(el("li", "", o.action + " by " + o.by + (o.detail ? ": " + o.detail : "")));
  view.replaceChildren(head, cards, ledger, overrides);
}

document.getElementById("close-detail").addEventListener("click", () => {
  open = null;
  document.getElementById("detail").hidden = true;
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
