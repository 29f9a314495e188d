// The dealer's screen: the prompt bar, the round, this step's money, and the panel's keys in
// one fixed grid (built once from the hello message; a state only lights or darkens them).
"use strict";

const SUPERVISOR = [
  ["confirm", "CONFIRM CARD"], ["assign", "ASSIGN CARD"], ["burn", "BURN CARD"],
  ["clear_lockup", "CLEAR LOCKUP"], ["void", "VOID ROUND"],
];
const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K"];

let socket = null;
let role = null;
let state = null;
let nextId = 1;
let refusal = "";
const sent = new Map(); // message id -> its type, until answered
const PEOPLE_MESSAGES = new Set(["dealer", "dealer_out", "sit", "leave"]);
let peopleOpen = false; // the dealer's and rated players' row, opened from the bet form
let dayOpen = false; // the gaming day's row, opened from the bet form (always shown before it opens)
const DAY_STEPS = [["layout", "LAYOUT"], ["reader", "READER"], ["shoe", "SHOE"], ["panel", "PANEL"], ["opening", "OPENING CHIPS"]];
let lastInput = null;
const tools = {};

// A control of the tools area, on the page or not (the area shows only what the step needs).
function tool(id) {
  for (const node of Object.values(tools)) {
    const found = node.id === id ? node : node.querySelector("#" + id);
    if (found) return found;
  }
  return document.getElementById(id);
}

function live() {
  return socket && socket.readyState === WebSocket.OPEN && role === "dealer" && !tableLost;
}

// The table is gone (its socket closed, or no word from it within its heartbeat): what the
// screen still shows is stale, so the prompt bar says so in red over everything else.
function renderLost() {
  const bar = document.getElementById("prompt-bar");
  bar.className = "lost";
  partsInto(document.getElementById("prompt"), [
    { text: "This screen has lost the table: do not go on; call a supervisor" },
  ]);
  const since = heardAt();
  partsInto(document.getElementById("prompt-detail"), [
    { text: "What is shown below is not live" + (since ? ": the table last answered at " + since : "") +
      ". The screen reconnects by itself when the table is back." },
  ]);
  fitPrompt();
}

function fitPrompt() {
  fitLines(document.getElementById("prompt-bar"),
    [document.getElementById("prompt"), document.getElementById("prompt-detail")], 0.7);
}

function send(message) {
  if (!live()) return;
  refusal = "";
  message.id = nextId++;
  sent.set(message.id, message.type);
  socket.send(JSON.stringify(message));
}

function buildKeys(groups) {
  const nav = document.getElementById("keys");
  if (nav.querySelector(".key")) return; // built once: the keys never move
  const entry = document.getElementById("entry");
  const devices = document.getElementById("devices");
  for (const g of groups) {
    const group = el("div", "key-group " + g.group);
    group.setAttribute("role", "group");
    group.setAttribute("aria-label", g.group === "decisions" ? "decisions" : g.group === "boxes" ? "boxes and wagers" : "amount digits");
    for (const k of g.keys) {
      const b = el("button", "key" + (k.label.length >= 7 ? " long" : ""), k.label);
      b.type = "button";
      b.id = "key-" + k.key;
      b.dataset.key = k.key;
      b.disabled = true;
      b.addEventListener("click", () => send({ type: "press", key: k.key }));
      group.appendChild(b);
    }
    nav.insertBefore(group, devices);
    // what was keyed, and why a key was refused, beside CALL in the decisions' grid: where the
    // dealer looks when a key does nothing (not in small type under the keys)
    if (g.group === "decisions") group.appendChild(entry);
  }
}

function labelled(text, control) {
  const label = el("label", null, text + " ");
  label.appendChild(control);
  return label;
}

function button(id, text, onClick) {
  const b = el("button", null, text);
  b.type = "button";
  b.id = id;
  b.addEventListener("click", onClick);
  return b;
}

function buildTools() {
  // bets: box, player, amount (kept across states: what the dealer typed stays); the amount
  // also built by tapping chip buttons, so that a touchscreen needs no keyboard
  const bet = el("form", "tool bet");
  bet.id = "bet-form";
  bet.setAttribute("aria-label", "place a bet");
  const box = el("select");
  box.id = "bet-box";
  const player = el("input");
  Object.assign(player, { id: "bet-player", value: "ann", maxLength: 16, autocomplete: "off" });
  const amount = el("input");
  Object.assign(amount, { id: "bet-amount", value: "", placeholder: "0", inputMode: "decimal", maxLength: 9, autocomplete: "off" });
  const place = el("button", null, "PLACE BET");
  place.type = "submit";
  place.id = "bet-place";
  const fields = el("div", "bet-fields");
  const openPeople = button("people-open", "PEOPLE", () => { peopleOpen = !peopleOpen; render(); });

  openPeople.setAttribute("aria-label", "dealer sign-in and rated players");
  fields.append(el("span", "what", "Bet"), labelled("box", box), labelled("player", player), labelled("amount $", amount), place, openPeople);
  const chips = el("div", "bet-chips");
  chips.id = "bet-chips";
  chips.setAttribute("role", "group");
  chips.setAttribute("aria-label", "add chips to the amount");
  const clear = button("bet-clear", "CLEAR", () => { amount.value = ""; showBetRefusal(""); });
  clear.setAttribute("aria-label", "clear the amount");
  chips.appendChild(clear);
  const reason = el("div", "bet-refusal");
  reason.id = "bet-refusal";
  reason.setAttribute("role", "alert");
  reason.hidden = true;
  bet.append(fields, chips, reason);
  bet.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const cents = amountCents(amount.value);
    if (cents === null) {
      showBetRefusal("Amount: dollars, or dollars and cents, such as 10 or 12.50");
      return;
    }
    send({ type: "bet", box: parseInt(box.value, 10), player: player.value.trim(), amount_cents: cents });
  });
  tools.bet = bet;

  // who is at the table: the dealer signs in (staff number and PIN); a rated player sits at a
  // box with their player card number and the name of their bets, and walks away
  const people = el("div", "tool people");
  people.id = "people";
  people.setAttribute("role", "group");
  people.setAttribute("aria-label", "dealer and rated players");
  const dealerForm = el("form", "people-row");
  dealerForm.id = "dealer-form";
  const dealerNow = el("span", "what");
  dealerNow.id = "people-dealer";
  const dealerStaff = el("input");
  Object.assign(dealerStaff, { id: "dealer-staff", inputMode: "numeric", maxLength: 8, autocomplete: "off", size: 5 });
  const dealerPin = el("input");
  Object.assign(dealerPin, { id: "dealer-pin", type: "password", inputMode: "numeric", maxLength: 16, autocomplete: "off", size: 6 });
  const dealerIn = el("button", null, "SIGN IN");
  dealerIn.type = "submit";
  dealerIn.id = "dealer-sign-in";
  dealerForm.append(dealerNow, labelled("staff no.", dealerStaff), labelled("PIN", dealerPin), dealerIn);
  dealerForm.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const pinValue = dealerPin.value.trim();
    dealerPin.value = ""; // the PIN is kept nowhere on the page
    send({ type: "dealer", staff: dealerStaff.value.trim(), pin: pinValue });
  });
  const seatForm = el("form", "people-row");
  seatForm.id = "seat-form";
  const seatBox = el("select");
  seatBox.id = "seat-box";
  const seatCard = el("input");
  Object.assign(seatCard, { id: "seat-card", inputMode: "numeric", maxLength: 16, autocomplete: "off", size: 8 });
  const seatPlayer = el("input");
  Object.assign(seatPlayer, { id: "seat-player", maxLength: 16, autocomplete: "off", size: 6 });
  const sit = el("button", null, "SIT DOWN");
  sit.type = "submit";
  sit.id = "seat-sit";
  const leave = button("seat-leave", "WALK AWAY", () => send({ type: "leave", box: parseInt(seatBox.value, 10) }));
  seatForm.append(el("span", "what", "Rated"), labelled("box", seatBox), labelled("card", seatCard), labelled("name", seatPlayer), sit, leave);
  seatForm.addEventListener("submit", (ev) => {
    ev.preventDefault();
    send({ type: "sit", box: parseInt(seatBox.value, 10), card: seatCard.value.trim(), player: seatPlayer.value.trim() });
  });
  const said = el("div", "people-said");
  said.id = "people-said";
  said.setAttribute("role", "status");
  people.append(dealerForm, seatForm, said);
  tools.people = people;

  // the gaming day: the opening's steps, then fills, credits, the drop and the closing
  const day = el("div", "tool day");
  day.id = "day";
  day.setAttribute("role", "group");
  day.setAttribute("aria-label", "gaming day");
  const dayHead = el("div", "day-row");
  const dayNow = el("span", "what");
  dayNow.id = "day-now";
  dayHead.appendChild(dayNow);
  for (const [step, label] of DAY_STEPS) {
    if (step === "opening") continue; // (the chips' row has its button)
    dayHead.appendChild(button("day-" + step, label, () => send({ type: "day", act: step })));
  }
  for (const [act, label] of [["fill", "FILL"], ["credit", "CREDIT"], ["drop", "DROP"], ["closing", "CLOSE DAY"]]) {
    dayHead.appendChild(button("day-" + act, label, () => daySend(act)));
  }
  const dayFelt = el("div", "day-felt");
  dayFelt.id = "day-felt";
  const dayChips = el("form", "day-row");
  dayChips.id = "day-chips";
  const dayCount = el("div", "day-counts");
  dayCount.id = "day-counts";
  const witness = el("input");
  Object.assign(witness, { id: "day-witness", inputMode: "numeric", maxLength: 8, autocomplete: "off", size: 5 });
  const witnessPin = el("input");
  Object.assign(witnessPin, { id: "day-witness-pin", type: "password", inputMode: "numeric", maxLength: 16, autocomplete: "off", size: 6 });
  const drop = el("input");
  Object.assign(drop, { id: "day-drop-amount", inputMode: "decimal", maxLength: 12, autocomplete: "off", size: 7 });
  const witnessLabel = labelled("2nd staff no.", witness);
  witnessLabel.id = "day-witness-label";
  const witnessPinLabel = labelled("PIN", witnessPin);
  witnessPinLabel.id = "day-witness-pin-label";
  const dropLabel = labelled("drop $", drop);
  dropLabel.id = "day-drop-amount-label";
  dayChips.append(dayCount, button("day-opening", "OPENING CHIPS", () => daySend("opening")));
  dayChips.addEventListener("submit", (ev) => ev.preventDefault());
  const dayWho = el("div", "day-row");
  dayWho.id = "day-who";
  dayWho.append(witnessLabel, witnessPinLabel, dropLabel);
  const daySaid = el("div", "people-said");
  daySaid.id = "day-said";
  daySaid.setAttribute("role", "status");
  day.append(dayHead, dayFelt, dayChips, dayWho, daySaid);
  tools.day = day;

  // the PIN of the role on the key switch
  const pin = el("form", "tool sign-in");
  pin.id = "pin-form";
  pin.setAttribute("aria-label", "sign in with the PIN");
  const status = el("span", "what");
  status.id = "access-status";
  const input = el("input");
  Object.assign(input, { id: "pin-input", type: "password", inputMode: "numeric", maxLength: 16, autocomplete: "off" });
  const signIn = el("button", null, "SIGN IN");
  signIn.type = "submit";
  signIn.id = "pin-sign-in";
  const staffNo = el("input");
  Object.assign(staffNo, { id: "pin-staff", inputMode: "numeric", maxLength: 8, autocomplete: "off", size: 5 });
  const staffLabel = labelled("staff no.", staffNo);
  staffLabel.id = "pin-staff-label";
  pin.append(status, staffLabel, labelled("PIN", input), signIn);
  pin.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const value = input.value.trim();
    input.value = ""; // the PIN is kept nowhere on the page
    const message = { type: "pin", pin: value };
    if (state && state.access.by_person && staffNo.value.trim()) message.staff = staffNo.value.trim();
    send(message);
  });
  tools.pin = pin;

  // the decisions the signed-in role may take now
  const decide = el("div", "tool decisions");
  decide.id = "supervisor-decisions";
  decide.setAttribute("role", "group");
  decide.setAttribute("aria-label", "supervisor decisions");
  const who = el("span", "what");
  who.id = "signed-in";
  decide.appendChild(who);
  for (const [decision, text] of SUPERVISOR) {
    decide.appendChild(button("decide-" + decision, text, () => send({ type: "supervisor", decision })));
  }
  decide.appendChild(button("recall-open", "RECALL", askRecall));
  const openDay = button("day-open", "DAY", () => { dayOpen = !dayOpen; render(); });
  openDay.setAttribute("aria-label", "the gaming day: fills, credits, drop and closing");
  decide.appendChild(openDay);
  tools.decide = decide;

  // a card the shoe could not read, keyed in by the dealer
  const keyIn = el("form", "tool key-in");
  keyIn.id = "key-card-form";
  keyIn.setAttribute("aria-label", "key in a card the shoe could not read");
  const rank = el("select");
  rank.id = "key-card-rank";
  for (const r of RANKS) { const o = el("option", null, r === "T" ? "10" : r); o.value = r; rank.appendChild(o); }
  const suit = el("select");
  suit.id = "key-card-suit";
  for (const s of Object.keys(SUITS)) { const o = el("option", null, SUITS[s] + " " + SUIT_NAMES[s]); o.value = s; suit.appendChild(o); }
  const keyButton = el("button", null, "KEY IN");
  keyButton.type = "submit";
  keyButton.id = "key-card-send";
  keyIn.append(el("span", "what", "Card the shoe could not read:"), labelled("rank", rank), labelled("suit", suit), keyButton);
  keyIn.addEventListener("submit", (ev) => {
    ev.preventDefault();
    send({ type: "key_card", card: rank.value + suit.value });
  });
  tools.keyIn = keyIn;

  // what this table runs: the technician's view of the software's identity
  tools.identity = el("div", "tool identity");
  tools.identity.id = "identity";
  tools.identity.setAttribute("aria-label", "software identity");

  tools.history = el("div", "tool history");
  tools.history.id = "history";
  tools.history.setAttribute("aria-label", "last rounds");
}

// The amount typed or built with chips, in cents; null if it is not an amount.
function amountCents(text) {
  const t = text.trim();
  if (!/^\d{1,7}(\.\d{1,2})?$/.test(t)) return null;
  const [dollars, cents = ""] = t.split(".");
  return parseInt(dollars, 10) * 100 + parseInt(cents.padEnd(2, "0") || "0", 10);
}

// Cents as the amount field shows them: 12, 12.50 (no sign, no separators).
function amountText(cents) {
  const rest = cents % 100;
  return String(Math.floor(cents / 100)) + (rest ? "." + String(rest).padStart(2, "0") : "");
}

// The chip buttons of the table's bet chips (built again only when they change).
function renderBetChips(s) {
  const row = tool("bet-chips");
  const want = (s.table.bet_chips || []).join(",");
  if (row.dataset.chips === want) return;
  row.dataset.chips = want;
  for (const old of row.querySelectorAll(".bet-chip")) old.remove();
  const clear = tool("bet-clear");
  for (const cents of s.table.bet_chips || []) {
    const chip = button("bet-chip-" + cents, chipLabel(cents), () => {
      const amount = tool("bet-amount");
      amount.value = amountText((amountCents(amount.value) || 0) + cents);
      showBetRefusal("");
    });
    chip.className = "bet-chip";
    chip.dataset.cents = cents;
    chip.setAttribute("aria-label", "add " + money(cents));
    row.insertBefore(chip, clear);
  }
}

function betOn(number) {
  tool("bet-box").value = String(number);
  // a touchscreen builds the amount with the chips: no on-screen keyboard pops up for it
  if (matchMedia("(pointer: fine)").matches) tool("bet-amount").focus();
}

function showRefusal(text) {
  refusal = text;
  if (state && state.halted) renderHalted(state); else renderEntry();
}

// A refused bet's reason, at the bet form (not under the keys).
function showBetRefusal(text) {
  const node = tool("bet-refusal");
  node.textContent = text ? "Not placed: " + text : "";
  node.hidden = !text;
}

function renderPrompt(s) {
  const bar = document.getElementById("prompt-bar");
  bar.className = s.instruction.tone;
  partsInto(document.getElementById("prompt"), s.instruction.parts);
  partsInto(document.getElementById("prompt-detail"), s.instruction.detail);
  fitPrompt();
}


function renderTotal(s) {
  const total = document.getElementById("step-total");
  total.replaceChildren();
  const t = s.step_total;
  total.dataset.pay = t.pay_cents;
  total.dataset.collect = t.collect_cents;
  total.dataset.return = t.return_cents;
  if (t.text) {
    total.appendChild(el("span", "label", "This step, all boxes"));
    total.appendChild(el("span", "sum", t.text));
  } else {
    const staked = s.boxes.reduce((sum, b) => sum + (b.in_play ? b.stake.cents : 0), 0);
    total.appendChild(el("span", "label", "On the table"));
    total.appendChild(el("span", "sum", staked ? money(staked) + " staked" : "no bets"));
  }
}

function bannerNode(kind, what, todo, id) {
  const node = el("div", "tool banner " + kind);
  node.setAttribute("role", "alert");
  const text = el("div", "text");
  const whatNode = el("div", "what");
  if (Array.isArray(what)) partsInto(whatNode, what); else whatNode.textContent = what;
  text.appendChild(whatNode);
  text.appendChild(el("div", "todo", todo));
  node.appendChild(text);
  if (id !== undefined) {
    const ack = button("ack-" + id, "ACKNOWLEDGE", () => send({ type: "ack", notice: id }));
    ack.disabled = !live();
    node.appendChild(ack);
  }
  return node;
}

// Put ``wanted`` in ``parent`` in order, moving only what is out of place: a node that stays is
// never detached, so a PIN being typed keeps its focus and its digits when a state arrives.
function placeChildren(parent, wanted) {
  for (const node of Array.from(parent.children)) if (!wanted.includes(node)) node.remove();
  wanted.forEach((node, i) => {
    if (parent.children[i] !== node) parent.insertBefore(node, parent.children[i] || null);
  });
}

function renderTools(s) {
  const area = document.getElementById("tools");
  const a = s.access;
  const rows = [];
  for (const n of s.notices || []) rows.push(bannerNode("notice", n.text, n.todo, n.id));
  for (const h of s.hold_banners || []) rows.push(bannerNode("hold", h.what, h.todo));
  // before a required gaming day is open the table deals nothing: its steps come first
  if (s.day.required && !s.day.open) rows.push(renderDay(s));
  const supervising = a.key_role !== null || a.signed_in !== null;
  // (before a required day is open its row shows anyway; otherwise the supervisor opens it)
  const dayShown = a.signed_in === "supervisor" && !(s.day.required && !s.day.open);
  if (supervising && a.pin_pad) {
    let status = "Key at " + s.key + ": " + a.key_role + (a.by_person ? " staff number and PIN" : " PIN");
    if (a.staff_keyed) status += " (staff number " + a.staff_keyed + " keyed)";
    if (a.pin_keyed) status += " " + "\u2022".repeat(a.pin_keyed);
    tool("pin-staff-label").hidden = !a.by_person;
    for (const [who, until] of Object.entries(a.locked)) status = who + " PIN locked until " + until;
    tool("access-status").textContent = status;
    tool("pin-sign-in").disabled = !live();
    rows.push(tools.pin);
  }
  const allowed = new Set(a.decisions);
  if (a.signed_in) {
    tool("signed-in").textContent = (a.signed_in_name || a.signed_in) + " signed in" + (allowed.size ? ":" : "");
    for (const [decision] of SUPERVISOR) {
      const b = tool("decide-" + decision);
      b.hidden = !allowed.has(decision);
      b.disabled = !live();
    }
    tool("recall-open").hidden = a.signed_in !== "supervisor";
    tool("recall-open").disabled = !live();
    tool("day-open").hidden = !dayShown;
    tool("day-open").disabled = !live();
    tool("day-open").classList.toggle("open", dayOpen);
    rows.push(tools.decide);
    if (dayOpen && dayShown) rows.push(renderDay(s));
  }
  if (a.signed_in === "technician" && s.identity) {
    const text = el("div", "text");
    text.append(el("span", "what", "Software: " + s.identity.software), el("span", "todo", s.identity.rules));
    tools.identity.replaceChildren(text);
    rows.push(tools.identity);
  }
  if (a.key_in) {
    tool("key-card-send").disabled = !live();
    rows.push(tools.keyIn);
  }
  if (s.state === "betting" && !(dayOpen && dayShown)) { // (the day's row in its place)
    const select = tool("bet-box");
    if (select.options.length !== s.table.boxes.length) {
      select.replaceChildren();
      for (const n of s.table.boxes) { const o = el("option", null, n); o.value = n; select.appendChild(o); }
    }
    tool("bet-place").disabled = !live();
    tool("people-open").classList.toggle("open", peopleOpen);
    renderBetChips(s);
    rows.push(tools.bet);
    if (peopleOpen) rows.push(renderPeople(s));
  }
  if (rows.length < 2 && s.last_rounds.length) {
    tools.history.replaceChildren(el("span", "what", "Last rounds"));
    for (const r of s.last_rounds) tools.history.appendChild(historyNode(r));
    rows.push(tools.history);
  }
  for (const node of rows.slice(3)) node.remove();
  placeChildren(area, rows.slice(0, 3));
  // the history shows the rounds that fit
  while (tools.history.isConnected && tools.history.scrollWidth > tools.history.clientWidth && tools.history.children.length > 2) {
    tools.history.lastChild.remove();
  }
}

// A step of the gaming day with what the chips' row holds: each denomination's count, a fill's
// or credit's second person (their PIN is kept nowhere on the page), the drop.
function daySend(act) {
  const message = { type: "day", act };
  if (["opening", "fill", "credit", "closing"].includes(act)) {
    const chips = {};
    for (const input of tool("day-counts").querySelectorAll("input")) {
      const n = parseInt(input.value, 10);
      if (input.value.trim() !== "" && !(n >= 0)) { showDayAnswer("a count of chips is a whole number", true); return; }
      if (n > 0) chips[input.dataset.cents] = n;
    }
    message.chips = chips;
  }
  if (act === "fill" || act === "credit") {
    message.witness = tool("day-witness").value.trim();
    message.witness_pin = tool("day-witness-pin").value.trim();
    tool("day-witness-pin").value = "";
    if (!message.witness || !message.witness_pin) { delete message.witness; delete message.witness_pin; }
  }
  if (act === "drop") {
    const cents = amountCents(tool("day-drop-amount").value);
    if (cents === null) { showDayAnswer("Drop: dollars, or dollars and cents, such as 450 or 12.50", true); return; }
    message.cents = cents;
  }
  send(message);
}

// The gaming day's row: before the day is open, its steps (done ones say who) and the felt's
// rules; once open, the day's chips and the fill, credit, drop and closing.
function renderDay(s) {
  const d = s.day;
  const before = !d.open;
  const done = Object.fromEntries(d.steps.map((x) => [x.step, x.by]));
  const left = d.steps.filter((x) => !x.by).length;
  tool("day-now").textContent = before
    ? "Gaming day " + (d.number + 1) + ": to open (" + left + " step" + (left === 1 ? "" : "s") + " to go)"
    : "Gaming day " + d.number + " open: opening " + money(d.opening_cents) + ", fills " + money(d.fills_cents) +
      ", credits " + money(d.credits_cents) + (d.drop_cents === null ? "" : ", drop " + money(d.drop_cents));
  for (const [step, label] of DAY_STEPS) {
    const b = tool("day-" + step);
    b.hidden = !before;
    b.disabled = !live() || Boolean(done[step]) || (step === "panel" && d.panel_test);
    b.classList.toggle("done", Boolean(done[step]));
    b.textContent = (done[step] ? "\u2713 " : "") + label;
    b.title = done[step] ? "done by " + done[step] : "";
  }
  for (const act of ["fill", "credit", "drop", "closing"]) {
    const b = tool("day-" + act);
    b.hidden = before;
    b.disabled = !live();
  }
  tool("day-who").hidden = before;
  for (const id of ["day-witness", "day-witness-pin", "day-drop-amount"]) {
    tool(id + "-label").hidden = before;
    tool(id).disabled = before || !live(); // (a hidden control is no live one)
  }
  const felt = tool("day-felt");
  if (before && d.panel_test) {
    felt.textContent = "Panel test: press each key on the panel once. To go (" + d.keys_left.length + "): " + d.keys_left.join(" ");
  } else if (before && !done.layout) {
    felt.textContent = "The felt must show: " + d.felt.join(" \u00b7 ");
  } else {
    felt.textContent = "";
  }
  felt.hidden = !felt.textContent;
  const counts = tool("day-counts");
  if (counts.children.length !== d.denominations.length) {
    counts.replaceChildren();
    for (const cents of d.denominations) {
      const input = el("input");
      Object.assign(input, { id: "day-count-" + cents, inputMode: "numeric", maxLength: 6, autocomplete: "off", size: 3 });
      input.dataset.cents = cents;
      input.setAttribute("aria-label", "how many " + money(cents) + " chips");
      counts.appendChild(labelled(money(cents), input));
    }
  }
  tool("day-opening").hidden = !before;
  tool("day-opening").disabled = !live() || Boolean(done.opening);
  const said = tool("day-said");
  if (!said.dataset.answer) {
    said.textContent = d.last && before ? d.last : "";
    said.className = "people-said";
  }
  said.hidden = !said.textContent;
  return tools.day;
}

function showDayAnswer(text, refused) {
  const said = tool("day-said");
  said.dataset.answer = text ? "1" : "";
  said.textContent = text ? (refused ? "Not done: " : "") + text : "";
  said.className = "people-said" + (refused ? " refused" : " done");
  said.hidden = !said.textContent;
  setTimeout(() => { said.dataset.answer = ""; if (state) render(); }, 6000);
}

// The dealer signed in and the rated players seated (the people row; never the PINs).
function renderPeople(s) {
  const p = s.people;
  tool("people-dealer").textContent = p.dealer ? "Dealer " + p.dealer : "No dealer signed in";
  const select = tool("seat-box");
  if (select.options.length !== s.table.boxes.length) {
    select.replaceChildren();
    for (const n of s.table.boxes) { const o = el("option", null, n); o.value = n; select.appendChild(o); }
  }
  for (const id of ["dealer-sign-in", "seat-sit", "seat-leave"]) tool(id).disabled = !live();
  const said = tool("people-said");
  if (!said.dataset.answer) {
    said.textContent = p.seats.length
      ? "Rated: " + p.seats.map((seat) => "box " + seat.box + " " + seat.player + " (card " + seat.card + ")").join(", ")
      : "No rated player seated";
    said.className = "people-said";
  }
  return tools.people;
}

function showPeopleAnswer(text, refused) {
  const said = tool("people-said");
  said.dataset.answer = text ? "1" : "";
  said.textContent = text ? (refused ? "Not done: " : "") + text : "";
  said.className = "people-said" + (refused ? " refused" : " done");
  if (!refused && tool("seat-card")) tool("seat-card").value = "";
  setTimeout(() => { said.dataset.answer = ""; if (state) render(); }, 4000);
}

function renderStatus(s) {
  const bar = document.getElementById("status");
  bar.replaceChildren();
  bar.appendChild(el("span", "strong", s.table.id));
  bar.appendChild(el("span", "variant", s.table.variant_name));
  bar.appendChild(el("span", null, "bets " + s.table.limits.text));
  bar.appendChild(el("span", "strong", "Round " + s.round + ": " + s.phase));
  const who = s.people && s.people.dealer; // (nothing where nobody signs in: the bar as it was)
  if (who) {
    const dealer = el("span", "dealer-now", "Dealer " + who);
    dealer.id = "status-dealer";
    bar.appendChild(dealer);
  }
  if (s.shuffle_due) bar.appendChild(el("span", "marker shuffle", "SHUFFLE DUE"));
  const devices = document.getElementById("devices");
  devices.replaceChildren();
  for (const d of s.devices) {
    const pill = el("span", "pill " + d.status, deviceText(d));
    pill.id = "device-" + d.role;
    pill.dataset.status = d.status;
    pill.title = d.url + (d.detail ? " \u00b7 " + d.detail : "");
    devices.appendChild(pill);
  }
  const link = el("span", "pill " + (live() ? "" : "lost"), live() ? "screen live" : "screen offline");
  link.id = "link";
  devices.appendChild(link);
}

// Every key that may be pressed is enabled; lit are only those the rules want now (the step's
// decisions), the others that may be pressed are "ready" (state.py's "wanted" and "lit").
function renderKeys(s) {
  const may = new Set(live() ? s.lit : []);
  const wanted = new Set(live() ? s.wanted || [] : []);
  for (const b of document.querySelectorAll("button.key")) {
    const on = may.has(b.dataset.key);
    b.disabled = !on;
    b.classList.toggle("lit", on && wanted.has(b.dataset.key));
    b.classList.toggle("ready", on && !wanted.has(b.dataset.key));
  }
  renderEntry();
}

function renderEntry() {
  const entry = document.getElementById("entry");
  entry.replaceChildren();
  entry.classList.toggle("refused", Boolean(refusal));
  if (refusal) {
    entry.appendChild(el("b", null, "Not done: "));
    entry.appendChild(document.createTextNode(refusal));
  } else if (state && state.entry_text) {
    entry.appendChild(document.createTextNode("Keyed: "));
    entry.appendChild(el("b", null, state.entry_text));
  }
  fitHeight(entry, 0.75);
}

// A table stopped for a supervisor at start: one full banner over the table, the keys dark.
function buildHalted() {
  const node = document.getElementById("halted");
  const title = el("h1", null); title.id = "halted-title";
  const what = el("p", "what"); what.id = "halted-what";
  const todo = el("p", "todo"); todo.id = "halted-todo";
  const facts = el("dl", "facts"); facts.id = "halted-facts";
  const pin = el("form", "sign-in"); pin.id = "halted-pin";
  pin.setAttribute("aria-label", "supervisor sign-in");
  const input = el("input");
  Object.assign(input, { id: "halted-pin-input", type: "password", inputMode: "numeric", maxLength: 16, autocomplete: "off" });
  const signIn = el("button", null, "SIGN IN"); signIn.type = "submit"; signIn.id = "halted-sign-in";
  const staffNo = el("input");
  Object.assign(staffNo, { id: "halted-pin-staff", inputMode: "numeric", maxLength: 8, autocomplete: "off", size: 5 });
  const staffLabel = labelled("Staff number", staffNo);
  staffLabel.id = "halted-pin-staff-label";
  pin.append(staffLabel, labelled("Supervisor PIN", input), signIn);
  pin.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const value = input.value.trim();
    input.value = ""; // the PIN is kept nowhere on the page
    const message = { type: "pin", pin: value };
    if (state && state.halted && state.halted.by_person && staffNo.value.trim()) message.staff = staffNo.value.trim();
    send(message);
  });
  const choices = el("div", "choices"); choices.id = "halted-choices";
  choices.setAttribute("role", "group");
  choices.setAttribute("aria-label", "supervisor's choices");
  const answer = el("p", "answer"); answer.id = "halted-answer";
  answer.setAttribute("aria-live", "polite");
  node.append(title, what, todo, facts, pin, choices, answer);
}

function renderHalted(s) {
  const h = s.halted;
  const node = document.getElementById("halted");
  node.hidden = false;
  document.getElementById("halted-title").textContent = h.title;
  document.getElementById("halted-what").textContent = h.what;
  document.getElementById("halted-todo").textContent = h.todo;
  const facts = document.getElementById("halted-facts");
  facts.replaceChildren();
  const software = h.problem.kind === "software_changed";
  const rows = software
    ? [["Expected", h.expected], ["Found", h.found], ["Void the round", h.void]]
    : [["Journal row", h.row === null ? "the whole journal" : String(h.row)],
      ["Expected", h.expected], ["Found", h.found], ["Journal file", h.journal],
      ["Void the round", h.void]];
  for (const [term, text] of rows) facts.append(el("dt", null, term), el("dd", null, text));
  const pin = document.getElementById("halted-pin");
  pin.hidden = !h.pin_set || h.signed_in !== null;
  document.getElementById("halted-pin-staff-label").hidden = !h.by_person;
  document.getElementById("halted-sign-in").disabled = !live();
  const choices = document.getElementById("halted-choices");
  choices.replaceChildren();
  if (h.signed_in !== null) {
    const recall = button("halted-recall", "RECALL THE LAST ROUNDS", askRecall);
    recall.disabled = !live();
    choices.appendChild(recall);
    for (const c of h.choices) {
      const b = button("halted-" + c.choice, c.label, () => send({ type: "halted", choice: c.choice }));
      b.title = c.text;
      b.disabled = !live();
      choices.appendChild(b);
    }
  }
  let answer = refusal ? "Not done: " + refusal : "";
  if (!answer && h.verified) answer = (software ? "Files check: " : "Journal check: ") + h.verified;
  if (h.locked_until) answer = "Supervisor PIN locked until " + h.locked_until + ". " + answer;
  document.getElementById("halted-answer").textContent = answer;
}

// Recall: asked by a signed-in supervisor; shown over the table until closed, or until the
// supervisor signs out (the server refuses it to anyone else).
function askRecall() { send({ type: "recall" }); }
function closeRecall() { const node = document.getElementById("recall"); if (node) node.remove(); }
function showRecall(msg) {
  closeRecall();
  document.getElementById("screen").appendChild(recallNode(msg, "BACK TO THE LIVE TABLE", closeRecall));
}
function supervisorIn(s) {
  return s.halted ? s.halted.signed_in !== null : s.access.signed_in === "supervisor";
}

function render() {
  if (!state) return;
  if (!supervisorIn(state)) closeRecall();
  document.body.dataset.version = state.version;
  if (state.halted) {
    renderHalted(state);
    renderKeys(state);
    if (tableLost) renderLost();
    return;
  }
  document.getElementById("halted").hidden = true; // (a supervisor voided the round: the table runs)
  renderPrompt(state);
  renderDealerHand(state, document.getElementById("dealer-cards"), document.getElementById("dealer-total"));
  renderBoxes(state, document.getElementById("boxes"), state.state === "betting" && live() ? betOn : null);
  renderTotal(state);
  renderTools(state);
  renderStatus(state);
  renderKeys(state);
  fitBoxCards(document.getElementById("boxes")); // once the rows around the boxes are laid out
  if (tableLost) renderLost();
}

buildTools();
buildHalted();
socket = openSocket({
  hello(msg) {
    role = msg.role;
    if (role !== "dealer") { location.replace("/view" + location.search); return; }
    buildKeys(msg.keys);
  },
  state(s) {
    // a key pressed on the panel itself: its refusal shows here too (once, when it is new)
    // (a bet's answer is shown at the bet form)
    const last = JSON.stringify(s.last_input);
    if (state && last !== lastInput && s.last_input && s.last_input.action !== "bet") {
      refusal = s.last_input.accepted ? "" : s.last_input.reason;
    }
    lastInput = last;
    state = s;
    render();
  },
  answer(msg) {
    if (msg.type === "recall") { sent.delete(msg.id); showRecall(msg); return; }
    const refused = msg.type === "error" || (msg.type === "result" && !msg.accepted);
    const kind = sent.get(msg.id);
    sent.delete(msg.id);
    if (kind === "bet") {
      showBetRefusal(refused ? msg.error || msg.reason : "");
      if (!refused) tool("bet-amount").value = ""; // placed: the next bet's chips start at 0
    } else if (PEOPLE_MESSAGES.has(kind)) {
      showPeopleAnswer(msg.error || msg.reason, refused);
    } else if (kind === "day") {
      showDayAnswer(msg.error || msg.reason, refused);
      render();
    } else if (refused) showRefusal(msg.error || msg.reason);
    else if (msg.type === "result") showRefusal("");
  },
  open(s) { socket = s; render(); },
  close() { role = null; sent.clear(); render(); },
  lost() { render(); },
});
addEventListener("resize", render);
