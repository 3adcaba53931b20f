// Runs the browser's verifier (src/baccarat/web/js/fair.js) on whole exports; prints JSON:
// for each case of the file, its report (as `baccarat verify --json` gives it) and its text.
// Usage: node export_check.mjs FAIR_JS EXPORT_VECTORS_JSON
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [fairPath, vectorsPath] = process.argv.slice(2);
// The BLS library that verify.html loads before the verifier (a beacon round's signature).
await import(new URL("../vendor/noble-curves/bls12-381.js", pathToFileURL(fairPath)).href);
const { default: fair } = await import(pathToFileURL(fairPath).href);
const data = JSON.parse(readFileSync(vectorsPath, "utf8"));

const reports = [];
for (const c of data.cases) {
  const text = c.lines.map((line) => JSON.stringify(line)).join("\n");
  const report = await fair.verifyText(text, { keys: c.keys ?? null, receipts: c.receipts ?? null });
  reports.push({ name: c.name, report, text: fair.render(report) });
}
const settlements = [];
for (const [name, rules] of Object.entries(fair.RULES)) {
  const { bets, aliases, decks, shuffle, burn, multipliers } = rules;
  settlements.push({ name, bets, aliases, decks, shuffle, burn, multipliers });
}
console.log(JSON.stringify({ reports, rules: settlements }));
