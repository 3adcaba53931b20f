// The session clock in the header and the reality-check dialog (docs/responsible-gaming.md).
// The server decides when a check is due: the dialog opens when GET /api/responsible says so
// (asked at login, at the time the next check is due, and every minute) or when a round is
// refused with reality_check_due; "Continue" acknowledges it.

import * as api from "./api.js";
import { h } from "./dom.js";
import { onLanguage, signedMoney, t } from "./i18n.js";
import * as store from "./state.js";

const POLL_MS = 60_000;
let status = null;
let offset = 0; // server time - client time, in ms
let timer = null;
let dueTimer = null;
let dialog = null;

export const duration = (seconds) => {
  const s = Math.max(0, Math.floor(seconds));
  const pad = (n) => String(n).padStart(2, "0");
  return `${Math.floor(s / 3600)}:${pad(Math.floor((s % 3600) / 60))}:${pad(s % 60)}`;
};

const now = () => Date.now() + offset;

/** The latest GET /api/responsible answer (null before the first or when logged out). */
export const current = () => status;

function drawClock() {
  const clock = document.getElementById("session-clock");
  if (!clock) return;
  const started = status && store.state.user ? Date.parse(status.session.started) : NaN;
  clock.hidden = Number.isNaN(started);
  if (clock.hidden) return;
  const text = duration((now() - started) / 1000);
  clock.textContent = text;
  clock.setAttribute("aria-label", t("rg.clock_label", { time: text }));
  clock.title = clock.getAttribute("aria-label");
}

function closeDialog() {
  if (dialog) {
    dialog.close();
    dialog.remove();
    dialog = null;
  }
}

function showCheck(session) {
  closeDialog();
  const played = duration(session.played_seconds ?? (now() - Date.parse(session.started)) / 1000);
  const message = h("p", { class: "message", role: "status" });
  dialog = h(
    "dialog",
    { class: "rg-dialog", id: "reality-check", "data-app": "", "aria-labelledby": "reality-check-title" },
    h("h2", { id: "reality-check-title", text: t("rg.check_title") }),
    h("p", { "data-rg": "played", text: t("rg.check_played", { time: played }) }),
    h("p", { "data-rg": "net", text: t("rg.check_net", { net: signedMoney(session.net || 0) }) }),
    h("p", { "data-rg": "rounds", text: t("rg.check_rounds", { rounds: session.rounds || 0 }) }),
    h("p", { class: "muted", text: t("rg.check_help") }),
    message,
    h(
      "div",
      { class: "row" },
      h("button", {
        class: "btn primary",
        type: "button",
        "data-rg": "continue",
        text: t("rg.check_continue"),
        onclick: async () => {
          try {
            setStatus(await api.post("/api/responsible/reality-check/ack"));
            closeDialog();
          } catch (error) {
            message.textContent = error.message || error.code;
          }
        },
      }),
      h("a", { class: "btn", href: "#/responsible", text: t("rg.check_settings"), onclick: () => closeDialog() }),
    ),
  );
  dialog.addEventListener("cancel", (event) => event.preventDefault());
  document.body.append(dialog);
  dialog.showModal();
}

function setStatus(data) {
  status = data;
  if (data && data.server_time) offset = Date.parse(data.server_time) - Date.now();
  clearTimeout(dueTimer);
  if (data && data.reality_check.due) {
    if (!dialog) showCheck(data.session);
  } else if (data) {
    const wait = Date.parse(data.reality_check.next) - now() + 500;
    if (wait > 0 && wait < 2 ** 31) dueTimer = setTimeout(refresh, wait);
  }
  drawClock();
}

/** Ask the server for the player's status again (after a change, on a timer). */
export async function refresh() {
  if (!store.state.user) {
    status = null;
    drawClock();
    return null;
  }
  try {
    setStatus(await api.get("/api/responsible"));
  } catch {
    // Logged out or unreachable: the clock hides until the next answer.
  }
  return status;
}

export function start() {
  api.onRefusal((error) => {
    if (error.code === "reality_check_due") {
      showCheck(error.details || {});
      refresh();
    }
  });
  let wasIn = Boolean(store.state.user);
  store.onChange(() => {
    const isIn = Boolean(store.state.user);
    if (isIn !== wasIn) {
      wasIn = isIn;
      if (!isIn) closeDialog();
      refresh();
    }
  });
  onLanguage(drawClock);
  clearInterval(timer);
  let ticks = 0;
  timer = setInterval(() => {
    drawClock();
    ticks += 1;
    if (ticks % (POLL_MS / 1000) === 0) refresh();
  }, 1000);
  return refresh();
}

export { setStatus };
