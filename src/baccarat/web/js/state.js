// The session, wallet, mode and table list, shared by every view.

import * as api from "./api.js";

const MODE = "baccarat.mode";
const NICK = "baccarat.nickname";

export const state = {
  user: null,
  wallet: { fun: 0, real: 0 },
  mode: localStorage.getItem(MODE) === "real" ? "real" : "fun",
  tables: null,
  version: null,
};

const listeners = new Set();
export const onChange = (fn) => listeners.add(fn);
export const offChange = (fn) => listeners.delete(fn);
export function changed() {
  for (const fn of listeners) fn(state);
}

export function setMode(mode) {
  state.mode = mode === "real" ? "real" : "fun";
  localStorage.setItem(MODE, state.mode);
  changed();
}

export const balance = () => state.wallet[state.mode] ?? 0;

function setWallet(data) {
  if (!data) return;
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

export function setBalance(mode, cents) {
  state.wallet[mode] = cents;
  changed();
}

/** Is there a session? Reads the wallet: 200 means logged in. */
export async function restore() {
  try {
    setWallet(await api.get("/api/wallet"));
    state.user = { nickname: localStorage.getItem(NICK) || "" };
    try {
      const me = await api.get("/api/me");
      if (me && me.nickname) state.user.nickname = me.nickname;
    } catch {
      // Without /api/me the remembered nickname stands.
    }
  } catch {
    state.user = null;
  }
  changed();
  return state.user;
}

export async function refreshWallet() {
  setWallet(await api.get("/api/wallet"));
  changed();
}

export async function login(nickname, password) {
  const body = await api.post("/api/sessions", { nickname, password });
  api.setSession(body);
  localStorage.setItem(NICK, nickname);
  state.user = { nickname };
  await refreshWallet();
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

export async function logout() {
  try {
    await api.request("DELETE", "/api/sessions");
  } finally {
    api.setSession(null);
    state.user = null;
    state.wallet = { fun: 0, real: 0 };
    changed();
  }
}

export async function tables() {
  if (!state.tables) {
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
