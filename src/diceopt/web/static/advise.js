// diceopt page, 2/5: advise mode: the position editor (dice, tiles, the sheet, fields),
// advice options, the final-score distribution and the advice table.
"use strict";
// --- advise mode: the editor works on the position's JSON form --------------------------
function editor() {
  const key = `${S.game}/${S.variant}`;
  if (!S.editors[key]) {
    S.editors[key] = {
      json: clone(variant().position_example_json || {}), points: {},
      options: {}, opponent: { on: false, filled: [], upper: 0, score: 0 },
    };
  }
  return S.editors[key];
}
function diceGroup(st) {
  const n = diceCount();
  const dice = st.json.dice || [];
  const shown = el("div", { class: "row", id: "dice" });
  for (let i = 0; i < n; i++) {
    const v = dice[i];
    const remove = () => { if (v !== undefined) { st.json.dice = (st.json.dice || []).filter((_, j) => j !== i); edited(true); } };
    shown.append(v === undefined
      ? el("button", { type: "button", class: "die empty", "data-index": i, title: "type a face (1-6) or tap one below", text: "?" })
      : dieButton(v, { "data-index": i, title: "remove", "aria-label": `${num(v)}: remove`, onclick: remove }));
  }
  const row = el("div", { class: "row", id: "faces" });
  for (const f of faces()) {
    row.append(dieButton(f, {
      class: "die face", "data-face": num(f), title: `add a ${num(f)}`, "aria-label": `add a ${num(f)}`,
      onclick: () => {
        const now = [...(st.json.dice || [])];
        if (now.length >= n) now.shift();
        now.push(f);
        st.json.dice = now.sort((a, b) => a - b);
        edited(true);
      },
    }));
  }
  const clear = el("button", {
    type: "button", id: "clear-dice", text: "clear", onclick: () => { st.json.dice = []; edited(true); },
  });
  return el("div", { class: "group" }, el("h2", { text: "Dice: type them (13356, Backspace) or tap faces to add, a die to remove" }),
    shown, row, el("div", { class: "row" }, clear));
}
// The score sheet: a row per category; open rows show the points the current dice would
// write there (``points``: category -> points, from /api/preview). ``pick``: advise mode
// toggles a category filled; play mode writes the dice there (``actions``: category -> action).
function sheet(json, points, opts) {
  const st = opts.edit;
  const filled = new Set(json.filled || []);
  const body = el("tbody");
  for (const cat of categories()) {
    const isFilled = filled.has(cat);
    // editing: the name is the checkbox's label (a 44 px touch target)
    const cells = [el("td", {}, opts.edit
      ? el("label", { class: "cat-name", for: `filled-${cat}`, text: cat.replace(/_/g, " ") })
      : cat.replace(/_/g, " "))];
    if (opts.edit) {
      const box = el("input", { type: "checkbox", class: "filled", id: `filled-${cat}`, "data-cat": cat, "aria-label": `${cat} filled` });
      box.checked = isFilled;
      box.addEventListener("change", () => {
        const now = new Set(st.json.filled || []);
        if (box.checked) now.add(cat); else now.delete(cat);
        st.json.filled = categories().filter((c) => now.has(c));
        edited(true);
      });
      cells.push(el("td", {}, box));
    }
    const shown = isFilled ? (opts.written && cat in opts.written ? num(opts.written[cat]) : "✓")
      : cat in points ? num(points[cat]) : "";
    cells.push(el("td", { class: "num points", "data-cat": cat, text: shown }));
    const action = opts.actions && opts.actions[cat];
    if (action) {
      const b = el("button", { type: "button", class: "option score", "data-action": action.action,
        text: "write", onclick: () => choose(action) });
      if (opts.hints) b.append(el("small", { text: `${fmt(action.value)} (−${fmt(action.regret)})` }));
      cells.push(el("td", {}, b));
    } else if (!opts.edit) cells.push(el("td"));
    body.append(el("tr", { class: isFilled ? "filled" : "open", "data-cat": cat }, ...cells));
  }
  const totals = Object.entries(json).filter(([k, v]) => typeof v === "number" && k !== "rerolls")
    .map(([k, v]) => `${k} ${num(v)}`).join(", ");
  if (totals) body.append(el("tr", { class: "totals" }, el("td", { colspan: 4, text: totals })));
  return el("table", { class: "sheet" }, body);
}
function tilesGroup(st) {
  const isOpen = new Set(st.json.open || []);
  const row = el("div", { class: "row", id: "tiles" });
  for (let t = 1; t <= tileCount(); t++) {
    row.append(el("button", {
      type: "button", class: "tile", "data-tile": t, "aria-pressed": String(isOpen.has(t)), text: t,
      onclick: () => {
        const open = new Set(st.json.open || []);
        if (open.has(t)) open.delete(t); else open.add(t);
        st.json.open = [...open].sort((a, b) => a - b);
        edited(true);
      },
    }));
  }
  return el("div", { class: "group" }, el("h2", { text: "Open tiles (click to shut or open)" }), row);
}
// One input per field the board does not draw: numbers, true/false, text, lists of numbers.
function fieldInputs(st) {
  const box = el("div", { class: "group row fields" });
  const skip = new Set(boardFields());
  for (const [name, value] of Object.entries(st.json)) {
    if (skip.has(name)) continue;
    const id = `field-${name}`;
    let input;
    if (typeof value === "boolean") {
      input = el("input", { type: "checkbox", id });
      input.checked = value;
      input.addEventListener("change", () => { st.json[name] = input.checked; edited(false); });
      box.append(el("label", { class: "check" }, input, name.replace(/_/g, " ")));
      continue;
    }
    if (typeof value === "number") {
      input = el("input", { type: "number", id, step: "any" });
      input.value = num(value);
      input.addEventListener("input", () => {
        if (input.value.trim() === "" || !Number.isFinite(+input.value)) return;
        st.json[name] = +input.value;
        edited(false);
      });
    } else if (value === null || typeof value === "string" || Array.isArray(value)) {
      input = el("input", { type: "text", id, size: 8, placeholder: value === null ? "none" : "" });
      input.value = value === null ? "" : Array.isArray(value) ? value.join(" ") : value;
      input.addEventListener("input", () => {
        const text = input.value.trim();
        if (Array.isArray(value)) st.json[name] = text ? text.split(/[\s,]+/).map((w) => (Number.isFinite(+w) ? +w : w)) : [];
        else if (text === "") st.json[name] = null;
        else st.json[name] = typeof value === "string" || !Number.isFinite(+text) ? text : +text;
        edited(false);
      });
    } else continue;
    box.append(el("label", { for: id }, `${name.replace(/_/g, " ")} `, input));
  }
  return box.children.length ? box : null;
}
function renderEditor() {
  const st = editor();
  const box = $("#editor");
  box.replaceChildren();
  if (hasDice()) box.append(diceGroup(st));
  if (board() === "tiles") box.append(tilesGroup(st));
  if (board() === "colour-dice") box.append(DiceoptDraw.colourDice(st.json, "editor-colour-dice"));
  box.append(el("div", { id: "advise-best", class: "best-move" }));
  adviseBest(st);
  const fields = fieldInputs(st);
  if (fields) box.append(fields);
  if (board() === "dice-sheet") {
    box.append(el("div", { class: "group", id: "editor-sheet" },
      el("h2", { text: "Score sheet: tick the filled boxes (points: what these dice would score)" }),
      sheet(st.json, st.points, { edit: st })));
  }
}
// The best action of the advice shown, in words, its held dice marked on the editor's dice.
function adviseBest(st) {
  const box = $("#advise-best");
  const best = st.best;
  if (!box) return;
  for (const d of document.querySelectorAll("#dice button.die")) d.classList.remove("best");
  if (!best || !best.action) { box.replaceChildren(); box.dataset.action = ""; return; }
  box.dataset.action = best.action;
  const kept = hasDice() && Array.isArray(st.json.dice) && holdActions([best, { action: `${best.action.split(" ")[0]} -` }]).size
    ? heldIndices(best.action, st.json.dice) : null;
  let words = best.action;
  if (kept) {
    const rolled = st.json.dice.length - kept.length;
    words = kept.length ? `Keep ${kept.map((i) => num(st.json.dice[i])).join(" ")}, reroll ${rolled}` : `Reroll all ${rolled} dice`;
  }
  // the dice kept, or those the best action sets aside ("set aside 1 5, roll 4"), ringed
  const aside = kept || (hasDice() && Array.isArray(st.json.dice) ? asideIndices(best.action, st.json.dice) : null);
  for (const i of aside || []) {
    const d = document.querySelector(`#dice button.die[data-index='${i}']`);
    if (d) d.classList.add("best");
  }
  box.replaceChildren(el("div", { class: "best-line" }, el("span", { class: "tag", text: "Best" }),
    el("strong", { class: "best-words", text: words }), el("span", { class: "value", text: valueText(best.value, st.valueIs) })));
}
// --- advice options (the game's advise_options, e.g. a target score, an opponent) ------
// Each option gets an input (a list for choices, a number, text) with its message box
// under it. On a dice-sheet board an option named "opponent" is drawn as the opponent's
// score sheet (their filled boxes, upper total and score), with the options named after
// it (how they play) in the same panel.
const adviseOptions = () => game().advise_options || [];
const sheetOpponent = () => board() === "dice-sheet" && adviseOptions().some((o) => o.name === "opponent");
const inOpponentPanel = (name) => sheetOpponent() && name.startsWith("opponent");
const optionBox = (name) => (inOpponentPanel(name) ? "#option-opponent-message" : `#option-${name}-message`);
function optionControl(st, o) {
  const id = `option-${o.name}`;
  let input;
  if (o.choices) {
    input = el("select", { id }, el("option", { value: "", text: o.default !== null ? String(o.default) : "–" }),
      ...o.choices.filter((c) => c !== o.default).map((c) => el("option", { value: String(c), text: String(c) })));
  } else {
    const isNumber = o.type === "int" || o.type === "float";
    input = el("input", {
      id, type: isNumber ? "number" : "text", step: o.type === "int" ? "1" : isNumber ? "any" : null,
      placeholder: "none", autocomplete: "off",
    });
  }
  input.value = st.options[o.name] ?? "";
  input.addEventListener(o.choices ? "change" : "input", () => {
    st.options[o.name] = input.value.trim();
    edited(false);
  });
  return input;
}
function opponentPanel(st) {
  const o = st.opponent;
  const on = el("input", { type: "checkbox", id: "opponent-on" });
  on.checked = o.on;
  on.addEventListener("change", () => { o.on = on.checked; edited(false); });
  const boxes = el("div", { class: "row opp-filled" });
  for (const cat of categories()) {
    const b = el("input", { type: "checkbox", class: "opp-filled", "data-cat": cat, "aria-label": `opponent: ${cat} filled` });
    b.checked = o.filled.includes(cat);
    b.addEventListener("change", () => {
      const now = new Set(o.filled);
      if (b.checked) now.add(cat); else now.delete(cat);
      o.filled = categories().filter((c) => now.has(c));
      if (o.on) edited(false);
    });
    boxes.append(el("label", { class: "check" }, b, cat.replace(/_/g, " ")));
  }
  const number = (name) => {
    const input = el("input", { type: "number", id: `opponent-${name}`, min: "0", step: "1" });
    input.value = String(o[name]);
    input.addEventListener("input", () => {
      if (input.value.trim() === "" || !Number.isFinite(+input.value)) return;
      o[name] = +input.value;
      if (o.on) edited(false);
    });
    return el("label", { for: input.id }, `${name} `, input);
  };
  const more = adviseOptions().filter((x) => x.name !== "opponent" && inOpponentPanel(x.name))
    .map((x) => el("label", { for: `option-${x.name}`, title: plainWords(x.help) },
      `${x.name.replace(/^opponent_?/, "").replace(/_/g, " ") || x.name} `, optionControl(st, x)));
  const help = plainWords((adviseOptions().find((x) => x.name === "opponent") || {}).help || "");
  return el("details", { id: "opponent-panel", class: "opponent", open: o.on ? "" : null },
    el("summary", { text: "Opponent: rank by the chance to beat them" }),
    el("p", { class: "help", text: help }),
    el("label", { class: "check" }, on, "against this opponent (their sheet at the start of their turn)"),
    el("p", { class: "units", text: "Their filled boxes:" }), boxes,
    el("div", { class: "row fields" }, number("upper"), number("score"), ...more),
    el("p", { class: "message", id: "option-opponent-message", role: "alert", hidden: "" }));
}
function renderOptions() {
  const st = editor();
  const opts = adviseOptions();
  $("#advise-options").hidden = !opts.length;
  const box = $("#options-inputs");
  box.replaceChildren();
  for (const o of opts) {
    if (inOpponentPanel(o.name)) continue;
    const id = `option-${o.name}`;
    box.append(el("div", { class: "option-field" },
      el("label", { for: id, title: plainWords(o.help) }, `${o.name.replace(/_/g, " ")} `, optionControl(st, o)),
      el("small", { class: "help", text: plainWords(o.help) }),
      el("p", { class: "message", id: `${id}-message`, role: "alert", hidden: "" })));
  }
  if (sheetOpponent()) box.append(opponentPanel(st));
}
// The option values to send: those filled in (the opponent panel's when it is on).
function optionValues(st) {
  const out = {};
  for (const o of adviseOptions()) {
    if (inOpponentPanel(o.name) && (o.name === "opponent" || !st.opponent.on)) continue;
    const v = String(st.options[o.name] ?? "").trim();
    if (v === "") continue;
    out[o.name] = (o.type === "int" || o.type === "float") && Number.isFinite(+v) ? +v : v;
  }
  if (sheetOpponent() && st.opponent.on) {
    const o = st.opponent;
    out.opponent = { filled: o.filled, upper: o.upper, score: o.score };
  }
  return out;
}
// The option an error is about: the API starts such errors with the option's name.
function optionOf(message) {
  const m = message.replace(/^invalid request: /, "");
  const names = adviseOptions().map((o) => o.name).sort((a, b) => b.length - a.length);
  return names.find((n) => m.startsWith(`${n}:`) || m.startsWith(`${n} `));
}

// --- the distribution of the final score (games that give one): an inline SVG chart --
// One request at a time: while one is on its way only the latest position waits.
// Asked for a moment after the advice (a position being clicked together is not sent).
const D = { busy: false, want: null, key: null, timer: null };
function wantDistribution(position) {
  if (!game().distribution) return hideDistribution();
  D.want = { game: S.game, variant: S.variant, position };
  D.key = JSON.stringify(D.want);
  clearTimeout(D.timer);
  D.timer = setTimeout(() => { if (!D.busy) pumpDistribution(); }, 250);
}
function hideDistribution() {
  D.key = null;
  D.want = null;
  clearTimeout(D.timer);
  $("#distribution-box").hidden = true;
}
async function pumpDistribution() {
  D.busy = true;
  $("#distribution-box").setAttribute("aria-busy", "true");
  try {
    while (D.want) {
      const req = D.want;
      D.want = null;
      if (!$("#distribution-chart").children.length) {
        $("#distribution-box").hidden = false;
        $("#distribution-summary").textContent = "working… (exact; at most a few seconds)";
      }
      try {
        const data = await api("/api/distribution", req);
        if (JSON.stringify(req) === D.key) drawDistribution(data);
      } catch (err) {
        if (JSON.stringify(req) !== D.key) continue;
        $("#distribution-chart").replaceChildren();
        $("#distribution-summary").textContent = "";
        $("#distribution-box").hidden = false;
        showError(err, "#distribution-message");
      }
    }
  } finally {
    D.busy = false;
    $("#distribution-box").removeAttribute("aria-busy");
  }
}
function targetValue() {
  const v = String(editor().options.target ?? "").trim();
  return v !== "" && Number.isFinite(+v) ? Math.round(+v) : null;
}
function quantile(pmf, q) {
  let c = 0;
  for (let i = 0; i < pmf.length; i++) { c += pmf[i]; if (c >= q - 1e-12) return i; }
  return pmf.length - 1;
}
// A bar per score (the tails beyond 0.05% and 99.95% left out), the mean dashed, the
// scores at or above the target highlighted. SVG markup (numbers only) parsed by the page.
function drawDistribution(data) {
  const pmf = data.pmf;
  const lo = quantile(pmf, 0.0005);
  const hi = Math.max(lo + 1, quantile(pmf, 0.9995));
  const W = 320, H = 126, top = 6, base = 108;
  const peak = Math.max(...pmf.slice(lo, hi + 1), 1e-300);
  const sx = (x) => (4 + ((x - lo) / (hi + 1 - lo)) * (W - 8)).toFixed(2);
  const sy = (p) => (base - (p / peak) * (base - top)).toFixed(2);
  const target = targetValue();
  let bars = "", hit = "";
  for (let x = lo; x <= hi; x++) {
    if (!(pmf[x] > 0)) continue;
    const bar = `M${sx(x)},${base}V${sy(pmf[x])}H${sx(x + 1)}V${base}Z`;
    if (target !== null && x >= target) hit += bar; else bars += bar;
  }
  const mean = Number(data.mean);
  const anchor = (x) => (x === lo ? "start" : x === hi ? "end" : "middle");
  const ticks = [...new Set([lo, Number(data.median), hi])].map((x) =>
    `<line class="tick" x1="${sx(x + 0.5)}" x2="${sx(x + 0.5)}" y1="${base}" y2="${base + 4}"/>` +
    `<text x="${x === lo ? 4 : x === hi ? W - 4 : sx(x + 0.5)}" y="${base + 15}" text-anchor="${anchor(x)}">` +
    `${x === Number(data.median) ? "median " : ""}${Math.round(x)}</text>`).join("");
  const right = mean > (lo + hi) / 2;
  const chart = $("#distribution-chart");
  chart.innerHTML = `<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="probability of each final score, ${lo} to ${hi} points">` +
    `<path class="bars" d="${bars}"/>${hit ? `<path class="bars hit" d="${hit}"/>` : ""}` +
    `<line class="axis" x1="4" x2="${W - 4}" y1="${base}" y2="${base}"/>${ticks}` +
    `<line class="mean" x1="${sx(mean)}" x2="${sx(mean)}" y1="${top}" y2="${base}"/>` +
    `<text class="mean" x="${(+sx(mean) + (right ? -4 : 4)).toFixed(2)}" y="${top + 10}" ` +
    `text-anchor="${right ? "end" : "start"}">mean ${mean.toFixed(1)}</text></svg>`;
  const p = data.percentiles || {};
  let text = `${data.of}: mean ${mean.toFixed(2)}, std ${Number(data.std).toFixed(2)}, median ${data.median}, ` +
    `5–95%: ${p["5"]}–${p["95"]}`;
  chart.dataset.mean = String(mean);
  chart.dataset.position = data.position || "";
  delete chart.dataset.target;
  if (target !== null) {
    const at = pmf.slice(Math.max(0, target)).reduce((a, b) => a + b, 0);
    chart.dataset.target = String(target);
    chart.dataset.reach = String(at);
    text += `; P(≥ ${target}) ${pct(at)} playing for the expected score`;
  }
  $("#distribution-summary").textContent = `${text}.`;
  $("#distribution-box").hidden = false;
  if ($("#distribution-message").textContent) showError(null);
}

let adviseTimer = null;
// The editor changed: advise on its JSON (``rerender``: redraw the board first).
function edited(rerender) {
  editor().best = null;
  if (rerender) renderEditor(); else adviseBest(editor());
  const st = editor();
  const drawn = $("#editor-colour-dice");  // the turn's dice follow the typed fields
  if (drawn) drawn.replaceWith(DiceoptDraw.colourDice(st.json, "editor-colour-dice"));
  clearTimeout(adviseTimer);
  S.seq += 1;  // an answer still on its way is for an older position: dropped
  $("#advice").removeAttribute("aria-busy");
  $("#status").hidden = true;
  if (hasDice() && !diceComplete((st.json.dice || []).length)) {
    $("#advice tbody").replaceChildren();
    $("#position").value = "";
    hideDistribution();
    return;
  }
  adviseTimer = setTimeout(() => advise(clone(st.json)), 120);
}

// ``position``: text (typed) or the editor's JSON. The answer's canonical text goes in the
// text field and its JSON form into the editor, so the dice and the sheet follow the text.
async function advise(position, fromText = false) {
  const seq = ++S.seq;
  const tbody = $("#advice tbody");
  $("#advice").setAttribute("aria-busy", "true");
  const slow = setTimeout(() => { if (seq === S.seq) $("#status").hidden = false; }, 400);
  const st = editor();
  const options = optionValues(st);
  try {
    const data = await api("/api/advice", { game: S.game, variant: S.variant, position, ...options });
    if (seq !== S.seq) return;
    // an answer that arrives after the switch to play leaves play's messages alone
    if (S.mode === "advise") showError(null);
    // probabilities (a target, an opponent) come with each action's expected final score
    const expected = data.actions.some((a) => typeof a.expected === "number");
    $("#advice th.expected").hidden = !expected;
    tbody.replaceChildren(...data.actions.map((a, i) => el("tr", {
      class: a.regret <= 1e-9 ? "best" : "", "data-action": a.action, "data-value": a.value,
      "data-regret": a.regret, "data-expected": expected ? a.expected : null,
    }, el("td", { class: "rank", text: i + 1 }), el("td", { class: "action", text: a.action }),
    el("td", { class: "num value", text: fmt(a.value), title: String(a.value) }),
    el("td", { class: "num regret", text: fmt(a.regret), title: String(a.regret) }),
    ...(expected ? [el("td", { class: "num expected", text: pts(a.expected), title: String(a.expected) })] : []))));
    $("#units").textContent = `value: ${data.value_is}`;
    // the text the user is typing is left alone (an answer for the board may come in)
    if (fromText || document.activeElement !== $("#position")) $("#position").value = data.position;
    $("#advice").dataset.position = data.position;
    const changedFields = JSON.stringify(Object.keys(st.json)) !== JSON.stringify(Object.keys(data.position_json));
    st.json = data.position_json;
    st.best = data.actions[0] || null;
    st.valueIs = data.value_is;
    if (fromText || changedFields) renderEditor(); else adviseBest(st);
    $("#advice").dataset.options = JSON.stringify(options);
    if (board() === "dice-sheet") sheetPoints(st, data, seq);
    wantDistribution(data.position);
    updateHash();
  } catch (err) {
    if (seq !== S.seq) return;
    tbody.replaceChildren();
    delete $("#advice").dataset.position;
    hideDistribution();
    const option = optionOf(String(err.message || err));
    showError(err, option && $(optionBox(option)) ? optionBox(option) : "#advise-message");
  } finally {
    clearTimeout(slow);
    if (seq === S.seq) {
      $("#advice").removeAttribute("aria-busy");
      $("#status").hidden = true;
    }
  }
}
// Actions that write the dice into a sheet category: category -> action (its last word).
function sheetActions(actions) {
  const cats = new Set(categories());
  const holds = holdActions(actions);
  const out = {};
  for (const a of actions) {
    if ([...holds.values()].includes(a)) continue;
    const last = a.action.split(" ").pop();
    if (cats.has(last)) out[last] = a;
  }
  return out;
}
// What each open category would score with the dice shown (/api/preview): the points
// its box would hold (``boxPoints``: an upper box without the bonus it would earn).
async function previewPoints(position, json, actions) {
  const byCat = sheetActions(actions);
  const cats = Object.keys(byCat);
  if (!cats.length || typeof json.score !== "number") return {};
  const data = await api("/api/preview", {
    game: S.game, variant: S.variant, position, actions: cats.map((c) => byCat[c].action),
  });
  const points = {};
  data.outcomes.forEach((o, i) => {
    const got = boxPoints(cats[i], json, o.position_json);
    if (got !== null) points[cats[i]] = got;
  });
  return points;
}
async function sheetPoints(st, data, seq) {
  try {
    const points = await previewPoints(data.position, data.position_json, data.actions);
    if (seq !== S.seq) return;
    st.points = points;
    const box = $("#editor-sheet table");
    if (box) box.replaceWith(sheet(st.json, st.points, { edit: st }));
  } catch (err) { /* the points are a help only */ }
}
