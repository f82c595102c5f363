// The page: four views over the JSON API (no build step, no libraries). Every element is
// built with the DOM and text nodes: nothing a user typed or the server sent becomes HTML.
"use strict";

const RANKS = "AKQJT98765432";
const RANK_NAMES = { A: "ace", K: "king", Q: "queen", J: "jack", T: "ten", 9: "nine", 8: "eight", 7: "seven",
  6: "six", 5: "five", 4: "four", 3: "three", 2: "two" };
const SUITS = [["S", "♠", "spades"], ["H", "♥", "hearts"], ["D", "♦", "diamonds"], ["C", "♣", "clubs"]];
const SUIT_OF = { "♠": "S", "♤": "S", "♥": "H", "♡": "H", "♦": "D", "♢": "D", "♣": "C", "♧": "C" };
const RULES = ["basic", "1-6", "2-4", "royalties", "royalties-win", "naturals", "2-4+royalties", "1-6+naturals"];
// A rule set as the server names it ("basic+naturals") as the page's lists name it ("naturals").
const rulesChoice = (name) => (/^basic\+/.test(name) ? name.slice(6) : name);
// Choose `name` in a list of rules, adding it when the list lacks it (a link or a session may name any preset).
function chooseRules(select, name) {
  if (typeof name !== "string" || !/^[a-z0-9+-]{1,60}$/.test(name)) return;
  const value = rulesChoice(name);
  if (![...select.options].some((o) => o.value === value)) select.append(h("option", { value }, value));
  select.value = value;
}
// Each seat's name, numbered where a bot sits twice ("table 1", "table 2"), so the seats can be told apart.
function seatNames(bots) {
  const seen = {};
  return ["you", ...bots.map((b) => {
    if (bots.filter((x) => x === b).length === 1) return b;
    seen[b] = (seen[b] || 0) + 1;
    return `${b} ${seen[b]}`;
  })];
}
// The verdict on a play, from its cost per opponent (thresholds in docs/web.md).
const VERDICT_NAMES = { best: "Best play", fine: "Fine", inaccuracy: "Inaccuracy", mistake: "Mistake", blunder: "Blunder" };
// Every EV is in one unit: units a hand, summed over the opponents at the table.
const unit = (n) => (n > 1 ? `units a hand, all ${n} opponents` : "units a hand");
const ROWS = ["front", "middle", "back"];
const SIZES = { front: 3, middle: 5, back: 5 };
const PART_NAMES = { opponent_natural: "opponents' naturals" }; // ev_parts keys shown in other words
const KEYS = { f: "front", 1: "front", m: "middle", 2: "middle", b: "back", 3: "back" };
const $ = (id) => document.getElementById(id);

// --- Building the page --------------------------------------------------------------------------
function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") element.className = value;
    else if (key === "text") element.textContent = value;
    else if (key.startsWith("on")) element.addEventListener(key.slice(2), value);
    else element.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat(Infinity)) {
    if (child !== null && child !== undefined && child !== false) element.append(child);
  }
  return element;
}
const put = (target, ...children) => { const root = typeof target === "string" ? $(target) : target; root.replaceChildren(...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false)); return root; };
const sign = (x, d = 3) => (x >= 0 ? "+" : "") + x.toFixed(d);
const pct = (x) => (100 * x).toFixed(1) + "%";
const cardName = (code) => `${RANK_NAMES[code[0]]} of ${SUITS.find(([s]) => s === code[1])[2]}`;
const cardFace = (code) => code[0] + SUITS.find(([s]) => s === code[1])[1];
const isRed = (code) => code[1] === "H" || code[1] === "D";

function cardSpan(code) {
  return h("span", { class: `card small ${isRed(code) ? "red" : "black"}`, role: "img", "aria-label": cardName(code) }, cardFace(code));
}
const rowCards = (text) => h("span", { class: "cards" }, text.split(" ").filter(Boolean).map(cardSpan));
const arrangementLine = (rows) => h("span", { class: "arrangement" },
  ROWS.map((r, i) => [i ? h("span", { class: "slash", "aria-hidden": "true" }, " / ") : null, rowCards(rows[r])]));
const rowsOf = (text) => { const parts = text.split(" / "); return { front: parts[0], middle: parts[1], back: parts[2] }; };

// --- Reading cards as players write them -----------------------------------------------------------
// "10s", "A♠", "as", "Q♥,J♥" and "AS KS" all read; the message names what is wrong.
function readCards(text, count = 13) {
  const tokens = text.trim().split(/[\s,;]+/).filter(Boolean);
  const cards = [];
  const problems = [];
  for (const token of tokens) {
    let t = token.toUpperCase().replace(/^10/, "T");
    const last = token.slice(-1);
    if (SUIT_OF[last]) t = t.slice(0, -1) + SUIT_OF[last];
    if (t.length !== 2 || !RANKS.includes(t[0]) || !"SHDC".includes(t[1])) {
      problems.push(`'${token}' is not a card (write a rank 2-9, T or 10, J, Q, K, A, then a suit S H D C or ♠ ♥ ♦ ♣)`);
    } else if (cards.includes(t)) {
      problems.push(`${cardFace(t)} is there twice`);
    } else {
      cards.push(t);
    }
  }
  if (cards.length > count) problems.push(`${cards.length} cards: ${cards.slice(count).map(cardFace).join(" ")} ${cards.length - count > 1 ? "are" : "is"} more than ${count}`);
  return { cards: cards.slice(0, count), problems };
}

// --- Talking to the server ---------------------------------------------------------------------------
async function api(path, body) {
  let response;
  try {
    response = await fetch(path, { method: body ? "POST" : "GET", headers: { "Content-Type": "application/json" },
      body: body ? JSON.stringify(body) : undefined });
  } catch (e) {
    throw new Error("the server cannot be reached; is bench serve running?");
  }
  const data = await response.json().catch(() => ({}));
  if (!response.ok) {
    const detail = Array.isArray(data.detail) ? data.detail.map((d) => `${d.loc.slice(-1)[0]}: ${d.msg}`).join("; ") : data.detail;
    const error = new Error(detail || `the server answered ${response.status}`);
    error.status = response.status;
    throw error;
  }
  return data;
}

// Run one request of a view: its buttons are disabled until the answer, a new error clears the old result.
// A view runs one request at a time (a second Enter while the first is out does nothing), and focus never
// drops to the page's body: a control the request disabled hands it to the answer, which is scrolled into view.
const running = new Set();
async function busy(view, label, work, { result = `${view}-result` } = {}) {
  if (running.has(view)) return undefined;
  running.add(view);
  const buttons = [...document.querySelectorAll(`#${view} button, #${view} select`)];
  const was = buttons.map((b) => b.disabled);
  buttons.forEach((b) => { b.disabled = true; });
  $(view).setAttribute("aria-busy", "true");
  $(`${view}-busy`).textContent = label;
  $(`${view}-error`).textContent = "";
  let failed = false;
  try {
    return await work();
  } catch (e) {
    failed = true;
    if ($(result)) put(result);
    $(`${view}-error`).textContent = e.message;
    return undefined;
  } finally {
    buttons.forEach((b, i) => { b.disabled = was[i]; });
    $(view).removeAttribute("aria-busy");
    $(`${view}-busy`).textContent = "";
    running.delete(view);
    const shown = failed ? $(`${view}-error`) : $(result);
    if (shown && shown.childNodes.length) {
      if (!document.activeElement || document.activeElement === document.body) shown.focus({ preventScroll: true });
      inView(shown);
    }
  }
}
// The top of what just appeared is on screen (on a phone it is often below the controls).
function inView(element) {
  const box = element.getBoundingClientRect();
  if (box.top < 0 || box.top > window.innerHeight - 60) element.scrollIntoView({ block: "start" });
}

let BOTS = [];
function options(target, { opponent = true } = {}) {
  const select = (cls, label, values, chosen) => h("label", {}, `${label} `, h("select", { class: cls },
    values.map((v) => h("option", { value: v, selected: v === chosen }, v))));
  put(target,
    select("rules", "Rules", RULES, "basic"),
    h("label", {}, "Opponents simulated ", h("input", { class: "samples", type: "number", value: "1000", min: "1", max: "20000", inputmode: "numeric" })),
    opponent ? select("opponent", "Set by", BOTS.filter((b) => b.opponent_model).map((b) => b.name), "table") : null,
    select("players", "Players", ["2", "3", "4"], "2"));
}
function readOptions(target) {
  const root = $(target);
  const samples = Number(root.querySelector(".samples").value);
  if (!Number.isInteger(samples) || samples < 1 || samples > 20000) throw new Error("opponents simulated: a whole number from 1 to 20000");
  return { rules: root.querySelector(".rules").value, samples, players: Number(root.querySelector(".players").value),
    opponent: root.querySelector(".opponent").value };
}
function setOptions(target, params) {
  const root = $(target);
  if (params.get("rules") !== null) chooseRules(root.querySelector(".rules"), params.get("rules"));
  for (const key of ["opponent", "players", "samples"]) {
    const field = root.querySelector(`.${key}`);
    if (field && params.get(key) !== null && (field.tagName !== "SELECT" || [...field.options].some((o) => o.value === params.get(key)))) field.value = params.get(key);
  }
}

// --- Links: the view and what it shows, in the address --------------------------------------------------
function link(view, values) {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(values)) if (v !== undefined && v !== null && v !== "") params.set(k, v);
  return `#${view}?${params}`;
}
// A link's seed is used once, so that the link shows what was seen; later requests draw their own.
const linkSeeds = {};
function takeLinkSeed(view) { const seed = linkSeeds[view]; delete linkSeeds[view]; return seed; }
// A seed as the server gives it: a whole number below 2**53 (up to 16 digits), which JSON and the page keep exact.
const seedOf = (text) => (/^[0-9]{1,16}$/.test(text || "") && Number.isSafeInteger(Number(text)) ? Number(text) : undefined);
function readLinkSeed(view, params) { const seed = seedOf(params.get("seed")); if (seed !== undefined) linkSeeds[view] = seed; }
function share(view, values) {
  const href = link(view, values);
  history.replaceState(null, "", href);
  return h("p", { class: "hint" }, "Link to this: ", h("a", { href, "data-testid": `${view}-link` }, "open it again or share it"));
}

// --- Solve ------------------------------------------------------------------------------------------------
const picked = [];
function drawGrid() {
  const grid = $("solve-grid");
  const focused = document.activeElement?.dataset?.card;
  put(grid, SUITS.map(([s]) => [...RANKS].map((r) => {
    const code = r + s;
    const on = picked.includes(code);
    return h("button", { type: "button", class: `card ${isRed(code) ? "red" : "black"} ${on ? "picked" : ""}`, "data-card": code,
      "aria-pressed": on ? "true" : "false", "aria-label": cardName(code), tabindex: "-1" }, cardFace(code));
  })));
  const current = (focused && grid.querySelector(`[data-card="${focused}"]`)) || grid.firstChild;
  current.tabIndex = 0;
  if (focused) current.focus();
}
$("solve-grid").addEventListener("click", (event) => {
  const code = event.target.closest(".card")?.dataset.card;
  if (!code) return;
  const at = picked.indexOf(code);
  if (at >= 0) picked.splice(at, 1);
  else if (picked.length < 13) picked.push(code);
  else { $("solve-error").textContent = `13 cards are picked already: put one back before adding ${cardFace(code)}`; return; }
  $("solve-error").textContent = "";
  $("solve-text").value = picked.join(" ");
  drawGrid();
});
// Arrow keys move through the grid (one tab stop for the 52 cards).
$("solve-grid").addEventListener("keydown", (event) => {
  const cards = [...$("solve-grid").querySelectorAll(".card")];
  const at = cards.indexOf(document.activeElement);
  if (at < 0) return;
  const step = { ArrowRight: 1, ArrowLeft: -1, ArrowDown: 13, ArrowUp: -13 }[event.key];
  if (!step) return;
  event.preventDefault();
  const next = cards[(at + step + 52) % 52];
  cards.forEach((c) => { c.tabIndex = -1; });
  next.tabIndex = 0;
  next.focus();
});
function takeSolveText() {
  const { cards, problems } = readCards($("solve-text").value);
  picked.splice(0, picked.length, ...cards);
  drawGrid();
  if (problems.length) { put("solve-result"); $("solve-error").textContent = problems.join("; "); return false; }
  $("solve-error").textContent = "";
  return true;
}
$("solve-text").addEventListener("change", takeSolveText);
$("solve-form").addEventListener("submit", (event) => { event.preventDefault(); if (takeSolveText()) solveNow(); });
$("solve-deal").addEventListener("click", () => busy("solve", "Dealing…", async () => {
  const { hand } = await api("/api/deal", {});
  $("solve-text").value = hand;
  takeSolveText();
  put("solve-result");
}));
$("solve-clear").addEventListener("click", () => { picked.length = 0; $("solve-text").value = ""; drawGrid(); put("solve-result"); $("solve-error").textContent = ""; });

function winBar(r) {
  const bar = h("div", { class: "bar", "aria-hidden": "true" });
  for (const [cls, share_] of [["w", r.win], ["t", r.tie], ["l", r.lose]]) {
    const part = h("div", { class: cls });
    part.style.width = `${100 * share_}%`;
    bar.append(part);
  }
  return bar;
}
// A play's rows: win / tie / lose against one opponent, EV over all `n` of them (as the headline EV).
function rowsTable(rows, n) {
  return h("table", {}, h("caption", { class: "sr-only" }, "Each row against the simulated opponents"),
    h("thead", {}, h("tr", {}, ["row", "cards", "hand", "win / tie / lose (each opponent)", `EV (${unit(n)})`].map((t) => h("th", { scope: "col", class: t === "hand" ? "desc" : null }, t)))),
    h("tbody", {}, ROWS.map((name) => {
      const r = rows[name];
      return h("tr", {}, h("th", { scope: "row" }, name), h("td", {}, rowCards(r.cards)), h("td", { class: "desc" }, r.hand),
        h("td", {}, winBar(r), `${pct(r.win)} / ${pct(r.tie)} / ${pct(r.lose)}`), h("td", {}, sign(n * r.ev)));
    })));
}

function solveNow() {
  return busy("solve", "Solving…", async () => {
    if (picked.length !== 13) throw new Error(`pick 13 cards first (${picked.length} picked)`);
    const settings = readOptions("solve-options");
    const s = await api("/api/solve", { hand: picked.join(" "), ...settings, seed: takeLinkSeed("solve") });
    const n = s.ev_parts.opponent_count;
    const { rows: rowParts, ...otherParts } = s.ev_parts.per_opponent;
    const parts = [...Object.entries(rowParts), ...Object.entries(otherParts)]
      .map(([k, v]) => `${PART_NAMES[k] || k} ${sign(n * v)}`).join(", ");
    put("solve-result",
      s.declare ? h("p", { class: "big", "data-testid": "declare" }, `Declare ${s.natural}: worth ${sign(s.natural_ev)} ${unit(n)}, more than the best play.`) : null,
      !s.natural && s.natural_held ? h("p", { class: "warning" }, `This hand holds ${s.natural_held}, a natural, but these rules have none.`) : null,
      h("p", { class: "big", "data-testid": "best" }, "Best: ", arrangementLine(s.arrangement)),
      h("p", { "data-testid": "solve-ev" }, "EV ", h("b", {}, `${sign(s.ev)} ± ${s.ev_se === null ? "—" : s.ev_se.toFixed(3)}`),
        ` ${unit(n)}, set by ${s.opponent} (${s.sample_count} samples, rules ${s.rules.name}) = ${parts}`),
      rowsTable(s.rows, n),
      s.alternatives.length ? [h("h3", {}, "Next best plays"), h("table", {},
        h("thead", {}, h("tr", {}, ["", "arrangement", `EV (${unit(n)})`, "difference"].map((t) => h("th", { scope: "col" }, t)))),
        h("tbody", {}, s.alternatives.map((a, i) => h("tr", {}, h("td", {}, `${i + 2}.`), h("td", {}, arrangementLine(a.arrangement),
          a.rows ? h("div", { class: "hint" }, ROWS.map((r) => `${r} ${a.rows[r].hand}: wins ${pct(a.rows[r].win)}`).join("; ")) : null),
          h("td", {}, sign(a.ev)), h("td", {}, `${sign(a.diff)} ± ${a.diff_se === null ? "—" : a.diff_se.toFixed(3)} ${a.significant ? "(significant)" : ""}`)))))] : null,
      s.natural ? h("p", { "data-testid": "solve-natural" }, `Natural: ${s.natural}, worth ${sign(s.natural_ev)} ${unit(n)} if declared.`) : null,
      h("p", { class: "hint" }, `seed ${s.seed}; ${s.legal_split_count} legal splits searched in ${s.seconds.toFixed(2)} s`),
      share("solve", { hand: picked.join(" "), ...settings, seed: s.seed }));
  });
}
$("solve-go").addEventListener("click", solveNow);

// --- Setting a hand by clicks or keys (Grade, Play, Trainer) --------------------------------------------------
// A card pressed is taken (pressed again, put down); a row pressed then, its name or its free space, gets it (the
// cards to place take it back). A card can be dragged onto a row too. Keys act on the focused card. Two full rows
// out of order are marked as soon as they are set: no card still to place can mend them.
function arranger(board, warning, onEnter) {
  const state = { cards: [], rows: {}, history: [], sort: "rank", taken: null };
  let dragged = null; // the card being dragged, while it is
  const inRow = (r) => state.cards.filter((c) => state.rows[c] === r);
  const SORTS = {
    rank: (a, b) => RANKS.indexOf(a[0]) - RANKS.indexOf(b[0]) || "SHDC".indexOf(a[1]) - "SHDC".indexOf(b[1]),
    suit: (a, b) => "SHDC".indexOf(a[1]) - "SHDC".indexOf(b[1]) || RANKS.indexOf(a[0]) - RANKS.indexOf(b[0]),
    pairs: (a, b) => count(b) - count(a) || SORTS.rank(a, b),
  };
  const count = (c) => state.cards.filter((x) => x[0] === c[0]).length;
  // A 3- or 5-card row's value on the solver's one scale (solver/_evaluator.py): category << 26 | major << 13 | minor,
  // bit r of a mask rank r (0 = deuce), so a missing kicker is below a deuce. Held to solver.evaluate by a test.
  function value(codes) {
    const counts = Array(13).fill(0);
    for (const c of codes) counts[12 - RANKS.indexOf(c[0])] += 1;
    const ranks = (n) => counts.reduce((mask, k, r) => (k === n ? mask | (1 << r) : mask), 0);
    const [singles, pairs, trips, quads] = [ranks(1), ranks(2), ranks(3), ranks(4)];
    const fullHouse = trips !== 0 && pairs !== 0;
    let category = quads ? 7 : fullHouse ? 6 : trips ? 3 : pairs & (pairs - 1) ? 2 : pairs ? 1 : 0;
    let [major, minor] = fullHouse ? [trips, pairs] : [quads | trips | pairs, singles];
    if (codes.length === 5) {
      const flush = codes.every((c) => c[1] === codes[0][1]);
      const run = singles & (singles >> 1) & (singles >> 2) & (singles >> 3) & (singles >> 4) ? singles : singles === 0x100f ? 0b1111 : 0;
      if (run) [category, minor] = [4, run];
      if (flush) category = run ? 8 : 5;
    }
    return (category << 26) | (major << 13) | minor;
  }
  // Pairs of full rows out of order; the front and the back are compared while the middle is not full.
  function fouls() {
    const full = Object.fromEntries(ROWS.filter((r) => inRow(r).length === SIZES[r]).map((r) => [r, value(inRow(r))]));
    const pairs = [["front", "middle"], ["middle", "back"], ...("middle" in full ? [] : [["front", "back"]])];
    return pairs.filter(([a, b]) => a in full && b in full && full[a] > full[b]);
  }
  const beats = ([a, b]) => `the ${a} beats the ${b}`;
  function cardButton(code, place) {
    const where = place ? `in the ${place}` : "not placed";
    return h("button", { type: "button", class: `card ${isRed(code) ? "red" : "black"} ${place ? "placed" : ""}`, "data-card": code,
      draggable: "true", "aria-pressed": String(code === state.taken), "aria-label": `${cardName(code)}, ${where}` }, h("span", { class: "face" }, cardFace(code)));
  }
  function draw(focus) {
    const pool = state.cards.filter((c) => !state.rows[c]).sort(SORTS[state.sort]);
    const out = fouls();
    const says = (r) => out.filter((pair) => pair.includes(r)).map(beats);
    put(board, h("div", { class: state.taken ? "rows taking" : "rows" },
      ROWS.map((r) => {
        const foul = says(r).length ? " fouls" : "";
        return [h("span", { class: `rowlabel${foul}`, id: `${board}-${r}`, "data-row": r }, `${r} (${inRow(r).length}/${SIZES[r]})`,
          foul ? h("span", { class: "foul-note" }, " fouls", h("span", { class: "sr-only" }, `: ${says(r).join("; ")}`)) : null),
        h("span", { class: `row${foul}`, role: "group", "aria-labelledby": `${board}-${r}`, "data-testid": `row-${r}`, "data-row": r },
          inRow(r).map((c) => cardButton(c, r)),
          Array.from({ length: SIZES[r] - inRow(r).length }, () => h("span", { class: "slot", "aria-hidden": "true" })))];
      }),
      h("span", { class: "rowlabel", id: `${board}-pool`, "data-row": "pool" }, "to place"),
      h("span", { class: "pool row", role: "group", "aria-labelledby": `${board}-pool`, "data-testid": "pool", "data-row": "pool" },
        pool.map((c) => cardButton(c, null)))),
    state.cards.length ? h("div", { class: "controls" },
      h("button", { type: "button", "data-testid": `${board}-sort`, onclick: () => { state.sort = { rank: "suit", suit: "pairs", pairs: "rank" }[state.sort]; draw(); } },
        `Group the hand by ${{ rank: "suit", suit: "pairs", pairs: "rank" }[state.sort]}`),
      h("button", { type: "button", "data-testid": `${board}-undo`, disabled: !state.history.length, onclick: undo }, "Undo"),
      h("button", { type: "button", "data-testid": `${board}-reset`, onclick: () => { remember(); state.rows = {}; draw(); } }, "Take all back")) : null);
    if (focus) $(board).querySelector(`[data-card="${focus}"]`)?.focus();
    check();
    if (out.length && !state.text()) $(warning).textContent = `Foul already: ${out.map(beats).join("; ")}`;
  }
  function remember() { state.history.push({ ...state.rows }); if (state.history.length > 100) state.history.shift(); }
  function undo() { if (state.history.length) { state.rows = state.history.pop(); draw(); } }
  function move(code, row) {
    if (row && state.rows[code] !== row && inRow(row).length >= SIZES[row]) {
      $(warning).textContent = `the ${row} is full (${SIZES[row]} cards): take one out first`;
      return;
    }
    remember();
    if (row) state.rows[code] = row; else delete state.rows[code];
    if (state.taken === code) state.taken = null;
    draw(code);
  }
  // A card taken or put down: only the marks change (the board is not drawn again).
  function take(code) {
    state.taken = state.taken === code ? null : code;
    $(board).querySelectorAll(".card").forEach((b) => b.setAttribute("aria-pressed", String(b.dataset.card === state.taken)));
    $(board).querySelector(".rows")?.classList.toggle("taking", state.taken !== null);
  }
  // A card pressed or dropped on a row ("pool": back to the cards to place); on its own row it stays.
  function place(code, row) {
    const to = row === "pool" ? undefined : row;
    if (state.rows[code] !== to) { move(code, to); return; }
    if (state.taken === code) state.taken = null;
    draw(code);
  }
  let checking = 0;
  async function check() {
    const mine = ++checking;
    $(warning).textContent = "";
    const text = state.text();
    if (!text) return;
    try {
      const result = await api("/api/check", { arrangement: text });
      if (mine === checking) $(warning).textContent = result.foul ? `Foul: ${result.foul_reason}` : `Rows: ${ROWS.map((r) => result.rows[r].hand).join(" / ")}`;
    } catch (e) { if (mine === checking) $(warning).textContent = e.message; }
  }
  const rowAt = (target) => target?.closest?.("[data-row]")?.dataset.row;
  $(board).addEventListener("click", (event) => {
    const code = event.target.closest(".card")?.dataset.card;
    if (code) { take(code); return; }
    const row = rowAt(event.target);
    if (row && state.taken) place(state.taken, row);
  });
  // Dragging: the row under the card is lit; dropped, the card goes there (or is refused as a press would be).
  const light = (row) => $(board).querySelectorAll("[data-row]").forEach((x) => x.classList.toggle("over", x.dataset.row === row));
  $(board).addEventListener("dragstart", (event) => {
    const code = event.target.closest?.(".card")?.dataset.card;
    if (!code) return;
    dragged = code;
    event.dataTransfer.effectAllowed = "move";
    event.dataTransfer.setData("text/plain", cardFace(code));
    event.target.classList.add("dragging");
  });
  const over = (event) => {
    if (!dragged) return;
    const row = rowAt(event.target);
    light(row);
    if (row) { event.preventDefault(); event.dataTransfer.dropEffect = "move"; }
  };
  $(board).addEventListener("dragenter", over);
  $(board).addEventListener("dragover", over);
  // An element is entered before the one left is left: only leaving the board puts the light out.
  $(board).addEventListener("dragleave", (event) => {
    const box = $(board).getBoundingClientRect();
    if (event.clientX < box.left || event.clientX >= box.right || event.clientY < box.top || event.clientY >= box.bottom) light(null);
  });
  $(board).addEventListener("drop", (event) => {
    const row = rowAt(event.target);
    const code = dragged;
    if (!code || !row) return;
    event.preventDefault();
    dragged = null;
    light(null);
    place(code, row);
  });
  $(board).addEventListener("dragend", (event) => { dragged = null; light(null); event.target.classList?.remove("dragging"); });
  $(board).addEventListener("keydown", (event) => {
    const code = event.target.closest?.(".card")?.dataset.card;
    const key = event.key.toLowerCase();
    if ((event.ctrlKey || event.metaKey) && key === "z") { event.preventDefault(); undo(); return; }
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (code && KEYS[key]) { event.preventDefault(); move(code, KEYS[key]); return; }
    if (code && (key === "delete" || key === "backspace" || key === "0")) { event.preventDefault(); move(code, undefined); return; }
    if (key === "escape" && state.taken) { take(state.taken); return; }
    if (key === "enter" && state.text() && onEnter) { event.preventDefault(); onEnter(); }
  });
  state.load = (cards) => { state.cards = cards; state.rows = {}; state.history = []; state.taken = null; draw(); };
  state.set = (text) => {
    const rows = rowsOf(text);
    remember();
    state.rows = {};
    state.taken = null;
    ROWS.forEach((r) => readCards(rows[r] || "", SIZES[r]).cards.forEach((c) => { if (state.cards.includes(c)) state.rows[c] = r; }));
    draw();
  };
  state.text = () => (ROWS.every((r) => inRow(r).length === SIZES[r]) ? ROWS.map((r) => inRow(r).join(" ")).join(" / ") : null);
  state.clear = () => { state.cards = []; state.rows = {}; state.history = []; state.taken = null; put(board); $(warning).textContent = ""; };
  state.value = value;
  return state;
}
const DECLARE = "declare"; // the play that declares the hand's natural (solver.DECLARE)
const PLACE_ALL = "place all 13 cards first: 3 in the front, 5 in the middle, 5 in the back";

// --- Grade -------------------------------------------------------------------------------------------------
const grading = arranger("grade-board", "grade-warning", () => gradeNow());
function takeGradeText() {
  const { cards, problems } = readCards($("grade-text").value);
  put("grade-result");
  if (problems.length || cards.length !== 13) {
    $("grade-error").textContent = problems.length ? problems.join("; ") : `a hand is 13 cards; this is ${cards.length}`;
    return false;
  }
  $("grade-error").textContent = "";
  if (cards.join(" ") !== grading.cards.join(" ")) grading.load(cards);
  return true;
}
$("grade-form").addEventListener("submit", (event) => { event.preventDefault(); takeGradeText(); });
// Enter in the box: a new hand is laid out to be set; the hand already set is graded.
$("grade-text").addEventListener("keydown", (event) => {
  if (event.key !== "Enter" || event.ctrlKey || event.metaKey) return;
  event.preventDefault();
  const same = readCards($("grade-text").value).cards.join(" ") === grading.cards.join(" ");
  if (!takeGradeText()) return;
  if (!same) $("grade-board").querySelector(".card")?.focus();
  else if (grading.text()) gradeNow();
  else $("grade-error").textContent = PLACE_ALL;
});
$("grade-deal").addEventListener("click", () => busy("grade", "Dealing…", async () => {
  const { hand } = await api("/api/deal", {});
  $("grade-text").value = hand;
  takeGradeText();
}));

// Your rows beside the best play's, each row's EV over all the opponents (under basic the differences add up to the cost).
function gradeTable(g) {
  const n = g.player_count - 1;
  return h("table", {}, h("caption", { class: "sr-only" }, `Your rows and the best play's, EV in ${unit(n)}`),
    h("thead", {}, h("tr", {}, [["row"], ["yours"], ["hand", "desc"], ["EV"], ["best"], ["hand", "desc"], ["difference"]]
      .map(([t, cls]) => h("th", { scope: "col", class: cls }, t)))),
    h("tbody", {}, ROWS.map((r) => { const x = g.rows[r];
      return h("tr", {}, h("th", { scope: "row" }, r), h("td", {}, rowCards(x.cards)), h("td", { class: "desc" }, x.hand), h("td", {}, sign(n * x.ev)),
        h("td", {}, rowCards(x.best_cards)), h("td", { class: "desc" }, x.best_hand), h("td", {}, sign(n * x.ev_diff))); })));
}
function gradeView(g) {
  const n = g.player_count - 1;
  const best = g.declare ? g.natural_ev : g.best.ev;
  const yours = g.declared ? `You declared ${g.natural}: EV ${sign(g.ev)}` : `Your play: EV ${sign(g.ev)}`;
  return [h("p", { class: `verdict ${g.verdict}`, "data-testid": "grade-verdict" }, h("b", {}, VERDICT_NAMES[g.verdict] || g.verdict),
    ` (the decision: ${g.decision})`),
  h("p", { class: "big", "data-testid": "grade-summary" }, `${yours}; the best choice ${sign(best)}: your ${g.declared ? "choice" : "play"} cost ${g.lost.toFixed(3)} ${unit(n)}`,
    g.declare || g.declared ? "" : ` (paired difference ${sign(g.diff)} ± ${g.diff_se === null ? "—" : g.diff_se.toFixed(3)})`),
  h("ul", { class: "why", "data-testid": "grade-why" }, g.why.map((line) => h("li", {}, line))),
  g.natural ? h("p", { "data-testid": "grade-natural" }, `This hand holds ${g.natural}: declaring it is worth ${sign(g.natural_ev)}, the best play of three rows ${sign(g.best.ev)}; `,
    g.declare ? h("b", {}, "declaring it was the best choice.") : "playing it out is the better choice.") : null,
  g.foul ? h("p", { class: "warning" }, `Your arrangement fouls: ${g.foul_reason}`) : null,
  h("p", {}, g.declare ? "Best play of three rows: " : "Best: ", arrangementLine(g.best.arrangement)),
  h("p", { class: "hint" }, `EV in ${unit(n)}, against opponents set by ${g.opponent} (${g.sample_count} samples, rules ${g.rules.name}, seed ${g.seed}); `
    + "each row's EV is what the row itself wins (under basic the rows add up to the EV; a scoring bonus, royalties and naturals come on top)."),
  g.rows ? gradeTable(g) : null];
}
// Declaring is offered where the rules have naturals; whether this hand holds one is yours to see.
const hasNaturals = (rules) => /(^|\+)naturals$|(^|\+)naturals\+/.test(rules);
function showGradeDeclare() { $("grade-declare").hidden = !hasNaturals($("grade-options").querySelector(".rules")?.value || ""); }
function gradeNow(declare = false) {
  if (declare && !takeGradeText()) return undefined; // the hand in the box is the one declared
  return busy("grade", "Grading…", async () => {
    const arrangement = declare ? DECLARE : grading.text();
    if (!arrangement) throw new Error(PLACE_ALL);
    const settings = readOptions("grade-options");
    const g = await api("/api/grade", { hand: grading.cards.join(" "), ...(declare ? { declare: true } : { arrangement }), ...settings,
      seed: takeLinkSeed("grade") });
    put("grade-result", gradeView(g), share("grade", { hand: grading.cards.join(" "), arrangement, ...settings, seed: g.seed }));
  });
}
$("grade-go").addEventListener("click", () => gradeNow());
$("grade-declare").addEventListener("click", () => gradeNow(true));
$("grade-options").addEventListener("change", showGradeDeclare);

// --- Play ---------------------------------------------------------------------------------------------------
const STORE = "chinese-poker-session";
const SESSION_SCHEMA = 2; // a session kept by a page that read other fields is not restored
let replaySeed; // a session's seed from the address (#play?seed=N deals that session again)
// { schema_version, session, seed, bots, rules, player_count, hand, phase, deal, results: [{ hand, review, scores, result }], totals }
let session = null;
const playing = arranger("play-board", "play-warning", () => playHand(false));
function saveSession() {
  try {
    if (session) localStorage.setItem(STORE, JSON.stringify(session)); else localStorage.removeItem(STORE);
  } catch (e) {
    $("play-error").textContent = "this browser would not keep the session (storage is full or refused): a reload will lose it";
  }
}
const names = () => seatNames(session.bots);

function botSelectors(chosen) {
  const n = Number($("play-count").value);
  const current = chosen || [...document.querySelectorAll(".play-bot")].map((s) => s.value);
  put("play-bots", Array.from({ length: n }, (_, i) => {
    const wanted = current[i] || "table";
    const listed = BOTS.some((b) => b.name === wanted) || !/^[a-z0-9:=._-]{1,80}$/.test(wanted);
    return h("label", {}, `Bot ${i + 1} `, h("select", { class: "play-bot", "data-testid": `play-bot-${i}` },
      BOTS.map((b) => h("option", { value: b.name, selected: b.name === wanted, title: b.description }, b.name)),
      listed ? null : h("option", { value: wanted, selected: true }, wanted)));
  }));
}
$("play-count").addEventListener("change", () => botSelectors());
put("play-rules", RULES.map((r) => h("option", { value: r }, r)));
// The choices of a session (from a link to deal it again, or a session restored) shown in the set-up controls.
function showSetup(bots, rules) {
  if (Array.isArray(bots) && bots.length >= 1 && bots.length <= 3) {
    $("play-count").value = String(bots.length);
    botSelectors(bots);
  }
  if (rules) chooseRules($("play-rules"), rules);
}

function dealerName(deal) { return names()[deal.dealer] ?? `seat ${deal.dealer}`; }
function showDeal() {
  const deal = session.deal;
  put("play-status", h("p", { class: "big" }, `Hand ${session.hand + 1} of 8 (${session.rules}); dealer: ${dealerName(deal)}`));
  put("play-table");
  const hand = readCards(deal.hand).cards;
  if (playing.cards.join(" ") !== hand.join(" ")) playing.load(hand);
  $("play-go").hidden = false;
  $("play-next").hidden = true;
  const natural = $("play-natural");
  natural.hidden = !deal.natural;
  put(natural, deal.natural ? h("div", { class: "seat", role: "group", "aria-labelledby": "natural-title" },
    h("p", { class: "big", id: "natural-title" }, `You hold a natural: ${deal.natural}. Declare it or play the hand?`),
    h("div", { class: "controls" },
      h("button", { type: "button", class: "primary", "data-testid": "play-declare", onclick: () => playHand(true) }, `Declare ${deal.natural}`),
      h("button", { type: "button", "data-testid": "play-out", onclick: () => { natural.hidden = true; $("play-board").querySelector(".card")?.focus(); } }, "Play it out"))) : []);
}
// The server's word on the session's current hand: its result once scored (the page may have been reloaded
// while it was scored, or the hand sent from another tab), else the hand to set. Asks again while it is being scored.
async function findHand() {
  for (;;) {
    let deal;
    try {
      deal = await api("/api/session/deal", { session: session.session, hand_number: session.hand });
    } catch (e) {
      if (e.status === 404) { session = null; saveSession(); }
      throw e;
    }
    session.deal = deal;
    if (deal.result) { take(deal.result); return; }
    if (!deal.scoring) { session.phase = "set"; saveSession(); showDeal(); return; }
    $("play-busy").textContent = "Your hand is being scored…";
    await new Promise((resolve) => { setTimeout(resolve, 1000); });
  }
}
function sessionInProgress() { return session && session.phase !== "over"; }
$("play-start").addEventListener("click", () => {
  if (sessionInProgress() && !confirm(`Start a new session? The one in progress (hand ${session.hand + 1} of 8) will be left unfinished.`)) return;
  return busy("play", "Dealing…", async () => {
    const bots = [...document.querySelectorAll(".play-bot")].map((s) => s.value);
    const started = await api("/api/session/start", { bots, rules: $("play-rules").value, seed: replaySeed });
    replaySeed = undefined;
    history.replaceState(null, "", "#play");
    session = { ...started, schema_version: SESSION_SCHEMA, hand: 0, phase: "deal", results: [], totals: new Array(bots.length + 1).fill(0) };
    saveSession();
    put("play-totals"); put("play-summary");
    await findHand();
  }, { result: "play-table" });
});

function outcome(rows) {
  return ROWS.map((name) => `${name} ${rows[name] > 0 ? "win" : rows[name] < 0 ? "lose" : "tie"}`).join(", ");
}
// A scored hand as the table saw it; `seatName` names the seats (the current session's, or a past one's).
function playResult(result, seatName = names()) {
  const me = result.seats[0];
  return [result.seats.map((seat, i) => h("div", { class: "seat", "data-testid": `seat-${i}` }, h("h3", {}, seatName[i]),
    seat.natural ? h("p", {}, `declared ${seat.natural}`)
      : ROWS.map((r) => h("div", {}, `${r}: `, rowCards(seat.arrangement[r]), ` ${seat.rows[r].hand}`)),
    seat.foul ? h("p", { class: "warning" }, `foul: ${seat.foul_reason}`) : null,
    h("p", {}, `this hand ${sign(result.scores[i], 0)} units: ${result.pairs[i].map((p, j) => (j === i ? "" : `${sign(p, 0)} against ${seatName[j]}`)).filter(Boolean).join(", ")}`))),
  h("div", { class: "seat", "data-testid": "play-rows" }, h("h3", {}, "Your rows against each opponent"),
    h("ul", {}, result.seats.slice(1).map((seat, k) => h("li", {}, `${seatName[k + 1]}: `,
      result.row_results[0][k + 1] ? outcome(result.row_results[0][k + 1]) : (me.natural || seat.natural ? "settled by the natural" : ""),
      ` (${sign(result.pairs[0][k + 1], 0)})`)))),
  h("div", { class: "seat", "data-testid": "play-grade" }, reviewView(result.review), result.grade ? gradeTable(result.grade) : null)];
}
function reviewView(r) {
  const n = r.player_count - 1;
  return [h("p", { class: "big" }, `Your play: EV ${sign(r.ev)}; the best choice ${sign(r.best_ev)}: it cost ${r.lost.toFixed(3)} ${unit(n)}`),
    r.natural ? h("p", {}, `Declaring ${r.natural} was worth ${sign(r.natural_ev)}; the best play ${sign(r.play_ev)}.`) : null,
    h("p", {}, "Best: ", r.best.startsWith("declare") ? r.best : arrangementLine(rowsOf(r.best))),
    h("p", { class: "hint" }, `Graded against ${n} opponent${n > 1 ? "s" : ""} set by ${r.opponent} (${r.sample_count} samples, seed ${r.seed}).`)];
}
function playHand(declare) {
  if (!session || session.phase !== "set") return undefined; // a scored hand is not sent again (Enter on its board)
  return busy("play", "The bots are thinking…", async () => {
    const arrangement = declare ? null : playing.text();
    if (!declare && !arrangement) throw new Error(PLACE_ALL);
    let result;
    try {
      result = await api("/api/session/play", { session: session.session, hand_number: session.hand, arrangement, declare, samples: 500 });
    } catch (e) {
      if (e.status === 404) { session = null; saveSession(); }
      if (e.status === 409) { await findHand(); return; } // scored already, or being scored: its result, when there is one
      throw e;
    }
    take(result);
  }, { result: "play-table" });
}
// A scored hand: kept once in the session, then shown.
function take(result) {
  if (!session.results.some((r) => r.hand === session.hand)) {
    session.results.push({ hand: session.hand, review: result.review, scores: result.scores, result });
  }
  session.totals = result.totals;
  if (result.seed !== null) session.seed = result.seed;
  session.phase = session.hand + 1 >= 8 ? "over" : "scored";
  saveSession();
  if (session.phase === "over") keepPast(session);
  showScored();
}
function showScored() {
  const last = session.results[session.results.length - 1];
  put("play-status", h("p", { class: "big" }, `Hand ${last.hand + 1} of 8 (${session.rules})`));
  $("play-natural").hidden = true;
  put("play-table", playResult(last.result));
  $("play-go").hidden = true;
  $("play-next").hidden = session.phase === "over";
  drawTotals();
  if (session.phase === "over") drawSummary(); else put("play-summary");
  ($("play-next").hidden ? $("play-start") : $("play-next")).focus({ preventScroll: true });
}
$("play-go").addEventListener("click", () => playHand(false));
$("play-next").addEventListener("click", () => {
  if (!session || !["scored", "deal"].includes(session.phase)) return undefined;
  // From "deal" (the last try at dealing failed: busy, a time limit, the network) it asks for the same hand again.
  return busy("play", "Dealing…", async () => {
    if (session.phase === "scored") { session.hand += 1; session.phase = "deal"; saveSession(); }
    await findHand();
  }, { result: "play-table" });
});

function drawTotals() {
  const seatName = names();
  const order = seatName.map((n, i) => [n, session.totals[i]]).sort((a, b) => b[1] - a[1]);
  const place = (total) => { const ahead = order.filter(([, t]) => t > total).length, tied = order.filter(([, t]) => t === total).length;
    return tied > 1 ? `shares place ${ahead + 1}` : `place ${ahead + 1}`; };
  put("play-totals", h("h3", {}, session.phase === "over" ? "Session over: final totals (units)" : "Running totals (units)"),
    h("table", {}, h("tbody", {}, order.map(([n, t]) => h("tr", {}, h("th", { scope: "row" }, n), h("td", {}, sign(t, 0)), h("td", {}, place(t)))))));
}
function drawSummary() {
  const lost = session.results.reduce((s, r) => s + r.review.lost, 0);
  const n = session.player_count - 1;
  put("play-summary", h("h3", {}, "Your session, hand by hand"),
    h("table", { "data-testid": "play-summary-table" }, h("thead", {}, h("tr", {}, ["hand", "yours, then the best", `EV lost (${unit(n)})`].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, session.results.map((r) => h("tr", {}, h("td", {}, String(r.hand + 1)),
        h("td", {}, h("div", {}, "yours: ", r.review.yours.startsWith("declared") ? r.review.yours : arrangementLine(rowsOf(r.review.yours))),
          h("div", {}, "best: ", r.review.best.startsWith("declare") ? r.review.best : arrangementLine(rowsOf(r.review.best))),
          // Solve as the hand was graded: its rules, players, opponent, samples and seed, so it shows the same figures
          h("a", { href: link("solve", { hand: r.review.hand, rules: r.review.rules, players: r.review.player_count,
            opponent: r.review.opponent, samples: r.review.sample_count, seed: r.review.seed }), "data-testid": `play-solve-${r.hand}` }, `hand ${r.hand + 1} in Solve`)),
        h("td", {}, r.review.lost.toFixed(3)))))),
    h("p", { class: "big", "data-testid": "play-lost" }, `EV lost over the session: ${lost.toFixed(3)} units (${(lost / session.results.length).toFixed(3)} ${unit(n)})`),
    session.seed !== null && session.seed !== undefined ? h("p", {}, h("a", { href: link("play", { seed: session.seed, bots: session.bots.join(","), rules: session.rules }),
      "data-testid": "play-again" }, "Deal this session again")) : null);
}
// A session saved by this page (an older page's, or damaged data, is dropped with a word, never half read).
function validSession(s) {
  const isInt = Number.isInteger;
  const text = (x) => typeof x === "string";
  return Boolean(s && typeof s === "object" && s.schema_version === SESSION_SCHEMA && text(s.session) && text(s.rules)
    && Array.isArray(s.bots) && s.bots.length >= 1 && s.bots.length <= 3 && s.bots.every(text)
    && s.player_count === s.bots.length + 1 && isInt(s.hand) && s.hand >= 0 && s.hand < 8
    && ["deal", "set", "scored", "over"].includes(s.phase)
    && Array.isArray(s.totals) && s.totals.length === s.bots.length + 1 && s.totals.every(Number.isFinite)
    && Array.isArray(s.results) && s.results.every((r) => r && isInt(r.hand) && r.review && r.result && Array.isArray(r.result.seats)
      && Number.isFinite(r.review.lost) && text(r.review.yours) && text(r.review.best) && text(r.review.hand))
    && (s.phase === "deal" || s.phase === "set" || s.results.length > 0));
}
async function restoreSession() {
  try { drawPast(); } catch (e) { put("play-past-list"); } // past sessions never stop the page
  let kept = null;
  try { kept = JSON.parse(localStorage.getItem(STORE) || "null"); } catch (e) { kept = undefined; }
  if (kept === null) return;
  const forget = () => {
    session = null;
    saveSession();
    put("play-status", h("p", { class: "hint", "data-testid": "play-dropped" }, "A session this browser kept could not be read (an older page's, or damaged); start a new one."));
  };
  if (!validSession(kept)) { forget(); return; }
  session = kept;
  showSetup(session.bots, session.rules);
  try {
    if (session.results.length) drawTotals();
    if (session.phase === "over" || session.phase === "scored") { showScored(); return; }
  } catch (e) {
    put("play-table"); put("play-totals"); put("play-summary");
    forget();
    return;
  }
  // Set, or being scored when the page was left: the server says which.
  busy("play", "Finding your hand…", findHand, { result: "play-table" });
}

// --- Past sessions: each finished session kept with every hand's table, to be replayed -------------------------
const PAST = "chinese-poker-sessions";
const PAST_KEPT = 50; // the newest finished sessions kept
const validPast = (s) => validSession(s) && s.phase === "over" && (s.ended === undefined || Number.isFinite(s.ended));
const pad2 = (n) => String(n).padStart(2, "0");
// A time (ms) as this browser's local date, "2024-05-03", and with the time of day, "2024-05-03 14:05".
function localDay(ms) { const d = new Date(ms); return `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())}`; }
function localTime(ms) { const d = new Date(ms); return `${localDay(ms)} ${pad2(d.getHours())}:${pad2(d.getMinutes())}`; }
const sessionLost = (s) => s.results.reduce((t, r) => t + r.review.lost, 0);
// The finished sessions this browser keeps, oldest first (damaged ones are left out, never half read).
function pastSessions() {
  try {
    const all = JSON.parse(localStorage.getItem(PAST) || "[]");
    return Array.isArray(all) ? all.filter(validPast) : [];
  } catch (e) { return []; }
}
// Keep the newest PAST_KEPT sessions; while the storage refuses them, the oldest go. Returns how many were kept.
function savePast(list) {
  let kept = list.slice(-PAST_KEPT);
  for (;;) {
    try { localStorage.setItem(PAST, JSON.stringify(kept)); return kept.length; } catch (e) {
      if (!kept.length) return 0;
      kept = kept.slice(1);
    }
  }
}
// A session just over joins the past ones (once, whatever reloads happened while it was played).
function keepPast(s) {
  const list = pastSessions().filter((x) => x.session !== s.session);
  list.push({ ...JSON.parse(JSON.stringify(s)), ended: Date.now() });
  if (savePast(list) < Math.min(list.length, PAST_KEPT)) $("play-error").textContent = "this browser's storage is full: the oldest past sessions were forgotten";
  drawPast();
}
let pastOpen = null; // { id, at }: the past session replayed and the index of the hand shown
function drawPast() {
  const list = pastSessions().reverse(); // the newest first
  $("play-past").hidden = !list.length;
  const when = (s) => (Number.isFinite(s.ended) ? localTime(s.ended) : "—");
  put("play-past-list", list.length ? h("table", { "data-testid": "play-past-table" },
    h("caption", { class: "sr-only" }, "Your finished sessions, the newest first"),
    h("thead", {}, h("tr", {}, ["ended", "bots and rules", "your total (units)", "EV lost (units)", "replay"].map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, list.map((s) => h("tr", {}, h("td", {}, when(s)),
      h("td", {}, h("div", {}, s.bots.join(", ")), h("div", {}, s.rules.split("+").map((part, i) => (i ? [h("wbr"), `+${part}`] : part)))),
      h("td", {}, sign(s.totals[0], 0)), h("td", {}, sessionLost(s).toFixed(3)),
      h("td", {}, h("button", { type: "button", "data-testid": "play-past-open", "aria-label": `Replay the session ended ${when(s)}`,
        onclick: () => showPast(s.session, 0, true) }, "Replay")))))) : null);
  if (pastOpen && !list.some((s) => s.session === pastOpen.id)) { pastOpen = null; put("play-past-replay"); }
}
// One hand of a past session as the table was: every seat's rows, with that session's seat names. The current
// session is not touched.
function showPast(id, at, opening = false) {
  const s = pastSessions().find((x) => x.session === id);
  const box = $("play-past-replay");
  if (!s) { pastOpen = null; put(box); return; }
  const hands = [...s.results].sort((a, b) => a.hand - b.hand);
  const index = Math.min(Math.max(at, 0), hands.length - 1);
  const r = hands[index];
  pastOpen = { id, at: index };
  const focused = box.contains(document.activeElement) ? document.activeElement.dataset.testid : null;
  let table;
  try { table = playResult(r.result, seatNames(s.bots)); } catch (e) {
    table = h("p", { class: "warning" }, `Hand ${r.hand + 1} cannot be shown: the data this browser kept for it is damaged.`);
  }
  put(box, h("p", { class: "big", "data-testid": "play-past-hand" },
    `Session ended ${Number.isFinite(s.ended) ? localTime(s.ended) : "—"} against ${s.bots.join(", ")} (${s.rules}): hand ${r.hand + 1} of 8`),
  h("div", { class: "controls" },
    h("button", { type: "button", "data-testid": "play-past-previous", disabled: index === 0, onclick: () => showPast(id, index - 1) }, "Previous hand"),
    h("button", { type: "button", "data-testid": "play-past-next", disabled: index === hands.length - 1, onclick: () => showPast(id, index + 1) }, "Next hand"),
    h("button", { type: "button", "data-testid": "play-past-close", onclick: () => { pastOpen = null; put(box); $("play-past-list").querySelector("button")?.focus(); } }, "Close")),
  table);
  // Focus stays on the button pressed; at the first or last hand, on the other way.
  const again = focused && (box.querySelector(`[data-testid="${focused}"]:not([disabled])`)
    || box.querySelector("[data-testid=play-past-previous]:not([disabled]), [data-testid=play-past-next]:not([disabled])"));
  if (opening || !again) box.focus({ preventScroll: true }); else again.focus({ preventScroll: true });
  if (opening) inView(box);
}

// --- Trainer ------------------------------------------------------------------------------------------------------
const TRAINER = "chinese-poker-trainer";
const training = arranger("train-board", "train-warning", () => trainGrade());
let trainHand = null; // { id, hand } of the hand on the board, with { rules, players } when it comes back; graded once
let trainGraded = false;
let trainChoice = null; // the player's own rules and players, kept while a hand that comes back holds the selectors
// A graded hand as this page keeps it: texts the page can draw (cards as "AS", rows as "F / M / B"), a finite cost,
// the rules and players; the optional fields, when present, of their type. Stored and imported entries alike.
const CARDS = (n) => `[2-9TJQKA][SHDC](?: [2-9TJQKA][SHDC]){${n - 1}}`;
const HAND_TEXT = new RegExp(`^${CARDS(13)}$`);
const ROWS_TEXT = new RegExp(`^${CARDS(3)} / ${CARDS(5)} / ${CARDS(5)}$`);
const DECLARED = /^declare .{1,80}$/; // a natural declared, as the Trainer keeps it
const optional = (value, test) => value === undefined || value === null || test(value);
const validEntry = (x) => Boolean(x && typeof x === "object" && typeof x.hand === "string" && HAND_TEXT.test(x.hand)
  && typeof x.yours === "string" && (ROWS_TEXT.test(x.yours) || DECLARED.test(x.yours))
  && typeof x.best === "string" && (ROWS_TEXT.test(x.best) || /^declare .{1,80}$/.test(x.best))
  && Number.isFinite(x.lost) && x.lost >= 0 && typeof x.rules === "string" && /^[a-z0-9+-]{1,60}$/.test(x.rules)
  && Number.isInteger(x.players) && x.players >= 2 && x.players <= 4
  && optional(x.id, (v) => typeof v === "string" && v.length <= 100) && optional(x.at, Number.isFinite)
  && optional(x.decision, (v) => typeof v === "string" && v.length <= 80) && optional(x.verdict, (v) => typeof v === "string")
  && optional(x.seed, Number.isSafeInteger) && optional(x.samples, Number.isSafeInteger)
  // the bot that set the opponents, as the page asked for it ("table"), or as a grade names it ("table:rules=2-4")
  && optional(x.opponent, (v) => typeof v === "string" && /^[a-z_]{1,20}(:[a-z_]{1,20}=[a-z0-9+.-]{1,60})?$/.test(v))
  && optional(x.again_of, (v) => typeof v === "string" && v.length <= 100)
  && (x.at === undefined || x.at === null || x.at <= Date.now() + 86_400_000)); // a time to come would push your own hands out
function progress() {
  try {
    const all = JSON.parse(localStorage.getItem(TRAINER) || "[]");
    return Array.isArray(all) ? all.filter(validEntry) : [];
  } catch (e) { return []; }
}
put("train-rules", RULES.map((r) => h("option", { value: r }, r)));
let drill = null; // { decision, filter }: hands of a decision class you played before come back, costliest first
const COMES_BACK = 3; // a mistake or a blunder is dealt again after this many other hands
// A hand played before comes back under the rules and player count it was graded under, so the two grades compare.
const replayable = (x) => RULES.includes(x.rules);
const under = (x) => ` (under ${x.rules}, ${x.players} players)`;
// The next hand: a costly hand of the drill's class among the hands the history's filters showed when the drill began,
// else a costly hand due again, else a new deal.
function nextHand(all) {
  const fresh = (x) => !all.some((y) => y.again_of === x.id);
  if (drill) {
    const chosen = (x) => FILTERS.every(([key]) => !drill.filter[key] || filterValue(x, key) === drill.filter[key]);
    const hand = all.filter((x) => x.decision === drill.decision && x.lost > 0 && fresh(x) && replayable(x) && chosen(x))
      .sort((a, b) => b.lost - a.lost)[0];
    if (hand) return { ...hand, again_of: hand.id, why: `Drill, ${drill.decision}: you lost ${hand.lost.toFixed(3)} on this hand before${under(hand)}` };
    drill = null;
  }
  const due = all.find((x, i) => ["mistake", "blunder"].includes(x.verdict) && !x.again_of && fresh(x) && replayable(x)
    && all.length - 1 - i >= COMES_BACK);
  return due ? { ...due, again_of: due.id, why: `Again: this hand cost you ${due.lost.toFixed(3)} ${COMES_BACK}+ hands ago${under(due)}` } : null;
}
// A hand that comes back holds the rules and players selectors at its own, unchangeable, until the next deal gives
// the player's own choice back.
function holdSelectors(again) {
  if (trainChoice) { $("train-rules").value = trainChoice.rules; $("train-players").value = trainChoice.players; }
  trainChoice = again ? { rules: $("train-rules").value, players: $("train-players").value } : null;
  if (again) { $("train-rules").value = again.rules; $("train-players").value = String(again.players); }
}
const trainRules = () => trainHand?.rules ?? $("train-rules").value;
const trainPlayers = () => trainHand?.players ?? Number($("train-players").value);
function trainDeal() {
  return busy("train", "Dealing…", async () => {
    const again = nextHand(progress());
    const { hand, seed } = again || await api("/api/deal", {});
    holdSelectors(again);
    trainHand = { id: `${seed ?? "again"}-${Date.now()}`, hand, again_of: again?.again_of, rules: again?.rules, players: again?.players };
    put("train-status", again ? h("p", { "data-testid": "train-again" }, again.why) : null);
    trainGraded = false;
    training.load(readCards(hand).cards);
    put("train-result");
    $("train-go").hidden = false;
    $("train-declare").hidden = !hasNaturals(trainRules());
    $("train-next").hidden = true;
    $("train-hint").hidden = false;
    $("train-board").querySelector(".card")?.focus();
  }).then(() => { $("train-rules").disabled = $("train-players").disabled = Boolean(trainChoice); }); // once busy gives the controls back
}
function trainGrade(declare = false) {
  if (!trainHand || trainGraded) return undefined; // a graded hand counts once (Enter again on its board)
  return busy("train", "Grading…", async () => {
    const arrangement = training.text();
    if (!declare && !arrangement) throw new Error(PLACE_ALL);
    const rules = trainRules(), players = trainPlayers();
    const g = await api("/api/grade", { hand: trainHand.hand, ...(declare ? { declare: true } : { arrangement }), rules, players,
      samples: 500, opponent: "table" });
    trainGraded = true;
    const entry = { id: trainHand.id, hand: trainHand.hand, yours: declare ? `declare ${g.natural}` : arrangement, lost: g.lost, rules,
      players, at: Date.now(),
      best: g.declare ? `declare ${g.natural}` : Object.values(g.best.arrangement).join(" / "),
      seed: g.seed, samples: g.sample_count, opponent: "table", verdict: g.verdict, decision: g.decision,
      again_of: trainHand.again_of };
    const all = [...progress().filter((x) => x.id !== entry.id), entry].slice(-1000);
    try { localStorage.setItem(TRAINER, JSON.stringify(all)); } catch (e) { $("train-error").textContent = "this browser would not keep your progress (storage is full or refused)"; }
    put("train-result", gradeView(g));
    drawProgress();
    $("train-go").hidden = true;
    $("train-declare").hidden = true;
    $("train-next").hidden = false;
    $("train-hint").hidden = true;
  }).then(() => { if (!$("train-next").hidden) $("train-next").focus({ preventScroll: true }); });
}
// --- The Trainer's history: filters, EV lost by day with its chart, export and import ---------------------------------
const SAME_PLAY = "same as the best play";
const DECISION_ORDER = ["naturals", "flush or straight in back", "splitting two pair", "where the pair goes", "the front's kicker",
  "the other kickers", SAME_PLAY]; // solver.lessons.DECISIONS, then SAME
const FILTERS = [["rules", "Rules"], ["players", "Players"], ["decision", "Hand type"]];
const historyFilter = { rules: "", players: "", decision: "" }; // "" counts every hand
const filterValue = (x, key) => (key === "players" ? String(x.players) : typeof x[key] === "string" ? x[key] : "");
const shownHands = (all) => all.filter((x) => FILTERS.every(([key]) => !historyFilter[key] || filterValue(x, key) === historyFilter[key]));
const DAYS_SHOWN = 14; // the last days with a graded hand, in the table and the chart
function drawProgress() {
  const all = progress();
  drawFilters(all);
  drawFigures(all);
}
// One list per filter, of the values the history holds, each with its count of hands.
function drawFilters(all) {
  const rank = (key, v) => { const i = key === "decision" ? DECISION_ORDER.indexOf(v) : 0; return i < 0 ? DECISION_ORDER.length : i; };
  put("train-filters", all.length ? [h("span", {}, "Count only:"), FILTERS.map(([key, label]) => {
    const counts = new Map();
    for (const x of all) { const v = filterValue(x, key); if (v) counts.set(v, (counts.get(v) || 0) + 1); }
    const values = [...counts.keys()].sort((a, b) => rank(key, a) - rank(key, b) || a.localeCompare(b));
    if (!counts.has(historyFilter[key])) historyFilter[key] = "";
    return h("label", {}, `${label} `, h("select", { "data-testid": `train-filter-${key}`,
      onchange: (event) => { historyFilter[key] = event.target.value; drawFigures(progress()); } },
    h("option", { value: "" }, "all"), values.map((v) => h("option", { value: v, selected: v === historyFilter[key] }, `${v} (${counts.get(v)})`))));
  })] : null);
}
// EV lost a hand by local day, oldest first: [{ day, hands, lost }] (hands without a date are left out).
function byDay(hands) {
  const days = new Map();
  for (const x of hands) {
    if (!Number.isFinite(x.at)) continue;
    const day = localDay(x.at);
    const d = days.get(day) || { day, hands: 0, lost: 0 };
    d.hands += 1;
    d.lost += x.lost;
    days.set(day, d);
  }
  return [...days.values()].sort((a, b) => a.day.localeCompare(b.day));
}
const SVG = "http://www.w3.org/2000/svg";
function svg(tag, attributes = {}, ...children) {
  const element = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
  element.append(...children.filter((c) => c !== null));
  return element;
}
// A line of the mean EV lost a hand, day by day; its text alternative says what it shows, the table beside it every figure.
function lostChart(days) {
  const W = 400, H = 150, left = 40, right = 8, top = 10, bottom = 20;
  const means = days.map((d) => d.lost / d.hands);
  const high = Math.max(...means) || 1;
  // Days are placed by their date: the days you did not play are gaps.
  const dayNumber = (d) => { const [yy, mm, dd] = d.day.split("-").map(Number); return Date.UTC(yy, mm - 1, dd) / 86_400_000; };
  const first = dayNumber(days[0]), span = dayNumber(days[days.length - 1]) - first;
  const x = (i) => (span ? left + ((dayNumber(days[i]) - first) * (W - left - right)) / span : (left + W - right) / 2);
  const y = (v) => top + (1 - v / high) * (H - top - bottom);
  const at = (i) => `${x(i).toFixed(1)},${y(means[i]).toFixed(1)}`;
  const highest = means.indexOf(Math.max(...means)), lowest = means.indexOf(Math.min(...means));
  const said = days.length === 1 ? `one day, ${days[0].day}: ${means[0].toFixed(3)}`
    : `${days.length} days from ${days[0].day} (${means[0].toFixed(3)}) to ${days[days.length - 1].day} (${means[means.length - 1].toFixed(3)}); `
      + `highest ${means[highest].toFixed(3)} on ${days[highest].day}, lowest ${means[lowest].toFixed(3)} on ${days[lowest].day}`;
  return svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart", role: "img", "data-testid": "train-chart",
    "aria-label": `Line chart of the mean EV lost a hand by day, ${said}. The table gives every day.` },
  svg("line", { x1: left, y1: y(0), x2: W - right, y2: y(0), class: "axis" }),
  svg("line", { x1: left, y1: top, x2: left, y2: y(0), class: "axis" }),
  svg("text", { x: left - 4, y: top + 4, "text-anchor": "end" }, high.toFixed(2)),
  svg("text", { x: left - 4, y: y(0) + 4, "text-anchor": "end" }, "0"),
  svg("text", { x: left, y: H - 4, "text-anchor": "start" }, days[0].day),
  days.length > 1 ? svg("text", { x: W - right, y: H - 4, "text-anchor": "end" }, days[days.length - 1].day) : null,
  days.length > 1 ? svg("polyline", { points: days.map((_, i) => at(i)).join(" "), class: "line" }) : null,
  ...days.map((d, i) => svg("circle", { cx: x(i).toFixed(1), cy: y(means[i]).toFixed(1), r: 3.5, class: "point" },
    svg("title", {}, `${d.day}: ${d.hands} hands, ${means[i].toFixed(3)} a hand`))));
}
function drawFigures(all) {
  if (!all.length) { put("train-progress", h("p", { class: "hint" }, "No hand graded yet.")); return; }
  const hands = shownHands(all);
  const chosen = FILTERS.filter(([key]) => historyFilter[key]).map(([key, label]) => `${label.toLowerCase()} ${historyFilter[key]}`);
  const of = chosen.length ? ` (of ${all.length}: ${chosen.join(", ")})` : "";
  if (!hands.length) { put("train-progress", h("p", { class: "hint", "data-testid": "train-mean" }, `0 hands${of}: none graded matches these choices.`)); return; }
  const mean = (xs) => xs.reduce((s, x) => s + x.lost, 0) / xs.length;
  const recent = hands.slice(-10);
  const costly = [...hands].sort((a, b) => b.lost - a.lost).slice(0, 5);
  const days = byDay(hands).slice(-DAYS_SHOWN);
  const undated = hands.filter((x) => !Number.isFinite(x.at)).length;
  const line = (text) => (text.startsWith("declare") ? text : arrangementLine(rowsOf(text)));
  put("train-progress",
    h("p", { class: "big", "data-testid": "train-mean" }, `${hands.length} hands${of}; mean EV lost ${mean(hands).toFixed(3)} units a hand, all opponents (last ${recent.length}: ${mean(recent).toFixed(3)})`),
    h("p", {}, "EV lost per hand, oldest first, by tens: ", Array.from({ length: Math.ceil(hands.length / 10) }, (_, k) => mean(hands.slice(10 * k, 10 * k + 10)).toFixed(3)).slice(-12).join(", ")),
    days.length ? [h("h3", {}, "EV lost over time"),
      h("figure", { class: "chart" }, lostChart(days),
        h("figcaption", { class: "hint" }, `Mean EV lost a hand (units, all opponents) ${days.length === 1 ? "on the one day you played"
          : `on each of the last ${days.length} days you played, oldest first`}.`)),
      h("table", { "data-testid": "train-days" }, h("caption", { class: "sr-only" }, "EV lost a hand by day, the newest last"),
        h("thead", {}, h("tr", {}, ["day", "hands", "mean EV lost a hand"].map((t) => h("th", { scope: "col" }, t)))),
        h("tbody", {}, days.map((d) => h("tr", {}, h("th", { scope: "row" }, d.day), h("td", {}, String(d.hands)), h("td", {}, (d.lost / d.hands).toFixed(3))))))] : null,
    undated ? h("p", { class: "hint" }, `${undated} hands kept without a date are not in the days.`) : null,
    leakTable(hands),
    h("h3", {}, "Your costliest hands"),
    h("table", { "data-testid": "train-costly" }, h("thead", {}, h("tr", {}, ["yours, then the best", "EV lost (units a hand, all opponents)"].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, costly.map((x) => h("tr", {}, h("td", {}, h("div", {}, "yours: ", line(x.yours)), h("div", {}, "best: ", line(x.best)),
        // Grade as the hand was graded (its seed, samples and opponent too), so it shows the same cost
        h("a", { href: link("grade", { hand: x.hand, arrangement: DECLARED.test(x.yours) ? DECLARE : x.yours, rules: x.rules, players: x.players, seed: x.seed,
          samples: x.samples, opponent: x.opponent?.split(":")[0] }) }, "review it in Grade")),
        h("td", {}, x.lost.toFixed(3)))))));
}

// Export: one versioned document of the graded hands and the past sessions of Play.
const HISTORY = "trainer-history";
const HISTORY_SCHEMA = 1;
const HISTORY_BYTES = 20e6; // a larger file is refused before it is read
const ENTRY_FIELDS = ["id", "hand", "yours", "best", "lost", "rules", "players", "at", "seed", "samples", "opponent", "verdict", "decision", "again_of"];
const plural = (n, word) => `${n.toLocaleString("en")} ${word}${n === 1 ? "" : "s"}`;
function exportHistory() {
  const entries = progress(), sessions = pastSessions();
  const document_ = { document: HISTORY, schema_version: HISTORY_SCHEMA, exported_at: Date.now(), entries, sessions };
  const url = URL.createObjectURL(new Blob([JSON.stringify(document_)], { type: "application/json" }));
  const a = h("a", { href: url, download: `chinese-poker-history-${localDay(Date.now())}.json`, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
  $("train-import-error").textContent = "";
  $("train-import-status").textContent = `exported ${plural(entries.length, "hand")} and ${plural(sessions.length, "past session")}`;
}
// Why a parsed file is not a history this page reads, in one line (null when it is one).
function historyProblem(doc) {
  const found = (v) => (v === undefined ? "nothing" : Array.isArray(v) ? "a list" : v === null ? "null" : typeof v === "object" ? "an object" : JSON.stringify(v).slice(0, 40));
  if (!doc || typeof doc !== "object" || Array.isArray(doc)) return `not a trainer history: expected a JSON object {"document": "${HISTORY}", ...}, found ${found(doc)}`;
  if (doc.document !== HISTORY) return `not a trainer history: "document" is ${found(doc.document)}, expected "${HISTORY}"`;
  if (doc.schema_version !== HISTORY_SCHEMA) return `schema_version ${found(doc.schema_version)} is not one this page reads (${HISTORY_SCHEMA})`;
  if (!Array.isArray(doc.entries)) return `its "entries" is ${found(doc.entries)}, expected a list`;
  if (doc.sessions !== undefined && !Array.isArray(doc.sessions)) return `its "sessions" is ${found(doc.sessions)}, expected a list`;
  return null;
}
const entryKey = (x) => (typeof x.id === "string" ? `id ${x.id}` : `at ${x.at} ${x.hand} ${x.yours}`);
const byTime = (a, b) => (Number.isFinite(a.at) ? a.at : -1e300) - (Number.isFinite(b.at) ? b.at : -1e300);
// Import: the whole file is refused in one line if it is not a history; else each entry is checked as a stored one
// is, merged by id (none twice), and what was done is said.
async function importHistory(file) {
  $("train-import-error").textContent = "";
  $("train-import-status").textContent = "";
  let doc;
  try {
    if (file.size > HISTORY_BYTES) throw new Error(`it is ${(file.size / 1e6).toFixed(1)} MB; a history is at most ${HISTORY_BYTES / 1e6} MB`);
    try { doc = JSON.parse(await file.text()); } catch (e) { throw new Error("not a trainer history: it is not JSON"); }
    const problem = historyProblem(doc);
    if (problem) throw new Error(problem);
  } catch (e) {
    $("train-import-error").textContent = `${file.name} was not imported: ${e.message}`;
    return;
  }
  const mine = progress(), have = new Set(mine.map(entryKey)), added = [];
  let malformed = 0, here = 0;
  for (const x of doc.entries) {
    if (!validEntry(x)) { malformed += 1; continue; }
    if (have.has(entryKey(x))) { here += 1; continue; }
    have.add(entryKey(x));
    added.push(Object.fromEntries(ENTRY_FIELDS.filter((k) => x[k] !== undefined).map((k) => [k, x[k]])));
  }
  const merged = [...mine, ...added].sort(byTime);
  const left = Math.max(0, merged.length - 1000);
  const said = [`imported ${plural(added.length, "hand")}, ${malformed} skipped as malformed, ${here} already here`];
  if (left) said.push(`the oldest ${plural(left, "hand")} left out (1,000 at most)`);
  try { localStorage.setItem(TRAINER, JSON.stringify(merged.slice(-1000))); } catch (e) {
    $("train-import-error").textContent = `${file.name} was not imported: this browser would not keep it (storage is full or refused)`;
    return;
  }
  if (doc.sessions?.length) {
    const past = pastSessions(), ids = new Set(past.map((s) => s.session));
    let bad = 0, known = 0, taken = 0;
    for (const s of doc.sessions) {
      if (!validPast(s)) bad += 1;
      else if (ids.has(s.session)) known += 1;
      else { ids.add(s.session); past.push(s); taken += 1; }
    }
    past.sort((a, b) => (Number.isFinite(a.ended) ? a.ended : 0) - (Number.isFinite(b.ended) ? b.ended : 0));
    const kept = savePast(past);
    said.push(`past sessions: ${taken} imported, ${bad} skipped as malformed, ${known} already here`
      + (kept < past.length ? `, the oldest ${past.length - kept} left out (${PAST_KEPT} at most)` : ""));
    drawPast();
  }
  $("train-import-status").textContent = said.join("; ");
  drawProgress();
}
$("train-export").addEventListener("click", exportHistory);
$("train-import").addEventListener("change", (event) => {
  const file = event.target.files[0];
  if (file) importHistory(file).finally(() => { event.target.value = ""; }); // the same file may be chosen again
});
// The leak finder: EV lost by the decision each hand turned on, the costliest first, with a drill for each.
function leakTable(all) {
  const classes = Object.create(null); // decision names come from stored data: no prototype to write into
  for (const x of all) {
    if (!x.decision || x.decision === "same as the best play") continue;
    const c = (classes[x.decision] ||= { hands: 0, lost: 0 });
    c.hands += 1;
    c.lost += x.lost;
  }
  const rows = Object.entries(classes).filter(([, c]) => c.lost > 0).sort((a, b) => b[1].lost - a[1].lost);
  if (!rows.length) return h("p", { class: "hint", "data-testid": "train-leaks" }, "No leak found yet: no hand graded so far cost anything.");
  return [h("h3", {}, "Your leaks: EV lost by the decision the hand turned on"),
    h("table", { "data-testid": "train-leaks" }, h("thead", {}, h("tr", {}, ["decision", "hands", "EV lost in all", "a hand", "drill"].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, rows.map(([name, c]) => h("tr", {}, h("th", { scope: "row" }, name), h("td", {}, String(c.hands)), h("td", {}, c.lost.toFixed(3)),
        h("td", {}, (c.lost / c.hands).toFixed(3)),
        h("td", {}, h("button", { type: "button", "data-testid": "train-drill", onclick: () => { drill = { decision: name, filter: { ...historyFilter } }; trainDeal(); } }, `Drill ${name}`)))))),
    h("p", { class: "hint" }, `Units a hand, all opponents, over ${all.length} hands graded; a hand played as the best play counts in none.`)];
}
// A hint: the row the best play puts a card in (the focused card, else the first not placed).
function trainHint() {
  if (!trainHand || trainGraded) return undefined;
  return busy("train", "Looking…", async () => {
    const focused = document.activeElement?.closest?.("#train-board .card")?.dataset.card;
    const placed = (c) => Boolean($("train-board").querySelector(`[data-testid^="row-"] [data-card="${c}"]`));
    const card = focused || training.cards.find((c) => !placed(c)) || training.cards[0];
    const s = await api("/api/solve", { hand: trainHand.hand, rules: trainRules(), players: trainPlayers(),
      samples: 500, opponent: "table", top: 0 });
    const row = ROWS.find((r) => s.arrangement[r].split(" ").includes(card));
    put("train-result", h("p", { "data-testid": "train-hint" }, `Hint: the best play puts the ${cardName(card)} in the ${row}.`));
  });
}
$("train-hint").addEventListener("click", trainHint);
$("train-deal").addEventListener("click", () => { drill = null; trainDeal(); });
$("train-next").addEventListener("click", trainDeal);
$("train-go").addEventListener("click", () => trainGrade());
$("train-declare").addEventListener("click", () => trainGrade(true));
// The rules change while a hand waits: declaring is offered or not by the rules the hand will be graded under.
$("train-rules").addEventListener("change", () => { if (trainHand && !trainGraded) $("train-declare").hidden = !hasNaturals($("train-rules").value); });
$("train-reset").addEventListener("click", () => { if (confirm("Forget every hand graded in the trainer?")) { localStorage.removeItem(TRAINER); drawProgress(); } });

// --- Views, the address and start-up ----------------------------------------------------------------------------------
function route() {
  const [view, query] = (location.hash.slice(1) || "solve").split("?");
  const name = ["solve", "grade", "play", "train"].includes(view) ? view : "solve";
  document.querySelectorAll(".view").forEach((el) => { el.hidden = el.id !== name; });
  document.querySelectorAll(".tab").forEach((tab) => {
    if (tab.dataset.view === name) tab.setAttribute("aria-current", "page"); else tab.removeAttribute("aria-current");
  });
  const params = new URLSearchParams(query || "");
  if (name === "solve" && params.get("hand")) {
    setOptions("solve-options", params);
    readLinkSeed("solve", params);
    $("solve-text").value = params.get("hand");
    if (takeSolveText()) solveNow();
  }
  if (name === "grade" && params.get("hand")) {
    setOptions("grade-options", params);
    readLinkSeed("grade", params);
    $("grade-text").value = params.get("hand");
    showGradeDeclare();
    const arrangement = params.get("arrangement");
    if (takeGradeText() && arrangement) {
      if (arrangement === DECLARE) gradeNow(true);
      else { grading.set(arrangement); if (grading.text()) gradeNow(); }
    }
  }
  if (name === "play" && seedOf(params.get("seed")) !== undefined) {
    replaySeed = seedOf(params.get("seed"));
    const bots = (params.get("bots") || "").split(",").filter(Boolean);
    showSetup(bots, params.get("rules"));
    const against = bots.length >= 1 && bots.length <= 3 ? ` against ${bots.join(", ")}` : "";
    put("play-status", h("p", { "data-testid": "play-replay" }, `The next session you start deals the hands of session ${replaySeed}${against}, rules ${$("play-rules").value}.`));
  }
  if (name === "train") {
    try { drawProgress(); } catch (e) { put("train-progress", h("p", { class: "warning" }, `Your progress cannot be shown: ${e.message}`)); }
  }
}
window.addEventListener("hashchange", route);
document.addEventListener("keydown", (event) => {
  if ((event.ctrlKey || event.metaKey) && event.key === "Enter") {
    const view = document.querySelector(".view:not([hidden])")?.id;
    const go = { solve: solveNow, grade: gradeNow, play: () => playHand(false), train: trainGrade }[view];
    if (go) { event.preventDefault(); go(); }
  }
});
(async () => {
  try {
    BOTS = (await api("/api/bots")).bots;
  } catch (e) {
    $("solve-error").textContent = e.message;
  }
  try {
    options("solve-options"); options("grade-options"); showGradeDeclare(); botSelectors(); drawGrid();
    await restoreSession();
  } finally {
    route(); // whatever a saved session held, the page shows one view and says it is ready
    document.body.dataset.ready = "true";
  }
})();
