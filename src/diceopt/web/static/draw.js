// diceopt page: drawing only (no state, no requests). Dice faces, the chart of a game so
// far and the tiles of a tiles board, as inline SVG markup or DOM elements. Loaded before app.js.
"use strict";
window.DiceoptDraw = (() => {
  // Pip positions on a 100x100 face, by value.
  const L = 27, M = 50, R = 73;
  const PIPS = {
    1: [[M, M]],
    2: [[L, L], [R, R]],
    3: [[L, L], [M, M], [R, R]],
    4: [[L, L], [R, L], [L, R], [R, R]],
    5: [[L, L], [R, L], [M, M], [L, R], [R, R]],
    6: [[L, L], [R, L], [L, M], [R, M], [L, R], [R, R]],
  };
  // An SVG die face: pips for 1..6, else the value written on the face.
  function die(value) {
    const v = Number(value);
    let body = `<rect class="body" x="4" y="4" width="92" height="92" rx="18"/>`;
    if (Number.isInteger(v) && PIPS[v]) {
      body += PIPS[v].map(([x, y]) => `<circle class="pip" cx="${x}" cy="${y}" r="9"/>`).join("");
    } else if (value !== undefined && value !== null) {
      body += `<text class="val" x="50" y="50" text-anchor="middle" dominant-baseline="central">${
        String(value).replace(/[^0-9.\-?]/g, "")}</text>`;
    }
    // parsed as HTML: the parser puts <svg> in the SVG namespace (no namespace URL here)
    const t = document.createElement("template");
    t.innerHTML = `<svg viewBox="0 0 100 100" aria-hidden="true" class="face-svg">${body}</svg>`;
    return t.content.firstChild;
  }

  const f1 = (x) => (Math.abs(x) >= 10 ? x.toFixed(0) : Math.abs(x) >= 1 ? x.toFixed(1) : x.toFixed(2));
  // The game so far: ``steps`` [{v, q, regret, action}] per decision (v: the best value
  // before it, q: the chosen action's value), ``end`` the result (or null); ``wins``:
  // [{at, p}] the win estimate at the start of a turn (at: decisions made before).
  // Luck (q -> next v) in green/orange, mistakes (v -> q) in red, as exact values.
  // ``opts.probability``: the values are probabilities (the axis 0% .. 100% at most).
  function gameChart(steps, end, opts = {}) {
    const pts = [];
    steps.forEach((s, i) => {
      pts.push({ x: i, y: s.v, kind: "v" });
      pts.push({ x: i + 0.5, y: s.q, kind: "q", regret: s.regret, action: s.action });
    });
    if (end !== null && end !== undefined) pts.push({ x: steps.length, y: end, kind: "end" });
    const wins = opts.wins || [];
    const W = 340, left = 34, right = wins.length ? 30 : 8, top = 8;
    const base = 100, H = base + 34;
    if (!pts.length) return "";
    const ys = pts.map((p) => p.y);
    // a probability's axis stays within 0% .. 100% (a flat line gets 10 points around it)
    const prob = !!opts.probability;
    let lo = Math.min(...ys), hi = Math.max(...ys);
    if (hi - lo < 1e-9) { lo -= prob ? 0.1 : 1; hi += prob ? 0.1 : 1; }
    const pad = (hi - lo) * 0.08;
    lo -= pad; hi += pad;
    if (prob) { lo = Math.max(0, lo); hi = Math.min(1, hi); }
    const tick = (y) => (prob ? `${Math.round(100 * y)}%` : f1(y));  // whole percents: they fit
    const n = Math.max(1, steps.length);
    const sx = (x) => (left + (x / n) * (W - left - right)).toFixed(1);
    const sy = (y) => (base - ((y - lo) / (hi - lo)) * (base - top)).toFixed(1);
    let path = "", marks = "";
    pts.forEach((p, i) => {
      path += `${i ? "L" : "M"}${sx(p.x)},${sy(p.y)}`;
      if (!i) return;
      const prev = pts[i - 1];
      const d = p.y - prev.y;
      if (p.kind === "q" && p.regret > 1e-9) {
        marks += `<line class="cost" x1="${sx(prev.x)}" y1="${sy(prev.y)}" x2="${sx(p.x)}" y2="${sy(p.y)}"/>` +
          `<circle class="cost" cx="${sx(p.x)}" cy="${sy(p.y)}" r="3"><title>${p.action}: costs ${f1(p.regret)}</title></circle>`;
      } else if (p.kind !== "q" && Math.abs(d) > 1e-9) {
        const good = opts.lowerIsBetter ? d < 0 : d > 0;
        marks += `<line class="${good ? "luck-good" : "luck-bad"}" x1="${sx(prev.x)}" y1="${sy(prev.y)}" x2="${sx(p.x)}" y2="${sy(p.y)}"/>`;
      }
    });
    let winPart = "";
    if (wins.length) {
      const wy = (p) => (base - p * (base - top)).toFixed(1);
      const wpath = wins.map((w, i) => `${i ? "L" : "M"}${sx(w.at)},${wy(w.p)}`).join("");
      winPart = `<path class="win" d="${wpath}"/>` +
        wins.map((w) => `<circle class="win" cx="${sx(w.at)}" cy="${wy(w.p)}" r="2.5"><title>${pct(w.p)}</title></circle>`).join("") +
        `<text class="win" x="${W - 2}" y="${top + 8}" text-anchor="end">100%</text>` +
        `<text class="win" x="${W - 2}" y="${base}" text-anchor="end">0%</text>`;
    }
    const legend = `<text x="${left}" y="${H - 3}">${opts.label || "expected final score"}</text>` +
      (wins.length ? `<text class="win" x="${W - 2}" y="${base + 14}" text-anchor="end">- - your chance of winning</text>` : "") +
      `<text class="luck-good" x="${left}" y="${base + 14}">good luck</text>` +
      `<text class="luck-bad" x="${left + 58}" y="${base + 14}">bad luck</text>` +
      `<text class="cost" x="${left + 110}" y="${base + 14}">mistake</text>`;
    return `<svg viewBox="0 0 ${W} ${H}" role="img" data-lo="${lo}" data-hi="${hi}" aria-label="${opts.label || "expected final score"} after every decision">` +
      `<line class="axis" x1="${left}" x2="${W - right}" y1="${base}" y2="${base}"/>` +
      `<text class="tick" x="${left - 4}" y="${top + 8}" text-anchor="end">${tick(hi)}</text>` +
      `<text class="tick" x="${left - 4}" y="${base}" text-anchor="end">${tick(lo)}</text>` +
      `${winPart}<path class="line" d="${path}"/>${marks}${legend}</svg>`;
  }
  // Dice of three colours with pictured faces (a colour-dice board): ``rolled`` the last
  // roll ({colour: g|y|r, face: brain|shotgun|footprints}), and the turn so far as colour
  // letters: ``shotguns``, ``aside`` (brains), ``feet`` (footprint dice in hand).
  const COLOUR = { g: "green", y: "yellow", r: "red" };
  const FACE = {
    brain: '<path class="icon brain" d="M30 58c-8 0-12-8-8-14-4-8 4-16 12-13 3-7 14-8 18-2 6-4 16 0 15 8 8 2 9 13 2 17 1 8-8 12-14 8-5 5-14 4-17-1-3 1-6 0-8-3z"/>',
    shotgun: '<path class="icon shotgun" d="M50 18l7 20 21-1-17 13 7 21-18-13-18 13 7-21-17-13 21 1z"/>',
    footprints: '<ellipse class="icon feet" cx="38" cy="40" rx="9" ry="14"/><ellipse class="icon feet" cx="62" cy="60" rx="9" ry="14"/>',
  };
  function colourDie(colour, face, small = false) {
    const c = COLOUR[colour] || "green";
    const t = document.createElement("template");
    t.innerHTML = `<svg viewBox="0 0 100 100" class="zdie ${c}${small ? " small" : ""}" role="img" aria-label="${c} ${face || "die"}">` +
      `<rect class="body" x="4" y="4" width="92" height="92" rx="18"/>${FACE[face] || ""}` +
      `<text class="word" x="50" y="90" text-anchor="middle">${face || ""}</text></svg>`;
    return t.content.firstChild;
  }
  function colourDice(json, id = "play-colour-dice") {
    const box = document.createElement("div");
    box.className = "box colour-dice";
    box.id = id;
    const rolled = Array.isArray(json.rolled) ? json.rolled : [];
    if (rolled.length) {
      const row = document.createElement("div");
      row.className = "row zdice-row";
      row.setAttribute("aria-label", "last roll");
      rolled.forEach((d) => row.append(colourDie(d.colour, d.face)));
      box.append(row);
    }
    for (const [key, face, label] of [["shotguns", "shotgun", "Shotguns"], ["aside", "brain", "Brains set aside"], ["feet", "footprints", "Footprints in hand"]]) {
      const letters = String(json[key] || "");
      if (!letters) continue;
      const line = document.createElement("div");
      line.className = "zline";
      line.dataset.field = key;
      const name = document.createElement("span");
      name.className = "label";
      name.textContent = `${label} (${letters.length})`;
      line.append(name, ...[...letters].map((l) => colourDie(l, face, true)));
      box.append(line);
    }
    if (!box.children.length) {  // before the turn's first roll: an empty box, said so
      box.classList.add("empty");
      const none = document.createElement("span");
      none.className = "label";
      none.textContent = "No dice rolled yet this turn";
      box.append(none);
    }
    return box;
  }
  // Every player's chance of winning over a table's game: ``history`` [{at, p: [chance per
  // player]}] (at: turns played), one line per player (``names``), 0% to 100%.
  function chancesChart(history, names) {
    const W = 340, left = 36, right = 8, top = 8, base = 110, H = base + 18 + 12 * Math.ceil(names.length / 3);
    const n = Math.max(1, history[history.length - 1].at);
    const sx = (x) => (left + (x / n) * (W - left - right)).toFixed(1);
    const sy = (p) => (base - p * (base - top)).toFixed(1);
    const esc = (t) => String(t).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]));
    let lines = "", legend = "";
    names.forEach((name, i) => {
      const d = history.map((h, k) => `${k ? "L" : "M"}${sx(h.at)},${sy(h.p[i])}`).join("");
      lines += `<path class="player p${i}" d="${d}"><title>${esc(name)}</title></path>`;
      const lx = left + (i % 3) * 100, ly = base + 16 + 12 * Math.floor(i / 3);
      legend += `<line class="player p${i}" x1="${lx}" x2="${lx + 14}" y1="${ly - 4}" y2="${ly - 4}"/><text x="${lx + 18}" y="${ly}">${esc(name)}</text>`;
    });
    return `<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="every player's chance of winning after every turn">` +
      `<line class="axis" x1="${left}" x2="${W - right}" y1="${base}" y2="${base}"/>` +
      `<line class="axis half" x1="${left}" x2="${W - right}" y1="${sy(0.5)}" y2="${sy(0.5)}"/>` +
      `<text x="${left - 4}" y="${top + 8}" text-anchor="end">100%</text>` +
      `<text x="${left - 4}" y="${base}" text-anchor="end">0%</text>${lines}${legend}</svg>`;
  }
  return { die, gameChart, chancesChart, colourDie, colourDice };
})();
