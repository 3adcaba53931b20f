// The session, wallet, mode and table list, shared by every view.

import * as api from "./api.js";
import * as clientSeed from "./clientseed.js";
import { ASKED_CURRENCY, setCurrency } from "./i18n.js";

const MODE = "baccarat.mode";
const NICK = "baccarat.nickname";

const savedMode = () => (localStorage.getItem(MODE) === "real" ? "real" : "fun");

export const state = {
  user: null,
  // A session an operator launched (GET /api/session says so): {operator, mode, currency,
  // language, table, lobby_url}. It plays in its mode alone, the operator's money (play
  // money of ours for a demo), whatever the address or the browser's last choice says.
  operator: null,
  // The jurisdiction profile in force (GET /api/session; js/profile.js reads it).
  profile: null,
  wallet: { fun: 0, real: 0 },
  mode: savedMode(),
  tables: null,
  version: null,
  online: navigator.onLine !== false,
};

const listeners = new Set();
export const onChange = (fn) => listeners.add(fn);
export const offChange = (fn) => listeners.delete(fn);
export function changed() {
  for (const fn of listeners) fn(state);
}

export function setMode(mode) {
  if (state.operator) {
    state.mode = state.operator.mode; // the session's, and not the browser's choice
  } else {
    state.mode = mode === "real" ? "real" : "fun";
    localStorage.setItem(MODE, state.mode);
  }
  changed();
}

/** The session as GET /api/session (or a login) says: an operator's plays in its mode. */
function setSession(operator) {
  state.operator = operator && (operator.mode === "real" || operator.mode === "fun") ? operator : null;
  state.mode = state.operator ? state.operator.mode : savedMode();
}

export const balance = () => state.wallet[state.mode] ?? 0;

// The balance's one rule (help.meter_balance): the player's money minus the chips on the
// felt of the table they are at, whether the server holds those chips yet (a seat's bets
// are held as they are placed) or not (a house table's, until DEAL). The table or seat
// says what is on its felt; the header and its BALANCE display show the same amount.
const felt = { mode: null, cents: 0 };
export function setOnFelt(mode, cents) {
  if (felt.mode === mode && felt.cents === cents) return;
  felt.mode = mode;
  felt.cents = cents;
  changed();
}

/** A mode's balance as the page shows it: the wallet minus the chips on the felt. */
export const shownBalance = (mode) => (state.wallet[mode] ?? 0) - (felt.mode === mode ? felt.cents : 0);

function setWallet(data) {
  if (!data) return;
  // The player's accounts are in one currency: its amounts, and the tables' limits in it.
  if (typeof data.currency === "string" && setCurrency(data.currency)) state.tables = null;
  if (typeof data.pending_withdrawals === "number") {
    state.wallet.pending_withdrawals = data.pending_withdrawals;
  }
  for (const mode of ["fun", "real"]) {
    if (typeof data[mode] === "number") state.wallet[mode] = data[mode];
    else if (data[mode] && typeof data[mode].balance === "number") {
      state.wallet[mode] = data[mode].balance;
    }
  }
}

// The pages of this browser that show the balance (several tables on one screen, other
// tabs): a balance a round changed is told to them, and they read theirs from the server.
const wallets = typeof BroadcastChannel === "function" ? new BroadcastChannel("baccarat.wallet") : null;
if (wallets) {
  wallets.onmessage = () => {
    if (state.user) refreshWallet().catch(() => {});
  };
}

export function setBalance(mode, cents) {
  if (held) {
    missed = true;
    return;
  }
  const moved = state.wallet[mode] !== cents;
  state.wallet[mode] = cents;
  changed();
  if (moved && wallets) wallets.postMessage({ mode });
}

// While a round is being revealed the header keeps the balance from before it: a wallet
// read in the meantime is put aside, and read again when the reveal ends (what it read may
// be older than the round).
let held = false;
let missed = false;
export function hold(on) {
  held = on;
  if (!on && missed) {
    missed = false;
    refreshWallet().catch(() => {});
  }
}

/** Is there a session? GET /api/session answers 200 either way (no 401 on a page load). */
export async function restore() {
  try {
    const session = await api.get("/api/session");
    state.profile = (session && session.profile) || null;
    if (session && session.logged_in) {
      setSession(session.operator);
      state.user = { nickname: session.player.nickname };
      localStorage.setItem(NICK, session.player.nickname);
      setWallet(await api.get("/api/wallet"));
      clientSeed.ensure().catch(() => {});
    } else {
      state.user = null;
    }
  } catch {
    state.user = null;
  }
  changed();
  return state.user;
}

export async function refreshWallet() {
  const data = await api.get("/api/wallet");
  if (held) missed = true;
  else {
    setWallet(data);
    changed();
  }
}

/**
 * Keep the header's balance the server's: read the wallet when the page comes back into
 * view or focus, when the network returns, and every 30 s while it is visible (a deposit
 * approved by the operator, a seat's timeout, a top-up elsewhere).
 */
export function watchWallet() {
  const fresh = () => {
    if (state.user && document.visibilityState === "visible") refreshWallet().catch(() => {});
  };
  window.addEventListener("focus", fresh);
  document.addEventListener("visibilitychange", fresh);
  window.addEventListener("online", () => reachable(true));
  window.addEventListener("offline", () => reachable(false));
  setInterval(fresh, 30000);
}

// Online or not: the browser's events and every request's fate. Back online, the wallet is
// read again.
function reachable(on) {
  if (on === state.online) return;
  state.online = on;
  changed();
  if (on && state.user) refreshWallet().catch(() => {});
}
api.onReachable(reachable);

export async function login(nickname, password) {
  const body = await api.post("/api/sessions", { nickname, password });
  api.setSession(body);
  localStorage.setItem(NICK, nickname);
  setSession(null);
  state.user = { nickname };
  await refreshWallet();
  clientSeed.ensure().catch(() => {});
}

export async function register(nickname, password) {
  await api.post("/api/accounts", { nickname, password });
  await login(nickname, password);
}

// A session that ended elsewhere (expiry, another tab): show the player as logged out, so
// that the header and the next view offer the login form; the current view keeps its text.
api.onSessionEnded(() => {
  if (!state.user) return;
  api.setSession(null);
  state.user = null;
  changed();
});

export async function logout(path = "/api/sessions") {
  try {
    await api.endSession(path);
  } finally {
    api.setSession(null);
    state.user = null;
    setSession(null);
    state.wallet = { fun: 0, real: 0 };
    if (setCurrency(ASKED_CURRENCY)) state.tables = null;
    changed();
  }
}

/**
 * The tables (read once, or again when `fresh`: a table closed or its limits changed). The
 * browser keeps the answer and revalidates it on every read (fetch's default cache mode, and
 * the server's `Cache-Control: no-cache`): an If-None-Match with its ETag, answered 304
 * while the tables are the same. No `cache: "no-store"` or `"reload"` here: that would
 * fetch the whole 30 KB every time.
 */
export async function tables({ fresh = false } = {}) {
  if (!state.tables || fresh) {
    const data = await api.get("/api/tables");
    state.tables = Array.isArray(data) ? data : data.tables || data.items || [];
  }
  return state.tables;
}

export async function table(id) {
  return (await tables()).find((tbl) => tbl.id === id) || null;
}

export async function version() {
  if (!state.version) {
    try {
      state.version = (await api.get("/api/health")).version || "?";
    } catch {
      return "?";
    }
  }
  return state.version;
}
