// diceopt page, 1/5: shared state and helpers (requests, messages, the game and variant
// shown). Plain scripts, no build step, loaded in order (core, advise, play, board, app);
// their top-level names are shared, and app.js starts the page.
"use strict";
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
  undo: [], redo: [], entry: [], ruleTexts: {},
};
const clone = (x) => JSON.parse(JSON.stringify(x));

// A 503 with Retry-After means a table the answer reads is being built (shared, once):
// its message (stage, percentage) is shown and the request sent again when it says.
const RETRIES = 60;
// A pasted rule file is a variant of the page (id "file:KEY"); requests send its text.
async function api(path, body) {
  if (body && typeof body.variant === "string" && body.variant in S.ruleTexts) {
    body = { ...body, rules: S.ruleTexts[body.variant] };
    delete body.variant;
  }
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
// ``err`` null clears the messages, except a sticky one (``data-sticky``: the rule file's)
// unless it is ``where``: an answer that arrives late must not hide a control's own error.
function showError(err, where = "#message") {
  for (const m of document.querySelectorAll("p.message")) {
    const mine = `#${m.id}` === where;
    if (!err && !mine && m.dataset.sticky !== undefined) continue;
    if (!mine || !err) { m.hidden = true; m.textContent = ""; continue; }
    m.textContent = String(err.message || err);
    m.hidden = false;
    m.scrollIntoView({ block: "nearest" });
  }
}
const fmt = (x) => (Math.abs(x) < 5e-10 ? "0" : x.toFixed(4));
// Every probability the page shows, as a percentage with at most one decimal and never
// an exponent: 0%, <0.1%, 12.3%, >99.9%, 100% (within 1e-9 of certain: 0% or 100%);
// a negative one (a difference) with a minus sign; "–" for no number.
function pct(p) {
  const x = Number(p);
  if (p === null || p === undefined || !Number.isFinite(x)) return "–";
  if (x < -1e-9) return `−${pct(-x)}`;
  if (x <= 1e-9) return "0%";
  if (x >= 1 - 1e-9) return "100%";
  const v = 100 * x;
  if (v < 0.05) return "<0.1%";
  if (v >= 99.95) return ">99.9%";
  return `${v.toFixed(1)}%`;
}
// A number of points with ``digits`` decimals (2 by default): "–" for no number, no
// "-0.00", never an exponent.
function pts(x, digits = 2) {
  const v = Number(x);
  if (x === null || x === undefined || !Number.isFinite(v)) return "–";
  const s = v.toFixed(digits);
  return Number(s) === 0 ? (0).toFixed(digits) : s;
}
// A value in its units: a probability as a percentage, else points (``digits`` decimals).
const isProbability = (units) => /probab/.test(units || "");
const inUnits = (x, units, digits = 2) => (isProbability(units) ? pct(x) : pts(x, digits));
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
const boardFields = () => ({ dice: ["dice"], "dice-sheet": ["dice", "filled"], tiles: ["open"], "colour-dice": ["rolled"] }[board()] || []);
function faces() {
  const p = params();
  if (Array.isArray(p.values) && p.values.length) return p.values;
  return Array.from({ length: p.sides || 6 }, (_, i) => i + 1);
}
// Whether ``n`` dice make a whole roll: the rules' number, or (a game whose roll shows the
// dice not yet set aside: ``variable_dice``) 1 to that many.
function diceComplete(n) {
  return game().variable_dice ? n >= 1 && n <= diceCount() : n === diceCount();
}
function diceCount() {
  const ex = variant().position_example_json || {};
  return params().dice || (Array.isArray(ex.dice) ? ex.dice.length : 5);
}
function tileCount() {
  const ex = variant().position_example_json || {};
  return params().tiles || Math.max(9, ...(ex.open || []));
}
