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
  // (#advise-message under the position, #play-message under the actions), scrolled into view.
  function showError(err, where = "#message") {
    for (const id of ["#message", "#advise-message", "#play-message"]) {
      const m = $(id);
      if (id !== where || !err) { m.hidden = true; m.textContent = ""; continue; }
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
    if (!S.editors[key]) S.editors[key] = { json: clone(variant().position_example_json || {}), points: {} };
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
    try {
      const data = await api("/api/advice", { game: S.game, variant: S.variant, position });
      if (seq !== S.seq) return;
      showError(null);
      tbody.replaceChildren(...data.actions.map((a, i) => el("tr", {
        class: a.regret <= 1e-9 ? "best" : "", "data-action": a.action, "data-value": a.value,
        "data-regret": a.regret,
      }, el("td", { class: "rank", text: i + 1 }), el("td", { class: "action", text: a.action }),
      el("td", { class: "num value", text: fmt(a.value), title: String(a.value) }),
      el("td", { class: "num regret", text: fmt(a.regret), title: String(a.regret) }))));
      $("#units").textContent = `value: ${data.value_is}`;
      // the text the user is typing is left alone (an answer for the board may come in)
      if (fromText || document.activeElement !== $("#position")) $("#position").value = data.position;
      $("#advice").dataset.position = data.position;
      const changedFields = JSON.stringify(Object.keys(st.json)) !== JSON.stringify(Object.keys(data.position_json));
      st.json = data.position_json;
      if (fromText || changedFields) renderEditor();
      if (board() === "dice-sheet") sheetPoints(st, data, seq);
    } catch (err) {
      if (seq !== S.seq) return;
      tbody.replaceChildren();
      delete $("#advice").dataset.position;
      showError(err, "#advise-message");
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
    showError(null);
    try {
      const step = await api("/api/new", { game: p.game, variant: p.variant, seed: nextSeed(p) });
      if (S.play === p) await next(p, step);
    } catch (err) { if (S.play === p) showError(err, "#play-message"); }
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
    if (step.result !== null && step.result !== undefined) {
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
    showError(null);
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
    $("#hints").addEventListener("change", () => { if (S.play && S.play.options.length) renderPlay(); });
    document.body.dataset.ready = "true";
  }
  init();
})();
