// The bot of docs/write-a-bot.md in JavaScript (Node.js): the same rows, the same protocol.
const readline = require("readline");

const RANKS = "23456789TJQKA";

function arrange(hand) {
  const cards = hand.split(" ").sort((a, b) => RANKS.indexOf(a[0]) - RANKS.indexOf(b[0]));
  return { front: cards.slice(0, 3).join(" "), middle: cards.slice(3, 8).join(" "), back: cards.slice(8).join(" ") };
}

readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const message = JSON.parse(line);
  let answer;
  if (message.type === "hello") {
    answer = { type: "hello", name: "my-bot-js", version: "0.1", protocol: 2 };
  } else if (message.type === "arrange" && message.hand.split(" ").length === 13) {
    answer = { id: message.id, ...arrange(message.hand) };
  } else if (message.type === "quit") {
    process.exit(0);
  } else {
    answer = { id: message.id, error: "cannot serve this request" };
  }
  process.stdout.write(JSON.stringify(answer) + "\n");  // Node writes a pipe at once: no flush needed
});
