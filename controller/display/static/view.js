// The pit's page: the table, read-only. No key, form or button that could act: the socket
// would refuse it anyway.
"use strict";

function renderPit(s) {
  document.body.dataset.version = s.version;
  document.getElementById("pit-table").textContent = s.table.id;
  document.getElementById("pit-variant").textContent = s.table.variant_name;
  document.getElementById("pit-limits").textContent = "bets " + s.table.limits.text;
  document.getElementById("pit-round").textContent = "Round " + s.round + ": " + s.phase;
  document.getElementById("pit-shuffle").hidden = !s.shuffle_due;
  partsInto(document.getElementById("pit-instruction"), s.instruction.parts);

  const holds = document.getElementById("pit-holds");
  holds.replaceChildren();
  for (const n of s.notices || []) holds.appendChild(el("div", "tool banner notice", n.text));
  for (const h of s.hold_banners || []) {
    const node = el("div", "tool banner hold");
    partsInto(node, h.what);
    holds.appendChild(node);
  }

  renderDealerHand(s, document.getElementById("dealer-cards"), document.getElementById("dealer-total"));
  renderBoxes(s, document.getElementById("boxes"), null);
  const total = document.getElementById("step-total");
  total.textContent = s.step_total.text ? "This step: " + s.step_total.text : "";

  const shift = document.getElementById("shift");
  shift.textContent = s.shift.text;
  shift.className = "figure " + (s.shift.house_cents > 0 ? "up" : s.shift.house_cents < 0 ? "down" : "");
  shift.dataset.cents = s.shift.house_cents;
  document.getElementById("shift-detail").textContent =
    s.shift.rounds + " round" + (s.shift.rounds === 1 ? "" : "s") + " since the table started at " + s.shift.since_text;

  renderPitDay(s.day);

  const a = s.access;
  const name = a.signed_in_name && a.signed_in_name !== a.signed_in ? a.signed_in_name + ", " : "";
  let who = a.signed_in ? name + a.signed_in : "nobody";
  who += " \u00b7 key at " + s.key;
  for (const [role, until] of Object.entries(a.locked)) who += " \u00b7 " + role + " PIN locked until " + until;
  document.getElementById("pit-access").textContent = who;
  const p = s.people || { dealer: null, seats: [] };
  const dealer = document.getElementById("pit-dealer");
  dealer.hidden = !p.dealer; // (nothing where nobody signs in: the page as it was)
  dealer.textContent = p.dealer ? "dealer " + p.dealer : "";
  const rated = document.getElementById("pit-rated");
  rated.hidden = !p.seats.length; // no room taken from the last rounds when nobody is rated
  rated.textContent = "rated: " + p.seats.map((seat) => "box " + seat.box + " " + seat.player + " (card " + seat.card + ")").join(", ");

  const devices = document.getElementById("pit-devices");
  devices.replaceChildren();
  for (const d of s.devices) {
    const status = { connected: "connected", connecting: "connecting", lost: "LINK LOST", refused: "REFUSED" }[d.status] || d.status;
    const faults = d.faults.length ? " \u26a0 " + d.faults.join(", ") : "";
    const item = el("li", null, (DEVICE_NAMES[d.role] || d.role) + ": " + status + faults + (d.detail ? " (" + d.detail + ")" : ""));
    item.id = "device-" + d.role;
    item.dataset.status = d.status;
    devices.appendChild(item);
  }

  const rows = document.getElementById("history-rows");
  rows.replaceChildren();
  for (const r of s.last_rounds) {
    const tr = el("tr");
    tr.appendChild(el("td", null, r.round + (r.void ? " (void)" : "")));
    const dealer = el("td");
    dealer.appendChild(cardsNode(r.dealer, true));
    if (r.dealer_total) dealer.appendChild(document.createTextNode(" dealer " + r.dealer_total));
    tr.appendChild(dealer);
    // each player's net whole on its line: the lines break between players, never inside one
    const players = el("td", "nets");
    r.net.forEach((n, i) => {
      if (i) players.appendChild(document.createTextNode(" "));
      players.appendChild(el("span", "net", netText(n) + (i < r.net.length - 1 ? "," : "")));
    });
    tr.appendChild(players);
    rows.appendChild(tr);
  }
  fitBoxCards(document.getElementById("boxes"));
  // as many of the last rounds as fit the panel, the latest first: a round cut off is left out
  const panel = document.getElementById("history");
  while (rows.children.length && panel.scrollHeight > panel.clientHeight) rows.lastChild.remove();
}

// The gaming day, read-only, under the shift: open or closed, who opened it, the chips moved so
// far; before a day opens, the last closing. Nothing where the table neither requires nor has a
// day (the page as it was: no room taken from the last rounds). The supervisor's display takes
// the day's steps; the pit only watches.
function renderPitDay(d) {
  const now = document.getElementById("pit-day");
  const opening = d.steps.find((x) => x.step === "opening");
  const by = opening && opening.by ? " by " + opening.by : "";
  if (d.open) {
    now.textContent = "Gaming day " + d.number + " OPEN" + by + ": opening " + money(d.opening_cents) +
      ", fills " + money(d.fills_cents) + ", credits " + money(d.credits_cents) +
      (d.drop_cents === null ? "" : ", drop " + money(d.drop_cents));
  } else if (d.required) {
    const left = d.steps.filter((x) => !x.by).length;
    now.textContent = "Gaming day " + (d.number + 1) + " CLOSED: no deal until it is opened (" +
      left + " step" + (left === 1 ? "" : "s") + " to go)";
  } else {
    now.textContent = d.last ? "No gaming day open" : "";
  }
  now.hidden = !now.textContent;
  now.dataset.open = d.open ? "yes" : "no";
  const last = document.getElementById("pit-day-last");
  last.textContent = d.last && !d.open ? "The day before: " + d.last : "";
  last.hidden = !last.textContent;
}

// Live only while the table answers within its heartbeat (common.js): a closed socket or a
// silent table greys the page and says so at the top.
function setLink() {
  const ok = !tableLost;
  const link = document.getElementById("link");
  link.textContent = ok ? "live" : "offline: reconnecting";
  link.className = "pill " + (ok ? "" : "lost");
  const lost = document.getElementById("pit-lost");
  const since = heardAt();
  lost.hidden = ok;
  lost.textContent = "This page has lost the table: nothing shown here is live" +
    (since ? " (the table last answered at " + since + ")" : "") +
    ". It reconnects by itself when the table is back.";
  // the warning takes room at the top: the boxes and the last rounds are fitted again to what
  // is left (else the round's cards and the last round would be cut at the bottom)
  if (last) renderPit(last);
}

// Recall: the last rounds from the journal, over the page until closed (it only reads).
let pitSocket = null;
function askRecall() {
  if (pitSocket && pitSocket.readyState === WebSocket.OPEN) pitSocket.send(JSON.stringify({ type: "recall", id: 1 }));
}
function closeRecall() { const node = document.getElementById("recall"); if (node) node.remove(); }

let last = null;
openSocket({
  state(s) { last = s; renderPit(s); },
  lost: setLink,
  open(s) { pitSocket = s; },
  answer(msg) {
    if (msg.type !== "recall") return;
    closeRecall();
    document.getElementById("pit").appendChild(recallNode(msg, "BACK TO THE LIVE VIEW", closeRecall));
  },
});
document.getElementById("recall-open").addEventListener("click", askRecall);
addEventListener("resize", () => last && renderPit(last));
