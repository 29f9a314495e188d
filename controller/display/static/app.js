// The dealer display: renders the table state pushed over the WebSocket and sends the panel
// keys and bets of the on-screen controls. Everything is drawn with textContent (no HTML from
// the server is ever interpreted).
"use strict";

const LABELS = {
  DEA: "DEAL", HIT: "HIT", STD: "STAND", DBL: "DOUBLE", SPL: "SPLIT", SUR: "SURRENDER",
  INS: "INSURE", RES: "RESCUE", OK_: "OK", UND: "UNDO", SHF: "SHUFFLE", CAN: "CANCEL", CAL: "CALL",
};
const DECISIONS = ["DEA", "HIT", "STD", "DBL", "SPL", "SUR", "INS", "RES", "OK_", "UND", "SHF", "CAN", "CAL"];
const ENTRY = ["B1_", "B2_", "B3_", "B4_", "B5_", "B6_", "B7_", "W1_", "W2_", "W3_"];
const DIGITS = ["D1_", "D2_", "D3_", "D4_", "D5_", "D6_", "D7_", "D8_", "D9_", "D0_"];
const SUITS = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K"];
// The supervisor's decisions (the "supervisor" message), in the order the display shows them.
const SUPERVISOR = [
  ["confirm", "CONFIRM CARD"], ["assign", "ASSIGN CARD"], ["burn", "BURN CARD"],
  ["clear_lockup", "CLEAR LOCKUP"], ["void", "VOID ROUND"],
];

const token = new URLSearchParams(location.search).get("token");
let socket = null;
let role = null;
let state = null;
let nextId = 1;

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function label(key) {
  if (LABELS[key]) return LABELS[key];
  if (key[0] === "B") return "BOX " + key[1];
  if (key[0] === "W") return "W" + key[1];
  return key[1];
}

function buildButtons() {
  const rows = [["decisions", DECISIONS], ["entry-keys", ENTRY], ["digits", DIGITS]];
  for (const [id, keys] of rows) {
    const row = document.getElementById(id);
    for (const key of keys) {
      const b = el("button", "key", label(key));
      b.type = "button";
      b.id = "key-" + key;
      b.dataset.key = key;
      b.disabled = true;
      b.addEventListener("click", () => send({ type: "press", key }));
      row.appendChild(b);
    }
  }
  const decisions = document.getElementById("supervisor-decisions");
  for (const [decision, text] of SUPERVISOR) {
    const b = el("button", null, text);
    b.type = "button";
    b.id = "decide-" + decision;
    b.disabled = true;
    b.addEventListener("click", () => send({ type: "supervisor", decision }));
    decisions.appendChild(b);
  }
  for (const [id, values, show] of [["key-card-rank", RANKS, (r) => (r === "T" ? "10" : r)],
                                    ["key-card-suit", Object.keys(SUITS), (s) => SUITS[s]]]) {
    const select = document.getElementById(id);
    for (const v of values) {
      const o = el("option", null, show(v));
      o.value = v;
      select.appendChild(o);
    }
  }
  document.getElementById("pin-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const input = document.getElementById("pin-input");
    const pin = input.value.trim();
    input.value = ""; // the PIN is kept nowhere on the page
    send({ type: "pin", pin });
  });
  document.getElementById("key-card-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const card = document.getElementById("key-card-rank").value + document.getElementById("key-card-suit").value;
    send({ type: "key_card", card });
  });
  document.getElementById("bet-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const amount = Math.round(parseFloat(document.getElementById("bet-amount").value) * 100);
    send({
      type: "bet",
      box: parseInt(document.getElementById("bet-box").value, 10),
      player: document.getElementById("bet-player").value.trim(),
      amount_cents: amount,
    });
  });
}

function send(message) {
  if (!socket || socket.readyState !== WebSocket.OPEN) return;
  message.id = nextId++;
  socket.send(JSON.stringify(message));
}

function cardNode(text) {
  const node = el("div", "card");
  node.dataset.card = text;
  node.textContent = (text[0] === "T" ? "10" : text[0]) + SUITS[text[1]];
  if (text[1] === "H" || text[1] === "D") node.classList.add("red");
  return node;
}

function backNode() {
  const node = el("div", "card back");
  node.dataset.card = "face-down";
  node.setAttribute("aria-label", "face-down card");
  return node;
}

function money(cents) {
  const sign = cents < 0 ? "-" : "";
  const abs = Math.abs(cents);
  const whole = Math.floor(abs / 100).toLocaleString("en-US");
  const rest = abs % 100;
  return sign + "$" + whole + (rest ? "." + String(rest).padStart(2, "0") : "");
}

function renderHeader(s) {
  document.getElementById("table-id").textContent = s.table.id;
  document.getElementById("variant").textContent = s.table.variant_name;
  document.getElementById("limits").textContent = "limits " + s.table.limits.text;
  document.getElementById("round").textContent = "round " + s.round + " \u00b7 " + s.state;
  document.getElementById("shuffle").hidden = !s.shuffle_due;
  const devices = document.getElementById("devices");
  devices.replaceChildren();
  for (const d of s.devices) {
    const pill = el("div", "pill " + d.status);
    pill.id = "device-" + d.role;
    pill.dataset.status = d.status;
    pill.title = d.url + (d.identity ? " \u00b7 " + d.identity : "") + (d.detail ? " \u00b7 " + d.detail : "");
    pill.appendChild(el("span", null, d.role + ": " + (d.status === "lost" ? "LINK LOST" : d.status)));
    if (d.faults.length) pill.appendChild(el("span", "faults", " \u26a0 " + d.faults.join(", ")));
    devices.appendChild(pill);
  }
}

function renderPrompt(s) {
  const hold = document.getElementById("hold");
  hold.hidden = !s.holding;
  hold.textContent = s.holding ? "HOLD: " + s.holds.join("; ") : "";
  document.getElementById("prompt").textContent = s.prompt ? s.prompt.text : "";
  document.getElementById("prompt").dataset.code = s.prompt ? s.prompt.code : "";
  const result = document.getElementById("input-result");
  const last = s.last_input;
  result.className = last && !last.accepted ? "refused" : "";
  result.textContent = last && !last.accepted ? "refused: " + last.reason : "";
}

function renderDealer(s) {
  const cards = document.getElementById("dealer-cards");
  cards.replaceChildren();
  for (const c of s.dealer.cards) cards.appendChild(cardNode(c));
  for (let i = 0; i < s.dealer.face_down; i++) cards.appendChild(backNode());
  document.getElementById("dealer-total").textContent = s.dealer.total
    ? (s.dealer.revealed ? "" : "showing ") + s.dealer.total : "";
}

function renderBoxes(s) {
  const area = document.getElementById("boxes");
  area.replaceChildren();
  for (const b of s.boxes) {
    const box = el("div", "box" + (b.in_play ? "" : " empty"));
    box.id = "box-" + b.number;
    if (s.turn && s.turn.box === b.number) box.classList.add("turn");
    box.appendChild(el("h3", null, "Box " + b.number));
    for (const w of b.wagers) box.appendChild(el("div", "wager", w.player + " " + w.text));
    for (const ins of b.insurance || []) {
      box.appendChild(el("div", "wager insurance", "insurance " + ins.player + " " + ins.text));
    }
    if (b.surrendered) box.appendChild(el("div", "wager", "surrendered"));
    for (const h of b.hands) {
      const hand = el("div", "hand" + (h.in_turn ? " turn" : ""));
      hand.id = "box-" + b.number + "-hand-" + h.index;
      const cards = el("div", "cards");
      for (const c of h.cards) cards.appendChild(cardNode(c));
      hand.appendChild(cards);
      let total = h.total === null ? "" : (h.soft ? "soft " : "") + h.total;
      if (h.bust) total = "bust " + h.total;
      if (h.doubled) total += " (doubled)";
      if (h.status) total += " \u00b7 " + h.status;
      hand.appendChild(el("div", "total", total));
      box.appendChild(hand);
    }
    if (b.settlement) {
      const settle = el("div", "settle");
      settle.id = "box-" + b.number + "-settle";
      if (b.settlement.pay_cents) settle.appendChild(el("div", "pay", "PAY " + b.settlement.pay));
      if (b.settlement.collect_cents) settle.appendChild(el("div", "collect", "COLLECT " + b.settlement.collect));
      if (b.settlement.return_cents) settle.appendChild(el("div", "pay", "RETURN " + money(b.settlement.return_cents)));
      for (const line of b.settlement.lines) settle.appendChild(el("div", "line", line.text));
      box.appendChild(settle);
    }
    area.appendChild(box);
  }
  const select = document.getElementById("bet-box");
  if (select.options.length !== s.table.boxes.length) {
    select.replaceChildren();
    for (const n of s.table.boxes) {
      const o = el("option", null, n);
      o.value = n;
      select.appendChild(o);
    }
  }
}

function renderButtons(s) {
  const lit = new Set(s.lit);
  const live = socket && socket.readyState === WebSocket.OPEN && role === "dealer";
  for (const b of document.querySelectorAll("button.key")) {
    b.disabled = !(live && lit.has(b.dataset.key));
  }
  document.getElementById("bet-place").disabled = !(live && s.state === "betting");
  document.getElementById("entry-text").textContent = s.entry.length ? s.entry.join(" ") : "-";
}

function renderAccess(s) {
  const a = s.access;
  const live = socket && socket.readyState === WebSocket.OPEN && role === "dealer";
  let status = "key at " + s.key;
  if (a.signed_in) status += " \u00b7 " + a.signed_in + " signed in";
  else if (a.pin_pad) status += " \u00b7 enter the " + a.key_role + " PIN" + (a.pin_keyed ? " " + "\u2022".repeat(a.pin_keyed) : "");
  for (const [who, until] of Object.entries(a.locked)) status += " \u00b7 " + who + " PIN locked until " + until;
  document.getElementById("access-status").textContent = status;
  document.getElementById("pin-sign-in").disabled = !(live && a.pin_pad);
  const allowed = new Set(a.decisions);
  for (const [decision] of SUPERVISOR) {
    document.getElementById("decide-" + decision).disabled = !(live && allowed.has(decision));
  }
  document.getElementById("key-card-send").disabled = !(live && a.key_in);
  const message = document.getElementById("access-message");
  message.textContent = a.message ? a.message.text : "";
  message.className = a.message && !a.message.accepted ? "refused" : "";
}

function renderHistory(s) {
  const rows = document.getElementById("history-rows");
  rows.replaceChildren();
  for (const r of s.last_rounds) {
    const tr = el("tr");
    tr.appendChild(el("td", null, r.round + (r.void ? " (void)" : "")));
    tr.appendChild(el("td", null, r.dealer.join(" ") + (r.dealer_total ? " (" + r.dealer_total + ")" : "")));
    tr.appendChild(el("td", null, r.net.map((n) => n.player + " " + n.text).join(", ")));
    rows.appendChild(tr);
  }
}

function render() {
  if (!state) return;
  renderHeader(state);
  renderPrompt(state);
  renderDealer(state);
  renderBoxes(state);
  renderButtons(state);
  renderAccess(state);
  renderHistory(state);
}

function setLink(text, ok) {
  const link = document.getElementById("link");
  link.textContent = text;
  link.className = "pill " + (ok ? "" : "lost");
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss://" : "ws://";
  const url = scheme + location.host + "/ws" + (token ? "?token=" + encodeURIComponent(token) : "");
  socket = new WebSocket(url);
  socket.addEventListener("open", () => setLink("display live", true));
  socket.addEventListener("message", (ev) => {
    const msg = JSON.parse(ev.data);
    if (msg.type === "hello") {
      role = msg.role;
      document.body.classList.toggle("viewer", role !== "dealer");
      const r = document.getElementById("role");
      r.textContent = role === "dealer" ? "dealer" : "read-only view";
      r.className = "marker " + role;
    } else if (msg.type === "state") {
      state = msg.state;
      render();
    } else if (msg.type === "error" || (msg.type === "result" && !msg.accepted)) {
      const result = document.getElementById("input-result");
      result.className = "refused";
      result.textContent = "refused: " + (msg.error || msg.reason);
    }
    document.body.dataset.lastMessage = msg.type;
  });
  socket.addEventListener("close", () => {
    setLink("display link lost: reconnecting...", false);
    role = null;
    render();
    setTimeout(connect, 1000);
  });
}

buildButtons();
connect();
