// The client seed comes from the client (docs/fairness.md): with every new commitment the
// server puts a placeholder client seed of its own ("client_seed_source": "server"), and this
// browser replaces it at once with a fresh one made by crypto.getRandomValues, unless the
// player types their own. It remembers the seeds it made, to show who set the seed in use.

import * as api from "./api.js";

const MADE = "baccarat.client_seeds";
const MODES = ["fun", "real"];

/** A fresh client seed: 16 random bytes as 32 hex characters. */
export function freshSeed() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function made() {
  try {
    const list = JSON.parse(localStorage.getItem(MADE) || "[]");
    return Array.isArray(list) ? list : [];
  } catch {
    return [];
  }
}

function remember(seed) {
  const list = made().filter((s) => s !== seed);
  list.push(seed);
  localStorage.setItem(MADE, JSON.stringify(list.slice(-20)));
}

/** Who set a client seed: "browser" (made here), "you" (typed) or "server" (a placeholder). */
export function sourceOf(clientSeed, source) {
  if (source === "server") return "server";
  return made().includes(clientSeed) ? "browser" : "you";
}

/** Set a fresh client seed where the server holds its placeholder: the states after it. */
export async function ensure(states) {
  const data = states || (await api.get("/api/fairness"));
  for (const mode of MODES) {
    const state = data[mode];
    if (!state || state.client_seed_source !== "server") continue;
    const seed = freshSeed();
    remember(seed);
    data[mode] = await api.request("PUT", "/api/fairness/client-seed", { body: { mode, client_seed: seed } });
  }
  return data;
}

/** A seat's client seed for its pair (whose seed is committed as the pair forms), once per
 * commitment: the seed to send, or null when this role's is set or the first deal fixed them. */
export function seatSeedDue(fairness, role, sent) {
  if (!fairness || fairness.fixed || !role || fairness.client_seeds[role]) return null;
  if (sent.has(fairness.commitment)) return null;
  sent.add(fairness.commitment);
  const seed = freshSeed();
  remember(seed);
  return seed;
}
