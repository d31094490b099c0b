// diceopt page, table mode: a real game of 2 to 6 players at one table, of the game
// whose /api/games entry names its table endpoints (``table``). The table (players, rules, sheets with their points, whose turn, the dice, the
// chances at every turn start) lives in the browser: localStorage, undo and redo of every
// step, and the URL (#mode=table&t=...) opens it on another phone. The server is asked
// statelessly: POST {table}/chances at a turn's start (every player's chance, every
// box's possible points), {table}/advice once the dice are in, and
// /api/apply to write the dice in a box. Loaded after board.js (pretty, dieButton,
// heldIndices), before app.js.
"use strict";
const TABLE_STORE = "diceopt.table.v1";
const TABLE_MODEL = "Chance of winning: each player plays for the expected score from their sheet; ties split.";
// t: the table (what is saved, undone and shared); the rest is what the server said of it
const TB = { t: null, undo: [], redo: [], adv: null, advKey: null, points: {}, boxes: {}, entry: [], busy: false, applying: false, writing: null };

// the game with a table mode (its entry in /api/games names the table endpoints), its id
const tGame = () => Object.values(S.games).find((g) => g.table) || null;
const tId = () => (tGame() || {}).id;
const tApi = (what) => `${tGame().table}/${what}`;
const tVariant = () => {
  const g = tGame();
  return (g && TB.t && g.variants.find((v) => v.id === TB.t.variant)) || (g && g.variants[0]) || {};
};
const tCats = () => (tVariant().parameters || {}).categories || [];
const tSheetInfo = () => tVariant().sheet || {};
const tRerolls = () => {
  const ex = tVariant().position_example_json || {};
  return typeof ex.rerolls === "number" ? ex.rerolls : 2;
};
const tDice = () => (tVariant().parameters || {}).dice || 5;
const tSnap = () => JSON.stringify(TB.t);
// the mover's position in the game's notation (the advice's own text where it has one)
function posText() {
  const a = advNow();
  if (a && a.position) return a.position;
  const p = tPosition();
  return `dice ${p.dice.join(" ")} | rerolls ${p.rerolls} | filled ${p.filled.join(" ") || "-"} | upper ${p.upper} | score ${num(p.score)}`;
}
// what the advice depends on (a hold chosen does not change it)
const tKey = () => (TB.t ? JSON.stringify([TB.t.turn, TB.t.dice, TB.t.rolls, TB.t.sheets, TB.t.variant]) : "");
const advNow = () => (TB.adv && TB.advKey === tKey() ? TB.adv : null);
// the box an action writes ("score full_house" -> full_house), else null (a hold)
function catOf(action) {
  const w = String(action).split(" ");
  return w.length === 2 && tCats().includes(w[1]) && !Number.isFinite(+w[1]) ? w[1] : tCats().includes(action) ? action : null;
}
const tTitle = () => { const v = tVariant(); return v.rules ? `rule file: ${v.rules.name}` : v.title || v.id || ""; };
const emptySheet = () => ({ filled: [], upper: 0, score: 0 });
const isFull = (sheet) => sheet.filled.length >= tCats().length;
function lastChances() {
  const c = TB.t && TB.t.chances;
  return c && c.length ? c[c.length - 1].p : null;
}
function tBody(extra = {}) {
  const t = TB.t;
  return { variant: t.variant, players: t.names.map((name, i) => ({ name, sheet: t.sheets[i] })), ...extra };
}
// the mover's position (dice showing) as the advice and apply endpoints read it
function tPosition() {
  const t = TB.t;
  return { ...t.sheets[t.turn], dice: [...t.dice], rerolls: tRerolls() - (t.rolls - 1) };
}

// --- saving: localStorage, the URL, undo and redo -------------------------------------
function tableSave() {
  const data = { t: TB.t, undo: TB.undo.slice(-200), redo: TB.redo.slice(-200) };
  for (let i = 0; i < 4; i++) {
    try { localStorage.setItem(TABLE_STORE, JSON.stringify(data)); break; } catch (e) {
      data.undo = data.undo.slice(Math.floor(data.undo.length / 2));
      data.redo = [];
    }
  }
  tableHash();
}
function tableLoad() {
  try { return JSON.parse(localStorage.getItem(TABLE_STORE) || "null"); } catch (e) { return null; }
}
const toB64 = (s) => btoa(unescape(encodeURIComponent(s))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
const fromB64 = (s) => decodeURIComponent(escape(atob(s.replace(/-/g, "+").replace(/_/g, "/"))));
function tableHash() {
  if (S.mode !== "table") return;
  const h = new URLSearchParams({ game: tId(), mode: "table" });
  if (TB.t) h.set("t", toB64(tSnap()));
  const hash = `#${h.toString()}`;
  if (location.hash !== hash) history.replaceState(null, "", hash);
}
function tPush() {
  TB.undo.push(tSnap());
  TB.redo = [];
}
async function tableUndo() {
  if (!TB.undo.length || TB.applying) return;
  TB.redo.push(tSnap());
  await tableRestore(TB.undo.pop());
}
async function tableRedo() {
  if (!TB.redo.length || TB.applying) return;
  TB.undo.push(tSnap());
  await tableRestore(TB.redo.pop());
}
async function tableRestore(text) {
  TB.t = JSON.parse(text);
  TB.entry = [];
  TB.writing = null;
  showError(null);
  tableSave();
  await tableRefresh();
}
// What the server says of the table as it stands: the chances (once per turn start) and,
// with the dice in, the advice.
async function tableRefresh() {
  const t = TB.t;
  renderTable();
  if (!t) return;
  TB.busy = true;
  try {
    if (!Object.keys(TB.boxes).length || !t.chances.length) {
      const data = await api(tApi("chances"), tBody({ to_move: t.turn }));
      TB.boxes = data.boxes || {};
      if (!t.chances.length) t.chances.push({ at: 0, p: data.players.map((p) => p.chance), e: data.players.map((p) => p.expected_final) });
    }
    const key = tKey();
    if (!t.over && t.dice.length === tDice() && TB.advKey !== key) {
      TB.adv = null;
      renderTable();
      const data = await api(tApi("advice"), tBody({ to_move: t.turn, position: tPosition() }));
      const points = await boxPointsOf(data);
      if (tKey() === key) { TB.adv = data; TB.advKey = key; TB.points = points; }
    }
  } catch (err) { showError(err, "#table-message"); } finally { TB.busy = false; }
  tableSave();
  renderTable();
}

// The points the dice would score in each open box of the mover (POST /api/preview of
// the advice's writing actions): for an upper box its own points, else the score's change.
async function boxPointsOf(adv) {
  const writes = adv.actions.filter((x) => catOf(x.action));
  if (!writes.length) return {};
  const t = TB.t;
  const before = t.sheets[t.turn];
  const data = await api("/api/preview", { game: tId(), variant: t.variant, position: tPosition(), actions: writes.map((x) => x.action) });
  const upper = new Set(tSheetInfo().upper || []);
  const out = {};
  data.outcomes.forEach((o, i) => {
    const cat = catOf(writes[i].action);
    const after = o.position_json;
    out[cat] = upper.has(cat) && typeof after.upper === "number" ? after.upper - before.upper : after.score - before.score;
  });
  return out;
}

// --- the game: start, dice, a box written, the next turn --------------------------------
async function startTable(names, variantId) {
  if (TB.t) tPush();
  TB.t = {
    variant: variantId, rules: S.ruleTexts[variantId] || null, names,
    sheets: names.map(emptySheet), pts: names.map(() => ({})), turn: 0, dice: [], rolls: 0, hold: [],
    done: 0, chances: [], moves: [], over: false, records: names.map(() => ["~> new game"]), reviews: null,
  };
  TB.boxes = {};
  TB.adv = null;
  TB.advKey = null;
  showError(null);
  await tableRefresh();
}
// Dice typed or tapped: a whole roll, or (dice held) the rerolled ones.
async function tableDice(values) {
  const t = TB.t;
  if (!t || t.over) return;
  const keep = t.dice.length && t.rolls ? t.hold.map((i) => t.dice[i]) : [];
  if (t.rolls >= tRerolls() + 1) {
    showError(new Error("no rerolls left: write a box (undo corrects the roll)"), "#table-message");
    return;
  }
  const dice = [...keep, ...values];
  if (dice.length !== tDice()) {
    showError(new Error(`${values.join("")}: ${tDice() - keep.length} dice to enter`), "#table-message");
    return;
  }
  tPush();
  const rec = t.records && t.records[t.turn];
  const sorted = [...dice].sort((a, b) => a - b);
  if (rec && t.rolls) {  // a reroll: the hold was the decision
    const held = [...keep].sort((a, b) => a - b);
    rec.push(`${posText()} => keep ${held.length ? held.join(" ") : "-"}`, `~> rolled: dice ${sorted.join(" ")}`);
  } else if (rec && rec.length > 1) {  // a turn's first roll: what the last box's write rolled
    rec[rec.length - 1] = rec[rec.length - 1].replace(/(rolled:? (?:dice )?)[\d ]+$/, `$1${sorted.join(" ")}`);
  }
  t.dice = dice.sort((a, b) => a - b);
  t.rolls += 1;
  t.hold = [];
  showError(null);
  await tableRefresh();
}
function needDice() {
  const t = TB.t;
  return t.dice.length && t.rolls ? tDice() - t.hold.length : tDice();
}
function tableKeys(keys) {
  const t = TB.t;
  if (!t || t.over) return;
  for (const k of keys) {
    if (k === "Backspace") { TB.entry.pop(); continue; }
    const f = faceOf(k);
    if (f === null) continue;
    TB.entry.push(f);
  }
  if (TB.entry.length >= needDice()) {
    const values = TB.entry.slice(0, needDice());
    TB.entry = [];
    tableDice(values);
  } else renderTable();
}
// a hold chosen (an action of the advice, or a tap on a die): the other dice are rerolled
function tableHold(indices) {
  const t = TB.t;
  if (!t || t.over || !t.dice.length || t.rolls > tRerolls()) return;
  t.hold = [...indices].sort((a, b) => a - b);
  TB.entry = [];
  tableSave();
  renderTable();
  const input = $("#table-roll");
  if (input && !S.pointer) input.focus();
}
function toggleHold(i) {
  const t = TB.t;
  const held = new Set(t.hold);
  if (held.has(i)) held.delete(i); else held.add(i);
  tableHold(held);
}
function chooseTableAction(action) {
  const t = TB.t;
  if (catOf(action)) { writeWithDice(catOf(action)); return; }
  const kept = heldIndices(action, t.dice);
  if (kept) tableHold(kept);
}
// The advice's record of a move (for the end: what each player's choices cost).
function moveRecord(action) {
  const a = advNow();
  if (!a) return null;
  const mine = a.actions.find((x) => catOf(x.action) === action);
  const expBest = Math.max(...a.actions.map((x) => (x.expected ?? -Infinity)));
  return mine ? { chance: a.actions[0].value - mine.value, points: mine.expected !== null && mine.expected !== undefined ? expBest - mine.expected : 0 } : null;
}
async function writeWithDice(cat) {
  const t = TB.t;
  if (TB.applying) return;
  const before = t.sheets[t.turn];
  const where = posText();
  TB.applying = true;
  try {
    const a = advNow();
    const act = (a && a.actions.find((x) => catOf(x.action) === cat)) || { action: `score ${cat}` };
    const step = await api("/api/apply", { game: tId(), variant: t.variant, position: tPosition(), action: act.action });
    const after = step.position_json;
    const upper = (tSheetInfo().upper || []).includes(cat);
    const points = upper && typeof after.upper === "number" ? after.upper - before.upper : after.score - before.score;
    const rec = moveRecord(cat);
    tPush();
    const sheet = { filled: after.filled, upper: after.upper, score: after.score };
    if ("yahtzee_bonus" in after) sheet.yahtzee_bonus = after.yahtzee_bonus;
    t.sheets[t.turn] = sheet;
    t.pts[t.turn][cat] = points;
    t.moves.push({ player: t.turn, box: cat, points, dice: [...t.dice], cost: rec });
    const record = t.records && t.records[t.turn];
    if (record) {
      record.push(`${where} ${a && a.actions.length === 1 ? "->" : "=>"} ${act.action}`);
      const events = (step.events || []).map((e) => e.replace(/\s+/g, " ").trim()).filter(Boolean);
      if (!step.game_over) record.push(`~> ${events.join("; ") || "-"}`);
      else if (events.length) record.push(`~> ${events.join("; ")}`);
    }
  } catch (err) { TB.applying = false; showError(err, "#table-message"); return; }
  TB.applying = false;
  await nextTurn();
}
// A box written by hand (no dice entered): its points, checked against what the box can
// score; "P+B" adds a further Yahtzee's bonus B where the rules give one (American: once
// the Yahtzee box holds its points), and the Yahtzee box written with its points is
// remembered for the advice.
async function writeByHand(cat, text) {
  const t = TB.t;
  const info = tSheetInfo();
  const before = t.sheets[t.turn];
  const parts = /^\s*(-?\d+)\s*(?:\+\s*(\d+))?\s*$/.exec(String(text));
  const points = parts ? Number(parts[1]) : NaN;
  const extra = parts && parts[2] !== undefined ? Number(parts[2]) : 0;
  const ok = TB.boxes[cat];
  if (!parts) {
    showError(new Error(`${pretty(cat)}: type the points, e.g. ${ok ? ok[ok.length - 1] : 12}`), "#table-message");
    return false;
  }
  if (parts[2] !== undefined && !(info.yahtzee_bonus && before.yahtzee_bonus && extra === info.yahtzee_bonus)) {
    const why = info.yahtzee_bonus ? `+${info.yahtzee_bonus} is a further Yahtzee's bonus, once the ${pretty(info.yahtzee)} box holds ${info.yahtzee_points}` : "these rules give no bonus for a further Yahtzee";
    showError(new Error(`${pretty(cat)}: ${why}`), "#table-message");
    return false;
  }
  if (ok && !ok.includes(points)) {
    const shown = ok.length > 8 ? `${ok.slice(0, 4).join(", ")}, …, ${ok[ok.length - 1]}` : ok.join(", ");
    showError(new Error(`${pretty(cat)} cannot score ${points} (it scores ${shown})`), "#table-message");
    return false;
  }
  const upper = (info.upper || []).includes(cat);
  const sheet = { ...before, filled: [...before.filled, cat] };
  if (upper) sheet.upper = before.upper + points;
  if (info.yahtzee && cat === info.yahtzee && points === info.yahtzee_points) sheet.yahtzee_bonus = true;
  let bonus = extra;
  if (upper && info.bonus_threshold && before.upper < info.bonus_threshold && sheet.upper >= info.bonus_threshold) bonus += info.bonus || 0;
  sheet.score = before.score + points + bonus;
  tPush();
  t.sheets[t.turn] = sheet;
  t.pts[t.turn][cat] = points;
  t.moves.push({ player: t.turn, box: cat, points, dice: [], cost: null });
  if (t.records) t.records[t.turn] = null;  // a box written by hand: no dice, no review
  TB.writing = null;
  showError(null);
  await nextTurn();
  return true;
}
async function nextTurn() {
  const t = TB.t;
  t.done += 1;
  t.dice = [];
  t.rolls = 0;
  t.hold = [];
  TB.adv = null;
  TB.entry = [];
  if (t.sheets.every(isFull)) {
    t.over = true;
    const top = Math.max(...t.sheets.map((s) => s.score));
    const k = t.sheets.filter((s) => s.score === top).length;
    t.chances.push({ at: t.done, p: t.sheets.map((s) => (s.score === top ? 1 / k : 0)), e: t.sheets.map((s) => s.score) });
    tableSave();
    renderTable();
    tableReview();
    return;
  }
  t.turn = (t.turn + 1) % t.names.length;
  while (isFull(t.sheets[t.turn])) t.turn = (t.turn + 1) % t.names.length;
  try {
    const data = await api(tApi("chances"), tBody({ to_move: t.turn }));
    TB.boxes = data.boxes || TB.boxes;
    t.chances.push({ at: t.done, p: data.players.map((p) => p.chance), e: data.players.map((p) => p.expected_final) });
  } catch (err) { showError(err, "#table-message"); }
  tableSave();
  renderTable();
  const input = $("#table-roll");
  if (input && !S.pointer) input.focus({ preventScroll: true });
}

// --- drawing ----------------------------------------------------------------------------
function tableSetup() {
  const kept = TB.t ? TB.t.names : ["Anna", "Bo", "Cy"];
  const rows = Array.from({ length: 6 }, (_, i) => el("input", {
    type: "text", class: "seat", maxlength: "40", "aria-label": `player ${i + 1}`, placeholder: `player ${i + 1}${i < 2 ? "" : " (optional)"}`,
    value: kept[i] || "",
  }));
  const form = el("form", { id: "table-setup", class: "group table-setup" },
    el("h2", { text: "Start a table" }),
    el("p", { class: "units", text: "2 to 6 players, in seating order; the rules are the variant above (or a rule file)." }),
    el("div", { class: "seats" }, ...rows),
    el("div", { class: "bar" }, el("button", { type: "submit", id: "table-start", class: "primary", text: "Start the table" }),
      TB.t ? el("button", { type: "button", id: "table-cancel", text: "Back to the table", onclick: () => { TB.setup = false; renderTable(); } }) : ""));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const names = rows.map((r) => r.value.trim()).filter(Boolean);
    if (names.length < 2) { showError(new Error("a table has 2 to 6 players: name at least two"), "#table-message"); return; }
    if (new Set(names).size !== names.length) { showError(new Error("every player needs a name of their own"), "#table-message"); return; }
    TB.setup = false;
    startTable(names, S.variant);
  });
  return form;
}
function tableStrip() {
  const t = TB.t;
  const ch = lastChances();
  return el("div", { id: "table-strip", class: "table-strip", role: "list", "aria-label": "every player's total and chance of winning" },
    ...t.names.map((name, i) => el("div", {
      class: `seat-chip${i === t.turn && !t.over ? " mover" : ""}`, role: "listitem", "data-player": String(i),
      "data-chance": ch ? String(ch[i]) : "",
    }, el("span", { class: "name", text: name }), el("strong", { class: "total", text: num(t.sheets[i].score) }),
    el("span", { class: "chance", text: ch ? pct(ch[i]) : "…" }))));
}
function diceRow() {
  const t = TB.t;
  const held = new Set(t.hold);
  const canHold = t.dice.length && t.rolls <= tRerolls();
  const shown = t.dice.map((v, i) => dieButton(v, {
    class: `die${held.has(i) ? " held" : ""}`, "data-index": String(i), "aria-pressed": String(held.has(i)),
    title: canHold ? (held.has(i) ? "held: tap to reroll it" : "tap to hold") : "", onclick: canHold ? () => toggleHold(i) : null,
  }));
  const typed = TB.entry.map((v) => dieButton(v, { class: "die entry", disabled: "" }));
  return el("div", { id: "table-dice", class: "dice table-dice", "data-dice": t.dice.join("") }, ...shown, ...(typed.length ? [el("span", { class: "units", text: " + " }), ...typed] : []));
}
function entryForm() {
  const t = TB.t;
  const left = tRerolls() + 1 - t.rolls;
  const need = needDice();
  const what = !t.dice.length ? `${t.names[t.turn]}'s roll` : t.hold.length ? `the ${need} rerolled dice` : "a reroll of all dice";
  const form = el("form", { id: "table-entry", class: "roll-entry" },
    el("input", { id: "table-roll", type: "text", inputmode: "numeric", autocomplete: "off", placeholder: `${what}: ${"13356".slice(0, need)}`, "aria-label": `${what} (the dice)` }),
    el("button", { type: "submit", text: "Set" }));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const text = $("#table-roll").value.replace(/[^0-9]/g, "");
    const values = [...text].map(faceOf);
    if (!values.length || values.some((v) => v === null)) { showError(new Error(`${text || "nothing"}: type the dice, e.g. ${"13356".slice(0, need)}`), "#table-message"); return; }
    $("#table-roll").value = "";
    TB.entry = [];
    tableDice(values);
  });
  const pad = el("div", { class: "face-pad", role: "group", "aria-label": "tap the dice" },
    ...faces().map((f) => dieButton(f, { class: "die pad", title: `enter a ${num(f)}`, onclick: () => tableKeys([num(f)]) })));
  return left > 0 ? el("div", { class: "table-entry" }, form, pad) : el("p", { class: "units", text: "No rerolls left: write a box." });
}
function actionWords(action, dice) {
  const cat = catOf(action);
  if (cat) return `Score ${pretty(cat)}${advNow() && TB.points && cat in TB.points ? ` for ${num(TB.points[cat])}` : ""}`;
  const kept = heldIndices(action, dice);
  if (!kept) return action;
  return kept.length ? `Keep ${kept.map((i) => num(dice[i])).join(" ")}` : "Reroll all";
}
function bestBox() {
  const t = TB.t;
  const a = advNow();
  const box = el("div", { id: "table-best", class: "best-move table-best", "aria-live": "polite" });
  if (!t.dice.length) {
    box.append(el("p", { class: "units", text: `Enter ${t.names[t.turn]}'s dice for advice, or tap a box of their column to write it.` }));
    return box;
  }
  if (!a) { box.append(el("p", { class: "units", id: "table-status", text: "working…" })); return box; }
  const c = a.table;
  const byAction = Object.fromEntries(a.actions.map((x) => [x.action, x]));
  const exp = byAction[c.best_for_expected];
  const win = byAction[c.best_to_win];
  box.dataset.action = c.best_to_win;
  box.dataset.expected = c.best_for_expected;
  box.dataset.differ = String(c.differ);
  const line = (tag, x, id, note) => el("div", { class: "best-line" }, el("span", { class: "tag", text: tag }),
    el("button", { type: "button", class: "primary", id, "data-action": x.action, text: actionWords(x.action, t.dice), onclick: () => chooseTableAction(x.action) }),
    el("span", { class: "value", text: note }));
  const expText = (x) => (x && x.expected !== null && x.expected !== undefined ? `${pts(x.expected, 1)} exp.` : "");
  if (!c.differ) {
    box.append(line("Best", win, "table-best-move", `${pct(win.value)} to win · ${expText(win)}`));
    box.append(el("p", { class: "units", text: "The best move for the expected score is also the best to win." }));
  } else {
    box.append(line("To win", win, "table-best-move", `${pct(win.value)} to win · ${expText(win)}`));
    box.append(line("For score", exp, "table-best-expected", `${pct(exp.value)} to win · ${expText(exp)}`));
    box.append(el("p", { class: "differ", id: "table-differ",
      text: `They differ: playing for the score loses ${pct(c.chance_lost_by_expected)} chance of winning; playing to win loses ${pts(c.points_lost_by_win)} expected points.` }));
  }
  const others = a.actions.filter((x) => x.action !== c.best_to_win && x.action !== c.best_for_expected).slice(0, 3);
  if (others.length) {
    box.append(el("div", { class: "next-best", role: "group", "aria-label": "next best, with the chance each loses" },
      ...others.map((x) => el("button", { type: "button", class: "alt", "data-action": x.action, onclick: () => chooseTableAction(x.action) },
        el("span", { text: actionWords(x.action, t.dice) }), el("small", { class: "loss", text: ` −${pct(x.regret)}` })))));
  }
  if (!c.exact) box.append(el("p", { class: "units small", text: "Estimates (they err a little high)." }));
  return box;
}
// The scorepad: a row per box, a column per player; the upper sum with its progress to
// the bonus, the bonus, the total. The mover's open boxes are buttons: with the dice in, a
// tap writes them there; without, it asks for the points.
function scorepad() {
  const t = TB.t;
  const info = tSheetInfo();
  const upperSet = new Set(info.upper || []);
  const cats = tCats();
  const a = advNow();
  const byCat = a ? Object.fromEntries(a.actions.filter((x) => catOf(x.action)).map((x) => [catOf(x.action), x])) : {};
  const head = el("tr", {}, el("th", { text: "" }), ...t.names.map((n, i) => el("th", { class: i === t.turn && !t.over ? "mover" : "", text: n })));
  const boxRow = (cat) => el("tr", { "data-cat": cat }, el("td", { class: "cat", text: pretty(cat) }), ...t.names.map((_, i) => {
    const filled = t.sheets[i].filled.includes(cat);
    const td = el("td", { class: `num${i === t.turn && !t.over ? " mover" : ""}`, "data-player": String(i) });
    if (filled) { td.textContent = cat in t.pts[i] ? num(t.pts[i][cat]) : "✓"; return td; }
    if (i !== t.turn || t.over) return td;
    if (TB.writing === cat) {
      const input = el("input", { id: "table-points", type: "text", inputmode: "numeric", size: "3", "aria-label": `points in ${pretty(cat)}` });
      const f = el("form", { class: "points-form" }, input);
      f.addEventListener("submit", (e) => { e.preventDefault(); writeByHand(cat, input.value); });
      input.addEventListener("keydown", (e) => { if (e.key === "Escape") { TB.writing = null; renderTable(); } });
      td.append(f);
      setTimeout(() => input.focus(), 0);
      return td;
    }
    const act = byCat[cat];
    const b = el("button", { type: "button", class: `pad-box${a && act && act.action === a.table.best_to_win ? " best" : ""}`, "data-cat": cat,
      title: t.dice.length ? `write the dice in ${pretty(cat)}` : `write points in ${pretty(cat)}`,
      onclick: () => { if (t.dice.length) writeWithDice(cat); else { TB.writing = cat; renderTable(); } } });
    const got = a && TB.points && cat in TB.points ? num(TB.points[cat]) : "";
    b.textContent = act ? `${got ? `${got} ` : ""}${act.regret <= 1e-12 ? "best" : `−${pct(act.regret)}`}` : t.dice.length ? "·" : "+";
    td.append(b);
    return td;
  }));
  const rows = [head];
  const upper = cats.filter((c) => upperSet.has(c));
  rows.push(...upper.map(boxRow));
  if (upper.length) {
    const th = info.bonus_threshold;
    rows.push(el("tr", { class: "totals" }, el("td", { text: th ? `Sum (bonus at ${th})` : "Sum" }), ...t.sheets.map((s) => {
      const td = el("td", { class: "num", text: num(s.upper) });
      if (th) td.append(el("span", { class: "bar-track" }, el("span", { class: "bar-fill", style: `width:${Math.min(100, (100 * s.upper) / th)}%` })));
      return td;
    })));
    if (th) {
      rows.push(el("tr", { class: "totals bonus" }, el("td", { text: "Bonus" }), ...t.sheets.map((s) => {
        const left = upper.filter((c) => !s.filled.includes(c)).length;
        return el("td", { class: "num", text: s.upper >= th ? `+${info.bonus}` : left ? `−${th - s.upper}` : "0" });
      })));
    }
  }
  rows.push(...cats.filter((c) => !upperSet.has(c)).map(boxRow));
  rows.push(el("tr", { class: "totals total" }, el("td", { text: "Total" }), ...t.sheets.map((s, i) => el("td", { class: "num", "data-player": String(i), text: num(s.score) }))));
  return el("table", { id: "table-pad", class: "sheet scorepad" }, el("tbody", {}, ...rows));
}
function tableEnd() {
  const t = TB.t;
  const order = t.names.map((n, i) => i).sort((a, b) => t.sheets[b].score - t.sheets[a].score);
  const place = (i) => 1 + t.sheets.filter((s) => s.score > t.sheets[i].score).length;
  const box = el("section", { id: "table-end", class: "group" }, el("h2", { text: "The end" }),
    el("ol", { id: "table-ranking", class: "ranking" }, ...order.map((i) => el("li", { "data-player": String(i), value: String(place(i)) },
      el("strong", { text: t.names[i] }), ` ${num(t.sheets[i].score)}`,
      t.reviews ? reviewLine(t.reviews[i]) : el("small", { class: "units", text: " · working out the luck and the skill…" })))),
    el("p", { class: "units small", text: "Luck and skill (exact, as the solo review): the expected score from the start, plus the luck of the rolls, minus what the choices cost against the best for the expected score, is the result." }));
  return box;
}
// Each player's exact luck and skill (the solo review's split, POST /api/analyse, of the
// player's own rolls and moves): expected start + luck - cost = result.
async function tableReview() {
  const t = TB.t;
  if (!t || !t.over || !t.records || t.reviews) return;
  const out = [];
  for (let i = 0; i < t.names.length; i++) {
    const rec = t.records[i];
    if (!rec) { out.push({ missing: "a box was written by hand (no dice): no review" }); continue; }
    try {
      const data = await api("/api/analyse", { game: tId(), variant: t.variant, record: [...rec, `= ${num(t.sheets[i].score)}`].join("\n") });
      out.push(data.expected_start === null ? { missing: (data.luck_missing || [])[0] || "no review" }
        : { start: data.expected_start, luck: data.luck, cost: data.cost, result: data.result, costliest: data.costliest_decision });
    } catch (err) { out.push({ missing: String(err.message || err) }); }
  }
  if (TB.t !== t) return;
  t.reviews = out;
  tableSave();
  renderTable();
}
function reviewLine(r) {
  if (!r) return "";
  if (r.missing) return el("small", { class: "units review-line", text: ` · ${r.missing}` });
  const sign = (x) => (x < 0 ? `− ${pts(-x, 1)}` : `+ ${pts(x, 1)}`);
  return el("small", { class: "review-line", text: ` · expected ${pts(r.start, 1)} ${sign(r.luck)} luck − ${pts(r.cost, 1)} cost = ${pts(r.result, 0)}` });
}
function tableChart() {
  const t = TB.t;
  if (!t.chances.length) return "";
  const box = el("section", { id: "table-chart", class: "group chart", "data-points": String(t.chances.length) },
    el("h2", { text: "Chance of winning over the game" }));
  const div = el("div");
  div.innerHTML = DiceoptDraw.chancesChart(t.chances, t.names);
  box.append(div);
  return box;
}
function renderTable() {
  const view = $("#table-view");
  if (!view) return;
  const t = TB.t;
  const bar = el("div", { class: "bar play-bar" },
    el("button", { type: "button", id: "table-new-game", text: "New game", title: "the same players and rules, empty sheets", disabled: t ? null : "",
      onclick: () => startTable(t.names, t.variant) }),
    el("button", { type: "button", id: "table-new", text: "New table", title: "other players or other rules", onclick: () => { TB.setup = true; renderTable(); } }),
    el("button", { type: "button", id: "table-undo", class: "icon", "aria-label": "undo", title: "undo (Ctrl+Z)", disabled: TB.undo.length ? null : "", onclick: tableUndo }, "↶"),
    el("button", { type: "button", id: "table-redo", class: "icon", "aria-label": "redo", title: "redo (Ctrl+Y)", disabled: TB.redo.length ? null : "", onclick: tableRedo }, "↷"));
  const message = el("p", { id: "table-message", class: "message", role: "alert", hidden: "" });
  const old = $("#table-message");
  if (old && !old.hidden) { message.textContent = old.textContent; message.hidden = false; }
  if (!t || TB.setup) {
    view.replaceChildren(bar, message, tableSetup());
    return;
  }
  const mover = t.names[t.turn];
  const rollNo = Math.min(t.rolls, tRerolls() + 1);
  const turnLine = t.over ? el("p", { id: "table-turn", class: "table-turn", text: "Game over." })
    : el("p", { id: "table-turn", class: "table-turn", "data-player": String(t.turn) }, el("strong", { text: mover }),
      ` to move · ${t.rolls ? `roll ${rollNo} of ${tRerolls() + 1}` : "first roll"} · ${tTitle()}`);
  const parts = [bar, tableStrip(), el("p", { id: "table-model", class: "units small", text: TABLE_MODEL }), turnLine, message];
  const pad = el("div", { class: "scorepad-wrap" }, scorepad());
  // the turn (dice, entry, best move) beside the scorepad where the screen is wide enough
  if (!t.over) parts.push(el("div", { class: "table-cols" }, el("div", { class: "table-play" }, diceRow(), entryForm(), bestBox()), pad));
  else parts.push(tableEnd(), tableChart(), pad);
  if (!t.over && t.chances.length > 1) parts.push(tableChart());
  view.replaceChildren(...parts);
  view.dataset.turn = String(t.turn);
  view.dataset.done = String(t.done);
  view.dataset.over = String(t.over);
  view.dataset.busy = String(TB.busy);
}
// The table mode opens: the table of the URL (``encoded``), else the one kept in this
// browser, else the setup.
async function tableShow(encoded = null) {
  if (!TB.t) {  // this browser's table, with its undo and redo
    const saved = tableLoad();
    if (saved && saved.t) { TB.t = saved.t; TB.undo = saved.undo || []; TB.redo = saved.redo || []; }
  }
  if (encoded) {  // the URL's table (this browser's own, after a reload; else undo goes back to it)
    try {
      const t = JSON.parse(fromB64(encoded));
      if (!TB.t || tSnap() !== JSON.stringify(t)) {
        if (TB.t) tPush();
        TB.t = t;
      }
    } catch (e) { showError(new Error("this table link is damaged"), "#table-message"); }
  }
  const t = TB.t;
  if (t && t.rules && !(t.variant in S.ruleTexts)) {
    try {
      const entry = await api("/api/rules", { game: tId(), rules: t.rules });
      addRuleFile(tId(), entry, t.rules);
      t.variant = entry.id;
    } catch (err) { showError(err, "#table-message"); }
  }
  TB.boxes = {};
  renderTable();
  if (t) { tableSave(); await tableRefresh(); }
  if (t && t.over) tableReview();
}
