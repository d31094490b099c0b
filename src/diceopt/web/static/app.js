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
  const S = { games: {}, game: null, variant: null, mode: "advise", editors: {}, seq: 0, play: null };
  const clone = (x) => JSON.parse(JSON.stringify(x));

  // A 503 with Retry-After means a table the answer reads is being built (shared, once):
  // its message (stage, percentage) is shown and the request sent again when it says.
  const RETRIES = 60;
  async function api(path, body) {
    const opts = body === undefined ? {} : {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
    };
    for (let attempt = 0; ; attempt++) {
      const res = await fetch(path, opts);
      let data = null;
      try { data = await res.json(); } catch (e) { data = null; }
      const retry = Number(res.headers.get("Retry-After"));
      if (res.status === 503 && retry > 0 && attempt < RETRIES) {
        showError(new Error((data && data.error) || "a table is being built"));
        await new Promise((resolve) => setTimeout(resolve, Math.min(retry, 30) * 1000));
        showError(null);
        continue;
      }
      if (!res.ok) throw new Error((data && data.error) || `HTTP ${res.status}`);
      return data;
    }
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
      shown.append(el("button", {
        type: "button", class: v === undefined ? "die empty" : "die", "data-index": i,
        title: "remove", text: v === undefined ? "?" : num(v),
        onclick: () => { if (v !== undefined) { st.json.dice = (st.json.dice || []).filter((_, j) => j !== i); edited(true); } },
      }));
    }
    const row = el("div", { class: "row", id: "faces" });
    for (const f of faces()) {
      row.append(el("button", {
        type: "button", class: "die face", "data-face": num(f), text: num(f), title: `add a ${num(f)}`,
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
    return el("div", { class: "group" }, el("h2", { text: "Dice: click faces to add, a die to remove" }),
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
    const fields = fieldInputs(st);
    if (fields) box.append(fields);
    if (board() === "dice-sheet") {
      box.append(el("div", { class: "group", id: "editor-sheet" },
        el("h2", { text: "Score sheet: tick the filled boxes (points: what these dice would score)" }),
        sheet(st.json, st.points, { edit: st })));
    }
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
    if (rerender) renderEditor();
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
      if (fromText || changedFields) renderEditor();
      $("#advice").dataset.options = JSON.stringify(options);
      if (board() === "dice-sheet") sheetPoints(st, data, seq);
      wantDistribution(data.position);
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
  function nextSeed(p) {
    if (p.seed === null) return crypto.getRandomValues(new Uint32Array(1))[0];
    return p.seed + p.step++;
  }
  async function newGame() {
    const seedText = $("#seed").value.trim();
    const p = {
      game: S.game, variant: S.variant, seed: seedText === "" ? null : Math.max(0, parseInt(seedText, 10) || 0),
      step: 0, position: null, json: null, options: [], decisions: 0, cost: 0, start: null,
      busy: false, held: new Set(), written: {}, points: {},
      duel: versusStrategy() ? { strategy: versusStrategy(), state: null, computer: null, written: {}, estimates: [] } : null,
    };
    S.play = p;  // an older game still waiting for an answer sees S.play !== p and stops
    $("#play-options").replaceChildren();
    delete $("#play-options").dataset.turn;
    $("#play-position").replaceChildren();
    $("#play-sheet").replaceChildren();
    $("#play-events").replaceChildren();
    $("#play-log tbody").replaceChildren();
    $("#total-cost").textContent = "0";
    $("#play-summary").hidden = true;
    $("#computer-moves").replaceChildren();
    renderDuel(p);
    showError(null);
    try {
      if (p.duel) {
        const data = await api("/api/duel/new", {
          game: p.game, variant: p.variant, strategy: p.duel.strategy, seed: nextSeed(p),
        });
        if (S.play === p) await duelStep(p, data);
        return;
      }
      const step = await api("/api/new", { game: p.game, variant: p.variant, seed: nextSeed(p) });
      if (S.play === p) await next(p, step);
    } catch (err) { if (S.play === p) showError(err, "#play-message"); }
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
      $("#computer-moves").replaceChildren(...data.computer_moves.map((m) => el("li", { text: m.action })));
      const wrote = points === null ? "" : ` (${num(points)} points)`;
      $("#play-log tbody").append(el("tr", { class: "opp" },
        el("td", { text: "–" }), el("td", { colspan: 3, text: `computer: ${moves.join(", ")}${wrote}` }),
        el("td", { class: "pos", text: data.state.computer })));
    }
    if (typeof data.win_probability === "number") {
      d.estimates.push(data.win_probability);
      d.estimateIs = data.win_probability_is;
    }
    const step = { position: data.state.you, position_json: data.you, game_over: data.game_over,
      to_move: 0, events: data.events, result: data.result };
    if (data.game_over) return finish(p, step);
    return showTurn(p, step);
  }
  // Both sheets, the computer's last turn and the user's estimated chance of winning.
  function renderDuel(p) {
    const d = p && p.duel;
    $("#computer-box").hidden = !d;
    $("#win-estimate").hidden = !d || !d.estimates.length;
    if (!d) return;
    $("#computer-title").textContent = `The computer's sheet (it plays ${d.strategy})`;
    $("#computer-sheet").replaceChildren(...(d.computer ? [sheet(d.computer, {}, { written: d.written })] : []));
    if (!d.estimates.length) return;
    const last = d.estimates[d.estimates.length - 1];
    const box = $("#win-estimate");
    box.dataset.value = String(last);
    box.dataset.turns = String(d.estimates.length);
    box.replaceChildren(el("strong", { text: `Your chance of winning (estimate): ${pct(last)}` }),
      el("br"), el("small", { text: d.estimateIs || "" }),
      el("br"), el("small", { id: "win-history", text: `turn by turn: ${d.estimates.map(pct).join(" → ")}` }));
  }
  // After a step: the game ends, the optimal player moves (two-player games, seat 2), or
  // it is the user's turn.
  async function next(p, step) {
    for (let i = 0; i < 1000; i++) {
      if (step.game_over) return finish(p, step);
      if (game().players < 2 || step.to_move === 0) return showTurn(p, step);
      const data = await api("/api/advice", { game: p.game, variant: p.variant, position: step.position });
      if (S.play !== p) return;
      const best = data.actions[0];
      logEvent(`opponent: ${best.action}`, "opp");
      $("#play-log tbody").append(el("tr", { class: "opp" },
        el("td", { text: "–" }), el("td", { text: `opponent: ${best.action}` }), el("td", { text: best.action }),
        el("td", { class: "num", text: "" }), el("td", { class: "pos", text: step.position })));
      step = await api("/api/apply", {
        game: p.game, variant: p.variant, position: step.position, action: best.action, seed: nextSeed(p),
      });
      if (S.play !== p) return;
      for (const e of step.events) logEvent(e);
    }
    throw new Error("the opponent's turn did not end");
  }
  function logEvent(text, cls = "") {
    $("#play-events").append(el("li", { class: cls, text }));
  }
  async function showTurn(p, step) {
    p.position = step.position;
    p.json = step.position_json;
    p.held = new Set();
    const data = await api("/api/advice", { game: p.game, variant: p.variant, position: step.position });
    if (S.play !== p) return;
    p.options = data.actions;
    p.valueIs = data.value_is;
    if (p.start === null) p.start = data.actions[0].value;
    p.points = {};
    renderPlay();
    if (board() === "dice-sheet") {
      try {
        const points = await previewPoints(step.position, step.position_json, data.actions);
        if (S.play !== p || p.position !== step.position) return;
        p.points = points;
        renderPlay();
      } catch (err) { /* the points are a help only */ }
    }
  }
  function renderPlay() {
    const p = S.play;
    const hints = $("#hints").checked;
    const holds = holdActions(p.options);
    const pos = $("#play-position");
    pos.replaceChildren();
    pos.dataset.position = p.position;
    if (hasDice()) {
      const dice = el("div", { class: "row", id: "play-dice" });
      (p.json.dice || []).forEach((v, i) => {
        dice.append(el("button", {
          type: "button", class: "die", "data-index": i, "data-value": num(v),
          "aria-pressed": String(p.held.has(i)), title: holds.size ? "tap to hold" : "", text: num(v),
          disabled: holds.size ? null : "",
          onclick: () => { if (p.held.has(i)) p.held.delete(i); else p.held.add(i); renderPlay(); },
        }));
      });
      pos.append(dice);
    }
    if (board() === "tiles") {
      pos.append(...(p.json.open || []).map((t) => el("span", { class: "die tile", text: t })));
    }
    const skip = new Set(boardFields());
    for (const [k, v] of Object.entries(p.json)) {
      if (skip.has(k) || (board() === "dice-sheet" && typeof v === "number" && k !== "rerolls")) continue;
      if (v === null || v === false || typeof v === "object") continue;
      pos.append(el("span", { class: "chip", "data-field": k, text: `${k.replace(/_/g, " ")} ${v === true ? "yes" : v === false ? "no" : typeof v === "number" ? num(v) : v}` }));
    }
    const byCat = board() === "dice-sheet" ? sheetActions(p.options) : {};
    const onSheet = new Set(Object.values(byCat));
    $("#play-sheet").replaceChildren(...(board() === "dice-sheet"
      ? [el("div", { class: "group" }, el("h2", { text: "Score sheet: write the dice in a box" }),
        sheet(p.json, p.points, { actions: byCat, written: p.written, hints }))] : []));
    renderDuel(p);
    const box = $("#play-options");
    box.dataset.turn = String(p.decisions);
    const buttons = [];
    if (holds.size) {
      const held = [...p.held].map((i) => Number(p.json.dice[i])).sort((x, y) => x - y).join(" ");
      const hold = holds.get(held);
      const b = el("button", { type: "button", id: "reroll", "data-action": hold ? hold.action : null,
        text: hold ? `Reroll (${hold.action})` : "Reroll: hold fewer dice", title: "tap the dice to hold first", onclick: () => hold && choose(hold) });
      b.disabled = !hold;
      if (hold && hints) b.append(el("small", { text: `${fmt(hold.value)} (−${fmt(hold.regret)})` }));
      buttons.push(b);
    }
    const held = new Set(holds.values());
    for (const o of p.options) {
      if (held.has(o) || onSheet.has(o)) continue;
      const b = el("button", { type: "button", class: "option", "data-action": o.action, text: o.action,
        onclick: () => choose(o) });
      if (hints) b.append(el("small", { text: `${fmt(o.value)} (−${fmt(o.regret)})` }));
      buttons.push(b);
    }
    box.replaceChildren(...buttons);
  }
  async function choose(option) {
    const p = S.play;
    if (!p || p.busy || !p.options.includes(option)) return;
    p.busy = true;
    const before = p.position;
    const beforeJson = p.json;
    p.decisions += 1;
    p.cost += option.regret;
    const best = p.options[0];
    $("#play-events").replaceChildren();
    const row = el("tr", { class: "mine" },
      el("td", { text: p.decisions }), el("td", { class: "you", text: option.action }),
      el("td", { text: best.action }),
      el("td", { class: option.regret > 1e-9 ? "num costly" : "num", text: fmt(option.regret) }),
      el("td", { class: "pos", text: before }));
    $("#play-log tbody").append(row);
    $("#total-cost").textContent = fmt(p.cost);
    $("#play-options").replaceChildren();
    showError(null);
    try {
      if (p.duel) {
        const data = await api("/api/duel/apply", {
          game: p.game, variant: p.variant, state: p.duel.state, action: option.action, seed: nextSeed(p),
        });
        if (S.play !== p) return;
        const cat = Object.entries(sheetActions([option])).map(([c]) => c)[0];
        if (cat && typeof beforeJson.score === "number" && typeof data.you.score === "number") {
          p.written[cat] = data.you.score - beforeJson.score;
        }
        for (const e of data.events) logEvent(e, e.startsWith("the computer") ? "opp" : "");
        await duelStep(p, data);
        return;
      }
      const step = await api("/api/apply", {
        game: p.game, variant: p.variant, position: before, action: option.action, seed: nextSeed(p),
      });
      if (S.play !== p) return;
      const cat = Object.entries(sheetActions([option])).map(([c]) => c)[0];
      if (cat && typeof beforeJson.score === "number" && typeof step.position_json.score === "number") {
        p.written[cat] = step.position_json.score - beforeJson.score;
      }
      for (const e of step.events) logEvent(e);
      await next(p, step);
    } catch (err) {
      if (S.play === p) {
        showError(err, "#play-message");
        renderPlay();
      }
    } finally {
      p.busy = false;
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
      const option = p.options.find((o) => o.action === got.action);
      if (!option) throw new Error(`${text}: not a legal action here`);
      $("#play-action").value = "";
      await choose(option);
    } catch (err) { showError(err, "#play-message"); }
  }
  function finish(p, step) {
    p.position = step.position;
    p.json = step.position_json;
    p.options = [];
    p.held = new Set();
    renderPlay();
    $("#play-options").replaceChildren();
    let result = "";
    if (p.duel && step.result !== null && step.result !== undefined) {
      const mine = num(step.position_json.score), theirs = num(p.duel.computer.score);
      result = step.result > 0.5 ? `You win, ${mine} to ${theirs}! ` : step.result < 0.5
        ? `The computer wins, ${theirs} to ${mine}. ` : `A draw, ${mine} each. `;
    } else if (step.result !== null && step.result !== undefined) {
      if (game().players >= 2) {
        result = step.result > 0.5 ? "You win! " : step.result < 0.5 ? "The optimal player wins. " : "A draw. ";
      } else result = `Final score: ${num(step.result)}. `;
    }
    const box = $("#play-summary");
    box.replaceChildren(
      el("strong", { text: "Game over. " }),
      el("span", { id: "final-result", text: result }),
      el("span", { text: `Optimal play from your first position: ${p.start === null ? "–" : fmt(p.start)} (${p.valueIs || game().units}); ` }),
      el("span", { text: `your ${p.decisions} decisions cost ` }),
      el("strong", { id: "summary-cost", text: fmt(p.cost) }),
      el("span", { text: " in expectation." }));
    box.hidden = false;
    box.dataset.decisions = p.decisions;
  }

  // --- game, variant, mode ----------------------------------------------------------------
  function selectGame(id) {
    S.game = id;
    S.variant = game().default_variant;
    for (const b of document.querySelectorAll("#games button")) b.classList.toggle("on", b.dataset.game === id);
    $("#variant").replaceChildren(...game().variants.map((v) => el("option", { value: v.id, text: v.id, title: v.description })));
    const strategies = game().computer_strategies || [];
    $("#versus-label").hidden = !strategies.length;
    $("#versus").replaceChildren(el("option", { value: "", text: "nobody (solo)" }),
      ...strategies.map((name) => el("option", { value: name, text: `the computer (${name})` })));
    if (location.hash !== `#${id}`) history.replaceState(null, "", `#${id}`);
    variantChanged();
  }
  function variantChanged() {
    $("#variant-description").textContent = `${game().title}, ${variant().description}`;
    $("#units").textContent = `value: ${game().units}`;
    $("#position").value = variant().position_example || game().position_example;
    $("#advice tbody").replaceChildren();
    $("#play-options").replaceChildren();
    $("#play-position").replaceChildren();
    $("#play-sheet").replaceChildren();
    $("#play-events").replaceChildren();
    $("#play-log tbody").replaceChildren();
    $("#play-summary").hidden = true;
    S.play = null;
    renderDuel(null);
    showError(null);
    hideDistribution();
    renderOptions();
    renderEditor();
    edited(false);
    if (S.mode === "play") newGame();
  }
  function setMode(mode) {
    S.mode = mode;
    $("#mode-advise").classList.toggle("on", mode === "advise");
    $("#mode-play").classList.toggle("on", mode === "play");
    $("#advise-view").hidden = mode !== "advise";
    $("#play-view").hidden = mode !== "play";
    if (mode === "play" && !S.play) newGame();
  }

  async function init() {
    try {
      const data = await api("/api/games");
      for (const g of data.games) S.games[g.id] = g;
      $("#games").replaceChildren(...data.games.map((g) => el("button", {
        type: "button", "data-game": g.id, text: g.title, title: g.summary, onclick: () => selectGame(g.id),
      })));
      if (!data.games.length) throw new Error("no games available on this server");
      const wanted = location.hash.slice(1);
      selectGame(S.games[wanted] ? wanted : data.games[0].id);
    } catch (err) { showError(err); }
    $("#variant").addEventListener("change", (e) => { S.variant = e.target.value; variantChanged(); });
    $("#position-form").addEventListener("submit", (e) => {
      e.preventDefault();
      clearTimeout(adviseTimer);
      advise($("#position").value, true);
    });
    $("#play-form").addEventListener("submit", typedAction);
    $("#mode-advise").addEventListener("click", () => setMode("advise"));
    $("#mode-play").addEventListener("click", () => setMode("play"));
    $("#new-game").addEventListener("click", newGame);
    $("#versus").addEventListener("change", () => { if (S.mode === "play") newGame(); });
    $("#hints").addEventListener("change", () => { if (S.play && S.play.options.length) renderPlay(); });
    document.body.dataset.ready = "true";
  }
  init();
})();
