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

// A table an answer reads may be in the making (built once, shared by every request).
// Requests say "Prefer: respond-async, wait=2": the server waits up to 2 s for the table,
// then answers 202 with the builds ({"building": [...], "status": URL}) instead of an
// error. The page then shows one calm panel (#build-panel: what is being built, its
// percentage and the time left), polls GET /api/tables/status/ID every second and, once
// no build it waits for is running, sends the request again: the action goes on by
// itself, and the rest of the page works meanwhile. (A 503 with Retry-After, e.g. a
// server that is stopping, is asked again after it says.)
const WAIT_PREFER = "respond-async, wait=2";
const POLL_MS = 1000;
const ROUNDS = 20;  // a request sent again at most this many times (each after a build)
const RETRIES = 10;  // ... and after a 503 with Retry-After
// A pasted rule file is a variant of the page (id "file:KEY"); requests send its text.
async function api(path, body) {
  if (body && typeof body.variant === "string" && body.variant in S.ruleTexts) {
    body = { ...body, rules: S.ruleTexts[body.variant] };
    delete body.variant;
  }
  const opts = body === undefined ? {} : {
    method: "POST", body: JSON.stringify(body),
    headers: { "Content-Type": "application/json", Prefer: WAIT_PREFER },
  };
  let held = false;
  let retried = false;
  try {
    for (let round = 0, attempt = 0; ; ) {
      const res = await fetch(path, opts);
      let data = null;
      try { data = await res.json(); } catch (e) { data = null; }
      if (res.status === 202 && data && Array.isArray(data.building) && round < ROUNDS) {
        round++;
        if (!held) { held = true; BUILDS.holds++; }
        const ended = await awaitBuilds(data.building);
        // a build that failed: said beside the control (acting again tries it again)
        const failed = ended.find((b) => b && b.state === "failed");
        if (failed) throw new Error(`${failed.title} could not be made ready: ${failed.error || "its build failed"}`);
        continue;
      }
      const retry = Number(res.headers.get("Retry-After"));
      if (res.status === 503 && retry > 0 && attempt < RETRIES) {
        attempt++;
        retried = true;
        showError(new Error((data && data.error) || "the server is busy"));
        await new Promise((resolve) => setTimeout(resolve, Math.min(retry, 30) * 1000));
        continue;
      }
      if (retried) showError(null);
      if (res.status === 202) throw new Error("the tables of this answer are still being built: try again later");
      if (!res.ok) throw new Error((data && data.error) || `HTTP ${res.status}`);
      return data;
    }
  } finally {
    if (held) { BUILDS.holds--; renderBuilds(); }
  }
}
// The builds the page waits for: their latest status by id, the requests waiting (each
// for a set of ids), the requests holding the panel (waiting, or sent again after their
// builds: the panel stays until their answer, so it never blinks between two builds).
const BUILDS = { status: new Map(), waiters: new Set(), holds: 0, timer: null };
// The statuses of ``list``'s builds once none is building (polled every POLL_MS).
function awaitBuilds(list) {
  return new Promise((resolve) => {
    const ids = new Set();
    for (const b of list) {
      if (!b || typeof b.id !== "string") continue;
      BUILDS.status.set(b.id, b);
      if (b.state === "building") ids.add(b.id);
    }
    if (!ids.size) { resolve(list); return; }
    BUILDS.waiters.add({ ids, resolve });
    renderBuilds();
    if (BUILDS.timer === null) BUILDS.timer = setTimeout(pollBuilds, POLL_MS);
  });
}
async function pollBuilds() {
  const ids = new Set();
  for (const w of BUILDS.waiters) for (const id of w.ids) ids.add(id);
  await Promise.all([...ids].map(async (id) => {
    try {
      const res = await fetch(`/api/tables/status/${encodeURIComponent(id)}`);
      const data = await res.json().catch(() => null);
      // an id this server does not know (any more): the request sent again will tell
      if (res.status === 404 || (res.ok && !data)) BUILDS.status.set(id, { ...BUILDS.status.get(id), state: "gone" });
      else if (res.ok) BUILDS.status.set(id, data);
    } catch (e) { /* the network: asked again at the next poll */ }
  }));
  for (const w of [...BUILDS.waiters]) {
    if ([...w.ids].every((id) => (BUILDS.status.get(id) || {}).state !== "building")) {
      BUILDS.waiters.delete(w);
      w.resolve([...w.ids].map((id) => BUILDS.status.get(id)));
    }
  }
  const awaited = new Set();
  for (const w of BUILDS.waiters) for (const id of w.ids) awaited.add(id);
  for (const id of [...BUILDS.status.keys()]) if (!awaited.has(id)) BUILDS.status.delete(id);
  BUILDS.timer = BUILDS.waiters.size ? setTimeout(pollBuilds, POLL_MS) : null;
  renderBuilds();
}
// what the panel says of a build in each stage (``t``: the table's title)
const STAGE_WORDS = {
  queued: (t) => `Waiting to build ${t} (another table is being built first)`,
  loading: (t) => `Loading ${t}`,
  waiting: (t) => `Another server process is building ${t}`,
  building: (t) => `Building ${t}`,
  storing: (t) => `Storing ${t}`,
};
// "about 40 s", "about 3 min": the estimate, rounded so that it moves calmly
function aboutTime(seconds) {
  if (seconds < 10) return "a few seconds";
  if (seconds < 60) return `about ${Math.round(seconds / 5) * 5} s`;
  if (seconds < 3600) return `about ${Math.round(seconds / 60)} min`;
  return `about ${(seconds / 3600).toFixed(1)} h`;
}
function buildPanel() {
  let panel = $("#build-panel");
  if (!panel) {
    panel = el("section", { id: "build-panel", class: "build-panel", hidden: "" },
      el("p", { class: "build-title", "aria-live": "polite" }),
      el("progress", { class: "build-progress", max: "1" }),
      el("p", { class: "build-numbers" }),
      el("p", { class: "build-note", text: "This happens once; the page goes on by itself when it is ready. Advice works meanwhile." }));
    $("#message").after(panel);
  }
  return panel;
}
function renderBuilds() {
  const panel = $("#build-panel");
  if (BUILDS.holds <= 0) {
    if (panel) { panel.hidden = true; delete panel.dataset.build; }
    return;
  }
  const shown = panel || buildPanel();
  const running = [...BUILDS.status.values()].filter((b) => b.state === "building");
  const b = running[0];
  const bar = $(".build-progress", shown);
  if (!b) {  // its builds are done: the request is being sent again
    $(".build-title", shown).textContent = "Ready: going on…";
    bar.value = 1;
    $(".build-numbers", shown).textContent = "";
    shown.dataset.state = "ready";
    shown.dataset.fraction = "1";
    shown.hidden = false;
    return;
  }
  const more = running.length > 1 ? ` (then ${running.length - 1} more)` : "";
  const say = STAGE_WORDS[b.stage] || ((t) => `Preparing ${t}`);
  $(".build-title", shown).textContent = `${say(b.title)}${more}`;
  const f = typeof b.fraction === "number" ? b.fraction : null;
  if (f === null) bar.removeAttribute("value"); else bar.value = f;
  const words = [];
  if (f !== null) words.push(`${(100 * f).toFixed(f < 0.1 ? 1 : 0)}%`);
  if (typeof b.seconds_left === "number") words.push(`${aboutTime(b.seconds_left)} left`);
  else words.push(`${Math.round(b.elapsed_seconds || 0)} s so far`);
  $(".build-numbers", shown).textContent = words.join(" · ");
  shown.dataset.build = b.id;
  shown.dataset.state = "building";
  shown.dataset.stage = b.stage;
  shown.dataset.fraction = f === null ? "" : String(f);
  shown.hidden = false;
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
