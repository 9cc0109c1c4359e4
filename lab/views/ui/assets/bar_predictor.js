// The bar predictor (lab/views/ui/bar_predictor.py): one bar per outcome on a 0-1 axis. Drag a bar's top (mouse, pen,
// touch: pointer events), or press a height on its column (touch: a tap picks the column first, and a swipe elsewhere
// scrolls the page); each bar is a slider for the keyboard and screen readers.
// A height snaps to 0.01 and is sent to the server once, on release (pointer up, key up), never on every pixel.
// Text goes in as textContent only: labels are the page's own token names, never HTML.
export default function (component) {
  const { data, parentElement } = component;
  const root = parentElement.querySelector(".rl-bp");
  if (!root || !data) return;
  let st = root.__rlbp;
  if (!st) st = root.__rlbp = build(root);
  st.component = component;  // the newest setTriggerValue
  update(st, data);
  // On a class page this element's trigger also reruns the activity part that holds it, when the follower asks
  // (lab/views/live_class/follow.py, page_redraw): one element instead of two on every page of the class.
  if (data.redraws_page) {
    const redraw = (value) => st.component.setTriggerValue("redraw", value);
    window.__labRedrawPage = redraw;
    return () => { if (window.__labRedrawPage === redraw) delete window.__labRedrawPage; };
  }
}

const GRID = [0, 0.2, 0.4, 0.6, 0.8, 1];
const BOX_CHARS = 40;  // a box's longest text: lab/models/bars.py BOX_CHARS, which the server checks again
const snap = (v) => Math.round(Math.min(1, Math.max(0, v)) * 100) / 100;
const text2 = (v) => v.toFixed(2);
// a value as the page's language writes it (0,25 where it writes a decimal comma); text2 stays for numbers a
// program reads (aria-valuenow, the boxes a class reads)
let decimalComma = false;
const shown2 = (v) => (decimalComma ? text2(v).replace(".", ",") : text2(v));

function build(root) {
  const st = { root, values: [], sent: null, dragging: -1, bars: [], labels: [], short: [], key: "" };
  st.plot = root.querySelector(".rl-bp-plot");
  st.axis = root.querySelector(".rl-bp-axis");
  st.sum = root.querySelector(".rl-bp-sum");
  st.alert = root.querySelector(".rl-bp-alert");
  for (const g of GRID) {
    const line = document.createElement("div");
    line.className = "rl-bp-grid";
    line.style.bottom = `${g * 100}%`;
    st.plot.appendChild(line);
    const tick = document.createElement("span");
    tick.className = "rl-bp-tick";
    tick.style.bottom = `${g * 100}%`;
    tick.dataset.g = String(g);
    st.axis.appendChild(tick);
  }
  st.row = document.createElement("div");
  st.row.className = "rl-bp-row";
  st.plot.appendChild(st.row);
  st.names = root.querySelector(".rl-bp-names");
  st.closed = root.querySelector(".rl-bp-closed");
  st.picked = -1;
  document.addEventListener("pointerdown", (e) => {  // a touch outside these bars: none stays picked
    if (st.picked >= 0 && !(e.target instanceof Element && st.row.contains(e.target))) pick(st, -1);
  }, true);
  // a class page's live part says when the vote closed without drawing these bars again (the reveal): see follow.py
  document.addEventListener("rl-vote-closed", () => { if (st.root.isConnected) applyClosed(st, true); });
  new ResizeObserver(() => fit(st)).observe(st.row);
  if (!window.__rlbpPointer) {  // a press elsewhere on the page: focus is the user's, not to be given back
    window.__rlbpPointer = true;
    document.addEventListener("pointerdown", (e) => {
      if (!(e.target instanceof Element) || !e.target.closest(".rl-bp-col")) window.__rlbpFocus = null;
    }, true);
  }
  return st;
}

function columnFor(st, i, label) {
  const col = document.createElement("div");
  col.className = "rl-bp-col";
  col.setAttribute("role", "slider");
  col.tabIndex = 0;
  col.setAttribute("aria-valuemin", "0");
  col.setAttribute("aria-valuemax", "1");
  col.setAttribute("aria-describedby", st.root.querySelector(".rl-bp-help").id);
  const bar = document.createElement("div");
  bar.className = "rl-bp-bar";
  const value = document.createElement("span");
  value.className = "rl-bp-value";
  value.setAttribute("aria-hidden", "true");
  // on touch, the bar's top (a band of 2.75rem, 44 px) is where a drag moves it; anywhere else on the column a swipe
  // scrolls the page (touch-action: pan-y in the CSS) and a tap picks the bar, whose whole column then takes drags
  const grip = document.createElement("div");
  grip.className = "rl-bp-grip";
  grip.setAttribute("aria-hidden", "true");
  col.append(bar, value, grip);
  const name = document.createElement("span");
  name.className = "rl-bp-name";
  name.setAttribute("aria-hidden", "true");
  let tap = null;  // a touch that began on the column away from the grip: a tap, or the start of a scroll
  col.addEventListener("pointerdown", (e) => {
    if (e.button !== 0 || st.disabled) return;
    if (e.pointerType === "touch" && e.target !== grip && st.picked !== i) {
      tap = { id: e.pointerId, x: e.clientX, y: e.clientY };
      return;  // the browser scrolls if it is a swipe (then pointercancel), else pointerup picks the bar
    }
    e.preventDefault();
    col.focus({ preventScroll: true });
    col.setPointerCapture(e.pointerId);
    st.dragging = i;
    if (e.pointerType === "touch") pick(st, i);
    set(st, i, fromPointer(col, e));
  });
  col.addEventListener("pointerup", (e) => {
    if (tap && tap.id === e.pointerId && Math.hypot(e.clientX - tap.x, e.clientY - tap.y) < 10 && !st.disabled) {
      pick(st, i);
      col.focus({ preventScroll: true });
    }
    tap = null;
  });
  col.addEventListener("pointercancel", () => { tap = null; });
  col.addEventListener("pointermove", (e) => {
    if (st.dragging === i) set(st, i, fromPointer(col, e));
  });
  const release = () => {
    if (st.dragging !== i) return;
    st.dragging = -1;
    send(st);
  };
  col.addEventListener("pointerup", release);
  col.addEventListener("pointercancel", release);
  col.addEventListener("lostpointercapture", release);
  col.addEventListener("keydown", (e) => {
    if (st.disabled) return;
    const v = st.values[i];
    const moves = {
      ArrowUp: v + 0.01, ArrowRight: v + 0.01, ArrowDown: v - 0.01, ArrowLeft: v - 0.01,
      PageUp: v + 0.1, PageDown: v - 0.1, Home: 0, End: 1,
    };
    if (!(e.key in moves)) return;
    e.preventDefault();
    set(st, i, moves[e.key]);
  });
  col.addEventListener("keyup", (e) => {
    if (["ArrowUp", "ArrowRight", "ArrowDown", "ArrowLeft", "PageUp", "PageDown", "Home", "End"].includes(e.key)) {
      send(st);
    }
  });
  col.addEventListener("focus", () => { window.__rlbpFocus = { key: st.key, index: i }; });
  col.addEventListener("blur", () => {
    setTimeout(() => {  // a rerun that rebuilds the page moves focus to the body; a Tab elsewhere does not
      const f = window.__rlbpFocus;
      if (f && f.key === st.key && f.index === i && document.activeElement !== document.body) window.__rlbpFocus = null;
    }, 0);
  });
  return { col, bar, value, name, grip };
}

// The bar a tap picked on a touch screen: its column takes drags (touch-action: none) until another is picked or a
// touch lands outside the bars.
function pick(st, i) {
  st.picked = i;
  st.bars.forEach((b, k) => b.col.classList.toggle("rl-bp-picked", k === i));
}

function fromPointer(col, e) {
  const box = col.getBoundingClientRect();
  return 1 - (e.clientY - box.top) / box.height;
}

function set(st, i, v) {
  st.dirty = true;  // changed here and not sent yet: a rerun's older values must not undo it
  st.values[i] = snap(v);
  draw(st, i);
  sumText(st);
  if (st.form) boxesFromBars(st, i);
}

function send(st) {
  st.dirty = false;
  if (st.form) {  // with boxes and Submit (a class page): the bars go to the server only with Submit
    remember(st);
    return;
  }
  const now = st.values.slice();
  if (st.sent && now.every((v, k) => v === st.sent[k])) return;
  st.sent = now;
  // until the server's values come back equal to these, a rerun that started before this send (its values older)
  // does not move the bars back: fast keys (PageUp, PageUp, ...) each send, and the reruns answer one by one
  st.awaiting = now;
  st.awaitingAt = Date.now();
  st.component.setTriggerValue("bars", now);
}

const AWAIT_MS = 3000;  // a send the server never echoes (refused, superseded) stops holding the bars after this

function draw(st, i) {
  const v = st.values[i];
  const b = st.bars[i];
  b.bar.style.height = `${v * 100}%`;
  b.value.style.bottom = `${v * 100}%`;
  b.grip.style.bottom = `${v * 100}%`;
  b.value.textContent = shown2(v);
  b.col.setAttribute("aria-valuenow", text2(v));
  b.col.setAttribute("aria-valuetext", `${st.labels[i]}, ${shown2(v)}`);
}

function sumText(st) {
  const total = st.values.reduce((a, v) => a + Math.round(v * 100), 0) / 100;
  const said = `${st.sumWords} ${shown2(total)}${st.sumNote}`;
  if (st.sum.textContent !== said) st.sum.textContent = said;
}

function update(st, data) {
  const labels = data.labels || [];
  st.short = data.short || [];
  st.key = data.key || "";
  st.sumWords = data.sum_words || "Your bars add up to";
  decimalComma = !!data.decimal_comma;
  for (const tick of st.axis.querySelectorAll(".rl-bp-tick")) {  // 0,2 where the page writes a decimal comma
    const g = Number(tick.dataset.g);
    const text = g === 0 || g === 1 ? String(g) : g.toFixed(1);
    tick.textContent = decimalComma ? text.replace(".", ",") : text;
  }
  const help = st.root.querySelector(".rl-bp-help");
  if (data.help && help.textContent !== data.help) help.textContent = data.help;  // in the page's language
  st.sumNote = data.sum_note || ".";
  st.serverDisabled = !!data.disabled;
  st.closedHere = data.closed || "";
  st.disabled = st.serverDisabled || !!closedReason(st);
  st.root.classList.toggle("rl-bp-large", !!data.large);
  st.root.classList.toggle("rl-bp-disabled", st.disabled);
  for (const [name, colour] of data.colors || []) st.root.style.setProperty(`--rl-bp-${name}`, colour);
  st.root.querySelector(".rl-bp-group").setAttribute("aria-label", data.group || "Your bars");
  st.root.querySelector(".rl-bp-help").id = `rl-bp-help-${st.key.replace(/[^\w-]/g, "_")}`;
  if (labels.join("\u0000") !== st.labels.join("\u0000")) {  // new outcomes: new columns
    st.row.replaceChildren();
    st.names.replaceChildren();
    st.bars = labels.map((label, i) => columnFor(st, i, label));
    st.labels = labels.slice();
    for (const [i, b] of st.bars.entries()) {
      b.col.setAttribute("aria-label", `${data.bar_word || "Bar"} ${labels[i]}`);
      b.name.textContent = labels[i];
      st.row.appendChild(b.col);
      st.names.appendChild(b.name);
    }
    st.sent = null;
    st.dirty = false;
    st.awaiting = null;
  }
  for (const b of st.bars) b.col.setAttribute("aria-disabled", st.disabled ? "true" : "false");
  const values = (data.values || []).map((v) => snap(Number(v) || 0));
  // with boxes and Submit: what the student drew or typed stays until the server holds something new (a Submit
  // saved, another tab's, a new round: a new stamp); a rerun for anything else keeps it
  const spec = data.form_fields ? {  // with boxes and Submit (flat in the data: see bar_predictor.py)
    fields: data.form_fields, values: data.form_values, stamp: data.form_stamp, submit: data.form_submit, word: data.form_word,
  } : null;
  const keep = !!spec && !!st.form && st.form.stamp === spec.stamp;
  if (st.awaiting && values.length === st.awaiting.length && values.every((v, k) => v === st.awaiting[k])) {
    st.awaiting = null;  // the server holds what was sent last
  }
  const held = !spec && (st.dirty || (st.awaiting && Date.now() - st.awaitingAt < AWAIT_MS));
  if (st.dragging < 0 && !keep && !held) {  // the server's values (typed boxes, a reset); not under a finger still moving
    st.values = labels.map((_, i) => values[i] || 0);
    st.sent = st.values.slice();
    st.bars.forEach((_, i) => draw(st, i));
  }
  if (spec) form(st, spec, keep);
  applyClosed(st, false);
  sumText(st);
  const alert = data.refused || "";
  if (st.alert.textContent !== alert) st.alert.textContent = alert;
  fit(st);
  const f = window.__rlbpFocus;  // focus kept after a rerun that drew this predictor again
  if (f && f.key === st.key && st.bars[f.index] && document.activeElement === document.body) {
    st.bars[f.index].col.focus({ preventScroll: true });
  }
}

function fit(st) {
  // many narrow columns (the Binomial lab's n = 26 on a phone): the printed values and every other name give way
  // (each value is in the number boxes and read out by the slider)
  const width = st.bars.length ? st.row.clientWidth / st.bars.length : 100;
  const narrow = width < 34;
  st.root.classList.toggle("rl-bp-narrow", narrow);
  st.root.classList.toggle("rl-bp-tiny", width < 16);
  // the short names (3 for P(3), dog for r(dog)) where the long ones do not fit: narrow columns, or a long name that
  // would break over two lines ("r(dog" above ")")
  const canShort = st.short.length === st.labels.length;
  st.root.classList.toggle("rl-bp-one-line", canShort);
  let short = narrow && canShort;
  if (canShort && !short) {
    st.bars.forEach((b, i) => { if (b.name.textContent !== st.labels[i]) b.name.textContent = st.labels[i]; });
    short = st.bars.some((b) => b.name.scrollWidth > b.name.clientWidth + 1);
  }
  st.bars.forEach((b, i) => {
    const name = short ? st.short[i] : st.labels[i];
    if (b.name.textContent !== name) b.name.textContent = name;
  });
}

// Boxes and Submit (a class page: data.form_*): one box per predicted value, bound to its bar, and a Submit that
// sends what the boxes hold, as typed (the server reads each with the lab's one reader of numbers and names a box
// it refuses). Until Submit nothing goes to the server: a drag or a keystroke costs the class no rerun.
function form(st, spec, keep) {
  const fields = spec.fields || [];
  if (!st.form || st.form.fields.join("\u0000") !== fields.join("\u0000")) {
    const area = st.root.querySelector(".rl-bp-form");
    area.replaceChildren();
    const row = document.createElement("div");
    row.className = "rl-bp-boxes";
    const boxes = fields.map((field, j) => {
      const label = document.createElement("label");
      label.className = "rl-bp-box";
      const name = document.createElement("span");
      name.textContent = `${spec.word || "Predict"} ${field}`;
      const input = document.createElement("input");
      input.type = "text";
      input.inputMode = "decimal";
      input.autocomplete = "off";
      input.spellcheck = false;
      input.maxLength = BOX_CHARS;
      input.addEventListener("input", () => { barFromBox(st, j); remember(st); });
      label.append(name, input);
      row.appendChild(label);
      return input;
    });
    const button = document.createElement("button");
    button.type = "button";
    button.className = "rl-bp-submit";
    button.textContent = spec.submit || "Submit";
    button.addEventListener("click", () => {
      if (st.disabled) return;
      st.component.setTriggerValue("submit", st.form.boxes.map((b) => (b.value.trim() === "" ? null : b.value.trim())));
    });
    area.append(row, button);
    area.hidden = false;
    st.form = { fields: fields.slice(), boxes, button, stamp: null };
    keep = false;
  }
  if (!keep) {
    st.form.boxes.forEach((b, j) => { b.value = spec.values && spec.values[j] != null ? String(spec.values[j]) : ""; });
    st.form.stamp = spec.stamp;
    recall(st);
  }
  for (const b of st.form.boxes) b.disabled = st.disabled;
  st.form.button.disabled = st.disabled;
}

// Why the vote is closed (the reveal, Lock, the countdown's end): from the server's data, or from the class page's live
// part (window.__labVoteClosed, for these bars' key), which says so at the reveal without drawing these bars again.
// Closed, the bars, the boxes and Submit are disabled and the reason is said under them; focus that was on a box or on
// Submit goes to the reason (a disabled control would drop it to the page's body).
function closedReason(st) {
  const told = window.__labVoteClosed;
  return st.closedHere || (told && told.key === st.key ? told.reason : "");
}

function applyClosed(st, live) {
  const reason = closedReason(st);
  const had = st.root.contains(document.activeElement) && document.activeElement !== st.closed;
  st.disabled = st.serverDisabled || !!reason;
  st.root.classList.toggle("rl-bp-disabled", st.disabled);
  for (const b of st.bars) b.col.setAttribute("aria-disabled", st.disabled ? "true" : "false");
  if (st.form) {
    for (const b of st.form.boxes) b.disabled = st.disabled;
    st.form.button.disabled = st.disabled;
    if (reason) st.form.button.setAttribute("aria-describedby", `rl-bp-closed-${st.key.replace(/[^\w-]/g, "_")}`);
    else st.form.button.removeAttribute("aria-describedby");
  }
  st.closed.id = `rl-bp-closed-${st.key.replace(/[^\w-]/g, "_")}`;
  if (st.closed.textContent !== reason) st.closed.textContent = reason;
  st.closed.hidden = !reason;
  if (reason && live && had) st.closed.focus({ preventScroll: true });
}

// What the student drew or typed, kept in this tab's sessionStorage under the stamp it was made on: a page drawn
// anew (its element rebuilt, a reload) shows it again while the server still holds the same (the same stamp).
function remember(st) {
  try {
    sessionStorage.setItem(`rlbp:${st.key}`, JSON.stringify({ stamp: st.form.stamp, texts: st.form.boxes.map((b) => b.value) }));
  } catch (e) { /* storage off or full: the boxes still hold it while the page stays */ }
}

function recall(st) {
  let kept = null;
  try { kept = JSON.parse(sessionStorage.getItem(`rlbp:${st.key}`) || "null"); } catch (e) { kept = null; }
  if (!kept || kept.stamp !== st.form.stamp || !Array.isArray(kept.texts)) return;
  st.form.boxes.forEach((b, j) => {
    if (typeof kept.texts[j] === "string") { b.value = kept.texts[j].slice(0, BOX_CHARS); barFromBox(st, j); }
  });
}

function boxesFromBars(st, moved) {  // the moved bar's box, and any empty box of a bar (the bar shows its value)
  st.labels.forEach((label, i) => {
    const j = st.form.fields.indexOf(label);
    if (j < 0) return;
    const box = st.form.boxes[j];
    if (i === moved || box.value.trim() === "") box.value = shown2(st.values[i]);
  });
}

function barFromBox(st, j) {  // a typed value moves its bar when it reads as a number from 0 to 1 (a/b too)
  const i = st.labels.indexOf(st.form.fields[j]);
  if (i < 0) return;
  const typed = st.form.boxes[j].value.trim();
  const text = decimalComma ? typed.replace(",", ".") : typed;  // 0,25 where the page writes a decimal comma
  const parts = text.split("/");
  const v = parts.length === 2 ? Number(parts[0]) / Number(parts[1]) : Number(text);
  if (text === "" || parts.length > 2 || !Number.isFinite(v) || v < 0 || v > 1) return;
  st.values[i] = snap(v);
  draw(st, i);
  sumText(st);
}
