// diceopt page, 4/5: drawing a game in play: dice, the best move, the score sheet,
// a tiles board's box, the scoreboard, both sheets, the chart and the summary.
"use strict";
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
  } else if (best.action === "bust") {
    words = "Bust: nothing scores, the turn total is lost";  // a roll that scores nothing: the one move
  }
  const go = el("button", { type: "button", id: "play-best", class: "primary", "data-action": best.action,
    text: words, onclick: () => choose(best) });
  const value = el("span", { class: "value", text: `${valueText(best.value, p.valueIs)} ${shortUnits(p.valueIs)}` });
  const others = opts.slice(1, 4).map((o) => el("button", { type: "button", class: "alt", "data-action": o.action,
    title: `${o.action}: loses ${valueText(o.regret, p.valueIs)}`, onclick: () => choose(o) },
  el("span", { text: o.action }), el("small", { class: "loss", text: ` −${lossText(o.regret, p.valueIs)}` })));
  // a forced move (e.g. a bust) is the only move, not the best of several
  box.replaceChildren(el("div", { class: "best-line" }, el("span", { class: "tag", text: opts.length > 1 ? "Best" : "Only move" }), go, value),
    winHint(p, best),
    others.length ? el("div", { class: "next-best", role: "group", "aria-label": "next best, with what each loses" }, ...others) : "");
}
// Against the computer: the best move to beat it (p._win, its advice with the computer as
// the opponent), one compact line; where it is not the best move for the score, by how
// much it raises the chance of winning and what it costs in expected points.
function winHint(p, best) {
  const w = p._win;
  if (!p.duel || !w || w.position !== p.position || !w.actions.length) return "";
  const top = w.actions[0];
  const same = w.actions.find((a) => a.action === best.action);
  const line = el("p", { class: "win-hint", id: "win-hint", "data-action": top.action, "data-value": top.value });
  const tag = el("span", { class: "tag", text: "To win" });
  if (!same || top.value - same.value <= 1e-9) {
    line.dataset.same = "true";
    const p0 = same ? same.value : top.value;
    line.title = `the best move for the score is also the best to beat the computer: ${pct(p0)} to win (estimate)`;
    line.append(tag, ` the same move · ${pct(p0)} to win`);
    return line;
  }
  const gain = top.value - same.value;
  const cost = best.value - (top.expected ?? best.value);
  Object.assign(line.dataset, { same: "false", gain: String(gain), cost: String(cost) });
  line.title = `to beat the computer ${top.action} is better: ${pct(top.value)} to win (estimate), ` +
    `${pct(gain)} more than ${best.action}, for ${pts(cost)} fewer expected points`;
  line.append(tag, " ", el("strong", { text: top.action }), ` · ${pct(top.value)} win (+${pct(gain)}) · −${pts(cost)} pts`);
  return line;
}
// The solvers' words for a model of play (risk tables, theta) in a player's words, for
// the small print: a table of "theta" != 0 plays a little bolder or more carefully than
// for the expected score.
function plainWords(text) {
  return String(text)
    .replace(/the opponent of --opponent/g, "the opponent")
    .replace(/risk[- ]sensitive tables?/g, "bolder or more careful styles of play")
    .replace(/risk tables?/g, "styles of play")
    .replace(/\btheta (?:of )?[-+]?\d*\.?\d+/g, "a bolder or more careful style")
    .replace(/\btheta\b/g, "boldness");
}
const fmtValue = (x) => (Math.abs(x) < 5e-10 ? "0" : Math.abs(x) >= 100 ? x.toFixed(1) : Math.abs(x) >= 1 ? x.toFixed(2) : x.toFixed(4));
// A value (or a regret) of the game's units as the play board shows it: a probability as
// a percentage (``pct``), points as ``fmtValue``; a loss of at least 0.01 point with 2 decimals.
const valueText = (x, units) => (isProbability(units) ? pct(x) : fmtValue(x));
const lossText = (x, units) => (isProbability(units) ? pct(x) : x >= 0.01 ? pts(x) : fmtValue(x));
const shortUnits = (u) => (!u ? "" : /probab/.test(u) ? "(win chance)" : /score|points/.test(u) ? "expected" : "");
const LABELS = { me: "You", opponent: "Opponent", turn: "Turn total", rerolls: "Rerolls left", roll: "Roll",
  points: "Points", player: "Player", saved: "Saved rerolls" };
// Fields of the position the board does not draw: a scoreboard (e.g. both scores, the
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
// The points a box of the sheet holds once the dice are written there (``before``,
// ``after``: the side's JSON form around the write): for an upper box the change of the
// upper total (the bonus it may earn shows once, in the bonus row), else the change of
// the score; null where the forms give no score.
function boxPoints(cat, before, after) {
  if (!before || !after || typeof before.score !== "number" || typeof after.score !== "number") return null;
  const upper = (variant().sheet || {}).upper || [];
  if (upper.includes(cat) && typeof before.upper === "number" && typeof after.upper === "number") {
    return after.upper - before.upper;
  }
  return after.score - before.score;
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
    if (action && opts.hints) label.append(el("small", { text: action.regret > 1e-9 ? `−${valueText(action.regret, S.play && S.play.valueIs)}` : "best" }));
    const shown = isFilled ? (cat in written ? num(written[cat]) : "✓") : cat in points ? num(points[cat]) : "";
    return el("tr", { class: isFilled ? "filled" : "open", "data-cat": cat },
      el("td", { class: "cat" }, label), el("td", { class: "num points", "data-cat": cat, text: shown }));
  };
  const cats = categories();
  const upper = cats.filter((c) => upperSet.has(c));
  const lower = cats.filter((c) => !upperSet.has(c));
  const tables = [];
  let bonusGot = 0;
  if (upper.length) {
    const known = upper.filter((c) => filled.has(c));
    // the upper sum, without the bonus (the position's upper total where it has one)
    const sum = typeof json.upper === "number" ? json.upper
      : known.every((c) => c in written) ? known.reduce((a, c) => a + written[c], 0) : null;
    const th = info.bonus_threshold;
    const faceOfCat = (c) => (info.upper_faces || [])[upper.indexOf(c)];
    const par = known.every((c) => faceOfCat(c)) ? known.reduce((a, c) => a + 3 * faceOfCat(c), 0) : null;
    const foot = [el("tr", { class: "totals" }, el("td", { text: "Sum" }),
      el("td", { class: "num", id: opts.id ? `${opts.id}-upper` : null, text: th ? `${num(sum ?? 0)}/${th}` : num(sum ?? 0) }))];
    if (th) {
      const got = (sum ?? 0) >= th;
      if (got) bonusGot = info.bonus || 0;
      const left = upper.filter((c) => !filled.has(c)).length;
      const status = got ? `+${info.bonus}` : left ? `needs ${th - (sum ?? 0)}` : "0";
      const bar = el("span", { class: "bar-track" }, el("span", { class: "bar-fill", style: `width:${Math.min(100, (100 * (sum ?? 0)) / th)}%` }));
      foot.push(el("tr", { class: "totals bonus" }, el("td", {}, el("span", { text: `Bonus${known.length && par !== null && sum !== null ? ` (par ${sum - par >= 0 ? "+" : ""}${sum - par})` : ""}` }), bar),
        el("td", { class: "num", id: opts.id ? `${opts.id}-bonus` : null, text: status })));
    }
    tables.push(el("table", { class: "sheet upper" }, el("tbody", {}, ...upper.map(row), ...foot)));
  }
  const totals = [el("tr", { class: "totals" }, el("td", { text: "Total" }), el("td", { class: "num total", text: num(json.score ?? 0) }))];
  if (opts.expected !== undefined && opts.expected !== null) {
    totals.push(el("tr", { class: "totals expected" }, el("td", { text: "Expected final" }),
      el("td", { class: "num", id: opts.id ? `${opts.id}-expected` : null, text: Number.isInteger(opts.expected) ? num(opts.expected) : pts(opts.expected, 1) })));
  }
  // points of the score no box holds (e.g. a Yahtzee bonus), once every filled box is known
  const boxes = [...filled];
  if (typeof json.score === "number" && boxes.length && boxes.every((c) => c in written)) {
    const extra = json.score - bonusGot - boxes.reduce((a, c) => a + written[c], 0);
    if (Math.abs(extra) > 1e-9) {
      totals.unshift(el("tr", { class: "totals extra" }, el("td", { text: cats.includes("yahtzee") ? "Yahtzee bonus" : "Extra points" }),
        el("td", { class: "num", id: opts.id ? `${opts.id}-extra` : null, text: `+${num(extra)}` })));
    }
  }
  if (tables.length) tables[0].querySelector("tbody").append(...totals);
  tables.push(el("table", { class: "sheet lower" }, el("tbody", {}, ...lower.map(row), ...(tables.length ? [] : totals))));
  return el("div", { class: "sheet-cols" }, ...tables);
}
// A tiles board: the tiles in their box, open ones up, shut ones down.
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
  else if (!again) focusPlay();
}
// After a move (``S.refocus``, set by ``choose``) the keyboard goes on where play goes on
// once the next decision is drawn: the best move, else the dice, the first action, or New
// game at the end; not where the user has put the focus meanwhile. After a tap the page
// does not scroll to it.
function focusPlay() {
  const p = S.play;
  if (!S.refocus || !p) return;
  const f = document.activeElement;
  if (f && f !== document.body && f.isConnected) { S.refocus = false; return; }
  if (!p.over && !(p._options || []).length) return;  // the answer is still on its way
  const target = $("#play-best") || $("#play-dice button.die:not([disabled])") || $("#play-options button")
    || $("#play-sheet button.option") || $("#new-game");
  S.refocus = false;
  if (target) target.focus({ preventScroll: Boolean(S.pointer) });
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
  // a game that sets scoring dice aside ("set aside 1 5, roll 4"): those dice ringed too
  const bestAside = opts.length && !holds.size && hints && hasDice()
    ? new Set(asideIndices(opts[0].action, json.dice || []) || []) : new Set();
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
        "aria-label": `${num(v)}${held ? ", held" : ""}${bestHold.has(i) ? ", best to keep" : bestAside.has(i) ? ", best to set aside" : ""}`,
        title: holds.size ? "tap to hold" : "", disabled: holds.size ? null : "",
        onclick: () => { if (p._held.has(i)) p._held.delete(i); else p._held.add(i); renderPlay(); },
      });
      if (bestHold.has(i) || bestAside.has(i)) b.classList.add("best");
      dice.append(b);
    });
    pos.append(dice);
  }
  if (board() === "tiles") pos.append(tileBox(json));
  const colour = board() === "colour-dice";
  if (colour) pos.append(DiceoptDraw.colourDice(json));
  // the player to move is always the user here: no "player" field shown
  const board2 = scoreboard(json, [...(holds.size || p.over ? ["rerolls"] : []), "player",
    ...(colour ? ["shotguns", "feet", "aside"] : [])]);
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
    el("span", { text: !hold ? "Hold fewer" : held === "" ? "Reroll all" : "Reroll" }),
    el("small", { text: left }));
    b.disabled = !hold;
    if (hold && hints) b.append(el("small", { class: "loss", text: hold.regret > 1e-9 ? `loses ${valueText(hold.regret, p.valueIs)}` : "best" }));
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
  $("#play-events").replaceChildren(...p.events.map((e) => el("li", { class: e.cls, text: yourWords(e.text, otherPlayer(p)) })));
  $("#play-log tbody").replaceChildren(...p.log.map((r) => (r.kind === "mine"
    ? el("tr", { class: r.toWin ? "mine to-win" : "mine" }, el("td", { text: r.n }), el("td", { class: "you" }, r.action,
      ...(r.toWin ? [el("small", { class: "tag", title: "the best move to beat the computer, not for the expected score", text: " to win" })] : [])),
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
    probability: isProbability(p.valueIs || game().units),
  });
}
// The value optimal play expected, as the review's split gives it (``startOf``), and
// what the decisions cost: the same numbers, words and digits as the review's.
function renderSummary(p) {
  const box = $("#play-summary");
  box.hidden = !p.over;
  if (!p.over) return;
  const start = startOf(p);
  const units = (p.review && p.review.units) || p.valueIs || game().units;
  box.replaceChildren(
    el("strong", { text: game().one_turn ? "Turn over. " : "Game over. " }),
    el("span", { id: "final-result", text: p.finalText }),
    el("span", { text: `${start.label}: ` }),
    el("strong", { id: "summary-start", text: start.value === null ? start.pending ? "…" : "–" : inUnits(start.value, units) }),
    el("span", { text: `${isProbability(units) ? ` (${yourWords(units, otherPlayer(p))})` : ""}; your ${p.decisions} decision${p.decisions === 1 ? "" : "s"} cost ` }),
    el("strong", { id: "summary-cost", "data-value": String(p.cost), text: inUnits(p.cost, units) }),
    el("span", { text: " in expectation." }));
  box.dataset.decisions = p.decisions;
  if (start.value === null) delete box.dataset.start; else box.dataset.start = String(start.value);
}
// Both sheets, the computer's last turn and the user's chance of winning (exact for its
// model, which the small print names).
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
  box.replaceChildren(el("strong", { text: `You ${you} · computer ${them} · your chance of winning: ${pct(last)}` }),
    el("small", { class: "why", text: ` ${plainWords(d.estimateIs || "")}` }));
}
