// Runs src/baccarat/web/js/fair.js on the shared vectors and on extra cases; prints JSON.
// Usage: node fair_check.mjs FAIR_JS VECTORS_JSON CASES_JSON
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [fairPath, vectorsPath, casesPath] = process.argv.slice(2);
const { default: fair } = await import(pathToFileURL(fairPath).href);
const data = JSON.parse(readFileSync(vectorsPath, "utf8"));
const cases = JSON.parse(readFileSync(casesPath, "utf8"));

async function derive(v) {
  const order = await fair.shuffledOrder(v.server_seed, v.client_seed, String(v.nonce), v.decks, v.cut);
  return order;
}

const vectors = [];
for (const v of data.vectors) {
  const nonce = String(v.nonce_text ?? v.nonce);
  const random = await fair.FairRandom.create(v.server_seed, v.client_seed, nonce);
  const draws = [];
  for (const draw of v.first_draws) draws.push(await random.randrange(draw.n));
  const words = await fair.FairRandom.create(v.server_seed, v.client_seed, nonce);
  const firstWords = [];
  for (let i = 0; i < v.first_draws.length; i += 1) firstWords.push(await words.nextU32());
  const order = await fair.shuffledOrder(v.server_seed, v.client_seed, nonce, v.decks, v.cut);
  const preset = v.rules ? fair.PRESETS[v.rules] : null;
  const layout = fair.shoeLayout(order, preset);
  vectors.push({
    name: v.name,
    commitment: await fair.commitment(v.server_seed),
    first_block_hex: fair.toHex(await fair.firstBlock(v.server_seed, v.client_seed, nonce)),
    first_draws: draws,
    first_words: firstWords,
    order,
    layout,
    coup: fair.playCoup(order.slice(v.position)),
    seat_client_seed: v.client_seeds ? fair.seatClientSeed(v.client_seeds.banker, v.client_seeds.player) : null,
  });
}

const r = data.rejection;
const random = await fair.FairRandom.create(r.server_seed, r.client_seed, String(r.nonce));
const accepted = [];
for (let i = 0; i < r.words.filter((w) => w.accepted).length; i += 1) {
  accepted.push(await random.randrange(r.n));
}

const extra = [];
for (const c of cases.orders) {
  const order = await derive({ ...c, nonce: c.nonce_text });
  extra.push({ order, coup: fair.playCoup(order.slice(c.position)) });
}

const errors = {};
for (const [name, call] of Object.entries({
  seed: () => fair.commitment("xyz"),
  nonce: () => fair.shuffledOrder("00".repeat(32), "c", "-1", 1),
  decks: () => fair.shuffledOrder("00".repeat(32), "c", "0", 9),
  cut: () => fair.shuffledOrder("00".repeat(32), "c", "0", 1, 52),
  surrogate: () => fair.shuffledOrder("00".repeat(32), "\uD800", "0", 1),
})) {
  try {
    await call();
    errors[name] = null;
  } catch (error) {
    errors[name] = `${error.name}: ${error.message}`;
  }
}

console.log(JSON.stringify({ vectors, rejection: accepted, extra, presets: fair.PRESETS, errors }));
