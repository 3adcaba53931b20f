// The inactivity time-out of a profile that has one (Ontario: AGCO 4.30, docs/jurisdictions.md).
// The server ends a session whose player has not acted for the profile's time: its next
// request is refused 401 `session_inactive`, whichever it is (a table's, the wallet's, the
// page's first on a reload). The page then ends the session here too (the server clears its
// cookies) and says why, with the way back in: the login, or an operator's lobby.

import * as api from "./api.js";
import { h, webAddress } from "./dom.js";
import { t } from "./i18n.js";
import * as store from "./state.js";

let ended = null; // the refusal, until the page is ready to say it
let ready = false;
let dialog = null;

function show() {
  const error = ended;
  ended = null;
  if (dialog) return; // said once, however many requests were refused
  const operator = store.state.operator;
  const lobby = webAddress((operator && operator.lobby_url) || error.details.lobby_url || "");
  const loggedOut = store.logout().catch(() => {}); // the cookies of the ended session go
  dialog = h(
    "dialog",
    {
      class: "rg-dialog",
      id: "session-inactive",
      "data-app": "",
      "aria-labelledby": "session-inactive-title",
      "aria-describedby": "session-inactive-text",
    },
    h("h2", { id: "session-inactive-title", text: t("inactive.title") }),
    h("p", { id: "session-inactive-text", text: t("inactive.text", { minutes: error.details.minutes }) }),
    h(
      "div",
      { class: "row" },
      lobby
        ? h("a", { class: "btn primary", href: lobby, "data-inactive": "lobby", text: t("launch.back") })
        : h("a", {
            class: "btn primary",
            href: "#/",
            "data-inactive": "login",
            text: t("inactive.login"),
            onclick: async (event) => {
              event.preventDefault();
              await loggedOut;
              dialog.close();
              dialog.remove();
              dialog = null;
              // The lobby, drawn anew for a visitor: its login form.
              if (location.hash.replace(/^#\/?/, "")) location.hash = "#/";
              else window.dispatchEvent(new HashChangeEvent("hashchange"));
            },
          }),
    ),
  );
  // The way back is the one choice: Esc does not put it away.
  dialog.addEventListener("cancel", (event) => event.preventDefault());
  document.body.append(dialog);
  dialog.showModal();
}

/** Say why the session ended, from now on (the page can speak: its language is read). */
export function start() {
  ready = true;
  if (ended) show();
}

// A table in a frame of the several tables' screen (js/multitable.js) hands the refusal to
// the screen, which says it once for all its tables.
const framed = window.parent !== window && new URLSearchParams(location.search).has("embed");

function refused(error) {
  if (framed) {
    // The refusal's fields, not the ApiError: a message clones an Error as its name and
    // message alone, and the screen would not know it for a session's end.
    const { code, message, details } = error;
    window.parent.postMessage({ sessionInactive: { code, message, details } }, location.origin);
    return;
  }
  ended = error;
  if (ready) show();
}

// Listening from the first request on: the page's first read may be the one refused.
api.onRefusal((error) => {
  if (error.code === "session_inactive") refused(error);
});
window.addEventListener("message", (event) => {
  const error = event.data && event.data.sessionInactive;
  if (event.origin === location.origin && error && error.code === "session_inactive") refused(error);
});
