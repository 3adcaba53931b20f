// The receipts: every commitment this browser was shown before play, with the casino's
// signature of it (docs/fairness.md, "Receipts"). Kept in localStorage as one
// baccarat-receipts/1 object, which the verifier page (verify.html) reads, or saves to a file
// for `baccarat verify --receipts`. A receipt is what proves, later, which commitment the
// casino showed before the rounds were dealt: a seed revealed for them must hash to it.
// Every commitment a page shows before play is kept: the player's two (the fresh-shuffle
// tables' and the cut shoes'), a player-banked seat's and a shared table's shoe's.

import * as api from "./api.js";

export const STORE = "baccarat.receipts";
export const FORMAT = "baccarat-receipts/1";
const MODES = ["fun", "real"];
// The newest kept at most (the verifier page saves them all to a file before they go).
const MAX = 5000;

export function stored() {
  try {
    const data = JSON.parse(globalThis.localStorage.getItem(STORE) || "null");
    if (data && data.format === FORMAT && Array.isArray(data.receipts)) {
      return { format: FORMAT, signing_keys: data.signing_keys || [], receipts: data.receipts };
    }
  } catch {
    // Unreadable storage keeps nothing: a fresh set starts.
  }
  return { format: FORMAT, signing_keys: [], receipts: [] };
}

/** Keep the signed commitments of `states` (answers of /api/fairness, with their cut shoes'
 * seed, or of /api/fairness/receipt), and the public keys. */
export function keep(states, { table = null, keys = null } = {}) {
  const data = stored();
  const seen = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  let changed = false;
  for (const state of states.flatMap((s) => [s, s && s.shoe])) {
    if (!state || !state.commitment || !state.signature) continue;
    if (data.receipts.some((r) => r.commitment === state.commitment && r.mode === state.mode)) continue;
    const { commitment, mode, time, signature, key_id } = state;
    data.receipts.push({ commitment, mode, time, signature, key_id, table, seen });
    changed = true;
  }
  for (const key of keys || []) {
    if (data.signing_keys.some((k) => k.public_key === key.public_key)) continue;
    data.signing_keys.push({ key_id: key.key_id, public_key: key.public_key });
    changed = true;
  }
  if (!changed) return;
  data.receipts = data.receipts.slice(-MAX);
  try {
    globalThis.localStorage.setItem(STORE, JSON.stringify(data));
  } catch {
    // No storage (private mode, full): nothing is kept; the verifier says it has none.
  }
}

/** Keep what GET /api/fairness answered: both modes' commitments and the published keys. */
export function keepFairness(answer, table = null) {
  if (!answer) return;
  keep(
    MODES.map((mode) => answer[mode]),
    { table, keys: answer.signing_keys },
  );
}

const asked = new Set();

/** Keep a commitment shown at a player-banked seat or a shared table (its shoe's) in `mode`,
 * signed by the casino on request: once, as the page first shows it, before play. */
export async function keepShown(commitment, mode, table = null) {
  const key = `${commitment}:${mode}`;
  if (!commitment || !mode || asked.has(key)) return;
  asked.add(key);
  if (stored().receipts.some((r) => r.commitment === commitment && r.mode === mode)) return;
  try {
    keep([await api.get("/api/fairness/receipt", { commitment, mode })], { table });
  } catch (error) {
    // Offline: asked again at the next state that shows it (refused: not again).
    if (!(error instanceof api.ApiError) || error.status === 0) asked.delete(key);
  }
}

/** Ask for the commitments now in force and keep them (before play at a table). */
export async function refresh(table = null) {
  try {
    keepFairness(await api.get("/api/fairness"), table);
  } catch {
    // Offline or logged out: the next page that shows the commitments keeps them.
  }
}
