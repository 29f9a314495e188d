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

// A player's result for a round, whose it is said in words: "ann won $9", "bob lost $7".
function netText(n) {
  if (n.cents > 0) return n.player + " won " + money(n.cents);
  if (n.cents < 0) return n.player + " lost " + money(-n.cents);
  return n.player + " broke even";
}

// The devices as the dealer and the pit call them (the same words on both pages).
const DEVICE_NAMES = { shoe: "shoe", peek: "reader", panel: "panel" };

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

// A chip's face: its dollars (5, 1000) or cents (50¢).
function chipLabel(cents) {
  return cents >= 100 ? String(cents / 100) : cents + "\u00a2";
}

function chipsNode(side) {
  const row = el("div", "chips");
  row.setAttribute("aria-label", "chips");
  for (const c of side.chips) {
    const chip = el("span", "chip");
    chip.dataset.cents = c.cents;
    chip.dataset.count = c.count;
    chip.appendChild(el("span", "disc", chipLabel(c.cents)));
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

// Fan the cards of each row so they fit its width (each card overlaps the one before it). All
// rows are measured first and then set: one layout, however many rows.
function fanCards(root) {
  const rem = remPx();
  const rows = [];
  for (const row of root.querySelectorAll(".cards:not(.small)")) {
    const cards = row.querySelectorAll(".card");
    if (cards.length < 2) continue;
    const width = cards[0].getBoundingClientRect().width;
    const show = Math.min(width * 0.6, (contentWidth(row.parentElement) - width) / (cards.length - 1));
    rows.push([row, Math.floor(Math.min(-0.25 * rem, show - width))]);
  }
  for (const [row, fan] of rows) row.style.setProperty("--fan", fan + "px");
}

function contentWidth(node) {
  const style = getComputedStyle(node);
  return node.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
}

function remPx() {
  return parseFloat(getComputedStyle(document.documentElement).fontSize);
}

// Each box's cards as large as the box allows, and its text as large as still leaves them a
// good size. A card is no wider than its hand's row leaves room for (every card's corner showing
// beside the next: CARD_SHOWS of its width) and no larger than CARD_MOST_REM. A box's height
// grows by 1.4 card widths per hand (one row of cards each) and nothing else in it depends on
// the cards, so the largest card that lets the stake, hands, totals and money fit is worked out
// from one layout and checked with another. Where even a card of CARD_GOOD_REM does not fit, the
// box's text and chips are made smaller (BOX_SCALES) before the cards go below it, down to
// CARD_LEAST_REM. Every box is set, then every box measured, so that each pass is one layout.
// Then the hands' rows are fanned.
const CARD_SHOWS = 0.42;
const CARD_LEAST_REM = 1.6;
const CARD_GOOD_REM = 2.4;
const CARD_MOST_REM = 7;
const BOX_SCALES = [1, 0.9, 0.8, 0.7];

function fitBoxCards(area) {
  const rem = remPx();
  const least = CARD_LEAST_REM * rem;
  let todo = [];
  for (const box of area.querySelectorAll(".box:not(.strip)")) {
    const hands = box.querySelectorAll(".hand");
    let fan = 0; // the most cards in one hand
    for (const h of hands) fan = Math.max(fan, h.querySelectorAll(".card").length);
    const most = fan ? Math.max(least, Math.min(CARD_MOST_REM * rem,
      contentWidth(hands[0]) / (1 + CARD_SHOWS * (fan - 1)))) : 0;
    todo.push({ box, rows: fan ? hands.length : 0, most, width: most,
      amounts: [...box.querySelectorAll(".amount .value")],
      words: [...box.querySelectorAll("h3, .stake, .flags, .hand .total, .amount .verb, .earlier")] });
  }
  const setWidth = (b, width) => {
    b.width = width;
    if (b.rows) b.box.style.setProperty("--card-w", width.toFixed(1) + "px");
  };
  for (const scale of BOX_SCALES) {
    if (!todo.length) break;
    for (const b of todo) {
      b.box.style.setProperty("--box-scale", String(scale));
      setWidth(b, b.most);
    }
    // a word wider than the box (a long name) in smaller type, else broken where it must be
    fitTexts(todo.flatMap((b) => b.amounts), 0.5);
    for (const n of todo.flatMap((b) => b.words)) n.classList.remove("anywhere");
    for (const n of fitTexts(todo.flatMap((b) => b.words), 0.7)) n.classList.add("anywhere");
    for (let pass = 0; pass < 3; pass++) {
      const excess = todo.map((b) => b.box.scrollHeight - b.box.clientHeight);
      let again = false;
      todo.forEach((b, i) => {
        b.fits = excess[i] <= 0;
        if (!b.fits && b.rows && b.width > least) {
          setWidth(b, Math.max(least, Math.floor(b.width - excess[i] / (1.4 * b.rows) - pass)));
          again = true;
        }
      });
      if (!again) break;
    }
    const excess = todo.map((b) => b.box.scrollHeight - b.box.clientHeight);
    todo = todo.filter((b, i) => excess[i] > 0 || (b.rows && b.width < Math.min(b.most, CARD_GOOD_REM * rem) - 1));
  }
  fanCards(area);
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
  if (h.status) total += " \u00b7 " + h.status;
  return total;
}

// The boxes: in play, each with its stake, hands and this step's money; the others as a thin
// strip (``onBet(number)`` gives the strip a BET button while bets are open). Once the rest of
// the page is laid out, fitBoxCards sizes their cards.
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
}

// Shrink a line's text until it fits its width (never below ``least`` of its own size).
function fitText(node, least) {
  fitTexts([node], least);
}

// fitText for many lines at once: a line's width grows with its type size, so each is set to
// the size its overflow says and then stepped down; each pass sets every line and then measures
// every line (one layout a pass, however many lines). Returns the lines still too wide.
function fitTexts(nodes, least) {
  for (const n of nodes) n.style.fontSize = "";
  let lines = nodes.map((n) => ({ n, full: parseFloat(getComputedStyle(n).fontSize) }));
  for (const l of lines) l.size = l.full;
  for (let pass = 0; lines.length && pass < 8; pass++) {
    lines = lines.filter((l) => l.n.scrollWidth > l.n.clientWidth && l.size > l.full * least);
    for (const l of lines) {
      const ratio = pass ? 0.94 : l.n.clientWidth / l.n.scrollWidth;
      l.size = Math.max(l.full * least, l.size * Math.min(ratio, 0.97));
      l.n.style.fontSize = l.size + "px";
    }
  }
  return lines.filter((l) => l.n.scrollWidth > l.n.clientWidth).map((l) => l.n);
}

// Shrink a block's text until it fits its height (never below ``least`` of its own size).
function fitHeight(node, least) {
  node.style.fontSize = "";
  const full = parseFloat(getComputedStyle(node).fontSize);
  let size = full;
  while (node.scrollHeight > node.clientHeight && size > full * least) {
    size *= 0.93;
    node.style.fontSize = size + "px";
  }
}

// Lines in a box of fixed height (the prompt bar): each line on one line as large as it fits,
// down to ``least`` of its size; a line that still does not fit wraps (a second line), and then
// all of them shrink together until they fit the box's height. Nothing is cut.
function fitLines(box, lines, least) {
  for (const n of lines) { n.style.fontSize = ""; n.classList.remove("wrapped"); }
  const full = lines.map((n) => parseFloat(getComputedStyle(n).fontSize));
  const wide = (n) => n.scrollWidth > n.clientWidth;
  lines.forEach((n, i) => {
    let size = full[i];
    while (wide(n) && size > full[i] * least) {
      size *= 0.94;
      n.style.fontSize = size + "px";
    }
    if (wide(n)) { n.classList.add("wrapped"); n.style.fontSize = ""; }
  });
  const style = getComputedStyle(box);
  const room = box.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom);
  const sizes = lines.map((n) => parseFloat(getComputedStyle(n).fontSize));
  let scale = 1;
  while ((lines.some(wide) || lines.reduce((h, n) => h + n.offsetHeight, 0) > room) && scale > 0.35) {
    scale *= 0.94;
    lines.forEach((n, i) => { n.style.fontSize = sizes[i] * scale + "px"; });
  }
}

function historyNode(r) {
  const node = el("span", "round");
  node.dataset.round = r.round;
  node.appendChild(el("b", null, "#" + r.round + (r.void ? " void" : "")));
  node.appendChild(cardsNode(r.dealer, true));
  if (r.dealer_total) node.appendChild(document.createTextNode("dealer " + r.dealer_total));
  node.appendChild(document.createTextNode(" \u00b7 " + r.net.map(netText).join(", ")));
  return node;
}

function deviceText(d) {
  const status = { connected: "", connecting: " connecting", lost: " LINK LOST", refused: " REFUSED" }[d.status];
  return (DEVICE_NAMES[d.role] || d.role) + (status === undefined ? " " + d.status : status) + (d.faults.length ? " \u26a0 " + d.faults.join(", ") : "");
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

// Recall (controller/display/recall.py): the last rounds as the journal recorded them, in a
// panel marked RECALL all over so that nobody takes it for the live round. ``closeText`` and
// ``onClose``: the button that goes back to the live table.
function recallNode(msg, closeText, onClose) {
  const node = el("section", "recall");
  node.id = "recall";
  node.setAttribute("role", "dialog");
  node.setAttribute("aria-label", "recall of the last rounds");
  const head = el("header", "recall-head");
  head.append(el("span", "recall-badge", "RECALL"), el("span", "recall-mark", msg.mark));
  const close = el("button", null, closeText);
  close.type = "button";
  close.id = "recall-close";
  close.addEventListener("click", onClose);
  head.appendChild(close);
  const body = el("div", "recall-rounds");
  if (msg.error) body.appendChild(el("p", "recall-error", msg.error));
  if (!msg.rounds.length && !msg.error) body.appendChild(el("p", null, "No round recorded yet."));
  for (const r of msg.rounds) {
    const round = el("article", "recall-round");
    round.dataset.round = r.round;
    round.appendChild(el("h3", null, "RECALL - round " + r.round + (r.variant ? " (" + r.variant + ")" : "") +
      (r.started ? ", " + r.started.slice(0, 10) + " " + r.started.slice(11, 19) : "")));
    const list = el("ol", "recall-steps");
    for (const s of r.steps) {
      const item = el("li", "step step-" + s.kind);
      if (s.at) item.appendChild(el("span", "at", s.at));
      if (s.kind === "card") {
        if (s.told) item.appendChild(el("span", "told", s.told + ":"));
        item.appendChild(cardsNode([s.card], true));
        item.appendChild(el("span", "text", s.text));
      } else item.appendChild(el("span", "text", s.text));
      list.appendChild(item);
    }
    round.appendChild(list);
    body.appendChild(round);
  }
  node.append(head, body);
  return node;
}
