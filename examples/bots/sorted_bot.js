// A protocol bot in JavaScript for Node.js (no packages): docs/protocol.md, version 1
// (its hello says no protocol, and it plays as version 1 bots always have).
// The same simple strategy as sorted_bot.py: lowest three cards in front, next five in the
// middle, highest five in the back, a middle that looks stronger than its back swapped.
//
//   bench arrange --bot examples/bots/sorted_bot_js.toml "AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C"
"use strict";
const readline = require("readline");

const RANKS = "23456789TJQKA";
const rank = (card) => RANKS.indexOf(card[0].toUpperCase());

function strength(cards) {
  const counts = new Map();
  for (const card of cards) counts.set(rank(card), (counts.get(rank(card)) || 0) + 1);
  const groups = [...counts.entries()].sort((a, b) => b[1] - a[1] || b[0] - a[0]);
  return groups.map(([r, n]) => n * 100 + r);
}

function stronger(a, b) {
  const x = strength(a), y = strength(b);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const u = x[i] === undefined ? -1 : Math.floor(x[i] / 100);
    const v = y[i] === undefined ? -1 : Math.floor(y[i] / 100);
    if (u !== v) return u > v;
  }
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] % 100 !== y[i] % 100) return x[i] % 100 > y[i] % 100;
  }
  return false;
}

function arrange(hand) {
  const cards = hand.split(/\s+/).sort((a, b) => rank(a) - rank(b));
  let front = cards.slice(0, 3), middle = cards.slice(3, 8), back = cards.slice(8);
  if (stronger(middle, back)) [middle, back] = [back, middle];
  return { front: front.join(" "), middle: middle.join(" "), back: back.join(" ") };
}

const lines = readline.createInterface({ input: process.stdin });
lines.on("line", (line) => {
  const message = JSON.parse(line);
  let answer;
  if (message.type === "hello") answer = { type: "hello", name: "sorted-js" };
  else if (message.type === "arrange") answer = { id: message.id, ...arrange(message.hand) };
  else if (message.type === "quit") process.exit(0);
  else { process.stderr.write(`unknown message ${line}\n`); return; }
  process.stdout.write(JSON.stringify(answer) + "\n");
});
lines.on("close", () => process.exit(0));
