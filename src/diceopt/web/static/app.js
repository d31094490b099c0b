// diceopt advisor page: plain JS, no build step. Talks to the JSON API of the same server.
"use strict";
(() => {
  const $ = (sel, root = document) => root.querySelector(sel);
  function el(tag, attrs = {}, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (k === "text") e.textContent = v;
      else if (k === "class") e.className = v;
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v);
    }
    e.append(...kids);
    return e;
  }

  const UPPER = { ones: 1, twos: 2, threes: 3, fours: 4, fives: 5, sixes: 6 };
  const S = { games: {}, game: null, variant: null, mode: "advise", editors: {}, seq: 0, play: null };

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
  function showError(err) {
    const m = $("#message");
    m.hidden = !err;
    m.textContent = err ? String(err.message || err) : "";
  }
  const fmt = (x) => (Math.abs(x) < 5e-10 ? "0" : x.toFixed(4));
  const game = () => S.games[S.game];
  const params = () => (game().variants.find((v) => v.id === S.variant) || {}).parameters || {};
  const units = () => (game().variants.find((v) => v.id === S.variant) || game()).value_units;
  // Yatzy's category ids, in sheet order: the variant's rules as /api/games lists them.
  const categories = () => params().categories || [];

  // --- position editors (advise mode) ---------------------------------------------------
  function diceSpec() {
    if (S.game === "yatzy") return { n: 5, k: 6 };
    const p = params();
    const m = /^(\d+)d(\d+)$/i.exec(S.variant || "");
    return { n: p.dice || (m ? +m[1] : 3), k: p.sides || (m ? +m[2] : 6) };
  }
  function exampleDice(n) {
    const m = /dice\s+([\d\s]+)/.exec(game().position_example);
    const dice = m ? m[1].trim().split(/\s+/).map(Number) : [];
    return dice.length === n ? dice.sort((a, b) => a - b) : [];
  }
  function diceGroup(st) {
    const shown = el("div", { class: "row", id: "dice" });
    for (let i = 0; i < st.n; i++) {
      const v = st.dice[i];
      shown.append(el("button", {
        type: "button", class: v === undefined ? "die empty" : "die", "data-index": i,
        title: "remove", text: v === undefined ? "?" : v,
        onclick: () => { if (v !== undefined) { st.dice.splice(i, 1); changed(true); } },
      }));
    }
    const faces = el("div", { class: "row", id: "faces" });
    for (let f = 1; f <= st.k; f++) {
      faces.append(el("button", {
        type: "button", class: "die face", "data-face": f, text: f, title: `add a ${f}`,
        onclick: () => {
          if (st.dice.length >= st.n) st.dice.shift();
          st.dice.push(f);
          st.dice.sort((a, b) => a - b);
          changed(true);
        },
      }));
    }
    const clear = el("button", {
      type: "button", id: "clear-dice", text: "clear", onclick: () => { st.dice = []; changed(true); },
    });
    return el("div", { class: "group" }, el("h2", { text: "Dice: click faces to add, a die to remove" }),
      shown, faces, el("div", { class: "row" }, clear));
  }
  function pressButtons(id, title, values, current, pick) {
    const row = el("div", { class: "row", id });
    for (const v of values) {
      row.append(el("button", {
        type: "button", "data-value": v, "aria-pressed": String(v === current), text: v,
        onclick: () => pick(v),
      }));
    }
    return el("div", { class: "group" }, el("h2", { text: title }), row);
  }
  function yatzySheet(st) {
    const body = el("tbody");
    for (const cat of categories()) {
      const filled = cat in st.filled;
      const box = el("input", { type: "checkbox", class: "filled", "data-cat": cat });
      box.checked = filled;
      box.addEventListener("change", () => {
        if (box.checked) st.filled[cat] = 0; else delete st.filled[cat];
        changed(true);
      });
      const score = el("input", {
        type: "number", class: "cat-score", "data-cat": cat, min: 0, step: 1, "aria-label": `${cat} score`,
      });
      score.value = filled ? st.filled[cat] : "";
      score.disabled = !filled;
      score.addEventListener("input", () => { st.filled[cat] = Math.max(0, parseInt(score.value, 10) || 0); changed(false); });
      body.append(el("tr", { class: filled ? "filled" : "" },
        el("td", { text: cat.replace(/_/g, " ") }), el("td", {}, box), el("td", {}, score)));
    }
    const totals = el("td", { colspan: 3, id: "sheet-totals" });
    body.append(el("tr", { class: "totals" }, totals));
    return el("div", { class: "group" }, el("h2", { text: "Filled categories and their scores" }),
      el("table", { class: "sheet" }, body));
  }
  // Score so far includes the upper bonus once the upper total reaches the threshold, and
  // (American) Yahtzee bonus points; the position's upper total is uncapped.
  function yatzyTotals(st) {
    const p = params();
    let upper = 0;
    let score = st.extra || 0;
    for (const [cat, s] of Object.entries(st.filled)) {
      score += s;
      if (cat in UPPER) upper += s;
    }
    const bonus = upper >= (p.bonus_threshold ?? 63) ? (p.bonus ?? 50) : 0;
    return { upper, score: score + bonus, bonus };
  }
  const yahtzeeBonusTracked = () => params().style === "american" && (params().yahtzee_bonus || 0) > 0;
  const numberInput = (id, label, value, set) => el("label", {}, `${label} `, Object.assign(
    el("input", { type: "number", id, min: 0, step: 1, oninput: (e) => { set(e.target.value); changed(false); } }),
    { value }));

  const EDITORS = {
    stick: {
      init() {
        const spec = diceSpec();
        return { dice: exampleDice(spec.n).filter((f) => f <= spec.k), ...spec };
      },
      render: (st, box) => box.append(diceGroup(st)),
      position: (st) => (st.dice.length === st.n ? `dice ${st.dice.join(" ")}` : null),
    },
    yatzy: {
      init() {
        const spec = { n: params().dice || 5, k: params().sides || 6 };
        return { dice: exampleDice(spec.n), ...spec, rerolls: 2, filled: {}, extra: 0 };
      },
      render(st, box) {
        box.append(diceGroup(st),
          pressButtons("rerolls", "Rerolls left", [0, 1, 2], st.rerolls, (v) => { st.rerolls = v; changed(true); }),
          yatzySheet(st));
        if (yahtzeeBonusTracked()) {
          box.append(el("div", { class: "group row" },
            numberInput("yz-extra", "Yahtzee bonus points so far", st.extra || 0, (v) => {
              st.extra = Math.max(0, parseInt(v, 10) || 0);
            })));
        }
      },
      position(st) {
        const t = yatzyTotals(st);
        const totals = $("#sheet-totals");
        if (totals) totals.textContent = `upper ${t.upper}${t.bonus ? ` (bonus ${t.bonus})` : ""}, score ${t.score}`;
        if (st.dice.length !== st.n) return null;
        const filled = categories().filter((c) => c in st.filled).join(" ") || "-";
        let pos = `dice ${st.dice.join(" ")} | rerolls ${st.rerolls} | filled ${filled} | upper ${t.upper} | score ${t.score}`;
        if (yahtzeeBonusTracked() && "yahtzee" in st.filled) pos += ` | yahtzee-bonus ${st.filled.yahtzee === 50 ? "yes" : "no"}`;
        return pos;
      },
    },
    shutbox: {
      init() {
        const n = params().tiles || 9;
        return { tiles: n, open: new Set(Array.from({ length: n }, (_, i) => i + 1)), roll: "8", target: "" };
      },
      render(st, box) {
        const row = el("div", { class: "row", id: "tiles" });
        for (let t = 1; t <= st.tiles; t++) {
          row.append(el("button", {
            type: "button", class: "tile", "data-tile": t, "aria-pressed": String(st.open.has(t)), text: t,
            onclick: () => { if (st.open.has(t)) st.open.delete(t); else st.open.add(t); changed(true); },
          }));
        }
        const inputs = el("div", { class: "group row" },
          numberInput("sb-roll", "Roll (blank: not rolled yet)", st.roll, (v) => { st.roll = v; }));
        if (params().objective === "win") {
          inputs.append(numberInput("sb-target", "Player 1's score (for player 2)", st.target, (v) => { st.target = v; }));
        }
        box.append(el("div", { class: "group" }, el("h2", { text: "Open tiles (click to shut or open)" }), row), inputs);
      },
      position(st) {
        if (!st.open.size) return null;
        const open = [...st.open].sort((a, b) => a - b).join(" ");
        const target = params().objective === "win" && st.target !== "" ? ` | target ${st.target}` : "";
        return `open ${open}${st.roll === "" ? "" : ` | roll ${st.roll}`}${target}`;
      },
    },
    pig: {
      init: () => ({ me: 0, opponent: 0, turn: 0 }),
      render(st, box) {
        box.append(el("div", { class: "group row" },
          numberInput("pig-me", "My score", st.me, (v) => { st.me = v; }),
          numberInput("pig-opponent", "Opponent", st.opponent, (v) => { st.opponent = v; }),
          numberInput("pig-turn", "Turn total", st.turn, (v) => { st.turn = v; })));
      },
      position: (st) => `me ${st.me} | opponent ${st.opponent} | turn ${st.turn}`,
    },
  };
  function editorState() {
    const key = `${S.game}/${S.variant}`;
    if (!S.editors[key]) S.editors[key] = EDITORS[S.game] ? EDITORS[S.game].init() : {};
    return S.editors[key];
  }
  function renderEditor() {
    const box = $("#editor");
    box.replaceChildren();
    if (EDITORS[S.game]) EDITORS[S.game].render(editorState(), box);
  }
  let adviseTimer = null;
  function changed(rerender) {
    if (rerender) renderEditor();
    const pos = EDITORS[S.game] ? EDITORS[S.game].position(editorState()) : null;
    if (pos === null) {
      $("#advice tbody").replaceChildren();
      return;
    }
    $("#position").value = pos;
    clearTimeout(adviseTimer);
    adviseTimer = setTimeout(advise, 120);
  }

  async function advise() {
    const seq = ++S.seq;
    const position = $("#position").value;
    const tbody = $("#advice tbody");
    $("#advice").setAttribute("aria-busy", "true");
    const slow = setTimeout(() => { if (seq === S.seq) $("#status").hidden = false; }, 400);
    try {
      const data = await api("/api/advice", { game: S.game, variant: S.variant, position });
      if (seq !== S.seq) return;
      showError(null);
      tbody.replaceChildren(...data.actions.map((a, i) => el("tr", {
        class: a.regret <= 1e-9 ? "best" : "", "data-action": a.action, "data-value": a.value,
        "data-regret": a.regret,
      }, el("td", { text: i + 1 }), el("td", { class: "action", text: a.action }),
      el("td", { class: "num value", text: fmt(a.value), title: String(a.value) }),
      el("td", { class: "num regret", text: fmt(a.regret), title: String(a.regret) }))));
      $("#advice").dataset.position = position;
    } catch (err) {
      if (seq !== S.seq) return;
      tbody.replaceChildren();
      showError(err);
    } finally {
      clearTimeout(slow);
      if (seq === S.seq) {
        $("#advice").removeAttribute("aria-busy");
        $("#status").hidden = true;
      }
    }
  }

  // --- play mode ------------------------------------------------------------------------
  function renderPosition(position) {
    const box = $("#play-position");
    box.replaceChildren();
    box.dataset.position = position;
    for (const part of position.split("|").map((p) => p.trim())) {
      const [word, ...rest] = part.split(/\s+/);
      if (word === "dice" && rest[0] !== "-") {
        box.append(...rest.map((v) => el("span", { class: "die", text: v })));
      } else if (word === "open") {
        box.append(el("span", { class: "chip", text: "open" }), ...rest.map((v) => el("span", { class: "die tile", text: v })));
      } else {
        box.append(el("span", { class: "chip", text: part }));
      }
    }
  }
  function neutralOrder(actions) {
    const cats = categories();
    const key = (a) => {
      const [verb, ...rest] = a.split(" ");
      if (verb === "score") return [1, cats.indexOf(rest[0]), a];
      return [0, rest.length, a];
    };
    return [...actions].sort((x, y) => {
      const kx = key(x.action);
      const ky = key(y.action);
      for (let i = 0; i < 3; i++) if (kx[i] !== ky[i]) return kx[i] < ky[i] ? -1 : 1;
      return 0;
    });
  }
  function nextSeed(p) {
    if (p.seed === null) return crypto.getRandomValues(new Uint32Array(1))[0];
    return p.seed + p.step++;
  }
  const scoreOf = (position) => {
    const m = /\|\s*score\s+(-?\d+(?:\.\d+)?)/.exec(position);
    return m ? +m[1] : null;
  };

  async function newGame() {
    const seedText = $("#seed").value.trim();
    const p = {
      game: S.game, variant: S.variant, seed: seedText === "" ? null : Math.max(0, parseInt(seedText, 10) || 0),
      step: 0, position: null, options: [], decisions: 0, cost: 0, start: null, holds: 0, busy: false,
    };
    S.play = p;  // an older game still waiting for an answer sees S.play !== p and stops
    $("#play-options").replaceChildren();
    delete $("#play-options").dataset.turn;
    $("#play-position").replaceChildren();
    $("#play-log tbody").replaceChildren();
    $("#total-cost").textContent = "0";
    $("#play-summary").hidden = true;
    try {
      const res = await api("/api/new", { game: p.game, variant: p.variant, seed: nextSeed(p) });
      if (S.play === p) await showTurn(p, res.position);
      showError(null);
    } catch (err) { showError(err); }
  }
  async function showTurn(p, position) {
    p.position = position;
    renderPosition(position);
    const data = await api("/api/advice", { game: p.game, variant: p.variant, position });
    if (S.play !== p) return;
    p.options = data.actions;
    if (p.start === null) p.start = data.actions[0].value;
    renderOptions();
  }
  function renderOptions() {
    const p = S.play;
    const box = $("#play-options");
    const hints = $("#hints").checked;
    box.dataset.turn = String(p.decisions);
    box.replaceChildren(...neutralOrder(p.options).map((o) => {
      const b = el("button", { type: "button", class: "option", "data-action": o.action, text: o.action,
        onclick: () => choose(o) });
      if (hints) b.append(el("small", { text: `${fmt(o.value)} (−${fmt(o.regret)})` }));
      return b;
    }));
  }
  async function choose(option) {
    const p = S.play;
    if (p.busy || !p.options.includes(option)) return;
    p.busy = true;
    const before = p.position;
    p.decisions += 1;
    p.cost += option.regret;
    if (!/^(stick|score)\b/.test(option.action)) p.holds += 1;
    p.last = option;
    const best = p.options[0];
    const row = el("tr", {},
      el("td", { text: p.decisions }), el("td", { class: "you", text: option.action }),
      el("td", { text: best.action }),
      el("td", { class: option.regret > 1e-9 ? "num costly" : "num", text: fmt(option.regret) }),
      el("td", { class: "pos", text: before }));
    $("#play-log tbody").append(row);
    $("#total-cost").textContent = fmt(p.cost);
    $("#play-options").replaceChildren();
    try {
      const res = await api("/api/apply", {
        game: p.game, variant: p.variant, position: before, action: option.action, seed: nextSeed(p),
      });
      if (S.play !== p) return;
      const gained = scoreOf(res.position) !== null && scoreOf(before) !== null ? scoreOf(res.position) - scoreOf(before) : null;
      if (gained !== null && /^score\b/.test(option.action)) row.children[1].textContent += ` (+${gained})`;
      if (res.game_over) finish(p, res.position, "you");
      else if (passesTurn(p, res.position)) await opponentTurn(p, res.position);
      else await showTurn(p, res.position);
    } catch (err) {
      showError(err);
    } finally {
      p.busy = false;
    }
  }
  // Two-player games: the optimal player takes the other side. Pig positions are the
  // mover's view (turn 0: the turn has passed); in two-player Shut the Box a position with
  // a target is player 2's, who then plays to the end.
  const shutWin = (p) => p.game === "shutbox" && p.variant.endsWith("/win");
  function passesTurn(p, position) {
    if (p.game === "pig") return /\bturn\s+0\b/.test(position);
    return shutWin(p) && /\btarget\s+\d+/.test(position);
  }
  const comesBack = (p, position) => p.game === "pig" && /\bturn\s+0\b/.test(position);
  const openSum = (position) => {
    const m = /open\s+([\d\s]+)/.exec(position);
    return m ? m[1].trim().split(/\s+/).reduce((a, t) => a + Number(t), 0) : 0;
  };
  async function opponentTurn(p, position) {
    renderPosition(position);
    for (let i = 0; i < 500; i++) {
      const data = await api("/api/advice", { game: p.game, variant: p.variant, position });
      if (S.play !== p) return;
      const best = data.actions[0];
      $("#play-log tbody").append(el("tr", { class: "opp" },
        el("td", { text: "–" }), el("td", { text: `opponent: ${best.action}` }), el("td", { text: best.action }),
        el("td", { class: "num", text: "" }), el("td", { class: "pos", text: position })));
      const res = await api("/api/apply", {
        game: p.game, variant: p.variant, position, action: best.action, seed: nextSeed(p),
      });
      if (S.play !== p) return;
      if (res.game_over) return finish(p, res.position, "opponent");
      position = res.position;
      if (comesBack(p, position)) return showTurn(p, position);
    }
    throw new Error("the opponent's turn did not end");
  }
  function finish(p, position, lastMover) {
    renderPosition(position);
    $("#play-options").replaceChildren();
    let result = "";
    if (p.game === "yatzy") result = `Final score: ${fmt(p.last.value)}. `;
    if (p.game === "pig") result = lastMover === "you" ? "You win! " : "The optimal player wins. ";
    if (p.game === "shutbox" && !shutWin(p)) result = `Final score: ${openSum(position)}. `;
    if (shutWin(p)) {
      const m = /target\s+(\d+)/.exec(position);
      if (lastMover === "you" || !m) result = "You shut the box and win! ";
      else {
        const u = openSum(position);
        const t = Number(m[1]);
        result = `Player 2 (optimal) scores ${u} against your ${t}: ${u < t ? "player 2 wins" : u === t ? "a draw" : "you win"}. `;
      }
    }
    if (p.game === "stick") {
      const penalty = params().penalty ?? 1;
      result = `Final score: ${fmt(p.last.value - penalty * p.holds)}. `;
    }
    const box = $("#play-summary");
    box.replaceChildren(
      el("strong", { text: "Game over. " }),
      el("span", { id: "final-result", text: result }),
      el("span", { text: `Optimal play from your first position: ${fmt(p.start)} (${units()}); ` }),
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
    $("#variant").replaceChildren(...game().variants.map((v) => el("option", { value: v.id, text: `${v.id}: ${v.description}` })));
    if (location.hash !== `#${id}`) history.replaceState(null, "", `#${id}`);
    variantChanged();
  }
  function variantChanged() {
    $("#units").textContent = `value: ${units()}`;
    $("#position").value = game().position_example;
    $("#advice tbody").replaceChildren();
    $("#play-options").replaceChildren();
    $("#play-position").replaceChildren();
    $("#play-log tbody").replaceChildren();
    $("#play-summary").hidden = true;
    S.play = null;
    showError(null);
    renderEditor();
    changed(false);
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
        type: "button", "data-game": g.id, text: g.title, onclick: () => selectGame(g.id),
      })));
      if (!data.games.length) throw new Error("no games available on this server");
      const wanted = location.hash.slice(1);
      selectGame(S.games[wanted] ? wanted : S.games.yatzy ? "yatzy" : data.games[0].id);
    } catch (err) { showError(err); }
    $("#variant").addEventListener("change", (e) => { S.variant = e.target.value; variantChanged(); });
    $("#position-form").addEventListener("submit", (e) => { e.preventDefault(); advise(); });
    $("#mode-advise").addEventListener("click", () => setMode("advise"));
    $("#mode-play").addEventListener("click", () => setMode("play"));
    $("#new-game").addEventListener("click", newGame);
    $("#hints").addEventListener("change", () => { if (S.play) renderOptions(); });
    document.body.dataset.ready = "true";
  }
  init();
})();
