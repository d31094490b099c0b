// diceopt advisor page: plain JS, no build step. Talks to the JSON API of the same server.
// Every game, variant, example position, unit and player count comes from /api/games; a
// position is drawn by the board the API names (dice, dice-sheet, tiles) plus an input per
// other field of its JSON form, and any game can be played from its action buttons.
"use strict";
(() => {
  const $ = (sel, root = document) => root.querySelector(sel);
  function el(tag, attrs = {}, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (v === undefined || v === null) continue;
      if (k === "text") e.textContent = v;
      else if (k === "class") e.className = v;
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v);
    }
    e.append(...kids);
    return e;
  }
  const S = {
    games: {}, game: null, variant: null, mode: "advise", editors: {}, seq: 0, play: null,
    undo: [], redo: [], entry: [],
  };
  const clone = (x) => JSON.parse(JSON.stringify(x));

  async function api(path, body) {
    const opts = body === undefined ? {} : {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
    };
    const res = await fetch(path, opts);
    let data = null;
    try { data = await res.json(); } catch (e) { data = null; }
    if (!res.ok) throw new Error((data && data.error) || `HTTP ${res.status}`);
    return data;
  }
  // An error is shown in the message box of the part of the page the user acted in
  // (#advise-message under the position, #play-message under the actions, the box of an
  // advice option under it), scrolled into view; every other message box is cleared.
  function showError(err, where = "#message") {
    for (const m of document.querySelectorAll("p.message")) {
      if (`#${m.id}` !== where || !err) { m.hidden = true; m.textContent = ""; continue; }
      m.textContent = String(err.message || err);
      m.hidden = false;
      m.scrollIntoView({ block: "nearest" });
    }
  }
  const fmt = (x) => (Math.abs(x) < 5e-10 ? "0" : x.toFixed(4));
  const num = (v) => (Number.isInteger(v) ? String(v) : String(+Number(v).toFixed(6)));
  const game = () => S.games[S.game];
  const variant = () => game().variants.find((v) => v.id === S.variant) || game().variants[0];
  const params = () => variant().parameters || {};
  const board = () => game().board;
  // players, units and "lower is better" of the variant's rules (the game's by default)
  const players = () => variant().players ?? game().players;
  const lowerIsBetter = () => variant().lower_is_better ?? game().lower_is_better;
  const hasDice = () => board() === "dice" || board() === "dice-sheet";
  const categories = () => params().categories || [];
  // Fields the board draws itself; every other field of the JSON form gets an input.
  const boardFields = () => ({ dice: ["dice"], "dice-sheet": ["dice", "filled"], tiles: ["open"] }[board()] || []);
  function faces() {
    const p = params();
    if (Array.isArray(p.values) && p.values.length) return p.values;
    return Array.from({ length: p.sides || 6 }, (_, i) => i + 1);
  }
  function diceCount() {
    const ex = variant().position_example_json || {};
    return params().dice || (Array.isArray(ex.dice) ? ex.dice.length : 5);
  }
  function tileCount() {
    const ex = variant().position_example_json || {};
    return params().tiles || Math.max(9, ...(ex.open || []));
  }

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
      const cells = [el("td", { text: cat.replace(/_/g, " ") })];
      if (opts.edit) {
        const box = el("input", { type: "checkbox", class: "filled", "data-cat": cat, "aria-label": `${cat} filled` });
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
      for (const i of kept) {
        const d = document.querySelector(`#dice button.die[data-index='${i}']`);
        if (d) d.classList.add("best");
      }
    }
    box.replaceChildren(el("div", { class: "best-line" }, el("span", { class: "tag", text: "Best" }),
      el("strong", { class: "best-words", text: words }), el("span", { class: "value", text: `${fmtValue(best.value)}` })));
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
      .map((x) => el("label", { for: `option-${x.name}`, title: x.help },
        `${x.name.replace(/^opponent_?/, "").replace(/_/g, " ") || x.name} `, optionControl(st, x)));
    const help = (adviseOptions().find((x) => x.name === "opponent") || {}).help || "";
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
        el("label", { for: id, title: o.help }, `${o.name.replace(/_/g, " ")} `, optionControl(st, o)),
        el("small", { class: "help", text: o.help }),
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
          $("#distribution-summary").textContent = "working… (exact: seconds early in a game)";
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
  const pct = (p) => (p >= 0.9995 || p < 0.0005 ? `${(100 * p).toPrecision(2)}%` : `${(100 * p).toFixed(1)}%`);
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
    clearTimeout(adviseTimer);
    S.seq += 1;  // an answer still on its way is for an older position: dropped
    $("#advice").removeAttribute("aria-busy");
    $("#status").hidden = true;
    if (hasDice() && (st.json.dice || []).length !== diceCount()) {
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
      showError(null);
      // probabilities (a target, an opponent) come with each action's expected final score
      const expected = data.actions.some((a) => typeof a.expected === "number");
      $("#advice th.expected").hidden = !expected;
      tbody.replaceChildren(...data.actions.map((a, i) => el("tr", {
        class: a.regret <= 1e-9 ? "best" : "", "data-action": a.action, "data-value": a.value,
        "data-regret": a.regret, "data-expected": expected ? a.expected : null,
      }, el("td", { class: "rank", text: i + 1 }), el("td", { class: "action", text: a.action }),
      el("td", { class: "num value", text: fmt(a.value), title: String(a.value) }),
      el("td", { class: "num regret", text: fmt(a.regret), title: String(a.regret) }),
      ...(expected ? [el("td", { class: "num expected", text: a.expected.toFixed(2), title: String(a.expected) })] : []))));
      $("#units").textContent = `value: ${data.value_is}`;
      // the text the user is typing is left alone (an answer for the board may come in)
      if (fromText || document.activeElement !== $("#position")) $("#position").value = data.position;
      $("#advice").dataset.position = data.position;
      const changedFields = JSON.stringify(Object.keys(st.json)) !== JSON.stringify(Object.keys(data.position_json));
      st.json = data.position_json;
      st.best = data.actions[0] || null;
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
  // What each open category would score with the dice shown: the change of the position's
  // score when its action is played (/api/preview).
  async function previewPoints(position, json, actions) {
    const byCat = sheetActions(actions);
    const cats = Object.keys(byCat);
    if (!cats.length || typeof json.score !== "number") return {};
    const data = await api("/api/preview", {
      game: S.game, variant: S.variant, position, actions: cats.map((c) => byCat[c].action),
    });
    const points = {};
    data.outcomes.forEach((o, i) => {
      if (typeof o.position_json.score === "number") points[cats[i]] = o.position_json.score - json.score;
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

  // --- play mode --------------------------------------------------------------------------
  // A game is plain data (S.play, made by newPlay): the position, the log, the values of
  // the chart and the record the end-of-game review sends to /api/analyse. Fields that
  // start with "_" (the advice on screen, the dice held) are not kept. Every step keeps a
  // copy of the game before it (undo, redo); the game is saved in localStorage and the
  // URL's fragment names its position.
  // Hold actions: "<verb> v v ..." and "<verb> -" (hold nothing) of the dice shown; held
  // values (sorted, joined) -> action. Tapping dice picks one of them.
  function holdActions(actions) {
    const verb = (actions.find((a) => /^\S+ -$/.test(a.action)) || { action: "" }).action.split(" ")[0];
    const out = new Map();
    if (!verb || !hasDice()) return out;
    for (const a of actions) {
      const [v, ...rest] = a.action.split(" ");
      if (v !== verb) continue;
      if (rest.length === 1 && rest[0] === "-") out.set("", a);
      else if (rest.length && rest.every((w) => w !== "" && Number.isFinite(+w))) {
        out.set(rest.map(Number).sort((x, y) => x - y).join(" "), a);
      }
    }
    return out;
  }
  // The dice a hold keeps (indices into ``dice``), or null when ``action`` is no hold.
  function heldIndices(action, dice) {
    const words = action.split(" ").slice(1);
    if (!words.length) return null;
    if (words.length === 1 && words[0] === "-") return [];
    if (!words.every((w) => Number.isFinite(+w))) return null;
    const used = new Set();
    const out = [];
    for (const w of words) {
      const i = dice.findIndex((d, j) => !used.has(j) && Number(d) === Number(w));
      if (i < 0) return null;
      used.add(i);
      out.push(i);
    }
    return out;
  }
  function nextSeed(p) {
    if (p.seed === null) return crypto.getRandomValues(new Uint32Array(1))[0];
    return p.seed + p.step++;
  }
  function newPlay(extra = {}) {
    const seedText = $("#seed").value.trim();
    return {
      game: S.game, variant: S.variant, seed: seedText === "" ? null : Math.max(0, parseInt(seedText, 10) || 0),
      step: 0, position: null, json: null, decisions: 0, cost: 0, start: null, written: {},
      log: [], events: [], chart: [], record: [], over: false, result: null, finalText: "", review: null,
      duel: null, ...extra,
    };
  }
  const snap = (p) => JSON.stringify(p, (k, v) => (k.startsWith("_") ? undefined : v));
  const eventsLine = (events) => `~> ${events.map((e) => e.replace(/\s+/g, " ").trim()).filter(Boolean).join("; ") || "-"}`;
  const STORE = "diceopt.page.v1";
  function save() {
    const data = {
      game: S.game, variant: S.variant, mode: S.mode, versus: $("#versus").value, hints: $("#hints").checked,
      play: S.play && S.play.position ? snap(S.play) : null, undo: S.undo.slice(-80), redo: S.redo.slice(-80),
    };
    for (let i = 0; i < 4; i++) {
      try { localStorage.setItem(STORE, JSON.stringify(data)); break; } catch (e) {
        data.undo = data.undo.slice(Math.floor(data.undo.length / 2));
        data.redo = [];
      }
    }
    updateHash();
  }
  function loadSaved() {
    try { return JSON.parse(localStorage.getItem(STORE) || "null"); } catch (e) { return null; }
  }
  // The fragment: game, variant, mode and position (in a game against the computer, its
  // strategy and side too), so the URL opens the same position elsewhere.
  function updateHash() {
    if (!S.game) return;
    const h = new URLSearchParams({ game: S.game, variant: S.variant });
    const p = S.play;
    if (S.mode === "play" && p && p.position && !p.over) {
      h.set("mode", "play");
      h.set("pos", p.position);
      if (p.duel && p.duel.state) { h.set("vs", p.duel.strategy); h.set("computer", p.duel.state.computer); }
    } else if (S.mode === "advise" && $("#advice").dataset.position) {
      h.set("pos", $("#advice").dataset.position);
    } else if (S.mode === "play") h.set("mode", "play");
    const hash = `#${h.toString()}`;
    if (location.hash !== hash) history.replaceState(null, "", hash);
  }
  function pushUndo() {
    S.undo.push(snap(S.play));
    S.redo = [];
  }
  async function undo() {
    if (!S.undo.length || !S.play || S.play._busy) return;
    S.redo.push(snap(S.play));
    await restore(S.undo.pop());
  }
  async function redo() {
    if (!S.redo.length || !S.play || S.play._busy) return;
    S.undo.push(snap(S.play));
    await restore(S.redo.pop());
  }
  async function restore(text) {
    const p = JSON.parse(text);
    S.play = p;
    p._options = [];
    p._held = new Set();
    showError(null);
    if (p.over) {
      renderPlay();
      save();
      return;
    }
    await showTurn(p, { position: p.position, position_json: p.json });
  }

  async function newGame() {
    const strategy = versusStrategy();
    const p = newPlay({ duel: strategy ? { strategy, state: null, computer: null, written: {}, estimates: [], moves: [] } : null });
    S.play = p;  // an older game still waiting for an answer sees S.play !== p and stops
    S.undo = [];
    S.redo = [];
    p._options = [];
    p._held = new Set();
    renderPlay();
    showError(null);
    try {
      p._busy = true;
      if (p.duel) {
        const data = await api("/api/duel/new", {
          game: p.game, variant: p.variant, strategy: p.duel.strategy, seed: nextSeed(p),
        });
        p.record.push("~> new game");
        if (S.play === p) await duelStep(p, data);
        return;
      }
      const step = await api("/api/new", { game: p.game, variant: p.variant, seed: nextSeed(p) });
      p.record.push("~> new game");
      if (S.play === p) await next(p, step);
    } catch (err) { if (S.play === p) showError(err, "#play-message"); } finally { p._busy = false; }
  }
  // A game that starts at a given position (a URL): no history, no record of its start.
  async function openPlay(position, vs, computer) {
    const p = newPlay();
    if (vs && computer && (game().computer_strategies || []).includes(vs)) {
      p.duel = { strategy: vs, state: { strategy: vs, you: position, computer }, computer: null, written: {}, estimates: [], moves: [] };
      $("#versus").value = vs;
    }
    S.play = p;
    S.undo = [];
    S.redo = [];
    p._options = [];
    p._held = new Set();
    try {
      await showTurn(p, { position, position_json: null });
    } catch (err) { showError(err, "#play-message"); }
  }
  // --- play against the computer (games with computer_strategies) ---------------------------
  // The server keeps nothing: each answer's ``state`` goes back with the next action. When
  // an action ends the user's turn the computer plays its whole turn within the same call.
  const versusStrategy = () => ((game().computer_strategies || []).length ? $("#versus").value : "");
  async function duelStep(p, data) {
    const d = p.duel;
    const before = d.computer;
    d.state = data.state;
    d.computer = data.computer;
    if (data.computer_moves.length) {
      const moves = data.computer_moves.map((m) => m.action);
      const cat = Object.keys(sheetActions(moves.slice(-1).map((action) => ({ action }))))[0];
      const points = before && typeof data.computer.score === "number" ? data.computer.score - before.score : null;
      if (cat && points !== null) d.written[cat] = points;
      d.moves = moves;
      const wrote = points === null ? "" : ` (${num(points)} points)`;
      p.log.push({ kind: "opp", text: `computer: ${moves.join(", ")}${wrote}`, position: data.state.computer });
    }
    if (typeof data.win_probability === "number") {
      d.estimates.push({ at: p.decisions, p: data.win_probability });
      d.estimateIs = data.win_probability_is;
    }
    const step = { position: data.state.you, position_json: data.you, game_over: data.game_over,
      to_move: 0, events: data.events, result: data.result };
    if (data.game_over) return finish(p, step);
    return showTurn(p, step);
  }
  // After a step: the game ends, the optimal player moves (two-player games, seat 2), or
  // it is the user's turn.
  async function next(p, step) {
    for (let i = 0; i < 1000; i++) {
      if (step.game_over) return finish(p, step);
      if (players() < 2 || step.to_move === 0) return showTurn(p, step);
      const data = await api("/api/advice", { game: p.game, variant: p.variant, position: step.position });
      if (S.play !== p) return;
      const best = data.actions[0];
      p.events.push({ text: `opponent: ${best.action}`, cls: "opp" });
      p.log.push({ kind: "opp", text: `opponent: ${best.action}`, best: best.action, position: step.position });
      p.record.push(`${step.position} -> ${best.action}`);
      step = await api("/api/apply", {
        game: p.game, variant: p.variant, position: step.position, action: best.action, seed: nextSeed(p),
      });
      if (S.play !== p) return;
      p.record.push(eventsLine(step.events));
      for (const e of step.events) p.events.push({ text: e, cls: "" });
    }
    throw new Error("the opponent's turn did not end");
  }
  async function showTurn(p, step) {
    p._options = [];
    p._held = new Set();
    const data = await api("/api/advice", { game: p.game, variant: p.variant, position: step.position });
    if (S.play !== p) return;
    p.position = data.position;
    p.json = data.position_json;
    p._options = data.actions;
    p.valueIs = data.value_is;
    if (p.start === null) p.start = data.actions[0].value;
    p._points = {};
    renderPlay();
    save();
    loadPoints(p, data);  // not awaited: the buttons work meanwhile
  }
  // What each open box would score with the dice shown (dice-sheet games), then redrawn.
  async function loadPoints(p, data) {
    if (board() !== "dice-sheet") return;
    try {
      const points = await previewPoints(data.position, data.position_json, data.actions);
      if (S.play !== p || p.position !== data.position) return;
      p._points = points;
      renderPlay();
    } catch (err) { /* the points are a help only */ }
  }
  // The user's own roll (real dice): the position's dice replaced, a step of its own.
  async function enterDice(values) {
    const p = S.play;
    if (!p || p._busy || p.over || !p.json || !Array.isArray(p.json.dice)) return;
    if (values.length !== p.json.dice.length) throw new Error(`enter ${p.json.dice.length} dice`);
    const json = { ...p.json, dice: [...values].sort((a, b) => a - b) };
    p._busy = true;
    try {
      const data = await api("/api/advice", { game: p.game, variant: p.variant, position: json });
      if (S.play !== p) return;
      pushUndo();
      p.position = data.position;
      p.json = data.position_json;
      if (p.duel && p.duel.state) p.duel.state = { ...p.duel.state, you: data.position };
      p.events = [{ text: `dice entered: ${p.json.dice.map(num).join(" ")}`, cls: "" }];
      p._options = data.actions;
      p._held = new Set();
      p._points = {};
      renderPlay();
      save();
      loadPoints(p, data);
    } finally { p._busy = false; }
  }
  async function choose(option) {
    const p = S.play;
    if (!p || p._busy || !p._options.includes(option)) return;
    const before = snap(p);
    pushUndo();
    p._busy = true;
    const position = p.position;
    const beforeJson = p.json;
    const best = p._options[0];
    p.decisions += 1;
    p.cost += option.regret;
    p.chart.push({ v: best.value, q: option.value, regret: option.regret, action: option.action });
    p.log.push({ kind: "mine", n: p.decisions, action: option.action, best: best.action, regret: option.regret, position });
    p.record.push(`${position} ${p._options.length > 1 ? "=>" : "->"} ${option.action}`);
    p.events = [];
    p._options = [];
    renderPlay();
    showError(null);
    try {
      if (p.duel) {
        const data = await api("/api/duel/apply", {
          game: p.game, variant: p.variant, state: p.duel.state, action: option.action, seed: nextSeed(p),
        });
        if (S.play !== p) return;
        const cat = Object.keys(sheetActions([option]))[0];
        if (cat && typeof beforeJson.score === "number" && typeof data.you.score === "number") {
          p.written[cat] = data.you.score - beforeJson.score;
        }
        p.record.push(eventsLine(data.events));
        for (const e of data.events) p.events.push({ text: e, cls: e.startsWith("the computer") ? "opp" : "" });
        await duelStep(p, data);
        return;
      }
      const step = await api("/api/apply", {
        game: p.game, variant: p.variant, position, action: option.action, seed: nextSeed(p),
      });
      if (S.play !== p) return;
      const cat = Object.keys(sheetActions([option]))[0];
      if (cat && typeof beforeJson.score === "number" && typeof step.position_json.score === "number") {
        p.written[cat] = step.position_json.score - beforeJson.score;
      }
      p.record.push(eventsLine(step.events));
      for (const e of step.events) p.events.push({ text: e, cls: "" });
      await next(p, step);
    } catch (err) {
      if (S.play === p) {
        S.undo.pop();
        await restore(before);
        showError(err, "#play-message");
      }
    } finally {
      p._busy = false;
    }
  }
  // A typed action: graded (/api/evaluate gives its canonical text), then played.
  async function typedAction(e) {
    e.preventDefault();
    const p = S.play;
    const text = $("#play-action").value.trim();
    if (!p || !p.position || !text) return;
    try {
      const got = await api("/api/evaluate", { game: p.game, variant: p.variant, position: p.position, action: text });
      const option = p._options.find((o) => o.action === got.action);
      if (!option) throw new Error(`${text}: not a legal action here`);
      $("#play-action").value = "";
      await choose(option);
    } catch (err) { showError(err, "#play-message"); }
  }
  // A one-player game's score: the result, or where lower is better and the position
  // shows tiles, what they add up to.
  function finish(p, step) {
    p.position = step.position;
    p.json = step.position_json;
    p._options = [];
    p._held = new Set();
    p.over = true;
    let result = "";
    let end = step.result;
    if (p.duel && step.result !== null && step.result !== undefined) {
      const mine = num(step.position_json.score), theirs = num(p.duel.computer.score);
      result = step.result > 0.5 ? `You win, ${mine} to ${theirs}! ` : step.result < 0.5
        ? `The computer wins, ${theirs} to ${mine}. ` : `A draw, ${mine} each. `;
      end = step.position_json.score;
    } else if (step.result !== null && step.result !== undefined) {
      if (players() >= 2) {
        result = step.result > 0.5 ? "You win! " : step.result < 0.5 ? "The optimal player wins. " : "A draw. ";
      } else if (board() === "tiles" && Array.isArray(step.position_json.open)) {
        // one player: the score is what the tiles left open add up to
        const left = step.position_json.open.reduce((a, t) => a + t, 0);
        result = left === 0 ? "Final score: 0: you shut the box! " : `Final score: ${left} (tiles left open: ${step.position_json.open.join(" ")}). `;
      } else result = `Final score: ${num(step.result)}. `;
    }
    p.result = typeof end === "number" ? end : null;
    p.finalText = result;
    if (p.result !== null && p.record[0] === "~> new game") p.record.push(`= ${p.result}`);
    renderPlay();
    save();
    review(p);
  }
  // The end-of-game review: the exact split of the result (POST /api/analyse).
  async function review(p) {
    if (!p.record.length) return;
    const box = $("#review");
    box.hidden = false;
    box.setAttribute("aria-busy", "true");
    $("#review-text").textContent = "working out the luck and the skill…";
    try {
      const data = await api("/api/analyse", { game: p.game, variant: p.variant, record: p.record.join("\n") });
      if (S.play !== p) return;
      p.review = {
        identity: data.identity, units: data.split_units, expected_start: data.expected_start, luck: data.luck,
        cost: data.cost, result: data.result, total_regret: data.total_regret, missing: data.luck_missing,
        luckiest: data.luckiest_roll, unluckiest: data.unluckiest_roll, costliest: data.costliest_decision,
      };
      renderReview(p);
      save();
    } catch (err) {
      if (S.play === p) $("#review-text").textContent = `no review: ${err.message || err}`;
    } finally { box.removeAttribute("aria-busy"); }
  }
  const f2 = (x) => (x === null || x === undefined ? "–" : Math.abs(x) < 5e-10 ? "0.00" : x.toFixed(2));
  function renderReview(p) {
    const box = $("#review");
    const r = p && p.review;
    box.hidden = !(p && p.over);
    if (!r) return;
    box.dataset.expectedStart = String(r.expected_start);
    box.dataset.luck = String(r.luck);
    box.dataset.cost = String(r.cost);
    box.dataset.result = String(r.result);
    const parts = [];
    if (r.expected_start !== null) {
      const lower = r.identity.includes("lower is better");
      parts.push(el("p", { class: "split", id: "review-split" },
        el("span", { text: `expected at the start ${f2(r.expected_start)}` }),
        el("span", { class: r.luck >= 0 ? "good" : "bad", text: ` ${lower ? "−" : "+"} luck ${r.luck < 0 ? `(${f2(r.luck)})` : f2(r.luck)}` }),
        el("span", { class: "bad", text: ` ${lower ? "+" : "−"} cost of mistakes ${f2(r.cost)}` }),
        el("strong", { text: ` = ${f2(r.result)}` })));
      parts.push(el("p", { class: "units", text: `${r.units}; ${r.identity}` }));
      const roll = (label, x) => x && el("li", { text: `${label}: ${x.after ? `after ${x.after}, ` : "the opening roll, "}${x.events} (luck ${x.luck >= 0 ? "+" : ""}${f2(x.luck)})` });
      parts.push(el("ul", { class: "events" }, ...[roll("luckiest roll", r.luckiest), roll("unluckiest roll", r.unluckiest),
        r.costliest ? el("li", { text: `costliest decision: ${r.costliest.action} costs ${f2(r.costliest.regret)} (best: ${r.costliest.best_action})` })
          : el("li", { text: "every decision was the best" })].filter(Boolean)));
    } else {
      parts.push(el("p", { text: `your decisions cost ${f2(r.total_regret)} in all` }));
      for (const m of r.missing || []) parts.push(el("p", { class: "units", text: m }));
    }
    $("#review-text").replaceChildren(...parts);
  }

  // --- drawing the game -------------------------------------------------------------------
  const NUMBERS = { two: "2", three: "3", four: "4", five: "5", six: "6" };
  const pretty = (name) => {
    const t = String(name).replace(/_/g, " ").replace(/^(two|three|four|five|six) (of|pairs)/, (m, w, r) => `${NUMBERS[w]} ${r}`);
    return t.charAt(0).toUpperCase() + t.slice(1);
  };
  function dieButton(v, attrs) {
    const b = el("button", { type: "button", class: "die", "data-value": num(v), ...attrs });
    b.append(DiceoptDraw.die(v), el("span", { class: "sr", text: num(v) }));
    return b;
  }
  // What the best action does, on the dice (held dice marked) and in words; the next best
  // ones with what they lose.
  function bestPanel(p, holds, byCat) {
    const box = $("#best-move");
    const opts = p._options || [];
    if (!opts.length || !$("#hints").checked) {
      // the space stays reserved: nothing below jumps while an answer (or a table) comes
      const text = p.over ? "" : opts.length ? "advice hidden (tick “advice” to see the best move)"
        : "working… (the first answer of a game loads or builds its table)";
      box.replaceChildren(el("p", { class: "units", id: "play-status", text }));
      box.dataset.action = "";
      return;
    }
    const best = opts[0];
    box.dataset.action = best.action;
    const isHold = [...holds.values()].includes(best);
    const cat = Object.entries(byCat).find(([, a]) => a === best);
    let words = best.action;
    if (isHold) {
      const kept = heldIndices(best.action, p.json.dice) || [];
      const rolled = p.json.dice.length - kept.length;
      words = kept.length ? `Keep ${kept.map((i) => num(p.json.dice[i])).join(" ")}, reroll ${rolled}` : `Reroll all ${rolled} dice`;
    } else if (cat) {
      const pts = p._points && cat[0] in p._points ? ` for ${num(p._points[cat[0]])}` : "";
      words = `Score ${pretty(cat[0])}${pts}`;
    }
    const go = el("button", { type: "button", id: "play-best", class: "primary", "data-action": best.action,
      text: words, onclick: () => choose(best) });
    const value = el("span", { class: "value", text: `${fmtValue(best.value)} ${shortUnits(p.valueIs)}` });
    const others = opts.slice(1, 4).map((o) => el("button", { type: "button", class: "alt", "data-action": o.action,
      title: `${o.action}: loses ${fmtValue(o.regret)}`, onclick: () => choose(o) },
    el("span", { text: o.action }), el("small", { class: "loss", text: ` −${o.regret >= 0.01 ? o.regret.toFixed(2) : fmtValue(o.regret)}` })));
    box.replaceChildren(el("div", { class: "best-line" }, el("span", { class: "tag", text: "Best" }), go, value),
      others.length ? el("div", { class: "next-best", role: "group", "aria-label": "next best, with what each loses" }, ...others) : "");
  }
  const fmtValue = (x) => (Math.abs(x) < 5e-10 ? "0" : Math.abs(x) >= 100 ? x.toFixed(1) : Math.abs(x) >= 1 ? x.toFixed(2) : x.toFixed(4));
  const shortUnits = (u) => (!u ? "" : /probab/.test(u) ? "(win chance)" : /score|points/.test(u) ? "expected" : "");
  const LABELS = { me: "You", opponent: "Opponent", turn: "Turn total", rerolls: "Rerolls left", roll: "Roll",
    points: "Points", player: "Player", saved: "Saved rerolls" };
  // Fields of the position the board does not draw: a scoreboard (Pig: both scores, the
  // turn total; the goal where the rules give one).
  function scoreboard(json, more = []) {
    const skip = new Set([...boardFields(), ...more]);
    const cells = [];
    const goal = params().goal;
    for (const [k, v] of Object.entries(json)) {
      if (skip.has(k) || (board() === "dice-sheet" && typeof v === "number" && k !== "rerolls" && k !== "saved")) continue;
      if (v === null || v === false || typeof v === "object") continue;
      const cell = el("div", { class: "chip", "data-field": k },
        el("span", { class: "label", text: LABELS[k] || pretty(k) }),
        el("strong", { text: v === true ? "yes" : typeof v === "number" ? num(v) : v }));
      if (goal && typeof v === "number" && (k === "me" || k === "opponent")) {
        cell.append(el("span", { class: "bar-track" }, el("span", { class: "bar-fill", style: `width:${Math.min(100, (100 * v) / goal)}%` })));
      }
      cells.push(cell);
    }
    return cells.length ? el("div", { class: "scoreboard" }, ...cells) : null;
  }
  // The score sheet of a game with a sheet: the upper boxes (their sum, the bonus and how
  // far off it is) beside the others (total, expected final score). ``actions``:
  // category -> the action writing there (a tap writes the dice there).
  function playSheet(json, opts) {
    const info = variant().sheet || {};
    const upperSet = new Set(info.upper || []);
    const filled = new Set(json.filled || []);
    const written = opts.written || {};
    const points = opts.points || {};
    const row = (cat) => {
      const isFilled = filled.has(cat);
      const action = opts.actions && opts.actions[cat];
      const label = action
        ? el("button", { type: "button", class: `option score${action === opts.best ? " best" : ""}`, "data-action": action.action,
          title: `score ${pretty(cat)}`, onclick: () => choose(action) }, el("span", { text: pretty(cat) }))
        : el("span", { text: pretty(cat) });
      if (action && opts.hints) label.append(el("small", { text: action.regret > 1e-9 ? `−${fmtValue(action.regret)}` : "best" }));
      const shown = isFilled ? (cat in written ? num(written[cat]) : "✓") : cat in points ? num(points[cat]) : "";
      return el("tr", { class: isFilled ? "filled" : "open", "data-cat": cat },
        el("td", { class: "cat" }, label), el("td", { class: "num points", "data-cat": cat, text: shown }));
    };
    const cats = categories();
    const upper = cats.filter((c) => upperSet.has(c));
    const lower = cats.filter((c) => !upperSet.has(c));
    const tables = [];
    if (upper.length) {
      const known = upper.filter((c) => filled.has(c));
      const sum = known.every((c) => c in written) ? known.reduce((a, c) => a + written[c], 0) : json.upper;
      const th = info.bonus_threshold;
      const faceOfCat = (c) => (info.upper_faces || [])[upper.indexOf(c)];
      const par = known.every((c) => faceOfCat(c)) ? known.reduce((a, c) => a + 3 * faceOfCat(c), 0) : null;
      const foot = [el("tr", { class: "totals" }, el("td", { text: "Sum" }),
        el("td", { class: "num", id: opts.id ? `${opts.id}-upper` : null, text: th ? `${num(sum ?? 0)}/${th}` : num(sum ?? 0) }))];
      if (th) {
        const got = (sum ?? 0) >= th;
        const left = upper.filter((c) => !filled.has(c)).length;
        const status = got ? `+${info.bonus}` : left ? `needs ${th - (sum ?? 0)}` : "0";
        const bar = el("span", { class: "bar-track" }, el("span", { class: "bar-fill", style: `width:${Math.min(100, (100 * (sum ?? 0)) / th)}%` }));
        foot.push(el("tr", { class: "totals bonus" }, el("td", {}, el("span", { text: `Bonus${known.length && par !== null ? ` (par ${sum - par >= 0 ? "+" : ""}${sum - par})` : ""}` }), bar),
          el("td", { class: "num", text: status })));
      }
      tables.push(el("table", { class: "sheet upper" }, el("tbody", {}, ...upper.map(row), ...foot)));
    }
    const totals = [el("tr", { class: "totals" }, el("td", { text: "Total" }), el("td", { class: "num total", text: num(json.score ?? 0) }))];
    if (opts.expected !== undefined && opts.expected !== null) {
      totals.push(el("tr", { class: "totals expected" }, el("td", { text: "Expected final" }),
        el("td", { class: "num", id: opts.id ? `${opts.id}-expected` : null, text: opts.expected.toFixed(1) })));
    }
    if (tables.length) tables[0].querySelector("tbody").append(...totals);
    tables.push(el("table", { class: "sheet lower" }, el("tbody", {}, ...lower.map(row), ...(tables.length ? [] : totals))));
    return el("div", { class: "sheet-cols" }, ...tables);
  }
  // Shut the Box: the tiles in their box, open ones up, shut ones down.
  function tileBox(json) {
    const open = new Set(json.open || []);
    const n = Math.max(tileCount(), ...(json.open || []));
    const tiles = [];
    for (let t = 1; t <= n; t++) {
      tiles.push(el("span", { class: open.has(t) ? "btile up" : "btile down", "data-tile": t, "aria-label": `${t} ${open.has(t) ? "open" : "shut"}`, text: t }));
    }
    return el("div", { class: "box", id: "play-tiles", role: "img", "aria-label": `open tiles: ${[...open].join(" ") || "none"}` }, ...tiles);
  }
  // Redrawing keeps the keyboard's place: the element with the same id, die index or action.
  function focusKey() {
    const f = document.activeElement;
    if (!f || f === document.body || !$("#play-view").contains(f)) return null;
    if (f.id) return `#${f.id}`;
    if (f.dataset.index !== undefined) return `#play-dice button.die[data-index='${f.dataset.index}']`;
    if (f.dataset.action) return `#play-view button[data-action='${CSS.escape(f.dataset.action)}']`;
    return null;
  }
  function renderPlay() {
    const key = focusKey();
    drawPlay();
    const again = key && $(key);
    if (again && document.activeElement !== again) again.focus();
  }
  function drawPlay() {
    const p = S.play;
    $("#undo").disabled = !S.undo.length;
    $("#redo").disabled = !S.redo.length;
    if (!p) return;
    const hints = $("#hints").checked;
    const opts = p._options || [];
    const holds = holdActions(opts);
    const pos = $("#play-position");
    pos.replaceChildren();
    if (p.position) pos.dataset.position = p.position; else delete pos.dataset.position;
    const json = p.json || {};
    const bestHold = opts.length && [...holds.values()].includes(opts[0]) && hints
      ? new Set(heldIndices(opts[0].action, json.dice || []) || []) : new Set();
    if (hasDice() && Array.isArray(json.dice)) {
      const dice = el("div", { class: "row dice-row", id: "play-dice" });
      const entry = S.entry.length ? S.entry : null;
      (entry ? Array.from({ length: json.dice.length }, (_, i) => entry[i]) : json.dice).forEach((v, i) => {
        if (entry) {
          dice.append(v === undefined ? el("span", { class: "die empty", text: "?" }) : dieButton(v, { class: "die typed", disabled: "" }));
          return;
        }
        const held = p._held.has(i);
        const b = dieButton(v, {
          "data-index": i, "aria-pressed": String(held),
          "aria-label": `${num(v)}${held ? ", held" : ""}${bestHold.has(i) ? ", best to keep" : ""}`,
          title: holds.size ? "tap to hold" : "", disabled: holds.size ? null : "",
          onclick: () => { if (p._held.has(i)) p._held.delete(i); else p._held.add(i); renderPlay(); },
        });
        if (bestHold.has(i)) b.classList.add("best");
        dice.append(b);
      });
      pos.append(dice);
    }
    if (board() === "tiles") pos.append(tileBox(json));
    // the player to move is always the user here: no "player" field shown
    const board2 = scoreboard(json, [...(holds.size || p.over ? ["rerolls"] : []), "player"]);
    if (board2) pos.append(board2);
    $("#roll-entry").hidden = !(hasDice() && Array.isArray(json.dice) && !p.over && opts.length);
    const byCat = board() === "dice-sheet" ? sheetActions(opts) : {};
    const onSheet = new Set(Object.values(byCat));
    bestPanel(p, holds, byCat);
    const expected = opts.length && /score|points/.test(p.valueIs || "") ? opts[0].value : p.over ? p.result : null;
    $("#play-sheet").replaceChildren(...(board() === "dice-sheet" && p.json
      ? [el("div", { class: "group" }, el("h2", { text: p.duel ? "Your sheet" : "Score sheet: tap a box to write the dice there" }),
        playSheet(json, { actions: byCat, written: p.written, hints, points: p._points, best: hints ? opts[0] : null, expected, id: "play-sheet" }))] : []));
    renderDuel(p);
    const box = $("#play-options");
    // the decisions made, once the next one is offered (or the game is over)
    if (opts.length || p.over) box.dataset.turn = String(p.decisions);
    else if (!p.decisions) delete box.dataset.turn;
    const buttons = [];
    if (holds.size) {
      const held = [...p._held].map((i) => Number(json.dice[i])).sort((x, y) => x - y).join(" ");
      const hold = holds.get(held);
      const left = typeof json.rerolls === "number" ? `${json.rerolls} left` : "";
      const b = el("button", { type: "button", id: "reroll", "data-action": hold ? hold.action : null,
        title: "tap the dice to hold first", onclick: () => hold && choose(hold) },
      el("span", { text: hold ? "Reroll" : "Hold fewer" }),
      el("small", { text: left }));
      b.disabled = !hold;
      if (hold && hints) b.append(el("small", { class: "loss", text: hold.regret > 1e-9 ? `loses ${fmtValue(hold.regret)}` : "best" }));
      const row = $("#play-dice");
      if (row) row.append(b); else buttons.push(b);
    }
    const held = new Set(holds.values());
    for (const o of opts) {
      if (held.has(o) || onSheet.has(o)) continue;
      const b = el("button", { type: "button", class: "option", "data-action": o.action, text: o.action,
        onclick: () => choose(o) });
      if (hints) b.append(el("small", { text: `${fmt(o.value)} (−${fmt(o.regret)})` }));
      buttons.push(b);
    }
    box.replaceChildren(...buttons);
    $("#play-events").replaceChildren(...p.events.map((e) => el("li", { class: e.cls, text: e.text })));
    $("#play-log tbody").replaceChildren(...p.log.map((r) => (r.kind === "mine"
      ? el("tr", { class: "mine" }, el("td", { text: r.n }), el("td", { class: "you", text: r.action }),
        el("td", { text: r.best }), el("td", { class: r.regret > 1e-9 ? "num costly" : "num", text: fmt(r.regret) }),
        el("td", { class: "pos", text: r.position }))
      : el("tr", { class: "opp" }, el("td", { text: "–" }), el("td", { colspan: 3, text: r.text }),
        el("td", { class: "pos", text: r.position })))));
    $("#total-cost").textContent = fmt(p.cost);
    renderChart(p);
    renderSummary(p);
    renderReview(p);
  }
  function renderChart(p) {
    const box = $("#game-chart");
    const wins = p.duel ? p.duel.estimates : [];
    box.hidden = !p.chart.length;
    if (!p.chart.length) return;
    box.dataset.points = String(p.chart.length);
    $("#game-chart-svg").innerHTML = DiceoptDraw.gameChart(p.chart, p.over ? p.result : null, {
      wins, lowerIsBetter: lowerIsBetter(), label: p.valueIs || game().units,
    });
  }
  function renderSummary(p) {
    const box = $("#play-summary");
    box.hidden = !p.over;
    if (!p.over) return;
    box.replaceChildren(
      el("strong", { text: "Game over. " }),
      el("span", { id: "final-result", text: p.finalText }),
      el("span", { text: `Optimal play from your first position: ${p.start === null ? "–" : fmt(p.start)} (${p.valueIs || game().units}); ` }),
      el("span", { text: `your ${p.decisions} decisions cost ` }),
      el("strong", { id: "summary-cost", text: fmt(p.cost) }),
      el("span", { text: " in expectation." }));
    box.dataset.decisions = p.decisions;
  }
  // Both sheets, the computer's last turn and the user's estimated chance of winning.
  function renderDuel(p) {
    const d = p && p.duel;
    $("#computer-box").hidden = !d;
    $("#win-estimate").hidden = !d || !d.estimates.length;
    if (!d) return;
    $("#computer-title").textContent = `The computer's sheet (it plays ${d.strategy === "win" ? "to win" : "for the expected score"})`;
    $("#computer-sheet").replaceChildren(...(d.computer ? [playSheet(d.computer, { written: d.written })] : []));
    $("#computer-moves").replaceChildren(...d.moves.map((m) => el("li", { text: m })));
    if (!d.estimates.length) return;
    const last = d.estimates[d.estimates.length - 1].p;
    const box = $("#win-estimate");
    box.dataset.value = String(last);
    box.dataset.turns = String(d.estimates.length);
    const you = p.json && typeof p.json.score === "number" ? num(p.json.score) : "–";
    const them = d.computer && typeof d.computer.score === "number" ? num(d.computer.score) : "–";
    box.replaceChildren(el("strong", { text: `You ${you} · computer ${them} · your chance of winning (estimate): ${pct(last)}` }),
      el("small", { class: "why", text: ` ${d.estimateIs || ""}` }));
  }

  // --- entering dice from the keyboard: 13356, or the keys 1-6 and Backspace ------------
  // Typed faces fill the dice one by one; a full set is the new roll (play: the real dice
  // rolled at the table; advise: the position's dice).
  function faceOf(key) {
    const f = faces().find((x) => num(x) === key);
    return f === undefined ? null : f;
  }
  async function typeDice(keys) {
    const n = S.mode === "play" ? ((S.play && S.play.json && S.play.json.dice) || []).length : diceCount();
    if (!n) return;
    for (const k of keys) {
      if (k === "Backspace") { S.entry.pop(); continue; }
      const f = faceOf(k);
      if (f === null) continue;
      if (S.entry.length >= n) S.entry = [];
      S.entry.push(f);
    }
    const done = S.entry.length === n ? S.entry : null;
    if (S.mode === "play") {
      renderPlay();
      if (done) {
        S.entry = [];
        try { await enterDice(done); } catch (err) { showError(err, "#roll-message"); renderPlay(); }
      }
    } else {
      const st = editor();
      if (done) { st.json.dice = [...done].sort((a, b) => a - b); S.entry = []; }
      else st.json.dice = [...S.entry];
      edited(true);
    }
  }
  function onKey(e) {
    if (e.ctrlKey || e.metaKey || e.altKey) {
      if ((e.key === "z" || e.key === "Z") && S.mode === "play") { e.preventDefault(); (e.shiftKey ? redo : undo)(); }
      else if (e.key === "y" && S.mode === "play") { e.preventDefault(); redo(); }
      return;
    }
    const t = e.target;
    if (t && (t.tagName === "INPUT" || t.tagName === "SELECT" || t.tagName === "TEXTAREA")) return;
    if (!hasDice()) return;
    if (e.key === "Backspace" || faceOf(e.key) !== null) {
      e.preventDefault();
      typeDice([e.key]);
    } else if (e.key === "Escape" && S.entry.length) {
      S.entry = [];
      if (S.mode === "play") renderPlay();
    }
  }

  // --- game, variant, mode ----------------------------------------------------------------
  function selectGame(id, variantId = null, start = true) {
    S.game = id;
    S.variant = variantId && game().variants.some((v) => v.id === variantId) ? variantId : game().default_variant;
    for (const b of document.querySelectorAll("#games button")) {
      b.classList.toggle("on", b.dataset.game === id);
      b.setAttribute("aria-pressed", String(b.dataset.game === id));
    }
    $("#variant").replaceChildren(...game().variants.map((v) => el("option", { value: v.id, text: v.id, title: v.description })));
    $("#variant").value = S.variant;
    variantChanged(start);
  }
  function playersLabel() {
    const strategies = game().computer_strategies || [];
    const box = $("#versus-label");
    box.hidden = !strategies.length;
    const solo = players() < 2 ? "solo: just your score" : "against the optimal player";
    const keep = $("#versus").value;
    $("#versus").replaceChildren(el("option", { value: "", text: solo }),
      ...strategies.map((name) => el("option", { value: name, text: `the computer, playing ${name === "win" ? "to win" : name === "expected" ? "for the expected score" : name}` })));
    if (strategies.includes(keep)) $("#versus").value = keep;
    $("#opponent-note").textContent = !strategies.length && players() >= 2 ? "against the optimal player" : "";
  }
  function variantChanged(start = true) {
    $("#variant-description").textContent = `${game().title}, ${variant().description}`;
    $("#units").textContent = `value: ${game().units}`;
    $("#position").value = variant().position_example || game().position_example;
    $("#advice tbody").replaceChildren();
    delete $("#advice").dataset.position;
    S.play = null;
    S.undo = [];
    S.redo = [];
    S.entry = [];
    playersLabel();
    for (const id of ["#play-options", "#play-position", "#play-sheet", "#play-events", "#play-log tbody", "#best-move"]) $(id).replaceChildren();
    $("#play-summary").hidden = true;
    $("#review").hidden = true;
    $("#game-chart").hidden = true;
    $("#roll-entry").hidden = true;
    renderDuel(null);
    showError(null);
    hideDistribution();
    renderOptions();
    renderEditor();
    if (start) edited(false);
    if (start && S.mode === "play") newGame();
    if (start) save();
  }
  function setMode(mode) {
    const was = S.mode;
    S.mode = mode;
    S.entry = [];
    $("#mode-advise").classList.toggle("on", mode === "advise");
    $("#mode-play").classList.toggle("on", mode === "play");
    $("#mode-advise").setAttribute("aria-selected", String(mode === "advise"));
    $("#mode-play").setAttribute("aria-selected", String(mode === "play"));
    $("#advise-view").hidden = mode !== "advise";
    $("#play-view").hidden = mode !== "play";
    // one position: advise opens on the game's position, play keeps its game
    if (mode === "advise" && was === "play" && S.play && S.play.json && !S.play.over) {
      const st = editor();
      st.json = clone(S.play.json);
      edited(true);
    }
    if (mode === "play" && !S.play) newGame();
    else if (mode === "play") renderPlay();
    save();
  }

  async function init() {
    S.undo = [];
    S.redo = [];
    S.entry = [];
    try {
      const data = await api("/api/games");
      for (const g of data.games) S.games[g.id] = g;
      $("#games").replaceChildren(...data.games.map((g) => el("button", {
        type: "button", "data-game": g.id, text: g.title, title: g.summary, onclick: () => selectGame(g.id),
      })));
      if (!data.games.length) throw new Error("no games available on this server");
      const hash = location.hash.slice(1);
      const h = new URLSearchParams(hash.includes("=") ? hash : "");
      const saved = loadSaved();
      if (saved && typeof saved.hints === "boolean") $("#hints").checked = saved.hints;
      if (h.get("game") && S.games[h.get("game")]) {
        // a URL with a position: that position, in that mode
        selectGame(h.get("game"), h.get("variant"), false);
        const pos = h.get("pos");
        const mine = saved && saved.play ? JSON.parse(saved.play) : null;
        if (h.get("mode") === "play") {
          setModeQuiet("play");
          if (mine && mine.game === S.game && mine.variant === S.variant && (!pos || mine.position === pos)) {
            // this page's own game (a reload): with its history
            if (mine.duel) $("#versus").value = mine.duel.strategy;
            S.undo = saved.undo || [];
            S.redo = saved.redo || [];
            await restore(saved.play);
          } else if (pos) await openPlay(pos, h.get("vs"), h.get("computer"));
          else newGame();
        } else {
          setModeQuiet("advise");
          if (pos) { $("#position").value = pos; advise(pos, true); } else edited(false);
        }
      } else if (S.games[hash]) {
        selectGame(hash);
      } else if (saved && S.games[saved.game]) {
        // the game and variant last used, with the game in progress
        selectGame(saved.game, saved.variant, false);
        if (saved.versus !== undefined) $("#versus").value = saved.versus;
        setModeQuiet(saved.mode === "play" ? "play" : "advise");
        edited(false);
        if (saved.play && S.mode === "play") {
          S.undo = saved.undo || [];
          S.redo = saved.redo || [];
          await restore(saved.play);
        } else if (S.mode === "play") newGame();
      } else {
        const featured = data.games.find((g) => g.featured) || data.games[0];
        selectGame(featured.id);
      }
    } catch (err) { showError(err); }
    $("#variant").addEventListener("change", (e) => { S.variant = e.target.value; variantChanged(); });
    $("#position-form").addEventListener("submit", (e) => {
      e.preventDefault();
      clearTimeout(adviseTimer);
      advise($("#position").value, true);
    });
    $("#play-form").addEventListener("submit", typedAction);
    $("#roll-entry").addEventListener("submit", (e) => {
      e.preventDefault();
      const text = $("#roll-input").value.replace(/[^0-9]/g, "");
      $("#roll-input").value = "";
      S.entry = [];
      const values = [...text].map(faceOf);
      if (values.some((v) => v === null) || !values.length) { showError(new Error(`${text || "nothing"}: type the dice, e.g. 13356`), "#roll-message"); return; }
      enterDice(values).catch((err) => { showError(err, "#roll-message"); });
    });
    $("#mode-advise").addEventListener("click", () => setMode("advise"));
    $("#mode-play").addEventListener("click", () => setMode("play"));
    $("#new-game").addEventListener("click", newGame);
    $("#undo").addEventListener("click", undo);
    $("#redo").addEventListener("click", redo);
    $("#versus").addEventListener("change", () => { if (S.mode === "play") newGame(); });
    $("#hints").addEventListener("change", () => { if (S.play) renderPlay(); save(); });
    document.addEventListener("keydown", onKey);
    document.body.dataset.ready = "true";
  }
  function setModeQuiet(mode) {
    S.mode = mode;
    $("#mode-advise").classList.toggle("on", mode === "advise");
    $("#mode-play").classList.toggle("on", mode === "play");
    $("#advise-view").hidden = mode !== "advise";
    $("#play-view").hidden = mode !== "play";
  }
  init();
})();
