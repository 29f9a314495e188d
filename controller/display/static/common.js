// What the dealer's screen and the pit's page share: cards drawn in HTML and CSS, chips, the
// round's boxes, and the WebSocket. Everything is drawn with textContent: no HTML from the
// server is ever interpreted.
"use strict";

const SUITS = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
const SUIT_NAMES = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
const RANK_NAMES = { A: "ace", T: "10", J: "jack", Q: "queen", K: "king" };

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function money(cents) {
  const sign = cents < 0 ? "-" : "";
  const abs = Math.abs(cents);
  const whole = Math.floor(abs / 100).toLocaleString("en-US");
  const rest = abs % 100;
  return sign + "$" + whole + (rest ? "." + String(rest).padStart(2, "0") : "");
}

function signed(cents) {
  return (cents > 0 ? "+" : "") + money(cents);
}

// A card face: rank and suit in the corner, the suit large; red suits red (and each suit its
// own shape, so colour is not the only sign).
function cardNode(code, small) {
  const node = el("span", "card" + (small ? " small" : ""));
  const rank = code[0] === "T" ? "10" : code[0];
  node.dataset.card = code;
  node.setAttribute("role", "img");
  node.setAttribute("aria-label", (RANK_NAMES[code[0]] || rank) + " of " + SUIT_NAMES[code[1]]);
  if (code[1] === "H" || code[1] === "D") node.classList.add("red");
  const corner = el("span", "corner", rank);
  corner.setAttribute("aria-hidden", "true");
  corner.appendChild(el("span", "suit", SUITS[code[1]]));
  node.appendChild(corner);
  const pip = el("span", "pip", SUITS[code[1]]);
  pip.setAttribute("aria-hidden", "true");
  node.appendChild(pip);
  return node;
}

function backNode(small) {
  const node = el("span", "card back" + (small ? " small" : ""));
  node.dataset.card = "face-down";
  node.setAttribute("role", "img");
  node.setAttribute("aria-label", "face-down card");
  return node;
}

function cardsNode(codes, small, faceDown) {
  const row = el("span", "cards" + (small ? " small" : ""));
  for (const c of codes) row.appendChild(cardNode(c, small));
  for (let i = 0; i < (faceDown || 0); i++) row.appendChild(backNode(small));
  return row;
}

// Text and cards as the server put them: [{"text": ...}, {"card": "AH"}, ...].
function partsInto(node, parts) {
  node.replaceChildren();
  for (const p of parts || []) {
    if (p.card) node.appendChild(cardNode(p.card, true));
    else node.appendChild(document.createTextNode(p.text));
  }
  node.dataset.text = (parts || []).map((p) => p.text || p.card).join("");
}

function chipsNode(side) {
  const row = el("div", "chips");
  row.setAttribute("aria-label", "chips");
  for (const c of side.chips) {
    const chip = el("span", "chip");
    chip.dataset.cents = c.cents;
    chip.dataset.count = c.count;
    chip.appendChild(el("span", "disc", c.cents >= 100 ? String(c.cents / 100) : c.cents + "\u00a2"));
    chip.appendChild(el("span", "count", "\u00d7" + c.count));
    chip.title = c.count + " \u00d7 " + c.text;
    row.appendChild(chip);
  }
  if (side.rest_cents) {
    const rest = el("span", "chip rest", "+ " + side.rest + " cash");
    rest.dataset.cents = "rest";
    rest.dataset.rest = side.rest_cents;
    row.appendChild(rest);
  }
  return row;
}

// Fan the cards of a row so they fit its width (each card overlaps the one before it).
function fanCards(root) {
  for (const row of root.querySelectorAll(".cards:not(.small)")) {
    const cards = row.querySelectorAll(".card");
    if (cards.length < 2) continue;
    const width = cards[0].getBoundingClientRect().width;
    const room = row.parentElement.clientWidth;
    const rem = parseFloat(getComputedStyle(document.documentElement).fontSize);
    const show = Math.min(width * 0.6, (room - width) / (cards.length - 1));
    row.style.setProperty("--fan", Math.min(-0.25 * rem, show - width) + "px");
  }
}

function renderDealerHand(s, cardsRoot, totalRoot) {
  cardsRoot.replaceChildren(cardsNode(s.dealer.cards, false, s.dealer.face_down));
  totalRoot.textContent = s.dealer.total
    ? (s.dealer.revealed ? "" : "showing ") + s.dealer.total : "";
}

function amountNode(kind, verb, side) {
  const node = el("div", "amount " + kind);
  node.appendChild(el("span", "verb", verb));
  if (side.odds && side.odds.length) node.appendChild(el("span", "odds", "at " + side.odds.join(", ")));
  node.appendChild(el("span", "value", side.text));
  node.dataset.cents = side.cents;
  return node;
}

function handTotal(h) {
  if (h.total === null) return "";
  let total = h.bust ? "bust " + h.total : (h.soft ? "soft " : "") + h.total;
  if (h.doubled) total += " \u00b7 doubled";
  if (h.status && h.status !== "stand" && h.status !== String(h.total) && !h.bust) total += " \u00b7 " + h.status;
  return total;
}

// The boxes: in play, each with its stake, hands and this step's money; the others as a thin
// strip (``onBet(number)`` gives the strip a BET button while bets are open).
function renderBoxes(s, area, onBet) {
  area.replaceChildren();
  for (const b of s.boxes) {
    const box = el("section", "box" + (b.in_play ? "" : " strip"));
    box.id = "box-" + b.number;
    box.setAttribute("aria-label", "box " + b.number);
    if (s.turn && s.turn.box === b.number) box.classList.add("turn");
    box.appendChild(el("h3", null, "Box " + b.number));
    if (!b.in_play) {
      if (onBet) {
        const bet = el("button", "bet-here", "BET");
        bet.type = "button";
        bet.id = "bet-on-" + b.number;
        bet.setAttribute("aria-label", "bet on box " + b.number);
        bet.addEventListener("click", () => onBet(b.number));
        box.appendChild(bet);
      }
      area.appendChild(box);
      continue;
    }
    const stake = el("div", "stake");
    stake.id = "box-" + b.number + "-stake";
    const who = b.wagers.map((w) => w.player).join(", ");
    stake.appendChild(el("b", null, b.stake.text));
    stake.appendChild(document.createTextNode(" " + who));
    stake.dataset.cents = b.stake.cents;
    box.appendChild(stake);
    const flags = [];
    if (b.stake.split) flags.push("split");
    if (b.stake.doubled) flags.push("doubled");
    if (b.stake.insurance_cents) flags.push("insured " + money(b.stake.insurance_cents));
    if (b.surrendered) flags.push("surrendered");
    if (flags.length) {
      const node = el("div", "flags", flags.join(" \u00b7 "));
      node.id = "box-" + b.number + "-flags";
      box.appendChild(node);
    }
    for (const h of b.hands) {
      const hand = el("div", "hand" + (h.in_turn ? " turn" : ""));
      hand.id = "box-" + b.number + "-hand-" + h.index;
      hand.appendChild(cardsNode(h.cards, false));
      hand.appendChild(el("div", "total", (b.hands.length > 1 ? "hand " + h.index + ": " : "") + handTotal(h)));
      box.appendChild(hand);
    }
    const moneyNode = el("div", "money");
    moneyNode.id = "box-" + b.number + "-step";
    const step = b.step;
    if (step) {
      if (step.pay) { moneyNode.appendChild(amountNode("pay", "PAY", step.pay)); moneyNode.appendChild(chipsNode(step.pay)); }
      if (step.collect) { moneyNode.appendChild(amountNode("collect", "COLLECT", step.collect)); moneyNode.appendChild(chipsNode(step.collect)); }
      if (step.return) { moneyNode.appendChild(amountNode("return", "RETURN", step.return)); moneyNode.appendChild(chipsNode(step.return)); }
      if (!step.pay && !step.collect && !step.return && step.push) {
        const push = el("div", "amount push");
        push.appendChild(el("span", "verb", "PUSH: the stake stays"));
        moneyNode.appendChild(push);
      }
    }
    if (b.earlier) moneyNode.appendChild(el("div", "earlier", "done earlier: " + b.earlier));
    box.appendChild(moneyNode);
    area.appendChild(box);
  }
  fanCards(area);
  for (const value of area.querySelectorAll(".amount .value")) fitText(value, 0.5);
}

// Shrink a line's text until it fits its width (never below ``least`` of its own size).
function fitText(node, least) {
  node.style.fontSize = "";
  const full = parseFloat(getComputedStyle(node).fontSize);
  let size = full;
  while (node.scrollWidth > node.clientWidth && size > full * least) {
    size *= 0.93;
    node.style.fontSize = size + "px";
  }
}

function historyNode(r) {
  const node = el("span", "round");
  node.dataset.round = r.round;
  node.appendChild(el("b", null, "#" + r.round + (r.void ? " void" : "")));
  node.appendChild(cardsNode(r.dealer, true));
  if (r.dealer_total) node.appendChild(document.createTextNode(r.dealer_total));
  node.appendChild(document.createTextNode(" \u00b7 " + r.net.map((n) => n.player + " " + signed(n.cents)).join(", ")));
  return node;
}

function deviceText(d) {
  const status = { connected: "", connecting: " connecting", lost: " LINK LOST", refused: " REFUSED" }[d.status];
  const names = { shoe: "shoe", peek: "reader", panel: "panel" };
  return (names[d.role] || d.role) + (status === undefined ? " " + d.status : status) + (d.faults.length ? " \u26a0 " + d.faults.join(", ") : "");
}

// The socket: hello, then a state after every change; reconnects after a second.
// Whether this page has lost its table: true until the table's hello, and again as soon as the
// socket closes or the table says nothing (no state, no heartbeat) for 2.5 of the heartbeats its
// hello promised (a stopped or hung table process can keep its socket open).
let tableLost = true;
let lastHeard = null; // Date.now() of the table's last message
const LOST_AFTER_HEARTBEATS = 2.5;

function heardAt() {
  return lastHeard === null ? "" : new Date(lastHeard).toLocaleTimeString("en-GB");
}

function openSocket(handlers) {
  const token = new URLSearchParams(location.search).get("token");
  const scheme = location.protocol === "https:" ? "wss://" : "ws://";
  const url = scheme + location.host + "/ws" + (token ? "?token=" + encodeURIComponent(token) : "");
  const socket = new WebSocket(url);
  let heartbeatMs = null;
  function setLost(lost) {
    if (lost === tableLost) return;
    tableLost = lost;
    document.body.classList.toggle("table-lost", lost);
    handlers.lost && handlers.lost(lost);
  }
  const watch = setInterval(() => {
    if (heartbeatMs !== null && Date.now() - lastHeard > LOST_AFTER_HEARTBEATS * heartbeatMs) setLost(true);
  }, 250);
  socket.addEventListener("open", () => handlers.open && handlers.open(socket));
  socket.addEventListener("message", (ev) => {
    const msg = JSON.parse(ev.data);
    lastHeard = Date.now();
    if (msg.type === "hello") {
      heartbeatMs = (msg.heartbeat_s || 2) * 1000;
      handlers.hello && handlers.hello(msg, socket);
    }
    else if (msg.type === "state") handlers.state(msg.state);
    else if (msg.type !== "heartbeat") handlers.answer && handlers.answer(msg);
    if (heartbeatMs !== null) setLost(false);
    document.body.dataset.lastMessage = msg.type;
  });
  socket.addEventListener("close", () => {
    clearInterval(watch);
    setLost(true);
    handlers.close && handlers.close();
    setTimeout(() => openSocket(handlers), 1000);
  });
  return socket;
}
