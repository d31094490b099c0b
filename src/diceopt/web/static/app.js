// diceopt page, 5/5: typing dice, switching game, variant and mode, and the start.
// Every game, variant, example position, unit and player count comes from /api/games; a
// position is drawn by the board the API names (dice, dice-sheet, tiles) plus an input per
// other field of its JSON form, and any game can be played from its action buttons.
"use strict";
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
  if (S.mode === "table") {
    const t = e.target;
    if (e.ctrlKey || e.metaKey) {
      if (e.key === "z" || e.key === "Z") { e.preventDefault(); (e.shiftKey ? tableRedo : tableUndo)(); }
      else if (e.key === "y") { e.preventDefault(); tableRedo(); }
      return;
    }
    if (e.altKey || (t && (t.tagName === "INPUT" || t.tagName === "SELECT" || t.tagName === "TEXTAREA"))) return;
    if (e.key === "Backspace" || faceOf(e.key) !== null) { e.preventDefault(); tableKeys([e.key]); }
    return;
  }
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
  $("#variant").replaceChildren(...game().variants.map((v) => el("option", { value: v.id, text: v.id.startsWith(PASTED) ? `rule file: ${v.rules.name}` : v.title || v.id, title: v.description })));
  $("#variant").value = S.variant;
  $("#rules-box").hidden = !game().rule_files;
  $("#mode-table").hidden = !game().table;
  if (!game().table && S.mode === "table") setModeQuiet("advise");
  const file = game().variants.find((v) => v.id.startsWith(PASTED));
  $("#rules-text").value = file ? S.ruleTexts[file.id] : "";
  variantChanged(start);
}

// --- rule files (games with rule_files): pasted or uploaded, checked by /api/rules, kept
// in localStorage (one per game) and used as a variant of the game ---------------------------
const PASTED = "file:";
const RULES_STORE = "diceopt-rules";
const MAX_RULES = 20000; // characters, as the API takes
function savedRules() {
  try { return JSON.parse(localStorage.getItem(RULES_STORE) || "{}") || {}; } catch (e) { return {}; }
}
function keepRules(gameId, kept) {
  const all = savedRules();
  if (kept) all[gameId] = kept; else delete all[gameId];
  try { localStorage.setItem(RULES_STORE, JSON.stringify(all)); } catch (e) { /* full: kept for this visit */ }
}
function addRuleFile(gameId, entry, text) {
  const g = S.games[gameId];
  g.variants = g.variants.filter((v) => !v.id.startsWith(PASTED)).concat([entry]);
  S.ruleTexts[entry.id] = text;
}
async function useRules() {
  const text = $("#rules-text").value;
  if (!text.trim()) { showError(new Error("paste a rule file, or choose one to upload"), "#rules-message"); return; }
  if (text.length > MAX_RULES) { showError(new Error(`a rule file is at most ${MAX_RULES} characters`), "#rules-message"); return; }
  try {
    const entry = await api("/api/rules", { game: S.game, rules: text });
    addRuleFile(S.game, entry, text);
    keepRules(S.game, { text, entry });
    selectGame(S.game, entry.id);
    showError(null, "#rules-message");
  } catch (err) { showError(err, "#rules-message"); }
}
function clearRules() {
  const g = game();
  g.variants = g.variants.filter((v) => !v.id.startsWith(PASTED));
  keepRules(S.game, null);
  selectGame(S.game);
  showError(null, "#rules-message");
}
async function uploadRules(e) {
  const file = e.target.files && e.target.files[0];
  if (!file) return;
  if (file.size > MAX_RULES * 4) { showError(new Error(`${file.name}: a rule file is at most ${MAX_RULES} characters`), "#rules-message"); return; }
  $("#rules-text").value = await file.text();
  e.target.value = "";
  await useRules();
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
  opponentNote();
}
// One line on the opponent chosen: how the optimal player and the computer differ.
function opponentNote() {
  const v = $("#versus").hidden || $("#versus-label").hidden ? "" : $("#versus").value;
  const optimal = "plays the exact best move for its chance of winning; its moves show one at a time below";
  const text = v === "win" ? "The computer plays its whole turn after yours, to win; your chance of winning shows at each turn."
    : v === "expected" ? "The computer plays its whole turn after yours, for its own expected score, not to beat you."
      : players() < 2 ? "" : `The optimal player ${optimal}.`;
  $("#opponent-note").textContent = text;
}
function variantChanged(start = true) {
  $("#variant-description").textContent = `${game().title}, ${variant().description}`;
  $("#units").textContent = `value: ${game().units}`;
  $("#new-game").textContent = game().one_turn ? "New turn" : "New game";
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
  setModeQuiet(mode);
  S.entry = [];
  if (mode === "table") { save(); tableShow(); return; }
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
    for (const [gid, kept] of Object.entries(savedRules())) {
      if (S.games[gid] && S.games[gid].rule_files && kept && kept.entry && typeof kept.text === "string") addRuleFile(gid, kept.entry, kept.text);
    }
    $("#games").replaceChildren(...data.games.map((g) => el("button", {
      type: "button", "data-game": g.id, text: g.title, title: g.summary, onclick: () => selectGame(g.id),
    })));
    if (!data.games.length) throw new Error("no games available on this server");
    const hash = location.hash.slice(1);
    const h = new URLSearchParams(hash.includes("=") ? hash : "");
    const saved = loadSaved();
    if (saved && typeof saved.hints === "boolean") $("#hints").checked = saved.hints;
    if (h.get("mode") === "table" && tGame()) {
      // a table: the one of the URL (or, without one, the table kept in this browser)
      selectGame(tId(), saved && saved.game === tId() ? saved.variant : null, false);
      setModeQuiet("table");
      await tableShow(h.get("t"));
    } else if (h.get("game") && S.games[h.get("game")]) {
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
        } else if (pos) await openPlay(pos, h.get("vs"), h.get("computer"), pointsOf(h.get("pts")), pointsOf(h.get("cpts")));
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
      setModeQuiet(saved.mode === "play" || (saved.mode === "table" && saved.game === tId()) ? saved.mode : "advise");
      edited(false);
      if (S.mode === "table") await tableShow();
      else if (saved.play && S.mode === "play") {
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
  $("#rules-use").addEventListener("click", useRules);
  $("#rules-clear").addEventListener("click", clearRules);
  $("#rules-file").addEventListener("change", uploadRules);
  $("#mode-advise").addEventListener("click", () => setMode("advise"));
  $("#mode-play").addEventListener("click", () => setMode("play"));
  $("#mode-table").addEventListener("click", () => setMode("table"));
  $("#new-game").addEventListener("click", newGame);
  $("#undo").addEventListener("click", undo);
  $("#redo").addEventListener("click", redo);
  $("#versus").addEventListener("change", () => { opponentNote(); if (S.mode === "play") newGame(); });
  $("#hints").addEventListener("change", () => { if (S.play) renderPlay(); save(); });
  document.addEventListener("keydown", onKey);
  // how the last move was made: a tap or click, or the keyboard (focusPlay scrolls for keys only)
  document.addEventListener("pointerdown", () => { S.pointer = true; }, true);
  document.addEventListener("keydown", () => { S.pointer = false; }, true);
  document.body.dataset.ready = "true";
}
function setModeQuiet(mode) {
  S.mode = mode;
  for (const m of ["advise", "play", "table"]) {
    $(`#mode-${m}`).classList.toggle("on", mode === m);
    $(`#mode-${m}`).setAttribute("aria-selected", String(mode === m));
    $(`#${m}-view`).hidden = mode !== m;
  }
}
init();
