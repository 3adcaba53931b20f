// The account panel of the cashier page: the sessions, log out everywhere, password change.

import * as api from "./api.js";
import { h } from "./dom.js";
import { errorText } from "./errors.js";
import { dateTime, t } from "./i18n.js";
import * as store from "./state.js";

function passwordForm() {
  const current = h("input", { id: "password-current", type: "password", autocomplete: "current-password", required: true });
  const fresh = h("input", { id: "password-new", type: "password", autocomplete: "new-password", required: true, minlength: 10 });
  const message = h("p", { class: "message", role: "status", "data-message": "password" });
  return h(
    "form",
    {
      class: "panel",
      "data-form": "password",
      onsubmit: async (event) => {
        event.preventDefault();
        try {
          await api.request("PUT", "/api/password", { body: { current: current.value, new: fresh.value } });
          current.value = fresh.value = "";
          message.textContent = t("account.password_changed");
        } catch (error) {
          message.textContent = errorText(error);
        }
      },
    },
    h("h2", { text: t("account.password_title") }),
    h("p", { class: "muted", text: t("account.password_help") }),
    h("label", { for: "password-current", text: t("account.password_current") }),
    current,
    h("label", { for: "password-new", text: t("account.password_new") }),
    fresh,
    h("button", { class: "btn primary", type: "submit", text: t("account.password_button") }),
    message,
  );
}

/** The account section: a panel that loads the session list itself. */
export function accountPanel() {
  const sessions = h("section", { class: "panel", "data-panel": "sessions" });
  async function load() {
    let listed = [];
    let error = null;
    try {
      listed = (await api.get("/api/sessions")).sessions || [];
    } catch (e) {
      error = errorText(e);
    }
    const parts = [
      h("h2", { text: t("account.sessions_title") }),
      error ? h("p", { class: "message", text: error }) : null,
      h(
        "ul",
        { class: "sessions" },
        listed.map((s) => h("li", { "data-session": s.id }, `${dateTime(s.created)}${s.current ? ` (${t("account.this_session")})` : ""}`)),
      ),
      h("button", {
        class: "btn",
        type: "button",
        "data-action": "logout-everywhere",
        text: t("account.logout_everywhere"),
        onclick: async () => {
          await store.logout("/api/sessions/all").catch(() => {});
          location.hash = "#/";
        },
      }),
    ];
    sessions.replaceChildren(...parts.filter((part) => part !== null));
  }
  load();
  return h("div", { class: "two" }, sessions, passwordForm());
}
