// The page: three views over the JSON API (no build step, no libraries).
"use strict";

const RANKS = "AKQJT98765432";
const SUITS = [["S", "♠"], ["H", "♥"], ["D", "♦"], ["C", "♣"]];
const RULES = ["basic", "1-6", "2-4", "royalties", "royalties-win", "naturals", "2-4+royalties"];
const ROWS = ["front", "middle", "back"];
const SIZES = { front: 3, middle: 5, back: 5 };
const $ = (id) => document.getElementById(id);

function cardHtml(code, extra = "") {
  const suit = SUITS.find(([s]) => s === code[1].toUpperCase());
  const red = suit[0] === "H" || suit[0] === "D";
  return `<span class="card ${red ? "red" : "black"} ${extra}" data-card="${code}">${code[0]}${suit[1]}</span>`;
}
const rowHtml = (text) => text.split(" ").map((c) => cardHtml(c, "small")).join("");
const sign = (x, d = 3) => (x >= 0 ? "+" : "") + x.toFixed(d);
const pct = (x) => (100 * x).toFixed(1) + "%";

async function api(path, body) {
  const response = await fetch(path, { method: body ? "POST" : "GET", headers: { "Content-Type": "application/json" },
    body: body ? JSON.stringify(body) : undefined });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) {
    const detail = Array.isArray(data.detail) ? data.detail.map((d) => `${d.loc.slice(-1)[0]}: ${d.msg}`).join("; ")
      : data.detail;
    throw new Error(detail || `the server answered ${response.status}`);
  }
  return data;
}

async function busy(indicator, error, work) {
  $(indicator).hidden = false;
  $(error).textContent = "";
  try { return await work(); } catch (e) { $(error).textContent = e.message; } finally { $(indicator).hidden = true; }
}

function options(target, { opponent = true } = {}) {
  $(target).innerHTML = `<label>Rules <select class="rules">${RULES.map((r) => `<option>${r}</option>`).join("")}</select></label>
    <label>Opponents simulated <input class="samples" type="number" value="1000" min="1" max="20000" style="width:6em"></label>
    ${opponent ? `<label>Set by <select class="opponent"></select></label>` : ""}
    <label>Players <select class="players"><option>2</option><option>3</option><option>4</option></select></label>`;
  fillBots($(target).querySelector(".opponent"), (b) => b !== "exhaustive", "table");
}
function read(target) {
  const root = $(target);
  const opponent = root.querySelector(".opponent");
  return { rules: root.querySelector(".rules").value, samples: Number(root.querySelector(".samples").value),
    players: Number(root.querySelector(".players").value), ...(opponent ? { opponent: opponent.value } : {}) };
}

let BOTS = [];
function fillBots(select, keep, chosen) {
  if (!select) return;
  select.innerHTML = BOTS.filter((b) => keep(b.name)).map((b) =>
    `<option ${b.name === chosen ? "selected" : ""} title="${b.description}">${b.name}</option>`).join("");
}

// --- Solve -----------------------------------------------------------------------------------
const picked = new Set();
function drawGrid() {
  $("solve-grid").innerHTML = SUITS.map(([s]) => [...RANKS].map((r) =>
    cardHtml(r + s, picked.has(r + s) ? "picked" : "")).join("")).join("");
  $("solve-text").value = [...picked].join(" ");
}
$("solve-grid").addEventListener("click", (event) => {
  const code = event.target.closest(".card")?.dataset.card;
  if (!code) return;
  if (picked.has(code)) picked.delete(code); else if (picked.size < 13) picked.add(code);
  drawGrid();
});
$("solve-text").addEventListener("change", () => {
  picked.clear();
  for (const token of $("solve-text").value.trim().split(/[\s,]+/).filter(Boolean)) picked.add(token.toUpperCase());
  drawGrid();
});
$("solve-deal").addEventListener("click", async () => {
  const { hand } = await api("/api/deal", {});
  picked.clear(); hand.split(" ").forEach((c) => picked.add(c)); drawGrid();
});
$("solve-clear").addEventListener("click", () => { picked.clear(); drawGrid(); $("solve-result").innerHTML = ""; });

function rowsTable(rows) {
  return `<table><tr><th>row</th><th>cards</th><th>hand</th><th>win / tie / lose</th><th>ev</th></tr>${ROWS.map((name) => {
    const r = rows[name];
    return `<tr><td>${name}</td><td>${rowHtml(r.cards)}</td><td>${r.hand}</td>
      <td><div class="bar" title="win ${pct(r.win)}, tie ${pct(r.tie)}, lose ${pct(r.lose)}"><div class="w" style="width:${100 * r.win}%"></div><div class="t" style="width:${100 * r.tie}%"></div><div class="l" style="width:${100 * r.lose}%"></div></div>
      ${pct(r.win)} / ${pct(r.tie)} / ${pct(r.lose)}</td><td>${sign(r.ev)}</td></tr>`;
  }).join("")}</table>`;
}
const arrangementHtml = (a) => ROWS.map((r) => rowHtml(a[r])).join(" &nbsp;/&nbsp; ");

$("solve-go").addEventListener("click", () => busy("solve-busy", "solve-error", async () => {
  const s = await api("/api/solve", { hand: $("solve-text").value, ...read("solve-options") });
  const parts = Object.entries(s.ev_parts.per_opponent).map(([k, v]) => `${k} ${sign(v)}`).join(", ");
  const declare = s.declare ? `<p class="big" data-testid="declare">Declare ${s.natural}: worth ${sign(s.natural_ev)}, more than the best play.</p>` : "";
  const held = !s.natural && s.natural_held ? `<p class="warning">This hand holds ${s.natural_held}, a natural, but these rules have none.</p>` : "";
  $("solve-result").innerHTML = `${declare}${held}
    <p class="big" data-testid="best">Best: ${arrangementHtml(s.arrangement)}</p>
    <p>EV <b>${sign(s.ev)} ± ${s.ev_se === null ? "—" : s.ev_se.toFixed(3)}</b> units per hand against ${s.players - 1}
      opponent(s) set by ${s.opponent} (${s.samples} samples, rules ${s.rules.name}) = ${s.players - 1} × (${parts})</p>
    ${rowsTable(s.rows)}
    ${s.alternatives.length ? `<h3>Next best plays</h3><table><tr><th></th><th>arrangement</th><th>EV</th><th>difference</th></tr>${
      s.alternatives.map((a, i) => `<tr><td>${i + 2}.</td><td>${arrangementHtml(a.arrangement)}</td><td>${sign(a.ev)}</td>
        <td>${sign(a.diff)} ± ${a.diff_se === null ? "—" : a.diff_se.toFixed(3)} ${a.significant ? "(significant)" : ""}</td></tr>`).join("")}</table>` : ""}
    ${s.natural ? `<p>Natural: ${s.natural}, worth ${sign(s.natural_ev)} if declared.</p>` : ""}
    <p class="hint">seed ${s.seed}; ${s.legal_splits} legal splits searched in ${s.seconds.toFixed(2)} s</p>`;
}));

// --- Arranging a hand by clicks (Grade and Play) --------------------------------------------------
function arranger(board, warning) {
  const state = { cards: [], rows: {} };
  function draw() {
    const pool = state.cards.filter((c) => !state.rows[c]);
    $(board).innerHTML = `<div class="rows">${ROWS.map((r) => {
      const cards = state.cards.filter((c) => state.rows[c] === r);
      return `<span class="rowlabel">${r} (${cards.length}/${SIZES[r]})</span><span data-testid="row-${r}">${cards.map((c) => cardHtml(c, "placed")).join("")}</span>`;
    }).join("")}<span class="rowlabel">to place</span><span class="pool" data-testid="pool">${pool.map((c) => cardHtml(c)).join("")}</span></div>`;
    check();
  }
  async function check() {
    $(warning).textContent = "";
    const text = state.text();
    if (!text) return;
    try {
      const result = await api("/api/check", { arrangement: text });
      $(warning).textContent = result.foul ? `Foul: ${result.reason}` : `Rows: ${result.hands.join(" / ")}`;
    } catch (e) { $(warning).textContent = e.message; }
  }
  $(board).addEventListener("click", (event) => {
    const code = event.target.closest(".card")?.dataset.card;
    if (!code) return;
    const order = [undefined, ...ROWS];
    let next = order[(order.indexOf(state.rows[code]) + 1) % order.length];
    while (next && state.cards.filter((c) => state.rows[c] === next).length >= SIZES[next]) {
      next = order[(order.indexOf(next) + 1) % order.length];
    }
    if (next) state.rows[code] = next; else delete state.rows[code];
    draw();
  });
  state.load = (hand) => { state.cards = hand.trim().split(/[\s,]+/).map((c) => c.toUpperCase()); state.rows = {}; draw(); };
  state.text = () => ROWS.every((r) => state.cards.filter((c) => state.rows[c] === r).length === SIZES[r])
    ? ROWS.map((r) => state.cards.filter((c) => state.rows[c] === r).join(" ")).join(" / ") : null;
  return state;
}

// --- Grade -----------------------------------------------------------------------------------
const grading = arranger("grade-board", "grade-warning");
$("grade-load").addEventListener("click", () => grading.load($("grade-text").value));
$("grade-deal").addEventListener("click", async () => { const { hand } = await api("/api/deal", {}); $("grade-text").value = hand; grading.load(hand); });

function gradeHtml(g) {
  const rows = ROWS.map((r) => { const x = g.rows[r];
    return `<tr><td>${r}</td><td>${rowHtml(x.cards)}</td><td>${x.hand}</td><td>${sign(x.ev)}</td><td>${rowHtml(x.best_cards)}</td><td>${x.best_hand}</td><td>${sign(x.ev_diff)}</td></tr>`; }).join("");
  return `<p class="big" data-testid="grade-summary">Your play: EV ${sign(g.ev)}; best ${sign(g.best.ev)}: your play cost
      ${g.lost.toFixed(3)} units per hand (paired difference ${sign(g.diff)} ± ${g.diff_se === null ? "—" : g.diff_se.toFixed(3)})</p>
    ${g.foul ? `<p class="warning">Your arrangement fouls: ${g.foul}</p>` : ""}
    <p>Best: ${arrangementHtml(g.best.arrangement)}</p>
    <table><tr><th>row</th><th>yours</th><th></th><th>ev</th><th>best</th><th></th><th>difference</th></tr>${rows}</table>`;
}
$("grade-go").addEventListener("click", () => busy("grade-busy", "grade-error", async () => {
  const arrangement = grading.text();
  if (!arrangement) throw new Error("place all 13 cards first: 3 in front, 5 in the middle, 5 in the back");
  const g = await api("/api/grade", { hand: grading.cards.join(" "), arrangement, ...read("grade-options") });
  $("grade-result").innerHTML = gradeHtml(g);
}));

// --- Play ------------------------------------------------------------------------------------
const session = { seed: 0, hand: 0, totals: [], bots: [] };
const playing = arranger("play-board", "play-warning");
function botSelectors() {
  const n = Number($("play-count").value);
  $("play-bots").innerHTML = Array.from({ length: n }, (_, i) => `<select class="play-bot" data-testid="play-bot-${i}"></select>`).join(" ");
  document.querySelectorAll(".play-bot").forEach((s) => fillBots(s, () => true, "table"));
}
$("play-count").addEventListener("change", botSelectors);
$("play-rules").innerHTML = RULES.map((r) => `<option>${r}</option>`).join("");

async function dealHand() {
  const players = session.bots.length + 1;
  const deal = await api("/api/session/deal", { seed: session.seed, players, hand_number: session.hand });
  $("play-status").innerHTML = `<p class="big">Hand ${session.hand + 1} of 8 (seed ${session.seed}); dealer: ${deal.dealer === 0 ? "you" : session.bots[deal.dealer - 1]}</p>`;
  $("play-table").innerHTML = "";
  playing.load(deal.hand);
  $("play-go").hidden = false; $("play-next").hidden = true;
}
$("play-start").addEventListener("click", async () => {
  session.bots = [...document.querySelectorAll(".play-bot")].map((s) => s.value);
  session.seed = Math.floor(Math.random() * 2 ** 31); session.hand = 0;
  session.totals = new Array(session.bots.length + 1).fill(0);
  $("play-totals").innerHTML = "";
  await busy("play-busy", "play-error", dealHand);
});
$("play-go").addEventListener("click", () => busy("play-busy", "play-error", async () => {
  const arrangement = playing.text();
  if (!arrangement) throw new Error("place all 13 cards first: 3 in front, 5 in the middle, 5 in the back");
  const result = await api("/api/session/play", { seed: session.seed, players: session.bots.length + 1,
    hand_number: session.hand, bots: session.bots, arrangement, rules: $("play-rules").value, samples: 500 });
  result.scores.forEach((s, i) => { session.totals[i] += s; });
  const names = result.seats.map((s) => s.name);
  $("play-table").innerHTML = result.seats.map((seat, i) => `<div class="seat" data-testid="seat-${i}"><b>${seat.name}</b>
      ${ROWS.map((r, k) => `<div class="reveal">${r}: ${rowHtml(seat.arrangement.split(" / ")[k])} ${seat.hands[k]}</div>`).join("")}
      ${seat.foul ? `<div class="warning">foul: ${seat.foul}</div>` : ""}
      <div>this hand ${sign(result.scores[i], 0)}: ${result.pairs[i].map((p, j) => (j === i ? "" : `${sign(p, 0)} against ${names[j]}`)).filter(Boolean).join(", ")}</div></div>`).join("")
    + `<div class="seat" data-testid="play-grade">${gradeHtml(result.grade)}</div>`;
  document.querySelectorAll("#play-table .reveal").forEach((row, k) => setTimeout(() => row.classList.add("shown"), 150 * (k % 3)));
  drawTotals(names);
  $("play-go").hidden = true;
  session.hand += 1;
  $("play-next").hidden = session.hand >= 8;
}));
$("play-next").addEventListener("click", () => busy("play-busy", "play-error", dealHand));

function drawTotals(names) {
  const order = names.map((n, i) => [n, session.totals[i]]).sort((a, b) => b[1] - a[1]);
  const places = order.map(([, total]) => {
    const ahead = order.filter(([, t]) => t > total).length, tied = order.filter(([, t]) => t === total).length;
    return tied > 1 ? `shares place ${ahead + 1}` : `place ${ahead + 1}`;
  });
  const done = session.hand + 1 >= 8;
  $("play-totals").innerHTML = `<h3>${done ? "Session over: final totals" : "Running totals"}</h3><table>${order.map(([n, t], i) =>
    `<tr><td>${n}</td><td>${sign(t, 0)}</td><td>${places[i]}</td></tr>`).join("")}</table>`;
}

// --- Tabs and start-up -----------------------------------------------------------------------------
document.querySelectorAll(".tab").forEach((tab) => tab.addEventListener("click", () => {
  document.querySelectorAll(".tab, .view").forEach((el) => el.classList.remove("active"));
  tab.classList.add("active"); $(tab.dataset.view).classList.add("active");
}));
(async () => {
  BOTS = (await api("/api/bots")).bots;
  options("solve-options"); options("grade-options"); botSelectors(); drawGrid();
})();
