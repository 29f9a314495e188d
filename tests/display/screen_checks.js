// What the screen tests read from the page (tests/display/test_screen.py): an object of
// functions, evaluated in the page.
({
layout: () => {
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
  for (const k of document.querySelectorAll("button.key.lit")) reachable(k, "lit key");
  for (const c of document.querySelectorAll("#tools button:not([hidden]), #tools input, #tools select, #boxes button"))
    if (!c.disabled) reachable(c, "control");
  for (const e of document.querySelectorAll("body *")) {
    if (e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1)
      out.problems.push(`text wider than its box: ${name(e)} ${e.scrollWidth} > ${e.clientWidth}: ${e.textContent.slice(0, 60)}`);
  }
  for (const e of document.querySelectorAll(".box, .tool, #prompt-bar, #keys, #step-total, #dealer"))
    if (e.scrollHeight > e.clientHeight + 1)
      out.problems.push(`content taller than its box: ${name(e)} ${e.scrollHeight} > ${e.clientHeight}`);
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
