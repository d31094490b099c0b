// diceopt page, 3/5: play mode: a game as plain data, its steps (yours, the optimal
// opponent's, the computer's), undo and redo, localStorage and the URL, the review.
"use strict";
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
// The dice an action sets aside where its first words name them ("set aside 1 5, roll 4":
// a 1 and a 5 of the roll), as indices into ``dice``; null for any other action.
function asideIndices(action, dice) {
  const words = action.split(",")[0].trim().split(/\s+/);
  const k = words.findIndex((w) => w !== "" && Number.isFinite(+w));
  if (k < 1 || !words.slice(k).every((w) => Number.isFinite(+w))) return null;
  return heldIndices(["-", ...words.slice(k)].join(" "), dice);
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
// The games' words for the players ("player 1 rolled ...", "player 2 wins") as the page
// says them: the user plays player 1, "you"; player 2 is ``other`` (the optimal player:
// "your opponent"; "the computer" in a game against it). Positions keep their notation.
const YOU_VERBS = { has: "have", wins: "win", banks: "bank", loses: "lose", reaches: "reach", is: "are" };
function yourWords(text, other = "your opponent") {
  return String(text)
    .replace(/\bplayer 1's\b/g, "your")
    .replace(/\bplayer 2's\b/g, `${other}'s`)
    .replace(/\bplayer 1\b/g, "you")
    .replace(/\bplayer 2\b/g, other)
    .replace(/\byou (has|wins|banks|loses|reaches|is)\b/g, (m, verb) => `you ${YOU_VERBS[verb]}`)
    .replace(/\b(you reach \d+) and wins\b/g, "$1 and win");
}
const otherPlayer = (p) => (p && p.duel ? "the computer" : "your opponent");
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
// strategy and side too), so the URL opens the same position elsewhere; with the points
// written in the boxes of a sheet (``pts``, the computer's ``cpts``: "ones:3,chance:22"),
// which a position does not hold.
const pointsText = (written) => Object.entries(written || {}).map(([cat, v]) => `${cat}:${num(v)}`).join(",");
function pointsOf(text) {
  const out = {};
  for (const part of String(text || "").split(",")) {
    const [cat, v] = part.split(":");
    if (cat && v !== undefined && v.trim() !== "" && Number.isFinite(+v)) out[cat.trim()] = +v;
  }
  return out;
}
function updateHash() {
  if (!S.game) return;
  if (S.mode === "table") { tableHash(); return; }
  const h = new URLSearchParams({ game: S.game, variant: S.variant });
  const p = S.play;
  if (S.mode === "play" && p && p.position && !p.over) {
    h.set("mode", "play");
    h.set("pos", p.position);
    if (pointsText(p.written)) h.set("pts", pointsText(p.written));
    if (p.duel && p.duel.state) {
      h.set("vs", p.duel.strategy);
      h.set("computer", p.duel.state.computer);
      if (pointsText(p.duel.written)) h.set("cpts", pointsText(p.duel.written));
    }
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
  // a game of one turn that ended carrying something to the next turn (e.g. a streak)
  const last = S.play;
  const carried = last && last.over && last.nextTurn && last.game === S.game && last.variant === S.variant
    ? last.nextTurn : null;
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
        game: p.game, variant: p.variant, strategy: p.duel.strategy, seed: nextSeed(p), estimate: false,
      });
      p.record.push("~> new game");
      if (S.play === p) await duelStep(p, data);
      return;
    }
    const step = await api("/api/new", {
      game: p.game, variant: p.variant, seed: nextSeed(p), ...(carried ? { turn: carried } : {}),
    });
    p.record.push("~> new game");
    if (S.play === p) await next(p, step);
  } catch (err) { if (S.play === p) showError(err, "#play-message"); } finally { p._busy = false; }
}
// A game that starts at a given position (a URL): no history, no record of its start;
// ``written``, ``computerWritten``: the points in the boxes of the sheets (pointsOf).
async function openPlay(position, vs, computer, written = {}, computerWritten = {}) {
  const p = newPlay({ written });
  if (vs && computer && (game().computer_strategies || []).includes(vs)) {
    p.duel = { strategy: vs, state: { strategy: vs, you: position, computer }, computer: sideOf(computer), written: computerWritten, estimates: [], moves: [] };
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
// The computer's side from its text ("filled ones twos | upper 3 | score 5"): field name,
// then its value (numbers as numbers; a list of names, "-" for none), for its sheet.
function sideOf(text) {
  const out = {};
  for (const part of String(text).split("|")) {
    const [k, ...words] = part.trim().split(/\s+/);
    if (!k) continue;
    if (words.length === 1 && Number.isFinite(+words[0])) out[k] = +words[0];
    else out[k] = words.filter((w) => w !== "-");
  }
  return Array.isArray(out.filled) ? out : null;
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
    const points = cat ? boxPoints(cat, before, data.computer) : null;
    if (cat && points !== null) d.written[cat] = points;
    d.moves = moves;
    const wrote = points === null ? "" : ` (${num(points)} points)`;
    p.log.push({ kind: "opp", text: `computer: ${moves.join(", ")}${wrote}`, position: data.state.computer });
  }
  if (typeof data.win_probability === "number") {
    d.estimates.push({ at: p.decisions, p: data.win_probability });
    d.estimateIs = data.win_probability_is;
  } else if (!data.game_over && data.you && data.you.rerolls === 2) {
    loadEstimate(p, data.state);  // asked apart, so the move shows at once; not awaited
  }
  const step = { position: data.state.you, position_json: data.you, game_over: data.game_over,
    to_move: 0, events: data.events, result: data.result };
  if (data.game_over) return finish(p, step);
  return showTurn(p, step);
}
// The user's chance of winning from the start of their turn (a second request: the move
// is on screen meanwhile), added to the estimates once it comes.
async function loadEstimate(p, state) {
  const at = p.decisions;
  try {
    const data = await api("/api/duel/estimate", { game: p.game, variant: p.variant, state });
    if (S.play !== p || !p.duel || p.duel.state !== state) return;
    p.duel.estimates.push({ at, p: data.win_probability });
    p.duel.estimateIs = data.win_probability_is;
    renderPlay();
    save();
  } catch (err) { if (S.play === p) showError(err, "#play-message"); }
}
// The second kind of hint in a game against the computer: the advice to beat it from
// here (its strategy as the opponent model), beside the best move for the expected score.
async function loadWinHint(p, data) {
  const d = p.duel;
  if (!d || !d.state) return;
  try {
    const win = await api("/api/advice", {
      game: p.game, variant: p.variant, position: data.position,
      opponent: d.state.computer, opponent_plays: d.strategy,
    });
    if (S.play !== p || p.position !== data.position) return;
    p._win = { position: data.position, actions: win.actions };
    renderPlay();
  } catch (err) { /* a help only: the best move for the score stays */ }
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
  p._win = null;
  renderPlay();
  save();
  loadPoints(p, data);  // not awaited: the buttons work meanwhile
  loadWinHint(p, data);
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
    // the record says what was rolled: the dice on the table, not the ones drawn for it
    const last = p.record.length - 1;
    if (last >= 0 && p.record[last].startsWith("~> ")) {
      p.record[last] = p.record[last].replace(/(rolled:? (?:dice )?)[\d ]+$/, `$1${p.json.dice.join(" ")}`);
    }
    p._options = data.actions;
    // a game opened at a position and not yet played: the dice typed are its first position
    if (!p.decisions && p.record[0] !== "~> new game" && data.actions.length) p.start = data.actions[0].value;
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
  // a move that followed the "to win" hint where it differs from the best for the score:
  // a cost in expected points, but the best for the chance of beating the computer
  const win = p.duel && p._win && p._win.position === position && p._win.actions.length ? p._win.actions : null;
  const toWin = Boolean(win && win[0].action === option.action && option.regret > 1e-9);
  const forScore = toWin ? win.find((a) => a.action === best.action) : null;
  p.log.push({ kind: "mine", n: p.decisions, action: option.action, best: best.action, regret: option.regret, position,
    line: p.record.length + 1, ...(toWin ? { toWin: true, winGain: forScore ? win[0].value - forScore.value : null } : {}) });
  p.record.push(`${position} ${p._options.length > 1 ? "=>" : "->"} ${option.action}`);
  p.events = [];
  p._options = [];
  S.refocus = true;  // the keyboard's place: the next move, once it is drawn (focusPlay)
  renderPlay();
  showError(null);
  try {
    if (p.duel) {
      const data = await api("/api/duel/apply", {
        game: p.game, variant: p.variant, state: p.duel.state, action: option.action, seed: nextSeed(p),
        estimate: false,
      });
      if (S.play !== p) return;
      const cat = Object.keys(sheetActions([option]))[0];
      const points = cat ? boxPoints(cat, beforeJson, data.you) : null;
      if (points !== null) p.written[cat] = points;
      p.record.push(eventsLine(data.record_events || data.events));
      for (const e of data.events) p.events.push({ text: e, cls: e.startsWith("the computer") ? "opp" : "" });
      await duelStep(p, data);
      return;
    }
    const step = await api("/api/apply", {
      game: p.game, variant: p.variant, position, action: option.action, seed: nextSeed(p),
    });
    if (S.play !== p) return;
    const cat = Object.keys(sheetActions([option]))[0];
    const points = cat ? boxPoints(cat, beforeJson, step.position_json) : null;
    if (points !== null) p.written[cat] = points;
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
      result = left === 0 ? "Final score: 0: every tile shut! " : `Final score: ${left} (tiles left open: ${step.position_json.open.join(" ")}). `;
    } else if (game().one_turn) {
      // a game of one turn (e.g. a push-your-luck game valued per turn): the turn's worth
      const worth = Number.isInteger(step.result) ? num(step.result) : pts(step.result);
      result = `This turn is worth ${worth} points. `;
      const carried = Object.entries(step.next_turn || {}).map(([k, v]) => `${k} ${v}`).join(", ");
      if (carried) result += `The next turn starts with ${carried}. `;
    } else result = `Final score: ${num(step.result)}. `;
  }
  p.result = typeof end === "number" ? end : null;
  p.nextTurn = step.next_turn || null;  // what the next turn carries over (a streak)
  p.finalText = result;
  // the result ends the record (a game opened at a position too: its review needs it)
  if (p.result !== null && p.record.length) p.record.push(`= ${p.result}`);
  p._reviewing = p.record.length > 0;  // the summary's expected start comes with the review
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
  } finally {
    box.removeAttribute("aria-busy");
    p._reviewing = false;
    if (S.play === p) renderSummary(p);
  }
}
// What optimal play expected when the game began, one number for the summary and the
// review: for a game started here (a record from "~> new game") the value from the start
// of the game, before the first roll (the review's ``expected_start``; ``pending`` until
// it comes); for a game opened at a position, the value of that position.
const START_LABEL = "Expected with optimal play from the start of the game, before the first roll";
const TURN_START_LABEL = "Expected with optimal play from the start of the turn, before its first roll";
function startOf(p) {
  const fromStart = p.record[0] === "~> new game";
  const label = game().one_turn ? TURN_START_LABEL : START_LABEL;
  if (p.review && p.review.expected_start !== null && p.review.expected_start !== undefined) {
    return { value: p.review.expected_start, label, pending: false };
  }
  if (fromStart) return { value: null, label, pending: Boolean(p._reviewing) };
  return { value: p.start, label: "Expected with optimal play from the position the game opened at", pending: false };
}
// A move that followed the "to win" hint (a log entry's ``toWin``), in words for the review.
function toWinNote(move) {
  if (!move || !move.toWin) return "";
  const gain = typeof move.winGain === "number" && move.winGain > 1e-9 ? `, +${pct(move.winGain)} chance of winning` : "";
  return ` — the “to win” move: best for your chance of beating the computer${gain}, not for the expected score`;
}
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
  const f2 = (x) => inUnits(x, r.units).replace(/^-/, "−");
  if (r.expected_start !== null) {
    const lower = r.identity.includes("lower is better");
    parts.push(el("p", { class: "split", id: "review-split" },
      el("span", { text: "expected from the start, before the first roll " }),
      el("strong", { id: "review-start", text: f2(r.expected_start) }),
      el("span", { class: r.luck >= 0 ? "good" : "bad", text: ` ${lower ? "−" : "+"} luck ${r.luck < 0 ? `(${f2(r.luck)})` : f2(r.luck)}` }),
      el("span", { class: "bad", text: ` ${lower ? "+" : "−"} cost of mistakes ${f2(r.cost)}` }),
      el("strong", { text: ` = ${f2(r.result)}` })));
    parts.push(el("p", { class: "units", text: `${yourWords(r.units, otherPlayer(p))}; ${r.identity}` }));
    // the opening roll's events are its position (notation, as the game writes it)
    const said = (x) => (x.after ? `after ${x.after}, ${yourWords(x.events, otherPlayer(p))}` : `the opening roll, ${x.events}`);
    // the luckiest roll only where luck was good, the unluckiest only where it was bad: a
    // step no dice followed (a bank that ends the turn) has no luck and is no roll
    const roll = (label, x, sign) => x && sign * x.luck > 1e-9 && el("li", { class: sign > 0 ? "luckiest" : "unluckiest",
      text: `${label}: ${said(x)} (luck ${x.luck >= 0 ? "+" : ""}${f2(x.luck)})` });
    parts.push(el("ul", { class: "events" }, ...[roll("luckiest roll", r.luckiest, 1), roll("unluckiest roll", r.unluckiest, -1),
      r.costliest ? el("li", { class: "costliest", text: `costliest decision: ${r.costliest.action} costs ${f2(r.costliest.regret)} (best: ${r.costliest.best_action})${
        toWinNote(p.log.find((m) => m.kind === "mine" && m.line === r.costliest.line))}` })
        : el("li", { text: "every decision was the best" })].filter(Boolean)));
  } else {
    parts.push(el("p", { text: `your decisions cost ${f2(r.total_regret)} in all` }));
    for (const m of r.missing || []) {
      // a game opened at a position: no record of its start (the analysis says it in its terms)
      const text = m.includes("~> new game") ? "the luck of the rolls needs the whole game from its first roll (this one opened at a position)" : m;
      parts.push(el("p", { class: "units", text }));
    }
  }
  // moves that followed the "to win" hint: mistakes for the expected score, on purpose
  const followed = p.log.filter((m) => m.kind === "mine" && m.toWin);
  if (followed.length) {
    const cost = followed.reduce((a, m) => a + m.regret, 0);
    const one = followed.length === 1;
    parts.push(el("p", { class: "to-win-note", id: "review-to-win", "data-moves": followed.length,
      text: `${one ? "1 move" : `${followed.length} moves`} followed the “to win” hint (${followed.map((m) => m.action).join("; ")}): `
        + `${one ? "it costs" : "they cost"} ${f2(cost)} of the expected score, counted as ${one ? "a mistake" : "mistakes"}, `
        + `but ${one ? "was" : "were"} the best for your chance of beating the computer.` }));
  }
  $("#review-text").replaceChildren(...parts);
}
