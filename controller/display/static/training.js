// The training page (croupier train --display): a question from /api/question (never its
// answer), the answer typed on the keypad and posted to /api/answer, whose reply shows how it
// went and croupier's answer. Every word shown comes from the server (controller/game/words.py).
"use strict";

const $ = (id) => document.getElementById(id);
let question = null;
let typed = "";

function key(label, onPress, extra) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "key ready" + (extra ? " " + extra : "");
  b.textContent = label;
  b.dataset.key = label;
  b.addEventListener("click", onPress);
  return b;
}

function showTyped() {
  $("training-typed").textContent = typed || "\u00a0";
}

// The panel's keys for a procedure (the codes the TBL-21 panel sends; the key switch's two
// positions; DEA held for two seconds): each press is tried on the table at once, and the
// table's refusal shown; DONE sends the keys pressed.
const PANEL = [
  ["KEY SUP", "KEY_SUP"], ["KEY RUN", "KEY_RUN"], ["OK_", "OK_"], ["CAN", "CAN"],
  ["HIT", "HIT"], ["STD", "STD"], ["DBL", "DBL"], ["SPL", "SPL"],
  ["SUR", "SUR"], ["INS", "INS"], ["UND", "UND"], ["DEA 2s", "HOLD_DEA"],
  ["B1_", "B1_"], ["B2_", "B2_"], ["B3_", "B3_"],
];
let pressed = [];
let counted = 0; // cents counted out in chips (0: the amount is typed)

function dollars(cents) {
  return `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, "0")}`;
}

// A payout counted out in the table's chips: each chip adds its value to the amount.
function chipRow(chips) {
  const row = $("training-chips");
  row.replaceChildren();
  row.hidden = chips.length === 0;
  for (const chip of chips) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "chip";
    b.dataset.cents = String(chip.cents);
    const disc = document.createElement("span");
    disc.className = "disc";
    disc.textContent = chip.text;
    b.append(disc);
    b.addEventListener("click", () => {
      counted += chip.cents;
      typed = dollars(counted);
      showTyped();
    });
    row.append(b);
  }
}

let tried = Promise.resolve(); // the presses are tried on the table one after another

function press(code) {
  pressed.push(code);
  typed = pressed.map((k) => PANEL.find((p) => p[1] === k)[0]).join(" \u00b7 ");
  showTyped();
  const keys = pressed.join(" ");
  const count = pressed.length;
  tried = tried.then(() => tryKeys(keys, count)).catch(() => {});
}

async function tryKeys(keys, count) {
  const reply = await fetch("/api/keys", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ keys }),
  });
  const r = await reply.json();
  if (count !== pressed.length) return; // a later press is being tried, or the answer is sent
  const last = r.keys ? r.keys[r.keys.length - 1] : null;
  const refused = (r.keys || []).filter((k) => !k.accepted).map((k) => k.words);
  $("training-refused").textContent = refused.join("\n");
  $("training-keypad").dataset.answered = String(count);
  if (last) $("training-keypad").dataset.last = last.accepted ? "accepted" : "refused";
}

function panelPad(pad) {
  pressed = [];
  $("training-refused").textContent = "";
  for (const [label, code] of PANEL) {
    const b = key(label, () => press(code), code.startsWith("KEY") ? "switch" : "");
    b.dataset.key = code;
    pad.append(b);
  }
  pad.append(key("DONE", () => { tried.then(() => send(pressed.join(" "))); }, "lit"));
}

function keypad(form, choices) {
  const pad = $("training-keypad");
  pad.replaceChildren();
  delete pad.dataset.answered;
  delete pad.dataset.last;
  $("training-refused").textContent = "";
  pad.classList.toggle("panel", form === "keys");
  $("training-entry").classList.toggle("keys", form === "keys");
  if (form === "keys") {
    panelPad(pad);
    return;
  }
  const add = (label) => pad.append(key(label, () => {
    if (counted) { counted = 0; typed = ""; } // typing after chips starts the amount again
    typed += label;
    showTyped();
  }));
  if (form === "yes_no") {
    pad.append(key("YES", () => send("y"), "wide"), key("NO", () => send("n"), "wide"));
    return;
  }
  if (form === "choice") {
    choices.forEach((_, i) => pad.append(key(String(i + 1), () => send(String(i + 1)), "wide")));
    return;
  }
  for (const d of ["7", "8", "9", "4", "5", "6", "1", "2", "3", "0"]) add(d);
  if (form === "money") add(".");
  pad.append(key("CLEAR", () => { typed = ""; counted = 0; showTyped(); }, "long"));
  pad.append(key("ENTER", () => send(typed), "lit"));
}

async function load() {
  const reply = await fetch("/api/question", { cache: "no-store" });
  const q = await reply.json();
  question = q;
  typed = "";
  showTyped();
  $("training-result").hidden = true;
  if (q.done) {
    finish(q.summary);
    return;
  }
  $("training-title").textContent = q.kind;
  $("training-count").textContent = `${q.number} / ${q.of} \u00b7 ${q.time_limit_s} s`;
  $("training-table").textContent = q.table;
  $("training-ask").textContent = q.ask;
  const list = $("training-choices");
  list.replaceChildren(...q.choices.map((c) => {
    const li = document.createElement("li");
    li.textContent = c;
    return li;
  }));
  $("training-how").textContent = q.how;
  counted = 0;
  keypad(q.form, q.choices);
  chipRow(q.chips || []);
  $("training-keypad").hidden = false;
}

async function send(answer) {
  const reply = await fetch("/api/answer", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ answer }),
  });
  const r = await reply.json();
  if (!r.readable) {
    $("training-how").textContent = r.message;
    typed = "";
    counted = 0;
    showTyped();
    return;
  }
  $("training-refused").textContent = "";
  $("training-keypad").hidden = true;
  $("training-chips").hidden = true;
  const verdict = $("training-verdict");
  verdict.textContent = r.result;
  verdict.className = r.correct && r.in_time ? "right" : "wrong";
  $("training-croupier").textContent = r.answers;
  $("training-told").textContent = r.told;
  $("training-result").hidden = false;
  $("training-next").focus();
}

function finish(summary) {
  $("training-title").textContent = summary.title || "";
  $("training-count").textContent = "";
  $("training-question").hidden = true;
  $("training-entry").hidden = true;
  const box = $("training-summary");
  box.replaceChildren();
  const head = document.createElement("h1");
  head.textContent = summary.headline;
  head.className = summary.pass ? "right" : "wrong";
  box.append(head);
  const list = document.createElement("ul");
  for (const text of summary.lines) {
    const li = document.createElement("li");
    li.textContent = text;
    list.append(li);
  }
  box.append(list);
  box.hidden = false;
}

document.addEventListener("DOMContentLoaded", () => {
  $("training-next").addEventListener("click", load);
  load();
});
