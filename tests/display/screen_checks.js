// What the screen tests read from the page (tests/display/test_screen.py): an object of
// functions, evaluated in the page.
({
// Text cut without a sign, on either page: an element whose content is wider than its box
// (scrollWidth > clientWidth: an ellipsis or a clip) or, where it clips, taller; a line of text
// outside the box of an ancestor that clips it, or outside the window.
clipped() {
  const vw = innerWidth, vh = innerHeight, problems = [];
  const name = (e) => e.id || (typeof e.className === "string" && e.className) || e.tagName;
  // the elements that clip what overflows them, with the box they clip to
  const clipBox = new Map();
  for (const e of document.querySelectorAll("body *")) {
    if (!e.getClientRects().length) continue; // not drawn
    const cs = getComputedStyle(e);
    const clips = cs.overflowX !== "visible" || cs.overflowY !== "visible";
    if (e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1)
      problems.push(`wider than its box: ${name(e)} ${e.scrollWidth} > ${e.clientWidth}: ${e.textContent.slice(0, 60)}`);
    if (clips && e.clientHeight > 0 && e.scrollHeight > e.clientHeight + 1)
      problems.push(`taller than its box: ${name(e)} ${e.scrollHeight} > ${e.clientHeight}: ${e.textContent.slice(0, 60)}`);
    if (clips) {
      const box = e.getBoundingClientRect();
      const left = box.left + e.clientLeft, top = box.top + e.clientTop;
      clipBox.set(e, {left, top, right: left + e.clientWidth, bottom: top + e.clientHeight});
    }
  }
  const texts = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let t = texts.nextNode(); t; t = texts.nextNode()) {
    if (!t.textContent.trim()) continue;
    const range = document.createRange();
    range.selectNodeContents(t);
    const lines = [...range.getClientRects()].filter((r) => r.width > 0 && r.height > 0);
    const said = t.textContent.trim().slice(0, 50);
    // a line's glyph box may be taller than the line box its line-height gives it (empty
    // space above and below the letters): only what is beyond the line box counts as cut
    const lineHeight = parseFloat(getComputedStyle(t.parentElement).lineHeight);
    const slack = (r) => Math.max(1, Number.isNaN(lineHeight) ? 1 : (r.height - lineHeight) / 2 + 1);
    for (const r of lines)
      if (r.left < -1 || r.top < -1 || r.right > vw + 1 || r.bottom > vh + 1)
        problems.push(`outside the window: "${said}" ${JSON.stringify(r)}`);
    for (let a = t.parentElement; a && a !== document.body; a = a.parentElement) {
      const c = clipBox.get(a);
      if (!c) continue;
      for (const r of lines)
        if (r.left < c.left - 1 || r.top < c.top - slack(r) || r.right > c.right + 1 || r.bottom > c.bottom + slack(r)) {
          problems.push(`cut by ${name(a)}: "${said}"`);
          break;
        }
    }
  }
  return [...new Set(problems)];
},

// Glance: the prompt's cards against its text (as tall as its lines, the rank at least 55% of
// the text's size), and each box's cards against what the box
// allows (no wider than the hand's row leaves every corner showing, 42% of a card, nor than
// 7rem; and a card 6% larger would not fit the box's height).
glance() {
  const out = {prompt: [], boxes: []};
  const prompt = document.getElementById("prompt");
  if (prompt) {
    const style = getComputedStyle(prompt);
    const size = parseFloat(style.fontSize);
    const line = parseFloat(style.lineHeight) || size * 1.2;
    for (const c of prompt.querySelectorAll(".card"))
      out.prompt.push({card: c.getBoundingClientRect().height, line, size,
                       rank: parseFloat(getComputedStyle(c.querySelector(".corner")).fontSize)});
  }
  const rem = parseFloat(getComputedStyle(document.documentElement).fontSize);
  for (const box of document.querySelectorAll(".box:not(.strip)")) {
    const card = box.querySelector(".hand .card");
    if (!card) continue;
    const hand = card.closest(".hand");
    const style = getComputedStyle(hand);
    const room = hand.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    const fan = Math.max(...[...box.querySelectorAll(".hand")].map((h) => h.querySelectorAll(".card").length));
    const width = card.getBoundingClientRect().width;
    const most = Math.min(7 * rem, room / (1 + 0.42 * (fan - 1)));
    const before = box.style.getPropertyValue("--card-w");
    box.style.setProperty("--card-w", width * 1.06 + "px");
    const larger = box.scrollHeight <= box.clientHeight;
    box.style.setProperty("--card-w", before);
    out.boxes.push({box: box.id, width, most, height: card.getBoundingClientRect().height,
                    boxWidth: box.clientWidth, boxHeight: box.clientHeight, largerFits: larger && width < most - 1});
  }
  return out;
},

layout() {
  const vw = innerWidth, vh = innerHeight, out = {problems: []};
  const root = document.documentElement;
  if (root.scrollWidth > vw || root.scrollHeight > vh)
    out.problems.push(`scrollbar: page ${root.scrollWidth}x${root.scrollHeight} in ${vw}x${vh}`);
  const name = (e) => e.id || e.className || e.tagName;
  const reachable = (e, what) => {
    const r = e.getBoundingClientRect();
    if (r.width < 48 || r.height < 48) out.problems.push(`${what} ${name(e)} is ${r.width}x${r.height}`);
    if (r.left < 0 || r.top < 0 || r.right > vw || r.bottom > vh)
      out.problems.push(`${what} ${name(e)} leaves the viewport: ${JSON.stringify(r)}`);
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    if (!hit || !(hit === e || e.contains(hit))) out.problems.push(`${what} ${name(e)} is covered by ${hit && name(hit)}`);
  };
  for (const k of document.querySelectorAll("button.key:enabled")) reachable(k, "key");
  for (const c of document.querySelectorAll("#tools button:not([hidden]), #tools input, #tools select, #boxes button"))
    if (!c.disabled) reachable(c, "control");
  out.problems.push(...this.clipped());
  const glance = this.glance();
  for (const p of glance.prompt)
    if (p.card < p.line || p.rank < 0.55 * p.size)
      out.problems.push(`a prompt card ${p.card}px tall (rank ${p.rank}px) in lines ${p.line}px tall of ${p.size}px text`);
  for (const b of glance.boxes)
    if (b.largerFits) out.problems.push(`${b.box}: its cards (${b.width}px) could be larger`);
  // the dealer's words only: no key code (OK_, B3_, SHF...) and no state or action name
  const codes = document.body.innerText.match(
    /\b(?:DEA|INS|SUR|STD|DBL|SPL|RES|OK_|CAN|UND|SHF|CAL|[BWD]\d_)(?![A-Za-z0-9])|\b[a-z]+_[a-z_]+\b/g);
  if (codes) out.problems.push(`identifiers on the screen: ${codes.join(", ")}`);
  out.keys = {};
  for (const k of document.querySelectorAll("button.key")) {
    const r = k.getBoundingClientRect();
    out.keys[k.dataset.key] = [r.left, r.top, r.width, r.height];
  }
  out.lit = [...document.querySelectorAll("button.key.lit")].map((k) => k.dataset.key).sort();
  out.ready = [...document.querySelectorAll("button.key.ready")].map((k) => k.dataset.key).sort();
  out.enabled = [...document.querySelectorAll("button.key:enabled")].map((k) => k.dataset.key).sort();
  out.labels = Object.fromEntries([...document.querySelectorAll("button.key")].map((k) => [k.dataset.key, k.textContent]));
  return out;
},

money: () => {
  const read = (root, kind) => {
    const a = root && root.querySelector(".amount." + kind);
    if (!a) return null;
    const chips = a.nextElementSibling;
    let sum = 0;
    for (const c of chips.querySelectorAll(".chip")) {
      sum += c.dataset.cents === "rest" ? Number(c.dataset.rest) : Number(c.dataset.cents) * Number(c.dataset.count);
    }
    return {cents: Number(a.dataset.cents), text: a.querySelector(".value").textContent, chips: sum};
  };
  const boxes = {};
  for (const b of document.querySelectorAll(".box")) {
    const n = b.id.split("-")[1];
    const step = document.getElementById("box-" + n + "-step");
    const stake = document.getElementById("box-" + n + "-stake");
    boxes[n] = {pay: read(step, "pay"), collect: read(step, "collect"), return: read(step, "return"),
                stake: stake ? Number(stake.dataset.cents) : null};
  }
  const t = document.getElementById("step-total");
  return {boxes, total: {pay: Number(t.dataset.pay), collect: Number(t.dataset.collect), return: Number(t.dataset.return)},
          total_text: t.textContent};
},
})
